/*
 * bench.c -- libtrace2's own micro-benchmark (see tests/bench/run.sh).
 *
 *   bench list            one line per scenario: "NAME TARGETS", TARGETS a
 *                         subset of "nper" (GIT_TRACE2, GIT_TRACE2_PERF,
 *                         GIT_TRACE2_EVENT, GIT_TRACE2_RECORD), with "s"
 *                         GIT_TRACE2_STATS, or "-" for none (and the
 *                         other letters of struct scenario's `targets`)
 *   bench SCENARIO [N]    run exactly N ops, or batches of ops until
 *                         T2BENCH_SECONDS (default 1) of wall time passed
 *   bench floor [N]       the physical floor, no Trace2 calls: one line
 *                         "t2bench floor item=NAME ns_per_op=X" per item,
 *                         each item timed for T2BENCH_FLOOR_SECONDS (0.3)
 *   bench floor_buffered[_threads] [N]
 *                         the buffered mode's floor, run like a scenario
 *                         (its loop_bytes: the floor file's growth)
 *   bench rss [EVENTS]    RSS after 10,000 and after EVENTS (10,000,000)
 *                         region events (perf target on), and the growth
 *   bench floor_ring [N]  the deferred mode's floor, run like a scenario:
 *                         two records appended to a per-thread ring per
 *                         pair, with the library's clock (first prints
 *                         "t2bench floor_ring clock=tsc|monotonic ...")
 *   bench floor_ring_mono [N]
 *                         the record target's floor: two CLOCK_MONOTONIC
 *                         reads and two 32-byte records stored into a
 *                         per-thread ring of 64 Ki records per pair, no
 *                         strings, nothing drained (first prints "t2bench
 *                         floor_ring_mono library_clock=tsc|monotonic ...")
 *   bench perf_deferred [N]
 *                         region pairs, each batch of 256 drained with
 *                         trace2_flush() before the next, untimed (so none
 *                         is dropped)
 *   bench record[_threads] [N]
 *                         region pairs to GIT_TRACE2_RECORD, its writer
 *                         thread running alongside as in a user's program
 *                         (never drained between batches); then the
 *                         recording is read: "t2bench recording records=R
 *                         region_records=G dropped=D bytes=B
 *                         bytes_per_region_event=X"
 *   bench perf_deferred_rate
 *                         one thread issuing 2,000,000 pairs per second,
 *                         paced by the clock, for T2BENCH_SECONDS; prints
 *                         "t2bench rate pairs=P drops=D records=R fixed=F
 *                         ok=0|1" (ok: R + D == 2 x P + F, F the records
 *                         that are not the pairs', R not counting the
 *                         perf target's drop reports)
 *   bench record_rate     the same with GIT_TRACE2_RECORD, 4,000,000 pairs
 *                         per second, and its "t2bench recording" line
 *
 * Knobs: T2BENCH_SECONDS, T2BENCH_FLOOR_SECONDS, and T2BENCH_WARM_MB (MiB
 * a buffered run touches and frees before its timed loop; 4096, 0 = off).
 *
 * The caller sets the targets (regular files, absolute paths) through the
 * usual environment variables.  A scenario prints one line:
 *
 *   t2bench scenario=S impl=libtrace2 enabled=E threads=T ops=O calls=C
 *           ns=NS ns_per_op=X thread_ns_per_op=Y loop_bytes=B
 *           loop_bytes_per_op=Z cpu_ns_per_op=U
 *
 * which is the format /work/shared/bench/run-bench.sh reads (it ignores
 * cpu_ns_per_op: user + system CPU of every thread per op, from the
 * loop's start until the last trace2_flush() returned).  ns_per_op is
 * wall time / ops (for threaded scenarios: wall time of the whole run /
 * ops of all threads); loop_bytes is how much the trace files grew during
 * the measured loop.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record_count.h"
#include "trace2.h"
#include "warm.h"

enum kind {
	REGION,        /* region_enter + region_leave, `depth` deep (op = pair) */
	REGION_PRINTF, /* region_enter_printf + region_leave (op = pair) */
	DATA_INT,      /* trace2_data_intmax (op = call) */
	DATA_STR,      /* trace2_data_string (op = call) */
	PRINTF,        /* trace2_printf (op = call) */
	TIMER,         /* trace2_timer_start + trace2_timer_stop (op = pair) */
	CATEGORY,      /* trace2_category_enabled() of a category seen before (op = call) */
	FILTERED,      /* region_enter + region_leave of a filtered category (op = pair) */
	FLOOR,         /* no Trace2 calls: clock_gettime + write() */
	BUFFER_FLOOR,  /* no Trace2 calls: the least 64 KiB buffering costs */
	RING_FLOOR,    /* no Trace2 calls: the least a deferred tracer does */
	MONO_RING_FLOOR, /* no Trace2 calls: fixed-size records, CLOCK_MONOTONIC */
	RATE,          /* region pairs at a fixed rate, then the drops counted */
	RSS,           /* region pairs, resident set size before and after */
};

struct scenario {
	const char *name;
	enum kind kind;
	int depth;           /* REGION: nesting depth of one iteration */
	int threads;         /* >1: that many threads run the loop */
	const char *targets; /* subset of "nper" the caller must enable; "b":
			      * and GIT_TRACE2_BUFFER=64k; "c": and
			      * GIT_TRACE2_CATEGORIES=bench,-noise; "d": and
			      * GIT_TRACE2_DEFERRED=1; "s": GIT_TRACE2_STATS;
			      * "o": and GIT_TRACE2_SAMPLE under a root it
			      * samples out (tracing stays off); "f": and
			      * GIT_TRACE2_FLIGHT=1m (never triggered) */
	const char *what;
};

