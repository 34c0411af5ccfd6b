/*
 * The platform seam on POSIX systems (tr2_plat.h): what every POSIX
 * system does alike, then the portable fallbacks, each built where
 * tr2_plat_linux.c lacks the function's TR2_HAVE_* feature.
 */
#ifndef _WIN32
#include "tr2_plat.h"
#include "tr2_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int tr2_plat_cancel_off(void)
{
	int old;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	return old;
}

void tr2_plat_cancel_back(int old)
{
	int err = errno;

	pthread_setcancelstate(old, NULL);
	errno = err;
}

int tr2_thread_start(tr2_thread *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	/* the thread inherits the mask */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void tr2_thread_join(tr2_thread t)
{
	pthread_join(t, NULL);
}

int tr2_plat_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	return pthread_atfork(prepare, parent, child);
}

static void (*exit_fn)(int abrupt);

static void run_exit_fn(void)
{
	exit_fn(0);
}

void tr2_plat_atexit(void (*fn)(int abrupt))
{
	exit_fn = fn;
	atexit(run_exit_fn);
}

void tr2_plat_hold_signals(tr2_held *old)
{
	static const int held[] = { TR2_HELD_SIGNALS };
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		sigaddset(&set, held[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void tr2_plat_release_signals(const tr2_held *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* One the host let through would have been handled already. */
int tr2_plat_host_sigpipe_pending(const tr2_held *old)
{
	sigset_t pending;

	return sigismember(old, SIGPIPE) && !sigpending(&pending) &&
	       sigismember(&pending, SIGPIPE);
}

uint64_t tr2_plat_wall_ns(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

int tr2_plat_monotonic_ns(uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return -1;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

long tr2_plat_utc_offset(time_t sec)
{
	struct tm tm;

	localtime_r(&sec, &tm);
	return tm.tm_gmtoff;
}

long tr2_plat_pid(void)
{
	return (long)getpid();
}

int tr2_plat_hostname(char *buf, size_t size)
{
	return gethostname(buf, size);
}

int tr2_plat_set_blocking(int fd)
{
	return fcntl(fd, F_SETFL, O_WRONLY | O_APPEND);
}

int tr2_plat_wait_pipe(const char *path, int limit_ms)
{
	(void)path;
	(void)limit_ms;
	return -1;
}

int tr2_plat_fstat(int fd, struct stat *st)
{
	return fstat(fd, st);
}

int tr2_plat_stat(const char *path, struct stat *st)
{
	return stat(path, st);
}

tr2_dir *tr2_plat_opendir(const char *path)
{
	return opendir(path);
}

tr2_dirent *tr2_plat_readdir(tr2_dir *d)
{
	return readdir(d);
}

void tr2_plat_closedir(tr2_dir *d)
{
	closedir(d);
}

int tr2_plat_same_file(int a, int b)
{
	struct stat sa, sb;

	return !tr2_sys.fstat(a, &sa) && !tr2_sys.fstat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

int tr2_plat_names_file(const char *path, int fd)
{
	struct stat mine, now;

	return !tr2_sys.fstat(fd, &mine) && !tr2_sys.stat(path, &now) &&
	       now.st_dev == mine.st_dev && now.st_ino == mine.st_ino;
}

int tr2_plat_is_symlink(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

int tr2_plat_is_pipe_name(const char *path)
{
	(void)path;
	return 0;
}

char *tr2_plat_getenv(const char *name)
{
	return getenv(name);
}

int tr2_plat_setenv(const char *name, const char *value, int overwrite)
{
	return setenv(name, value, overwrite);
}

int tr2_plat_is_absolute(const char *path)
{
	return path[0] == '/';
}

int tr2_plat_wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/*
 * A collector that stops reading must not stall the host for long: the
 * kernel's own wait, bounded (polling would wake every sender at once).
 * Linux bounds a connect() to a listener whose backlog is full by the
 * same timeout (a non-blocking connect() is refused at once there).  No
 * wait at all cannot be asked for (a zero timeout is none): 1 us.
 */
static void set_send_timeout(int fd, int64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000 * 1000) };

	if (ms <= 0)
		tv.tv_usec = 1;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A connect() that goes on in the background: wait for it. */
static int finish_connect(int fd, int64_t deadline)
{
	struct pollfd pfd = { fd, POLLOUT, 0 };
	int64_t left = deadline - tr2_plat_monotonic_ms();
	int so_error = 0;
	socklen_t len = sizeof(so_error);

	if (left <= 0 || tr2_plat_poll(&pfd, 1, (int)left) <= 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len)) {
		errno = EAGAIN;
		return -1;
	}
	errno = so_error;
	return so_error ? -1 : 0;
}

/* connect() within the wait limit; an interrupted one is tried again
 * with what is left of it (it may have been made meanwhile). */
static int connect_within(int fd, const struct sockaddr_un *sa, int limit_ms)
{
	int64_t deadline = tr2_plat_monotonic_ms() + limit_ms;

	set_send_timeout(fd, limit_ms);
	for (;;) {
		int64_t left;

		if (!tr2_sys.connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) ||
		    errno == EISCONN)
			return 0;
		if (errno == EINPROGRESS || errno == EALREADY)
			return finish_connect(fd, deadline);
		if (errno != EINTR)
			return -1;
		left = deadline - tr2_plat_monotonic_ms();
		if (left <= 0) {
			errno = EAGAIN;
			return -1;
		}
		set_send_timeout(fd, left);
	}
}

int tr2_plat_connect_unix(const char *path, int type, int limit_ms, int *err)
{
	struct sockaddr_un sa;
	int fd = tr2_sys.socket(AF_UNIX, type, 0);

	if (fd < 0) {
		*err = errno;
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (connect_within(fd, &sa, limit_ms)) {
		*err = errno;
		tr2_sys.close(fd);
		return -1;
	}
	set_send_timeout(fd, limit_ms);
	return fd;
}

int tr2_plat_is_datagram(int fd)
{
	int type = 0;
	socklen_t len = sizeof(type);

	return !getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) && type == SOCK_DGRAM;
}

#if !TR2_HAVE_LINUX_SYSCALLS
/*
 * The C library's calls with cancellation disabled around them: a
 * thread cancelled inside one would leave a destination's lock or its
 * buffer held for good (tr2_plat.h).
 */
int tr2_plat_open(const char *path, int flags, mode_t mode)
{
	int old = tr2_plat_cancel_off(), fd = open(path, flags, mode);

	tr2_plat_cancel_back(old);
	return fd;
}

ssize_t tr2_plat_read(int fd, void *buf, size_t n)
{
	int old = tr2_plat_cancel_off();
	ssize_t r = read(fd, buf, n);

	tr2_plat_cancel_back(old);
	return r;
}

ssize_t tr2_plat_write(int fd, const void *buf, size_t n)
{
	int old = tr2_plat_cancel_off();
	ssize_t w = write(fd, buf, n);

	tr2_plat_cancel_back(old);
	return w;
}

ssize_t tr2_plat_send(int fd, const void *buf, size_t n, int flags)
{
	int old = tr2_plat_cancel_off();
	ssize_t w = send(fd, buf, n, flags);

	tr2_plat_cancel_back(old);
	return w;
}

int tr2_plat_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int old = tr2_plat_cancel_off(), r = connect(fd, sa, len);

	tr2_plat_cancel_back(old);
	return r;
}

int tr2_plat_close(int fd)
{
	int old = tr2_plat_cancel_off(), r = close(fd);

	tr2_plat_cancel_back(old);
	return r;
}

int tr2_plat_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	int old = tr2_plat_cancel_off(), r = poll(fds, n, timeout_ms);

	tr2_plat_cancel_back(old);
	return r;
}

/* sigwait() returns at once for a signal that is pending and held. */
void tr2_plat_take_sigpipe(void)
{
	sigset_t set;
	int got, old;

	if (sigpending(&set) || !sigismember(&set, SIGPIPE))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	old = tr2_plat_cancel_off();
	sigwait(&set, &got);
	tr2_plat_cancel_back(old);
}

void tr2_plat_nap_us(long us)
{
	struct timespec ts = { 0, us * 1000L };
	int old = tr2_plat_cancel_off();

	nanosleep(&ts, NULL);
	tr2_plat_cancel_back(old);
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
#endif
