/*
 * The POSIX names the tests and their helpers use that mingw-w64 lacks,
 * for the Windows build of the tests only: included first in each of
 * their files (-include t2posix.h, tests/platforms/mingw64.mk), with
 * sys/wait.h, sys/socket.h and sys/un.h beside it.  Plain functions
 * (strndup, memmem...) work; what Windows cannot do (fork, signals,
 * Unix sockets, symbolic links) fails with ENOSYS: the test cases that
 * need it skip on Windows before calling it (T2_SKIP_ON_WINDOWS).
 * Implemented in tests/support/t2posix_win32.c.
 */
#ifndef T2POSIX_H
#define T2POSIX_H
#ifdef _WIN32

#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

char *strndup(const char *s, size_t n);
void *memmem(const void *hay, size_t hlen, const void *needle, size_t nlen);
void *memrchr(const void *s, int c, size_t n);

/* The calls that change or look at files: made by the runner only, a
 * scenario's replay gets their results back (t2test_plat.h).  POSIX's
 * mkdir() takes a mode; Windows' directories have none.  No symbolic
 * links: lstat() is stat(). */
#define unlink(path) t2_posix_unlink(path)
#define mkdir(path, mode) t2_posix_mkdir(path)
#define stat(path, st) t2_posix_stat(path, st)
#define lstat(path, st) t2_posix_stat(path, st)
/* ... so nothing is a link. */
#define S_ISLNK(mode) 0
struct stat;
int t2_posix_unlink(const char *path);
int t2_posix_mkdir(const char *path);
int t2_posix_stat(const char *path, struct stat *st);
#define O_CLOEXEC _O_NOINHERIT

/* Signals Windows does not have, with Linux's numbers. */
#define SIGHUP 1
#define SIGKILL 9
#define SIGPIPE 13
#define SIGALRM 14
#define SIGUSR1 10
#define SIGUSR2 12
#define SIGCHLD 17
typedef unsigned long sigset_t;
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
int sigemptyset(sigset_t *set);
int sigaddset(sigset_t *set, int sig);
int sigprocmask(int how, const sigset_t *set, sigset_t *old);
int kill(int pid, int sig);

/* dup2() that returns the new descriptor (the C runtime's returns 0). */
#define dup2 t2_posix_dup2
int t2_posix_dup2(int fd, int fd2);

/* exec() that keeps the process (Windows' replaces it by a new one,
 * and its parent sees the old one's end): t2_exec_built(). */
#define execv t2_posix_execv
int t2_posix_execv(const char *path, char *const argv[]);

int fork(void);
int pipe(int fds[2]);
int symlink(const char *target, const char *path);
#define F_GETFD 1
#define F_SETFL 4
#define F_DUPFD 0
#define O_NONBLOCK 0 /* as src/tr2_plat.h: no non-blocking descriptors */
int fcntl(int fd, int cmd, ...);
#define _SC_OPEN_MAX 4
long sysconf(int name);

#endif
#endif
