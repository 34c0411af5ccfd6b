/*
 * Fault injection: every system and allocation call of the library fails,
 * one at a time, at every point the scenario reaches it.
 *
 * Design.  The library makes all its calls through the table tr2_sys
 * (src/tr2_sys.h).  A forked child (t2_spawn(): clean environment,
 * default signals, stdout and stderr captured) replaces every entry by a
 * wrapper that counts the calls of each function in memory shared with
 * the parent and makes one of them fail: the k-th call of one function,
 * with one kind of failure.  The child runs one scenario: a host program
 * that prints known lines to stdout and stderr, checks its own signal
 * state and exits with a known code, and that uses the whole API in
 * between (initialize with all three targets, start, cmd_name with
 * envVars and configParams from a global config file, ancestry, mode,
 * alias, path, def_param, def_repo, nested regions, data, data_json,
 * printf, error, timers, counters, two threads, child_start/exit,
 * exec/exec_result, exit(trace2_cmd_exit(3))); argv, def_param, the
 * child's and exec's argv hold a URL with a password.  The threads run
 * one after the other, so the order of the calls, and so k, is fixed.
 *
 * Two layouts of the targets cover every call of the table:
 *   files: NORMAL, PERF (non-brief) and EVENT each to a file;
 *   mixed: NORMAL to a directory (with GIT_TRACE2_MAX_FILES, so opendir,
 *          readdir and the exclusive opens run), PERF to fd 9 (a pipe the test
 *          reads) and EVENT to an AF_UNIX stream socket the test accepts.
 *
 * The ancestry is the one input the test does not own: the processes
 * above it may end while it runs (a subshell that exits moves the test
 * under init), and then the walk up /proc makes fewer calls and the
 * cmd_ancestry records change from one run to the next.  So the opens of
 * /proc/<pid>/stat go to files under HOME that give a fixed chain (the
 * test, then pids no system hands out, up to init), read with the same
 * calls as the real ones, which fail as any other.  (The real walk is
 * tested in test_process.)
 *
 * The clock is CLOCK_MONOTONIC (GIT_TRACE2_CLOCK=monotonic): with auto,
 * the first reading 10 ms after trace2_initialize() checks the TSC (opens
 * and reads the clocksource and /proc/cpuinfo), so a run that a loaded
 * machine slows past 10 ms would make more calls than a fast one, at a
 * point that depends on when it was slowed.  The check's calls are not
 * swept here.
 *
 * A fault-free run counts the calls of each function (n), notes which
 * target owns each (by path, descriptor or variable name) and gives the
 * reference output; then for every function, every kind of failure that
 * function can have (call_kinds[]), and every k in 1..n, the scenario
 * runs again with that fault.  What must hold:
 *   always: the fault was reached; exit status, stdout and stderr exactly
 *     as without the fault (GIT_TRACE2_DST_DEBUG is unset: no
 *     diagnostics); signal mask, pending set and ignored signals of the
 *     host unchanged; every line of every target complete and valid
 *     (EVENT: strict JSON object with "event"; PERF: the 8 " | "
 *     separators of a non-brief line; NORMAL: not empty; each output
 *     empty or ending in LF); the password never shown; no more
 *     allocations live after the atexit handlers than without the fault
 *     (there: only the version string);
 *   EINTR, short writes, any failure of close(): every output identical
 *     (EINTR of connect and close is simulated as Linux has it: the call
 *     took effect; of the others: nothing happened);
 *   any other failure of a call that one target owns (its write, send,
 *     open, socket, connect, fstat, stat, opendir, readdir, getenv of its
 *     variable): that target's output is a prefix, in whole lines, of its
 *     fault-free output (a transient EAGAIN may also be retried), and the
 *     two other targets' outputs are identical; a short write whose rest
 *     then fails (EBADF) may leave the one cut line, as the last;
 *   the rest (allocations, setenv, getenv of other variables, reads and
 *     opens of config and /proc files): the remaining records are
 *     fault-free records, in order: records may be dropped, not changed,
 *     but for the fallbacks of normalise().
 * With GIT_TRACE2_DST_DEBUG=1, a failing PERF write (EAGAIN for good,
 * ENOSPC, EPIPE, EBADF; files layout) must print exactly one warning and
 * add exactly one error record to NORMAL and to EVENT.
 *
 * Runtime: SLOTS runs go on at a time.  Every k is swept in the plain
 * build.  Under sanitizers a run costs several times more (fork of an
 * ASan process, LeakSanitizer at exit), so there the allocation calls
 * (where ASan and LeakSanitizer matter most) are still swept at every k,
 * and the other calls at every SANITIZED_STRIDE-th k (and the last);
 * LeakSanitizer only checks the fault-free runs and failed allocations.
 * T2_FAULTS_STRIDE=<n> sets the stride of the non-allocation calls (1:
 * full sweep); T2_FAULTS_SHOW=1 prints the outputs of failing cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2rec.h"
#include "t2test.h"
#include "tjson.h"
#include "tr2_sys.h"
#include "trace2.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif
#define SANITIZED_STRIDE 7
/* A stuck destination may legitimately cost the library's whole wait
 * (5 s): only every 20th of those calls, and the last. */
#define STUCK_STRIDE 20

#define HOST_EXIT 3
#define HOST_VERSION "2.99.0.t2f"
/* The password of the URLs the host passes: redacted in every output. */
#define SECRET "hunter2"
#define SECRET_URL "https://user:" SECRET "@example.com/r.git"
#define HOST_STDOUT "host: begin\nhost: working\nhost: threads done\n" \
		    "host: signals unchanged\nhost: end\n"
#define HOST_STDERR "host: a line of its own on stderr\n"
#define PERF_SEPARATORS 8	/* " | " in a non-brief PERF line */
#define PERF_FD 9		/* mixed layout */
/* Per run (the library waits at most 5 s for room); generous, as a busy
 * machine slows the children down, but paid only by a run that hangs. */
#define TIMEOUT_S (SANITIZED ? 40 : 20)
#define MAX_TAGGED 2048	/* calls per function whose owner is kept */
#define MAX_FDS 4096
/* Allocations live after the atexit handlers: the copy of the version
 * string (reachable from a global; everything else is freed). */
#define LIVE_AT_END 1
#define MAX_REPORTED 40		/* failing cases printed in full */

enum target { T_NORMAL, T_PERF, T_EVENT, T_COUNT };
/* Owner of a call: a target, stderr, or nobody in particular. */
#define TAG_NONE (-1)
#define TAG_STDERR 3

static const char *const target_name[T_COUNT] = { "NORMAL", "PERF", "EVENT" };
static const char *const target_var[T_COUNT] = {
	"GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT"
};

/* ------------------------------------------------------------------ */
/* Calls and kinds of failure                                          */
/* ------------------------------------------------------------------ */

enum call {
	C_OPEN, C_READ, C_WRITE, C_SEND, C_SOCKET, C_CONNECT, C_CLOSE,
	C_FSTAT, C_STAT, C_OPENDIR, C_READDIR, C_GETENV, C_SETENV, C_MALLOC,
	C_CALLOC, C_REALLOC, C_COUNT
};

static const char *const call_name[C_COUNT] = {
	"open", "read", "write", "send", "socket", "connect", "close", "fstat",
	"stat", "opendir", "readdir", "getenv", "setenv", "malloc", "calloc", "realloc"
};

