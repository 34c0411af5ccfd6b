/*
 * Every system and allocation call of the library goes through this one
 * table, so that tests can make any of them fail (EINTR, short writes,
 * EAGAIN, ENOSPC, EPIPE, EBADF, EMFILE, ENOMEM) at any call site.
 */
#ifndef TR2_SYS_H
#define TR2_SYS_H

#include "tr2_plat.h"

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct tr2_sys {
	int (*open)(const char *path, int flags, mode_t mode);
	ssize_t (*read)(int fd, void *buf, size_t n);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	/* tr2_plat_write_flags(): write() with TR2_WRITE_* flags */
	ssize_t (*write_flags)(int fd, const void *buf, size_t n, int flags);
	ssize_t (*send)(int fd, const void *buf, size_t n, int flags);
	int (*socket)(int domain, int type, int protocol); /* close-on-exec */
	int (*connect)(int fd, const struct sockaddr *sa, socklen_t len);
	int (*close)(int fd);
	int (*fstat)(int fd, struct stat *st);
	int (*stat)(const char *path, struct stat *st);
	tr2_dir *(*opendir)(const char *path);
	tr2_dirent *(*readdir)(tr2_dir *d);
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
void tr2_run_once(int *done, tr2_mutex *lock, void (*fn)(void));

/* Nap (20 us, doubling to 1 ms) until done(arg) says 1, at most limit_ms
 * milliseconds: a full ring waiting for its writer.  1 if done said so. */
int tr2_nap_until(int (*done)(void *arg), void *arg, long limit_ms);

#endif
