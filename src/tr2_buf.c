#include "tr2_buf.h"
#include "tr2_hot.h"
#include "tr2_sys.h"
#include "tr2_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

TR2_HOT void tr2_buf_init(struct tr2_buf *b)
{
	size_t cap = sizeof(b->stack);

	/* stored on its own: paired with len, the compiler would load the
	 * two from a constant on a read-only page no other event code needs */
	TR2_OPAQUE(cap);
	b->p = b->stack;
	b->len = 0;
	b->cap = cap;
	b->failed = 0;
}

TR2_HOT void tr2_buf_release(struct tr2_buf *b)
{
	if (b->p != b->stack)
		tr2_sys.free(b->p);
	tr2_buf_init(b);
}

int tr2_buf_grow(struct tr2_buf *b, size_t n)
{
	size_t cap = b->cap;
	char *p;

	if (b->failed)
		return -1;
	if (n > SIZE_MAX / 2 - b->len)
		goto fail;
	while (cap - b->len < n)
		cap *= 2;
	if (b->p == b->stack) {
		p = tr2_sys.malloc(cap);
		if (p)
			memcpy(p, b->stack, b->len);
	} else
		p = tr2_sys.realloc(b->p, cap);
	if (!p)
		goto fail;
	b->p = p;
	b->cap = cap;
	return 0;
fail:
	b->failed = 1;
	return -1;
}

void tr2_buf_addn(struct tr2_buf *b, char c, size_t n)
{
	if (tr2_buf_room(b, n))
		return;
	memset(b->p + b->len, c, n);
	b->len += n;
}

void tr2_buf_pad_to(struct tr2_buf *b, size_t col)
{
	if (b->len < col)
		tr2_buf_addn(b, ' ', col - b->len);
}

TR2_HOT_TABLE const char tr2_spaces[TR2_PAD_MAX] = "                                ";

TR2_HOT_TABLE const char tr2_hex_digits[17] = "0123456789abcdef";

TR2_HOT_TABLE const char tr2_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static TR2_HOT int count_digits(uint64_t v)
{
	int n = 1;

	while (v >= 100) {
		v /= 100;
		n += 2;
	}
	return n + (v >= 10);
}

/* Line numbers, ids and depths are nearly always below 10000. */
static TR2_HOT char *put_small(char *p, uint32_t v)
{
	uint32_t hi = v / 100;

	if (hi >= 10) {
		memcpy(p, tr2_digit_pairs + 2 * hi, 2);
		p += 2;
	} else if (hi)
		*p++ = (char)('0' + hi);
	else if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	memcpy(p, tr2_digit_pairs + 2 * (v - hi * 100), 2);
	return p + 2;
}

TR2_HOT char *tr2_put_u64(char *p, uint64_t v)
{
	int n, i;

	if (v < 10000)
		return put_small(p, (uint32_t)v);
	n = i = count_digits(v);
	if (v <= UINT32_MAX)
		return tr2_put_digits(p, (uint32_t)v, n);
	while (i >= 2) {
		i -= 2;
		memcpy(p + i, tr2_digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (i)
		*p = (char)('0' + v);
	return p + n;
}

TR2_HOT char *tr2_put_hex32(char *p, uint32_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 4)
		p[i] = tr2_hex_digits[v & 15];
	return p + 8;
}

TR2_HOT char *tr2_put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return tr2_put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return tr2_put_u64(p, (uint64_t)v);
}

/* n spaces; a fixed-size copy when the caller reserved TR2_PAD_MAX. */
static TR2_HOT char *put_spaces(char *p, size_t n)
{
	if (n <= TR2_PAD_MAX)
		memcpy(p, tr2_spaces, TR2_PAD_MAX);
	else
		memset(p, ' ', n);
	return p + n;
}

TR2_HOT char *tr2_put_seconds_long(char *p, uint64_t us, size_t width)
{
	uint64_t sec = us / 1000000;
	size_t len = (size_t)count_digits(sec) + 7;

	if (len < width)
		p = put_spaces(p, width - len);
	p = tr2_put_u64(p, sec);
	*p++ = '.';
	return tr2_put_micros(p, (uint32_t)(us - sec * 1000000));
}