enum kind {
	K_NONE, K_EINTR, K_HALF, K_ONE, K_EAGAIN, K_ENOSPC, K_EPIPE, K_EBADF,
	K_HALF_EBADF, K_EAGAIN_STUCK, K_EMFILE, K_ENOENT, K_ENOMEM, K_UNSET,
	K_COUNT
};

static const struct kind_info {
	const char *name;
	int err;		/* errno of the failing call */
	int transparent;	/* the output must not change */
} kinds[K_COUNT] = {
	[K_NONE] = { "none", 0, 1 },
	[K_EINTR] = { "EINTR", EINTR, 1 },
	[K_HALF] = { "short-half", 0, 1 },
	[K_ONE] = { "short-1", 0, 1 },
	[K_EAGAIN] = { "EAGAIN", EAGAIN, 0 },
	[K_ENOSPC] = { "ENOSPC", ENOSPC, 0 },
	[K_EPIPE] = { "EPIPE", EPIPE, 0 },
	[K_EBADF] = { "EBADF", EBADF, 0 },
	/* a short write, then EBADF for the rest: the one case that must
	 * leave a partial line (the bytes are out), as the last line */
	[K_HALF_EBADF] = { "short+EBADF", EBADF, 0 },
	/* EAGAIN from then on for that descriptor (a reader that stopped) */
	[K_EAGAIN_STUCK] = { "EAGAIN-stuck", EAGAIN, 0 },
	[K_EMFILE] = { "EMFILE", EMFILE, 0 },
	[K_ENOENT] = { "ENOENT", ENOENT, 0 },
	[K_ENOMEM] = { "ENOMEM", ENOMEM, 0 },
	[K_UNSET] = { "unset", 0, 0 },
};

#define WRITE_KINDS { K_EINTR, K_HALF, K_ONE, K_EAGAIN, K_ENOSPC, K_EPIPE, K_EBADF, \
		     K_HALF_EBADF }
/* The failures each function is put through (K_NONE ends a list). */
static const enum kind call_kinds[C_COUNT][9] = {
	[C_OPEN] = { K_EINTR, K_EMFILE, K_ENOENT },
	[C_READ] = { K_EINTR, K_EBADF },
	[C_WRITE] = WRITE_KINDS,
	[C_SEND] = WRITE_KINDS,
	[C_SOCKET] = { K_EMFILE, K_ENOMEM },
	[C_CONNECT] = { K_EINTR, K_ENOENT, K_EAGAIN },
	[C_CLOSE] = { K_EINTR, K_EBADF },
	[C_FSTAT] = { K_EBADF, K_ENOMEM },
	[C_STAT] = { K_ENOENT, K_ENOMEM },
	[C_OPENDIR] = { K_EMFILE, K_ENOMEM },
	[C_READDIR] = { K_EBADF },
	[C_GETENV] = { K_UNSET },
	[C_SETENV] = { K_ENOMEM },
	[C_MALLOC] = { K_ENOMEM },
	[C_CALLOC] = { K_ENOMEM },
	[C_REALLOC] = { K_ENOMEM },
};

static int is_allocation(enum call c)
{
	return c == C_MALLOC || c == C_CALLOC || c == C_REALLOC;
}

/* ------------------------------------------------------------------ */
/* What parent and child share                                          */
/* ------------------------------------------------------------------ */

enum layout { L_FILES, L_MIXED };

/* One run: the layout's paths and the one fault (k == 0: none). */
struct plan {
	enum layout layout;
	int debug;			/* GIT_TRACE2_DST_DEBUG=1 */
	int slot;			/* its part of the shared memory */
	enum call call;
	enum kind kind;
	unsigned long k;
	const char *home;		/* HOME, with a .gitconfig */
	char *dir;			/* the run's directory */
	char *path[T_COUNT];		/* file, directory or socket of each */
	int pipe_fd[2];			/* mixed: PERF's pipe */
	int listen_fd;			/* mixed: EVENT's socket */
};

/* What the child reports about its calls. */
struct outcome {
	unsigned long calls[C_COUNT];
	int fired;		/* the fault happened */
	int fired_tag;		/* owner of the failed call */
	long live;		/* allocations not yet freed */
	long live_at_end;	/* ... after the atexit handlers */
	int ended;		/* the last atexit handler ran */
};

/* Written by the child, read by the parent (MAP_SHARED), one per slot:
 * SLOTS runs at a time. */
struct shared {
	struct outcome o;
	signed char tag[C_COUNT][MAX_TAGGED];	/* owner of each call */
};

#define SLOTS 2
static struct shared *slots;
static struct shared *shm;	/* the child's slot */

/* ------------------------------------------------------------------ */
/* The child's wrappers                                                 */
/* ------------------------------------------------------------------ */

static const struct plan *cplan;	/* the child's plan */
static struct tr2_sys real;
static signed char fd_tag[MAX_FDS];

static int path_tag(const char *path)
{
	int t;

	for (t = 0; t < T_COUNT; t++) {
		const char *p = cplan->path[t];
		size_t n = p ? strlen(p) : 0;

		if (n && !strncmp(path, p, n) && (!path[n] || path[n] == '/'))
			return t;
	}
	return TAG_NONE;
}

static int tag_of_fd(int fd)
{
	return fd >= 0 && fd < MAX_FDS ? fd_tag[fd] : TAG_NONE;
}

static void set_fd_tag(int fd, int tag)
{
	if (fd >= 0 && fd < MAX_FDS)
		fd_tag[fd] = (signed char)tag;
}

/* What the calls after the k-th get (owned by tag, the n-th). */
static enum kind aftermath(int tag, unsigned long n)
{
	if (cplan->kind == K_HALF_EBADF && n == cplan->k + 1)
		return K_EBADF;
	if (cplan->kind == K_EAGAIN_STUCK && tag == shm->o.fired_tag)
		return K_EAGAIN;
	return K_NONE;
}

/* Count a call of c (owned by tag); the kind of failure it gets. */
static enum kind hit(enum call c, int tag)
{
	unsigned long n = __atomic_add_fetch(&shm->o.calls[c], 1, __ATOMIC_RELAXED);

	if (n <= MAX_TAGGED)
		shm->tag[c][n - 1] = (signed char)tag;
	if (cplan->call != c || n < cplan->k)
		return K_NONE;
	if (n > cplan->k)
		return aftermath(tag, n);
	shm->o.fired = 1;
	shm->o.fired_tag = tag;
	if (cplan->kind == K_HALF_EBADF)
		return K_HALF;
	return cplan->kind == K_EAGAIN_STUCK ? K_EAGAIN : cplan->kind;
}

static int fail_as(enum kind k)
{
	errno = kinds[k].err;
	return -1;
}

static size_t short_len(enum kind k, size_t n)
{
	if (n < 2)
		return n;
	return k == K_ONE ? 1 : n / 2;
}

/* /proc/<pid>/stat: its file in the fixed ancestry under HOME (a short
 * temporary directory; see the top); any other path as it is. */
static const char *fixed_ancestry(const char *path, char *buf, size_t size)
{
	const char *pid = path + strlen("/proc/");
	size_t digits;

	if (strncmp(path, "/proc/", strlen("/proc/")))
		return path;
	digits = strspn(pid, "0123456789");
	if (!digits || strcmp(pid + digits, "/stat"))
		return path;
	snprintf(buf, size, "%s%s", cplan->home, path);
	return buf;
}

