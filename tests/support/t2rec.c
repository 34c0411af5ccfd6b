#include "t2rec.h"
#include "tjson.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* "HH:MM:SS.uuuuuu": the local time of day of NORMAL and PERF lines. */
#define TIME_LEN 15
/* Width of the PERF location column (docs/targets.md, "Perf"). */
#define PERF_LOC_WIDTH 28
/* Column where a NORMAL payload starts at the latest (docs/targets.md,
 * "Normal"). */
#define NORMAL_PAYLOAD_COL 50
#define PERF_THREAD_WIDTH 24
#define PERF_EVENT_WIDTH 12
#define PERF_CATEGORY_WIDTH 12
#define PERF_NUMBER_WIDTH 9

static int all_digits(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	return n > 0;
}

static int all_spaces(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != ' ')
			return 0;
	return 1;
}

static int is_time(const char *p, size_t avail)
{
	return avail >= TIME_LEN && all_digits(p, 2) && p[2] == ':' &&
	       all_digits(p + 3, 2) && p[5] == ':' && all_digits(p + 6, 2) &&
	       p[8] == '.' && all_digits(p + 9, 6);
}

static struct t2_slice rtrim(const char *p, size_t n)
{
	struct t2_slice s = { p, n };

	while (s.len && s.p[s.len - 1] == ' ')
		s.len--;
	return s;
}

int t2_slice_eq(struct t2_slice s, const char *text)
{
	return s.p && strlen(text) == s.len && !memcmp(s.p, text, s.len);
}

/* ------------------------------------------------------------------ */
/* PERF                                                                 */
/* ------------------------------------------------------------------ */

struct cursor {
	const char *p, *end;
};

static int take_sep(struct cursor *c)
{
	if (c->end - c->p < 3 || memcmp(c->p, " | ", 3))
		return 0;
	c->p += 3;
	return 1;
}

static int take_fixed(struct cursor *c, size_t n, struct t2_slice *out)
{
	if ((size_t)(c->end - c->p) < n)
		return 0;
	out->p = c->p;
	out->len = n;
	c->p += n;
	return take_sep(c);
}

/* A variable-width column: everything up to the next " | ". */
static int take_column(struct cursor *c, struct t2_slice *out)
{
	const char *sep = memmem(c->p, (size_t)(c->end - c->p), " | ", 3);

	if (!sep)
		return 0;
	out->p = c->p;
	out->len = (size_t)(sep - c->p);
	c->p = sep;
	return take_sep(c);
}

/* "r<id>" + a space, padded to at least 3 columns; or 3 blanks. */
static int valid_repo(struct t2_slice s)
{
	size_t n = 1;

	if (s.len == 3 && all_spaces(s.p, 3))
		return 1;
	if (s.len < 3 || s.p[0] != 'r')
		return 0;
	while (n < s.len && s.p[n] >= '0' && s.p[n] <= '9')
		n++;
	return n > 1 && n < s.len && all_spaces(s.p + n, s.len - n);
}

/* "%9.6f" or 9 blanks. */
static int valid_seconds(struct t2_slice s)
{
	size_t n = 0, digits;

	if (s.len == PERF_NUMBER_WIDTH && all_spaces(s.p, s.len))
		return 1;
	if (s.len < PERF_NUMBER_WIDTH)
		return 0;
	while (n < s.len && s.p[n] == ' ')
		n++;
	digits = n;
	while (n < s.len && s.p[n] >= '0' && s.p[n] <= '9')
		n++;
	/* padded only up to the width */
	return n > digits && s.len - n == 7 && s.p[n] == '.' &&
	       all_digits(s.p + n + 1, 6) && (!digits || s.len == PERF_NUMBER_WIDTH);
}

/* The number of a t_abs or t_rel column without its padding ({p, 0} when
 * blank). */
static struct t2_slice number_of(struct t2_slice s)
{
	while (s.len && s.p[0] == ' ')
		s.p++, s.len--;
	return s;
}

/* The PERF fields from "d<depth> | " on (the brief layout). */
static int parse_perf_body(const char *p, const char *end, struct t2_rec *r)
{
	struct cursor c = { p, end };
	struct t2_slice depth, thread, event, repo, abs, rel, category;
	size_t dots = 0;

	if (!take_column(&c, &depth) || depth.len < 2 || depth.p[0] != 'd' ||
	    !all_digits(depth.p + 1, depth.len - 1) ||
	    !take_fixed(&c, PERF_THREAD_WIDTH, &thread) ||
	    !take_fixed(&c, PERF_EVENT_WIDTH, &event) ||
	    !take_column(&c, &repo) || !valid_repo(repo) ||
	    !take_column(&c, &abs) || !valid_seconds(abs) ||
	    !take_column(&c, &rel) || !valid_seconds(rel) ||
	    !take_fixed(&c, PERF_CATEGORY_WIDTH, &category))
		return 0;
	while (c.p + dots < c.end && c.p[dots] == '.')
		dots++;
	r->thread = rtrim(thread.p, thread.len);
	r->event = rtrim(event.p, event.len);
	r->t_abs = number_of(abs);
	r->t_rel = number_of(rel);
	r->category = rtrim(category.p, category.len);
	r->dots = (int)dots;
	r->payload.p = c.p + dots;
	r->payload.len = (size_t)(c.end - c.p) - dots;
	return r->thread.len && r->event.len;
}

