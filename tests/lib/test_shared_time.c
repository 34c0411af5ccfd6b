/*
 * One clock reading and one formatting of each time string per event,
 * however many targets write it.  The Makefile links this test with
 * --wrap for clock_gettime() and the library's local and UTC time
 * formatters, so every call the library makes to them is counted; the
 * times the targets printed for the same event are then compared.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "t2test.h"
#include "tjson.h"
#include "tr2_clock.h"
#include "trace2.h"

/* Every reading a clock_gettime() call (not the TSC: test_clock.c). */
#define MONOTONIC "GIT_TRACE2_CLOCK=monotonic"
#define PAIRS 500
#define PRINTFS 300
/* the events the scenario counts (its warm-up printf is not one) */
#define EVENTS (2 * PAIRS + PRINTFS)

struct counts {
	long clock, local, utc;
};

/* Live counters and the scenario's deltas, shared with the forked child
 * (MAP_SHARED) between setup() and teardown(). */
struct shared {
	struct counts now, delta;
};
static struct shared unshared;
static struct shared *shared = &unshared;

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);
void __real_tr2_fmt_local_time(struct tr2_time_cache *c, uint64_t us, char *out);
void __wrap_tr2_fmt_local_time(struct tr2_time_cache *c, uint64_t us, char *out);
void __real_tr2_fmt_utc_time(struct tr2_time_cache *c, uint64_t us, char *out);
void __wrap_tr2_fmt_utc_time(struct tr2_time_cache *c, uint64_t us, char *out);

static void count(long *n)
{
	__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	count(&shared->now.clock);
	return __real_clock_gettime(id, ts);
}

void __wrap_tr2_fmt_local_time(struct tr2_time_cache *c, uint64_t us, char *out)
{
	count(&shared->now.local);
	__real_tr2_fmt_local_time(c, us, out);
}

void __wrap_tr2_fmt_utc_time(struct tr2_time_cache *c, uint64_t us, char *out)
{
	count(&shared->now.utc);
	__real_tr2_fmt_utc_time(c, us, out);
}

static int setup(void **state)
{
	(void)state;
	void *p = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	shared = p;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(shared, sizeof(*shared));
	shared = &unshared;
	return 0;
}

/* PAIRS region pairs and PRINTFS trace2_printf()s, after one event that
 * sets up the thread's context and time caches. */
static void sc_events(void *arg)
{
	struct counts before;
	int i;

	(void)arg;
	trace2_printf("warm-up");
	before = shared->now;
	for (i = 0; i < PAIRS; i++) {
		trace2_region_enter("cat", "label", NULL);
		trace2_region_leave("cat", "label", NULL);
	}
	for (i = 0; i < PRINTFS; i++)
		trace2_printf("p%d", i);
	shared->delta.clock = shared->now.clock - before.clock;
	shared->delta.local = shared->now.local - before.local;
	shared->delta.utc = shared->now.utc - before.utc;
}

static struct counts run_counted(const char *const *env)
{
	memset(shared, 0, sizeof(*shared));
	assert_int_equal(t2_run(sc_events, NULL, env), 0);
	return shared->delta;
}

static void assert_counts(struct counts got, long clock, long local, long utc)
{
	assert_int_equal(got.clock, clock);
	assert_int_equal(got.local, local);
	assert_int_equal(got.utc, utc);
}

/* The lines of text that contain needle, in order. */
static char **lines_with(const char *text, const char *needle, size_t *n)
{
	char **v = t2_lines(text, NULL);
	size_t i, k = 0;

	for (i = 0; v[i]; i++) {
		if (strstr(v[i], needle))
			v[k++] = v[i];
		else
			free(v[i]);
	}
	v[k] = NULL;
	*n = k;
	return v;
}

/* The text of a JSON number member as written ("" if absent). */
static void number_text(const struct tjson *v, const char *key, char *out)
{
	const struct tjson *n = tjson_get(v, key);

	assert_true(!n || n->type == TJSON_NUMBER);
	snprintf(out, 32, "%s", n ? n->text : "");
}

/* An event record's time of day ("HH:MM:SS.uuuuuu" of its UTC "time",
 * as TZ=UTC makes the local times), t_abs and t_rel. */
