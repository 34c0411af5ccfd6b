/*
 * Deferred mode (GIT_TRACE2_DEFERRED=1, trace2.deferred): formatting and
 * writing leave the traced thread.
 *
 * Each traced thread copies its records, strings included (the API's
 * strings live only for the call), into a byte ring of its own: one
 * producer, one consumer, no lock, no allocation after the ring.  A full
 * ring never blocks: the record is counted, and the count goes out as a
 * "dropped" data record of that thread before its next queued record (or
 * when the writer finds it at exit or after the thread ended), and what
 * is written stays whole ("Lost records leave no orphans" below).
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
 *
 * The flight recorder (trace2.flight) is the same rings without a
 * writer: they overwrite their oldest records and are written only by
 * tr2_defer_dump() ("Flight mode" below).
 */
#include "tr2_defer.h"
#include "tr2_dst.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"

#include "tr2_plat.h"
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int tr2_defer_on;
int tr2_defer_lane;

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
	uint16_t file; /* offset of the file name, 0 for none: the first
			* string, so within the first few hundred bytes */
	int32_t line;
	uint32_t nesting;
	uint64_t time_us, t_abs_us, t_rel_us;
};

/* A region's payload: its strings' offsets, not pointers, so that a
 * region record (most of them) takes fewer cache lines. */
struct region_rec {
	uint32_t category, label, msg;
	int32_t repo_id;
};

/* Region records of the common case (tr2_defer_region()): the kind with
 * REC_AT set, then the strings by address, all of them in the program's
 * read-only segments (tr2_plat_immutable()), where they never change nor
 * go away; no message. */
#define REC_AT 0x8000
struct region_at {
	const char *file, *category, *label;
	int64_t repo_id;
};

/* The record's kind, whatever its form. */
static inline unsigned rec_kind(const struct rec *r)
{
	return r->kind & ~REC_AT;
}

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)
#define NO_ARGV 0xff
#define MAX_STR 4

/* Room held for leaves, and the "dropped" record's level (lost_inside()). */
#define LEAVE_SLACK 64
/* Reservations are at least this large, so the nesting of the queued
 * enters stays below RESV_MAX of a ring. */
#define RESV_MIN 64
#define RESV_MAX(cap) ((cap) / RESV_MIN)
/* The nesting of a "dropped" record in a ring: the consumer's level. */
#define DROPS_LEVEL UINT32_MAX

/* Where a kind keeps its strings: the bytes of its member and the
 * offsets (in the union) of its string fields and argument vector. */
struct layout {
	uint8_t size;
	uint8_t nstr;
	uint8_t str[MAX_STR];
	uint8_t argv;
};

