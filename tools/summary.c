/*
 * trace2 summary [--json] [--top N] [--tree] [FILTER...] FILE...: what
 * the event logs say in short: the process tree (SID hierarchy), or over
 * GROUP_OVER processes one line per command, then per region
 * category/label the count, total and self time and the quantiles of its
 * durations, then the process timers and counters summed over all
 * processes.  The filters (by command, SID prefix, time window and
 * category) choose the processes and records that count.
 *
 * Memory: per process a small record, per thread the stack of its open
 * regions, per distinct region category/label a fixed histogram, per
 * distinct timer or counter a small record.  Nothing grows with the
 * number of records.
 *
 * Quantiles come from the histogram: one bucket per microsecond below
 * H_LINEAR us, then buckets whose bounds grow by H_RATIO.  A quantile is
 * the nearest-rank value's bucket, reported as the middle of the whole
 * microseconds in it, clamped to [min, max]: exact below H_LINEAR us,
 * else within (H_RATIO - 1) / 2 of the bucket's low bound plus half a
 * microsecond of rounding, 0.9 % + 0.05 % < 1 % of the true value.
 */
#include "summary.h"
#include "alloc.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "output.h"
#include "reader.h"
#include "text.h"
#include "trace2/target.h"
#include "usage.h"

#define H_LINEAR 1024  /* exact buckets: 0 .. H_LINEAR-1 us */
#define H_LOG 1200     /* then H_LINEAR * H_RATIO^k: up to ~2e12 us (23 days) */
#define H_RATIO 1.018
#define H_BUCKETS (H_LINEAR + H_LOG)

/* More processes than this are listed one line per command, unless
 * --tree: a long log's thousands of processes would bury the rest. */
#define GROUP_OVER 50

static double h_low[H_LOG + 1]; /* low bound of log bucket k */

static char *xstrdup_or_null(const char *s)
{
	return s ? t2_strdup(s) : NULL;
}

static void h_init(void)
{
	int k;

	h_low[0] = H_LINEAR;
	for (k = 1; k <= H_LOG; k++)
		h_low[k] = h_low[k - 1] * H_RATIO;
}

static size_t h_bucket(uint64_t us)
{
	size_t lo = 0, hi = H_LOG; /* h_low[lo] <= us < h_low[hi] */
	double v = (double)us;

	if (us < H_LINEAR)
		return (size_t)us;
	if (v >= h_low[H_LOG - 1])
		return H_BUCKETS - 1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (v >= h_low[mid])
			lo = mid;
		else
			hi = mid;
	}
	return H_LINEAR + lo;
}

/* The middle of the whole microseconds of a bucket. */
static uint64_t h_value(size_t b)
{
	double lo, hi;
	uint64_t first, last;

	if (b < H_LINEAR)
		return b;
	lo = h_low[b - H_LINEAR];
	hi = h_low[b - H_LINEAR + 1];
	first = (uint64_t)lo;
	if ((double)first < lo)
		first++;
	last = (uint64_t)hi;
	if ((double)last >= hi)
		last--;
	return (first + last + 1) / 2;
}

/* ---------------------------------------------------------------- */
/* Keys.                                                              */

struct khead {               /* what every key starts with */
	struct khead *next;      /* with the same hash */
	struct khead *next_made; /* the next one made */
	size_t seq;              /* its place in that order */
	char *cat, *name;    /* region: category/label; metric: category/name */
};

struct rkey {                /* a region category/label */
	struct khead h;      /* cat, name: NULL when the record had none */
	uint64_t count, total, self, min, max;
	uint64_t *hist;      /* H_BUCKETS */
};

struct mkey {                /* a timer or counter category/name */
	struct khead h;
	uint64_t intervals, total_ns, min_ns, max_ns, value;
};

struct table {
	struct t2_map map;                /* by hash2() of cat and name */
	struct khead *made, **made_end;   /* in the order made */
	size_t n;
};

/* A missing string and an empty one hash alike: same() tells them apart. */
static uint64_t hash2(const char *a, const char *b)
{
	uint64_t h = 5381;

	if (a)
		while (*a)
			h = h * 33 + (unsigned char)*a++;
	h = h * 33 + 1;
	if (b)
		while (*b)
			h = h * 33 + (unsigned char)*b++;
	return h;
}

