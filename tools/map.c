#include "map.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

/* The first slot to look at: the key's bits mixed, as a caller's
 * numbers differ in their high or low bits only. */
static size_t first_slot(uint64_t k, size_t size)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (size - 1);
}

static struct t2_map_slot *find(const struct t2_map *m, uint64_t key)
{
	size_t i;

	for (i = first_slot(key, m->size); m->slot[i].used; i = (i + 1) & (m->size - 1))
		if (m->slot[i].key == key)
			break;
	return &m->slot[i];
}

static void grow(struct t2_map *m)
{
	struct t2_map bigger = { NULL, m->size ? 2 * m->size : 64, m->n };
	size_t i;

	if (bigger.size > SIZE_MAX / 2 / sizeof(*bigger.slot))
		t2_out_of_memory();
	bigger.slot = t2_calloc(bigger.size, sizeof(*bigger.slot));
	for (i = 0; i < m->size; i++)
		if (m->slot[i].used)
			*find(&bigger, m->slot[i].key) = m->slot[i];
	free(m->slot);
	*m = bigger;
}

union t2_map_val *t2_map_at(struct t2_map *m, uint64_t key, int create)
{
	struct t2_map_slot *s;

	if (create && 2 * (m->n + 1) > m->size)
		grow(m);
	if (!m->size)
		return NULL;
	s = find(m, key);
	if (!s->used) {
		if (!create)
			return NULL;
		s->used = 1;
		s->key = key;
		m->n++;
	}
	return &s->val;
}

void t2_map_free(struct t2_map *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}
