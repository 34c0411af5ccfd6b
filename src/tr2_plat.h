/*
 * The platform seam: every system call and C library facility the
 * library uses beyond C11 and POSIX.  src/tr2_plat_linux.c has the Linux
 * fast paths, src/tr2_plat_posix.c the portable fallbacks; which one
 * serves each function is chosen at build time by the TR2_HAVE_* lines
 * of tr2_features.h (written by src/tr2_features.sh, docs/embedding.md
 * "Platforms").  Callers go through the tr2_sys table (tr2_sys.h) for
 * the calls tests make fail.
 */
#ifndef TR2_PLAT_H
#define TR2_PLAT_H

#include "tr2_features.h"

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* A library global that other modules read inline but the host must
 * not see (a PE library exports only what its .def file names). */
#ifdef _WIN32
#define TR2_HIDDEN
#else
#define TR2_HIDDEN __attribute__((visibility("hidden")))
#endif

#ifdef _WIN32
/*
 * Windows: the library's descriptors are the C runtime's (as Git for
 * Windows' fd targets are); the rest of the seam is Win32 (threads,
 * locks, files, named pipes) in src/tr2_plat_win32.c.  What the modules
 * above share with POSIX is declared here in POSIX's shape: poll() and
 * the socket calls exist so that they compile, and fail (Windows builds
 * have no AF_UNIX target, TR2_HAVE_AF_UNIX).
 */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#define TR2_HAVE_AF_UNIX 0
#define POLLIN 0x1
#define POLLOUT 0x4
#define POLLERR 0x8
#define POLLHUP 0x10
typedef unsigned long nfds_t;
struct pollfd {
	int fd;
	short events, revents;
};
typedef int socklen_t;
struct sockaddr {
	unsigned short sa_family;
	char sa_data[14];
};
struct sockaddr_un {
	unsigned short sun_family;
	char sun_path[108];
};
#define AF_UNIX 1
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOL_SOCKET 0xffff
#define SO_TYPE 0x1008
int getsockopt(int fd, int level, int name, void *value, socklen_t *len);
/* A descriptor the library opens is not inherited by children. */
#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
/* Creating with O_EXCL never opens what is already there, a link
 * included; nothing else opens with it. */
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
/* Files and pipes are never opened in a mode that waits for a reader. */
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif
#ifndef S_ISSOCK
#define S_ISSOCK(m) 0
#endif
/* The size of a pipe write that is never cut (a named pipe's message). */
#ifndef PIPE_BUF
#define PIPE_BUF 4096
#endif
#ifndef EPIPE
#define EPIPE 32
#endif
typedef void *tr2_mutex;
#define TR2_MUTEX_INIT NULL
typedef void *tr2_thread;
typedef unsigned long tr2_key;
/* Signals a write holds: none (Windows has no SIGPIPE). */
typedef int tr2_held;
/* A directory being read (FindFirstFileW), and one of its entries. */
typedef struct tr2_dir tr2_dir;
typedef struct tr2_dirent tr2_dirent;
#else
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#define TR2_HAVE_AF_UNIX 1
typedef pthread_mutex_t tr2_mutex;
#define TR2_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
typedef pthread_t tr2_thread;
typedef pthread_key_t tr2_key;
/* The signals a write holds (tr2_plat_hold_signals()): a SIGPIPE it
 * causes is taken, and the terminating ones wait until the record is
 * out, so that their handler writes after it. */
#define TR2_HELD_SIGNALS SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT
typedef sigset_t tr2_held;
typedef DIR tr2_dir;
typedef struct dirent tr2_dirent;
#endif

/* For tr2_plat_write_flags(): fail with EAGAIN rather than wait for room,
 * whatever the descriptor's mode (not terminals, nor FIFOs on some
 * kernels); on a pipe without reader, fail with EPIPE and raise no
 * SIGPIPE (Linux 6.18 and later). */
#define TR2_WRITE_NOWAIT 0x1
#define TR2_WRITE_NOSIGNAL 0x2

/* send() flags that keep a peer that is gone from raising SIGPIPE (the
 * caller holds signals and takes the SIGPIPE where there are none). */
#if TR2_HAVE_MSG_NOSIGNAL
#define TR2_MSG_NOSIGNAL MSG_NOSIGNAL
#else
#define TR2_MSG_NOSIGNAL 0
#endif

