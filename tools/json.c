/* A strict JSON reader for one event line (see json.h). */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256

struct parser {
	const char *s, *end, *p;
	struct jobj *o;
	char *err;
	size_t errlen;
	int failed;
};

static int fail(struct parser *ps, const char *why)
{
	if (!ps->failed) {
		snprintf(ps->err, ps->errlen, "%s", why);
		ps->failed = 1;
	}
	return -1;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n'))
		ps->p++;
}

/* Length of the valid UTF-8 sequence at p (up to end), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0];
	size_t n, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *q, unsigned long cp)
{
	if (cp < 0x80)
		*q++ = (char)cp;
	else if (cp < 0x800) {
		*q++ = (char)(0xc0 | (cp >> 6));
		*q++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*q++ = (char)(0xe0 | (cp >> 12));
		*q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*q++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*q++ = (char)(0xf0 | (cp >> 18));
		*q++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*q++ = (char)(0x80 | (cp & 0x3f));
	}
	return q;
}

/* A byte a string copies as it is: printable ASCII but '"' and '\\'. */
static inline int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* A string at ps->p (the opening quote); decoded into the arena. */
static int parse_string(struct parser *ps, struct jval *v)
{
	struct jobj *o = ps->o;
	char *q = o->arena + o->arena_used, *start = q;

	ps->p++;
	v->bad_utf8 = v->has_nul = v->lone_surrogate = 0;
	for (;;) {
		unsigned char c;
		const char *run = ps->p;

		/* a run of plain ASCII (most of a line) in one copy */
		while (run < ps->end && plain((unsigned char)*run))
			run++;
		if (run > ps->p) {
			memcpy(q, ps->p, (size_t)(run - ps->p));
			q += run - ps->p;
			ps->p = run;
		}
		if (ps->p >= ps->end)
			return fail(ps, "unterminated string");
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if (c < 0x20)
			return fail(ps, "control character in a string");
		if (c == '\\') {
			unsigned u, u2;

			if (ps->end - ps->p < 2)
				return fail(ps, "unterminated string");
			switch (ps->p[1]) {
			case '"': *q++ = '"'; break;
			case '\\': *q++ = '\\'; break;
			case '/': *q++ = '/'; break;
			case 'b': *q++ = '\b'; break;
			case 'f': *q++ = '\f'; break;
			case 'n': *q++ = '\n'; break;
			case 'r': *q++ = '\r'; break;
			case 't': *q++ = '\t'; break;
			case 'u':
				if (ps->end - ps->p < 6 || hex4(ps->p + 2, &u))
					return fail(ps, "bad \\u escape");
				if (u >= 0xd800 && u <= 0xdbff && ps->end - ps->p >= 12 &&
				    ps->p[6] == '\\' && ps->p[7] == 'u' && !hex4(ps->p + 8, &u2) &&
				    u2 >= 0xdc00 && u2 <= 0xdfff) {
					q = put_utf8(q, 0x10000 + (((unsigned long)u - 0xd800) << 10) +
							    (u2 - 0xdc00));
					ps->p += 6;
				} else if (u >= 0xd800 && u <= 0xdfff) {
					q = put_utf8(q, 0xfffd);
					v->lone_surrogate = 1;
				} else {
					if (!u)
						v->has_nul = 1;
					q = put_utf8(q, u);
				}
				ps->p += 4;
				break;
			default:
				return fail(ps, "bad escape in a string");
			}
			ps->p += 2;
			continue;
		}
		if (c < 0x80) {
			*q++ = (char)c;
			ps->p++;
		} else {
			size_t n = utf8_len((const unsigned char *)ps->p,
					    (const unsigned char *)ps->end);

			if (!n) {
				v->bad_utf8 = 1;
				n = 1;
			}
			memcpy(q, ps->p, n);
			q += n;
			ps->p += n;
		}
	}
	*q++ = '\0';
	v->type = J_STRING;
	v->str = start;
	v->str_len = (size_t)(q - start) - 1;
	o->arena_used += (size_t)(q - start);
	return 0;
}

static int parse_number(struct parser *ps)
{
	const char *p = ps->p;

	if (p < ps->end && *p == '-')
		p++;
	if (p >= ps->end)
		return fail(ps, "bad number");
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (p < ps->end && *p >= '0' && *p <= '9')
			p++;
	else
		return fail(ps, "bad number");
	if (p < ps->end && *p == '.') {
		p++;
		if (p >= ps->end || *p < '0' || *p > '9')
			return fail(ps, "bad number");
		while (p < ps->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < ps->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= ps->end || *p < '0' || *p > '9')
			return fail(ps, "bad number");
		while (p < ps->end && *p >= '0' && *p <= '9')
			p++;
	}
	ps->p = p;
	return 0;
}

static int parse_value(struct parser *ps, struct jval *v, int depth, int top);

static int parse_word(struct parser *ps, const char *w, enum jtype t, struct jval *v)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n))
		return fail(ps, "invalid value");
	ps->p += n;
	v->type = t;
	return 0;
}

