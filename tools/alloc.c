#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void t2_out_of_memory(void)
{
	fputs("trace2: out of memory\n", stderr);
	exit(2);
}

void *t2_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		t2_out_of_memory();
	return p;
}

void *t2_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		t2_out_of_memory();
	return p;
}

char *t2_memdup(const char *s, size_t n)
{
	char *p = t2_realloc(NULL, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *t2_strdup(const char *s)
{
	return t2_memdup(s, strlen(s));
}
