/* The public JSON writer (Git's jw_* API): byte-exact output, escaping,
 * embedding of sub-writers, misuse reporting and allocation failure. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "tr2_json_writer.h"


_Static_assert(INTMAX_MAX == 9223372036854775807, "tests expect a 64-bit intmax_t");

/* ------------------------------------------------------------------ */
/* Helpers.                                                             */
/* ------------------------------------------------------------------ */

static int bug_count;
static char bug_msg[512];

static void count_bug(const char *file, int line, const char *fmt, va_list ap)
{
	(void)file;
	(void)line;
	bug_count++;
	vsnprintf(bug_msg, sizeof(bug_msg), fmt, ap);
}

static int install_bug_handler(void **state)
{
	(void)state;
	trace2_set_bug_handler(count_bug);
	return 0;
}

static int remove_bug_handler(void **state)
{
	(void)state;
	trace2_set_bug_handler(NULL);
	return 0;
}

/* Byte-exact: the length must match too, not just the C string. */
static void expect_json(const struct json_writer *jw, const char *want)
{
	assert_non_null(jw->json.buf);
	assert_string_equal(jw->json.buf, want);
	assert_int_equal(jw->json.len, strlen(want));
}

/* Everything a misused call must leave alone. */
struct snapshot {
	char json[256];
	size_t json_len;
	char stack[16];
	size_t stack_len;
	unsigned int need_comma, pretty;
};

static void take_snapshot(const struct json_writer *jw, struct snapshot *s)
{
	assert_true(jw->json.len < sizeof(s->json));
	assert_true(jw->open_stack.len < sizeof(s->stack));
	memset(s, 0, sizeof(*s));
	if (jw->json.len)
		memcpy(s->json, jw->json.buf, jw->json.len);
	if (jw->open_stack.len)
		memcpy(s->stack, jw->open_stack.buf, jw->open_stack.len);
	s->json_len = jw->json.len;
	s->stack_len = jw->open_stack.len;
	s->need_comma = jw->need_comma;
	s->pretty = jw->pretty;
}

static void expect_snapshot(const struct json_writer *jw, const struct snapshot *s)
{
	assert_int_equal(jw->json.len, s->json_len);
	assert_int_equal(jw->open_stack.len, s->stack_len);
	if (s->json_len)
		assert_memory_equal(jw->json.buf, s->json, s->json_len);
	if (s->stack_len)
		assert_memory_equal(jw->open_stack.buf, s->stack, s->stack_len);
	assert_int_equal(jw->need_comma, s->need_comma);
	assert_int_equal(jw->pretty, s->pretty);
}

/* Run a misused call: exactly one BUG with message msg, writer untouched. */
#define EXPECT_MISUSE(jw, call, msg)                             \
	do {                                                     \
		struct snapshot snap_;                           \
		int before_ = bug_count;                         \
		take_snapshot((jw), &snap_);                     \
		call;                                            \
		assert_int_equal(bug_count, before_ + 1);        \
		assert_string_equal(bug_msg, (msg));             \
		expect_snapshot((jw), &snap_);                   \
	} while (0)

/* {"a":{"n":1},"s":"x"} built inline, the reference for sub-writers. */
static void build_compact_object(struct json_writer *jw)
{
	jw_object_begin(jw, 0);
	jw_object_intmax(jw, "n", 1);
	jw_object_inline_begin_array(jw, "a");
	jw_array_true(jw);
	jw_end(jw);
	jw_end(jw);
}

/* The text of t2_jw_api_example() (docs/api.md, "JSON writer"). */
static const char pretty_example[] =
	"{\n"
	"  \"a\": \"b\",\n"
	"  \"o\": {\n"
	"    \"n\": 1\n"
	"  }\n"
	"}";

/* A writer (pretty or not) of one member key with the string value must
 * give want; then released. */
static void expect_string_member(int pretty, const char *key, const char *value,
				 const char *want)
{
	struct json_writer jw = JSON_WRITER_INIT;

	jw_object_begin(&jw, pretty);
	jw_object_string(&jw, key, value);
	jw_end(&jw);
	assert_int_equal(jw.pretty, pretty != 0);
	expect_json(&jw, want);
	jw_release(&jw);
}

