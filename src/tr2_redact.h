/* URL password redaction (GIT_TRACE2_REDACT). */
#ifndef TR2_REDACT_H
#define TR2_REDACT_H

#include "tr2_buf.h"

/* Read GIT_TRACE2_REDACT (an invalid value is fatal, as in Git). */
void tr2_redact_init(void);

/*
 * *out = s, or its copy with every URL password replaced by <REDACTED>,
 * made in room (tr2_buf_init()ed by the caller, released after the
 * record): on its stack, on the heap only for a huge string.  -1 when
 * memory ran out: the caller must then not trace s at all (redaction
 * fails closed, and a string is never cut).
 */
int tr2_redact_str(struct tr2_buf *room, const char *s, const char **out);

/* Pointers of a redacted argv that fit on the caller's stack. */
#define TR2_REDACT_ARGV_STACK 16

/* Room for one argv's redacted copy (tr2_redacted_argv_init()). */
struct tr2_redacted_argv {
	struct tr2_buf text;  /* the redacted arguments, each NUL-ended */
	const char **argv;    /* stack or heap */
	const char *stack[TR2_REDACT_ARGV_STACK];
};

void tr2_redacted_argv_init(struct tr2_redacted_argv *r);
void tr2_redacted_argv_release(struct tr2_redacted_argv *r);
/* The same as tr2_redact_str() for every argument of argv (NULL: none),
 * in r. */
int tr2_redact_argv(struct tr2_redacted_argv *r, const char *const *argv,
		    const char *const **out);

#endif
