/*
 * The RECORD target: docs/record-format.md is the format, this file the
 * way it is written.
 *
 * Each traced thread has a stream: a ring of bytes it alone writes.  A
 * record goes into the ring contiguously (the ring has
 * TR2_RECORD_INLINE_MAX bytes of slack past its end, so a record that
 * starts near the end runs on into it), behind a two-byte length, and is
 * published by one release store of the stream's committed position.
 * Times and t_abs are deltas from the stream's previous record.
 *
 * The consumer (the writer thread, or a thread that flushes, under
 * drain_lock) takes the committed records of each stream in order, reads
 * their head to follow the deltas, and writes them as EVENTS blocks whose
 * base is the state before their first record; before them, whatever the
 * file does not have yet: the PROCESS block, a TZ block, new strings, the
 * thread's name.  So the traced thread never formats, locks or makes a
 * system call, and a block can be cut anywhere between records.
 *
 * A ring without room: the record is dropped and counted (a DROPPED
 * marker goes in first once there is room again), or with
 * trace2.ringFull=wait the thread waits for the writer, at most the
 * destination's wait limit.  Lost records never break the log: a region
 * whose enter was lost is left out whole (its leave, and the region and
 * data records inside it, counted as lost), and every enter written keeps
 * room in the ring for its leave (LEAVE_ROOM), so that leave is never
 * lost.
 */
#include "tr2_tgt_record.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tr2_clock.h"
#include "tr2_hot.h"
#include "tr2_plat.h"
#include "tr2_sid.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"
#include "trace2.h"

/* this target's per-event code, in a block of its own (tr2_hot.h) */
#define HOT TR2_HOT_IN("5_record")

typedef struct tr2_tgt_record state;
typedef const struct trace2_event event_t;

/* ---------------------------------------------------------------- */
/* The format's numbers.                                              */

static const unsigned char magic[16] = { 0x89, 'T', '2', 'R', 0x0D, 0x0A, 0x1A, 0x0A,
					 2, 0, 0, 0, 0, 0, 0, 0 };

enum block_type {
	B_PROCESS = 1,
	B_STRINGS,
	B_THREAD,
	B_EVENTS,
	B_TZ,
	B_DROPPED,
	B_END,
	B_SITES
};

#define BLOCK_HEAD 16
#define HEAD_T_REL 0x40
#define HEAD_SITE 0x80
#define ISTR_INLINE 1
#define FIRST_STRING 2

/* What a ring holds besides records: a length word of these values. */
#define RING_DROPPED 0xFFFE  /* u64 count follows */
#define RING_HEAP 0xFFFF     /* u32 length and a pointer follow */
#define RING_WORD 2
#define RING_MARKER 14       /* the longest marker, with its word */

/* Room a record's fixed parts take at most (head, times, nesting, t_rel,
 * line, every integer field): the part a string check need not see. */
#define FIXED_MAX 256

/* Room any record takes in the ring (a longer one goes on the heap). */
#define RECORD_ROOM (RING_WORD + TR2_RECORD_INLINE_MAX)

/*
 * Room kept for the leave of each region entered: what the leave takes
 * with its length word as a site record (at most 37 bytes, its site
 * number copied as 4), as a heap record (14), or bare (at most 53: see
 * put_bare_leave()).  A record goes into the ring only if room for its
 * own longest form and for the leaves of the regions open after it
 * stays free.
 */
#define LEAVE_ROOM 64

struct tr2_rec_string {
	char *s;
	uint32_t len;
	uint64_t hash;
};

#define PAGE TR2_RECORD_PAGE

struct cache_entry {
	const char *ptr;  /* the caller's pointer */
	const char *copy; /* the table's bytes */
	uint32_t len;
	uint32_t id;
};

/*
 * A region's call site as a thread last saw it: its key (line, repo id
 * and the caller's three pointers, first: what a record compares), its
 * number in the site table as the varint a site record ends with, and
 * what checks that the strings behind the pointers did not change.
 */
#define SITE_ID_BYTES 4 /* site numbers < 2^21 */
#define SEEN_WORDS 4
struct seen {
	const char *ptr;
	const char *copy;
	uint32_t len;
	uint32_t nwords;        /* 0: compare with copy */
	uint64_t want[SEEN_WORDS], mask[SEEN_WORDS];
};

struct site {
	int line, repo_id;
	const char *file, *category, *label;
	unsigned char id_len;    /* 0: an empty entry */
	unsigned char immutable; /* its three strings lie in the program's
				  * read-only segments */
	char id[SITE_ID_BYTES];
	struct seen seen_file, seen_category, seen_label;
};

struct tr2_rec_stream {
	/* whose it is: what every record checks first (set when taken) */
	const state *owner;
	unsigned gen;
	int tid;
	/* the producer's */
	char *ring;
	size_t mask;
	uint64_t head;
	uint64_t tail_seen;
	uint64_t fast_lim;               /* record()'s bound: set_fast_lim() */
	size_t hole;                     /* the nesting of a region whose
					  * enter was lost, until its leave;
					  * 0: none */
	uint64_t next_kick;              /* head at which to wake the writer */
	uint64_t prev_time, prev_t_abs;
	uint64_t dropped;                /* atomic (the consumer reads it
					  * once the thread is done) */
	volatile sig_atomic_t busy;
	struct cache_entry cache[TR2_RECORD_CACHE];
	struct site sites[TR2_RECORD_SITES];
	/* shared */
	_Alignas(64) uint64_t committed; /* atomic, released by the producer */
	_Alignas(64) uint64_t tail;      /* atomic, released by the consumer */
	/* the consumer's */
	uint64_t time, t_abs;            /* the state at tail */
	unsigned named_gen;              /* file whose THREAD block names it */
	/* the list of streams */
	struct tr2_rec_stream *next;
	int in_use;                      /* atomic: FREE, TAKEN (being set up
					  * by its thread), ACTIVE */
	int exited;                      /* atomic: thread_exit recorded */
	char name[64];
	size_t name_len;
};

enum { FREE, TAKEN, ACTIVE };

/* ---------------------------------------------------------------- */
/* Encoding.                                                          */

static inline char *put_uv(char *w, uint64_t v)
{
	while (v >= 0x80) {
		*w++ = (char)(v | 0x80);
		v >>= 7;
	}
	*w++ = (char)v;
	return w;
}

