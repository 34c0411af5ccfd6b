/*
 * Stopwatch timers and counters: accumulated per thread without locks,
 * reported when a thread exits (th_timer, th_counter) and at process exit
 * (the totals of every thread that exited through trace2_thread_exit()).
 */
#ifndef TR2_METRICS_H
#define TR2_METRICS_H

#include <stdint.h>

#include "trace2/target.h"

struct tr2_timer {
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t start_ns;
	uint64_t intervals;
	unsigned depth; /* nested starts; only the outermost pair counts */
};

/* How many timers and counters trace2_timer_define() and
 * trace2_counter_define() can add to the built-in ones. */
#define TR2_METRICS_DEFINED_MAX 256
#define TR2_TIMERS_MAX (TRACE2_NUMBER_OF_TIMERS + TR2_METRICS_DEFINED_MAX)
#define TR2_COUNTERS_MAX (TRACE2_NUMBER_OF_COUNTERS + TR2_METRICS_DEFINED_MAX)

/* A thread's slots of the defined ids (14 KiB): allocated at its first
 * use of one, so that threads that use none stay small. */
struct tr2_defined_metrics {
	struct tr2_timer timers[TR2_METRICS_DEFINED_MAX];
	uint64_t counters[TR2_METRICS_DEFINED_MAX];
};

/* One thread's timers and counters, built-in and defined. */
struct tr2_thread_metrics {
	struct tr2_timer timers[TRACE2_NUMBER_OF_TIMERS];
	uint64_t counters[TRACE2_NUMBER_OF_COUNTERS];
	struct tr2_defined_metrics *defined; /* NULL until needed */
	unsigned used_timer : 1, used_thread_timer : 1;
	unsigned used_counter : 1, used_thread_counter : 1;
};

/*
 * A new timer or counter id reported under category and name (copied),
 * per thread too if per_thread; the id of the same definition made
 * before (the built-in ones included).  -1 with errno EINVAL (a NULL
 * string, or the name defined with another per_thread), ENOSPC (past
 * TR2_METRICS_DEFINED_MAX) or ENOMEM.  Any thread, any time.
 */
int tr2_metrics_timer_define(const char *category, const char *name, int per_thread);
int tr2_metrics_counter_define(const char *category, const char *name, int per_thread);

/* Start, stop and add; an invalid id (or a stop of a timer that is not
 * running) is a BUG and changes nothing, and so does a defined id on a
 * thread whose slots cannot be allocated. */
void tr2_metrics_timer_start(struct tr2_thread_metrics *m, int id);
void tr2_metrics_timer_stop(struct tr2_thread_metrics *m, int id);
void tr2_metrics_counter_add(struct tr2_thread_metrics *m, int id, uint64_t value);

/* Each value to report, as the payload of a record of the given kind
 * (TRACE2_EVENT_TIMER and the others); the strings are static. */
typedef void tr2_metrics_report_fn(void *ctx, enum trace2_event_kind kind,
				   const struct trace2_ev_timer *timer,
				   const struct trace2_ev_counter *counter);
/* The per-thread timers and counters of m that are used. */
void tr2_metrics_report_thread(const struct tr2_thread_metrics *m,
			       tr2_metrics_report_fn *fn, void *ctx);
/* Free the defined ids' slots of a thread whose context goes. */
void tr2_metrics_thread_free(struct tr2_thread_metrics *m);
/* Add a thread's values to the process totals. */
void tr2_metrics_merge_thread(const struct tr2_thread_metrics *m);
/* The process totals that are used. */
void tr2_metrics_report_totals(tr2_metrics_report_fn *fn, void *ctx);
/* Zero the totals (atexit). */
void tr2_metrics_release(void);
/* In a forked child: the totals' lock may be held by a thread left behind. */
void tr2_metrics_after_fork(void);

#endif
