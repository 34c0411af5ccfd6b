#include "trace2.h"
#include "tr2_hot.h"
#include "tr2_clock.h"
#include "tr2_buf.h"
#include "tr2_plat.h"

#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

static uint64_t wall_offset_ns;  /* wall - monotonic at first use */
/* 0 unset, 1 monotonic, 2 no monotonic, 3 TSC, 4 monotonic until the
 * TSC is calibrated */
static int offset_state;
uint64_t tr2_clock_start_us;

#if TR2_HAVE_TSC_CLOCK

/*
 * The TSC clock (docs/performance.md, "Clock").  Where the kernel's own
 * clocksource is the TSC and the CPU says constant_tsc and nonstop_tsc,
 * CLOCK_MONOTONIC is itself the TSC scaled by the kernel, so reading the
 * TSC and scaling it here is the same clock without the vDSO call.
 *
 * The conversion is a piecewise linear function F of the TSC, built in
 * blocks.  A block holds two lines: the line of the block before it,
 * which it keeps up to its knee, and its own line from the knee on, each
 * a TSC value, the nanoseconds there and a slope (ns per tick, 32.32
 * fixed point).  A block is final once published: any block, from its
 * publication on, gives the same F as the next one up to the next one's
 * knee, so two readers never disagree whichever of the two they read,
 * and F never decreases.
 *
 * Re-anchoring: the first reading at or after a block's refresh point
 * (REFRESH_NS after its knee) measures a (TSC, CLOCK_MONOTONIC) pair
 * (calibrate(): four clock_gettime() calls) and publishes the next
 * block.  Its knee is
 * the current block's end (HORIZON_NS after the refresh point): the old
 * line runs until there, then the new slope, chosen so that F meets
 * CLOCK_MONOTONIC (extrapolated at the rate measured between the two
 * last pairs) one REFRESH_NS + HORIZON_NS period after the knee.  So a
 * busy process re-anchors every 5 ms, each slope is measured at most
 * 7.5 ms before the end of its use, and corrections are continuous.  A
 * reading past a block's end (an idle process, a re-anchoring thread
 * stalled) may not use that block's line beyond its end: it re-anchors
 * itself (its new block starts at its own pair, or at F(end) if that is
 * higher: no reading gave more, and the old line stops at the old end),
 * or, with no slot free, returns F(end).
 *
 * Publication: blocks live in SLOTS slots, each with a sequence word (0
 * free, 1 being written, else the generation it holds); "current" holds
 * generation << 3 | slot and is changed by compare-and-swap, so one of
 * several racing writers wins; a loser's slot is claimed again once a
 * newer generation is current.  Readers
 * check the slot's sequence before and after copying it and retry when
 * it was reused: no lock, no spinning on a writer, so a signal handler
 * that interrupts a re-anchoring reads the block published before it.
 * Writers claim only free slots or slots of generations older than the
 * current one.  tsc_mono_ns() reads the TSC after the block (lfence
 * first), so a reading of a newer block is also a later TSC value;
 * read_fast() reads it just before (no lfence), so a newer block may get
 * a value from before its publication -- no earlier than the previous
 * block's refresh point, so before the newer block's knee, where it
 * gives the same F as the block before it.
 */
#define SLOTS 8
#define REFRESH_NS 2500000u
#define HORIZON_NS 2500000u
/* How long after initialize the first rate is measured over. */
#define FIRST_RATE_NS 10000000u

struct line {
	uint64_t tsc, ns, slope;
};

struct tsc_block {
	/* what a reading needs, first: read_fast() copies only these */
	struct line cur;
	uint64_t refresh;      /* a TSC value */
	struct line prev;      /* prev until cur.tsc (the knee) */
	uint64_t prev_end;     /* prev's block's end: prev stops there */
	/* what re-anchoring needs besides */
	uint64_t end;          /* a TSC value */
	uint64_t cal_tsc, cal_ns; /* the pair it was measured from */
};

