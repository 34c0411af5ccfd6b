/* Per-thread trace2 state: name, region stack, timers, counters. */
#ifndef TR2_TLS_H
#define TR2_TLS_H

#include "tr2_plat.h"
#include <stddef.h>
#include <stdint.h>

#include "trace2/target.h"
#include "tr2_clock.h"
#include "tr2_json.h"
#include "tr2_metrics.h"

#define TR2_THREAD_NAME_MAX 24
#define TR2_INLINE_STACK 32

struct tr2_tls {
	struct trace2_thread pub; /* what records show of the thread */
	char name[TR2_THREAD_NAME_MAX + 1];
	char json_name[TR2_JSON_ESCAPED_MAX(TR2_THREAD_NAME_MAX)];

	uint64_t thread_start_us;
	uint64_t *stack; /* region start times; stack[0] = thread start */
	size_t nr;
	size_t alloc;
	size_t unpushed; /* regions entered when the stack could not grow:
			  * neither they nor their leaves are traced */
	size_t filtered; /* entries of regions a category filter hides */
	int dispatching; /* inside a target's callback: calls are ignored */

	struct tr2_thread_metrics metrics;

	struct tr2_time_cache times;
	uint64_t inline_stack[TR2_INLINE_STACK];
};

/* What frees the parts of a context the layers above fill (its
 * metrics), called on every context freed: by tr2_tls_destroy(),
 * tr2_tls_release() and at the end of a thread that did not call
 * trace2_thread_exit(). */
typedef void tr2_tls_free_fn(struct tr2_tls *ctx);
void tr2_tls_set_free_hook(tr2_tls_free_fn *fn);

/* Set up the key and the main thread's context (named "main", id 0,
 * stack = [process start]).  Called once by trace2_initialize(). */
void tr2_tls_init(void);
/* Free the calling thread's context and forget the main one. */
void tr2_tls_release(void);

/* The calling thread's context, created as "thNN:unknown" if it has none
 * (NULL only if memory runs out). */
struct tr2_tls *tr2_tls_get(void);
/* Read through the two functions below; hidden, so read directly. */
extern struct tr2_tls *tr2_tls_main_ctx TR2_HIDDEN;
extern _Thread_local struct tr2_tls *tr2_tls_cur TR2_HIDDEN;

/* The context trace2_initialize() made (NULL before and after). */
static inline struct tr2_tls *tr2_tls_main(void)
{
	return tr2_tls_main_ctx;
}

/* The calling thread's context, or NULL if it has none yet. */
static inline struct tr2_tls *tr2_tls_current(void)
{
	return tr2_tls_cur;
}
/* Create the calling thread's context named "thNN:<base>", starting now. */
struct tr2_tls *tr2_tls_create(const char *base, uint64_t us_start);
/* Make ctx (zeroed by the caller, who owns it) the calling thread's
 * context without numbering it: the deferred writer's, which replays
 * other threads' records under their names (tr2_defer.c). */
void tr2_tls_adopt(struct tr2_tls *ctx);
/* Destroy the calling thread's context. */
void tr2_tls_destroy(void);
int tr2_tls_is_main(const struct tr2_tls *ctx);

/* Push a region start time; -1 if memory ran out (region not opened). */
int tr2_tls_push(struct tr2_tls *ctx, uint64_t us);
/* Pop the innermost region; its elapsed time (0 on an empty stack). */
uint64_t tr2_tls_pop(struct tr2_tls *ctx, uint64_t us_now);
/* Time since the innermost region started (0 on an empty stack). */
uint64_t tr2_tls_region_elapsed(const struct tr2_tls *ctx, uint64_t us_now);
/* Push the entry of a region that is not written (a category filter):
 * its leave pairs with it, but it counts toward neither the nesting nor
 * the t_rel of what happens inside it; -1 if memory ran out. */
int tr2_tls_push_filtered(struct tr2_tls *ctx);
/*
 * The entry of a filtered region holds, instead of its own start, the
 * start of the innermost written region below it (or TR2_TLS_NO_START
 * when there is none), marked TR2_TLS_FILTERED: what happens inside it
 * measures its t_rel from there, as if the filtered region had never
 * been entered.  Times in microseconds never reach these bits.
 */
#define TR2_TLS_FILTERED (1ull << 63)
#define TR2_TLS_NO_START (1ull << 62)

/* 1 if the innermost entry is one of tr2_tls_push_filtered(). */
static inline int tr2_tls_top_filtered(const struct tr2_tls *ctx)
{
	return ctx->nr && (ctx->stack[ctx->nr - 1] & TR2_TLS_FILTERED);
}

/* The nesting records show: the entries of written regions. */
static inline size_t tr2_tls_nesting(const struct tr2_tls *ctx)
{
	return ctx->nr - ctx->filtered;
}

/* Drop every region above the base entry. */
void tr2_tls_unwind(struct tr2_tls *ctx);

/* In a forked child: the lock may have been held by a thread that is
 * not there any more. */
void tr2_tls_after_fork(void);

#endif