static const struct scenario scenarios[] = {
	{ "disabled", REGION, 1, 1, "", "no target; region pairs" },
	{ "sampled_out", REGION, 1, 1, "po", "perf target, its tree sampled out (GIT_TRACE2_SAMPLE); region pairs (not written)" },
	{ "perf", REGION, 1, 1, "p", "perf target; region pairs" },
	{ "event", REGION, 1, 1, "e", "event target; region pairs" },
	{ "normal", REGION, 1, 1, "n", "normal target; region pairs (not written)" },
	{ "all", REGION, 1, 1, "npe", "all three targets; region pairs" },
	{ "perf_data", DATA_INT, 1, 1, "p", "perf target; data_intmax" },
	{ "perf_threads", REGION, 1, 2, "p", "perf target; 2 threads x region pairs" },
	{ "event_nest5", REGION, 5, 1, "e", "event target; region pairs nested 5 deep" },
	{ "perf_region_printf", REGION_PRINTF, 1, 1, "p", "perf target; region_enter_printf + leave" },
	{ "perf_printf", PRINTF, 1, 1, "p", "perf target; trace2_printf" },
	{ "normal_printf", PRINTF, 1, 1, "n", "normal target; trace2_printf" },
	{ "event_data", DATA_STR, 1, 1, "e", "event target; data_string" },
	{ "perf_timer", TIMER, 1, 1, "p", "perf target; timer start + stop (no output)" },
	{ "perf_buffered", REGION, 1, 1, "pb", "perf target, 64 KiB buffered mode; region pairs" },
	{ "perf_buffered_threads", REGION, 1, 2, "pb", "perf target, 64 KiB buffered mode; 2 threads x region pairs" },
	{ "event_buffered", REGION, 1, 1, "eb", "event target, 64 KiB buffered mode; region pairs" },
	{ "floor_buffered", BUFFER_FLOOR, 1, 1, "", "no Trace2 calls: 2 clock reads + a pair's perf lines into a 64 KiB buffer, one write() per full buffer" },
	{ "floor_buffered_threads", BUFFER_FLOOR, 1, 2, "", "floor_buffered in 2 threads, one file" },
	{ "category_enabled", CATEGORY, 1, 1, "pc", "perf target, GIT_TRACE2_CATEGORIES set; trace2_category_enabled() of a category seen before" },
	{ "perf_filtered", FILTERED, 1, 1, "pc", "perf target, GIT_TRACE2_CATEGORIES set; region pairs of a filtered category (not written)" },
	{ "floor_ring", RING_FLOOR, 1, 1, "", "no Trace2 calls: 2 records (clock, header, copied strings) into a per-thread ring" },
	{ "perf_deferred", REGION, 1, 1, "pd", "perf target, deferred mode; region pairs (and CPU per pair until drained)" },
	{ "perf_deferred_rate", RATE, 1, 1, "pd", "perf target, deferred mode; 2M region pairs/s from one thread, drops counted" },
	{ "stats", REGION, 1, 1, "s", "stats target; region pairs (summed up, a table at exit)" },
	{ "stats_threads", REGION, 1, 2, "s", "stats target; 2 threads x region pairs" },
	{ "record", REGION, 1, 1, "r", "record target; region pairs (its writer running, not drained)" },
	{ "floor_ring_mono", MONO_RING_FLOOR, 1, 1, "", "no Trace2 calls: 2 CLOCK_MONOTONIC reads + 2 32-byte records into a per-thread ring of 64 Ki records" },
	{ "record_threads", REGION, 1, 2, "r", "record target; 2 threads x region pairs" },
	{ "flight", REGION, 1, 1, "pf", "perf target, flight recorder (1 MiB rings, never triggered); region pairs (not written)" },
	{ "record_rate", RATE, 1, 1, "r", "record target; 4M region pairs/s from one thread, records and drops counted" },
	{ "floor", FLOOR, 1, 1, "", "clock_gettime + write(), no Trace2 calls" },
	/* not listed: run.sh runs it once, separately */
	{ "rss", RSS, 1, 1, "p", "perf target; RSS after 10k and 10M region events" },
};
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))

#define NTARGETS 4
static const char *const target_env[NTARGETS] = {
	"GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT", "GIT_TRACE2_RECORD"
};

static volatile uint64_t sink;
static int floor_fd[3] = { -1, -1, -1 };
static uint64_t write_errors;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double seconds_from_env(const char *name, double dflt)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (!v || !*v)
		return dflt;
	d = strtod(v, &end);
	return (*end || d <= 0) ? dflt : d;
}

/* Total size of the trace files named by absolute paths (or of the
 * buffered floor's file). */
static uint64_t trace_file_bytes(void)
{
	uint64_t sum = 0;
	struct stat st;
	int k;

	if (floor_fd[0] >= 0 && !fstat(floor_fd[0], &st))
		return (uint64_t)st.st_size;
	for (k = 0; k < NTARGETS; k++) {
		const char *v = getenv(target_env[k]);
		if (v && v[0] == '/' && !stat(v, &st) && S_ISREG(st.st_mode))
			sum += (uint64_t)st.st_size;
	}
	return sum;
}

static void warn_targets(const struct scenario *sc)
{
	int k;

	for (k = 0; k < NTARGETS; k++) {
		const char *v = getenv(target_env[k]);
		int on = v && *v && strcmp(v, "0") && strcasecmp(v, "false");
		int want = strchr(sc->targets, "nper"[k]) != NULL;
		if (on != want)
			fprintf(stderr, "bench: warning: %s should be %s for '%s'\n",
				target_env[k], want ? "set" : "unset", sc->name);
	}
}

/* ------------------------------------------------------------------ */
/* The measured operations.                                             */

static void fl_pair_buffered(uint64_t n);
static void fl_buffer_flush(void);
static void fl_pair_ring(uint64_t n);
static void fl_pair_ring_mono(uint64_t n);
static int is_deferred(const struct scenario *sc);

#define PAIR() do { \
		trace2_region_enter("bench", "region", NULL); \
		trace2_region_leave("bench", "region", NULL); \
	} while (0)

static const char *const depth_label[] = {
	"depth1", "depth2", "depth3", "depth4", "depth5", "depth6",
};

/* Run at least n ops (whole iterations); return the number run.  Not
 * inlined: run.sh --valgrind counts a record run's instructions inside it
 * (and inside paced_pairs()), as the traced thread's. */
