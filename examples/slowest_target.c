/*
 * slowest_target -- the slowest regions of a run (see slowest_target.h).
 *
 * Written on the public target interface (include/trace2/target.h) only.
 * event() runs on every traced thread at once.  Most regions are faster
 * than the ones kept so far: once the list is full, they are turned away
 * by one relaxed load of the time a region needs (bar), without the lock.  The others take one mutex around
 * the short list.  The lock is a leaf and is held across fork(), so a
 * child forked while another thread updates the list gets a whole copy.
 */
#include "slowest_target.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "trace2/target.h"

struct slow {
	uint64_t us;
	char thread[SLOWEST_TARGET_TEXT_MAX];
	char category[SLOWEST_TARGET_TEXT_MAX];
	char label[SLOWEST_TARGET_TEXT_MAX];
};

static struct {
	pthread_mutex_t lock;
	struct slow list[SLOWEST_TARGET_KEEP]; /* slowest first */
	int nr;
	uint64_t bar;    /* atomic: the time a region needs to get in (the
			  * last one's + 1 once the list is full, else 0) */
} slowest = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void copy_text(char *dst, const char *s)
{
	snprintf(dst, SLOWEST_TARGET_TEXT_MAX, "%s", s && *s ? s : "-");
}

/* Put the region in its place in the list, if it is slow enough. */
static void insert(const struct trace2_event *ev)
{
	int i = slowest.nr;

	if (i == SLOWEST_TARGET_KEEP) {
		if (slowest.list[i - 1].us >= ev->t_rel_us)
			return; /* another thread got in first */
		i--;
	} else {
		slowest.nr++;
	}
	for (; i > 0 && slowest.list[i - 1].us < ev->t_rel_us; i--)
		slowest.list[i] = slowest.list[i - 1];
	slowest.list[i].us = ev->t_rel_us;
	copy_text(slowest.list[i].thread, ev->thread->name);
	copy_text(slowest.list[i].category, ev->region.category);
	copy_text(slowest.list[i].label, ev->region.label);
	if (slowest.nr == SLOWEST_TARGET_KEEP)
		__atomic_store_n(&slowest.bar, slowest.list[SLOWEST_TARGET_KEEP - 1].us + 1,
				 __ATOMIC_RELAXED);
}

static void slowest_event(void *ctx, const struct trace2_event *ev)
{
	(void)ctx;
	if (ev->kind != TRACE2_EVENT_REGION_LEAVE ||
	    ev->t_rel_us < __atomic_load_n(&slowest.bar, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&slowest.lock);
	insert(ev);
	pthread_mutex_unlock(&slowest.lock);
}

static void slowest_shutdown(void *ctx)
{
	(void)ctx;
	slowest_target_print(stderr);
}

#ifdef _WIN32
/* Windows has no fork() (mingw-w64's pthread_atfork() does nothing). */
static void install_fork_handlers(void)
{
}
#else
static void fork_prepare(void)
{
	pthread_mutex_lock(&slowest.lock);
}

static void fork_release(void)
{
	pthread_mutex_unlock(&slowest.lock);
}

static void install_fork_handlers(void)
{
	/* on even if this fails: only a fork racing an update could hang */
	pthread_atfork(fork_prepare, fork_release, fork_release);
}
#endif

static int slowest_open(void *ctx, const struct trace2_target_config *config)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)ctx;
	(void)config;
	pthread_once(&once, install_fork_handlers); /* twice would deadlock */
	return 0;
}

static const struct trace2_target slowest_target = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "slowest",
	.setting = NULL, /* no destination: on from trace2_initialize() on */
	.open = slowest_open,
	.event = slowest_event,
	.shutdown = slowest_shutdown,
};

int slowest_target_register(void)
{
	return trace2_register_target(&slowest_target, NULL);
}

int slowest_target_print(FILE *out)
{
	struct slow list[SLOWEST_TARGET_KEEP];
	int nr, i;

	pthread_mutex_lock(&slowest.lock);
	nr = slowest.nr;
	memcpy(list, slowest.list, sizeof(list));
	pthread_mutex_unlock(&slowest.lock);

	fprintf(out, "slowest: the %d longest regions, in ms\n", nr);
	for (i = 0; i < nr; i++)
		fprintf(out, "%12" PRIu64 ".%03" PRIu64 "  %s  %s/%s\n", list[i].us / 1000,
			list[i].us % 1000, list[i].thread, list[i].category, list[i].label);
	return fflush(out) || ferror(out) ? -1 : 0;
}