static int parse_perf(const char *line, size_t len, struct t2_rec *r)
{
	size_t body = TIME_LEN + 1 + PERF_LOC_WIDTH + 3;

	if (len > 0 && line[0] == 'd')
		return parse_perf_body(line, line + len, r);
	if (len <= body || !is_time(line, len) || line[TIME_LEN] != ' ' ||
	    memcmp(line + body - 3, " | ", 3))
		return 0;
	r->time.p = line;
	r->time.len = TIME_LEN;
	return parse_perf_body(line + body, line + len, r);
}

/* ------------------------------------------------------------------ */
/* NORMAL                                                               */
/* ------------------------------------------------------------------ */

/* "<file>:<line>" */
static int valid_location(const char *p, size_t n)
{
	const char *colon = memrchr(p, ':', n);
	size_t tail;

	if (!colon || colon == p)
		return 0;
	tail = n - (size_t)(colon + 1 - p);
	if (tail && colon[1] == '-')
		return all_digits(colon + 2, tail - 1);
	return all_digits(colon + 1, tail);
}

static int parse_normal(const char *line, size_t len, struct t2_rec *r)
{
	size_t start = TIME_LEN + 1;
	const char *sp;

	if (!is_time(line, len) || len < start || line[TIME_LEN] != ' ')
		return 0;
	r->time.p = line;
	r->time.len = TIME_LEN;
	if (len > start && line[start] != ' ') {
		sp = memchr(line + start, ' ', len - start);

		if (!sp || !valid_location(line + start, (size_t)(sp - line) - start))
			return 0;
		start = (size_t)(sp - line) + 1;
	}
	if (start < NORMAL_PAYLOAD_COL) {
		if (len < NORMAL_PAYLOAD_COL ||
		    !all_spaces(line + start, NORMAL_PAYLOAD_COL - start))
			return 0;
		start = NORMAL_PAYLOAD_COL;
	}
	r->payload.p = line + start;
	r->payload.len = len - start;
	sp = memchr(r->payload.p, ' ', r->payload.len);
	r->event.p = r->payload.p;
	r->event.len = sp ? (size_t)(sp - r->payload.p) : r->payload.len;
	return 1;
}

/* ------------------------------------------------------------------ */
/* EVENT                                                                */
/* ------------------------------------------------------------------ */

struct t2_slice t2_rec_str(const struct t2_rec *r, const char *key)
{
	const struct tjson *v = r->json ? tjson_get(r->json, key) : NULL;
	struct t2_slice s = { NULL, 0 };

	if (v && v->type == TJSON_STRING) {
		s.p = v->text;
		s.len = v->len;
	}
	return s;
}

static int parse_event(const char *line, size_t len, struct t2_rec *r)
{
	const struct tjson *nesting;

	r->json = tjson_parse(line, len, NULL);
	if (!r->json || r->json->type != TJSON_OBJECT)
		return 0;
	r->event = t2_rec_str(r, "event");
	r->sid = t2_rec_str(r, "sid");
	r->thread = t2_rec_str(r, "thread");
	r->time = t2_rec_str(r, "time");
	nesting = tjson_get(r->json, "nesting");
	if (nesting && nesting->type == TJSON_NUMBER)
		r->nesting = (int)nesting->number;
	return r->event.p && r->sid.p && r->thread.p;
}

/* ------------------------------------------------------------------ */

enum t2_rec_kind t2_rec_parse(const char *line, size_t len, struct t2_rec *r)
{
	size_t perf_sep = TIME_LEN + 1 + PERF_LOC_WIDTH;

	memset(r, 0, sizeof(*r));
	r->nesting = -1;
	if (len && line[0] == '{')
		r->kind = parse_event(line, len, r) ? T2_REC_EVENT : T2_REC_BAD;
	else if ((len && line[0] == 'd') ||
		 (len > perf_sep + 3 && !memcmp(line + perf_sep, " | d", 4)))
		r->kind = parse_perf(line, len, r) ? T2_REC_PERF : T2_REC_BAD;
	else
		r->kind = parse_normal(line, len, r) ? T2_REC_NORMAL : T2_REC_BAD;
	return r->kind;
}