static __attribute__((noinline)) uint64_t do_ops(const struct scenario *sc, uint64_t n, uint64_t base)
{
	uint64_t i = 0;
	int d;

	switch (sc->kind) {
	case REGION:
	case RSS:
		if (sc->depth == 1) {
			/* unrolled, so the loop itself hardly counts */
			for (; i + 8 <= n; i += 8) {
				PAIR(); PAIR(); PAIR(); PAIR();
				PAIR(); PAIR(); PAIR(); PAIR();
			}
			for (; i < n; i++)
				PAIR();
			return n;
		}
		for (; i < n; i += (uint64_t)sc->depth) {
			for (d = 0; d < sc->depth; d++)
				trace2_region_enter("bench", depth_label[d], NULL);
			for (d = sc->depth - 1; d >= 0; d--)
				trace2_region_leave("bench", depth_label[d], NULL);
		}
		return i;
	case REGION_PRINTF:
		for (; i < n; i++) {
			trace2_region_enter_printf("bench", "region", NULL,
						   "i=%d", (int)(base + i));
			trace2_region_leave("bench", "region", NULL);
		}
		return n;
	case DATA_INT:
		for (; i < n; i++)
			trace2_data_intmax("bench", NULL, "value",
					   (intmax_t)(base + i));
		return n;
	case DATA_STR:
		for (; i < n; i++)
			trace2_data_string("bench", NULL, "key", "value");
		return n;
	case PRINTF:
		for (; i < n; i++)
			trace2_printf("bench printf %d", (int)(base + i));
		return n;
	case TIMER:
		for (; i < n; i++) {
			trace2_timer_start(TRACE2_TIMER_ID_TEST1);
			trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
		}
		return n;
	case CATEGORY:
		for (; i < n; i++)
			sink += (uint64_t)trace2_category_enabled("bench");
		return n;
	case FILTERED:
		for (; i < n; i++) {
			trace2_region_enter("noise", "region", NULL);
			trace2_region_leave("noise", "region", NULL);
		}
		return n;
	case BUFFER_FLOOR:
		fl_pair_buffered(n);
		return n;
	case RING_FLOOR:
		fl_pair_ring(n);
		return n;
	case MONO_RING_FLOOR:
		fl_pair_ring_mono(n);
		return n;
	case FLOOR:
	case RATE:
		break;
	}
	return 0;
}

struct loop {
	const struct scenario *sc;
	uint64_t exact;      /* UINT64_MAX: run for `budget_ns` */
	uint64_t budget_ns;
	pthread_barrier_t *start;
	uint64_t ops, t0, t1; /* results: ops run from time t0 to t1 */
	uint64_t untimed;     /* ns of that spent outside the ops */
};

static void run_loop(struct loop *l)
{
	uint64_t batch = 256, t0, t;

	if (!strcmp(l->sc->name, "disabled") || strchr(l->sc->targets, 'o'))
		batch = 1u << 18;
	else if (l->sc->kind == TIMER || l->sc->kind == CATEGORY)
		batch = 1u << 14;

	l->untimed = 0;
	l->t0 = t0 = now_ns();
	if (l->exact != UINT64_MAX) {
		l->ops = do_ops(l->sc, l->exact, 0);
		l->t1 = now_ns();
		return;
	}
	l->ops = 0;
	do {
		l->ops += do_ops(l->sc, batch, l->ops);
		t = now_ns();
		if (is_deferred(l->sc)) {
			/* every batch drained before the next, untimed: the
			 * ring never fills, so every pair is queued and
			 * written, none dropped (the CPU per pair counts the
			 * formatting of all of them) */
			uint64_t drained;

			trace2_flush();
			drained = now_ns();
			l->untimed += drained - t;
			t = drained;
		}
	} while (t - t0 < l->budget_ns);
	l->t1 = t;
}

/* What a thread leaves behind when it ends: in its trace2_thread_exit()
 * or at exit for the library, here for the buffered floor. */
static void end_loop(const struct loop *l)
{
	if (l->sc->kind == BUFFER_FLOOR)
		fl_buffer_flush();
}

static void *thread_main(void *arg)
{
	struct loop *l = arg;

	trace2_thread_start("bench");
	pthread_barrier_wait(l->start);
	run_loop(l);
	end_loop(l);
	trace2_thread_exit();
	return NULL;
}

/* cpu_ns_per_op < 0: not measured (not printed). */
static void print_result(const struct scenario *sc, uint64_t ops, uint64_t ns,
			 double thread_ns_per_op, uint64_t bytes, double cpu_ns_per_op)
{
	unsigned per = (sc->kind == REGION || sc->kind == RSS ||
			sc->kind == REGION_PRINTF || sc->kind == TIMER || sc->kind == FILTERED ||
			sc->kind == BUFFER_FLOOR || sc->kind == RING_FLOOR ||
			sc->kind == MONO_RING_FLOOR || sc->kind == RATE) ? 2 : 1;
	double d = ops ? (double)ops : 1.0;

	printf("t2bench scenario=%s impl=libtrace2 enabled=%d threads=%d"
	       " ops=%" PRIu64 " calls=%" PRIu64 " ns=%" PRIu64
	       " ns_per_op=%.2f thread_ns_per_op=%.2f loop_bytes=%" PRIu64
	       " loop_bytes_per_op=%.2f",
	       sc->name, trace2_is_enabled(), sc->threads, ops, ops * per, ns,
	       (double)ns / d, thread_ns_per_op, bytes, (double)bytes / d);
	if (cpu_ns_per_op >= 0)
		printf(" cpu_ns_per_op=%.2f", cpu_ns_per_op);
	printf("\n");
	fflush(stdout);
}

/* User + system CPU of every thread of the process, in ns. */
static uint64_t process_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

/* Deferred mode: its writer thread writes buffers (and is warmed for). */
static int is_deferred(const struct scenario *sc)
{
	return strchr(sc->targets, 'd') != NULL;
}

/* The record target: its writer thread writes the rings. */
static int is_record(const struct scenario *sc)
{
	return strchr(sc->targets, 'r') != NULL;
}

/* After a loop: one data record (a thread's ring marks what it dropped
 * before its next record), then every record out. */