static int w_open(const char *path, int flags, mode_t mode)
{
	char buf[512];
	int tag = path_tag(path), fd;
	enum kind k = hit(C_OPEN, tag);

	if (k != K_NONE)
		return fail_as(k);
	fd = real.open(fixed_ancestry(path, buf, sizeof(buf)), flags, mode);
	set_fd_tag(fd, tag);
	return fd;
}

static ssize_t w_read(int fd, void *buf, size_t n)
{
	enum kind k = hit(C_READ, tag_of_fd(fd));

	return k != K_NONE ? fail_as(k) : real.read(fd, buf, n);
}

/* Both kinds of write count as C_WRITE (flags < 0: a plain write()). */
static ssize_t faulty_write(int fd, const void *buf, size_t n, int flags)
{
	enum kind k = hit(C_WRITE, tag_of_fd(fd));

	if (k == K_HALF || k == K_ONE)
		n = short_len(k, n);
	else if (k != K_NONE)
		return fail_as(k);
	return flags < 0 ? real.write(fd, buf, n) : real.write_flags(fd, buf, n, flags);
}

static ssize_t w_write(int fd, const void *buf, size_t n)
{
	return faulty_write(fd, buf, n, -1);
}

static ssize_t w_write_flags(int fd, const void *buf, size_t n, int flags)
{
	return faulty_write(fd, buf, n, flags);
}

static ssize_t w_send(int fd, const void *buf, size_t n, int flags)
{
	enum kind k = hit(C_SEND, tag_of_fd(fd));

	if (k == K_HALF || k == K_ONE)
		return real.send(fd, buf, short_len(k, n), flags);
	return k != K_NONE ? fail_as(k) : real.send(fd, buf, n, flags);
}

/* Only the EVENT target of the mixed layout makes sockets. */
static int w_socket(int domain, int type, int protocol)
{
	int tag = cplan->layout == L_MIXED ? T_EVENT : TAG_NONE;
	enum kind k = hit(C_SOCKET, tag);

	return k != K_NONE ? fail_as(k) : real.socket(domain, type, protocol);
}

/* EINTR: the connection is made all the same, as Linux does it. */
static int w_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int tag = path_tag(((const struct sockaddr_un *)(const void *)sa)->sun_path);
	enum kind k = hit(C_CONNECT, tag);
	int rc;

	if (k != K_NONE && k != K_EINTR)
		return fail_as(k);
	rc = real.connect(fd, sa, len);
	if (!rc)
		set_fd_tag(fd, tag);
	return k == K_EINTR ? fail_as(k) : rc;
}

/* EINTR: the descriptor is closed all the same, as Linux does it. */
static int w_close(int fd)
{
	enum kind k = hit(C_CLOSE, tag_of_fd(fd));
	int rc;

	if (k == K_EBADF)
		return fail_as(k);
	set_fd_tag(fd, TAG_NONE);
	rc = real.close(fd);
	return k == K_EINTR ? fail_as(k) : rc;
}

static int w_fstat(int fd, struct stat *st)
{
	enum kind k = hit(C_FSTAT, tag_of_fd(fd));

	return k != K_NONE ? fail_as(k) : real.fstat(fd, st);
}

static int w_stat(const char *path, struct stat *st)
{
	enum kind k = hit(C_STAT, path_tag(path));

	return k != K_NONE ? fail_as(k) : real.stat(path, st);
}

/* The directory's descriptor carries its owner for readdir (closedir
 * is not in the table: the next open of that number tags it anew). */
static DIR *w_opendir(const char *path)
{
	int tag = path_tag(path);
	enum kind k = hit(C_OPENDIR, tag);
	DIR *d;

	if (k != K_NONE) {
		fail_as(k);
		return NULL;
	}
	d = real.opendir(path);
	if (d)
		set_fd_tag(dirfd(d), tag);
	return d;
}

static struct dirent *w_readdir(DIR *d)
{
	enum kind k = hit(C_READDIR, tag_of_fd(dirfd(d)));

	if (k != K_NONE) {
		fail_as(k);
		return NULL;
	}
	return real.readdir(d);
}

static int var_tag(const char *name)
{
	int t;

	for (t = 0; t < T_COUNT; t++)
		if (!strcmp(name, target_var[t]))
			return t;
	return TAG_NONE;
}

static char *w_getenv(const char *name)
{
	return hit(C_GETENV, var_tag(name)) != K_NONE ? NULL : real.getenv(name);
}

static int w_setenv(const char *name, const char *value, int overwrite)
{
	enum kind k = hit(C_SETENV, TAG_NONE);

	return k != K_NONE ? fail_as(k) : real.setenv(name, value, overwrite);
}

static void *counted(void *p)
{
	if (p)
		__atomic_add_fetch(&shm->o.live, 1, __ATOMIC_RELAXED);
	return p;
}

static void *w_malloc(size_t n)
{
	if (hit(C_MALLOC, TAG_NONE) != K_NONE) {
		errno = ENOMEM;
		return NULL;
	}
	return counted(real.malloc(n));
}

static void *w_calloc(size_t n, size_t size)
{
	if (hit(C_CALLOC, TAG_NONE) != K_NONE) {
		errno = ENOMEM;
		return NULL;
	}
	return counted(real.calloc(n, size));
}

static void *w_realloc(void *p, size_t n)
{
	void *q;

	if (hit(C_REALLOC, TAG_NONE) != K_NONE) {
		errno = ENOMEM;
		return NULL;
	}
	q = real.realloc(p, n);
	return p ? q : counted(q);
}

static void w_free(void *p)
{
	if (p)
		__atomic_sub_fetch(&shm->o.live, 1, __ATOMIC_RELAXED);
	real.free(p);
}

/* Registered before trace2_initialize(), so it runs after its handler. */
static void record_end(void)
{
	shm->o.live_at_end = __atomic_load_n(&shm->o.live, __ATOMIC_RELAXED);
	shm->o.ended = 1;
}

static void install_wrappers(const struct plan *p)
{
	static const struct tr2_sys wrappers = {
		w_open, w_read, w_write, w_write_flags, w_send, w_socket,
		w_connect, w_close, w_fstat, w_stat, w_opendir, w_readdir, w_getenv,
		w_setenv, w_malloc, w_calloc, w_realloc, w_free
	};

	cplan = p;
	shm = &slots[p->slot];
	tr2_sys_reset();
	real = tr2_sys;
	memset(fd_tag, TAG_NONE, sizeof(fd_tag));
	fd_tag[2] = TAG_STDERR;
	if (p->layout == L_MIXED)
		fd_tag[PERF_FD] = T_PERF;
	atexit(record_end);
	tr2_sys = wrappers;
}

/*
 * LeakSanitizer's check at exit costs about 0.2 s per child: it runs in
 * the fault-free runs and where allocations fail; elsewhere the count of
 * live allocations (record_end()) still catches the library's leaks.
 */
static void choose_leak_check(const struct plan *p)
{
	t2_leak_check_children(!p->k || is_allocation(p->call));
}

/* ------------------------------------------------------------------ */
/* The scenario: a host program using the whole API                     */
/* ------------------------------------------------------------------ */

/* The host's signal mask, and which signals it ignores. */
struct host_signals {
	sigset_t mask;
	sigset_t ignored;
};

static void host_say(const char *what)
{
	printf("host: %s\n", what);
}

