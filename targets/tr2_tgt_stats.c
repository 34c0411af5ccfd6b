/*
 * The STATS target (GIT_TRACE2_STATS): for each region key (category,
 * label), per thread and in total, the count, total, min, max and the
 * 50th, 90th and 99th percentiles of the regions' times, written once at
 * exit as a table (GIT_TRACE2_STATS_FORMAT=json: one JSON line).
 *
 * A region_leave record carries its region's time (t_rel_us), so a leave
 * is all the target looks at, and it must cost little: the traced thread
 * (in deferred mode, the record's thread: ev->thread) adds it to a table
 * of its own, without a lock and without allocating once its keys have
 * rows.  A key's row is found through a small cache keyed by the
 * category's and label's pointers and checked against the row's text
 * (the API does not promise that a pointer keeps its text); a miss
 * searches the rows by a hash of the text.  Times go to a log-linear
 * histogram (tr2_tgt_stats.h): a bucket is found with one bit scan.
 *
 * Tables are merged only at exit: the report walks them under the lock.
 * A thread that ends keeps its section, up to TR2_STATS_THREADS threads;
 * the tables of further ones are added into one and taken again by new
 * threads, so memory stays bounded whatever the number of threads.
 */
#include "tr2_tgt_stats.h"
#include "tr2_hot.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOT TR2_HOT_IN("4_stats")

typedef struct tr2_tgt_stats state;
typedef const struct trace2_event event_t;

/* The row fields' one writer updates them; readers may be other threads. */
#define GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* ---------------------------------------------------------------- */
/* The histogram.                                                      */

#define SUB (1u << TR2_STATS_SUB_BITS)
#define EXACT (2 * SUB) /* times below have a bucket each */

static HOT unsigned bucket_of(uint64_t us)
{
	unsigned k;

	if (us < EXACT)
		return (unsigned)us;
	k = 63u - (unsigned)__builtin_clzll(us);
	if (k > TR2_STATS_TOP_BIT)
		return TR2_STATS_BUCKETS - 1;
	return ((k - TR2_STATS_SUB_BITS + 1) << TR2_STATS_SUB_BITS) +
	       (unsigned)((us >> (k - TR2_STATS_SUB_BITS)) & (SUB - 1));
}

/* The middle of bucket b: within 1/32 of every time it holds. */
static uint64_t bucket_middle(unsigned b)
{
	unsigned k, shift;

	if (b < EXACT)
		return b;
	k = (b >> TR2_STATS_SUB_BITS) + TR2_STATS_SUB_BITS - 1;
	shift = k - TR2_STATS_SUB_BITS;
	return ((uint64_t)(SUB + (b & (SUB - 1))) << shift) + (((uint64_t)1 << shift) - 1) / 2;
}

/* The p-th percentile (nearest rank: the smallest time that at least p %
 * of the times do not exceed), from the histogram, within [min, max]. */
static uint64_t percentile(const struct tr2_stats_row *r, unsigned p)
{
	uint64_t count = GET(r->count), seen = 0, v = 0;
	uint64_t rank = count / 100 * p + (count % 100 * p + 99) / 100;
	unsigned b;

	if (!count)
		return 0;
	if (rank <= 1 || rank == count) /* these two are known exactly */
		return rank == count ? GET(r->max_us) : GET(r->min_us);
	for (b = 0; b < TR2_STATS_BUCKETS; b++) {
		seen += GET(r->buckets[b]);
		if (seen >= rank) {
			v = bucket_middle(b);
			break;
		}
	}
	if (b == TR2_STATS_BUCKETS || v > GET(r->max_us))
		v = GET(r->max_us);
	return v < GET(r->min_us) ? GET(r->min_us) : v;
}

/* ---------------------------------------------------------------- */
/* Rows and their keys.                                                */

static HOT void add_time(struct tr2_stats_row *r, uint64_t us)
{
	uint64_t n = GET(r->count);
	unsigned b = bucket_of(us);

	SET(r->count, n + 1);
	SET(r->total_us, GET(r->total_us) + us);
	if (!n || us < GET(r->min_us))
		SET(r->min_us, us);
	if (us > GET(r->max_us))
		SET(r->max_us, us);
	SET(r->buckets[b], GET(r->buckets[b]) + 1);
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
	return h;
}

