/*
 * append_scaling.c -- how the kernel's part of buffered tracing scales
 * from one thread to two on this machine, with no library involved.
 *
 *   append_scaling MODE [SPIN] [DIR]
 *
 * Each thread stands for a buffered tracer: per "pair" it spins SPIN
 * (150) rounds of user-space work (~150 ns here, about the library's
 * user time per buffered region pair) and counts 304 bytes; every 215
 * pairs it writes 65,360 bytes.  One thread runs 1.5 s, then two threads
 * 1.5 s; printed are ns per pair, system time per pair and the ratio of
 * the two throughputs.  MODE is where the writes go:
 *
 *   shared     one O_APPEND descriptor for both threads (as a traced
 *              process's one trace file)
 *   own        each thread appends to a file of its own
 *   overwrite  each thread pwrite()s within a 16 MiB window of its own
 *              file: no new page-cache pages after the first lap
 *
 * Each phase makes new files in DIR (default $TMPDIR or /tmp) with
 * mkstemp() and removes them at its end; printed with the times are the
 * pages the kernel wrote back to disk during each phase.  Each phase is
 * warmed as bench.c warms a buffered run (warm.h), but only when
 * T2BENCH_WARM_MB is set.
 */
#define _GNU_SOURCE 1

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "warm.h"

#define PAIR_BYTES 304
#define PAIRS_PER_WRITE 215
#define WRITE_BYTES (PAIR_BYTES * PAIRS_PER_WRITE)
#define WINDOW (16L << 20)
#define SECONDS 1.5

enum mode { SHARED, OWN, OVERWRITE };

struct worker {
	int fd;
	unsigned long pairs;
};

static enum mode mode;
static long spin = 150;
static char data[WRITE_BYTES];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double system_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int put(struct worker *w, off_t *window_at)
{
	if (mode != OVERWRITE)
		return write(w->fd, data, WRITE_BYTES) == WRITE_BYTES;
	if (pwrite(w->fd, data, WRITE_BYTES, *window_at) != WRITE_BYTES)
		return 0;
	*window_at = (*window_at + WRITE_BYTES) % WINDOW;
	return 1;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	volatile unsigned long x = 1;
	double end = now_s() + SECONDS;
	off_t window_at = 0;
	long i, s;

	while (now_s() < end) {
		for (i = 0; i < PAIRS_PER_WRITE; i++)
			for (s = 0; s < spin; s++)
				x = x * 6364136223846793005u + 1;
		w->pairs += PAIRS_PER_WRITE;
		if (!put(w, &window_at)) {
			perror("append_scaling: write");
			exit(1);
		}
	}
	return NULL;
}

/* Runs n threads (1 or 2); returns the pairs done, *sys the system time. */
static unsigned long run(struct worker *w, int n, double *sys)
{
	pthread_t th[2];
	double s0;
	unsigned long pairs = 0;
	int t;

	warm_free_memory(0);
	s0 = system_s();
	for (t = 0; t < n; t++) {
		w[t].pairs = 0;
		if (pthread_create(&th[t], NULL, work, &w[t])) {
			fprintf(stderr, "append_scaling: pthread_create failed\n");
			exit(1);
		}
	}
	for (t = 0; t < n; t++) {
		pthread_join(th[t], NULL);
		pairs += w[t].pairs;
	}
	*sys = system_s() - s0;
	return pairs;
}

static int make_file(const char *dir, char *path, size_t size)
{
	int fd;

	snprintf(path, size, "%s/append_scaling.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	if (mode != OVERWRITE)
		fcntl(fd, F_SETFL, O_APPEND);
	return fd;
}

/* Pages the kernel has written back to disk since boot (0 if unknown). */
static unsigned long pages_written(void)
{
	char line[128];
	unsigned long n = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nr_written %lu", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * n threads (1 or 2) on new files, removed afterwards so that their dirty
 * pages are dropped rather than written back during the next phase.
 */
static void phase(const char *dir, int n, unsigned long *pairs, double *sys,
		  unsigned long *written)
{
	char path[2][4096];
	struct worker w[2];
	int t, files = mode == SHARED ? 1 : n;

	for (t = 0; t < files; t++)
		w[t].fd = make_file(dir, path[t], sizeof(path[t]));
	if (mode == SHARED)
		w[1].fd = w[0].fd;
	*written = pages_written();
	*pairs = run(w, n, sys);
	*written = pages_written() - *written;
	for (t = 0; t < files; t++) {
		unlink(path[t]);
		close(w[t].fd);
	}
}

int main(int argc, char **argv)
{
	const char *names[] = { "shared", "own", "overwrite" };
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	unsigned long one, two, wb1, wb2;
	double sys1, sys2;
	int m;

	for (m = 0; m < 3; m++)
		if (argc > 1 && !strcmp(argv[1], names[m]))
			break;
	if (argc < 2 || argc > 4 || m == 3 || (argc > 2 && (spin = atol(argv[2])) < 0)) {
		fprintf(stderr, "usage: append_scaling shared|own|overwrite [SPIN] [DIR]\n");
		return 2;
	}
	mode = (enum mode)m;
	if (argc > 3)
		dir = argv[3];
	memset(data, 'x', sizeof(data));
	phase(dir, 1, &one, &sys1, &wb1);
	phase(dir, 2, &two, &sys2, &wb2);
	printf("append_scaling mode=%s spin=%ld one_ns_per_pair=%.1f one_sys_ns_per_pair=%.1f "
	       "one_pages_written_back=%lu two_ns_per_pair=%.1f two_sys_ns_per_pair=%.1f "
	       "two_pages_written_back=%lu ratio=%.2f\n",
	       names[m], spin, SECONDS * 1e9 / (double)one, sys1 * 1e9 / (double)one, wb1,
	       SECONDS * 1e9 / (double)two, sys2 * 1e9 / (double)two, wb2,
	       (double)two / (double)one);
	return 0;
}
