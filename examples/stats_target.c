/*
 * stats_target -- region time statistics in memory (see stats_target.h).
 *
 * Written on the public target interface (include/trace2/target.h) only.
 * event() runs on every traced thread at once: a region_leave record
 * carries the region's time (t_rel_us), so the target needs no per-thread
 * state, only one mutex around a fixed table.  The lock is a leaf (nothing
 * else is taken while it is held) and is held across fork(), so a child
 * forked while another thread updates the table gets a consistent copy
 * (and keeps it, also if it calls trace2_initialize() again).
 * Other records, the signal record from inside a handler included, are
 * ignored without taking the lock.
 */
#include "stats_target.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace2/target.h"

struct row {
	uint64_t hash;     /* FNV-1a of the whole category and label */
	uint64_t count, total_us, min_us, max_us;
	char category[STATS_TARGET_CATEGORY_MAX + 1];
	char label[STATS_TARGET_LABEL_MAX + 1];
	unsigned char cut; /* CUT_CATEGORY | CUT_LABEL: shortened */
};

#define CUT_CATEGORY 1
#define CUT_LABEL 2

static struct {
	pthread_mutex_t lock;
	struct row rows[STATS_TARGET_ROWS];
	size_t nr;
	struct row other;  /* leaves of keys that found the table full */
} stats = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* Copy s (NULL: "") into dst of size n, cut to fit; 1 if it was cut. */
static int copy_cut(char *dst, size_t n, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	int cut = len >= n;

	if (cut)
		len = n - 1;
	if (len)
		memcpy(dst, s, len);
	dst[len] = '\0';
	return cut;
}

static void add(struct row *r, uint64_t us)
{
	if (!r->count || us < r->min_us)
		r->min_us = us;
	if (us > r->max_us)
		r->max_us = us;
	r->total_us += us;
	r->count++;
}

static void stats_event(void *ctx, const struct trace2_event *ev)
{
	const char *cat, *label;
	struct row key;
	size_t i;

	(void)ctx;
	if (ev->kind != TRACE2_EVENT_REGION_LEAVE)
		return;
	cat = ev->region.category ? ev->region.category : "";
	label = ev->region.label ? ev->region.label : "";
	/* '\n' between the two: "a"+"bc" and "ab"+"c" hash differently */
	key.hash = fnv1a(fnv1a(fnv1a(UINT64_C(14695981039346656037), cat), "\n"), label);
	key.cut = (unsigned char)(copy_cut(key.category, sizeof(key.category), cat) * CUT_CATEGORY |
				  copy_cut(key.label, sizeof(key.label), label) * CUT_LABEL);

	pthread_mutex_lock(&stats.lock);
	for (i = 0; i < stats.nr; i++) {
		struct row *r = &stats.rows[i];

		if (r->hash == key.hash && r->cut == key.cut &&
		    !strcmp(r->label, key.label) && !strcmp(r->category, key.category))
			break;
	}
	if (i == stats.nr && stats.nr < STATS_TARGET_ROWS) {
		key.count = key.total_us = key.min_us = key.max_us = 0;
		stats.rows[stats.nr++] = key;
	}
	add(i < stats.nr ? &stats.rows[i] : &stats.other, ev->t_rel_us);
	pthread_mutex_unlock(&stats.lock);
}

static void stats_shutdown(void *ctx)
{
	(void)ctx;
	stats_target_print(stderr);
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&stats.lock);
}

static void fork_release(void)
{
	pthread_mutex_unlock(&stats.lock);
}

static void install_fork_handlers(void)
{
	/* on even if this fails: only a fork racing an update could hang */
	pthread_atfork(fork_prepare, fork_release, fork_release);
}

static int stats_open(void *ctx, const struct trace2_target_config *config)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	(void)ctx;
	(void)config;
	pthread_once(&once, install_fork_handlers); /* twice would deadlock */
	return 0;
}

static const struct trace2_target stats_target = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "stats",
	.setting = NULL, /* no destination: on from trace2_initialize() on */
	.open = stats_open,
	.event = stats_event,
	.shutdown = stats_shutdown,
};

int stats_target_register(void)
{
	return trace2_register_target(&stats_target, NULL);
}

/* Total time descending, then count descending, then by name. */
static int by_total(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->total_us != y->total_us)
		return x->total_us > y->total_us ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((c = strcmp(x->category, y->category)))
		return c;
	return strcmp(x->label, y->label);
}

/* "1234.567": microseconds as milliseconds, right-aligned in width. */
static void put_ms(FILE *out, int width, uint64_t us)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
	fprintf(out, " %*s", width, buf);
}

static void put_row(FILE *out, const struct row *r, const char *name)
{
	fprintf(out, "%8" PRIu64, r->count);
	put_ms(out, 12, r->total_us);
	put_ms(out, 10, r->min_us);
	put_ms(out, 10, r->max_us);
	put_ms(out, 10, (r->total_us + r->count / 2) / r->count);
	if (name)
		fprintf(out, "  %s\n", name);
	else
		fprintf(out, "  %s%s/%s%s\n",
			*r->category ? r->category : "-",
			r->cut & CUT_CATEGORY ? "..." : "",
			*r->label ? r->label : "-",
			r->cut & CUT_LABEL ? "..." : "");
}

int stats_target_print(FILE *out)
{
	struct row rows[STATS_TARGET_ROWS], other;
	uint64_t regions = 0;
	size_t nr, i;

	pthread_mutex_lock(&stats.lock);
	nr = stats.nr;
	memcpy(rows, stats.rows, nr * sizeof(*rows));
	other = stats.other;
	pthread_mutex_unlock(&stats.lock);

	qsort(rows, nr, sizeof(*rows), by_total);
	for (i = 0; i < nr; i++)
		regions += rows[i].count;
	regions += other.count;
	fprintf(out, "stats: %" PRIu64 " regions of %zu%s keys, times in ms, "
		"sorted by total\n", regions, nr, other.count ? "+" : "");
	fprintf(out, "%8s %12s %10s %10s %10s  %s\n",
		"count", "total", "min", "max", "mean", "category/label");
	for (i = 0; i < nr; i++)
		put_row(out, &rows[i], NULL);
	if (other.count) {
		put_row(out, &other, "(other)");
		fprintf(out, "stats: table full (%d rows): (other) adds up the "
			"%" PRIu64 " regions of the keys that did not fit\n",
			STATS_TARGET_ROWS, other.count);
	}
	return fflush(out) || ferror(out) ? -1 : 0;
}
