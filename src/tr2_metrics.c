#include "tr2_metrics.h"
#include "tr2_clock.h"
#include "tr2_diag.h"
#include "tr2_sys.h"
#include "tr2_plat.h"

#include <errno.h>
#include <string.h>

/* Description of a timer or counter id. */
struct def {
	const char *category;
	const char *name;
	int per_thread; /* also reported per thread (th_timer/th_counter) */
};

static struct def timer_defs[TR2_TIMERS_MAX] = {
	[TRACE2_TIMER_ID_TEST1] = { "test", "test1", 0 },
	[TRACE2_TIMER_ID_TEST2] = { "test", "test2", 1 },
};

static struct def counter_defs[TR2_COUNTERS_MAX] = {
	[TRACE2_COUNTER_ID_TEST1] = { "test", "test1", 0 },
	[TRACE2_COUNTER_ID_TEST2] = { "test", "test2", 1 },
	[TRACE2_COUNTER_ID_PACKED_REFS_JUMPS] = { "packed-refs", "jumps_made", 0 },
	[TRACE2_COUNTER_ID_REFTABLE_RESEEKS] = { "reftable", "reseeks_made", 0 },
	[TRACE2_COUNTER_ID_FSYNC_WRITEOUT_ONLY] = { "fsync", "writeout-only", 0 },
	[TRACE2_COUNTER_ID_FSYNC_HARDWARE_FLUSH] = { "fsync", "hardware-flush", 0 },
};

/* The ids in use: defs[0 .. nr).  A definition is complete before nr
 * (release) covers it, so a reader that loads nr (acquire) sees it. */
struct registry {
	struct def *defs;
	int nr;
	int max;
};

static struct registry timers = { timer_defs, TRACE2_NUMBER_OF_TIMERS, TR2_TIMERS_MAX };
static struct registry counters = { counter_defs, TRACE2_NUMBER_OF_COUNTERS,
				    TR2_COUNTERS_MAX };
static tr2_mutex define_lock = TR2_MUTEX_INIT;

static int nr_defined(const struct registry *r)
{
	return __atomic_load_n(&r->nr, __ATOMIC_ACQUIRE);
}

static int is_defined(const struct registry *r, int id)
{
	return id >= 0 && id < nr_defined(r);
}

/* The id of (category, name) in r, or r->nr; under define_lock. */
static int find_def(const struct registry *r, const char *category, const char *name)
{
	int i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->defs[i].category, category) && !strcmp(r->defs[i].name, name))
			break;
	return i;
}

