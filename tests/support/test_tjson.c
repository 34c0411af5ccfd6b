/* Tests for the strict JSON parser used by the test suite. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tjson.h"

/* A byte string that may hold NULs: a literal and its length. */
struct doc {
	const char *s;
	size_t len;
};

#define DOC(lit) { lit, sizeof(lit) - 1 }

static struct tjson *parse_ok(const char *s, size_t len)
{
	const char *err = "unset";
	struct tjson *v = tjson_parse(s, len, &err);

	if (!v)
		print_error("rejected: %.*s (%s)\n", (int)len, s, err);
	assert_non_null(v);
	assert_null(err);
	return v;
}

static struct tjson *parse_str(const char *s)
{
	return parse_ok(s, strlen(s));
}

/* Parse s, dump it, and compare with want. */
static void assert_dump(const char *s, const char *want)
{
	struct tjson *v = parse_str(s);
	char *got = tjson_dump(v);

	assert_string_equal(got, want);
	free(got);
	tjson_free(v);
}

static void assert_keys(const struct tjson *obj, const char *want)
{
	char *got = tjson_keys(obj);

	assert_string_equal(got, want);
	free(got);
}

static void test_trace_line(void **state)
{
	static const char line[] =
		"{\"event\":\"region_enter\",\"sid\":\"20240101T000000.000000Z-H1\","
		"\"thread\":\"main\",\"time\":\"2024-01-01T00:00:00.000000Z\","
		"\"file\":\"t.c\",\"line\":42,\"repo\":1,\"nesting\":2,"
		"\"category\":\"cat\",\"label\":\"lbl\",\"msg\":\"hi\","
		"\"t_rel\":0.000123,\"ok\":true,\"bad\":false,\"none\":null}";
	struct tjson *v = parse_str(line);
	const struct tjson *m;

	(void)state;
	assert_int_equal(v->type, TJSON_OBJECT);
	assert_int_equal(v->n, 15);
	assert_keys(v, "event,sid,thread,time,file,line,repo,nesting,"
		       "category,label,msg,t_rel,ok,bad,none");
	assert_string_equal(tjson_get_str(v, "event"), "region_enter");
	assert_string_equal(tjson_get_str(v, "thread"), "main");
	m = tjson_get(v, "line");
	assert_int_equal(m->type, TJSON_NUMBER);
	assert_string_equal(m->text, "42");
	assert_true(m->number == 42.0);
	m = tjson_get(v, "t_rel");
	assert_string_equal(m->text, "0.000123");
	assert_true(m->number > 0.0001229 && m->number < 0.0001231);
	m = tjson_get(v, "ok");
	assert_int_equal(m->type, TJSON_BOOL);
	assert_int_equal(m->boolean, 1);
	m = tjson_get(v, "bad");
	assert_int_equal(m->type, TJSON_BOOL);
	assert_int_equal(m->boolean, 0);
	assert_int_equal(tjson_get(v, "none")->type, TJSON_NULL);
	assert_null(tjson_get(v, "missing"));
	assert_null(tjson_get_str(v, "line"));
	assert_null(tjson_get_str(v, "missing"));
	tjson_free(v);
}

static void test_nested(void **state)
{
	struct tjson *v = parse_str(
		" { \"z\" : [ 1 , [ ] , { } , { \"b\" : [ null ] , \"a\" : 2 } ] ,"
		"\"y\":{\"q\":{\"r\":\"deep\"}} }\r\n\t");
	const struct tjson *arr, *obj;

	(void)state;
	assert_keys(v, "z,y");
	arr = tjson_get(v, "z");
	assert_int_equal(arr->type, TJSON_ARRAY);
	assert_int_equal(arr->n, 4);
	assert_string_equal(arr->items[0]->text, "1");
	assert_int_equal(arr->items[1]->type, TJSON_ARRAY);
	assert_int_equal(arr->items[1]->n, 0);
	assert_int_equal(arr->items[2]->type, TJSON_OBJECT);
	assert_keys(arr->items[2], "");
	obj = arr->items[3];
	assert_keys(obj, "b,a");
	assert_int_equal(tjson_get(obj, "b")->items[0]->type, TJSON_NULL);
	obj = tjson_get(tjson_get(v, "y"), "q");
	assert_string_equal(tjson_get_str(obj, "r"), "deep");
	tjson_free(v);
}

