/*
 * The TSC clock (docs/performance.md, "Clock"): where the kernel's
 * clocksource is the TSC and the CPU has constant_tsc and nonstop_tsc,
 * tr2_now_ns() reads the TSC and gives CLOCK_MONOTONIC plus the wall
 * offset within 1 us, never going back, in every thread; elsewhere, or
 * with GIT_TRACE2_CLOCK=monotonic / trace2.clock=monotonic, each reading
 * is a clock_gettime() call.  The Makefile links this test with --wrap
 * for clock_gettime(), so the library's calls are counted; the test's
 * own readings call the real one; it also makes the library's
 * CLOCK_MONOTONIC slew as NTP does, to show the TSC clock follows it.
 * T2_CLOCK_SECONDS sets how long the two threaded runs last together
 * (2 s by default; `make check-long`: 10 minutes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "t2test.h"
#include "tr2_clock.h"
#include "trace2.h"

#define THREADS 4

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

static long library_calls;

/*
 * A slewed CLOCK_MONOTONIC, as NTP makes it: while slew_ppm is set, the
 * library's clock_gettime() runs that many ppm fast for 100 ms, then as
 * many slow for 100 ms, and so on.
 */
#define SLEW_PERIOD_NS 100000000u
static uint64_t slew_ppm;
static uint64_t slew_start;

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static uint64_t slewed(uint64_t real)
{
	uint64_t d = real - slew_start, rem = d % SLEW_PERIOD_NS;

	if ((d / SLEW_PERIOD_NS) % 2)
		rem = SLEW_PERIOD_NS - rem;
	return real + rem * slew_ppm / 1000000;
}

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	int r = __real_clock_gettime(id, ts);
	uint64_t ns;

	__atomic_add_fetch(&library_calls, 1, __ATOMIC_RELAXED);
	if (!r && id == CLOCK_MONOTONIC && slew_ppm) {
		ns = slewed(ns_of(ts));
		ts->tv_sec = (time_t)(ns / 1000000000u);
		ts->tv_nsec = (long)(ns % 1000000000u);
	}
	return r;
}

/* CLOCK_MONOTONIC as the library sees it, read without counting. */
static uint64_t real_mono_ns(void)
{
	struct timespec ts;

	__real_clock_gettime(CLOCK_MONOTONIC, &ts);
	return slew_ppm ? slewed(ns_of(&ts)) : ns_of(&ts);
}

/* ------------------------------------------------------------------ */
/* Where the TSC may be used: read here, apart from the library.        */
/* ------------------------------------------------------------------ */

/* NULL where the TSC clock should be on, else why not. */
static const char *tsc_unavailable(void)
{
#if TR2_HAVE_TSC_CLOCK
	static char why_not[256];
	char *src = t2_read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
				 NULL);
	char *cpu = t2_read_file("/proc/cpuinfo", NULL);
	char *flags = cpu ? strstr(cpu, "\nflags") : NULL;
	const char *reason = NULL;

	if (flags)
		flags[strcspn(flags + 1, "\n") + 1] = '\0';
	if (!src || strcmp(src, "tsc\n")) {
		snprintf(why_not, sizeof(why_not), "the kernel's clocksource is %s",
			 src ? src : "unknown");
		reason = why_not;
	} else if (!flags || !strstr(flags, " constant_tsc") || !strstr(flags, " nonstop_tsc")) {
		reason = "no constant_tsc and nonstop_tsc in /proc/cpuinfo's flags";
	}
	free(src);
	free(cpu);
	return reason;
#else
	return "the library is built without the TSC clock (TR2_HAVE_TSC_CLOCK 0)";
#endif
}

/* ------------------------------------------------------------------ */
/* Scenarios (forked children, trace2 initialized with the event target */
/* to /dev/null).                                                       */
/* ------------------------------------------------------------------ */

/* Read the clock until the library switches to the TSC (it measures the
 * TSC's rate over the first 10 ms) or a second has passed. */
static int wait_for_tsc(void)
{
	uint64_t until = real_mono_ns() + 1000000000u;

	while (!tr2_clock_is_tsc() && real_mono_ns() < until)
		tr2_now_ns();
	return tr2_clock_is_tsc();
}

/* n readings; how many clock_gettime() calls the library made. */
static long calls_for(long n)
{
	long before = __atomic_load_n(&library_calls, __ATOMIC_RELAXED), i;

	for (i = 0; i < n; i++)
		tr2_now_ns();
	return __atomic_load_n(&library_calls, __ATOMIC_RELAXED) - before;
}

static void sc_tsc_taken(void *arg)
{
	long calls;

	(void)arg;
	CHECK(wait_for_tsc());
	/* a re-anchoring (four calls) every few ms, whatever the speed of
	 * the readings (~20 ns; ~300 ns under TSan) */
	calls = calls_for(3000000);
	fprintf(stderr, "clock_gettime() calls for 3000000 readings: %ld\n", calls);
	CHECK(calls < 3000000 / 100);
}

