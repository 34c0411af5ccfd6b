/* trace2 summary: the process tree, region statistics, timers and
 * counters of event logs (see docs/tools.md). */
#ifndef T2_SUMMARY_H
#define T2_SUMMARY_H

#include <stdio.h>

#include "reader.h"

int cmd_summary(int argc, char **argv);

/*
 * The summary of what a reader reads: t2_summary_new() initializes r with
 * its callbacks (quiet: no messages on stderr for skipped lines); read
 * with r, then t2_summary_write() prints the summary (json: as JSON; top:
 * the number of region rows, -1 for all) and frees it; then
 * t2_reader_free(r).  Returns 0, or -1 when writing to f failed.
 */
struct t2_summary;
struct t2_summary *t2_summary_new(struct t2_reader *r, int quiet);
int t2_summary_write(struct t2_summary *s, FILE *f, int json, long top);

#endif
