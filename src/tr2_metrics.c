/*
 * Stopwatch timers and counters: accumulated per thread without locks,
 * reported when a thread exits (th_timer, th_counter) and at process exit
 * (the totals of every thread that exited through trace2_thread_exit()).
 */
#include "tr2_dispatch.h"
#include "tr2_bug.h"

static const struct tr2_metric timer_defs[TRACE2_NUMBER_OF_TIMERS] = {
	[TRACE2_TIMER_ID_TEST1] = { "test", "test1", 0 },
	[TRACE2_TIMER_ID_TEST2] = { "test", "test2", 1 },
};

static const struct tr2_metric counter_defs[TRACE2_NUMBER_OF_COUNTERS] = {
	[TRACE2_COUNTER_ID_TEST1] = { "test", "test1", 0 },
	[TRACE2_COUNTER_ID_TEST2] = { "test", "test2", 1 },
	[TRACE2_COUNTER_ID_PACKED_REFS_JUMPS] = { "packed-refs", "jumps_made", 0 },
	[TRACE2_COUNTER_ID_REFTABLE_RESEEKS] = { "reftable", "reseeks_made", 0 },
	[TRACE2_COUNTER_ID_FSYNC_WRITEOUT_ONLY] = { "fsync", "writeout-only", 0 },
	[TRACE2_COUNTER_ID_FSYNC_HARDWARE_FLUSH] = { "fsync", "hardware-flush", 0 },
};

/* Process totals, guarded by tr2_lock(). */
static struct tr2_timer timer_totals[TRACE2_NUMBER_OF_TIMERS];
static uint64_t counter_totals[TRACE2_NUMBER_OF_COUNTERS];

static struct tr2_tls *metrics_tls(void)
{
	return tr2_tls_get();
}

void(trace2_timer_start)(enum trace2_timer_id tid)
{
	struct tr2_tls *tls;
	struct tr2_timer *t;

	if (!tr2_enabled())
		return;
	if ((unsigned)tid >= TRACE2_NUMBER_OF_TIMERS) {
		tr2_bug("trace2_timer_start: invalid timer id: %d", (int)tid);
		return;
	}
	if (!(tls = metrics_tls()))
		return;
	t = &tls->timers[tid];
	if (t->depth++ == 0)
		t->start_ns = tr2_now_ns();
}

void(trace2_timer_stop)(enum trace2_timer_id tid)
{
	struct tr2_tls *tls;
	struct tr2_timer *t;
	uint64_t interval;

	if (!tr2_enabled())
		return;
	if ((unsigned)tid >= TRACE2_NUMBER_OF_TIMERS) {
		tr2_bug("trace2_timer_stop: invalid timer id: %d", (int)tid);
		return;
	}
	if (!(tls = metrics_tls()))
		return;
	t = &tls->timers[tid];
	if (!t->depth) {
		tr2_bug("trace2_timer_stop: timer %d is not running", (int)tid);
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
	tls->used_timer = 1;
	if (timer_defs[tid].per_thread)
		tls->used_thread_timer = 1;
}

void(trace2_counter_add)(enum trace2_counter_id cid, uint64_t value)
{
	struct tr2_tls *tls;

	if (!tr2_enabled())
		return;
	if ((unsigned)cid >= TRACE2_NUMBER_OF_COUNTERS) {
		tr2_bug("trace2_counter_add: invalid counter id: %d", (int)cid);
		return;
	}
	if (!(tls = metrics_tls()))
		return;
	tls->counters[cid] += value;
	tls->used_counter = 1;
	if (counter_defs[cid].per_thread)
		tls->used_thread_counter = 1;
}

void tr2_metrics_report_thread(struct tr2_ev *ev)
{
	const struct tr2_tls *tls = ev->tls;
	int i;

	for (i = 0; tls->used_thread_timer && i < TRACE2_NUMBER_OF_TIMERS; i++)
		if (timer_defs[i].per_thread && tls->timers[i].intervals)
			tr2_dispatch(timer, ev, &timer_defs[i], &tls->timers[i], 1);
	for (i = 0; tls->used_thread_counter && i < TRACE2_NUMBER_OF_COUNTERS; i++)
		if (counter_defs[i].per_thread && tls->counters[i])
			tr2_dispatch(counter, ev, &counter_defs[i], tls->counters[i], 1);
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

void tr2_metrics_merge_thread(const struct tr2_tls *tls)
{
	int i;

	if (!tls->used_timer && !tls->used_counter)
		return;
	tr2_lock();
	for (i = 0; tls->used_timer && i < TRACE2_NUMBER_OF_TIMERS; i++)
		if (tls->timers[i].intervals)
			merge_timer(&timer_totals[i], &tls->timers[i]);
	for (i = 0; tls->used_counter && i < TRACE2_NUMBER_OF_COUNTERS; i++)
		counter_totals[i] += tls->counters[i];
	tr2_unlock();
}

void tr2_metrics_report_totals(struct tr2_ev *ev)
{
	int i;

	tr2_lock();
	for (i = 0; i < TRACE2_NUMBER_OF_TIMERS; i++)
		if (timer_totals[i].intervals)
			tr2_dispatch(timer, ev, &timer_defs[i], &timer_totals[i], 0);
	for (i = 0; i < TRACE2_NUMBER_OF_COUNTERS; i++)
		if (counter_totals[i])
			tr2_dispatch(counter, ev, &counter_defs[i], counter_totals[i], 0);
	tr2_unlock();
}

void tr2_metrics_release(void)
{
	tr2_lock();
	memset(timer_totals, 0, sizeof(timer_totals));
	memset(counter_totals, 0, sizeof(counter_totals));
	tr2_unlock();
}
