#include "trace2.h"
#include "tr2_hot.h"
#include "tr2_clock.h"
#include "tr2_buf.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static uint64_t wall_offset_ns;  /* wall - monotonic at first use */
static int offset_state;         /* 0 unset, 1 monotonic, 2 no monotonic */
static uint64_t process_start_us;

static uint64_t wall_ns(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

static int monotonic_ns(uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

TR2_HOT uint64_t tr2_now_ns(void)
{
	int state = __atomic_load_n(&offset_state, __ATOMIC_ACQUIRE);
	uint64_t mono;

	if (state == 1 && !monotonic_ns(&mono))
		return __atomic_load_n(&wall_offset_ns, __ATOMIC_RELAXED) + mono;
	if (state == 0) {
		uint64_t wall = wall_ns();

		/* Racing first readers compute near-identical offsets; any
		 * one of them is as good as another. */
		if (!monotonic_ns(&mono)) {
			__atomic_store_n(&wall_offset_ns, wall - mono, __ATOMIC_RELAXED);
			__atomic_store_n(&offset_state, 1, __ATOMIC_RELEASE);
		} else
			__atomic_store_n(&offset_state, 2, __ATOMIC_RELEASE);
		return wall;
	}
	return wall_ns();
}

void tr2_clock_capture_start(void)
{
	uint64_t expected = 0;

	__atomic_compare_exchange_n(&process_start_us, &expected, tr2_now_us(), 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

TR2_HOT uint64_t tr2_start_us(void)
{
	return __atomic_load_n(&process_start_us, __ATOMIC_RELAXED);
}

void trace2_initialize_clock(void)
{
	tr2_clock_capture_start();
}

void tr2_time_cache_init(struct tr2_time_cache *c)
{
	c->local_sec = -1;
	c->utc_sec = -1;
}

static void put2(char *p, int v)
{
	tr2_put_digits(p, (uint32_t)v, 2);
}

static void put_usec(char *p, uint64_t us)
{
	tr2_put_micros(p, (uint32_t)(us % 1000000));
}

/* Seconds east of UTC, as the last localtime_r() call found it. */
static long local_gmtoff;
static int gmtoff_known;
/* Set while a signal handler formats: no localtime_r() (it takes a lock
 * the interrupted code may hold). */
static _Thread_local int in_signal_handler;
/* Set in a forked child once the offset is known: libc's time zone lock
 * may have been held by a thread that the child does not have. */
static int forked_child;
/* Set while this thread is inside localtime_r(): a host's signal handler
 * that interrupts it and traces must not call it again, the lock it
 * takes is held by the code the handler interrupted. */
static _Thread_local volatile sig_atomic_t in_localtime;

void tr2_clock_signal_context(int on)
{
	in_signal_handler = on;
}

void tr2_clock_after_fork(void)
{
	forked_child = __atomic_load_n(&gmtoff_known, __ATOMIC_RELAXED);
}

static void put_hms_of_day(char *p, long secs_of_day)
{
	put2(p, (int)(secs_of_day / 3600));
	p[2] = ':';
	put2(p + 3, (int)(secs_of_day / 60 % 60));
	p[5] = ':';
	put2(p + 6, (int)(secs_of_day % 60));
}

static long seconds_of_day(int64_t sec)
{
	int64_t r = sec % 86400;

	return (long)(r < 0 ? r + 86400 : r);
}

TR2_HOT void tr2_fmt_local_time(struct tr2_time_cache *c, uint64_t us, char *out)
{
	time_t sec = (time_t)(us / 1000000);

	if (c->local_sec != (int64_t)sec) {
		long gmtoff = __atomic_load_n(&local_gmtoff, __ATOMIC_RELAXED);

		if (!in_signal_handler && !forked_child && !in_localtime) {
			struct tm tm;

			in_localtime = 1;
			localtime_r(&sec, &tm);
			in_localtime = 0;
			gmtoff = tm.tm_gmtoff;
			__atomic_store_n(&local_gmtoff, gmtoff, __ATOMIC_RELAXED);
			__atomic_store_n(&gmtoff_known, 1, __ATOMIC_RELAXED);
		}
		put_hms_of_day(c->local_hms, seconds_of_day((int64_t)sec + gmtoff));
		c->local_sec = (int64_t)sec;
	}
	memcpy(out, c->local_hms, 8);
	out[8] = '.';
	tr2_put_micros(out + 9, (uint32_t)(us - (uint64_t)sec * 1000000));
}

/*
 * "YYYY-MM-DDTHH:MM:SS" of a UTC time by arithmetic (the proleptic
 * Gregorian calendar, days counted from 1970-01-01), so no lock is taken.
 */
static void put_utc_ymdhms(char *p, int64_t sec)
{
	int64_t days = (sec - seconds_of_day(sec)) / 86400 + 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	int64_t doe = days - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int day = (int)(doy - (153 * mp + 2) / 5 + 1);
	int month = (int)(mp < 10 ? mp + 3 : mp - 9);
	int year = (int)(yoe + era * 400 + (month <= 2));

	put2(p, year / 100);
	put2(p + 2, year % 100);
	p[4] = '-';
	put2(p + 5, month);
	p[7] = '-';
	put2(p + 8, day);
	p[10] = 'T';
	put_hms_of_day(p + 11, seconds_of_day(sec));
}

TR2_HOT void tr2_fmt_utc_time(struct tr2_time_cache *c, uint64_t us, char *out)
{
	int64_t sec = (int64_t)(us / 1000000);

	if (c->utc_sec != sec) {
		put_utc_ymdhms(c->utc_ymdhms, sec);
		c->utc_sec = sec;
	}
	memcpy(out, c->utc_ymdhms, 19);
	out[19] = '.';
	put_usec(out + 20, us);
	out[26] = 'Z';
}

void tr2_fmt_sid_time(uint64_t us, char *out)
{
	char ymdhms[19];

	put_utc_ymdhms(ymdhms, (int64_t)(us / 1000000));
	memcpy(out, ymdhms, 4);          /* YYYY */
	memcpy(out + 4, ymdhms + 5, 2);  /* MM */
	memcpy(out + 6, ymdhms + 8, 3);  /* DDT */
	memcpy(out + 9, ymdhms + 11, 2); /* HH */
	memcpy(out + 11, ymdhms + 14, 2); /* MM */
	memcpy(out + 13, ymdhms + 17, 2); /* SS */
	out[15] = '.';
	put_usec(out + 16, us);
	out[22] = 'Z';
}
