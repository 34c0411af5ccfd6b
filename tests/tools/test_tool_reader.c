/*
 * The trace2 command's reader (tools/json.c, tools/reader.c): JSON
 * decoding, numbers, times, and the records it makes of event lines.  The
 * expected values are written out from RFC 8259, docs/targets.md and
 * docs/tools.md, not taken from the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "reader.h"

static struct jobj obj;

static int parse(const char *line)
{
	char err[128];
	size_t at;

	return jobj_parse(&obj, line, strlen(line), err, sizeof(err), &at);
}

static void strings(void **state)
{
	const struct jval *v;

	(void)state;
	assert_int_equal(parse("{\"a\":\"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\","
			       "\"b\":\"\\ud83d\\ude00\",\"c\":\"\\ud800x\",\"d\":\"caf\xc3\xa9\","
			       "\"e\":\"\xff\"}"), 0);
	v = jobj_get(&obj, "a");
	assert_int_equal(v->type, J_STRING);
	assert_string_equal(v->str, "x\"\\/\b\f\n\r\tA\xc3\xa9\xe2\x82\xac");
	v = jobj_get(&obj, "b");
	assert_string_equal(v->str, "\xf0\x9f\x98\x80"); /* U+1F600 */
	v = jobj_get(&obj, "c");
	assert_string_equal(v->str, "\xef\xbf\xbdx");  /* lone surrogate: U+FFFD */
	assert_true(v->lone_surrogate);
	v = jobj_get(&obj, "d");
	assert_string_equal(v->str, "caf\xc3\xa9");
	assert_false(v->bad_utf8);
	v = jobj_get(&obj, "e");
	assert_string_equal(v->str, "\xff");           /* kept, flagged */
	assert_true(v->bad_utf8);
	assert_null(jobj_get(&obj, "f"));
}

static void malformed(void **state)
{
	static const char *const bad[] = {
		"", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x",
		"{a:1}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"tab\there\"}",
		"{\"a\":01}", "{\"a\":1.}", "{\"a\":-}", "{\"a\":tru}", "{\"a\":[1,]}",
		"{\"a\":\"open}", "{\"a\":{\"b\":1}", "{\"a\":1 \"b\":2}", "{'a':1}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (!parse(bad[i]))
			fail_msg("accepted: %s", bad[i]);
	}
	assert_int_equal(parse(" {\"a\" : [ 1 , {\"b\":[null,true,false]} ] , \"c\":-0.5e+3 } "), 0);
	assert_int_equal(jobj_get(&obj, "a")->count, 2);
	assert_null(jobj_get(&obj, "a")->strs);  /* not all strings */
	assert_int_equal(parse("{\"a\":1,\"a\":2}"), 0);
	assert_true(obj.duplicate);
}