#define U(field) (uint8_t)(offsetof(struct trace2_event, field) - offsetof(struct trace2_event, version))
/* Each kind's layout from its row in tr2_kinds.def. */
#define TR2_P(member) sizeof(((struct trace2_event *)0)->member)
#define TR2_NO_P 0
#define TR2_STR0 0, { 0 }
#define TR2_STR1(a) 1, { U(a) }
#define TR2_STR2(a, b) 2, { U(a), U(b) }
#define TR2_STR3(a, b, c) 3, { U(a), U(b), U(c) }
#define TR2_STR4(a, b, c, d) 4, { U(a), U(b), U(c), U(d) }
#define TR2_ARGV(field) U(field)
#define TR2_NO_ARGV NO_ARGV
#define TR2_KIND(kind, name, payload, strings, argv, rec, keys) \
	[TRACE2_EVENT_##kind] = { payload, strings, argv },
static const struct layout layouts[TRACE2_EVENT_KIND_MAX] = {
#include "tr2_kinds.def"
};
#undef TR2_KIND
#undef TR2_NO_ARGV
#undef TR2_ARGV
#undef TR2_STR4
#undef TR2_STR3
#undef TR2_STR2
#undef TR2_STR1
#undef TR2_STR0
#undef TR2_NO_P
#undef TR2_P

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

/* Where a record is being written: its start and the bytes it may use. */
struct cursor {
	char *base;
	size_t end, limit;
};

/* Append n bytes; their offset, or 0 when they do not fit. */
static uintptr_t put_bytes(struct cursor *c, const void *p, size_t n)
{
	uintptr_t at = c->end;

	if (n > c->limit - c->end)
		return 0;
	memcpy(c->base + at, p, n);
	c->end += n;
	return at;
}

/* Append a string with its NUL; its offset, 0 for NULL; -1 when it does
 * not fit (strnlen() reads no further than the room). */
static inline __attribute__((always_inline)) int
put_str(struct cursor *c, const char *s, uintptr_t *off)
{
	size_t room = c->limit - c->end, n;

	*off = 0;
	if (!s)
		return 0;
	n = strnlen(s, room);
	if (n == room)
		return -1;
	memcpy(c->base + c->end, s, n + 1);
	*off = c->end;
	c->end += n + 1;
	return 0;
}

static int put_json(struct cursor *c, const struct trace2_event *ev, char *payload)
{
	uintptr_t at;

	if (!ev->data.json)
		return 0;
	if (ev->data.json_len + 1 > c->limit - c->end)
		return -1;
	at = put_bytes(c, ev->data.json, ev->data.json_len);
	c->base[c->end++] = '\0';
	offset_put(payload, U(data.json), at);
	return 0;
}

/* The vector as offsets, then its strings. */
static int put_argv(struct cursor *c, const char *const *v, char *payload, uint8_t field)
{
	size_t n = 0, k, at;
	uintptr_t *vec;

	if (!v)
		return 0;
	while (v[n])
		n++;
	at = ALIGN8(c->end);
	if ((n + 1) * sizeof(uintptr_t) > c->limit - at)
		return -1;
	vec = (uintptr_t *)(c->base + at);
	c->end = at + (n + 1) * sizeof(uintptr_t);
	for (k = 0; k < n; k++)
		if (put_str(c, v[k], &vec[k]))
			return -1;
	vec[n] = 0;
	offset_put(payload, field, at);
	return 0;
}

/* The header and the file name; 0, or -1 when they do not fit. */
static inline __attribute__((always_inline)) int
put_header(struct cursor *c, const struct trace2_event *ev, size_t payload_size)
{
	struct rec *r = (struct rec *)c->base;
	uintptr_t off;

	c->end = sizeof(*r) + ALIGN8(payload_size);
	if (c->end > c->limit)
		return -1;
	r->kind = (uint16_t)ev->kind;
	r->line = ev->line;
	r->nesting = (uint32_t)ev->nesting;
	r->time_us = ev->time_us;
	r->t_abs_us = ev->t_abs_us;
	r->t_rel_us = ev->t_rel_us;
	if (put_str(c, ev->file, &off))
		return -1;
	r->file = (uint16_t)off;
	return 0;
}

static inline __attribute__((always_inline)) size_t finish(struct cursor *c)
{
	c->end = ALIGN8(c->end);
	if (c->end > c->limit)
		return 0;
	((struct rec *)c->base)->size = (uint32_t)c->end;
	return c->end;
}

/* Regions, most of the records: the layout's work written out. */
static size_t encode_region(struct cursor *c, const struct trace2_event *ev)
{
	struct region_rec *p = (struct region_rec *)(c->base + sizeof(struct rec));
	uintptr_t cat, label, msg;

	if (put_header(c, ev, sizeof(*p)) || put_str(c, ev->region.category, &cat) ||
	    put_str(c, ev->region.label, &label) || put_str(c, ev->region.msg, &msg))
		return 0;
	*p = (struct region_rec){ (uint32_t)cat, (uint32_t)label, (uint32_t)msg,
				  ev->region.repo_id };
	return finish(c);
}

/* Write ev's record at c; its size, or 0 when it does not fit. */
static size_t encode(struct cursor *c, const struct trace2_event *ev)
{
	const struct layout *l = &layouts[ev->kind];
	char *payload = c->base + sizeof(struct rec);
	uintptr_t off;
	size_t i;

	if (ev->kind == TRACE2_EVENT_REGION_ENTER || ev->kind == TRACE2_EVENT_REGION_LEAVE)
		return encode_region(c, ev);
	if (put_header(c, ev, l->size))
		return 0;
	memcpy(payload, &ev->version, l->size);
	for (i = 0; i < l->nstr; i++) {
		if (put_str(c, field_get(ev, l->str[i]), &off))
			return 0;
		offset_put(payload, l->str[i], off);
	}
	if (ev->kind == TRACE2_EVENT_DATA_JSON && put_json(c, ev, payload))
		return 0;
	if (l->argv != NO_ARGV &&
	    put_argv(c, (const char *const *)field_get(ev, l->argv), payload, l->argv))
		return 0;
	return finish(c);
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

/* The record back as an event, its pointers into the ring (inline: the
 * writer runs it on every record). */
static inline __attribute__((always_inline)) void
decode(char *base, struct tr2_ev *ev, struct tr2_time_cache *times,
       const struct trace2_thread *thread)
{
	struct rec *r = (struct rec *)base;
	const struct layout *l = &layouts[rec_kind(r)];
	char *payload = (char *)&ev->pub.version;
	size_t i;

	tr2_ev_start(ev, (enum trace2_event_kind)rec_kind(r), at_offset(base, r->file), r->line,
		     r->time_us, r->t_abs_us, times);
	ev->pub.t_rel_us = r->t_rel_us;
	ev->pub.nesting = r->nesting;
	ev->pub.thread = thread;
	if (r->kind & REC_AT) {
		const struct region_at *p = (const struct region_at *)(base + sizeof(*r));

		ev->pub.file = p->file;
		ev->pub.region = (struct trace2_ev_region){ p->category, p->label,
							    (int)p->repo_id, NULL };
		return;
	}
	if (r->kind == TRACE2_EVENT_REGION_ENTER || r->kind == TRACE2_EVENT_REGION_LEAVE) {
		/* encode_region()'s counterpart, written out */
		const struct region_rec *p = (const struct region_rec *)(base + sizeof(*r));

		ev->pub.region = (struct trace2_ev_region){ at_offset(base, p->category),
							    at_offset(base, p->label), p->repo_id,
							    at_offset(base, p->msg) };
		return;
	}
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

/* ---------------------------------------------------------------- */
/* Rings.                                                              */

/* Records kept aside in flight mode: each an entry, then the record's
 * bytes as the ring had them. */
struct arena {
	char *data;
	size_t len, cap;
	size_t top; /* 1 + the offset of the last entry, 0 for none */
};

struct entry {
	uint64_t pos;  /* where the ring had it */
	uint32_t size; /* the record's */
	uint32_t prev; /* 1 + the offset of the entry before, 0 for none */
};

/* A region call site whose strings are all immutable, as last seen. */
struct seen_site {
	const char *file, *category, *label;
	intptr_t line;
};
#define SEEN_SLOTS 64

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
	uint64_t next_look;          /* where the head next looks at the
				      * tail to restart (restart_now()) */
	uint64_t drops;              /* atomic: records not queued, unreported */
	int busy;                    /* inside an append (a signal handler
				      * interrupting it dispatches directly) */
	const struct tr2_tls *told;  /* the context whose name the ring has */
	int told_id;
	uint32_t hole;               /* the nesting of the outermost region whose
				      * enter was lost, 0 for none (lost_inside()) */
	uint32_t resv_top;           /* the deepest nesting with a reservation */
	uint64_t reserved;           /* bytes kept for the leaves of queued
				      * enters (reserve_leave()) */
	uint32_t last_size;          /* append()'s last record, its bytes */

	/* flight mode: the producer's, or a dump's while it holds `frozen` */
	int overwriting;             /* atomic: the producer moves the tail */
	int frozen;                  /* atomic: a dump reads the ring */
	uint64_t lost;               /* records overwritten, not kept */
	uint32_t dumped_level;       /* the level the last dump left (0: none) */
	struct arena aside;          /* kept for good, in order (keep_aside()) */
	struct arena kept;           /* enters of regions still open, a stack */

	/* the consumer's */
	_Alignas(64) uint64_t tail;  /* atomic */
	uint32_t level;              /* the thread's level in what is written:
				      * 1 + its regions open there */
	struct trace2_thread thread;
	char name[TR2_THREAD_NAME_MAX + 1];
	char json_name[TR2_JSON_ESCAPED_MAX(TR2_THREAD_NAME_MAX)];
	struct tr2_time_cache times;

	/* fixed once made, or changed under registry_mutex */
	int state; /* atomic */
	size_t cap, mask;
	int flight; /* made for flight mode */
	uint64_t ended; /* atomic: when its thread ended (a count) */
	char *data;
	uint32_t *resv;  /* the producer's: by nesting, the bytes the queued
			  * enter there reserved for its leave */
	size_t resv_max; /* entries of resv, open_at and dumped_start */
	uint64_t *open_at;      /* flight mode, by nesting: 1 + the position
				 * of the last enter there */
	uint64_t *dumped_start; /* flight mode, by nesting: the start of the
				 * regions a dump wrote open */
	struct seen_site *seen; /* region sites whose strings are known
				 * immutable (site_immutable()) */
	struct ring *next;
};

static const struct tr2_defer_ops *ops;
static size_t ring_cap;
static int flight; /* flight mode (tr2_defer_start()) */
static tr2_mutex registry_mutex = TR2_MUTEX_INIT;
/* The list, oldest first: drained in that order, so that main's first
 * records (version, start) come out before those of the threads it
 * started.  Appended under registry_mutex. */
static struct ring *rings; /* atomic */
static struct ring **rings_end = &rings;

static struct ring *first_ring(void)
{
	return __atomic_load_n(&rings, __ATOMIC_ACQUIRE);
}

static struct ring *next_ring(const struct ring *r)
{
	return __atomic_load_n(&r->next, __ATOMIC_ACQUIRE);
}
static tr2_key retire_key;
static int key_made; /* atomic */
static _Thread_local struct ring *my_ring;
static _Thread_local int draining; /* this thread holds the consumer lock */

static uint64_t ended_count; /* atomic */

static void retire(void *ring)
{
	struct ring *r = ring;

	my_ring = NULL;
	__atomic_store_n(&r->ended, __atomic_add_fetch(&ended_count, 1, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->state, RETIRED, __ATOMIC_RELEASE);
}

static void empty_after_fork(void);

static void create_key(void)
{
	tr2_key_create(&retire_key, retire);
	tr2_plat_atfork(NULL, NULL, empty_after_fork);
}

/* Flight mode: each of a ring's two arenas, a quarter of the ring
 * within these bounds. */
#define ARENA_MIN ((size_t)4 << 10)
#define ARENA_MAX ((size_t)64 << 10)

static size_t arena_size(void)
{
	size_t n = ring_cap / 4;

	return !flight ? 0 : n < ARENA_MIN ? ARENA_MIN : n > ARENA_MAX ? ARENA_MAX : n;
}

static struct ring *new_ring(void)
{
	size_t resv_max = RESV_MAX(ring_cap), arena = arena_size();
	size_t by_nesting = flight ? 2 * sizeof(uint64_t) : sizeof(uint32_t);
	size_t seen = SEEN_SLOTS * sizeof(struct seen_site);
	char *data = tr2_sys.malloc(ring_cap + 2 * arena + seen + resv_max * by_nesting);
	struct ring *r = data ? tr2_alloc_forever(sizeof(*r)) : NULL;

	if (!r) {
		tr2_sys.free(data);
		return NULL;
	}
	r->data = data;
	r->cap = ring_cap;
	r->mask = ring_cap - 1;
	r->flight = flight;
	r->aside = (struct arena){ data + ring_cap, 0, arena, 0 };
	r->kept = (struct arena){ data + ring_cap + arena, 0, arena, 0 };
	r->seen = (struct seen_site *)(void *)(data + ring_cap + 2 * arena);
	memset(r->seen, 0, seen);
	/* touched only as deep as regions nest */
	data += ring_cap + 2 * arena + seen;
	if (flight) {
		r->open_at = (uint64_t *)(void *)data;
		r->dumped_start = r->open_at + resv_max;
	} else {
		r->resv = (uint32_t *)(void *)data;
	}
	r->resv_max = resv_max;
	__atomic_store_n(rings_end, r, __ATOMIC_RELEASE);
	rings_end = &r->next;
	return r;
}

static int try_lock_consumer(void);
static void release_consumer(void);

/* Whether r was made for the current mode and size. */
static int fits_mode(const struct ring *r)
{
	return r->cap == ring_cap && r->flight == flight;
}

/*
 * Flight mode keeps the rings of threads that ended until a trigger
 * writes them, but only the FLIGHT_ENDED_KEPT last ones: past that, a
 * new thread takes the oldest, its records gone unwritten (the thread
 * is then absent from later dumps), so a host that starts threads
 * without end does not grow without end.  Not while a dump reads them.
 */
#define FLIGHT_ENDED_KEPT 8

static struct ring *reuse_ended(void)
{
	struct ring *r, *oldest = NULL;
	int ended = 0;

	for (r = rings; r; r = r->next)
		if (fits_mode(r) && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == RETIRED) {
			if (!oldest || __atomic_load_n(&r->ended, __ATOMIC_RELAXED) <
					       __atomic_load_n(&oldest->ended, __ATOMIC_RELAXED))
				oldest = r;
			ended++;
		}
	if (ended < FLIGHT_ENDED_KEPT || !try_lock_consumer())
		return NULL;
	oldest->tail = oldest->tail_seen = oldest->head;
	oldest->lost = oldest->drops = 0;
	oldest->level = oldest->dumped_level = 0;
	oldest->aside.len = oldest->aside.top = oldest->kept.len = oldest->kept.top = 0;
	release_consumer();
	return oldest;
}

/* An empty free ring of the current size, or a new one. */
static struct ring *claim_ring(void)
{
	struct ring *r;

	tr2_mutex_lock(&registry_mutex);
	for (r = rings; r; r = r->next)
		if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == FREE && fits_mode(r))
			break;
	if (!r && flight)
		r = reuse_ended();
	if (!r)
		r = new_ring();
	if (r) {
		r->told = NULL;
		r->busy = 0;
		__atomic_store_n(&r->state, OWNED, __ATOMIC_RELEASE);
	}
	tr2_mutex_unlock(&registry_mutex);
	if (r) {
		my_ring = r;
		tr2_key_set(retire_key, r);
	}
	return r;
}

/* ---------------------------------------------------------------- */
/* Waking the writer.                                                  */

static int writer_sleeping; /* atomic: 1 while it waits for a producer */
static int writer_stop;     /* atomic */
static int writer_running;
static tr2_thread writer;

static void wake_writer(void)
{
	int one = 1;

	if (__atomic_compare_exchange_n(&writer_sleeping, &one, 0, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		tr2_plat_wake(&writer_sleeping);
}

/* ---------------------------------------------------------------- */
/* The consumer lock.                                                  */

static int consumer_lock; /* atomic: held by whoever drains */
/* atomic: threads waiting to drain; the writer lets them go first */
static int drainers;

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
	int got;

	if (wait_ms >= 0)
		__atomic_add_fetch(&drainers, 1, __ATOMIC_RELAXED);
	while (!(got = try_lock_consumer())) {
		if (wait_ms >= 0 ? waited_us >= wait_ms * 1000
				 : __atomic_load_n(&writer_stop, __ATOMIC_RELAXED))
			break;
		tr2_plat_nap_us(100);
		waited_us += 100;
	}
	if (wait_ms >= 0)
		__atomic_sub_fetch(&drainers, 1, __ATOMIC_RELAXED);
	draining = got;
	return got;
}

static void release_consumer(void)
{
	__atomic_store_n(&consumer_lock, 0, __ATOMIC_RELEASE);
}

static void unlock_consumer(void)
{
	draining = 0;
	release_consumer();
}

/* ---------------------------------------------------------------- */
/* Consuming.                                                          */

/* The thread's level in what is written, after ev. */
static void follow_level(struct ring *r, const struct trace2_event *ev)
{
	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
		r->level = (uint32_t)ev->nesting + 1;
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		r->level = (uint32_t)ev->nesting;
		break;
	case TRACE2_EVENT_THREAD_EXIT:
	case TRACE2_EVENT_ATEXIT:
		r->level = 1; /* its open regions discarded */
		break;
	default:
		break;
	}
}

static void take_thread(struct ring *r, char *base)
{
	const struct thread_id *id = (const struct thread_id *)(base + sizeof(struct rec));
	const char *p = (const char *)(id + 1);

	memcpy(r->name, p, id->name_len + 1);
	memcpy(r->json_name, p + id->name_len + 1, id->json_name_len + 1);
	r->thread = (struct trace2_thread){ r->name, id->name_len, r->json_name,
					    id->json_name_len, id->id };
	r->level = 1;
}

/* The "dropped" record of n records of r's thread, made by the consumer. */
static void report(struct ring *r, uint64_t n, struct tr2_tls *self, int from_signal)
{
	uint64_t now = tr2_now_us(), start = tr2_start_us();
	struct tr2_ev ev;
	char digits[24];

	if (!n)
		return;
	tr2_ev_start(&ev, TRACE2_EVENT_DATA, NULL, 0, now, start ? now - start : 0, &r->times);
	ev.pub.nesting = r->level;
	ev.pub.thread = &r->thread;
	fill_dropped(&ev, n, digits, sizeof(digits));
	ops->replay(self, &ev, from_signal);
}

/* Every drop not told yet: the thread is gone, or the process ends. */
static void report_drops(struct ring *r, struct tr2_tls *self, int from_signal)
{
	report(r, __atomic_exchange_n(&r->drops, 0, __ATOMIC_ACQ_REL), self, from_signal);
}

/*
 * A live thread's drops not told yet, once its ring is empty: told now if
 * no record came in meanwhile (a later record must not come before the
 * report of drops made before it), else left for the thread's next
 * record or the next drain.
 */
static void report_idle_drops(struct ring *r, struct tr2_tls *self, int from_signal)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), n;

	if (r->tail != head || !__atomic_load_n(&r->drops, __ATOMIC_RELAXED))
		return;
	n = __atomic_exchange_n(&r->drops, 0, __ATOMIC_ACQ_REL);
	if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) != head) {
		__atomic_add_fetch(&r->drops, n, __ATOMIC_RELAXED);
		return;
	}
	report(r, n, self, from_signal);
}

