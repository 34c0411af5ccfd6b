/*
 * Tests for the trace-line parser of the test suite (tests/support/t2rec.c):
 * t2_rec_parse() on lines of each layout and t2_check_text(), which the
 * fuzzers use on everything the targets wrote.  The texts are written here
 * from the layouts of docs/targets.md, not produced by the library.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t2rec.h"
#include "t2test.h"

#define SID "20261124T091941.948235Z-H0a7c9cdf-P00000ba0"

/* One non-brief PERF line (docs/targets.md, "Perf"); abs and rel "" for
 * blank. */
static void perf(char **buf, const char *event, const char *repo, const char *abs,
		 const char *rel, const char *category, const char *payload)
{
	t2_append(buf, "09:19:41.948245 %-28s | d0 | %-24s | %-12s | %-3s | %9s | %9s | %-12.12s | %s\n",
		  "fuzz_api.c:71", "main", event, repo, abs, rel, category, payload);
}

static void event(char **buf, const char *name, const char *extra)
{
	t2_append(buf, "{\"event\":\"%s\",\"sid\":\"" SID "\",\"thread\":\"main\","
		  "\"time\":\"2026-11-24T09:19:41.948245Z\",\"file\":\"x.c\",\"line\":1%s}\n",
		  name, extra);
}

/* t2_check_text() of text must fail at line nr, for the reason why. */
static void assert_bad(enum t2_rec_kind kind, const char *text, unsigned nr,
		       const char *why)
{
	struct t2_text_error err;

	if (!t2_check_text(kind, text, strlen(text), &err))
		fail_msg("accepted:\n%s", text);
	if (err.nr != nr || strcmp(err.why, why))
		print_error("line %u (%s): %.*s\n", err.nr, err.why, (int)err.len, err.line);
	assert_int_equal(err.nr, nr);
	assert_string_equal(err.why, why);
}

/* One PERF line (no repo, no category) that must fail for the reason why. */
static void assert_bad_perf_line(const char *event, const char *abs, const char *rel,
				 const char *payload, const char *why)
{
	char *text = NULL;

	perf(&text, event, "", abs, rel, "", payload);
	assert_bad(T2_REC_PERF, text, 1, why);
	free(text);
}

static void assert_good(enum t2_rec_kind kind, const char *text)
{
	struct t2_text_error err;

	if (t2_check_text(kind, text, strlen(text), &err))
		fail_msg("line %u (%s): %.*s", err.nr, err.why, (int)err.len, err.line);
}

static void test_parse_fields(void **state)
{
	char *text = NULL;
	struct t2_rec r;

	(void)state;
	perf(&text, "child_exit", "r12 ", "0.000262", "0.000015", "a-category-too-long",
	     "....[ch0] pid:1234 code:0");
	assert_int_equal(t2_rec_parse(text, strlen(text) - 1, &r), T2_REC_PERF);
	assert_true(t2_slice_eq(r.time, "09:19:41.948245"));
	assert_true(t2_slice_eq(r.thread, "main"));
	assert_true(t2_slice_eq(r.event, "child_exit"));
	assert_true(t2_slice_eq(r.t_abs, "0.000262"));
	assert_true(t2_slice_eq(r.t_rel, "0.000015"));
	assert_true(t2_slice_eq(r.category, "a-category-t"));
	assert_int_equal(r.dots, 4);
	assert_true(t2_slice_eq(r.payload, "[ch0] pid:1234 code:0"));
	t2_rec_free(&r);
	free(text);

	text = NULL;
	perf(&text, "version", "", "", "", "", "0.1.0");
	/* the brief layout: from "d0 | " on, no time */
	assert_int_equal(t2_rec_parse(strstr(text, "d0 | "), strlen(strstr(text, "d0 | ")) - 1, &r),
			 T2_REC_PERF);
	assert_int_equal(r.time.len, 0);
	assert_int_equal(r.t_abs.len, 0);
	assert_int_equal(r.t_rel.len, 0);
	assert_true(t2_slice_eq(r.payload, "0.1.0"));
	t2_rec_free(&r);
	free(text);

	text = NULL;
	event(&text, "exit", ",\"nesting\":2");
	assert_int_equal(t2_rec_parse(text, strlen(text) - 1, &r), T2_REC_EVENT);
	assert_true(t2_slice_eq(r.sid, SID));
	assert_true(t2_slice_eq(r.time, "2026-11-24T09:19:41.948245Z"));
	assert_int_equal(r.nesting, 2);
	t2_rec_free(&r);
	free(text);

	text = "09:19:41.948245 fuzz_api.c:73                     cmd_name fuzz-api (fuzz-api)";
	assert_int_equal(t2_rec_parse(text, strlen(text), &r), T2_REC_NORMAL);
	assert_true(t2_slice_eq(r.time, "09:19:41.948245"));
	assert_true(t2_slice_eq(r.event, "cmd_name"));
	assert_true(t2_slice_eq(r.payload, "cmd_name fuzz-api (fuzz-api)"));
	t2_rec_free(&r);
}

