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

#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

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

/* Take signo if it is pending for this thread, which holds it; returns
 * signo if it was pending, else -1.  Never waits. */
int tr2_plat_take_pending(int signo);

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
void tr2_plat_name_thread(pthread_t thread, const char *name);

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

#endif
