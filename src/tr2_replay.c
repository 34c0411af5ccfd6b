#include "tr2_replay.h"
#include "tr2_clock.h"
#include "tr2_event.h"
#include "tr2_tgt.h"
#include "tr2_sys.h"
#include "tr2_tgt_chrome.h"
#include "tr2_tgt_event.h"
#include "tr2_tgt_normal.h"
#include "tr2_tgt_perf.h"

#include <string.h>

struct tr2_replay {
	const struct tr2_replay_ops *ops;
	void *state;
	struct tr2_time_cache times; /* the records' formatted times */
	int offset_known;
	int32_t offset;                /* seconds east of UTC */
	struct tr2_time_cache shifted; /* of the times moved by it */
};

static const struct tr2_replay_ops *const builtins[] = {
	&tr2_tgt_chrome_replay,
	&tr2_tgt_perf_replay,
	&tr2_tgt_normal_replay,
	&tr2_tgt_event_replay,
};

int tr2_replay_open(const struct trace2_target *target, void *ctx, struct tr2_dst *dst,
		    int brief, int created)
{
	struct trace2_target_config config;

	memset(&config, 0, sizeof(config));
	config.output = tr2_output_of(dst);
	config.brief = brief;
	config.created = created;
	return target->open(ctx, &config);
}

static const struct tr2_replay_ops *builtin_named(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i]->target->name, name))
			return builtins[i];
	return NULL;
}

struct tr2_replay *tr2_replay_open_builtin(const char *name, struct tr2_dst *dst,
					   const struct tr2_replay_options *opt)
{
	const struct tr2_replay_ops *ops = builtin_named(name);
	struct tr2_replay *r;

	if (!ops || !(r = tr2_sys.calloc(1, sizeof(*r))))
		return NULL;
	r->ops = ops;
	tr2_time_cache_init(&r->times);
	tr2_time_cache_init(&r->shifted);
	if (!(r->state = tr2_sys.calloc(1, ops->state_size)) ||
	    tr2_replay_open(ops->target, r->state, dst, opt->brief, opt->created)) {
		tr2_sys.free(r->state);
		tr2_sys.free(r);
		return NULL;
	}
	if (ops->setup)
		ops->setup(r->state, opt);
	return r;
}

void tr2_replay_utc_offset(struct tr2_replay *r, int known, int32_t offset)
{
	r->offset_known = known;
	r->offset = offset;
}

/* The record's local time of day: its time moved by the offset, and two
 * days more so that it is never negative, read as UTC. */
static void put_local_time(struct tr2_replay *r, struct tr2_ev *ev)
{
	char utc[TR2_UTC_TIME_LEN + 1];
	uint64_t shift = (uint64_t)((int64_t)r->offset + 2 * 86400) * 1000000;

	tr2_fmt_utc_time(&r->shifted, ev->pub.time_us + shift, utc);
	memcpy(ev->local_time, utc + TR2_UTC_TIME_LEN - 1 - TR2_LOCAL_TIME_LEN,
	       TR2_LOCAL_TIME_LEN);
	ev->local_time[TR2_LOCAL_TIME_LEN] = '\0';
	ev->has_local_time = 1;
}

void tr2_replay_event(struct tr2_replay *r, const struct trace2_event *ev)
{
	struct tr2_ev rec;

	rec.pub = *ev;
	rec.times = &r->times;
	rec.has_local_time = 0;
	rec.has_utc_time = 0;
	if (r->offset_known)
		put_local_time(r, &rec);
	r->ops->target->event(r->state, &rec.pub);
}

int tr2_replay_ended(const struct tr2_replay *r)
{
	return r->ops->ended && r->ops->ended(r->state);
}

void tr2_replay_end(struct tr2_replay *r, uint64_t ts)
{
	if (r->ops->end)
		r->ops->end(r->state, ts);
	tr2_sys.free(r->state);
	tr2_sys.free(r);
}
