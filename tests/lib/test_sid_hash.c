/*
 * The SID's host component is "H" and the first 8 hex digits of the
 * host name's SHA-1: computed byte by byte, so the same on every byte
 * order and word size.  Checked against FIPS 180's test vectors (the
 * 56-byte one pads into a second block, the million 'a's take many).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tr2_sid.h"

static void expect_hex8(const char *data, size_t len, const char *want)
{
	char out[9] = "";

	tr2_sha1_hex8(data, len, out);
	out[8] = '\0';
	assert_string_equal(out, want);
}

static void fips_vectors(void **state)
{
	(void)state;
	expect_hex8("abc", 3, "a9993e36");
	expect_hex8("", 0, "da39a3ee");
	expect_hex8("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, "84983e44");
}

static void million_a(void **state)
{
	size_t n = 1000000;
	char *a = malloc(n);

	(void)state;
	assert_non_null(a);
	memset(a, 'a', n);
	expect_hex8(a, n, "34aa973c");
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fips_vectors),
		cmocka_unit_test(million_a),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
