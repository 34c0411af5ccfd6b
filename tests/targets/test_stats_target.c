/*
 * The stats target (GIT_TRACE2_STATS, targets/tr2_tgt_stats.c): its
 * numbers against known inputs, its percentiles against the exact ones,
 * threads, ended threads past those kept, a full table, deferred mode,
 * the JSON and text forms, no allocation per event.
 *
 * Scenarios run in forked children.  Where times must be known, the
 * library's clock_gettime() is wrapped (see the Makefile) and the child
 * moves a fake monotonic clock between enter and leave.  Where threads
 * run at once on the real clock, a second, registered target keeps every
 * thread's count, total, min and max of the region_leave records it gets,
 * and prints them at exit: the stats target must say the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"
#include "trace2/target.h"
#include "tr2_sys.h"
#include "tr2_tgt_stats.h"

#define TIMEOUT_S 120

/* ------------------------------------------------------------------ */
/* The fake clock.                                                      */
/* ------------------------------------------------------------------ */

#include "t2fakeclock.h"

/* One region of category/label lasting exactly us on the fake clock. */
static void timed(const char *category, const char *label, uint64_t us)
{
	trace2_region_enter(category, label, NULL);
	__atomic_add_fetch(&t2_fake_us, us, __ATOMIC_RELAXED);
	trace2_region_leave(category, label, NULL);
}

/* ------------------------------------------------------------------ */
/* The recording target: per thread id, what its leaves said.           */
/* ------------------------------------------------------------------ */

#define REC_THREADS 128

struct rec_sum {
	uint64_t count, total, min, max;
};
static struct rec_sum rec[REC_THREADS];

static void rec_event(void *ctx, const struct trace2_event *ev)
{
	struct rec_sum *s;

	(void)ctx;
	if (ev->kind != TRACE2_EVENT_REGION_LEAVE || ev->thread->id >= REC_THREADS)
		return;
	s = &rec[ev->thread->id];
	if (!s->count || ev->t_rel_us < s->min)
		s->min = ev->t_rel_us;
	if (ev->t_rel_us > s->max)
		s->max = ev->t_rel_us;
	s->total += ev->t_rel_us;
	s->count++;
}

/* "rec <id> <count> <total> <min> <max>" on stdout for each thread. */
static void rec_shutdown(void *ctx)
{
	(void)ctx;
	for (int i = 0; i < REC_THREADS; i++)
		if (rec[i].count)
			printf("rec %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", i,
			       rec[i].count, rec[i].total, rec[i].min, rec[i].max);
	fflush(stdout);
}

static const struct trace2_target rec_target = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "rec",
	.event = rec_event,
	.shutdown = rec_shutdown,
};

/* ------------------------------------------------------------------ */
/* Running a scenario, reading its report.                              */
/* ------------------------------------------------------------------ */

typedef void scenario_fn(void);

struct run_arg {
	scenario_fn *fn;
	int fake;
	int with_rec;
};

static void child_main(void *p)
{
	const struct run_arg *a = p;

	t2_faking = a->fake;
	t2_fake_us = UINT64_C(1000000000);
	trace2_initialize_clock();
	if (a->with_rec)
		CHECK(trace2_register_target(&rec_target, NULL) == 0);
	trace2_initialize();
	CHECK(trace2_is_enabled());
	a->fn();
}

struct report {
	char *text;          /* the destination's content */
	char *out;           /* the child's stdout */
	struct tjson *json;  /* when JSON */
};

/* Run fn with the stats target writing to a file; extra settings in
 * env1, env2 (NULL: none). */
static void run(scenario_fn *fn, int fake, int with_rec, int json, const char *env1,
		const char *env2, struct report *r)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "stats");
	struct run_arg a = { fn, fake, with_rec };
	struct t2_env env = { 0 };
	const char *err = NULL;
	struct t2_proc p;

	t2_env_add(&env, "GIT_TRACE2_STATS=%s", path);
	t2_env_add(&env, "GIT_TRACE2_CLOCK=monotonic");
	if (json)
		t2_env_add(&env, "GIT_TRACE2_STATS_FORMAT=json");
	if (env1)
		t2_env_add(&env, "%s", env1);
	if (env2)
		t2_env_add(&env, "%s", env2);
	t2_capture(child_main, &a, t2_env_list(&env), TIMEOUT_S, &p);
	if (!WIFEXITED(p.status) || WEXITSTATUS(p.status))
		fail_msg("scenario failed (status 0x%x): %s", p.status, p.err);
	r->text = t2_read_file(path, NULL);
	assert_non_null(r->text);
	r->out = p.out;
	p.out = NULL;
	r->json = NULL;
	if (json) {
		r->json = tjson_parse(r->text, strlen(r->text), &err);
		if (!r->json)
			fail_msg("not JSON (%s): %s", err, r->text);
		/* one line */
		assert_non_null(strchr(r->text, '\n'));
		assert_int_equal(strchr(r->text, '\n')[1], '\0');
	}
	t2_proc_free(&p);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(path);
	free(dir);
}

