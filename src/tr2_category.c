/*
 * Category filters: the pattern list of trace2.categories and the cache
 * of verdicts (tr2_category.h).  The patterns are set once, at
 * initialize, while no other thread traces; afterwards they are only
 * read.  No allocation at all.
 */
#include "tr2_category.h"
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

/* 1 if the glob pattern ('*' any run, '?' one byte, case-sensitive)
 * matches the whole text. */
static int glob_match(const char *p, const char *t)
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
		if (glob_match(patterns[i].glob, category))
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
/* The verdict cache (tr2_category.h).                                  */

#define PROBES 8

struct tr2_category_slot tr2_category_cache[TR2_CATEGORY_SLOTS];
/* A slot was claimed since the last clearing: clearing a table nothing
 * wrote would fault in its untouched zero pages at every start-up. */
static int cache_written;

/* The verdict of a category seen for the first time, kept in the free
 * slot s unless another thread claimed it first or the name is long. */
static int remember(struct tr2_category_slot *s, const char *category)
{
	int verdict = match(category), free_slot = TR2_CATEGORY_FREE;
	size_t len = strlen(category);

	if (len > TR2_CATEGORY_NAME_MAX ||
	    !__atomic_compare_exchange_n(&s->state, &free_slot, TR2_CATEGORY_FILLING, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return verdict;
	__atomic_store_n(&cache_written, 1, __ATOMIC_RELAXED);
	s->key = category;
	s->verdict = verdict;
	memcpy(s->name, category, len + 1);
	__atomic_store_n(&s->state, TR2_CATEGORY_READY, __ATOMIC_RELEASE);
	return verdict;
}

int tr2_category_verdict_slow(const char *category)
{
	unsigned h, i;

	if (!category)
		return null_verdict;
	h = tr2_category_slot_of(category);
	for (i = 0; i < PROBES; i++) {
		struct tr2_category_slot *s = &tr2_category_cache[(h + i) & (TR2_CATEGORY_SLOTS - 1)];
		int state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);

		if (state == TR2_CATEGORY_READY && s->key == category &&
		    !strcmp(s->name, category))
			return s->verdict;
		if (state == TR2_CATEGORY_FREE)
			return remember(s, category);
	}
	/* a full neighbourhood (or a buffer whose text keeps changing) */
	return match(category);
}

void tr2_category_init(const char *list)
{
	npatterns = 0;
	text_used = 0;
	only_exclusions = 1;
	if (__atomic_load_n(&cache_written, __ATOMIC_RELAXED)) {
		memset(tr2_category_cache, 0, sizeof(tr2_category_cache));
		__atomic_store_n(&cache_written, 0, __ATOMIC_RELAXED);
	}
	if (list)
		tr2_params_for_each_item(list, add_pattern, NULL);
	null_verdict = match("");
	__atomic_store_n(&tr2_category_filtering, npatterns > 0, __ATOMIC_RELAXED);
}
