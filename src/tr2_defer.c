/*
 * Deferred mode (GIT_TRACE2_DEFERRED=1, trace2.deferred): formatting and
 * writing leave the traced thread.
 *
 * Each traced thread copies its records, strings included (the API's
 * strings live only for the call), into a byte ring of its own: one
 * producer, one consumer, no lock, no allocation after the ring.  A full
 * ring never blocks: the record is counted, and the count goes out as a
 * "dropped" data record of that thread before its next queued record (or
 * when the writer finds it at exit or after the thread ended).
 *
 * One writer thread, with every signal blocked, drains the rings and
 * hands each record back to the dispatcher (ops->replay), which runs the
 * targets; their output goes through buffered mode, flushed whenever the
 * writer runs out of records.  Whoever drains holds the consumer lock: the
 * writer, or a thread that needs every record written now (child start,
 * exec, exit, trace2_flush(), a fatal signal).  That thread first flushes
 * what the writer already formatted, so a thread's records never change
 * order on their way out.
 *
 * A forked child empties its copies of the rings (the parent writes
 * those records) and dispatches directly until it initializes again.
 */
#include "tr2_defer.h"
#include "tr2_dst.h"
#include "tr2_sys.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int tr2_defer_on;

/* ---------------------------------------------------------------- */
/* Records in a ring.                                                  */

/* What a ring holds besides the records of trace2 kinds (1 and up). */
enum { REC_PAD = 0, REC_THREAD = TRACE2_EVENT_KIND_MAX };

/* A record: this header, the payload (the kind's member of the event's
 * union, its pointers replaced by offsets from the record's start, 0 for
 * NULL), then the strings and vectors they point to.  Records are
 * contiguous and 8-byte aligned; a PAD record fills the ring's end. */
struct rec {
	uint32_t size; /* to the next record */
	uint16_t kind;
	uint16_t unused;
	int32_t line;
	uint32_t nesting;
	uint32_t file; /* offset of the file name, 0 for none */
	uint32_t unused2;
	uint64_t time_us, t_abs_us, t_rel_us;
};

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)
#define NO_ARGV 0xff
#define MAX_STR 4

/* Where a kind keeps its strings: the bytes of its member and the
 * offsets (in the union) of its string fields and argument vector. */
struct layout {
	uint8_t size;
	uint8_t nstr;
	uint8_t str[MAX_STR];
	uint8_t argv;
};

#define U(field) (uint8_t)(offsetof(struct trace2_event, field) - offsetof(struct trace2_event, version))
#define L0(member) { sizeof(((struct trace2_event *)0)->member), 0, { 0 }, NO_ARGV }

static const struct layout layouts[TRACE2_EVENT_KIND_MAX] = {
	[TRACE2_EVENT_VERSION] = { sizeof(struct trace2_ev_version), 1, { U(version.exe) }, NO_ARGV },
	[TRACE2_EVENT_START] = { sizeof(struct trace2_ev_start), 0, { 0 }, U(start.argv) },
	[TRACE2_EVENT_EXIT] = L0(exit),
	[TRACE2_EVENT_ATEXIT] = L0(exit),
	[TRACE2_EVENT_ERROR] = { sizeof(struct trace2_ev_error), 2,
				 { U(error.msg), U(error.fmt) }, NO_ARGV },
	[TRACE2_EVENT_CMD_PATH] = { sizeof(struct trace2_ev_cmd_path), 1, { U(cmd_path.path) }, NO_ARGV },
	[TRACE2_EVENT_CMD_ANCESTRY] = { sizeof(struct trace2_ev_cmd_ancestry), 0, { 0 },
					U(cmd_ancestry.names) },
	[TRACE2_EVENT_CMD_NAME] = { sizeof(struct trace2_ev_cmd_name), 2,
				    { U(cmd_name.name), U(cmd_name.hierarchy) }, NO_ARGV },
	[TRACE2_EVENT_CMD_MODE] = { sizeof(struct trace2_ev_cmd_mode), 1, { U(cmd_mode.name) }, NO_ARGV },
	[TRACE2_EVENT_ALIAS] = { sizeof(struct trace2_ev_alias), 1, { U(alias.alias) }, U(alias.argv) },
#define CHILD { sizeof(struct trace2_ev_child), 4, { U(child.child_class), U(child.hook_name), \
						     U(child.cd), U(child.ready) }, U(child.argv) }
	[TRACE2_EVENT_CHILD_START] = CHILD,
	[TRACE2_EVENT_CHILD_EXIT] = CHILD,
	[TRACE2_EVENT_CHILD_READY] = CHILD,
	[TRACE2_EVENT_THREAD_START] = { 0, 0, { 0 }, NO_ARGV },
	[TRACE2_EVENT_THREAD_EXIT] = { 0, 0, { 0 }, NO_ARGV },
	[TRACE2_EVENT_EXEC] = { sizeof(struct trace2_ev_exec), 1, { U(exec.exe) }, U(exec.argv) },
	[TRACE2_EVENT_EXEC_RESULT] = { sizeof(struct trace2_ev_exec), 1, { U(exec.exe) }, U(exec.argv) },
	[TRACE2_EVENT_DEF_PARAM] = { sizeof(struct trace2_ev_def_param), 3,
				     { U(def_param.param), U(def_param.value), U(def_param.scope) },
				     NO_ARGV },
	[TRACE2_EVENT_DEF_REPO] = { sizeof(struct trace2_ev_def_repo), 1, { U(def_repo.worktree) }, NO_ARGV },
