/*
 * stats_demo -- the statistics target (stats_target.c) on real work.
 *
 *   example-stats FILE...     prints "<fnv1a-64 hex> <lines> <words> <path>"
 *                             lines, sorted by hash, on stdout
 *
 * Three threads read, hash and count the words of the files; the main
 * thread sorts the results.  Every step is a region, so at exit the stats
 * target prints on stderr how often each ran and how long it took:
 *
 *   build/bin/example-stats src/tr2_*.c >/dev/null
 *
 * The stats target needs no GIT_TRACE2* setting: registered before
 * trace2_initialize(), it turns tracing on by itself.  The usual settings
 * still work alongside (GIT_TRACE2_PERF=2 shows the same regions).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats_target.h"
#include "trace2.h"

#define NR_WORKERS 3

struct entry {
	const char *path;
	uint64_t hash;
	size_t lines, words;
	int ok;
};

struct worker {
	pthread_t tid;
	struct entry *entries;
	int nr, first; /* this worker takes entries first, first+NR_WORKERS, ... */
};

static int report(const char *path, int err)
{
	const char *why = strerror(err);

	fprintf(stderr, "example-stats: %s: %s\n", path, why);
	trace2_cmd_error("cannot read '%s': %s", path, why);
	return -1;
}

/* The whole file in a new buffer (*len bytes), or NULL with errno. */
static unsigned char *read_file(const char *path, size_t *len)
{
	unsigned char *buf = NULL, *more;
	size_t alloc = 0, n;
	int err = 0;
	FILE *f = fopen(path, "rb");

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == alloc) {
			alloc = alloc ? 2 * alloc : 64 * 1024;
			if (!(more = realloc(buf, alloc))) {
				err = ENOMEM;
				break;
			}
			buf = more;
		}
		n = fread(buf + *len, 1, alloc - *len, f);
		*len += n;
		if (!n) {
			if (ferror(f))
				err = errno ? errno : EIO;
			break;
		}
	}
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	return buf;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = UINT64_C(14695981039346656037);

	while (n--) {
		h ^= *p++;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

static void count(struct entry *e, const unsigned char *p, size_t n)
{
	int in_word = 0;

	for (; n--; p++) {
		if (*p == '\n')
			e->lines++;
		if (isspace(*p))
			in_word = 0;
		else if (!in_word) {
			in_word = 1;
			e->words++;
		}
	}
}

/* One file, as nested regions: demo/file around read, hash and count. */
static void do_file(struct entry *e)
{
	unsigned char *buf;
	size_t len;

	trace2_region_enter("demo", "file", NULL);
	trace2_region_enter("demo", "read", NULL);
	buf = read_file(e->path, &len);
	trace2_region_leave("demo", "read", NULL);
	if (!buf) {
		report(e->path, errno);
	} else {
		trace2_region_enter("demo", "hash", NULL);
		e->hash = fnv1a(buf, len);
		trace2_region_leave("demo", "hash", NULL);

		trace2_region_enter("demo", "count", NULL);
		count(e, buf, len);
		trace2_region_leave("demo", "count", NULL);
		free(buf);
		e->ok = 1;
	}
	trace2_region_leave("demo", "file", NULL);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	trace2_thread_start("worker");
	trace2_region_enter("demo", "worker", NULL);
	for (int i = w->first; i < w->nr; i += NR_WORKERS)
		do_file(&w->entries[i]);
	trace2_region_leave("demo", "worker", NULL);
	trace2_thread_exit();
	return NULL;
}

static int by_hash(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return strcmp(x->path, y->path);
}

int main(int argc, char **argv)
{
	struct worker workers[NR_WORKERS];
	struct entry *entries;
	int nr = argc - 1, rc = 0;

	trace2_initialize_clock();
	if (stats_target_register())
		perror("example-stats: cannot register the stats target");
	trace2_initialize();
	trace2_cmd_start((const char **)argv);
	trace2_cmd_name("example-stats");

	if (nr < 1) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return trace2_cmd_exit(129);
	}
	entries = calloc((size_t)nr, sizeof(*entries));
	if (!entries) {
		perror("example-stats");
		return trace2_cmd_exit(1);
	}
	for (int i = 0; i < nr; i++)
		entries[i].path = argv[i + 1];

	trace2_region_enter("demo", "workers", NULL);
	for (int t = 0; t < NR_WORKERS; t++) {
		workers[t] = (struct worker){ .entries = entries, .nr = nr, .first = t };
		if (pthread_create(&workers[t].tid, NULL, worker_main, &workers[t])) {
			/* no thread: do this share here (thread_start on the
			 * main thread becomes a region of its own) */
			worker_main(&workers[t]);
			workers[t].tid = pthread_self();
		}
	}
	for (int t = 0; t < NR_WORKERS; t++)
		if (!pthread_equal(workers[t].tid, pthread_self()))
			pthread_join(workers[t].tid, NULL);
	trace2_region_leave("demo", "workers", NULL);

	trace2_region_enter("demo", "sort", NULL);
	qsort(entries, (size_t)nr, sizeof(*entries), by_hash);
	trace2_region_leave("demo", "sort", NULL);

	trace2_region_enter("demo", "print", NULL);
	for (int i = 0; i < nr; i++) {
		if (entries[i].ok)
			printf("%016" PRIx64 " %zu %zu %s\n", entries[i].hash,
			       entries[i].lines, entries[i].words, entries[i].path);
		else
			rc = 1;
	}
	trace2_region_leave("demo", "print", NULL);
	free(entries);
	/* exit: the library's atexit handler calls the target's shutdown(),
	 * which prints the table on stderr */
	return trace2_cmd_exit(rc);
}
