/*
 * TR2_HOT marks the functions every traced event runs through.  After a
 * system call, each code page the program runs through costs ~10 cycles
 * more than before it (docs/internals.md, "Few pages per event"), so
 * these functions are packed together: they go to sections the linker
 * gathers after .text.hot and sorts by name (".text.sorted.*", GNU ld
 * 2.36 and later; other linkers put them in .text, which is only slower).
 * The shared path comes first, then each target's block, so an event
 * runs through the shared block and the blocks of the targets that are
 * on, not through the code of the others.
 */
#ifndef TR2_HOT_H
#define TR2_HOT_H

#define TR2_HOT_IN(block) __attribute__((hot, section(".text.sorted.tr2_" block)))
#define TR2_HOT TR2_HOT_IN("0")

/* Constant tables every event reads: beside the targets' function tables
 * (read-only once the program has started), not on a page of their own. */
#define TR2_HOT_TABLE __attribute__((section(".data.rel.ro.tr2_hot")))

#endif
