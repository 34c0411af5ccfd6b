/* Process information: the names of the parent processes (tr2_plat_parent()). */
#ifndef TR2_PROCINFO_H
#define TR2_PROCINFO_H

/* fn(names, ctx) with the parents' names, nearest first, if any is known. */
typedef void tr2_ancestry_fn(const char **names, void *ctx);
void tr2_procinfo_ancestry(tr2_ancestry_fn *fn, void *ctx);

#endif
