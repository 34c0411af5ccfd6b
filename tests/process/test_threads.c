/*
 * Threads (docs/api.md, "Threads" and "Timers and counters"):
 * many threads trace concurrently with all three targets writing into
 * files; the raw files are parsed record by record and checked for
 * intact lines, thread names, per-thread region nesting, per-thread
 * timer/counter records and the process totals at exit.  Also threads
 * that never call trace2_thread_start() or trace2_thread_exit().  Then
 * sampling by command tree: under a root the rate keeps (T2_ROOT_KEPT)
 * every check above, under one it drops nothing written; and the flight
 * recorder (GIT_TRACE2_FLIGHT=16k), threads at full speed: exit code 1
 * writes a whole log (trace2 validate --strict) of each thread's last
 * records, written + overwritten = made per thread, the totals exact;
 * exit code 0 nothing.  These build for Windows too (make check's
 * Windows part runs them under Wine).
 *
 * The scenarios run in forked children; under ThreadSanitizer a report
 * in the child makes it exit non-zero, which the status check catches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"

/* ------------------------------------------------------------------ */
/* The worker scenario.                                                 */
/* ------------------------------------------------------------------ */

#define ROUNDS 3
#define MAX_WORKERS 64
/* Thread names are cut to this many bytes (docs/targets.md, "Normal"). */
#define NAME_MAX_BYTES 24

struct plan {
	int n;			/* number of worker threads */
	const char *base;	/* worker i calls trace2_thread_start("<base><i>") */
	int rounds;		/* of its regions */
	int code;		/* trace2_cmd_exit()'s at the end, if not 0 */
};

struct worker {
	const struct plan *plan;
	int i;
	pthread_barrier_t *barrier;
};

/* What worker i adds to the timers and counters. */
static uint64_t intervals2(int i)
{
	return 1 + (uint64_t)i % 3;
}

static uint64_t counter2(int i)
{
	return (uint64_t)i * 1000 + 7;
}

static uint64_t counter1(int i)
{
	return (uint64_t)i + 1;
}

/* The main thread's own use of the per-thread ids. */
#define MAIN_INTERVALS2 1
#define MAIN_COUNTER2 5

static void *worker_main(void *arg)
{
	const struct worker *w = arg;
	char base[128];
	uint64_t k;
	int r;

	snprintf(base, sizeof(base), "%s%d", w->plan->base, w->i);
	trace2_thread_start(base);
	trace2_data_intmax("w", NULL, "worker", w->i);
	/* every worker has its context before any starts the real work */
	pthread_barrier_wait(w->barrier);
	for (r = 0; r < w->plan->rounds; r++) {
		trace2_region_enter("w", "l1", NULL);
		trace2_region_enter("w", "l2", NULL);
		trace2_region_enter("w", "l3", NULL);
		trace2_data_intmax("w", NULL, "round", r);
		trace2_region_leave("w", "l3", NULL);
		trace2_region_leave("w", "l2", NULL);
		trace2_region_leave("w", "l1", NULL);
	}
	for (k = 0; k < intervals2(w->i); k++) {
		trace2_timer_start(TRACE2_TIMER_ID_TEST2);
		if (!k) {
			/* a nested start/stop pair is no interval of its own */
			trace2_timer_start(TRACE2_TIMER_ID_TEST2);
			trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
		}
		trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	}
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, counter2(w->i) - 7);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 7);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, counter1(w->i));
	trace2_thread_exit();
	return NULL;
}

static void sc_workers(void *arg)
{
	const struct plan *plan = arg;
	pthread_t th[MAX_WORKERS];
	struct worker w[MAX_WORKERS];
	pthread_barrier_t barrier;
	int i;

	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, MAIN_COUNTER2);
	pthread_barrier_init(&barrier, NULL, (unsigned)plan->n);
	for (i = 0; i < plan->n; i++) {
		w[i].plan = plan;
		w[i].i = i;
		w[i].barrier = &barrier;
		if (pthread_create(&th[i], NULL, worker_main, &w[i]))
			exit(3);
	}
	for (i = 0; i < plan->n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&barrier);
	/* the flight recorder's trigger */
	if (plan->code)
		trace2_cmd_exit(plan->code);
}

/* The records a worker makes: thread_start, its "worker" data record,
 * seven per round, th_timer, th_counter, thread_exit. */
static size_t records_per_worker(const struct plan *plan)
{
	return 2 + 7 * (size_t)plan->rounds + 3;
}

/* ------------------------------------------------------------------ */
/* Records parsed from any of the three targets.                        */
/* ------------------------------------------------------------------ */

struct rec {
	char thread[64];	/* "" on NORMAL, which does not show it */
	char event[16];
	int nesting;		/* EVENT "nesting" or PERF dots/2 + 1; -1: not shown */
	char label[32];		/* region_enter/leave */
	char key[32];		/* data */
	char value[32];
	char cat[16];		/* timers/counters */
	char name[16];
	uint64_t count;		/* intervals or counter value */
	double total, min, max;
};

