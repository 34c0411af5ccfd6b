/* The EVENT target (GIT_TRACE2_EVENT); ctx: a struct tr2_tgt_state. */
#ifndef TR2_TGT_EVENT_H
#define TR2_TGT_EVENT_H

#include "tr2_tgt.h"

extern const struct trace2_target tr2_tgt_event;

#endif