/* The records the ring has now, at most max of them; how many. */
static size_t drain_ring(struct ring *r, struct tr2_tls *self, int from_signal, size_t max)
{
	uint64_t tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	size_t n = 0;

	while (tail != head && n < max) {
		char *base = r->data + (tail & r->mask);
		struct rec *rec = (struct rec *)base;
		struct tr2_ev ev;

		if (rec->kind == REC_THREAD) {
			take_thread(r, base);
			self->pub = r->thread;
		} else if (rec->kind != REC_PAD) {
			decode(base, &ev, &r->times, &r->thread);
			if (ev.pub.nesting == DROPS_LEVEL)
				ev.pub.nesting = r->level;
			ops->replay(self, &ev, from_signal);
			follow_level(r, &ev.pub);
			n++;
		}
		tail += rec->size;
		/* the producer reads it only when short of room: published
		 * every 64 records, not every one */
		if (!(n & 63))
			__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	return n;
}

/*
 * Drain every ring (at most max records from each); a ring whose thread
 * ended becomes free once empty, its drops told.  Meanwhile the draining
 * thread's own context shows the name of the ring's thread, for the
 * errors a target reports while writing its records.
 */
static size_t drain_all(struct tr2_tls *self, int from_signal, size_t max)
{
	struct trace2_thread own = self->pub;
	struct ring *r;
	size_t n = 0;

	for (r = first_ring(); r; r = next_ring(r)) {
		int state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);

		if (state == FREE)
			continue;
		self->pub = r->thread;
		n += drain_ring(r, self, from_signal, max);
		if (state == OWNED)
			report_idle_drops(r, self, from_signal);
		else if (r->tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE)) {
			report_drops(r, self, from_signal);
			__atomic_store_n(&r->state, FREE, __ATOMIC_RELEASE);
		}
	}
	self->pub = own;
	return n;
}

