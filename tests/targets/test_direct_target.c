/*
 * A built-in target driven directly, as the project's own tools do: a
 * record built by hand (not by a trace2_*() call) is handed to the perf
 * and normal targets, which write to a destination the caller opened
 * (tr2_dst_attach_fd()) or to a sink (tr2_dst_init_sink(), opened on by
 * tr2_replay_open(), as trace2 convert does).  The expected lines are
 * written out from the column rules of docs/targets.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "tr2_dst.h"
#include "tr2_event.h"
#include "tr2_replay.h"
#include "tr2_sysenv.h"
#include "tr2_tgt.h"
#include "tr2_tgt_normal.h"
#include "tr2_tgt_perf.h"

/* 2000-01-01T00:00:00.123456Z, 1.5 s after the process started. */
#define TIME_US 946684800123456ull
#define T_ABS_US 1500000ull

static const struct trace2_process process = { "SID", 3, "SID", 3, 0 };
static const struct trace2_thread thread = { "main", 4, "main", 4, 0 };

/* Feed one record to target (brief or not) writing to a temporary file;
 * return what it wrote (caller frees). */
static char *write_record(const struct trace2_target *target, int brief,
			  const struct tr2_ev *ev)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "out"), *text;
	FILE *f = fopen(path, "w");
	struct tr2_dst dst;
	struct tr2_tgt_state st;
	struct trace2_target_config config;

	assert_non_null(f);
	tr2_dst_init(&dst, TR2_SYSENV_PERF);
	tr2_dst_attach_fd(&dst, fileno(f));
	config.output = tr2_output_of(&dst);
	config.brief = brief;
	config.created = 1;
	assert_int_equal(target->open(&st, &config), 0);
	target->event(&st, &ev->pub);
	fclose(f);
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	t2_rmtree(dir);
	free(path);
	free(dir);
	return text;
}

/* What a sink was handed: the records, one call each. */
struct capture {
	char text[4096];
	size_t len;
	int calls;
	int fail;       /* errno to fail with, or 0 */
};

static int capture_record(void *data, const void *record, size_t len)
{
	struct capture *c = data;

	c->calls++;
	if (c->fail) {
		errno = c->fail;
		return -1;
	}
	assert_true(c->len + len < sizeof(c->text));
	memcpy(c->text + c->len, record, len);
	c->len += len;
	c->text[c->len] = '\0';
	return 0;
}

/* Feed the records to target (brief or not) writing to a sink into c;
 * whether the destination is still on. */
static int replay_records(const struct trace2_target *target, int brief,
			  const struct tr2_ev *ev, int n, struct capture *c)
{
	struct tr2_dst dst;
	struct tr2_tgt_state st;
	int i;

	tr2_dst_init_sink(&dst, capture_record, c);
	assert_int_equal(tr2_replay_open(target, &st, &dst, brief, 1), 0);
	for (i = 0; i < n; i++)
		target->event(&st, &ev[i].pub);
	return tr2_dst_is_on(&dst);
}

/* write_record(), to a sink: one call, the same bytes. */
static void assert_sink_gets(const struct trace2_target *target, int brief,
			     const struct tr2_ev *ev, const char *want)
{
	struct capture c;

	memset(&c, 0, sizeof(c));
	assert_true(replay_records(target, brief, ev, 1, &c));
	assert_int_equal(c.calls, 1);
	assert_string_equal(c.text, want);
}

static void make_record(struct tr2_ev *ev, struct tr2_time_cache *times,
			enum trace2_event_kind kind)
{
	memset(ev, 0, sizeof(*ev));
	tr2_time_cache_init(times);
	tr2_ev_start(ev, kind, "a.c", 7, TIME_US, T_ABS_US, times);
	ev->pub.thread = &thread;
	ev->pub.process = &process;
	ev->pub.nesting = 2;
}

static void perf_region_leave(void **state)
{
	struct tr2_time_cache times;
	struct tr2_ev ev;
	char *got;

	(void)state;
	make_record(&ev, &times, TRACE2_EVENT_REGION_LEAVE);
	ev.pub.t_rel_us = 250;
	ev.pub.region = (struct trace2_ev_region){ "cat", "lab", 2, "why" };
	got = write_record(&tr2_tgt_perf, 0, &ev);
	assert_string_equal(got,
		"00:00:00.123456 a.c:7                        | d0 | main                     "
		"| region_leave | r2  |  1.500000 |  0.000250 | cat          | ..label:lab why\n");
	assert_sink_gets(&tr2_tgt_perf, 0, &ev, got);
	free(got);
	got = write_record(&tr2_tgt_perf, 1, &ev);
	assert_string_equal(got,
		"d0 | main                     "
		"| region_leave | r2  |  1.500000 |  0.000250 | cat          | ..label:lab why\n");
	assert_sink_gets(&tr2_tgt_perf, 1, &ev, got);
	free(got);
}

static void normal_exit(void **state)
{
	struct tr2_time_cache times;
	struct tr2_ev ev;
	char *got;

	(void)state;
	make_record(&ev, &times, TRACE2_EVENT_EXIT);
	ev.pub.exit.code = 3;
	got = write_record(&tr2_tgt_normal, 0, &ev);
	assert_string_equal(got, "00:00:00.123456 a.c:7                             "
				 "exit elapsed:1.500000 code:3\n");
	assert_sink_gets(&tr2_tgt_normal, 0, &ev, got);
	free(got);
}

/* A sink that fails switches its destination off: the records after it
 * are not handed to it. */
static void sink_failure(void **state)
{
	struct tr2_time_cache times;
	struct tr2_ev ev[3];
	struct capture c;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		make_record(&ev[i], &times, TRACE2_EVENT_EXIT);
		ev[i].pub.exit.code = i;
	}
	memset(&c, 0, sizeof(c));
	assert_true(replay_records(&tr2_tgt_normal, 0, ev, 3, &c));
	assert_int_equal(c.calls, 3);
	memset(&c, 0, sizeof(c));
	c.fail = EPIPE;
	assert_false(replay_records(&tr2_tgt_normal, 0, ev, 3, &c));
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(perf_region_leave),
		cmocka_unit_test(normal_exit),
		cmocka_unit_test(sink_failure),
	};

	/* local time is UTC here, so the time column is known */
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
