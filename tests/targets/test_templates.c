/*
 * Call-site templates (the event target's region records) and the perf
 * target's per-thread column cache: what a target keeps between records
 * must never outlive what it was made from.  These tests call the same
 * call site (same file pointer and line) with buffers whose contents
 * change, from several threads and at several nestings, in the default,
 * the buffered and the brief modes, and check every region line of both
 * targets byte for byte against lines written out here from the column
 * rules of docs/targets.md (printf formats, not the targets' code).  The
 * direct test feeds one OS thread records of many traced threads and
 * processes through one reused thread struct, as a converter or a writer
 * thread does.
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
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "tr2_dst.h"
#include "tr2_event.h"
#include "tr2_sysenv.h"
#include "tr2_tgt.h"
#include "tr2_tgt_event.h"
#include "tr2_tgt_perf.h"

/* ------------------------------------------------------------------ */
/* Expected lines.                                                      */
/* ------------------------------------------------------------------ */

#define UTC "2000-01-01T00:00:00.000000Z"
#define LOCAL "00:00:00.000000"

struct rec {
	const char *file;
	int line;
	const char *thread;
	int leave;
	const char *category;
	const char *label;
	size_t nesting;
	const char *msg;
	int depth;       /* process depth (perf's d<depth>) */
	const char *sid; /* event's "sid" */
};

/* A perf region line: time, location cut to its last 25 bytes after
 * "..." when longer than 28, then the padded columns. */
static void perf_line(char **buf, const struct rec *r, int brief, const char *time)
{
	char loc[256];
	size_t len, i;

	snprintf(loc, sizeof(loc), "%s:%d", r->file, r->line);
	len = strlen(loc);
	if (!brief) {
		if (len > 28)
			t2_append(buf, "%s ...%s | ", time, loc + len - 25);
		else
			t2_append(buf, "%s %-28s | ", time, loc);
	}
	t2_append(buf, "d%d | %-24s | %-12s |     | %9s | %9s | %-12.12s | ", r->depth,
		  r->thread, r->leave ? "region_leave" : "region_enter", "0.000000",
		  r->leave ? "0.000000" : "", r->category ? r->category : "");
	for (i = 1; i < r->nesting; i++)
		t2_append(buf, "..");
	if (r->label)
		t2_append(buf, "label:%s", r->label);
	if (r->msg)
		t2_append(buf, " %s", r->msg);
	t2_append(buf, "\n");
}

/* An event region line (the strings here need no escaping). */
static void event_line(char **buf, const struct rec *r, int brief, const char *utc)
{
	t2_append(buf, "{\"event\":\"%s\",\"sid\":\"%s\",\"thread\":\"%s\"",
		  r->leave ? "region_leave" : "region_enter", r->sid, r->thread);
	if (!brief)
		t2_append(buf, ",\"time\":\"%s\",\"file\":\"%s\",\"line\":%d", utc, r->file,
			  r->line);
	if (r->leave)
		t2_append(buf, ",\"t_rel\":0.000000");
	t2_append(buf, ",\"nesting\":%zu", r->nesting);
	if (r->category)
		t2_append(buf, ",\"category\":\"%s\"", r->category);
	if (r->label)
		t2_append(buf, ",\"label\":\"%s\"", r->label);
	if (r->msg)
		t2_append(buf, ",\"msg\":\"%s\"", r->msg);
	t2_append(buf, "}\n");
}

/* The lines of text that contain word, in order, those of one thread
 * (marked by its name in thread_mark's format) after another in the
 * order of threads[]: the buffered mode keeps the order within a
 * thread only. */
static char *lines_by_thread(const char *text, const char *word, const char *thread_mark,
			     const char *const *threads)
{
	char *out = NULL, **lines = t2_lines(text, NULL), mark[64];
	size_t i, t;

	t2_append(&out, "%s", "");
	for (t = 0; threads[t]; t++) {
		snprintf(mark, sizeof(mark), thread_mark, threads[t]);
		for (i = 0; lines[i]; i++)
			if (strstr(lines[i], word) && strstr(lines[i], mark))
				t2_append(&out, "%s\n", lines[i]);
	}
	t2_strv_free(lines);
	return out;
}