#define REGION { sizeof(struct trace2_ev_region), 3, { U(region.category), U(region.label), \
						       U(region.msg) }, NO_ARGV }
	[TRACE2_EVENT_REGION_ENTER] = REGION,
	[TRACE2_EVENT_REGION_LEAVE] = REGION,
	/* data_json's text is copied by its length (copy_json()) */
#define DATA { sizeof(struct trace2_ev_data), 3, { U(data.category), U(data.key), U(data.value) }, \
	       NO_ARGV }
	[TRACE2_EVENT_DATA] = DATA,
	[TRACE2_EVENT_DATA_JSON] = DATA,
	[TRACE2_EVENT_PRINTF] = { sizeof(struct trace2_ev_printf), 1, { U(printf.msg) }, NO_ARGV },
#define METRIC(m) { sizeof(((struct trace2_event *)0)->m), 2, { U(m.category), U(m.name) }, NO_ARGV }
	[TRACE2_EVENT_TIMER] = METRIC(timer),
	[TRACE2_EVENT_TH_TIMER] = METRIC(timer),
	[TRACE2_EVENT_COUNTER] = METRIC(counter),
	[TRACE2_EVENT_TH_COUNTER] = METRIC(counter),
};

static const char *field_get(const struct trace2_event *ev, uint8_t off)
{
	const char *p;

	memcpy(&p, (const char *)&ev->version + off, sizeof(p));
	return p;
}

static void offset_put(char *payload, uint8_t off, uintptr_t value)
{
	memcpy(payload + off, &value, sizeof(value));
}

/* Bytes a record of ev takes; lens[] gets each string's length + 1. */
static size_t measure(const struct trace2_event *ev, const struct layout *l,
		      size_t *lens, size_t *file_len)
{
	size_t size = sizeof(struct rec) + ALIGN8(l->size), i;

	*file_len = ev->file ? strlen(ev->file) + 1 : 0;
	size += *file_len;
	for (i = 0; i < l->nstr; i++) {
		const char *s = field_get(ev, l->str[i]);

		lens[i] = s ? strlen(s) + 1 : 0;
		size += lens[i];
	}
	if (ev->kind == TRACE2_EVENT_DATA_JSON && ev->data.json)
		size += ev->data.json_len + 1;
	if (l->argv != NO_ARGV) {
		const char *const *v = (const char *const *)field_get(ev, l->argv);

		size = ALIGN8(size) + sizeof(uintptr_t);
		for (; v && *v; v++)
			size += sizeof(uintptr_t) + strlen(*v) + 1;
	}
	return ALIGN8(size);
}

/* Copy len bytes of s to the record's end; their offset. */
static uintptr_t put_bytes(char *base, size_t *end, const char *s, size_t len)
{
	uintptr_t at = *end;

	memcpy(base + at, s, len);
	*end += len;
	return at;
}