static void report_free(struct report *r)
{
	free(r->text);
	free(r->out);
	tjson_free(r->json);
}

static uint64_t num(const struct tjson *o, const char *key)
{
	const struct tjson *v = tjson_get(o, key);

	if (!v || v->type != TJSON_NUMBER)
		fail_msg("no number %s", key);
	return strtoull(v->text, NULL, 10);
}

/* The "regions" array of the section of thread name ("total": the total). */
static const struct tjson *section(const struct report *r, const char *name)
{
	const struct tjson *threads = tjson_get(r->json, "threads");

	if (!strcmp(name, "total"))
		return tjson_get(tjson_get(r->json, "total"), "regions");
	for (size_t i = 0; threads && i < threads->n; i++)
		if (!strcmp(tjson_get_str(threads->items[i], "thread"), name))
			return tjson_get(threads->items[i], "regions");
	return NULL;
}

/* The row of a key in a section; (NULL, NULL): the (other) row. */
static const struct tjson *row(const struct tjson *regions, const char *category,
			       const char *label)
{
	for (size_t i = 0; regions && i < regions->n; i++) {
		const struct tjson *o = regions->items[i];
		const char *c = tjson_get_str(o, "category"), *l = tjson_get_str(o, "label");

		if (!category ? tjson_get(o, "other") != NULL :
		    c && l && !strcmp(c, category) && !strcmp(l, label))
			return o;
	}
	fail_msg("no row %s/%s", category ? category : "(other)", label ? label : "");
	return NULL;
}

/* What holds for every row: min <= p50 <= p90 <= p99 <= max, the count
 * and total between count * min and count * max; rows by total. */
