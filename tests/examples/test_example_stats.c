/*
 * The example statistics target (examples/stats_target.c): its numbers,
 * its order, its bounds, and the example program that uses it
 * (examples/hashsort.c with --stats).
 *
 * Each scenario runs in a forked child (t2_capture: stdout and stderr
 * captured, no GIT_TRACE2* setting) that registers the target, runs
 * regions with known counts and durations, prints the table with
 * stats_target_print() on stdout and leaves with exit(), so the target's
 * shutdown() prints it again on stderr.  The parent parses both.  Checks
 * made inside a child use CHECK() (t2test.h), which ends the child with
 * status 70.
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

#include "stats_target.h"
#include "t2test.h"
#include "trace2.h"

/* Generous: a sleeping region may overrun by this much on a busy host. */
#define SLACK_US UINT64_C(2000000)
#define TIMEOUT_S 60

/* ------------------------------------------------------------------ */
/* The table, parsed.                                                   */
/* ------------------------------------------------------------------ */

struct trow {
	uint64_t count, total, min, max, mean; /* microseconds */
	char name[160];
};

struct table {
	uint64_t regions;
	unsigned long keys;
	int plus;                 /* "<keys>+ keys": some went to (other) */
	size_t nr;
	struct trow rows[STATS_TARGET_ROWS];
	int has_other;
	struct trow other;
	uint64_t full_regions;    /* from the "table full" line */
	int full_rows;
};

/* "123.456" (milliseconds) as microseconds; advances *s. */
static int parse_ms(const char **s, uint64_t *us)
{
	uint64_t ms, frac;
	int n = 0;

	if (sscanf(*s, " %" SCNu64 ".%3" SCNu64 "%n", &ms, &frac, &n) != 2 || !n)
		return 0;
	if ((*s)[n - 4] != '.')   /* exactly three decimals */
		return 0;
	*us = ms * 1000 + frac;
	*s += n;
	return 1;
}

/* One row: count, total, min, max, mean, two spaces, the name. */
static int parse_row(const char *line, struct trow *r)
{
	const char *s = line;
	int n = 0;

	if (sscanf(s, "%" SCNu64 "%n", &r->count, &n) != 1)
		return 0;
	s += n;
	if (!parse_ms(&s, &r->total) || !parse_ms(&s, &r->min) ||
	    !parse_ms(&s, &r->max) || !parse_ms(&s, &r->mean))
		return 0;
	if (strncmp(s, "  ", 2) || !s[2] || strlen(s + 2) >= sizeof(r->name))
		return 0;
	strcpy(r->name, s + 2);
	return 1;
}

/* Parse the table in text; lines before its first line are skipped
 * (error messages).  Fails the test on anything unexpected. */
static void parse_table(const char *text, struct table *t)
{
	size_t nlines, i = 0;
	char **lines = t2_lines(text, &nlines);
	char plus[2] = "";
	int n = 0;

	memset(t, 0, sizeof(*t));
	while (i < nlines && strncmp(lines[i], "stats: ", 7))
		i++;
	assert_true(i < nlines);
	if (sscanf(lines[i], "stats: %" SCNu64 " regions of %lu%1[+] keys, times in ms, "
		   "sorted by total%n", &t->regions, &t->keys, plus, &n) < 2 ||
	    !n || lines[i][n]) {
		/* without '+' sscanf stops at the %[ */
		n = 0;
		sscanf(lines[i], "stats: %" SCNu64 " regions of %lu keys, times in ms, "
		       "sorted by total%n", &t->regions, &t->keys, &n);
		if (!n || lines[i][n])
			fail_msg("bad first line: %s", lines[i]);
	}
	t->plus = plus[0] == '+';
	i++;
	assert_true(i < nlines);
	assert_string_equal(lines[i],
			    "   count        total        min        max       mean  category/label");
	for (i++; i < nlines; i++) {
		struct trow r;

		if (!parse_row(lines[i], &r))
			break;
		if (!strcmp(r.name, "(other)")) {
			assert_false(t->has_other);
			t->has_other = 1;
			t->other = r;
			continue;
		}
		assert_false(t->has_other); /* (other) comes last */
		assert_true(t->nr < STATS_TARGET_ROWS);
		t->rows[t->nr++] = r;
	}
	if (t->has_other) {
		assert_true(i < nlines);
		n = 0;
		sscanf(lines[i], "stats: table full (%d rows): (other) adds up the %" SCNu64
		       " regions of the keys that did not fit%n", &t->full_rows,
		       &t->full_regions, &n);
		if (!n || lines[i][n])
			fail_msg("bad table-full line: %s", lines[i]);
		i++;
	}
	if (i < nlines)
		fail_msg("unexpected line after the table: %s", lines[i]);
	t2_strv_free(lines);
}