static void save_signals(struct host_signals *s)
{
	int sig;

	sigprocmask(SIG_SETMASK, NULL, &s->mask);
	sigemptyset(&s->ignored);
	for (sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (!sigaction(sig, NULL, &sa) && sa.sa_handler == SIG_IGN)
			sigaddset(&s->ignored, sig);
	}
}

/*
 * Unchanged: the same mask, nothing pending, and no signal ignored that
 * was not (trace2 may catch SIGPIPE and re-raise it: still fatal).
 */
static void host_check_signals(const struct host_signals *before)
{
	struct host_signals now;
	sigset_t pending;
	int same = 1, sig;

	save_signals(&now);
	sigpending(&pending);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&pending, sig) ||
		    sigismember(&now.mask, sig) != sigismember(&before->mask, sig) ||
		    sigismember(&now.ignored, sig) != sigismember(&before->ignored, sig))
			same = 0;
	host_say(same ? "signals unchanged" : "signals CHANGED");
}

static void trace_process(void)
{
	static const char *argv[] = {
		"t2f", "fetch", SECRET_URL, NULL
	};
	static const char *alias_argv[] = { "fetch", "--all", NULL };
	static struct repository repo = { "/work/tree", 0 };
	struct key_value_info kvi = KVI_INIT;

	trace2_cmd_start(argv);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	trace2_cmd_name("t2f");
	trace2_cmd_mode("all");
	trace2_cmd_alias("fa", alias_argv);
	trace2_cmd_path("/usr/bin/t2f");
	kvi.scope = CONFIG_SCOPE_GLOBAL;
	trace2_def_param("core.t2f", SECRET_URL, &kvi);
	trace2_def_repo(&repo);
	trace2_cmd_error("host error %d", 42);
}

static void trace_data(void)
{
	struct json_writer jw = JSON_WRITER_INIT;

	jw_object_begin(&jw, 0);
	jw_object_string(&jw, "name", "t2f");
	jw_object_intmax(&jw, "count", 7);
	jw_object_inline_begin_array(&jw, "list");
	jw_array_string(&jw, "a");
	jw_array_double(&jw, 2, 1.5);
	jw_end(&jw);
	jw_end(&jw);
	trace2_region_enter("t2f", "outer", NULL);
	trace2_region_enter_printf("t2f", "inner", NULL, "step %d", 1);
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 3);
	trace2_data_string("t2f", NULL, "key", "value");
	trace2_data_intmax("t2f", NULL, "size", 1234);
	trace2_data_json("t2f", NULL, "json", &jw);
	trace2_printf("a printf message %s", "here");
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_region_leave_printf("t2f", "inner", NULL, "done %d", 1);
	trace2_region_leave("t2f", "outer", NULL);
	jw_release(&jw);
}

static void *worker(void *arg)
{
	trace2_thread_start("worker");
	trace2_region_enter("t2f", "work", NULL);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 5);
	trace2_data_intmax("t2f", NULL, "item", (intmax_t)(uintptr_t)arg);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_region_leave("t2f", "work", NULL);
	trace2_thread_exit();
	return NULL;
}

/* One thread after the other: the order of the calls stays fixed. */
static void trace_threads(void)
{
	uintptr_t i;

	for (i = 1; i <= 2; i++) {
		pthread_t th;

		if (!pthread_create(&th, NULL, worker, (void *)i))
			pthread_join(th, NULL);
	}
}

static void trace_children(void)
{
	static const char *child_argv[] = { "git", "fetch", SECRET_URL, NULL };
	static const char *exec_argv[] = { "t2f-helper", SECRET_URL, NULL };
	struct child_process cmd = CHILD_PROCESS_INIT;
	int id;

	cmd.args.v = child_argv;
	cmd.args.nr = 3;
	cmd.git_cmd = 1;
	cmd.pid = 4242;
	trace2_child_start(&cmd);
	trace2_child_exit(&cmd, 0);
	id = trace2_exec("t2f-helper", exec_argv);
	trace2_exec_result(id, ENOENT);
}

/* Keep fds 0-2 and, in the mixed layout, PERF's pipe as fd 9: no
 * descriptor of a run that goes on beside this one. */
static void keep_own_fds(const struct plan *p)
{
	if (p->layout == L_MIXED)
		dup2(p->pipe_fd[1], PERF_FD);
	close_range(3, PERF_FD - 1, 0);
	close_range(p->layout == L_MIXED ? PERF_FD + 1 : PERF_FD, ~0U, 0);
}

static void scenario(void *arg)
{
	const struct plan *p = arg;
	struct host_signals sig;

	choose_leak_check(p);
	keep_own_fds(p);
	install_wrappers(p);
	save_signals(&sig);
	trace2_initialize_clock();
	host_say("begin");
	trace2_set_version_string(HOST_VERSION);
	trace2_initialize();
	trace_process();
	host_say("working");
	trace_data();
	trace_threads();
	host_say("threads done");
	trace_children();
	fputs(HOST_STDERR, stderr);
	host_check_signals(&sig);
	host_say("end");
	exit(trace2_cmd_exit(HOST_EXIT));
}

/* ------------------------------------------------------------------ */
/* Running one case                                                     */
/* ------------------------------------------------------------------ */

struct result {
	char *raw[T_COUNT];	/* output of each target */
	char *text[T_COUNT];	/* the same, scrubbed */
	char *out, *err;
	int status;
	char *normal_files;	/* mixed: the names in NORMAL's directory */
	struct outcome o;
	signed char (*tag)[MAX_TAGGED];	/* fault-free runs: owners of calls */
};

static int listen_on(const char *path)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4))
		abort();
	return fd;
}

/* The run's directory and the targets' destinations in it. */
static void layout_prepare(struct plan *p)
{
	p->dir = t2_tmpdir();
	assert_non_null(p->dir);
	if (p->layout == L_FILES) {
		p->path[T_NORMAL] = t2_path(p->dir, "normal");
		p->path[T_PERF] = t2_path(p->dir, "perf");
		p->path[T_EVENT] = t2_path(p->dir, "event");
		return;
	}
	p->path[T_NORMAL] = t2_path(p->dir, "ndir");
	p->path[T_PERF] = NULL;
	p->path[T_EVENT] = t2_path(p->dir, "sock");
	assert_int_equal(mkdir(p->path[T_NORMAL], 0777), 0);
	assert_int_equal(pipe2(p->pipe_fd, O_CLOEXEC), 0);
	fcntl(p->pipe_fd[0], F_SETPIPE_SZ, 1 << 20);
	p->listen_fd = listen_on(p->path[T_EVENT]);
}

static void layout_env(const struct plan *p, struct t2_env *e)
{
	t2_env_add(e, "HOME=%s", p->home);
	t2_env_add(e, "T2F_HOST_VAR=host value");
	t2_env_add(e, "GIT_TRACE2_ENV_VARS=T2F_HOST_VAR,T2F_UNSET_VAR");
	t2_env_add(e, "GIT_TRACE2_CONFIG_PARAMS=t2f.*");
	t2_env_add(e, "GIT_TRACE2_CLOCK=monotonic");
	if (p->debug)
		t2_env_add(e, "GIT_TRACE2_DST_DEBUG=1");
	t2_env_add(e, "GIT_TRACE2=%s", p->path[T_NORMAL]);
	if (p->layout == L_FILES) {
		t2_env_add(e, "GIT_TRACE2_PERF=%s", p->path[T_PERF]);
		t2_env_add(e, "GIT_TRACE2_EVENT=%s", p->path[T_EVENT]);
		return;
	}
	t2_env_add(e, "GIT_TRACE2_MAX_FILES=100");
	t2_env_add(e, "GIT_TRACE2_PERF=%d", PERF_FD);
	t2_env_add(e, "GIT_TRACE2_EVENT=af_unix:stream:%s", p->path[T_EVENT]);
}

