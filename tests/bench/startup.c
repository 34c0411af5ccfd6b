/*
 * startup.c -- what tracing adds to a whole process: spawn a command N
 * times untraced and N times with the event target to a file, interleaved
 * (so the machine's load affects both alike), and print the medians.
 *
 *   startup N COMMAND [ARGS...]     COMMAND is an absolute path
 */
#define _GNU_SOURCE 1

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACE_FILE "/tmp/libtrace2-startup.event"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Wall time of one run of argv with env, its output thrown away. */
static double run_once(char **argv, char **env)
{
	posix_spawn_file_actions_t fa;
	double t0 = now_us();
	pid_t pid;
	int status;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, env)) {
		perror("posix_spawn");
		exit(1);
	}
	waitpid(pid, &status, 0);
	posix_spawn_file_actions_destroy(&fa);
	return now_us() - t0;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	char *plain[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent",
			  "GIT_CONFIG_NOSYSTEM=1", NULL };
	char *traced[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent",
			   "GIT_CONFIG_NOSYSTEM=1", "GIT_TRACE2_EVENT=" TRACE_FILE, NULL };
	double *u, *t, mu, mt;
	int n, i;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: startup N COMMAND [ARGS...]\n");
		return 2;
	}
	u = malloc((size_t)n * sizeof(*u));
	t = malloc((size_t)n * sizeof(*t));
	if (!u || !t)
		return 1;
	for (i = 0; i < n; i++) {
		u[i] = run_once(argv + 2, plain);
		t[i] = run_once(argv + 2, traced);
		if (i % 50 == 49)
			unlink(TRACE_FILE);
	}
	unlink(TRACE_FILE);
	mu = median(u, n);
	mt = median(t, n);
	printf("startup runs=%d untraced_median_us=%.1f traced_median_us=%.1f added_us=%.1f\n",
	       n, mu, mt, mt - mu);
	free(u);
	free(t);
	return 0;
}
