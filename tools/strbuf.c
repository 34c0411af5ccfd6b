#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "trace2/target.h"

void t2_sb_grow(struct t2_sb *b, size_t n)
{
	if (n > SIZE_MAX / 2 - b->len - 1)
		t2_out_of_memory();
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = t2_realloc(b->s, b->cap);
	}
}

void t2_sb_add(struct t2_sb *b, const char *s, size_t n)
{
	t2_sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void t2_sb_puts(struct t2_sb *b, const char *s)
{
	t2_sb_add(b, s, strlen(s));
}

void t2_sb_jstr_n(struct t2_sb *b, const char *s, size_t n)
{
	if (n > (SIZE_MAX - 2) / 8)
		t2_out_of_memory();
	t2_sb_grow(b, TRACE2_JSON_ESCAPED_MAX(n) + 2);
	b->s[b->len++] = '"';
	if (n)
		b->len += trace2_json_escape(b->s + b->len, TRACE2_JSON_ESCAPED_MAX(n), s, n);
	b->s[b->len++] = '"';
	b->s[b->len] = 0;
}

void t2_sb_jstr(struct t2_sb *b, const char *s)
{
	t2_sb_jstr_n(b, s, s ? strlen(s) : 0);
}

void t2_sb_reset(struct t2_sb *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

void t2_sb_free(struct t2_sb *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
