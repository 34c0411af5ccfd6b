/*
 * A writer of a named pipe, for tests/tools/test_tool_windows.sh (built
 * with mingw-w64, run under Wine), as a traced process's pipe target
 * writes: it opens the pipe like a file, waiting while every instance is
 * busy (up to 10 s), and writes each line whole in one write, but every
 * seventh in two, cut in its middle.
 *
 *   pipe_writer PATH ID N [LONG]
 *       N lines {"writer":ID,"line":K} to the pipe at PATH; with LONG,
 *       first a line of LONG bytes
 *   pipe_writer PATH @FILE
 *       FILE's bytes, 100 at a time
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

static int write_all(HANDLE h, const char *p, size_t n)
{
	DWORD done;

	while (n) {
		if (!WriteFile(h, p, (DWORD)n, &done, NULL))
			return -1;
		p += done;
		n -= done;
	}
	return 0;
}

static HANDLE open_pipe(const char *path)
{
	DWORD start = GetTickCount();
	HANDLE h;

	for (;;) {
		h = CreateFileA(path, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
		if (h != INVALID_HANDLE_VALUE || GetTickCount() - start > 10000)
			return h;
		if (GetLastError() == ERROR_PIPE_BUSY)
			WaitNamedPipeA(path, 1000);
		else
			Sleep(10); /* not there yet: the listener is starting */
	}
}

static int write_file(HANDLE h, const char *path)
{
	char chunk[100];
	size_t n;
	FILE *f = fopen(path, "rb");
	int ret = 0;

	if (!f) {
		perror(path);
		return 1;
	}
	while (!ret && (n = fread(chunk, 1, sizeof(chunk), f)))
		ret = write_all(h, chunk, n);
	fclose(f);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	char line[64];
	HANDLE h;
	long id, n, k, len;
	size_t long_len = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;

	if (argc < 3 || (argc < 4 && argv[2][0] != '@')) {
		fprintf(stderr, "usage: pipe_writer PATH ID N [LONG] | PATH @FILE\n");
		return 2;
	}
	h = open_pipe(argv[1]);
	if (h == INVALID_HANDLE_VALUE) {
		fprintf(stderr, "pipe_writer: %s: error %lu\n", argv[1], GetLastError());
		return 1;
	}
	if (argv[2][0] == '@') {
		k = write_file(h, argv[2] + 1);
		CloseHandle(h);
		return (int)k;
	}
	id = strtol(argv[2], NULL, 10);
	n = strtol(argv[3], NULL, 10);
	if (long_len) {
		char *big = malloc(long_len + 1);

		if (!big)
			return 1;
		memset(big, 'x', long_len);
		big[long_len] = '\n';
		if (write_all(h, big, long_len + 1))
			fprintf(stderr, "pipe_writer %ld: the long line: error %lu\n", id, GetLastError());
		free(big);
	}
	for (k = 0; k < n; k++) {
		len = snprintf(line, sizeof(line), "{\"writer\":%ld,\"line\":%ld}\n", id, k);
		if (k % 7 == 6 ? write_all(h, line, (size_t)len / 2) ||
				 write_all(h, line + len / 2, (size_t)(len - len / 2))
			       : write_all(h, line, (size_t)len)) {
			fprintf(stderr, "pipe_writer %ld: line %ld: error %lu\n", id, k, GetLastError());
			CloseHandle(h);
			return 1;
		}
	}
	CloseHandle(h);
	return 0;
}
