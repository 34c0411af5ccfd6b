/*
 * startup.c -- what tracing adds to a whole process: spawn a command N
 * times untraced and N times with the event target to a file, interleaved
 * (so the machine's load affects both alike), and print the medians.  In
 * the same rounds, startup_floor (beside this program) runs N times with
 * and N times without its trace file: what the system calls a traced run
 * cannot avoid add on this machine, from the same place in the process
 * tree.
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
	char floor_path[4096];
	char *floor_plain[] = { floor_path, NULL };
	char *floor_traced[] = { floor_path, TRACE_FILE, NULL };
	char *slash = strrchr(argv[0], '/');
	double *u, *t, *fu, *ft, mu, mt, mfu, mft;
	int n, i;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: startup N COMMAND [ARGS...]\n");
		return 2;
	}
	snprintf(floor_path, sizeof(floor_path), "%.*sstartup_floor",
		 slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	u = malloc((size_t)n * sizeof(*u));
	t = malloc((size_t)n * sizeof(*t));
	fu = malloc((size_t)n * sizeof(*fu));
	ft = malloc((size_t)n * sizeof(*ft));
	if (!u || !t || !fu || !ft)
		return 1;
	for (i = 0; i < n; i++) {
		u[i] = run_once(argv + 2, plain);
		t[i] = run_once(argv + 2, traced);
		fu[i] = run_once(floor_plain, plain);
		ft[i] = run_once(floor_traced, plain);
		if (i % 50 == 49)
			unlink(TRACE_FILE);
	}
	unlink(TRACE_FILE);
	mu = median(u, n);
	mt = median(t, n);
	mfu = median(fu, n);
	mft = median(ft, n);
	printf("startup runs=%d untraced_median_us=%.1f traced_median_us=%.1f added_us=%.1f\n",
	       n, mu, mt, mt - mu);
	printf("startup floor: the unavoidable system calls alone add %.1f us"
	       " (startup_floor: %.1f vs %.1f); x_floor=%.2f\n",
	       mft - mfu, mft, mfu, (mt - mu) / (mft - mfu));
	free(u);
	free(t);
	free(fu);
	free(ft);
	return 0;
}
