#include "tr2_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sys_open(const char *path, int flags, mode_t mode)
{
	return open(path, flags, mode);
}

#define REAL_CALLS { sys_open, read, write, send, socket, connect, close, \
		     fstat, stat, opendir, getenv, setenv, malloc, calloc, \
		     realloc, free }

struct tr2_sys tr2_sys = REAL_CALLS;

void tr2_sys_reset(void)
{
	static const struct tr2_sys real = REAL_CALLS;

	tr2_sys = real;
}

int tr2_open(const char *path, int flags, mode_t mode)
{
	int fd;

	do
		fd = tr2_sys.open(path, flags, mode);
	while (fd < 0 && errno == EINTR);
	return fd;
}

ssize_t tr2_read(int fd, void *buf, size_t n)
{
	ssize_t got;

	do
		got = tr2_sys.read(fd, buf, n);
	while (got < 0 && errno == EINTR);
	return got;
}

char *tr2_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = tr2_sys.malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}
