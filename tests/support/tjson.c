#include "tjson.h"
#include "tutf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct parser {
	const unsigned char *s;
	size_t len;
	size_t pos;
	unsigned depth;
	const char *err;	/* first error, static */
};

/* Growable byte buffer; after a failed allocation every append is a no-op. */
struct buf {
	char *p;
	size_t len;
	size_t cap;
	int oom;
};

/* Make room for extra more bytes plus a terminating NUL. */
static int buf_grow(struct buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->oom)
		return -1;
	if (extra >= SIZE_MAX - b->len)
		goto oom;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 32;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->p, cap);
	if (!p)
		goto oom;
	b->p = p;
	b->cap = cap;
	return 0;
oom:
	b->oom = 1;
	return -1;
}

static void buf_add(struct buf *b, const void *data, size_t n)
{
	if (buf_grow(b, n))
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

static void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* NUL-terminate and hand over the bytes; NULL (and freed) after an OOM. */
static char *buf_finish(struct buf *b)
{
	if (buf_grow(b, 0)) {
		free(b->p);
		return NULL;
	}
	b->p[b->len] = '\0';
	return b->p;
}

static void buf_add_utf8(struct buf *b, unsigned cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xC0 | cp >> 6);
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xE0 | cp >> 12);
		n = 3;
	} else {
		u[0] = (unsigned char)(0xF0 | cp >> 18);
		n = 4;
	}
	for (size_t i = 1; i < n; i++)
		u[i] = (unsigned char)(0x80 | (cp >> (6 * (n - 1 - i)) & 0x3F));
	buf_add(b, u, n);
}

static int fail(struct parser *p, const char *msg)
{
	if (!p->err)
		p->err = msg;
	return -1;
}

static int peek(const struct parser *p)
{
	return p->pos < p->len ? p->s[p->pos] : -1;
}

/* Consume c if it is next; return whether it was. */
static int accept(struct parser *p, int c)
{
	if (peek(p) != c)
		return 0;
	p->pos++;
	return 1;
}

static void skip_ws(struct parser *p)
{
	int c;

	while ((c = peek(p)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		p->pos++;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int parse_hex4(struct parser *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int d = hex_value(peek(p));

		if (d < 0)
			return fail(p, "invalid \\u escape");
		v = v << 4 | (unsigned)d;
		p->pos++;
	}
	*out = v;
	return 0;
}

/* After "\u": one code point, a surrogate pair being one. */
static int parse_unicode_escape(struct parser *p, struct buf *b)
{
	unsigned cp, lo;

	if (parse_hex4(p, &cp))
		return -1;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return fail(p, "lone low surrogate in \\u escape");
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (!accept(p, '\\') || !accept(p, 'u'))
			return fail(p, "lone high surrogate in \\u escape");
		if (parse_hex4(p, &lo))
			return -1;
		if (lo < 0xDC00 || lo > 0xDFFF)
			return fail(p, "lone high surrogate in \\u escape");
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	buf_add_utf8(b, cp);
	return 0;
}

/* After the backslash. */
static int parse_escape(struct parser *p, struct buf *b)
{
	static const char from[] = "\"\\/bfnrt";
	static const char to[] = "\"\\/\b\f\n\r\t";
	int c = peek(p);
	const char *hit;

	if (c == 'u') {
		p->pos++;
		return parse_unicode_escape(p, b);
	}
	hit = c > 0 ? strchr(from, c) : NULL;
	if (!hit)
		return fail(p, "invalid escape in string");
	p->pos++;
	buf_addc(b, to[hit - from]);
	return 0;
}

/* One raw character or escape inside a string. */
static int parse_string_char(struct parser *p, struct buf *b)
{
	unsigned char c = p->s[p->pos];
	size_t n;

	if (c == '\\') {
		p->pos++;
		return parse_escape(p, b);
	}
	if (c < 0x20)
		return fail(p, "raw control character in string");
	n = c < 0x80 ? 1 : tutf8_seq(p->s + p->pos, p->len - p->pos);
	if (!n)
		return fail(p, "invalid UTF-8 in string");
	buf_add(b, p->s + p->pos, n);
	p->pos += n;
	return 0;
}

/* At the opening quote; *out receives the decoded, NUL-terminated bytes. */
static int parse_string(struct parser *p, char **out, size_t *out_len)
{
	struct buf b = { 0 };

	p->pos++;
	while (!accept(p, '"')) {
		if (peek(p) < 0 ? fail(p, "unterminated string")
				: parse_string_char(p, &b)) {
			free(b.p);
			return -1;
		}
	}
	*out_len = b.len;
	*out = buf_finish(&b);
	return *out ? 0 : fail(p, "out of memory");
}

static struct tjson *new_node(struct parser *p, enum tjson_type type)
{
	struct tjson *v = calloc(1, sizeof(*v));

	if (!v)
		fail(p, "out of memory");
	else
		v->type = type;
	return v;
}

static struct tjson *parse_string_value(struct parser *p)
{
	struct tjson *v = new_node(p, TJSON_STRING);

	if (v && parse_string(p, &v->text, &v->len)) {
		tjson_free(v);
		return NULL;
	}
	return v;
}

static struct tjson *parse_literal(struct parser *p, const char *word,
				   enum tjson_type type, int boolean)
{
	size_t n = strlen(word);
	struct tjson *v;

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n)) {
		fail(p, "invalid literal");
		return NULL;
	}
	p->pos += n;
	v = new_node(p, type);
	if (v)
		v->boolean = boolean;
	return v;
}

