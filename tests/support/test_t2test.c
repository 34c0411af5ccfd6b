/*
 * t2test's scenarios in child processes, as the tests use them: forked on
 * POSIX, on Windows a new process of the test program that replays the
 * test case up to the scenario (tests/support/t2test_win32.c).  Several
 * scenarios in one test case, with the runner's own files between them;
 * a scenario that runs one of its own; one in the group's setup;
 * descriptors the runner opened; the driver exec'd with its exit code;
 * the time limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"

/* Prints its argument and $T2_WORD, exits 3. */
static void sc_hello(void *arg)
{
	const char *word = getenv("T2_WORD");

	printf("hello %s\n", (const char *)arg);
	fprintf(stderr, "word %s\n", word ? word : "unset");
	fflush(NULL);
	exit(3);
}

static void expect_hello(const struct t2_proc *p, const char *out, const char *err)
{
	assert_true(WIFEXITED(p->status));
	assert_int_equal(WEXITSTATUS(p->status), 3);
	assert_string_equal(p->out, out);
	assert_string_equal(p->err, err);
}

/* The second scenario gets what the runner made after the first. */
static void scenarios_in_turn(void **state)
{
	static const char *const env[] = { "T2_WORD=one", NULL };
	char *dir = t2_tmpdir(), *path = t2_path(dir, "note"), *text, *want;
	struct t2_proc p;

	(void)state;
	t2_capture(sc_hello, "first", env, 20, &p);
	expect_hello(&p, "hello first\n", "word one\n");
	t2_proc_free(&p);
	assert_int_equal(t2_write_file(path, "from the runner"), 0);
	text = t2_read_file(path, NULL);
	assert_string_equal(text, "from the runner");
	t2_capture(sc_hello, text, NULL, 20, &p);
	expect_hello(&p, "hello from the runner\n", "word unset\n");
	t2_proc_free(&p);
	want = t2_xfmt("hello %s\n", path);
	t2_capture(sc_hello, path, NULL, 20, &p);
	expect_hello(&p, want, "word unset\n");
	t2_proc_free(&p);
	free(want);
	free(text);
	free(path);
	t2_rmtree(dir);
	free(dir);
}

/* Runs sc_hello itself, then reports what it got. */
static void sc_nested(void *arg)
{
	struct t2_proc p;

	(void)arg;
	t2_capture(sc_hello, "inner", NULL, 20, &p);
	printf("inner %d [%s]\n", WIFEXITED(p.status) ? WEXITSTATUS(p.status) : -1, p.out);
	t2_proc_free(&p);
	exit(5);
}

static void scenario_in_scenario(void **state)
{
	struct t2_proc p;

	(void)state;
	t2_capture(sc_hello, "before", NULL, 20, &p);
	t2_proc_free(&p);
	t2_capture(sc_nested, NULL, NULL, 20, &p);
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 5);
	assert_string_equal(p.out, "inner 3 [hello inner\n]\n");
	t2_proc_free(&p);
}

static void sc_write_fd(void *arg)
{
	CHECK(write(*(const int *)arg, "through the descriptor\n", 23) == 23);
	exit(0);
}

/* A descriptor the runner opened is open in the scenario, in binary. */
static void descriptor_inherited(void **state)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "fd"), *text;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	struct t2_proc p;

	(void)state;
	assert_true(fd > 2);
	t2_capture(sc_write_fd, &fd, NULL, 20, &p);
	close(fd);
	assert_int_equal(p.status, 0);
	text = t2_read_file(path, NULL);
	assert_string_equal(text, "through the descriptor\n");
	free(text);
	t2_proc_free(&p);
	free(path);
	t2_rmtree(dir);
	free(dir);
}

/* The driver's exit code is the scenario's. */
static void exec_keeps_exit_code(void **state)
{
	struct t2_proc p;

	(void)state;
	t2_tool(NULL, &p, "trace2", "001return", "7", NULL);
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 7);
	t2_proc_free(&p);
}

static void sc_spin(void *arg)
{
	(void)arg;
	for (;;)
		;
}

/* A scenario still running at its limit is killed. */
static void time_limit(void **state)
{
	struct t2_proc p;
	double start = t2_now();

	(void)state;
	t2_capture(sc_spin, NULL, NULL, 1, &p);
	assert_true(WIFSIGNALED(p.status));
	assert_int_equal(WTERMSIG(p.status), 9);
	assert_true(t2_now() - start < 10);
	t2_proc_free(&p);
}

/* What the group's setup got from its scenario. */
static struct t2_proc setup_got;

static int group_setup(void **state)
{
	(void)state;
	t2_capture(sc_hello, "setup", NULL, 20, &setup_got);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	t2_proc_free(&setup_got);
	return 0;
}

/* A scenario in the group's setup, then one in a test case. */
static void scenario_in_group_setup(void **state)
{
	struct t2_proc p;

	(void)state;
	expect_hello(&setup_got, "hello setup\n", "word unset\n");
	t2_capture(sc_hello, "after setup", NULL, 20, &p);
	expect_hello(&p, "hello after setup\n", "word unset\n");
	t2_proc_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scenarios_in_turn),
		cmocka_unit_test(scenario_in_group_setup),
		cmocka_unit_test(scenario_in_scenario),
		cmocka_unit_test(descriptor_inherited),
		cmocka_unit_test(exec_keeps_exit_code),
		cmocka_unit_test(time_limit),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
