/*
 * slowest_target -- an example libtrace2 target: the slowest regions of
 * the run, one line each, printed at process exit.
 *
 * It keeps the SLOWEST_TARGET_KEEP longest single regions (a region's
 * time is its region_leave record's t_rel_us, so nested regions each
 * count with their own time), with their thread, category and label.  It
 * has no setting: once registered it is on from trace2_initialize() on,
 * and its shutdown callback prints the list on stderr.  For every
 * region's count, total and percentiles, use the library's own stats
 * target (GIT_TRACE2_STATS, docs/targets.md).
 */
#ifndef SLOWEST_TARGET_H
#define SLOWEST_TARGET_H

#include <stdio.h>

/* Regions kept. */
#define SLOWEST_TARGET_KEEP 5
/* Bytes kept of a thread name, a category and a label (cut, no mark). */
#define SLOWEST_TARGET_TEXT_MAX 48

/* Register the "slowest" target, before trace2_initialize(): 0, or
 * -1/errno. */
int slowest_target_register(void);

/* Print the list so far to out, slowest first: 0, or -1. */
int slowest_target_print(FILE *out);

#endif /* SLOWEST_TARGET_H */