/* {member: sub, array: [sub, ... (copies times)]} into jw. */
static void embed_sub(struct json_writer *jw, int pretty, const struct json_writer *sub,
		      const char *member, const char *array, int copies)
{
	jw_object_begin(jw, pretty);
	jw_object_sub_jw(jw, member, sub);
	jw_object_inline_begin_array(jw, array);
	while (copies-- > 0)
		jw_array_sub_jw(jw, sub);
	jw_end(jw);
	jw_end(jw);
}

/* The state JSON_WRITER_INIT gives: no buffers, compact, nothing due. */
static void expect_initial(const struct json_writer *jw)
{
	assert_null(jw->json.buf);
	assert_int_equal(jw->json.len, 0);
	assert_int_equal(jw->json.alloc, 0);
	assert_null(jw->open_stack.buf);
	assert_int_equal(jw->open_stack.len, 0);
	assert_int_equal(jw->open_stack.alloc, 0);
	assert_int_equal(jw->need_comma, 0);
	assert_int_equal(jw->pretty, 0);
}

/* ------------------------------------------------------------------ */
/* Compact output.                                                      */
/* ------------------------------------------------------------------ */

static void test_empty_containers(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_object_begin(&jw, 0);
	jw_end(&jw);
	expect_json(&jw, "{}");
	jw_release(&jw);

	jw_array_begin(&jw, 0);
	jw_end(&jw);
	expect_json(&jw, "[]");
	jw_release(&jw);
}