/* What the writer formatted goes out before what this thread drains,
 * then the record then (if any), then the buffers. */
static void drain_locked(struct tr2_tls *self, int from_signal, struct tr2_ev *then)
{
	ops->flush(from_signal);
	drain_all(self, from_signal, SIZE_MAX);
	if (then)
		ops->replay(self, then, from_signal);
	ops->flush(from_signal);
}

static struct tr2_tls *drainer_context(void)
{
	struct tr2_tls *self = tr2_tls_current();

	return self ? self : tr2_tls_main();
}

static void drain_now(long wait_ms, int from_signal)
{
	struct tr2_tls *self;

	if (!__atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED) || flight || draining ||
	    !(self = drainer_context()) || !lock_consumer(wait_ms))
		return;
	drain_locked(self, from_signal, NULL);
	unlock_consumer();
}

void tr2_defer_drain(void)
{
	drain_now(tr2_dst_wait_limit_ms(), 0);
}

void tr2_defer_drain_from_signal(void)
{
	drain_now(TR2_DST_SIGNAL_WAIT_MS, 1);
}

/* ---------------------------------------------------------------- */
/* Producing.                                                          */

/* What an append did. */
enum { APPENDED, RING_FULL, TOO_LARGE, LOST };

/* The free bytes from head on, as the producer last saw the tail. */
static size_t room(const struct ring *r, uint64_t head)
{
	return r->cap - (size_t)(head - r->tail_seen);
}

/*
 * Rings are large (16 MiB unless set), so that the writer may be held off
 * its CPU for tens of milliseconds without a drop, but a ring's pages
 * become resident only as they are written.  So each time the head
 * passes a RESTART_EVERY boundary, the producer reads the consumer's tail
 * and, if at most RESTART_LAG bytes are still queued, starts again at the
 * ring's front (a PAD record fills the rest): a thread the writer keeps
 * up with writes only the ring's first RESTART_EVERY bytes or so, however
 * long it runs.  Until the consumer reaches that PAD the thread has the
 * space the consumer freed before it, at least RESTART_EVERY -
 * RESTART_LAG, and the whole ring after.  One read of the consumer's
 * cache line per RESTART_EVERY bytes; a ring of RESTART_EVERY or less
 * never restarts early.
 */
#define RESTART_EVERY ((uint64_t)4 << 20)
#define RESTART_LAG (RESTART_EVERY / 16)

/* Whether to restart at the front now (the head passed a boundary). */
static int restart_now(struct ring *r, uint64_t head)
{
	r->next_look = (head | (RESTART_EVERY - 1)) + 1;
	if (!(head & r->mask))
		return 0;
	r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	return head - r->tail_seen <= RESTART_LAG;
}

/* A PAD record from head to the ring's end; the new head. */
static uint64_t pad_to_end(struct ring *r, uint64_t head, size_t to_end)
{
	struct rec *pad = (struct rec *)(r->data + (head & r->mask));

	pad->size = (uint32_t)to_end;
	pad->kind = REC_PAD;
	head += to_end;
	/* from the front, not from before it: else the next record would
	 * restart again and pad a whole ring for nothing */
	r->next_look = head + RESTART_EVERY;
	return head;
}

/* What an append asks of the ring besides the record's own bytes. */
struct ask {
	size_t keep;    /* bytes to leave free */
	size_t reserve; /* and then twice the record's size plus this (0:
			 * nothing): an enter's reservation, with its slack */
	int leave;      /* may start in the last quarter if it fits there */
};

/* A leave where the ring's last quarter starts: at head, if it fits
 * before the end (APPENDED), else RING_FULL. */
static int try_at_end(struct ring *r, uint64_t head, size_t to_end,
		      size_t (*enc)(struct cursor *, const void *), const void *arg)
{
	size_t limit = room(r, head);
	struct cursor c;

	c.base = r->data + (head & r->mask);
	c.limit = limit < to_end ? limit : to_end;
	if (!enc(&c, arg))
		return RING_FULL;
	r->last_size = (uint32_t)c.end;
	__atomic_store_n(&r->head, head + c.end, __ATOMIC_RELEASE);
	return APPENDED;
}

/*
 * Write a record with enc() where the ring's head is and publish it.  No
 * record starts in the last quarter before the ring's end (a PAD record
 * fills it), so one of up to a quarter ring always has contiguous room:
 * the record is encoded in one pass, without measuring its strings
 * first, and one that does not fit in a quarter is TOO_LARGE.
 */
static inline int try_append(struct ring *r, size_t (*enc)(struct cursor *, const void *),
			     const void *arg, const struct ask *ask)
{
	uint64_t head = r->head;
	size_t quarter = r->cap / 4, to_end = r->cap - (head & r->mask), limit;
	struct cursor c;
	int res;

	if (to_end < quarter) {
		if (ask->leave && (res = try_at_end(r, head, to_end, enc, arg)) != RING_FULL)
			return res;
		if (room(r, head) < to_end + ask->keep)
			return RING_FULL;
		head = pad_to_end(r, head, to_end);
	} else if (head >= r->next_look && restart_now(r, head) &&
		   room(r, head) >= to_end + ask->keep) {
		head = pad_to_end(r, head, to_end);
	}
	limit = room(r, head);
	if (limit <= ask->keep)
		return RING_FULL;
	limit -= ask->keep;
	c.base = r->data + (head & r->mask);
	c.limit = limit < quarter ? limit : quarter;
	if (!enc(&c, arg))
		return c.limit == quarter ? TOO_LARGE : RING_FULL;
	if (ask->reserve && 3 * c.end + ask->reserve > limit)
		return RING_FULL;
	r->last_size = (uint32_t)c.end;
	__atomic_store_n(&r->head, head + c.end, __ATOMIC_RELEASE);
	return APPENDED;
}

static int append_overwriting(struct ring *r, size_t (*enc)(struct cursor *, const void *),
			      const void *arg, const struct ask *ask);

/* The consumer's tail (a cache line it writes) is read again only when
 * the one last seen leaves too little room (and by restart_now()); in
 * flight mode, the oldest records make room. */
static inline int append(struct ring *r, size_t (*enc)(struct cursor *, const void *),
			 const void *arg, const struct ask *ask)
{
	int res = try_append(r, enc, arg, ask);
	uint64_t seen = r->tail_seen;

	if (res != RING_FULL)
		return res;
	if (flight)
		return append_overwriting(r, enc, arg, ask);
	r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	/* a ring still as full as it was drops without a second try */
	return r->tail_seen == seen ? RING_FULL : try_append(r, enc, arg, ask);
}

static size_t encode_event(struct cursor *c, const void *ev)
{
	return encode(c, ev);
}

/* The name the thread's next records have. */
static size_t encode_thread(struct cursor *c, const void *thread)
{
	const struct trace2_thread *t = thread;
	struct rec *r = (struct rec *)c->base;
	struct thread_id id = { t->id, (uint32_t)t->name_len, (uint32_t)t->json_name_len };
	uintptr_t off;

	c->end = sizeof(*r);
	if (!put_bytes(c, &id, sizeof(id)) || put_str(c, t->name, &off) ||
	    put_str(c, t->json_name, &off))
		return 0;
	c->end = ALIGN8(c->end);
	if (c->end > c->limit)
		return 0;
	r->kind = REC_THREAD;
	r->size = (uint32_t)c->end;
	return c->end;
}

/* ---------------------------------------------------------------- */
/* Flight mode: rings that overwrite.                                  */

