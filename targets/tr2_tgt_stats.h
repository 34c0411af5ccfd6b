/*
 * The STATS target (GIT_TRACE2_STATS): region times summed up in memory,
 * per category and label, per thread and in total, written as one table
 * (or one JSON line) at exit (docs/targets.md, "Stats").
 * ctx: a struct tr2_tgt_stats.
 */
#ifndef TR2_TGT_STATS_H
#define TR2_TGT_STATS_H

#include "tr2_plat.h"

#include "tr2_tgt.h"

/* Keys (category, label) one thread's table holds; the leaves of any
 * further key go to its "(other)" row.  The total has as many. */
#define TR2_STATS_ROWS 128
/* Threads that ended and keep a section of their own; the tables of
 * threads ending after them are added up in one section and reused. */
#define TR2_STATS_THREADS 64
/* Bytes kept of a category, a label and a thread name (longer ones are
 * cut on a UTF-8 boundary; keys are still told apart by all their bytes). */
#define TR2_STATS_CAT_MAX 48
#define TR2_STATS_LABEL_MAX 96
#define TR2_STATS_THREAD_MAX 64
/*
 * The histogram: times below 32 us have a bucket each; above, each power
 * of two is cut in 16 buckets of equal width, so a bucket is at most 1/16
 * of the times it holds wide, and its middle, the estimate of a
 * percentile, is within 1/32 of any of them.  Times from 2^40 us (12.7
 * days) on share the last bucket.
 */
#define TR2_STATS_SUB_BITS 4
#define TR2_STATS_TOP_BIT 39
#define TR2_STATS_BUCKETS (((TR2_STATS_TOP_BIT - TR2_STATS_SUB_BITS + 2) << TR2_STATS_SUB_BITS))
/* Slots of a thread's cache from (category, label) pointers to rows. */
#define TR2_STATS_CACHE_BITS 8

/* One key's numbers.  Written only by the thread whose table holds it
 * (relaxed atomics: the exit report reads them while threads run on). */
struct tr2_stats_row {
	uint64_t count, total_us, min_us, max_us;
	uint64_t hash;     /* of the whole category and label */
	unsigned cut;      /* TR2_STATS_CUT_*: a part is longer than kept */
	char category[TR2_STATS_CAT_MAX];
	char label[TR2_STATS_LABEL_MAX];
	uint64_t buckets[TR2_STATS_BUCKETS];
};
#define TR2_STATS_CUT_CATEGORY 1
#define TR2_STATS_CUT_LABEL 2

/* A cache slot: the last pointers seen for a row (checked by content). */
struct tr2_stats_slot {
	const char *category, *label;
	struct tr2_stats_row *row;
};

/* The states of a thread's table. */
enum {
	TR2_STATS_FREE,   /* for any thread to take */
	TR2_STATS_LIVE,   /* its thread's */
	TR2_STATS_ENDED,  /* its thread ended: its own section */
};

/* One traced thread's numbers: taken at the thread's first region leave,
 * written by it alone, its rows allocated as keys come and kept when the
 * table is reused. */
struct tr2_stats_table {
	struct tr2_stats_table *next; /* the list never shrinks */
	const void *owner;            /* the ctx that handed it out */
	unsigned gen;                 /* atomic: the open() it belongs to */
	int state;                    /* atomic: TR2_STATS_* */
	int tid;                      /* atomic */
	char thread[TR2_STATS_THREAD_MAX];
	size_t nr;                    /* atomic: rows in use */
	struct tr2_stats_row *rows[TR2_STATS_ROWS];
	struct tr2_stats_row other;   /* keys past the rows */
	struct tr2_stats_slot cache[1 << TR2_STATS_CACHE_BITS];
};

struct tr2_tgt_stats {
	struct tr2_tgt_state base;
	struct trace2_output *output;
	int json;            /* GIT_TRACE2_STATS_FORMAT=json */
	int replay;          /* deferred mode: tables go by the record's thread */
	unsigned gen;
	int closed;          /* atomic: the report is written */
	struct tr2_stats_table *tables; /* atomic head */
	tr2_mutex lock; /* ended threads, the report */
	int ended;           /* ended threads with a section of their own */
	unsigned long folded_threads; /* added up in folded */
	struct tr2_stats_table *folded;
	char sid[128];       /* from the version record; cut */
};

extern const struct trace2_target tr2_tgt_stats;

#endif
