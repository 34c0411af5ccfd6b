/*
 * Running a command as a traced child process, without filling a
 * struct trace2_child_process by hand:
 *
 *   const char *argv[] = { "tar", "-czf", "out.tgz", "dir", NULL };
 *   int code = trace2_run_command(argv, "archive");
 *
 * Include after trace2.h.  Works whether tracing is on or off, and with
 * -DTRACE2_DISABLE (then it runs the command untraced, without the
 * library, with POSIX's posix_spawnp() and waitpid(): that form alone
 * needs more than standard C).
 */
#ifndef TRACE2_RUN_H
#define TRACE2_RUN_H

#include "../trace2.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Run argv[0] (looked up in PATH when it has no '/') with the arguments
 * argv (NULL-terminated; argv[0] is the child's own name) and wait for
 * it.  It gets this process's environment, working directory, standard
 * descriptors, signal mask and ignored signals; handled signals are
 * back to their default in it.  A child_start record (class child_class,
 * or "?" for NULL) is written before it starts and a child_exit record
 * with its pid and the returned code after it ends, as Git writes them.
 *
 * Returns Git's code: the child's exit status (0-255), or 128 + n when
 * signal n killed it.  -1 with errno set when it could not be started
 * (ENOENT: no such command; EACCES: not executable), the child_exit then
 * saying pid -1 and code -1, or when its status is lost to the host
 * (ECHILD: the host reaps its children itself or ignores SIGCHLD).  An
 * argv that is NULL or empty is EINVAL, without a record.
 *
 * Thread-safe.  Changes no signal disposition of this process, leaves no
 * descriptor open, and waits only for this child (other children's
 * statuses are left to the host).  On a platform without posix_spawn it
 * forks and execs, holding this thread's signals while it forks.
 */
#ifndef TRACE2_DISABLE
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif
int trace2_run_command(const char **argv, const char *child_class);
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif
#else
#include <errno.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

/* Always inlined: no trace2_ symbol is left in the program. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int trace2_run_command(const char **argv, const char *child_class)
{
	pid_t pid;
	int status, err;
	char *const *args;

	(void)child_class;
	if (!argv || !argv[0]) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&args, &argv, sizeof(args)); /* exec's type, without a cast */
	err = posix_spawnp(&pid, argv[0], NULL, NULL, args, environ);
	if (err) {
		errno = err;
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
#endif

#ifdef __cplusplus
}
#endif

#endif