static int same(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

/* The key cat/name in t, created (size bytes, zeroed, *fresh set) on first
 * use. */
static struct khead *key_get(struct table *t, const char *cat, const char *name,
			     size_t size, int *fresh)
{
	union t2_map_val *head = t2_map_at(&t->map, hash2(cat, name), 1);
	struct khead *k;

	*fresh = 0;
	for (k = head->p; k; k = k->next)
		if (same(k->cat, cat) && same(k->name, name))
			return k;
	*fresh = 1;
	k = t2_calloc(1, size);
	k->cat = xstrdup_or_null(cat);
	k->name = xstrdup_or_null(name);
	k->next = head->p;
	head->p = k;
	*t->made_end = k;
	t->made_end = &k->next_made;
	k->seq = t->n++;
	return k;
}

/* The region key, created on first use. */
static struct rkey *rkey_get(struct table *t, const char *cat, const char *label)
{
	int fresh;
	struct rkey *k = (struct rkey *)key_get(t, cat, label, sizeof(*k), &fresh);

	if (fresh)
		k->hist = t2_calloc(H_BUCKETS, sizeof(*k->hist));
	return k;
}

static struct mkey *mkey_get(struct table *t, const char *cat, const char *name)
{
	int fresh;
	struct mkey *k = (struct mkey *)key_get(t, cat, name, sizeof(*k), &fresh);

	if (fresh)
		k->min_ns = UINT64_MAX;
	return k;
}

static void table_init(struct table *t)
{
	memset(t, 0, sizeof(*t));
	t->made_end = &t->made;
}

/* The table's entries in an array, in the order made. */
static void **table_items(struct table *t)
{
	void **v = t2_calloc(t->n, sizeof(*v));
	struct khead *x;
	size_t n = 0;

	for (x = t->made; x; x = x->next_made)
		v[n++] = x;
	return v;
}

/* ---------------------------------------------------------------- */
/* Processes and threads.                                             */

struct frame {
	struct rkey *key;
	uint64_t child_us;   /* the time of regions directly nested in it */
};

struct sthread {
	struct frame *stack;
	size_t n, cap;
	size_t parked;       /* open at its process's atexit: back if it goes on */
	uint64_t base_child_us; /* regions left with none open (a thread that
				 * started before the input: in regions of before) */
};

struct sproc {
	unsigned long seq;   /* order of first appearance */
	long shown;          /* index among the processes shown; -1: filtered out */
	char *name, *mode, *prog;
	int code, signo;
	unsigned have_exit : 1, have_atexit : 1, have_signal : 1, sid_ok : 1;
	uint64_t exit_abs, atexit_abs, signal_abs;
	uint64_t first_us;   /* the time of its first record */
};

/* What counts (cmd_summary's options); an empty list: everything. */
struct filter {
	const char **commands, **sids, **categories;
	size_t n_commands, n_sids, n_categories;
	uint64_t since_us, until_us; /* the time window, inclusive */
};

struct t2_summary {
	struct t2_reader *reader;
	int quiet;                    /* no messages on stderr */
	int tree;                     /* --tree: the tree, whatever its size */
	struct filter filter;
	struct table regions, timers, counters;
	unsigned long nproc;
	unsigned long open_regions;   /* never left: not counted */
	unsigned long lone_leaves;    /* region_leave without its enter: skipped */
};

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = xstrdup_or_null(s);
}

static const char *shown_name(const struct sproc *sp)
{
	return sp->name ? sp->name : sp->prog;
}

static int listed(const char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (same(v[i], s))
			return 1;
	return !n;
}

static int sid_selected(const struct filter *f, const char *sid)
{
	size_t i;

	for (i = 0; i < f->n_sids; i++)
		if (!strncmp(sid, f->sids[i], strlen(f->sids[i])))
			return 1;
	return !f->n_sids;
}

/* Whether a record of category cat counts: its process passes the
 * SID and command filters (by the name known now), its time is in the
 * window and its category listed. */
static int record_counts(const struct t2_summary *s, const struct sproc *p,
			 const struct trace2_event *ev, const char *cat)
{
	const struct filter *f = &s->filter;

	return p->sid_ok && listed(f->commands, f->n_commands, shown_name(p)) &&
	       ev->time_us >= f->since_us && ev->time_us <= f->until_us &&
	       listed(f->categories, f->n_categories, cat);
}

static void region_enter(struct t2_summary *s, struct sthread *t, const struct trace2_event *ev)
{
	struct frame *f;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;

		t->stack = t2_realloc(t->stack, cap * sizeof(*t->stack));
		t->cap = cap;
	}
	f = &t->stack[t->n++];
	f->key = rkey_get(&s->regions, ev->region.category, ev->region.label);
	f->child_us = 0;
}

/* A region of key k that took us, us_in of it in regions nested in it. */
static void count_region(struct rkey *k, uint64_t us, uint64_t us_in)
{
	if (!k->count || us < k->min)
		k->min = us;
	if (us > k->max)
		k->max = us;
	k->count++;
	k->total += us;
	k->self += us > us_in ? us - us_in : 0;
	k->hist[h_bucket(us)]++;
}

/* The leave of a region entered before the input began (a thread of a
 * process that started before it): its t_rel is its whole time. */
static void early_region_leave(struct t2_summary *s, struct sthread *t,
			       const struct trace2_event *ev, const struct sproc *p)
{
	uint64_t us_in = t->base_child_us;

	t->base_child_us = ev->t_rel_us; /* nested in the region around it */
	if (record_counts(s, p, ev, ev->region.category))
		count_region(rkey_get(&s->regions, ev->region.category, ev->region.label),
			     ev->t_rel_us, us_in);
}