static char *read_all_fd(int fd)
{
	char *text = strdup(""), buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		t2_append(&text, "%.*s", (int)n, buf);
	return text;
}

static char *read_socket(int listen_fd)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	char *text;

	if (fd < 0)
		return strdup("");
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	text = read_all_fd(fd);
	close(fd);
	return text;
}

/* Everything in NORMAL's directory, in name order. */
static char *read_directory(const char *dir, char **names)
{
	char **v, *text = strdup("");
	size_t i;

	*names = t2_listdir(dir);
	v = t2_split(*names, " ", NULL);
	for (i = 0; v[i] && *v[i]; i++) {
		char *path = t2_path(dir, v[i]), *raw = t2_read_file(path, NULL);

		t2_append(&text, "%s", raw ? raw : "");
		free(raw);
		free(path);
	}
	t2_strv_free(v);
	return text;
}

static char *raw_output(struct plan *p, enum target t, struct result *r)
{
	char *raw;

	if (p->layout == L_FILES) {
		raw = t2_read_file(p->path[t], NULL);
		return raw ? raw : strdup("");
	}
	if (t == T_NORMAL)
		return read_directory(p->path[T_NORMAL], &r->normal_files);
	if (t == T_PERF)
		return read_all_fd(p->pipe_fd[0]);
	return read_socket(p->listen_fd);
}

static void layout_collect(struct plan *p, struct result *r)
{
	int t;

	for (t = 0; t < T_COUNT; t++) {
		r->raw[t] = raw_output(p, (enum target)t, r);
		r->text[t] = t2_scrub(r->raw[t]);
	}
}

static void layout_release(struct plan *p)
{
	int t;

	if (p->layout == L_MIXED) {
		close(p->pipe_fd[0]);
		close(p->listen_fd);
	}
	for (t = 0; t < T_COUNT; t++) {
		free(p->path[t]);
		p->path[t] = NULL;
	}
	t2_rmtree(p->dir);
	free(p->dir);
	p->dir = NULL;
}

/* Wait for pid without polling (a pidfd), killing it after timeout_s. */
static int wait_child(int pid, int timeout_s)
{
	struct pollfd pfd = { (int)syscall(SYS_pidfd_open, pid, 0), POLLIN, 0 };
	int status = -1;

	if (pfd.fd < 0)
		return t2_wait_timeout(pid, timeout_s * 1000);
	if (poll(&pfd, 1, timeout_s * 1000) != 1)
		kill(pid, SIGKILL);
	close(pfd.fd);
	waitpid(pid, &status, 0);
	return status;
}

/* A run under way. */
struct job {
	struct plan p;
	struct t2_env env;
	int pid;
};

static void job_start(struct job *j)
{
	char *out, *err;

	memset(&j->env, 0, sizeof(j->env));
	layout_prepare(&j->p);
	layout_env(&j->p, &j->env);
	memset(&slots[j->p.slot], 0, sizeof(slots[0]));
	out = t2_path(j->p.dir, "stdout");
	err = t2_path(j->p.dir, "stderr");
	j->pid = t2_spawn(scenario, &j->p, t2_env_list(&j->env), out, err);
	assert_true(j->pid > 0);
	if (j->p.layout == L_MIXED)
		close(j->p.pipe_fd[1]);
	free(out);
	free(err);
}

static char *read_own_file(const struct plan *p, const char *name)
{
	char *path = t2_path(p->dir, name), *text = t2_read_file(path, NULL);

	free(path);
	return text ? text : strdup("");
}

/* Wait for the run and gather what it left; tags: keep the owners. */
static void job_finish(struct job *j, struct result *r, int tags)
{
	memset(r, 0, sizeof(*r));
	r->status = wait_child(j->pid, TIMEOUT_S);
	r->out = read_own_file(&j->p, "stdout");
	r->err = read_own_file(&j->p, "stderr");
	r->o = slots[j->p.slot].o;
	if (tags) {
		r->tag = malloc(sizeof(slots[0].tag));
		memcpy(r->tag, slots[j->p.slot].tag, sizeof(slots[0].tag));
	}
	layout_collect(&j->p, r);
	layout_release(&j->p);
	t2_env_free(&j->env);
}

/* One run, alone (the fault-free ones). */
static void run_case(const struct plan *p, struct result *r)
{
	struct job j;

	j.p = *p;
	job_start(&j);
	job_finish(&j, r, 1);
}

static void result_free(struct result *r)
{
	int t;

	for (t = 0; t < T_COUNT; t++) {
		free(r->raw[t]);
		free(r->text[t]);
	}
	free(r->out);
	free(r->err);
	free(r->normal_files);
	free(r->tag);
}

/* ------------------------------------------------------------------ */
/* Checks                                                               */
/* ------------------------------------------------------------------ */

struct verdict {
	char why[1024];
};

static int flunk(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int flunk(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return 0;
}

static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	for (; (s = strstr(s, needle)); s += len)
		n++;
	return n;
}

static int event_line_ok(const char *line)
{
	struct tjson *v = tjson_parse(line, strlen(line), NULL);
	int ok = v && v->type == TJSON_OBJECT && tjson_get_str(v, "event");

	tjson_free(v);
	return ok;
}

/*
 * A record of t's layout (t2rec) and one only: for EVENT one strict JSON
 * object (t2_rec_mixed() takes its "time" for a second record), for PERF
 * with all its columns.
 */
static int line_ok(enum target t, const char *line)
{
	static const enum t2_rec_kind layout[T_COUNT] = {
		T2_REC_NORMAL, T2_REC_PERF, T2_REC_EVENT
	};
	struct t2_rec rec;
	size_t len = strlen(line);
	int ok = t2_rec_parse(line, len, &rec) == layout[t];

	t2_rec_free(&rec);
	if (t == T_EVENT)
		return ok && event_line_ok(line);
	ok = ok && !t2_rec_mixed(line, len);
	return t == T_PERF ? ok && count_of(line, " | ") == PERF_SEPARATORS : ok;
}

/* Complete, valid lines only (but for a last line cut short if partial). */
static int lines_ok(enum target t, const char *text, int partial, struct verdict *v)
{
	size_t len = strlen(text), i;
	char **lines;
	int ok = 1, cut = len && text[len - 1] != '\n';

	if (cut && !partial)
		return flunk(v, "%s: last line incomplete", target_name[t]);
	lines = t2_lines(text, NULL);
	for (i = 0; ok && lines[i] && !(cut && !lines[i + 1]); i++)
		if (!line_ok(t, lines[i]))
			ok = flunk(v, "%s: invalid line %zu: %.300s", target_name[t],
				   i + 1, lines[i]);
	t2_strv_free(lines);
	return ok;
}

static int is_line_prefix(const char *got, const char *full)
{
	size_t n = strlen(got);

	return !strncmp(got, full, n) && (!n || got[n - 1] == '\n');
}

/* The first line of got that is not the same line of want ("" if none). */
static const char *first_difference(const char *got, const char *want,
				    char *buf, size_t size)
{
	size_t i = 0, start = 0;

	for (; got[i] && got[i] == want[i]; i++)
		if (got[i] == '\n')
			start = i + 1;
	snprintf(buf, size, "%.*s", (int)strcspn(got + start, "\n"), got + start);
	return buf;
}

