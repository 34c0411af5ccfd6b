/*
 * Memory for the trace2 command: every allocation that must not fail.
 * Out of memory, the command stops at once with "trace2: out of memory"
 * on standard error and exit status 2 (docs/tools.md, "Output").
 */
#ifndef T2_ALLOC_H
#define T2_ALLOC_H

#include <stddef.h>

_Noreturn void t2_out_of_memory(void);
/* realloc(), n bytes (at least 1). */
void *t2_realloc(void *p, size_t n);
/* n zeroed items of size each (at least 1 byte). */
void *t2_calloc(size_t n, size_t size);
/* The n bytes at s and a NUL. */
char *t2_memdup(const char *s, size_t n);
char *t2_strdup(const char *s);

#endif