static size_t skip_digits(struct parser *p)
{
	size_t start = p->pos;

	while (is_digit(peek(p)))
		p->pos++;
	return p->pos - start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(struct parser *p)
{
	accept(p, '-');
	if (accept(p, '0')) {
		if (is_digit(peek(p)))
			return fail(p, "leading zero in number");
	} else if (!skip_digits(p)) {
		return fail(p, "digit expected in number");
	}
	if (accept(p, '.') && !skip_digits(p))
		return fail(p, "digit expected after decimal point");
	if (accept(p, 'e') || accept(p, 'E')) {
		if (!accept(p, '+'))
			accept(p, '-');
		if (!skip_digits(p))
			return fail(p, "digit expected in exponent");
	}
	return 0;
}

static struct tjson *parse_number(struct parser *p)
{
	size_t start = p->pos, n;
	struct tjson *v;

	if (scan_number(p) || !(v = new_node(p, TJSON_NUMBER)))
		return NULL;
	n = p->pos - start;
	v->text = malloc(n + 1);
	if (!v->text) {
		fail(p, "out of memory");
		tjson_free(v);
		return NULL;
	}
	memcpy(v->text, p->s + start, n);
	v->text[n] = '\0';
	/* The grammar is checked above; strtod assumes the "C" locale. */
	v->number = strtod(v->text, NULL);
	return v;
}

/*
 * Make room for child v->n.  Capacity is implicit: the next power of two
 * not below n, so arrays are full exactly when n is 0 or a power of two.
 */
static int reserve(struct parser *p, struct tjson *v)
{
	size_t cap = v->n ? v->n * 2 : 1;
	struct tjson **items;
	char **keys;
	size_t *lens;

	if (v->n & (v->n - 1))
		return 0;
	if (cap > SIZE_MAX / sizeof(*items))
		return fail(p, "out of memory");
	items = realloc(v->items, cap * sizeof(*items));
	if (!items)
		return fail(p, "out of memory");
	v->items = items;
	if (v->type != TJSON_OBJECT)
		return 0;
	keys = realloc(v->keys, cap * sizeof(*keys));
	if (!keys)
		return fail(p, "out of memory");
	v->keys = keys;
	lens = realloc(v->key_lens, cap * sizeof(*lens));
	if (!lens)
		return fail(p, "out of memory");
	v->key_lens = lens;
	return 0;
}

static struct tjson *parse_value(struct parser *p);

/* One array element or object member, appended to v. */
static int parse_element(struct parser *p, struct tjson *v)
{
	char *key = NULL;
	size_t key_len = 0;
	struct tjson *item;

	if (reserve(p, v))
		return -1;
	if (v->type == TJSON_OBJECT) {
		skip_ws(p);
		if (peek(p) != '"')
			return fail(p, "member name expected");
		if (parse_string(p, &key, &key_len))
			return -1;
		skip_ws(p);
		if (!accept(p, ':')) {
			free(key);
			return fail(p, "':' expected after member name");
		}
	}
	item = parse_value(p);
	if (!item) {
		free(key);
		return -1;
	}
	if (key) {
		v->keys[v->n] = key;
		v->key_lens[v->n] = key_len;
	}
	v->items[v->n++] = item;
	return 0;
}

/* After the opening bracket or brace. */
static int parse_elements(struct parser *p, struct tjson *v, int close)
{
	skip_ws(p);
	if (accept(p, close))
		return 0;
	for (;;) {
		if (parse_element(p, v))
			return -1;
		skip_ws(p);
		if (accept(p, close))
			return 0;
		if (!accept(p, ','))
			return fail(p, close == ']' ? "',' or ']' expected"
						    : "',' or '}' expected");
	}
}

static struct tjson *parse_container(struct parser *p, enum tjson_type type,
				     int close)
{
	struct tjson *v;

	if (p->depth >= TJSON_MAX_DEPTH) {
		fail(p, "nesting too deep");
		return NULL;
	}
	v = new_node(p, type);
	if (!v)
		return NULL;
	p->pos++;
	p->depth++;
	if (parse_elements(p, v, close)) {
		tjson_free(v);
		return NULL;
	}
	p->depth--;
	return v;
}

static struct tjson *parse_value(struct parser *p)
{
	int c;

	skip_ws(p);
	c = peek(p);
	switch (c) {
	case -1:
		fail(p, "unexpected end of input");
		return NULL;
	case '{':
		return parse_container(p, TJSON_OBJECT, '}');
	case '[':
		return parse_container(p, TJSON_ARRAY, ']');
	case '"':
		return parse_string_value(p);
	case 't':
		return parse_literal(p, "true", TJSON_BOOL, 1);
	case 'f':
		return parse_literal(p, "false", TJSON_BOOL, 0);
	case 'n':
		return parse_literal(p, "null", TJSON_NULL, 0);
	}
	if (c == '-' || is_digit(c))
		return parse_number(p);
	fail(p, "unexpected character");
	return NULL;
}

struct tjson *tjson_parse(const char *s, size_t len, const char **err)
{
	struct parser p = { (const unsigned char *)s, len, 0, 0, NULL };
	struct tjson *v = NULL;

	if (!s && len)
		fail(&p, "NULL input");
	else
		v = parse_value(&p);
	if (v) {
		skip_ws(&p);
		if (p.pos != len) {
			fail(&p, "trailing garbage after value");
			tjson_free(v);
			v = NULL;
		}
	}
	if (err)
		*err = p.err;
	return v;
}

void tjson_free(struct tjson *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		tjson_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->key_lens);
	free(v->text);
	free(v);
}