static void numbers(void **state)
{
	int64_t i;
	uint64_t us;

	(void)state;
	assert_int_equal(parse("{\"i\":-42,\"big\":9223372036854775807,\"over\":9223372036854775808,"
			       "\"neg\":-9223372036854775808,\"f\":1.5,\"s\":0.000250,"
			       "\"r\":1.0000005,\"e\":1e3,\"str\":\"1\",\"huge\":99999999999999999999999,"
			       "\"inf\":1e999,\"tiny\":1e-999,\"ef\":2.5E+1,\"nz\":-0.0,"
			       "\"ebig\":1e99999999999999999999}"), 0);
	assert_int_equal(jval_int(jobj_get(&obj, "i"), &i), 0);
	assert_int_equal(i, -42);
	assert_int_equal(jval_int(jobj_get(&obj, "big"), &i), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(jval_int(jobj_get(&obj, "over"), &i), -2);  /* out of range */
	assert_int_equal(jval_int(jobj_get(&obj, "huge"), &i), -2);
	assert_int_equal(jval_int(jobj_get(&obj, "inf"), &i), -2);
	assert_int_equal(jval_int(jobj_get(&obj, "ebig"), &i), -2);
	assert_int_equal(jval_int(jobj_get(&obj, "neg"), &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(jval_int(jobj_get(&obj, "f"), &i), -1);     /* not an integer */
	assert_int_equal(jval_int(jobj_get(&obj, "tiny"), &i), -1);
	assert_int_equal(jval_int(jobj_get(&obj, "str"), &i), -1);
	assert_int_equal(jval_int(jobj_get(&obj, "e"), &i), 0);
	assert_int_equal(i, 1000);
	assert_int_equal(jval_int(jobj_get(&obj, "ef"), &i), 0);
	assert_int_equal(i, 25);
	assert_int_equal(jval_micros(jobj_get(&obj, "s"), &us), 0);
	assert_true(us == 250);
	assert_int_equal(jval_micros(jobj_get(&obj, "f"), &us), 0);
	assert_true(us == 1500000);
	assert_int_equal(jval_micros(jobj_get(&obj, "r"), &us), 0);
	assert_true(us == 1000001);                    /* rounded */
	assert_int_equal(jval_micros(jobj_get(&obj, "e"), &us), 0);
	assert_true(us == 1000000000);
	assert_int_equal(jval_micros(jobj_get(&obj, "tiny"), &us), 0);
	assert_true(us == 0);
	assert_int_equal(jval_micros(jobj_get(&obj, "nz"), &us), 0);
	assert_true(us == 0);
	assert_int_equal(jval_micros(jobj_get(&obj, "i"), &us), -2);  /* negative */
	assert_int_equal(jval_micros(jobj_get(&obj, "huge"), &us), -2);
	assert_int_equal(jval_micros(jobj_get(&obj, "inf"), &us), -2);
	assert_int_equal(jval_micros(jobj_get(&obj, "str"), &us), -1);
}

static void times(void **state)
{
	uint64_t us;

	(void)state;
	assert_int_equal(parse_utc_time("1970-01-01T00:00:00.000001Z", 27, &us), 0);
	assert_true(us == 1);
	/* 2000-01-01 is day 10957 */
	assert_int_equal(parse_utc_time("2000-01-01T00:00:00.123456Z", 27, &us), 0);
	assert_true(us == 946684800123456ull);
	assert_int_equal(parse_utc_time("2024-02-29T23:59:59.999999Z", 27, &us), 0);
	assert_true(us == 1709251199999999ull);
	assert_int_equal(parse_utc_time("2023-02-29T00:00:00.000000Z", 27, &us), -1);
	assert_int_equal(parse_utc_time("2100-02-29T00:00:00.000000Z", 27, &us), -1);
	assert_int_equal(parse_utc_time("2026-11-24T10:00:00.000000", 26, &us), -1);
	assert_int_equal(parse_utc_time("2026-11-24 10:00:00.000000Z", 27, &us), -1);
	assert_int_equal(parse_utc_time("2026-13-24T10:00:00.000000Z", 27, &us), -1);
	assert_int_equal(parse_utc_time("2026-11-24T24:00:00.000000Z", 27, &us), -1);
}

/* The records of a little log. */
struct seen {
	int n;
	char text[16][160];
	unsigned long bad_lines[4];
	int nbad;
};

static void on_record(void *ctx, struct t2_record *rec)
{
	struct seen *s = ctx;
	const struct trace2_event *ev = &rec->ev;

	if (s->n < 16)
		snprintf(s->text[s->n++], sizeof(s->text[0]),
			 "%s k%d d%d th=%s/%d n%zu t=%llu abs=%llu rel=%llu %s:%d",
			 rec->event, (int)ev->kind, ev->process ? ev->process->depth : -1,
			 ev->thread ? ev->thread->name : "-", ev->thread ? ev->thread->id : -1,
			 ev->nesting, (unsigned long long)ev->time_us,
			 (unsigned long long)ev->t_abs_us, (unsigned long long)ev->t_rel_us,
			 ev->file ? ev->file : "-", ev->line);
}

static void on_bad(void *ctx, const char *src, unsigned long lineno, const char *reason,
		   int ignored, int no_newline)
{
	struct seen *s = ctx;

	(void)src;
	(void)reason;
	(void)ignored;
	(void)no_newline;
	if (s->nbad < 4)
		s->bad_lines[s->nbad++] = lineno;
}

/* A reader of one source, "log", whose records and bad lines go to s. */
static void start_reading(struct t2_reader *r, struct t2_source *src, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	t2_reader_init(r, on_record, on_bad, s);
	t2_source_init(src, "log");
}

#define S "\"sid\":\"A\",\"thread\":\"main\",\"time\":\"1970-01-01T00:00:01.000000Z\""
#define S2 "\"sid\":\"A/B\",\"thread\":\"th03:w\",\"time\":\"1970-01-01T00:00:02.000000Z\""

static void records(void **state)
{
	static const char log[] =
		"{\"event\":\"version\"," S ",\"file\":\"a.c\",\"line\":3,\"evt\":\"4\",\"exe\":\"1\"}\n"
		"{\"event\":\"start\"," S ",\"t_abs\":0.250000,\"argv\":[\"p\"]}\n"
		"\n"
		"{\"event\":\"region_enter\"," S ",\"nesting\":1,\"label\":\"l\"}\n"
		"{\"event\":\"error\"," S ",\"msg\":\"m\",\"fmt\":\"%s\"}\n"
		"not json\n"
		"{\"event\":\"region_leave\"," S ",\"t_rel\":0.5,\"nesting\":1}\n"
		"{\"event\":\"newer_event\"," S "}\n"
		"{\"event\":\"thread_start\"," S2 "}\n"
		"{\"event\":\"exit\"," S ",\"t_abs\":2,\"code\":0}";
	struct t2_reader r;
	struct t2_source src;
	struct seen s;
	size_t i;

	(void)state;
	start_reading(&r, &src, &s);
	/* fed in pieces of 7 bytes: lines span pieces */
	for (i = 0; i < sizeof(log) - 1; i += 7)
		t2_source_feed(&r, &src, log + i, sizeof(log) - 1 - i < 7 ? sizeof(log) - 1 - i : 7);
	t2_source_end(&r, &src);
	if (s.nbad != 1)
		fail_msg("bad lines %lu %lu", s.bad_lines[0], s.bad_lines[1]);
	assert_int_equal(s.bad_lines[0], 6);
	assert_int_equal(s.n, 8);
	/* start: 1 s wall time, 0.25 s after the process start */
	assert_string_equal(s.text[0], "version k1 d0 th=main/0 n1 t=1000000 abs=0 rel=0 a.c:3");
	assert_string_equal(s.text[1], "start k3 d0 th=main/0 n1 t=1000000 abs=250000 rel=0 -:0");
	assert_string_equal(s.text[2], "region_enter k22 d0 th=main/0 n1 t=1000000 abs=250000 rel=0 -:0");
	/* inside the region: level 2 */
	assert_string_equal(s.text[3], "error k7 d0 th=main/0 n2 t=1000000 abs=250000 rel=0 -:0");
	assert_string_equal(s.text[4], "region_leave k23 d0 th=main/0 n1 t=1000000 abs=250000 rel=500000 -:0");
	assert_string_equal(s.text[5], "newer_event k0 d0 th=main/0 n1 t=1000000 abs=250000 rel=0 -:0");
	/* another process: depth 1, thread id from the name, no start known */
	assert_string_equal(s.text[6], "thread_start k16 d1 th=th03:w/3 n1 t=2000000 abs=0 rel=0 -:0");
	/* the last line without LF is read when whole */
	assert_string_equal(s.text[7], "exit k4 d0 th=main/0 n1 t=1000000 abs=2000000 rel=0 -:0");
	t2_reader_free(&r);
}

/* A line over the reader's limit is reported once, at its own line
 * number, and skipped to its end; the lines around it are read. */
static void line_over_the_limit(void **state)
{
	static const char ok_line[] = "{\"event\":\"x\"," S "}\n";
	char long_line[300];
	struct t2_reader r;
	struct t2_source src;
	struct seen s;
	size_t i;

	(void)state;
	memset(long_line, 'x', sizeof(long_line));
	start_reading(&r, &src, &s);
	assert_int_equal(r.max_line, 64u << 20); /* docs/tools.md: 64 MiB */
	r.max_line = sizeof(ok_line) - 1;        /* the ok line just fits */
	assert_int_equal(t2_source_feed(&r, &src, ok_line, sizeof(ok_line) - 1), 0);
	/* line 2: over the limit in pieces; reported by the piece that
	 * crosses it, and only once */
	assert_int_equal(t2_source_feed(&r, &src, long_line, 30), 0);
	assert_int_equal(t2_source_feed(&r, &src, long_line, 30), 0);
	assert_int_equal(t2_source_feed(&r, &src, long_line, 30), -1);
	for (i = 0; i < 3; i++)
		assert_int_equal(t2_source_feed(&r, &src, long_line, sizeof(long_line)), 0);
	assert_int_equal(s.nbad, 1);
	assert_int_equal(s.bad_lines[0], 2);
	/* its end, then line 3; line 4 over the limit within one piece, and
	 * line 5 in the same piece */
	assert_int_equal(t2_source_feed(&r, &src, "xx\n", 3), 0);
	assert_int_equal(t2_source_feed(&r, &src, ok_line, sizeof(ok_line) - 1), 0);
	memcpy(long_line + 200, "\n", 1);
	memcpy(long_line + 201, ok_line, sizeof(ok_line) - 1);
	assert_int_equal(t2_source_feed(&r, &src, long_line, 201 + sizeof(ok_line) - 1), -1);
	t2_source_end(&r, &src);
	assert_int_equal(s.nbad, 2);
	assert_int_equal(s.bad_lines[1], 4);
	assert_int_equal(s.n, 3);
	assert_int_equal(r.records, 3);
	assert_int_equal(src.lineno, 5);
	t2_reader_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strings),
		cmocka_unit_test(malformed),
		cmocka_unit_test(numbers),
		cmocka_unit_test(times),
		cmocka_unit_test(records),
		cmocka_unit_test(line_over_the_limit),
	};
	int ret;

	jobj_init(&obj);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	jobj_free(&obj);
	return ret;
}
