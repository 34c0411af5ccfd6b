/*
 * The dispatcher (trace2.c): the public trace2_*() entry points, and
 * the target registry (tr2_registry.c).  Each entry point checks the
 * enabled flag, builds one event record (one clock reading), updates the
 * calling thread's state and hands the record to every target that is
 * on.  Only the dispatcher calls the targets; the modules below it report back through the
 * diagnostics hook (tr2_diag.h) it installs.
 */
#ifndef TR2_DISPATCH_H
#define TR2_DISPATCH_H

#include "trace2.h"

static inline int tr2_enabled(void)
{
	return TRACE2_ACTIVE();
}

#endif