struct recs {
	struct rec *v;
	size_t nr, alloc;
};

static struct rec *recs_add(struct recs *r)
{
	if (r->nr == r->alloc) {
		r->alloc = r->alloc ? r->alloc * 2 : 256;
		r->v = realloc(r->v, r->alloc * sizeof(*r->v));
		assert_non_null(r->v);
	}
	memset(&r->v[r->nr], 0, sizeof(r->v[0]));
	r->v[r->nr].nesting = -1;
	return &r->v[r->nr++];
}

static void copy_field(char *dst, size_t size, const char *src)
{
	if (src)
		snprintf(dst, size, "%s", src);
}

/* Copy s[0..len) without its trailing spaces. */
static void copy_trimmed(char *dst, size_t size, const char *s)
{
	size_t len = strlen(s);

	while (len && s[len - 1] == ' ')
		len--;
	snprintf(dst, size, "%.*s", (int)len, s);
}

static int is_timer(const char *event)
{
	return !strcmp(event, "timer") || !strcmp(event, "th_timer");
}

static int is_counter(const char *event)
{
	return !strcmp(event, "counter") || !strcmp(event, "th_counter");
}

static uint64_t json_u64(const struct tjson *obj, const char *key)
{
	const struct tjson *v = tjson_get(obj, key);

	assert_non_null(v);
	assert_int_equal(v->type, TJSON_NUMBER);
	return strtoull(v->text, NULL, 10);
}

static double json_double(const struct tjson *obj, const char *key)
{
	const struct tjson *v = tjson_get(obj, key);

	assert_non_null(v);
	assert_int_equal(v->type, TJSON_NUMBER);
	return v->number;
}

/*
 * One EVENT line: strict JSON, written compactly with minimal escapes
 * (tjson_dump() gives the line back unchanged), the same sid everywhere.
 */
static void parse_event_line(const char *line, char *sid, size_t sid_size,
			     struct rec *r)
{
	const char *err = NULL;
	struct tjson *v = tjson_parse(line, strlen(line), &err);
	const struct tjson *n;
	char *dump;

	if (!v)
		print_error("not JSON (%s): %s\n", err, line);
	assert_non_null(v);
	assert_int_equal(v->type, TJSON_OBJECT);
	dump = tjson_dump(v);
	assert_string_equal(dump, line);
	free(dump);
	assert_non_null(tjson_get_str(v, "sid"));
	if (!*sid)
		copy_field(sid, sid_size, tjson_get_str(v, "sid"));
	assert_string_equal(tjson_get_str(v, "sid"), sid);
	assert_non_null(tjson_get_str(v, "event"));
	assert_non_null(tjson_get_str(v, "thread"));
	copy_field(r->event, sizeof(r->event), tjson_get_str(v, "event"));
	copy_field(r->thread, sizeof(r->thread), tjson_get_str(v, "thread"));
	n = tjson_get(v, "nesting");
	if (n) {
		assert_int_equal(n->type, TJSON_NUMBER);
		r->nesting = (int)n->number;
	}
	copy_field(r->label, sizeof(r->label), tjson_get_str(v, "label"));
	copy_field(r->key, sizeof(r->key), tjson_get_str(v, "key"));
	copy_field(r->value, sizeof(r->value), tjson_get_str(v, "value"));
	if (is_timer(r->event) || is_counter(r->event)) {
		copy_field(r->cat, sizeof(r->cat), tjson_get_str(v, "category"));
		copy_field(r->name, sizeof(r->name), tjson_get_str(v, "name"));
	}
	if (is_timer(r->event)) {
		r->count = json_u64(v, "intervals");
		r->total = json_double(v, "t_total");
		r->min = json_double(v, "t_min");
		r->max = json_double(v, "t_max");
	} else if (is_counter(r->event)) {
		r->count = json_u64(v, "count");
	}
	tjson_free(v);
}

/* "name:<n> intervals:… total:… min:… max:…" / "name:<n> value:…" */
static void parse_metric_payload(const char *p, struct rec *r)
{
	int end = -1;

	if (is_timer(r->event))
		sscanf(p, "name:%15s intervals:%" SCNu64 " total:%lf min:%lf max:%lf%n",
		       r->name, &r->count, &r->total, &r->min, &r->max, &end);
	else
		sscanf(p, "name:%15s value:%" SCNu64 "%n", r->name, &r->count, &end);
	if (end < 0 || p[end])
		print_error("bad %s payload: '%s'\n", r->event, p);
	assert_true(end >= 0 && !p[end]);
}

/*
 * One non-brief PERF line: exactly nine " | "-separated columns of the
 * documented widths (docs/targets.md, "Perf"), the process's depth (1
 * under a parent's SID), the payload after the dots.
 */
