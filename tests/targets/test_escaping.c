/*
 * JSON string escaping on the EVENT target and its UTF-8 repair
 * (docs/targets.md, "JSON strings": valid UTF-8 unchanged, every invalid byte
 * replaced by U+FFFD = EF BF BD, every line strict JSON), raw bytes on
 * NORMAL and PERF, 1 MiB strings that must never be
 * truncated, and thread names that need escaping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"
#include "trace2/target.h"

static const char *const BRIEF[] = {
	"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1", "GIT_TRACE2_EVENT_BRIEF=1", NULL
};

#define EV_MAIN(ev) "{\"event\":\"" ev "\",\"sid\":\"SID\",\"thread\":\"main\""
#define VERSION_NORMAL "version " TRACE2_VERSION_STRING "\n"
#define VERSION_EVENT EV_MAIN("version") ",\"time\":\"2000-01-01T00:00:00.000000Z\",\"evt\":\"4\",\"exe\":\"" TRACE2_VERSION_STRING "\"}\n"
#define ATEXIT_NORMAL "atexit elapsed:0.000000 code:0\n"
#define ATEXIT_EVENT EV_MAIN("atexit") ",\"time\":\"2000-01-01T00:00:00.000000Z\",\"t_abs\":0.000000,\"code\":0}\n"

/* U+FFFD, what each invalid byte becomes on the EVENT target */
#define R "\xEF\xBF\xBD"

/*
 * A string the scenario traces, what the EVENT target must write between
 * the quotes, and what a JSON parser must decode from that (NULL: the
 * same as json, i.e. no escapes involved).
 */
struct str_case {
	const char *what;
	const char *raw;
	const char *json;
	const char *decoded;
};

static const struct str_case CONTROL[] = {
	{ "control bytes, quote, backslash, DEL, slash",
	  "<\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
	  "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
	  "\"\\\x7f/>",
	  "<\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
	  "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b"
	  "\\u001c\\u001d\\u001e\\u001f\\\"\\\\\x7f/>",
	  "<\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
	  "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
	  "\"\\\x7f/>" },
};

static const struct str_case UTF8[] = {
	/* valid: unchanged, byte for byte */
	{ "2-byte", "\xC3\xA9 \xC2\x80 \xDF\xBF", "\xC3\xA9 \xC2\x80 \xDF\xBF", NULL },
	{ "3-byte", "\xE2\x82\xAC \xE0\xA0\x80 \xED\x9F\xBF \xEE\x80\x80 \xEF\xBF\xBF",
	  "\xE2\x82\xAC \xE0\xA0\x80 \xED\x9F\xBF \xEE\x80\x80 \xEF\xBF\xBF", NULL },
	{ "4-byte", "\xF0\x9F\x98\x80 \xF0\x90\x80\x80 \xF4\x8F\xBF\xBF",
	  "\xF0\x9F\x98\x80 \xF0\x90\x80\x80 \xF4\x8F\xBF\xBF", NULL },
	{ "mixed", "a\xC3\xA9" "b\xE2\x82\xAC" "c\xF0\x9F\x98\x80" "d",
	  "a\xC3\xA9" "b\xE2\x82\xAC" "c\xF0\x9F\x98\x80" "d", NULL },
	{ "U+FFFD itself", R, R, NULL },
	/* invalid: every offending byte becomes U+FFFD */
	{ "lone continuation", "a\x80" "b", "a" R "b", NULL },
	{ "continuations", "\x80\xBF\xBF", R R R, NULL },
	{ "overlong C0 AF", "x\xC0\xAFy", "x" R R "y", NULL },
	{ "overlong C1 BF", "\xC1\xBF", R R, NULL },
	{ "overlong E0 80 AF", "\xE0\x80\xAF", R R R, NULL },
	{ "overlong F0 80 80 AF", "\xF0\x80\x80\xAF", R R R R, NULL },
	{ "surrogate ED A0 80", "s\xED\xA0\x80", "s" R R R, NULL },
	{ "surrogate ED BF BF", "\xED\xBF\xBF" "t", R R R "t", NULL },
	{ "truncated 2 at end", "ab\xC3", "ab" R, NULL },
	{ "truncated 2", "\xC3" "a", R "a", NULL },
	{ "truncated 3 at end", "\xE2\x82", R R, NULL },
	{ "truncated 3", "\xE2\x82" "a", R R "a", NULL },
	{ "truncated 4 at end", "\xF0\x9F\x98", R R R, NULL },
	{ "truncated 4", "\xF0\x9F\x98" " ", R R R " ", NULL },
	{ "lead then valid", "\xC3\xC3\xA9", R "\xC3\xA9", NULL },
	{ "above U+10FFFF F4 90", "\xF4\x90\x80\x80", R R R R, NULL },
	{ "above U+10FFFF F5", "\xF5\x80\x80\x80", R R R R, NULL },
	{ "FF", "\xFF", R, NULL },
	{ "FE in text", "a\xFE" "b\xFF", "a" R "b" R, NULL },
	{ "invalid next to escapes", "\x01\xFF\"\xC0\n",
	  "\\u0001" R "\\\"" R "\\n", "\x01" R "\"" R "\n" },
};