static void loop_done(uint64_t pairs)
{
	trace2_data_intmax("bench", NULL, "pairs", (intmax_t)pairs);
	trace2_flush();
}

static void print_recording(const struct record_count *c)
{
	printf("t2bench recording records=%" PRIu64 " region_records=%" PRIu64
	       " dropped=%" PRIu64 " bytes=%" PRIu64 " bytes_per_region_event=%.2f\n",
	       c->records, c->region_records, c->dropped, c->bytes,
	       c->region_records ? (double)c->bytes / (double)c->region_records : 0.0);
}

/* Reads the recording (GIT_TRACE2_RECORD, an absolute path) and prints
 * its "t2bench recording" line; 0 if it reads. */
static int read_recording(void)
{
	const char *path = getenv("GIT_TRACE2_RECORD");
	struct record_count c;

	if (!path || path[0] != '/' || record_count_file(path, &c)) {
		fprintf(stderr, "bench: no recording at GIT_TRACE2_RECORD=<absolute path>\n");
		return -1;
	}
	print_recording(&c);
	return 0;
}

/* Before timing a buffered run: see warm.h (4096 MiB unless told). */
#define WARM_MB_DEFAULT 4096

static int is_buffered(const struct scenario *sc)
{
	return sc->kind == BUFFER_FLOOR || strchr(sc->targets, 'b') || is_deferred(sc) ||
	       is_record(sc);
}

static int run_scenario(const struct scenario *sc, uint64_t exact)
{
	struct loop l[8];
	pthread_t th[8];
	pthread_barrier_t start;
	uint64_t bytes0, ops = 0, ns, t0 = UINT64_MAX, t1 = 0, cpu0 = 0;
	double thread_ns = 0, cpu_ns;
	int t, n = sc->threads;

	warn_targets(sc);
	if (exact == UINT64_MAX)
		do_ops(sc, 8, 0); /* warm up: thread state, page faults */
	if (is_buffered(sc))
		warm_free_memory(WARM_MB_DEFAULT);
	if (is_deferred(sc) || is_record(sc))
		trace2_flush(); /* the warm-up's records are not the loop's */
	bytes0 = trace_file_bytes();
	cpu0 = process_cpu_ns();

	for (t = 0; t < n; t++) {
		l[t].sc = sc;
		l[t].exact = exact;
		l[t].budget_ns = (uint64_t)(seconds_from_env("T2BENCH_SECONDS", 1) * 1e9);
		l[t].start = &start;
	}
	if (n == 1) {
		run_loop(&l[0]);
		end_loop(&l[0]);
		ops = l[0].ops;
		ns = l[0].t1 - l[0].t0 - l[0].untimed;
		thread_ns = ops ? (double)ns / (double)ops : 0;
	} else {
		/* wall time: first thread's start to last thread's end (the
		 * main thread may wake up late on a busy machine) */
		pthread_barrier_init(&start, NULL, (unsigned)n + 1);
		for (t = 0; t < n; t++)
			if (pthread_create(&th[t], NULL, thread_main, &l[t])) {
				fprintf(stderr, "bench: pthread_create failed\n");
				return 1;
			}
		pthread_barrier_wait(&start);
		for (t = 0; t < n; t++)
			pthread_join(th[t], NULL);
		pthread_barrier_destroy(&start);
		for (t = 0; t < n; t++) {
			ops += l[t].ops;
			t0 = l[t].t0 < t0 ? l[t].t0 : t0;
			t1 = l[t].t1 > t1 ? l[t].t1 : t1;
			if (l[t].ops)
				thread_ns += (double)(l[t].t1 - l[t].t0) /
					     (double)l[t].ops / n;
		}
		ns = t1 - t0;
	}
	/* a writer thread's share: until every record is out */
	trace2_flush();
	cpu_ns = ops ? (double)(process_cpu_ns() - cpu0) / (double)ops : 0;
	print_result(sc, ops, ns, thread_ns, trace_file_bytes() - bytes0, cpu_ns);
	if (!is_record(sc))
		return 0;
	loop_done(ops);
	return read_recording() != 0;
}

/* ------------------------------------------------------------------ */
/* The floor: what one event costs at least with one write() per event. */

/* The two lines of a region pair (enter, leave) in one format. */
struct floor_lines {
	char line[2][320];
	size_t len[2];
};
static struct floor_lines perf_lines, event_lines;

static void set_line(struct floor_lines *f, int e, int n)
{
	f->len[e] = n > 0 ? (size_t)n : 0;
}

/* The bytes of the perf target's region_enter and region_leave lines, as
 * the library writes them (both are 152 bytes: fixed-width columns). */
static void make_perf_lines(const struct tm *tm, long usec)
{
	char fl[64];
	int e;

	snprintf(fl, sizeof(fl), "%s:%d", "bench.c", 123);
	for (e = 0; e < 2; e++)
		set_line(&perf_lines, e,
			 snprintf(perf_lines.line[e], sizeof(perf_lines.line[e]),
				  "%02d:%02d:%02d.%06ld %-28s | d0 | %-24s | %-12s | %-3s"
				  " | %9.6f | %9.6f | %-12s | label:%s\n",
				  tm->tm_hour, tm->tm_min, tm->tm_sec, usec, fl, "main",
				  e ? "region_leave" : "region_enter", "", 1.234567,
				  0.000012, "bench", "region"));
}

/* The bytes of the event target's region_enter and region_leave lines
 * (206 and 223 bytes), with a session id of the library's length. */
