/*
 * Fuzzer: JSON escaping (tr2_json_escape) and the jw_* JSON writer.
 *
 * 1. The whole input is escaped into a buffer of exactly
 *    TR2_JSON_ESCAPED_MAX(len) bytes.  Quoted, it must be exactly the
 *    expected text (fz_json_quote of the repaired input), parse with the
 *    strict tjson parser, and decode to the input with every byte that is
 *    not part of valid UTF-8 replaced by U+FFFD (so valid UTF-8 decodes to
 *    itself).
 *
 * 2. The input is also a program for three writers W0..W2.  Each step is
 *    an opcode byte, a writer byte, then the operands the opcode takes
 *    (strings: a length byte and the bytes).  A model of every writer
 *    predicts whether a call is misuse (a BUG, counted by the handler,
 *    leaving the writer unchanged) and what the value is so far, as
 *    tjson_dump() would print it.  At the end every writer is closed with
 *    jw_end(); its text must parse with tjson and dump to the model's
 *    text; a compact writer's text must hold no newline.
 */
#include "fuzz.h"
#include "tjson.h"
#include "tutf8.h"
#include "trace2.h"
#include "tr2_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest nesting a program may build (tjson accepts TJSON_MAX_DEPTH). */
#define MAX_NESTING 200
#define NWRITERS 3
#define MAX_ARGV 6


int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	trace2_set_bug_handler(fz_count_bug);
	return 0;
}

/* ------------------------------------------------------------------ */
/* 1. Escaping.                                                         */
/* ------------------------------------------------------------------ */

static void check_escape(const char *s, size_t len)
{
	struct fz_buf repaired = FZ_BUF_INIT, want = FZ_BUF_INIT, got = FZ_BUF_INIT;
	size_t max = TR2_JSON_ESCAPED_MAX(len), n;
	char *out = malloc(max ? max : 1);
	struct tjson *v;

	FZ_CHECK(out != NULL);
	n = tr2_json_escape(out, s, len);
	FZ_CHECK(n <= max);
	fz_buf_addc(&got, '"');
	fz_buf_add(&got, out, n);
	fz_buf_addc(&got, '"');

	fz_utf8_repair(&repaired, s, len);
	if (tutf8_valid((const unsigned char *)s, len))
		FZ_CHECK(repaired.len == len && !memcmp(repaired.p, s, len));
	fz_json_quote(&want, repaired.p, repaired.len);
	FZ_CHECK(got.len == want.len && !memcmp(got.p, want.p, got.len));

	v = tjson_parse(got.p, got.len, NULL);
	FZ_CHECK(v && v->type == TJSON_STRING);
	FZ_CHECK(v->len == repaired.len && !memcmp(v->text, repaired.p, v->len));
	tjson_free(v);
	free(out);
	fz_buf_free(&repaired);
	fz_buf_free(&want);
	fz_buf_free(&got);
}

/* ------------------------------------------------------------------ */
/* 2. The writer and its model.                                         */
/* ------------------------------------------------------------------ */

struct model {
	struct json_writer jw;
	struct fz_buf text;        /* tjson_dump() of the value so far */
	char open[MAX_NESTING + 1]; /* open containers, '{' or '[' */
	size_t depth;
	size_t max_depth;          /* deepest nesting in the text */
	int need_comma;
	int used;                  /* something was written */
};

static void model_reset(struct model *m)
{
	jw_release(&m->jw);
	m->text.len = 0;
	fz_buf_add(&m->text, "", 0);
	m->depth = m->max_depth = 0;
	m->need_comma = m->used = 0;
}

static int terminated(const struct model *m)
{
	return m->used && !m->depth;
}

static char top(const struct model *m)
{
	return m->depth ? m->open[m->depth - 1] : 0;
}

static void push(struct model *m, char c)
{
	fz_buf_addc(&m->text, c);
	m->open[m->depth++] = c;
	if (m->depth > m->max_depth)
		m->max_depth = m->depth;
	m->need_comma = 0;
	m->used = 1;
}

/* One member ("key":) or element about to be written. */
static void separator(struct model *m, const char *key)
{
	if (m->need_comma)
		fz_buf_addc(&m->text, ',');
	if (key) {
		struct fz_buf fixed = FZ_BUF_INIT;

		fz_utf8_repair(&fixed, key, strlen(key));
		fz_json_quote(&m->text, fixed.p, fixed.len);
		fz_buf_addc(&m->text, ':');
		fz_buf_free(&fixed);
	}
}

static void add_string(struct fz_buf *text, const char *s)
{
	struct fz_buf fixed = FZ_BUF_INIT;

	if (!s) {
		fz_buf_adds(text, "null");
		return;
	}
	fz_utf8_repair(&fixed, s, strlen(s));
	fz_json_quote(text, fixed.p, fixed.len);
	fz_buf_free(&fixed);
}

/* ------------------------------------------------------------------ */
/* The program.                                                         */
/* ------------------------------------------------------------------ */

