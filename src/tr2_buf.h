/*
 * Line buffers: every record is built in one of these and handed to its
 * destination with one write().  The storage starts inside the struct (on
 * the caller's stack) and moves to the heap only for rare huge records;
 * if that allocation fails the record is dropped whole, never truncated.
 */
#ifndef TR2_BUF_H
#define TR2_BUF_H

#include "trace2.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TR2_BUF_STACK 1024

struct tr2_buf {
	char *p;
	size_t len;
	size_t cap;
	int failed; /* an allocation failed: the record must be dropped */
	char stack[TR2_BUF_STACK];
};

/*
 * Lengths and copies of a record's short strings (names, labels, file
 * names) inline, without calls into libc: an event then touches fewer
 * code pages (see tr2_hot.h).  Rare long strings are just as correct.
 * The empty asm keeps the compiler from turning the loops back into
 * strlen()/memcpy() calls.
 */
#define TR2_OPAQUE(v) __asm__("" : "+r"(v))

static inline size_t tr2_strlen(const char *s)
{
	size_t n = 0;

	/* four bytes a round; a byte is read only if none before it ended
	 * the string */
	while (s[n] && s[n + 1] && s[n + 2] && s[n + 3]) {
		n += 4;
		TR2_OPAQUE(n);
	}
	while (s[n])
		n++;
	return n;
}

static inline size_t tr2_strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n + 4 <= max && s[n] && s[n + 1] && s[n + 2] && s[n + 3]) {
		n += 4;
		TR2_OPAQUE(n);
	}
	while (n < max && s[n])
		n++;
	return n;
}

/* n bytes from s to p, in overlapping 8-, 4- or 1-byte moves.  gcc 12
 * (for i686, and at -O3 for x86-64), inlining it for a constant 6-byte
 * string whose length it cannot see through tr2_strlen(), warns about
 * the 8-byte moves of a branch that needs n >= 8. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
static inline void tr2_copy(char *p, const char *s, size_t n)
{
	size_t i;

	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			memcpy(p + i, s + i, 8);
			TR2_OPAQUE(i);
		}
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else if (n) {
		p[0] = s[0];
		p[n / 2] = s[n / 2];
		p[n - 1] = s[n - 1];
	}
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic pop
#endif

/* memcpy() for sizes known at compile time, tr2_copy() for the rest. */
#define TR2_COPY(p, s, n) \
	(__builtin_constant_p(n) ? (void)memcpy((p), (s), (n)) : tr2_copy((p), (s), (n)))

void tr2_buf_init(struct tr2_buf *b);
void tr2_buf_release(struct tr2_buf *b);
/* Make room for n more bytes; 0 on success, -1 (and failed set) if not. */
int tr2_buf_grow(struct tr2_buf *b, size_t n);

static inline int tr2_buf_room(struct tr2_buf *b, size_t n)
{
	return b->cap - b->len >= n ? 0 : tr2_buf_grow(b, n);
}

static inline void tr2_buf_add(struct tr2_buf *b, const void *s, size_t n)
{
	if (tr2_buf_room(b, n))
		return;
	TR2_COPY(b->p + b->len, (const char *)s, n);
	b->len += n;
}

static inline void tr2_buf_adds(struct tr2_buf *b, const char *s)
{
	tr2_buf_add(b, s, tr2_strlen(s));
}

/* Append a string literal without a strlen() at run time. */
#define tr2_buf_addlit(b, lit) tr2_buf_add((b), (lit), sizeof(lit) - 1)

static inline void tr2_buf_addc(struct tr2_buf *b, char c)
{
	if (tr2_buf_room(b, 1))
		return;
	b->p[b->len++] = c;
}

/*
 * Raw writers for the fixed-size parts of a record: reserve room once
 * with tr2_buf_reserve(), write through the returned pointer with the
 * tr2_put_*() functions (each returns the new end), then tr2_buf_commit().
 */
static inline char *tr2_buf_reserve(struct tr2_buf *b, size_t n)
{
	return tr2_buf_room(b, n) ? NULL : b->p + b->len;
}

static inline void tr2_buf_commit(struct tr2_buf *b, char *end)
{
	b->len = (size_t)(end - b->p);
}

static inline char *tr2_put(char *p, const void *s, size_t n)
{
	TR2_COPY(p, (const char *)s, n);
	return p + n;
}
#define tr2_put_lit(p, lit) tr2_put((p), (lit), sizeof(lit) - 1)

#define TR2_PAD_MAX 32
extern const char tr2_spaces[TR2_PAD_MAX];

/*
 * s, then spaces up to width (s is never cut here).  The caller reserved
 * room for TR2_PAD_MAX bytes more than it writes, so padding is one
 * fixed-size copy the compiler inlines.
 */
