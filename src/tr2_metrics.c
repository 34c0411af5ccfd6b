#include "tr2_metrics.h"
#include "tr2_clock.h"
#include "tr2_diag.h"

#include <pthread.h>
#include <string.h>

/* Static description of a timer or counter id. */
struct def {
	const char *category;
	const char *name;
	int per_thread; /* also reported per thread (th_timer/th_counter) */
};

static const struct def timer_defs[TRACE2_NUMBER_OF_TIMERS] = {
	[TRACE2_TIMER_ID_TEST1] = { "test", "test1", 0 },
	[TRACE2_TIMER_ID_TEST2] = { "test", "test2", 1 },
};

static const struct def counter_defs[TRACE2_NUMBER_OF_COUNTERS] = {
	[TRACE2_COUNTER_ID_TEST1] = { "test", "test1", 0 },
	[TRACE2_COUNTER_ID_TEST2] = { "test", "test2", 1 },
	[TRACE2_COUNTER_ID_PACKED_REFS_JUMPS] = { "packed-refs", "jumps_made", 0 },
	[TRACE2_COUNTER_ID_REFTABLE_RESEEKS] = { "reftable", "reseeks_made", 0 },
	[TRACE2_COUNTER_ID_FSYNC_WRITEOUT_ONLY] = { "fsync", "writeout-only", 0 },
	[TRACE2_COUNTER_ID_FSYNC_HARDWARE_FLUSH] = { "fsync", "hardware-flush", 0 },
};

/* Process totals, under totals_lock. */
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tr2_timer timer_totals[TRACE2_NUMBER_OF_TIMERS];
static uint64_t counter_totals[TRACE2_NUMBER_OF_COUNTERS];

void tr2_metrics_after_fork(void)
{
	pthread_mutex_init(&totals_lock, NULL);
}

void tr2_metrics_timer_start(struct tr2_thread_metrics *m, int id)
{
	struct tr2_timer *t;

	if ((unsigned)id >= TRACE2_NUMBER_OF_TIMERS) {
		tr2_bug("trace2_timer_start: invalid timer id: %d", id);
		return;
	}
	t = &m->timers[id];
	if (t->depth++ == 0)
		t->start_ns = tr2_now_ns();
}

void tr2_metrics_timer_stop(struct tr2_thread_metrics *m, int id)
{
	struct tr2_timer *t;
	uint64_t interval;

	if ((unsigned)id >= TRACE2_NUMBER_OF_TIMERS) {
		tr2_bug("trace2_timer_stop: invalid timer id: %d", id);
		return;
	}
	t = &m->timers[id];
	if (!t->depth) {
		tr2_bug("trace2_timer_stop: timer %d is not running", id);
		return;
	}
	if (--t->depth)
		return;
	interval = tr2_now_ns() - t->start_ns;
	t->total_ns += interval;
	if (!t->intervals || interval < t->min_ns)
		t->min_ns = interval;
	if (!t->intervals || interval > t->max_ns)
		t->max_ns = interval;
	t->intervals++;
	m->used_timer = 1;
	if (timer_defs[id].per_thread)
		m->used_thread_timer = 1;
}

void tr2_metrics_counter_add(struct tr2_thread_metrics *m, int id, uint64_t value)
{
	if ((unsigned)id >= TRACE2_NUMBER_OF_COUNTERS) {
		tr2_bug("trace2_counter_add: invalid counter id: %d", id);
		return;
	}
	m->counters[id] += value;
	m->used_counter = 1;
	if (counter_defs[id].per_thread)
		m->used_thread_counter = 1;
}

static void report_timer(tr2_metrics_report_fn *fn, void *ctx, enum trace2_event_kind kind,
			 const struct def *def, const struct tr2_timer *t)
{
	struct trace2_ev_timer r = { def->category, def->name, t->intervals,
				     t->total_ns, t->min_ns, t->max_ns };

	fn(ctx, kind, &r, NULL);
}

static void report_counter(tr2_metrics_report_fn *fn, void *ctx,
			   enum trace2_event_kind kind, const struct def *def,
			   uint64_t value)
{
	struct trace2_ev_counter r = { def->category, def->name, value };

	fn(ctx, kind, NULL, &r);
}

void tr2_metrics_report_thread(const struct tr2_thread_metrics *m,
			       tr2_metrics_report_fn *fn, void *ctx)
{
	int i;

	for (i = 0; m->used_thread_timer && i < TRACE2_NUMBER_OF_TIMERS; i++)
		if (timer_defs[i].per_thread && m->timers[i].intervals)
			report_timer(fn, ctx, TRACE2_EVENT_TH_TIMER, &timer_defs[i],
				     &m->timers[i]);
	for (i = 0; m->used_thread_counter && i < TRACE2_NUMBER_OF_COUNTERS; i++)
		if (counter_defs[i].per_thread && m->counters[i])
			report_counter(fn, ctx, TRACE2_EVENT_TH_COUNTER, &counter_defs[i],
				       m->counters[i]);
}

static void merge_timer(struct tr2_timer *total, const struct tr2_timer *t)
{
	if (!total->intervals) {
		total->min_ns = t->min_ns;
		total->max_ns = t->max_ns;
	} else {
		if (t->min_ns < total->min_ns)
			total->min_ns = t->min_ns;
		if (t->max_ns > total->max_ns)
			total->max_ns = t->max_ns;
	}
	total->total_ns += t->total_ns;
	total->intervals += t->intervals;
}

void tr2_metrics_merge_thread(const struct tr2_thread_metrics *m)
{
	int i;

	if (!m->used_timer && !m->used_counter)
		return;
	pthread_mutex_lock(&totals_lock);
	for (i = 0; m->used_timer && i < TRACE2_NUMBER_OF_TIMERS; i++)
		if (m->timers[i].intervals)
			merge_timer(&timer_totals[i], &m->timers[i]);
	for (i = 0; m->used_counter && i < TRACE2_NUMBER_OF_COUNTERS; i++)
		counter_totals[i] += m->counters[i];
	pthread_mutex_unlock(&totals_lock);
}

void tr2_metrics_report_totals(tr2_metrics_report_fn *fn, void *ctx)
{
	int i;

	pthread_mutex_lock(&totals_lock);
	for (i = 0; i < TRACE2_NUMBER_OF_TIMERS; i++)
		if (timer_totals[i].intervals)
			report_timer(fn, ctx, TRACE2_EVENT_TIMER, &timer_defs[i],
				     &timer_totals[i]);
	for (i = 0; i < TRACE2_NUMBER_OF_COUNTERS; i++)
		if (counter_totals[i])
			report_counter(fn, ctx, TRACE2_EVENT_COUNTER, &counter_defs[i],
				       counter_totals[i]);
	pthread_mutex_unlock(&totals_lock);
}

void tr2_metrics_release(void)
{
	pthread_mutex_lock(&totals_lock);
	memset(timer_totals, 0, sizeof(timer_totals));
	memset(counter_totals, 0, sizeof(counter_totals));
	pthread_mutex_unlock(&totals_lock);
}