/*
 * What a failed allocation or read may change in a record, by design: the
 * ancestry may lose names (its lines are left out), a thread's name may
 * fall back to "unknown", cmd_name may lose its hierarchy, and the
 * version may fall back to the library's own.
 */
static char *normalise(const char *text)
{
	static const char *const rules[][2] = {
		{ "\\| (main|unknown|th[0-9]+:[a-z]+) +\\|", "| T |" },	/* PERF */
		{ "\"thread\":\"[^\"]*\"", "\"thread\":\"T\"" },		/* EVENT */
		{ " t2f \\(t2f\\)$", " t2f" },				/* NORMAL, PERF */
		{ ",\"hierarchy\":\"t2f\"", "" },				/* EVENT */
	};
	char *s = t2_drop_lines(text, "cmd_ancestry"), *next;
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		next = t2_regsub(s, rules[i][0], rules[i][1]);
		free(s);
		s = next;
	}
	next = t2_replace(s, TRACE2_VERSION_STRING, HOST_VERSION);
	free(s);
	return next;
}

/* NULL if every line of got is a line of full, in the same order (both
 * normalised), else the first line that is not. */
static const char *extra_line(const char *got, const char *full, char *buf,
			      size_t size)
{
	char *g = normalise(got), *f = normalise(full);
	char **gl = t2_lines(g, NULL), **fl = t2_lines(f, NULL);
	size_t i = 0, j = 0;
	int extra;

	for (; gl[i] && fl[j]; j++)
		if (!strcmp(gl[i], fl[j]))
			i++;
	extra = gl[i] != NULL;
	if (extra)
		snprintf(buf, size, "%s", gl[i]);
	t2_strv_free(gl);
	t2_strv_free(fl);
	free(g);
	free(f);
	return extra ? buf : NULL;
}

static int status_unchanged(const struct result *base, const struct result *r,
			    struct verdict *v)
{
	if (r->status == base->status)
		return 1;
	if (WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGKILL)
		return flunk(v, "hangs: killed after %d s", TIMEOUT_S);
	if (WIFSIGNALED(r->status))
		return flunk(v, "killed by signal %d", WTERMSIG(r->status));
	return flunk(v, "exit code %d, expected %d", WEXITSTATUS(r->status),
		     WEXITSTATUS(base->status));
}

static int host_unchanged(const struct result *base, const struct result *r,
			  struct verdict *v)
{
	if (!status_unchanged(base, r, v))
		return 0;
	if (strcmp(r->out, base->out))
		return flunk(v, "host stdout changed: %.300s", r->out);
	if (strcmp(r->err, base->err))
		return flunk(v, "stderr changed: %.300s", r->err);
	return 1;
}

static int secret_kept(const struct result *r, struct verdict *v)
{
	int t;

	for (t = 0; t < T_COUNT; t++) {
		const char *at = strstr(r->text[t], SECRET);

		if (at) {
			size_t line = (size_t)(at - r->text[t]);

			while (line && r->text[t][line - 1] != '\n')
				line--;
			return flunk(v, "%s shows the password: %.*s", target_name[t],
				     (int)strcspn(r->text[t] + line, "\n"), r->text[t] + line);
		}
	}
	return 1;
}

static int bookkeeping_ok(const struct result *base, const struct result *r,
			  struct verdict *v)
{
	if (!r->o.ended)
		return flunk(v, "the host's last atexit handler did not run");
	if (r->o.live_at_end > base->o.live_at_end)
		return flunk(v, "%ld allocations live at the end, expected %ld",
			     r->o.live_at_end, base->o.live_at_end);
	if (r->normal_files && strchr(r->normal_files, ' '))
		return flunk(v, "NORMAL directory holds several files: %s", r->normal_files);
	return 1;
}

/*
 * X_SAME: identical; X_TARGET: the owner's output a whole-line prefix,
 * the others identical; X_PARTIAL: the same, but the owner's last line may
 * be cut; X_DEGRADED: no record that the fault-free run has not.
 */
enum expect { X_SAME, X_TARGET, X_PARTIAL, X_DEGRADED };

/* Line i of text, without its LF; caller frees. */
static char *line_at(const char *text, size_t i)
{
	for (; i && *text; i--)
		text += strcspn(text, "\n") + (text[strcspn(text, "\n")] == '\n');
	return strndup(text, strcspn(text, "\n"));
}

/* Times and ids differ between runs: compare the shapes of two lines. */
static void mask_hex(char *s)
{
	for (; *s; s++)
		if (strchr("0123456789abcdef", *s))
			*s = '#';
}

/*
 * raw, the output of a run whose write was cut: its whole lines, scrubbed,
 * are the first lines of the fault-free output (base), and the cut line
 * is the start of the next one (compared by shape: a cut time or session
 * id cannot be scrubbed).
 */
static int is_cut_prefix(const char *raw, const char *base_raw, const char *base)
{
	size_t whole = strlen(raw), lines = 0, i;
	char *head, *scrubbed, *tail, *want;
	int ok;

	while (whole && raw[whole - 1] != '\n')
		whole--;
	for (i = 0; i < whole; i++)
		lines += raw[i] == '\n';
	head = strndup(raw, whole);
	scrubbed = t2_scrub(head);
	tail = strdup(raw + whole);
	want = line_at(base_raw, lines);
	mask_hex(tail);
	mask_hex(want);
	ok = is_line_prefix(scrubbed, base) && !strncmp(tail, want, strlen(tail));
	free(head);
	free(scrubbed);
	free(tail);
	free(want);
	return ok;
}

static int target_ok(enum expect x, int owner, enum target t,
		     const struct result *b, const struct result *r, struct verdict *v)
{
	const char *base = b->text[t], *got = r->text[t];
	char line[512];
	int mine = owner == (int)t;

	if (x == X_SAME || ((x == X_TARGET || x == X_PARTIAL) && !mine)) {
		if (strcmp(got, base))
			return flunk(v, "%s differs from the fault-free output at: %s",
				     target_name[t], first_difference(got, base, line, sizeof(line)));
	} else if (x == X_PARTIAL) {
		if (!is_cut_prefix(r->raw[t], b->raw[t], base))
			return flunk(v, "%s is no prefix of its fault-free output: %s",
				     target_name[t], first_difference(got, base, line, sizeof(line)));
	} else if (x == X_TARGET) {
		if (!is_line_prefix(got, base))
			return flunk(v, "%s is no whole-line prefix of its fault-free output: %s",
				     target_name[t], first_difference(got, base, line, sizeof(line)));
	} else if (extra_line(got, base, line, sizeof(line)))
		return flunk(v, "%s has a record the fault-free run has not: %s",
			     target_name[t], line);
	return 1;
}

static enum expect expectation(const struct plan *p, const struct result *r)
{
	if (kinds[p->kind].transparent || p->call == C_CLOSE)
		return X_SAME;
	if (r->o.fired_tag < 0 || r->o.fired_tag >= T_COUNT)
		return X_DEGRADED;
	return p->kind == K_HALF_EBADF ? X_PARTIAL : X_TARGET;
}

