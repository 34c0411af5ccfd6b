/*
 * trace2_run_command() (include/trace2/run.h): Git's codes for how the
 * child ended (exit status, 128 + signal, -1 and errno when it could not
 * start), its arguments, and its child_start/child_exit records the same
 * on every target as those of the same child reported by hand with
 * trace2_child_start()/trace2_child_exit() around fork()/exec().  Also:
 * the host's signal dispositions and descriptors are as they were, the
 * child gets no descriptor of ours, and threads run commands at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "trace2/run.h"

/* The commands of the record comparison, with the code each returns. */
static const char *const cmd_exit3[] = { "sh", "-c", "exit 3", NULL };
static const char *const cmd_args[] = { "sh", "-c", "exit $#", "zero", "a b", "", "c", NULL };
static const char *const cmd_term[] = { "sh", "-c", "kill -TERM $$", NULL };
static const char *const cmd_kill[] = { "sh", "-c", "kill -KILL $$", NULL };
static const char *const cmd_255[] = { "/bin/sh", "-c", "exit 255", NULL };
static const char *const cmd_missing[] = { "t2-no-such-command", "x", NULL };

static const char *const *const commands[] = {
	cmd_exit3, cmd_args, cmd_term, cmd_kill, cmd_255, cmd_missing,
};
static const int codes[] = { 3, 3, 128 + SIGTERM, 128 + SIGKILL, 255, -1 };
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* What the helper returned, as a data record the test then reads. */
static void report(int code, int err)
{
	trace2_data_intmax("test", NULL, "code", code);
	trace2_data_intmax("test", NULL, "errno", code < 0 ? err : 0);
}

static void by_helper(void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < N_COMMANDS; i++) {
		int code = trace2_run_command((const char **)commands[i], i % 2 ? "cls" : NULL);

		report(code, errno);
	}
}

/* The same children reported by hand, as embedding.md showed before. */
static void by_hand(void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; i < N_COMMANDS; i++) {
		struct trace2_child_process cmd = TRACE2_CHILD_PROCESS_INIT;
		int status, code, fds[2], err = 0;

		cmd.args.v = (const char **)commands[i];
		while (cmd.args.v[cmd.args.nr])
			cmd.args.nr++;
		cmd.trace2_child_class = i % 2 ? "cls" : NULL;
		trace2_child_start(&cmd);
		assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
		cmd.pid = fork();
		if (cmd.pid == 0) {
			execvp(cmd.args.v[0], (char *const *)cmd.args.v);
			err = errno;
			if (write(fds[1], &err, sizeof(err)) < 0)
				_exit(126);
			_exit(127);
		}
		close(fds[1]);
		if (read(fds[0], &err, sizeof(err)) != sizeof(err))
			err = 0;
		close(fds[0]);
		waitpid(cmd.pid, &status, 0);
		if (err) {
			cmd.pid = -1;
			code = -1;
		} else
			code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
		trace2_child_exit(&cmd, code);
		report(code, err);
	}
}

/* Output with every pid > 0 written as PID. */
static char *without_pids(const char *text)
{
	char *a = t2_regsub(text, "pid:[0-9]+", "pid:PID");
	char *b = t2_regsub(a, "\"pid\":[0-9]+", "\"pid\":PID");

	free(a);
	return b;
}

static void assert_same_output(const char *what, const char *helper, const char *hand)
{
	char *a = without_pids(helper), *b = without_pids(hand);

	if (strcmp(a, b))
		fail_msg("%s differs:\n--- trace2_run_command()\n%s--- by hand\n%s", what, a, b);
	free(a);
	free(b);
}

/* Brief output: the records without the file:line of their call. */
static const char *const brief[] = { "GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1",
				     "GIT_TRACE2_EVENT_BRIEF=1", NULL };

