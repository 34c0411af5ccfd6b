/*
 * A fake CLOCK_MONOTONIC for the tests linked with
 * -Wl,--wrap=clock_gettime (see the Makefile): while t2_faking is set,
 * the library reads t2_fake_us microseconds; other clocks, and every
 * clock while it is not set, read the real one.  It defines the wrapper,
 * so include it in one file of such a test only.
 */
#ifndef T2FAKECLOCK_H
#define T2FAKECLOCK_H

#include <stdint.h>
#include <time.h>

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);

static int t2_faking;        /* set in the children that want it */
static uint64_t t2_fake_us;  /* atomic: the monotonic time they read */

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	uint64_t us;

	if (!t2_faking || id != CLOCK_MONOTONIC)
		return __real_clock_gettime(id, ts);
	us = __atomic_load_n(&t2_fake_us, __ATOMIC_RELAXED);
	ts->tv_sec = (time_t)(us / 1000000);
	ts->tv_nsec = (long)(us % 1000000) * 1000;
	return 0;
}

#endif