/*
 * Flight mode (trace2.flight): the rings are a flight recorder.  There is
 * no writer: a full ring makes room by overwriting its oldest records, a
 * sixteenth of the ring or more at a time (make_room()), and nothing is
 * written until tr2_defer_dump().  What a viewer needs is kept aside
 * instead of overwritten (overwrite()): the records that start the
 * process and its threads, the enters of regions still open (with their
 * true times), and the leaves of regions a dump wrote open.  A dump
 * writes, ring by ring, what was kept aside and then the ring's records,
 * leaving out those of regions whose enter is gone (flow()), and how many
 * records were lost; the ring is then empty, and recording goes on.
 *
 * A dump and the ring's producer never move the tail together: the
 * dumper sets `frozen` and waits for `overwriting` to be 0, a producer
 * sets `overwriting` and overwrites only while `frozen` is 0 (else its
 * record is dropped and counted, as in deferred mode).
 */
#define FLIGHT_CHUNK(cap) ((cap) / 16)

/* Kinds kept aside when overwritten: what starts the process (its
 * version, command line and name) and a thread. */
static int kept_for_good(unsigned kind)
{
	switch (kind) {
	case TRACE2_EVENT_VERSION:
	case TRACE2_EVENT_START:
	case TRACE2_EVENT_CMD_ANCESTRY:
	case TRACE2_EVENT_CMD_NAME:
	case TRACE2_EVENT_CMD_MODE:
	case TRACE2_EVENT_DEF_REPO:
	case TRACE2_EVENT_THREAD_START:
		return 1;
	default:
		return 0;
	}
}

/* Copy the record at base (ring position pos) to the arena; 0 when it
 * has no room. */
static int arena_put(struct arena *a, const char *base, uint64_t pos)
{
	const struct rec *rec = (const struct rec *)base;
	struct entry e = { pos, rec->size, (uint32_t)a->top };

	if (sizeof(e) + rec->size > a->cap - a->len)
		return 0;
	memcpy(a->data + a->len, &e, sizeof(e));
	memcpy(a->data + a->len + sizeof(e), base, rec->size);
	a->top = a->len + 1;
	a->len += sizeof(e) + rec->size;
	return 1;
}

static const struct entry *arena_top(const struct arena *a)
{
	return a->top ? (const struct entry *)(void *)(a->data + a->top - 1) : NULL;
}

static void arena_pop(struct arena *a)
{
	const struct entry *e = arena_top(a);

	a->len = a->top - 1;
	a->top = e->prev;
}

/* The nesting of the records the thread writes now. */
static size_t nesting_now(void)
{
	const struct tr2_tls *tls = tr2_tls_current();

	return tls ? tr2_tls_nesting(tls) : 1;
}

/* Whether the enter at base (position pos) is of a region still open. */
static int still_open(const struct ring *r, const struct rec *rec, uint64_t pos, size_t now)
{
	return rec->nesting < now && rec->nesting < r->resv_max &&
	       r->open_at[rec->nesting] == pos + 1;
}

/* Drop from the stack the kept enters of regions closed since. */
static void prune_kept(struct ring *r, size_t now)
{
	const struct entry *e;

	while ((e = arena_top(&r->kept)) &&
	       !still_open(r, (const struct rec *)(const void *)(e + 1), e->pos, now))
		arena_pop(&r->kept);
}

/* Whether the leave at base closes a region the last dump wrote open:
 * its start is that region's. */
static int closes_dumped(const struct ring *r, const struct rec *rec)
{
	return rec->nesting < r->dumped_level && rec->nesting < r->resv_max &&
	       rec->time_us >= rec->t_rel_us &&
	       rec->time_us - rec->t_rel_us == r->dumped_start[rec->nesting];
}

/* The record at base (position pos) is overwritten: kept aside, or
 * counted as lost. */
static void overwrite(struct ring *r, char *base, uint64_t pos, size_t now)
{
	const struct rec *rec = (const struct rec *)base;
	unsigned kind = rec_kind(rec);

	if (kind == REC_PAD)
		return;
	if (kind == REC_THREAD) {
		take_thread(r, base); /* the name its next records have */
		r->dumped_level = 0;
		return;
	}
	if (kept_for_good(kind) && arena_put(&r->aside, base, pos))
		return;
	if (kind == TRACE2_EVENT_REGION_ENTER && still_open(r, rec, pos, now) &&
	    arena_put(&r->kept, base, pos))
		return;
	if (kind == TRACE2_EVENT_REGION_LEAVE && closes_dumped(r, rec) &&
	    arena_put(&r->aside, base, pos)) {
		r->dumped_level = rec->nesting;
		return;
	}
	__atomic_add_fetch(&r->lost, 1, __ATOMIC_RELAXED);
}

/* Overwrite the oldest records until want more bytes are free; 0 when
 * nothing was (a dump holds the ring, or it is empty). */
static int make_room(struct ring *r, size_t want)
{
	size_t now = nesting_now();
	uint64_t tail, goal;

	__atomic_store_n(&r->overwriting, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->frozen, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&r->overwriting, 0, __ATOMIC_RELEASE);
		return 0;
	}
	prune_kept(r, now);
	tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	goal = tail + want;
	while (tail < goal && tail != r->head) {
		char *base = r->data + (tail & r->mask);

		overwrite(r, base, tail, now);
		tail += ((struct rec *)base)->size;
	}
	__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
	__atomic_store_n(&r->overwriting, 0, __ATOMIC_RELEASE);
	if (tail == r->tail_seen)
		return 0;
	r->tail_seen = tail;
	return 1;
}

static int append_overwriting(struct ring *r, size_t (*enc)(struct cursor *, const void *),
			      const void *arg, const struct ask *ask)
{
	int res = RING_FULL;

	while (res == RING_FULL && make_room(r, FLIGHT_CHUNK(r->cap)))
		res = try_append(r, enc, arg, ask);
	return res;
}

/* ---------------------------------------------------------------- */
/* Flight mode: dumps.                                                 */

/* How long a dump waits for a producer to finish overwriting. */
#define FREEZE_WAIT_US 100000

static void unfreeze(struct ring *r)
{
	__atomic_store_n(&r->frozen, 0, __ATOMIC_SEQ_CST);
}

/* Hold the ring still for a dump; 0 when its producer keeps
 * overwriting (or is the thread a signal interrupted there). */
static int freeze(struct ring *r)
{
	long waited = 0;

	__atomic_store_n(&r->frozen, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&r->overwriting, __ATOMIC_SEQ_CST)) {
		if (r == my_ring || waited >= FREEZE_WAIT_US) {
			unfreeze(r);
			return 0;
		}
		tr2_plat_nap_us(50);
		waited += 50;
	}
	return 1;
}

/* A dump's way through one ring: the level written, the records left
 * out (of regions whose enter is gone), whether the losses were told. */
struct flow {
	uint32_t level;
	uint64_t left_out;
	int told;
};

/* Whether a record of nesting m fits the level written: a region's enter
 * or leave, or a data record, inside a region whose enter is gone does
 * not. */
static int fits(const struct flow *f, const struct trace2_event *ev)
{
	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		return ev->nesting == f->level;
	case TRACE2_EVENT_REGION_LEAVE:
		return ev->nesting + 1 == f->level;
	default:
		return 1;
	}
}

/* The record at base through the targets if it fits; kept: an enter
 * kept aside, already written by an earlier dump if it does not fit. */
static void flow_record(struct ring *r, struct flow *f, char *base, int kept,
			struct tr2_tls *self, int from_signal)
{
	struct tr2_ev ev;

	decode(base, &ev, &r->times, &r->thread);
	if (ev.pub.nesting == DROPS_LEVEL)
		ev.pub.nesting = f->level;
	/* a region nested deeper than the tables has no room to keep its
	 * leave for a later dump: left out */
	if (!fits(f, &ev.pub) ||
	    (ev.pub.kind == TRACE2_EVENT_REGION_ENTER && ev.pub.nesting >= r->resv_max)) {
		f->left_out += !kept;
		return;
	}
	if (ev.pub.kind == TRACE2_EVENT_REGION_ENTER)
		r->dumped_start[ev.pub.nesting] = ev.pub.time_us;
	ops->replay(self, &ev, from_signal);
	follow_level(r, &ev.pub);
	f->level = r->level;
}

