/*
 * The platform seam's Linux fast paths (tr2_plat.h), each built where
 * its TR2_HAVE_* feature is; src/tr2_plat_posix.c has the others.
 */
#include "tr2_plat.h"
#include "tr2_sys.h"
#include "tr2_buf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if TR2_HAVE_LINUX_SYSCALLS || TR2_HAVE_PWRITEV2 || TR2_HAVE_FUTEX
#include <sys/syscall.h>
#endif
#if TR2_HAVE_PWRITEV2
#include <sys/uio.h>
#endif
#if TR2_HAVE_POSIX_SPAWN
#include <spawn.h>
#endif

#if TR2_HAVE_LINUX_SYSCALLS
/*
 * The C library's open, read, write, send, connect, close, poll and
 * sigtimedwait are cancellation points: a thread cancelled inside one
 * would leave a destination's lock or its buffer held for good, and a
 * trace2 call would become a place where the host's threads can be
 * cancelled.  The system calls themselves never act on a cancellation,
 * so the library makes them directly.
 */
int tr2_plat_open(const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, (long)AT_FDCWD, path,
			    (long)(flags | O_LARGEFILE), (long)mode);
}

ssize_t tr2_plat_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, (long)fd, buf, n);
}

ssize_t tr2_plat_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, (long)fd, buf, n);
}

ssize_t tr2_plat_send(int fd, const void *buf, size_t n, int flags)
{
	return syscall(SYS_sendto, (long)fd, buf, n, (long)flags, NULL, 0L);
}

int tr2_plat_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	return (int)syscall(SYS_connect, (long)fd, sa, (long)len);
}

int tr2_plat_close(int fd)
{
	return (int)syscall(SYS_close, (long)fd);
}

int tr2_plat_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, timeout_ms % 1000 * 1000000L };

	return (int)syscall(SYS_ppoll, fds, n, &ts, NULL, 0L);
}

void tr2_plat_take_sigpipe(void)
{
	static const struct timespec no_wait = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	syscall(SYS_rt_sigtimedwait, &set, NULL, &no_wait, (long)(_NSIG / 8));
}

void tr2_plat_nap_us(long us)
{
	struct timespec ts = { 0, us * 1000L };

	syscall(SYS_nanosleep, &ts, NULL);
}
#endif

#if TR2_HAVE_PWRITEV2
/* RWF_NOSIGNAL is newer than most installed kernel headers, and some C
 * libraries (musl) define neither flag; their values are part of the
 * kernel's ABI. */
#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif
#ifndef RWF_NOSIGNAL
#define RWF_NOSIGNAL 0x00000100
#endif

/* pwritev2() at the file position (offset -1, in both halves so that
 * every ABI reads it as -1). */
ssize_t tr2_plat_write_flags(int fd, const void *buf, size_t n, int flags)
{
	struct iovec iov = { (void *)buf, n };
	long rwf = (flags & TR2_WRITE_NOWAIT ? RWF_NOWAIT : 0) |
		   (flags & TR2_WRITE_NOSIGNAL ? RWF_NOSIGNAL : 0);

	return syscall(SYS_pwritev2, (long)fd, &iov, 1L, -1L, -1L, rwf);
}
#endif

#if TR2_HAVE_SOCK_CLOEXEC
int tr2_plat_socket(int domain, int type, int protocol)
{
	return socket(domain, type | SOCK_CLOEXEC, protocol);
}
#endif

#if TR2_HAVE_DUP3
int tr2_plat_dup_cloexec(int fd, int to)
{
	return dup3(fd, to, O_CLOEXEC);
}
#endif

#if TR2_HAVE_FUTEX
/* Private futex operations of the kernel's ABI (<linux/futex.h>, which
 * not every C library's headers include). */
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

void tr2_plat_wait(int *word, int value, long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, &ts, NULL, 0);
}

