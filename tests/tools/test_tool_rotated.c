/*
 * The trace2 command on a rotated event file: a program renames its
 * event log away and calls trace2_reopen() with regions open on two
 * threads, so the new file starts mid-process (no version, start or
 * cmd_name; region_leave records of regions entered before it; a thread
 * without its thread_start).  validate --strict passes it with one note,
 * summary names the process by its pid and counts the regions from their
 * region_leave, convert reads it without complaint; the two files in
 * order read as one log; and the same file given twice is read once.
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
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"

struct fx {
	char *dir;
	char *log;      /* the event target: the new file after the rotation */
	char *old;      /* where the rotation renames it */
	int pid;        /* the program's */
};

static struct fx fx;

static int go[2]; /* the worker waits for the rotation */

static void *worker(void *arg)
{
	char c;

	(void)arg;
	trace2_thread_start("worker");
	trace2_region_enter("rot", "work", NULL);
	CHECK(read(go[0], &c, 1) == 1);
	trace2_region_leave("rot", "work", NULL);
	trace2_thread_exit();
	return NULL;
}

/* cmd_name, two regions open on main and one on a worker; renamed away,
 * reopened; then everything left, a datum and the exit. */
static void rotate_scenario(void *arg)
{
	const struct fx *f = arg;
	pthread_t th;

	trace2_cmd_name("rotd");
	trace2_region_enter("rot", "outer", NULL);
	trace2_region_enter("rot", "inner", NULL);
	CHECK(pipe(go) == 0);
	CHECK(pthread_create(&th, NULL, worker, NULL) == 0);
	usleep(20000); /* the worker's region_enter goes to the old file */
	CHECK(rename(f->log, f->old) == 0);
	trace2_reopen();
	CHECK(write(go[1], "x", 1) == 1);
	CHECK(pthread_join(th, NULL) == 0);
	trace2_data_string("rot", NULL, "k", "v");
	trace2_region_leave("rot", "inner", NULL);
	trace2_region_leave("rot", "outer", NULL);
}

static int setup(void **state)
{
	const char *env[3];
	char *ev, *sid;

	(void)state;
	fx.dir = t2_tmpdir();
	fx.log = t2_path(fx.dir, "trace.json");
	fx.old = t2_path(fx.dir, "trace.json.1");
	ev = t2_xfmt("GIT_TRACE2_EVENT=%s", fx.log);
	env[0] = ev;
	env[1] = "GIT_TRACE2_EVENT_NESTING=10";
	env[2] = NULL;
	if (t2_run(rotate_scenario, &fx, env))
		return -1;
	free(ev);
	/* the pid, from the old file's SID: "-P<8 hex>" */
	ev = t2_read_file(fx.old, NULL);
	sid = ev ? strstr(ev, "-P") : NULL;
	if (!sid)
		return -1;
	fx.pid = (int)strtol(sid + 2, NULL, 16);
	free(ev);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t2_rmtree(fx.dir);
	free(fx.dir);
	free(fx.log);
	free(fx.old);
	return 0;
}

/* trace2 with args (NULL-terminated). */
static void trace2(struct t2_proc *p, const char *const *args)
{
	static const char *const env[] = { "TZ=UTC", NULL };

	t2_trace2(env, args, 20, p);
}

/* What the rotated file is: Git's format, starting mid-process. */
static void rotated_file_starts_mid_process(void **state)
{
	char *text = t2_read_file(fx.log, NULL);

	(void)state;
	assert_non_null(text);
	assert_true(t2_matches(text, "^\\{\"event\":\"region_leave\""));
	assert_null(strstr(text, "\"event\":\"version\""));
	assert_null(strstr(text, "\"event\":\"cmd_name\""));
	assert_null(strstr(text, "\"event\":\"thread_start\""));
	assert_non_null(strstr(text, "\"label\":\"outer\""));
	assert_non_null(strstr(text, "\"event\":\"atexit\""));
	free(text);
}

