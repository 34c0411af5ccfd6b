/*
 * gen_eventlog: write a synthetic event-format log of about SIZE bytes for
 * the trace2 command's benchmark (tool_speed.sh).
 *
 * usage: gen_eventlog SIZE_MB OUT
 *
 * The log looks like many Git commands writing to one file: processes
 * (every fourth a child of the root before it, SID "<parent>/<own>"),
 * each with PROC_LIVE processes running at once so their records
 * interleave, 4 threads per process, nested regions (up to 3 deep) from
 * a fixed set of category/labels, data records, timers and counters.
 * Every line is what libtrace2's event target writes (time, file, line).
 * Prints the number of lines (events) written on stdout.  (No child_start
 * records: trace2 validate warns of children before their parent started
 * one; nothing else.)
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROC_LIVE 8        /* processes whose records interleave */
#define THREADS 4
#define RECORDS_PER_PROC 4000

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct proc {
	char sid[160];
	unsigned long left;     /* records still to write */
	int depth[THREADS];     /* open regions per thread */
	int open[THREADS][3];   /* their label index */
	int started;
	int phase;              /* 0: head, 1: body, 2: tail */
};

static FILE *out;
static uint64_t now_us = 1795000000ull * 1000000; /* 2026-11-19 */
static uint64_t lines, bytes;

static const char *const cats[] = { "index", "fetch-pack", "pack-objects", "unpack_trees",
				    "progress", "refs" };
static const char *const labels[] = {
	"do_read_index", "write-pack-file", "enumerate-objects", "unpack_trees",
	"prepare-pack", "negotiation_v2", "mark_complete_local_refs", "lookup",
	"refresh", "preload", "traverse_trees", "cache_tree", "parse_remote_refs",
	"fsync", "checkout", "diff", "status", "untracked", "commit-graph", "midx",
};
#define NLABELS (sizeof(labels) / sizeof(*labels))

static void line(const struct proc *p, int th, const char *event, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void line(const struct proc *p, int th, const char *event, const char *fmt, ...)
{
	char buf[1024], tname[32], tm[40];
	time_t s = (time_t)(now_us / 1000000);
	struct tm t;
	int n;
	va_list ap;

	gmtime_r(&s, &t);
	strftime(tm, sizeof(tm), "%Y-%m-%dT%H:%M:%S", &t);
	if (th)
		snprintf(tname, sizeof(tname), "th%02d:worker", th);
	else
		strcpy(tname, "main");
	n = snprintf(buf, sizeof(buf),
		     "{\"event\":\"%s\",\"sid\":\"%s\",\"thread\":\"%s\",\"time\":\"%s.%06uZ\","
		     "\"file\":\"builtin/gen.c\",\"line\":%u",
		     event, p->sid, tname, tm, (unsigned)(now_us % 1000000),
		     (unsigned)(next_rand() % 2000 + 1));
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	buf[n++] = '}';
	buf[n++] = '\n';
	fwrite(buf, 1, (size_t)n, out);
	lines++;
	bytes += (uint64_t)n;
	now_us += 1 + next_rand() % 50;
}

static unsigned long nproc;
static char last_root[64];

static void new_proc(struct proc *p)
{
	char own[64];

	snprintf(own, sizeof(own), "20261119T000000.000000Z-H0000abcd-P%08lx", nproc);
	if (nproc % 4 && last_root[0])
		snprintf(p->sid, sizeof(p->sid), "%s/%s", last_root, own);
	else {
		snprintf(p->sid, sizeof(p->sid), "%s", own);
		strcpy(last_root, own);
	}
	nproc++;
	memset(p->depth, 0, sizeof(p->depth));
	p->left = RECORDS_PER_PROC;
	p->started = 0;
	p->phase = 0;
}

static double secs(void)
{
	return (double)(next_rand() % 200000) / 1e6;
}

/* One record of p. */
static void step(struct proc *p)
{
	int th = (int)(next_rand() % THREADS), l;

	if (p->phase == 0) {
		line(p, 0, "version", ",\"evt\":\"4\",\"exe\":\"2.47.0\"");
		line(p, 0, "start", ",\"t_abs\":0.000100,\"argv\":[\"git\",\"gen\",\"--opt\"]");
		line(p, 0, "cmd_name", ",\"name\":\"gen\",\"hierarchy\":\"gen\"");
		for (l = 1; l < THREADS; l++)
			line(p, l, "thread_start", "%s", "");
		p->phase = 1;
		return;
	}
	if (p->phase == 1 && p->left) {
		p->left--;
		if (p->depth[th] && (p->depth[th] == 3 || next_rand() % 2)) {
			int d = p->depth[th]--;

			l = p->open[th][d - 1];
			line(p, th, "region_leave",
			     ",\"t_rel\":%.6f,\"nesting\":%d,\"category\":\"%s\",\"label\":\"%s\"",
			     secs(), d, cats[l % 6], labels[l]);
		} else if (next_rand() % 8 == 0) {
			line(p, th, "data",
			     ",\"t_abs\":%.6f,\"t_rel\":%.6f,\"nesting\":%d,\"category\":\"gen\","
			     "\"key\":\"k%d\",\"value\":\"%u\"",
			     secs(), secs(), p->depth[th] + 1, (int)(next_rand() % 10),
			     (unsigned)next_rand());
		} else {
			int d = ++p->depth[th];

			l = (int)(next_rand() % NLABELS);
			p->open[th][d - 1] = l;
			line(p, th, "region_enter", ",\"nesting\":%d,\"category\":\"%s\",\"label\":\"%s\"",
			     d, cats[l % 6], labels[l]);
		}
		return;
	}
	/* the end: close what is open, timers, counters, exit */
	for (th = 0; th < THREADS; th++)
		while (p->depth[th]) {
			int d = p->depth[th]--;

			l = p->open[th][d - 1];
			line(p, th, "region_leave",
			     ",\"t_rel\":%.6f,\"nesting\":%d,\"category\":\"%s\",\"label\":\"%s\"",
			     secs(), d, cats[l % 6], labels[l]);
		}
	for (th = 1; th < THREADS; th++)
		line(p, th, "thread_exit", ",\"t_rel\":%.6f", secs());
	line(p, 0, "exit", ",\"t_abs\":%.6f,\"code\":0", 1.5);
	line(p, 0, "timer",
	     ",\"category\":\"test\",\"name\":\"t1\",\"intervals\":3,\"t_total\":0.3,"
	     "\"t_min\":0.05,\"t_max\":0.2");
	line(p, 0, "counter", ",\"category\":\"test\",\"name\":\"c1\",\"count\":7");
	line(p, 0, "atexit", ",\"t_abs\":%.6f,\"code\":0", 1.6);
	new_proc(p);
}

int main(int argc, char **argv)
{
	struct proc procs[PROC_LIVE];
	uint64_t want;
	int i;

	if (argc != 3) {
		fputs("usage: gen_eventlog SIZE_MB OUT\n", stderr);
		return 2;
	}
	want = (uint64_t)strtoull(argv[1], NULL, 10) << 20;
	out = fopen(argv[2], "w");
	if (!out) {
		perror(argv[2]);
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	for (i = 0; i < PROC_LIVE; i++)
		new_proc(&procs[i]);
	while (bytes < want)
		step(&procs[next_rand() % PROC_LIVE]);
	/* the processes still running end cleanly */
	for (i = 0; i < PROC_LIVE; i++) {
		procs[i].left = 0;
		if (procs[i].phase == 1)
			step(&procs[i]);
	}
	if (fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	printf("%llu\n", (unsigned long long)lines);
	return 0;
}
