/*
 * Where a trace2 command writes (see output.h).  The inputs are checked
 * before the first byte is written, so that a missing input leaves no
 * half output (a Chrome file's "{"traceEvents":[" and "]}" around
 * nothing), and an input that is also the output is neither emptied by
 * -o nor read as the command appends to it.
 */
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"
#include "sys.h"
#include "usage.h"

int t2_output_option(const char *cmd, int argc, char **argv, int *i, const char **path)
{
	const char *a = argv[*i], *v = usage_option(argc, argv, i, "-o");

	if (!v && !(v = usage_option(argc, argv, i, "--output")))
		return 0;
	if (!*v) {
		usage_error(cmd, "%s needs a FILE", a);
		return 2;
	}
	*path = v;
	return 1;
}

/* FILE as standard output; *created: it did not exist. */
static int open_as_stdout(const char *cmd, const char *path, int *created)
{
	int fd = t2_sys_open_write(path, 1);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = t2_sys_open_write(path, 0); /* emptied once the inputs pass */
	if (fd >= 0)
		fflush(stdout); /* nothing is written before this, but be sure */
	if (fd < 0 || dup2(fd, 1) < 0) {
		fprintf(stderr, "trace2 %s: %s: %s\n", cmd, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (*created)
			t2_sys_remove(path);
		return 1;
	}
	if (fd != 1) /* 1 when standard output was closed */
		close(fd);
	return 0;
}

int t2_output_begin(const char *cmd, const char *path, char *const *inputs, int n)
{
	struct t2_file_id id;
	int created = 0;

	if (path && !strcmp(path, "-"))
		path = NULL;
	if (path && open_as_stdout(cmd, path, &created))
		return 1;
	if (t2_reader_check_paths(inputs, n, path ? "output (-o)" : "standard output")) {
		if (created) {
			close(1); /* standard output is FILE: Windows removes no open file */
			t2_sys_remove(path);
		}
		return 1;
	}
	if (path && !created && t2_sys_regular_fd(1, &id) && ftruncate(1, 0)) {
		fprintf(stderr, "trace2 %s: %s: %s\n", cmd, path, strerror(errno));
		return 1;
	}
	return 0;
}