static void make_event_lines(const struct tm *tm, long usec)
{
	static const char sid[] = "20261122T091021.077787Z-H0a7c9cdf-P00001f6b";
	char time[64];

	snprintf(time, sizeof(time), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
		 tm->tm_year + 1900, tm->tm_mon + 1, tm->tm_mday, tm->tm_hour,
		 tm->tm_min, tm->tm_sec, usec);
	set_line(&event_lines, 0,
		 snprintf(event_lines.line[0], sizeof(event_lines.line[0]),
			  "{\"event\":\"region_enter\",\"sid\":\"%s\",\"thread\":\"main\","
			  "\"time\":\"%s\",\"file\":\"bench.c\",\"line\":167,"
			  "\"nesting\":1,\"category\":\"bench\",\"label\":\"region\"}\n",
			  sid, time));
	set_line(&event_lines, 1,
		 snprintf(event_lines.line[1], sizeof(event_lines.line[1]),
			  "{\"event\":\"region_leave\",\"sid\":\"%s\",\"thread\":\"main\","
			  "\"time\":\"%s\",\"file\":\"bench.c\",\"line\":167,"
			  "\"t_rel\":0.000003,\"nesting\":1,\"category\":\"bench\","
			  "\"label\":\"region\"}\n",
			  sid, time));
}

static void make_lines(void)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	make_perf_lines(&tm, ts.tv_nsec / 1000);
	gmtime_r(&ts.tv_sec, &tm);
	make_event_lines(&tm, ts.tv_nsec / 1000);
}

static void put_line(int fd, const struct floor_lines *f, int e)
{
	if (write(fd, f->line[e], f->len[e]) != (ssize_t)f->len[e])
		write_errors++;
}

static void put(int fd)
{
	put_line(fd, &perf_lines, 1);
}

static void fl_clock(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink += now_ns();
}

static void fl_write(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		put(floor_fd[0]);
}

static void fl_clock_write(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		sink += now_ns();
		put(floor_fd[0]);
	}
}

static void fl_pair_of(uint64_t n, const struct floor_lines *f)
{
	for (uint64_t i = 0; i < n; i++) {
		sink += now_ns();
		put_line(floor_fd[0], f, 0);
		sink += now_ns();
		put_line(floor_fd[0], f, 1);
	}
}

static void fl_pair(uint64_t n) { fl_pair_of(n, &perf_lines); }
static void fl_pair_event(uint64_t n) { fl_pair_of(n, &event_lines); }

static void fl_pair_targets(uint64_t n, int targets)
{
	for (uint64_t i = 0; i < n; i++) {
		for (int e = 0; e < 2; e++) {
			sink += now_ns();
			for (int k = 0; k < targets; k++)
				put(floor_fd[k]);
		}
	}
}

static void fl_pair2(uint64_t n) { fl_pair_targets(n, 2); }
static void fl_pair3(uint64_t n) { fl_pair_targets(n, 3); }

/*
 * The buffered floor: the least a 64 KiB buffered logger does for a
 * region pair -- two clock reads, the perf target's two lines copied into
 * the thread's buffer, which goes out with one write() when the next line
 * would not fit.  Per thread, so two threads share nothing but the file.
 */
struct floor_buf {
	char data[64 * 1024];
	size_t len;
	uint64_t sum;
};
static _Thread_local struct floor_buf fbuf;

static void fl_buffer_flush(void)
{
	if (fbuf.len && write(floor_fd[0], fbuf.data, fbuf.len) != (ssize_t)fbuf.len)
		__atomic_fetch_add(&write_errors, 1, __ATOMIC_RELAXED);
	fbuf.len = 0;
	__atomic_fetch_add(&sink, fbuf.sum, __ATOMIC_RELAXED);
}

static void fl_buffer_line(int e)
{
	if (fbuf.len + perf_lines.len[e] > sizeof(fbuf.data))
		fl_buffer_flush();
	memcpy(fbuf.data + fbuf.len, perf_lines.line[e], perf_lines.len[e]);
	fbuf.len += perf_lines.len[e];
}

static void fl_pair_buffered(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		fbuf.sum += now_ns();
		fl_buffer_line(0);
		fbuf.sum += now_ns();
		fl_buffer_line(1);
	}
}

/*
 * The ring floor: the least a deferred tracer does on the traced thread
 * for a region pair -- two records appended to the thread's ring, each a
 * clock reading, a small header and copies of the call's strings (the
 * API's strings may be gone once the call returns), published with a
 * release store.  The ring has no reader: when it is full the reader is
 * taken to have caught up, so the ring just wraps.  The clock is the
 * library's: the TSC where the kernel's clocksource is the TSC and the CPU
 * says constant_tsc and nonstop_tsc (unless GIT_TRACE2_CLOCK=monotonic),
 * converted with one multiply and shift; CLOCK_MONOTONIC elsewhere.
 */
#define RING_BYTES (256 * 1024) /* a power of 2 */

struct ring_record {
	uint64_t ns;
	uint32_t line;
	uint8_t kind; /* 0: region_enter, 1: region_leave, 2: padding */
	uint8_t file_len, category_len, label_len;
	/* then the three strings, the next record 8-byte aligned */
};

struct ring {
	_Alignas(64) char data[RING_BYTES];
	uint64_t head;          /* written by its thread only */
	_Alignas(64) uint64_t tail; /* a reader's, if there were one */
};
static _Thread_local struct ring ring;

/* What the perf scenario passes, through pointers the compiler cannot
 * see through (a tracer gets them as arguments). */
static const char *volatile ring_strings[3] = { __FILE__, "bench", "region" };

static int ring_clock_is_tsc;
static struct { uint64_t tsc0, ns0, mult; } tsc_conv; /* ns = ns0 + (d * mult) >> 32 */

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* As the library reads it (src/tr2_clock.c): lfence first, so that
 * readings keep their order. */
static inline uint64_t tsc_read(void)
{
	_mm_lfence();
	return __rdtsc();
}
#define HAVE_TSC 1
#else
static inline uint64_t tsc_read(void) { return 0; }
#define HAVE_TSC 0
#endif

static inline uint64_t ring_now(void)
{
	if (ring_clock_is_tsc) {
		uint64_t d = tsc_read() - tsc_conv.tsc0;
		return tsc_conv.ns0 + (uint64_t)(((unsigned __int128)d * tsc_conv.mult) >> 32);
	}
	return now_ns();
}

/* 1 if the first line of file `path` is `want`. */
static int first_line_is(const char *path, const char *want)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	int yes = f && fgets(buf, sizeof(buf), f) && (buf[strcspn(buf, "\n")] = '\0', !strcmp(buf, want));

	if (f)
		fclose(f);
	return yes;
}

