/*
 * The flight recorder (GIT_TRACE2_FLIGHT, docs/configuration.md "Flight
 * recorder"): nothing written until a trigger; then, per thread, the last
 * records, a log that trace2 validate --strict accepts with no warning,
 * every region in it paired (summary: none never left, none without its
 * enter), the losses told exactly (written + overwritten = made); each
 * trigger (a non-zero exit, a fatal signal, a failed child, a slow run,
 * trace2_flight_dump() from the host's own signal handler) writes, and a
 * later one writes what came since, regions open across dumps kept whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "trace2/flight.h"
#include "trace2/run.h"

static char *dir;

/* Ten million region pairs in all (sanitizers: a hundred times fewer):
 * each iteration of a worker is two. */
#define ITERATIONS (UNDER_SANITIZER ? 12500 : 1250000)
#define WORKERS 4

static int setup(void **state)
{
	(void)state;
	dir = t2_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t2_rmtree(dir);
	free(dir);
	return 0;
}

/* What a worker records: an outer region around its iterations, each a
 * middle region around an inner one and a data record. */
static void work(long iterations)
{
	long k;

	trace2_region_enter("fl", "outer", NULL);
	for (k = 0; k < iterations; k++) {
		trace2_region_enter("fl", "middle", NULL);
		trace2_region_enter("fl", "inner", NULL);
		trace2_region_leave("fl", "inner", NULL);
		trace2_data_intmax("fl", NULL, "k", k);
		trace2_region_leave("fl", "middle", NULL);
	}
	trace2_region_leave("fl", "outer", NULL);
}

/* A worker's records made: thread_start, thread_exit, the outer pair and
 * five per iteration. */
static uint64_t made_by_worker(long iterations)
{
	return 4 + 5 * (uint64_t)iterations;
}

static void *worker_main(void *arg)
{
	trace2_thread_start("fw");
	work(*(const long *)arg);
	trace2_thread_exit();
	return NULL;
}

/* WORKERS threads of n iterations each, then main's exit code. */
struct run {
	long iterations;
	int code;
};

static void workers_scenario(void *arg)
{
	const struct run *run = arg;
	pthread_t t[WORKERS];
	int i;

	trace2_cmd_name("flight");
	for (i = 0; i < WORKERS; i++)
		CHECK(!pthread_create(&t[i], NULL, worker_main, (void *)&run->iterations));
	for (i = 0; i < WORKERS; i++)
		CHECK(!pthread_join(t[i], NULL));
	trace2_cmd_exit(run->code);
}

/* The event log as written is whole (t2_log_whole()): every region in
 * it paired, unless open_at_end (a crash inside them). */
static void assert_log_ok(const char *event_text, int open_at_end)
{
	char *path = t2_path(dir, "flight.event");

	assert_int_equal(t2_write_file(path, event_text), 0);
	assert_true(t2_log_whole(path, open_at_end));
	free(path);
}

static void assert_well_formed(const char *event_text)
{
	assert_log_ok(event_text, 0);
}

static size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (; (text = strstr(text, needle)); text++)
		n++;
	return n;
}

/* The value of the thread's "trace2" data record key (0 if none). */
static uint64_t trace2_value(const char *line_start, const char *key)
{
	char *want = t2_xfmt("\"category\":\"trace2\",\"key\":\"%s\",\"value\":\"", key);
	const char *p = strstr(line_start, want);
	uint64_t v = p ? strtoull(p + strlen(want), NULL, 10) : 0;

	free(want);
	return v;
}

/* Per worker thread of an event log: records written (the library's own
 * "trace2" records aside) and the overwritten counts told. */
static void tally_workers(const char *text, uint64_t *written, uint64_t *lost, size_t *threads)
{
	char names[WORKERS][32];
	size_t n = 0, i;
	const char *line, *end;

	memset(written, 0, WORKERS * sizeof(*written));
	memset(lost, 0, WORKERS * sizeof(*lost));
	for (line = text; *line; line = end + 1) {
		const char *t = strstr(line, "\"thread\":\"th");
		char name[32];
		size_t len;

		end = strchr(line, '\n');
		assert_non_null(end);
		if (!t || t > end)
			continue;
		t += strlen("\"thread\":\"");
		len = (size_t)(strchr(t, '"') - t);
		assert_true(len < sizeof(name));
		memcpy(name, t, len);
		name[len] = '\0';
		for (i = 0; i < n && strcmp(names[i], name); i++)
			;
		if (i == n) {
			assert_true(n < WORKERS);
			memcpy(names[n++], name, len + 1);
		}
		if (strstr(line, "\"category\":\"trace2\"") < end &&
		    strstr(line, "\"category\":\"trace2\""))
			lost[i] += trace2_value(line, "overwritten");
		else
			written[i]++;
	}
	*threads = n;
}

