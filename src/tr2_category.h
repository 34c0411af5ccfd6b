/*
 * Category filters (trace2.categories, GIT_TRACE2_CATEGORIES): which
 * categories' region, data, timer and counter events are written.  The
 * patterns are read once, at initialize; verdicts are cached in a table
 * that readers search without a lock and that is never allocated.
 */
#ifndef TR2_CATEGORY_H
#define TR2_CATEGORY_H

#include <stdint.h>
#include <string.h>

/* Set when a pattern list is in force; read by tr2_category_pass(). */
extern int tr2_category_filtering;

/* Read the pattern list (NULL or one without patterns: no filtering) and
 * forget every cached verdict.  Called by initialize before tracing is
 * on, while no other thread traces. */
void tr2_category_init(const char *patterns);

/*
 * The verdict cache, keyed by the caller's pointer and checked by text.
 * A slot is claimed once (free -> being filled -> ready), filled, then
 * published with a release store, and does not change again until the
 * next initialize: a reader that sees it ready sees all of it.
 */
#define TR2_CATEGORY_SLOTS 256 /* a power of 2 */
#define TR2_CATEGORY_NAME_MAX 31

enum { TR2_CATEGORY_FREE, TR2_CATEGORY_FILLING, TR2_CATEGORY_READY };

struct tr2_category_slot {
	int state; /* atomic */
	int verdict;
	const char *key;
	char name[TR2_CATEGORY_NAME_MAX + 1];
};

extern struct tr2_category_slot tr2_category_cache[TR2_CATEGORY_SLOTS];

static inline unsigned tr2_category_slot_of(const char *key)
{
	uint64_t x = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;

	return (unsigned)(x >> 56) & (TR2_CATEGORY_SLOTS - 1);
}

/* What the first slot does not answer: NULL, a category seen for the
 * first time, or one in a later slot. */
int tr2_category_verdict_slow(const char *category);

/* 1 if the category's events pass the patterns (NULL counts as ""); the
 * hot case, a category seen before, in its first slot, inline. */
static inline int tr2_category_verdict(const char *category)
{
	const struct tr2_category_slot *s = &tr2_category_cache[tr2_category_slot_of(category)];

	if (category && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TR2_CATEGORY_READY &&
	    s->key == category && !strcmp(s->name, category))
		return s->verdict;
	return tr2_category_verdict_slow(category);
}

/* 1 if the category's events are written: always without patterns. */
static inline int tr2_category_pass(const char *category)
{
	return !__atomic_load_n(&tr2_category_filtering, __ATOMIC_RELAXED) ||
	       tr2_category_verdict(category);
}

#endif
