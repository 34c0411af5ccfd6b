/* One clock for everything: wall time that never goes backwards. */
#ifndef TR2_CLOCK_H
#define TR2_CLOCK_H

#include "tr2_plat.h"

#include <stdint.h>

/* Nanoseconds since the epoch: the wall clock at first use plus the
 * monotonic clock's progress since. */
uint64_t tr2_now_ns(void);

static inline uint64_t tr2_now_us(void)
{
	return tr2_now_ns() / 1000;
}

/* Choose the clock, once (trace2_initialize()): setting is the value of
 * GIT_TRACE2_CLOCK ("monotonic": CLOCK_MONOTONIC always; else the TSC
 * where it is the same clock, from 10 ms after this call). */
void tr2_clock_init(const char *setting);
/* 1 once tr2_now_ns() reads the TSC (for tests). */
int tr2_clock_is_tsc(void);
/* What tr2_now_ns() adds to CLOCK_MONOTONIC (for tests). */
uint64_t tr2_clock_offset_ns(void);

/* Read through tr2_start_us(); hidden, so read directly. */
extern uint64_t tr2_clock_start_us TR2_HIDDEN;

/* The process start time in microseconds (trace2_initialize_clock()). */
static inline uint64_t tr2_start_us(void)
{
	return __atomic_load_n(&tr2_clock_start_us, __ATOMIC_RELAXED);
}
/* Capture the start time now if nobody did yet. */
void tr2_clock_capture_start(void);

/*
 * Per-thread caches of the broken-down second, so that formatting a time
 * costs a memcpy and six digits instead of localtime_r()/gmtime_r().
 */
struct tr2_time_cache {
	int64_t local_sec;
	int64_t utc_sec;
	char local_hms[8];   /* "HH:MM:SS" */
	char utc_ymdhms[19]; /* "YYYY-MM-DDTHH:MM:SS" */
};

#define TR2_LOCAL_TIME_LEN 15 /* "HH:MM:SS.uuuuuu" */
#define TR2_UTC_TIME_LEN 27   /* "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" */

void tr2_time_cache_init(struct tr2_time_cache *c);
void tr2_fmt_local_time(struct tr2_time_cache *c, uint64_t us, char *out);
/* The local time's offset from UTC at us, in seconds, as
 * tr2_fmt_local_time() uses it. */
long tr2_utc_offset(uint64_t us);
void tr2_fmt_utc_time(struct tr2_time_cache *c, uint64_t us, char *out);
/* While on, local times are computed from the last known UTC offset
 * instead of localtime_r() (for signal handlers). */
void tr2_clock_signal_context(int on);
/* In a forked child: local times keep the offset last known (no
 * localtime_r(), whose lock may be held by a thread left behind). */
void tr2_clock_after_fork(void);
/* "YYYYMMDDTHHMMSS.uuuuuuZ" for the session id (23 bytes, no NUL). */
void tr2_fmt_sid_time(uint64_t us, char *out);

#endif