#define N_UTF8 (sizeof(UTF8) / sizeof(UTF8[0]))

struct cases {
	const struct str_case *v;
	size_t n;
};

/*
 * Each string as a data key and value, as a region label and message,
 * as a region_leave label and as a printf message.
 */
static void sc_strings(void *arg)
{
	const struct cases *c = arg;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const char *s = c->v[i].raw;

		trace2_data_string("esc", NULL, s, s);
		trace2_region_enter_printf("esc", s, NULL, "%s", s);
		trace2_region_leave("esc", s, NULL);
		trace2_printf("%s", s);
	}
}

/* The exact brief output of sc_strings on all three targets. */
static void expected_strings(const struct cases *c, char **normal, char **perf,
			     char **event)
{
	size_t i;

	t2_append(normal, "%s", VERSION_NORMAL);
	t2_perf_brief(perf, "main", "version", 0, 0, "", TRACE2_VERSION_STRING);
	t2_append(event, "%s", VERSION_EVENT);
	for (i = 0; i < c->n; i++) {
		const char *s = c->v[i].raw, *j = c->v[i].json;
		char *payload = NULL;

		/* a record already ending in LF gets none added */
		t2_append(normal, "%s%s", s, *s && s[strlen(s) - 1] == '\n' ? "" : "\n");

		t2_append(&payload, "%s:%s", s, s);
		t2_perf_brief(perf, "main", "data", 1, 1, "esc", payload);
		free(payload);
		payload = NULL;
		t2_append(&payload, "label:%s %s", s, s);
		t2_perf_brief(perf, "main", "region_enter", 1, 0, "esc", payload);
		free(payload);
		payload = NULL;
		t2_append(&payload, "label:%s", s);
		t2_perf_brief(perf, "main", "region_leave", 1, 1, "esc", payload);
		free(payload);
		t2_perf_brief(perf, "main", "printf", 1, 0, "", s);

		t2_append(event, EV_MAIN("data") ",\"t_abs\":0.000000,\"t_rel\":0.000000,"
			  "\"nesting\":1,\"category\":\"esc\",\"key\":\"%s\",\"value\":\"%s\"}\n", j, j);
		t2_append(event, EV_MAIN("region_enter") ",\"nesting\":1,\"category\":\"esc\","
			  "\"label\":\"%s\",\"msg\":\"%s\"}\n", j, j);
		t2_append(event, EV_MAIN("region_leave") ",\"t_rel\":0.000000,\"nesting\":1,"
			  "\"category\":\"esc\",\"label\":\"%s\"}\n", j);
		t2_append(event, EV_MAIN("printf") ",\"t_abs\":0.000000,\"msg\":\"%s\"}\n", j);
	}
	t2_append(normal, "%s", ATEXIT_NORMAL);
	t2_perf_brief(perf, "main", "atexit", 1, 0, "", "code:0");
	t2_append(event, "%s", ATEXIT_EVENT);
}

/* Every line strict JSON; the strings decode to the expected bytes. */
static void check_decoded(const struct cases *c, const char *event_text)
{
	static const char *const members[] = { "key", "value", "label", "msg" };
	size_t n, i, k, m;
	char **lines = t2_lines(event_text, &n);

	/* version, four records per string, atexit */
	assert_int_equal(n, 2 + 4 * c->n);
	for (i = 0; i < n; i++) {
		const char *err = NULL;
		struct tjson *v = tjson_parse(lines[i], strlen(lines[i]), &err);
		const struct str_case *sc = i && i < n - 1 ? &c->v[(i - 1) / 4] : NULL;
		const char *want;

		if (!v)
			print_error("line %zu is no strict JSON (%s): %s\n", i + 1, err, lines[i]);
		assert_non_null(v);
		if (sc) {
			want = sc->decoded ? sc->decoded : sc->json;
			for (m = k = 0; m < sizeof(members) / sizeof(members[0]); m++) {
				const struct tjson *s = tjson_get(v, members[m]);

				if (!s)
					continue;
				k++;
				assert_int_equal(s->type, TJSON_STRING);
				if (s->len != strlen(want) || memcmp(s->text, want, s->len))
					print_error("%s: %s decodes wrongly\n", sc->what, members[m]);
				assert_int_equal(s->len, strlen(want));
				assert_memory_equal(s->text, want, s->len);
			}
			assert_true(k >= 1);
		}
		tjson_free(v);
	}
	t2_strv_free(lines);
}