static void region_leave(struct t2_summary *s, struct sthread *t, const struct t2_record *rec,
			 const struct sproc *p)
{
	const struct trace2_event *ev = &rec->ev;
	size_t i = t->n;
	struct rkey *k;
	uint64_t us = ev->t_rel_us;

	/* its enter: the innermost open region with its category/label;
	 * regions opened inside it and never left are dropped */
	while (i > 0 && !(same(t->stack[i - 1].key->h.cat, ev->region.category) &&
			  same(t->stack[i - 1].key->h.name, ev->region.label)))
		i--;
	if (!i && rec->thread->mid) {
		early_region_leave(s, t, ev, p);
		return;
	}
	if (!i) {
		s->lone_leaves++;
		return;
	}
	s->open_regions += t->n - i;
	t->n = i - 1;
	k = t->stack[i - 1].key;
	if (t->n)
		t->stack[t->n - 1].child_us += us;
	else
		t->base_child_us += us;
	if (record_counts(s, p, ev, ev->region.category))
		count_region(k, us, t->stack[i - 1].child_us);
}

/* The process went on after its atexit (a daemonized child): the regions
 * its threads had open then are open again. */
static void resume_regions(struct t2_process *p)
{
	struct t2_thread *t;

	for (t = p->threads; t; t = t->next) {
		struct sthread *st = t->user;

		if (st && st->parked) {
			st->n = st->parked;
			st->parked = 0;
		}
	}
}

static void record(void *ctx, struct t2_record *rec)
{
	struct t2_summary *s = ctx;
	const struct trace2_event *ev = &rec->ev;
	struct sproc *p;
	struct sthread *t = NULL;
	struct mkey *m;
	const char *a0, *slash;

	if (!t2_record_usable(rec, s->quiet))
		return;
	if (!rec->proc->user) {
		p = rec->proc->user = t2_calloc(1, sizeof(*p));
		p->seq = s->nproc++;
		p->sid_ok = sid_selected(&s->filter, rec->proc->pub.sid);
		p->first_us = ev->time_us;
	}
	p = rec->proc->user;
	if (!rec->thread->user)
		rec->thread->user = t2_calloc(1, sizeof(struct sthread));
	t = rec->thread->user;
	if (rec->resumed)
		resume_regions(rec->proc);
	switch (ev->kind) {
	case TRACE2_EVENT_START:
		a0 = ev->start.argv ? ev->start.argv[0] : NULL;
		if (a0) {
			slash = strrchr(a0, '/');
			set_str(&p->prog, slash ? slash + 1 : a0);
		}
		break;
	case TRACE2_EVENT_CMD_NAME:
		set_str(&p->name, ev->cmd_name.name);
		break;
	case TRACE2_EVENT_CMD_MODE:
		set_str(&p->mode, ev->cmd_mode.name);
		break;
	case TRACE2_EVENT_EXIT:
		p->have_exit = 1;
		p->code = ev->exit.code;
		p->exit_abs = ev->t_abs_us;
		break;
	case TRACE2_EVENT_ATEXIT:
		p->have_atexit = 1;
		p->code = ev->exit.code;
		p->atexit_abs = ev->t_abs_us;
		t->parked = t->n; /* they end here, unless the process goes on */
		t->n = 0;
		break;
	case TRACE2_EVENT_SIGNAL:
		p->have_signal = 1;
		p->signo = ev->signal.signo;
		p->signal_abs = ev->t_abs_us;
		break;
	case TRACE2_EVENT_THREAD_EXIT:
		s->open_regions += t->n;
		t->n = 0;
		break;
	case TRACE2_EVENT_REGION_ENTER:
		region_enter(s, t, ev);
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		region_leave(s, t, rec, p);
		break;
	case TRACE2_EVENT_TIMER:
		if (!record_counts(s, p, ev, ev->timer.category))
			break;
		m = mkey_get(&s->timers, ev->timer.category, ev->timer.name);
		m->intervals += ev->timer.intervals;
		m->total_ns += ev->timer.total_ns;
		if (ev->timer.min_ns < m->min_ns)
			m->min_ns = ev->timer.min_ns;
		if (ev->timer.max_ns > m->max_ns)
			m->max_ns = ev->timer.max_ns;
		break;
	case TRACE2_EVENT_COUNTER:
		if (!record_counts(s, p, ev, ev->counter.category))
			break;
		m = mkey_get(&s->counters, ev->counter.category, ev->counter.name);
		m->value += ev->counter.value;
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- */
/* Output.                                                            */

static void put_secs(FILE *f, uint64_t us)
{
	fprintf(f, "%llu.%06llu", (unsigned long long)(us / 1000000),
		(unsigned long long)(us % 1000000));
}

/* A time column of the text tables: " %14s" of its seconds. */
static void put_secs_col(FILE *f, uint64_t us)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%llu.%06llu", (unsigned long long)(us / 1000000),
		 (unsigned long long)(us % 1000000));
	fprintf(f, " %14s", buf);
}

