#include "tr2_json.h"
#include "tr2_hot.h"
#include "tr2_buf.h"
#include "trace2/target.h"

#include <stdint.h>
#include <string.h>

_Static_assert(TR2_JSON_ESCAPED_MAX(7) == TRACE2_JSON_ESCAPED_MAX(7) &&
	       TR2_UTF8_REPAIRED_MAX(7) == TRACE2_UTF8_REPAIRED_MAX(7),
	       "the public worst cases are the library's");

/* 0: copy as is; 1: needs an escape; 2: start of a multi-byte sequence. */
TR2_HOT_TABLE const unsigned char tr2_json_special[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* '"' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* '\\' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

/*
 * Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or 0 if s[0] starts none.
 */
static size_t utf8_sequence_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t n, i;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (avail < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

static char *escape_control(char *p, unsigned char c)
{
	*p++ = '\\';
	switch (c) {
	case '"': *p++ = '"'; break;
	case '\\': *p++ = '\\'; break;
	case '\n': *p++ = 'n'; break;
	case '\r': *p++ = 'r'; break;
	case '\t': *p++ = 't'; break;
	case '\f': *p++ = 'f'; break;
	case '\b': *p++ = 'b'; break;
	default:
		memcpy(p, "u00", 3);
		p[3] = tr2_hex_digits[c >> 4];
		p[4] = tr2_hex_digits[c & 15];
		p += 5;
	}
	return p;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Non-zero if any of the 8 bytes in w needs attention: a control byte,
 * '"', '\\' or a byte >= 0x80 (SWAR: one test for eight bytes). */
static uint64_t any_special(uint64_t w)
{
	uint64_t quote = w ^ (ONES * '"'), backslash = w ^ (ONES * '\\');

	return (w | ((w - ONES * 0x20) & ~w) | ((quote - ONES) & ~quote) |
		((backslash - ONES) & ~backslash)) & HIGHS;
}

/* Length of the leading run of bytes that are copied unchanged. */
static size_t plain_run(const unsigned char *s, const unsigned char *end)
{
	const unsigned char *p = s;
	uint64_t w;

	while (end - p >= 8) {
		memcpy(&w, p, 8);
		if (any_special(w))
			break;
		p += 8;
	}
	while (p < end && !tr2_json_special[*p])
		p++;
	return (size_t)(p - s);
}

/* The valid UTF-8 sequence at s copied to *p, or U+FFFD if s[0] starts
 * none; *p is advanced and the bytes of s taken are returned. */
static size_t copy_sequence(char **p, const unsigned char *s, const unsigned char *end)
{
	size_t n = utf8_sequence_len(s, (size_t)(end - s));

	if (!n) {
		memcpy(*p, "\xEF\xBF\xBD", 3);
		*p += 3;
		return 1;
	}
	memcpy(*p, s, n);
	*p += n;
	return n;
}

size_t tr2_json_escape(char *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	const unsigned char *end = s + len;
	char *p = out;

	while (s < end) {
		const unsigned char *run = s;

		s += plain_run(s, end);
		memcpy(p, run, (size_t)(s - run));
		p += s - run;
		if (s == end)
			break;
		if (tr2_json_special[*s] == 1) {
			p = escape_control(p, *s++);
			continue;
		}
		s += copy_sequence(&p, s, end);
	}
	return (size_t)(p - out);
}

size_t tr2_utf8_repair(char *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	const unsigned char *end = s + len;
	char *p = out;

	while (s < end) {
		if (*s < 0x80)
			*p++ = (char)*s++;
		else
			s += copy_sequence(&p, s, end);
	}
	return (size_t)(p - out);
}

/* How many bytes of s[0..len) make a piece of at most max (> 3) that
 * ends in no valid UTF-8 sequence: cut before a byte that continues none,
 * or where no byte of the three before it can start one. */
static size_t piece_len(const unsigned char *s, size_t len, size_t max)
{
	size_t k;

	if (len <= max)
		return len;
	for (k = max; k > max - 3 && (s[k] & 0xC0) == 0x80; k--)
		;
	return (s[k] & 0xC0) == 0x80 ? max : k;
}

/*
 * The exact length of what tr2_json_escape() (json) or tr2_utf8_repair()
 * writes for s[0..len) (SIZE_MAX if that does not fit in a size_t),
 * written piece by piece into a scratch buffer and counted: only asked
 * for a buffer below the worst case, off the library's own paths.
 */
static size_t output_len(const char *s, size_t len, int json)
{
	char piece[TR2_JSON_ESCAPED_MAX(64)];
	size_t n = 0, k;

	while (len) {
		if (n > SIZE_MAX - sizeof(piece))
			return SIZE_MAX;
		k = piece_len((const unsigned char *)s, len, 64);
		n += json ? tr2_json_escape(piece, s, k) : tr2_utf8_repair(piece, s, k);
		s += k;
		len -= k;
	}
	return n;
}

/* s escaped (json) or repaired into out, if it fits in size: what the
 * public functions do. */
static size_t bounded(char *out, size_t size, const char *s, size_t len, int json)
{
	size_t per_byte = json ? TR2_JSON_ESCAPED_MAX(1) : TR2_UTF8_REPAIRED_MAX(1), need;

	if (!len)
		return 0; /* s and out may be NULL */
	if (len > size / per_byte && (need = output_len(s, len, json)) > size)
		return need;
	return json ? tr2_json_escape(out, s, len) : tr2_utf8_repair(out, s, len);
}

size_t trace2_json_escape(char *out, size_t size, const char *s, size_t len)
{
	return bounded(out, size, s, len, 1);
}

size_t trace2_utf8_repair(char *out, size_t size, const char *s, size_t len)
{
	return bounded(out, size, s, len, 0);
}