static const char *const flight_env[] = { "GIT_TRACE2_FLIGHT=64k", "GIT_TRACE2_EVENT_NESTING=9",
					  NULL };

/* Ten million region pairs, then exit code 1: each thread's last records,
 * well-formed, and written + overwritten = made, thread by thread. */
static void exit_code_writes_the_last_records(void **state)
{
	static const struct run run = { ITERATIONS, 1 };
	uint64_t written[WORKERS], lost[WORKERS];
	struct t2_out o;
	size_t n, i;

	(void)state;
	t2_run_all_raw(workers_scenario, (void *)&run, flight_env, &o);
	assert_int_equal(o.status, 0);
	assert_int_equal(count(o.event, "\"key\":\"flight\",\"value\":\"exit\""), 1);
	assert_non_null(strstr(o.perf, "| trace2       | flight:exit"));
	assert_well_formed(o.event);
	tally_workers(o.event, written, lost, &n);
	assert_int_equal(n, WORKERS);
	for (i = 0; i < n; i++) {
		print_message("worker %zu: %llu written, %llu overwritten\n", i,
			      (unsigned long long)written[i], (unsigned long long)lost[i]);
		assert_true(lost[i] > 0);
		assert_int_equal(written[i] + lost[i], made_by_worker(run.iterations));
	}
	/* the last of them: each worker's thread_exit is there */
	assert_int_equal(count(o.event, "\"event\":\"thread_exit\""), WORKERS);
	/* what starts the process was kept aside */
	assert_int_equal(count(o.event, "\"event\":\"version\""), 1);
	assert_int_equal(count(o.event, "\"event\":\"cmd_name\""), 1);
	t2_out_free(&o);
}

/* Exit code 0 and nothing else: nothing written. */
static void nothing_triggered_writes_nothing(void **state)
{
	static const struct run run = { 20000, 0 };
	struct t2_out o;

	(void)state;
	t2_run_all_raw(workers_scenario, (void *)&run, flight_env, &o);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.event, "");
	assert_string_equal(o.perf, "");
	assert_string_equal(o.normal, "");
	t2_out_free(&o);
}

/* A run longer than GIT_TRACE2_FLIGHT_SLOW: written at exit, reason
 * "slow"; one within it: nothing. */
static void slow_run_writes(void **state)
{
	static const struct run run = { 2000, 0 };
	static const char *const slow[] = { "GIT_TRACE2_FLIGHT=64k", "GIT_TRACE2_FLIGHT_SLOW=0",
					    NULL };
	static const char *const fast[] = { "GIT_TRACE2_FLIGHT=64k",
					    "GIT_TRACE2_FLIGHT_SLOW=3600000", NULL };
	struct t2_out o;

	(void)state;
	t2_run_all_raw(workers_scenario, (void *)&run, slow, &o);
	assert_non_null(strstr(o.event, "\"key\":\"flight\",\"value\":\"slow\""));
	assert_well_formed(o.event);
	t2_out_free(&o);
	t2_run_all_raw(workers_scenario, (void *)&run, fast, &o);
	assert_string_equal(o.event, "");
	t2_out_free(&o);
}

/* A child that exits non-zero: written at once, reason "child", with
 * its child_exit; the rest of the run (exit 0) is not. */
static void failed_child_writes(void *arg)
{
#ifdef _WIN32
	const char *argv[] = { "cmd", "/c", "exit 1", NULL };
#else
	const char *argv[] = { "false", NULL };
#endif

	(void)arg;
	work(1000);
	trace2_run_command(argv, "check");
	work(10);
	trace2_cmd_exit(0);
}

static void failed_child_triggers(void **state)
{
	struct t2_out o;

	(void)state;
	t2_run_all_raw(failed_child_writes, NULL, flight_env, &o);
	assert_non_null(strstr(o.event, "\"key\":\"flight\",\"value\":\"child\""));
	assert_non_null(strstr(o.event, "\"event\":\"child_exit\""));
	assert_null(strstr(o.event, "\"event\":\"exit\""));
	assert_well_formed(o.event);
	t2_out_free(&o);
}