static void encode(char *base, const struct trace2_event *ev, const struct layout *l,
		   const size_t *lens, size_t file_len)
{
	struct rec *r = (struct rec *)base;
	char *payload = base + sizeof(*r);
	size_t end = sizeof(*r) + ALIGN8(l->size), i;

	r->kind = (uint16_t)ev->kind;
	r->line = ev->line;
	r->nesting = (uint32_t)ev->nesting;
	r->time_us = ev->time_us;
	r->t_abs_us = ev->t_abs_us;
	r->t_rel_us = ev->t_rel_us;
	memcpy(payload, &ev->version, l->size);
	r->file = file_len ? (uint32_t)put_bytes(base, &end, ev->file, file_len) : 0;
	for (i = 0; i < l->nstr; i++)
		offset_put(payload, l->str[i],
			   lens[i] ? put_bytes(base, &end, field_get(ev, l->str[i]), lens[i]) : 0);
	if (ev->kind == TRACE2_EVENT_DATA_JSON && ev->data.json) {
		uintptr_t at = put_bytes(base, &end, ev->data.json, ev->data.json_len);

		base[end++] = '\0';
		offset_put(payload, U(data.json), at);
	}
	if (l->argv != NO_ARGV) {
		const char *const *v = (const char *const *)field_get(ev, l->argv);
		size_t n = 0, k;
		uintptr_t *vec;

		for (; v && v[n]; n++)
			;
		end = ALIGN8(end);
		vec = (uintptr_t *)(base + end);
		offset_put(payload, l->argv, v ? end : 0);
		end += (n + 1) * sizeof(uintptr_t);
		for (k = 0; k < n; k++)
			vec[k] = put_bytes(base, &end, v[k], strlen(v[k]) + 1);
		vec[n] = 0;
	}
}

static const char *at_offset(char *base, uintptr_t off)
{
	return off ? base + off : NULL;
}

static void pointer_fix(char *payload, uint8_t off, char *base)
{
	uintptr_t o;
	const char *p;

	memcpy(&o, payload + off, sizeof(o));
	p = at_offset(base, o);
	memcpy(payload + off, &p, sizeof(p));
}

/* The record back as an event, its pointers into the ring. */
static void decode(char *base, struct tr2_ev *ev, struct tr2_time_cache *times,
		   const struct trace2_thread *thread)
{
	struct rec *r = (struct rec *)base;
	const struct layout *l = &layouts[r->kind];
	char *payload = (char *)&ev->pub.version;
	size_t i;

	tr2_ev_start(ev, (enum trace2_event_kind)r->kind, at_offset(base, r->file), r->line,
		     r->time_us, r->t_abs_us, times);
	ev->pub.t_rel_us = r->t_rel_us;
	ev->pub.nesting = r->nesting;
	ev->pub.thread = thread;
	memcpy(payload, base + sizeof(*r), l->size);
	for (i = 0; i < l->nstr; i++)
		pointer_fix(payload, l->str[i], base);
	if (r->kind == TRACE2_EVENT_DATA_JSON)
		pointer_fix(payload, U(data.json), base);
	if (l->argv != NO_ARGV) {
		uintptr_t o, *vec;

		pointer_fix(payload, l->argv, base);
		memcpy(&vec, payload + l->argv, sizeof(vec));
		for (; vec && (o = *vec); vec++) {
			const char *p = base + o;

			memcpy(vec, &p, sizeof(p));
		}
	}
}

/* ---------------------------------------------------------------- */
/* Rings.                                                              */

/* A thread's name as its records show it, copied into the ring. */
struct thread_id {
	int32_t id;
	uint32_t name_len, json_name_len;
};

enum ring_state { OWNED, RETIRED, FREE };

/* Rings are never freed (a signal handler may walk the list); a retired
 * ring is reused by a later thread once it is empty. */
struct ring {
	/* the producer's: written on every record */
	_Alignas(64) uint64_t head;  /* atomic: bytes ever appended */
	uint64_t tail_seen;          /* the consumer's tail, last read */
	uint64_t drops;              /* atomic: records not queued, unreported */
	int busy;                    /* inside an append (a signal handler
				      * interrupting it dispatches directly) */
	const struct tr2_tls *told;  /* the context whose name the ring has */
	int told_id;

	/* the consumer's */
	_Alignas(64) uint64_t tail;  /* atomic */
	struct trace2_thread thread;
	char name[TR2_THREAD_NAME_MAX + 1];
	char json_name[TR2_JSON_ESCAPED_MAX(TR2_THREAD_NAME_MAX)];
	struct tr2_time_cache times;

