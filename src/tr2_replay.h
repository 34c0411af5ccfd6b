/*
 * A built-in target run by a program on records it has itself (the
 * trace2 command's convert), rather than by the dispatcher on a setting:
 * opened on a destination the program made, usually a sink
 * (tr2_dst_init_sink()), and handed each record with its event().
 */
#ifndef TR2_REPLAY_H
#define TR2_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "trace2/target.h"
#include "tr2_dst.h"

/*
 * Open target (ctx: its state, a struct tr2_tgt_state or a target's own
 * that starts with one) on dst, in brief mode or not; created: its
 * records start the stream (see struct trace2_target_config).  What the
 * target's open() returns.
 */
int tr2_replay_open(const struct trace2_target *target, void *ctx, struct tr2_dst *dst,
		    int brief, int created);

/* How a replayed trace is written. */
struct tr2_replay_options {
	int brief;
	int created;     /* its records start the stream */
	int link_by_pid; /* chrome: a child is linked to its parent by the
			  * pid its child_exit gives (docs/targets.md) */
	long pid;        /* chrome: the traced process's pid */
};

/*
 * What a built-in target offers a replaying program beyond its struct
 * trace2_target, defined in the target's own file.  A program hands in
 * the records of many threads from one thread.
 */
struct tr2_replay_ops {
	const struct trace2_target *target;
	size_t state_size;
	/* After open(): the options beyond brief and created (NULL: none). */
	void (*setup)(void *ctx, const struct tr2_replay_options *opt);
	/* The trace has finished itself (NULL: never before its end). */
	int (*ended)(void *ctx);
	/* The trace ends at ts if it has not, and the state lets go of what
	 * it holds (NULL: nothing to do). */
	void (*end)(void *ctx, uint64_t ts);
};

struct tr2_replay;

/* The built-in target called name ("chrome", "perf", "normal", "event") opened on
 * dst with its own state; NULL: no such target, no memory, or its open()
 * failed. */
struct tr2_replay *tr2_replay_open_builtin(const char *name, struct tr2_dst *dst,
					   const struct tr2_replay_options *opt);
/* A record to r's target: ev as the program filled it (kind, times,
 * thread, process, nesting, payload), around which the replay keeps what
 * the library's records carry (their formatted times). */
void tr2_replay_event(struct tr2_replay *r, const struct trace2_event *ev);
/* The local time of the records r gets next (the normal and perf
 * targets' time of day): UTC + offset seconds when known (a recording's
 * TZ block), else the machine's, as the library's own records. */
void tr2_replay_utc_offset(struct tr2_replay *r, int known, int32_t offset);
/* The trace has finished itself (an atexit, a signal): end it. */
int tr2_replay_ended(const struct tr2_replay *r);
/* The trace ends at ts (if it has not ended itself); r is freed. */
void tr2_replay_end(struct tr2_replay *r, uint64_t ts);

#endif
