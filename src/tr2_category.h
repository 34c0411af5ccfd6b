/*
 * Category filters (trace2.categories, GIT_TRACE2_CATEGORIES): which
 * categories' region, data, timer and counter events are written.  The
 * patterns are read once, at initialize; verdicts are cached in a table
 * that readers search without a lock.
 */
#ifndef TR2_CATEGORY_H
#define TR2_CATEGORY_H

/* Set when a pattern list is in force; read by tr2_category_pass(). */
extern int tr2_category_filtering;

/* Read the pattern list (NULL or one without patterns: no filtering) and
 * forget every cached verdict.  Called by initialize before tracing is
 * on, while no other thread traces. */
void tr2_category_init(const char *patterns);

/* 1 if the category's events pass the patterns (NULL counts as ""). */
int tr2_category_verdict(const char *category);

/* 1 if the category's events are written: always without patterns. */
static inline int tr2_category_pass(const char *category)
{
	return !__atomic_load_n(&tr2_category_filtering, __ATOMIC_RELAXED) ||
	       tr2_category_verdict(category);
}

/* 1 if the glob pattern ('*' any run, '?' one byte, case-sensitive)
 * matches the whole text. */
int tr2_category_glob(const char *pattern, const char *text);

#endif