static void sc_no_tsc(void *arg)
{
	(void)arg;
	CHECK(!wait_for_tsc());
	CHECK(calls_for(10000) == 10000);
}

/* The monotonic setting: every reading is CLOCK_MONOTONIC plus the
 * offset, read by one clock_gettime(), also well after the 10 ms the
 * TSC would need. */
static void check_monotonic_readings(void)
{
	uint64_t offset = tr2_clock_offset_ns(), until = real_mono_ns() + 50000000u;
	long i;

	while (real_mono_ns() < until)
		tr2_now_ns();
	CHECK(!tr2_clock_is_tsc());
	CHECK(calls_for(10000) == 10000);
	for (i = 0; i < 10000; i++) {
		uint64_t before = real_mono_ns() + offset;
		uint64_t t = tr2_now_ns();

		CHECK(before <= t && t <= real_mono_ns() + offset);
	}
}

static void sc_monotonic(void *arg)
{
	(void)arg;
	check_monotonic_readings();
}

static void sc_monotonic_config(void *arg)
{
	(void)arg;
	CHECK(trace2_config_set("trace2.clock", "monotonic") == 0);
	trace2_initialize();
	check_monotonic_readings();
}

/* A threaded run: CLOCK_MONOTONIC slewed by ppm (0: not), readings
 * within slack_ns of it. */
struct kind {
	const char *name;
	uint64_t ppm, slack_ns;
};

struct run {
	const struct kind *kind;
	uint64_t until;       /* monotonic ns */
	uint64_t offset;
	uint64_t last_shared; /* the highest reading any thread published */
	int failed;
};

struct worst {
	long readings;
	uint64_t early, late; /* most ns before mono_before, after mono_after */
};

static void report(const char *what, uint64_t a, uint64_t b)
{
	fprintf(stderr, "%s: %llu then %llu\n", what, (unsigned long long)a,
		(unsigned long long)b);
}

/* Raise r->last_shared to t; the release pairs with the next reader's
 * acquire, so its reading happens after this one. */
