/* Per-thread trace2 state: name, region stack, timers, counters. */
#ifndef TR2_TLS_H
#define TR2_TLS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "trace2.h"
#include "tr2_clock.h"
#include "tr2_json.h"

#define TR2_THREAD_NAME_MAX 24
#define TR2_INLINE_STACK 32

struct tr2_timer {
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t start_ns;
	uint64_t intervals;
	unsigned depth; /* nested starts; only the outermost pair counts */
};

struct tr2_tls {
	int thread_id;
	size_t name_len;
	char name[TR2_THREAD_NAME_MAX + 1];
	size_t json_name_len;
	char json_name[TR2_JSON_ESCAPED_MAX(TR2_THREAD_NAME_MAX)];

	uint64_t thread_start_us;
	uint64_t *stack; /* region start times; stack[0] = thread start */
	size_t nr;
	size_t alloc;

	struct tr2_timer timers[TRACE2_NUMBER_OF_TIMERS];
	uint64_t counters[TRACE2_NUMBER_OF_COUNTERS];
	unsigned used_timer : 1, used_thread_timer : 1;
	unsigned used_counter : 1, used_thread_counter : 1;

	struct tr2_time_cache times;
	uint64_t inline_stack[TR2_INLINE_STACK];
};

/* Set up the key and the main thread's context (named "main", id 0,
 * stack = [process start]).  Called once by trace2_initialize(). */
void tr2_tls_init(void);
/* Free the calling thread's context and forget the main one. */
void tr2_tls_release(void);

/* The calling thread's context, created as "thNN:unknown" if it has none
 * (NULL only if memory runs out). */
struct tr2_tls *tr2_tls_get(void);
/* The context trace2_initialize() made (NULL before and after). */
struct tr2_tls *tr2_tls_main(void);
/* The calling thread's context, or NULL if it has none yet. */
struct tr2_tls *tr2_tls_current(void);
/* Create the calling thread's context named "thNN:<base>", starting now. */
struct tr2_tls *tr2_tls_create(const char *base, uint64_t us_start);
/* Destroy the calling thread's context. */
void tr2_tls_destroy(void);
int tr2_tls_is_main(const struct tr2_tls *ctx);

/* Push a region start time; -1 if memory ran out (region not opened). */
int tr2_tls_push(struct tr2_tls *ctx, uint64_t us);
/* Pop the innermost region; its elapsed time (0 on an empty stack). */
uint64_t tr2_tls_pop(struct tr2_tls *ctx, uint64_t us_now);
/* Time since the innermost region started (0 on an empty stack). */
uint64_t tr2_tls_region_elapsed(const struct tr2_tls *ctx, uint64_t us_now);
/* Drop every region above the base entry. */
void tr2_tls_unwind(struct tr2_tls *ctx);

/* In a forked child: the lock may have been held by a thread that is
 * not there any more. */
void tr2_tls_after_fork(void);
/* The process-wide lock for id counters and timer/counter totals. */
void tr2_lock(void);
void tr2_unlock(void);

/* Run fn once per process, the first time *done is 0, under lock (reset
 * it in a forked child).  Not pthread_once(): glibc's makes a futex call
 * even when no thread waits, one system call more per traced process. */
void tr2_run_once(int *done, pthread_mutex_t *lock, void (*fn)(void));

#endif
