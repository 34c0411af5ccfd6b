/* The parent walk over a snapshot of the system's processes (tr2_plat_ancestry.c). */
#ifndef TR2_PLAT_ANCESTRY_H
#define TR2_PLAT_ANCESTRY_H

#include <stddef.h>

/* One process of a snapshot. */
struct tr2_plat_proc {
	unsigned long pid, ppid;
};

/* The ids the walk visits at most, the process's own among them. */
#define TR2_ANCESTRY_IDS 10
/* Room tr2_plat_ancestry_walk() needs: a name for each id visited but
 * the process's own, the one that ends the walk, and a marker. */
#define TR2_ANCESTRY_MAX (TR2_ANCESTRY_IDS + 1)
/* The markers in its list: the parent links loop, or go on beyond. */
#define TR2_ANCESTRY_CYCLE ((size_t)-1)
#define TR2_ANCESTRY_TRUNCATED ((size_t)-2)
#define TR2_ANCESTRY_CYCLE_NAME "(cycle)"
#define TR2_ANCESTRY_TRUNCATED_NAME "(truncated)"

/*
 * The parents of process self in procs[0..n), nearest first, as indexes
 * into procs, or a marker last; into out (room for TR2_ANCESTRY_MAX).
 * Returns how many it wrote (0: self is not in the snapshot or has no
 * parent in it).
 */
size_t tr2_plat_ancestry_walk(const struct tr2_plat_proc *procs, size_t n,
			      unsigned long self, size_t *out);

#endif