static void publish_reading(struct run *r, uint64_t t)
{
	uint64_t seen = __atomic_load_n(&r->last_shared, __ATOMIC_RELAXED);

	while (seen < t && !__atomic_compare_exchange_n(&r->last_shared, &seen, t, 1,
							 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

/* One reading: bracketed by CLOCK_MONOTONIC, not before this thread's
 * last one nor before the highest one published before it. */
static int check_one(struct run *r, uint64_t *last, struct worst *w)
{
	uint64_t shared = __atomic_load_n(&r->last_shared, __ATOMIC_ACQUIRE);
	uint64_t before = real_mono_ns() + r->offset;
	uint64_t t = tr2_now_ns();
	uint64_t after = real_mono_ns() + r->offset;

	w->readings++;
	if (t < *last)
		return report("went back in a thread", *last, t), 0;
	if (t < shared)
		return report("went back after another thread's reading", shared, t), 0;
	if (t + r->kind->slack_ns < before)
		return report("too far before CLOCK_MONOTONIC", before, t), 0;
	if (t > after + r->kind->slack_ns)
		return report("too far after CLOCK_MONOTONIC", after, t), 0;
	if (before > t && before - t > w->early)
		w->early = before - t;
	if (t > after && t - after > w->late)
		w->late = t - after;
	*last = t;
	if ((w->readings & 63) == 0)
		publish_reading(r, t);
	return 1;
}

static void *reader(void *arg)
{
	struct run *r = arg;
	struct worst *w = calloc(1, sizeof(*w));
	uint64_t last = 0;

	CHECK(w);
	while (real_mono_ns() < r->until && !__atomic_load_n(&r->failed, __ATOMIC_RELAXED)) {
		if (!check_one(r, &last, w)) {
			__atomic_store_n(&r->failed, 1, __ATOMIC_RELAXED);
			break;
		}
		/* sleep now and then: idle gaps past a block's end too */
		if ((w->readings & 0xfffff) == 0)
			nanosleep(&(struct timespec){ 0, 30000000 }, NULL);
	}
	return w;
}

/* A threaded run of the struct kind arg, for a third of
 * T2_CLOCK_SECONDS; slewing starts before initialize. */
static void sc_threads(void *arg)
{
	struct run r = { .kind = arg };
	const char *s = getenv("T2_CLOCK_SECONDS");
	double seconds = (s ? atof(s) : 2) / 3;
	pthread_t th[THREADS];
	long total = 0;
	uint64_t early = 0, late = 0;
	long calls;
	int i;

	slew_start = real_mono_ns();
	slew_ppm = r.kind->ppm;
	trace2_initialize();
	r.offset = tr2_clock_offset_ns();
	CHECK(wait_for_tsc());
	calls = __atomic_load_n(&library_calls, __ATOMIC_RELAXED);
	r.until = real_mono_ns() + (uint64_t)(seconds * 1e9);
	for (i = 0; i < THREADS; i++)
		CHECK(pthread_create(&th[i], NULL, reader, &r) == 0);
	for (i = 0; i < THREADS; i++) {
		struct worst *w;

		CHECK(pthread_join(th[i], (void **)&w) == 0);
		total += w->readings;
		early = w->early > early ? w->early : early;
		late = w->late > late ? w->late : late;
		free(w);
	}
	calls = __atomic_load_n(&library_calls, __ATOMIC_RELAXED) - calls;
	fprintf(stderr, "%s: %d threads, %.1f s: %ld readings, %ld clock_gettime() calls, "
		"at most %llu ns before and %llu ns after the bracket\n",
		r.kind->name, THREADS, seconds,
		total, calls, (unsigned long long)early, (unsigned long long)late);
	CHECK(!r.failed);
	CHECK(total > 1000);
}

/* ------------------------------------------------------------------ */
/* Tests.                                                               */
/* ------------------------------------------------------------------ */

static const char *const event_env[] = { "GIT_TRACE2_EVENT=/dev/null", NULL };

static void tsc_path_is_taken(void **state)
{
	const char *why = tsc_unavailable();

	(void)state;
	if (why) {
		/* where it may not be used, it is not */
		assert_int_equal(t2_run(sc_no_tsc, NULL, event_env), 0);
		print_message("tsc_path_is_taken: skipped: %s\n", why);
		skip();
	}
	assert_int_equal(t2_run(sc_tsc_taken, NULL, event_env), 0);
}

/* A child forked while the TSC clock runs keeps it: its readings go on
 * from the parent's, within 1 us, through its own re-anchorings. */
static void sc_fork_keeps_tsc(void *arg)
{
	static const struct kind k = { "forked", 0, 1000 };
	struct run r = { .kind = &k };
	struct worst w = { 0 };
	uint64_t last;
	int status, i, ok;
	pid_t pid;

	(void)arg;
	trace2_initialize();
	CHECK(wait_for_tsc());
	r.offset = tr2_clock_offset_ns();
	last = tr2_now_ns();
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		ok = tr2_clock_is_tsc();
		for (i = 0; ok && i < 1000000; i++)
			ok = check_one(&r, &last, &w);
		_exit(ok ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* fn in a child that initializes itself, where the TSC clock is on. */
static void run_if_tsc(const char *test, t2_scenario_fn *fn, const void *arg)
{
	const char *why = tsc_unavailable();

	if (why) {
		print_message("%s: skipped: %s\n", test, why);
		skip();
	}
	assert_int_equal(t2_run_noinit(fn, (void *)arg, event_env), 0);
}

static void run_kind(const char *test, const struct kind *k)
{
	run_if_tsc(test, sc_threads, k);
}

static void forked_child_keeps_the_clock(void **state)
{
	(void)state;
	run_if_tsc("forked_child_keeps_the_clock", sc_fork_keeps_tsc, NULL);
}

/* The promise: never back, within 1 us of CLOCK_MONOTONIC. */
static void readings_never_go_back_and_stay_within_1us(void **state)
{
	static const struct kind k = { "real clock", 0, 1000 };

	(void)state;
	run_kind("readings_never_go_back_and_stay_within_1us", &k);
}

/* NTP's usual corrections are followed within 1 us. */
static void slewed_clock_is_followed(void **state)
{
	static const struct kind k = { "slewed 20 ppm", 20, 1000 };

	(void)state;
	run_kind("slewed_clock_is_followed", &k);
}

/* At the kernel's fastest slew (500 ppm: each period is extrapolated and
 * corrected over the next, so readings are several us off), re-anchoring
 * still never steps back. */
static void fastest_slew_never_steps_back(void **state)
{
	static const struct kind k = { "slewed 500 ppm", 500, 50000 };

	(void)state;
	run_kind("fastest_slew_never_steps_back", &k);
}

static void monotonic_setting_reads_clock_gettime(void **state)
{
	static const char *const env[] = {
		"GIT_TRACE2_EVENT=/dev/null", "GIT_TRACE2_CLOCK=monotonic", NULL
	};

	(void)state;
	assert_int_equal(t2_run(sc_monotonic, NULL, env), 0);
	assert_int_equal(t2_run_noinit(sc_monotonic_config, NULL, event_env), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tsc_path_is_taken),
		cmocka_unit_test(readings_never_go_back_and_stay_within_1us),
		cmocka_unit_test(slewed_clock_is_followed),
		cmocka_unit_test(fastest_slew_never_steps_back),
		cmocka_unit_test(forked_child_keeps_the_clock),
		cmocka_unit_test(monotonic_setting_reads_clock_gettime),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
