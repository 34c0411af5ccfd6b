/*
 * The platform seam's portable fallbacks (tr2_plat.h): plain POSIX, each
 * built where tr2_plat_linux.c lacks the function's TR2_HAVE_* feature.
 */
#include "tr2_plat.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#if !TR2_HAVE_LINUX_SYSCALLS
/*
 * The C library's calls with cancellation disabled around them: a
 * thread cancelled inside one would leave a destination's lock or its
 * buffer held for good (tr2_plat.h).
 */
static int cancel_off(void)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

/* Restore the cancellation state, keeping the call's errno. */
static void cancel_back(int old)
{
	int err = errno;

	pthread_setcancelstate(old, NULL);
	errno = err;
}

int tr2_plat_open(const char *path, int flags, mode_t mode)
{
	int old = cancel_off(), fd = open(path, flags, mode);

	cancel_back(old);
	return fd;
}

ssize_t tr2_plat_read(int fd, void *buf, size_t n)
{
	int old = cancel_off();
	ssize_t r = read(fd, buf, n);

	cancel_back(old);
	return r;
}

ssize_t tr2_plat_write(int fd, const void *buf, size_t n)
{
	int old = cancel_off();
	ssize_t w = write(fd, buf, n);

	cancel_back(old);
	return w;
}

ssize_t tr2_plat_send(int fd, const void *buf, size_t n, int flags)
{
	int old = cancel_off();
	ssize_t w = send(fd, buf, n, flags);

	cancel_back(old);
	return w;
}

int tr2_plat_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int old = cancel_off(), r = connect(fd, sa, len);

	cancel_back(old);
	return r;
}

int tr2_plat_close(int fd)
{
	int old = cancel_off(), r = close(fd);

	cancel_back(old);
	return r;
}

int tr2_plat_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	int old = cancel_off(), r = poll(fds, n, timeout_ms);

	cancel_back(old);
	return r;
}

/* sigwait() returns at once for a signal that is pending and held. */
int tr2_plat_take_pending(int signo)
{
	sigset_t set;
	int got, old, err;

	if (sigpending(&set) || !sigismember(&set, signo))
		return -1;
	sigemptyset(&set);
	sigaddset(&set, signo);
	old = cancel_off();
	err = sigwait(&set, &got);
	cancel_back(old);
	return err ? -1 : got;
}

void tr2_plat_nap_us(long us)
{
	struct timespec ts = { 0, us * 1000L };
	int old = cancel_off();

	nanosleep(&ts, NULL);
	cancel_back(old);
}
#endif

#if !TR2_HAVE_PWRITEV2
/* No per-write flags: the caller learns to poll before writing and to
 * hold signals around the write instead. */
ssize_t tr2_plat_write_flags(int fd, const void *buf, size_t n, int flags)
{
	(void)fd;
	(void)buf;
	(void)n;
	(void)flags;
	errno = EOPNOTSUPP;
	return -1;
}
#endif

#if !TR2_HAVE_SOCK_CLOEXEC || !TR2_HAVE_DUP3
/* Another thread's fork() and exec() between the call and the fcntl()
 * hands the descriptor to that program. */
static int set_cloexec(int fd)
{
	if (fd >= 0 && fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}
#endif

#if !TR2_HAVE_SOCK_CLOEXEC
int tr2_plat_socket(int domain, int type, int protocol)
{
	return set_cloexec(socket(domain, type, protocol));
}
#endif

#if !TR2_HAVE_DUP3
int tr2_plat_dup_cloexec(int fd, int to)
{
	return set_cloexec(dup2(fd, to));
}
#endif

#if !TR2_HAVE_FUTEX
/*
 * One condition variable for every word (the deferred writer's is the
 * only one).  Locks are only tried: a waker interrupted by a signal
 * handler that wakes again, or a child forked while one held the lock,
 * never waits on it; a wake lost so is a wait that runs to its timeout.
 */
static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond = PTHREAD_COND_INITIALIZER;

void tr2_plat_wait(int *word, int value, long ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	if (pthread_mutex_trylock(&wait_lock)) {
		nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
		return;
	}
	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == value &&
	       pthread_cond_timedwait(&wait_cond, &wait_lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&wait_lock);
}

void tr2_plat_wake(int *word)
{
	(void)word;
	if (!pthread_mutex_trylock(&wait_lock)) {
		pthread_cond_broadcast(&wait_cond);
		pthread_mutex_unlock(&wait_lock);
	}
}
#endif

#if !TR2_HAVE_PTHREAD_SETNAME_NP
void tr2_plat_name_thread(pthread_t thread, const char *name)
{
	(void)thread;
	(void)name;
}
#endif

#if !TR2_HAVE_PROC_STAT
int tr2_plat_parent(long pid, char *name, size_t size, long *ppid)
{
	(void)pid;
	(void)name;
	(void)size;
	(void)ppid;
	return -1;
}
#endif