/* Every target writes the same records for both, and the codes are Git's. */
static void records_match_by_hand(void **state)
{
	const char *const *env = brief;
	struct t2_out helper, hand;
	char *want = NULL;
	size_t i;

	(void)state;
	t2_run_all(by_helper, NULL, env, &helper);
	t2_run_all(by_hand, NULL, env, &hand);
	assert_int_equal(helper.status, 0);
	assert_int_equal(hand.status, 0);
	assert_same_output("normal", helper.normal, hand.normal);
	assert_same_output("perf", helper.perf, hand.perf);
	assert_same_output("event", helper.event, hand.event);
	for (i = 0; i < N_COMMANDS; i++)
		t2_append(&want, "code:%d errno:%d|", codes[i], codes[i] < 0 ? ENOENT : 0);
	{
		char **lines = t2_lines(helper.perf, NULL), *got = NULL;
		size_t n;

		for (n = 0; lines[n]; n++) {
			const char *v = strstr(lines[n], "| test ") ? strrchr(lines[n], '|') : NULL;

			if (v && !strncmp(v, "| code:", 7))
				t2_append(&got, "%s ", v + 2);
			else if (v && !strncmp(v, "| errno:", 8))
				t2_append(&got, "%s|", v + 2);
		}
		assert_string_equal(got ? got : "", want);
		free(got);
		t2_strv_free(lines);
	}
	/* Git's child_exit of a child that did not start */
	assert_non_null(strstr(helper.normal, "child_exit[5] pid:-1 code:-1 "));
	assert_non_null(strstr(helper.normal,
			       "child_start[1] sh -c 'exit $#' zero 'a b' '' c\n"));
	free(want);
	t2_out_free(&helper);
	t2_out_free(&hand);
}

/* Tracing off: the same codes, no record anywhere. */
static void codes_while_off(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N_COMMANDS; i++) {
		errno = 0;
		assert_int_equal(trace2_run_command((const char **)commands[i], NULL), codes[i]);
		if (codes[i] < 0)
			assert_int_equal(errno, ENOENT);
	}
	{
		const char *argv[] = { "/dev/null", NULL };

		assert_int_equal(trace2_run_command(argv, NULL), -1);
		assert_int_equal(errno, EACCES);
		argv[0] = NULL;
		assert_int_equal(trace2_run_command(argv, NULL), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(trace2_run_command(NULL, NULL), -1);
		assert_int_equal(errno, EINVAL);
	}
}

static void host_handler(int sig)
{
	(void)sig;
}

static void same_action(int sig, const struct sigaction *before)
{
	struct sigaction now;

	assert_int_equal(sigaction(sig, NULL, &now), 0);
	assert_ptr_equal(now.sa_handler, before->sa_handler);
}

/* Open descriptors of this process, and those a child inherits. */
static int open_fds(int *inheritable, int max)
{
	int n = 0, fd, flags;

	for (fd = 0; fd < max; fd++) {
		flags = fcntl(fd, F_GETFD);
		n += flags != -1;
		if (inheritable)
			inheritable[fd] = flags != -1 && !(flags & FD_CLOEXEC);
	}
	return n;
}

/* How many descriptors listed in file the child had that this process
 * does not hand down (ls's own directory is one). */
static int foreign_fds(const char *file, const int *inheritable, int max)
{
	char *text = t2_read_file(file, NULL), **lines;
	int n = 0, i;

	assert_non_null(text);
	lines = t2_lines(text, NULL);
	for (i = 0; lines[i]; i++) {
		int fd = atoi(lines[i]);

		n += fd < 0 || fd >= max || !inheritable[fd];
	}
	t2_strv_free(lines);
	free(text);
	return n;
}

/*
 * The host's dispositions stay as they were (a handler, an ignored
 * signal, SIGCHLD's default); the child runs with the host's handler
 * back at its default (SIGUSR1 ends it) and SIGPIPE still ignored; no
 * descriptor is left open, nor handed to the child.
 */