struct tsc_slot {
	_Alignas(64) uint64_t seq;
	uint64_t w[sizeof(struct tsc_block) / 8];
};

static struct tsc_slot slots[SLOTS];
static _Alignas(64) uint64_t current = 1 << 3; /* generation << 3 | slot */
static _Alignas(64) uint64_t refresh_claim; /* generation being replaced */
static uint64_t first_tsc, first_ns, first_rate_at; /* tr2_clock_init() */
static int tsc_check;                       /* 0 not yet, 1 running, 2 done */

static inline uint64_t line_at(const struct line *l, uint64_t tsc)
{
	if (tsc <= l->tsc)
		return l->ns;
	return l->ns + (uint64_t)(((unsigned __int128)(tsc - l->tsc) * l->slope) >> 32);
}

static inline uint64_t block_at(const struct tsc_block *b, uint64_t tsc)
{
	if (tsc >= b->cur.tsc)
		return line_at(&b->cur, tsc);
	return line_at(&b->prev, tsc < b->prev_end ? tsc : b->prev_end);
}

/* A copy of the slot's block if it still holds generation gen. */
static int read_slot(const struct tsc_slot *s, uint64_t gen, struct tsc_block *b)
{
	uint64_t *w = (uint64_t *)b;
	size_t i;

	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != gen)
		return 0;
	for (i = 0; i < sizeof(*b) / 8; i++)
		w[i] = __atomic_load_n(&s->w[i], __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == gen;
}

/* A field of a slot's block, loaded as readers load it. */
#define SLOT_WORD(s, field) \
	__atomic_load_n(&(s)->w[offsetof(struct tsc_block, field) / 8], __ATOMIC_RELAXED)

/*
 * Most readings: before the current block's refresh point, from the
 * line the TSC falls on (4 or 5 of the block's 11 words, loaded one by
 * one between the sequence checks: no loop, no copy of the block); 0
 * sends the caller to tsc_mono_ns().  The TSC is read first, unordered
 * (tr2_plat_tsc_now()): a block newer than the value maps it as the
 * block before would (it falls before the newer block's knee).
 */
static inline __attribute__((always_inline)) int read_fast(uint64_t *ns)
{
	uint64_t cur = __atomic_load_n(&current, __ATOMIC_ACQUIRE), tsc, end;
	const struct tsc_slot *s = &slots[cur & (SLOTS - 1)];
	struct line l;

	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != cur >> 3)
		return 0;
	tsc = tr2_plat_tsc_now();
	if (tsc >= SLOT_WORD(s, refresh))
		return 0;
	l.tsc = SLOT_WORD(s, cur.tsc);
	if (tsc >= l.tsc) {
		l.ns = SLOT_WORD(s, cur.ns);
		l.slope = SLOT_WORD(s, cur.slope);
	} else {
		l.tsc = SLOT_WORD(s, prev.tsc);
		l.ns = SLOT_WORD(s, prev.ns);
		l.slope = SLOT_WORD(s, prev.slope);
		end = SLOT_WORD(s, prev_end);
		tsc = tsc < end ? tsc : end;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != cur >> 3)
		return 0;
	*ns = line_at(&l, tsc);
	return 1;
}

/* A (TSC, CLOCK_MONOTONIC) pair: the TSC read just before the clock, the
 * narrowest of a few tries (a try interrupted in between is wide).  The
 * clock value is at least CLOCK_MONOTONIC at that TSC value. */
static int calibrate(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX, a, b, m;
	int i;

	*tsc = *ns = 0;
	for (i = 0; i < 4; i++) {
		a = tr2_plat_tsc();
		if (tr2_plat_monotonic_ns(&m))
			return 0;
		b = tr2_plat_tsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a;
			*ns = m;
		}
	}
	return 1;
}

/* ns * 2^32 / ticks: a slope (or ticks * 2^32 / ns: ticks per ns). */
static uint64_t ratio32(uint64_t ns, uint64_t ticks)
{
	return ticks ? (uint64_t)(((unsigned __int128)ns << 32) / ticks) : 0;
}

