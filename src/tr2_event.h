/*
 * The event record as the library builds it: the public struct
 * trace2_event, and beside it what every target of one call shares (the
 * formatted times, made by the first target that needs them).
 */
#ifndef TR2_EVENT_H
#define TR2_EVENT_H

#include <stdint.h>

#include "trace2/target.h"
#include "tr2_clock.h"

struct tr2_ev {
	struct trace2_event pub;
	struct tr2_time_cache *times; /* the calling thread's */
	unsigned has_local_time : 1, has_utc_time : 1;
	char local_time[TR2_LOCAL_TIME_LEN + 1];
	char utc_time[TR2_UTC_TIME_LEN + 1];
};

/* The record around a public one the library made (its object is never
 * const: targets get a const view). */
static inline struct tr2_ev *tr2_ev_of(const struct trace2_event *ev)
{
	return (struct tr2_ev *)(uintptr_t)ev;
}

/* Start a record: kind, location, times and their cache; the thread,
 * process, nesting and payload are the caller's to fill. */
static inline void tr2_ev_start(struct tr2_ev *ev, enum trace2_event_kind kind,
				const char *file, int line, uint64_t time_us,
				uint64_t t_abs_us, struct tr2_time_cache *times)
{
	ev->pub.kind = kind;
	ev->pub.file = file;
	ev->pub.line = line;
	ev->pub.time_us = time_us;
	ev->pub.t_abs_us = t_abs_us;
	ev->pub.t_rel_us = 0;
	ev->times = times;
	ev->has_local_time = 0;
	ev->has_utc_time = 0;
}

#endif