/* FNV-1a of the category, its NUL, the label: "ab"+"c" is not "a"+"bc". */
static uint64_t key_hash(const char *category, const char *label)
{
	uint64_t h = fnv1a(UINT64_C(14695981039346656037), category, strlen(category) + 1);

	return fnv1a(h, label, strlen(label));
}

/* Whether s is kept, or, when cut, starts with it.  Byte by byte, s
 * read only up to its NUL: fewer instructions than a length first for
 * the short texts of keys. */
static HOT int same_text(const char *kept, const char *s, unsigned cut)
{
	size_t i;

	for (i = 0; kept[i] == s[i]; i++)
		if (!kept[i])
			return 1;
	return !kept[i] && cut;
}

static HOT int row_is(const struct tr2_stats_row *r, const char *category,
		      const char *label)
{
	if (!same_text(r->category, category, r->cut & TR2_STATS_CUT_CATEGORY) ||
	    !same_text(r->label, label, r->cut & TR2_STATS_CUT_LABEL))
		return 0;
	return !r->cut || r->hash == key_hash(category, label);
}

/* Copy s into dst of size cap whole, or cut on a UTF-8 boundary: the
 * TR2_STATS_CUT_* bit given when cut, else 0. */
static unsigned keep_text(char *dst, size_t cap, const char *s, unsigned bit)
{
	size_t n = tr2_strnlen(s, cap);

	if (n < cap) {
		memcpy(dst, s, n + 1);
		return 0;
	}
	for (n = cap - 1; n && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
		;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return bit;
}

static void clear_numbers(struct tr2_stats_row *r)
{
	r->count = r->total_us = r->min_us = r->max_us = 0;
	memset(r->buckets, 0, sizeof(r->buckets));
}

static void set_key(struct tr2_stats_row *r, const char *category, const char *label,
		    uint64_t hash)
{
	r->hash = hash;
	r->cut = keep_text(r->category, sizeof(r->category), category, TR2_STATS_CUT_CATEGORY) |
		 keep_text(r->label, sizeof(r->label), label, TR2_STATS_CUT_LABEL);
}

/* The row of a key in t, found by its text; NULL if it has none. */
static struct tr2_stats_row *find_row(struct tr2_stats_table *t, const char *category,
				      const char *label, uint64_t hash)
{
	size_t i, nr = __atomic_load_n(&t->nr, __ATOMIC_ACQUIRE);

	for (i = 0; i < nr; i++)
		if (t->rows[i]->hash == hash && row_is(t->rows[i], category, label))
			return t->rows[i];
	return NULL;
}

/* A new row for a key in t (a row kept from the table's last use, or a
 * new one); NULL when the table is full or memory ran out. */
static struct tr2_stats_row *new_row(struct tr2_stats_table *t, const char *category,
				     const char *label, uint64_t hash)
{
	size_t nr = __atomic_load_n(&t->nr, __ATOMIC_RELAXED);
	struct tr2_stats_row *r;

	if (nr == TR2_STATS_ROWS)
		return NULL;
	r = t->rows[nr];
	if (!r && !(r = t->rows[nr] = tr2_sys.malloc(sizeof(*r))))
		return NULL;
	clear_numbers(r);
	set_key(r, category, label, hash);
	__atomic_store_n(&t->nr, nr + 1, __ATOMIC_RELEASE);
	return r;
}

/* The key's row in t, made if needed; the (other) row when none fits. */
static struct tr2_stats_row *row_for(struct tr2_stats_table *t, const char *category,
				     const char *label)
{
	uint64_t hash = key_hash(category, label);
	struct tr2_stats_row *r = find_row(t, category, label, hash);

	if (!r)
		r = new_row(t, category, label, hash);
	return r ? r : &t->other;
}

static HOT struct tr2_stats_slot *slot_of(struct tr2_stats_table *t, const char *category,
					  const char *label)
{
	uint64_t h = ((uint64_t)(uintptr_t)category * UINT64_C(0x9e3779b97f4a7c15)) ^
		     (uint64_t)(uintptr_t)label;

	h *= UINT64_C(0x9e3779b97f4a7c15);
	return &t->cache[h >> (64 - TR2_STATS_CACHE_BITS)];
}

/* The row for a region's leave: the cache's, else by its text (and the
 * cache points there from now on). */
static HOT struct tr2_stats_row *row_of(struct tr2_stats_table *t, const char *category,
					const char *label)
{
	struct tr2_stats_slot *s = slot_of(t, category, label);
	struct tr2_stats_row *r = GET(s->row);

	if (r && GET(s->category) == category && GET(s->label) == label &&
	    row_is(r, category, label))
		return r;
	r = row_for(t, category, label);
	if (r != &t->other) {
		SET(s->category, category);
		SET(s->label, label);
		SET(s->row, r);
	}
	return r;
}

/* ---------------------------------------------------------------- */
/* Threads' tables.                                                    */

static _Thread_local struct tr2_stats_table *mine;

static HOT int is_of(const state *st, const struct tr2_stats_table *t, int tid)
{
	return t && t->owner == st && GET(t->gen) == st->gen && GET(t->tid) == tid;
}

/* The live table of thread tid (deferred mode: another thread's). */
static struct tr2_stats_table *live_table(const state *st, int tid)
{
	struct tr2_stats_table *t;

	for (t = __atomic_load_n(&st->tables, __ATOMIC_ACQUIRE); t; t = t->next)
		if (is_of(st, t, tid) && __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == TR2_STATS_LIVE)
			return t;
	return NULL;
}

/* Empty a table taken for thread ev->thread. */
static void reset_table(state *st, struct tr2_stats_table *t, event_t *ev)
{
	SET(t->gen, st->gen);
	SET(t->tid, ev->thread->id);
	keep_text(t->thread, sizeof(t->thread), ev->thread->name, 0);
	__atomic_store_n(&t->nr, 0, __ATOMIC_RELEASE);
	clear_numbers(&t->other);
	memset(t->cache, 0, sizeof(t->cache));
}

/* A table for a thread that has none: a free one, else a new one; NULL
 * if memory ran out (the thread's regions are then not counted). */
static struct tr2_stats_table *take_table(state *st, event_t *ev)
{
	struct tr2_stats_table *t;

	for (t = __atomic_load_n(&st->tables, __ATOMIC_ACQUIRE); t; t = t->next) {
		int free_table = TR2_STATS_FREE;

		if (__atomic_compare_exchange_n(&t->state, &free_table, TR2_STATS_LIVE, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (!t) {
		if (!(t = tr2_sys.calloc(1, sizeof(*t))))
			return NULL;
		t->owner = st;
		t->state = TR2_STATS_LIVE;
		t->next = __atomic_load_n(&st->tables, __ATOMIC_RELAXED);
		reset_table(st, t, ev);
		while (!__atomic_compare_exchange_n(&st->tables, &t->next, t, 1,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
		return t;
	}
	reset_table(st, t, ev);
	return t;
}

/* The table of the record's thread; with take, made if it has none. */
static HOT struct tr2_stats_table *table_of(state *st, event_t *ev, int take)
{
	struct tr2_stats_table *t = mine;
	int tid = ev->thread->id;

	if (is_of(st, t, tid))
		return t;
	if (st->replay && (t = live_table(st, tid)))
		return mine = t;
	if (!take)
		return NULL;
	return mine = take_table(st, ev);
}

/* The row of dst with the key of src (as kept), NULL if none. */
static struct tr2_stats_row *find_kept(const struct tr2_stats_table *dst,
				       const struct tr2_stats_row *src)
{
	size_t i;

	for (i = 0; i < dst->nr; i++) {
		struct tr2_stats_row *r = dst->rows[i];

		if (r->hash == src->hash && r->cut == src->cut &&
		    !strcmp(r->category, src->category) && !strcmp(r->label, src->label))
			return r;
	}
	return NULL;
}

/* Add every row of src to dst (a table only the caller writes). */
static void merge_table(struct tr2_stats_table *dst, const struct tr2_stats_table *src)
{
	size_t i, nr = __atomic_load_n(&src->nr, __ATOMIC_ACQUIRE);
	unsigned b;

	for (i = 0; i <= nr; i++) {
		const struct tr2_stats_row *s = i < nr ? src->rows[i] : &src->other;
		struct tr2_stats_row *d;
		uint64_t count = GET(s->count);

		if (!count)
			continue;
		d = i < nr ? find_kept(dst, s) : &dst->other;
		if (!d && (d = new_row(dst, s->category, s->label, s->hash)))
			d->cut = s->cut; /* the key as kept: its hash and text */
		if (!d)
			d = &dst->other;
		if (!d->count || GET(s->min_us) < d->min_us)
			d->min_us = GET(s->min_us);
		if (GET(s->max_us) > d->max_us)
			d->max_us = GET(s->max_us);
		d->count += count;
		d->total_us += GET(s->total_us);
		for (b = 0; b < TR2_STATS_BUCKETS; b++)
			d->buckets[b] += GET(s->buckets[b]);
	}
}

/* An empty table of the report's own (the total, ended threads added up). */
static struct tr2_stats_table *new_sum(state *st)
{
	struct tr2_stats_table *t = tr2_sys.calloc(1, sizeof(*t));

	if (t)
		t->owner = st;
	return t;
}

static void free_sum(struct tr2_stats_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < TR2_STATS_ROWS; i++)
		tr2_sys.free(t->rows[i]);
	tr2_sys.free(t);
}

/* A thread ended: its table keeps its section, or, past
 * TR2_STATS_THREADS ended threads, is added up and freed for another. */
static void thread_ended(state *st, event_t *ev)
{
	struct tr2_stats_table *t = table_of(st, ev, 0);

	if (!t)
		return;
	if (mine == t)
		mine = NULL;
	tr2_mutex_lock(&st->lock);
	if (!__atomic_load_n(&st->closed, __ATOMIC_RELAXED)) {
		if (st->ended < TR2_STATS_THREADS || (!st->folded && !(st->folded = new_sum(st)))) {
			st->ended++;
			__atomic_store_n(&t->state, TR2_STATS_ENDED, __ATOMIC_RELEASE);
		} else {
			merge_table(st->folded, t);
			st->folded_threads++;
			__atomic_store_n(&t->state, TR2_STATS_FREE, __ATOMIC_RELEASE);
		}
	}
	tr2_mutex_unlock(&st->lock);
}

/* ---------------------------------------------------------------- */
/* The report.                                                         */

/* Total time descending, then count descending, then by key. */
static int by_total(const void *a, const void *b)
{
	const struct tr2_stats_row *x = *(const struct tr2_stats_row *const *)a;
	const struct tr2_stats_row *y = *(const struct tr2_stats_row *const *)b;
	int c;

	if (GET(x->total_us) != GET(y->total_us))
		return GET(x->total_us) > GET(y->total_us) ? -1 : 1;
	if (GET(x->count) != GET(y->count))
		return GET(x->count) > GET(y->count) ? -1 : 1;
	if ((c = strcmp(x->category, y->category)))
		return c;
	return strcmp(x->label, y->label);
}

/* A section of the report: a thread's table, the ended threads added up,
 * or the total. */
struct section {
	const struct tr2_stats_table *t;
	const char *name;
	int tid;             /* -1: not a thread's */
};

/* The rows of a section worth a line, sorted (by_total), then (other)
 * when it counted something.  Returns how many. */
static size_t section_rows(const struct tr2_stats_table *t, const struct tr2_stats_row **out)
{
	size_t i, n = 0, nr = __atomic_load_n(&t->nr, __ATOMIC_ACQUIRE);

	for (i = 0; i < nr; i++)
		if (GET(t->rows[i]->count))
			out[n++] = t->rows[i];
	qsort(out, n, sizeof(*out), by_total);
	if (GET(t->other.count))
		out[n++] = &t->other;
	return n;
}

/* The table's columns. */
enum { COL_THREAD, COL_CATEGORY, COL_LABEL, COL_COUNT, COL_TOTAL, COL_MIN,
       COL_P50, COL_P90, COL_P99, COL_MAX, NCOLS };
static const char *const col_name[NCOLS] = {
	"thread", "category", "label", "count", "total", "min", "p50", "p90", "p99", "max"
};
/* Each row's times, in column order from COL_TOTAL on. */
#define NTIMES (NCOLS - COL_TOTAL)
static const char *const json_time_key[NTIMES] = {
	"total_us", "min_us", "p50_us", "p90_us", "p99_us", "max_us"
};

static void row_times(const struct tr2_stats_row *r, uint64_t t[NTIMES])
{
	t[0] = GET(r->total_us);
	t[1] = GET(r->min_us);
	t[2] = percentile(r, 50);
	t[3] = percentile(r, 90);
	t[4] = percentile(r, 99);
	t[5] = GET(r->max_us);
}

/* A time with its unit: "850us", "12.345ms", "3.250s". */
static size_t fmt_time(char *out, uint64_t us)
{
	char *p = out;

	if (us < 1000)
		return (size_t)(tr2_put_lit(tr2_put_u64(p, us), "us") - out);
	if (us < 1000000) {
		p = tr2_put_u64(p, us / 1000);
		*p++ = '.';
		p = tr2_put_digits(p, (uint32_t)(us % 1000), 3);
		return (size_t)(tr2_put_lit(p, "ms") - out);
	}
	p = tr2_put_u64(p, us / 1000000);
	*p++ = '.';
	p = tr2_put_digits(p, (uint32_t)(us / 1000 % 1000), 3);
	return (size_t)(tr2_put_lit(p, "s") - out);
}

/* The columns a text takes (UTF-8 continuation bytes take none). */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* One line's cells as text. */
struct line {
	const char *text[COL_COUNT]; /* thread, category, label */
	char num[NCOLS - COL_COUNT][TR2_NUM_MAX];
	size_t num_len[NCOLS - COL_COUNT];
};

static void make_line(struct line *l, const char *thread, const struct tr2_stats_row *r,
		      const struct tr2_stats_table *t)
{
	uint64_t times[NTIMES];
	int i;

	l->text[COL_THREAD] = thread;
	if (r == &t->other) {
		l->text[COL_CATEGORY] = "(other)";
		l->text[COL_LABEL] = "-";
	} else {
		l->text[COL_CATEGORY] = *r->category ? r->category : "-";
		l->text[COL_LABEL] = *r->label ? r->label : "-";
	}
	l->num_len[0] = (size_t)(tr2_put_u64(l->num[0], GET(r->count)) - l->num[0]);
	row_times(r, times);
	for (i = 0; i < NTIMES; i++)
		l->num_len[i + 1] = fmt_time(l->num[i + 1], times[i]);
	for (i = 0; i <= NTIMES; i++)
		l->num[i][l->num_len[i]] = '\0';
}

/* Measure the line into widths (b NULL), or write it padded to them:
 * texts to the left, numbers to the right, a "..." after a cut text. */
static void put_line(struct tr2_buf *b, size_t widths[NCOLS], const struct line *l,
		     unsigned cut)
{
	int c;

	for (c = 0; c < NCOLS; c++) {
		const char *s = c < COL_COUNT ? l->text[c] : l->num[c - COL_COUNT];
		int dots = (c == COL_CATEGORY && (cut & TR2_STATS_CUT_CATEGORY)) ||
			   (c == COL_LABEL && (cut & TR2_STATS_CUT_LABEL));
		size_t w = (c < COL_COUNT ? text_width(s) : l->num_len[c - COL_COUNT]) +
			   (dots ? 3 : 0);

		if (!b) {
			if (w > widths[c])
				widths[c] = w;
			continue;
		}
		if (c)
			tr2_buf_addlit(b, "  ");
		if (c >= COL_COUNT)
			tr2_buf_addn(b, ' ', widths[c] - w);
		for (; *s; s++) /* a control byte would break the table */
			tr2_buf_addc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
		if (dots)
			tr2_buf_addlit(b, "...");
		if (c < COL_COUNT && c != NCOLS - 1)
			tr2_buf_addn(b, ' ', widths[c] - w);
	}
	if (b)
		tr2_buf_addc(b, '\n');
}

/* Every line of the sections, measured (b NULL) or written. */
static void put_sections(struct tr2_buf *b, size_t widths[NCOLS], const struct section *sec,
			 size_t nsec, const struct tr2_stats_row **rows)
{
	struct line l;
	size_t i, j, n;

	for (i = 0; i < nsec; i++) {
		n = section_rows(sec[i].t, rows);
		for (j = 0; j < n; j++) {
			make_line(&l, sec[i].name, rows[j], sec[i].t);
			put_line(b, widths, &l, rows[j] == &sec[i].t->other ? 0 : rows[j]->cut);
		}
	}
}

static void put_text(const state *st, struct tr2_buf *b, const struct section *sec,
		     size_t nsec, const struct tr2_stats_row **rows)
{
	size_t widths[NCOLS] = { 0 };
	struct line head;
	int c;

	for (c = 0; c < NCOLS; c++) {
		if (c < COL_COUNT)
			head.text[c] = col_name[c];
		else
			head.num_len[c - COL_COUNT] = (size_t)snprintf(head.num[c - COL_COUNT],
								       TR2_NUM_MAX, "%s", col_name[c]);
	}
	put_line(NULL, widths, &head, 0);
	put_sections(NULL, widths, sec, nsec, rows);
	tr2_buf_addlit(b, "# trace2 stats, sid ");
	tr2_buf_adds(b, st->sid);
	tr2_buf_addlit(b, ": region times per thread and in total; p50, p90 and p99 within 1/32\n");
	put_line(b, widths, &head, 0);
	put_sections(b, widths, sec, nsec, rows);
}

static void put_json_rows(struct tr2_buf *b, const struct tr2_stats_table *t,
			  const struct tr2_stats_row **rows)
{
	size_t j, n = section_rows(t, rows);
	uint64_t times[NTIMES];
	int i;

	tr2_buf_addlit(b, "\"regions\":[");
	for (j = 0; j < n; j++) {
		const struct tr2_stats_row *r = rows[j];

		if (j)
			tr2_buf_addc(b, ',');
		tr2_buf_addc(b, '{');
		if (r == &t->other) {
			tr2_buf_addlit(b, "\"other\":true");
		} else {
			tr2_buf_addlit(b, "\"category\":");
			tr2_buf_add_json_str(b, r->category);
			TR2_JSON_STR(b, "label", r->label);
			if (r->cut)
				tr2_buf_addlit(b, ",\"cut\":true");
		}
		TR2_JSON_KEY(b, "count");
		tr2_buf_add_u64(b, GET(r->count));
		row_times(r, times);
		for (i = 0; i < NTIMES; i++) {
			tr2_buf_addlit(b, ",\"");
			tr2_buf_adds(b, json_time_key[i]);
			tr2_buf_addlit(b, "\":");
			tr2_buf_add_u64(b, times[i]);
		}
		tr2_buf_addc(b, '}');
	}
	tr2_buf_addc(b, ']');
}

/* One line: {"sid":...,"threads":[{"thread":...,"id":...,"regions":[...]}],
 * "ended_threads":{"threads":N,"regions":[...]},"total":{"regions":[...]}}. */
static void put_json(const state *st, struct tr2_buf *b, const struct section *sec,
		     size_t nsec, const struct tr2_stats_row **rows)
{
	size_t i;

	tr2_buf_addlit(b, "{\"sid\":");
	tr2_buf_add_json_str(b, st->sid);
	tr2_buf_addlit(b, ",\"threads\":[");
	for (i = 0; i < nsec && sec[i].tid >= 0; i++) {
		if (i)
			tr2_buf_addc(b, ',');
		tr2_buf_addlit(b, "{\"thread\":");
		tr2_buf_add_json_str(b, sec[i].name);
		TR2_JSON_INT(b, "id", sec[i].tid);
		tr2_buf_addc(b, ',');
		put_json_rows(b, sec[i].t, rows);
		tr2_buf_addc(b, '}');
	}
	tr2_buf_addc(b, ']');
	if (st->folded_threads && st->folded) {
		tr2_buf_addlit(b, ",\"ended_threads\":{\"threads\":");
		tr2_buf_add_u64(b, st->folded_threads);
		tr2_buf_addc(b, ',');
		put_json_rows(b, st->folded, rows);
		tr2_buf_addc(b, '}');
	}
	tr2_buf_addlit(b, ",\"total\":{");
	put_json_rows(b, sec[nsec - 1].t, rows);
	tr2_buf_addlit(b, "}}\n");
}

static int by_tid(const void *a, const void *b)
{
	const struct section *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The sections: the threads' tables by thread id (none when brief), the
 * ended threads added up, the total last (made in total).  Called with
 * the lock held; the count, or 0 without memory. */
static size_t make_sections(state *st, struct tr2_stats_table *total, struct section **out,
			    char *folded_name, size_t size)
{
	struct tr2_stats_table *t;
	struct section *sec;
	size_t n = 0, cap = 2;

	for (t = __atomic_load_n(&st->tables, __ATOMIC_ACQUIRE); t; t = t->next)
		cap++;
	if (!(sec = tr2_sys.malloc(cap * sizeof(*sec))))
		return 0;
	for (t = __atomic_load_n(&st->tables, __ATOMIC_ACQUIRE); t; t = t->next) {
		int state_now = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);

		if (state_now == TR2_STATS_FREE || t->owner != st || GET(t->gen) != st->gen)
			continue;
		merge_table(total, t);
		if (!st->base.brief)
			sec[n++] = (struct section){ t, t->thread, GET(t->tid) };
	}
	qsort(sec, n, sizeof(*sec), by_tid);
	if (st->folded) {
		merge_table(total, st->folded);
		snprintf(folded_name, size, "(%lu threads)", st->folded_threads);
		if (!st->base.brief)
			sec[n++] = (struct section){ st->folded, folded_name, -1 };
	}
	sec[n++] = (struct section){ total, "total", -1 };
	*out = sec;
	return n;
}

/* The report, in one write. */
static void report(state *st)
{
	struct tr2_stats_table *total = new_sum(st);
	const struct tr2_stats_row **rows = tr2_sys.malloc((TR2_STATS_ROWS + 1) * sizeof(*rows));
	struct section *sec = NULL;
	char folded_name[32];
	struct tr2_buf b;
	size_t n;

	tr2_buf_init(&b);
	if (total && rows &&
	    (n = make_sections(st, total, &sec, folded_name, sizeof(folded_name)))) {
		if (st->json)
			put_json(st, &b, sec, n, rows);
		else
			put_text(st, &b, sec, n, rows);
		if (!b.failed)
			trace2_output_write(st->output, b.p, b.len, NULL);
	}
	tr2_buf_release(&b);
	tr2_sys.free(sec);
	tr2_sys.free(rows);
	free_sum(total);
}

/* ---------------------------------------------------------------- */
/* The target.                                                         */

static state *forked_state; /* the state the fork handlers keep whole */

static void fork_prepare(void)
{
	if (forked_state)
		tr2_mutex_lock(&forked_state->lock);
}

static void fork_done(void)
{
	if (forked_state)
		tr2_mutex_unlock(&forked_state->lock);
}

static int open_(void *ctx, const struct trace2_target_config *config)
{
	static int fork_handlers;
	state *st = ctx;
	struct tr2_stats_table *t;
	const char *format = tr2_sysenv_get(TR2_SYSENV_STATS_FORMAT);

	tr2_tgt_open(&st->base, config);
	st->output = config->output;
	st->json = format && !strcmp(format, "json");
	st->replay = config->deferred;
	st->gen++;
	/* a forked child opens again: its parent's tables are free (it is
	 * the only thread) */
	for (t = st->tables; t; t = t->next)
		t->state = TR2_STATS_FREE;
	st->closed = 0;
	st->ended = 0;
	st->folded_threads = 0;
	free_sum(st->folded);
	st->folded = NULL;
	strcpy(st->sid, "-");
	tr2_mutex_init(&st->lock);
	forked_state = st;
	if (!fork_handlers) /* open() runs on one thread */
		fork_handlers = !tr2_plat_atfork(fork_prepare, fork_done, fork_done);
	return 0;
}

static HOT __attribute__((noinline)) void region_left(state *st, event_t *ev)
{
	const char *category = ev->region.category ? ev->region.category : "";
	const char *label = ev->region.label ? ev->region.label : "";
	struct tr2_stats_table *t = table_of(st, ev, 1);

	if (t)
		add_time(row_of(t, category, label), ev->t_rel_us);
}

/* Only a few kinds matter: the others return at once (no frame). */
static HOT void event(void *ctx, const struct trace2_event *ev)
{
	state *st = ctx;

	if (ev->kind == TRACE2_EVENT_REGION_LEAVE)
		region_left(st, ev);
	else if (ev->kind == TRACE2_EVENT_THREAD_EXIT)
		thread_ended(st, ev);
	else if (ev->kind == TRACE2_EVENT_VERSION)
		keep_text(st->sid, sizeof(st->sid), ev->process->sid, 0);
}

static void shutdown_(void *ctx)
{
	state *st = ctx;

	tr2_mutex_lock(&st->lock);
	if (!__atomic_exchange_n(&st->closed, 1, __ATOMIC_ACQ_REL))
		report(st);
	tr2_mutex_unlock(&st->lock);
}

const struct trace2_target tr2_tgt_stats = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "stats",
	.setting = "stats",
	.open = open_,
	.event = event,
	.shutdown = shutdown_,
};