/* 1 if /proc/cpuinfo's first "flags" line has both words. */
static int cpu_has_flags(const char *a, const char *b)
{
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			char *tok, *save;
			int has_a = 0, has_b = 0;

			for (tok = strtok_r(strchr(line, ':'), ": \t\n", &save); tok;
			     tok = strtok_r(NULL, " \t\n", &save)) {
				has_a |= !strcmp(tok, a);
				has_b |= !strcmp(tok, b);
			}
			found = has_a && has_b;
			break;
		}
	fclose(f);
	return found;
}

static int tsc_is_the_clock(void)
{
	const char *force = getenv("GIT_TRACE2_CLOCK");

	if (!HAVE_TSC || (force && !strcasecmp(force, "monotonic")))
		return 0;
	return first_line_is("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc") &&
	       cpu_has_flags("constant_tsc", "nonstop_tsc");
}

/* Against CLOCK_MONOTONIC over 20 ms. */
static void tsc_calibrate(void)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	uint64_t ns0 = now_ns(), t0 = tsc_read(), ns1, t1;

	nanosleep(&pause, NULL);
	ns1 = now_ns();
	t1 = tsc_read();
	tsc_conv.tsc0 = t0;
	tsc_conv.ns0 = ns0;
	tsc_conv.mult = t1 > t0 ? ((ns1 - ns0) << 32) / (t1 - t0) : 0;
}

static inline void ring_append(int kind, int line, const char *file, const char *category,
			       const char *label)
{
	size_t fl = strlen(file), cl = strlen(category), ll = strlen(label);
	size_t need = (sizeof(struct ring_record) + fl + cl + ll + 7) & ~(size_t)7;
	uint64_t head = ring.head, pos = head & (RING_BYTES - 1);
	size_t pad = pos + need > RING_BYTES ? RING_BYTES - pos : 0;
	struct ring_record r = { ring_now(), (uint32_t)line, (uint8_t)kind,
				 (uint8_t)fl, (uint8_t)cl, (uint8_t)ll };
	char *p;

	if (head + pad + need - __atomic_load_n(&ring.tail, __ATOMIC_ACQUIRE) > RING_BYTES)
		__atomic_store_n(&ring.tail, head, __ATOMIC_RELAXED); /* "drained" */
	if (pad) {
		struct ring_record skip = { 0, 0, 2, 0, 0, 0 };

		memcpy(ring.data + pos, &skip, sizeof(skip) < pad ? sizeof(skip) : pad);
		head += pad;
		pos = 0;
	}
	p = ring.data + pos;
	memcpy(p, &r, sizeof(r));
	p += sizeof(r);
	memcpy(p, file, fl);
	memcpy(p + fl, category, cl);
	memcpy(p + fl + cl, label, ll);
	__atomic_store_n(&ring.head, head + need, __ATOMIC_RELEASE);
}

static void fl_pair_ring(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		ring_append(0, __LINE__, ring_strings[0], ring_strings[1], ring_strings[2]);
		ring_append(1, __LINE__, ring_strings[0], ring_strings[1], ring_strings[2]);
	}
}

/*
 * The record target's floor: the least a binary recorder does on the
 * traced thread for a region pair -- two CLOCK_MONOTONIC readings, each
 * stored with the call site in a 32-byte record (no strings: a recorder
 * refers to them by number) into the thread's ring of 64 Ki records,
 * published with a release store.  Nothing drains it: the ring wraps.
 */
#define MONO_RING_RECORDS (64 * 1024) /* a power of 2 */

struct mono_record {
	uint64_t ns;
	uint64_t site;     /* the caller's file, as a number */
	uint32_t line;
	uint32_t kind;     /* 0: region_enter, 1: region_leave */
	uint32_t category, label;
};
_Static_assert(sizeof(struct mono_record) == 32, "32-byte records");

struct mono_ring {
	_Alignas(64) struct mono_record rec[MONO_RING_RECORDS];
	uint64_t head; /* a reader's to look at, if there were one */
};
static _Thread_local struct mono_ring mono_ring;

static inline void mono_append(uint32_t kind, uint32_t line)
{
	uint64_t head = mono_ring.head;
	struct mono_record r = { now_ns(), 1, line, kind, 2, 3 };

	memcpy(&mono_ring.rec[head & (MONO_RING_RECORDS - 1)], &r, sizeof(r));
	__atomic_store_n(&mono_ring.head, head + 1, __ATOMIC_RELEASE);
}

static void fl_pair_ring_mono(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		mono_append(0, __LINE__);
		mono_append(1, __LINE__);
	}
}

static const struct floor_item {
	const char *name;
	void (*fn)(uint64_t n);
	const char *note;
} floor_items[] = {
	{ "clock_monotonic", fl_clock, "clock_gettime(CLOCK_MONOTONIC)" },
	{ "write_append", fl_write, "one_write_of_a_perf_region_leave_line" },
	{ "clock_plus_write", fl_clock_write, "floor_per_event" },
	{ "floor_pair", fl_pair, "2x(clock+write):floor_per_region_pair" },
	{ "floor_pair_event", fl_pair_event, "2x(clock+write_of_an_event_line):floor_per_event_target_pair" },
	{ "floor_pair_2targets", fl_pair2, "2x(clock+2_writes):what_'all'_writes(normal_skips_regions)" },
	{ "floor_pair_3targets", fl_pair3, "2x(clock+3_writes,3_files):floor_for_'all'" },
};

/* The floor's n files in T2BENCH_TMPDIR (or /tmp), opened for appending
 * like a trace file; 0 when all are open. */