static void test_key_order_and_duplicates(void **state)
{
	struct tjson *v = parse_str("{\"zeta\":1,\"alpha\":2,\"mid\":3,"
				    "\"alpha\":4,\"\":5}");

	(void)state;
	assert_keys(v, "zeta,alpha,mid,alpha,");
	assert_string_equal(tjson_get(v, "alpha")->text, "2");
	assert_string_equal(tjson_get(v, "")->text, "5");
	tjson_free(v);
}

static void test_escapes(void **state)
{
	static const char want[] = "\"\\/\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC"
				   "\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF\xEF\xBF\xBF";
	struct tjson *v = parse_str("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041"
				    "\\u00e9\\u20AC\\ud83d\\ude00\\uDBFF\\uDFFF"
				    "\\uffff\"");

	(void)state;
	assert_int_equal(v->type, TJSON_STRING);
	assert_int_equal(v->len, sizeof(want) - 1);
	assert_memory_equal(v->text, want, sizeof(want));
	tjson_free(v);
}

static void test_nul_in_strings(void **state)
{
	struct tjson *v = parse_str("{\"a\\u0000b\":\"x\\u0000y\"}");
	char *dump;

	(void)state;
	assert_int_equal(v->key_lens[0], 3);
	assert_memory_equal(v->keys[0], "a\0b", 4);
	assert_int_equal(v->items[0]->len, 3);
	assert_memory_equal(v->items[0]->text, "x\0y", 4);
	/* Lookups compare whole names: "a" is not "a\0b". */
	assert_null(tjson_get(v, "a"));
	dump = tjson_dump(v);
	assert_string_equal(dump, "{\"a\\u0000b\":\"x\\u0000y\"}");
	free(dump);
	tjson_free(v);
}

static void test_raw_utf8(void **state)
{
	static const char s[] = "\"\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF"
				"\xEE\x80\x80\xEF\xBF\xBF\xF0\x90\x80\x80"
				"\xF4\x8F\xBF\xBF\x7F\"";
	struct tjson *v = parse_ok(s, sizeof(s) - 1);

	(void)state;
	assert_int_equal(v->len, sizeof(s) - 3);
	assert_memory_equal(v->text, s + 1, sizeof(s) - 3);
	tjson_free(v);
}

/* Whether the string literal made of the n bytes b parses (as one string). */
static int string_ok(const unsigned char *b, size_t n)
{
	char doc[16];
	struct tjson *v;
	int ok;

	assert_true(n + 2 <= sizeof(doc));
	doc[0] = '"';
	memcpy(doc + 1, b, n);
	doc[n + 1] = '"';
	v = tjson_parse(doc, n + 2, NULL);
	ok = v != NULL;
	if (v) {
		assert_int_equal(v->type, TJSON_STRING);
		assert_int_equal(v->len, n);
		assert_memory_equal(v->text, b, n);
	}
	tjson_free(v);
	return ok;
}

