/*
 * The trace2 command's hash map (tools/map.c): every key put in is found
 * with its word, across the map's growth, and no key that was not put
 * in is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "map.h"

/* Keys that differ only in their high bits, only in their low bits, and
 * 0 (which is a key like any other). */
static uint64_t key_of(size_t i)
{
	return i % 2 ? (uint64_t)i << 32 : (uint64_t)i;
}

static void keys_and_words(void **state)
{
	struct t2_map m = { NULL, 0, 0 };
	size_t i, n = 10000;

	(void)state;
	assert_null(t2_map_at(&m, 0, 0)); /* empty */
	for (i = 0; i < n; i++) {
		union t2_map_val *v = t2_map_at(&m, key_of(i), 1);

		assert_int_equal(v->n, 0);
		v->n = i + 1;
	}
	assert_int_equal(m.n, n);
	for (i = 0; i < n; i++) {
		union t2_map_val *v = t2_map_at(&m, key_of(i), 0);

		assert_non_null(v);
		assert_int_equal(v->n, i + 1);
		assert_ptr_equal(t2_map_at(&m, key_of(i), 1), v); /* not added again */
	}
	assert_int_equal(m.n, n);
	assert_null(t2_map_at(&m, (uint64_t)n << 32 | 1, 0));
	assert_null(t2_map_at(&m, UINT64_MAX, 0));
	t2_map_free(&m);
	assert_null(t2_map_at(&m, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keys_and_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
