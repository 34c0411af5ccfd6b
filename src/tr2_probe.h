/*
 * The library's USDT probes, provider "trace2" (docs/probes.md), and the
 * listener word whose high half is their one semaphore.  The dispatcher
 * hands every record it builds to tr2_probe_event(), which fires the
 * record's probe while a tracer is attached and costs a load and a branch
 * otherwise.
 */
#ifndef TR2_PROBE_H
#define TR2_PROBE_H

#include "tr2_plat.h"

#include "trace2.h"
#include "trace2/target.h"

#include <stdint.h>

/* trace2_listener_mask under a name only the library sees: in
 * libtrace2.so, the library's own copy of the word, which is where a
 * tracer counts itself even when the program's copy relocation gave the
 * macros another one. */
extern unsigned int tr2_probe_word TR2_HIDDEN;

/* The word's half that counts the tracers attached to a library probe. */
#define TR2_PROBE_SEMAPHORE_BITS 0xffff0000u

static inline int tr2_probe_attached(void)
{
	return __builtin_expect(!!(__atomic_load_n(&tr2_probe_word, __ATOMIC_RELAXED) &
				   TR2_PROBE_SEMAPHORE_BITS), 0);
}

void tr2_probe_fire(const struct trace2_event *ev);
void tr2_probe_fire_data_intmax(const char *category, const char *key, intmax_t value);
void tr2_probe_forget_copy(void);

/* The probe of a record, while a tracer is attached; a semaphore that only
 * the program's copy of the word still holds is cleared. */
static inline void tr2_probe_event(const struct trace2_event *ev)
{
	if (tr2_probe_attached())
		tr2_probe_fire(ev);
	else if (__builtin_expect(!!(TRACE2_LOAD_RELAXED(&trace2_listener_mask) &
				     TR2_PROBE_SEMAPHORE_BITS), 0))
		tr2_probe_forget_copy();
}

/* The data_intmax probe (the record carries the value as text only). */
static inline void tr2_probe_data_intmax(const char *category, const char *key,
					 intmax_t value)
{
	if (tr2_probe_attached())
		tr2_probe_fire_data_intmax(category, key, value);
}

#endif
