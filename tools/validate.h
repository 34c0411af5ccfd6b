/* trace2 validate: event logs checked against docs/event-schema.md. */
#ifndef T2_VALIDATE_H
#define T2_VALIDATE_H

#include <stddef.h>

int cmd_validate(int argc, char **argv);

/* validate's checks on connected streams, served as --listen serves its
 * clients, reports on standard output (the fuzzer's way in); max_line:
 * the reader's line limit, 0 for T2_LINE_MAX.  Returns the errors found. */
unsigned long validate_streams(const int *fds, size_t nfds, size_t max_line);

#endif