/* Line by line; on a difference, fail naming the first one. */
static void expect_lines(const char *what, const char *actual, const char *expected)
{
	size_t na, ne, i = 0;
	char **a = t2_lines(actual, &na), **e = t2_lines(expected, &ne);
	char *why = NULL;

	while (i < na && i < ne && !strcmp(a[i], e[i]))
		i++;
	if (i < na || i < ne)
		t2_append(&why, "%s, line %zu:\n  expected: %s\n  actual:   %s", what, i + 1,
			  i < ne ? e[i] : "(no more lines)", i < na ? a[i] : "(no more lines)");
	t2_strv_free(a);
	t2_strv_free(e);
	if (why)
		fail_msg("%s", why);
}

/* ------------------------------------------------------------------ */
/* Through the API: one call site, changing contents.                   */
/* ------------------------------------------------------------------ */

/* One call of the site: its strings (NULL: passed as NULL), how many
 * regions are open around it, and on which thread (0: main, else a new
 * thread, "th<NN>:w" in order). */
struct step {
	const char *file;
	const char *category;
	const char *label;
	size_t nesting;
	int new_thread;
};

#define LONG_FILE "some/rather/long/directory/name/f.c"

static const struct step steps[] = {
	{ "t.c", "alpha", "one", 1, 0 },
	{ "t.c", "bravo", "two", 1, 0 },         /* same lengths, other bytes */
	{ "t.c", "bravo", "three", 1, 0 },       /* longer label */
	{ "t.c", "bravo", "", 1, 0 },            /* empty label ... */
	{ "t.c", "bravo", NULL, 1, 0 },          /* ... and none */
	{ "t.c", NULL, "one", 1, 0 },            /* no category */
	{ "t.c", "categorylongAAA", "x", 1, 0 }, /* perf shows 12 bytes ... */
	{ "t.c", "categorylongBBB", "x", 1, 0 }, /* ... event all */
	{ "u.c", "alpha", "one", 1, 0 },         /* the file buffer reused */
	{ LONG_FILE, "alpha", "one", 1, 0 },     /* a cut location */
	{ "t.c", "alpha", "one", 2, 0 },         /* nested */
	{ "t.c", "alpha", "one", 3, 0 },
	{ "t.c", "alpha", "one", 1, 1 },         /* th01:w */
	{ "t.c", "alpha", "one", 2, 1 },         /* th02:w */
	{ "t.c", "bravo", "two", 1, 1 },         /* th03:w */
	{ "t.c", "alpha", "one", 1, 0 },         /* main again */
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))
#define SITE_LINE 10
#define OUTER_FILE "o.c"

static const char *const threads[] = { "main", "th01:w", "th02:w", "th03:w", NULL };

/* The site's strings live in these buffers, at the same addresses for
 * every call. */
static char file_buf[64], category_buf[32], label_buf[32];

static const char *fill(char *buf, size_t size, const char *s)
{
	if (!s)
		return NULL;
	snprintf(buf, size, "%s", s);
	return buf;
}

/* Each step twice: the second time the template (if any) is used. */
static void run_step(const struct step *s)
{
	size_t i;
	int round;

	for (round = 0; round < 2; round++) {
		const char *cat, *label;

		fill(file_buf, sizeof(file_buf), s->file);
		cat = fill(category_buf, sizeof(category_buf), s->category);
		label = fill(label_buf, sizeof(label_buf), s->label);
		for (i = 1; i < s->nesting; i++)
			trace2_region_enter_fl(OUTER_FILE, (int)i, "outer", "o", NULL);
		trace2_region_enter_fl(file_buf, SITE_LINE, cat, label, NULL);
		trace2_region_leave_fl(file_buf, SITE_LINE, cat, label, NULL);
		for (i = s->nesting - 1; i >= 1; i--)
			trace2_region_leave_fl(OUTER_FILE, (int)i, "outer", "o", NULL);
	}
}

static void *step_thread(void *arg)
{
	trace2_thread_start_fl("w.c", 1, "w");
	run_step(arg);
	trace2_thread_exit_fl("w.c", 2);
	return NULL;
}

static void sc_steps(void *unused)
{
	size_t i;

	(void)unused;
	for (i = 0; i < NSTEPS; i++) {
		pthread_t th;

		if (!steps[i].new_thread) {
			run_step(&steps[i]);
			continue;
		}
		CHECK(!pthread_create(&th, NULL, step_thread, (void *)&steps[i]));
		CHECK(!pthread_join(th, NULL));
	}
}