static void event_times(const char *line, char *tod, char *t_abs, char *t_rel)
{
	struct tjson *v = tjson_parse(line, strlen(line), NULL);
	const char *time;

	assert_non_null(v);
	time = tjson_get_str(v, "time");
	assert_non_null(time);
	assert_int_equal(strlen(time), 27);
	memcpy(tod, time + 11, 15);
	tod[15] = '\0';
	number_text(v, "t_abs", t_abs);
	number_text(v, "t_rel", t_rel);
	tjson_free(v);
}

/* A perf line's column after its k-th '|', without the padding. */
static void perf_column(const char *line, int k, char *out)
{
	const char *p = line;

	while (k--) {
		p = strchr(p, '|');
		assert_non_null(p);
		p++;
	}
	if (sscanf(p, " %31[^| ]", out) != 1)
		out[0] = '\0';
}

/*
 * The records of the scenario, in order: the warm-up printf, the region
 * records (not in the normal target), the printfs.  The normal target's
 * record of perf record i, or -1 if it has none.
 */
static long normal_index(size_t i)
{
	if (i == 0)
		return 0;
	return i > 2 * PAIRS ? (long)(i - 2 * PAIRS) : -1;
}

static void all_targets_share_one_reading(void **state)
{
	static const char *const env[] = { "TZ=UTC", MONOTONIC, NULL };
	const size_t events = 1 + EVENTS;
	struct t2_out out;
	char **normal, **perf, **event;
	size_t n_normal, n_perf, n_event, i;

	(void)state;
	t2_run_all_raw(sc_events, NULL, env, &out);
	assert_int_equal(out.status, 0);
	/* every printf's local time is formatted once for normal and perf */
	assert_counts(shared->delta, EVENTS, EVENTS, EVENTS);

	normal = lines_with(out.normal, "test_shared_time.c", &n_normal);
	perf = lines_with(out.perf, "test_shared_time.c", &n_perf);
	event = lines_with(out.event, "test_shared_time.c", &n_event);
	assert_int_equal(n_normal, 1 + PRINTFS);
	assert_int_equal(n_perf, events);
	assert_int_equal(n_event, events);
	for (i = 0; i < events; i++) {
		char tod[16], ev_abs[32], ev_rel[32], pf_abs[32], pf_rel[32];

		event_times(event[i], tod, ev_abs, ev_rel);
		assert_memory_equal(perf[i], tod, 15);
		/* the event target has no t_abs for regions, perf no t_rel
		 * for printf: compare what both wrote */
		perf_column(perf[i], 5, pf_abs);
		perf_column(perf[i], 6, pf_rel);
		if (ev_abs[0])
			assert_string_equal(pf_abs, ev_abs);
		if (ev_rel[0])
			assert_string_equal(pf_rel, ev_rel);
		if (normal_index(i) >= 0)
			assert_memory_equal(normal[normal_index(i)], tod, 15);
	}
	t2_strv_free(normal);
	t2_strv_free(perf);
	t2_strv_free(event);
	t2_out_free(&out);
}

static void one_target_formats_only_its_time(void **state)
{
	static const char *const event_only[] = { "GIT_TRACE2_EVENT=/dev/null", MONOTONIC, NULL };
	static const char *const perf_only[] = { "GIT_TRACE2_PERF=/dev/null", MONOTONIC, NULL };
	static const char *const normal_only[] = { "GIT_TRACE2=/dev/null", MONOTONIC, NULL };

	(void)state;
	assert_counts(run_counted(event_only), EVENTS, 0, EVENTS);
	assert_counts(run_counted(perf_only), EVENTS, EVENTS, 0);
	/* the normal target writes no region records, so it formats no
	 * time for them */
	assert_counts(run_counted(normal_only), EVENTS, PRINTFS, 0);
}

static void buffered_mode_reads_no_more(void **state)
{
	static const char *const env[] = {
		"GIT_TRACE2_PERF=/dev/null", "GIT_TRACE2_EVENT=/dev/null",
		"GIT_TRACE2_BUFFER=64k", MONOTONIC, NULL
	};

	(void)state;
	assert_counts(run_counted(env), EVENTS, EVENTS, EVENTS);
}

static void tracing_off_reads_no_clock(void **state)
{
	static const char *const env[] = { MONOTONIC, NULL };

	(void)state;
	assert_counts(run_counted(env), 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(all_targets_share_one_reading),
		cmocka_unit_test(one_target_formats_only_its_time),
		cmocka_unit_test(buffered_mode_reads_no_more),
		cmocka_unit_test(tracing_off_reads_no_clock),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