void tr2_plat_wake(int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif

#if TR2_HAVE_PTHREAD_SETNAME_NP
void tr2_plat_name_thread(pthread_t thread, const char *name)
{
	pthread_setname_np(thread, name);
}
#endif

#if TR2_HAVE_TSC_CLOCK
/* The first bytes of a file, NUL-terminated; 0 if it cannot be read.
 * (System calls of tr2_sys: safe in a signal handler, and never a
 * cancellation point.) */
static size_t read_head(const char *path, char *buf, size_t size)
{
	int fd = tr2_open(path, O_RDONLY | O_CLOEXEC, 0);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return 0;
	while (n + 1 < size && (r = tr2_read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	tr2_sys.close(fd);
	buf[n] = '\0';
	return n;
}
#endif

#if TR2_HAVE_PROC_STAT
#define STAT_READ_MAX 64

/* /proc/<pid>/stat: its first 64 bytes hold "pid (name) S ppid ". */
int tr2_plat_parent(long pid, char *name, size_t size, long *ppid)
{
	char path[64], buf[STAT_READ_MAX + 1], *p, *open_paren, *close_paren, *end;
	size_t n, len;
	int fd;

	p = tr2_put_lit(path, "/proc/");
	p = tr2_put_i64(p, pid);
	p = tr2_put_lit(p, "/stat");
	*p = '\0';
	fd = tr2_open(path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	n = (size_t)tr2_read(fd, buf, STAT_READ_MAX);
	tr2_sys.close(fd);
	if (n == 0 || n > STAT_READ_MAX)
		return -1;
	buf[n] = '\0';
	open_paren = memchr(buf, '(', n);
	close_paren = memrchr(buf, ')', n);
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    close_paren + 4 > buf + n)
		return -1;
	*ppid = strtol(close_paren + 4, &end, 10);
	len = (size_t)(close_paren - open_paren - 1);
	if (end == close_paren + 4 || *end != ' ' || len >= size)
		return -1;
	memcpy(name, open_paren + 1, len);
	name[len] = '\0';
	return 0;
}
#endif

#if TR2_HAVE_TSC_CLOCK
/* Whether the line at p has the blank-separated word w. */
static int line_has_word(const char *p, const char *w)
{
	size_t len = strlen(w);

	while (*p && *p != '\n') {
		if (!strncmp(p, w, len) && (p[len] == ' ' || p[len] == '\n' || !p[len]))
			return 1;
		p += strcspn(p, " \n");
		p += *p == ' ';
	}
	return 0;
}

/* The kernel keeps CLOCK_MONOTONIC on the TSC, and the CPU's TSC ticks
 * at a constant rate, also in sleep states.  One caller at a time. */
int tr2_plat_tsc_is_monotonic(void)
{
	static char buf[16384];
	const char *flags;

	if (!read_head("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		       buf, sizeof(buf)) || strcmp(buf, "tsc\n"))
		return 0;
	if (!read_head("/proc/cpuinfo", buf, sizeof(buf)))
		return 0;
	flags = !strncmp(buf, "flags", 5) ? buf : strstr(buf, "\nflags");
	if (!flags || !(flags = strchr(flags + 1, ':')))
		return 0;
	return line_has_word(flags + 1, "constant_tsc") && line_has_word(flags + 1, "nonstop_tsc");
}
#endif

#if TR2_HAVE_POSIX_SPAWN
/* The C library resets the child's handled signals before it runs any
 * of them, and reports a failed exec as the return value. */
int tr2_plat_spawn(const char *const *argv, pid_t *pid)
{
	return posix_spawnp(pid, argv[0], NULL, NULL, (char *const *)argv, environ);
}
#endif

#if TR2_HAVE_DL_ITERATE_PHDR
#include <link.h>

#define IMMUTABLE_MAX 8

/* The main executable's read-only PT_LOAD segments, [lo, hi). */
static struct range {
	uintptr_t lo, hi;
} immutable[IMMUTABLE_MAX];
static int nimmutable; /* atomic: released once the ranges are set */
static int immutable_found;
static pthread_mutex_t immutable_lock = PTHREAD_MUTEX_INITIALIZER;

/* The first object listed is the main executable: only its segments
 * (a library may be unloaded, and another mapped where it was). */
static int note_main(struct dl_phdr_info *info, size_t size, void *data)
{
	int i, n = 0;

	(void)size;
	(void)data;
	for (i = 0; i < info->dlpi_phnum && n < IMMUTABLE_MAX; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		immutable[n].lo = (uintptr_t)info->dlpi_addr + (uintptr_t)ph->p_vaddr;
		immutable[n].hi = immutable[n].lo + (uintptr_t)ph->p_memsz;
		n++;
	}
	__atomic_store_n(&nimmutable, n, __ATOMIC_RELEASE);
	return 1;
}

static void find_main(void)
{
	dl_iterate_phdr(note_main, NULL);
}

void tr2_plat_find_immutable(void)
{
	tr2_run_once(&immutable_found, &immutable_lock, find_main);
}

int tr2_plat_immutable(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;
	int i, n = __atomic_load_n(&nimmutable, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++)
		if (a >= immutable[i].lo && a < immutable[i].hi && len <= immutable[i].hi - a)
			return 1;
	return 0;
}
#endif
