/*
 * startup_floor.c -- the floor of what tracing adds to a whole process:
 * only the system calls a traced run of "trace2-tool trace2 001return 0"
 * cannot do without (reading the settings, opening the destination,
 * one write per record), no formatting and no
 * library.  With no argument it does nothing, the baseline.
 *
 *   startup_floor [TRACE_FILE]
 *
 * open the file for appending; write the version and start records;
 * walk the ancestry (getppid, then open, read 64 bytes, close
 * /proc/<pid>/stat per ancestor up to the one whose parent is 0); write
 * cmd_ancestry, cmd_name, exit and atexit; close.  Record sizes are the
 * event target's for that run.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char line[256];

static int put(int fd, size_t len)
{
	line[len - 1] = '\n';
	return write(fd, line, len) == (ssize_t)len ? 0 : 1;
}

/* "/proc/<pid>/stat" without the printf family (its first call alone
 * costs tens of microseconds in a fresh process). */
static void stat_path(char *p, long pid)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10));
	memcpy(p, "/proc/", 6);
	p += 6;
	while (n)
		*p++ = digits[--n];
	memcpy(p, "/stat", 6);
}

static void walk_ancestry(void)
{
	long pid = (long)getppid();
	char path[48], buf[65];

	while (pid > 0) {
		ssize_t n;
		char *close_paren;
		int fd;

		stat_path(path, pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, 64);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		close_paren = strrchr(buf, ')');
		if (!close_paren || close_paren + 4 >= buf + n)
			return;
		pid = strtol(close_paren + 4, NULL, 10);
	}
}

int main(int argc, char **argv)
{
	int fd, bad;

	if (argc < 2)
		return 0;
	memset(line, 'x', sizeof(line));
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return 1;
	bad = put(fd, 182) | put(fd, 242);
	walk_ancestry();
	bad |= put(fd, 247) | put(fd, 204) | put(fd, 181) | put(fd, 193);
	close(fd);
	return bad;
}
