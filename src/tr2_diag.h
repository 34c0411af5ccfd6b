/*
 * Diagnostics: how every module reports misuse (BUG), bad settings
 * (fatal), warnings and a destination that failed.  Messages go to stderr
 * in Git's format; what else happens (an "error" event, the host's BUG
 * handler, switching a target off, exiting) is up to the one hook the
 * dispatcher installs, so no module below the dispatcher calls it.
 */
#ifndef TR2_DIAG_H
#define TR2_DIAG_H

#include "trace2.h"
#include <stdarg.h>

enum tr2_diag_kind {
	TR2_DIAG_BUG,        /* misuse of the API: the caller does nothing */
	TR2_DIAG_FATAL,      /* a setting Git treats as fatal */
	TR2_DIAG_DST_FAILED, /* a destination failed and is off */
};

/*
 * The hook: kind, where it was raised, the message, and for
 * TR2_DIAG_DST_FAILED the destination (source) and whether to announce
 * it (announce is 0 from a signal handler, and while destination
 * debugging is off: the hook must then only switch things off).
 */
struct tr2_diag {
	enum tr2_diag_kind kind;
	const char *file;
	int line;
	const void *source;
	int announce;
};
typedef void tr2_diag_hook_fn(const struct tr2_diag *d, const char *fmt, va_list ap);
void tr2_diag_set_hook(tr2_diag_hook_fn *hook);
/* What is printed without a hook (a hook may print it too). */
void tr2_diag_print(const struct tr2_diag *d, const char *fmt, va_list ap)
	TRACE2_PRINTF(2, 0);

/*
 * Report an impossible call.  Without a hook: "BUG: <file>:<line>:
 * <message>" on stderr.  Either way it returns, after which the caller
 * must leave without doing anything.
 */
void tr2_bug_fl(const char *file, int line, const char *fmt, ...)
	TRACE2_PRINTF(3, 4);
#define tr2_bug(...) tr2_bug_fl(__FILE__, __LINE__, __VA_ARGS__)

/* A setting Git treats as fatal.  Without a hook: "fatal: <message>". */
void tr2_fatal(const char *fmt, ...) TRACE2_PRINTF(1, 2);

/* A destination failed and is now off (source: the destination). */
void tr2_diag_dst_failed(const void *source, int announce, const char *fmt, ...)
	TRACE2_PRINTF(3, 4);

/* "error: <message>" on stderr, in one write(). */
void tr2_error(const char *fmt, ...) TRACE2_PRINTF(1, 2);
/* "warning: <message>" on stderr, in one write(). */
void tr2_warning(const char *fmt, ...) TRACE2_PRINTF(1, 2);

#endif
