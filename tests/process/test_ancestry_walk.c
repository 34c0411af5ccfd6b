/*
 * The parent walk of Windows' cmd_ancestry (src/tr2_plat_ancestry.c)
 * over made-up process snapshots.  The rules, as docs/embedding.md's
 * "Windows: process information" says them: from the process itself,
 * each step finds the entry of the current id and moves to its parent
 * id; each parent found is named (the process itself is not); the ids
 * visited, its own first, are kept: an id that repeats adds "(cycle)"
 * and ends the list, a parent found when 10 ids are kept adds
 * "(truncated)" (so at most 10 names), an id missing from the snapshot
 * ends it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tr2_plat_ancestry.h"

struct entry {
	unsigned long pid, ppid;
	const char *name;
};

#define MAX_ENTRIES 32

/* The walk from self over entries[0..n), its names joined by blanks. */
static void expect_walk(const struct entry *entries, size_t n, unsigned long self,
			const char *want)
{
	struct tr2_plat_proc procs[MAX_ENTRIES];
	size_t out[TR2_ANCESTRY_MAX], len, i;
	char got[1024] = "";

	assert_true(n <= MAX_ENTRIES);
	for (i = 0; i < n; i++) {
		procs[i].pid = entries[i].pid;
		procs[i].ppid = entries[i].ppid;
	}
	len = tr2_plat_ancestry_walk(procs, n, self, out);
	assert_true(len <= TR2_ANCESTRY_MAX);
	for (i = 0; i < len; i++) {
		const char *name = out[i] == TR2_ANCESTRY_CYCLE ? TR2_ANCESTRY_CYCLE_NAME :
				   out[i] == TR2_ANCESTRY_TRUNCATED ? TR2_ANCESTRY_TRUNCATED_NAME :
				   entries[out[i]].name;

		if (out[i] == TR2_ANCESTRY_CYCLE || out[i] == TR2_ANCESTRY_TRUNCATED)
			assert_int_equal(i, len - 1); /* a marker is last */
		else
			assert_true(out[i] < n);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? " " : "", name);
	}
	assert_string_equal(got, want);
}

/* A line of parents from pid 1 (the process, "self.exe") to pid count:
 * pid k's parent is k + 1, named "pk.exe"; the last one's parent, 999,
 * is not in the snapshot. */
static size_t line_of(struct entry *e, size_t count)
{
	static char names[MAX_ENTRIES][24];
	size_t k;

	for (k = 1; k <= count; k++) {
		snprintf(names[k - 1], sizeof(names[k - 1]), "p%zu.exe", k - 1);
		e[k - 1].pid = k;
		e[k - 1].ppid = k == count ? 999 : k + 1;
		e[k - 1].name = k == 1 ? "self.exe" : names[k - 1];
	}
	return count;
}

static void chain_nearest_first(void **state)
{
	/* In snapshot order unrelated to the walk, with bystanders. */
	static const struct entry e[] = {
		{ 300, 4, "explorer.exe" }, { 7, 0, "idle" }, { 100, 200, "git.exe" },
		{ 555, 300, "other.exe" }, { 200, 300, "bash.exe" },
	};

	(void)state;
	expect_walk(e, 5, 100, "bash.exe explorer.exe");
	expect_walk(e, 5, 200, "explorer.exe");
}

static void nothing_known(void **state)
{
	static const struct entry e[] = { { 100, 200, "git.exe" }, { 5, 6, "x.exe" } };

	(void)state;
	expect_walk(e, 0, 100, "");	 /* an empty snapshot */
	expect_walk(e, 2, 42, "");	 /* the process is not in it */
	expect_walk(e, 2, 100, "");	 /* its parent has exited */
}

static void missing_parent_ends_the_list(void **state)
{
	static const struct entry e[] = {
		{ 10, 20, "a.exe" }, { 20, 30, "b.exe" }, { 40, 50, "d.exe" },
	};

	(void)state;
	/* 30 has exited: d.exe, further up under another id, is not reached. */
	expect_walk(e, 3, 10, "b.exe");
}

static void cycle(void **state)
{
	/* 1 -> 2 -> 3 -> 2: the repeated parent is named, then the marker. */
	static const struct entry e[] = {
		{ 1, 2, "self.exe" }, { 2, 3, "a.exe" }, { 3, 2, "b.exe" },
	};

	(void)state;
	expect_walk(e, 3, 1, "a.exe b.exe a.exe (cycle)");
}

static void parent_its_own_parent(void **state)
{
	/* Windows' idle process has id 0 and parent 0. */
	static const struct entry e[] = {
		{ 1, 4, "self.exe" }, { 4, 0, "System" }, { 0, 0, "[System Process]" },
	};

	(void)state;
	expect_walk(e, 3, 1, "System [System Process] [System Process] (cycle)");
}

static void nine_parents_fit(void **state)
{
	struct entry e[MAX_ENTRIES];
	size_t n = line_of(e, 10);

	(void)state;
	/* 10 ids visited (the process and 9 parents), then 999 is missing. */
	expect_walk(e, n, 1, "p1.exe p2.exe p3.exe p4.exe p5.exe p6.exe p7.exe p8.exe p9.exe");
}

static void tenth_parent_truncates(void **state)
{
	/* The 10th parent is found with 10 ids kept: named, then the
	 * marker, whether or not anything is beyond it. */
	static const size_t lines[] = { 11, 12, 20 };
	struct entry e[MAX_ENTRIES];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		expect_walk(e, line_of(e, lines[i]), 1,
			    "p1.exe p2.exe p3.exe p4.exe p5.exe p6.exe p7.exe p8.exe p9.exe "
			    "p10.exe (truncated)");
}

static void cycle_at_the_limit(void **state)
{
	struct entry e[MAX_ENTRIES];
	size_t n = line_of(e, 10);

	(void)state;
	/* p9's parent is p1: the 10th parent repeats an id: a cycle. */
	e[9].ppid = 2;
	expect_walk(e, n, 1,
		    "p1.exe p2.exe p3.exe p4.exe p5.exe p6.exe p7.exe p8.exe p9.exe p1.exe "
		    "(cycle)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chain_nearest_first),
		cmocka_unit_test(nothing_known),
		cmocka_unit_test(missing_parent_ends_the_list),
		cmocka_unit_test(cycle),
		cmocka_unit_test(parent_its_own_parent),
		cmocka_unit_test(nine_parents_fit),
		cmocka_unit_test(tenth_parent_truncates),
		cmocka_unit_test(cycle_at_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