static void check_section(const struct tjson *regions)
{
	uint64_t prev_total = UINT64_MAX;

	assert_non_null(regions);
	for (size_t i = 0; i < regions->n; i++) {
		const struct tjson *o = regions->items[i];
		uint64_t n = num(o, "count"), total = num(o, "total_us");

		assert_true(n > 0);
		assert_true(num(o, "min_us") <= num(o, "p50_us"));
		assert_true(num(o, "p50_us") <= num(o, "p90_us"));
		assert_true(num(o, "p90_us") <= num(o, "p99_us"));
		assert_true(num(o, "p99_us") <= num(o, "max_us"));
		assert_true(total >= n * num(o, "min_us") && total <= n * num(o, "max_us"));
		if (!tjson_get(o, "other")) {
			assert_true(total <= prev_total);
			prev_total = total;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Known numbers on the fake clock.                                     */
/* ------------------------------------------------------------------ */

#define SPREAD 1000

static void known_scenario(void)
{
	/* a/x: 1..1000 us, shuffled; b/y: 10, 20, 30 us; nested under a/x */
	for (uint64_t i = 0; i < SPREAD; i++)
		timed("a", "x", (i * 7919) % SPREAD + 1);
	trace2_region_enter("a", "x", NULL);
	timed("b", "y", 10);
	timed("b", "y", 30);
	timed("b", "y", 20);
	t2_fake_us += 40;
	trace2_region_leave("a", "x", NULL);
	timed(NULL, NULL, 5);
	timed("", "", 7);
}

static void check_known(const struct tjson *regions)
{
	const struct tjson *x = row(regions, "a", "x"), *y = row(regions, "b", "y");
	const struct tjson *none = row(regions, "", "");

	check_section(regions);
	assert_int_equal(regions->n, 3);
	assert_int_equal(num(x, "count"), SPREAD + 1);
	assert_int_equal(num(x, "total_us"), SPREAD * (SPREAD + 1) / 2 + 100);
	assert_int_equal(num(x, "min_us"), 1);
	assert_int_equal(num(x, "max_us"), SPREAD);
	assert_int_equal(num(y, "count"), 3);
	assert_int_equal(num(y, "total_us"), 60);
	assert_int_equal(num(y, "min_us"), 10);
	assert_int_equal(num(y, "max_us"), 30);
	/* below 32 us every time has its own bucket: exact */
	assert_int_equal(num(y, "p50_us"), 20);
	assert_int_equal(num(y, "p90_us"), 30);
	assert_int_equal(num(y, "p99_us"), 30);
	/* NULL and "" are one key */
	assert_int_equal(num(none, "count"), 2);
	assert_int_equal(num(none, "total_us"), 12);
	/* x's 1001 times: 1..1000 and 100; nearest rank 501, 901, 991 */
	assert_true(llabs((long long)num(x, "p50_us") - 500) <= 500 / 32);
	assert_true(llabs((long long)num(x, "p90_us") - 900) <= 900 / 32);
	assert_true(llabs((long long)num(x, "p99_us") - 990) <= 990 / 32);
	/* rows by total: x first */
	assert_ptr_equal(regions->items[0], x);
}

static void known_numbers(void **state)
{
	struct report r;
	const struct tjson *threads;

	(void)state;
	run(known_scenario, 1, 0, 1, NULL, NULL, &r);
	threads = tjson_get(r.json, "threads");
	assert_non_null(threads);
	assert_int_equal(threads->n, 1);
	assert_string_equal(tjson_get_str(threads->items[0], "thread"), "main");
	assert_int_equal(num(threads->items[0], "id"), 0);
	check_known(section(&r, "main"));
	check_known(section(&r, "total"));
	assert_true(t2_matches(tjson_get_str(r.json, "sid"),
			       "^[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-H[0-9a-f]{8}-P[0-9a-f]{8}$"));
	assert_null(tjson_get(r.json, "ended_threads"));
	report_free(&r);
}

/* Buffered mode: the report, written at exit, still goes out. */
static void buffered_mode(void **state)
{
	struct report r;

	(void)state;
	run(known_scenario, 1, 0, 1, "GIT_TRACE2_BUFFER=64k", NULL, &r);
	check_known(section(&r, "total"));
	report_free(&r);
}

/* ------------------------------------------------------------------ */
/* Percentiles against the exact ones of a known distribution.          */
/* ------------------------------------------------------------------ */

#define SAMPLES 20011

/* Times from 1 us to about 4 s, most of them short (a long tail). */
static uint64_t sample(uint64_t i)
{
	uint64_t h = (i + 1) * UINT64_C(0x9e3779b97f4a7c15);

	h ^= h >> 29;
	return (h % 1000000) * (h % 1000000) / 250000 + 1;
}

static void spread_scenario(void)
{
	for (uint64_t i = 0; i < SAMPLES; i++)
		timed("spread", "t", sample(i));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void percentile_error(void **state)
{
	static uint64_t v[SAMPLES];
	static const unsigned ps[] = { 50, 90, 99 };
	static const char *const keys[] = { "p50_us", "p90_us", "p99_us" };
	const struct tjson *x;
	struct report r;

	(void)state;
	for (uint64_t i = 0; i < SAMPLES; i++)
		v[i] = sample(i);
	qsort(v, SAMPLES, sizeof(v[0]), cmp_u64);
	run(spread_scenario, 1, 0, 1, NULL, NULL, &r);
	x = row(section(&r, "total"), "spread", "t");
	assert_int_equal(num(x, "count"), SAMPLES);
	assert_int_equal(num(x, "min_us"), v[0]);
	assert_int_equal(num(x, "max_us"), v[SAMPLES - 1]);
	for (int k = 0; k < 3; k++) {
		/* nearest rank: the ceil(p/100 * n)-th smallest */
		uint64_t exact = v[(SAMPLES * ps[k] + 99) / 100 - 1], got = num(x, keys[k]);
		uint64_t err = got > exact ? got - exact : exact - got;

		print_message("p%u: exact %" PRIu64 ", reported %" PRIu64 "\n", ps[k], exact, got);
		assert_true(exact > 1000);      /* the buckets are not exact there */
		assert_true(err * 32 <= exact); /* docs/targets.md: within 1/32 */
	}
	report_free(&r);
}

/* ------------------------------------------------------------------ */
/* Threads at once on the real clock, against the recording target.    */
/* ------------------------------------------------------------------ */

#define THREADS 8
#define PAIRS (UNDER_SANITIZER ? 2000 : 20000)

static void *worker(void *arg)
{
	(void)arg;
	trace2_thread_start("w");
	for (int i = 0; i < PAIRS; i++) {
		trace2_region_enter("w", "outer", NULL);
		trace2_region_enter("w", i % 3 ? "a" : "b", NULL);
		trace2_region_leave("w", i % 3 ? "a" : "b", NULL);
		trace2_region_leave("w", "outer", NULL);
	}
	trace2_thread_exit();
	return NULL;
}

static void threads_scenario(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
	trace2_region_enter("m", "wait", NULL);
	for (int i = 0; i < THREADS; i++)
		CHECK(pthread_join(t[i], NULL) == 0);
	trace2_region_leave("m", "wait", NULL);
}

/* Sum a section's rows into count, total, min, max. */
static struct rec_sum section_sum(const struct tjson *regions)
{
	struct rec_sum s = { 0, 0, UINT64_MAX, 0 };

	for (size_t i = 0; i < regions->n; i++) {
		const struct tjson *o = regions->items[i];

		s.count += num(o, "count");
		s.total += num(o, "total_us");
		if (num(o, "min_us") < s.min)
			s.min = num(o, "min_us");
		if (num(o, "max_us") > s.max)
			s.max = num(o, "max_us");
	}
	return s;
}

/* Each thread's section and the total against the recording target. */
static void check_against_rec(const struct report *r, int nthreads)
{
	const struct tjson *threads = tjson_get(r->json, "threads");
	size_t nlines;
	char **lines = t2_lines(r->out, &nlines);
	struct rec_sum all = { 0, 0, UINT64_MAX, 0 }, total;

	assert_int_equal(threads->n, nthreads + 1);
	assert_int_equal(nlines, nthreads + 1);
	for (size_t i = 0; i < nlines; i++) {
		struct rec_sum want, got;
		int id;

		assert_int_equal(sscanf(lines[i], "rec %d %" SCNu64 " %" SCNu64 " %" SCNu64
					" %" SCNu64, &id, &want.count, &want.total, &want.min,
					&want.max), 5);
		/* sections come by thread id */
		assert_int_equal(num(threads->items[i], "id"), id);
		check_section(tjson_get(threads->items[i], "regions"));
		got = section_sum(tjson_get(threads->items[i], "regions"));
		assert_int_equal(got.count, want.count);
		assert_int_equal(got.total, want.total);
		assert_int_equal(got.min, want.min);
		assert_int_equal(got.max, want.max);
		all.count += want.count;
		all.total += want.total;
		all.min = want.min < all.min ? want.min : all.min;
		all.max = want.max > all.max ? want.max : all.max;
		if (id) {
			const struct tjson *rg = tjson_get(threads->items[i], "regions");

			assert_int_equal(num(row(rg, "w", "outer"), "count"), PAIRS);
			assert_int_equal(num(row(rg, "w", "a"), "count"), PAIRS - (PAIRS + 2) / 3);
			assert_int_equal(num(row(rg, "w", "b"), "count"), (PAIRS + 2) / 3);
		}
	}
	check_section(section(r, "total"));
	total = section_sum(section(r, "total"));
	assert_int_equal(total.count, all.count);
	assert_int_equal(total.total, all.total);
	assert_int_equal(total.min, all.min);
	assert_int_equal(total.max, all.max);
	assert_int_equal(num(row(section(r, "total"), "w", "outer"), "count"), THREADS * PAIRS);
	t2_strv_free(lines);
}

static void threads_merged(void **state)
{
	struct report r;

	(void)state;
	run(threads_scenario, 0, 1, 1, NULL, NULL, &r);
	check_against_rec(&r, THREADS);
	report_free(&r);
}

static void deferred_mode(void **state)
{
	struct report r;

	(void)state;
	/* a ring that holds everything: nothing dropped */
	run(threads_scenario, 0, 1, 1, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=64m", &r);
	check_against_rec(&r, THREADS);
	report_free(&r);
}

/* ------------------------------------------------------------------ */
/* More threads end than keep a section: added up, tables reused.       */
/* ------------------------------------------------------------------ */

#define ENDING (TR2_STATS_THREADS + 20)

static void *short_worker(void *arg)
{
	uint64_t us = (uint64_t)(uintptr_t)arg;

	trace2_thread_start("s");
	timed("s", "r", us);
	trace2_thread_exit();
	return NULL;
}

static void ending_scenario(void)
{
	for (int i = 0; i < ENDING; i++) {
		pthread_t t;

		CHECK(pthread_create(&t, NULL, short_worker, (void *)(uintptr_t)(i + 1)) == 0);
		CHECK(pthread_join(t, NULL) == 0);
	}
}

static void ended_threads(void **state)
{
	const struct tjson *threads, *ended, *r1;
	struct report r;

	(void)state;
	run(ending_scenario, 1, 0, 1, NULL, NULL, &r);
	threads = tjson_get(r.json, "threads");
	ended = tjson_get(r.json, "ended_threads");
	/* the first TR2_STATS_THREADS have their own section */
	assert_int_equal(threads->n, TR2_STATS_THREADS);
	for (size_t i = 0; i < threads->n; i++) {
		r1 = row(tjson_get(threads->items[i], "regions"), "s", "r");
		assert_int_equal(num(threads->items[i], "id"), i + 1);
		assert_int_equal(num(r1, "total_us"), i + 1);
	}
	assert_non_null(ended);
	assert_int_equal(num(ended, "threads"), ENDING - TR2_STATS_THREADS);
	r1 = row(tjson_get(ended, "regions"), "s", "r");
	assert_int_equal(num(r1, "count"), ENDING - TR2_STATS_THREADS);
	assert_int_equal(num(r1, "min_us"), TR2_STATS_THREADS + 1);
	assert_int_equal(num(r1, "max_us"), ENDING);
	r1 = row(section(&r, "total"), "s", "r");
	assert_int_equal(num(r1, "count"), ENDING);
	assert_int_equal(num(r1, "total_us"), ENDING * (ENDING + 1) / 2);
	report_free(&r);
}

/* ------------------------------------------------------------------ */
/* A full table: the (other) row.                                       */
/* ------------------------------------------------------------------ */

#define EXTRA 5

static void full_scenario(void)
{
	char label[16];

	for (int i = 0; i < TR2_STATS_ROWS + EXTRA; i++) {
		snprintf(label, sizeof(label), "k%03d", i);
		timed("full", label, 10);
	}
	timed("full", "k000", 10); /* has a row */
	timed("full", "late", 20); /* has none */
}

static void table_full(void **state)
{
	const char *const names[] = { "main", "total" };
	struct report r;
	char label[16];

	(void)state;
	run(full_scenario, 1, 0, 1, NULL, NULL, &r);
	for (int s = 0; s < 2; s++) {
		const struct tjson *rg = section(&r, names[s]), *other = row(rg, NULL, NULL);

		check_section(rg);
		assert_int_equal(rg->n, TR2_STATS_ROWS + 1);
		/* (other) last */
		assert_ptr_equal(rg->items[rg->n - 1], other);
		assert_int_equal(num(other, "count"), EXTRA + 1);
		assert_int_equal(num(other, "total_us"), EXTRA * 10 + 20);
		assert_int_equal(num(other, "max_us"), 20);
		for (int i = 0; i < TR2_STATS_ROWS; i++) {
			snprintf(label, sizeof(label), "k%03d", i);
			assert_int_equal(num(row(rg, "full", label), "count"), i ? 1 : 2);
		}
	}
	report_free(&r);
}

/* ------------------------------------------------------------------ */
/* Keys: pointers reused for other text, long and odd texts.            */
/* ------------------------------------------------------------------ */

static void keys_scenario(void)
{
	char buf[16], a[TR2_STATS_LABEL_MAX + 20], b[sizeof(a)];

	/* one buffer, three texts: the pointer is the same, the keys not */
	for (int i = 0; i < 30; i++) {
		snprintf(buf, sizeof(buf), "buf%d", i % 3);
		timed("k", buf, (uint64_t)(i % 3) + 1);
	}
	/* "ab"/"c" and "a"/"bc" are two keys */
	timed("ab", "c", 1);
	timed("a", "bc", 2);
	/* long labels alike up to past the kept bytes, the cut inside "é" */
	memset(a, 'x', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(a + TR2_STATS_LABEL_MAX - 2, "\xc3\xa9", 2);
	memcpy(b, a, sizeof(a));
	b[sizeof(b) - 2] = 'y';
	timed("long", a, 3);
	timed("long", a, 3);
	timed("long", b, 5);
	timed("odd", "q\"\\\n\t\x01", 4);
}

static void keys(void **state)
{
	const struct tjson *rg, *o;
	struct report r;
	int cut_rows = 0;

	(void)state;
	run(keys_scenario, 1, 0, 1, NULL, NULL, &r);
	rg = section(&r, "total");
	for (int i = 0; i < 3; i++) {
		char label[8];

		snprintf(label, sizeof(label), "buf%d", i);
		o = row(rg, "k", label);
		assert_int_equal(num(o, "count"), 10);
		assert_int_equal(num(o, "total_us"), 10 * (i + 1));
	}
	assert_int_equal(num(row(rg, "ab", "c"), "total_us"), 1);
	assert_int_equal(num(row(rg, "a", "bc"), "total_us"), 2);
	assert_int_equal(num(row(rg, "odd", "q\"\\\n\t\x01"), "total_us"), 4);
	/* the two long labels: two rows, cut before the "é" (tjson takes
	 * only valid UTF-8) */
	for (size_t i = 0; i < rg->n; i++) {
		const char *l = tjson_get_str(rg->items[i], "label");

		if (l && tjson_get(rg->items[i], "cut")) {
			cut_rows++;
			assert_int_equal(strlen(l), TR2_STATS_LABEL_MAX - 2);
			assert_int_equal(num(rg->items[i], "total_us"),
					 num(rg->items[i], "count") == 2 ? 6 : 5);
		}
	}
	assert_int_equal(cut_rows, 2);
	report_free(&r);
}

/* ------------------------------------------------------------------ */
/* The table.                                                           */
/* ------------------------------------------------------------------ */

static void text_scenario(void)
{
	timed("cat", "long label", 1500);
	timed("cat", "long label", 2500000);
	timed("c", "l\nx", 7);
}

/* The line's cells (separated by two blanks or more) are want's. */
static void check_line(const char *line, const char *const want[10])
{
	char *cells = t2_regsub(line, "  +", "|");
	size_t n;
	char **v = t2_split(cells, "|", &n);

	assert_int_equal(n, 10);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
	t2_strv_free(v);
	free(cells);
}

static void text_table(void **state)
{
	static const char *const head[10] = {
		"thread", "category", "label", "count", "total", "min", "p50", "p90", "p99", "max"
	};
	static const char *const cat[10] = {
		"main", "cat", "long label", "2", "2.501s", "1.500ms", "1.500ms", "2.500s", "2.500s",
		"2.500s"
	};
	static const char *const ctrl[10] = {
		"main", "c", "l?x", "1", "7us", "7us", "7us", "7us", "7us", "7us"
	};
	struct report r;
	size_t n, end = 0;
	char **lines;

	(void)state;
	run(text_scenario, 1, 0, 0, NULL, NULL, &r);
	lines = t2_lines(r.text, &n);
	assert_int_equal(n, 6);
	assert_true(t2_matches(lines[0], "^# trace2 stats, sid [0-9]{8}T.*: region times per "
				"thread and in total; p50, p90 and p99 within 1/32$"));
	check_line(lines[1], head);
	check_line(lines[2], cat);
	check_line(lines[3], ctrl);
	assert_int_equal(strncmp(lines[4], "total ", 6), 0);
	assert_int_equal(strncmp(lines[5], "total ", 6), 0);
	/* aligned: every line ends at the same column (max, to the right) */
	for (size_t i = 1; i < n; i++) {
		if (i > 1)
			assert_int_equal(strlen(lines[i]), end);
		end = strlen(lines[i]);
	}
	t2_strv_free(lines);
	report_free(&r);

	/* brief: the total only */
	run(text_scenario, 1, 0, 0, "GIT_TRACE2_STATS_BRIEF=1", NULL, &r);
	lines = t2_lines(r.text, &n);
	assert_int_equal(n, 4);
	assert_int_equal(strncmp(lines[2], "total ", 6), 0);
	assert_int_equal(strncmp(lines[3], "total ", 6), 0);
	t2_strv_free(lines);
	report_free(&r);
}

/* trace2.statsTarget and trace2.statsFormat, the config keys. */
static void config_scenario(void *arg)
{
	const char *path = arg;

	trace2_initialize_clock();
	CHECK(trace2_config_set("trace2.statsTarget", path) == 0);
	CHECK(trace2_config_set("trace2.statsFormat", "json") == 0);
	trace2_initialize();
	CHECK(trace2_is_enabled());
	trace2_region_enter("cfg", "r", NULL);
	trace2_region_leave("cfg", "r", NULL);
}

static void config_keys(void **state)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "stats"), *text;
	struct tjson *j;
	struct t2_proc p;

	(void)state;
	t2_capture(config_scenario, path, NULL, TIMEOUT_S, &p);
	assert_int_equal(p.status, 0);
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	j = tjson_parse(text, strlen(text), NULL);
	assert_non_null(j);
	assert_int_equal(tjson_get(tjson_get(j, "total"), "regions")->n, 1);
	tjson_free(j);
	free(text);
	t2_proc_free(&p);
	t2_rmtree(dir);
	free(path);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* A forked child that initializes again: a report of its own.          */
/* ------------------------------------------------------------------ */

static void fork_scenario(void)
{
	pid_t pid;

	timed("parent", "before", 3);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		trace2_initialize(); /* the child's own trace */
		timed("child", "r", 5);
		exit(0);
	}
	CHECK(t2_wait_timeout(pid, 30000) == 0);
	timed("parent", "after", 4);
}

static void forked_child(void **state)
{
	const struct tjson *child_rows, *parent_rows;
	struct tjson *child;
	struct report r;
	char *nl;

	(void)state;
	run(fork_scenario, 1, 0, 0, "GIT_TRACE2_STATS_FORMAT=json", NULL, &r);
	/* two lines in one file: the child's (it exits first), the parent's */
	nl = strchr(r.text, '\n');
	assert_non_null(nl);
	child = tjson_parse(r.text, (size_t)(nl - r.text), NULL);
	r.json = tjson_parse(nl + 1, strlen(nl + 1), NULL);
	assert_non_null(child);
	assert_non_null(r.json);
	child_rows = tjson_get(tjson_get(child, "total"), "regions");
	assert_int_equal(child_rows->n, 1);
	assert_int_equal(num(row(child_rows, "child", "r"), "total_us"), 5);
	parent_rows = section(&r, "total");
	assert_int_equal(parent_rows->n, 2);
	assert_int_equal(num(row(parent_rows, "parent", "before"), "total_us"), 3);
	assert_int_equal(num(row(parent_rows, "parent", "after"), "total_us"), 4);
	assert_string_not_equal(tjson_get_str(child, "sid"), tjson_get_str(r.json, "sid"));
	tjson_free(child);
	report_free(&r);
}

/* ------------------------------------------------------------------ */
/* No allocation per event once a thread's keys have rows.              */
/* ------------------------------------------------------------------ */

static unsigned long allocs;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);

static void *count_malloc(size_t n)
{
	allocs++;
	return real_malloc(n);
}

static void *count_calloc(size_t n, size_t size)
{
	allocs++;
	return real_calloc(n, size);
}

static void *count_realloc(void *p, size_t n)
{
	allocs++;
	return real_realloc(p, n);
}

static void alloc_scenario(void)
{
	static const char *const labels[] = { "a", "b", "c", "d" };

	for (int i = 0; i < 4; i++)
		timed("warm", labels[i], 1);
	real_malloc = tr2_sys.malloc;
	real_calloc = tr2_sys.calloc;
	real_realloc = tr2_sys.realloc;
	tr2_sys.malloc = count_malloc;
	tr2_sys.calloc = count_calloc;
	tr2_sys.realloc = count_realloc;
	for (int i = 0; i < 40000; i++)
		timed("warm", labels[i % 4], (uint64_t)i % 5000);
	tr2_sys.malloc = real_malloc;
	tr2_sys.calloc = real_calloc;
	tr2_sys.realloc = real_realloc;
	printf("allocs %lu\n", allocs);
}

static void no_allocation_per_event(void **state)
{
	struct report r;

	(void)state;
	run(alloc_scenario, 1, 0, 1, NULL, NULL, &r);
	assert_string_equal(r.out, "allocs 0\n");
	assert_int_equal(num(row(section(&r, "total"), "warm", "c"), "count"), 10001);
	report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_numbers),
		cmocka_unit_test(buffered_mode),
		cmocka_unit_test(percentile_error),
		cmocka_unit_test(threads_merged),
		cmocka_unit_test(deferred_mode),
		cmocka_unit_test(ended_threads),
		cmocka_unit_test(table_full),
		cmocka_unit_test(keys),
		cmocka_unit_test(text_table),
		cmocka_unit_test(config_keys),
		cmocka_unit_test(forked_child),
		cmocka_unit_test(no_allocation_per_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