static void parse_perf_line(const char *line, int depth, struct rec *r)
{
	size_t n, dots = 0;
	char **f = t2_split(line, " | ", &n);
	const char *p;
	char d[16];

	if (n != 9)
		print_error("%zu columns: '%s'\n", n, line);
	assert_int_equal(n, 9);
	assert_int_equal(strlen(f[0]), 15 + 1 + 28);	/* time, location */
	snprintf(d, sizeof(d), "d%d", depth);
	assert_string_equal(f[1], d);
	assert_int_equal(strlen(f[2]), 24);
	assert_int_equal(strlen(f[3]), 12);
	assert_string_equal(f[4], "   ");
	assert_int_equal(strlen(f[5]), 9);
	assert_int_equal(strlen(f[6]), 9);
	assert_int_equal(strlen(f[7]), 12);
	copy_trimmed(r->thread, sizeof(r->thread), f[2]);
	copy_trimmed(r->event, sizeof(r->event), f[3]);
	copy_trimmed(r->cat, sizeof(r->cat), f[7]);
	for (p = f[8]; *p == '.'; p++)
		dots++;
	assert_int_equal(dots % 2, 0);
	r->nesting = (int)(dots / 2) + 1;
	if (!strcmp(r->event, "region_enter") || !strcmp(r->event, "region_leave")) {
		assert_memory_equal(p, "label:", 6);
		copy_field(r->label, sizeof(r->label), p + 6);
	} else if (!strcmp(r->event, "data")) {
		const char *colon = strchr(p, ':');

		assert_non_null(colon);
		snprintf(r->key, sizeof(r->key), "%.*s", (int)(colon - p), p);
		copy_field(r->value, sizeof(r->value), colon + 1);
	} else if (is_timer(r->event) || is_counter(r->event)) {
		parse_metric_payload(p, r);
	} else if (!strcmp(r->event, "thread_start") || !strcmp(r->event, "thread_exit")) {
		assert_string_equal(p, "");
	}
	t2_strv_free(f);
}

/*
 * One non-brief NORMAL line: time, location, padding to column 50, then
 * the payload (docs/targets.md, "Normal").
 */
static void parse_normal_line(const char *line, struct rec *r)
{
	regex_t rx;
	const char *p;
	int ok;

	assert_int_equal(regcomp(&rx, "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} [^ ]+:[0-9]+ +[^ ]",
				 REG_EXTENDED | REG_NOSUB), 0);
	ok = !regexec(&rx, line, 0, NULL, 0);
	regfree(&rx);
	if (!ok)
		print_error("bad NORMAL line: '%s'\n", line);
	assert_true(ok);
	assert_true(strlen(line) > 50);
	assert_int_equal(line[49], ' ');
	p = line + 50;
	sscanf(p, "%15s", r->event);
	p += strlen(r->event);
	if (is_timer(r->event) || is_counter(r->event)) {
		const char *slash = strchr(p, '/');
		char metric[128];

		assert_int_equal(*p, ' ');
		assert_non_null(slash);
		snprintf(r->cat, sizeof(r->cat), "%.*s", (int)(slash - p - 1), p + 1);
		/* "<cat>/<name> x" reads like the PERF payload "name:<name> x" */
		snprintf(metric, sizeof(metric), "name:%s", slash + 1);
		if (is_counter(r->event))
			assert_non_null(strstr(metric, " value:"));
		parse_metric_payload(metric, r);
	}
}

enum target { NORMAL, PERF, EVENT };

static struct recs parse_target(enum target t, const char *text, int depth)
{
	struct recs r = { NULL, 0, 0 };
	char sid[256] = "";
	size_t i, n;
	char **lines = t2_lines(text, &n);

	assert_true(n > 0);
	assert_int_equal(text[strlen(text) - 1], '\n');
	for (i = 0; i < n; i++) {
		struct rec *rec = recs_add(&r);

		if (t == EVENT)
			parse_event_line(lines[i], sid, sizeof(sid), rec);
		else if (t == PERF)
			parse_perf_line(lines[i], depth, rec);
		else
			parse_normal_line(lines[i], rec);
	}
	t2_strv_free(lines);
	return r;
}

/* ------------------------------------------------------------------ */
/* Checks.                                                              */
/* ------------------------------------------------------------------ */

