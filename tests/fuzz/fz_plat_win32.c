/* The fuzzers' system calls on Windows (fz_plat.h). */
#ifdef _WIN32
#include "fuzz.h"

#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

/* The most one fz_packet_pair()'s writer sends before the reader reads:
 * every fuzzer's longest input (tests/fuzz/Makefile's MAX_LEN_*), with
 * room for the pipe's own count of each packet. */
#define PACKET_PIPE_SIZE (64 << 10)

/* Through the C runtime, which updates the system's copy too (the
 * library reads that one). */
void fz_setenv(const char *name, const char *value)
{
	size_t n = strlen(name) + (value ? strlen(value) : 0) + 2;
	char *s = malloc(n);

	FZ_CHECK(s != NULL);
	snprintf(s, n, "%s=%s", name, value ? value : ""); /* "NAME=": removes it */
	FZ_CHECK(!_putenv(s));
	free(s);
}

const char *fz_temp_base(void)
{
	static const char *const vars[] = { "TMPDIR", "TEMP", "TMP" };
	const char *base;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		if ((base = getenv(vars[i])) && *base)
			return base;
	return ".";
}

/* No mkdtemp(): names from the pid, the time and a count, until one is
 * free. */
char *fz_mkdtemp(char *templ)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	static unsigned count;
	size_t len = strlen(templ), i;
	unsigned tries;

	if (len < 6 || strcmp(templ + len - 6, "XXXXXX")) {
		errno = EINVAL;
		return NULL;
	}
	for (tries = 0; tries < 100; tries++) {
		unsigned long v = (unsigned long)_getpid() * 7919u + GetTickCount() + count++;

		for (i = len - 6; i < len; i++, v /= 36)
			templ[i] = digits[v % 36];
		if (!_mkdir(templ))
			return templ;
		if (errno != EEXIST)
			return NULL;
	}
	return NULL;
}

/* The fuzzers start no process: inherited or not is the same. */
int fz_dup_private(int fd)
{
	return _dup(fd);
}

/* Windows has no limit of a file's size: callers check what they
 * wrote afterwards. */
int fz_limit_file_size(size_t max)
{
	(void)max;
	return 0;
}

/* A message-mode named pipe of a name of its own, and a client of it. */
int fz_packet_pair(int fds[2])
{
	static unsigned count;
	char name[64];
	HANDLE server, client;

	snprintf(name, sizeof(name), "\\\\.\\pipe\\t2fuzz-%d-%u", _getpid(), count++);
	server = CreateNamedPipeA(name, PIPE_ACCESS_INBOUND | FILE_FLAG_FIRST_PIPE_INSTANCE,
				  PIPE_TYPE_MESSAGE | PIPE_READMODE_MESSAGE | PIPE_WAIT |
				  PIPE_REJECT_REMOTE_CLIENTS, 1, 0, PACKET_PIPE_SIZE, 0, NULL);
	if (server == INVALID_HANDLE_VALUE)
		return -1;
	client = CreateFileA(name, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
	if (client == INVALID_HANDLE_VALUE) {
		CloseHandle(server);
		return -1;
	}
	fds[0] = _open_osfhandle((intptr_t)client, _O_WRONLY | _O_BINARY);
	fds[1] = _open_osfhandle((intptr_t)server, _O_RDONLY | _O_BINARY);
	FZ_CHECK(fds[0] >= 0 && fds[1] >= 0);
	return 0;
}

/* One WriteFile: one message. */
long fz_send_packet(int fd, const void *data, size_t n)
{
	DWORD done;

	if (n > MAXDWORD || !WriteFile((HANDLE)_get_osfhandle(fd), data, (DWORD)n, &done, NULL))
		return -1;
	return (long)done;
}
#endif
