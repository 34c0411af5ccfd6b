/*
 * The flight recorder's files (GIT_TRACE2_FLIGHT): a file destination and
 * a directory destination are named at trace2_initialize() but made by
 * the first write, so that a run that never triggers leaves nothing
 * behind; a trigger (a non-zero exit, a fatal signal, trace2_flight_dump()
 * from a host's signal handler) makes the file and writes the records,
 * from inside the handler when a signal is the trigger.  A symlink
 * planted at the name between initialize and the trigger is not followed
 * (directory mode: the next name is taken, as at any open); the user's
 * own symlink, there at initialize, is followed as always.  Without
 * GIT_TRACE2_FLIGHT the files are made at initialize (the control).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "trace2/flight.h"

#define MARKER "flight-files-marker"

enum trigger {
	TRIGGER_NONE,    /* exit 0 */
	TRIGGER_EXIT,    /* trace2_cmd_exit(1) */
	TRIGGER_SIGNAL,  /* a fatal signal (signo) */
	TRIGGER_DUMP,    /* trace2_flight_dump() from a SIGUSR1 handler */
};

/* What a scenario does; paths under the test's scratch directory. */
struct flight_case {
	enum trigger trigger;
	int signo;
	int plant;          /* symlinks to victim at both names after initialize */
	const char *file;   /* GIT_TRACE2_EVENT: a file */
	const char *dir;    /* GIT_TRACE2_PERF: a directory */
	const char *victim; /* what planted symlinks point at */
};

static int exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* The name directory mode gives this process's file in dir. */
static char *own_name(const char *dir)
{
	const char *sid = trace2_session_id(), *last = strrchr(sid, '/');

	return t2_path(dir, last ? last + 1 : sid);
}

static void dump_on_usr1(int signo)
{
	(void)signo;
	if (trace2_flight_dump("usr1"))
		_exit(71);
}

/* Records, a check that nothing was made at initialize, then the trigger. */
static void sc_flight(void *arg)
{
	const struct flight_case *c = arg;
	char *own;

	trace2_initialize_clock();
	trace2_initialize();
	own = own_name(c->dir);
	trace2_printf("%s", MARKER);
	trace2_region_enter("flight", "work", NULL);
	trace2_region_leave("flight", "work", NULL);
	CHECK(!exists(c->file));
	CHECK(!exists(own));
	if (c->plant)
		CHECK(!symlink(c->victim, c->file) && !symlink(c->victim, own));
	switch (c->trigger) {
	case TRIGGER_NONE:
		exit(trace2_cmd_exit(0));
	case TRIGGER_EXIT:
		exit(trace2_cmd_exit(1));
	case TRIGGER_SIGNAL:
		raise(c->signo);
		_exit(72); /* not reached */
	case TRIGGER_DUMP:
		CHECK(signal(SIGUSR1, dump_on_usr1) != SIG_ERR);
		CHECK(!raise(SIGUSR1));
		/* made from the handler, before exit */
		CHECK(exists(c->file) && exists(own));
		exit(trace2_cmd_exit(0));
	}
}

struct flight_run {
	struct flight_case c;
	char *file, *dir, *victim;
	struct t2_proc p;
};

static void run_flight(struct flight_run *r, enum trigger trigger, int signo, int plant,
		       int flight)
{
	const char *scratch = t2_scratch_dir();
	struct t2_env env = { 0 };

	r->file = t2_path(scratch, "event.log");
	r->dir = t2_path(scratch, "perf");
	r->victim = t2_path(scratch, "victim");
	assert_int_equal(mkdir(r->dir, 0777), 0);
	assert_int_equal(t2_write_file(r->victim, "precious\n"), 0);
	r->c = (struct flight_case){ trigger, signo, plant, r->file, r->dir, r->victim };
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s", r->file);
	t2_env_add(&env, "GIT_TRACE2_PERF=%s", r->dir);
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	if (flight)
		t2_env_add(&env, "GIT_TRACE2_FLIGHT=64k");
	t2_capture(sc_flight, &r->c, t2_env_list(&env), 20, &r->p);
	t2_env_free(&env);
}

static void free_run(struct flight_run *r)
{
	free(r->file);
	free(r->dir);
	free(r->victim);
	t2_proc_free(&r->p);
}