static void validate_notes_it_once(void **state)
{
	const char *args[] = { "validate", "--strict", "--quiet", fx.log, NULL, NULL };
	struct t2_proc p;

	(void)state;
	trace2(&p, args);
	assert_int_equal(p.status, 0);
	assert_true(t2_matches(p.out, "^[^\n]*/trace\\.json:1: note: the input starts "
			       "mid-process [^\n]*\n$"));
	t2_proc_free(&p);
	/* both files, oldest first: one log, not a word */
	args[3] = fx.old;
	args[4] = fx.log;
	trace2(&p, args);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "");
	t2_proc_free(&p);
}

static void summary_names_and_counts(void **state)
{
	const char *args[] = { "summary", fx.log, NULL };
	struct t2_proc p;
	char *want;

	(void)state;
	trace2(&p, args);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	want = t2_xfmt("\n  (pid %d)  mode=-  exit=0  elapsed=", fx.pid);
	assert_non_null(strstr(p.out, want));
	free(want);
	/* every region counted from its region_leave, none skipped */
	assert_true(t2_matches(p.out, "\n +1 +[0-9.]+ +[0-9.]+ .* rot/outer\n"));
	assert_true(t2_matches(p.out, "\n +1 +[0-9.]+ +[0-9.]+ .* rot/inner\n"));
	assert_true(t2_matches(p.out, "\n +1 +[0-9.]+ +[0-9.]+ .* rot/work\n"));
	assert_null(strstr(p.out, "without region_enter"));
	assert_null(strstr(p.out, "never left"));
	t2_proc_free(&p);
	/* both files: named by its cmd_name, each region once */
	{
		const char *both[] = { "summary", fx.old, fx.log, NULL };

		trace2(&p, both);
	}
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "\n  rotd  mode=-  exit=0  elapsed="));
	assert_true(t2_matches(p.out, "\n +1 +[0-9.]+ +[0-9.]+ .* rot/outer\n"));
	assert_null(strstr(p.out, "never left"));
	t2_proc_free(&p);
}

/* Each format from the rotated file: what it shows of it (normal has no
 * regions; chrome draws only the regions entered in the file). */
static void convert_reads_it(void **state)
{
	static const char *const formats[][2] = {
		{ "perf", "| rot          | label:outer" },
		{ "normal", " atexit elapsed:" },
		{ "chrome", "\"name\":\"k\",\"cat\":\"rot\"" },
		{ "otlp", "\"name\":\"rot:outer\"" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(formats) / sizeof(*formats); i++) {
		const char *args[] = { "convert", "--to", formats[i][0], fx.log, NULL };
		struct t2_proc p;

		trace2(&p, args);
		assert_int_equal(p.status, 0);
		assert_string_equal(p.err, "");
		if (!strstr(p.out, formats[i][1]))
			fail_msg("convert --to %s: no %s in\n%s", formats[i][0], formats[i][1], p.out);
		t2_proc_free(&p);
	}
}

/* The same file twice: reported once, the summary that of one. */
static void same_file_twice_read_once(void **state)
{
	const char *once[] = { "summary", "--json", fx.old, fx.log, NULL };
	const char *twice[] = { "summary", "--json", fx.old, fx.log, fx.log, NULL };
	struct t2_proc p, q;
	char *want;

	(void)state;
	trace2(&p, once);
	trace2(&q, twice);
	assert_int_equal(q.status, 0);
	assert_string_equal(q.out, p.out);
	want = t2_xfmt("%s:1: a record read before, again (the same log given twice?); "
		       "skipped, as are the later ones of this input that repeat\n", fx.log);
	assert_string_equal(q.err, want);
	free(want);
	t2_proc_free(&p);
	t2_proc_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rotated_file_starts_mid_process),
		cmocka_unit_test(validate_notes_it_once),
		cmocka_unit_test(summary_names_and_counts),
		cmocka_unit_test(convert_reads_it),
		cmocka_unit_test(same_file_twice_read_once),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