/* The next entry of an arena from *off, or NULL. */
static struct entry *arena_next(const struct arena *a, size_t off)
{
	return off < a->len ? (struct entry *)(void *)(a->data + off) : NULL;
}

/* What the ring kept aside, both arenas merged in the ring's order. */
static void flow_kept(struct ring *r, struct flow *f, struct tr2_tls *self, int from_signal)
{
	size_t ao = 0, ko = 0;
	struct entry *a, *k;

	for (;;) {
		int from_kept;
		struct entry *e;

		a = arena_next(&r->aside, ao);
		k = arena_next(&r->kept, ko);
		if (!a && !k)
			break;
		from_kept = !a || (k && k->pos < a->pos);
		e = from_kept ? k : a;

		flow_record(r, f, (char *)(e + 1), from_kept, self, from_signal);
		if (from_kept)
			ko += sizeof(*e) + e->size;
		else
			ao += sizeof(*e) + e->size;
	}
	r->aside.len = r->aside.top = 0;
	r->kept.len = r->kept.top = 0;
}

/* A "trace2" data record of r's thread at its level: key and count. */
static void report_count(struct ring *r, const char *key, uint64_t n, struct tr2_tls *self,
			 int from_signal)
{
	uint64_t now = tr2_now_us(), start = tr2_start_us();
	struct tr2_ev ev;
	char digits[24];

	tr2_ev_start(&ev, TRACE2_EVENT_DATA, NULL, 0, now, start ? now - start : 0, &r->times);
	ev.pub.thread = &r->thread;
	fill_dropped(&ev, n, digits, sizeof(digits));
	ev.pub.data.key = key;
	ev.pub.nesting = r->level;
	ops->replay(self, &ev, from_signal);
}

/* How many of the thread's records were lost since the last dump, when
 * any: overwritten, left out, or dropped while a dump held the ring. */
static void tell_losses(struct ring *r, struct flow *f, struct tr2_tls *self, int from_signal)
{
	uint64_t lost = __atomic_exchange_n(&r->lost, 0, __ATOMIC_ACQ_REL) + f->left_out +
			__atomic_exchange_n(&r->drops, 0, __ATOMIC_ACQ_REL);

	f->told = 1;
	f->left_out = 0;
	r->level = f->level;
	if (lost)
		report_count(r, "overwritten", lost, self, from_signal);
}

/* One ring out: what it kept aside, its records, how many were lost;
 * then it is empty.  0 when its producer did not let go. */
static int dump_ring(struct ring *r, struct tr2_tls *self, int from_signal)
{
	struct flow f = { r->level ? r->level : 1, 0, 0 };
	uint64_t head, tail;

	if (!freeze(r))
		return 0;
	head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	self->pub = r->thread;
	flow_kept(r, &f, self, from_signal);
	for (tail = r->tail; tail != head; tail += ((struct rec *)(r->data + (tail & r->mask)))->size) {
		char *base = r->data + (tail & r->mask);
		unsigned kind = rec_kind((struct rec *)base);

		if (kind == REC_THREAD) {
			take_thread(r, base);
			self->pub = r->thread;
			f.level = r->level;
		} else if (kind != REC_PAD) {
			if (kind == TRACE2_EVENT_THREAD_EXIT)
				tell_losses(r, &f, self, from_signal); /* its last record */
			flow_record(r, &f, base, 0, self, from_signal);
		}
	}
	__atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
	r->dumped_level = r->level = f.level;
	if (!f.told)
		tell_losses(r, &f, self, from_signal);
	unfreeze(r);
	return 1;
}

/* The reason, as a "trace2" data record of the calling thread (of main
 * if it has no ring, or one whose thread the dump did not write). */
static void report_reason(const char *reason, struct tr2_tls *self, int from_signal)
{
	struct ring *r = my_ring && my_ring->level ? my_ring : first_ring();
	uint64_t now = tr2_now_us(), start = tr2_start_us();
	struct tr2_ev ev;

	if (!r || !r->level)
		return;
	self->pub = r->thread;
	tr2_ev_start(&ev, TRACE2_EVENT_DATA, NULL, 0, now, start ? now - start : 0, &r->times);
	ev.pub.thread = &r->thread;
	ev.pub.nesting = r->level;
	ev.pub.data = (struct trace2_ev_data){ .category = "trace2", .repo_id = TRACE2_NO_REPO,
					       .key = "flight", .value = reason };
	ops->replay(self, &ev, from_signal);
}

int tr2_defer_dump(const char *reason, int from_signal)
{
	long wait_ms = from_signal ? TR2_DST_SIGNAL_WAIT_MS : tr2_dst_wait_limit_ms();
	struct tr2_tls *self;
	struct trace2_thread own;
	struct ring *r;

	if (!flight || !__atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED) || draining ||
	    !(self = drainer_context()) || !lock_consumer(wait_ms))
		return -1;
	own = self->pub;
	for (r = first_ring(); r; r = next_ring(r)) {
		int state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);

		if (state == FREE)
			continue;
		if (dump_ring(r, self, from_signal) && state == RETIRED)
			__atomic_store_n(&r->state, FREE, __ATOMIC_RELEASE);
	}
	report_reason(reason && *reason ? reason : "dump", self, from_signal);
	self->pub = own;
	ops->flush(from_signal);
	unlock_consumer();
	return 0;
}

/* ---------------------------------------------------------------- */
/* Lost records leave no orphans.                                      */

/*
 * What is written of a thread stays well-formed whatever is lost:
 * - a region whose enter was lost is not written at all: its leave, and
 *   the region and data records inside it, are counted as lost too
 *   (lost_inside(): the ring's "hole");
 * - a leave whose enter was queued is never lost: each queued enter
 *   reserves room for it, the enter's size plus LEAVE_SLACK (a leave
 *   names the same strings but for its message and file), and records
 *   other than leaves leave twice the reservations free: a leave may
 *   start in the ring's last quarter when it fits there, so the PAD one
 *   needs at the end is smaller than itself.  A leave larger than its
 *   reservation that finds no room goes without its message, then waits
 *   for the writer (at most the destinations' wait limit);
 * - the consumer writes the "dropped" record at the thread's level in
 *   what it wrote (DROPS_LEVEL).
 */

/* Whether a record of kind k carries a nesting that must match the
 * level where it is written. */
static int nests(enum trace2_event_kind k)
{
	return k == TRACE2_EVENT_REGION_ENTER || k == TRACE2_EVENT_REGION_LEAVE ||
	       k == TRACE2_EVENT_DATA || k == TRACE2_EVENT_DATA_JSON;
}

/* Whether ev is inside the region whose enter was lost (the leave of
 * that region too, which closes the hole). */
static int lost_inside(struct ring *r, const struct trace2_event *ev)
{
	if (!r->hole || !nests(ev->kind))
		return 0;
	if (ev->nesting == r->hole && ev->kind == TRACE2_EVENT_REGION_LEAVE) {
		r->hole = 0;
		return 1;
	}
	return ev->nesting > r->hole;
}

/* The bytes reserved for the leave of the enter at nesting n (0 if
 * none), now given back. */
static uint32_t take_reservation(struct ring *r, size_t n)
{
	uint32_t mine;

	if (!r->resv || n > r->resv_top)
		return 0; /* flight mode reserves nothing */
	mine = r->resv[n];
	r->resv[n] = 0;
	r->reserved -= mine;
	return mine;
}

static void set_reservation(struct ring *r, size_t n, uint32_t bytes)
{
	while (r->resv_top < n)
		r->resv[++r->resv_top] = 0; /* the entries in between, never read yet */
	r->resv[n] = bytes;
	r->reserved += bytes;
}

/* The thread's regions are gone (it ended, or another context took the
 * ring): nothing is held for them. */