enum op {
	OP_OBJECT_BEGIN, OP_ARRAY_BEGIN, OP_END, OP_RELEASE,
	OP_MEMBER, OP_ELEMENT, OP_OBJECT_SUB, OP_ARRAY_SUB,
	OP_OBJECT_INLINE, OP_ARRAY_INLINE, OP_ARGV,
	OP_COUNT
};

/* The kinds of value a member or element can be. */
enum kind { K_STRING, K_INTMAX, K_DOUBLE, K_TRUE, K_FALSE, K_BOOL, K_NULL, K_COUNT };

struct value {
	enum kind kind;
	const char *s;
	intmax_t i;
	int precision;
	double d;
};

struct prog {
	struct fz_in in;
	struct fz_pool pool;
	struct model w[NWRITERS];
};

/* A string, or NULL one time in 16. */
static const char *str_or_null(struct prog *p)
{
	if (fz_pick(&p->in, 16) == 0)
		return NULL;
	return fz_str(&p->in, &p->pool, 40, 0);
}

static void read_value(struct prog *p, struct value *v)
{
	uint64_t bits;

	memset(v, 0, sizeof(*v));
	v->kind = (enum kind)fz_pick(&p->in, K_COUNT);
	switch (v->kind) {
	case K_STRING:
		v->s = str_or_null(p);
		break;
	case K_INTMAX:
		v->i = (intmax_t)fz_u64(&p->in);
		break;
	case K_DOUBLE:
		v->precision = (int)fz_pick(&p->in, 40) - 5;
		bits = fz_u64(&p->in);
		memcpy(&v->d, &bits, sizeof(v->d));
		if (!isfinite(v->d)) /* "%f" of inf/nan is no JSON, as in Git */
			v->d = (double)(int64_t)bits / 1000.0;
		break;
	default:
		v->i = fz_byte(&p->in);
	}
}

/* The text a value adds to the model. */
static void value_text(struct fz_buf *text, const struct value *v)
{
	char num[512];

	switch (v->kind) {
	case K_STRING:
		add_string(text, v->s);
		return;
	case K_INTMAX:
		snprintf(num, sizeof(num), "%jd", v->i);
		break;
	case K_DOUBLE:
		snprintf(num, sizeof(num), "%.*f", v->precision, v->d);
		break;
	case K_TRUE:
		strcpy(num, "true");
		break;
	case K_FALSE:
		strcpy(num, "false");
		break;
	case K_BOOL:
		strcpy(num, v->i ? "true" : "false");
		break;
	default:
		strcpy(num, "null");
	}
	fz_buf_adds(text, num);
}

static void call_member(struct json_writer *jw, const char *key, const struct value *v)
{
	switch (v->kind) {
	case K_STRING: jw_object_string(jw, key, v->s); break;
	case K_INTMAX: jw_object_intmax(jw, key, v->i); break;
	case K_DOUBLE: jw_object_double(jw, key, v->precision, v->d); break;
	case K_TRUE: jw_object_true(jw, key); break;
	case K_FALSE: jw_object_false(jw, key); break;
	case K_BOOL: jw_object_bool(jw, key, (int)v->i); break;
	default: jw_object_null(jw, key);
	}
}

static void call_element(struct json_writer *jw, const struct value *v)
{
	switch (v->kind) {
	case K_STRING: jw_array_string(jw, v->s); break;
	case K_INTMAX: jw_array_intmax(jw, v->i); break;
	case K_DOUBLE: jw_array_double(jw, v->precision, v->d); break;
	case K_TRUE: jw_array_true(jw); break;
	case K_FALSE: jw_array_false(jw); break;
	case K_BOOL: jw_array_bool(jw, (int)v->i); break;
	default: jw_array_null(jw);
	}
}

/* A member (key given) or an element (key NULL, in) may be added: the
 * writer's innermost container is the right one and a member has a key. */
static int can_add(const struct model *m, int member, const char *key)
{
	return top(m) == (member ? '{' : '[') && (!member || key);
}