static void put_json_str(FILE *f, const char *s)
{
	char buf[TRACE2_JSON_ESCAPED_MAX(48)];
	size_t n, len, chunk;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	len = strlen(s);
	while (len) {
		/* cut only before a byte that does not continue a UTF-8 sequence */
		chunk = len > 40 ? 40 : len;
		while (chunk < len && ((unsigned char)s[chunk] & 0xc0) == 0x80 && chunk < 44)
			chunk++;
		n = trace2_json_escape(buf, sizeof(buf), s, chunk);
		fwrite(buf, 1, n, f);
		s += chunk;
		len -= chunk;
	}
	fputc('"', f);
}

static uint64_t quantile(const struct rkey *k, unsigned pct)
{
	uint64_t rank = (k->count * pct + 99) / 100, seen = 0, v;
	size_t b;

	if (!rank)
		rank = 1;
	for (b = 0; b < H_BUCKETS; b++) {
		seen += k->hist[b];
		if (seen >= rank)
			break;
	}
	v = h_value(b < H_BUCKETS ? b : H_BUCKETS - 1);
	if (v < k->min)
		v = k->min;
	if (v > k->max)
		v = k->max;
	return v;
}

static int cmp_rkey(const void *a, const void *b)
{
	const struct rkey *x = *(struct rkey *const *)a, *y = *(struct rkey *const *)b;
	int c;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	c = strcmp(x->h.cat ? x->h.cat : "", y->h.cat ? y->h.cat : "");
	if (!c)
		c = strcmp(x->h.name ? x->h.name : "", y->h.name ? y->h.name : "");
	/* a missing category or label and an empty one: the later key first */
	return c ? c : x->h.seq < y->h.seq ? 1 : -1;
}

static int cmp_timer(const void *a, const void *b)
{
	const struct mkey *x = *(struct mkey *const *)a, *y = *(struct mkey *const *)b;
	int c;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	c = strcmp(x->h.cat, y->h.cat);
	return c ? c : strcmp(x->h.name, y->h.name);
}

static int cmp_counter(const void *a, const void *b)
{
	const struct mkey *x = *(struct mkey *const *)a, *y = *(struct mkey *const *)b;
	int c;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	c = strcmp(x->h.cat, y->h.cat);
	return c ? c : strcmp(x->h.name, y->h.name);
}

struct tree {
	struct t2_process **v;   /* by first appearance */
	size_t n;
	long *parent, *first, *last, *next;
	long first_root, last_root;
	size_t nroots;
};

static void collect(void *ctx, struct t2_process *p)
{
	struct tree *t = ctx;

	if (p->user)
		t->v[((struct sproc *)p->user)->seq] = p;
}

static int cmp_sid(const void *a, const void *b)
{
	const struct t2_process *x = *(struct t2_process *const *)a;
	const struct t2_process *y = *(struct t2_process *const *)b;
	size_t n = x->pub.sid_len < y->pub.sid_len ? x->pub.sid_len : y->pub.sid_len;
	int c = memcmp(x->pub.sid, y->pub.sid, n);

	return c ? c : (x->pub.sid_len > y->pub.sid_len) - (x->pub.sid_len < y->pub.sid_len);
}