static void run_strings(const struct cases *c)
{
	struct t2_out out;
	char *normal = NULL, *perf = NULL, *event = NULL;

	t2_run_all(sc_strings, (void *)c, BRIEF, &out);
	assert_int_equal(out.status, 0);
	expected_strings(c, &normal, &perf, &event);
	assert_string_equal(out.normal, normal);
	assert_string_equal(out.perf, perf);
	check_decoded(c, out.event);
	assert_string_equal(out.event, event);
	free(normal);
	free(perf);
	free(event);
	t2_out_free(&out);
}

static void control_bytes_escaped(void **state)
{
	const struct cases c = { CONTROL, 1 };

	(void)state;
	run_strings(&c);
}

/* All cases together, and each one alone (no state carried between). */
static void utf8_kept_or_replaced(void **state)
{
	const struct cases all = { UTF8, N_UTF8 };
	size_t i;

	(void)state;
	run_strings(&all);
	for (i = 0; i < N_UTF8; i++) {
		const struct cases one = { &UTF8[i], 1 };

		run_strings(&one);
	}
}

/* ------------------------------------------------------------------ */
/* 1 MiB strings.                                                       */
/* ------------------------------------------------------------------ */

#define BIG (1024 * 1024)

struct big {
	char *raw;		/* exactly BIG bytes */
	char *json;		/* as the EVENT target writes it */
	size_t json_len;
	char *decoded;		/* what a JSON parser reads back from that */
	size_t decoded_len;
};

/*
 * Pseudo-random text of exactly BIG bytes: mostly ASCII, with quotes,
 * backslashes, control bytes, DEL, multi-byte UTF-8 and an invalid byte
 * mixed in; no LF and no '|' so that NORMAL/PERF lines can be split.
 */
static void make_big(struct big *b, uint32_t seed)
{
	static const char plain[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_/:.";
	static const struct { const char *raw, *json, *decoded; } special[] = {
		{ "\"", "\\\"", "\"" }, { "\\", "\\\\", "\\" }, { "\t", "\\t", "\t" },
		{ "\r", "\\r", "\r" }, { "\x01", "\\u0001", "\x01" },
		{ "\x1f", "\\u001f", "\x1f" }, { "\x7f", "\x7f", "\x7f" },
		{ "\xC3\xA9", "\xC3\xA9", "\xC3\xA9" },
		{ "\xE2\x82\xAC", "\xE2\x82\xAC", "\xE2\x82\xAC" },
		{ "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80" },
		{ "\xFF", R, R },
	};
	size_t n = 0, j = 0, d = 0;

	b->raw = malloc(BIG + 1);
	b->json = malloc(6 * BIG + 1);
	b->decoded = malloc(3 * BIG + 1);
	assert_non_null(b->raw);
	assert_non_null(b->json);
	assert_non_null(b->decoded);
	while (n < BIG) {
		const char *raw, *json, *decoded;
		char one[2] = { 0, 0 };
		size_t rl;

		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 10) {
			one[0] = plain[(seed >> 20) % (sizeof(plain) - 1)];
			raw = json = decoded = one;
		} else {
			size_t k = (seed >> 20) % (sizeof(special) / sizeof(special[0]));

			raw = special[k].raw;
			json = special[k].json;
			decoded = special[k].decoded;
		}
		rl = strlen(raw);
		if (n + rl > BIG) {
			one[0] = 'x';
			raw = json = decoded = one;
			rl = 1;
		}
		memcpy(b->raw + n, raw, rl);
		n += rl;
		memcpy(b->json + j, json, strlen(json));
		j += strlen(json);
		memcpy(b->decoded + d, decoded, strlen(decoded));
		d += strlen(decoded);
	}
	b->raw[n] = '\0';
	b->json[j] = '\0';
	b->json_len = j;
	b->decoded[d] = '\0';
	b->decoded_len = d;
}

