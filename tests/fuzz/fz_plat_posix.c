/* The fuzzers' system calls on POSIX (fz_plat.h). */
#ifndef _WIN32
#include "fuzz.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

void fz_setenv(const char *name, const char *value)
{
	FZ_CHECK(!(value ? setenv(name, value, 1) : unsetenv(name)));
}

/* $TMPDIR, else /dev/shm when usable (scratch files in memory), else /tmp. */
const char *fz_temp_base(void)
{
	const char *base = getenv("TMPDIR");
	struct stat st;

	if (base && *base)
		return base;
	return !stat("/dev/shm", &st) && S_ISDIR(st.st_mode) &&
	       !access("/dev/shm", W_OK) ? "/dev/shm" : "/tmp";
}

char *fz_mkdtemp(char *templ)
{
	return mkdtemp(templ);
}

int fz_dup_private(int fd)
{
	return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

int fz_limit_file_size(size_t max)
{
	struct rlimit r;

	FZ_CHECK(!getrlimit(RLIMIT_FSIZE, &r));
	if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > max)
		r.rlim_cur = max;
	FZ_CHECK(!setrlimit(RLIMIT_FSIZE, &r));
	return 1;
}

int fz_packet_pair(int fds[2])
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds);
}

long fz_send_packet(int fd, const void *data, size_t n)
{
	return (long)send(fd, data, n, MSG_NOSIGNAL);
}
#endif
