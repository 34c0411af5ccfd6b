/*
 * Buffered mode (GIT_TRACE2_BUFFER=<size>, trace2.buffer): whole records
 * collect in a per-thread buffer for each destination and go out with one
 * tr2_sys.write() when the next record does not fit, on the first event more than
 * 100 ms after the last flush, when the thread exits, when the process
 * ends, before a child is started or an exec, and on a fatal signal.  A
 * write never splits a record.  Only _exit() and SIGKILL can lose records:
 * at most one buffer per thread and destination.
 */
#include "tr2_dst_buffer.h"
#include "tr2_dst.h"
#include "tr2_hot.h"
#include "tr2_sys.h"

#include "tr2_plat.h"
#include <stdlib.h>
#include <string.h>

#define FLUSH_INTERVAL_US 100000
#define BUFFER_MAX (64u << 20)

/* Buffers are never freed: a thread's buffers are retired at its exit
 * and reused by later threads, so a signal handler walking the list
 * cannot meet freed memory. */
struct tbuf {
	/* one cache line each: busy is written on every event by its owner */
	_Alignas(64) struct tr2_dst *dst; /* NULL while retired */
	char *data;
	size_t len;
	uint64_t last_flush_us;
	int busy;            /* atomic: FREE, OWNER or FLUSHER holds it */
	struct tbuf *next;   /* every buffer, for flushes at exit and on signals */
};

/* Who holds a buffer: its own thread appending, or a flush elsewhere. */
enum { FREE, OWNER, FLUSHER };

static size_t buffer_size;
int tr2_dst_buffered;
static int implied; /* on for the deferred writer, not set by the host */
static tr2_mutex registry_mutex = TR2_MUTEX_INIT;
static struct tbuf *registry;
static tr2_key release_key;
static int key_made; /* atomic */
static _Thread_local struct tbuf *mine[TR2_DST_MAX];

static void release_at_thread_end(void *unused)
{
	(void)unused;
	tr2_dst_release_thread();
}

/* A forked child must not write out the records its parent will write. */
static void forget_after_fork(void)
{
	struct tbuf *b;

	for (b = registry; b; b = b->next) {
		b->len = 0;
		b->busy = FREE;
	}
	tr2_mutex_init(&registry_mutex);
	/* the child has no writer thread: it writes its records itself, and
	 * at once unless the host asked for buffers */
	if (implied)
		tr2_dst_buffered = 0;
}

static void create_key(void)
{
	tr2_key_create(&release_key, release_at_thread_end);
	tr2_plat_atfork(NULL, NULL, forget_after_fork);
}

void tr2_dst_buffer_init(size_t default_size)
{
	const char *v = tr2_sysenv_get(TR2_SYSENV_BUFFER);
	size_t size = default_size;

	buffer_size = 0;
	if (v && tr2_parse_size(v, &size))
		size = default_size;
	implied = !v && default_size;
	if (size)
		buffer_size = size > BUFFER_MAX ? BUFFER_MAX : size;
	tr2_dst_buffered = buffer_size > 0;
	if (buffer_size)
		tr2_run_once(&key_made, &registry_mutex, create_key);
}

