/*
 * The trace2 command's string builder: text that grows as it is added
 * to, always NUL-terminated once anything was added; out of memory, the
 * command stops (alloc.h).
 */
#ifndef T2_STRBUF_H
#define T2_STRBUF_H

#include <stddef.h>

struct t2_sb {
	char *s;  /* NULL until something is added */
	size_t len, cap;
};

/* Room for n more bytes and the NUL. */
void t2_sb_grow(struct t2_sb *b, size_t n);
void t2_sb_add(struct t2_sb *b, const char *s, size_t n);
void t2_sb_puts(struct t2_sb *b, const char *s);
/* n bytes at s as a JSON string, quotes included: always valid UTF-8
 * (U+FFFD for bad bytes). */
void t2_sb_jstr_n(struct t2_sb *b, const char *s, size_t n);
/* s (NULL: empty) as a JSON string. */
void t2_sb_jstr(struct t2_sb *b, const char *s);
/* Empty again, its memory kept. */
void t2_sb_reset(struct t2_sb *b);
void t2_sb_free(struct t2_sb *b);

#endif