static void expect_metric(const struct rec *r, const char *event, const char *name,
			  uint64_t count)
{
	if (strcmp(r->event, event) || strcmp(r->name, name) || r->count != count)
		print_error("expected %s test/%s %" PRIu64 ", got %s %s/%s %" PRIu64
			    " on '%s'\n", event, name, count, r->event, r->cat,
			    r->name, r->count, r->thread);
	assert_string_equal(r->event, event);
	assert_string_equal(r->cat, "test");
	assert_string_equal(r->name, name);
	assert_int_equal(r->count, count);
	if (is_timer(event)) {
		assert_true(r->min >= 0 && r->min <= r->max);
		assert_true(r->max <= r->total + 1e-9);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The multiset of values of all records named event equals want[0..n). */
static void expect_values(const struct recs *r, const char *event,
			  uint64_t *want, size_t n)
{
	uint64_t *got = calloc(r->nr + 1, sizeof(*got));
	size_t i, k = 0;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->v[i].event, event))
			got[k++] = r->v[i].count;
	assert_int_equal(k, n);
	qsort(got, k, sizeof(*got), cmp_u64);
	qsort(want, n, sizeof(*want), cmp_u64);
	assert_memory_equal(got, want, n * sizeof(*want));
	free(got);
}

/*
 * Valid for every target: one th_timer/th_counter per thread (workers
 * and main), and the totals at exit: timer intervals and counter values
 * exactly the sums, t_total the sum (up to rounding of the printed
 * values), t_min/t_max the extremes.  Ends with the main thread's
 * records in their order at exit: its th_timer and th_counter records,
 * then every timer and counter total by ascending id, then atexit.
 */
static void check_totals(const struct recs *r, const struct plan *plan)
{
	uint64_t want_i[MAX_WORKERS + 1], want_c[MAX_WORKERS + 1];
	uint64_t sum_i = MAIN_INTERVALS2, sum_c2 = MAIN_COUNTER2, sum_c1 = 0;
	uint64_t th_intervals = 0, th_count = 0;
	double th_total = 0, th_min = 1e300, th_max = 0;
	const struct rec *tail;
	size_t i;
	int w;

	for (w = 0; w < plan->n; w++) {
		want_i[w] = intervals2(w);
		want_c[w] = counter2(w);
		sum_i += intervals2(w);
		sum_c2 += counter2(w);
		sum_c1 += counter1(w);
	}
	want_i[plan->n] = MAIN_INTERVALS2;
	want_c[plan->n] = MAIN_COUNTER2;
	expect_values(r, "th_timer", want_i, (size_t)plan->n + 1);
	expect_values(r, "th_counter", want_c, (size_t)plan->n + 1);

	for (i = 0; i < r->nr; i++) {
		const struct rec *x = &r->v[i];

		if (!strcmp(x->event, "th_timer")) {
			assert_string_equal(x->name, "test2");
			th_intervals += x->count;
			th_total += x->total;
			th_min = x->min < th_min ? x->min : th_min;
			th_max = x->max > th_max ? x->max : th_max;
		} else if (!strcmp(x->event, "th_counter")) {
			assert_string_equal(x->name, "test2");
			th_count += x->count;
		}
	}
	assert_int_equal(th_intervals, sum_i);
	assert_int_equal(th_count, sum_c2);

	/* main: th_timer, th_counter, timer test1/test2, counter test1/test2, atexit */
	assert_true(r->nr >= 8);
	tail = &r->v[r->nr - 7];
	for (i = 0; i < 7; i++)
		if (*tail[i].thread)
			assert_string_equal(tail[i].thread, "main");
	expect_metric(&tail[0], "th_timer", "test2", MAIN_INTERVALS2);
	expect_metric(&tail[1], "th_counter", "test2", MAIN_COUNTER2);
	expect_metric(&tail[2], "timer", "test1", (uint64_t)plan->n);
	expect_metric(&tail[3], "timer", "test2", sum_i);
	expect_metric(&tail[4], "counter", "test1", sum_c1);
	expect_metric(&tail[5], "counter", "test2", sum_c2);
	assert_string_equal(tail[6].event, "atexit");
	assert_true(tail[3].total - th_total <= (double)(plan->n + 2) * 1e-6);
	assert_true(th_total - tail[3].total <= (double)(plan->n + 2) * 1e-6);
	assert_true(tail[3].min == th_min);
	assert_true(tail[3].max == th_max);
	assert_string_equal(r->v[0].event, "version");
}

/* The k-th record a worker writes (after its "worker" data record). */
struct step {
	const char *event;
	int nesting;		/* -1: no region nesting to compare */
	const char *label;
	const char *key;
	int value;
};

static struct step worker_step(size_t k, int rounds)
{
	static const struct step round[7] = {
		{ "region_enter", 1, "l1", NULL, 0 },
		{ "region_enter", 2, "l2", NULL, 0 },
		{ "region_enter", 3, "l3", NULL, 0 },
		{ "data", 4, NULL, "round", 0 },
		{ "region_leave", 3, "l3", NULL, 0 },
		{ "region_leave", 2, "l2", NULL, 0 },
		{ "region_leave", 1, "l1", NULL, 0 },
	};
	static const struct step tail[3] = {
		{ "th_timer", -1, NULL, NULL, 0 },
		{ "th_counter", -1, NULL, NULL, 0 },
		{ "thread_exit", -1, NULL, NULL, 0 },
	};
	struct step s = { NULL, -1, NULL, NULL, 0 };