static const struct trow *find(const struct table *t, const char *name)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i].name, name))
			return &t->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

/* What holds for every row, and the order: total descending, ties by
 * count descending; the header's sums. */
static void check_consistent(const struct table *t)
{
	uint64_t regions = 0;

	for (size_t i = 0; i < t->nr + (size_t)t->has_other; i++) {
		const struct trow *r = i < t->nr ? &t->rows[i] : &t->other;

		assert_true(r->count > 0);
		assert_true(r->min <= r->max);
		assert_true(r->min <= r->mean && r->mean <= r->max);
		assert_true(r->total >= r->count * r->min);
		assert_true(r->total <= r->count * r->max);
		assert_true(r->mean == (r->total + r->count / 2) / r->count);
		regions += r->count;
		if (i && i < t->nr) {
			const struct trow *p = &t->rows[i - 1];

			assert_true(p->total > r->total ||
				    (p->total == r->total && p->count >= r->count));
		}
	}
	assert_int_equal(regions, t->regions);
	assert_int_equal(t->keys, t->nr);
	assert_int_equal(t->plus, t->has_other);
}

/*
 * Run scenario in a child (t2_capture()): it must exit with 0, having
 * printed the same table on stdout (stats_target_print()) as on stderr
 * (shutdown()); that table parsed into *t and checked.
 */