	/* fixed once made, or changed under registry_mutex */
	int state; /* atomic */
	size_t cap, mask;
	char *data;
	struct ring *next;
};

static const struct tr2_defer_ops *ops;
static size_t ring_cap;
static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct ring *rings; /* atomic head of the list */
static pthread_key_t retire_key;
static int key_made; /* atomic */
static _Thread_local struct ring *my_ring;
static _Thread_local int draining; /* this thread holds the consumer lock */

static void retire(void *ring)
{
	struct ring *r = ring;

	my_ring = NULL;
	__atomic_store_n(&r->state, RETIRED, __ATOMIC_RELEASE);
}

static void empty_after_fork(void);

static void create_key(void)
{
	pthread_key_create(&retire_key, retire);
	pthread_atfork(NULL, NULL, empty_after_fork);
}

static struct ring *new_ring(void)
{
	char *raw = tr2_sys.malloc(sizeof(struct ring) + 63);
	struct ring *r;

	if (!raw)
		return NULL;
	r = (struct ring *)(raw + (64 - (uintptr_t)raw % 64) % 64);
	memset(r, 0, sizeof(*r));
	r->data = tr2_sys.malloc(ring_cap);
	if (!r->data) {
		tr2_sys.free(raw);
		return NULL;
	}
	r->cap = ring_cap;
	r->mask = ring_cap - 1;
	r->next = rings;
	__atomic_store_n(&rings, r, __ATOMIC_RELEASE);
	return r;
}

/* An empty free ring of the current size, or a new one. */
static struct ring *claim_ring(void)
{
	struct ring *r;

	pthread_mutex_lock(&registry_mutex);
	for (r = rings; r; r = r->next)
		if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == FREE && r->cap == ring_cap)
			break;
	if (!r)
		r = new_ring();
	if (r) {
		r->told = NULL;
		r->busy = 0;
		__atomic_store_n(&r->state, OWNED, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&registry_mutex);
	if (r) {
		my_ring = r;
		pthread_setspecific(retire_key, r);
	}
	return r;
}

/* Room for size contiguous bytes: where they go, and the head that
 * publishes them (a PAD record first when the ring's end is too short);
 * NULL when the ring is full. */
static char *reserve(struct ring *r, size_t size, uint64_t *new_head)
{
	uint64_t head = r->head;
	size_t at = head & r->mask, to_end = r->cap - at;
	size_t need = size + (to_end < size ? to_end : 0);

	if (head + need - r->tail_seen > r->cap) {
		r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		if (head + need - r->tail_seen > r->cap)
			return NULL;
	}
	if (to_end < size) {
		struct rec *pad = (struct rec *)(r->data + at);

		pad->size = (uint32_t)to_end;
		pad->kind = REC_PAD;
		at = 0;
	}
	*new_head = head + need;
	return r->data + at;
}

