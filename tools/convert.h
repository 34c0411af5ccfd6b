/* trace2 convert: event-format files to the perf or normal target's text. */
#ifndef T2_CONVERT_H
#define T2_CONVERT_H

int cmd_convert(int argc, char **argv);

#endif
