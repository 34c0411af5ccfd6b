/*
 * The example target (examples/slowest_target.c): the longest regions,
 * their order, the list while threads update it and fork, and the
 * example program that uses it (examples/hashsort.c with --slowest).
 *
 * Each scenario runs in a forked child (t2_capture: stdout and stderr
 * captured, no GIT_TRACE2* setting) that registers the target, runs
 * regions with known durations, prints the list with
 * slowest_target_print() on stdout and leaves with exit(), so the
 * target's shutdown() prints it again on stderr.  The parent parses
 * both.  Checks made inside a child use CHECK() (t2test.h), which ends
 * the child with status 70.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slowest_target.h"
#include "t2test.h"
#include "trace2.h"

/* Generous: a sleeping region may overrun by this much on a busy host. */
#define SLACK_US UINT64_C(2000000)
#define TIMEOUT_S 60

/* ------------------------------------------------------------------ */
/* The list, parsed.                                                    */
/* ------------------------------------------------------------------ */

struct entry {
	uint64_t us;
	char thread[64];
	char name[160];      /* category/label */
};

struct list {
	int nr;
	struct entry e[SLOWEST_TARGET_KEEP];
};

/* "   12.345" (milliseconds, exactly three decimals) as microseconds,
 * then two blanks, the thread, two blanks, the name. */
static int parse_entry(const char *line, struct entry *e)
{
	uint64_t ms, frac;
	int n = 0, m = 0;

	if (sscanf(line, " %" SCNu64 ".%3" SCNu64 "%n", &ms, &frac, &n) != 2 || !n ||
	    line[n - 4] != '.' || strncmp(line + n, "  ", 2))
		return 0;
	e->us = ms * 1000 + frac;
	line += n + 2;
	if (sscanf(line, "%63s%n", e->thread, &m) != 1 || strncmp(line + m, "  ", 2) ||
	    strlen(line + m + 2) >= sizeof(e->name))
		return 0;
	strcpy(e->name, line + m + 2);
	return 1;
}

/* Parse the list in text; lines before its first line are skipped
 * (error messages).  Fails the test on anything unexpected. */
static void parse_list(const char *text, struct list *l)
{
	size_t nlines, i = 0;
	char **lines = t2_lines(text, &nlines);
	int n = 0;

	memset(l, 0, sizeof(*l));
	while (i < nlines && strncmp(lines[i], "slowest: ", 9))
		i++;
	assert_true(i < nlines);
	if (sscanf(lines[i], "slowest: the %d longest regions, in ms%n", &l->nr, &n) != 1 ||
	    lines[i][n] || l->nr < 0 || l->nr > SLOWEST_TARGET_KEEP)
		fail_msg("bad first line: %s", lines[i]);
	assert_int_equal(nlines - i - 1, l->nr);
	for (int k = 0; k < l->nr; k++) {
		if (!parse_entry(lines[i + 1 + k], &l->e[k]))
			fail_msg("bad line: %s", lines[i + 1 + k]);
		/* slowest first */
		assert_true(k == 0 || l->e[k - 1].us >= l->e[k].us);
	}
	t2_strv_free(lines);
}

/*
 * Run scenario in a child (t2_capture()): it must exit with 0, having
 * printed the same list on stdout (slowest_target_print()) as on stderr
 * (shutdown()); that list parsed into *l.
 */
static void run_scenario(t2_scenario_fn *scenario, int timeout_s, struct list *l)
{
	struct t2_proc p;

	t2_capture(scenario, NULL, NULL, timeout_s, &p);
	if (p.status != 0)
		fail_msg("child status %d, stderr:\n%s", p.status, p.err);
	assert_string_equal(p.out, p.err);
	parse_list(p.err, l);
	t2_proc_free(&p);
}

/* ------------------------------------------------------------------ */
/* Scenario helpers (in the child).                                     */
/* ------------------------------------------------------------------ */

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Start the clock, register the target, initialize: tracing is on. */
static void start_slowest(void)
{
	trace2_initialize_clock();
	CHECK(slowest_target_register() == 0);
	trace2_initialize();
	CHECK(trace2_is_enabled());
}

/* Print the list on stdout now; exit() prints it on stderr again. */
static void print_and_exit(void)
{
	CHECK(slowest_target_print(stdout) == 0);
	exit(0);
}

