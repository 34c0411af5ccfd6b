/* Diagnostics: BUG (API misuse), fatal (bad settings), warnings. */
#ifndef TR2_BUG_H
#define TR2_BUG_H

#include <stdarg.h>

/*
 * Report an impossible call (misuse of the API) through the host's BUG
 * handler (trace2_set_bug_handler()); the default prints
 * "BUG: <file>:<line>: <message>" to stderr, emits an "error" event and
 * returns, after which the caller must leave without doing anything.
 */
void tr2_bug_fl(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define tr2_bug(...) tr2_bug_fl(__FILE__, __LINE__, __VA_ARGS__)

/*
 * A setting Git treats as fatal: "fatal: <message>" on stderr and an
 * "error" event; then carry on (the setting is ignored), or exit with the
 * code the host chose (trace2_set_fatal_exit_code()), as Git does.
 */
void tr2_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "<prefix><message>" on stderr, in one write(). */
void tr2_vreport(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* "error: <message>" on stderr, in one write(). */
void tr2_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "warning: <message>" on stderr, in one write(). */
void tr2_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
