/* Checks of the targets' records (trace_lines.h). */
#include "trace_lines.h"
#include "fuzz.h"
#include "tjson.h"

#include <stdlib.h>
#include <string.h>

#define LOCATION_WIDTH 28
#define THREAD_WIDTH 24
#define EVENT_WIDTH 12
#define CATEGORY_WIDTH 12

struct line {
	const char *p;
	size_t len;
	unsigned nr; /* 1-based, for messages */
};

static _Noreturn void bad_line(const char *target, const struct line *l,
			       const char *why)
{
	fz_fail(__FILE__, __LINE__, "%s line %u (%s): %.*s", target, l->nr, why,
		(int)l->len, l->p);
}

/* Cut text into lines; the text must end with LF.  Returns how many. */
static size_t split(const char *target, const char *text, size_t len,
		    struct line **out)
{
	size_t n = 0, alloc = 16, start = 0, i;
	struct line *v = malloc(alloc * sizeof(*v));

	FZ_CHECK(v != NULL);
	if (len && text[len - 1] != '\n')
		fz_fail(__FILE__, __LINE__, "%s: text does not end with LF", target);
	for (i = 0; i < len; i++) {
		if (text[i] != '\n')
			continue;
		if (n == alloc) {
			alloc *= 2;
			v = realloc(v, alloc * sizeof(*v));
			FZ_CHECK(v != NULL);
		}
		v[n].p = text + start;
		v[n].len = i - start;
		v[n].nr = (unsigned)n + 1;
		n++;
		start = i + 1;
	}
	*out = v;
	return n;
}

