/* The POSIX functions tests/support/win32/t2posix.h declares for the
 * Windows build of the tests: the plain ones work; fork, signals, Unix
 * sockets and symbolic links fail with ENOSYS (the test cases that need
 * them skip on Windows before calling them). */
#ifdef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "t2test_plat.h"

struct t2_posix_harness t2_posix_harness;

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

void *memmem(const void *hay, size_t hlen, const void *needle, size_t nlen)
{
	const char *h = hay;

	if (!nlen)
		return (void *)h;
	for (size_t i = 0; i + nlen <= hlen; i++)
		if (h[i] == *(const char *)needle && !memcmp(h + i, needle, nlen))
			return (void *)(h + i);
	return NULL;
}

void *memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	while (n--)
		if (p[n] == (unsigned char)c)
			return (void *)(p + n);
	return NULL;
}

/* The runner's result of call (rc, and the struct into out when the
 * runner's is there), if a scenario's replay has it. */
static int replayed(enum t2_file_call call, int *rc, void *out, size_t size)
{
	char *data;
	size_t len;

	if (!t2_posix_harness.replay || !t2_posix_harness.replay(call, rc, &data, &len))
		return 0;
	if (out && data && len == size)
		memcpy(out, data, size);
	free(data);
	return 1;
}

/* fn(path), a call that changes files: the runner's, its result kept. */
static int change(enum t2_file_call call, int (*fn)(const char *), const char *path)
{
	int rc;

	if (replayed(call, &rc, NULL, 0))
		return rc;
	rc = fn(path);
	if (t2_posix_harness.record)
		t2_posix_harness.record(call, rc, NULL, 0);
	return rc;
}

int t2_posix_unlink(const char *path)
{
	return change(T2_CALL_UNLINK, _unlink, path);
}

int t2_posix_mkdir(const char *path)
{
	return change(T2_CALL_MKDIR, _mkdir, path);
}

int t2_posix_stat(const char *path, struct stat *st)
{
	int rc;

	if (replayed(T2_CALL_STAT, &rc, st, sizeof(*st)))
		return rc;
	rc = (stat)(path, st);
	if (t2_posix_harness.record)
		t2_posix_harness.record(T2_CALL_STAT, rc, rc ? NULL : (const char *)st, sizeof(*st));
	return rc;
}

int t2_posix_dup2(int fd, int fd2)
{
	return _dup2(fd, fd2) ? -1 : fd2;
}

int t2_posix_execv(const char *path, char *const argv[])
{
	if (t2_posix_harness.exec)
		t2_posix_harness.exec(path, argv);
	errno = ENOSYS;
	return -1;
}

int pipe(int fds[2])
{
	return _pipe(fds, 65536, _O_BINARY);
}

/* F_DUPFD and F_GETFD, as the tests use them. */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	int min, dups[64], n = 0, got = -1;

	switch (cmd) {
	case F_GETFD:
		if (_get_osfhandle(fd) != -1)
			return 0;
		errno = EBADF;
		return -1;
	case F_DUPFD:
		va_start(ap, cmd);
		min = va_arg(ap, int);
		va_end(ap);
		/* The lowest free number at or above min, as POSIX's. */
		while (n < 64 && (got = _dup(fd)) >= 0 && got < min)
			dups[n++] = got;
		while (n > 0)
			_close(dups[--n]);
		return got >= min ? got : -1;
	default:
		errno = ENOSYS;
		return -1;
	}
}

long sysconf(int name)
{
	if (name == _SC_OPEN_MAX)
		return 2048; /* the C runtime's limit of file descriptors */
	errno = EINVAL;
	return -1;
}

static int unsupported(void)
{
	errno = ENOSYS;
	return -1;
}

int sigemptyset(sigset_t *set)
{
	*set = 0;
	return 0;
}

int sigaddset(sigset_t *set, int sig)
{
	*set |= 1UL << (sig & 31);
	return 0;
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	(void)how, (void)set, (void)old;
	return unsupported();
}

int kill(int pid, int sig)
{
	(void)pid, (void)sig;
	return unsupported();
}

int fork(void)
{
	return unsupported();
}

int waitpid(int pid, int *status, int options)
{
	(void)pid, (void)status, (void)options;
	return unsupported();
}

int symlink(const char *target, const char *path)
{
	(void)target, (void)path;
	return unsupported();
}

int socket(int domain, int type, int protocol)
{
	(void)domain, (void)type, (void)protocol;
	return unsupported();
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	(void)fd, (void)addr, (void)len;
	return unsupported();
}

int listen(int fd, int backlog)
{
	(void)fd, (void)backlog;
	return unsupported();
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	(void)fd, (void)addr, (void)len, (void)flags;
	return unsupported();
}

long recv(int fd, void *buf, size_t len, int flags)
{
	(void)fd, (void)buf, (void)len, (void)flags;
	return unsupported();
}
#endif