/* The t_abs and t_rel columns are "%9.6f" or blank, nothing else. */
static void test_perf_numbers(void **state)
{
	static const struct {
		const char *abs;
		int ok;
	} cases[] = {
		{ "0.000247", 1 }, { "99.999999", 1 }, { "123.456789", 1 },
		{ "1234.000001", 1 }, { "  0.000247", 0 } /* padded to 10 */,
		{ "0.00024", 0 }, { "0.0002477", 0 }, { "x.000247", 0 }, { ".000247", 0 },
		{ "0,000247", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = NULL;
		struct t2_rec r;

		perf(&text, "start", "", cases[i].abs, "", "", "git status");
		if ((t2_rec_parse(text, strlen(text) - 1, &r) == T2_REC_PERF) != cases[i].ok)
			fail_msg("t_abs '%s': want %s", cases[i].abs, cases[i].ok ? "a record" : "none");
		t2_rec_free(&r);
		free(text);
	}
}

static void test_check_perf(void **state)
{
	char *good = NULL, *text;

	(void)state;
	perf(&good, "version", "", "", "", "", "0.1.0");
	perf(&good, "start", "", "0.000100", "", "", "git status");
	perf(&good, "child_exit", "", "0.000262", "0.000015", "", "[ch0] pid:1234 code:0");
	perf(&good, "region_enter", "r1 ", "0.000300", "", "cat", "label:x");
	perf(&good, "data_json", "", "0.000640", "0.000640", "cat", "json:[");
	t2_append(&good, "  \"a\",\n  \"b\"\n]\n");
	perf(&good, "data_json", "r0 ", "0.000641", "0.000641", "stats", "..json:{\"n\":42}");
	perf(&good, "data_json", "", "0.000653", "0.000653", "", "partial:{");
	t2_append(&good, "  \"k\": [\n    \"open\"\n  ]\n");
	perf(&good, "atexit", "", "0.000700", "", "", "code:0");
	assert_good(T2_REC_PERF, good);
	assert_good(T2_REC_PERF, "");

	/* the same text cut short */
	assert_bad(T2_REC_PERF, text = t2_xfmt("%.*s", (int)strlen(good) - 1, good), 14,
		   "text does not end with LF");
	free(text);
	assert_bad_perf_line("start", "", "", "git status", "t_abs"); /* start has t_abs */
	assert_bad_perf_line("version", "0.000100", "", "0.1.0", "t_abs"); /* version none */
	assert_bad_perf_line("region_enter", "0.000300", "0.000001", "label:x", "t_rel");
	assert_bad_perf_line("bogus", "", "", "x", "event");
	assert_bad_perf_line("data_json", "0.000640", "0.000640", "json:{\"a\":1}}",
			     "data_json value is no JSON");
	assert_bad_perf_line("data_json", "0.000640", "0.000640", "stats:{}", "data_json key");
	text = NULL;
	perf(&text, "version", "", "", "", "", "0.1.0");
	perf(&text, "child_exit", "", "0.000262", "", "", "[ch0] pid:1234 code:0");
	assert_bad(T2_REC_PERF, text, 2, "t_rel");
	free(text);

	/* a brief line, a NORMAL line, a continuation line out of place */
	text = NULL;
	perf(&text, "version", "", "", "", "", "0.1.0");
	t2_perf_brief(&text, "main", "version", 0, 0, "", "0.1.0");
	assert_bad(T2_REC_PERF, text, 2, "no time (brief layout)");
	free(text);
	assert_bad(T2_REC_PERF, "09:19:41.948245 fuzz_api.c:73                     cmd_name x\n",
		   1, "not a PERF record");
	text = NULL;
	perf(&text, "data", "", "0.000100", "0.000100", "c", "k:v");
	t2_append(&text, "  \"a\"\n");
	assert_bad(T2_REC_PERF, text, 2, "not a PERF record");
	free(text);

	/* data_json: a terminated writer's value must be JSON */
	text = NULL;
	perf(&text, "version", "", "", "", "", "0.1.0");
	perf(&text, "data_json", "", "0.000640", "0.000640", "cat", "json:{");
	t2_append(&text, "  \"k\": [\n    \"open\"\n  ]\n");
	perf(&text, "atexit", "", "0.000700", "", "", "code:0");
	assert_bad(T2_REC_PERF, text, 2, "data_json value is no JSON");
	free(text);
	free(good);
}

static void test_check_normal(void **state)
{
	static const char good[] =
		"09:19:41.948245 fuzz_api.c:71                     version 0.1.0\n"
		"09:19:41.948464 fuzz_api.c:208                    child_start[1] git \n"
		"05:09:21.904792 abcdefghijklmnopqrstuvwxyz0123.c:12 normal payload after a long location\n"
		"05:09:21.904808                                   message with file == NULL\n";
	char *perf_text = NULL;

	(void)state;
	assert_good(T2_REC_NORMAL, good);
	assert_bad(T2_REC_NORMAL, "09:19:41.948245 fuzz_api.c:71 version 0.1.0\n", 1,
		   "not a NORMAL record"); /* payload before column 50 */
	assert_bad(T2_REC_NORMAL,
		   "09:19:41.948245 fuzz_api.c:71                     version 0.1.0\n"
		   "9:19:41.948245 fuzz_api.c:71                      version 0.1.0\n",
		   2, "not a NORMAL record");
	assert_bad(T2_REC_NORMAL,
		   "09:19:41.948245 fuzz_api.c:71                     version 0.1.0\n"
		   "continued\n",
		   2, "not a NORMAL record");
	perf(&perf_text, "version", "", "", "", "", "0.1.0");
	assert_bad(T2_REC_NORMAL, perf_text, 1, "not a NORMAL record");
	free(perf_text);
}

static void test_check_event(void **state)
{
	char *text = NULL;

	(void)state;
	event(&text, "version", ",\"evt\":\"4\",\"exe\":\"0.1.0\"");
	event(&text, "exit", ",\"t_abs\":0.001,\"code\":0");
	assert_good(T2_REC_EVENT, text);
	t2_append(&text, "{\"event\":\"exit\",\"sid\":\"" SID "\",\"thread\":\"main\"}\n");
	assert_bad(T2_REC_EVENT, text, 3, "time");
	free(text);

	assert_bad(T2_REC_EVENT, "{\"event\":\"exit\",\"thread\":\"main\",\"time\":\"t\"}\n", 1,
		   "not an EVENT record");
	assert_bad(T2_REC_EVENT, "{\"event\":\"exit\",\"sid\":1,\"thread\":\"main\",\"time\":\"t\"}\n",
		   1, "not an EVENT record");
	/* no JSON: tjson says why */
	assert_bad(T2_REC_EVENT, "{\"event\":\"exit\",}\n", 1, "member name expected");
	assert_bad(T2_REC_EVENT, "[1]\n", 1, "not an EVENT record");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fields),
		cmocka_unit_test(test_perf_numbers),
		cmocka_unit_test(test_check_perf),
		cmocka_unit_test(test_check_normal),
		cmocka_unit_test(test_check_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
