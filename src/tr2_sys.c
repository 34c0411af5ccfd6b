#include "tr2_sys.h"
#include "tr2_plat.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define REAL_CALLS { tr2_plat_open, tr2_plat_read, tr2_plat_write, tr2_plat_write_flags, \
		     tr2_plat_send, tr2_plat_socket, tr2_plat_connect, tr2_plat_close, \
		     tr2_plat_fstat, tr2_plat_stat, tr2_plat_opendir, tr2_plat_readdir, \
		     tr2_plat_getenv, tr2_plat_setenv, malloc, calloc, realloc, free }

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

void tr2_run_once(int *done, tr2_mutex *lock, void (*fn)(void))
{
	if (__atomic_load_n(done, __ATOMIC_ACQUIRE))
		return;
	tr2_mutex_lock(lock);
	if (!*done) {
		fn();
		__atomic_store_n(done, 1, __ATOMIC_RELEASE);
	}
	tr2_mutex_unlock(lock);
}

int tr2_nap_until(int (*done)(void *arg), void *arg, long limit_ms)
{
	long waited_us = 0, nap = 20;

	while (waited_us < limit_ms * 1000) {
		tr2_plat_nap_us(nap);
		waited_us += nap;
		if (nap < 1000)
			nap *= 2;
		if (done(arg))
			return 1;
	}
	return 0;
}
