/*
 * trace2 summary [--json] [--top N] FILE...: what the event logs say in
 * short: the process tree (SID hierarchy), then per region category/label
 * the count, total and self time and the quantiles of its durations, then
 * the process timers and counters summed over all processes.
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

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "reader.h"
#include "text.h"
#include "tr2_json.h"
#include "usage.h"

#define H_LINEAR 1024  /* exact buckets: 0 .. H_LINEAR-1 us */
#define H_LOG 1200     /* then H_LINEAR * H_RATIO^k: up to ~2e12 us (23 days) */
#define H_RATIO 1.018
#define H_BUCKETS (H_LINEAR + H_LOG)

static double h_low[H_LOG + 1]; /* low bound of log bucket k */

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fputs("trace2: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static char *xstrdup_or_null(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = xcalloc(strlen(s) + 1, 1);
	strcpy(p, s);
	return p;
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
	struct khead *next;
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
	struct khead **slot;
	size_t size, n;
};

static size_t hash2(const char *a, const char *b)
{
	size_t h = 5381;

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

/*
 * The key cat/name in t, created (size bytes, zeroed, *fresh set) on first
 * use; t doubles when it holds more keys than slots.
 */
static struct khead *key_get(struct table *t, const char *cat, const char *name,
			     size_t size, int *fresh)
{
	size_t h = hash2(cat, name) & (t->size - 1);
	struct khead *k;

	*fresh = 0;
	for (k = t->slot[h]; k; k = k->next)
		if (same(k->cat, cat) && same(k->name, name))
			return k;
	*fresh = 1;
	k = xcalloc(1, size);
	k->cat = xstrdup_or_null(cat);
	k->name = xstrdup_or_null(name);
	k->next = t->slot[h];
	t->slot[h] = k;
	if (++t->n > t->size) {
		size_t n = t->size * 2, i;
		struct khead **s = xcalloc(n, sizeof(*s));

		for (i = 0; i < t->size; i++) {
			struct khead *x = t->slot[i], *next;

			for (; x; x = next) {
				size_t g = hash2(x->cat, x->name) & (n - 1);

				next = x->next;
				x->next = s[g];
				s[g] = x;
			}
		}
		free(t->slot);
		t->slot = s;
		t->size = n;
	}
	return k;
}

/* The region key, created on first use. */
static struct rkey *rkey_get(struct table *t, const char *cat, const char *label)
{
	int fresh;
	struct rkey *k = (struct rkey *)key_get(t, cat, label, sizeof(*k), &fresh);

	if (fresh)
		k->hist = xcalloc(H_BUCKETS, sizeof(*k->hist));
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
	t->size = 64;
	t->n = 0;
	t->slot = xcalloc(t->size, sizeof(*t->slot));
}

/* The table's entries in an array. */
static void **table_items(struct table *t)
{
	void **v = xcalloc(t->n, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < t->size; i++) {
		struct khead *x;

		for (x = t->slot[i]; x; x = x->next)
			v[n++] = x;
	}
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
};

struct sproc {
	unsigned long seq;   /* order of first appearance */
	char *name, *mode, *prog;
	int code, signo;
	unsigned have_exit : 1, have_atexit : 1, have_signal : 1;
	uint64_t exit_abs, atexit_abs, signal_abs;
};

struct t2_summary {
	struct t2_reader *reader;
	int quiet;                    /* no messages on stderr */
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

static void region_enter(struct t2_summary *s, struct sthread *t, const struct trace2_event *ev)
{
	struct frame *f;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct frame *st = realloc(t->stack, cap * sizeof(*st));

		if (!st) {
			fputs("trace2: out of memory\n", stderr);
			exit(2);
		}
		t->stack = st;
		t->cap = cap;
	}
	f = &t->stack[t->n++];
	f->key = rkey_get(&s->regions, ev->region.category, ev->region.label);
	f->child_us = 0;
}

static void region_leave(struct t2_summary *s, struct sthread *t, const struct trace2_event *ev)
{
	size_t i = t->n;
	struct rkey *k;
	uint64_t us = ev->t_rel_us, self;

	/* its enter: the innermost open region with its category/label;
	 * regions opened inside it and never left are dropped */
	while (i > 0 && !(same(t->stack[i - 1].key->h.cat, ev->region.category) &&
			  same(t->stack[i - 1].key->h.name, ev->region.label)))
		i--;
	if (!i) {
		s->lone_leaves++;
		return;
	}
	s->open_regions += t->n - i;
	t->n = i - 1;
	k = t->stack[i - 1].key;
	self = us > t->stack[i - 1].child_us ? us - t->stack[i - 1].child_us : 0;
	if (t->n)
		t->stack[t->n - 1].child_us += us;
	if (!k->count || us < k->min)
		k->min = us;
	if (us > k->max)
		k->max = us;
	k->count++;
	k->total += us;
	k->self += self;
	k->hist[h_bucket(us)]++;
}

static void record(void *ctx, struct t2_record *rec)
{
	struct t2_summary *s = ctx;
	const struct trace2_event *ev = &rec->ev.pub;
	struct sproc *p;
	struct sthread *t = NULL;
	struct mkey *m;
	const char *a0, *slash;

	if (!t2_record_usable(rec, s->quiet))
		return;
	if (!rec->proc->user) {
		p = rec->proc->user = xcalloc(1, sizeof(*p));
		p->seq = s->nproc++;
	}
	p = rec->proc->user;
	if (!rec->thread->user)
		rec->thread->user = xcalloc(1, sizeof(struct sthread));
	t = rec->thread->user;
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
		s->open_regions += t->n; /* the thread's open regions end here */
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
		region_leave(s, t, ev);
		break;
	case TRACE2_EVENT_TIMER:
		m = mkey_get(&s->timers, ev->timer.category, ev->timer.name);
		m->intervals += ev->timer.intervals;
		m->total_ns += ev->timer.total_ns;
		if (ev->timer.min_ns < m->min_ns)
			m->min_ns = ev->timer.min_ns;
		if (ev->timer.max_ns > m->max_ns)
			m->max_ns = ev->timer.max_ns;
		break;
	case TRACE2_EVENT_COUNTER:
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

static void put_json_str(FILE *f, const char *s)
{
	char buf[TR2_JSON_ESCAPED_MAX(48)];
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
		n = tr2_json_escape(buf, s, chunk);
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
	return c ? c : strcmp(x->h.name ? x->h.name : "", y->h.name ? y->h.name : "");
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
			return (long)((struct sproc *)by_sid[mid]->user)->seq;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

static void build_tree(struct t2_summary *s, struct tree *t)
{
	struct t2_process **by_sid;
	size_t i;

	t->n = s->nproc;
	t->v = xcalloc(t->n, sizeof(*t->v));
	t2_reader_each_process(s->reader, collect, t);
	t->parent = xcalloc(t->n, sizeof(long));
	t->first = xcalloc(t->n, sizeof(long));
	t->last = xcalloc(t->n, sizeof(long));
	t->next = xcalloc(t->n, sizeof(long));
	by_sid = xcalloc(t->n, sizeof(*by_sid));
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

static const char *shown_name(const struct sproc *sp)
{
	return sp->name ? sp->name : sp->prog;
}

static void proc_open(FILE *f, int json, const struct t2_process *p, int depth, int first)
{
	const struct sproc *sp = p->user;
	int complete = sp->have_exit || sp->have_atexit;

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
	text_put(f, shown_name(sp) ? shown_name(sp) : "?");
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
		for (j = 0; j < 6; j++) {
			char buf[40];

			snprintf(buf, sizeof(buf), "%llu.%06llu",
				 (unsigned long long)(vals[j] / 1000000),
				 (unsigned long long)(vals[j] % 1000000));
			fprintf(f, " %14s", buf);
		}
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
			for (j = 0; j < 3; j++) {
				char buf[40];

				snprintf(buf, sizeof(buf), "%llu.%06llu",
					 (unsigned long long)(x[j] / 1000000),
					 (unsigned long long)(x[j] % 1000000));
				fprintf(f, " %14s", buf);
			}
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
			s->open_regions += st->n;
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
	struct t2_summary *s = xcalloc(1, sizeof(*s));

	h_init();
	table_init(&s->regions);
	table_init(&s->timers);
	table_init(&s->counters);
	s->quiet = quiet;
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
	} else {
		fprintf(f, "processes: %zu (%zu root%s)\n", tree.n, tree.nroots,
			tree.nroots == 1 ? "" : "s");
		print_tree(f, 0, &tree);
	}
	free_tree(&tree);
	t2_reader_each_process(r, free_names, NULL);
	print_regions(f, json, s, top);
	print_metrics(f, json, &s->timers, 1);
	print_metrics(f, json, &s->counters, 0);
	if (json)
		fputs("}\n", f);
	free(s->regions.slot);
	free(s->timers.slot);
	free(s->counters.slot);
	free(s);
	return fflush(f) || ferror(f) ? -1 : 0;
}

int cmd_summary(int argc, char **argv)
{
	struct t2_summary *s;
	struct t2_reader r;
	const char *out = NULL;
	long top = -1;
	int json = 0, i, ret = 0, o;
	char *end;

	for (i = 1; i < argc; i++) {
		if ((o = t2_output_option("summary", argc, argv, &i, &out))) {
			if (o == 2)
				return 2;
		} else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--top") || !strncmp(argv[i], "--top=", 6)) {
			const char *n = argv[i][5] == '=' ? argv[i] + 6 : i + 1 < argc ? argv[++i] : "";

			top = strtol(n, &end, 10);
			if (!*n || *end || top < 0)
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
	if (t2_output_begin("summary", out, argv + i, argc - i))
		return 1;

	s = t2_summary_new(&r, 0);
	for (; i < argc; i++)
		if (t2_reader_read_path(&r, argv[i]))
			ret = 1;
	if (t2_summary_write(s, stdout, json, top)) {
		fprintf(stderr, "trace2: standard output: %s\n", strerror(errno));
		ret = 1;
	}
	t2_reader_free(&r);
	return ret;
}
