/*
 * trace2.configParams patterns are shell patterns over the whole key,
 * letters in either case ('*' crosses '.' and '/'), matched the same on
 * every platform (the library's own matcher, not the C library's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tr2_params.h"
#include "tr2_sysenv.h"

static int wants(const char *patterns, const char *key)
{
	tr2_sysenv_set_config(TR2_SYSENV_CONFIG_PARAMS, patterns);
	return tr2_params_wants_config_key(key);
}

static void stars_and_marks(void **state)
{
	(void)state;
	assert_true(wants("core.*", "core.editor"));
	assert_true(wants("core.*", "CORE.Editor"));
	assert_false(wants("core.*", "cored.editor"));
	assert_true(wants("*", "a.b/c"));
	assert_true(wants("*.b*", "a.x.b/c"));
	assert_true(wants("a?c", "abc"));
	assert_false(wants("a?c", "ac"));
	assert_true(wants("a**b", "ab"));
	assert_false(wants("a*b", "abc"));
	assert_true(wants("*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaab"));
	assert_false(wants("*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaa"));
}

static void classes(void **state)
{
	(void)state;
	assert_true(wants("x.[abc]", "x.b"));
	assert_true(wants("x.[a-c]", "x.B"));
	assert_false(wants("x.[a-c]", "x.d"));
	assert_true(wants("x.[!a-c]", "x.d"));
	assert_true(wants("x.[^a-c]", "x.d"));
	assert_false(wants("x.[!a-c]", "x.A"));
	assert_true(wants("x.[]]", "x.]"));
	assert_true(wants("x.[a-]", "x.-"));
	/* an unclosed class is a literal '[' */
	assert_true(wants("x.[ab", "x.[ab"));
	assert_false(wants("x.[ab", "x.a"));
}

static void quoting_and_lists(void **state)
{
	(void)state;
	assert_true(wants("a\\*", "a*"));
	assert_false(wants("a\\*", "ab"));
	assert_true(wants("x.y,core.*", "core.pager"));
	assert_false(wants("", "core.pager"));
	assert_false(wants("core", "core.pager"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stars_and_marks),
		cmocka_unit_test(classes),
		cmocka_unit_test(quoting_and_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
