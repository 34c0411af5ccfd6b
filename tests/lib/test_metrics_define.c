/*
 * Own timers and counters (trace2_timer_define, trace2_counter_define).
 *
 * same_as_builtin: a program that uses defined ids writes, on the normal,
 * perf, event and chrome targets, exactly what the same program writes
 * with Git's built-in test ids, with the built-in category and names
 * replaced by the defined ones.  The other tests check the ids: reuse,
 * errors, the limit, and definitions racing on several threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t2test.h"
#include "trace2.h"

/* The ids a scenario uses: Git's or its own. */
struct ids {
	int defined;
	enum trace2_timer_id t_totals, t_threads;
	enum trace2_counter_id c_totals, c_threads;
};

/* Category "mine", names "mine1" (totals only) and "mine2" (per thread
 * too): the built-in "test"/"test1" and "test"/"test2" with "test"
 * replaced, so one text replacement turns one output into the other. */
static void define_timers(struct ids *ids)
{
	ids->t_totals = trace2_timer_define("mine", "mine1", 0);
	ids->t_threads = trace2_timer_define("mine", "mine2", 1);
}

static void define_counters(struct ids *ids)
{
	ids->c_totals = trace2_counter_define("mine", "mine1", 0);
	ids->c_threads = trace2_counter_define("mine", "mine2", 1);
}

static void *worker(void *arg)
{
	const struct ids *ids = arg;

	trace2_thread_start("w");
	trace2_timer_start(ids->t_totals);
	trace2_timer_stop(ids->t_totals);
	trace2_timer_start(ids->t_threads);
	trace2_timer_stop(ids->t_threads);
	trace2_counter_add(ids->c_totals, 3);
	trace2_counter_add(ids->c_threads, 4);
	trace2_thread_exit();
	return NULL;
}

/* Timers defined before trace2_initialize(), counters after. */
static void sc_metrics(void *arg)
{
	struct ids ids = *(const struct ids *)arg;
	pthread_t th;

	if (ids.defined)
		define_timers(&ids);
	trace2_initialize();
	if (ids.defined)
		define_counters(&ids);
	CHECK(ids.t_totals >= 0 && ids.t_threads >= 0);
	CHECK(ids.c_totals >= 0 && ids.c_threads >= 0);
	CHECK(!pthread_create(&th, NULL, worker, &ids));
	CHECK(!pthread_join(th, NULL));
	trace2_timer_start(ids.t_threads);
	trace2_timer_stop(ids.t_threads);
	trace2_counter_add(ids.c_threads, 1);
	trace2_counter_add(ids.c_totals, 2);
	trace2_cmd_exit(0);
}

/* The chrome file without what differs between two runs. */
static char *chrome_scrubbed(const char *path)
{
	char *raw = t2_read_file(path, NULL), *a, *b, *c;

	assert_non_null(raw);
	a = t2_regsub(raw, "\"(ts|dur|pid|tid)\":[0-9.]+", "\"N\":0");
	b = t2_regsub(a, "_us\":[0-9.]+", "_us\":0");
	c = t2_scrub(b);
	free(raw);
	free(a);
	free(b);
	return c;
}

static void run_metrics(const struct ids *ids, struct t2_out *out, char **chrome)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "chrome");
	struct t2_env env = { 0 };

	/* Brief: no source file names (with "test" in them). */
	t2_env_add(&env, "GIT_TRACE2_BRIEF=1");
	t2_env_add(&env, "GIT_TRACE2_PERF_BRIEF=1");
	t2_env_add(&env, "GIT_TRACE2_EVENT_BRIEF=1");
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", path);
	t2_run_all_noinit(sc_metrics, (void *)ids, t2_env_list(&env), out);
	assert_int_equal(out->status, 0);
	*chrome = chrome_scrubbed(path);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(path);
	free(dir);
}

static void expect_renamed(const char *what, const char *builtin, const char *defined)
{
	char *want = t2_replace(builtin, "test", "mine");

	if (strcmp(want, defined))
		fail_msg("%s: with built-in ids:\n%s\nwith defined ids:\n%s", what, builtin,
			 defined);
	free(want);
}

static void same_as_builtin(void **state)
{
	struct ids git = { 0, TRACE2_TIMER_ID_TEST1, TRACE2_TIMER_ID_TEST2,
			   TRACE2_COUNTER_ID_TEST1, TRACE2_COUNTER_ID_TEST2 };
	struct ids own = { 1, TRACE2_TIMER_ID_ERROR, TRACE2_TIMER_ID_ERROR,
			   TRACE2_COUNTER_ID_ERROR, TRACE2_COUNTER_ID_ERROR };
	struct t2_out a, b;
	char *chrome_a, *chrome_b;

	(void)state;
	run_metrics(&git, &a, &chrome_a);
	run_metrics(&own, &b, &chrome_b);
	/* The built-in run reports what it should (so the comparison means
	 * something): per-thread and total records of both kinds. */
	assert_true(t2_matches(a.normal, "\nth_timer test/test2 intervals:1 "));
	assert_true(t2_matches(a.normal, "\nth_counter test/test2 value:4\n"));
	assert_true(t2_matches(a.normal, "\ntimer test/test2 intervals:2 "));
	assert_true(t2_matches(a.normal, "\ncounter test/test1 value:5\n"));
	assert_true(t2_matches(a.event, "\"event\":\"th_timer\",\"sid\":\"SID\",\"thread\":\"th01:w\",\"category\":\"test\",\"name\":\"test2\""));
	assert_true(t2_matches(a.perf, "\\| counter +\\| [^\n]*\\| test +\\| name:test2 value:5\n"));
	assert_true(t2_matches(chrome_a, "\"name\":\"test2 \\[th01:w\\]\""));
	expect_renamed("normal", a.normal, b.normal);
	expect_renamed("perf", a.perf, b.perf);
	expect_renamed("event", a.event, b.event);
	expect_renamed("chrome", chrome_a, chrome_b);
	t2_out_free(&a);
	t2_out_free(&b);
	free(chrome_a);
	free(chrome_b);
}