static TR2_HOT int take(struct tbuf *b, int who)
{
	int expected = FREE;

	return __atomic_compare_exchange_n(&b->busy, &expected, who, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* A buffer is held for one append or one write(): wait for it. */
static void take_waiting(struct tbuf *b, int who)
{
	while (!take(b, who))
		;
}

/* From a signal handler: wait a bounded time for another thread. */
static int take_bounded(struct tbuf *b)
{
	long spins;

	for (spins = 0; spins < 10000000; spins++)
		if (take(b, FLUSHER))
			return 1;
	return 0;
}

static int is_mine(const struct tbuf *b)
{
	int i;

	for (i = 0; i < TR2_DST_MAX; i++)
		if (mine[i] == b)
			return 1;
	return 0;
}

static TR2_HOT void give_back(struct tbuf *b)
{
	__atomic_store_n(&b->busy, FREE, __ATOMIC_RELEASE);
}

/* Write out b's records; the caller holds b.  The length is cleared
 * first, so a signal handler that finishes this write does not write the
 * same records again. */
static void flush(struct tbuf *b, uint64_t us_now)
{
	struct tr2_dst *dst = __atomic_load_n(&b->dst, __ATOMIC_ACQUIRE);
	size_t len = b->len;

	__atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
	b->last_flush_us = us_now;
	if (len && dst && tr2_dst_is_on(dst))
		tr2_dst_write_now(dst, b->data, len);
}

/* A zeroed tbuf on its own cache line (never freed: see struct tbuf). */
static struct tbuf *new_tbuf(void)
{
	return tr2_alloc_forever(sizeof(struct tbuf));
}

/* A retired buffer of the right size, or a new one, registered. */
static struct tbuf *claim_buffer(struct tr2_dst *dst, uint64_t us_now)
{
	struct tbuf *b;

	tr2_mutex_lock(&registry_mutex);
	for (b = registry; b && (b->dst || !b->data); b = b->next)
		;
	if (!b && (b = new_tbuf())) {
		b->next = registry;
		__atomic_store_n(&registry, b, __ATOMIC_RELEASE);
	}
	if (b && !b->data)
		b->data = tr2_sys.malloc(buffer_size);
	if (b && b->data) {
		__atomic_store_n(&b->dst, dst, __ATOMIC_RELEASE);
		b->len = 0;
		b->last_flush_us = us_now;
	} else
		b = NULL;
	tr2_mutex_unlock(&registry_mutex);
	return b;
}

/* The thread's buffer for dst, claimed on its first record (not inside
 * a signal handler: that takes a lock and may allocate; the record is
 * then written at once). */
static TR2_HOT struct tbuf *thread_buffer(struct tr2_dst *dst, uint64_t us_now)
{
	struct tbuf *b = mine[dst->slot];

	if (!b && !tr2_dst_in_signal_context() && (b = claim_buffer(dst, us_now))) {
		mine[dst->slot] = b;
		tr2_key_set(release_key, b);
	}
	return b;
}

TR2_HOT void tr2_dst_write_buffered(struct tr2_dst *dst, const char *buf, size_t len,
				    uint64_t us_now)
{
	struct tbuf *b;

	/* a collector reads a datagram as one record, as Git sends it */
	if (dst->slot < 0 || dst->unbatched || !(b = thread_buffer(dst, us_now))) {
		tr2_dst_write_now(dst, buf, len);
		return;
	}
	while (!take(b, OWNER)) {
		if (__atomic_load_n(&b->busy, __ATOMIC_ACQUIRE) == OWNER) {
			/* a signal handler interrupted this thread's own
			 * append: waiting would be waiting for itself */
			tr2_dst_write_now(dst, buf, len);
			return;
		}
	}
	if (b->len + len > buffer_size)
		flush(b, us_now);
	if (len > buffer_size)
		tr2_dst_write_now(dst, buf, len);
	else {
		memcpy(b->data + b->len, buf, len);
		/* published after the copy: len only ever covers whole records */
		__atomic_store_n(&b->len, b->len + len, __ATOMIC_RELEASE);
	}
	/* the deferred writer's records of several threads are not in time
	 * order: an older one must not look 2^64 us late */
	if (us_now > b->last_flush_us + FLUSH_INTERVAL_US)
		flush(b, us_now);
	give_back(b);
}

void tr2_dst_flush_all(void)
{
	struct tbuf *b;

	tr2_mutex_lock(&registry_mutex);
	for (b = registry; b; b = b->next) {
		take_waiting(b, FLUSHER);
		flush(b, b->last_flush_us);
		give_back(b);
	}
	tr2_mutex_unlock(&registry_mutex);
}

void tr2_dst_flush_from_signal(void)
{
	struct tbuf *b;

	/* No lock: the list only grows at its head and is never freed. */
	for (b = __atomic_load_n(&registry, __ATOMIC_ACQUIRE); b; b = b->next) {
		struct tr2_dst *dst = __atomic_load_n(&b->dst, __ATOMIC_ACQUIRE);

		if (!dst)
			continue;
		if (is_mine(b) && !take(b, FLUSHER)) {
			/* this thread was interrupted inside an append: the
			 * published length covers whole records only */
			size_t len = __atomic_load_n(&b->len, __ATOMIC_ACQUIRE);

			if (len && tr2_dst_is_on(dst))
				tr2_dst_write_now(dst, b->data, len);
		} else if (is_mine(b) || take_bounded(b)) {
			/* held: emptied, so that a second flush (the deferred
			 * mode's drain flushes before and after) writes it once */
			flush(b, b->last_flush_us);
			give_back(b);
		}
	}
}

void tr2_dst_release_thread(void)
{
	int i;

	for (i = 0; i < TR2_DST_MAX; i++) {
		struct tbuf *b = mine[i];

		if (!b)
			continue;
		mine[i] = NULL;
		take_waiting(b, OWNER);
		flush(b, b->last_flush_us);
		/* retired under the lock claim_buffer() looks for it with */
		tr2_mutex_lock(&registry_mutex);
		__atomic_store_n(&b->dst, NULL, __ATOMIC_RELEASE);
		tr2_mutex_unlock(&registry_mutex);
		give_back(b);
	}
}
