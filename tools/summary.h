/* trace2 summary: the process tree, region statistics, timers and
 * counters of event logs (see docs/tools.md). */
#ifndef T2_SUMMARY_H
#define T2_SUMMARY_H

int cmd_summary(int argc, char **argv);

#endif
