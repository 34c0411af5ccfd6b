/*
 * The target registry (tr2_registry.c): the built-in targets, then the
 * ones the host registers, each with its destination, and which of them
 * opened.  The dispatcher walks the open ones with every record.
 */
#ifndef TR2_REGISTRY_H
#define TR2_REGISTRY_H

#include "trace2/target.h"
#include "tr2_dst.h"

struct tr2_slot {
	/* what the per-event loop reads, first */
	void (*event)(void *ctx, const struct trace2_event *ev);
	void *ctx;
	int on;      /* atomic: the target's own flag */
	int guarded; /* a registered target: the calls its callback makes are
		      * ignored (the built-in ones make none) */
	const struct trace2_target *target;
	int dst_setting, brief_setting; /* settings rows; -1 without a setting */
	struct tr2_dst dst;
};

/* The targets that opened, in registration order, so that a record
 * passes over no other: set by tr2_registry_open(), before tracing is on.
 * Hidden, so that the dispatcher's loop reads them as directly as its
 * own variables (no GOT entry). */
extern struct tr2_slot *tr2_registry_active[TRACE2_TARGETS_MAX]
	TR2_HIDDEN;
extern int tr2_registry_nactive TR2_HIDDEN;
/* The one target a region event can go to directly (trace2.c's lane):
 * the only one open when it is a built-in; else NULL. */
extern struct tr2_slot *tr2_registry_lane TR2_HIDDEN;

/* The built-in targets, once: normal, perf, event, chrome, stats. */
void tr2_registry_add_builtins(void);
/* A host's target after the built-in ones: 0, EINVAL (a wrong interface
 * version, name or setting) or ENOSPC (the registry is full). */
int tr2_registry_add(const struct trace2_target *target, void *ctx);
/* Open every target's destination and the target; how many are on. */
int tr2_registry_open(void);
/* Every target off and its destination closed, to be opened again. */
void tr2_registry_close(void);
/* The target whose destination is dst goes off. */
void tr2_registry_switch_off(const void *dst);
/* Buffered records out now, and what targets hold back; from a fatal
 * signal's handler, only the buffers. */
void tr2_registry_flush(int from_signal);
/* The shutdown callback of every target that is on. */
void tr2_registry_shutdown(void);
/* Reopen every destination that names a file (async-signal-safe). */
void tr2_registry_reopen(void);
/* In a forked child: the destinations' locks. */
void tr2_registry_after_fork(void);
/* The targets that are on and whose directory destination has too many
 * files; how many were put in out. */
int tr2_registry_too_many_files(const struct tr2_slot *out[TRACE2_TARGETS_MAX]);

#endif