static int parse_array(struct parser *ps, struct jval *v, int depth, int top)
{
	struct jobj *o = ps->o;
	size_t first = o->vec_used;
	int all_strings = 1;

	ps->p++;
	v->type = J_ARRAY;
	v->count = 0;
	v->strs_bad_utf8 = 0;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
	} else {
		for (;;) {
			struct jval e;

			memset(&e, 0, sizeof(e));
			skip_ws(ps);
			if (parse_value(ps, &e, depth + 1, 0))
				return -1;
			v->count++;
			if (top && e.type == J_STRING && all_strings) {
				o->vec[o->vec_used++] = e.str;
				if (e.bad_utf8)
					v->strs_bad_utf8 = 1;
			} else
				all_strings = 0;
			skip_ws(ps);
			if (ps->p >= ps->end)
				return fail(ps, "unterminated array");
			if (*ps->p == ',') {
				ps->p++;
				continue;
			}
			if (*ps->p == ']') {
				ps->p++;
				break;
			}
			return fail(ps, "expected ',' or ']' in an array");
		}
	}
	if (top && all_strings) {
		o->vec[o->vec_used++] = NULL;
		v->strs = o->vec + first;
	} else {
		o->vec_used = first;
		v->strs = NULL;
	}
	return 0;
}

static int parse_members(struct parser *ps, int depth, int top);

static int parse_value(struct parser *ps, struct jval *v, int depth, int top)
{
	const char *start = ps->p;
	int r;

	if (depth > MAX_DEPTH)
		return fail(ps, "nested too deep");
	if (ps->p >= ps->end)
		return fail(ps, "missing value");
	switch (*ps->p) {
	case '"':
		r = parse_string(ps, v);
		break;
	case '[':
		r = parse_array(ps, v, depth, top);
		break;
	case '{':
		v->type = J_OBJECT;
		r = parse_members(ps, depth + 1, 0);
		break;
	case 't':
		r = parse_word(ps, "true", J_TRUE, v);
		break;
	case 'f':
		r = parse_word(ps, "false", J_FALSE, v);
		break;
	case 'n':
		r = parse_word(ps, "null", J_NULL, v);
		break;
	default:
		v->type = J_NUMBER;
		r = parse_number(ps);
		break;
	}
	v->raw = start;
	v->raw_len = (size_t)(ps->p - start);
	return r;
}

/* An object at ps->p ('{'); top: its members go into o->m. */
static int parse_members(struct parser *ps, int depth, int top)
{
	struct jobj *o = ps->o;

	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return 0;
	}
	for (;;) {
		struct jval key, val;

		memset(&key, 0, sizeof(key));
		memset(&val, 0, sizeof(val));
		skip_ws(ps);
		if (ps->p >= ps->end)
			return fail(ps, "unterminated object");
		if (*ps->p != '"')
			return fail(ps, "expected a string key");
		if (parse_string(ps, &key))
			return -1;
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':')
			return fail(ps, ps->p >= ps->end ? "unterminated object"
							 : "expected ':' after a key");
		ps->p++;
		skip_ws(ps);
		if (parse_value(ps, &val, depth, top))
			return -1;
		if (top) {
			size_t i;

			for (i = 0; i < o->n; i++)
				if (!strcmp(o->m[i].key, key.str) && !o->duplicate) {
					o->duplicate = 1;
					o->dup_key = o->m[i].key;
				}
			if (o->n == o->alloc) {
				size_t na = o->alloc ? 2 * o->alloc : 32;
				struct jmember *m = realloc(o->m, na * sizeof(*m));

				if (!m)
					return fail(ps, "out of memory");
				o->m = m;
				o->alloc = na;
			}
			o->m[o->n].key = key.str;
			o->m[o->n].v = val;
			o->n++;
		}
		skip_ws(ps);
		if (ps->p >= ps->end)
			return fail(ps, "unterminated object");
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == '}') {
			ps->p++;
			return 0;
		}
		return fail(ps, "expected ',' or '}' in an object");
	}
}

void jobj_init(struct jobj *o)
{
	memset(o, 0, sizeof(*o));
}

void jobj_free(struct jobj *o)
{
	free(o->m);
	free(o->arena);
	free(o->vec);
	jobj_init(o);
}

int jobj_parse(struct jobj *o, const char *line, size_t len, char *err,
	       size_t errlen, size_t *at)
{
	struct parser ps = { line, line + len, line, o, err, errlen, 0 };

	o->n = 0;
	o->duplicate = 0;
	o->dup_key = NULL;
	o->arena_used = 0;
	o->vec_used = 0;
	/* decoded strings never outgrow their quoted text; a vector entry
	 * needs at least two bytes of text */
	if (o->arena_len < len + 16) {
		char *a = realloc(o->arena, len + 16);

		if (!a)
			return fail(&ps, "out of memory"), -1;
		o->arena = a;
		o->arena_len = len + 16;
	}
	if (o->vec_alloc < len / 2 + 4) {
		const char **v = realloc(o->vec, (len / 2 + 4) * sizeof(*v));

		if (!v)
			return fail(&ps, "out of memory"), -1;
		o->vec = v;
		o->vec_alloc = len / 2 + 4;
	}
	skip_ws(&ps);
	if (ps.p >= ps.end || *ps.p != '{') {
		fail(&ps, "not a JSON object");
		goto bad;
	}
	if (parse_members(&ps, 1, 1))
		goto bad;
	skip_ws(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "text after the object");
		goto bad;
	}
	return 0;