/* A fatal signal: written from the handler (perf, event and normal are
 * async-signal-safe), with the signal record; the signal still ends the
 * process.  (t2_capture(): default dispositions, not the test runner's
 * handlers.) */
static void crash_scenario(void *arg)
{
	(void)arg;
	trace2_initialize();
	work(50000);
	trace2_region_enter("fl", "crashing", NULL);
	raise(SIGSEGV);
}

static void fatal_signal_writes(void **state)
{
	char *event = t2_path(dir, "crash.event"), *perf = t2_path(dir, "crash.perf");
	char *ev = t2_xfmt("GIT_TRACE2_EVENT=%s", event), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf);
	const char *env[] = { ev, pv, "GIT_TRACE2_FLIGHT=64k", "GIT_TRACE2_EVENT_NESTING=9", NULL };
	char *event_text, *perf_text;
	struct t2_proc p;

	(void)state;
	T2_SKIP_ON_WINDOWS("POSIX signals");
	t2_capture(crash_scenario, NULL, env, 60, &p);
	assert_true(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV);
	t2_proc_free(&p);
	event_text = t2_read_file(event, NULL);
	perf_text = t2_read_file(perf, NULL);
	assert_non_null(event_text);
	assert_non_null(perf_text);
	assert_non_null(strstr(event_text, "\"key\":\"flight\",\"value\":\"signal\""));
	assert_non_null(strstr(event_text, "\"event\":\"signal\""));
	assert_non_null(strstr(event_text, "\"label\":\"crashing\""));
	assert_non_null(strstr(perf_text, "flight:signal"));
	assert_log_ok(event_text, 1);
	free(event_text);
	free(perf_text);
	free(ev);
	free(pv);
	free(event);
	free(perf);
}

/*
 * The host's own handler dumps (trace2_flight_dump() is async-signal-
 * safe); recording goes on, and the exit code's dump writes only what
 * came since.  A region open across both dumps (its enter long
 * overwritten before the first) is written once, with its true start,
 * and left in the second; so is one the first dump wrote open, left just
 * after it (its leave long overwritten before the second).
 */
static void on_usr1(int signo)
{
	(void)signo;
	trace2_flight_dump("usr1");
}

/* Windows has no SIGUSR1: the call is made directly there. */
static void host_dump_scenario(void *arg)
{
	(void)arg;
#ifndef _WIN32
	signal(SIGUSR1, on_usr1);
#endif
	trace2_region_enter("fl", "long", NULL);
	work(50000);
	trace2_region_enter("fl", "held", NULL);
#ifdef _WIN32
	on_usr1(0);
#else
	raise(SIGUSR1);
#endif
	trace2_region_leave("fl", "held", NULL);
	work(50000);
	trace2_region_leave("fl", "long", NULL);
	trace2_cmd_exit(3);
}

static void host_handler_dumps_and_recording_goes_on(void **state)
{
	struct t2_out o;
	const char *first, *second;

	(void)state;
	t2_run_all_raw(host_dump_scenario, NULL, flight_env, &o);
	assert_int_equal(o.status, 0);
	first = strstr(o.event, "\"key\":\"flight\",\"value\":\"usr1\"");
	assert_non_null(first);
	second = strstr(first, "\"key\":\"flight\",\"value\":\"exit\"");
	assert_non_null(second);
	assert_int_equal(count(o.event, "\"event\":\"version\""), 1);
	/* the long region: its enter (kept aside) before the first dump's
	 * reason, its leave after, each once */
	assert_int_equal(count(o.event, "\"label\":\"long\""), 2);
	assert_true(strstr(o.event, "\"label\":\"long\"") < first);
	assert_non_null(strstr(first, "\"label\":\"long\""));
	assert_int_equal(count(o.event, "\"label\":\"held\""), 2);
	assert_true(strstr(o.event, "\"label\":\"held\"") < first);
	assert_non_null(strstr(first, "\"label\":\"held\""));
	assert_well_formed(o.event);
	t2_out_free(&o);
}

/* At exit, the recording and the chrome target get the dump too: the
 * recording validates --strict as written, and the chrome trace has the
 * regions' slices, the reason, and ends as it does without the flight
 * recorder: with the process's slice (docs/targets.md, "Chrome").  A run
 * that does not trigger leaves neither file. */