static void free_big(struct big *b)
{
	free(b->raw);
	free(b->json);
	free(b->decoded);
}

struct bigs {
	struct big label, msg, value;
};

static void sc_big(void *arg)
{
	const struct bigs *b = arg;

	trace2_region_enter("c", b->label.raw, NULL);
	trace2_region_leave("c", b->label.raw, NULL);
	trace2_printf("<%s>", b->msg.raw);
	trace2_data_string("c", NULL, "k", b->value.raw);
}

/* got[0..strlen) is exactly prefix + want[0..want_len) + suffix. */
static void expect_text(const char *what, const char *got, const char *prefix,
			const char *want, size_t want_len, const char *suffix)
{
	size_t pl = strlen(prefix), sl = strlen(suffix), gl = strlen(got), i;

	if (gl != pl + want_len + sl)
		print_error("%s: %zu bytes instead of %zu\n", what, gl, pl + want_len + sl);
	assert_int_equal(gl, pl + want_len + sl);
	assert_memory_equal(got, prefix, pl);
	for (i = 0; i < want_len && got[pl + i] == want[i]; i++)
		;
	if (i < want_len)
		print_error("%s: first difference at byte %zu\n", what, i);
	assert_int_equal(i, want_len);
	assert_string_equal(got + pl + want_len, suffix);
}

/* One brief PERF line of sc_big: the 8 columns, the payload exactly. */
static void expect_perf(const char *line, const char *event, const char *category,
			const char *payload_prefix, const struct big *b, const char *suffix)
{
	size_t n;
	char **f = t2_split(line, " | ", &n);
	char col[16];

	assert_int_equal(n, 8);
	assert_string_equal(f[0], "d0");
	assert_string_equal(f[1], "main                    ");
	snprintf(col, sizeof(col), "%-12s", event);
	assert_string_equal(f[2], col);
	snprintf(col, sizeof(col), "%-12s", category);
	assert_string_equal(f[6], col);
	expect_text(event, f[7], payload_prefix, b->raw, BIG, suffix);
	t2_strv_free(f);
}

/*
 * One EVENT line of sc_big: strict JSON with the keys in order, written
 * compactly, ending in the big string's escaped form (then `"}`), which
 * decodes to the string with U+FFFD for each invalid byte.
 */
static void expect_event(const char *line, const char *sid, const char *keys,
			 const char *member, const char *prefix, const struct big *b,
			 const char *suffix)
{
	const char *err = NULL;
	struct tjson *v = tjson_parse(line, strlen(line), &err);
	const struct tjson *s;
	char *k, *dump, *tail = NULL, *end = NULL;
	size_t ll = strlen(line), tl;

	if (!v)
		print_error("%s: no strict JSON: %s\n", member, err);
	assert_non_null(v);
	k = tjson_keys(v);
	assert_string_equal(k, keys);
	free(k);
	assert_string_equal(tjson_get_str(v, "sid"), sid);
	assert_string_equal(tjson_get_str(v, "thread"), "main");
	dump = tjson_dump(v);
	assert_non_null(dump);
	assert_true(!strcmp(dump, line));
	free(dump);

	t2_append(&tail, "\"%s\":\"%s", member, prefix);
	t2_append(&end, "%s\"}", suffix);
	tl = strlen(tail);
	assert_true(ll > tl + b->json_len + strlen(end));
	expect_text(member, line + ll - tl - b->json_len - strlen(end), tail,
		    b->json, b->json_len, end);
	free(tail);
	free(end);

	s = tjson_get(v, member);
	assert_non_null(s);
	assert_int_equal(s->type, TJSON_STRING);
	assert_int_equal(s->len, strlen(s->text));
	expect_text(member, s->text, prefix, b->decoded, b->decoded_len, suffix);
	tjson_free(v);
}