static void host_untouched(void **state)
{
	struct sigaction usr1 = { .sa_handler = host_handler }, pipe_ign = { .sa_handler = SIG_IGN };
	struct sigaction old_usr1, old_pipe, chld;
	const char *usr1_cmd[] = { "sh", "-c", "kill -USR1 $$; exit 0", NULL };
	const char *pipe_cmd[] = { "sh", "-c", "kill -PIPE $$; exit 4", NULL };
	char *dir = t2_tmpdir(), *list = t2_path(dir, "fds");
	const char *fd_cmd[] = { "sh", "-c", "exec ls /proc/self/fd >\"$1\"", "sh", list, NULL };
	int fds, inheritable[1024];

	(void)state;
	sigemptyset(&usr1.sa_mask);
	sigemptyset(&pipe_ign.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &usr1, &old_usr1), 0);
	assert_int_equal(sigaction(SIGPIPE, &pipe_ign, &old_pipe), 0);
	assert_int_equal(sigaction(SIGCHLD, NULL, &chld), 0);
	fds = open_fds(inheritable, 1024);
	assert_int_equal(trace2_run_command(usr1_cmd, NULL), 128 + SIGUSR1);
	/* an ignored SIGPIPE stays ignored in the child: it goes on to exit 4 */
	assert_int_equal(trace2_run_command(pipe_cmd, NULL), 4);
	assert_int_equal(trace2_run_command(fd_cmd, NULL), 0);
	assert_int_equal(foreign_fds(list, inheritable, 1024), 1);
	same_action(SIGUSR1, &usr1);
	same_action(SIGPIPE, &pipe_ign);
	same_action(SIGCHLD, &chld);
	assert_int_equal(open_fds(NULL, 1024), fds);
	t2_rmtree(dir);
	free(list);
	free(dir);
	sigaction(SIGUSR1, &old_usr1, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
}

/* A host that lets the kernel reap its children: -1 and ECHILD. */
static void status_lost(void **state)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	const char *argv[] = { "true", NULL };

	(void)state;
	sigemptyset(&ign.sa_mask);
	assert_int_equal(sigaction(SIGCHLD, &ign, &old), 0);
	errno = 0;
	assert_int_equal(trace2_run_command(argv, NULL), -1);
	assert_int_equal(errno, ECHILD);
	sigaction(SIGCHLD, &old, NULL);
}

#define THREADS 4
#define RUNS 10

static void *run_many(void *arg)
{
	char code[8];
	const char *argv[] = { "sh", "-c", "exit \"$1\"", "sh", code, NULL };
	int i, t = (int)(intptr_t)arg;

	for (i = 0; i < RUNS; i++) {
		snprintf(code, sizeof(code), "%d", t * RUNS + i);
		if (trace2_run_command(argv, "many") != t * RUNS + i)
			return (void *)1;
	}
	return NULL;
}

static void threads_scenario(void *arg)
{
	pthread_t th[THREADS];
	intptr_t t;

	(void)arg;
	for (t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, run_many, (void *)t), 0);
	for (t = 0; t < THREADS; t++) {
		void *res;

		assert_int_equal(pthread_join(th[t], &res), 0);
		assert_null(res);
	}
}

/* Threads at once: each gets its own child's code; every child id once,
 * each child_exit names the pid and code of its own child_start. */
static void threads_at_once(void **state)
{
	const char *const *env = brief;
	struct t2_out out;
	int seen[THREADS * RUNS] = { 0 }, started[THREADS * RUNS], ended[THREADS * RUNS], i;
	char **lines;

	(void)state;
	t2_run_all(threads_scenario, NULL, env, &out);
	assert_int_equal(out.status, 0);
	lines = t2_lines(out.normal, NULL);
	for (i = 0; lines[i]; i++) {
		int id, code;

		if (sscanf(lines[i], "child_exit[%d] pid:%*d code:%d", &id, &code) == 2) {
			assert_true(id >= 0 && id < THREADS * RUNS);
			seen[id]++;
			ended[id] = code;
		} else if (sscanf(lines[i], "child_start[%d] sh -c 'exit \"$1\"' sh %d",
				  &id, &code) == 2) {
			assert_true(id >= 0 && id < THREADS * RUNS);
			seen[id]++;
			started[id] = code;
		}
	}
	for (i = 0; i < THREADS * RUNS; i++) {
		assert_int_equal(seen[i], 2);
		assert_int_equal(started[i], ended[i]);
	}
	t2_strv_free(lines);
	t2_out_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_match_by_hand),
		cmocka_unit_test(codes_while_off),
		cmocka_unit_test(host_untouched),
		cmocka_unit_test(status_lost),
		cmocka_unit_test(threads_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