static void test_every_member_type(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	build_compact_object(&sub);
	jw_object_begin(&jw, 0);
	jw_object_string(&jw, "s", "v");
	jw_object_string(&jw, "nul", NULL);
	jw_object_string(&jw, "", "");
	jw_object_intmax(&jw, "i", -17);
	jw_object_double(&jw, "d", 3, 1.5);
	jw_object_true(&jw, "t");
	jw_object_false(&jw, "f");
	jw_object_bool(&jw, "b42", 42);
	jw_object_bool(&jw, "b0", 0);
	jw_object_null(&jw, "n");
	jw_object_sub_jw(&jw, "sub", &sub);
	jw_object_inline_begin_object(&jw, "o");
	jw_end(&jw);
	jw_object_inline_begin_array(&jw, "a");
	jw_end(&jw);
	jw_end(&jw);
	expect_json(&jw, "{\"s\":\"v\",\"nul\":null,\"\":\"\",\"i\":-17,"
			 "\"d\":1.500,\"t\":true,\"f\":false,\"b42\":true,"
			 "\"b0\":false,\"n\":null,"
			 "\"sub\":{\"n\":1,\"a\":[true]},\"o\":{},\"a\":[]}");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_every_element_type(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;
	const char *argv[] = { "x", "y z", NULL };
	const char *with_null[] = { "p", NULL, "q" };

	(void)state;
	build_compact_object(&sub);
	jw_array_begin(&jw, 0);
	jw_array_string(&jw, "v");
	jw_array_string(&jw, NULL);
	jw_array_intmax(&jw, 0);
	jw_array_double(&jw, 1, 2.25);
	jw_array_true(&jw);
	jw_array_false(&jw);
	jw_array_bool(&jw, -1);
	jw_array_bool(&jw, 0);
	jw_array_null(&jw);
	jw_array_sub_jw(&jw, &sub);
	jw_array_argv(&jw, argv);
	jw_array_argc_argv(&jw, 3, with_null);
	jw_array_argc_argv(&jw, 1, argv);
	jw_array_inline_begin_object(&jw);
	jw_end(&jw);
	jw_array_inline_begin_array(&jw);
	jw_end(&jw);
	jw_end(&jw);
	expect_json(&jw, "[\"v\",null,0,2.2,true,false,true,false,null,"
			 "{\"n\":1,\"a\":[true]},\"x\",\"y z\",\"p\",null,\"q\","
			 "\"x\",{},[]]");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_argv_edge_cases_add_nothing(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	const char *argv[] = { "x", NULL };
	const char *empty[] = { NULL };

	(void)state;
	jw_array_begin(&jw, 0);
	jw_array_argv(&jw, NULL);
	jw_array_argv(&jw, empty);
	jw_array_argc_argv(&jw, 0, argv);
	jw_array_argc_argv(&jw, -1, argv);
	jw_array_argc_argv(&jw, 5, NULL);
	jw_array_intmax(&jw, 1);
	jw_end(&jw);
	/* No stray comma either: need_comma stayed clear. */
	expect_json(&jw, "[1]");
	jw_release(&jw);
}

static void test_nested_inline(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_object_begin(&jw, 0);
	jw_object_inline_begin_object(&jw, "a");
	jw_object_inline_begin_array(&jw, "b");
	jw_array_intmax(&jw, 1);
	jw_array_inline_begin_object(&jw);
	jw_object_inline_begin_array(&jw, "c");
	jw_array_inline_begin_array(&jw);
	jw_array_null(&jw);
	jw_end(&jw);
	jw_end(&jw);
	jw_end(&jw);
	jw_array_intmax(&jw, 2);
	jw_end(&jw);
	jw_end(&jw);
	jw_object_intmax(&jw, "z", 0);
	jw_end(&jw);
	expect_json(&jw, "{\"a\":{\"b\":[1,{\"c\":[[null]]},2]},\"z\":0}");
	jw_release(&jw);
}

static void test_intmax_limits(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_array_begin(&jw, 0);
	jw_array_intmax(&jw, INTMAX_MIN);
	jw_array_intmax(&jw, INTMAX_MAX);
	jw_array_inline_begin_object(&jw);
	jw_object_intmax(&jw, "min", INTMAX_MIN);
	jw_object_intmax(&jw, "max", INTMAX_MAX);
	jw_end(&jw);
	jw_end(&jw);
	expect_json(&jw, "[-9223372036854775808,9223372036854775807,"
			 "{\"min\":-9223372036854775808,"
			 "\"max\":9223372036854775807}]");
	jw_release(&jw);
}

static void test_double_precision(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_array_begin(&jw, 0);
	jw_array_double(&jw, -1, 1.5);
	jw_array_double(&jw, -7, 0.25);
	jw_array_double(&jw, 0, 2.75);
	jw_array_double(&jw, 0, -0.4);
	jw_array_double(&jw, 3, 3.14159);
	jw_array_double(&jw, 3, -0.5);
	jw_array_inline_begin_object(&jw);
	jw_object_double(&jw, "p-1", -1, 2.0);
	jw_object_double(&jw, "p0", 0, 9.6);
	jw_object_double(&jw, "p3", 3, 1e-4);
	jw_end(&jw);
	jw_end(&jw);
	expect_json(&jw, "[1.500000,0.250000,3,-0,3.142,-0.500,"
			 "{\"p-1\":2.000000,\"p0\":10,\"p3\":0.000}]");
	jw_release(&jw);
}

/* "%f" of 1e300 is 308 characters: no fixed-size number buffer. */
static void test_long_double_text(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	char want[512];
	int n;

	(void)state;
	n = snprintf(want, sizeof(want), "[%f]", 1e300);
	assert_true(n > 300 && (size_t)n < sizeof(want));
	jw_array_begin(&jw, 0);
	jw_array_double(&jw, -1, 1e300);
	jw_end(&jw);
	expect_json(&jw, want);
	jw_release(&jw);
}

/* ------------------------------------------------------------------ */
/* Escaping.                                                            */
/* ------------------------------------------------------------------ */

static void test_escape_control_chars(void **state)
{
	static const char ctl[] =
		"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
		"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f";
	static const char escaped[] =
		"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n"
		"\\u000b\\f\\r\\u000e\\u000f"
		"\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
		"\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f";
	char want[1024];

	(void)state;
	snprintf(want, sizeof(want), "{\"%s\":\"%s\"}", escaped, escaped);
	expect_string_member(0, ctl, ctl, want);
}

/* 0x00 cannot travel through a C string: it ends the value. */
static void test_nul_ends_string(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_array_begin(&jw, 0);
	jw_array_string(&jw, "a\0b");
	jw_end(&jw);
	expect_json(&jw, "[\"a\"]");
	jw_release(&jw);
}

static void test_escape_quote_backslash_del_slash(void **state)
{
	(void)state;
	expect_string_member(0, "k\"\\", "a\"b\\c\x7f/d",
			     "{\"k\\\"\\\\\":\"a\\\"b\\\\c\x7f/d\"}");
}

static void test_valid_utf8_unchanged(void **state)
{
	/* 2-, 3- and 4-byte sequences, and the largest code point. */
	static const char utf8[] = "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf";

	(void)state;
	expect_string_member(0, utf8, utf8,
			     "{\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\":"
			     "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"}");
}

#define FFFD "\xef\xbf\xbd"

static void test_invalid_utf8_replaced(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_array_begin(&jw, 0);
	jw_array_string(&jw, "a\x80z");         /* stray continuation byte */
	jw_array_string(&jw, "\xff");           /* never valid */
	jw_array_string(&jw, "\xc3x");          /* lead byte without its tail */
	jw_array_string(&jw, "\xc0\xaf");       /* overlong '/' */
	jw_array_string(&jw, "\xed\xa0\x80");   /* UTF-16 surrogate */
	jw_array_string(&jw, "\xe2\x82");       /* truncated at the end */
	jw_end(&jw);
	expect_json(&jw, "[\"a" FFFD "z\",\"" FFFD "\",\"" FFFD "x\","
			 "\"" FFFD FFFD "\",\"" FFFD FFFD FFFD "\","
			 "\"" FFFD FFFD "\"]");
	jw_release(&jw);
}

static void test_invalid_utf8_in_key(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_object_begin(&jw, 0);
	jw_object_null(&jw, "k\xfe");
	jw_end(&jw);
	expect_json(&jw, "{\"k" FFFD "\":null}");
	jw_release(&jw);
}

/* ------------------------------------------------------------------ */
/* Pretty output.                                                       */
/* ------------------------------------------------------------------ */

static void test_pretty_api_example(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	t2_jw_api_example(&jw);
	assert_int_equal(jw.pretty, 1);
	expect_json(&jw, pretty_example);
	jw_release(&jw);
}

static void test_pretty_arrays_and_empties(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_array_begin(&jw, 1);
	jw_array_intmax(&jw, 1);
	jw_array_inline_begin_array(&jw);
	jw_array_true(&jw);
	jw_end(&jw);
	jw_array_inline_begin_object(&jw);
	jw_object_null(&jw, "k");
	jw_object_inline_begin_array(&jw, "e");
	jw_end(&jw);
	jw_end(&jw);
	jw_end(&jw);
	expect_json(&jw, "[\n"
			 "  1,\n"
			 "  [\n"
			 "    true\n"
			 "  ],\n"
			 "  {\n"
			 "    \"k\": null,\n"
			 "    \"e\": [\n"
			 "    ]\n"
			 "  }\n"
			 "]");
	jw_release(&jw);

	jw_object_begin(&jw, 1);
	jw_end(&jw);
	expect_json(&jw, "{\n}");
	jw_release(&jw);
}

/* Only the writer's layout is pretty: strings keep their own spaces. */
static void test_pretty_keeps_string_spaces(void **state)
{
	(void)state;
	/* any non-zero pretty argument makes a pretty writer */
	expect_string_member(7, " k ", "a\n  b", "{\n  \" k \": \"a\\n  b\"\n}");
}

/* ------------------------------------------------------------------ */
/* Embedding finished writers (docs/api.md, "JSON writer").           */
/* ------------------------------------------------------------------ */

static void test_sub_compact_into_compact(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	build_compact_object(&sub);
	embed_sub(&jw, 0, &sub, "x", "y", 2);
	expect_json(&jw, "{\"x\":{\"n\":1,\"a\":[true]},"
			 "\"y\":[{\"n\":1,\"a\":[true]},{\"n\":1,\"a\":[true]}]}");
	expect_json(&sub, "{\"n\":1,\"a\":[true]}");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_sub_pretty_into_compact(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	t2_jw_api_example(&sub);
	embed_sub(&jw, 0, &sub, "k", "v", 1);
	expect_json(&jw, "{\"k\":{\"a\": \"b\",\"o\": {\"n\": 1}},"
			 "\"v\":[{\"a\": \"b\",\"o\": {\"n\": 1}}]}");
	expect_json(&sub, pretty_example);
	jw_release(&jw);
	jw_release(&sub);
}

/* Spaces inside strings are not indentation and survive. */
static void test_sub_pretty_into_compact_keeps_string_spaces(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	jw_array_begin(&sub, 1);
	jw_array_string(&sub, "  two  spaces  ");
	jw_end(&sub);
	jw_array_begin(&jw, 0);
	jw_array_sub_jw(&jw, &sub);
	jw_end(&jw);
	expect_json(&jw, "[[\"  two  spaces  \"]]");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_sub_compact_into_pretty(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	build_compact_object(&sub);
	embed_sub(&jw, 1, &sub, "x", "y", 1);
	expect_json(&jw, "{\n"
			 "  \"x\": {\"n\":1,\"a\":[true]},\n"
			 "  \"y\": [\n"
			 "    {\"n\":1,\"a\":[true]}\n"
			 "  ]\n"
			 "}");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_sub_pretty_into_pretty(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	t2_jw_api_example(&sub);
	embed_sub(&jw, 1, &sub, "k", "v", 1);
	expect_json(&jw, "{\n"
			 "  \"k\": {\n"
			 "    \"a\": \"b\",\n"
			 "    \"o\": {\n"
			 "      \"n\": 1\n"
			 "    }\n"
			 "  },\n"
			 "  \"v\": [\n"
			 "    {\n"
			 "      \"a\": \"b\",\n"
			 "      \"o\": {\n"
			 "        \"n\": 1\n"
			 "      }\n"
			 "    }\n"
			 "  ]\n"
			 "}");
	jw_release(&jw);
	jw_release(&sub);
}

/* Embedding a pretty writer gives the same text as building it inline. */
static void test_sub_pretty_matches_inline(void **state)
{
	struct json_writer embedded = JSON_WRITER_INIT;
	struct json_writer inlined = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	t2_jw_api_example(&sub);
	jw_array_begin(&embedded, 1);
	jw_array_inline_begin_array(&embedded);
	jw_array_sub_jw(&embedded, &sub);
	jw_end(&embedded);
	jw_end(&embedded);

	jw_array_begin(&inlined, 1);
	jw_array_inline_begin_array(&inlined);
	jw_array_inline_begin_object(&inlined);
	jw_object_string(&inlined, "a", "b");
	jw_object_inline_begin_object(&inlined, "o");
	jw_object_intmax(&inlined, "n", 1);
	jw_end(&inlined);
	jw_end(&inlined);
	jw_end(&inlined);
	jw_end(&inlined);

	expect_json(&embedded, inlined.json.buf);
	jw_release(&embedded);
	jw_release(&inlined);
	jw_release(&sub);
}

/* ------------------------------------------------------------------ */
/* State: terminated, init, release.                                    */
/* ------------------------------------------------------------------ */

static void test_is_terminated(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	assert_false(jw_is_terminated(NULL));
	assert_false(jw_is_terminated(&jw));
	jw_object_begin(&jw, 0);
	assert_false(jw_is_terminated(&jw));
	jw_object_inline_begin_array(&jw, "a");
	assert_false(jw_is_terminated(&jw));
	jw_end(&jw);
	assert_false(jw_is_terminated(&jw));
	jw_end(&jw);
	assert_true(jw_is_terminated(&jw));
	jw_release(&jw);
	assert_false(jw_is_terminated(&jw));
}

static void test_init_matches_initializer(void **state)
{
	struct json_writer jw;

	(void)state;
	memset(&jw, 0xa5, sizeof(jw));
	jw_init(&jw);
	expect_initial(&jw);
}

static void test_release_reinitialises(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	int before = bug_count;

	(void)state;
	jw_array_begin(&jw, 1);
	jw_array_inline_begin_object(&jw);
	jw_release(&jw);
	expect_initial(&jw);

	/* Usable again, as a fresh compact writer. */
	jw_object_begin(&jw, 0);
	jw_object_true(&jw, "t");
	jw_end(&jw);
	expect_json(&jw, "{\"t\":true}");
	assert_int_equal(bug_count, before);
	jw_release(&jw);
	jw_release(&jw);
}

/* ------------------------------------------------------------------ */
/* Misuse: one BUG, no change.                                          */
/* ------------------------------------------------------------------ */

#define MEMBER_IN_ARRAY "json-writer: object: member added inside an array"
#define ELEMENT_IN_OBJECT "json-writer: array: element added inside an object"

static void test_misuse_member_in_array(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;

	(void)state;
	build_compact_object(&sub);
	jw_array_begin(&jw, 0);
	jw_array_intmax(&jw, 1);
	EXPECT_MISUSE(&jw, jw_object_string(&jw, "k", "v"), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_intmax(&jw, "k", 1), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_double(&jw, "k", 1, 1.0), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_true(&jw, "k"), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_false(&jw, "k"), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_bool(&jw, "k", 1), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_null(&jw, "k"), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_sub_jw(&jw, "k", &sub), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_inline_begin_object(&jw, "k"), MEMBER_IN_ARRAY);
	EXPECT_MISUSE(&jw, jw_object_inline_begin_array(&jw, "k"), MEMBER_IN_ARRAY);
	jw_array_intmax(&jw, 2);
	jw_end(&jw);
	expect_json(&jw, "[1,2]");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_misuse_element_in_object(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;
	const char *argv[] = { "a", NULL };

	(void)state;
	build_compact_object(&sub);
	jw_object_begin(&jw, 1);
	EXPECT_MISUSE(&jw, jw_array_string(&jw, "v"), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_intmax(&jw, 1), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_double(&jw, 1, 1.0), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_true(&jw), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_false(&jw), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_bool(&jw, 0), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_null(&jw), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_sub_jw(&jw, &sub), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_argv(&jw, argv), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_argc_argv(&jw, 1, argv), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_inline_begin_object(&jw), ELEMENT_IN_OBJECT);
	EXPECT_MISUSE(&jw, jw_array_inline_begin_array(&jw), ELEMENT_IN_OBJECT);
	jw_object_intmax(&jw, "a", 1);
	jw_end(&jw);
	expect_json(&jw, "{\n  \"a\": 1\n}");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_misuse_after_terminated(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "a", 1);
	jw_end(&jw);
	EXPECT_MISUSE(&jw, jw_object_intmax(&jw, "b", 2),
		      "json-writer: object: value already terminated by jw_end()");
	EXPECT_MISUSE(&jw, jw_array_null(&jw),
		      "json-writer: array: value already terminated by jw_end()");
	EXPECT_MISUSE(&jw, jw_end(&jw),
		      "json-writer: jw_end(): no object or array is open");
	EXPECT_MISUSE(&jw, jw_object_begin(&jw, 1),
		      "json-writer: object: jw_object_begin() on a writer already in use");
	EXPECT_MISUSE(&jw, jw_array_begin(&jw, 0),
		      "json-writer: array: jw_array_begin() on a writer already in use");
	expect_json(&jw, "{\"a\":1}");
	assert_true(jw_is_terminated(&jw));
	jw_release(&jw);
}

static void test_misuse_before_begin(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	EXPECT_MISUSE(&jw, jw_object_true(&jw, "t"),
		      "json-writer: object: jw_object_begin() not called");
	EXPECT_MISUSE(&jw, jw_array_true(&jw),
		      "json-writer: array: jw_array_begin() not called");
	EXPECT_MISUSE(&jw, jw_end(&jw),
		      "json-writer: jw_end(): no object or array is open");
	assert_null(jw.json.buf);
	assert_null(jw.open_stack.buf);
}

static void test_misuse_begin_twice(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)state;
	jw_array_begin(&jw, 0);
	EXPECT_MISUSE(&jw, jw_array_begin(&jw, 1),
		      "json-writer: array: jw_array_begin() on a writer already in use");
	EXPECT_MISUSE(&jw, jw_object_begin(&jw, 1),
		      "json-writer: object: jw_object_begin() on a writer already in use");
	jw_end(&jw);
	expect_json(&jw, "[]");
	jw_release(&jw);
}

static void test_misuse_null_key(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer sub = JSON_WRITER_INIT;
	static const char msg[] = "json-writer: object: NULL key";

	(void)state;
	build_compact_object(&sub);
	jw_object_begin(&jw, 0);
	EXPECT_MISUSE(&jw, jw_object_string(&jw, NULL, "v"), msg);
	EXPECT_MISUSE(&jw, jw_object_intmax(&jw, NULL, 1), msg);
	EXPECT_MISUSE(&jw, jw_object_double(&jw, NULL, 1, 1.0), msg);
	EXPECT_MISUSE(&jw, jw_object_null(&jw, NULL), msg);
	EXPECT_MISUSE(&jw, jw_object_sub_jw(&jw, NULL, &sub), msg);
	EXPECT_MISUSE(&jw, jw_object_inline_begin_object(&jw, NULL), msg);
	EXPECT_MISUSE(&jw, jw_object_inline_begin_array(&jw, NULL), msg);
	jw_end(&jw);
	expect_json(&jw, "{}");
	jw_release(&jw);
	jw_release(&sub);
}

static void test_misuse_unterminated_sub(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	struct json_writer open = JSON_WRITER_INIT;
	struct json_writer fresh = JSON_WRITER_INIT;

	(void)state;
	jw_object_begin(&open, 0);
	jw_object_intmax(&open, "x", 1);
	jw_object_begin(&jw, 0);
	EXPECT_MISUSE(&jw, jw_object_sub_jw(&jw, "k", &open),
		      "json-writer: object: missing jw_end(): '{\"x\":1'");
	EXPECT_MISUSE(&jw, jw_object_sub_jw(&jw, "k", &fresh),
		      "json-writer: object: missing jw_end(): ''");
	EXPECT_MISUSE(&jw, jw_object_sub_jw(&jw, "k", NULL),
		      "json-writer: object: missing jw_end(): ''");
	/* A writer cannot swallow itself: it is open, so not terminated. */
	EXPECT_MISUSE(&jw, jw_object_sub_jw(&jw, "k", &jw),
		      "json-writer: object: missing jw_end(): '{'");
	jw_object_inline_begin_array(&jw, "a");
	EXPECT_MISUSE(&jw, jw_array_sub_jw(&jw, &open),
		      "json-writer: object: missing jw_end(): '{\"x\":1'");
	EXPECT_MISUSE(&jw, jw_array_sub_jw(&jw, NULL),
		      "json-writer: object: missing jw_end(): ''");
	jw_end(&jw);
	jw_end(&jw);
	expect_json(&jw, "{\"a\":[]}");
	jw_release(&jw);
	jw_release(&open);
}

/* ------------------------------------------------------------------ */
/* Large values and allocation failure.                                 */
/* ------------------------------------------------------------------ */

#define MIB ((size_t)1 << 20)

static void test_one_mib_string_round_trip(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	char *value = malloc(MIB + 1);
	size_t i;

	(void)state;
	assert_non_null(value);
	for (i = 0; i < MIB; i++)
		value[i] = (char)('a' + i % 26);
	value[MIB] = '\0';
	jw_object_begin(&jw, 0);
	jw_object_string(&jw, "big", value);
	jw_end(&jw);
	assert_int_equal(jw.json.len, MIB + strlen("{\"big\":\"\"}"));
	assert_memory_equal(jw.json.buf, "{\"big\":\"", 8);
	assert_memory_equal(jw.json.buf + 8, value, MIB);
	assert_string_equal(jw.json.buf + 8 + MIB, "\"}");
	jw_release(&jw);
	free(value);
}

/* Escaping multiplies the size by six: the reserve must follow. */
static void test_one_mib_escaped_string(void **state)
{
	struct json_writer jw = JSON_WRITER_INIT;
	char *value = malloc(MIB + 1);
	size_t i;

	(void)state;
	assert_non_null(value);
	memset(value, 0x1f, MIB);
	value[MIB] = '\0';
	jw_array_begin(&jw, 0);
	jw_array_string(&jw, value);
	jw_end(&jw);
	assert_int_equal(jw.json.len, 6 * MIB + strlen("[\"\"]"));
	for (i = 0; i < MIB; i++)
		if (memcmp(jw.json.buf + 2 + 6 * i, "\\u001f", 6))
			fail_msg("escape %zu is wrong", i);
	assert_string_equal(jw.json.buf + 2 + 6 * MIB, "\"]");
	jw_release(&jw);
	free(value);
}

/* Cap the address space a little above what the process uses now, so
 * that any large allocation fails from here on. */
static int limit_address_space(size_t headroom)
{
	unsigned long pages;
	struct rlimit lim;
	FILE *f = fopen("/proc/self/statm", "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%lu", &pages) == 1;
	fclose(f);
	if (!ok)
		return -1;
	lim.rlim_cur = lim.rlim_max =
		(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + headroom;
	return setrlimit(RLIMIT_AS, &lim);
}

/* Runs in a child process; the exit code names the failed check. */
static int run_out_of_memory_checks(void)
{
	struct json_writer jw = JSON_WRITER_INIT;
	const size_t big_len = 4 * MIB;
	char *big = malloc(big_len + 1);
	const char *argv[3] = { "y", big, NULL };
	static const char before[] = "{\"a\":1,\"v\":[";

	if (!big)
		return 10;
	memset(big, 'b', big_len);
	big[big_len] = '\0';
	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "a", 1);
	jw_object_inline_begin_array(&jw, "v");
	if (limit_address_space(MIB))
		return 11;

	/* All of argv or nothing: "y" fitted but must be taken back, and
	 * the next element must still come without a comma. */
	jw_array_argv(&jw, argv);
	if (jw.json.len != strlen(before) || strcmp(jw.json.buf, before) ||
	    jw.need_comma || jw.open_stack.len != 2)
		return 12;
	jw_array_string(&jw, big);
	if (jw.json.len != strlen(before) || strcmp(jw.json.buf, before))
		return 13;

	jw_array_string(&jw, "z");
	jw_end(&jw);
	jw_object_string(&jw, "big", big);
	if (strcmp(jw.json.buf, "{\"a\":1,\"v\":[\"z\"]"))
		return 14;
	/* A container that cannot be opened leaves the writer failed: later
	 * calls do nothing and report nothing, and it is never complete. */
	int bugs_before = bug_count;

	trace2_set_bug_handler(count_bug);
	jw_object_inline_begin_object(&jw, big);
	if (!tr2_jw_failed(&jw) || jw.json.len || jw_is_terminated(&jw))
		return 15;
	jw_object_intmax(&jw, "after", 2);
	jw_end(&jw);
	jw_end(&jw);
	if (jw.json.len || jw_is_terminated(&jw) || bug_count != bugs_before)
		return 16;
	jw_release(&jw);
	if (tr2_jw_failed(&jw))
		return 17;
	return 0;
}

static void test_out_of_memory_rolls_back_or_fails_silently(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	if (UNDER_SANITIZER)
		skip(); /* sanitizers reserve terabytes of address space */
	T2_SKIP_UNDER_EMULATOR("RLIMIT_AS does not bound the guest's allocations (qemu reserves its address space up front)");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(run_out_of_memory_checks());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_containers),
		cmocka_unit_test(test_every_member_type),
		cmocka_unit_test(test_every_element_type),
		cmocka_unit_test(test_argv_edge_cases_add_nothing),
		cmocka_unit_test(test_nested_inline),
		cmocka_unit_test(test_intmax_limits),
		cmocka_unit_test(test_double_precision),
		cmocka_unit_test(test_long_double_text),
		cmocka_unit_test(test_escape_control_chars),
		cmocka_unit_test(test_nul_ends_string),
		cmocka_unit_test(test_escape_quote_backslash_del_slash),
		cmocka_unit_test(test_valid_utf8_unchanged),
		cmocka_unit_test(test_invalid_utf8_replaced),
		cmocka_unit_test(test_invalid_utf8_in_key),
		cmocka_unit_test(test_pretty_api_example),
		cmocka_unit_test(test_pretty_arrays_and_empties),
		cmocka_unit_test(test_pretty_keeps_string_spaces),
		cmocka_unit_test(test_sub_compact_into_compact),
		cmocka_unit_test(test_sub_pretty_into_compact),
		cmocka_unit_test(test_sub_pretty_into_compact_keeps_string_spaces),
		cmocka_unit_test(test_sub_compact_into_pretty),
		cmocka_unit_test(test_sub_pretty_into_pretty),
		cmocka_unit_test(test_sub_pretty_matches_inline),
		cmocka_unit_test(test_is_terminated),
		cmocka_unit_test(test_init_matches_initializer),
		cmocka_unit_test(test_release_reinitialises),
		cmocka_unit_test(test_misuse_member_in_array),
		cmocka_unit_test(test_misuse_element_in_object),
		cmocka_unit_test(test_misuse_after_terminated),
		cmocka_unit_test(test_misuse_before_begin),
		cmocka_unit_test(test_misuse_begin_twice),
		cmocka_unit_test(test_misuse_null_key),
		cmocka_unit_test(test_misuse_unterminated_sub),
		cmocka_unit_test(test_one_mib_string_round_trip),
		cmocka_unit_test(test_one_mib_escaped_string),
		cmocka_unit_test(test_out_of_memory_rolls_back_or_fails_silently),
	};

	return cmocka_run_group_tests(tests, install_bug_handler, remove_bug_handler);
}