static void huge_strings_complete(void **state)
{
	struct bigs b;
	struct t2_out out;
	char **lines, sid[512];
	size_t n;

	(void)state;
	make_big(&b.label, 1);
	make_big(&b.msg, 2);
	make_big(&b.value, 3);
	t2_run_all_raw(sc_big, &b, BRIEF, &out);
	assert_int_equal(out.status, 0);

	/* NORMAL: version, the printf message, atexit */
	lines = t2_lines(out.normal, &n);
	assert_int_equal(n, 3);
	expect_text("normal printf", lines[1], "<", b.msg.raw, BIG, ">");
	t2_strv_free(lines);

	/* PERF: version, region_enter, region_leave, printf, data, atexit */
	lines = t2_lines(out.perf, &n);
	assert_int_equal(n, 6);
	expect_perf(lines[1], "region_enter", "c", "label:", &b.label, "");
	expect_perf(lines[2], "region_leave", "c", "label:", &b.label, "");
	expect_perf(lines[3], "printf", "", "<", &b.msg, ">");
	expect_perf(lines[4], "data", "c", "k:", &b.value, "");
	t2_strv_free(lines);

	/* EVENT: the same six records */
	lines = t2_lines(out.event, &n);
	assert_int_equal(n, 6);
	assert_int_equal(sscanf(lines[0], "{\"event\":\"version\",\"sid\":\"%511[^\"]\"", sid), 1);
	expect_event(lines[1], sid, "event,sid,thread,nesting,category,label",
		     "label", "", &b.label, "");
	expect_event(lines[2], sid, "event,sid,thread,t_rel,nesting,category,label",
		     "label", "", &b.label, "");
	expect_event(lines[3], sid, "event,sid,thread,t_abs,msg", "msg", "<", &b.msg, ">");
	expect_event(lines[4], sid, "event,sid,thread,t_abs,t_rel,nesting,category,key,value",
		     "value", "", &b.value, "");
	t2_strv_free(lines);

	t2_out_free(&out);
	free_big(&b.label);
	free_big(&b.msg);
	free_big(&b.value);
}

/* ------------------------------------------------------------------ */
/* Thread names.                                                        */
/* ------------------------------------------------------------------ */

static const struct {
	const char *base;
	const char *raw;	/* full name, cut to 24 bytes */
	const char *json;
} THREADS[] = {
	{ "q\"x\x01y\tz", "th01:q\"x\x01y\tz", "th01:q\\\"x\\u0001y\\tz" },
	{ "back\\slash\nlf", "th02:back\\slash\nlf", "th02:back\\\\slash\\nlf" },
	/* the cut splits U+00E9: the lone lead byte is replaced on EVENT */
	{ "abcdefghijklmnopqr\xC3\xA9", "th03:abcdefghijklmnopqr\xC3",
	  "th03:abcdefghijklmnopqr" R },
};

#define N_THREADS (sizeof(THREADS) / sizeof(THREADS[0]))

static void *named_thread(void *arg)
{
	trace2_thread_start((const char *)arg);
	trace2_data_string("t", NULL, "k", "v");
	trace2_thread_exit();
	return NULL;
}

static void sc_named_threads(void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < N_THREADS; i++) {
		pthread_t th;

		if (pthread_create(&th, NULL, named_thread, (void *)THREADS[i].base))
			exit(3);
		pthread_join(th, NULL);
	}
}

static void thread_names_escaped(void **state)
{
	struct t2_out out;
	char *perf = NULL, *event = NULL;
	size_t i, n;
	char **lines;

	(void)state;
	t2_run_all(sc_named_threads, NULL, BRIEF, &out);
	assert_int_equal(out.status, 0);
	t2_perf_brief(&perf, "main", "version", 0, 0, "", TRACE2_VERSION_STRING);
	t2_append(&event, "%s", VERSION_EVENT);
	for (i = 0; i < N_THREADS; i++) {
		const char *raw = THREADS[i].raw, *json = THREADS[i].json;

		t2_perf_brief(&perf, raw, "thread_start", 1, 0, "", "");
		t2_perf_brief(&perf, raw, "data", 1, 1, "t", "k:v");
		t2_perf_brief(&perf, raw, "thread_exit", 1, 1, "", "");
		t2_append(&event, "{\"event\":\"thread_start\",\"sid\":\"SID\",\"thread\":\"%s\"}\n", json);
		t2_append(&event, "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"%s\",\"t_abs\":0.000000,"
			  "\"t_rel\":0.000000,\"nesting\":1,\"category\":\"t\",\"key\":\"k\",\"value\":\"v\"}\n",
			  json);
		t2_append(&event, "{\"event\":\"thread_exit\",\"sid\":\"SID\",\"thread\":\"%s\","
			  "\"t_rel\":0.000000}\n", json);
	}
	t2_perf_brief(&perf, "main", "atexit", 1, 0, "", "code:0");
	t2_append(&event, "%s", ATEXIT_EVENT);

	assert_string_equal(out.normal, VERSION_NORMAL ATEXIT_NORMAL);
	assert_string_equal(out.perf, perf);
	assert_string_equal(out.event, event);
	lines = t2_lines(out.event, &n);
	for (i = 0; i < n; i++) {
		struct tjson *v = tjson_parse(lines[i], strlen(lines[i]), NULL);

		assert_non_null(v);
		tjson_free(v);
	}
	t2_strv_free(lines);
	free(perf);
	free(event);
	t2_out_free(&out);
}