static void publish(struct ring *r, uint64_t new_head)
{
	__atomic_store_n(&r->head, new_head, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- */
/* Waking the writer.                                                  */

static int writer_sleeping; /* atomic: 1 while it waits for a producer */
static int writer_stop;     /* atomic */
static int writer_running;
static pthread_t writer;

static void futex_wait_ms(int *word, int value, long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, &ts, NULL, 0);
}

static void wake_writer(void)
{
	int one = 1;

	if (__atomic_compare_exchange_n(&writer_sleeping, &one, 0, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		syscall(SYS_futex, &writer_sleeping, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void nap_us(long us)
{
	struct timespec ts = { 0, us * 1000L };

	syscall(SYS_nanosleep, &ts, NULL);
}

/* ---------------------------------------------------------------- */
/* Producing.                                                          */

/* A record whose size and string lengths measure() found. */
struct sized {
	const struct layout *l;
	size_t lens[MAX_STR], file_len, size;
};

static void size_up(struct sized *s, const struct trace2_event *ev)
{
	s->l = &layouts[ev->kind];
	s->size = measure(ev, s->l, s->lens, &s->file_len);
}

static int append_sized(struct ring *r, const struct trace2_event *ev, const struct sized *s)
{
	uint64_t new_head;
	char *at = reserve(r, s->size, &new_head);

	if (!at)
		return -1;
	encode(at, ev, s->l, s->lens, s->file_len);
	((struct rec *)at)->size = (uint32_t)s->size;
	publish(r, new_head);
	return 0;
}

static int append(struct ring *r, const struct trace2_event *ev)
{
	struct sized s;

	size_up(&s, ev);
	return append_sized(r, ev, &s);
}

/* Tell the consumer the name the next records have. */
static int append_thread(struct ring *r, const struct tr2_tls *tls)
{
	const struct trace2_thread *t = &tls->pub;
	size_t size = ALIGN8(sizeof(struct rec) + sizeof(struct thread_id) + t->name_len + 1 +
			     t->json_name_len + 1);
	uint64_t new_head;
	char *at = reserve(r, size, &new_head);
	struct thread_id *id;
	char *p;

	if (!at)
		return -1;
	((struct rec *)at)->size = (uint32_t)size;
	((struct rec *)at)->kind = REC_THREAD;
	id = (struct thread_id *)(at + sizeof(struct rec));
	id->id = t->id;
	id->name_len = (uint32_t)t->name_len;
	id->json_name_len = (uint32_t)t->json_name_len;
	p = (char *)(id + 1);
	memcpy(p, t->name, t->name_len + 1);
	memcpy(p + t->name_len + 1, t->json_name, t->json_name_len + 1);
	publish(r, new_head);
	r->told = tls;
	r->told_id = t->id;
	return 0;
}

/* The "dropped" data record: n records of the thread were not queued. */
static void fill_dropped(struct tr2_ev *ev, uint64_t n, char *digits, size_t digits_size)
{
	char *p = digits + digits_size;

	*--p = '\0';
	do
		*--p = (char)('0' + n % 10);
	while (n /= 10);
	ev->pub.kind = TRACE2_EVENT_DATA;
	ev->pub.file = NULL;
	ev->pub.line = 0;
	ev->pub.t_rel_us = 0;
	ev->pub.data = (struct trace2_ev_data){ .category = "trace2", .repo_id = TRACE2_NO_REPO,
						.key = "dropped", .value = p };
}

/* Before the thread's next record: how many went missing. */
static void append_drops(struct ring *r, const struct tr2_ev *next)
{
	uint64_t n = __atomic_exchange_n(&r->drops, 0, __ATOMIC_ACQ_REL);
	struct tr2_ev ev = *next;
	char digits[24];

	fill_dropped(&ev, n, digits, sizeof(digits));
	if (append(r, &ev.pub))
		__atomic_add_fetch(&r->drops, n, __ATOMIC_RELAXED);
}

static int push_into(struct ring *r, struct tr2_tls *tls, const struct tr2_ev *ev,
		     const struct sized *s)
{
	if ((r->told != tls || r->told_id != tls->pub.id) && append_thread(r, tls))
		return -1;
	if (__atomic_load_n(&r->drops, __ATOMIC_RELAXED))
		append_drops(r, ev);
	return append_sized(r, &ev->pub, s);
}

int tr2_defer_push(struct tr2_tls *tls, const struct tr2_ev *ev)
{
	struct ring *r = my_ring;
	struct sized s;

	if (draining || ev->pub.kind == TRACE2_EVENT_SIGNAL ||
	    ev->pub.kind == TRACE2_EVENT_TOO_MANY_FILES)
		return -1;
	if (!r && !(r = claim_ring()))
		return -1;
	if (r->busy)
		return -1; /* a signal handler interrupted this thread's append */
	size_up(&s, &ev->pub);
	if (s.size > r->cap / 4) {
		/* out now, after the records queued before it */
		tr2_defer_drain();
		return -1;
	}
	r->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (push_into(r, tls, ev, &s))
		__atomic_add_fetch(&r->drops, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r->busy = 0;
	if (__atomic_load_n(&writer_sleeping, __ATOMIC_RELAXED))
		wake_writer();
	return 0;
}

/* ---------------------------------------------------------------- */
/* Consuming.                                                          */

static int consumer_lock; /* atomic: held by whoever drains */

static int try_lock_consumer(void)
{
	int free_ = 0;

	return __atomic_compare_exchange_n(&consumer_lock, &free_, 1, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* The lock, waiting up to wait_ms (-1: while the writer is not told to
 * stop).  Async-signal-safe. */
static int lock_consumer(long wait_ms)
{
	long waited_us = 0;

	while (!try_lock_consumer()) {
		if (wait_ms >= 0 ? waited_us >= wait_ms * 1000
				 : __atomic_load_n(&writer_stop, __ATOMIC_RELAXED))
			return 0;
		nap_us(100);
		waited_us += 100;
	}
	draining = 1;
	return 1;
}

static void unlock_consumer(void)
{
	draining = 0;
	__atomic_store_n(&consumer_lock, 0, __ATOMIC_RELEASE);
}

static void take_thread(struct ring *r, char *base)
{
	const struct thread_id *id = (const struct thread_id *)(base + sizeof(struct rec));
	const char *p = (const char *)(id + 1);

	memcpy(r->name, p, id->name_len + 1);
	memcpy(r->json_name, p + id->name_len + 1, id->json_name_len + 1);
	r->thread = (struct trace2_thread){ r->name, id->name_len, r->json_name,
					    id->json_name_len, id->id };
}

/* Run a record through the targets under the name of its thread (the
 * draining thread's own context shows that name meanwhile, for the
 * errors a target reports). */
static void replay(struct ring *r, struct tr2_ev *ev, struct tr2_tls *self, int from_signal)
{
	struct trace2_thread own = self->pub;

	self->pub = r->thread;
	ops->replay(self, ev, from_signal);
	self->pub = own;
}

static void report_drops(struct ring *r, struct tr2_tls *self, int from_signal)
{
	uint64_t n = __atomic_exchange_n(&r->drops, 0, __ATOMIC_ACQ_REL);
	uint64_t now = tr2_now_us(), start = tr2_start_us();
	struct tr2_ev ev;
	char digits[24];

	if (!n)
		return;
	tr2_ev_start(&ev, TRACE2_EVENT_DATA, NULL, 0, now, start ? now - start : 0, &r->times);
	ev.pub.nesting = 1;
	ev.pub.thread = &r->thread;
	fill_dropped(&ev, n, digits, sizeof(digits));
	replay(r, &ev, self, from_signal);
}

/* Every record the ring has now; how many. */
static size_t drain_ring(struct ring *r, struct tr2_tls *self, int from_signal)
{
	uint64_t tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	size_t n = 0;

	while (tail != head) {
		char *base = r->data + (tail & r->mask);
		struct rec *rec = (struct rec *)base;
		struct tr2_ev ev;

		if (rec->kind == REC_THREAD)
			take_thread(r, base);
		else if (rec->kind != REC_PAD) {
			decode(base, &ev, &r->times, &r->thread);
			replay(r, &ev, self, from_signal);
			n++;
		}
		tail += rec->size;
		__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	return n;
}

/* Drain every ring; a ring whose thread ended becomes free once empty
 * and its drops are told. */
static size_t drain_all(struct tr2_tls *self, int from_signal)
{
	struct ring *r;
	size_t n = 0;

	for (r = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); r; r = r->next) {
		int state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);

		if (state == FREE)
			continue;
		n += drain_ring(r, self, from_signal);
		if (state == RETIRED) {
			report_drops(r, self, from_signal);
			__atomic_store_n(&r->state, FREE, __ATOMIC_RELEASE);
		}
	}
	return n;
}

/* What the writer formatted goes out before what this thread drains. */
static void drain_locked(struct tr2_tls *self, int from_signal)
{
	ops->flush(from_signal);
	drain_all(self, from_signal);
	ops->flush(from_signal);
}

static struct tr2_tls *drainer_context(void)
{
	struct tr2_tls *self = tr2_tls_current();

	return self ? self : tr2_tls_main();
}

void tr2_defer_drain(void)
{
	struct tr2_tls *self;

	if (!__atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED) || draining ||
	    !(self = drainer_context()) || !lock_consumer(TR2_DST_WRITE_TIMEOUT_MS))
		return;
	drain_locked(self, 0);
	unlock_consumer();
}

void tr2_defer_drain_from_signal(void)
{
	struct tr2_tls *self;

	if (!__atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED) || draining ||
	    !(self = drainer_context()) || !lock_consumer(TR2_DST_SIGNAL_WAIT_MS))
		return;
	drain_locked(self, 1);
	unlock_consumer();
}

/* ---------------------------------------------------------------- */
/* The writer thread.                                                  */

/* Idle rounds with short naps before the writer sleeps until a
 * producer wakes it: ~10 ms of quiet, so a steady producer seldom pays
 * for a wake-up. */
#define NAP_US 200
#define NAPS_BEFORE_SLEEP 50
#define SLEEP_MS 100

static int rings_have_records(void)
{
	struct ring *r;

	for (r = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); r; r = r->next)
		if (__atomic_load_n(&r->head, __ATOMIC_SEQ_CST) !=
		    __atomic_load_n(&r->tail, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

/* Nothing to do: a nap, or a sleep a producer ends.  A producer that
 * misses the flag (it reads it relaxed) is found within SLEEP_MS. */
static void idle(int rounds)
{
	if (rounds < NAPS_BEFORE_SLEEP) {
		nap_us(NAP_US);
		return;
	}
	__atomic_store_n(&writer_sleeping, 1, __ATOMIC_SEQ_CST);
	if (!rings_have_records() && !__atomic_load_n(&writer_stop, __ATOMIC_SEQ_CST))
		futex_wait_ms(&writer_sleeping, 1, SLEEP_MS);
	__atomic_store_n(&writer_sleeping, 0, __ATOMIC_RELAXED);
}

static void *writer_main(void *unused)
{
	struct tr2_tls self;
	int rounds = 0;

	(void)unused;
	memset(&self, 0, sizeof(self));
	tr2_tls_adopt(&self);
	while (!__atomic_load_n(&writer_stop, __ATOMIC_ACQUIRE)) {
		size_t n = 0;

		if (lock_consumer(-1)) {
			n = drain_all(&self, 0);
			if (!n && !rounds)
				ops->flush(0); /* out of records: out to the files */
			unlock_consumer();
		}
		rounds = n ? 0 : rounds + 1;
		if (!n)
			idle(rounds);
	}
	return NULL;
}

static size_t power_of_two(size_t n)
{
	size_t p = 4096;

	while (p < n && p < ((size_t)1 << 30))
		p <<= 1;
	return p;
}

int tr2_defer_start(const struct tr2_defer_ops *o, size_t ring_size)
{
	sigset_t all, old;
	int err;

	if (writer_running)
		return 0;
	tr2_run_once(&key_made, &registry_mutex, create_key);
	ops = o;
	ring_cap = power_of_two(ring_size);
	__atomic_store_n(&writer_stop, 0, __ATOMIC_RELAXED);
	/* the UTC offset known before the writer's first localtime_r(): a
	 * child forked meanwhile (libc's time zone lock held) then never
	 * calls it (tr2_clock_after_fork()) */
	tr2_fmt_local_time(&(struct tr2_time_cache){ 0 }, tr2_now_us(), (char[TR2_LOCAL_TIME_LEN]){ 0 });
	/* the writer inherits a mask that blocks every signal: the host's
	 * handlers never run on it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&writer, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -1;
	writer_running = 1;
	__atomic_store_n(&tr2_defer_on, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Rings whose thread ended with drops untold, and the drops of the
 * threads still running: told at exit. */
static void report_all_drops(struct tr2_tls *self)
{
	struct ring *r;

	for (r = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); r; r = r->next)
		if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != FREE)
			report_drops(r, self, 0);
}

void tr2_defer_stop(void)
{
	struct tr2_tls *self;

	if (!writer_running)
		return;
	__atomic_store_n(&writer_stop, 1, __ATOMIC_RELEASE);
	wake_writer();
	pthread_join(writer, NULL);
	writer_running = 0;
	if ((self = drainer_context()) && lock_consumer(TR2_DST_WRITE_TIMEOUT_MS)) {
		ops->flush(0);
		drain_all(self, 0);
		report_all_drops(self);
		ops->flush(0);
		unlock_consumer();
	}
	__atomic_store_n(&tr2_defer_on, 0, __ATOMIC_RELEASE);
}

/* The child has only the forking thread: no writer, and the records
 * queued are its parent's to write. */
static void empty_after_fork(void)
{
	struct ring *r;

	for (r = rings; r; r = r->next) {
		r->tail = r->tail_seen = r->head;
		r->drops = 0;
		r->busy = 0;
		r->told = NULL;
		if (r != my_ring)
			r->state = r->state == OWNED ? RETIRED : r->state;
	}
	pthread_mutex_init(&registry_mutex, NULL);
	consumer_lock = 0;
	draining = 0;
	writer_running = 0;
	writer_sleeping = 0;
	tr2_defer_on = 0;
}