static uint64_t ns_to_ticks(uint64_t ns, uint64_t slope)
{
	return (uint64_t)(((unsigned __int128)ns << 32) / slope);
}

/*
 * The block after old (NULL: the first, from the pair of init): from
 * the pair (tsc, ns) just measured, with rate the ns per tick measured
 * since the previous pair.
 */
static void next_block(const struct tsc_block *old, uint64_t tsc, uint64_t ns,
		       uint64_t rate, struct tsc_block *b)
{
	uint64_t period = ns_to_ticks(REFRESH_NS + HORIZON_NS, rate);
	uint64_t aim, target, slope;

	b->cur.tsc = tsc;
	b->cur.ns = ns;
	if (old) {
		uint64_t end_ns = line_at(&old->cur, old->end);

		b->prev = old->cur;
		b->prev_end = old->end;
		if (tsc <= old->end) {
			b->cur.tsc = old->end;
			b->cur.ns = end_ns;
		} else if (ns < end_ns) {
			b->cur.ns = end_ns;
		}
	}
	/* meet CLOCK_MONOTONIC one period after the knee, with a slope
	 * within 1/1024 of the measured rate */
	aim = b->cur.tsc + period;
	target = ns + (uint64_t)(((unsigned __int128)(aim - tsc) * rate) >> 32);
	slope = target > b->cur.ns ? ratio32(target - b->cur.ns, period) : 0;
	if (slope < rate - rate / 1024)
		slope = rate - rate / 1024;
	if (slope > rate + rate / 1024)
		slope = rate + rate / 1024;
	b->cur.slope = slope;
	if (!old) {
		b->prev = b->cur;
		b->prev_end = b->cur.tsc;
	}
	b->refresh = b->cur.tsc + ns_to_ticks(REFRESH_NS, rate);
	b->end = b->refresh + ns_to_ticks(HORIZON_NS, rate);
	b->cal_tsc = tsc;
	b->cal_ns = ns;
}

/* A free slot, or one of a generation older than gen, marked as being
 * written; -1 if none. */