static int open_floor_files(int n, char (*path)[4096])
{
	const char *dir = getenv("T2BENCH_TMPDIR");
	int k;

	if (!dir || !*dir)
		dir = "/tmp";
	make_lines();
	for (k = 0; k < n; k++) {
		snprintf(path[k], sizeof(path[k]), "%s/bench-floor.%ld.%d", dir,
			 (long)getpid(), k);
		floor_fd[k] = open(path[k], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (floor_fd[k] < 0) {
			fprintf(stderr, "bench: %s: %s\n", path[k], strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* Close and remove the floor's files; 0 when every floor write worked. */
static int close_floor_files(int n, char (*path)[4096])
{
	int k;

	for (k = 0; k < n; k++) {
		close(floor_fd[k]);
		floor_fd[k] = -1;
		unlink(path[k]);
	}
	if (write_errors)
		fprintf(stderr, "bench: %" PRIu64 " floor writes failed\n", write_errors);
	fflush(stdout);
	return write_errors != 0;
}

static int run_floor(uint64_t exact)
{
	double secs = seconds_from_env("T2BENCH_FLOOR_SECONDS", 0.3);
	char path[3][4096];
	size_t i;

	if (open_floor_files(3, path))
		return 1;
	for (i = 0; i < sizeof(floor_items) / sizeof(floor_items[0]); i++) {
		const struct floor_item *it = &floor_items[i];
		uint64_t batch = it->fn == fl_clock ? 4096 : 64, n = 0, t0, t;

		if (exact != UINT64_MAX) {
			t0 = now_ns();
			it->fn(exact);
			n = exact;
			t = now_ns();
		} else {
			it->fn(batch); /* warm up */
			t0 = now_ns();
			do {
				it->fn(batch);
				n += batch;
				t = now_ns();
			} while (t - t0 < (uint64_t)(secs * 1e9));
		}
		printf("t2bench floor item=%s ns_per_op=%.2f bytes=%zu note=%s\n",
		       it->name, n ? (double)(t - t0) / (double)n : 0.0,
		       it->fn == fl_pair_event ? event_lines.len[0] + event_lines.len[1]
					       : perf_lines.len[1], it->note);
	}
	return close_floor_files(3, path);
}

/* The buffered floor runs as a scenario, timed the same way. */
static int run_buffer_floor(const struct scenario *sc, uint64_t exact)
{
	char path[1][4096];

	if (open_floor_files(1, path))
		return 1;
	if (run_scenario(sc, exact)) {
		close_floor_files(1, path);
		return 1;
	}
	return close_floor_files(1, path);
}

/* The ring floor runs as a scenario, timed the same way, on the clock the
 * library would choose here. */
static int run_ring_floor(const struct scenario *sc, uint64_t exact)
{
	ring_clock_is_tsc = tsc_is_the_clock();
	if (ring_clock_is_tsc)
		tsc_calibrate();
	printf("t2bench floor_ring clock=%s ring_bytes=%d record_bytes=%zu\n",
	       ring_clock_is_tsc ? "tsc" : "monotonic", RING_BYTES,
	       (sizeof(struct ring_record) + strlen(ring_strings[0]) +
		strlen(ring_strings[1]) + strlen(ring_strings[2]) + 7) & ~(size_t)7);
	return run_scenario(sc, exact);
}

/* The record target's floor runs as a scenario, timed the same way; the
 * goal it serves depends on the clock the library would choose here. */
static int run_mono_ring_floor(const struct scenario *sc, uint64_t exact)
{
	printf("t2bench floor_ring_mono library_clock=%s ring_records=%d record_bytes=%zu\n",
	       tsc_is_the_clock() ? "tsc" : "monotonic", MONO_RING_RECORDS,
	       sizeof(struct mono_record));
	return run_scenario(sc, exact);
}

/* ------------------------------------------------------------------ */
/* Throughput: do the deferred mode and the recording keep up?          */

struct perf_count {
	uint64_t lines, drops, drop_reports;
};

/* 1 if a perf column, without its padding, is `word`. */
static int column_is(const char *col, const char *word)
{
	size_t n = strlen(word);

	col += strspn(col, " ");
	return !strncmp(col, word, n) && (!col[n] || col[n] == ' ' || col[n] == '\n');
}

/* Lines of the perf file, and its "trace2 | dropped:N" data records. */
static int count_perf_file(const char *path, struct perf_count *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *col[9];
	size_t cap = 0;

	memset(c, 0, sizeof(*c));
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *save, *tok;
		int k = 0;

		c->lines++;
		for (tok = strtok_r(line, "|", &save); tok && k < 9; tok = strtok_r(NULL, "|", &save))
			col[k++] = tok;
		if (k < 9 || !column_is(col[3], "data") || !column_is(col[7], "trace2"))
			continue;
		tok = col[8] + strspn(col[8], " ");
		if (!strncmp(tok, "dropped:", 8)) {
			c->drops += strtoull(tok + 8, NULL, 10);
			c->drop_reports++;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/*
 * Region pairs from this thread, `rate` per second, for T2BENCH_SECONDS
 * (or exactly `exact`), each batch released when the clock says it is
 * due; the pairs issued, and in *ns the time they took.
 */
static __attribute__((noinline)) uint64_t paced_pairs(double rate, uint64_t exact, uint64_t *ns)
{
	uint64_t budget = (uint64_t)(seconds_from_env("T2BENCH_SECONDS", 1) * 1e9);
	uint64_t t0, t, pairs = 0, due;

	t0 = t = now_ns();
	while (exact == UINT64_MAX ? t - t0 < budget : pairs < exact) {
		due = (uint64_t)((double)(t - t0) * rate * 1e-9) + 1;
		if (due > pairs + 256) /* behind: look at the clock again soon */
			due = pairs + 256;
		if (exact != UINT64_MAX && due > exact)
			due = exact;
		for (; pairs < due; pairs++)
			PAIR();
		t = now_ns();
	}
	*ns = t - t0;
	return pairs;
}

/* What a rate run finds in its file: records (perf lines that are not
 * drop reports) and the records dropped. */
struct rate_count {
	uint64_t records, dropped;
	struct record_count recording;
};

static int count_rate_file(const struct scenario *sc, const char *path, struct rate_count *r)
{
	struct perf_count p;

	if (is_record(sc)) {
		if (record_count_file(path, &r->recording))
			return -1;
		r->records = r->recording.records;
		r->dropped = r->recording.dropped;
		return 0;
	}
	if (count_perf_file(path, &p))
		return -1;
	r->records = p.lines - p.drop_reports;
	r->dropped = p.drops;
	return 0;
}

/*
 * T2BENCH_RATE region pairs per second (perf target, deferred: 2,000,000;
 * record target: 4,000,000); then every pair's two records must be in the
 * file or counted as dropped: records + dropped == 2 x pairs + fixed, the
 * records that are not the pairs' (those before the loop, loop_done()'s).
 */
static int run_rate(const struct scenario *sc, uint64_t exact)
{
	const char *env = is_record(sc) ? "GIT_TRACE2_RECORD" : "GIT_TRACE2_PERF";
	const char *path = getenv(env);
	double rate = seconds_from_env("T2BENCH_RATE", is_record(sc) ? 4e6 : 2e6);
	uint64_t bytes0, ns, pairs, fixed;
	struct rate_count before, after;
	int ok;

	warn_targets(sc);
	if (!path || path[0] != '/') {
		fprintf(stderr, "bench: %s needs %s=<absolute path>\n", sc->name, env);
		return 1;
	}
	warm_free_memory(WARM_MB_DEFAULT);
	trace2_flush();
	if (count_rate_file(sc, path, &before))
		return 1;
	bytes0 = trace_file_bytes();
	pairs = paced_pairs(rate, exact, &ns);
	loop_done(pairs);
	if (count_rate_file(sc, path, &after))
		return 1;
	if (is_record(sc))
		print_recording(&after.recording);
	fixed = before.records + before.dropped + 1;
	ok = after.records + after.dropped == 2 * pairs + fixed;
	printf("t2bench rate pairs=%" PRIu64 " seconds=%.3f pairs_per_s=%.0f target_per_s=%.0f"
	       " drops=%" PRIu64 " records=%" PRIu64 " fixed=%" PRIu64 " ok=%d\n",
	       pairs, (double)ns / 1e9, ns ? (double)pairs * 1e9 / (double)ns : 0.0, rate,
	       after.dropped - before.dropped, after.records, fixed, ok);
	print_result(sc, pairs, ns, pairs ? (double)ns / (double)pairs : 0,
		     trace_file_bytes() - bytes0, -1);
	return !ok;
}

/* ------------------------------------------------------------------ */
/* Memory: resident set size after few and after many events.           */

/*
 * Resident set size in KiB, and its anonymous part (resident - shared
 * pages: without the code and files mapped in, which grow by 64 KiB
 * "fault-around" chunks when a code path runs for the first time).
 */
static int rss_kib(long *rss, long *anon)
{
	char buf[128], *p = buf;
	long f[3], kib = sysconf(_SC_PAGESIZE) / 1024;
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY), i;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (i = 0; i < 3; i++) /* size resident shared, in pages */
		f[i] = strtol(p, &p, 10);
	*rss = f[1] * kib;
	*anon = (f[1] - f[2]) * kib;
	return 0;
}

static int run_rss(const struct scenario *sc, uint64_t events)
{
	uint64_t few = 10000, bytes0, t0, pairs;
	long r1 = -1, r2 = -1, a1 = -1, a2 = -1;
	int bad;

	if (events == UINT64_MAX)
		events = 10000000;
	if (events < few)
		few = events;
	warn_targets(sc);
	bytes0 = trace_file_bytes();
	t0 = now_ns();
	pairs = do_ops(sc, few / 2, 0);
	bad = rss_kib(&r1, &a1);
	pairs += do_ops(sc, (events - few) / 2, pairs);
	bad |= rss_kib(&r2, &a2);
	printf("t2bench rss events=%" PRIu64 " rss_kib=%ld anon_kib=%ld\n",
	       few, r1, a1);
	printf("t2bench rss events=%" PRIu64 " rss_kib=%ld anon_kib=%ld\n",
	       2 * pairs, r2, a2);
	printf("t2bench rss growth_kib=%ld anon_growth_kib=%ld\n", r2 - r1, a2 - a1);
	print_result(sc, pairs, now_ns() - t0, 0, trace_file_bytes() - bytes0, -1);
	return bad != 0;
}

/* ------------------------------------------------------------------ */

static int usage(void)
{
	size_t i;

	fprintf(stderr, "usage: bench SCENARIO [N] | bench list\nscenarios:\n");
	for (i = 0; i < NSCEN; i++)
		fprintf(stderr, "  %-20s %-4s %s\n", scenarios[i].name,
			*scenarios[i].targets ? scenarios[i].targets : "-",
			scenarios[i].what);
	return 2;
}

static int bench_main(int argc, char **argv)
{
	const struct scenario *sc = NULL;
	uint64_t exact = UINT64_MAX;
	size_t i;

	if (argc < 2 || argc > 3)
		return usage();
	if (!strcmp(argv[1], "list")) {
		for (i = 0; i < NSCEN; i++)
			if (scenarios[i].kind != RSS)
				printf("%s %s\n", scenarios[i].name,
				       *scenarios[i].targets ? scenarios[i].targets : "-");
		return 0;
	}
	for (i = 0; i < NSCEN; i++)
		if (!strcmp(argv[1], scenarios[i].name))
			sc = &scenarios[i];
	if (!sc) {
		fprintf(stderr, "bench: unknown scenario '%s'\n", argv[1]);
		return usage();
	}
	if (argc == 3) {
		char *end;
		errno = 0;
		exact = strtoull(argv[2], &end, 10);
		if (errno || *end || !*argv[2] || argv[2][0] == '-') {
			fprintf(stderr, "bench: bad N '%s'\n", argv[2]);
			return 2;
		}
	}
	switch (sc->kind) {
	case FLOOR:
		return run_floor(exact);
	case BUFFER_FLOOR:
		return run_buffer_floor(sc, exact);
	case RING_FLOOR:
		return run_ring_floor(sc, exact);
	case MONO_RING_FLOOR:
		return run_mono_ring_floor(sc, exact);
	case RATE:
		return run_rate(sc, exact);
	case RSS:
		return run_rss(sc, exact);
	default:
		return run_scenario(sc, exact);
	}
}

int main(int argc, char **argv)
{
	int rc;

	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start((const char **)argv);
	rc = bench_main(argc, argv);
	return trace2_cmd_exit(rc);
}
