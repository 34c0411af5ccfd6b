#include "tr2_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/*
 * The C library's open, read, write, send, connect, close, poll and
 * sigtimedwait are cancellation points: a thread cancelled inside one
 * would leave a destination's lock or its buffer held for good, and a
 * trace2 call would become a place where the host's threads can be
 * cancelled.  The system calls themselves never act on a cancellation,
 * so the library makes them directly.
 */
static int sys_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, (long)AT_FDCWD, path,
			    (long)(flags | O_LARGEFILE), (long)mode);
}

static ssize_t sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, (long)fd, buf, n);
}

static ssize_t sys_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, (long)fd, buf, n);
}

/* RWF_NOSIGNAL is newer than most installed kernel headers; its value is
 * part of the kernel's ABI. */
#ifndef RWF_NOSIGNAL
#define RWF_NOSIGNAL 0x00000100
#endif
/* musl's <fcntl.h> (1.2.3) has none of the RWF_ flags. */
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

/* pwritev2() at the file position (offset -1, in both halves so that
 * every ABI reads it as -1). */
static ssize_t sys_write_flags(int fd, const void *buf, size_t n, int flags)
{
	struct iovec iov = { (void *)buf, n };
	long rwf = (flags & TR2_WRITE_NOWAIT ? RWF_NOWAIT : 0) |
		   (flags & TR2_WRITE_NOSIGNAL ? RWF_NOSIGNAL : 0);

	return syscall(SYS_pwritev2, (long)fd, &iov, 1L, -1L, -1L, rwf);
}

static ssize_t sys_send(int fd, const void *buf, size_t n, int flags)
{
	return syscall(SYS_sendto, (long)fd, buf, n, (long)flags, NULL, 0L);
}

static int sys_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	return (int)syscall(SYS_connect, (long)fd, sa, (long)len);
}

static int sys_close(int fd)
{
	return (int)syscall(SYS_close, (long)fd);
}

int tr2_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	struct tr2_kernel_timespec ts = { timeout_ms / 1000, timeout_ms % 1000 * 1000000L };

	return (int)syscall(SYS_ppoll, fds, n, &ts, NULL, 0L);
}

int tr2_take_pending(int signo)
{
	static const struct tr2_kernel_timespec no_wait = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, signo);
	return (int)syscall(SYS_rt_sigtimedwait, &set, NULL, &no_wait,
			    (long)(_NSIG / 8));
}

#define REAL_CALLS { sys_open, sys_read, sys_write, sys_write_flags, sys_send, \
		     socket, sys_connect, sys_close, fstat, stat, opendir, getenv, \
		     setenv, malloc, calloc, realloc, free }

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

void *tr2_alloc_forever(size_t n)
{
	char *raw = tr2_sys.malloc(n + 63);
	char *p;

	if (!raw)
		return NULL;
	p = raw + (64 - (uintptr_t)raw % 64) % 64;
	memset(p, 0, n);
	return p;
}

void tr2_run_once(int *done, pthread_mutex_t *lock, void (*fn)(void))
{
	if (__atomic_load_n(done, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(lock);
	if (!*done) {
		fn();
		__atomic_store_n(done, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(lock);
}

