/*
 * The library's own timed waits last as long as they say, whatever size
 * the C library gives time_t: the system calls it makes directly (ppoll,
 * futex, nanosleep) take the kernel's timespec, which a 32-bit build with
 * a 64-bit time_t (-D_TIME_BITS=64, as 32-bit Debian builds) does not
 * share with <time.h>'s.  Read with the wrong layout, a 300 ms timeout
 * is 0 and the deferred-mode writer spins instead of sleeping; so such a
 * build takes the POSIX fallbacks (src/tr2_features.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "tr2_plat.h"
#include "trace2.h"

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* tr2_plat_poll() on a pipe nobody writes waits its whole timeout. */
static void poll_waits_its_timeout(void **state)
{
	struct pollfd pfd;
	int fds[2];
	double start, waited;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pfd.fd = fds[0];
	pfd.events = POLLIN;
	start = seconds(CLOCK_MONOTONIC);
	assert_int_equal(tr2_plat_poll(&pfd, 1, 300), 0);
	waited = seconds(CLOCK_MONOTONIC) - start;
	print_message("tr2_plat_poll(300 ms) waited %.3f s\n", waited);
	assert_true(waited >= 0.29);
	close(fds[0]);
	close(fds[1]);
}

/* An idle process in deferred mode: its writer sleeps (futex waits of
 * 100 ms), so the process uses little CPU time while the main thread
 * sleeps 600 ms. */
static void idle_deferred(void *arg)
{
	double cpu;

	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_printf("started");
	trace2_flush();
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
	nanosleep(&(struct timespec){ 0, 600000000L }, NULL);
	cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	printf("%.3f\n", cpu);
	exit(cpu < 0.06 ? 0 : 3);
}

static void idle_deferred_writer_sleeps(void **state)
{
	static const char *const env[] = {
		"GIT_TRACE2_PERF=/dev/null", "GIT_TRACE2_DEFERRED=1", NULL
	};
	struct t2_proc p;

	(void)state;
	t2_capture(idle_deferred, NULL, env, 30, &p);
	print_message("CPU time of an idle deferred-mode process over 0.6 s: %s", p.out);
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 0);
	t2_proc_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(poll_waits_its_timeout),
		cmocka_unit_test(idle_deferred_writer_sleeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