static int claim_slot(uint64_t gen)
{
	int i;

	for (i = 0; i < SLOTS; i++) {
		uint64_t seq = __atomic_load_n(&slots[i].seq, __ATOMIC_RELAXED);

		if ((seq == 0 || (seq >= 2 && seq < gen)) &&
		    __atomic_compare_exchange_n(&slots[i].seq, &seq, 1, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			__atomic_thread_fence(__ATOMIC_RELEASE);
			return i;
		}
	}
	return -1;
}

/* Publish b as the generation after cur (the value of "current" it was
 * made from); 1 if published. */
static int publish(const struct tsc_block *b, uint64_t cur)
{
	uint64_t gen = (cur >> 3) + 1;
	const uint64_t *w = (const uint64_t *)b;
	int slot = claim_slot(gen - 1);
	size_t i;

	if (slot < 0)
		return 0;
	for (i = 0; i < sizeof(*b) / 8; i++)
		__atomic_store_n(&slots[slot].w[i], w[i], __ATOMIC_RELAXED);
	__atomic_store_n(&slots[slot].seq, gen, __ATOMIC_RELEASE);
	/* a loser's slot keeps its generation, never current: it is free
	 * again once the current one is newer (freeing it here could free
	 * it after another writer has claimed and published it) */
	return __atomic_compare_exchange_n(&current, &cur, gen << 3 | (uint64_t)slot, 0,
					   __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* A slope a TSC of 62.5 MHz to 64 GHz could have. */
static int plausible(uint64_t slope)
{
	return slope > (1ull << 32) / 64 && slope < (1ull << 32) * 16;
}

/* Re-anchor after block old of "current" value cur; 1 if a newer block
 * is there to read (this thread's or another's). */
static int reanchor(const struct tsc_block *old, uint64_t cur)
{
	struct tsc_block b;
	uint64_t tsc, ns, rate;

	if (calibrate(&tsc, &ns) && tsc > old->cal_tsc && ns > old->cal_ns) {
		rate = ratio32(ns - old->cal_ns, tsc - old->cal_tsc);
		next_block(old, tsc, ns, plausible(rate) ? rate : old->cur.slope, &b);
		if (publish(&b, cur))
			return 1;
	}
	return __atomic_load_n(&current, __ATOMIC_ACQUIRE) != cur;
}

/* CLOCK_MONOTONIC's nanoseconds, from the TSC; 0 if the blocks cannot
 * be read (never seen: then the TSC clock is given up). */
static uint64_t tsc_mono_ns(void)
{
	int misses = 0;

	for (;;) {
		uint64_t cur = __atomic_load_n(&current, __ATOMIC_ACQUIRE), tsc, claimed;
		struct tsc_block b;

		if (!read_slot(&slots[cur & (SLOTS - 1)], cur >> 3, &b)) {
			if (++misses < 1000)
				continue; /* the slot was reused meanwhile */
			__atomic_store_n(&offset_state, 1, __ATOMIC_RELEASE);
			return 0;
		}
		tsc = tr2_plat_tsc();
		if (__builtin_expect(tsc < b.refresh, 1))
			return block_at(&b, tsc);
		/* one reader re-anchors before the end; past it, every one */
		claimed = __atomic_load_n(&refresh_claim, __ATOMIC_RELAXED);
		if (tsc < b.end &&
		    (claimed >= cur >> 3 ||
		     !__atomic_compare_exchange_n(&refresh_claim, &claimed, cur >> 3, 0,
						  __ATOMIC_RELAXED, __ATOMIC_RELAXED)))
			return block_at(&b, tsc);
		if (reanchor(&b, cur))
			continue;
		return block_at(&b, tsc < b.end ? tsc : b.end);
	}
}

/* FIRST_RATE_NS after init: check that the TSC may be used, measure its
 * rate since init and publish the first block (or stay monotonic). */
static void switch_to_tsc(void)
{
	struct tsc_block b;
	uint64_t tsc, ns, rate;
	int state = 4, running = 0;

	if (__atomic_load_n(&tsc_check, __ATOMIC_RELAXED) ||
	    !__atomic_compare_exchange_n(&tsc_check, &running, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	if (tr2_plat_tsc_is_monotonic() && calibrate(&tsc, &ns) && tsc > first_tsc &&
	    ns > first_ns && plausible(rate = ratio32(ns - first_ns, tsc - first_tsc))) {
		next_block(NULL, tsc, ns, rate, &b);
		if (publish(&b, 1 << 3))
			__atomic_compare_exchange_n(&offset_state, &state, 3, 0, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED);
	}
	state = 4;
	__atomic_compare_exchange_n(&offset_state, &state, 1, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	__atomic_store_n(&tsc_check, 2, __ATOMIC_RELEASE);
}

void tr2_clock_init(const char *setting)
{
	uint64_t tsc, ns;
	int state = 1;

	if (setting && !strcmp(setting, "monotonic"))
		return;
	tr2_now_ns(); /* the offset */
	if (__atomic_load_n(&offset_state, __ATOMIC_ACQUIRE) != 1 || !calibrate(&tsc, &ns))
		return;
	first_tsc = tsc;
	first_ns = ns;
	first_rate_at = ns + FIRST_RATE_NS;
	__atomic_compare_exchange_n(&offset_state, &state, 4, 0, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

static void tsc_after_fork(void)
{
	int running = 1, i;

	/* a thread left behind may have been checking or writing */
	__atomic_compare_exchange_n(&tsc_check, &running, 0, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	for (i = 0; i < SLOTS; i++)
		if (__atomic_load_n(&slots[i].seq, __ATOMIC_RELAXED) == 1)
			__atomic_store_n(&slots[i].seq, 0, __ATOMIC_RELAXED);
}
#else
void tr2_clock_init(const char *setting)
{
	(void)setting;
}
#endif

/* Every reading but read_fast()'s, the monotonic clock's included (so
 * TR2_HOT), out of line: the fast path saves no registers, has no frame. */
static TR2_HOT __attribute__((noinline)) uint64_t now_ns_slow(int state)
{
	uint64_t mono;

	if (state == 1 && !tr2_plat_monotonic_ns(&mono))
		return __atomic_load_n(&wall_offset_ns, __ATOMIC_RELAXED) + mono;
#if TR2_HAVE_TSC_CLOCK
	if (state == 3) {
		mono = tsc_mono_ns();
		if (mono || !tr2_plat_monotonic_ns(&mono))
			return __atomic_load_n(&wall_offset_ns, __ATOMIC_RELAXED) + mono;
	}
	if (state == 4 && !tr2_plat_monotonic_ns(&mono)) {
		if (mono >= first_rate_at)
			switch_to_tsc();
		return __atomic_load_n(&wall_offset_ns, __ATOMIC_RELAXED) + mono;
	}
#endif
	if (state == 0) {
		uint64_t wall = tr2_plat_wall_ns();

		/* Racing first readers compute near-identical offsets; any
		 * one of them is as good as another. */
		if (!tr2_plat_monotonic_ns(&mono)) {
			__atomic_store_n(&wall_offset_ns, wall - mono, __ATOMIC_RELAXED);
			__atomic_store_n(&offset_state, 1, __ATOMIC_RELEASE);
		} else
			__atomic_store_n(&offset_state, 2, __ATOMIC_RELEASE);
		return wall;
	}
	return tr2_plat_wall_ns();
}

TR2_HOT uint64_t tr2_now_ns(void)
{
	int state = __atomic_load_n(&offset_state, __ATOMIC_ACQUIRE);
#if TR2_HAVE_TSC_CLOCK
	uint64_t ns;

	if (__builtin_expect(state == 3, 1) && read_fast(&ns))
		return __atomic_load_n(&wall_offset_ns, __ATOMIC_RELAXED) + ns;
#endif
	return now_ns_slow(state);
}

int tr2_clock_is_tsc(void)
{
	return __atomic_load_n(&offset_state, __ATOMIC_ACQUIRE) == 3;
}

uint64_t tr2_clock_offset_ns(void)
{
	return __atomic_load_n(&wall_offset_ns, __ATOMIC_RELAXED);
}

void tr2_clock_capture_start(void)
{
	uint64_t expected = 0;

	__atomic_compare_exchange_n(&tr2_clock_start_us, &expected, tr2_now_us(), 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
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
#if TR2_HAVE_TSC_CLOCK
	tsc_after_fork();
#endif
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

/* localtime_r()'s offset at sec, or the last one known where it may not
 * be called. */
static long gmtoff_at(time_t sec)
{
	long gmtoff = __atomic_load_n(&local_gmtoff, __ATOMIC_RELAXED);

	if (!in_signal_handler && !forked_child && !in_localtime) {
		in_localtime = 1;
		gmtoff = tr2_plat_utc_offset(sec);
		in_localtime = 0;
		__atomic_store_n(&local_gmtoff, gmtoff, __ATOMIC_RELAXED);
		__atomic_store_n(&gmtoff_known, 1, __ATOMIC_RELAXED);
	}
	return gmtoff;
}

long tr2_utc_offset(uint64_t us)
{
	return gmtoff_at((time_t)(us / 1000000));
}

TR2_HOT void tr2_fmt_local_time(struct tr2_time_cache *c, uint64_t us, char *out)
{
	time_t sec = (time_t)(us / 1000000);

	if (c->local_sec != (int64_t)sec) {
		put_hms_of_day(c->local_hms, seconds_of_day((int64_t)sec + gmtoff_at(sec)));
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
