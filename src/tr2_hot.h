/*
 * TR2_HOT marks the functions every traced event runs through.  The
 * compiler puts them in .text.hot, which the linker gathers in one place.
 * Where the kernel flushes the TLB at every system call (PTI without
 * PCID), each code page an event touches after its write() costs a page
 * walk: gathered, the hot path spans two pages instead of ten.
 */
#ifndef TR2_HOT_H
#define TR2_HOT_H

#define TR2_HOT __attribute__((hot))

#endif
