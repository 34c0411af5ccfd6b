/*
 * stats_target -- an example libtrace2 target that keeps region time
 * statistics in memory and prints them as a table at process exit.
 *
 * Per category/label of regions it keeps the count, total, minimum,
 * maximum and mean time (each region_leave record's t_rel_us, so nested
 * regions are each counted with their own time; a region still open
 * when its thread ends or the process exits is not counted).  It has no
 * setting: once registered it is on from trace2_initialize() on, and its
 * shutdown callback prints the table to stderr.  Memory is bounded:
 * STATS_TARGET_ROWS rows; region leaves of any further key are added up
 * in one "(other)" row, and the table says so.
 */
#ifndef STATS_TARGET_H
#define STATS_TARGET_H

#include <stdio.h>

/* Rows the table holds; leaves of keys beyond them go to "(other)". */
#define STATS_TARGET_ROWS 64
/* Bytes kept of a category and of a label; longer ones are cut and
 * shown with "..." (keys are told apart by a hash of the whole text). */
#define STATS_TARGET_CATEGORY_MAX 31
#define STATS_TARGET_LABEL_MAX 63

/* Register the "stats" target, before trace2_initialize(): 0, or -1/errno. */
int stats_target_register(void);

/* Print the table so far to out, by total time descending: 0, or -1. */
int stats_target_print(FILE *out);

#endif /* STATS_TARGET_H */
