/*
 * tr2_traceparent_valid(): the traceparent values of W3C Trace Context
 * (version 00 and later ones), written out from that recommendation's
 * rules, not taken from the code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tr2_traceparent.h"

#define TRACE "0af7651916cd43dd8448eb211c80319c"
#define PARENT "b7ad6b7169203331"

static void valid(void **state)
{
	(void)state;
	assert_true(tr2_traceparent_valid("00-" TRACE "-" PARENT "-01"));
	assert_true(tr2_traceparent_valid("00-" TRACE "-" PARENT "-00"));
	/* a later version may add fields */
	assert_true(tr2_traceparent_valid("01-" TRACE "-" PARENT "-00-more"));
	assert_true(tr2_traceparent_valid("cc-" TRACE "-" PARENT "-09"));
}

static void invalid(void **state)
{
	(void)state;
	assert_false(tr2_traceparent_valid(NULL));
	assert_false(tr2_traceparent_valid(""));
	assert_false(tr2_traceparent_valid("00-" TRACE "-" PARENT "-0"));       /* short */
	assert_false(tr2_traceparent_valid("00-" TRACE "-" PARENT "-01-more")); /* 00: no more */
	assert_false(tr2_traceparent_valid("01-" TRACE "-" PARENT "-01xmore")); /* not a field */
	assert_false(tr2_traceparent_valid("ff-" TRACE "-" PARENT "-01"));      /* version ff */
	assert_false(tr2_traceparent_valid("00-0AF7651916CD43DD8448EB211C80319C-" PARENT "-01"));
	assert_false(tr2_traceparent_valid("00-00000000000000000000000000000000-" PARENT "-01"));
	assert_false(tr2_traceparent_valid("00-" TRACE "-0000000000000000-01"));
	assert_false(tr2_traceparent_valid("00_" TRACE "-" PARENT "-01"));
	assert_false(tr2_traceparent_valid("00-" TRACE "-" PARENT "-0g"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid),
		cmocka_unit_test(invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