	if (k == 0)
		s.event = "thread_start";
	else if (k == 1)
		s = (struct step){ "data", 1, NULL, "worker", -1 };
	else if (k < 2 + 7 * (size_t)rounds) {
		s = round[(k - 2) % 7];
		s.value = (int)((k - 2) / 7);
	} else if (k < 2 + 7 * (size_t)rounds + 3)
		s = tail[k - 2 - 7 * (size_t)rounds];
	return s;
}

struct thread_state {
	char name[64];
	int worker;
	int id;
	int rounds;
	size_t next;
};

static void check_step(struct thread_state *t, const struct rec *r)
{
	struct step s = worker_step(t->next++, t->rounds);

	if (!s.event || strcmp(r->event, s.event))
		print_error("thread '%s' record %zu: expected %s, got %s\n",
			    t->name, t->next - 1, s.event ? s.event : "nothing", r->event);
	assert_non_null(s.event);
	assert_string_equal(r->event, s.event);
	if (s.nesting >= 0)
		assert_int_equal(r->nesting, s.nesting);
	else if (r->nesting >= 0)
		assert_int_equal(r->nesting, 1);	/* PERF: no dots */
	if (s.label)
		assert_string_equal(r->label, s.label);
	if (s.key) {
		char v[32];

		assert_string_equal(r->key, s.key);
		if (s.value < 0) {
			t->worker = atoi(r->value);
			assert_true(t->worker >= 0 && t->worker < MAX_WORKERS);
		} else {
			snprintf(v, sizeof(v), "%d", s.value);
			assert_string_equal(r->value, v);
		}
	}
	if (!strcmp(s.event, "th_timer"))
		expect_metric(r, "th_timer", "test2", intervals2(t->worker));
	if (!strcmp(s.event, "th_counter"))
		expect_metric(r, "th_counter", "test2", counter2(t->worker));
}

/* The state of the thread named name, added if new (t holds *nt). */
static size_t thread_slot(struct thread_state *t, size_t *nt, const char *name,
			  const struct plan *plan)
{
	size_t j;

	for (j = 0; j < *nt && strcmp(t[j].name, name); j++)
		;
	if (j == *nt) {
		assert_true(*nt < (size_t)plan->n);
		snprintf(t[j].name, sizeof(t[j].name), "%s", name);
		t[j].worker = -1;
		t[j].rounds = plan->rounds;
		t[j].next = 0;
		assert_int_equal(sscanf(name, "th%d:", &t[j].id), 1);
		(*nt)++;
	}
	return j;
}

/*
 * EVENT and PERF: every worker's records, in file order, follow exactly
 * the worker's program order; names are "thNN:<base><i>" cut to 24
 * bytes with distinct ids 1..n; main writes nothing until its exit
 * records, which come after every worker's records.
 */
static void check_threads(const struct recs *r, const struct plan *plan)
{
	struct thread_state t[MAX_WORKERS];
	int seen_worker[MAX_WORKERS] = { 0 }, seen_id[MAX_WORKERS + 1] = { 0 };
	size_t nt = 0, i, j, main_recs = 0;

	for (i = 0; i < r->nr; i++) {
		const struct rec *x = &r->v[i];

		if (!strcmp(x->thread, "main")) {
			main_recs++;
			continue;
		}
		/* the main thread's exit records (7 + version) close the file */
		assert_int_equal(main_recs, 1);
		check_step(&t[thread_slot(t, &nt, x->thread, plan)], x);
	}
	assert_int_equal(main_recs, 8);
	assert_int_equal(nt, (size_t)plan->n);
	for (j = 0; j < nt; j++) {
		char full[256];

		/* complete: thread_exit was the last record */
		assert_int_equal(t[j].next, records_per_worker(plan));
		assert_true(t[j].id >= 1 && t[j].id <= plan->n);
		assert_false(seen_id[t[j].id]);
		seen_id[t[j].id] = 1;
		assert_false(seen_worker[t[j].worker]);
		seen_worker[t[j].worker] = 1;
		snprintf(full, sizeof(full), "th%02d:%s%d", t[j].id, plan->base, t[j].worker);
		full[NAME_MAX_BYTES] = '\0';
		assert_string_equal(t[j].name, full);
	}
}

/* The workers' run checked whole, with env; root: the sampled tree's
 * root, which every SID must be under (the first line's is every
 * line's), or NULL. */