TR2_HOT void tr2_buf_add_u64(struct tr2_buf *b, uint64_t v)
{
	char *p = tr2_buf_reserve(b, TR2_NUM_MAX);

	if (p)
		tr2_buf_commit(b, tr2_put_u64(p, v));
}

TR2_HOT void tr2_buf_add_i64(struct tr2_buf *b, int64_t v)
{
	char *p = tr2_buf_reserve(b, TR2_NUM_MAX);

	if (p)
		tr2_buf_commit(b, tr2_put_i64(p, v));
}

TR2_HOT void tr2_buf_add_seconds(struct tr2_buf *b, uint64_t us, size_t width)
{
	char *p = tr2_buf_reserve(b, TR2_NUM_MAX + TR2_PAD_MAX + width);

	if (p)
		tr2_buf_commit(b, tr2_put_seconds(p, us, width));
}

TR2_HOT void tr2_buf_add_str(struct tr2_buf *b, const char *s)
{
	if (s)
		tr2_buf_adds(b, s);
	else
		tr2_buf_addlit(b, "(null)");
}

void tr2_buf_vaddf(struct tr2_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	if (n >= 0 && (size_t)n >= b->cap - b->len && !tr2_buf_room(b, (size_t)n + 1))
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, again);
	va_end(again);
	if (n < 0 || b->failed)
		return;
	b->len += (size_t)n;
}

void tr2_buf_addf(struct tr2_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tr2_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

/* The buffer's text as a C string (the NUL is not counted in len). */
const char *tr2_buf_cstr(struct tr2_buf *b)
{
	if (tr2_buf_room(b, 1))
		return "";
	b->p[b->len] = '\0';
	return b->p;
}

TR2_HOT char *tr2_put_json_str(char *p, const char *s, size_t len)
{
	size_t i;

	*p++ = '"';
	/* short plain strings (categories, labels, file names) are the rule */
	for (i = 0; i < len && !tr2_json_special[(unsigned char)s[i]]; i++)
		;
	if (i == len) {
		tr2_copy(p, s, len);
		p += len;
	} else
		p += tr2_json_escape(p, s, len);
	*p++ = '"';
	return p;
}

static TR2_HOT void add_json_mem(struct tr2_buf *b, const char *s, size_t len)
{
	char *p;

	if (len > SIZE_MAX / 6 - 2) {
		b->failed = 1;
		return;
	}
	p = tr2_buf_reserve(b, TR2_JSON_ESCAPED_MAX(len) + 2);
	if (p)
		tr2_buf_commit(b, tr2_put_json_str(p, s, len));
}

TR2_HOT void tr2_buf_add_json_str(struct tr2_buf *b, const char *s)
{
	if (s)
		add_json_mem(b, s, tr2_strlen(s));
	else
		tr2_buf_addlit(b, "null");
}

static int qarg_is_plain(const char *s)
{
	static const char safe[] = "+,-./:=@_^";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr(safe, c)))
			return 0;
	}
	return 1;
}

void tr2_buf_add_qarg(struct tr2_buf *b, const char *s)
{
	if (!s) {
		tr2_buf_addlit(b, "(null)");
		return;
	}
	if (!*s) {
		tr2_buf_addlit(b, "''");
		return;
	}
	if (qarg_is_plain(s)) {
		tr2_buf_adds(b, s);
		return;
	}
	tr2_buf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			tr2_buf_addlit(b, "'\\''");
		else if (*s == '!')
			tr2_buf_addlit(b, "'\\!'");
		else
			tr2_buf_addc(b, *s);
	}
	tr2_buf_addc(b, '\'');
}

void tr2_buf_add_qargv(struct tr2_buf *b, const char *const *argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++) {
		if (i)
			tr2_buf_addc(b, ' ');
		tr2_buf_add_qarg(b, argv[i]);
	}
}

const char *tr2_find(const char *hay, size_t n, const char *needle, size_t k)
{
	const char *end = hay + n, *p = hay;

	if (!k)
		return hay;
	while (k <= (size_t)(end - p) && (p = memchr(p, needle[0], (size_t)(end - p) - k + 1))) {
		if (!memcmp(p, needle, k))
			return p;
		p++;
	}
	return NULL;
}