static int case_ok(const struct plan *p, const struct result *base,
		   const struct result *r, struct verdict *v)
{
	enum expect x = expectation(p, r);
	int t;

	if (!r->o.fired)
		return flunk(v, "the fault was not reached");
	if (!host_unchanged(base, r, v) || !bookkeeping_ok(base, r, v) ||
	    !secret_kept(r, v))
		return 0;
	for (t = 0; t < T_COUNT; t++)
		if (!lines_ok((enum target)t, r->text[t],
			      x == X_PARTIAL && t == r->o.fired_tag, v) ||
		    !target_ok(x, r->o.fired_tag, (enum target)t, base, r, v))
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Sweeps                                                               */
/* ------------------------------------------------------------------ */

static const char *home_dir;

static const char *layout_name(enum layout l)
{
	return l == L_FILES ? "files" : "mixed";
}

static void plan_init(struct plan *p, enum layout l, int debug)
{
	memset(p, 0, sizeof(*p));
	p->layout = l;
	p->debug = debug;
	p->home = home_dir;
	p->listen_fd = -1;
	p->pipe_fd[0] = p->pipe_fd[1] = -1;
}

/* The fault-free run of a layout, checked against the host's text. */
static void baseline(enum layout l, int debug, struct result *base)
{
	struct plan p;
	struct verdict v;
	int c, t;

	plan_init(&p, l, debug);
	run_case(&p, base);
	assert_true(WIFEXITED(base->status));
	assert_int_equal(WEXITSTATUS(base->status), HOST_EXIT);
	assert_string_equal(base->out, HOST_STDOUT);
	assert_string_equal(base->err, HOST_STDERR);
	assert_int_equal(base->o.ended, 1);
	assert_int_equal(base->o.live_at_end, LIVE_AT_END);
	for (c = 0; c < C_COUNT; c++)
		assert_true(base->o.calls[c] <= MAX_TAGGED);
	if (!secret_kept(base, &v))
		fail_msg("fault-free run: %s", v.why);
	for (t = 0; t < T_COUNT; t++) {
		if (!lines_ok((enum target)t, base->text[t], 0, &v))
			fail_msg("fault-free run: %s", v.why);
		assert_non_null(strstr(base->text[t], "atexit"));
	}
}

/* ------------------------------------------------------------------ */
/* With GIT_TRACE2_DST_DEBUG=1: a failed PERF write is reported once    */
/* ------------------------------------------------------------------ */

#define PERF_FAILED "unable to write trace to 'GIT_TRACE2_PERF': "
#define WRITE_FAILED_FMT "unable to write trace to '%s': %s"

/* How many lines of text contain needle; the first in *first (caller
 * frees; NULL if none). */
static size_t lines_with(const char *text, const char *needle, char **first)
{
	char **lines = t2_lines(text, NULL);
	size_t i, n = 0;

	*first = NULL;
	for (i = 0; lines[i]; i++)
		if (strstr(lines[i], needle) && !n++)
			*first = strdup(lines[i]);
	t2_strv_free(lines);
	return n;
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

static int is_error_record(enum target t, const char *line, const char *msg)
{
	struct tjson *j;
	char *want;
	int ok;

	if (t != T_EVENT) {
		want = t2_replace("error MSG", "MSG", msg);
		ok = ends_with(line, want);
		free(want);
		return ok;
	}
	j = tjson_parse(line, strlen(line), NULL);
	ok = j && !strcmp(tjson_get_str(j, "event"), "error") &&
	     tjson_get_str(j, "msg") && !strcmp(tjson_get_str(j, "msg"), msg) &&
	     tjson_get_str(j, "fmt") && !strcmp(tjson_get_str(j, "fmt"), WRITE_FAILED_FMT);
	tjson_free(j);
	return ok;
}

/* text is want plus exactly one line with msg, which is_ok() accepts. */
static int one_more_line(const char *name, const char *want, const char *text,
			 const char *msg, int (*is_ok)(enum target, const char *, const char *),
			 enum target t, struct verdict *v)
{
	char *first, *rest = t2_drop_lines(text, msg);
	size_t n = lines_with(text, msg, &first);
	int ok = 1;

	if (n != 1)
		ok = flunk(v, "%s: %zu lines with '%s', expected 1", name, n, msg);
	else if (!is_ok(t, first, msg))
		ok = flunk(v, "%s: unexpected line: %.300s", name, first);
	else if (strcmp(rest, want))
		ok = flunk(v, "%s: more than the one line changed", name);
	free(first);
	free(rest);
	return ok;
}

static int is_warning(enum target t, const char *line, const char *msg)
{
	(void)t;
	return !strncmp(line, "warning: ", 9) && !strcmp(line + 9, msg);
}

static int debug_case_ok(const struct plan *p, const struct result *base,
			 const struct result *r, struct verdict *v)
{
	char *msg = t2_replace(PERF_FAILED "ERR", "ERR", strerror(kinds[p->kind].err));
	int ok = r->o.fired ? 1 : flunk(v, "the fault was not reached");
	int t;

	if (ok)
		ok = status_unchanged(base, r, v);
	if (ok && strcmp(r->out, base->out))
		ok = flunk(v, "host stdout changed: %.300s", r->out);
	if (ok)
		ok = one_more_line("stderr", base->err, r->err, msg, is_warning, T_PERF, v) &&
		     bookkeeping_ok(base, r, v) && secret_kept(r, v);
	for (t = 0; ok && t < T_COUNT; t++)
		ok = lines_ok((enum target)t, r->text[t], 0, v);
	if (ok && !is_line_prefix(r->text[T_PERF], base->text[T_PERF]))
		ok = flunk(v, "PERF is no whole-line prefix of its fault-free output");
	if (ok)
		ok = one_more_line("NORMAL", base->text[T_NORMAL], r->text[T_NORMAL], msg,
				   is_error_record, T_NORMAL, v) &&
		     one_more_line("EVENT", base->text[T_EVENT], r->text[T_EVENT], msg,
				   is_error_record, T_EVENT, v);
	free(msg);
	return ok;
}

/* ------------------------------------------------------------------ */
/* Sweeps                                                               */
/* ------------------------------------------------------------------ */

typedef int case_check(const struct plan *p, const struct result *base,
		       const struct result *r, struct verdict *v);

#define OWNER_ANY (-2)

/* One kind of failure at every call of one function (of one owner). */
struct sweep {
	enum layout layout;
	int debug;
	enum call call;
	enum kind kind;
	int owner;
	case_check *check;
};

struct tally {
	unsigned long cases, failed;
};

static unsigned long stride_of(enum call c, enum kind k)
{
	const char *s = getenv("T2_FAULTS_STRIDE");

	if (k == K_EAGAIN_STUCK)
		return STUCK_STRIDE;
	if (s && atoi(s) > 0)
		return (unsigned long)atoi(s);
	return SANITIZED && !is_allocation(c) ? SANITIZED_STRIDE : 1;
}

/* The call numbers k to fail: every stride-th of the owner's calls, and
 * the last; *n set to how many calls the owner makes in all. */
static size_t select_calls(const struct sweep *sw, const struct result *base,
			   unsigned long *ks, unsigned long *n)
{
	unsigned long stride = stride_of(sw->call, sw->kind), i, last = 0;
	size_t m = 0;

	*n = 0;
	for (i = 1; i <= base->o.calls[sw->call]; i++) {
		if (sw->owner != OWNER_ANY && base->tag[sw->call][i - 1] != sw->owner)
			continue;
		if ((*n)++ % stride == 0)
			ks[m++] = i;
		last = i;
	}
	if (last && ks[m - 1] != last)
		ks[m++] = last;
	return m;
}

static void report(const struct plan *p, const struct result *r,
		   const struct verdict *v, struct tally *t)
{
	if (++t->failed > MAX_REPORTED)
		return;
	print_message("FAULT %s%s %s %s k=%lu (owner %d): %s\n", layout_name(p->layout),
		      p->debug ? " debug" : "", call_name[p->call], kinds[p->kind].name,
		      p->k, r->o.fired_tag, v->why);
	if (getenv("T2_FAULTS_SHOW"))
		print_message("%s---\n%s---\n%s---\n%s", r->text[T_NORMAL],
			      r->text[T_PERF], r->text[T_EVENT], r->err);
}

static void fault_start(const struct sweep *sw, unsigned long k, int slot,
			struct job *j)
{
	plan_init(&j->p, sw->layout, sw->debug);
	j->p.slot = slot;
	j->p.call = sw->call;
	j->p.kind = sw->kind;
	j->p.k = k;
	job_start(j);
}

/* Finish and check one case; 0 if the child had to be killed. */
static int fault_finish(const struct sweep *sw, struct job *j,
			const struct result *base, struct tally *t)
{
	struct result r;
	struct verdict v;
	int finished;

	job_finish(j, &r, 0);
	t->cases++;
	if (!sw->check(&j->p, base, &r, &v))
		report(&j->p, &r, &v, t);
	finished = !WIFSIGNALED(r.status) || WTERMSIG(r.status) != SIGKILL;
	result_free(&r);
	return finished;
}

/* The selected calls, SLOTS runs at a time; after a run that hung, no
 * more are started. */
static void sweep_kind(const struct sweep *sw, const struct result *base,
		       struct tally *total)
{
	static unsigned long ks[MAX_TAGGED];
	struct job jobs[SLOTS];
	struct tally t = { 0, 0 };
	unsigned long n;
	size_t m = select_calls(sw, base, ks, &n), started = 0, done = 0;

	while (done < started || started < m) {
		for (; started < m && started - done < SLOTS; started++)
			fault_start(sw, ks[started], (int)(started % SLOTS),
				    &jobs[started % SLOTS]);
		if (!fault_finish(sw, &jobs[done++ % SLOTS], base, &t) && started < m) {
			print_message("  (killed after %d s: the other %zu calls skipped)\n",
				      TIMEOUT_S, m - started);
			m = started;
		}
	}
	if (n)
		print_message("  %-7s %-12s calls %4lu, cases %4lu, failed %3lu\n",
			      call_name[sw->call], kinds[sw->kind].name, n, t.cases,
			      t.failed);
	total->cases += t.cases;
	total->failed += t.failed;
}

static void print_total(const char *what, const struct tally *total)
{
	print_message("%s: %lu cases, %lu failed\n", what, total->cases, total->failed);
}

/* Every function, every kind of failure it can have, every call. */
static void sweep_layout(enum layout l)
{
	struct sweep sw = { l, 0, C_OPEN, K_NONE, OWNER_ANY, case_ok };
	struct tally total = { 0, 0 };
	struct result base;
	int c, i;

	baseline(l, 0, &base);
	print_message("layout %s (every %lu-th call, allocations every %lu-th):\n",
		      layout_name(l), stride_of(C_WRITE, K_EBADF),
		      stride_of(C_MALLOC, K_ENOMEM));
	for (c = 0; c < C_COUNT; c++) {
		sw.call = (enum call)c;
		for (i = 0; (sw.kind = call_kinds[c][i]) != K_NONE; i++)
			sweep_kind(&sw, &base, &total);
	}
	print_total(layout_name(l), &total);
	result_free(&base);
	assert_int_equal(total.failed, 0);
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */
/* ------------------------------------------------------------------ */

/* Two fault-free runs make the same calls and the same output. */
static void fault_free_runs_agree(void **state)
{
	struct result a, b;
	int c, t;

	(void)state;
	baseline(L_FILES, 0, &a);
	baseline(L_FILES, 0, &b);
	for (c = 0; c < C_COUNT; c++)
		assert_int_equal(a.o.calls[c], b.o.calls[c]);
	for (t = 0; t < T_COUNT; t++)
		assert_string_equal(a.text[t], b.text[t]);
	assert_true(a.o.calls[C_WRITE] > 0);
	assert_true(a.o.calls[C_MALLOC] > 0);
	result_free(&a);
	result_free(&b);
}

static void faults_files_layout(void **state)
{
	(void)state;
	sweep_layout(L_FILES);
}

static void faults_mixed_layout(void **state)
{
	(void)state;
	sweep_layout(L_MIXED);
}

/* GIT_TRACE2_DST_DEBUG=1: every PERF write failing with each errno. */
static void debug_perf_write_failures(void **state)
{
	static const enum kind debug_kinds[] = { K_EAGAIN_STUCK, K_ENOSPC, K_EPIPE, K_EBADF };
	struct sweep sw = { L_FILES, 1, C_WRITE, K_NONE, T_PERF, debug_case_ok };
	struct tally total = { 0, 0 };
	struct result base;
	size_t i;

	(void)state;
	baseline(L_FILES, 1, &base);
	print_message("debug, PERF writes:\n");
	for (i = 0; i < sizeof(debug_kinds) / sizeof(debug_kinds[0]); i++) {
		sw.kind = debug_kinds[i];
		sweep_kind(&sw, &base, &total);
	}
	print_total("debug", &total);
	result_free(&base);
	assert_int_equal(total.failed, 0);
}

/* Under dir, proc/<pid>/stat of the test's fixed ancestors (the
 * scenario's parent is the test): the test, a make that no system could
 * have (a pid above Linux's PID_MAX_LIMIT), init. */
static int write_fixed_ancestry(const char *dir)
{
	const struct { long pid; const char *name; long ppid; } chain[] = {
		{ (long)getpid(), "test_faults", 4194400 },
		{ 4194400, "make", 1 },
		{ 1, "init", 0 },
	};
	char path[512], text[128];
	size_t i;

	for (i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		snprintf(path, sizeof(path), "%s/proc/%ld", dir, chain[i].pid);
		if (t2_mkdirs(path))
			return -1;
		snprintf(path, sizeof(path), "%s/proc/%ld/stat", dir, chain[i].pid);
		snprintf(text, sizeof(text), "%ld (%s) S %ld 1 1 0 -1\n", chain[i].pid,
			 chain[i].name, chain[i].ppid);
		if (t2_write_file(path, text))
			return -1;
	}
	return 0;
}

static int group_setup(void **state)
{
	char *gitconfig;

	(void)state;
	slots = mmap(NULL, SLOTS * sizeof(*slots), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	home_dir = t2_tmpdir();
	if (slots == MAP_FAILED || !home_dir)
		return -1;
	gitconfig = t2_path(home_dir, ".gitconfig");
	t2_write_file(gitconfig, "[t2f]\n\tsetting = on\n\tother = 2\n");
	free(gitconfig);
	return write_fixed_ancestry(home_dir);
}

static int group_teardown(void **state)
{
	(void)state;
	t2_rmtree(home_dir);
	free((char *)home_dir);
	munmap(slots, SLOTS * sizeof(*slots));
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fault_free_runs_agree),
		cmocka_unit_test(faults_files_layout),
		cmocka_unit_test(faults_mixed_layout),
		cmocka_unit_test(debug_perf_write_failures),
	};

	t2_leak_check_runner_only();
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
