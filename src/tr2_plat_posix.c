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
#if !TR2_HAVE_POSIX_SPAWN
#include <sys/wait.h>
#endif

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

#if !TR2_HAVE_SOCK_CLOEXEC || !TR2_HAVE_DUP3 || !TR2_HAVE_POSIX_SPAWN
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

#if !TR2_HAVE_POSIX_SPAWN
#ifndef NSIG
#define NSIG 65
#endif

/* In the forked child: every handled signal back to its default, so
 * that none of this process's handlers (trace2's own among them) runs
 * in it before the exec. */
static void default_handlers(void)
{
	struct sigaction sa;
	int sig;

	for (sig = 1; sig < NSIG; sig++) {
		if (sigaction(sig, NULL, &sa) || (!(sa.sa_flags & SA_SIGINFO) &&
		    (sa.sa_handler == SIG_IGN || sa.sa_handler == SIG_DFL)))
			continue;
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(sig, &sa, NULL);
	}
}

/* The child: exec argv, or write why it failed into report and end. */
static void exec_child(const char *const *argv, int report, const sigset_t *mask)
{
	int err;

	default_handlers();
	pthread_sigmask(SIG_SETMASK, mask, NULL);
	execvp(argv[0], (char *const *)argv);
	err = errno;
	while (write(report, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* The errno the child wrote before it ended, or 0 once it exec'd (the
 * close-on-exec pipe closed without a word). */
static int exec_error(int fd)
{
	ssize_t n;
	int err = 0;

	while ((n = read(fd, &err, sizeof(err))) < 0 && errno == EINTR)
		;
	return n == (ssize_t)sizeof(err) ? err : 0;
}

/*
 * fork() and execvp(), the exec's errno sent back through a close-on-exec
 * pipe.  Every signal is held in this thread while it forks, so the child
 * runs no handler before default_handlers().
 */
int tr2_plat_spawn(const char *const *argv, pid_t *pid)
{
	sigset_t all, old;
	int fds[2], err;

	if (pipe(fds))
		return errno;
	if (set_cloexec(fds[0]) < 0) {
		err = errno;
		close(fds[1]);
		return err;
	}
	if (set_cloexec(fds[1]) < 0) {
		err = errno;
		close(fds[0]);
		return err;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	*pid = fork();
	if (*pid == 0)
		exec_child(argv, fds[1], &old);
	err = *pid < 0 ? errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(fds[1]);
	if (!err && (err = exec_error(fds[0])) != 0) {
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	return err;
}
#endif

#if !TR2_HAVE_DL_ITERATE_PHDR
void tr2_plat_find_immutable(void)
{
}

int tr2_plat_immutable(const void *p, size_t len)
{
	(void)p;
	(void)len;
	return 0;
}
#endif
