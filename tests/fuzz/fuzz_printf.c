/*
 * Fuzzer: tr2_buf_addf() / tr2_buf_vaddf() against vsnprintf().
 *
 * Every call passes the same fixed list of ARG_SLOTS arguments whose
 * types cycle through int, char *, intmax_t, double, unsigned,
 * long long and size_t (values from the input).  The format is built from
 * the input: literal text (with '%' doubled) and conversions, the k-th
 * conversion being one that is valid for the type of slot k (flags,
 * width, precision and length modifier included), so the format never
 * reads an argument of the wrong type or beyond the list.  Widths go up
 * to 2^18, so records far beyond the buffer's stack part are built; the
 * result must never be truncated.
 *
 * The buffer first gets a prefix of 0..1279 bytes (the stack part is
 * TR2_BUF_STACK bytes), then two formatted appends; after each the
 * buffer must hold the prefix and exactly what vsnprintf() produces.
 */
#include "fuzz.h"
#include "tr2_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum slot_type { T_INT, T_STR, T_INTMAX, T_DOUBLE, T_UINT, T_LLONG, T_SIZE, T_COUNT };
#define ARG_SLOTS 14
#define SLOT_TYPE(k) ((enum slot_type)((k) % T_COUNT))

struct args {
	int i[2];
	const char *s[2];
	intmax_t j[2];
	double d[2];
	unsigned u[2];
	long long ll[2];
	size_t z[2];
};

/* The argument list of every call: slot k has type SLOT_TYPE(k). */
#define ARGS(a) \
	(a)->i[0], (a)->s[0], (a)->j[0], (a)->d[0], (a)->u[0], (a)->ll[0], (a)->z[0], \
	(a)->i[1], (a)->s[1], (a)->j[1], (a)->d[1], (a)->u[1], (a)->ll[1], (a)->z[1]

/* Per slot type: the length modifier, the conversions and the flags
 * that are defined for them. */
static const struct conv {
	const char *length;
	const char *convs;
	const char *flags;
} convs[T_COUNT] = {
	[T_INT] = { "", "dic", "-+ 0" },
	[T_STR] = { "", "s", "-" },
	[T_INTMAX] = { "j", "di", "-+ 0" },
	[T_DOUBLE] = { "", "fFeEgGaA", "-+ #0" },
	[T_UINT] = { "", "uxXo", "-0#" },
	[T_LLONG] = { "ll", "di", "-+ 0" },
	[T_SIZE] = { "z", "uxX", "-0#" },
};

static void add_conversion(struct fz_buf *fmt, struct fz_in *in, enum slot_type t)
{
	const struct conv *c = &convs[t];
	char conv = c->convs[fz_pick(in, (unsigned)strlen(c->convs))];
	unsigned flags = fz_byte(in), k, width, shape = fz_byte(in);
	char num[32];

	fz_buf_addc(fmt, '%');
	for (k = 0; c->flags[k]; k++)
		if (flags & 1u << k && !(conv == 'c' && c->flags[k] != '-'))
			fz_buf_addc(fmt, c->flags[k]);
	/* width: none, small, or large (up to 2^18) */
	width = shape & 3;
	if (width == 1 || width == 2) {
		width = width == 1 ? fz_byte(in) : fz_u16(in) | (fz_byte(in) & 3u) << 16;
		snprintf(num, sizeof(num), "%u", width);
		fz_buf_adds(fmt, num);
	}
	/* precision: only where defined */
	if (shape & 4 && conv != 'c') {
		snprintf(num, sizeof(num), ".%u", fz_pick(in, t == T_DOUBLE ? 120 : 250));
		fz_buf_adds(fmt, num);
	}
	if (t == T_INT || t == T_UINT) {
		if (conv != 'c')
			fz_buf_adds(fmt, (const char *[]){ "", "", "h", "hh" }[shape >> 6]);
	} else
		fz_buf_adds(fmt, c->length);
	fz_buf_addc(fmt, conv);
}

/* Literal bytes (no NUL; '%' written as "%%") and conversions. */
static void build_format(struct fz_buf *fmt, struct fz_in *in)
{
	unsigned slot = 0, n, i;

	fz_buf_add(fmt, "", 0);
	while (in->n && fz_pick(in, 8)) {
		if (fz_pick(in, 2) && slot < ARG_SLOTS) {
			add_conversion(fmt, in, SLOT_TYPE(slot));
			slot++;
			continue;
		}
		n = fz_pick(in, 16);
		for (i = 0; i < n && in->n; i++) {
			char c = (char)fz_byte(in);

			if (c == '%')
				fz_buf_addc(fmt, '%');
			fz_buf_addc(fmt, c ? c : '.');
		}
	}
}

static void read_args(struct args *a, struct fz_in *in, struct fz_pool *pool)
{
	uint64_t bits;
	int k;

	for (k = 0; k < 2; k++) {
		a->i[k] = (int)fz_u32(in);
		a->s[k] = fz_str(in, pool, 255, 0);
		a->j[k] = (intmax_t)fz_u64(in);
		bits = fz_u64(in);
		memcpy(&a->d[k], &bits, sizeof(a->d[k]));
		a->u[k] = fz_u32(in);
		a->ll[k] = (long long)fz_u64(in);
		a->z[k] = (size_t)fz_u64(in);
	}
}

__attribute__((format(printf, 2, 3)))
static void via_vaddf(struct tr2_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tr2_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

/* vsnprintf()'s whole output (caller frees) and its length. */
__attribute__((format(printf, 2, 3)))
static char *reference(size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *out;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	FZ_CHECK(n >= 0);
	out = malloc((size_t)n + 1);
	FZ_CHECK(out != NULL);
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len = (size_t)n;
	return out;
}

/* b holds the prefix then want[0..len) starting at offset at. */
static void check_buf(struct tr2_buf *b, size_t at, const char *want, size_t len)
{
	const char *s;

	FZ_CHECK(!b->failed);
	FZ_CHECK(b->len == at + len);
	FZ_CHECK(!memcmp(b->p + at, want, len));
	s = tr2_buf_cstr(b);
	FZ_CHECK(s == b->p && s[b->len] == '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fz_pool pool = { NULL, 0, 0 };
	struct fz_buf fmt = FZ_BUF_INIT;
	struct args a;
	struct tr2_buf b;
	size_t prefix = fz_u16(&in) % 1280, len, at, i;
	char *want;

	read_args(&a, &in, &pool);
	build_format(&fmt, &in);
	want = reference(&len, fmt.p, ARGS(&a));

	tr2_buf_init(&b);
	tr2_buf_addn(&b, 'p', prefix);
	tr2_buf_addf(&b, fmt.p, ARGS(&a));
	check_buf(&b, prefix, want, len);
	at = b.len;
	via_vaddf(&b, fmt.p, ARGS(&a));
	check_buf(&b, at, want, len);
	for (i = 0; i < prefix; i++)
		FZ_CHECK(b.p[i] == 'p');
	tr2_buf_release(&b);

	free(want);
	fz_buf_free(&fmt);
	fz_pool_free(&pool);
	return 0;
}