static void run_scenario(t2_scenario_fn *scenario, int timeout_s, struct table *t)
{
	struct t2_proc p;

	t2_capture(scenario, NULL, NULL, timeout_s, &p);
	if (p.status != 0)
		fail_msg("child status %d, stderr:\n%s", p.status, p.err);
	assert_string_equal(p.out, p.err);
	parse_table(p.err, t);
	check_consistent(t);
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
static void start_stats(void)
{
	trace2_initialize_clock();
	CHECK(stats_target_register() == 0);
	trace2_initialize();
	CHECK(trace2_is_enabled());
}

/* Print the table on stdout now; exit() prints it on stderr again. */
static void print_and_exit(void)
{
	CHECK(stats_target_print(stdout) == 0);
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
#define NEST 3

static void *quick_thread(void *arg)
{
	(void)arg;
	trace2_thread_start("quick");
	trace2_region_enter("t", "thread", NULL);
	regions("t", "quick", QUICK, 0);
	for (int i = 0; i < NEST; i++)
		trace2_region_enter("t", "nest", NULL);
	for (int i = 0; i < NEST; i++)
		trace2_region_leave("t", "nest", NULL);
	trace2_region_leave("t", "thread", NULL);
	trace2_thread_exit();
	return NULL;
}

static void known_scenario(void *arg)
{
	pthread_t tids[THREADS];

	(void)arg;
	start_stats();
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

static void check_sleeps(const struct trow *r, uint64_t count, uint64_t us)
{
	assert_int_equal(r->count, count);
	assert_true(r->min >= us);
	assert_true(r->max < us + SLACK_US);
	assert_true(r->total >= count * us);
}

static void known_counts_and_times(void **state)
{
	struct table t;
	const struct trow *outer, *s40, *s5;

	(void)state;
	run_scenario(known_scenario, TIMEOUT_S, &t);

	assert_int_equal(t.nr, 6);
	assert_false(t.has_other);
	assert_int_equal(t.regions, 1 + 3 + 4 + THREADS * (1 + QUICK + NEST));
	/* outer holds the sleeps one after another: it comes first, and
	 * sleep40 (>= 120 ms) before sleep5 (20 ms + overrun) */
	assert_string_equal(t.rows[0].name, "t/outer");
	assert_string_equal(t.rows[1].name, "t/sleep40");
	assert_string_equal(t.rows[2].name, "t/sleep5");

	outer = find(&t, "t/outer");
	s40 = find(&t, "t/sleep40");
	s5 = find(&t, "t/sleep5");
	assert_int_equal(outer->count, 1);
	assert_true(outer->total == outer->min && outer->min == outer->max);
	assert_true(outer->total >= s40->total + s5->total);
	assert_true(outer->total < 3 * 40000 + 4 * 5000 + 7 * SLACK_US);
	check_sleeps(s40, 3, 40000);
	check_sleeps(s5, 4, 5000);
	assert_true(s40->total > s5->total);

	/* every thread's regions, each nesting level counted */
	assert_int_equal(find(&t, "t/thread")->count, THREADS);
	assert_int_equal(find(&t, "t/quick")->count, THREADS * QUICK);
	assert_int_equal(find(&t, "t/nest")->count, THREADS * NEST);
}

/* ------------------------------------------------------------------ */
/* Bounded memory: a full table, the (other) row.                       */
/* ------------------------------------------------------------------ */

#define EXTRA 6

static void full_scenario(void *arg)
{
	char label[16];

	(void)arg;
	start_stats();
	for (int i = 0; i < STATS_TARGET_ROWS + EXTRA; i++) {
		snprintf(label, sizeof(label), "k%03d", i);
		regions("full", label, 1, 0);
	}
	/* a key with a row still gets it; a new one goes to (other) */
	for (int i = 0; i < 2; i++) {
		regions("full", "k000", 1, 0);
		regions("full", "late", 1, 0);
	}
	print_and_exit();
}

static void table_full(void **state)
{
	struct table t;
	char name[32];

	(void)state;
	run_scenario(full_scenario, TIMEOUT_S, &t);
	assert_int_equal(t.nr, STATS_TARGET_ROWS);
	assert_true(t.has_other);
	assert_int_equal(t.other.count, EXTRA + 2);
	assert_int_equal(t.full_regions, EXTRA + 2);
	assert_int_equal(t.full_rows, STATS_TARGET_ROWS);
	assert_int_equal(t.regions, STATS_TARGET_ROWS + EXTRA + 4);
	/* the first keys got the rows */
	for (int i = 0; i < STATS_TARGET_ROWS; i++) {
		snprintf(name, sizeof(name), "full/k%03d", i);
		assert_int_equal(find(&t, name)->count, i ? 1 : 3);
	}
}

/* ------------------------------------------------------------------ */
/* Keys: missing parts, long ones cut but kept apart.                   */
/* ------------------------------------------------------------------ */

static void keys_scenario(void *arg)
{
	char a[STATS_TARGET_LABEL_MAX + 10], b[sizeof(a)];
	char cat[STATS_TARGET_CATEGORY_MAX + 5];

	(void)arg;
	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(a));
	b[sizeof(b) - 2] = 'y';         /* differs past the kept bytes */
	memset(cat, 'c', sizeof(cat) - 1);
	cat[sizeof(cat) - 1] = '\0';

	start_stats();
	regions(NULL, NULL, 1, 0);
	regions("", "", 1, 0);          /* same as NULL */
	regions(NULL, "only-label", 1, 0);
	regions("long", a, 2, 0);
	regions("long", b, 1, 0);
	regions(cat, "l", 1, 0);
	/* "ab"/"c" and "a"/"bc" are two keys */
	regions("ab", "c", 1, 0);
	regions("a", "bc", 1, 0);
	print_and_exit();
}

static void keys(void **state)
{
	struct table t;
	char *cut_label, *cut_cat;
	uint64_t long_counts[2] = { 0 };
	int long_rows = 0;

	(void)state;
	run_scenario(keys_scenario, TIMEOUT_S, &t);
	assert_int_equal(t.nr, 7);
	assert_int_equal(find(&t, "-/-")->count, 2);
	assert_int_equal(find(&t, "-/only-label")->count, 1);
	assert_int_equal(find(&t, "ab/c")->count, 1);
	assert_int_equal(find(&t, "a/bc")->count, 1);

	cut_label = t2_xfmt("long/%.*s...", STATS_TARGET_LABEL_MAX,
			    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	cut_cat = t2_xfmt("%.*s.../l", STATS_TARGET_CATEGORY_MAX,
			  "cccccccccccccccccccccccccccccccccccccccccccccccc");
	assert_int_equal(find(&t, cut_cat)->count, 1);
	/* the two long labels: two rows, same text, counts 2 and 1 */
	for (size_t i = 0; i < t.nr; i++)
		if (!strcmp(t.rows[i].name, cut_label) && long_rows++ < 2)
			long_counts[long_rows - 1] = t.rows[i].count;
	assert_int_equal(long_rows, 2);
	assert_true((long_counts[0] == 2 && long_counts[1] == 1) ||
		    (long_counts[0] == 1 && long_counts[1] == 2));
	free(cut_label);
	free(cut_cat);
}

/* ------------------------------------------------------------------ */
/* fork() while other threads update the table.                         */
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
	start_stats();
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&tids[i], NULL, busy_thread, NULL) == 0);
	for (int i = 0; i < FORKS; i++) {
		pid_t pid = fork();

		CHECK(pid >= 0);
		if (!pid) {
			/* the table's lock must be free here */
			alarm(10);
			regions("child", "r", 1, 0);
			null = fopen("/dev/null", "w");
			_exit(null && !stats_target_print(null) ? 0 : 1);
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
	struct table t;

	(void)state;
	run_scenario(fork_scenario, 300, &t);
	/* the children's regions stayed in the children */
	assert_int_equal(t.nr, 1);
	assert_string_equal(t.rows[0].name, "busy/loop");
}

/* ------------------------------------------------------------------ */
/* The example program with --stats.                                    */
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
		"--stats", "examples/hashsort.c", "examples/stats_target.c",
		"examples/stats_target.h", "Makefile", "no/such/file", NULL
	};
	const size_t nfiles = 5; /* the last one missing */
	struct t2_proc p, plain;
	struct table t;
	char *want_err;
	const struct trow *hash, *worker, *file;

	(void)state;
	t2_capture(exec_hashsort, (void *)args, NULL, TIMEOUT_S, &p);
	/* one file is missing: exit code 1, its error before the table */
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 1);
	want_err = t2_xfmt("hashsort: no/such/file: %s\n", strerror(ENOENT));
	assert_true(!strncmp(p.err, want_err, strlen(want_err)));
	check_hashsort_out(p.out, args + 1, nfiles - 1);

	parse_table(p.err, &t);
	check_consistent(&t);
	/* hash around the workers, each worker around its files' hash-file
	 * (the missing file's too), then sort */
	assert_int_equal(t.nr, 4);
	assert_int_equal(t.regions, 1 + HASHSORT_WORKERS + nfiles + 1);
	hash = find(&t, "hashsort/hash");
	worker = find(&t, "hashsort/worker");
	file = find(&t, "hashsort/hash-file");
	assert_int_equal(hash->count, 1);
	assert_int_equal(worker->count, HASHSORT_WORKERS);
	assert_int_equal(file->count, nfiles);
	assert_int_equal(find(&t, "hashsort/sort")->count, 1);
	assert_true(hash->total >= worker->max);
	assert_true(worker->total >= file->total);

	/* without --stats: the same stdout, only the error on stderr */
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
		cmocka_unit_test(known_counts_and_times),
		cmocka_unit_test(table_full),
		cmocka_unit_test(keys),
		cmocka_unit_test(fork_while_busy),
		cmocka_unit_test(demo_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