void t2_rec_free(struct t2_rec *r)
{
	tjson_free(r->json);
	r->json = NULL;
}

int t2_rec_mixed(const char *line, size_t len)
{
	static const char event_start[] = "{\"event\":\"";
	size_t i;

	for (i = 1; i < len; i++) {
		if (line[i] == '{' && len - i >= sizeof(event_start) - 1 &&
		    !memcmp(line + i, event_start, sizeof(event_start) - 1))
			return 1;
		if (is_time(line + i, len - i))
			return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Lines of a stream.                                                   */
/* ------------------------------------------------------------------ */

static void lsplit_append(struct t2_lsplit *s, const char *p, size_t n)
{
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2 + 4096;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf)
			abort();
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

void t2_lsplit_feed(struct t2_lsplit *s, const char *data, size_t n,
		    t2_line_fn *fn, void *ctx)
{
	const char *p = data, *end = data + n;

	while (p < end) {
		const char *lf = memchr(p, '\n', (size_t)(end - p));

		if (!lf) {
			lsplit_append(s, p, (size_t)(end - p));
			return;
		}
		if (s->len) {
			lsplit_append(s, p, (size_t)(lf - p));
			fn(ctx, s->buf, s->len);
			s->len = 0;
		} else {
			fn(ctx, p, (size_t)(lf - p));
		}
		p = lf + 1;
	}
}

size_t t2_lsplit_end(struct t2_lsplit *s)
{
	size_t rest = s->len;

	free(s->buf);
	memset(s, 0, sizeof(*s));
	return rest;
}

long long t2_foreach_line(const char *path, t2_line_fn *fn, void *ctx)
{
	enum { CHUNK = 4 << 20 };
	struct t2_lsplit split = { NULL, 0, 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	ssize_t n;

	if (fd < 0)
		return -1;
	buf = malloc(CHUNK);
	while (buf && (n = read(fd, buf, CHUNK)) > 0)
		t2_lsplit_feed(&split, buf, (size_t)n, fn, ctx);
	free(buf);
	close(fd);
	return (long long)t2_lsplit_end(&split);
}

/* ------------------------------------------------------------------ */
/* Whole-line checks.                                                   */
/* ------------------------------------------------------------------ */

void t2_whole_line(void *ctx, const char *line, size_t len)
{
	struct t2_whole *w = ctx;
	struct t2_rec r;
	enum t2_rec_kind kind = t2_rec_parse(line, len, &r);

	t2_rec_free(&r);
	w->lines++;
	w->kinds[kind]++;
	if (kind != T2_REC_BAD)
		return;
	if (!w->bad++)
		snprintf(w->first_bad, sizeof(w->first_bad), "%.*s",
			 (int)(len < 150 ? len : 150), line);
	w->mixed += t2_rec_mixed(line, len) ? 1 : 0;
}

void t2_whole_file(const char *path, struct t2_whole *w)
{
	long long rest = t2_foreach_line(path, t2_whole_line, w);

	w->files++;
	if (rest > 0)
		w->partial++;
}

void t2_whole_dir(const char *dir, struct t2_whole *w)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char p[PATH_MAX];
		struct stat st;

		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) < sizeof(p) &&
		    !lstat(p, &st) && S_ISREG(st.st_mode))
			t2_whole_file(p, w);
	}
	if (d)
		closedir(d);
}

/* ------------------------------------------------------------------ */
/* Whole texts of one target.                                           */
/* ------------------------------------------------------------------ */

/* Which events fill the PERF t_abs and t_rel columns (docs/targets.md,
 * "Perf"). */
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

static const struct perf_event *perf_event_named(struct t2_slice name)
{
	size_t i;

	for (i = 0; i < sizeof(perf_events) / sizeof(perf_events[0]); i++)
		if (t2_slice_eq(name, perf_events[i].name))
			return &perf_events[i];
	return NULL;
}

/* Why a PERF record is wrong beyond its layout, or NULL. */
static const char *perf_columns(const struct t2_rec *r)
{
	const struct perf_event *ev = perf_event_named(r->event);

	if (!r->time.len)
		return "no time (brief layout)";
	if (!ev)
		return "event";
	if (!r->t_abs.len != !ev->abs)
		return "t_abs";
	if (!r->t_rel.len != !ev->rel)
		return "t_rel";
	return NULL;
}

/* Why an EVENT record is wrong beyond its layout, or NULL. */
static const char *event_members(const struct t2_rec *r)
{
	return r->time.p ? NULL : "time";
}

/* A pretty writer's later lines: indentation or a closing bracket. */
static int continues_json(const char *line, size_t len)
{
	return len && (line[0] == ' ' || line[0] == '}' || line[0] == ']');
}