/* Like the C library's calls of the same names, but never cancellation
 * points: a thread cancelled in one would leave a destination's lock or
 * buffer held for good.  open() adds large-file support. */
int tr2_plat_open(const char *path, int flags, mode_t mode);
ssize_t tr2_plat_read(int fd, void *buf, size_t n);
ssize_t tr2_plat_write(int fd, const void *buf, size_t n);
ssize_t tr2_plat_send(int fd, const void *buf, size_t n, int flags);
int tr2_plat_connect(int fd, const struct sockaddr *sa, socklen_t len);
int tr2_plat_close(int fd);
/* poll() for timeout_ms >= 0 milliseconds. */
int tr2_plat_poll(struct pollfd *fds, nfds_t n, int timeout_ms);

/* write() with TR2_WRITE_* flags; -1 with EOPNOTSUPP where they cannot
 * be honoured for the descriptor (the caller then polls and holds
 * signals instead). */
ssize_t tr2_plat_write_flags(int fd, const void *buf, size_t n, int flags);

/* socket() whose descriptor is close-on-exec. */
int tr2_plat_socket(int domain, int type, int protocol);
/* dup2() whose new descriptor is close-on-exec. */
int tr2_plat_dup_cloexec(int fd, int to);

/*
 * Locks: plain, never recursive; TR2_MUTEX_INIT, or tr2_mutex_init() to
 * reset one (a forked child's copy).  trylock returns 0 when it took it.
 * A thread's key: a slot whose non-NULL value is given to end(value) when
 * the thread ends; tr2_key_set() never allocates.
 */
#ifdef _WIN32
void tr2_mutex_init(tr2_mutex *m);
void tr2_mutex_lock(tr2_mutex *m);
void tr2_mutex_unlock(tr2_mutex *m);
int tr2_mutex_trylock(tr2_mutex *m);
int tr2_key_create(tr2_key *key, void (*end)(void *));
void tr2_key_set(tr2_key key, void *value);
#else
static inline void tr2_mutex_init(tr2_mutex *m)
{
	pthread_mutex_init(m, NULL);
}

static inline void tr2_mutex_lock(tr2_mutex *m)
{
	pthread_mutex_lock(m);
}

static inline void tr2_mutex_unlock(tr2_mutex *m)
{
	pthread_mutex_unlock(m);
}

static inline int tr2_mutex_trylock(tr2_mutex *m)
{
	return pthread_mutex_trylock(m);
}

static inline int tr2_key_create(tr2_key *key, void (*end)(void *))
{
	return pthread_key_create(key, end);
}

static inline void tr2_key_set(tr2_key key, void *value)
{
	pthread_setspecific(key, value);
}
#endif

/* Start fn(arg) on a thread of its own with every signal held (a host's
 * handler never runs there); 0, or an error number. */
int tr2_thread_start(tr2_thread *t, void *(*fn)(void *), void *arg);
/* Wait for a started thread to end. */
void tr2_thread_join(tr2_thread t);

/* pthread_atfork() where processes fork; 0 (and nothing) elsewhere. */
int tr2_plat_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

/*
 * Run fn once when the process ends: fn(0) from atexit(), while every
 * thread still runs.  Windows also calls it from the library's TLS
 * callback when the module is detached: fn(1) if the process is ending
 * with its other threads already stopped (ExitProcess() without exit(),
 * or a DLL, whose C runtime runs its atexit() list only at detach, and
 * after freeing the thread-local storage the library reads).
 */
void tr2_plat_atexit(void (*fn)(int abrupt));

/* Turn thread cancellation off (a cancelled writer would leave its lock
 * held) and back on with what off() returned. */
int tr2_plat_cancel_off(void);
void tr2_plat_cancel_back(int old);

/* Hold TR2_HELD_SIGNALS around a write; old gets what to restore. */
void tr2_plat_hold_signals(tr2_held *old);
void tr2_plat_release_signals(const tr2_held *old);
/* Whether a SIGPIPE of the host's own is pending: only possible if the
 * host itself holds SIGPIPE (old: the mask before hold_signals()). */
int tr2_plat_host_sigpipe_pending(const tr2_held *old);
/* Take a SIGPIPE pending for this thread, which holds it.  Never waits. */
void tr2_plat_take_sigpipe(void);