static void run_workers_in(const struct plan *plan, const char *const *env, const char *root)
{
	struct t2_out out;
	struct recs normal, perf, event;
	const size_t per_worker = records_per_worker(plan);

	t2_run_all_raw(sc_workers, (void *)plan, env, &out);
	assert_int_equal(out.status, 0);
	if (root) {
		char *head = t2_xfmt("{\"event\":\"version\",\"sid\":\"%s/", root);

		assert_memory_equal(out.event, head, strlen(head));
		free(head);
	}

	event = parse_target(EVENT, out.event, root != NULL);
	perf = parse_target(PERF, out.perf, root != NULL);
	normal = parse_target(NORMAL, out.normal, root != NULL);
	/* nothing lost or invented: version, workers, main's exit records */
	assert_int_equal(event.nr, 1 + per_worker * (size_t)plan->n + 7);
	assert_int_equal(perf.nr, 1 + per_worker * (size_t)plan->n + 7);
	assert_int_equal(normal.nr, 1 + 2 * ((size_t)plan->n + 1) + 5);

	check_threads(&event, plan);
	check_threads(&perf, plan);
	check_totals(&event, plan);
	check_totals(&perf, plan);
	check_totals(&normal, plan);

	free(event.v);
	free(perf.v);
	free(normal.v);
	t2_out_free(&out);
}

static void run_workers(const struct plan *plan)
{
	static const char *const env[] = { "GIT_TRACE2_EVENT_NESTING=4", NULL };

	run_workers_in(plan, env, NULL);
}

static void threads_2(void **state)
{
	static const struct plan plan = { 2, "w", ROUNDS, 0 };

	(void)state;
	run_workers(&plan);
}

static void threads_8(void **state)
{
	static const struct plan plan = { 8, "w", ROUNDS, 0 };

	(void)state;
	run_workers(&plan);
}

static void threads_32(void **state)
{
	static const struct plan plan = { 32, "w", ROUNDS, 0 };

	(void)state;
	run_workers(&plan);
}

static void threads_64(void **state)
{
	static const struct plan plan = { 64, "w", ROUNDS, 0 };

	(void)state;
	run_workers(&plan);
}

/* "th01:a_very_long_thread_" for every worker: only the id differs. */
static void threads_long_names_truncated(void **state)
{
	static const struct plan plan = { 16, "a_very_long_thread_base_name_", ROUNDS, 0 };

	(void)state;
	run_workers(&plan);
}

/* ------------------------------------------------------------------ */
/* Runs that write nothing.                                             */
/* ------------------------------------------------------------------ */

/* Workers at full speed (sanitizers: a tenth as many rounds); for the
 * flight recorder into rings small enough to overwrite most of their
 * records. */
#define FLIGHT_ROUNDS (UNDER_SANITIZER ? 2000 : 20000)
#define FLIGHT_WORKERS 8
static const char *const flight_env[] = {
	"GIT_TRACE2_FLIGHT=16k", "GIT_TRACE2_EVENT_NESTING=4", NULL
};

/* The workers' run with env: status 0, no target wrote anything. */
static void assert_nothing_written(const struct plan *plan, const char *const *env)
{
	struct t2_out out;

	t2_run_all_raw(sc_workers, (void *)plan, env, &out);
	assert_int_equal(out.status, 0);
	assert_string_equal(out.normal, "");
	assert_string_equal(out.perf, "");
	assert_string_equal(out.event, "");
	t2_out_free(&out);
}

/* ------------------------------------------------------------------ */
/* Sampling by command tree (docs/configuration.md, "Sampling").        */
/* ------------------------------------------------------------------ */

/* Under a root the rate keeps: every check of the plain run, the SID
 * under the root (no trace2/sample record: no trace2_cmd_start()). */
static void threads_sampled_kept(void **state)
{
	static const struct plan plan = { 8, "w", ROUNDS, 0 };
	static const char *const env[] = {
		"GIT_TRACE2_EVENT_NESTING=4", "GIT_TRACE2_SAMPLE=" T2_SAMPLE_RATE,
		"GIT_TRACE2_PARENT_SID=" T2_ROOT_KEPT, NULL
	};

	(void)state;
	run_workers_in(&plan, env, T2_ROOT_KEPT);
}

/* Under a root the rate drops: nothing written, the exit status as ever
 * (the workers at full speed, as the flight recorder's). */
static void threads_sampled_out(void **state)
{
	static const struct plan plan = { 8, "w", FLIGHT_ROUNDS, 0 };
	static const char *const env[] = {
		"GIT_TRACE2_SAMPLE=" T2_SAMPLE_RATE, "GIT_TRACE2_PARENT_SID=" T2_ROOT_OUT, NULL
	};

	(void)state;
	assert_nothing_written(&plan, env);
}

/* ------------------------------------------------------------------ */
/* The flight recorder (docs/configuration.md, "Flight recorder").      */
/* ------------------------------------------------------------------ */

/* The flight recorder's count of a thread's records lost. */
static int is_overwritten(const struct rec *r)
{
	return !strcmp(r->event, "data") && !strcmp(r->key, "overwritten");
}

