/* Each input of the replay in a child forked from a process that
 * initialized the fuzzer (replay.h). */
#ifndef _WIN32
#include "fuzz.h"
#include "replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed(const char *path)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	FZ_CHECK(pid >= 0);
	if (!pid) {
		alarm(REPLAY_TIMEOUT);
		replay_one(path);
		exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		FZ_CHECK(errno == EINTR);
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 1;
	if (WIFSIGNALED(status))
		fprintf(stderr, "FAIL %s: signal %d\n", path, WTERMSIG(status));
	else
		fprintf(stderr, "FAIL %s: exit code %d\n", path, WEXITSTATUS(status));
	return 0;
}

size_t replay_all(char *const *names, size_t nr, int *argc, char ***argv)
{
	size_t i, ok = 0;

	replay_initialize(argc, argv);
	for (i = 0; i < nr; i++)
		ok += (size_t)passed(names[i]);
	return ok;
}
#endif