/* The edges of RFC 3629's ranges, one by one. */
static void test_utf8_boundaries(void **state)
{
	static const struct {
		const char *bytes;
		int valid;
	} cases[] = {
		/* C0 and C1 only start overlong forms; C2 starts U+0080 */
		{ "\xC0\x80", 0 }, { "\xC0\xBF", 0 }, { "\xC1\x80", 0 },
		{ "\xC1\xBF", 0 }, { "\xC2\x80", 1 }, { "\xDF\xBF", 1 },
		{ "\xC2\x7F", 0 }, { "\xC2\xC0", 0 },
		/* E0 80..9F would be overlong: E0 A0 80 is U+0800 */
		{ "\xE0\x80\x80", 0 }, { "\xE0\x9F\xBF", 0 }, { "\xE0\xA0\x80", 1 },
		{ "\xE0\xBF\xBF", 1 }, { "\xE1\x80\x80", 1 }, { "\xEC\xBF\xBF", 1 },
		/* ED A0..BF are the surrogates U+D800..U+DFFF */
		{ "\xED\x80\x80", 1 }, { "\xED\x9F\xBF", 1 }, { "\xED\xA0\x80", 0 },
		{ "\xED\xAF\xBF", 0 }, { "\xED\xB0\x80", 0 }, { "\xED\xBF\xBF", 0 },
		{ "\xEE\x80\x80", 1 }, { "\xEF\xBF\xBF", 1 },
		{ "\xE1\x7F\x80", 0 }, { "\xE1\x80\x7F", 0 }, { "\xE1\x80\xC0", 0 },
		/* F0 80..8F would be overlong: F0 90 80 80 is U+10000 */
		{ "\xF0\x80\x80\x80", 0 }, { "\xF0\x8F\xBF\xBF", 0 },
		{ "\xF0\x90\x80\x80", 1 }, { "\xF3\xBF\xBF\xBF", 1 },
		/* F4 90 and up is above U+10FFFF */
		{ "\xF4\x80\x80\x80", 1 }, { "\xF4\x8F\xBF\xBF", 1 },
		{ "\xF4\x90\x80\x80", 0 }, { "\xF4\xBF\xBF\xBF", 0 },
		{ "\xF1\x80\x80\x7F", 0 }, { "\xF1\x80\x80\xC0", 0 },
		/* F5..FF start nothing (F5..F7 would be above U+10FFFF) */
		{ "\xF5\x80\x80\x80", 0 }, { "\xF7\xBF\xBF\xBF", 0 },
		{ "\xF8\x88\x80\x80\x80", 0 }, { "\xFC\x84\x80\x80\x80\x80", 0 },
		{ "\xFE", 0 }, { "\xFF", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const unsigned char *b = (const unsigned char *)cases[i].bytes;
		size_t n = strlen(cases[i].bytes);

		if (string_ok(b, n) != cases[i].valid)
			print_error("case #%zu: want %s\n", i,
				    cases[i].valid ? "valid" : "invalid");
		assert_int_equal(string_ok(b, n), cases[i].valid);
		/* cut short, no sequence is valid */
		for (size_t cut = 1; cut < n; cut++)
			assert_false(string_ok(b, cut));
	}
}

/*
 * Every lead byte from 0x80 with every second byte, the rest of the
 * sequence continuation bytes 0x80 or 0xBF: valid exactly when the rows of
 * RFC 3629 §4's syntax (UTF8-2, UTF8-3, UTF8-4) allow the first two bytes.
 */
static void test_utf8_lead_and_second_byte(void **state)
{
	static const struct {
		unsigned char lead_lo, lead_hi, second_lo, second_hi;
		size_t len;
	} rfc3629[] = {
		{ 0xC2, 0xDF, 0x80, 0xBF, 2 },
		{ 0xE0, 0xE0, 0xA0, 0xBF, 3 }, { 0xE1, 0xEC, 0x80, 0xBF, 3 },
		{ 0xED, 0xED, 0x80, 0x9F, 3 }, { 0xEE, 0xEF, 0x80, 0xBF, 3 },
		{ 0xF0, 0xF0, 0x90, 0xBF, 4 }, { 0xF1, 0xF3, 0x80, 0xBF, 4 },
		{ 0xF4, 0xF4, 0x80, 0x8F, 4 },
	};
	size_t accepted = 0;

	(void)state;
	for (unsigned lead = 0x80; lead <= 0xFF; lead++) {
		size_t len = 2, row;
		int lead_ok = 0;

		for (row = 0; row < sizeof(rfc3629) / sizeof(rfc3629[0]); row++)
			if (lead >= rfc3629[row].lead_lo && lead <= rfc3629[row].lead_hi) {
				len = rfc3629[row].len;
				lead_ok = 1;
				break;
			}
		for (unsigned second = 0; second <= 0xFF; second++) {
			int want = lead_ok && second >= rfc3629[row].second_lo &&
				   second <= rfc3629[row].second_hi;

			for (unsigned tail = 0x80; tail <= 0xBF; tail += 0x3F) {
				unsigned char b[4] = { (unsigned char)lead, (unsigned char)second,
						       (unsigned char)tail, (unsigned char)tail };

				if (second == '"' || second == '\\')
					continue; /* would end the string, or escape */
				if (string_ok(b, len) != want)
					print_error("%02X %02X (%zu bytes): want %s\n", lead,
						    second, len, want ? "valid" : "invalid");
				assert_int_equal(string_ok(b, len), want);
				accepted += (size_t)want;
			}
		}
	}
	/* per tail byte, the (lead, second) pairs the rows allow */
	assert_int_equal(accepted, 2 * (30 * 64 + 32 + 12 * 64 + 32 + 2 * 64 + 48 + 3 * 64 + 16));
}

/* The shortest encoding of cp in out; returns its length. */
static size_t encode(unsigned cp, size_t len, unsigned char *out)
{
	static const unsigned char lead_mark[5] = { 0, 0, 0xC0, 0xE0, 0xF0 };

	if (len == 1) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	for (size_t i = len - 1; i > 0; i--, cp >>= 6)
		out[i] = (unsigned char)(0x80 | (cp & 0x3F));
	out[0] = (unsigned char)(lead_mark[len] | cp);
	return len;
}

/* Every code point in its shortest form is valid except the surrogates;
 * the first code points in a longer form (overlong) never are. */
static void test_utf8_every_code_point(void **state)
{
	unsigned char b[4];

	(void)state;
	for (unsigned cp = 0x20; cp <= 0x10FFFF; cp++) {
		size_t len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		int surrogate = cp >= 0xD800 && cp <= 0xDFFF;

		if (cp == '"' || cp == '\\')
			continue;
		encode(cp, len, b);
		if (string_ok(b, len) == surrogate)
			print_error("U+%04X\n", cp);
		assert_int_equal(string_ok(b, len), !surrogate);
		for (size_t longer = len + 1; longer <= 4 && cp < 0x800; longer++) {
			encode(cp, longer, b);
			assert_false(string_ok(b, longer));
		}
	}
}

static void test_numbers(void **state)
{
	static const struct {
		const char *s;
		double d;
	} cases[] = {
		{ "0", 0 }, { "-0", 0 }, { "7", 7 }, { "-12", -12 },
		{ "0.5", 0.5 }, { "-0.25", -0.25 }, { "1e3", 1000 },
		{ "1E+2", 100 }, { "25e-1", 2.5 }, { "-1.5E-0", -1.5 },
		{ "0.000123", 0.000123 }, { "1.0", 1 }, { "10", 10 },
		{ "12345678901234567890", 12345678901234567890.0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tjson *v = parse_str(cases[i].s);

		assert_int_equal(v->type, TJSON_NUMBER);
		assert_string_equal(v->text, cases[i].s);
		assert_true(v->number == cases[i].d);
		tjson_free(v);
	}
}

static void test_scalars(void **state)
{
	struct tjson *v;

	(void)state;
	v = parse_str(" null ");
	assert_int_equal(v->type, TJSON_NULL);
	tjson_free(v);
	v = parse_str("true");
	assert_int_equal(v->type, TJSON_BOOL);
	assert_int_equal(v->boolean, 1);
	tjson_free(v);
	v = parse_str("\n\"\"\n");
	assert_int_equal(v->type, TJSON_STRING);
	assert_int_equal(v->len, 0);
	assert_string_equal(v->text, "");
	tjson_free(v);
}

/* The length, not a NUL, ends the input. */
static void test_length_bounded(void **state)
{
	struct tjson *v;

	(void)state;
	v = parse_ok("123abc", 3);
	assert_string_equal(v->text, "123");
	tjson_free(v);
	v = parse_ok("[1]garbage", 3);
	assert_int_equal(v->n, 1);
	tjson_free(v);
	assert_null(tjson_parse("\"abc\"", 4, NULL));
	assert_null(tjson_parse("tru" "e", 3, NULL));
}

static void test_many_elements(void **state)
{
	enum { N = 1000 };
	char *s = malloc(N * 16 + 16), *p = s, *keys;
	struct tjson *v;

	(void)state;
	*p++ = '{';
	for (int i = 0; i < N; i++)
		p += sprintf(p, "%s\"k%d\":[%d]", i ? "," : "", i, i);
	*p++ = '}';
	v = parse_ok(s, (size_t)(p - s));
	assert_int_equal(v->n, N);
	assert_string_equal(tjson_get(v, "k999")->items[0]->text, "999");
	keys = tjson_keys(v);
	assert_memory_equal(keys, "k0,k1,k2,", 9);
	free(keys);
	tjson_free(v);
	free(s);
}

/* depth nested arrays or objects around a 0. */
static char *nested(int depth, int objects)
{
	char *s = malloc((size_t)depth * 6 + 2), *p = s;

	for (int i = 0; i < depth; i++)
		p += sprintf(p, "%s", objects ? "{\"a\":" : "[");
	*p++ = '0';
	for (int i = 0; i < depth; i++)
		*p++ = objects ? '}' : ']';
	*p = '\0';
	return s;
}

static void test_depth_limit(void **state)
{
	(void)state;
	for (int objects = 0; objects <= 1; objects++) {
		char *ok = nested(TJSON_MAX_DEPTH, objects);
		char *deep = nested(TJSON_MAX_DEPTH + 1, objects);
		const char *err = NULL;

		tjson_free(parse_str(ok));
		assert_null(tjson_parse(deep, strlen(deep), &err));
		assert_string_equal(err, "nesting too deep");
		free(ok);
		free(deep);
	}
}

static void test_dump(void **state)
{
	(void)state;
	assert_dump(" { \"a\" : [ 1 , 2.50 , -0 , 1E+2 ] , \"b\" : { } , "
		    "\"c\" : [ ] , \"d\" : [ true , false , null ] } ",
		    "{\"a\":[1,2.50,-0,1E+2],\"b\":{},\"c\":[],"
		    "\"d\":[true,false,null]}");
	assert_dump("\"\\u0001\\u001F\\\"\\\\\\/\\b\\f\\n\\r\\t\\u007f\\u00e9\"",
		    "\"\\u0001\\u001f\\\"\\\\/\\b\\f\\n\\r\\t\x7f\xC3\xA9\"");
	assert_dump("{\"k\\n\":\"v\"}", "{\"k\\n\":\"v\"}");
	assert_dump("\"\\ud83d\\ude00\"", "\"\xF0\x9F\x98\x80\"");
}

static void test_null_safety(void **state)
{
	struct tjson *arr = parse_str("[\"x\"]");

	(void)state;
	tjson_free(NULL);
	assert_null(tjson_get(NULL, "a"));
	assert_null(tjson_get(arr, "a"));
	assert_null(tjson_get_str(NULL, "a"));
	assert_null(tjson_keys(NULL));
	assert_null(tjson_keys(arr));
	assert_null(tjson_dump(NULL));
	assert_null(tjson_parse(NULL, 0, NULL));
	assert_null(tjson_parse(NULL, 5, NULL));
	tjson_free(arr);
}

static const struct doc invalid[] = {
	/* empty */
	DOC(""), DOC("   "), DOC("\n"),
	/* trailing / missing commas, bad separators */
	DOC("[1,]"), DOC("{\"a\":1,}"), DOC("[,1]"), DOC("{,}"), DOC("[1,,2]"),
	DOC("[1 2]"), DOC("{\"a\":1 \"b\":2}"), DOC("{\"a\" 1}"),
	DOC("{\"a\"=1}"), DOC("[1;2]"),
	/* names must be strings */
	DOC("{1:2}"), DOC("{null:1}"), DOC("{a:1}"), DOC("{'a':1}"),
	/* single quotes */
	DOC("'a'"), DOC("['a']"),
	/* raw control characters in strings */
	DOC("\"a\x01" "b\""), DOC("\"\x1f\""), DOC("\"\x00\""), DOC("\"\n\""),
	DOC("\"\t\""), DOC("\"\r\""), DOC("{\"k\x01\":1}"),
	/* invalid UTF-8 */
	DOC("\"\xC0\xAF\""), DOC("\"\xC1\xBF\""), DOC("\"\xED\xA0\x80\""),
	DOC("\"\xED\xBF\xBF\""), DOC("\"\xE0\x80\x80\""),
	DOC("\"\xF0\x80\x80\x80\""), DOC("\"\xF4\x90\x80\x80\""),
	DOC("\"\xF5\x80\x80\x80\""), DOC("\"\x80\""), DOC("\"\xBF\""),
	DOC("\"\xFE\""), DOC("\"\xFF\""), DOC("\"\xC3\""),
	DOC("\"\xE2\x82\""), DOC("\"\xF0\x9F\x98\""), DOC("\"\xC3"),
	DOC("\"\xE2\x82"), DOC("\"\xC3\x28\""), DOC("\"\xE2\x28\xA1\""),
	DOC("\"\xF0\x9F\x98\x28\""), DOC("{\"\xC0\xAF\":1}"),
	/* numbers */
	DOC("01"), DOC("-01"), DOC("00"), DOC("[01]"), DOC("{\"a\":007}"),
	DOC("1."), DOC(".5"), DOC("-"), DOC("-a"), DOC("+1"), DOC("1e"),
	DOC("1e+"), DOC("1E-"), DOC("1.e3"), DOC("0x10"), DOC("1.5.2"),
	DOC("- 1"), DOC("NaN"), DOC("Infinity"), DOC("-Infinity"),
	DOC("1_000"),
	/* bare words */
	DOC("tru"), DOC("nul"), DOC("fals"), DOC("True"), DOC("NULL"),
	DOC("nulll"), DOC("undefined"), DOC("abc"), DOC("[x]"),
	/* unterminated */
	DOC("\"abc"), DOC("["), DOC("{"), DOC("[1"), DOC("[1,"),
	DOC("{\"a\""), DOC("{\"a\":"), DOC("{\"a\":1"), DOC("{\"a\":1,"),
	DOC("\"\\"), DOC("\"\\u12"), DOC("[\"a"), DOC("{\"a"),
	/* garbage after the value */
	DOC("{} x"), DOC("1 2"), DOC("[1]]"), DOC("{}{}"), DOC("{}}"),
	DOC("\"a\"\"b\""), DOC("null\x00"), DOC("truex"), DOC("0x"),
	DOC("[1]//"), DOC("/*c*/1"), DOC("1,"),
	/* lone or broken surrogates */
	DOC("\"\\ud800\""), DOC("\"\\udc00\""), DOC("\"\\uDFFF\""),
	DOC("\"\\ud800\\u0041\""), DOC("\"\\ud800\\ud800\""),
	DOC("\"\\ud800x\""), DOC("\"\\ud800\\\""), DOC("\"\\ud800\\n\""),
	DOC("\"\\ude00\\ud83d\""), DOC("\"\\ud83d\\u"),
	/* bad escapes */
	DOC("\"\\x41\""), DOC("\"\\U0041\""), DOC("\"\\u00g0\""),
	DOC("\"\\u 041\""), DOC("\"\\'\""), DOC("\"\\a\""), DOC("\"\\0\""),
	DOC("\"\\\x00\""), DOC("\"\\\xC3\xA9\""),
	/* whitespace JSON does not allow, byte order mark */
	DOC("\v1"), DOC("\f1"), DOC("\xC2\xA0" "1"), DOC("\xEF\xBB\xBF{}"),
	DOC("[1\v]"),
};

static void test_invalid(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		const char *err = NULL;
		struct tjson *v = tjson_parse(invalid[i].s, invalid[i].len, &err);

		if (v)
			print_error("accepted invalid document #%zu: %.*s\n", i,
				    (int)invalid[i].len, invalid[i].s);
		assert_null(v);
		assert_non_null(err);
		/* err is optional. */
		assert_null(tjson_parse(invalid[i].s, invalid[i].len, NULL));
	}
}

static void test_error_messages(void **state)
{
	static const struct {
		struct doc d;
		const char *err;
	} cases[] = {
		{ DOC("01"), "leading zero in number" },
		{ DOC("[1] x"), "trailing garbage after value" },
		{ DOC("\"\\ud800\""), "lone high surrogate in \\u escape" },
		{ DOC("\"\\udc00\""), "lone low surrogate in \\u escape" },
		{ DOC("\"\xC0\xAF\""), "invalid UTF-8 in string" },
		{ DOC("\"\x01\""), "raw control character in string" },
		{ DOC("\"abc"), "unterminated string" },
		{ DOC("[1,]"), "unexpected character" },
		{ DOC("{\"a\":1,}"), "member name expected" },
		{ DOC(""), "unexpected end of input" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *err = NULL;

		assert_null(tjson_parse(cases[i].d.s, cases[i].d.len, &err));
		assert_string_equal(err, cases[i].err);
	}
}

/* Every proper prefix of an object is incomplete and must be rejected. */
static void test_prefixes_rejected(void **state)
{
	static const char line[] =
		"{\"event\":\"data_json\",\"a\":[1,-2.5e+3,{\"b\":\"\\u00e9\\ud83d\\ude00\"}],"
		"\"t\":true,\"f\":false,\"n\":null,\"s\":\"\xC3\xA9\"}";

	(void)state;
	tjson_free(parse_ok(line, sizeof(line) - 1));
	for (size_t n = 0; n < sizeof(line) - 1; n++) {
		char *copy = malloc(n ? n : 1);

		/* An exact-size heap copy lets ASan catch reads past len. */
		memcpy(copy, line, n);
		assert_null(tjson_parse(copy, n, NULL));
		free(copy);
	}
}

static uint32_t rng_next(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * Mutate a trace line at random: no crash, no leak, and whatever is
 * accepted survives a dump/parse/dump round trip unchanged.
 */
static void test_fuzz(void **state)
{
	static const char line[] =
		"{\"event\":\"data_json\",\"sid\":\"s\",\"thread\":\"main\","
		"\"value\":{\"k\":[0,1.5e-3,\"\\u0041\\n\",null,true,{}]},"
		"\"s\":\"\xE2\x82\xAC\\ud83d\\ude00\"}";
	static const char alphabet[] = "{}[]\",:\\u0123456789.eE+-tfnl \x01\x80\xC3\xED\xFF";
	uint32_t seed = 0x1234567u;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		size_t len = sizeof(line) - 1;
		char *buf = malloc(len);
		int edits = 1 + (int)(rng_next(&seed) % 4);
		struct tjson *v;

		memcpy(buf, line, len);
		for (int e = 0; e < edits; e++) {
			size_t at = rng_next(&seed) % len;

			if (rng_next(&seed) % 2)
				buf[at] = alphabet[rng_next(&seed) % (sizeof(alphabet) - 1)];
			else
				buf[at] = (char)(rng_next(&seed) & 0xFF);
		}
		len -= rng_next(&seed) % 3 ? 0 : rng_next(&seed) % len;
		v = tjson_parse(buf, len, NULL);
		if (v) {
			char *d1 = tjson_dump(v);
			struct tjson *w = parse_ok(d1, strlen(d1));
			char *d2 = tjson_dump(w);

			assert_string_equal(d1, d2);
			free(d1);
			free(d2);
			tjson_free(w);
			tjson_free(v);
		}
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_line),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_key_order_and_duplicates),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_nul_in_strings),
		cmocka_unit_test(test_raw_utf8),
		cmocka_unit_test(test_utf8_boundaries),
		cmocka_unit_test(test_utf8_lead_and_second_byte),
		cmocka_unit_test(test_utf8_every_code_point),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_length_bounded),
		cmocka_unit_test(test_many_elements),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_null_safety),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_error_messages),
		cmocka_unit_test(test_prefixes_rejected),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