/* The one file in dir, read whole (fails the test unless there is one). */
static char *only_file_in(const char *dir)
{
	char *names = t2_listdir(dir), *path, *text;

	if (!*names || strchr(names, ' '))
		fail_msg("expected one file in %s, found \"%s\"", dir, names);
	path = t2_path(dir, names);
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	free(path);
	free(names);
	return text;
}

static void assert_exited(const struct flight_run *r, int code)
{
	if (!WIFEXITED(r->p.status) || WEXITSTATUS(r->p.status) != code)
		fail_msg("status 0x%x, expected exit %d; stderr: %s", r->p.status, code, r->p.err);
}

/* The control: without the flight recorder the files are made at once. */
static void files_made_at_initialize_without_flight(void **state)
{
	struct flight_run r;
	char *names;

	(void)state;
	run_flight(&r, TRIGGER_NONE, 0, 0, 0);
	/* the scenario's own check that nothing was made at initialize */
	assert_true(WIFEXITED(r.p.status) && WEXITSTATUS(r.p.status) == 70);
	assert_non_null(strstr(r.p.err, "check failed: !exists(c->file)"));
	assert_true(exists(r.file));
	names = t2_listdir(r.dir);
	assert_string_not_equal(names, "");
	free(names);
	free_run(&r);
}

/* (1) exit 0, nothing triggered: no file, none in the directory. */
static void untriggered_run_leaves_no_file(void **state)
{
	struct flight_run r;
	char *names;

	(void)state;
	run_flight(&r, TRIGGER_NONE, 0, 0, 1);
	assert_exited(&r, 0);
	assert_false(exists(r.file));
	names = t2_listdir(r.dir);
	assert_string_equal(names, "");
	assert_string_equal(r.p.err, "");
	free(names);
	free_run(&r);
}

/* Both files hold the run's records, the marker among them. */
static void assert_records(const struct flight_run *r, const char *last_event)
{
	char *event = t2_read_file(r->file, NULL), *perf = only_file_in(r->dir), *names;

	assert_non_null(event);
	names = t2_event_names(event);
	assert_null(strstr(names, "INVALID"));
	assert_int_equal(strncmp(names, "version ", 8), 0);
	assert_non_null(strstr(names, last_event));
	assert_non_null(strstr(event, MARKER));
	assert_non_null(strstr(perf, MARKER));
	assert_non_null(strstr(perf, "| version "));
	free(names);
	free(perf);
	free(event);
}

/* (2) exit 1: the file has the records; the directory exactly one file. */
static void exit_1_makes_the_files(void **state)
{
	struct flight_run r;
	char *event;

	(void)state;
	run_flight(&r, TRIGGER_EXIT, 0, 0, 1);
	assert_exited(&r, 1);
	assert_records(&r, "exit");
	event = t2_read_file(r.file, NULL);
	assert_non_null(strstr(event, "\"event\":\"exit\""));
	assert_non_null(strstr(event, "\"code\":1"));
	free(event);
	free_run(&r);
}

/* (3) a fatal signal: the handler makes the files and writes them. */
static void fatal_signal_makes_the_files(void **state)
{
	static const int signals[] = { SIGABRT, SIGSEGV };
	size_t i;

	(void)state;
	T2_SKIP_ON_WINDOWS("POSIX signals");
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct flight_run r;

		run_flight(&r, TRIGGER_SIGNAL, signals[i], 0, 1);
		if (!WIFSIGNALED(r.p.status) || WTERMSIG(r.p.status) != signals[i])
			fail_msg("status 0x%x, expected signal %d; stderr: %s", r.p.status,
				 signals[i], r.p.err);
		assert_records(&r, "signal");
		free_run(&r);
	}
}

/* trace2_flight_dump() from the host's own handler makes them too. */
static void dump_from_handler_makes_the_files(void **state)
{
	struct flight_run r;
	char *event;

	(void)state;
	T2_SKIP_ON_WINDOWS("POSIX signals");
	run_flight(&r, TRIGGER_DUMP, 0, 0, 1);
	assert_exited(&r, 0);
	event = t2_read_file(r.file, NULL);
	assert_non_null(strstr(event, "\"key\":\"flight\",\"value\":\"usr1\""));
	free(event);
	assert_records(&r, "data");
	free_run(&r);
}

/*
 * (4) symlinks planted at both names after initialize: the file target
 * goes off with one warning and follows none; directory mode takes the
 * next name.  The victim keeps its content.
 */