/* The expected region lines of sc_steps, each target's way. */
static void expect_steps(char **perf, char **event, int brief)
{
	int thread_no = 0;
	size_t i, n;
	int round, leave;

	for (i = 0; i < NSTEPS; i++) {
		const struct step *s = &steps[i];
		char thread[16] = "main";

		if (s->new_thread)
			snprintf(thread, sizeof(thread), "th%02d:w", ++thread_no);
		for (round = 0; round < 2; round++) {
			struct rec outer = { OUTER_FILE, 0, thread, 0, "outer", "o", 0, NULL, 0, "SID" };
			struct rec site = { s->file, SITE_LINE, thread, 0, s->category, s->label,
					    s->nesting, NULL, 0, "SID" };

			for (n = 1; n < s->nesting; n++) {
				outer.line = (int)n;
				outer.nesting = n;
				perf_line(perf, &outer, brief, LOCAL);
				event_line(event, &outer, brief, UTC);
			}
			for (leave = 0; leave < 2; leave++) {
				site.leave = leave;
				perf_line(perf, &site, brief, LOCAL);
				event_line(event, &site, brief, UTC);
			}
			outer.leave = 1;
			for (n = s->nesting - 1; n >= 1; n--) {
				outer.line = (int)n;
				outer.nesting = n;
				perf_line(perf, &outer, brief, LOCAL);
				event_line(event, &outer, brief, UTC);
			}
		}
	}
}

static void check_steps(const char *const *env, int brief)
{
	static const char *const brief_env[] = { "GIT_TRACE2_PERF_BRIEF=1",
						  "GIT_TRACE2_EVENT_BRIEF=1" };
	const char *all[8];
	char *perf = NULL, *event = NULL, *want, *got;
	struct t2_out out;
	size_t n = 0;

	all[n++] = "GIT_TRACE2_EVENT_NESTING=10";
	for (; env && *env; env++)
		all[n++] = *env;
	if (brief) {
		all[n++] = brief_env[0];
		all[n++] = brief_env[1];
	}
	all[n] = NULL;
	t2_run_all(sc_steps, NULL, all, &out);
	assert_int_equal(out.status, 0);
	expect_steps(&perf, &event, brief);

	want = lines_by_thread(perf, "| region_", "| %-24s |", threads);
	got = lines_by_thread(out.perf, "| region_", "| %-24s |", threads);
	expect_lines("perf", got, want);
	free(want);
	free(got);
	want = lines_by_thread(event, "\"event\":\"region_", "\"thread\":\"%s\"", threads);
	got = lines_by_thread(out.event, "\"event\":\"region_", "\"thread\":\"%s\"", threads);
	expect_lines("event", got, want);
	free(want);
	free(got);
	free(perf);
	free(event);
	t2_out_free(&out);
}

static const char *const BUFFERED[] = { "GIT_TRACE2_BUFFER=64k", NULL };

static void reused_buffers_default(void **state)
{
	(void)state;
	check_steps(NULL, 0);
}

static void reused_buffers_buffered(void **state)
{
	(void)state;
	check_steps(BUFFERED, 0);
}

static void reused_buffers_brief(void **state)
{
	(void)state;
	check_steps(NULL, 1);
	check_steps(BUFFERED, 1);
}

/* ------------------------------------------------------------------ */
/* Directly: one OS thread formats records of many threads.             */
/* ------------------------------------------------------------------ */

/* 2000-01-01T00:00:00.123456Z; local time is UTC here. */
#define TIME_US 946684800123456ull

/* A target writing into a file of dir for the records of one test. */
struct sink {
	char *path;
	FILE *f;
	struct tr2_dst dst;
	struct tr2_tgt_state st;
	const struct trace2_target *target;
};

static void sink_open(struct sink *k, const char *dir, const char *name,
		      const struct trace2_target *target)
{
	struct trace2_target_config config;

	k->path = t2_path(dir, name);
	k->f = fopen(k->path, "w");
	assert_non_null(k->f);
	tr2_dst_init(&k->dst, TR2_SYSENV_PERF);
	tr2_dst_attach_fd(&k->dst, fileno(k->f));
	memset(&k->st, 0, sizeof(k->st));
	k->st.max_nesting = 100; /* the event target's nesting filter: off */
	config.output = tr2_output_of(&k->dst);
	config.brief = 0;
	config.created = 1;
	k->target = target;
	assert_int_equal(target->open(&k->st, &config), 0);
}

static char *sink_close(struct sink *k)
{
	char *text;

	fclose(k->f);
	text = t2_read_file(k->path, NULL);
	assert_non_null(text);
	free(k->path);
	return text;
}

