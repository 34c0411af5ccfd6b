/* The EVENT target (GIT_TRACE2_EVENT); ctx: a struct tr2_tgt_state. */
#ifndef TR2_TGT_EVENT_H
#define TR2_TGT_EVENT_H

#include "tr2_replay.h"
#include "tr2_tgt.h"

extern const struct trace2_target tr2_tgt_event;
/* For a program replaying records (trace2 convert). */
extern const struct tr2_replay_ops tr2_tgt_event_replay;

#endif