static void forget_regions(struct ring *r)
{
	while (r->resv_top)
		r->resv[r->resv_top--] = 0;
	r->reserved = 0;
	r->hole = 0;
}

/* What records other than leaves leave free. */
static size_t kept_for_leaves(const struct ring *r)
{
	return 2 * r->reserved;
}

static int append_thread(struct ring *r, const struct tr2_tls *tls)
{
	struct ask ask = { kept_for_leaves(r), 0, 0 };
	int res = append(r, encode_thread, &tls->pub, &ask);

	if (res == APPENDED) {
		r->told = tls;
		r->told_id = tls->pub.id;
		forget_regions(r);
	}
	return res;
}

/* Flight mode: an enter, its position known while its region is open
 * (still_open()). */
static int append_flight_enter(struct ring *r, const struct trace2_event *ev)
{
	static const struct ask nothing = { 0, 0, 0 };
	size_t n = ev->nesting;
	int res;

	if (n < r->resv_max)
		r->open_at[n] = 0; /* the region there before is closed */
	res = append(r, encode_event, ev, &nothing);
	if (res == APPENDED && n < r->resv_max)
		r->open_at[n] = r->head - r->last_size + 1;
	return res;
}

/* An enter, queued with room reserved for its leave. */
static int append_enter(struct ring *r, const struct trace2_event *ev)
{
	struct ask ask = { kept_for_leaves(r), 2 * LEAVE_SLACK, 0 };
	size_t n = ev->nesting;
	int res;

	if (flight)
		return append_flight_enter(r, ev);
	res = n < r->resv_max ? append(r, encode_event, ev, &ask) : RING_FULL;

	if (res == APPENDED)
		set_reservation(r, n, r->last_size + LEAVE_SLACK);
	return res;
}

/* A leave of a region that is written: with its reservation, else
 * without its message. */
static int append_leave(struct ring *r, const struct trace2_event *ev)
{
	static const struct ask anything = { 0, 0, 1 };
	struct trace2_event bare;
	int res;

	take_reservation(r, ev->nesting);
	res = append(r, encode_event, ev, &anything);
	if (res != RING_FULL || !ev->region.msg)
		return res;
	bare = *ev;
	bare.region.msg = NULL;
	return append(r, encode_event, &bare, &anything);
}

static int append_event(struct ring *r, const struct trace2_event *ev)
{
	struct ask ask = { kept_for_leaves(r), 0, 0 };

	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
		return append_enter(r, ev);
	case TRACE2_EVENT_REGION_LEAVE:
		return append_leave(r, ev);
	case TRACE2_EVENT_THREAD_EXIT:
		forget_regions(r); /* unwound */
		return append(r, encode_event, ev, &ask);
	default:
		return append(r, encode_event, ev, &ask);
	}
}

/* Before the thread's next record: how many went missing; 0 when that
 * found no room. */
static int append_drops(struct ring *r, const struct tr2_ev *next)
{
	uint64_t n = __atomic_exchange_n(&r->drops, 0, __ATOMIC_ACQ_REL);
	struct ask ask = { kept_for_leaves(r), 0, 0 };
	struct tr2_ev ev = *next;
	char digits[24];

	if (!n)
		return 1; /* a drain told them meanwhile */
	fill_dropped(&ev, n, digits, sizeof(digits));
	ev.pub.nesting = DROPS_LEVEL;
	if (append(r, encode_event, &ev.pub, &ask) == APPENDED)
		return 1;
	__atomic_add_fetch(&r->drops, n, __ATOMIC_RELAXED);
	return 0;
}

static inline __attribute__((always_inline)) int
push_into(struct ring *r, struct tr2_tls *tls, const struct tr2_ev *ev)
{
	int res;

	if ((r->told != tls || r->told_id != tls->pub.id) &&
	    (res = append_thread(r, tls)) != APPENDED)
		return res;
	if (lost_inside(r, &ev->pub))
		return LOST;
	/* drops are told before the records after them (a thread_exit
	 * last), but a leave that is due goes first */
	if (__atomic_load_n(&r->drops, __ATOMIC_RELAXED) && !append_drops(r, ev) &&
	    ev->pub.kind != TRACE2_EVENT_REGION_LEAVE)
		return RING_FULL;
	return append_event(r, &ev->pub);
}

/* Whether the site's strings all lie in the program's read-only
 * segments; remembered in the slot when they do. */
static __attribute__((noinline)) int learn_site(struct seen_site *s,
						const struct trace2_event *ev)
{
	const char *str[3] = { ev->file, ev->region.category, ev->region.label };
	int i;

	for (i = 0; i < 3; i++)
		if (str[i] && !tr2_plat_immutable(str[i], strlen(str[i]) + 1))
			return 0;
	*s = (struct seen_site){ ev->file, ev->region.category, ev->region.label, ev->line };
	return 1;
}

static inline int site_immutable(struct ring *r, const struct trace2_event *ev)
{
	struct seen_site *s =
		&r->seen[((uintptr_t)ev->file >> 4 ^ (uintptr_t)ev->line) & (SEEN_SLOTS - 1)];

	if (s->file == ev->file && s->line == ev->line && s->category == ev->region.category &&
	    s->label == ev->region.label)
		return 1;
	return learn_site(s, ev);
}

/*
 * Whether a region record of size bytes fits at head as it is, by the
 * rules the long way keeps (try_append(), append_enter(), append_leave()):
 * not in the ring's last quarter, nor where deferred mode's producer
 * looks at the tail to restart; an enter leaves twice the reservations
 * free, then three times itself and its own reservation's slack; a leave
 * has its enter's reservation.
 */
static inline int lane_room(const struct ring *r, uint64_t head, enum trace2_event_kind kind,
			    size_t size)
{
	size_t limit = room(r, head), keep;

	if (r->cap - (head & r->mask) < r->cap / 4)
		return 0;
	if (flight || kind == TRACE2_EVENT_REGION_LEAVE)
		return limit >= size && (flight || head < r->next_look);
	keep = kept_for_leaves(r);
	return head < r->next_look && limit > keep && 3 * size + 2 * LEAVE_SLACK <= limit - keep;
}

/*
 * A region record of the common case: its strings by address (struct
 * region_at), in one pass of stores where the ring has room as it is.
 * Anything else takes the long way: the thread's first record, drops or
 * a lost region to tell, a message, strings that may change, a PAD or a
 * restart due, the oldest records to overwrite, or the tail to read.
 */