static long find_sid(struct t2_process **by_sid, size_t n, const char *sid, size_t len)
{
	size_t lo = 0, hi = n;
	struct t2_process key;

	key.pub.sid = sid;
	key.pub.sid_len = len;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct t2_process *kp = &key;
		int c = cmp_sid(&kp, &by_sid[mid]);

		if (!c)
			return ((struct sproc *)by_sid[mid]->user)->shown;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* Whether a process is shown: it passes the SID and command filters and
 * ran during the time window (its first to last record's time). */
static int process_selected(const struct filter *f, const struct t2_process *p)
{
	const struct sproc *sp = p->user;

	return sp->sid_ok && listed(f->commands, f->n_commands, shown_name(sp)) &&
	       sp->first_us <= f->until_us && p->last_us >= f->since_us;
}

/* The processes shown, in order of first appearance, in t->v. */
static void select_processes(struct t2_summary *s, struct tree *t)
{
	size_t i;

	t->v = t2_calloc(s->nproc, sizeof(*t->v));
	t2_reader_each_process(s->reader, collect, t);
	t->n = 0;
	for (i = 0; i < s->nproc; i++) {
		struct sproc *sp = t->v[i]->user;

		sp->shown = process_selected(&s->filter, t->v[i]) ? (long)t->n : -1;
		if (sp->shown >= 0)
			t->v[t->n++] = t->v[i];
	}
}

static void build_tree(struct t2_summary *s, struct tree *t)
{
	struct t2_process **by_sid;
	size_t i;

	select_processes(s, t);
	t->parent = t2_calloc(t->n, sizeof(long));
	t->first = t2_calloc(t->n, sizeof(long));
	t->last = t2_calloc(t->n, sizeof(long));
	t->next = t2_calloc(t->n, sizeof(long));
	by_sid = t2_calloc(t->n, sizeof(*by_sid));
	memcpy(by_sid, t->v, t->n * sizeof(*by_sid));
	qsort(by_sid, t->n, sizeof(*by_sid), cmp_sid);
	t->first_root = t->last_root = -1;
	t->nroots = 0;
	for (i = 0; i < t->n; i++)
		t->first[i] = t->last[i] = t->next[i] = -1;
	for (i = 0; i < t->n; i++) {
		const char *sid = t->v[i]->pub.sid;
		size_t len = t->v[i]->pub.sid_len;
		long par = -1;

		while (len && sid[len - 1] != '/')
			len--;
		if (len)
			par = find_sid(by_sid, t->n, sid, len - 1);
		t->parent[i] = par;
		if (par < 0) {
			t->nroots++;
			if (t->last_root >= 0)
				t->next[t->last_root] = (long)i;
			else
				t->first_root = (long)i;
			t->last_root = (long)i;
		} else {
			if (t->last[par] >= 0)
				t->next[t->last[par]] = (long)i;
			else
				t->first[par] = (long)i;
			t->last[par] = (long)i;
		}
	}
	free(by_sid);
}

static uint64_t elapsed(const struct t2_process *p)
{
	const struct sproc *sp = p->user;

	if (sp->have_atexit)
		return sp->atexit_abs;
	if (sp->have_exit)
		return sp->exit_abs;
	if (sp->have_signal)
		return sp->signal_abs;
	return p->last_abs_us;
}

static void proc_open(FILE *f, int json, const struct t2_process *p, int depth, int first)
{
	const struct sproc *sp = p->user;
	int complete = sp->have_exit || sp->have_atexit;
	char unnamed[T2_UNNAMED_MAX];

	if (json) {
		fputs(first ? "" : ",", f);
		fputs("{\"sid\":", f);
		put_json_str(f, p->pub.sid);
		fputs(",\"name\":", f);
		put_json_str(f, shown_name(sp));
		fputs(",\"mode\":", f);
		put_json_str(f, sp->mode);
		if (complete)
			fprintf(f, ",\"exit\":%d", sp->code);
		else
			fputs(",\"exit\":null", f);
		if (sp->have_signal)
			fprintf(f, ",\"signal\":%d", sp->signo);
		else
			fputs(",\"signal\":null", f);
		fprintf(f, ",\"complete\":%s,\"elapsed\":", complete ? "true" : "false");
		put_secs(f, elapsed(p));
		fputs(",\"children\":[", f);
		return;
	}
	fprintf(f, "%*s", 2 + 2 * depth, "");
	text_put(f, shown_name(sp) ? shown_name(sp) : t2_unnamed(p, unnamed));
	fputs("  mode=", f);
	text_put(f, sp->mode ? sp->mode : "-");
	fputs("  exit=", f);
	if (complete)
		fprintf(f, "%d", sp->code);
	else
		fputc('-', f);
	if (sp->have_signal)
		fprintf(f, "  signal=%d", sp->signo);
	fputs("  elapsed=", f);
	put_secs(f, elapsed(p));
	fputs("  sid=", f);
	text_put(f, p->pub.sid);
	fputc('\n', f);
}

static void print_tree(FILE *f, int json, struct tree *t)
{
	long r, node;
	int depth;

	for (r = t->first_root; r >= 0; r = t->next[r]) {
		node = r;
		depth = 0;
		for (;;) {
			int first = t->parent[node] >= 0 ? t->first[t->parent[node]] == node
							   : t->first_root == node;

			proc_open(f, json, t->v[node], depth, first);
			if (t->first[node] >= 0) {
				node = t->first[node];
				depth++;
				continue;
			}
			for (;;) {
				if (json)
					fputs("]}", f);
				if (node == r)
					break;
				if (t->next[node] >= 0) {
					node = t->next[node];
					break;
				}
				node = t->parent[node];
				depth--;
			}
			if (node == r)
				break;
		}
	}
}

/* ---------------------------------------------------------------- */
/* Processes by command.                                              */

struct cmd_row {
	const char *name;    /* NULL: none known */
	size_t count, failed;
	uint64_t total, min, median, max;
};

/* NULL first, then by strcmp(). */
static int cmp_names(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

static int cmp_name_elapsed(const void *a, const void *b)
{
	const struct t2_process *x = *(struct t2_process *const *)a;
	const struct t2_process *y = *(struct t2_process *const *)b;
	int c = cmp_names(shown_name(x->user), shown_name(y->user));
	uint64_t ex = elapsed(x), ey = elapsed(y);

	return c ? c : (ex > ey) - (ex < ey);
}

static int cmp_cmd_row(const void *a, const void *b)
{
	const struct cmd_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_names(x->name, y->name);
}

/* Its exit code is not 0, it got a signal, or its log has no exit. */
static int failed(const struct sproc *sp)
{
	return !(sp->have_exit || sp->have_atexit) || sp->code || sp->have_signal;
}

/* One row per command name of the processes shown, sorted by total
 * elapsed time; the median is the exact nearest-rank one. */
static struct cmd_row *group_commands(const struct tree *t, size_t *nrows)
{
	struct t2_process **v = t2_calloc(t->n, sizeof(*v));
	struct cmd_row *rows = t2_calloc(t->n, sizeof(*rows));
	size_t i, j, n = 0;

	memcpy(v, t->v, t->n * sizeof(*v));
	qsort(v, t->n, sizeof(*v), cmp_name_elapsed);
	for (i = 0; i < t->n; i = j) {
		struct cmd_row *r = &rows[n++];

		r->name = shown_name(v[i]->user);
		for (j = i; j < t->n && !cmp_names(r->name, shown_name(v[j]->user)); j++) {
			r->count++;
			r->total += elapsed(v[j]);
			r->failed += (size_t)failed(v[j]->user);
		}
		r->min = elapsed(v[i]);
		r->max = elapsed(v[j - 1]);
		r->median = elapsed(v[i + (r->count + 1) / 2 - 1]);
	}
	free(v);
	qsort(rows, n, sizeof(*rows), cmp_cmd_row);
	*nrows = n;
	return rows;
}

static void print_commands(FILE *f, int json, const struct tree *t)
{
	size_t n, i;
	struct cmd_row *rows = group_commands(t, &n);

	if (json)
		fputs("\"commands\":[", f);
	else
		fprintf(f, "commands: %zu (more than %d processes: one line per command; "
			"--tree lists each process)\n%10s %10s %14s %14s %14s %14s  %s\n", n,
			GROUP_OVER, "count", "failed", "total", "min", "median", "max", "command");
	for (i = 0; i < n; i++) {
		const struct cmd_row *r = &rows[i];

		if (json) {
			fputs(i ? ",{\"name\":" : "{\"name\":", f);
			put_json_str(f, r->name);
			fprintf(f, ",\"count\":%zu,\"failed\":%zu,\"total\":", r->count, r->failed);
			put_secs(f, r->total);
			fputs(",\"min\":", f);
			put_secs(f, r->min);
			fputs(",\"median\":", f);
			put_secs(f, r->median);
			fputs(",\"max\":", f);
			put_secs(f, r->max);
			fputc('}', f);
			continue;
		}
		fprintf(f, "%10zu %10zu", r->count, r->failed);
		put_secs_col(f, r->total);
		put_secs_col(f, r->min);
		put_secs_col(f, r->median);
		put_secs_col(f, r->max);
		fputs("  ", f);
		text_put(f, r->name ? r->name : "?");
		fputc('\n', f);
	}
	if (json)
		fputs("],", f);
	free(rows);
}

static void free_tree(struct tree *t)
{
	free(t->v);
	free(t->parent);
	free(t->first);
	free(t->last);
	free(t->next);
}

static void put_name(FILE *f, const char *a, const char *b)
{
	text_put(f, a ? a : "");
	fputc('/', f);
	text_put(f, b ? b : "");
	fputc('\n', f);
}

static void print_regions(FILE *f, int json, struct t2_summary *s, long top)
{
	struct rkey **v = (struct rkey **)table_items(&s->regions);
	size_t all = s->regions.n, n = 0, shown, i;

	/* keys of regions that were entered but never left come last */
	for (i = 0; i < all; i++)
		if (v[i]->count) {
			struct rkey *x = v[n];

			v[n++] = v[i];
			v[i] = x;
		}
	shown = n;
	qsort(v, n, sizeof(*v), cmp_rkey);
	if (top >= 0 && (size_t)top < n)
		shown = (size_t)top;
	if (!json) {
		fprintf(f, "regions: %zu key%s", n, n == 1 ? "" : "s");
		if (shown < n)
			fprintf(f, ", top %zu by total", shown);
		fputs(" (seconds; median and p95 within 1%)\n", f);
		if (shown)
			fprintf(f, "%10s %14s %14s %14s %14s %14s %14s  %s\n", "count", "total",
				"self", "min", "median", "p95", "max", "category/label");
	} else
		fputs("\"regions\":[", f);
	for (i = 0; i < shown; i++) {
		struct rkey *k = v[i];
		uint64_t vals[6];
		static const char *const names[6] = { "total", "self", "min", "median", "p95", "max" };
		int j;

		vals[0] = k->total;
		vals[1] = k->self;
		vals[2] = k->min;
		vals[3] = quantile(k, 50);
		vals[4] = quantile(k, 95);
		vals[5] = k->max;
		if (json) {
			fputs(i ? ",{\"category\":" : "{\"category\":", f);
			put_json_str(f, k->h.cat);
			fputs(",\"label\":", f);
			put_json_str(f, k->h.name);
			fprintf(f, ",\"count\":%llu", (unsigned long long)k->count);
			for (j = 0; j < 6; j++) {
				fprintf(f, ",\"%s\":", names[j]);
				put_secs(f, vals[j]);
			}
			fputc('}', f);
			continue;
		}
		fprintf(f, "%10llu", (unsigned long long)k->count);
		for (j = 0; j < 6; j++)
			put_secs_col(f, vals[j]);
		fputs("  ", f);
		put_name(f, k->h.cat, k->h.name);
	}
	if (json) {
		fprintf(f, "],\"region_keys\":%zu,\"regions_open\":%lu,\"region_leaves_unmatched\":%lu",
			n, s->open_regions, s->lone_leaves);
	} else {
		if (s->open_regions)
			fprintf(f, "regions: %lu never left (open at the end of their thread or "
				"process), not counted\n", s->open_regions);
		if (s->lone_leaves)
			fprintf(f, "regions: %lu region_leave without region_enter, skipped\n",
				s->lone_leaves);
	}
	for (i = 0; i < all; i++) {
		free(v[i]->h.cat);
		free(v[i]->h.name);
		free(v[i]->hist);
		free(v[i]);
	}
	free(v);
}

static void print_metrics(FILE *f, int json, struct table *t, int timers)
{
	struct mkey **v = (struct mkey **)table_items(t);
	size_t n = t->n, i;

	qsort(v, n, sizeof(*v), timers ? cmp_timer : cmp_counter);
	if (json)
		fputs(timers ? ",\"timers\":[" : ",\"counters\":[", f);
	else {
		fprintf(f, "%s: %zu (process totals, summed over processes)\n",
			timers ? "timers" : "counters", n);
		if (n && timers)
			fprintf(f, "%10s %14s %14s %14s  %s\n", "intervals", "total", "min", "max",
				"category/name");
		else if (n)
			fprintf(f, "%20s  %s\n", "count", "category/name");
	}
	for (i = 0; i < n; i++) {
		struct mkey *m = v[i];
		uint64_t mn = m->min_ns == UINT64_MAX ? 0 : m->min_ns;

		if (json) {
			fputs(i ? ",{\"category\":" : "{\"category\":", f);
			put_json_str(f, m->h.cat);
			fputs(",\"name\":", f);
			put_json_str(f, m->h.name);
			if (timers) {
				fprintf(f, ",\"intervals\":%llu,\"total\":",
					(unsigned long long)m->intervals);
				put_secs(f, m->total_ns / 1000);
				fputs(",\"min\":", f);
				put_secs(f, mn / 1000);
				fputs(",\"max\":", f);
				put_secs(f, m->max_ns / 1000);
			} else
				fprintf(f, ",\"count\":%llu", (unsigned long long)m->value);
			fputc('}', f);
		} else if (timers) {
			uint64_t x[3];
			int j;

			x[0] = m->total_ns / 1000;
			x[1] = mn / 1000;
			x[2] = m->max_ns / 1000;
			fprintf(f, "%10llu", (unsigned long long)m->intervals);
			for (j = 0; j < 3; j++)
				put_secs_col(f, x[j]);
			fputs("  ", f);
			put_name(f, m->h.cat, m->h.name);
		} else {
			fprintf(f, "%20llu  ", (unsigned long long)m->value);
			put_name(f, m->h.cat, m->h.name);
		}
		free(m->h.cat);
		free(m->h.name);
		free(m);
	}
	if (json)
		fputc(']', f);
	free(v);
}

/* Count the regions still open at the end; free the threads' stacks. */
static void finish_process(void *ctx, struct t2_process *p)
{
	struct t2_summary *s = ctx;
	struct t2_thread *t;

	for (t = p->threads; t; t = t->next) {
		struct sthread *st = t->user;

		if (st) {
			s->open_regions += st->n + st->parked;
			free(st->stack);
			st->stack = NULL;
			st->n = st->cap = 0;
		}
	}
}

static void free_names(void *ctx, struct t2_process *p)
{
	struct sproc *sp = p->user;

	(void)ctx;
	if (sp) {
		free(sp->name);
		free(sp->mode);
		free(sp->prog);
		sp->name = sp->mode = sp->prog = NULL;
	}
}

struct t2_summary *t2_summary_new(struct t2_reader *r, int quiet)
{
	struct t2_summary *s = t2_calloc(1, sizeof(*s));

	h_init();
	table_init(&s->regions);
	table_init(&s->timers);
	table_init(&s->counters);
	s->quiet = quiet;
	s->filter.until_us = UINT64_MAX;
	t2_reader_init(r, record, quiet ? NULL : t2_report_bad_line, s);
	s->reader = r;
	return s;
}

int t2_summary_write(struct t2_summary *s, FILE *f, int json, long top)
{
	struct t2_reader *r = s->reader;
	struct tree tree;

	t2_reader_each_process(r, finish_process, s);
	build_tree(s, &tree);
	if (json) {
		fputs("{\"processes\":[", f);
		print_tree(f, 1, &tree);
		fputs("],", f);
		print_commands(f, 1, &tree);
		fprintf(f, "\"processes_filtered_out\":%zu,", s->nproc - tree.n);
	} else {
		fprintf(f, "processes: %zu (%zu root%s)", tree.n, tree.nroots,
			tree.nroots == 1 ? "" : "s");
		if (tree.n < s->nproc)
			fprintf(f, ", %zu filtered out", s->nproc - tree.n);
		fputc('\n', f);
		if (s->tree || tree.n <= GROUP_OVER)
			print_tree(f, 0, &tree);
		else
			print_commands(f, 0, &tree);
	}
	free_tree(&tree);
	t2_reader_each_process(r, free_names, NULL);
	print_regions(f, json, s, top);
	print_metrics(f, json, &s->timers, 1);
	print_metrics(f, json, &s->counters, 0);
	if (json)
		fputs("}\n", f);
	t2_map_free(&s->regions.map);
	t2_map_free(&s->timers.map);
	t2_map_free(&s->counters.map);
	free(s);
	return fflush(f) || ferror(f) ? -1 : 0;
}

struct options {
	struct filter filter;
	const char *out;  /* -o FILE */
	long top;         /* -1: every region row */
	int json, tree;
};

/* --command, --sid, --category (each may be repeated): 1 when argv[*i]
 * is one (its value listed), 2 for a usage error (reported), else 0. */
static int list_option(struct filter *f, int argc, char **argv, int *i)
{
	struct {
		const char *name;
		const char **v;
		size_t *n;
	} lists[] = {
		{ "--command", f->commands, &f->n_commands },
		{ "--sid", f->sids, &f->n_sids },
		{ "--category", f->categories, &f->n_categories },
	};
	const char *v;
	size_t k;

	for (k = 0; k < sizeof(lists) / sizeof(*lists); k++) {
		if (!(v = usage_option(argc, argv, i, lists[k].name)))
			continue;
		if (!*v) {
			usage_error("summary", "%s needs a value", lists[k].name);
			return 2;
		}
		lists[k].v[(*lists[k].n)++] = v;
		return 1;
	}
	return 0;
}

/* TIME as the log writes it, 2026-01-31T12:00:00.000000Z, or shorter:
 * fewer digits of the fraction, none, no Z (UTC all the same). */
static int parse_when(const char *arg, uint64_t *us)
{
	char buf[28];
	size_t n = strlen(arg), frac;

	if (n && arg[n - 1] == 'Z')
		n--;
	if (n < 19 || n > 26 || (n > 19 && arg[19] != '.'))
		return -1;
	frac = n > 20 ? n - 20 : 0;
	memcpy(buf, arg, 19);
	buf[19] = '.';
	if (frac)
		memcpy(buf + 20, arg + 20, frac);
	memset(buf + 20 + frac, '0', 6 - frac);
	buf[26] = 'Z';
	return parse_utc_time(buf, 27, us);
}

/* --since TIME, --until TIME: as list_option(). */
static int time_option(struct filter *f, int argc, char **argv, int *i)
{
	const char *v = usage_option(argc, argv, i, "--since");
	const char *name = "--since";
	uint64_t *us = &f->since_us;

	if (!v) {
		v = usage_option(argc, argv, i, "--until");
		name = "--until";
		us = &f->until_us;
	}
	if (!v)
		return 0;
	if (parse_when(v, us)) {
		usage_error("summary", "%s needs a UTC time such as 2026-01-31T12:00:00Z", name);
		return 2;
	}
	return 1;
}

/* The options into o; *first: the first FILE.  Returns -1 to go on, else
 * the exit status. */
static int parse_options(int argc, char **argv, struct options *o, int *first)
{
	const char *v;
	char *end;
	int i, k;

	for (i = 1; i < argc; i++) {
		if ((k = t2_output_option("summary", argc, argv, &i, &o->out)) ||
		    (k = list_option(&o->filter, argc, argv, &i)) ||
		    (k = time_option(&o->filter, argc, argv, &i))) {
			if (k == 2)
				return 2;
		} else if (!strcmp(argv[i], "--json"))
			o->json = 1;
		else if (!strcmp(argv[i], "--tree"))
			o->tree = 1;
		else if ((v = usage_option(argc, argv, &i, "--top"))) {
			o->top = strtol(v, &end, 10);
			if (!*v || *end || o->top < 0)
				return usage_error("summary", "--top needs a number >= 0");
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage_show("summary", 0);
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("summary", "unknown option '%s'", argv[i]);
		else
			break;
	}
	if (i >= argc)
		return usage_error("summary", "no input (give FILE, DIR or -)");
	*first = i;
	return -1;
}

static int summarize(int argc, char **argv, const struct options *o, int i)
{
	struct t2_summary *s;
	struct t2_reader r;
	int ret = 0;

	if (t2_output_begin("summary", o->out, argv + i, argc - i))
		return 1;
	s = t2_summary_new(&r, 0);
	s->filter = o->filter;
	s->tree = o->tree;
	for (; i < argc; i++)
		if (t2_reader_read_path(&r, argv[i]))
			ret = 1;
	if (t2_summary_write(s, stdout, o->json, o->top)) {
		fprintf(stderr, "trace2: standard output: %s\n", strerror(errno));
		ret = 1;
	}
	t2_reader_free(&r);
	return ret;
}

int cmd_summary(int argc, char **argv)
{
	struct options o;
	const char **lists = t2_calloc(3 * (size_t)argc, sizeof(*lists));
	int first = 0, ret;

	memset(&o, 0, sizeof(o));
	o.top = -1;
	o.filter.commands = lists;
	o.filter.sids = lists + argc;
	o.filter.categories = lists + 2 * argc;
	o.filter.until_us = UINT64_MAX;
	ret = parse_options(argc, argv, &o, &first);
	if (ret < 0)
		ret = summarize(argc, argv, &o, first);
	free(lists);
	return ret;
}
