/*
 * Scoped regions in C (TRACE2_REGION, TRACE2_REGION_PRINTF; the C++
 * class is tested by tests/lib/test_cxx.sh).
 *
 * Each scenario leaves its scoped regions in a different way (the end
 * of the block, return, break, continue, goto); its output on every
 * target must equal, byte for byte, that of the same calls paired by
 * hand.  The leave's location is the declaration's; a region entered
 * while tracing was off is never left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t2test.h"
#include "trace2.h"

static const char *const BRIEF[] = {
	"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1", "GIT_TRACE2_EVENT_BRIEF=1",
	"GIT_TRACE2_EVENT_NESTING=10", NULL
};

/* Leaves by return (early and late), break, continue and goto. */
static int scoped_work(int n)
{
	TRACE2_REGION("c", "work", NULL);

	for (int i = 0; i < n; i++) {
		TRACE2_REGION_PRINTF("c", "step", NULL, "i=%d", i);
		if (i == 1)
			continue;
		if (i == 3)
			break;
		trace2_data_intmax("c", NULL, "i", i);
	}
	if (n == 0)
		return 0;
	{
		TRACE2_REGION("c", "inner", NULL);
		TRACE2_REGION("c", "innermost", NULL);
		if (n > 2)
			goto out;
	}
	return 1;
out:
	trace2_printf("after goto");
	return 2;
}

/* The same calls, paired by hand. */
static int paired_work(int n)
{
	trace2_region_enter("c", "work", NULL);
	for (int i = 0; i < n; i++) {
		trace2_region_enter_printf("c", "step", NULL, "i=%d", i);
		if (i == 1) {
			trace2_region_leave("c", "step", NULL);
			continue;
		}
		if (i == 3) {
			trace2_region_leave("c", "step", NULL);
			break;
		}
		trace2_data_intmax("c", NULL, "i", i);
		trace2_region_leave("c", "step", NULL);
	}
	if (n == 0) {
		trace2_region_leave("c", "work", NULL);
		return 0;
	}
	trace2_region_enter("c", "inner", NULL);
	trace2_region_enter("c", "innermost", NULL);
	if (n > 2) {
		trace2_region_leave("c", "innermost", NULL);
		trace2_region_leave("c", "inner", NULL);
		trace2_printf("after goto");
		trace2_region_leave("c", "work", NULL);
		return 2;
	}
	trace2_region_leave("c", "innermost", NULL);
	trace2_region_leave("c", "inner", NULL);
	trace2_region_leave("c", "work", NULL);
	return 1;
}

static void sc_work(void *arg)
{
	int scoped = *(const int *)arg;
	int (*work)(int) = scoped ? scoped_work : paired_work;

	CHECK(work(0) == 0);
	CHECK(work(2) == 1);
	CHECK(work(5) == 2);
	trace2_cmd_exit(0);
}

static void expect_same(const char *what, const char *want, const char *got)
{
	if (strcmp(want, got))
		fail_msg("%s: paired by hand:\n%s\nscoped:\n%s", what, want, got);
}

static void same_as_paired(void **state)
{
	int paired = 0, scoped = 1;
	struct t2_out a, b;

	(void)state;
	t2_run_all(sc_work, &paired, BRIEF, &a);
	t2_run_all(sc_work, &scoped, BRIEF, &b);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	/* The hand-paired run is what it should be (so the comparison says
	 * something): the goto path leaves three regions. */
	assert_true(t2_matches(a.normal, "\nafter goto\n"));
	assert_non_null(strstr(a.perf, "| region_leave |     |  0.000000 |  0.000000 | c            | ....label:innermost\n"
				   "d0 | main                     | region_leave |     |  0.000000 |  0.000000 | c            | ..label:inner\n"
				   "d0 | main                     | printf       |     |  0.000000 |           |              | ..after goto\n"));
	assert_non_null(strstr(a.event, "\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":2,\"category\":\"c\",\"label\":\"step\",\"msg\":\"i=3\"}"));
	expect_same("normal", a.normal, b.normal);
	expect_same("perf", a.perf, b.perf);
	expect_same("event", a.event, b.event);
	t2_out_free(&a);
	t2_out_free(&b);
}

static void sc_location(void *arg)
{
	(void)arg;
	{
		TRACE2_REGION("c", "here", NULL);
		trace2_printf("the line after the declaration");
	}
	trace2_cmd_exit(0);
}

/* The "line" of the event record of text that contains needle. */
static int line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *l;
	int line = -1;

	assert_non_null(p);
	while (p > text && p[-1] != '\n')
		p--;
	l = strstr(p, "\"line\":");
	assert_non_null(l);
	assert_int_equal(sscanf(l, "\"line\":%d", &line), 1);
	return line;
}

/* Enter and leave show the declaration's file and line. */
static void location(void **state)
{
	struct t2_out o;
	int line;

	(void)state;
	t2_run_all(sc_location, NULL, NULL, &o);
	assert_int_equal(o.status, 0);
	line = line_of(o.event, "\"msg\":\"the line after") - 1;
	assert_int_equal(line_of(o.event, "\"event\":\"region_enter\""), line);
	assert_int_equal(line_of(o.event, "\"event\":\"region_leave\""), line);
	assert_non_null(strstr(o.event, "\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\","
					"\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"tests/lib/test_scoped_region.c\","));
	t2_out_free(&o);
}

/* A block that begins before trace2_initialize() and ends after it: its
 * region was never entered, so it is not left (no BUG, no record). */
static void sc_entered_while_off(void *arg)
{
	(void)arg;
	{
		TRACE2_REGION("c", "before", NULL);
		trace2_initialize();
		trace2_printf("on");
	}
	trace2_printf("after");
	trace2_cmd_exit(0);
}

static void entered_while_off(void **state)
{
	struct t2_out o;

	(void)state;
	t2_run_all_noinit(sc_entered_while_off, NULL, BRIEF, &o);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.normal, "version " TRACE2_VERSION_STRING "\n"
				      "on\n"
				      "after\n"
				      "exit elapsed:0.000000 code:0\n"
				      "atexit elapsed:0.000000 code:0\n");
	t2_out_free(&o);
}

/* docs/embedding.md "Scoped regions": in main's own block the leave
 * comes after trace2_cmd_exit()'s exit record; in an inner block that
 * ends first, before it. */
static int main_scoped_in_block(void)
{
	TRACE2_REGION("app", "main", NULL);
	return trace2_cmd_exit(0);
}

static int main_scoped_in_inner_block(void)
{
	int rc;

	{
		TRACE2_REGION("app", "main", NULL);
		rc = 0;
	}
	return trace2_cmd_exit(rc);
}

static void sc_main(void *arg)
{
	int (*fake_main)(void) = (int (*)(void))arg;

	fake_main();
}

static void scoped_region_in_main(void **state)
{
	struct t2_out o;
	char *names;

	(void)state;
	t2_run_all(sc_main, (void *)main_scoped_in_block, BRIEF, &o);
	names = t2_event_names(o.event);
	assert_string_equal(names, "version region_enter exit region_leave atexit");
	free(names);
	t2_out_free(&o);
	t2_run_all(sc_main, (void *)main_scoped_in_inner_block, BRIEF, &o);
	names = t2_event_names(o.event);
	assert_string_equal(names, "version region_enter region_leave exit atexit");
	free(names);
	t2_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_as_paired),
		cmocka_unit_test(location),
		cmocka_unit_test(entered_while_off),
		cmocka_unit_test(scoped_region_in_main),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
