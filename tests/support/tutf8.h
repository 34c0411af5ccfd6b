/*
 * tutf8: UTF-8 validity (RFC 3629) for the test suite, written from the
 * definition and independently of the library: a sequence is decoded to
 * its code point, which must be in the range its length encodes (no
 * overlong forms), outside the surrogates U+D800..U+DFFF and at most
 * U+10FFFF.  Used by tjson and by the fuzzers' expectations.
 */
#ifndef TUTF8_H
#define TUTF8_H

#include <stddef.h>

/*
 * Length (1 to 4) of the valid UTF-8 sequence at s[0..avail), or 0 if
 * s[0] starts none (also when the sequence is cut off by avail).
 * avail must be at least 1.
 */
size_t tutf8_seq(const unsigned char *s, size_t avail);
/* 1 if s[0..len) is valid UTF-8, else 0. */
int tutf8_valid(const unsigned char *s, size_t len);

#endif
