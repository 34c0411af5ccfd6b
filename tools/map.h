/*
 * The trace2 command's hash map: 64-bit keys to one word each, open
 * addressing, doubled when half full.  A key is a number of the caller's
 * (an id, a pair of them) or a hash whose collisions the caller tells
 * apart in the list its word heads.
 */
#ifndef T2_MAP_H
#define T2_MAP_H

#include <stddef.h>
#include <stdint.h>

union t2_map_val {
	void *p;  /* the head of a list */
	size_t n; /* a number */
};

struct t2_map_slot {
	uint64_t key;
	union t2_map_val val;
	int used;
};

struct t2_map {
	struct t2_map_slot *slot; /* size of them, NULL while empty */
	size_t size, n;
};

/* The word of key: a new key's is zero (its p NULL) when create, else
 * NULL when the key is not there. */
union t2_map_val *t2_map_at(struct t2_map *m, uint64_t key, int create);
void t2_map_free(struct t2_map *m);

#endif