static int digits(const char *p, size_t n)
{
	for (; n; n--, p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

/* "HH:MM:SS.uuuuuu " */
static int local_time(const char *p, size_t len)
{
	return len >= 16 && digits(p, 2) && p[2] == ':' && digits(p + 3, 2) &&
	       p[5] == ':' && digits(p + 6, 2) && p[8] == '.' && digits(p + 9, 6) &&
	       p[15] == ' ';
}

void check_normal_text(const char *text, size_t len)
{
	struct line *v;
	size_t n = split("normal", text, len, &v), i;

	for (i = 0; i < n; i++)
		if (!local_time(v[i].p, v[i].len))
			bad_line("normal", &v[i], "no time prefix");
	free(v);
}

/* ------------------------------------------------------------------ */
/* PERF                                                                 */
/* ------------------------------------------------------------------ */

/* targets.md §3.2: which events fill the t_abs and t_rel columns. */
static const struct perf_event {
	const char *name;
	unsigned abs : 1, rel : 1;
} perf_events[] = {
	{ "version", 0, 0 }, { "start", 1, 0 }, { "exit", 1, 0 },
	{ "signal", 1, 0 }, { "atexit", 1, 0 }, { "error", 0, 0 },
	{ "cmd_path", 0, 0 }, { "cmd_ancestry", 0, 0 }, { "cmd_name", 0, 0 },
	{ "cmd_mode", 0, 0 }, { "alias", 0, 0 }, { "child_start", 1, 0 },
	{ "child_exit", 1, 1 }, { "child_ready", 1, 1 }, { "thread_start", 1, 0 },
	{ "thread_exit", 1, 1 }, { "exec", 1, 0 }, { "exec_result", 1, 0 },
	{ "def_param", 0, 0 }, { "def_repo", 0, 0 }, { "region_enter", 1, 0 },
	{ "region_leave", 1, 1 }, { "data", 1, 1 }, { "data_json", 1, 1 },
	{ "printf", 1, 0 }, { "timer", 0, 0 }, { "th_timer", 0, 0 },
	{ "counter", 0, 0 }, { "th_counter", 0, 0 },
};

struct cur {
	const char *p, *end;
};

static int take(struct cur *c, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return 0;
	c->p += n;
	return 1;
}

static int skip(struct cur *c, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return 0;
	c->p += n;
	return 1;
}

static size_t run_of(const struct cur *c, const char *set)
{
	size_t n = 0;

	while (c->p + n < c->end && c->p[n] && strchr(set, c->p[n]))
		n++;
	return n;
}

/* The fixed-width event column: a known name padded with spaces. */
static const struct perf_event *event_column(struct cur *c)
{
	size_t i, n;

	if ((size_t)(c->end - c->p) < EVENT_WIDTH)
		return NULL;
	for (i = 0; i < sizeof(perf_events) / sizeof(perf_events[0]); i++) {
		n = strlen(perf_events[i].name);
		if (!memcmp(c->p, perf_events[i].name, n) &&
		    strspn(c->p + n, " ") >= EVENT_WIDTH - n) {
			c->p += EVENT_WIDTH;
			return &perf_events[i];
		}
	}
	return NULL;
}

/* "r<id> " or three spaces. */
static int repo_column(struct cur *c)
{
	size_t n;

	if (take(c, "   "))
		return 1;
	if (!take(c, "r") || !(n = run_of(c, "0123456789")))
		return 0;
	return skip(c, n) && take(c, " ");
}

/* "%9.6f" (wider for 100 s and more) when present, else 9 spaces. */
static int time_column(struct cur *c, int present)
{
	size_t pad, n;

	if (!present)
		return take(c, "         ");
	pad = run_of(c, " ");
	skip(c, pad);
	n = run_of(c, "0123456789");
	if (!n || !skip(c, n) || !take(c, ".") || run_of(c, "0123456789") != 6)
		return 0;
	return pad + n + 7 >= 9 && (pad == 0 || pad + n + 7 == 9) && skip(c, 6);
}

/* One record's first line; returns its event, payload in *payload. */
static const struct perf_event *perf_prefix(const struct line *l, struct cur *payload)
{
	struct cur c = { l->p, l->p + l->len };
	const struct perf_event *ev;
	size_t n;

	if (!local_time(c.p, l->len) || !skip(&c, 16))
		bad_line("perf", l, "time");
	if (!skip(&c, LOCATION_WIDTH) || !take(&c, " | d"))
		bad_line("perf", l, "location");
	if (!(n = run_of(&c, "0123456789")) || !skip(&c, n) || !take(&c, " | "))
		bad_line("perf", l, "depth");
	if (!skip(&c, THREAD_WIDTH) || !take(&c, " | "))
		bad_line("perf", l, "thread");
	if (!(ev = event_column(&c)) || !take(&c, " | "))
		bad_line("perf", l, "event");
	if (!repo_column(&c) || !take(&c, " | "))
		bad_line("perf", l, "repo");
	if (!time_column(&c, ev->abs) || !take(&c, " | "))
		bad_line("perf", l, "t_abs");
	if (!time_column(&c, ev->rel) || !take(&c, " | "))
		bad_line("perf", l, "t_rel");
	if (!skip(&c, CATEGORY_WIDTH) || !take(&c, " | "))
		bad_line("perf", l, "category");
	*payload = c;
	return ev;
}

/* A pretty writer's later lines: indentation or a closing bracket. */
static int continues_json(const struct line *l)
{
	return l->len && (l->p[0] == ' ' || l->p[0] == '}' || l->p[0] == ']');
}

void check_perf_text(const char *text, size_t len)
{
	struct line *v;
	size_t n = split("perf", text, len, &v), i = 0;

	while (i < n) {
		struct cur pay;
		const struct perf_event *ev = perf_prefix(&v[i], &pay);
		const struct line *first = &v[i++];
		struct fz_buf json = FZ_BUF_INIT;
		struct tjson *parsed;
		int strict;

		if (strcmp(ev->name, "data_json"))
			continue;
		pay.p += run_of(&pay, ".");
		strict = take(&pay, "json:");
		if (!strict && !take(&pay, "partial:"))
			bad_line("perf", first, "data_json key");
		fz_buf_add(&json, pay.p, (size_t)(pay.end - pay.p));
		for (; i < n && continues_json(&v[i]); i++) {
			fz_buf_addc(&json, '\n');
			fz_buf_add(&json, v[i].p, v[i].len);
		}
		if (strict) {
			parsed = tjson_parse(json.p, json.len, NULL);
			if (!parsed)
				bad_line("perf", first, "data_json value is no JSON");
			tjson_free(parsed);
		}
		fz_buf_free(&json);
	}
	free(v);
}

/* ------------------------------------------------------------------ */
/* EVENT                                                                */
/* ------------------------------------------------------------------ */

void check_event_text(const char *text, size_t len)
{
	static const char *const keys[] = { "event", "sid", "thread", "time" };
	struct line *v;
	size_t n = split("event", text, len, &v), i, k;
	const char *err = NULL;

	for (i = 0; i < n; i++) {
		struct tjson *o = tjson_parse(v[i].p, v[i].len, &err);

		if (!o)
			bad_line("event", &v[i], err);
		if (o->type != TJSON_OBJECT)
			bad_line("event", &v[i], "not an object");
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!tjson_get_str(o, keys[k]))
				bad_line("event", &v[i], keys[k]);
		tjson_free(o);
	}
	free(v);
}