/*
 * EVENT and PERF of a dump at exit: per worker, the records written (the
 * count aside) + the count = the records made, some overwritten; what is
 * written, in file order, its thread_start, then the last of its records
 * in program order (a suffix of the worker's program: th_timer and
 * th_counter with the worker's values, named by the thread's name); one
 * trace2/flight record "exit", on main.
 */
static void check_flight_dump(const struct recs *r, const struct plan *plan)
{
	struct thread_state t[MAX_WORKERS];
	size_t written[MAX_WORKERS] = { 0 }, nt = 0, i, j, reasons = 0;
	uint64_t lost[MAX_WORKERS] = { 0 };

	for (i = 0; i < r->nr; i++) {
		const struct rec *x = &r->v[i];

		if (!strcmp(x->thread, "main")) {
			reasons += !strcmp(x->key, "flight") && !strcmp(x->value, "exit");
			continue;
		}
		j = thread_slot(t, &nt, x->thread, plan);
		if (is_overwritten(x))
			lost[j] += strtoull(x->value, NULL, 10);
		else
			written[j]++;
	}
	assert_int_equal(reasons, 1);
	assert_int_equal(nt, (size_t)plan->n);
	for (j = 0; j < nt; j++) {
		print_message("%s: %zu written, %" PRIu64 " overwritten\n", t[j].name,
			      written[j], lost[j]);
		assert_true(lost[j] > 0);
		assert_int_equal(written[j] + lost[j], records_per_worker(plan));
		assert_int_equal(sscanf(t[j].name, "th%*d:w%d", &t[j].worker), 1);
	}
	for (i = 0; i < r->nr; i++) {
		const struct rec *x = &r->v[i];

		if (!strcmp(x->thread, "main") || is_overwritten(x))
			continue;
		j = thread_slot(t, &nt, x->thread, plan);
		check_step(&t[j], x);
		if (t[j].next == 1)	/* after thread_start, what was not overwritten */
			t[j].next += lost[j];
	}
	for (j = 0; j < nt; j++)
		assert_int_equal(t[j].next, records_per_worker(plan));
}

/* Threads at full speed, then exit code 1: a whole log of each thread's
 * last records, the losses told exactly; the process's totals as without
 * the flight recorder (they are not records of a ring). */
static void flight_dump_at_exit(void **state)
{
	static const struct plan plan = { FLIGHT_WORKERS, "w", FLIGHT_ROUNDS, 1 };
	struct t2_out out;
	struct recs perf, event;
	char *dir = t2_tmpdir(), *path = t2_path(dir, "flight.event");

	(void)state;
	t2_run_all_raw(sc_workers, (void *)&plan, flight_env, &out);
	assert_int_equal(out.status, 0);
	event = parse_target(EVENT, out.event, 0);
	perf = parse_target(PERF, out.perf, 0);
	check_flight_dump(&event, &plan);
	check_flight_dump(&perf, &plan);
	check_totals(&event, &plan);
	check_totals(&perf, &plan);
	assert_int_equal(t2_write_file(path, out.event), 0);
	assert_true(t2_log_whole(path, 0));
	free(event.v);
	free(perf.v);
	t2_out_free(&out);
	t2_rmtree(dir);
	free(dir);
	free(path);
}

/* The same with exit code 0: nothing written, the exit status as ever. */
static void flight_quiet_writes_nothing(void **state)
{
	static const struct plan plan = { FLIGHT_WORKERS, "w", FLIGHT_ROUNDS, 0 };

	(void)state;
	assert_nothing_written(&plan, flight_env);
}

/* ------------------------------------------------------------------ */
/* Threads without trace2_thread_start() or trace2_thread_exit().       */
/* ------------------------------------------------------------------ */

/* Started, traces, ends without trace2_thread_exit(): not in the totals. */
static void *orphan_started(void *arg)
{
	(void)arg;
	trace2_thread_start("early");
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 1000);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 1000);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_data_intmax("t", NULL, "a", 1);
	return NULL;
}

/* Never started, never exited: "unknown", no thread records, no totals. */
static void *orphan_unknown(void *arg)
{
	(void)arg;
	trace2_data_intmax("t", NULL, "b", 2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 200);
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_region_enter("t", "r", NULL);
	trace2_region_leave("t", "r", NULL);
	return NULL;
}

/*
 * Never started but exited: "unknown" with th_counter and thread_exit,
 * merged into the totals.  A later call gets a fresh "unknown" context
 * (docs/api.md, "Threads"), whose counter is lost again.
 */
static void *orphan_unknown_exits(void *arg)
{
	(void)arg;
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 30);
	trace2_thread_exit();
	trace2_data_intmax("t", NULL, "c", 3);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 4000);
	return NULL;
}

static void *orphan_regular(void *arg)
{
	(void)arg;
	trace2_thread_start("late");
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 4);
	trace2_thread_exit();
	return NULL;
}