/* The clocks: wall time since the epoch, and a monotonic one (-1 where
 * there is none). */
uint64_t tr2_plat_wall_ns(void);
int tr2_plat_monotonic_ns(uint64_t *ns);

/* The monotonic clock in milliseconds, for bounding waits (0 if none). */
static inline int64_t tr2_plat_monotonic_ms(void)
{
	uint64_t ns = 0;

	tr2_plat_monotonic_ns(&ns);
	return (int64_t)(ns / 1000000);
}
/* Seconds east of UTC of local time at sec (takes the C library's time
 * zone lock: never in a signal handler). */
long tr2_plat_utc_offset(time_t sec);

/* This process's id, and the host's name (NUL-terminated); 0 or -1. */
long tr2_plat_pid(void);
int tr2_plat_hostname(char *buf, size_t size);

/* Whether path is absolute here ("/x"; on Windows also "C:\x", "C:/x",
 * "\\server\x" and a named pipe's "//./pipe/x"). */
int tr2_plat_is_absolute(const char *path);

/* A regular file opened with O_NONBLOCK back to blocking writes,
 * appending (O_WRONLY | O_APPEND); 0, or -1. */
int tr2_plat_set_blocking(int fd);
/* Wait at most limit_ms for an instance of the named pipe path to be
 * free, after tr2_plat_open() found them all busy (EBUSY): 0 if one may
 * be (another client can take it first), -1 if none freed or path is
 * no named pipe (POSIX has none). */
int tr2_plat_wait_pipe(const char *path, int limit_ms);
/* fstat(), EBADF for a descriptor that is not open (the Windows C
 * runtime's says ENOENT for some). */
int tr2_plat_fstat(int fd, struct stat *st);
/* Whether the open descriptors a and b are one file (Windows' C runtime
 * gives no inode numbers: the volume and file index there). */
int tr2_plat_same_file(int a, int b);
/* Whether path names the open file fd now (not a file put there since). */
int tr2_plat_names_file(const char *path, int fd);
/* Whether path itself is a symbolic link (Windows: never, as O_NOFOLLOW
 * is nothing there). */
int tr2_plat_is_symlink(const char *path);
/* Whether path is a named pipe's name (POSIX has none). */
int tr2_plat_is_pipe_name(const char *path);
/* getenv() and setenv() (which not every C library has), in UTF-8.
 * Windows: the process's own UTF-16 environment, not the C runtime's
 * copy in the ANSI code page, which loses what that page cannot
 * write; a value read is a copy kept for the process's life (one per
 * name and value), as callers hold what getenv() gives. */
char *tr2_plat_getenv(const char *name);
int tr2_plat_setenv(const char *name, const char *value, int overwrite);
/* stat() of a path in UTF-8 (Windows: given to the system in UTF-16,
 * links followed; st_mode, st_size and st_nlink alone, and a named
 * pipe's name is not looked at, as opening it takes an instance). */
int tr2_plat_stat(const char *path, struct stat *st);
/* A directory's entries, '.' and '..' among them, one by one, to count
 * them: opendir() NULL with errno, readdir() NULL at the end. */
tr2_dir *tr2_plat_opendir(const char *path);
tr2_dirent *tr2_plat_readdir(tr2_dir *d);
void tr2_plat_closedir(tr2_dir *d);

/* A socket connected to the AF_UNIX path (type SOCK_STREAM or
 * SOCK_DGRAM) within limit_ms, its sends bounded by the same limit; the
 * descriptor, or -1 with the error in *err (EAGAIN: the limit passed). */
int tr2_plat_connect_unix(const char *path, int type, int limit_ms, int *err);
/* Whether the socket fd is a datagram socket. */
int tr2_plat_is_datagram(int fd);

/* Wait for a child tr2_plat_spawn() started: Git's code for how it
 * ended, its exit status or 128 + the signal that ended it; -1 with
 * errno if its status is lost. */
int tr2_plat_wait_child(pid_t pid);

/* Sleep while *word == value, at most ms milliseconds (a wake may end it
 * early, or a change of *word be seen only at the timeout). */
void tr2_plat_wait(int *word, int value, long ms);
/* End a tr2_plat_wait() on word; safe in a signal handler. */
void tr2_plat_wake(int *word);
/* Sleep us microseconds (us < 1000000). */
void tr2_plat_nap_us(long us);

