/*
 * Category filters: the pattern list of trace2.categories and the cache
 * of verdicts.  The patterns are set once, at initialize, while no other
 * thread traces; afterwards they are only read.  The cache is a fixed
 * table searched without a lock: a slot is claimed once (free -> being
 * filled -> ready), filled, then published with a release store, and
 * never changes again until the next initialize, so a reader that sees
 * it ready sees all of it.  No allocation at all.
 */
#include "tr2_category.h"
#include "tr2_hot.h"
#include "tr2_params.h"

#include <stdint.h>
#include <string.h>

#define PATTERNS_MAX 64
#define PATTERN_TEXT_MAX 4096

struct pattern {
	const char *glob;
	int exclude;
};

static char pattern_text[PATTERN_TEXT_MAX]; /* the globs, NUL-separated */
static size_t text_used;
static struct pattern patterns[PATTERNS_MAX];
static int npatterns;
static int only_exclusions; /* what a category no pattern matches gets */
static int null_verdict;    /* NULL's (and ""'s) verdict */

int tr2_category_filtering;

/* ---------------------------------------------------------------- */
/* Patterns.                                                          */

int tr2_category_glob(const char *p, const char *t)
{
	const char *star = NULL, *resume = NULL;

	while (*t) {
		if (*p == '*') {
			star = ++p;
			resume = t;
		} else if (*p && (*p == '?' || *p == *t)) {
			p++;
			t++;
		} else if (star) {
			/* let the last '*' take one more byte */
			p = star;
			t = ++resume;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

/* The last pattern that matches decides. */
static int match(const char *category)
{
	int i;

	for (i = npatterns - 1; i >= 0; i--)
		if (tr2_category_glob(patterns[i].glob, category))
			return !patterns[i].exclude;
	return only_exclusions;
}

/* One item of the list; empty items are skipped, and so is what does not
 * fit the fixed tables. */
static int add_pattern(const char *item, void *data)
{
	struct pattern *p = &patterns[npatterns];
	size_t len;

	(void)data;
	if (!*item || npatterns == PATTERNS_MAX)
		return 0;
	p->exclude = *item == '-';
	item += p->exclude;
	len = strlen(item) + 1;
	if (len > sizeof(pattern_text) - text_used)
		return 0;
	p->glob = memcpy(pattern_text + text_used, item, len);
	text_used += len;
	only_exclusions &= p->exclude;
	npatterns++;
	return 0;
}

/* ---------------------------------------------------------------- */
/* The verdict cache, keyed by the caller's pointer, checked by text.   */

#define SLOTS 256 /* a power of 2 */
#define PROBES 8
#define NAME_MAX_CACHED 31

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY };

struct slot {
	int state; /* atomic */
	int verdict;
	const char *key;
	char name[NAME_MAX_CACHED + 1];
};

static struct slot cache[SLOTS];

static inline unsigned slot_of(const char *key)
{
	uint64_t x = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;

	return (unsigned)(x >> 56) & (SLOTS - 1);
}

/* The verdict of a category seen for the first time, kept in the free
 * slot s unless another thread claimed it first or the name is long. */
static int remember(struct slot *s, const char *category)
{
	int verdict = match(category), free_slot = SLOT_FREE;
	size_t len = strlen(category);

	if (len > NAME_MAX_CACHED ||
	    !__atomic_compare_exchange_n(&s->state, &free_slot, SLOT_FILLING, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return verdict;
	s->key = category;
	s->verdict = verdict;
	memcpy(s->name, category, len + 1);
	__atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE);
	return verdict;
}

/* The probes after the first, the first sight of a category, NULL. */
static __attribute__((noinline)) int verdict_slow(const char *category)
{
	unsigned h, i;

	if (!category)
		return null_verdict;
	h = slot_of(category);
	for (i = 0; i < PROBES; i++) {
		struct slot *s = &cache[(h + i) & (SLOTS - 1)];
		int state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);

		if (state == SLOT_READY && s->key == category && !strcmp(s->name, category))
			return s->verdict;
		if (state == SLOT_FREE)
			return remember(s, category);
	}
	/* a full neighbourhood (or a buffer whose text keeps changing) */
	return match(category);
}

/* The hot case: a category seen before, in its first slot. */
TR2_HOT int tr2_category_verdict(const char *category)
{
	const struct slot *s = &cache[slot_of(category)];

	if (category && __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == SLOT_READY &&
	    s->key == category && !strcmp(s->name, category))
		return s->verdict;
	return verdict_slow(category);
}

void tr2_category_init(const char *list)
{
	npatterns = 0;
	text_used = 0;
	only_exclusions = 1;
	memset(cache, 0, sizeof(cache));
	if (list)
		tr2_params_for_each_item(list, add_pattern, NULL);
	null_verdict = match("");
	__atomic_store_n(&tr2_category_filtering, npatterns > 0, __ATOMIC_RELAXED);
}
