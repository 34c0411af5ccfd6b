/*
 * A built-in target run by a program on records it has itself (the
 * trace2 command's convert), rather than by the dispatcher on a setting:
 * opened on a destination the program made, usually a sink
 * (tr2_dst_init_sink()), and handed each record with its event().
 */
#ifndef TR2_REPLAY_H
#define TR2_REPLAY_H

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

#endif
