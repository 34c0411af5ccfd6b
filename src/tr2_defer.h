/*
 * Deferred mode (GIT_TRACE2_DEFERRED, tr2_defer.c): the traced thread
 * copies each record into a ring of its own; one writer thread of the
 * library drains every ring and hands the records back to the dispatcher,
 * which runs the targets.
 */
#ifndef TR2_DEFER_H
#define TR2_DEFER_H

#include <stddef.h>

#include "tr2_event.h"
#include "tr2_tls.h"

/* The mode is on: records go to the rings (read relaxed on every event). */
extern int tr2_defer_on;
/* Deferred or flight mode is on: a region record of the common case may
 * take tr2_defer_region() (read relaxed by the dispatcher's lane). */
extern int tr2_defer_lane;

struct tr2_defer_ops {
	/* Run the targets on a replayed record (the process is the
	 * dispatcher's to fill in).  self is the draining thread's context;
	 * from_signal: inside a fatal signal's handler. */
	void (*replay)(struct tr2_tls *self, struct tr2_ev *ev, int from_signal);
	/* Write out what the targets and the buffers hold. */
	void (*flush)(int from_signal);
};

/* The default ring size and the writer's default buffer size. */
#define TR2_DEFER_RING ((size_t)16 << 20)
#define TR2_DEFER_BUFFER ((size_t)64 << 10)

/* At initialize: start the writer thread with rings of ring_size bytes
 * (rounded up to a power of two).  0, or -1 (the mode stays off).  With
 * flight set, flight mode instead: no writer, rings that overwrite their
 * oldest records, written only by tr2_defer_dump(). */
int tr2_defer_start(const struct tr2_defer_ops *ops, size_t ring_size, int flight);

/* Queue the calling thread's record: 0 when it is queued or counted as
 * dropped, -1 when the caller must dispatch it now (a signal record, the
 * draining thread's own reports, a record larger than a quarter ring or
 * no memory for the ring; such a record first drains the rings). */
int tr2_defer_push(struct tr2_tls *tls, const struct tr2_ev *ev);

/* Every queued record out through the targets, then flush: what must be
 * on disk before a child starts, an exec or an exit.  Waits at most
 * the destinations' wait limit for the writer to let go. */
void tr2_defer_drain(void);

/* The same from the handler of a fatal signal: no lock, no allocation,
 * a bounded wait, and only targets that are async-signal-safe. */
void tr2_defer_drain_from_signal(void);

/* At exit: stop and join the writer, drain, report the drops still
 * pending, and turn the mode off.  Flight mode: only off, nothing
 * written (dump first to have it). */
void tr2_defer_stop(void);

/* Flight mode: what every ring holds out through the targets (from a
 * signal handler only the async-signal-safe ones: no lock, no
 * allocation, bounded waits), each thread's losses told, and a "trace2"
 * "flight" data record with the reason; the rings are then empty.  0,
 * or -1 when not in flight mode or another dump held the rings too
 * long.  Async-signal-safe with from_signal set. */
int tr2_defer_dump(const char *reason, int from_signal);

/* Whether flight mode is on. */
int tr2_defer_flight(void);

/* The calling thread's region enter or leave (no message) queued in a
 * compact form, its strings by address when they are the program's own
 * literals; 0, or -1 when it must take tr2_defer_push(). */
int tr2_defer_region(struct tr2_tls *tls, const struct trace2_event *ev);

#endif
