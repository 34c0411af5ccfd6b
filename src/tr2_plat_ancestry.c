/*
 * The parent walk of Git for Windows' cmd_ancestry, over a snapshot of
 * the system's processes: portable, so that its rules are tested on
 * every platform (tests/process/test_ancestry_walk.c).
 *
 * From the process itself, each step finds the entry of the current id
 * and moves to its parent.  Every entry found after the first is a
 * parent and named, the one that repeats an id too; the ids visited
 * (the process's own first) are kept: a repeated one ends the list with
 * "(cycle)", an entry found once TR2_ANCESTRY_IDS are kept ends it with
 * "(truncated)".  An id not in the snapshot (its process has exited)
 * ends the walk quietly.
 */
#include "tr2_plat_ancestry.h"

static const struct tr2_plat_proc *find(const struct tr2_plat_proc *procs, size_t n,
					unsigned long pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

static int seen(const unsigned long *ids, size_t nids, unsigned long pid)
{
	size_t i;

	for (i = 0; i < nids; i++)
		if (ids[i] == pid)
			return 1;
	return 0;
}

size_t tr2_plat_ancestry_walk(const struct tr2_plat_proc *procs, size_t n,
			      unsigned long self, size_t *out)
{
	unsigned long ids[TR2_ANCESTRY_IDS], pid = self;
	const struct tr2_plat_proc *p;
	size_t nids = 0, len = 0;

	while ((p = find(procs, n, pid))) {
		if (nids)
			out[len++] = (size_t)(p - procs);
		if (seen(ids, nids, pid)) {
			out[len++] = TR2_ANCESTRY_CYCLE;
			break;
		}
		if (nids == TR2_ANCESTRY_IDS) {
			out[len++] = TR2_ANCESTRY_TRUNCATED;
			break;
		}
		ids[nids++] = pid;
		pid = p->ppid;
	}
	return len;
}
