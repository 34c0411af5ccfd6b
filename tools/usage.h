/* trace2's help texts. */
#ifndef T2_USAGE_H
#define T2_USAGE_H

#include "trace2.h"

/* Print the manual of a subcommand (NULL: the command's) to stdout;
 * returns code, or 2 for an unknown subcommand. */
int usage_show(const char *cmd, int code);
/* "trace2 <cmd>: <message>" and the synopsis on stderr; returns 2. */
int usage_error(const char *cmd, const char *fmt, ...) TRACE2_PRINTF(2, 3);
/* The value of the option NAME at argv[*i], given as "NAME VALUE" (then
 * *i is VALUE's index) or "NAME=VALUE"; "" when VALUE is missing; NULL
 * when argv[*i] is another option. */
const char *usage_option(int argc, char **argv, int *i, const char *name);
/* Whether name is a subcommand. */
int usage_known(const char *name);

#endif