/* ------------------------------------------------------------------ */
/* trace2_json_escape() and trace2_utf8_repair(), for targets.          */
/* ------------------------------------------------------------------ */

typedef size_t escape_fn(char *out, size_t size, const char *s, size_t len);

/*
 * fn on in (len bytes) must give want (want_len bytes) into a buffer of
 * exactly want_len bytes, and of its worst case max; one byte short it
 * must write nothing and say how much it needs, as with no buffer at all.
 */
static void expect_bounded(escape_fn *fn, const char *in, size_t len, const char *want,
			   size_t want_len, size_t max)
{
	char *buf = malloc(max + 1);

	assert_non_null(buf);
	memset(buf, '#', max + 1);
	assert_int_equal(fn(buf, want_len, in, len), want_len);
	assert_memory_equal(buf, want, want_len);
	assert_int_equal(buf[want_len], '#');
	memset(buf, '#', max + 1);
	assert_int_equal(fn(buf, max, in, len), want_len);
	assert_memory_equal(buf, want, want_len);
	assert_int_equal(buf[want_len], '#');
	if (want_len) {
		memset(buf, '#', max + 1);
		assert_int_equal(fn(buf, want_len - 1, in, len), want_len);
		for (size_t i = 0; i <= max; i++)
			assert_int_equal(buf[i], '#');
		assert_int_equal(fn(NULL, 0, in, len), want_len);
	}
	free(buf);
}

/*
 * Longer than the pieces a short buffer is measured in: a 4-byte
 * sequence at bytes 62..65, a run of 60 stray continuation bytes, a
 * sequence cut short at the end; each stray byte becomes U+FFFD.
 */
static void long_input_bounded(escape_fn *fn, size_t max_per_byte)
{
	char in[62 + 4 + 60 + 2], want[62 + 4 + 62 * 3], *p = want;

	memset(in, 'x', 62);
	memcpy(in + 62, "\xF0\x9F\x98\x80", 4);
	memset(in + 66, 0x80, 60);
	memcpy(in + 126, "\xE2\x82", 2);
	memcpy(p, in, 66);
	p += 66;
	for (int i = 0; i < 62; i++, p += 3)
		memcpy(p, R, 3);
	expect_bounded(fn, in, sizeof(in), want, sizeof(want), max_per_byte * sizeof(in));
}

/* fn (at most per_byte bytes out for each in) on the string in, the
 * empty string and a long input, bounded, and with no buffer at all. */
static void expect_public(escape_fn *fn, size_t per_byte, const char *in, const char *want)
{
	expect_bounded(fn, in, strlen(in), want, strlen(want), per_byte * strlen(in));
	expect_bounded(fn, "", 0, "", 0, 0);
	long_input_bounded(fn, per_byte);
	assert_int_equal(fn(NULL, 0, NULL, 0), 0);
}

static void public_json_escape_bounded(void **state)
{
	/* quote, LF, U+0001, é, an invalid byte, a sequence cut short */
	const char *in = "a\"b\n\x01\xC3\xA9\xFF\xE2\x82";
	const char *want = "a\\\"b\\n\\u0001\xC3\xA9" R R R;

	(void)state;
	expect_public(trace2_json_escape, TRACE2_JSON_ESCAPED_MAX(1), in, want);
}

static void public_utf8_repair_bounded(void **state)
{
	/* C3 before '(' is no sequence; € is kept; quotes stay raw */
	const char *in = "\"ok\"\xC3(\xE2\x82\xAC\x80";
	const char *want = "\"ok\"" R "(\xE2\x82\xAC" R;

	(void)state;
	expect_public(trace2_utf8_repair, TRACE2_UTF8_REPAIRED_MAX(1), in, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(control_bytes_escaped),
		cmocka_unit_test(utf8_kept_or_replaced),
		cmocka_unit_test(huge_strings_complete),
		cmocka_unit_test(thread_names_escaped),
		cmocka_unit_test(public_json_escape_bounded),
		cmocka_unit_test(public_utf8_repair_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