/* times regions category/label one after another, each lasting at least
 * us microseconds (0: no sleep). */
static void regions(const char *category, const char *label, int times, long us)
{
	for (int i = 0; i < times; i++) {
		trace2_region_enter(category, label, NULL);
		if (us)
			sleep_us(us);
		trace2_region_leave(category, label, NULL);
	}
}

/* ------------------------------------------------------------------ */
/* Known counts and durations, on four threads.                         */
/* ------------------------------------------------------------------ */

#define THREADS 3
#define QUICK 40

static void *quick_thread(void *arg)
{
	(void)arg;
	trace2_thread_start("quick");
	regions("t", "quick", QUICK, 0);
	regions(NULL, NULL, 1, 0);
	trace2_thread_exit();
	return NULL;
}

static void known_scenario(void *arg)
{
	pthread_t tids[THREADS];

	(void)arg;
	start_slowest();
	trace2_region_enter("t", "outer", NULL);
	regions("t", "sleep40", 3, 40000);
	regions("t", "sleep5", 4, 5000);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&tids[i], NULL, quick_thread, NULL) == 0);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_join(tids[i], NULL) == 0);
	trace2_region_leave("t", "outer", NULL);
	print_and_exit();
}

/* outer holds everything, then the three 40 ms sleeps, then a 5 ms one;
 * the quick threads' regions are shorter than those (on a host not so
 * busy that a region of nothing takes 5 ms). */
static void known_order(void **state)
{
	struct list l;

	(void)state;
	run_scenario(known_scenario, TIMEOUT_S, &l);
	assert_int_equal(l.nr, SLOWEST_TARGET_KEEP);
	assert_string_equal(l.e[0].name, "t/outer");
	assert_string_equal(l.e[0].thread, "main");
	assert_true(l.e[0].us >= 3 * 40000 + 4 * 5000);
	for (int i = 1; i <= 3; i++) {
		assert_string_equal(l.e[i].name, "t/sleep40");
		assert_true(l.e[i].us >= 40000 && l.e[i].us < 40000 + SLACK_US);
	}
	assert_string_equal(l.e[4].name, "t/sleep5");
	assert_true(l.e[4].us >= 5000);
}

/* Fewer regions than the list holds: all of them; no name: "-". */
static void few_scenario(void *arg)
{
	(void)arg;
	start_slowest();
	regions(NULL, NULL, 1, 2000);
	regions("c", "l", 1, 0);
	print_and_exit();
}

static void few_regions(void **state)
{
	struct list l;

	(void)state;
	run_scenario(few_scenario, TIMEOUT_S, &l);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.e[0].name, "-/-");
	assert_true(l.e[0].us >= 2000);
	assert_string_equal(l.e[1].name, "c/l");
}

/* ------------------------------------------------------------------ */
/* fork() while other threads update the list.                          */
/* ------------------------------------------------------------------ */

#define FORKS (UNDER_SANITIZER ? 50 : 300)

static volatile int stop_busy;

static void *busy_thread(void *arg)
{
	(void)arg;
	trace2_thread_start("busy");
	while (!__atomic_load_n(&stop_busy, __ATOMIC_RELAXED))
		regions("busy", "loop", 1, 0);
	trace2_thread_exit();
	return NULL;
}

static void fork_scenario(void *arg)
{
	pthread_t tids[2];
	FILE *null;

	(void)arg;
	start_slowest();
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&tids[i], NULL, busy_thread, NULL) == 0);
	for (int i = 0; i < FORKS; i++) {
		pid_t pid = fork();

		CHECK(pid >= 0);
		if (!pid) {
			/* the list's lock must be free here */
			alarm(10);
			regions("child", "r", 1, 0);
			null = fopen("/dev/null", "w");
			_exit(null && !slowest_target_print(null) ? 0 : 1);
		}
		CHECK(t2_wait_timeout(pid, 15000) == 0);
	}
	__atomic_store_n(&stop_busy, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(tids[i], NULL) == 0);
	print_and_exit();
}

