/*
 * The flight recorder (GIT_TRACE2_FLIGHT / trace2.flight, a size per
 * thread; docs/configuration.md, "Flight recorder"): each thread's
 * records go to a ring in memory that overwrites its oldest ones, and
 * nothing is written until a trigger: a non-zero exit code, a fatal
 * signal, a child that exited non-zero, a run longer than
 * GIT_TRACE2_FLIGHT_SLOW milliseconds, or this call.
 *
 * Include after trace2.h.
 */
#ifndef TRACE2_FLIGHT_H
#define TRACE2_FLIGHT_H

#include "../trace2.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Write what the flight recorder holds now through the targets that are
 * async-signal-safe (normal, perf, event, and registered targets that say
 * TRACE2_TARGET_SIGNAL_SAFE), followed by a "trace2" "flight" data record
 * whose value is reason ("dump" for NULL or empty); the rings are then
 * empty and recording goes on, so a later dump writes what came since.
 *
 * Async-signal-safe: a host may call it from its own signal handler.  Any
 * thread.  Returns 0, or -1 when the flight recorder is off or another
 * dump held it longer than the destinations' wait limit.
 */
#ifndef TRACE2_DISABLE
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif
int trace2_flight_dump(const char *reason);
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif
#else
static inline int trace2_flight_dump(const char *reason)
{
	(void)reason;
	return -1;
}
#endif

#ifdef __cplusplus
}
#endif

#endif
