/*
 * hashsort -- hash files on two threads, print them sorted by hash.
 *
 *   example-hashsort [--slowest] FILE...   prints "<fnv1a-64 hex> <path>" lines
 *
 * A small but real host program for libtrace2: run it with, say,
 * GIT_TRACE2_PERF=2 to see nested regions, per-thread data, a timer and a
 * counter on stderr.  With no GIT_TRACE2* setting it traces nothing and
 * every trace2_*() call below costs one untaken branch.
 *
 * --slowest registers a target of its own (slowest_target.c) before
 * trace2_initialize(): it needs no GIT_TRACE2* setting, turns tracing on
 * by itself and at exit prints on stderr the longest regions of the run.
 * The usual settings still work alongside (GIT_TRACE2_STATS=2 for every
 * region's numbers).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slowest_target.h"
#include "trace2.h"

#define NR_WORKERS 2

struct entry {
	const char *path;
	uint64_t hash;
	int ok;
};

/* Our own timer and counter (trace2_timer_define(), main() sets them):
 * the atexit summary shows how much of the run, over all threads, was
 * spent in fread(); the reads are counted per thread as well (one
 * th_counter per worker). */
static enum trace2_timer_id read_timer;
static enum trace2_counter_id read_counter;

struct worker {
	pthread_t tid;
	struct entry *entries;
	int nr, first; /* this worker takes entries first, first+NR_WORKERS, ... */
};

/* FNV-1a, 64 bit: tiny, no dependencies, good enough to tell files apart. */
static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* Git's error() also records an "error" event; a host does it by hand. */
static int report(const char *path, int err)
{
	const char *why = strerror(err);

	fprintf(stderr, "hashsort: %s: %s\n", path, why);
	trace2_cmd_error("cannot read '%s': %s", path, why);
	return -1;
}

static int hash_file(struct entry *e)
{
	unsigned char buf[64 * 1024];
	uint64_t h = UINT64_C(14695981039346656037);
	intmax_t bytes = 0;
	size_t n;
	int err;
	FILE *f = fopen(e->path, "rb");

	if (!f)
		return report(e->path, errno);
	for (;;) {
		trace2_timer_start(read_timer);
		n = fread(buf, 1, sizeof(buf), f);
		trace2_timer_stop(read_timer);
		if (!n)
			break;
		trace2_counter_add(read_counter, 1);
		h = fnv1a(h, buf, n);
		bytes += (intmax_t)n;
	}
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err)
		return report(e->path, err);
	e->hash = h;
	e->ok = 1;
	/* Inside both regions, so the event target drops it unless
	 * GIT_TRACE2_EVENT_NESTING >= 3; perf shows it. */
	trace2_data_intmax("hashsort", NULL, "bytes", bytes);
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	intmax_t files = 0;

	/* First trace2 call of the thread: names it "thNN:hasher". */
	trace2_thread_start("hasher");
	trace2_region_enter("hashsort", "worker", NULL);
	for (int i = w->first; i < w->nr; i += NR_WORKERS) {
		trace2_region_enter_printf("hashsort", "hash-file", NULL, "%s",
					   w->entries[i].path);
		if (!hash_file(&w->entries[i]))
			files++;
		trace2_region_leave_printf("hashsort", "hash-file", NULL, "%s",
					   w->entries[i].path);
	}
	trace2_data_intmax("hashsort", NULL, "files", files);
	trace2_region_leave("hashsort", "worker", NULL);
	/* Last call: emits th_counter and thread_exit and merges this
	 * thread's timer and counter into the process totals. */
	trace2_thread_exit();
	return NULL;
}

static int by_hash(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return strcmp(x->path, y->path); /* equal content: stable order */
}

int main(int argc, char **argv)
{
	struct worker workers[NR_WORKERS];
	struct entry *entries;
	int slowest = argc > 1 && !strcmp(argv[1], "--slowest");
	char **files = argv + 1 + slowest;
	int nr = argc - 1 - slowest, rc = 0;

	/* Start the clock first so t_abs counts from the top of main(). */
	trace2_initialize_clock();
	if (slowest && slowest_target_register())
		perror("hashsort: cannot register the slowest target");
	/* Before or after trace2_initialize(); a negative id (out of
	 * memory) makes the calls report a BUG and do nothing. */
	read_timer = trace2_timer_define("hashsort", "read", 0);
	read_counter = trace2_counter_define("hashsort", "reads", 1);
	trace2_initialize();
	trace2_cmd_start((const char **)argv);
	trace2_cmd_name("hashsort");

	if (nr < 1) {
		fprintf(stderr, "usage: %s [--slowest] FILE...\n", argv[0]);
		return trace2_cmd_exit(129);
	}
	entries = calloc((size_t)nr, sizeof(*entries));
	if (!entries) {
		perror("hashsort");
		return trace2_cmd_exit(1);
	}
	for (int i = 0; i < nr; i++)
		entries[i].path = files[i];

	trace2_region_enter("hashsort", "hash", NULL);
	for (int t = 0; t < NR_WORKERS; t++) {
		workers[t] = (struct worker){ .entries = entries, .nr = nr, .first = t };
		if (pthread_create(&workers[t].tid, NULL, worker_main, &workers[t])) {
			/* Too few threads is not fatal: hash this share here.
			 * thread_start on main becomes a region, so this
			 * still traces cleanly. */
			worker_main(&workers[t]);
			workers[t].tid = pthread_self();
		}
	}
	for (int t = 0; t < NR_WORKERS; t++)
		if (!pthread_equal(workers[t].tid, pthread_self()))
			pthread_join(workers[t].tid, NULL);
	trace2_region_leave("hashsort", "hash", NULL);

	trace2_region_enter("hashsort", "sort", NULL);
	qsort(entries, (size_t)nr, sizeof(*entries), by_hash);
	trace2_region_leave("hashsort", "sort", NULL);

	for (int i = 0; i < nr; i++) {
		if (entries[i].ok)
			printf("%016" PRIx64 " %s\n", entries[i].hash, entries[i].path);
		else
			rc = 1;
	}
	free(entries);
	/* trace2_cmd_exit() returns its argument: emit "exit" and leave (with
	 * --slowest the library's atexit handler then has the slowest target
	 * print its list). */
	return trace2_cmd_exit(rc);
}
