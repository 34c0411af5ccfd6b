#include "tr2_tls.h"
#include "tr2_hot.h"
#include "tr2_sys.h"
#include "tr2_buf.h"

#include "tr2_plat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tr2_mutex key_mutex = TR2_MUTEX_INIT;
static tr2_key tls_key;
static int key_made; /* atomic */
static int next_thread_id;
struct tr2_tls *tr2_tls_main_ctx;
_Thread_local struct tr2_tls *tr2_tls_cur;
static tr2_tls_free_fn *free_hook; /* atomic */

void tr2_tls_set_free_hook(tr2_tls_free_fn *fn)
{
	__atomic_store_n(&free_hook, fn, __ATOMIC_RELEASE);
}

void tr2_tls_after_fork(void)
{
	tr2_mutex_init(&key_mutex);
}

static void free_ctx(struct tr2_tls *ctx)
{
	tr2_tls_free_fn *hook = __atomic_load_n(&free_hook, __ATOMIC_ACQUIRE);

	if (hook)
		hook(ctx);
	if (ctx->stack != ctx->inline_stack)
		tr2_sys.free(ctx->stack);
	tr2_sys.free(ctx);
}

/* A thread that ends without trace2_thread_exit() still frees its context. */
static void on_thread_end(void *ctx)
{
	if (ctx != tr2_tls_main_ctx)
		free_ctx(ctx);
}

static void make_key(void)
{
	tr2_key_create(&tls_key, on_thread_end);
}

static void set_name(struct tr2_tls *ctx, const char *base)
{
	char *p = ctx->name, *end = ctx->name + TR2_THREAD_NAME_MAX;

	/* "th%02d:<base>" (just <base> for main), cut to the maximum; the
	 * prefix is at most "th2147483647:", shorter than the maximum */
	if (ctx->pub.id) {
		p = tr2_put_lit(p, "th");
		if (ctx->pub.id < 10)
			*p++ = '0';
		p = tr2_put_u64(p, (uint64_t)ctx->pub.id);
		*p++ = ':';
	}
	p = tr2_put(p, base, tr2_strnlen(base, (size_t)(end - p)));
	*p = '\0';
	ctx->pub.name = ctx->name;
	ctx->pub.name_len = (size_t)(p - ctx->name);
	ctx->pub.json_name = ctx->json_name;
	ctx->pub.json_name_len = tr2_json_escape(ctx->json_name, ctx->name,
						 ctx->pub.name_len);
}

struct tr2_tls *tr2_tls_create(const char *base, uint64_t us_start)
{
	struct tr2_tls *ctx = tr2_sys.calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	tr2_run_once(&key_made, &key_mutex, make_key);
	ctx->pub.id = __atomic_fetch_add(&next_thread_id, 1, __ATOMIC_RELAXED);
	set_name(ctx, base ? base : "(null)");
	ctx->stack = ctx->inline_stack;
	ctx->alloc = TR2_INLINE_STACK;
	ctx->stack[0] = us_start;
	ctx->nr = 1;
	ctx->thread_start_us = us_start;
	tr2_time_cache_init(&ctx->times);
	if (tr2_tls_cur && tr2_tls_cur != tr2_tls_main_ctx)
		free_ctx(tr2_tls_cur);
	tr2_tls_cur = ctx;
	tr2_key_set(tls_key, ctx);
	return ctx;
}

void tr2_tls_adopt(struct tr2_tls *ctx)
{
	ctx->stack = ctx->inline_stack;
	ctx->alloc = TR2_INLINE_STACK;
	ctx->nr = 1;
	tr2_time_cache_init(&ctx->times);
	tr2_tls_cur = ctx;
}

void tr2_tls_init(void)
{
	tr2_clock_capture_start();
	__atomic_store_n(&next_thread_id, 0, __ATOMIC_RELAXED);
	tr2_tls_main_ctx = tr2_tls_create("main", tr2_start_us());
}

TR2_HOT struct tr2_tls *tr2_tls_get(void)
{
	if (tr2_tls_cur)
		return tr2_tls_cur;
	return tr2_tls_create("unknown", tr2_now_us());
}

int tr2_tls_is_main(const struct tr2_tls *ctx)
{
	return ctx == tr2_tls_main_ctx;
}

void tr2_tls_destroy(void)
{
	struct tr2_tls *ctx = tr2_tls_cur;

	if (!ctx)
		return;
	tr2_tls_cur = NULL;
	tr2_key_set(tls_key, NULL);
	if (ctx == tr2_tls_main_ctx)
		tr2_tls_main_ctx = NULL;
	free_ctx(ctx);
}

void tr2_tls_release(void)
{
	struct tr2_tls *m = tr2_tls_main_ctx;

	tr2_tls_destroy();
	/* atexit may run on another thread; the main context goes too. */
	if (m && tr2_tls_main_ctx == m) {
		tr2_tls_main_ctx = NULL;
		free_ctx(m);
	}
}

TR2_HOT int tr2_tls_push(struct tr2_tls *ctx, uint64_t us)
{
	if (ctx->nr == ctx->alloc) {
		size_t alloc = ctx->alloc * 2;
		uint64_t *s;

		if (ctx->stack == ctx->inline_stack) {
			s = tr2_sys.malloc(alloc * sizeof(*s));
			if (s)
				memcpy(s, ctx->stack, ctx->nr * sizeof(*s));
		} else
			s = tr2_sys.realloc(ctx->stack, alloc * sizeof(*s));
		if (!s)
			return -1;
		ctx->stack = s;
		ctx->alloc = alloc;
	}
	ctx->stack[ctx->nr++] = us;
	return 0;
}

int tr2_tls_push_filtered(struct tr2_tls *ctx)
{
	uint64_t below = ctx->nr ? ctx->stack[ctx->nr - 1] : TR2_TLS_NO_START;

	if (tr2_tls_push(ctx, below | TR2_TLS_FILTERED))
		return -1;
	ctx->filtered++;
	return 0;
}

uint64_t tr2_tls_region_elapsed(const struct tr2_tls *ctx, uint64_t us_now)
{
	uint64_t start;

	if (!ctx->nr)
		return 0;
	start = ctx->stack[ctx->nr - 1];
	if (__builtin_expect(!!(start & (TR2_TLS_FILTERED | TR2_TLS_NO_START)), 0)) {
		if (start & TR2_TLS_NO_START)
			return 0;
		start &= ~TR2_TLS_FILTERED;
	}
	return us_now - start;
}

TR2_HOT uint64_t tr2_tls_pop(struct tr2_tls *ctx, uint64_t us_now)
{
	uint64_t elapsed = tr2_tls_region_elapsed(ctx, us_now);

	if (ctx->nr) {
		ctx->filtered -= tr2_tls_top_filtered(ctx);
		ctx->nr--;
	}
	return elapsed;
}

void tr2_tls_unwind(struct tr2_tls *ctx)
{
	if (ctx->nr > 1)
		ctx->nr = 1;
	ctx->filtered = (size_t)tr2_tls_top_filtered(ctx);
}