/* A data_json record being collected (PERF: a pretty writer spans lines). */
struct json_rec {
	const char *line;	/* its first line, NULL when none */
	size_t len;
	unsigned nr;
	int strict;		/* key "json": the value must parse */
	char *text;
	size_t text_len, text_cap;
};

static void json_add(struct json_rec *j, const char *p, size_t n)
{
	if (j->text_len + n + 1 > j->text_cap) {
		j->text_cap = (j->text_len + n + 1) * 2;
		j->text = realloc(j->text, j->text_cap);
		if (!j->text)
			abort();
	}
	memcpy(j->text + j->text_len, p, n);
	j->text_len += n;
}

static int text_error(struct t2_text_error *err, const char *why, const char *line,
		      size_t len, unsigned nr)
{
	err->why = why;
	err->line = line;
	err->len = len;
	err->nr = nr;
	return -1;
}

/* The data_json record collected so far is complete. */
static int json_end(struct json_rec *j, struct t2_text_error *err)
{
	struct tjson *v;

	if (!j->line || !j->strict) {
		j->line = NULL;
		return 0;
	}
	v = tjson_parse(j->text, j->text_len, NULL);
	tjson_free(v);
	if (!v)
		return text_error(err, "data_json value is no JSON", j->line, j->len, j->nr);
	j->line = NULL;
	return 0;
}

/* A PERF data_json record starts: its key says whether it is complete. */
static int json_start(struct json_rec *j, const char *line, size_t len, unsigned nr,
		      const struct t2_rec *r, struct t2_text_error *err)
{
	static const char json[] = "json:", partial[] = "partial:";
	struct t2_slice pay = r->payload;
	size_t key;

	if (pay.len >= sizeof(json) - 1 && !memcmp(pay.p, json, sizeof(json) - 1))
		j->strict = 1;
	else if (pay.len >= sizeof(partial) - 1 && !memcmp(pay.p, partial, sizeof(partial) - 1))
		j->strict = 0;
	else
		return text_error(err, "data_json key", line, len, nr);
	j->line = line;
	j->len = len;
	j->nr = nr;
	j->text_len = 0;
	key = j->strict ? sizeof(json) - 1 : sizeof(partial) - 1;
	json_add(j, pay.p + key, pay.len - key);
	return 0;
}

static const char *kind_name(enum t2_rec_kind kind)
{
	switch (kind) {
	case T2_REC_NORMAL: return "not a NORMAL record";
	case T2_REC_PERF: return "not a PERF record";
	case T2_REC_EVENT: return "not an EVENT record";
	default: return "no known layout";
	}
}

/* One line of a target's text; r is parsed by the caller. */
static int check_record(enum t2_rec_kind want, const char *line, size_t len, unsigned nr,
			struct t2_rec *r, struct json_rec *j, struct t2_text_error *err)
{
	const char *why = NULL, *json_err = NULL;

	if (t2_rec_parse(line, len, r) != want) {
		why = kind_name(want);
		/* a broken EVENT line: say what tjson found */
		if (want == T2_REC_EVENT) {
			struct tjson *v = tjson_parse(line, len, &json_err);

			if (!v)
				why = json_err;
			tjson_free(v);
		}
	} else if (want == T2_REC_PERF) {
		why = perf_columns(r);
	} else if (want == T2_REC_EVENT) {
		why = event_members(r);
	}
	if (why)
		return text_error(err, why, line, len, nr);
	if (want == T2_REC_PERF && t2_slice_eq(r->event, "data_json"))
		return json_start(j, line, len, nr, r, err);
	return 0;
}

int t2_check_text(enum t2_rec_kind want, const char *text, size_t len,
		  struct t2_text_error *err)
{
	struct json_rec j = { 0 };
	const char *p = text, *end = text + len, *lf;
	unsigned nr = 0;
	int rc = 0;

	memset(err, 0, sizeof(*err));
	if (len && text[len - 1] != '\n') {
		lf = memrchr(text, '\n', len);
		p = lf ? lf + 1 : text;
		for (lf = text; (lf = memchr(lf, '\n', (size_t)(p - lf))); lf++)
			nr++;
		return text_error(err, "text does not end with LF", p, (size_t)(end - p),
				  nr + 1);
	}
	for (; !rc && p < end; p = lf + 1) {
		struct t2_rec r;

		memset(&r, 0, sizeof(r));
		lf = memchr(p, '\n', (size_t)(end - p));
		nr++;
		if (j.line && continues_json(p, (size_t)(lf - p))) {
			json_add(&j, "\n", 1);
			json_add(&j, p, (size_t)(lf - p));
			continue;
		}
		rc = json_end(&j, err);
		if (!rc)
			rc = check_record(want, p, (size_t)(lf - p), nr, &r, &j, err);
		t2_rec_free(&r);
	}
	if (!rc)
		rc = json_end(&j, err);
	free(j.text);
	return rc;
}