bad:
	if (at)
		*at = (size_t)(ps.p - line);
	return -1;
}

const struct jval *jobj_get(const struct jobj *o, const char *key)
{
	size_t i = o->n;

	while (i--) {
		const char *a = o->m[i].key, *b = key;

		/* inline: most keys differ in their first bytes */
		while (*a && *a == *b)
			a++, b++;
		if (*a == *b)
			return &o->m[i].v;
	}
	return NULL;
}

/* A JSON number's parts: [-] int digits [. frac digits] [e exp]. */
struct jnum {
	const char *ip, *fp;
	size_t ni, nf;
	long long exp;   /* clamped to +-1e9: beyond, every value is 0 or out of range */
	int neg;
};

static int jnum_parse(const struct jval *v, struct jnum *n)
{
	const char *p = v->raw, *end = v->raw + v->raw_len;
	int eneg = 0;

	memset(n, 0, sizeof(*n));
	if (v->type != J_NUMBER)
		return -1;
	if (p < end && *p == '-')
		n->neg = 1, p++;
	for (n->ip = p; p < end && *p >= '0' && *p <= '9'; p++)
		n->ni++;
	if (p < end && *p == '.')
		for (n->fp = ++p; p < end && *p >= '0' && *p <= '9'; p++)
			n->nf++;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (n->exp < 1000000000)
				n->exp = n->exp * 10 + (*p - '0');
		if (eneg)
			n->exp = -n->exp;
	}
	return p == end && n->ni ? 0 : -1;
}

static int jnum_digit(const struct jnum *n, size_t i)
{
	return i < n->ni ? n->ip[i] - '0' : n->fp[i - n->ni] - '0';
}

/* |n| * 10^scale, rounded half up (*inexact: nonzero digits were
 * dropped); -2 when it does not fit 64 bits. */
static int jnum_scaled(const struct jnum *n, int scale, uint64_t *out, int *inexact)
{
	size_t len = n->ni + n->nf, keep = len, i;
	long long p = n->exp - (long long)n->nf + scale;
	uint64_t x = 0;
	int d;

	*inexact = 0;
	if (p < 0)
		keep = (unsigned long long)-p >= len ? 0 : len - (size_t)-p;
	for (i = 0; i < keep; i++) {
		d = jnum_digit(n, i);
		if (x > (UINT64_MAX - (uint64_t)d) / 10)
			return -2;
		x = x * 10 + (uint64_t)d;
	}
	for (; p > 0 && x; p--) {
		if (x > UINT64_MAX / 10)
			return -2;
		x *= 10;
	}
	if (keep < len && jnum_digit(n, keep) >= 5) {
		if (x == UINT64_MAX)
			return -2;
		x++;
	}
	for (i = keep; i < len; i++)
		if (jnum_digit(n, i))
			*inexact = 1;
	*out = x;
	return 0;
}

/* |v| * 10^scale into *x, its sign into *neg: 0; -1 when v is not a
 * number; -2 when it does not fit 64 bits. */
static int jval_scaled(const struct jval *v, int scale, uint64_t *x, int *neg, int *inexact)
{
	struct jnum n;

	if (jnum_parse(v, &n))
		return -1;
	*neg = n.neg;
	return jnum_scaled(&n, scale, x, inexact) ? -2 : 0;
}

int jval_int(const struct jval *v, int64_t *out)
{
	uint64_t x;
	int neg, inexact, r = jval_scaled(v, 0, &x, &neg, &inexact);

	if (r)
		return r;
	if (inexact)
		return -1; /* a fraction: not an integer */
	if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
		return -2;
	*out = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

int jval_micros(const struct jval *v, uint64_t *out)
{
	uint64_t x;
	int neg, inexact, r = jval_scaled(v, 6, &x, &neg, &inexact);

	if (r)
		return r;
	if (neg && x)
		return -2;
	*out = x;
	return 0;
}

static int num(const char *s, int n, int *out)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int parse_utc_time(const char *s, size_t len, uint64_t *us)
{
	int y, mo, d, h, mi, sec, frac;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int64_t days;

	if (len != 27 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
	    s[16] != ':' || s[19] != '.' || s[26] != 'Z')
		return -1;
	if (num(s, 4, &y) || num(s + 5, 2, &mo) || num(s + 8, 2, &d) ||
	    num(s + 11, 2, &h) || num(s + 14, 2, &mi) || num(s + 17, 2, &sec) ||
	    num(s + 20, 6, &frac))
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 ||
	    mi > 59 || sec > 60)
		return -1;
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return -1;
	days = days_from_civil(y, mo, d);
	*us = ((uint64_t)days * 86400 + (uint64_t)h * 3600 + (uint64_t)mi * 60 +
	       (uint64_t)sec) * 1000000 + (uint64_t)frac;
	return 0;
}