static void every_target_gets_the_dump(void **state)
{
	static const struct run quiet = { 20000, 0 }, run = { 20000, 1 };
	char *rec = t2_path(dir, "flight.rec"), *chrome = t2_path(dir, "flight.json");
	char *rv = t2_xfmt("GIT_TRACE2_RECORD=%s", rec), *cv = t2_xfmt("GIT_TRACE2_CHROME=%s", chrome);
	const char *env[] = { rv, cv, "GIT_TRACE2_FLIGHT=64k", NULL };
	struct stat st;
	char *text;
	size_t len;

	(void)state;
	assert_int_equal(t2_run(workers_scenario, (void *)&quiet, env), 0);
	/* stat(): the Windows runner's replay gets its results back */
	assert_int_equal(stat(rec, &st), -1);
	assert_int_equal(stat(chrome, &st), -1);
	assert_int_equal(t2_run(workers_scenario, (void *)&run, env), 0);
	assert_true(t2_log_whole(rec, 0));
	text = t2_read_file(chrome, &len);
	assert_non_null(text);
	assert_true(len > 2 && text[0] == '[');
	assert_true(t2_matches(text, "\"name\":\"process\"[^\n]*\"code\":1\\}\\},\n$"));
	assert_non_null(strstr(text, "\"name\":\"middle\""));
	assert_non_null(strstr(text, "\"flight\""));
	free(text);
	free(rv);
	free(cv);
	free(rec);
	free(chrome);
}

/* Regions nested deeper than a 4 KiB ring keeps a table for (64
 * levels), open across a dump and left after it, their leaves then
 * overwritten: nothing is read past the tables (ASan), the log passes
 * validate --strict, and no leave lacks its enter.  (The leaves of more
 * regions than the ring's aside area holds are lost: those stay open,
 * docs/configuration.md "Flight recorder".) */
static void deep_scenario(void *arg)
{
	int k;

	(void)arg;
	for (k = 0; k < 80; k++)
		trace2_region_enter("fl", "deep", NULL);
	trace2_flight_dump("deep");
	for (k = 0; k < 80; k++)
		trace2_region_leave("fl", "deep", NULL);
	work(2000);
	trace2_cmd_exit(1);
}

static void deep_regions_across_dumps(void **state)
{
	static const char *const env[] = { "GIT_TRACE2_FLIGHT=4k", "GIT_TRACE2_EVENT_NESTING=99",
					   NULL };
	struct t2_out o;

	(void)state;
	t2_run_all_raw(deep_scenario, NULL, env, &o);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.event, "\"key\":\"flight\",\"value\":\"exit\""));
	assert_log_ok(o.event, 1);
	t2_out_free(&o);
}

/* Threads one after another, 200 of them: the rings of the last 8 that
 * ended are kept for the dump, the older ones reused (memory stays
 * bounded), and the log is still whole. */
static void one_thread_at_a_time(void *arg)
{
	long iterations = 100;
	pthread_t t;
	int i;

	(void)arg;
	for (i = 0; i < 200; i++) {
		CHECK(!pthread_create(&t, NULL, worker_main, &iterations));
		CHECK(!pthread_join(t, NULL));
	}
	trace2_cmd_exit(1);
}

static void ended_threads_keep_the_last_rings(void **state)
{
	struct t2_out o;

	(void)state;
	t2_run_all_raw(one_thread_at_a_time, NULL, flight_env, &o);
	assert_int_equal(count(o.event, "\"event\":\"thread_start\""), 8);
	assert_non_null(strstr(o.event, "\"thread\":\"th200:fw\""));
	assert_non_null(strstr(o.event, "\"thread\":\"th193:fw\""));
	assert_null(strstr(o.event, "\"thread\":\"th192:fw\""));
	assert_well_formed(o.event);
	t2_out_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_code_writes_the_last_records),
		cmocka_unit_test(nothing_triggered_writes_nothing),
		cmocka_unit_test(slow_run_writes),
		cmocka_unit_test(failed_child_triggers),
		cmocka_unit_test(fatal_signal_writes),
		cmocka_unit_test(host_handler_dumps_and_recording_goes_on),
		cmocka_unit_test(every_target_gets_the_dump),
		cmocka_unit_test(ended_threads_keep_the_last_rings),
		cmocka_unit_test(deep_regions_across_dumps),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