const struct tjson *tjson_get(const struct tjson *obj, const char *key)
{
	size_t key_len;

	if (!obj || obj->type != TJSON_OBJECT || !key)
		return NULL;
	key_len = strlen(key);
	for (size_t i = 0; i < obj->n; i++)
		if (obj->key_lens[i] == key_len &&
		    !memcmp(obj->keys[i], key, key_len))
			return obj->items[i];
	return NULL;
}

const char *tjson_get_str(const struct tjson *obj, const char *key)
{
	const struct tjson *v = tjson_get(obj, key);

	return v && v->type == TJSON_STRING ? v->text : NULL;
}

char *tjson_keys(const struct tjson *obj)
{
	struct buf b = { 0 };

	if (!obj || obj->type != TJSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++) {
		if (i)
			buf_addc(&b, ',');
		buf_add(&b, obj->keys[i], obj->key_lens[i]);
	}
	return buf_finish(&b);
}

static void dump_string(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	static const char from[] = "\"\\\n\r\t\b\f";
	static const char to[] = "\"\\nrtbf";

	buf_addc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *hit = c ? strchr(from, c) : NULL;

		if (hit) {
			buf_addc(b, '\\');
			buf_addc(b, to[hit - from]);
		} else if (c < 0x20) {
			buf_adds(b, "\\u00");
			buf_addc(b, hex[c >> 4]);
			buf_addc(b, hex[c & 15]);
		} else {
			buf_addc(b, (char)c);
		}
	}
	buf_addc(b, '"');
}

static void dump_value(struct buf *b, const struct tjson *v);

static void dump_container(struct buf *b, const struct tjson *v)
{
	int is_object = v->type == TJSON_OBJECT;

	buf_addc(b, is_object ? '{' : '[');
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			buf_addc(b, ',');
		if (is_object) {
			dump_string(b, v->keys[i], v->key_lens[i]);
			buf_addc(b, ':');
		}
		dump_value(b, v->items[i]);
	}
	buf_addc(b, is_object ? '}' : ']');
}

static void dump_value(struct buf *b, const struct tjson *v)
{
	switch (v->type) {
	case TJSON_NULL:
		buf_adds(b, "null");
		break;
	case TJSON_BOOL:
		buf_adds(b, v->boolean ? "true" : "false");
		break;
	case TJSON_NUMBER:
		buf_adds(b, v->text);
		break;
	case TJSON_STRING:
		dump_string(b, v->text, v->len);
		break;
	case TJSON_ARRAY:
	case TJSON_OBJECT:
		dump_container(b, v);
		break;
	}
}

char *tjson_dump(const struct tjson *v)
{
	struct buf b = { 0 };

	if (!v)
		return NULL;
	dump_value(&b, v);
	return buf_finish(&b);
}