static int add_def(struct registry *r, const char *category, const char *name)
{
	struct def *d = &r->defs[r->nr];

	if (r->nr == r->max) {
		errno = ENOSPC;
		return -1;
	}
	d->category = tr2_strdup(category);
	d->name = tr2_strdup(name);
	if (!d->category || !d->name) {
		tr2_sys.free((char *)d->category);
		tr2_sys.free((char *)d->name);
		d->category = d->name = NULL;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static int define(struct registry *r, const char *category, const char *name,
		  int per_thread)
{
	int id;

	if (!category || !name) {
		errno = EINVAL;
		return -1;
	}
	tr2_mutex_lock(&define_lock);
	id = find_def(r, category, name);
	if (id < r->nr) {
		if (r->defs[id].per_thread != !!per_thread) {
			errno = EINVAL;
			id = -1;
		}
	} else if (add_def(r, category, name)) {
		id = -1;
	} else {
		r->defs[id].per_thread = !!per_thread;
		__atomic_store_n(&r->nr, id + 1, __ATOMIC_RELEASE);
	}
	tr2_mutex_unlock(&define_lock);
	return id;
}

int tr2_metrics_timer_define(const char *category, const char *name, int per_thread)
{
	return define(&timers, category, name, per_thread);
}

int tr2_metrics_counter_define(const char *category, const char *name, int per_thread)
{
	return define(&counters, category, name, per_thread);
}

/* Process totals, under totals_lock. */
static tr2_mutex totals_lock = TR2_MUTEX_INIT;
static struct tr2_timer timer_totals[TR2_TIMERS_MAX];
static uint64_t counter_totals[TR2_COUNTERS_MAX];
/* A thread merged into the totals: clearing them otherwise would fault in
 * their untouched zero pages at every exit. */
static int totals_written;

void tr2_metrics_after_fork(void)
{
	tr2_mutex_init(&totals_lock);
	tr2_mutex_init(&define_lock);
}

/* The defined ids' slots of m, allocated if create; NULL without them. */
static struct tr2_defined_metrics *defined_of(const struct tr2_thread_metrics *m, int create)
{
	struct tr2_thread_metrics *w = (struct tr2_thread_metrics *)m;

	if (!w->defined && create)
		w->defined = tr2_sys.calloc(1, sizeof(*w->defined));
	return w->defined;
}

/* The slot of timer (counter) id in m, NULL when it has none. */
static struct tr2_timer *timer_of(const struct tr2_thread_metrics *m, int id, int create)
{
	struct tr2_defined_metrics *d;

	if (id < TRACE2_NUMBER_OF_TIMERS)
		return (struct tr2_timer *)&m->timers[id];
	d = defined_of(m, create);
	return d ? &d->timers[id - TRACE2_NUMBER_OF_TIMERS] : NULL;
}

static uint64_t *counter_of(const struct tr2_thread_metrics *m, int id, int create)
{
	struct tr2_defined_metrics *d;

	if (id < TRACE2_NUMBER_OF_COUNTERS)
		return (uint64_t *)&m->counters[id];
	d = defined_of(m, create);
	return d ? &d->counters[id - TRACE2_NUMBER_OF_COUNTERS] : NULL;
}

void tr2_metrics_thread_free(struct tr2_thread_metrics *m)
{
	tr2_sys.free(m->defined);
	m->defined = NULL;
}

void tr2_metrics_timer_start(struct tr2_thread_metrics *m, int id)
{
	struct tr2_timer *t;

	if (!is_defined(&timers, id)) {
		tr2_bug("trace2_timer_start: invalid timer id: %d", id);
		return;
	}
	if (!(t = timer_of(m, id, 1)))
		return;
	if (t->depth++ == 0)
		t->start_ns = tr2_now_ns();
}

void tr2_metrics_timer_stop(struct tr2_thread_metrics *m, int id)
{
	struct tr2_timer *t;
	uint64_t interval;

	if (!is_defined(&timers, id)) {
		tr2_bug("trace2_timer_stop: invalid timer id: %d", id);
		return;
	}
	t = timer_of(m, id, 0);
	if (!t || !t->depth) {
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
	if (timers.defs[id].per_thread)
		m->used_thread_timer = 1;
}

void tr2_metrics_counter_add(struct tr2_thread_metrics *m, int id, uint64_t value)
{
	uint64_t *c;

	if (!is_defined(&counters, id)) {
		tr2_bug("trace2_counter_add: invalid counter id: %d", id);
		return;
	}
	if (!(c = counter_of(m, id, 1)))
		return;
	*c += value;
	m->used_counter = 1;
	if (counters.defs[id].per_thread)
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
	int i, nr_timers = nr_defined(&timers), nr_counters = nr_defined(&counters);
	const struct tr2_timer *t;
	const uint64_t *c;

	for (i = 0; m->used_thread_timer && i < nr_timers; i++)
		if (timer_defs[i].per_thread && (t = timer_of(m, i, 0)) && t->intervals)
			report_timer(fn, ctx, TRACE2_EVENT_TH_TIMER, &timer_defs[i], t);
	for (i = 0; m->used_thread_counter && i < nr_counters; i++)
		if (counter_defs[i].per_thread && (c = counter_of(m, i, 0)) && *c)
			report_counter(fn, ctx, TRACE2_EVENT_TH_COUNTER, &counter_defs[i], *c);
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
	int i, nr_timers = nr_defined(&timers), nr_counters = nr_defined(&counters);
	const struct tr2_timer *t;
	const uint64_t *c;

	if (!m->used_timer && !m->used_counter)
		return;
	tr2_mutex_lock(&totals_lock);
	totals_written = 1;
	for (i = 0; m->used_timer && i < nr_timers; i++)
		if ((t = timer_of(m, i, 0)) && t->intervals)
			merge_timer(&timer_totals[i], t);
	for (i = 0; m->used_counter && i < nr_counters; i++)
		if ((c = counter_of(m, i, 0)))
			counter_totals[i] += *c;
	tr2_mutex_unlock(&totals_lock);
}

void tr2_metrics_report_totals(tr2_metrics_report_fn *fn, void *ctx)
{
	int i, nr_timers = nr_defined(&timers), nr_counters = nr_defined(&counters);

	tr2_mutex_lock(&totals_lock);
	for (i = 0; i < nr_timers; i++)
		if (timer_totals[i].intervals)
			report_timer(fn, ctx, TRACE2_EVENT_TIMER, &timer_defs[i],
				     &timer_totals[i]);
	for (i = 0; i < nr_counters; i++)
		if (counter_totals[i])
			report_counter(fn, ctx, TRACE2_EVENT_COUNTER, &counter_defs[i],
				       counter_totals[i]);
	tr2_mutex_unlock(&totals_lock);
}

void tr2_metrics_release(void)
{
	tr2_mutex_lock(&totals_lock);
	if (totals_written) {
		memset(timer_totals, 0, sizeof(timer_totals));
		memset(counter_totals, 0, sizeof(counter_totals));
		totals_written = 0;
	}
	tr2_mutex_unlock(&totals_lock);
}
