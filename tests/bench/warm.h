/*
 * warm.h -- the buffered benchmarks' memory warm-up, shared by bench.c and
 * append_scaling.c.
 *
 * On a VM whose free memory goes back to the host (virtio-balloon free
 * page reporting, within seconds), the first touch of such a page costs a
 * host fault: ~4.7 us here, against ~0.2 us per page the host still backs.
 * A buffered run writes 1-4 GB of new page cache per second, so its
 * kernel time depends on what ran in the seconds before it, not on the
 * code measured.  warm_free_memory() touches and frees T2BENCH_WARM_MB
 * MiB (default_mb when unset, 0 = off, at most half the free memory) just
 * before a timed loop, and the page cache then reuses those pages.  One
 * store per page, not MAP_POPULATE: populating took a third of the time,
 * but two buffered threads then scaled 1.53 x in one `make bench` run,
 * against 1.65-1.70 x in three with stores.
 */
#ifndef T2BENCH_WARM_H
#define T2BENCH_WARM_H

#include <stdlib.h>
#include <unistd.h>

static void warm_free_memory(unsigned long default_mb)
{
	const char *v = getenv("T2BENCH_WARM_MB");
	size_t bytes = (size_t)(v && *v ? strtoul(v, NULL, 10) : default_mb) << 20;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;
	size_t half_free = (size_t)sysconf(_SC_AVPHYS_PAGES) / 2 * page;
	volatile char *p;

	if (bytes > half_free)
		bytes = half_free;
	if (!bytes || !(p = malloc(bytes)))
		return;
	for (i = 0; i < bytes; i += page)
		p[i] = 1;
	free((void *)p);
}

#endif