int tr2_defer_region(struct tr2_tls *tls, const struct trace2_event *ev)
{
	struct ring *r = my_ring;
	size_t size = sizeof(struct rec) + sizeof(struct region_at), n = ev->nesting;
	struct rec *rec;
	uint64_t head;

	if (!r || r->busy || draining || r->told != tls || r->told_id != tls->pub.id || r->hole ||
	    __atomic_load_n(&r->drops, __ATOMIC_RELAXED) || n >= r->resv_max ||
	    ev->region.msg || !site_immutable(r, ev))
		return -1;
	head = r->head;
	if (!lane_room(r, head, ev->kind, size))
		return -1;
	r->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rec = (struct rec *)(void *)(r->data + (head & r->mask));
	*rec = (struct rec){ (uint32_t)size, (uint16_t)(ev->kind | REC_AT), 0, ev->line,
			     (uint32_t)n, ev->time_us, ev->t_abs_us, ev->t_rel_us };
	*(struct region_at *)(void *)(rec + 1) = (struct region_at){ ev->file, ev->region.category,
								   ev->region.label,
								   ev->region.repo_id };
	if (flight && ev->kind == TRACE2_EVENT_REGION_ENTER)
		r->open_at[n] = head + 1;
	else if (ev->kind == TRACE2_EVENT_REGION_ENTER)
		set_reservation(r, n, (uint32_t)size + LEAVE_SLACK);
	else if (!flight)
		take_reservation(r, n);
	__atomic_store_n(&r->head, head + size, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r->busy = 0;
	if (!flight && __atomic_load_n(&writer_sleeping, __ATOMIC_RELAXED))
		wake_writer();
	return 0;
}

/* A record too large for the ring goes out now: after every record the
 * rings hold, and written before the writer can write a later one. */
static int out_now(struct tr2_tls *tls, const struct tr2_ev *ev)
{
	struct tr2_ev copy = *ev;

	if (!lock_consumer(tr2_dst_wait_limit_ms()))
		return -1;
	drain_locked(tls, 0, &copy);
	follow_level(my_ring, &copy.pub);
	unlock_consumer();
	return 0;
}

/* trace2.ringFull=wait: a full ring waits for the writer (woken, and
 * looked at again after naps of 20 us doubling to 1 ms), at most the
 * destinations' wait limit; then the record is dropped.  A leave whose
 * enter was queued always waits so. */
static int wait_when_full;

struct full_ring {
	struct ring *r;
	struct tr2_tls *tls;
	const struct tr2_ev *ev;
	int res;
};

static int pushed(void *arg)
{
	struct full_ring *f = arg;

	f->res = push_into(f->r, f->tls, f->ev);
	if (f->res != RING_FULL)
		return 1;
	wake_writer();
	return 0;
}

static __attribute__((noinline)) int push_waiting(struct ring *r, struct tr2_tls *tls,
						  const struct tr2_ev *ev)
{
	struct full_ring f = { r, tls, ev, RING_FULL };

	wake_writer();
	tr2_nap_until(pushed, &f, tr2_dst_wait_limit_ms());
	return f.res;
}

/* Whether a record that found the ring full waits for room. */
static int waits(const struct ring *r, const struct tr2_ev *ev)
{
	return wait_when_full || (ev->pub.kind == TRACE2_EVENT_REGION_LEAVE && !r->hole);
}

int tr2_defer_push(struct tr2_tls *tls, const struct tr2_ev *ev)
{
	struct ring *r = my_ring;
	int res;

	if (draining || ev->pub.kind == TRACE2_EVENT_SIGNAL ||
	    ev->pub.kind == TRACE2_EVENT_TOO_MANY_FILES)
		return -1;
	if (!r && !(r = claim_ring()))
		return -1;
	if (r->busy)
		return -1; /* a signal handler interrupted this thread's append */
	r->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	res = push_into(r, tls, ev);
	if (res == RING_FULL && waits(r, ev))
		res = push_waiting(r, tls, ev);
	if (res == RING_FULL && ev->pub.kind == TRACE2_EVENT_REGION_ENTER)
		r->hole = (uint32_t)ev->pub.nesting; /* what is inside it is lost too */
	if (res == RING_FULL || res == LOST)
		__atomic_add_fetch(&r->drops, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r->busy = 0;
	if (res == TOO_LARGE && flight)
		__atomic_add_fetch(&r->lost, 1, __ATOMIC_RELAXED); /* nothing goes out now */
	else if (res == TOO_LARGE)
		return out_now(tls, ev);
	if (__atomic_load_n(&writer_sleeping, __ATOMIC_RELAXED))
		wake_writer();
	return 0;
}

/* ---------------------------------------------------------------- */
/* The writer thread.                                                  */

/* Idle rounds with short naps before the writer sleeps until a
 * producer wakes it: ~10 ms of quiet, so a steady producer seldom pays
 * for a wake-up. */
#define NAP_US 200
/* Records the writer takes from a ring per hold of the consumer lock: a
 * thread that drains waits for no more. */
#define WRITER_BATCH 256
#define NAPS_BEFORE_SLEEP 50
#define SLEEP_MS 100

static int rings_have_records(void)
{
	struct ring *r;

	for (r = first_ring(); r; r = next_ring(r))
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
		tr2_plat_nap_us(NAP_US);
		return;
	}
	__atomic_store_n(&writer_sleeping, 1, __ATOMIC_SEQ_CST);
	if (!rings_have_records() && !__atomic_load_n(&writer_stop, __ATOMIC_SEQ_CST))
		tr2_plat_wait(&writer_sleeping, 1, SLEEP_MS);
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

		if (__atomic_load_n(&drainers, __ATOMIC_RELAXED)) {
			tr2_plat_nap_us(NAP_US); /* a drainer goes first */
			continue;
		}
		if (lock_consumer(-1)) {
			n = drain_all(&self, 0, WRITER_BATCH);
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

int tr2_defer_start(const struct tr2_defer_ops *o, size_t ring_size, int flight_mode)
{
	int err;

	if (writer_running || __atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED))
		return 0;
	tr2_run_once(&key_made, &registry_mutex, create_key);
	ops = o;
	ring_cap = power_of_two(ring_size);
	flight = flight_mode;
	tr2_plat_find_immutable();
	if (flight) {
		__atomic_store_n(&tr2_defer_on, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&tr2_defer_lane, 1, __ATOMIC_RELAXED);
		return 0;
	}
	wait_when_full = tr2_sysenv_ring_full_waits();
	__atomic_store_n(&writer_stop, 0, __ATOMIC_RELAXED);
	/* the UTC offset known before the writer's first localtime_r(): a
	 * child forked meanwhile (libc's time zone lock held) then never
	 * calls it (tr2_clock_after_fork()) */
	tr2_fmt_local_time(&(struct tr2_time_cache){ 0 }, tr2_now_us(), (char[TR2_LOCAL_TIME_LEN]){ 0 });
	/* every signal held there: the host's handlers never run on it */
	err = tr2_thread_start(&writer, writer_main, NULL);
	if (err)
		return -1;
	/* so that `top -H`, /proc and debuggers tell it from the host's */
	tr2_plat_name_thread(writer, "trace2-writer");
	writer_running = 1;
	__atomic_store_n(&tr2_defer_on, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&tr2_defer_lane, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Rings whose thread ended with drops untold, and the drops of the
 * threads still running: told at exit. */
static void report_all_drops(struct tr2_tls *self)
{
	struct trace2_thread own = self->pub;
	struct ring *r;

	for (r = first_ring(); r; r = next_ring(r))
		if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != FREE) {
			self->pub = r->thread;
			report_drops(r, self, 0);
		}
	self->pub = own;
}

void tr2_defer_stop(void)
{
	struct tr2_tls *self;

	if (flight) {
		__atomic_store_n(&tr2_defer_lane, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&tr2_defer_on, 0, __ATOMIC_RELEASE);
		return; /* what the rings hold is written only by a dump */
	}
	if (!writer_running)
		return;
	__atomic_store_n(&writer_stop, 1, __ATOMIC_RELEASE);
	wake_writer();
	tr2_thread_join(writer);
	writer_running = 0;
	if ((self = drainer_context()) && lock_consumer(tr2_dst_wait_limit_ms())) {
		ops->flush(0);
		drain_all(self, 0, SIZE_MAX);
		report_all_drops(self);
		ops->flush(0);
		unlock_consumer();
	}
	__atomic_store_n(&tr2_defer_lane, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&tr2_defer_on, 0, __ATOMIC_RELEASE);
}

/* The child has only the forking thread: no writer, and the records
 * queued are its parent's to write.  A flight recorder goes on
 * recording the child's own records, written only at its own trigger. */
static void empty_after_fork(void)
{
	struct ring *r;

	for (r = rings; r; r = r->next) {
		r->tail = r->tail_seen = r->head;
		r->drops = 0;
		r->busy = 0;
		r->told = NULL;
		r->lost = 0;
		r->overwriting = r->frozen = 0;
		r->aside.len = r->aside.top = r->kept.len = r->kept.top = 0;
		if (r != my_ring)
			r->state = r->state == OWNED ? RETIRED : r->state;
	}
	tr2_mutex_init(&registry_mutex);
	consumer_lock = 0;
	draining = 0;
	writer_running = 0;
	writer_sleeping = 0;
	if (!flight) {
		tr2_defer_on = 0;
		tr2_defer_lane = 0;
	}
}

int tr2_defer_flight(void)
{
	return flight && __atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED);
}