/* Returns the number of BUGs the step must cause, or -1 to skip it. */
static int step(struct prog *p)
{
	enum op op = (enum op)fz_pick(&p->in, OP_COUNT);
	struct model *m = &p->w[fz_pick(&p->in, NWRITERS)], *sub;
	int member = op == OP_MEMBER || op == OP_OBJECT_SUB || op == OP_OBJECT_INLINE;
	const char *key = member ? str_or_null(p) : NULL;
	const char *argv[MAX_ARGV + 1];
	struct value v;
	int pretty, argc, i, n;

	switch (op) {
	case OP_OBJECT_BEGIN:
	case OP_ARRAY_BEGIN:
		pretty = (int)fz_pick(&p->in, 2);
		if (op == OP_OBJECT_BEGIN)
			jw_object_begin(&m->jw, pretty);
		else
			jw_array_begin(&m->jw, pretty);
		if (m->used)
			return 1;
		push(m, op == OP_OBJECT_BEGIN ? '{' : '[');
		return 0;
	case OP_END:
		jw_end(&m->jw);
		if (!m->depth)
			return 1;
		fz_buf_addc(&m->text, top(m) == '{' ? '}' : ']');
		m->depth--;
		m->need_comma = 1;
		return 0;
	case OP_RELEASE:
		model_reset(m);
		return 0;
	case OP_MEMBER:
	case OP_ELEMENT:
		read_value(p, &v);
		if (member)
			call_member(&m->jw, key, &v);
		else
			call_element(&m->jw, &v);
		if (!can_add(m, member, key))
			return 1;
		separator(m, key);
		value_text(&m->text, &v);
		m->need_comma = 1;
		return 0;
	case OP_OBJECT_SUB:
	case OP_ARRAY_SUB:
		sub = &p->w[fz_pick(&p->in, NWRITERS)];
		if (m->depth + sub->max_depth > MAX_NESTING)
			return -1;
		if (member)
			jw_object_sub_jw(&m->jw, key, &sub->jw);
		else
			jw_array_sub_jw(&m->jw, &sub->jw);
		if (!can_add(m, member, key) || !terminated(sub))
			return 1;
		separator(m, key);
		fz_buf_add(&m->text, sub->text.p, sub->text.len);
		if (m->depth + sub->max_depth > m->max_depth)
			m->max_depth = m->depth + sub->max_depth;
		m->need_comma = 1;
		return 0;
	case OP_OBJECT_INLINE:
	case OP_ARRAY_INLINE:
		pretty = (int)fz_pick(&p->in, 2); /* object or array */
		if (m->depth >= MAX_NESTING)
			return -1;
		if (member && pretty)
			jw_object_inline_begin_array(&m->jw, key);
		else if (member)
			jw_object_inline_begin_object(&m->jw, key);
		else if (pretty)
			jw_array_inline_begin_array(&m->jw);
		else
			jw_array_inline_begin_object(&m->jw);
		if (!can_add(m, member, key))
			return 1;
		separator(m, key);
		push(m, pretty ? '[' : '{');
		return 0;
	case OP_ARGV:
		n = (int)fz_pick(&p->in, MAX_ARGV + 1);
		for (i = 0; i < n; i++)
			argv[i] = str_or_null(p);
		argv[n] = NULL;
		argc = (int)fz_pick(&p->in, MAX_ARGV + 2) - 1; /* -1 .. n+ */
		if (argc > n)
			argc = n;
		if (fz_pick(&p->in, 2)) {
			jw_array_argc_argv(&m->jw, argc, argv);
		} else {
			jw_array_argv(&m->jw, argv);
			for (argc = 0; argv[argc]; argc++)
				;
		}
		if (!can_add(m, 0, NULL))
			return 1;
		for (i = 0; i < argc; i++) {
			separator(m, NULL);
			add_string(&m->text, argv[i]);
			m->need_comma = 1;
		}
		return 0;
	default:
		return -1;
	}
}

/* Close what is open, then compare the writer with its model. */
static void check_writer(struct model *m)
{
	struct tjson *v;
	char *dump;

	while (m->depth) {
		unsigned before = fz_bugs;

		jw_end(&m->jw);
		FZ_CHECK(fz_bugs == before);
		fz_buf_addc(&m->text, top(m) == '{' ? '}' : ']');
		m->depth--;
	}
	FZ_CHECK(jw_is_terminated(&m->jw) == terminated(m));
	if (!m->used) {
		FZ_CHECK(m->jw.json.len == 0);
		return;
	}
	if (!m->jw.pretty)
		FZ_CHECK(!memchr(m->jw.json.buf, '\n', m->jw.json.len));
	v = tjson_parse(m->jw.json.buf, m->jw.json.len, NULL);
	if (!v)
		fz_fail(__FILE__, __LINE__, "writer text is no JSON: %s", m->jw.json.buf);
	dump = tjson_dump(v);
	FZ_CHECK(dump != NULL);
	if (strcmp(dump, m->text.p))
		fz_fail(__FILE__, __LINE__, "writer gave %s, expected %s", dump, m->text.p);
	free(dump);
	tjson_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog p;
	int i, want;
	unsigned before;

	check_escape((const char *)data, size);

	memset(&p, 0, sizeof(p));
	p.in.p = data;
	p.in.n = size;
	for (i = 0; i < NWRITERS; i++) {
		jw_init(&p.w[i].jw);
		model_reset(&p.w[i]);
	}
	while (p.in.n) {
		before = fz_bugs;
		want = step(&p);
		if (want >= 0 && fz_bugs - before != (unsigned)want)
			fz_fail(__FILE__, __LINE__, "%u BUG reports, expected %d",
				fz_bugs - before, want);
	}
	for (i = 0; i < NWRITERS; i++) {
		check_writer(&p.w[i]);
		jw_release(&p.w[i].jw);
		fz_buf_free(&p.w[i].text);
	}
	fz_pool_free(&p.pool);
	return 0;
}