/* Start argv[0] (looked up in PATH without a '/') with argv and this
 * process's environment, descriptors, signal mask and ignored signals,
 * handled signals at their default; its pid into *pid.  0, or the errno
 * why it did not start (ENOENT, EACCES, ...).  Changes no disposition of
 * this process and leaves no descriptor open. */
int tr2_plat_spawn(const char *const *argv, pid_t *pid);

/* Name a thread for debuggers and `top -H`, where the platform can. */
void tr2_plat_name_thread(tr2_thread thread, const char *name);

/* The name (NUL-terminated, at most size - 1 bytes) and parent of
 * process pid, from a source read through the tr2_sys table; 0 on
 * success, -1 where unknown (then there is no cmd_ancestry record). */
int tr2_plat_parent(long pid, char *name, size_t size, long *ppid);

/*
 * Learn where the program's read-only segments are (once; not
 * async-signal-safe: at start-up).  Then tr2_plat_immutable() says
 * whether len bytes at p lie in one: the main executable's, mapped at
 * start and never unmapped, so what they hold never changes (a string
 * literal of the program, say).  0 where unknown.
 */
void tr2_plat_find_immutable(void);
int tr2_plat_immutable(const void *p, size_t len);

#if TR2_HAVE_TSC_CLOCK
/* The time-stamp counter, read after every earlier load (lfence; the
 * compilers' builtins, so no intrinsics header in every module): for
 * calibrating, where a reading must not move before a load. */
static inline uint64_t tr2_plat_tsc(void)
{
	__builtin_ia32_lfence();
	return __builtin_ia32_rdtsc();
}

/*
 * The time-stamp counter as a clock reading takes it: unordered (the
 * kernel's sched_clock() reads it so too).  It may be read a few cycles
 * early, never before an earlier reading of the same thread; the lfence
 * would cost ~10 ns a reading (docs/performance.md, "Clock").
 */
static inline uint64_t tr2_plat_tsc_now(void)
{
	return __builtin_ia32_rdtsc();
}

/* Whether CLOCK_MONOTONIC is the TSC scaled, and the TSC ticks at a
 * constant rate, also in sleep states (so tr2_clock.c may read it). */
int tr2_plat_tsc_is_monotonic(void);
#endif


/* ---------------------------------------------------------------- */
/* What the system knows of the process, and where its user's config
 * files are: src/tr2_plat_posix_proc.c and src/tr2_plat_posix_config.c,
 * src/tr2_plat_win32_proc.c and src/tr2_plat_win32_config.c. */

/*
 * Where tr2_plat_process_info() hands the records it makes, all of
 * category "process"; file and line are the source location Git names
 * for each.  The callbacks make the JSON of a data_json value.
 */
struct tr2_plat_info_sink {
	/* cmd_ancestry: the parents' names, nearest first, NULL-terminated. */
	void (*ancestry)(const char *file, int line, const char **names, void *ctx);
	/* data: an integer. */
	void (*data_int)(const char *file, int line, const char *key, int64_t value,
			 void *ctx);
	/* data_json: the array of the strings names (NULL-terminated). */
	void (*data_json_strings)(const char *file, int line, const char *key,
				  const char **names, void *ctx);
	/* data_json: the object of the n integers values named by keys, in
	 * that order. */
	void (*data_json_ints)(const char *file, int line, const char *key,
			       const char *const *keys, const int64_t *values, size_t n,
			       void *ctx);
	void *ctx;
};

/* Hand sink what the platform records of this process at start
 * (at_exit 0: the parents' names) or at exit (at_exit 1). */
void tr2_plat_process_info(int at_exit, const struct tr2_plat_info_sink *sink);

/* The home directory (the config files' "~"), or NULL; it may be put in
 * buf, of size bytes. */
const char *tr2_plat_home(char *buf, size_t size);
/* The home directory of user into buf (size bytes, NUL-terminated);
 * -1 if unknown or longer. */
int tr2_plat_user_home(const char *user, char *buf, size_t size);
/* The system config file when GIT_CONFIG_SYSTEM does not name one, or
 * NULL for none; it may be put in buf, of size bytes. */
const char *tr2_plat_system_config(char *buf, size_t size);
/* Whether c separates directories in a path ('/'; on Windows '\\' too). */
int tr2_plat_is_dir_sep(char c);

#endif