/* The thread and process structs every record points to: one of each,
 * rewritten between records, as a converter reuses its storage. */
static char thread_name[128], sid[64];
static struct trace2_thread thread;
static struct trace2_process process;

static void send_rec(struct sink *sinks, const struct rec *r)
{
	struct tr2_time_cache times;
	struct tr2_ev ev;
	int i;

	snprintf(thread_name, sizeof(thread_name), "%s", r->thread);
	thread.name = thread.json_name = thread_name;
	thread.name_len = thread.json_name_len = strlen(thread_name);
	thread.id = 0; /* the same id throughout: only the name tells */
	snprintf(sid, sizeof(sid), "%s", r->sid);
	process.sid = process.sid_json = sid;
	process.sid_len = process.sid_json_len = strlen(sid);
	process.depth = r->depth;

	memset(&ev, 0, sizeof(ev));
	tr2_time_cache_init(&times);
	tr2_ev_start(&ev, r->leave ? TRACE2_EVENT_REGION_LEAVE : TRACE2_EVENT_REGION_ENTER,
		     r->file, r->line, TIME_US, 0, &times);
	ev.pub.thread = &thread;
	ev.pub.process = &process;
	ev.pub.nesting = r->nesting;
	ev.pub.region = (struct trace2_ev_region){ r->category, r->label, TRACE2_NO_REPO,
						   r->msg };
	for (i = 0; i < 2; i++)
		sinks[i].target->event(&sinks[i].st, &ev.pub);
}

/* A converted log's thread may have any name, longer than the column. */
#define LONG_NAME "th04:a-thread-name-much-longer-than-the-perf-column-and-its-padding-too"

static void one_thread_many_threads(void **state)
{
	static const struct rec recs[] = {
		{ "d.c", 5, "main", 0, "cat", "lab", 1, NULL, 0, "S1" },
		{ "d.c", 5, "main", 0, "cat", "lab", 1, "m1", 0, "S1" },
		{ "d.c", 5, "th01:a", 0, "cat", "lab", 1, NULL, 0, "S1" },
		{ "d.c", 5, "th02:b", 0, "cat", "lab", 1, NULL, 0, "S1" },
		{ "d.c", 5, "th02:b", 0, "cat", "lab", 1, NULL, 1, "S1/S2" },
		{ "d.c", 5, "th02:b", 0, "cat", "lab", 1, NULL, 2, "S1/S2/S3" },
		{ "d.c", 5, "main", 0, "cat", "lab", 1, NULL, 0, "S4" },
		{ "d.c", 5, "main", 0, "cat", "lab", 2, NULL, 0, "S4" },
		{ "d.c", 5, "main", 1, "cat", "lab", 2, "m2", 0, "S4" },
		{ "d.c", 5, "main", 1, "cat", "lab", 1, NULL, 0, "S4" },
		{ "d.c", 5, "th01:a", 1, "cat", "lab", 1, NULL, 0, "S4" },
		{ "d.c", 5, LONG_NAME, 1, "cat", "lab", 1, NULL, 0, "S4" },
		{ "d.c", 5, LONG_NAME "x", 1, "cat", "lab", 1, NULL, 0, "S4" },
		{ "d.c", 5, "th01:a", 1, "cat", "lab", 1, NULL, 0, "S4" },
	};
	char *dir = t2_tmpdir(), *perf_want = NULL, *event_want = NULL, *got;
	struct sink sinks[2];
	size_t i;
	int round;

	(void)state;
	sink_open(&sinks[0], dir, "perf", &tr2_tgt_perf);
	sink_open(&sinks[1], dir, "event", &tr2_tgt_event);
	for (round = 0; round < 2; round++)
		for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
			send_rec(sinks, &recs[i]);
			perf_line(&perf_want, &recs[i], 0, "00:00:00.123456");
			event_line(&event_want, &recs[i], 0, "2000-01-01T00:00:00.123456Z");
		}
	got = sink_close(&sinks[0]);
	expect_lines("perf", got, perf_want);
	free(got);
	got = sink_close(&sinks[1]);
	expect_lines("event", got, event_want);
	free(got);
	free(perf_want);
	free(event_want);
	t2_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reused_buffers_default),
		cmocka_unit_test(reused_buffers_buffered),
		cmocka_unit_test(reused_buffers_brief),
		cmocka_unit_test(one_thread_many_threads),
	};

	/* local time is UTC here, so the time column is known */
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