/* One thread after the other, so the ids are known. */
static void sc_orphans(void *arg)
{
	static void *(*const fns[])(void *) = {
		orphan_started, orphan_unknown, orphan_unknown_exits, orphan_regular,
	};
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, fns[i], NULL))
			exit(3);
		pthread_join(th, NULL);
	}
}

static void threads_without_start_or_exit(void **state)
{
	static const char *const brief[] = {
		"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1", "GIT_TRACE2_EVENT_BRIEF=1", NULL
	};
	struct t2_out out;
	char *perf = NULL;

	(void)state;
	t2_run_all(sc_orphans, NULL, brief, &out);
	assert_int_equal(out.status, 0);

	assert_string_equal(out.normal,
			    "version " TRACE2_VERSION_STRING "\n"
			    "th_counter test/test2 value:30\n"
			    "th_counter test/test2 value:4\n"
			    "counter test/test2 value:34\n"
			    "atexit elapsed:0.000000 code:0\n");

	t2_perf_brief(&perf, "main", "version", 0, 0, "", TRACE2_VERSION_STRING);
	t2_perf_brief(&perf, "th01:early", "thread_start", 1, 0, "", "");
	t2_perf_brief(&perf, "th01:early", "data", 1, 1, "t", "a:1");
	t2_perf_brief(&perf, "th02:unknown", "data", 1, 1, "t", "b:2");
	t2_perf_brief(&perf, "th02:unknown", "region_enter", 1, 0, "t", "label:r");
	t2_perf_brief(&perf, "th02:unknown", "region_leave", 1, 1, "t", "label:r");
	t2_perf_brief(&perf, "th03:unknown", "th_counter", 0, 0, "test", "name:test2 value:30");
	t2_perf_brief(&perf, "th03:unknown", "thread_exit", 1, 1, "", "");
	t2_perf_brief(&perf, "th04:unknown", "data", 1, 1, "t", "c:3");
	t2_perf_brief(&perf, "th05:late", "thread_start", 1, 0, "", "");
	t2_perf_brief(&perf, "th05:late", "th_counter", 0, 0, "test", "name:test2 value:4");
	t2_perf_brief(&perf, "th05:late", "thread_exit", 1, 1, "", "");
	t2_perf_brief(&perf, "main", "counter", 0, 0, "test", "name:test2 value:34");
	t2_perf_brief(&perf, "main", "atexit", 1, 0, "", "code:0");
	assert_string_equal(out.perf, perf);
	free(perf);

#define EV(ev, thread) "{\"event\":\"" ev "\",\"sid\":\"SID\",\"thread\":\"" thread "\""
	assert_string_equal(out.event,
			    EV("version", "main") ",\"time\":\"2000-01-01T00:00:00.000000Z\",\"evt\":\"4\",\"exe\":\"" TRACE2_VERSION_STRING "\"}\n"
			    EV("thread_start", "th01:early") "}\n"
			    EV("data", "th01:early") ",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"t\",\"key\":\"a\",\"value\":\"1\"}\n"
			    EV("data", "th02:unknown") ",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"t\",\"key\":\"b\",\"value\":\"2\"}\n"
			    EV("region_enter", "th02:unknown") ",\"nesting\":1,\"category\":\"t\",\"label\":\"r\"}\n"
			    EV("region_leave", "th02:unknown") ",\"t_rel\":0.000000,\"nesting\":1,\"category\":\"t\",\"label\":\"r\"}\n"
			    EV("th_counter", "th03:unknown") ",\"category\":\"test\",\"name\":\"test2\",\"count\":30}\n"
			    EV("thread_exit", "th03:unknown") ",\"t_rel\":0.000000}\n"
			    EV("data", "th04:unknown") ",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"t\",\"key\":\"c\",\"value\":\"3\"}\n"
			    EV("thread_start", "th05:late") "}\n"
			    EV("th_counter", "th05:late") ",\"category\":\"test\",\"name\":\"test2\",\"count\":4}\n"
			    EV("thread_exit", "th05:late") ",\"t_rel\":0.000000}\n"
			    EV("counter", "main") ",\"category\":\"test\",\"name\":\"test2\",\"count\":34}\n"
			    EV("atexit", "main") ",\"time\":\"2000-01-01T00:00:00.000000Z\",\"t_abs\":0.000000,\"code\":0}\n");
#undef EV
	t2_out_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(threads_2),
		cmocka_unit_test(threads_8),
		cmocka_unit_test(threads_32),
		cmocka_unit_test(threads_64),
		cmocka_unit_test(threads_long_names_truncated),
		cmocka_unit_test(threads_without_start_or_exit),
		cmocka_unit_test(threads_sampled_kept),
		cmocka_unit_test(threads_sampled_out),
		cmocka_unit_test(flight_dump_at_exit),
		cmocka_unit_test(flight_quiet_writes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
