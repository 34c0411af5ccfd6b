/* Session ids: "<parent sid>/<UTC time>-H<host hash>-P<pid>". */
#ifndef TR2_SID_H
#define TR2_SID_H

#include <stddef.h>

#include "trace2/target.h"

/* The SID, computed (and exported as GIT_TRACE2_PARENT_SID) on first use. */
const char *tr2_sid_get(void);
/* The SID and what records show of the process (computed on first use). */
const struct trace2_process *tr2_sid_process(void);
/* Number of traced ancestors: the '/' count of the full SID. */
int tr2_sid_depth(void);
/* Re-initialise the lock in a forked child. */
void tr2_sid_after_fork(void);
/* Forget the SID (atexit); a later use computes a new one. */
void tr2_sid_release(void);

/* The first 4 bytes of the SHA-1 of data as 8 lowercase hex digits. */
void tr2_sha1_hex8(const void *data, size_t len, char out[8]);

#endif
