/*
 * Every system and allocation call of the library goes through this one
 * table, so that tests can make any of them fail (EINTR, short writes,
 * EAGAIN, ENOSPC, EPIPE, EBADF, EMFILE, ENOMEM) at any call site.
 */
#ifndef TR2_SYS_H
#define TR2_SYS_H

#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>

/* For tr2_sys.write_flags(): fail with EAGAIN rather than wait for room,
 * whatever the descriptor's mode (not terminals, nor FIFOs on some
 * kernels); on a pipe without reader, fail with EPIPE and raise no
 * SIGPIPE (Linux 6.18 and later). */
#define TR2_WRITE_NOWAIT 0x1
#define TR2_WRITE_NOSIGNAL 0x2

struct tr2_sys {
	int (*open)(const char *path, int flags, mode_t mode);
	ssize_t (*read)(int fd, void *buf, size_t n);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	/* write() with TR2_WRITE_* flags; EOPNOTSUPP where the kernel cannot
	 * honour one of them for the descriptor */
	ssize_t (*write_flags)(int fd, const void *buf, size_t n, int flags);
	ssize_t (*send)(int fd, const void *buf, size_t n, int flags);
	int (*socket)(int domain, int type, int protocol);
	int (*connect)(int fd, const struct sockaddr *sa, socklen_t len);
	int (*close)(int fd);
	int (*fstat)(int fd, struct stat *st);
	int (*stat)(const char *path, struct stat *st);
	DIR *(*opendir)(const char *path);
	char *(*getenv)(const char *name);
	int (*setenv)(const char *name, const char *value, int overwrite);
	void *(*malloc)(size_t n);
	void *(*calloc)(size_t n, size_t size);
	void *(*realloc)(void *p, size_t n);
	void (*free)(void *p);
};

extern struct tr2_sys tr2_sys;

/* open() and read() through the table, retried while interrupted. */
int tr2_open(const char *path, int flags, mode_t mode);
ssize_t tr2_read(int fd, void *buf, size_t n);

/* poll() and a sigtimedwait() without waiting that, like the calls in
 * the table, are never cancellation points.  tr2_poll() takes a
 * timeout_ms >= 0; tr2_take_pending() returns signo if it was pending. */
int tr2_poll(struct pollfd *fds, nfds_t n, int timeout_ms);
int tr2_take_pending(int signo);

/* The timespec of the system calls made directly (ppoll, futex,
 * nanosleep, rt_sigtimedwait): two longs on every Linux ABI but x32,
 * whatever size <time.h> gives time_t -- a 32-bit build with
 * _TIME_BITS=64 has a 64-bit time_t, which those calls would misread
 * (a 300 ms timeout as 0). */
struct tr2_kernel_timespec {
	long tv_sec;
	long tv_nsec;
};

/* Put the real calls back. */
void tr2_sys_reset(void);
/* strdup() through tr2_sys.malloc. */
char *tr2_strdup(const char *s);

/* n zeroed bytes starting a cache line, through tr2_sys.malloc, for
 * state a signal handler may walk: never freed; NULL without memory. */
void *tr2_alloc_forever(size_t n);

/* Run fn once per process, the first time *done is 0, under lock (reset
 * it in a forked child).  Not pthread_once(): glibc's makes a futex call
 * even when no thread waits, one system call more per traced process. */
void tr2_run_once(int *done, pthread_mutex_t *lock, void (*fn)(void));

#endif