static inline char *tr2_put_padded(char *p, const char *s, size_t len, size_t width)
{
	if (width <= TR2_PAD_MAX)
		memcpy(p, tr2_spaces, TR2_PAD_MAX);
	else if (len < width)
		memset(p, ' ', width);
	tr2_copy(p, s, len);
	return p + (len < width ? width : len);
}

/* s as a quoted, escaped JSON string; needs TR2_JSON_ESCAPED_MAX(len) + 2. */
char *tr2_put_json_str(char *p, const char *s, size_t len);

/* Room the tr2_put_*() number writers need at most. */
#define TR2_NUM_MAX 32
char *tr2_put_u64(char *p, uint64_t v);
char *tr2_put_i64(char *p, int64_t v);
/* Eight lower-case hex digits of v ("%08x"). */
char *tr2_put_hex32(char *p, uint32_t v);

extern const char tr2_digit_pairs[201];
extern const char tr2_hex_digits[17]; /* "0123456789abcdef" */

/* Exactly n digits of v (v < 10^n), zero-padded; n <= 8.  Inline, so a
 * constant n unrolls into table copies. */
static inline char *tr2_put_digits(char *p, uint32_t v, int n)
{
	char *end = p + n;

	while (n >= 2) {
		n -= 2;
		memcpy(p + n, tr2_digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (n)
		*p = (char)('0' + v % 10);
	return end;
}

/* Six digits of v < 10^6, zero-padded (the microseconds of a time):
 * three independent pair lookups instead of a chain of divisions. */
static inline char *tr2_put_micros(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v - hi * 10000, mid = lo / 100;

	memcpy(p, tr2_digit_pairs + 2 * hi, 2);
	memcpy(p + 2, tr2_digit_pairs + 2 * mid, 2);
	memcpy(p + 4, tr2_digit_pairs + 2 * (lo - mid * 100), 2);
	return p + 6;
}

char *tr2_put_seconds_long(char *p, uint64_t us, size_t width);

/* The bytes of printf("%<width>.6f", us / 1e6) for any duration below
 * 2^32 seconds (where a double still resolves microseconds); needs
 * TR2_NUM_MAX + TR2_PAD_MAX + width bytes of room.  Inline for nearly
 * every t_abs and t_rel: under ten seconds, at most nine columns. */
static inline char *tr2_put_seconds(char *p, uint64_t us, size_t width)
{
	if (us < 10000000 && width <= 9) {
		uint32_t u = (uint32_t)us, sec = u / 1000000;

		if (width == 9)
			*p++ = ' ';
		*p++ = (char)('0' + sec);
		*p++ = '.';
		return tr2_put_micros(p, u - sec * 1000000);
	}
	return tr2_put_seconds_long(p, us, width);
}

/* Append n copies of c. */
void tr2_buf_addn(struct tr2_buf *b, char c, size_t n);
/* Pad with spaces until the buffer is at least col bytes long. */
void tr2_buf_pad_to(struct tr2_buf *b, size_t col);
/* Decimal integers ("%" PRIu64 / "%" PRId64 / "%d"). */
void tr2_buf_add_u64(struct tr2_buf *b, uint64_t v);
void tr2_buf_add_i64(struct tr2_buf *b, int64_t v);
/* Microseconds as seconds with 6 decimals, padded on the left to width
 * (the bytes of printf("%<width>.6f", us / 1e6)). */
void tr2_buf_add_seconds(struct tr2_buf *b, uint64_t us, size_t width);
/* s (may be NULL: "(null)", like glibc's printf). */
void tr2_buf_add_str(struct tr2_buf *b, const char *s);
/* printf-style, never truncated (used only off the hot path). */
void tr2_buf_addf(struct tr2_buf *b, const char *fmt, ...)
	TRACE2_PRINTF(2, 3);
void tr2_buf_vaddf(struct tr2_buf *b, const char *fmt, va_list ap)
	TRACE2_PRINTF(2, 0);
/* The text NUL-terminated ("" if that needs memory that is not there). */
const char *tr2_buf_cstr(struct tr2_buf *b);

/* The first k bytes equal to needle in the n bytes at hay, or NULL
 * (memmem(), which not every C library has). */
const char *tr2_find(const char *hay, size_t n, const char *needle, size_t k);
/* A JSON string value with its quotes, escaped (NULL: JSON null). */
void tr2_buf_add_json_str(struct tr2_buf *b, const char *s);
/* Shell-style quoting of one argument as the normal/perf targets print it. */
void tr2_buf_add_qarg(struct tr2_buf *b, const char *s);
/* Quoted arguments joined by single spaces. */
void tr2_buf_add_qargv(struct tr2_buf *b, const char *const *argv);

#endif
