/*
 * The program tests/lib/test_probes.sh reads and traces: user probes of every
 * shape trace2/probe.h takes, and library calls made with no target on.
 *
 *   probe_prog run N   prints the semaphores ("before"); after a line on
 *                      stdin prints them again ("while"), makes N region
 *                      pairs, data_intmax calls and user probe hits and
 *                      prints how often the gated probe evaluated its
 *                      arguments; after another line makes a call and
 *                      prints the semaphores ("after") once they are
 *                      clear, or after 300 s
 *   probe_prog bench N prints the ns per region pair of N pairs
 */
#include "trace2.h"
#include "trace2/probe.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

TRACE2_PROBE_DEFINE_SEMAPHORE(t2test, gated);

static int evaluated;

static int counted(int v)
{
	evaluated++;
	return v;
}

/* Every argument kind and count; the notes are what is compared. */
__attribute__((noinline)) static void shapes(const char *s, int i, unsigned u, short sh,
					     int64_t big, uint8_t b, void *p, char c)
{
	static char buf[8] = "array";

	TRACE2_PROBE(t2test, zero);
	TRACE2_PROBE(t2test, one, i);
	TRACE2_PROBE(t2test, two, s, u);
	TRACE2_PROBE(t2test, three, sh, big, b);
	TRACE2_PROBE(t2test, eight, s, i, u, sh, big, b, p, c);
	TRACE2_PROBE(t2test, consts, 5, -1, 70000L, "literal");
	TRACE2_PROBE(t2test, array, buf, (size_t)i, (long)big, (_Bool)b);
	TRACE2_PROBE_WITH_SEMAPHORE(t2test, gated, s, counted(i));
}

static void wait_line(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		exit(3);
}

/* Up to 300 s for every semaphore to clear: a tracer takes its uprobes
 * away one by one, each a kernel grace period, minutes in all on a busy
 * machine. */
static void wait_detached(void)
{
	const struct timespec tenth = { 0, 100000000 };
	int i;

	for (i = 0; i < 3000 && (trace2_probe_semaphore_t2test_gated || trace2_listener_mask >> 16);
	     i++)
		nanosleep(&tenth, NULL);
}

static void print_semaphores(const char *when)
{
	printf("%s gated=%u library=%u targets=%d\n", when,
	       (unsigned)trace2_probe_semaphore_t2test_gated, trace2_listener_mask >> 16,
	       trace2_is_enabled());
	fflush(stdout);
}

static void run(int n)
{
	char name[16];
	int i;

	print_semaphores("before");
	wait_line();
	print_semaphores("while");
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "item-%d", i);
		trace2_region_enter("t2test", "loop", NULL);
		trace2_data_intmax("t2test", NULL, name, (intmax_t)i * 1000);
		shapes(name, i, (unsigned)i, (short)i, (int64_t)i << 33, (uint8_t)i, name, 'c');
		trace2_region_leave("t2test", "loop", NULL);
	}
	printf("evaluated=%d\n", evaluated);
	fflush(stdout);
	wait_line();
	trace2_printf("detached");
	wait_detached();
	print_semaphores("after");
}

static void bench(long n)
{
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		trace2_region_enter("t2test", "bench", NULL);
		trace2_region_leave("t2test", "bench", NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f ns per region pair\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
}

int main(int argc, char **argv)
{
	trace2_initialize();
	if (argc == 3 && !strcmp(argv[1], "run"))
		run(atoi(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "bench"))
		bench(atol(argv[2]));
	else
		return 2;
	return 0;
}
