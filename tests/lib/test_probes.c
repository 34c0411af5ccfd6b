/*
 * Probes with no tracer: what attaching does to the library, simulated by
 * counting in the semaphores as the kernel does when a tracer attaches
 * (tests/lib/test_probes.sh attaches bpftrace for real).
 *
 * - attached_keeps_output: a library probe attached before
 *   trace2_initialize() changes nothing in the normal, perf and event
 *   output of a scenario (byte for byte after scrubbing times and SIDs).
 * - attached_builds_records: attached with no target on, the library keeps
 *   the thread's region stack (a leave with no open region is a BUG the
 *   handler sees); detached, the macros do not even call it.
 * - user_semaphore: TRACE2_PROBE_WITH_SEMAPHORE evaluates its arguments
 *   only while its semaphore is set; TRACE2_PROBE always.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "t2test.h"
#include "trace2.h"
#include "trace2/probe.h"

/* What the kernel does to the word's high half per tracer (tr2_probe.c). */
static void attach_library_probe(int n)
{
	__atomic_add_fetch(&trace2_listener_mask, (unsigned)n << 16, __ATOMIC_RELAXED);
}

static void initialize_and_trace(void)
{
	trace2_initialize();
	trace2_cmd_name("probes");
	trace2_region_enter("cat", "outer", NULL);
	trace2_region_enter_printf("cat", "inner", NULL, "n=%d", 3);
	trace2_data_intmax("cat", NULL, "count", -42);
	trace2_data_string("cat", NULL, "text", "value");
	trace2_printf("hello %s", "there");
	trace2_region_leave("cat", "inner", NULL);
	trace2_region_leave("cat", "outer", NULL);
	trace2_cmd_error("oops %d", 1);
	trace2_cmd_exit(5);
}

static void sc_plain(void *arg)
{
	(void)arg;
	initialize_and_trace();
}

static void sc_attached(void *arg)
{
	(void)arg;
	attach_library_probe(1);
	initialize_and_trace();
	CHECK(trace2_is_enabled());
}

static void attached_keeps_output(void **state)
{
	static const char *const brief[] = { "GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1", NULL };
	struct t2_out plain, attached;

	(void)state;
	t2_run_all_noinit(sc_plain, NULL, brief, &plain);
	t2_run_all_noinit(sc_attached, NULL, brief, &attached);
	assert_int_equal(plain.status, 0);
	assert_int_equal(attached.status, 0);
	assert_non_null(strstr(plain.perf, "label:inner"));
	assert_string_equal(plain.normal, attached.normal);
	assert_string_equal(plain.perf, attached.perf);
	assert_string_equal(plain.event, attached.event);
	t2_out_free(&plain);
	t2_out_free(&attached);
}

static int bugs;

static void count_bug(const char *file, int line, const char *fmt, va_list ap)
{
	(void)file;
	(void)line;
	(void)ap;
	if (strstr(fmt, "no open regions"))
		bugs++;
}

/* One region entered, three left: the thread's stack holds its own start
 * under its regions, so the third leave finds no open region. */
static void unbalanced(void)
{
	trace2_region_enter("cat", "once", NULL);
	trace2_region_leave("cat", "once", NULL);
	trace2_region_leave("cat", "once", NULL);
	trace2_region_leave("cat", "once", NULL);
}

static void sc_no_target(void *arg)
{
	(void)arg;
	trace2_set_bug_handler(count_bug);
	trace2_initialize();
	CHECK(!trace2_is_enabled() && !TRACE2_ACTIVE());
	unbalanced();
	CHECK(bugs == 0);
	attach_library_probe(2);
	CHECK(!trace2_is_enabled() && TRACE2_ACTIVE());
	unbalanced();
	CHECK(bugs == 1);
	CHECK(trace2_cmd_exit(7) == 7);
	attach_library_probe(-2);
	CHECK(!TRACE2_ACTIVE());
	unbalanced();
	CHECK(bugs == 1);
}

static void attached_builds_records(void **state)
{
	(void)state;
	assert_int_equal(t2_run_noinit(sc_no_target, NULL, NULL), 0);
}

TRACE2_PROBE_DEFINE_SEMAPHORE(t2test, gated);

#if TRACE2_PROBE_SUPPORTED
static int evaluated;

static int counted(int v)
{
	evaluated++;
	return v;
}

static void user_semaphore(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		TRACE2_PROBE_WITH_SEMAPHORE(t2test, gated, "text", counted(i));
	assert_int_equal(evaluated, 0);
	assert_false(TRACE2_PROBE_ENABLED(t2test, gated));
	trace2_probe_semaphore_t2test_gated++;
	assert_true(TRACE2_PROBE_ENABLED(t2test, gated));
	for (i = 0; i < 3; i++)
		TRACE2_PROBE_WITH_SEMAPHORE(t2test, gated, "text", counted(i));
	assert_int_equal(evaluated, 3);
	trace2_probe_semaphore_t2test_gated--;
	TRACE2_PROBE(t2test, always, counted(1), 2, "three");
	assert_int_equal(evaluated, 4);
}
#else
static void user_semaphore(void **state)
{
	(void)state;
	print_message("user_semaphore: skipped: no probes on this architecture "
		      "(trace2/probe.h)\n");
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(attached_keeps_output),
		cmocka_unit_test(attached_builds_records),
		cmocka_unit_test(user_semaphore),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
