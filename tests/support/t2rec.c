#include "t2rec.h"
#include "t2test.h"
#include "tjson.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* "HH:MM:SS.uuuuuu": the local time of day of NORMAL and PERF lines. */
#define TIME_LEN 15
/* Width of the PERF location column (targets.md §3.1). */
#define PERF_LOC_WIDTH 28
/* Column where a NORMAL payload starts at the latest (targets.md §2.1). */
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
	return n > digits && s.len - n == 7 && s.p[n] == '.' &&
	       all_digits(s.p + n + 1, 6);
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
	return len > body && is_time(line, len) && line[TIME_LEN] == ' ' &&
	       !memcmp(line + body - 3, " | ", 3) &&
	       parse_perf_body(line + body, line + len, r);
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
		char *p = t2_path(dir, e->d_name);
		struct stat st;

		if (!lstat(p, &st) && S_ISREG(st.st_mode))
			t2_whole_file(p, w);
		free(p);
	}
	if (d)
		closedir(d);
}

static int file_contains(const char *path, const char *needle)
{
	size_t len;
	char *text = t2_read_file(path, &len);
	int found = text && memmem(text, len, needle, strlen(needle)) != NULL;

	free(text);
	return found;
}

int t2_tree_contains(const char *dir, const char *needle, char **which)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (!found && d && (e = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = t2_path(dir, e->d_name);
		if (lstat(p, &st))
			st.st_mode = 0;
		if (S_ISDIR(st.st_mode))
			found = t2_tree_contains(p, needle, which);
		else if (S_ISREG(st.st_mode) && file_contains(p, needle)) {
			found = 1;
			if (which)
				*which = strdup(p);
		}
		free(p);
	}
	if (d)
		closedir(d);
	return found;
}

double t2_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define MAX_SCRATCH 64
static char *scratch[MAX_SCRATCH];
static int nscratch;

const char *t2_scratch_dir(void)
{
	char *dir = t2_tmpdir();

	if (!dir || nscratch == MAX_SCRATCH)
		abort();
	scratch[nscratch++] = dir;
	return dir;
}

int t2_scratch_cleanup(void **state)
{
	int keep = getenv("T2_KEEP") != NULL;

	(void)state;
	while (nscratch > 0) {
		char *dir = scratch[--nscratch];

		if (keep)
			printf("[kept] %s\n", dir);
		else
			t2_rmtree(dir);
		free(dir);
	}
	return 0;
}

static pid_t leak_runner;
static int leak_children_off, leak_children_on;

void t2_leak_check_runner_only(void)
{
	leak_runner = getpid();
	leak_children_off = 1;
}

void t2_leak_check_children(int on)
{
	leak_children_on = on;
}

/* LeakSanitizer's opt-out hook (sanitizer/lsan_interface.h), consulted at
 * exit; without a sanitizer nobody calls it. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return leak_children_off && !leak_children_on && getpid() != leak_runner;
}