static inline char *put_sv(char *w, int64_t v)
{
	return put_uv(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline char *put_u32(char *w, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		*w++ = (char)(v >> (8 * i));
	return w;
}

static inline char *put_u64(char *w, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		*w++ = (char)(v >> (8 * i));
	return w;
}

static inline uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* A varint of the ring (the producer wrote it: well-formed). */
static inline const unsigned char *get_uv(const unsigned char *p, uint64_t *v)
{
	uint64_t x = 0;
	int shift = 0;

	while (*p & 0x80) {
		x |= (uint64_t)(*p++ & 0x7f) << shift;
		shift += 7;
	}
	*v = x | (uint64_t)*p++ << shift;
	return p;
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A record being encoded: where, how far strings may go, and whether
 * one did not fit (the record is then made on the heap). */
struct enc {
	state *st;
	struct tr2_rec_stream *s;
	char *lim;
	int over;
};

/* The bytes a string may take at w: none once the fixed parts after the
 * strings before it went past the limit. */
static inline size_t left(const struct enc *e, const char *w)
{
	return w < e->lim ? (size_t)(e->lim - w) : 0;
}

static inline char *put_bytes(struct enc *e, char *w, const char *s, size_t len)
{
	if (len > left(e, w) || left(e, w) - len < 10) {
		e->over = 1;
		return w;
	}
	w = put_uv(w, len);
	memcpy(w, s, len);
	return w + len;
}

static inline char *put_str(struct enc *e, char *w, const char *s)
{
	size_t len;

	if (!s) {
		*w++ = 0;
		return w;
	}
	len = strlen(s);
	if (len + 10 > left(e, w)) {
		e->over = 1;
		return w;
	}
	w = put_uv(w, len + 1);
	memcpy(w, s, len);
	return w + len;
}

static inline char *put_argv(struct enc *e, char *w, const char *const *argv)
{
	size_t n = 0;

	if (!argv) {
		*w++ = 0;
		return w;
	}
	while (argv[n])
		n++;
	w = put_uv(w, n + 1);
	for (n = 0; argv[n] && !e->over; n++)
		w = put_bytes(e, w, argv[n], strlen(argv[n]));
	return w;
}

static inline char *put_json(struct enc *e, char *w, const struct trace2_ev_data *d)
{
	if (!d->json)
		*w++ = 0;
	else if (d->json_len + 10 > left(e, w))
		e->over = 1;
	else {
		w = put_uv(w, d->json_len + 1);
		memcpy(w, d->json, d->json_len);
		w += d->json_len;
	}
	*w++ = (char)!!d->json_pretty;
	*w++ = (char)d->json_open;
	return w;
}

/* ---------------------------------------------------------------- */
/* The string table.                                                  */

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static struct tr2_rec_string *entry_at(const struct tr2_rec_table *t, uint32_t k)
{
	return &t->pages[k / PAGE][k % PAGE];
}

/* String number id of the string table. */
static struct tr2_rec_string *entry(const state *st, uint32_t id)
{
	return entry_at(&st->strings, id - FIRST_STRING);
}

/* Double the table's index (under strings_lock); 0, or -1 without
 * memory. */
static int grow_index(struct tr2_rec_table *t)
{
	size_t size = t->index_size ? t->index_size * 2 : 1024, i;
	uint32_t *index = tr2_sys.calloc(size, sizeof(*index)), k;

	if (!index)
		return -1;
	for (k = 0; k < t->count; k++) {
		for (i = entry_at(t, k)->hash & (size - 1); index[i]; i = (i + 1) & (size - 1))
			;
		index[i] = k + 1;
	}
	free(t->index);
	t->index = index;
	t->index_size = size;
	return 0;
}

#define NO_ENTRY UINT32_MAX

/* The number of s (len bytes) in table t, entered if new (under
 * strings_lock); NO_ENTRY when the table is full or memory short. */
static uint32_t enter(struct tr2_rec_table *t, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len);
	struct tr2_rec_string *e;
	uint32_t k;
	size_t i;

	if ((t->count + 1) * 2 > t->index_size && grow_index(t))
		return NO_ENTRY;
	for (i = h & (t->index_size - 1); t->index[i]; i = (i + 1) & (t->index_size - 1)) {
		e = entry_at(t, t->index[i] - 1);
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return t->first + t->index[i] - 1;
	}
	k = t->count;
	if (k >= TR2_RECORD_STRINGS_MAX || t->bytes + len > TR2_RECORD_STRING_BYTES_MAX)
		return NO_ENTRY;
	if (!t->pages[k / PAGE] &&
	    !(t->pages[k / PAGE] = tr2_sys.calloc(PAGE, sizeof(struct tr2_rec_string))))
		return NO_ENTRY;
	e = &t->pages[k / PAGE][k % PAGE];
	if (!(e->s = tr2_sys.malloc(len + 1)))
		return NO_ENTRY;
	memcpy(e->s, s, len);
	e->s[len] = '\0';
	e->len = (uint32_t)len;
	e->hash = h;
	t->bytes += len;
	t->index[i] = k + 1;
	/* the entry before the count: a consumer that sees the count sees it */
	__atomic_store_n(&t->count, k + 1, __ATOMIC_RELEASE);
	return t->first + k;
}

/* The number of s (len bytes) in table t, entered if new; NO_ENTRY when
 * it cannot be. */
static uint32_t enter_locked(state *st, struct tr2_rec_table *t, const char *s, size_t len)
{
	uint32_t id;

	tr2_mutex_lock(&st->strings_lock);
	id = enter(t, s, len);
	tr2_mutex_unlock(&st->strings_lock);
	return id;
}

/* The string number of s (len bytes), entered if new; ISTR_INLINE when
 * the table is full, the string too long or memory short. */
static uint32_t intern(state *st, const char *s, size_t len)
{
	uint32_t id;

	if (len > TR2_RECORD_STRING_LEN_MAX)
		return ISTR_INLINE;
	id = enter_locked(st, &st->strings, s, len);
	return id == NO_ENTRY ? ISTR_INLINE : id;
}

/* The cache's entry: the pointer, checked by content (the caller's
 * string may have changed since: the API does not promise it lives). */
static __attribute__((noinline)) uint32_t istr_miss(struct enc *e, struct cache_entry *c,
						     const char *s)
{
	size_t len = strlen(s);
	uint32_t id = intern(e->st, s, len);

	if (id == ISTR_INLINE)
		return id;
	c->ptr = s;
	c->copy = entry(e->st, id)->s;
	c->len = (uint32_t)len;
	c->id = id;
	return id;
}

static inline char *put_istr(struct enc *e, char *w, const char *s)
{
	struct cache_entry *c;
	uint32_t id;

	if (!s) {
		*w++ = 0;
		return w;
	}
	c = &e->s->cache[((uintptr_t)s >> 3 ^ (uintptr_t)s >> 11) & (TR2_RECORD_CACHE - 1)];
	if (c->ptr == s && !strncmp(s, c->copy, c->len) && !s[c->len])
		id = c->id;
	else
		id = istr_miss(e, c, s);
	if (id != ISTR_INLINE)
		return put_uv(w, id);
	*w++ = ISTR_INLINE;
	return put_bytes(e, w, s, strlen(s));
}

/* ---------------------------------------------------------------- */
/* Records.                                                           */

/* The record of ev at w; its end (e->over: a string did not fit). */
static char *encode(struct enc *e, char *w, event_t *ev)
{
	struct tr2_rec_stream *s = e->s;
	int has_t_rel = ev->t_rel_us != 0;

	*w++ = (char)(ev->kind | (has_t_rel ? HEAD_T_REL : 0));
	w = put_sv(w, (int64_t)(ev->time_us - s->prev_time));
	w = put_sv(w, (int64_t)((ev->t_abs_us - s->prev_t_abs) - (ev->time_us - s->prev_time)));
	w = put_uv(w, ev->nesting);
	if (has_t_rel)
		w = put_uv(w, ev->t_rel_us);
	w = put_istr(e, w, ev->file);
	w = put_uv(w, (uint64_t)(ev->line < 0 ? 0 : ev->line));
	switch (ev->kind) {
#define TR2_REC(fields) fields
#define TR2_NO_REC
#define TR2_R_STR(f) w = put_str(e, w, ev->f);
#define TR2_R_ISTR(f) w = put_istr(e, w, ev->f);
#define TR2_R_SV(f) w = put_sv(w, (int64_t)ev->f);
#define TR2_R_UV(f) w = put_uv(w, (uint64_t)ev->f);
#define TR2_R_ARGV(f) w = put_argv(e, w, ev->f);
#define TR2_R_JSON(m) w = put_json(e, w, &ev->m);
#define TR2_KIND(kind, name, payload, strings, argv, rec, keys) \
	case TRACE2_EVENT_##kind:                               \
		rec break;
#include "tr2_kinds.def"
#undef TR2_KIND
#undef TR2_R_JSON
#undef TR2_R_ARGV
#undef TR2_R_UV
#undef TR2_R_SV
#undef TR2_R_ISTR
#undef TR2_R_STR
#undef TR2_NO_REC
#undef TR2_REC
	default:
		break;
	}
	return w;
}

/* Bytes 0xff from 8 to 15, 0 around: 8 bytes read from it are a
 * memory-order mask of a word's first or last bytes, on either byte
 * order. */
static const unsigned char ones[24] = { [8] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

typedef uint64_t __attribute__((may_alias)) word_t;

/*
 * Whether the string's words still read as when the site saw it, the
 * first differing word ending the check.  A word is read only while the
 * words before it matched: the string then goes on at least to that
 * word's first byte, and an aligned word never straddles a page, so no
 * read can fault; a word's bytes beyond a now shorter string are masked
 * out.  The sanitizers would report those bytes, so their builds compare
 * with the copy instead (still_same()).
 */
static inline int words_same(const struct seen *e)
{
	const word_t *p = (const word_t *)(const void *)((uintptr_t)e->ptr & ~(uintptr_t)7);
	uint32_t i;

	for (i = 0; i < e->nwords; i++)
		if ((p[i] ^ e->want[i]) & e->mask[i])
			return 0;
	return 1;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WORD_CHECKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define WORD_CHECKS 0
#endif
#endif
#ifndef WORD_CHECKS
#define WORD_CHECKS 1
#endif

/* Whether the caller's string s is still the one the site saw: the same
 * pointer and the same bytes; strncmp() never reads past the end of a
 * shorter s. */
static inline int still_same(const struct seen *e, const char *s)
{
	if (s != e->ptr)
		return 0;
	if (!s)
		return 1;
	if (WORD_CHECKS && e->nwords)
		return words_same(e);
	return !strncmp(s, e->copy, e->len) && !s[e->len];
}

/* The words of e (its pointer and copy set) that hold the string. */
static void learn_words(struct seen *e)
{
	size_t off = (uintptr_t)e->ptr & 7, end = off + e->len + 1, i, k;

	e->nwords = 0;
	if (end > 8 * SEEN_WORDS)
		return;
	memset(e->want, 0, sizeof(e->want));
	memset(e->mask, 0, sizeof(e->mask));
	for (k = 0; 8 * k < end; k++) {
		unsigned char want[8] = { 0 };
		uint64_t m, lo, hi;

		for (i = 0; i < 8; i++) {
			size_t at = 8 * k + i;

			if (at >= off && at < end)
				want[i] = (unsigned char)e->copy[at - off];
		}
		memcpy(&e->want[k], want, 8);
		/* bytes at or after off in the first word, before end in the last */
		memcpy(&lo, ones + 8 - (k ? 0 : off), 8);
		memcpy(&hi, ones + 16 - (end - 8 * k < 8 ? end - 8 * k : 8), 8);
		m = lo & hi;
		e->mask[k] = m;
	}
	e->nwords = (uint32_t)k;
}

static inline struct site *site_of(struct tr2_rec_stream *s, const char *file, int line)
{
	uintptr_t h = (uintptr_t)file ^ (uintptr_t)line * 0x9e3779b1u;

	return &s->sites[(h >> 4 ^ h >> 12) & (TR2_RECORD_SITES - 1)];
}

/* An interned string's number, and what checks it later (id 0: NULL);
 * 0 when it cannot be entered (the site is then not kept). */
static int site_string(state *st, const char *s, uint32_t *id, struct seen *seen)
{
	*id = 0;
	memset(seen, 0, sizeof(*seen));
	if (!s)
		return 1;
	seen->len = (uint32_t)strlen(s);
	*id = intern(st, s, seen->len);
	if (*id == ISTR_INLINE)
		return 0;
	seen->copy = entry(st, *id)->s;
	seen->ptr = s;
	learn_words(seen);
	return 1;
}

/* Whether the string a site saw can never change: NULL, or in the
 * program's read-only segments (tr2_plat_immutable()). */
static int immutable(const struct seen *seen)
{
	return !seen->ptr || tr2_plat_immutable(seen->ptr, seen->len + 1);
}

/* The site's number in the site table (NO_ENTRY if it cannot be
 * entered), its strings' numbers given: the SITES entry's bytes are its
 * key. */
static uint32_t site_number(state *st, event_t *ev, uint32_t file_id, uint32_t category_id,
			    uint32_t label_id)
{
	char key[3 + 5 + 3 + 3 + 5], *w;

	w = put_uv(put_uv(key, file_id), (uint64_t)(ev->line < 0 ? 0 : ev->line));
	w = put_uv(put_uv(w, category_id), label_id);
	w = put_sv(w, ev->region.repo_id);
	return enter_locked(st, &st->sites, key, (size_t)(w - key));
}

/* Fill the site's entry for a region record of ev; 0 if a string or
 * the site could not be entered in its table. */
static __attribute__((noinline)) int learn_site(state *st, struct site *site, event_t *ev)
{
	uint32_t file_id, category_id, label_id, id;

	site->id_len = 0; /* no match while half filled */
	if (!site_string(st, ev->file, &file_id, &site->seen_file) ||
	    !site_string(st, ev->region.category, &category_id, &site->seen_category) ||
	    !site_string(st, ev->region.label, &label_id, &site->seen_label) ||
	    (id = site_number(st, ev, file_id, category_id, label_id)) == NO_ENTRY)
		return 0;
	site->line = ev->line;
	site->repo_id = ev->region.repo_id;
	site->file = ev->file;
	site->category = ev->region.category;
	site->label = ev->region.label;
	site->immutable = immutable(&site->seen_file) && immutable(&site->seen_category) &&
			  immutable(&site->seen_label);
	site->id_len = (unsigned char)(put_uv(site->id, id) - site->id);
	return 1;
}

/*
 * Whether ev comes from the site as the site saw it: the same line, repo
 * and pointers, and the same bytes behind them -- which strings in the
 * program's read-only segments always have, so only the others are
 * read.
 */
static __attribute__((noinline)) int site_strings_same(const struct site *site, event_t *ev)
{
	return still_same(&site->seen_file, ev->file) &&
	       still_same(&site->seen_category, ev->region.category) &&
	       still_same(&site->seen_label, ev->region.label);
}

static inline int site_same(const struct site *site, event_t *ev)
{
	if (!site->id_len || site->line != ev->line || site->file != ev->file ||
	    site->category != ev->region.category || site->label != ev->region.label ||
	    site->repo_id != ev->region.repo_id)
		return 0;
	return site->immutable || site_strings_same(site, ev);
}

/* Whether ev can be a site record (docs/record-format.md): a region's,
 * without a message, its t_abs moving with its time. */
static inline int site_recordable(const struct tr2_rec_stream *s, event_t *ev)
{
	return !ev->region.msg && ev->t_abs_us - s->prev_t_abs == ev->time_us - s->prev_time;
}

/* The site record of ev at w, from its site; its end. */
static inline char *put_site_record(const struct tr2_rec_stream *s, const struct site *site,
				    char *w, event_t *ev)
{
	int has_t_rel = ev->t_rel_us != 0;

	*w++ = (char)(ev->kind | HEAD_SITE | (has_t_rel ? HEAD_T_REL : 0));
	w = put_sv(w, (int64_t)(ev->time_us - s->prev_time));
	w = put_uv(w, ev->nesting);
	if (has_t_rel)
		w = put_uv(w, ev->t_rel_us);
	memcpy(w, site->id, SITE_ID_BYTES);
	return w + site->id_len;
}

/* A region record as a site record, its site learnt if new; NULL when
 * it cannot be one (a full record then). */
static char *encode_region(state *st, struct tr2_rec_stream *s, char *w, event_t *ev)
{
	struct site *site = site_of(s, ev->file, ev->line);

	if (!site_recordable(s, ev) || (!site_same(site, ev) && !learn_site(st, site, ev)))
		return NULL;
	return put_site_record(s, site, w, ev);
}

/* Whether the ring's used bytes and bytes more stay under lim: from the
 * consumer's tail as last seen, else as it is now. */
static inline int under(struct tr2_rec_stream *s, uint64_t bytes, uint64_t lim)
{
	if (s->head - s->tail_seen + bytes < lim)
		return 1;
	s->tail_seen = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
	return s->head - s->tail_seen + bytes < lim;
}

/* Whether bytes more fit in the ring. */
static inline int room_for(struct tr2_rec_stream *s, uint64_t bytes)
{
	return under(s, bytes, s->mask + 2);
}

/* The room a record needs free: its own, and the leaves of the regions
 * open after it (open). */
static inline uint64_t room_with_leaves(size_t open)
{
	return RECORD_ROOM + (uint64_t)open * LEAVE_ROOM;
}

/*
 * record()'s bound for its common case, that the ring's used bytes and
 * LEAVE_ROOM per region open stay under: what leaves room for a record
 * besides (room_with_leaves()); 0, so that every record goes to
 * record_any(), while a drop is to be told or records are left out.
 */
static void set_fast_lim(struct tr2_rec_stream *s)
{
	s->fast_lim = s->dropped || s->hole ? 0 : s->mask + 2 - RECORD_ROOM;
}

/* The regions open after ev whose enters are in the ring (all of them
 * outside a hole: ev's nesting counts them, one more for a leave or a
 * data record). */
static inline size_t open_after(const struct tr2_rec_stream *s, event_t *ev)
{
	return s->hole ? s->hole - 1 : ev->nesting;
}

static inline void commit(struct tr2_rec_stream *s, size_t len)
{
	s->head += len;
	__atomic_store_n(&s->committed, s->head, __ATOMIC_RELEASE);
}

static inline void put_word(char *p, unsigned v)
{
	p[0] = (char)v;
	p[1] = (char)(v >> 8);
}

/* One record more that the ring could not take. */
static void count_drop(struct tr2_rec_stream *s)
{
	__atomic_store_n(&s->dropped, s->dropped + 1, __ATOMIC_RELAXED);
}

static void push_dropped(struct tr2_rec_stream *s)
{
	char *p = s->ring + (s->head & s->mask);

	put_word(p, RING_DROPPED);
	put_u64(p + RING_WORD, s->dropped);
	__atomic_store_n(&s->dropped, 0, __ATOMIC_RELAXED);
	commit(s, RING_WORD + 8);
}

/* The stream's state after ev's record. */
static inline void moved_to(struct tr2_rec_stream *s, event_t *ev)
{
	s->prev_time = ev->time_us;
	s->prev_t_abs = ev->t_abs_us;
}

/* A record longer than a ring takes: encoded on the heap, in a buffer
 * grown until it fits, the ring holding its length and address; 0 when
 * memory ran out. */
static int push_heap(state *st, struct tr2_rec_stream *s, event_t *ev)
{
	struct enc e = { st, s, NULL, 0 };
	size_t size = TR2_RECORD_INLINE_MAX;
	char *rec = NULL, *end, *p;

	for (;;) {
		char *grown = tr2_sys.realloc(rec, size + FIXED_MAX);

		if (!grown) {
			free(rec);
			return 0;
		}
		rec = grown;
		e.lim = rec + size;
		e.over = 0;
		end = encode(&e, rec, ev);
		if (!e.over)
			break;
		if (size > SIZE_MAX / 8) {
			free(rec);
			return 0;
		}
		size *= 4;
	}
	p = s->ring + (s->head & s->mask);
	put_word(p, RING_HEAP);
	put_u32(p + RING_WORD, (uint32_t)(end - rec));
	memcpy(p + RING_WORD + 4, &rec, sizeof(rec));
	commit(s, RING_WORD + 4 + sizeof(rec));
	moved_to(s, ev);
	return 1;
}

/* ---------------------------------------------------------------- */
/* Streams.                                                           */

static _Thread_local struct tr2_rec_stream *mine;

static struct tr2_rec_stream *new_stream(state *st)
{
	struct tr2_rec_stream *s = tr2_sys.calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ring = tr2_sys.malloc(st->ring_size + TR2_RECORD_INLINE_MAX + RING_MARKER);
	if (!s->ring) {
		free(s);
		return NULL;
	}
	s->mask = st->ring_size - 1;
	s->in_use = TAKEN;
	s->next = __atomic_load_n(&st->streams, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&st->streams, &s->next, s, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return s;
}

/* A free stream (its last thread's records all written), or a new one. */
static struct tr2_rec_stream *take_stream(state *st)
{
	struct tr2_rec_stream *s;

	for (s = __atomic_load_n(&st->streams, __ATOMIC_ACQUIRE); s; s = s->next) {
		int free_slot = FREE;

		if (s->mask + 1 == st->ring_size &&
		    __atomic_compare_exchange_n(&s->in_use, &free_slot, TAKEN, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return s;
	}
	return new_stream(st);
}

/* The stream the record's thread took, or NULL. */
static inline struct tr2_rec_stream *known_stream(const state *st, event_t *ev)
{
	struct tr2_rec_stream *s = mine;

	return s && s->owner == st && s->gen == st->gen && s->tid == ev->thread->id ? s : NULL;
}

/* The stream of the record's thread, taken at its first record. */
static struct tr2_rec_stream *stream_of(state *st, event_t *ev)
{
	struct tr2_rec_stream *s = known_stream(st, ev);
	int tid = ev->thread->id;

	if (s)
		return s;
	if (st->deferred)
		for (s = __atomic_load_n(&st->streams, __ATOMIC_ACQUIRE); s; s = s->next)
			if (__atomic_load_n(&s->in_use, __ATOMIC_ACQUIRE) == ACTIVE && s->owner == st &&
			    s->gen == st->gen && s->tid == tid &&
			    !__atomic_load_n(&s->exited, __ATOMIC_ACQUIRE))
				return mine = s;
	if (!(s = take_stream(st)))
		return mine = NULL;
	s->owner = st;
	s->gen = st->gen;
	s->tid = tid;
	s->name_len = ev->thread->name_len < sizeof(s->name) ? ev->thread->name_len
							      : sizeof(s->name);
	memcpy(s->name, ev->thread->name, s->name_len);
	s->named_gen = 0;
	__atomic_store_n(&s->dropped, 0, __ATOMIC_RELAXED);
	s->hole = 0;
	memset(s->cache, 0, sizeof(s->cache));
	memset(s->sites, 0, sizeof(s->sites));
	s->next_kick = s->head + (s->mask + 1) / 4;
	__atomic_store_n(&s->exited, 0, __ATOMIC_RELAXED);
	/* the consumer looks at it from here on */
	__atomic_store_n(&s->in_use, ACTIVE, __ATOMIC_RELEASE);
	return mine = s;
}

/* ---------------------------------------------------------------- */
/* The writer.                                                        */

static void wake_writer(state *st)
{
	if (!__atomic_exchange_n(&st->kick, 1, __ATOMIC_ACQ_REL))
		tr2_plat_wake(&st->kick);
}

/* trace2.ringFull=wait: until the writer made room, at most the wait
 * limit; 1 if it did. */
struct full_ring {
	state *st;
	struct tr2_rec_stream *s;
	uint64_t need;
};

static int room_made(void *arg)
{
	struct full_ring *f = arg;

	if (room_for(f->s, f->need))
		return 1;
	wake_writer(f->st);
	return 0;
}

static int wait_for_room(state *st, struct tr2_rec_stream *s, uint64_t need)
{
	struct full_ring f = { st, s, need };

	if (need > s->mask + 1)
		return 0; /* nesting deeper than the ring keeps leaves for */
	wake_writer(st);
	return tr2_nap_until(room_made, &f, tr2_dst_wait_limit_ms());
}

static void drain_from_handler(state *st);
static void drain_here(state *st);

/* The record between p and end is the ring's next: published, and the
 * stream's state after it. */
static inline void publish(struct tr2_rec_stream *s, event_t *ev, char *p, char *end)
{
	put_word(p, (unsigned)(end - p - RING_WORD));
	commit(s, (size_t)(end - p));
	moved_to(s, ev);
}

static __attribute__((noinline)) void kick(state *st, struct tr2_rec_stream *s)
{
	s->next_kick = s->head + (s->mask + 1) / 4;
	wake_writer(st);
}

/* The writer woken at each quarter ring the stream fills. */
static inline void kick_at_quarter(state *st, struct tr2_rec_stream *s)
{
	if (s->head >= s->next_kick)
		kick(st, s);
}

static int is_region(event_t *ev)
{
	return ev->kind == TRACE2_EVENT_REGION_ENTER || ev->kind == TRACE2_EVENT_REGION_LEAVE;
}

/* ev is lost: counted; a lost enter leaves its whole region out. */
static void lose(struct tr2_rec_stream *s, event_t *ev)
{
	count_drop(s);
	if (ev->kind == TRACE2_EVENT_REGION_ENTER)
		s->hole = ev->nesting;
}

/*
 * Whether ev is left out (and lost): a region or data record inside the
 * region whose enter was lost, or that region's leave.  Records of other
 * kinds inside it are kept (no reader checks their nesting).  The first
 * record at the lost region's level or above ends the hole: its leave,
 * or a record after the thread's regions were discarded (thread_exit,
 * atexit).
 */
static int left_out(struct tr2_rec_stream *s, event_t *ev)
{
	int its_leave;

	if (!s->hole)
		return 0;
	if (ev->nesting > s->hole)
		return is_region(ev) || ev->kind == TRACE2_EVENT_DATA ||
		       ev->kind == TRACE2_EVENT_DATA_JSON;
	its_leave = ev->kind == TRACE2_EVENT_REGION_LEAVE && ev->nesting == s->hole;
	s->hole = 0;
	return its_leave;
}

/* The record of ev at the ring's head, as a site record or a full one,
 * on the heap if longer than a ring takes; 0 when memory ran out. */
static int put_record(state *st, struct tr2_rec_stream *s, event_t *ev)
{
	char *p = s->ring + (s->head & s->mask), *end;
	struct enc e = { st, s, p + TR2_RECORD_INLINE_MAX - FIXED_MAX, 0 };

	end = is_region(ev) ? encode_region(st, s, p + RING_WORD, ev) : NULL;
	if (!end)
		end = encode(&e, p + RING_WORD, ev);
	if (e.over)
		return push_heap(st, s, ev);
	publish(s, ev, p, end);
	return 1;
}

/*
 * A leave with its file, category, label and message left out, for when
 * memory ran out for a longer form: its head, three times and t_rel (10
 * bytes at most each), nesting (10), four absent strings, line 0 and
 * repo (5) take at most 53 bytes with the length word.
 */
_Static_assert(LEAVE_ROOM >= RING_WORD + 1 + 4 * 10 + 5 + 5, "a bare leave fits its room");
static void put_bare_leave(struct tr2_rec_stream *s, event_t *ev)
{
	struct trace2_event bare = *ev;
	char *p = s->ring + (s->head & s->mask);
	struct enc e = { NULL, s, p + LEAVE_ROOM, 0 };

	bare.file = NULL;
	bare.line = 0;
	bare.region.category = bare.region.label = bare.region.msg = NULL;
	publish(s, ev, p, encode(&e, p + RING_WORD, &bare));
}

/* A leave into the room its enter kept (LEAVE_ROOM): as a site record,
 * as a full record if that fits, on the heap, else bare. */
static void put_kept_leave(state *st, struct tr2_rec_stream *s, event_t *ev)
{
	char *p = s->ring + (s->head & s->mask), *end;
	char buf[LEAVE_ROOM + FIXED_MAX];
	struct enc e = { st, s, buf + LEAVE_ROOM, 0 };
	size_t len;

	if ((end = encode_region(st, s, p + RING_WORD, ev))) {
		publish(s, ev, p, end);
		return;
	}
	len = (size_t)(encode(&e, buf, ev) - buf);
	if (!e.over && len <= LEAVE_ROOM - RING_WORD) {
		memcpy(p + RING_WORD, buf, len);
		publish(s, ev, p, p + RING_WORD + len);
	} else if (!push_heap(st, s, ev))
		put_bare_leave(s, ev);
}

/* ev found no room in the ring, or no memory: a leave (its enter is in
 * the ring) goes into the room its enter kept, anything else is lost. */
static void not_put(state *st, struct tr2_rec_stream *s, event_t *ev)
{
	if (ev->kind == TRACE2_EVENT_REGION_LEAVE && room_for(s, LEAVE_ROOM))
		put_kept_leave(st, s, ev);
	else
		lose(s, ev);
}

/*
 * ev into the ring if room for it and for the leaves of the regions open
 * after it stays free (with trace2.ringFull=wait, once the writer made
 * that room), else lost; a leave, whose enter is in the ring, goes into
 * the room its enter kept.  A drop to tell goes in first if there is room
 * for it too.
 */
static void put_in_ring(state *st, struct tr2_rec_stream *s, event_t *ev)
{
	uint64_t need = room_with_leaves(open_after(s, ev));

	if (!room_for(s, need) && !st->writer_running)
		drain_here(st);
	if (!room_for(s, need) && !(st->wait_when_full && wait_for_room(st, s, need))) {
		not_put(st, s, ev);
		wake_writer(st);
		return;
	}
	if (s->dropped && room_for(s, need + RING_MARKER))
		push_dropped(s);
	if (!put_record(st, s, ev))
		not_put(st, s, ev);
	kick_at_quarter(st, s);
}

/* Any record, in every case: a new stream, a full ring, a drop to tell,
 * records being left out, a record too long for the ring, a thread's
 * exit, a fatal signal. */
static __attribute__((noinline)) void record_any(state *st, event_t *ev)
{
	struct tr2_rec_stream *s = stream_of(st, ev);

	if (!s || s->busy)
		return; /* no memory, or a signal handler inside a record */
	s->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (left_out(s, ev))
		count_drop(s);
	else
		put_in_ring(st, s, ev);
	set_fast_lim(s);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->busy = 0;
	if (ev->kind == TRACE2_EVENT_THREAD_EXIT) {
		/* the last touch of the stream: once it is written out the
		 * writer may hand it to another thread; a record of this
		 * thread after its exit (or of its id, in deferred mode) takes
		 * a stream of its own */
		mine = NULL;
		__atomic_store_n(&s->exited, 1, __ATOMIC_RELEASE);
	}
	if (ev->kind == TRACE2_EVENT_SIGNAL)
		drain_from_handler(st);
}

/* The common record first: a site record from a site the thread knows,
 * into its stream's ring with room (for it and the leaves it keeps room
 * for), no drop to tell and no records being left out; anything else
 * record_any(). */
static HOT void record(void *ctx, event_t *ev)
{
	state *st = ctx;
	struct tr2_rec_stream *s = known_stream(st, ev);
	struct site *site;
	char *p, *end;

	if (!s || !is_region(ev) || s->busy ||
	    !under(s, (uint64_t)ev->nesting * LEAVE_ROOM, s->fast_lim) || !site_recordable(s, ev) ||
	    !site_same(site = site_of(s, ev->file, ev->line), ev)) {
		record_any(st, ev);
		return;
	}
	p = s->ring + (s->head & s->mask);
	s->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	end = put_site_record(s, site, p + RING_WORD, ev);
	publish(s, ev, p, end);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	s->busy = 0;
	kick_at_quarter(st, s);
}

/* ---------------------------------------------------------------- */
/* Blocks (the consumer's, under drain_lock).                         */

#define SCRATCH (TR2_RECORD_BLOCK_MAX + BLOCK_HEAD + 32)

static void put_head(char *p, enum block_type type, size_t len, uint64_t process)
{
	p[0] = (char)type;
	p[1] = p[2] = p[3] = 0;
	put_u32(p + 4, (uint32_t)len);
	put_u64(p + 8, process);
}

/* Write the block at p (its head's room first) that ends at end. */
static void write_block(state *st, enum block_type type, char *p, char *end)
{
	put_head(p, type, (size_t)(end - p - BLOCK_HEAD), st->process_key);
	if (tr2_dst_is_on(st->base.dst))
		tr2_dst_write_now(st->base.dst, p, (size_t)(end - p));
}

/* The scratch buffer past a block head's room. */
static char *body(state *st)
{
	return st->scratch + BLOCK_HEAD;
}

static void write_tz(state *st, uint64_t from, long offset)
{
	char *w = put_u64(body(st), from);

	w = put_u32(w, (uint32_t)(int32_t)offset);
	write_block(st, B_TZ, st->scratch, w);
	st->tz_offset = (int32_t)offset;
}

static void write_process(state *st)
{
	const struct trace2_process *pr = tr2_sid_process();
	char *w = body(st);
	size_t sid_len = pr ? pr->sid_len : 0;

	if (sid_len > TR2_RECORD_BLOCK_MAX - 64)
		sid_len = TR2_RECORD_BLOCK_MAX - 64;
	w = put_uv(w, sid_len + 1);
	memcpy(w, pr ? pr->sid : "", sid_len);
	w = put_uv(w + sid_len, (uint64_t)st->pid);
	w = put_u64(w, tr2_start_us());
	w = put_uv(w, sizeof(TRACE2_VERSION_STRING));
	memcpy(w, TRACE2_VERSION_STRING, sizeof(TRACE2_VERSION_STRING) - 1);
	w = put_uv(w + sizeof(TRACE2_VERSION_STRING) - 1, 1);
	write_block(st, B_PROCESS, st->scratch, w);
}

/* A new file of the destination (the first, a rotation's): the process,
 * its time zone and, as they are needed, every string and thread again. */
static void announce(state *st)
{
	unsigned gen = __atomic_load_n(&st->base.dst->file_gen, __ATOMIC_ACQUIRE);

	if (st->announced && gen == st->file_gen && !st->reannounce)
		return;
	st->reannounce = 0;
	st->file_gen = gen;
	st->announced++;
	st->strings_written = st->sites_written = 0;
	write_process(st);
	st->tz_checked = tr2_now_us();
	write_tz(st, 0, tr2_utc_offset(st->tz_checked));
}

/* A TZ block from the first second with another offset, if the offset
 * changed since last checked (a daylight-saving change). */
static void check_tz(state *st)
{
	uint64_t now = tr2_now_us(), lo = st->tz_checked / 1000000, hi = now / 1000000;
	long offset = tr2_utc_offset(now);

	if (offset == st->tz_offset) {
		st->tz_checked = now;
		return;
	}
	while (lo + 1 < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (tr2_utc_offset(mid * 1000000) == offset)
			hi = mid;
		else
			lo = mid;
	}
	write_tz(st, hi * 1000000, offset);
	st->tz_checked = now;
}

/* Table t's entries from *written to count as blocks of type (a
 * STRINGS block's entries are bytes, a SITES block's as they are). */
static void write_table(state *st, const struct tr2_rec_table *t, enum block_type type,
			uint32_t *written, uint32_t count)
{
	while (*written < count) {
		char *end = st->scratch + SCRATCH - 16, *w;
		char *n_at = put_uv(body(st), t->first + *written);
		uint32_t n = 0;

		/* the count's room: a varint of at most 3 bytes (n < 2^21) */
		w = n_at + 3;
		while (*written + n < count) {
			const struct tr2_rec_string *e = entry_at(t, *written + n);

			if ((size_t)(end - w) < e->len + 10)
				break;
			if (type == B_STRINGS)
				w = put_uv(w, e->len);
			memcpy(w, e->s, e->len);
			w += e->len;
			n++;
		}
		n_at[0] = (char)(n | 0x80);
		n_at[1] = (char)(n >> 7 | 0x80);
		n_at[2] = (char)(n >> 14);
		write_block(st, type, st->scratch, w);
		*written += n;
	}
}

/* The strings and sites entered since the last STRINGS and SITES blocks
 * to this file: the sites counted first, so that the strings they name
 * (entered before them) go out before them. */
static void write_tables(state *st)
{
	uint32_t sites = __atomic_load_n(&st->sites.count, __ATOMIC_ACQUIRE);

	write_table(st, &st->strings, B_STRINGS, &st->strings_written,
		    __atomic_load_n(&st->strings.count, __ATOMIC_ACQUIRE));
	write_table(st, &st->sites, B_SITES, &st->sites_written, sites);
}

static void write_thread(state *st, struct tr2_rec_stream *s)
{
	char *w = put_uv(body(st), (uint64_t)s->tid);

	w = put_uv(w, s->name_len);
	memcpy(w, s->name, s->name_len);
	write_block(st, B_THREAD, st->scratch, w + s->name_len);
	s->named_gen = (unsigned)st->announced;
}

static void write_dropped(state *st, struct tr2_rec_stream *s, uint64_t count)
{
	char *w = put_uv(body(st), (uint64_t)s->tid);

	write_block(st, B_DROPPED, st->scratch, put_uv(w, count));
}

/* An EVENTS block's head fields in buf (after the block head's room):
 * the thread and the state before its first record. */
static char *events_start(const struct tr2_rec_stream *s, char *buf)
{
	char *w = put_uv(buf + BLOCK_HEAD, (uint64_t)s->tid);

	w = put_u64(w, s->time);
	return put_u64(w, s->t_abs);
}

/* Follow a record's deltas: the stream's state after it (a site
 * record's t_abs moves with its time). */
static void advance(struct tr2_rec_stream *s, const unsigned char *rec)
{
	uint64_t dtime, dt_abs = 0;
	int site = rec[0] & HEAD_SITE;

	rec = get_uv(rec + 1, &dtime);
	if (!site)
		get_uv(rec, &dt_abs);
	s->time += (uint64_t)unzigzag(dtime);
	s->t_abs += (uint64_t)unzigzag(dtime) + (uint64_t)unzigzag(dt_abs);
}

/* A record too long for the scratch buffer: a block of its own. */
static void write_alone(state *st, struct tr2_rec_stream *s, const char *rec, size_t len)
{
	char *buf = st->in_signal ? NULL : tr2_sys.malloc(BLOCK_HEAD + 32 + len), *w;

	if (!buf) {
		write_dropped(st, s, 1);
		return;
	}
	w = events_start(s, buf);
	memcpy(w, rec, len);
	write_block(st, B_EVENTS, buf, w + len);
	free(buf);
}

/*
 * Copy a record of n bytes (n <= RING_SHORT) to w in 16-byte pieces: w
 * has that much room, and the bytes read past the record are committed
 * records after it (the caller checks), never bytes the producer may be
 * writing.
 */
#define RING_SHORT 64
static inline void copy_short(char *w, const unsigned char *rec, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i += 16)
		memcpy(w + i, rec + i, 16);
}

/* Follow a record's deltas, a site record's one-byte dtime inline
 * (most records). */
static inline void follow(struct tr2_rec_stream *s, const unsigned char *rec)
{
	if ((rec[0] & HEAD_SITE) && !(rec[1] & 0x80)) {
		s->time += (uint64_t)unzigzag(rec[1]);
		s->t_abs += (uint64_t)unzigzag(rec[1]);
		return;
	}
	advance(s, rec);
}

/* Write what the stream's thread committed; 1 if there was some. */
static int drain_stream(state *st, struct tr2_rec_stream *s)
{
	uint64_t tail = s->tail, committed = __atomic_load_n(&s->committed, __ATOMIC_ACQUIRE);
	char *start, *w, *end = st->scratch + SCRATCH;
	/* read once: their cache line is the producer's, which it writes
	 * with every record */
	const unsigned char *ring = (const unsigned char *)s->ring;
	uint64_t mask = s->mask;

	if (tail == committed)
		return 0;
	write_tables(st);
	if (s->named_gen != (unsigned)st->announced)
		write_thread(st, s);
	start = w = events_start(s, st->scratch);
	while (tail < committed) {
		const unsigned char *p = ring + (tail & mask);
		unsigned n = p[0] | (unsigned)p[1] << 8;
		const unsigned char *rec = p + RING_WORD;
		size_t step = RING_WORD + n;
		void *heap = NULL;

		if (n <= RING_SHORT && (size_t)(end - w) >= RING_SHORT + 16 &&
		    tail + step + 16 <= committed && (tail & mask) + step + 16 <= mask + 1) {
			copy_short(w, rec, n);
			w += n;
			follow(s, rec);
			tail += step;
			continue;
		}
		if (n == RING_DROPPED || n == RING_HEAP || (size_t)(end - w) < n) {
			if (w > start)
				write_block(st, B_EVENTS, st->scratch, w);
			if (n == RING_DROPPED) {
				write_dropped(st, s, get_u64(rec));
				tail += RING_WORD + 8;
				start = w = events_start(s, st->scratch);
				continue;
			}
			if (n == RING_HEAP) {
				n = (unsigned)rec[0] | (unsigned)rec[1] << 8 | (unsigned)rec[2] << 16 |
				    (unsigned)rec[3] << 24;
				memcpy(&heap, rec + 4, sizeof(heap));
				rec = heap;
				step = RING_WORD + 4 + sizeof(heap);
			}
			start = w = events_start(s, st->scratch);
		}
		if ((size_t)(end - w) < n)
			write_alone(st, s, (const char *)rec, n);
		else {
			memcpy(w, rec, n);
			w += n;
		}
		advance(s, rec);
		if (heap && !st->in_signal)
			free(heap);
		tail += step;
	}
	if (w > start)
		write_block(st, B_EVENTS, st->scratch, w);
	__atomic_store_n(&s->tail, tail, __ATOMIC_RELEASE);
	return 1;
}

/* The records a stream's thread could not record last (no room was
 * left for their marker): told when the thread is done. */
static void write_untold_drops(state *st, struct tr2_rec_stream *s)
{
	uint64_t n = __atomic_load_n(&s->dropped, __ATOMIC_RELAXED);

	if (n) {
		write_dropped(st, s, n);
		__atomic_store_n(&s->dropped, 0, __ATOMIC_RELAXED);
	}
}

/* A stream whose thread ended and whose records are all written goes
 * back for another thread, its state from zero. */
static void release_if_done(state *st, struct tr2_rec_stream *s)
{
	if (!__atomic_load_n(&s->exited, __ATOMIC_ACQUIRE) ||
	    s->tail != __atomic_load_n(&s->committed, __ATOMIC_ACQUIRE))
		return;
	write_untold_drops(st, s);
	s->time = s->t_abs = 0;
	s->prev_time = s->prev_t_abs = 0;
	__atomic_store_n(&s->exited, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->in_use, FREE, __ATOMIC_RELEASE);
}

/* Every stream's committed records, the main thread's first (the list
 * starts with the newest): its version and start go out before any
 * other thread's records, so that a reader reads the file as a whole
 * process's; 1 if some were written. */
/* Whether a stream of st has records to write. */
static int have_records(const state *st)
{
	struct tr2_rec_stream *s;

	for (s = __atomic_load_n(&st->streams, __ATOMIC_ACQUIRE); s; s = s->next)
		if (__atomic_load_n(&s->in_use, __ATOMIC_ACQUIRE) == ACTIVE && s->owner == st &&
		    s->tail != __atomic_load_n(&s->committed, __ATOMIC_ACQUIRE))
			return 1;
	return 0;
}

/* Nothing is written, not even the process's blocks, before a record
 * is (the flight recorder's run that never triggers leaves no file). */
static int drain_all(state *st)
{
	struct tr2_rec_stream *s;
	int any = 0, main_pass;

	if (!st->base.dst || !tr2_dst_is_on(st->base.dst) || (!st->announced && !have_records(st)))
		return 0;
	announce(st);
	check_tz(st);
	for (main_pass = 1; main_pass >= 0; main_pass--)
		for (s = __atomic_load_n(&st->streams, __ATOMIC_ACQUIRE); s; s = s->next) {
			if (__atomic_load_n(&s->in_use, __ATOMIC_ACQUIRE) != ACTIVE ||
			    s->owner != st || (s->tid == 0) != main_pass)
				continue;
			any |= drain_stream(st, s);
			release_if_done(st, s);
		}
	return any;
}

/* How long the writer sleeps with nothing to do: what a crash can lose
 * of a thread that records slowly; and after a pass that wrote, so that
 * a steady thread's records go out in large blocks (a ring a quarter
 * full wakes it sooner). */
#define IDLE_MS 100
#define BUSY_MS 10

/* The consumer's lock: a word, so that a signal handler can take it
 * too (within ms milliseconds; -1: no limit); 1 if taken. */
static int lock_drain(state *st, long ms)
{
	long waited_us = 0;

	for (;;) {
		int free_word = 0;

		if (__atomic_compare_exchange_n(&st->drain_lock, &free_word, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 1;
		if (ms >= 0 && waited_us >= ms * 1000)
			return 0;
		tr2_plat_nap_us(200);
		waited_us += 200;
	}
}

static void unlock_drain(state *st)
{
	__atomic_store_n(&st->drain_lock, 0, __ATOMIC_RELEASE);
}

static void *writer_main(void *ctx)
{
	state *st = ctx;

	__atomic_store_n(&st->writer_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
		int any;

		/* a kick during the drain ends the wait below at once */
		__atomic_store_n(&st->kick, 0, __ATOMIC_SEQ_CST);
		lock_drain(st, -1);
		any = drain_all(st);
		unlock_drain(st);
		tr2_plat_wait(&st->kick, 0, any ? BUSY_MS : IDLE_MS);
	}
	return NULL;
}

static void start_writer(state *st)
{
	/* every signal held there: the host's handlers never run on it */
	__atomic_store_n(&st->writer_started, 0, __ATOMIC_RELAXED);
	st->writer_running = !tr2_thread_start(&st->writer, writer_main, st);
	if (st->writer_running)
		tr2_plat_name_thread(st->writer, "trace2-record");
}

static void stop_writer(state *st)
{
	if (!st->writer_running)
		return;
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	wake_writer(st);
	tr2_thread_join(st->writer);
	st->writer_running = 0;
}

/* Write what the rings hold now, on the calling thread: at a flush, and
 * in a forked child, which has no writer thread (until it initializes
 * again), when a thread's ring is full. */
static void drain_here(state *st)
{
	if (lock_drain(st, tr2_dst_wait_limit_ms())) {
		drain_all(st);
		unlock_drain(st);
	}
}

/* A fatal signal's handler: what the rings hold, then the process ends
 * (no allocation, no free: a heap record is left to the exit). */
static void drain_from_handler(state *st)
{
	if (!lock_drain(st, TR2_DST_SIGNAL_WAIT_MS))
		return;
	st->in_signal = 1;
	drain_all(st);
	st->in_signal = 0;
	unlock_drain(st);
}

/* ---------------------------------------------------------------- */
/* The target.                                                        */

/* The forked child has its own process key and no writer; the records
 * in the rings are its parent's to write. */
static state *forked_state;
static int held_for_fork; /* the parent took the drain lock around fork() */

static int writer_started(void *arg)
{
	const state *st = arg;

	return __atomic_load_n(&st->writer_started, __ATOMIC_ACQUIRE);
}

/* Before fork(): the writer thread past its start and no drain in
 * progress (each within the wait limit), so the writer holds nothing a
 * child would find locked, the allocator's locks included (a thread's
 * start may allocate, under AddressSanitizer say; a drain may too:
 * localtime_r(), a huge record). */
static void before_fork(void)
{
	state *st = forked_state;

	if (st && st->writer_running)
		tr2_nap_until(writer_started, st, tr2_dst_wait_limit_ms());
	held_for_fork = st && lock_drain(st, tr2_dst_wait_limit_ms());
}

static void parent_after_fork(void)
{
	if (held_for_fork)
		unlock_drain(forked_state);
	held_for_fork = 0;
}

static void after_fork(void)
{
	state *st = forked_state;
	struct tr2_rec_stream *s;

	held_for_fork = 0;
	if (!st)
		return;
	st->drain_lock = 0;
	tr2_mutex_init(&st->strings_lock);
	for (s = st->streams; s; s = s->next) {
		s->head = s->tail_seen = s->tail = s->committed;
		__atomic_store_n(&s->dropped, 0, __ATOMIC_RELAXED);
		s->hole = 0;
		set_fast_lim(s);
		s->busy = 0;
		s->time = s->t_abs = s->prev_time = s->prev_t_abs = 0;
		if (s != mine)
			s->in_use = FREE;
	}
	st->writer_running = 0;
	st->reannounce = 1; /* a new process: its own PROCESS, strings, threads */
	st->pid = tr2_plat_pid();
	st->process_key = hash_bytes((const char *)&st->pid, sizeof(st->pid)) ^
			  tr2_now_ns() * 0x9e3779b97f4a7c15ull;
}

/* A power of two from GIT_TRACE2_RECORD_RING, within the limits. */
static size_t ring_size(void)
{
	const char *v = tr2_sysenv_get(TR2_SYSENV_RECORD_RING);
	size_t n = TR2_RECORD_RING_DEFAULT, p = TR2_RECORD_RING_MIN;

	if (v && tr2_parse_size(v, &n))
		n = TR2_RECORD_RING_DEFAULT;
	while (p < n && p < TR2_RECORD_RING_MAX)
		p <<= 1;
	return p;
}

/* The END block that takes a full file's last room (maxFileSize). */
static size_t full_line(char *line, size_t size, const void *record, size_t len,
			uint64_t max_size)
{
	uint64_t key = 0;

	(void)max_size;
	if (size < BLOCK_HEAD + 1 || len < BLOCK_HEAD)
		return 0;
	key = get_u64((const unsigned char *)record + 8);
	put_head(line, B_END, 1, key);
	line[BLOCK_HEAD] = 1;
	return BLOCK_HEAD + 1;
}

static int record_open(void *ctx, const struct trace2_target_config *config)
{
	static int atfork_set;
	state *st = ctx;

	tr2_tgt_open(ctx, config);
	st->deferred = config->deferred;
	st->wait_when_full = tr2_sysenv_ring_full_waits();
	st->ring_size = ring_size();
	st->gen++;
	st->pid = tr2_plat_pid();
	st->process_key = hash_bytes((const char *)&st->pid, sizeof(st->pid)) ^
			  tr2_now_ns() * 0x9e3779b97f4a7c15ull;
	if (!st->scratch && !(st->scratch = tr2_sys.malloc(SCRATCH)))
		return -1;
	tr2_mutex_init(&st->strings_lock);
	st->strings.first = FIRST_STRING;
	tr2_plat_find_immutable();
	tr2_dst_set_head(st->base.dst, magic, sizeof(magic));
	tr2_dst_set_full_line(st->base.dst, full_line);
	if (config->created)
		tr2_dst_write_now(st->base.dst, (const char *)magic, sizeof(magic));
	forked_state = st;
	if (!atfork_set) {
		tr2_plat_atfork(before_fork, parent_after_fork, after_fork);
		atfork_set = 1;
	}
	start_writer(st);
	return 0;
}

static void record_flush(void *ctx)
{
	drain_here(ctx);
}

static void record_shutdown(void *ctx)
{
	state *st = ctx;
	struct tr2_rec_stream *s;
	char end[BLOCK_HEAD + 1];

	stop_writer(st);
	if (!lock_drain(st, tr2_dst_wait_limit_ms()))
		return;
	drain_all(st);
	for (s = __atomic_load_n(&st->streams, __ATOMIC_ACQUIRE); s; s = s->next)
		if (__atomic_load_n(&s->in_use, __ATOMIC_ACQUIRE) == ACTIVE && s->owner == st)
			write_untold_drops(st, s);
	if (st->announced && tr2_dst_is_on(st->base.dst)) {
		put_head(end, B_END, 1, st->process_key);
		end[BLOCK_HEAD] = 0;
		tr2_dst_write_now(st->base.dst, end, sizeof(end));
	}
	unlock_drain(st);
}

const struct trace2_target tr2_tgt_record = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "record",
	.setting = "record",
	.flags = TRACE2_TARGET_WANTS_CREATED,
	.open = record_open,
	.event = record,
	.flush = record_flush,
	.shutdown = record_shutdown,
};