static void fork_while_busy(void **state)
{
	struct list l;

	(void)state;
	run_scenario(fork_scenario, 300, &l);
	/* the children's regions stayed in the children */
	assert_int_equal(l.nr, SLOWEST_TARGET_KEEP);
	for (int i = 0; i < l.nr; i++) {
		assert_string_equal(l.e[i].name, "busy/loop");
		assert_true(!strcmp(l.e[i].thread, "th01:busy") ||
			    !strcmp(l.e[i].thread, "th02:busy"));
	}
}

/* ------------------------------------------------------------------ */
/* The example program with --slowest.                                   */
/* ------------------------------------------------------------------ */

/* hashsort's two worker threads (examples/hashsort.c: NR_WORKERS). */
#define HASHSORT_WORKERS 2

static void exec_hashsort(void *arg)
{
	t2_exec_program(t2_bin_dir(), "example-hashsort", arg);
}

/* hashsort's stdout: one "<16 hex digits> <path>" line per readable file,
 * in ascending hash order.  Checks that the paths are exactly want[0..n)
 * (in any order). */
static void check_hashsort_out(const char *out, const char *const *want, size_t n)
{
	size_t nlines;
	char **lines = t2_lines(out, &nlines);
	uint64_t prev = 0;

	assert_int_equal(nlines, n);
	for (size_t i = 0; i < nlines; i++) {
		uint64_t h;
		int len = 0;

		if (sscanf(lines[i], "%16" SCNx64 " %n", &h, &len) != 1 || len != 17)
			fail_msg("bad hashsort line: %s", lines[i]);
		assert_true(i == 0 || h >= prev);
		prev = h;
	}
	for (size_t k = 0; k < n; k++) {
		size_t found = 0;

		for (size_t i = 0; i < nlines; i++)
			found += !strcmp(lines[i] + 17, want[k]);
		if (found != 1)
			fail_msg("%s is on %zu lines of:\n%s", want[k], found, out);
	}
	t2_strv_free(lines);
}

static void demo_program(void **state)
{
	/* run from the top directory (tests/run-tests.sh) */
	static const char *const args[] = {
		"--slowest", "examples/hashsort.c", "examples/slowest_target.c",
		"examples/slowest_target.h", "Makefile", "no/such/file", NULL
	};
	const size_t nfiles = 5; /* the last one missing */
	struct t2_proc p, plain;
	struct list l;
	char *want_err;
	int worker = -1;

	(void)state;
	t2_capture(exec_hashsort, (void *)args, NULL, TIMEOUT_S, &p);
	/* one file is missing: exit code 1, its error before the list */
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 1);
	want_err = t2_xfmt("hashsort: no/such/file: %s\n", strerror(ENOENT));
	assert_true(!strncmp(p.err, want_err, strlen(want_err)));
	check_hashsort_out(p.out, args + 1, nfiles - 1);

	/* 9 regions: hash around the workers, each worker around its files'
	 * hash-file (the missing file's too), then sort; hash is the
	 * longest, the longest worker next (it holds the files of its
	 * thread, and is at least the other worker) */
	parse_list(p.err, &l);
	assert_int_equal(l.nr, SLOWEST_TARGET_KEEP);
	assert_string_equal(l.e[0].name, "hashsort/hash");
	assert_string_equal(l.e[0].thread, "main");
	for (int i = 1; i < l.nr; i++) {
		if (!strcmp(l.e[i].name, "hashsort/worker") && worker < 0)
			worker = i;
		assert_true(!strcmp(l.e[i].name, "hashsort/worker") ||
			    !strcmp(l.e[i].name, "hashsort/hash-file") ||
			    !strcmp(l.e[i].name, "hashsort/sort"));
		assert_int_equal(strncmp(l.e[i].thread, "th0", 3) && strcmp(l.e[i].thread, "main"), 0);
	}
	assert_true(worker > 0);
	assert_int_equal(l.e[1].us, l.e[worker].us);

	/* without --slowest: the same stdout, only the error on stderr */
	t2_capture(exec_hashsort, (void *)(args + 1), NULL, TIMEOUT_S, &plain);
	assert_true(WIFEXITED(plain.status));
	assert_int_equal(WEXITSTATUS(plain.status), 1);
	assert_string_equal(plain.out, p.out);
	assert_string_equal(plain.err, want_err);
	free(want_err);
	t2_proc_free(&plain);
	t2_proc_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_order),
		cmocka_unit_test(few_regions),
		cmocka_unit_test(fork_while_busy),
		cmocka_unit_test(demo_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