static void ids_are_reused(void **state)
{
	enum trace2_timer_id t = trace2_timer_define("reuse", "t", 1);
	enum trace2_counter_id c = trace2_counter_define("reuse", "t", 0);

	(void)state;
	assert_true(t >= TRACE2_NUMBER_OF_TIMERS);
	assert_true(c >= TRACE2_NUMBER_OF_COUNTERS);
	assert_int_equal(trace2_timer_define("reuse", "t", 1), t);
	assert_int_equal(trace2_counter_define("reuse", "t", 0), c);
	assert_int_not_equal(trace2_timer_define("reuse", "u", 1), t);
	/* Git's own names give Git's ids. */
	assert_int_equal(trace2_timer_define("test", "test2", 1), TRACE2_TIMER_ID_TEST2);
	assert_int_equal(trace2_counter_define("fsync", "hardware-flush", 0),
			 TRACE2_COUNTER_ID_FSYNC_HARDWARE_FLUSH);
}

static void errors(void **state)
{
	(void)state;
	errno = 0;
	assert_true(trace2_timer_define(NULL, "x", 0) < 0);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_true(trace2_counter_define("x", NULL, 0) < 0);
	assert_int_equal(errno, EINVAL);
	assert_true(trace2_timer_define("err", "per", 1) >= 0);
	errno = 0;
	assert_true(trace2_timer_define("err", "per", 0) < 0);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_true(trace2_counter_define("test", "test2", 0) < 0);
	assert_int_equal(errno, EINVAL);
}

static int define_timer(const char *category, const char *name)
{
	return trace2_timer_define(category, name, 0);
}

static int define_counter(const char *category, const char *name)
{
	return trace2_counter_define(category, name, 0);
}

/* Define "limit"/"n<i>" for i = 0, 1, ... until that fails (ENOSPC, or
 * CHECK fails); new ids come in a row.  The last id defined. */
static int define_until_full(int (*define)(const char *, const char *))
{
	char name[16];
	int i, last = -1, next;

	for (i = 0;; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		errno = 0;
		next = define("limit", name);
		if (next < 0)
			break;
		CHECK(last < 0 || next == last + 1);
		last = next;
	}
	CHECK(errno == ENOSPC);
	return last;
}

/* In a child (which inherits the ids the tests before defined): the last
 * id is the 256th defined one of its kind, and it works. */
static void sc_limit(void *arg)
{
	int t = define_until_full(define_timer), c = define_until_full(define_counter);

	(void)arg;
	CHECK(t == TRACE2_NUMBER_OF_TIMERS + 255);
	CHECK(c == TRACE2_NUMBER_OF_COUNTERS + 255);
	trace2_timer_start((enum trace2_timer_id)t);
	trace2_timer_stop((enum trace2_timer_id)t);
	trace2_counter_add((enum trace2_counter_id)c, 9);
	trace2_cmd_exit(0);
}

static void limit(void **state)
{
	const char *env[] = { "GIT_TRACE2_BRIEF=1", NULL };
	struct t2_out o;

	(void)state;
	t2_run_all(sc_limit, NULL, env, &o);
	assert_int_equal(o.status, 0);
	assert_true(t2_matches(o.normal, "\ntimer limit/n[0-9]+ intervals:1 "));
	assert_true(t2_matches(o.normal, "\ncounter limit/n[0-9]+ value:9\n"));
	t2_out_free(&o);
}

/* Threads defining the same names at once all get the same ids. */
#define RACE_THREADS 4
#define RACE_NAMES 64

static void *race(void *arg)
{
	int *ids = arg, i;
	char name[16];

	for (i = 0; i < RACE_NAMES; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		ids[i] = trace2_counter_define("race", name, i & 1);
	}
	return NULL;
}

static void concurrent_defines(void **state)
{
	static int ids[RACE_THREADS][RACE_NAMES];
	pthread_t th[RACE_THREADS];
	int i, j;

	(void)state;
	for (i = 0; i < RACE_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, race, ids[i]), 0);
	for (i = 0; i < RACE_THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (j = 0; j < RACE_NAMES; j++) {
		assert_true(ids[0][j] >= TRACE2_NUMBER_OF_COUNTERS);
		for (i = 1; i < RACE_THREADS; i++)
			assert_int_equal(ids[i][j], ids[0][j]);
		for (i = 0; i < j; i++)
			assert_int_not_equal(ids[0][i], ids[0][j]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_as_builtin),
		cmocka_unit_test(ids_are_reused),
		cmocka_unit_test(errors),
		cmocka_unit_test(limit),
		cmocka_unit_test(concurrent_defines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