static void planted_symlinks_not_followed(void **state)
{
	struct flight_run r;
	char *victim, *own, *names, *perf;
	struct stat st;

	(void)state;
	T2_SKIP_ON_WINDOWS("symlinks");
	run_flight(&r, TRIGGER_EXIT, 0, 1, 1);
	assert_exited(&r, 1);
	victim = t2_read_file(r.victim, NULL);
	assert_string_equal(victim, "precious\n");
	assert_int_equal(lstat(r.file, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* one warning, for the event target alone */
	if (!t2_matches(r.p.err, "^warning: unable to write trace to 'GIT_TRACE2_EVENT': "
			"Too many levels of symbolic links\n$"))
		fail_msg("stderr: %s", r.p.err);
	/* the planted name and <sid>.1, which has the records */
	names = t2_listdir_sep(r.dir, "\n");
	assert_int_equal(t2_matches(names, "^[^\n]+\n[^\n]+\\.1$"), 1);
	perf = strstr(names, "\n") + 1;
	perf = t2_read_file(own = t2_path(r.dir, perf), NULL);
	assert_non_null(strstr(perf, MARKER));
	free(perf);
	free(own);
	free(names);
	free(victim);
	free_run(&r);
}

/* A symlink there at initialize is the user's: followed, as without the
 * flight recorder. */
static void users_symlink_followed(void **state)
{
	const char *scratch = t2_scratch_dir();
	char *link = t2_path(scratch, "event.log"), *real = t2_path(scratch, "real.log"),
	     *perf = t2_path(scratch, "perf"), *text;
	struct t2_env env = { 0 };
	struct t2_proc p;

	(void)state;
	T2_SKIP_ON_WINDOWS("symlinks");
	assert_int_equal(symlink(real, link), 0); /* dangling until made */
	assert_int_equal(mkdir(perf, 0777), 0);
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s", link);
	t2_env_add(&env, "GIT_TRACE2_FLIGHT=64k");
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	t2_tool(t2_env_list(&env), &p, "trace2", "001return", "1", NULL);
	assert_true(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 1);
	assert_string_equal(p.err, "");
	text = t2_read_file(real, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"event\":\"exit\""));
	free(text);
	t2_proc_free(&p);
	t2_env_free(&env);
	free(link);
	free(real);
	free(perf);
}

/* The chrome target's "[" starts the file it makes, once. */
static void chrome_head_starts_the_made_file(void **state)
{
	const char *scratch = t2_scratch_dir();
	char *file = t2_path(scratch, "chrome.json"), *dir = t2_path(scratch, "chrome"), *text;
	struct t2_env env = { 0 };
	struct t2_proc p;

	(void)state;
	assert_int_equal(mkdir(dir, 0777), 0);
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", file);
	t2_env_add(&env, "GIT_TRACE2_FLIGHT=64k");
	t2_tool(t2_env_list(&env), &p, "trace2", "001return", "1", NULL);
	assert_true(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 1);
	text = t2_read_file(file, NULL);
	assert_non_null(text);
	assert_int_equal(strncmp(text, "[\n{", 3), 0);
	assert_null(strstr(text + 1, "[\n{"));
	free(text);
	t2_proc_free(&p);
	t2_env_free(&env);
	env = (struct t2_env){ 0 };
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", dir);
	t2_env_add(&env, "GIT_TRACE2_FLIGHT=64k");
	t2_tool(t2_env_list(&env), &p, "trace2", "001return", "1", NULL);
	assert_true(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 1);
	text = only_file_in(dir);
	assert_int_equal(strncmp(text, "[\n{", 3), 0);
	free(text);
	t2_proc_free(&p);
	t2_env_free(&env);
	free(file);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(files_made_at_initialize_without_flight,
					  t2_scratch_cleanup),
		cmocka_unit_test_teardown(untriggered_run_leaves_no_file, t2_scratch_cleanup),
		cmocka_unit_test_teardown(exit_1_makes_the_files, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fatal_signal_makes_the_files, t2_scratch_cleanup),
		cmocka_unit_test_teardown(dump_from_handler_makes_the_files, t2_scratch_cleanup),
		cmocka_unit_test_teardown(planted_symlinks_not_followed, t2_scratch_cleanup),
		cmocka_unit_test_teardown(users_symlink_followed, t2_scratch_cleanup),
		cmocka_unit_test_teardown(chrome_head_starts_the_made_file, t2_scratch_cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
