/*
 * Hostile environments (docs/embedding.md, "What libtrace2 never does to
 * the host"; docs/reliability.md, "Hostile environment"): the library
 * must keep the host alive, never block it forever, keep every record it
 * writes whole, and stay within bounded time.
 *
 *  - a directory target reached through a symlink (works, as in Git);
 *  - a FIFO as target file: no reader (opening with O_WRONLY alone would
 *    block until one appears), a reader that never reads, a live reader;
 *    a terminal with a live reader; four targets on a FIFO nobody reads
 *    (held one wait limit, not four);
 *  - a directory of 500 files, with and without maxFiles (readdir()
 *    calls counted: the count stops at the limit);
 *  - HOME unwritable, missing, empty, a regular file;
 *  - config files that are directories; a global config file that is a
 *    FIFO (nobody writes, a writer that ends, stalls, trickles forever);
 *    4 MiB global config files (random bytes, one huge value, ~100,000
 *    entries), their reads and allocations counted;
 *  - 10,000 nested regions on all three targets;
 *  - 1 MiB labels, messages and values (files, buffered, 4 threads into
 *    one AF_UNIX stream socket);
 *  - a thread that ends without trace2_thread_exit();
 *  - a thread cancelled while it traces (files, buffered, a FIFO): no
 *    trace2 call is a cancellation point;
 *  - dlclose() of the shared library while a traced thread lives;
 *  - trace2 calls from an atexit handler registered before initialize
 *    (dropped) and from a SIGUSR1 handler while the main thread traces.
 * Each test prints what it observed (times, behaviour) as "[hostile]".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "t2rec.h"
#include "t2test.h"
#include "tjson.h"
#include "tr2_sys.h"
#include "trace2.h"

#define MIB (1024 * 1024)
static const char *const RETURN0[] = { "trace2", "001return", "0", NULL };
static const char *const TARGET_VARS[] = { "GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT" };
static const char *const FILE_NAMES[] = { "normal", "perf", "event" };

/* ------------------------------------------------------------------ */
/* Helpers.                                                             */
/* ------------------------------------------------------------------ */

/* The three targets as files dir/normal, dir/perf, dir/event. */
static void env_files(struct t2_env *env, const char *dir)
{
	int i;

	for (i = 0; i < 3; i++)
		t2_env_add(env, "%s=%s/%s", TARGET_VARS[i], dir, FILE_NAMES[i]);
}

/* Every file in dir: whole lines only; returns the tally. */
static struct t2_whole assert_whole_dir(const char *dir, const char *what)
{
	struct t2_whole w = { 0 };

	t2_whole_dir(dir, &w);
	printf("[hostile] %s: %zu files, %zu lines, %zu bad, %zu interleaved, "
	       "%zu partial\n", what, w.files, w.lines, w.bad, w.mixed, w.partial);
	if (w.bad)
		printf("[hostile]   first bad line: %s\n", w.first_bad);
	fflush(stdout);
	assert_int_equal(w.bad, 0);
	assert_int_equal(w.partial, 0);
	return w;
}

static char *read_in(const char *dir, const char *name)
{
	char *path = t2_path(dir, name), *text = t2_read_file(path, NULL);

	free(path);
	return text ? text : strdup("");
}

/* strchr() and strncmp(), not strstr(): a sanitizer's strstr() reads
 * all the rest of text at each call (minutes on a signal test's files). */
static int count_substr(const char *text, const char *needle)
{
	size_t len = strlen(needle);
	int n = 0;

	while ((text = strchr(text, needle[0]))) {
		if (strncmp(text, needle, len)) {
			text++;
			continue;
		}
		n++;
		text += len;
	}
	return n;
}

/* The scenarios below initialize trace2 themselves. */
static void init_trace(void)
{
	trace2_initialize_clock();
	trace2_initialize();
}

static int exited_0(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Write size bytes made by fill() (chunk by chunk) to path. */
typedef void fill_fn(char *buf, size_t n, size_t offset);
static void write_big_file(const char *path, size_t size, fill_fn *fill)
{
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK);
	FILE *f = fopen(path, "wb");
	size_t done = 0;

	assert_non_null(f);
	while (done < size) {
		size_t n = size - done < CHUNK ? size - done : CHUNK;

		fill(buf, n, done);
		assert_int_equal(fwrite(buf, 1, n, f), n);
		done += n;
	}
	assert_int_equal(fclose(f), 0);
	free(buf);
}

/* ------------------------------------------------------------------ */
/* A directory target that is a symlink.                                */
/* ------------------------------------------------------------------ */

static void sc_hello(void *arg)
{
	(void)arg;
	init_trace();
	trace2_printf("hello");
	exit(trace2_cmd_exit(0));
}

static void directory_through_symlink(void **state)
{
	const char *dir = t2_scratch_dir();
	char *real = t2_path(dir, "real"), *link = t2_path(dir, "link");
	struct t2_env env = { 0 };
	struct t2_proc p;
	struct t2_whole w;
	int i;

	(void)state;
	assert_int_equal(mkdir(real, 0777), 0);
	assert_int_equal(symlink(real, link), 0);
	for (i = 0; i < 3; i++)
		t2_env_add(&env, "%s=%s", TARGET_VARS[i], link);
	t2_capture(sc_hello, NULL, t2_env_list(&env), 20, &p);
	assert_true(exited_0(p.status));
	w = assert_whole_dir(real, "directory through a symlink");
	assert_int_equal(w.files, 3);
	assert_int_equal(w.kinds[T2_REC_NORMAL], 4);	/* version printf exit atexit */
	assert_true(w.kinds[T2_REC_PERF] >= 4 && w.kinds[T2_REC_EVENT] >= 4);
	t2_proc_free(&p);
	t2_env_free(&env);
	free(real);
	free(link);
}

/* ------------------------------------------------------------------ */
/* FIFOs.                                                               */
/* ------------------------------------------------------------------ */

#define FIFO_ALARM_S 5
#define FIFO_RECORDS 20000
/* GIT_TRACE2_DST_TIMEOUT for a reader that never reads. */
#define STALL_LIMIT_MS 1000

struct fifo_plan {
	int records;
	int alarm_s;
};

/* Initialize (timed), emit the records, report. */
static void sc_fifo_writer(void *arg)
{
	const struct fifo_plan *plan = arg;
	double t0 = t2_now(), t_init;
	int i;

	alarm((unsigned)plan->alarm_s);
	init_trace();
	t_init = t2_now() - t0;
	for (i = 0; i < plan->records; i++)
		trace2_printf("fifo record %d", i);
	dprintf(1, "initialize %.3f s, enabled %d, %d records in %.3f s\n", t_init,
		trace2_is_enabled(), plan->records, t2_now() - t0);
	exit(trace2_cmd_exit(0));
}

/* No reader at all: opening the FIFO for writing must not block. */
static void fifo_without_reader(void **state)
{
	const char *dir = t2_scratch_dir();
	char *fifo = t2_path(dir, "fifo");
	struct t2_env env = { 0 };
	struct t2_proc p;
	struct fifo_plan plan = { 1, FIFO_ALARM_S };
	double t0;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0666), 0);
	t2_env_add(&env, "GIT_TRACE2=%s", fifo);
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	t0 = t2_now();
	/* alarm(5) in the scenario; the capture would kill it after 10 s */
	t2_capture(sc_fifo_writer, &plan, t2_env_list(&env), 2 * FIFO_ALARM_S, &p);
	printf("[hostile] FIFO without reader: %s after %.2f s; stdout: %s stderr: %s\n",
	       exited_0(p.status) ? "returned" : WIFSIGNALED(p.status) ?
	       "KILLED (blocked)" : "failed", t2_now() - t0, p.out, p.err);
	fflush(stdout);
	assert_true(exited_0(p.status));
	assert_true(t2_now() - t0 < FIFO_ALARM_S);
	t2_proc_free(&p);
	t2_env_free(&env);
	free(fifo);
}

/* A reader that opened the FIFO but never reads: the writer must get out
 * in bounded time even though the pipe fills up. */
static void fifo_with_stalled_reader(void **state)
{
	const char *dir = t2_scratch_dir();
	char *fifo = t2_path(dir, "fifo"), *out = t2_path(dir, "out"),
	     *err = t2_path(dir, "err"), *text_out, *text_err;
	struct t2_env env = { 0 };
	struct fifo_plan plan = { FIFO_RECORDS, 6 * FIFO_ALARM_S };
	int rfd, pid, status;
	double t0;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0666), 0);
	rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(rfd >= 0);
	t2_env_add(&env, "GIT_TRACE2=%s", fifo);
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	t2_env_add(&env, "GIT_TRACE2_DST_TIMEOUT=%d", STALL_LIMIT_MS);
	t0 = t2_now();
	pid = t2_spawn(sc_fifo_writer, &plan, t2_env_list(&env), out, err);
	status = t2_wait_timeout(pid, 60 * 1000);
	text_out = t2_read_file(out, NULL);
	text_err = t2_read_file(err, NULL);
	printf("[hostile] FIFO whose reader never reads, %d records: %s after %.2f s; "
	       "stdout: %s stderr: %s\n", plan.records, exited_0(status) ? "returned" :
	       "KILLED (blocked)", t2_now() - t0, text_out, text_err);
	fflush(stdout);
	close(rfd);
	assert_true(exited_0(status));
	free(text_out);
	free(text_err);
	free(out);
	free(err);
	t2_env_free(&env);
	free(fifo);
}

/*
 * Four targets (normal, perf, event, chrome) on one FIFO whose reader
 * never reads: once one write has waited the limit, all four are off, so
 * the host is held about one limit.  Before, each target waited its own
 * (four limits).
 */
#define STALL_RECORDS 5000

static const char *const STALL_TARGETS[] = {
	"GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT", "GIT_TRACE2_CHROME",
};
#define NSTALL_TARGETS (sizeof(STALL_TARGETS) / sizeof(STALL_TARGETS[0]))

static void sc_into_stalled_fifo(void *arg)
{
	double t0 = t2_now();
	int i;

	(void)arg;
	init_trace();
	for (i = 0; i < STALL_RECORDS; i++)
		trace2_printf("stalled record %d", i);
	dprintf(1, "held %d ms\n", (int)((t2_now() - t0) * 1000));
	exit(trace2_cmd_exit(0));
}

static void stalled_destination_costs_one_limit(void **state)
{
	char *fifo = t2_path(t2_scratch_dir(), "fifo"), *warning;
	struct t2_env env = { 0 };
	struct t2_proc p;
	size_t i;
	int rfd, ms = -1;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0666), 0);
	rfd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(rfd >= 0);
	for (i = 0; i < NSTALL_TARGETS; i++)
		t2_env_add(&env, "%s=%s", STALL_TARGETS[i], fifo);
	t2_env_add(&env, "GIT_TRACE2_DST_TIMEOUT=%d", STALL_LIMIT_MS);
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	t2_capture(sc_into_stalled_fifo, NULL, t2_env_list(&env), 60, &p);
	close(rfd);
	printf("[hostile] four targets on a FIFO nobody reads, limit %d ms: %s; stderr: %s",
	       STALL_LIMIT_MS, p.out, p.err);
	fflush(stdout);
	assert_true(exited_0(p.status));
	assert_int_equal(sscanf(p.out, "held %d ms", &ms), 1);
	/* a write did wait for the reader, the limit... */
	assert_true(ms >= STALL_LIMIT_MS * 9 / 10);
	/* ...and only once, not once per target */
	assert_true(ms < STALL_LIMIT_MS * 5 / 2);
	/* each target went off, saying so once */
	assert_int_equal(count_substr(p.err, "warning: "), (int)NSTALL_TARGETS);
	for (i = 0; i < NSTALL_TARGETS; i++) {
		warning = t2_xfmt("warning: unable to write trace to '%s': %s\n", STALL_TARGETS[i],
				  strerror(EAGAIN));
		assert_int_equal(count_substr(p.err, warning), 1);
		free(warning);
	}
	t2_proc_free(&p);
	t2_env_free(&env);
	free(fifo);
}

struct drain {
	int fd, done;
	struct t2_lsplit split;
	struct t2_whole w;
};

/* Read fd until it is empty after done was set (poll with a timeout). */
static void *drain_main(void *arg)
{
	struct drain *d = arg;
	char *buf = malloc(MIB);
	double deadline = t2_now() + 120;

	while (t2_now() < deadline) {
		int done = __atomic_load_n(&d->done, __ATOMIC_ACQUIRE);
		struct pollfd pfd = { d->fd, POLLIN, 0 };
		ssize_t n;

		poll(&pfd, 1, 50);
		while ((n = read(d->fd, buf, MIB)) > 0)
			t2_lsplit_feed(&d->split, buf, (size_t)n, t2_whole_line, &d->w);
		if (done && n <= 0)
			break;
	}
	d->w.partial = t2_lsplit_end(&d->split) ? 1 : 0;
	free(buf);
	return NULL;
}

/*
 * fn(arg) in a child with the normal target into dest (env gets
 * GIT_TRACE2) and stdout to out_path, while a thread reads d->fd (the
 * other end of dest, non-blocking) into d; returns the child's wait
 * status.
 */
static int run_into_reader(t2_scenario_fn *fn, void *arg, struct t2_env *env,
			   const char *dest, const char *out_path, int timeout_ms,
			   struct drain *d)
{
	pthread_t th;
	int pid, status;

	t2_env_add(env, "GIT_TRACE2=%s", dest);
	pid = t2_spawn(fn, arg, t2_env_list(env), out_path, NULL);
	assert_int_equal(pthread_create(&th, NULL, drain_main, d), 0);
	status = t2_wait_timeout(pid, timeout_ms);
	__atomic_store_n(&d->done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	close(d->fd);
	return status;
}

/* run_into_reader() with a FIFO in the scratch directory. */
static int run_into_read_fifo(t2_scenario_fn *fn, void *arg, struct t2_env *env,
			      const char *out_path, int timeout_ms, struct drain *d)
{
	char *fifo = t2_path(t2_scratch_dir(), "fifo");
	int status;

	assert_int_equal(mkfifo(fifo, 0666), 0);
	d->fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(d->fd >= 0);
	status = run_into_reader(fn, arg, env, fifo, out_path, timeout_ms, d);
	free(fifo);
	return status;
}

/* A live reader: every record arrives, whole. */
static void fifo_with_reader(void **state)
{
	struct t2_env env = { 0 };
	struct drain d = { 0 };
	struct fifo_plan plan = { FIFO_RECORDS, 6 * FIFO_ALARM_S };
	int status;

	(void)state;
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	status = run_into_read_fifo(sc_fifo_writer, &plan, &env, NULL, 60 * 1000, &d);
	printf("[hostile] FIFO with a reader: %zu lines, %zu bad, partial %zu\n",
	       d.w.lines, d.w.bad, d.w.partial);
	fflush(stdout);
	assert_true(exited_0(status));
	assert_int_equal(d.w.bad, 0);
	assert_int_equal(d.w.partial, 0);
	/* version, the records, exit, atexit */
	assert_int_equal(d.w.kinds[T2_REC_NORMAL], FIFO_RECORDS + 3);
	t2_env_free(&env);
}

/*
 * A pseudo-terminal in raw mode: returns its non-blocking master and
 * sets *tty to the terminal, open (so it never hangs up) until the
 * caller closes it.
 */
static int open_raw_terminal(int *tty)
{
	struct termios raw;
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	*tty = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(*tty >= 0);
	assert_int_equal(tcgetattr(*tty, &raw), 0);
	cfmakeraw(&raw);
	assert_int_equal(tcsetattr(*tty, TCSANOW, &raw), 0);
	return master;
}

/*
 * A terminal with a live reader: the kernel cannot write to one without
 * waiting, so the stream polls for room before each write instead; every
 * record arrives, whole.
 */
static void terminal_with_reader(void **state)
{
	struct t2_env env = { 0 };
	struct drain d = { 0 };
	struct fifo_plan plan = { FIFO_RECORDS / 4, 6 * FIFO_ALARM_S };
	int status, tty;

	(void)state;
	d.fd = open_raw_terminal(&tty);
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	status = run_into_reader(sc_fifo_writer, &plan, &env, ptsname(d.fd), NULL,
				 60 * 1000, &d);
	close(tty);
	assert_true(exited_0(status));
	assert_int_equal(d.w.bad, 0);
	assert_int_equal(d.w.partial, 0);
	assert_int_equal(d.w.kinds[T2_REC_NORMAL], FIFO_RECORDS / 4 + 3);
	t2_env_free(&env);
}

/* ------------------------------------------------------------------ */
/* maxFiles in a directory of many files.                               */
/* ------------------------------------------------------------------ */

/* Far more entries than the limit: the count must stop at the limit
 * however many there are, which the readdir() calls show (their time
 * would only show it on a large directory and an idle machine). */
#define MANY_FILES 500
#define FEW_FILES_LIMIT 100

static void make_files(const char *dir, int n)
{
	char name[4200];
	int i, fd;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s/f%06d", dir, i);
		fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
}

/* The entries of dir ('.' and '..' included). */
static long count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	long n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static long readdir_calls;
static struct dirent *(*real_readdir)(DIR *d);

static struct dirent *counting_readdir(DIR *d)
{
	readdir_calls++;
	return real_readdir(d);
}

/* trace2_initialize() (EVENT into the directory) counting the library's
 * readdir() calls; prints them and the SID. */
static void sc_counted_init(void *arg)
{
	(void)arg;
	real_readdir = tr2_sys.readdir;
	tr2_sys.readdir = counting_readdir;
	trace2_initialize_clock();
	trace2_initialize();
	dprintf(1, "%ld %s\n", readdir_calls, trace2_session_id());
	exit(trace2_cmd_exit(0));
}

/* The library's readdir() calls in an initialize with max_files (or
 * none); its SID in sid. */
static long init_readdir_calls(const char *dir, const char *max_files, char *sid, size_t size)
{
	struct t2_env env = { 0 };
	struct t2_proc p;
	long calls;

	t2_env_add(&env, "GIT_TRACE2_EVENT=%s", dir);
	if (max_files)
		t2_env_add(&env, "GIT_TRACE2_MAX_FILES=%s", max_files);
	t2_capture(sc_counted_init, NULL, t2_env_list(&env), 60, &p);
	assert_true(exited_0(p.status));
	assert_int_equal(sscanf(p.out, "%ld", &calls), 1);
	snprintf(sid, size, "%s", strchr(p.out, ' ') ? strchr(p.out, ' ') + 1 : "");
	sid[strcspn(sid, "\n")] = '\0';
	t2_proc_free(&p);
	t2_env_free(&env);
	return calls;
}

static void max_files_counts_up_to_the_limit(void **state)
{
	const char *dir = t2_scratch_dir();
	char *sentinel = t2_path(dir, "git-trace2-discard");
	char sid[256], limit[32], *text, *own, *names;
	long entries, calls;

	(void)state;
	make_files(dir, MANY_FILES);
	/* no maxFiles: the directory is not read; an ordinary trace file */
	assert_int_equal(init_readdir_calls(dir, NULL, sid, sizeof(sid)), 0);
	own = t2_path(dir, strrchr(sid, '/') ? strrchr(sid, '/') + 1 : sid);
	text = t2_read_file(own, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"event\":\"version\""));
	free(text);
	/* a limit far above the count: every entry, then the end */
	entries = count_entries(dir);
	calls = init_readdir_calls(dir, "1000000", sid, sizeof(sid));
	assert_int_equal(calls, entries + 1);
	assert_int_equal(access(sentinel, F_OK), -1);
	/* the limit: the count stops there, the sentinel is made */
	snprintf(limit, sizeof(limit), "%d", FEW_FILES_LIMIT);
	calls = init_readdir_calls(dir, limit, sid, sizeof(sid));
	printf("[hostile] %ld entries: readdir() calls with maxFiles=%s: %ld\n",
	       count_entries(dir), limit, calls);
	assert_int_equal(calls, FEW_FILES_LIMIT);
	text = t2_read_file(sentinel, NULL);
	assert_non_null(text);
	names = t2_event_names(text);
	assert_string_equal(names, "version too_many_files exit atexit");
	free(names);
	free(text);
	free(own);
	free(sentinel);
}

/* ------------------------------------------------------------------ */
/* HOME and config files.                                               */
/* ------------------------------------------------------------------ */

static void exec_driver(void *arg)
{
	(void)arg;
	t2_exec_tool(RETURN0);
}

/*
 * Run fn (the driver, or an in-process scenario) with EVENT into
 * <dir>/trace/event (a fresh directory) and the extra environment; it
 * must exit 0 within the time limit, and
 * every file in <dir>/trace must hold whole lines.  Returns the elapsed
 * time; stderr in *err, stdout in *out unless out is NULL (caller frees).
 */
static double run_in(const char *dir, t2_scenario_fn *fn, const char *const *extra,
		     char **out, char **err)
{
	char *trace = t2_path(dir, "trace"), *event, *names;
	struct t2_env env = { 0 };
	struct t2_proc p;
	double t0 = t2_now();
	size_t i;

	t2_rmtree(trace);
	assert_int_equal(mkdir(trace, 0777), 0);
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s/event", trace);
	for (i = 0; extra && extra[i]; i++)
		t2_env_add(&env, "%s", extra[i]);
	t2_capture(fn, NULL, t2_env_list(&env), 120, &p);
	t0 = t2_now() - t0;
	event = read_in(trace, "event");
	names = t2_event_names(event);
	printf("[hostile]   status 0x%x, %.2f s, events: %s\n", p.status, t0, names);
	assert_true(exited_0(p.status));
	assert_non_null(strstr(event, "\"event\":\"atexit\""));
	assert_whole_dir(trace, "  trace");
	*err = p.err;
	if (out)
		*out = p.out;
	else
		free(p.out);
	free(event);
	free(names);
	free(trace);
	t2_env_free(&env);
	return t0;
}

static double driver_in(const char *dir, const char *const *extra, char **err)
{
	return run_in(dir, exec_driver, extra, NULL, err);
}

static void unwritable_or_odd_home(void **state)
{
	const char *dir = t2_scratch_dir();
	char *home = t2_path(dir, "home"), *file = t2_path(dir, "file");
	char ro_home[4200], file_home[4200];
	const char *const cases[][3] = {
		{ "HOME=/proc", NULL }, { "HOME", NULL }, { "HOME=", NULL },
		{ ro_home, NULL }, { file_home, NULL },
	};
	size_t i;

	(void)state;
	assert_int_equal(mkdir(home, 0500), 0);
	assert_int_equal(t2_write_file(file, "not a directory\n"), 0);
	snprintf(ro_home, sizeof(ro_home), "HOME=%s", home);
	snprintf(file_home, sizeof(file_home), "HOME=%s", file);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *err;

		printf("[hostile] %s%s\n", cases[i][0], i == 3 && !getuid() ?
		       " (mode 0500; root can still write there)" : "");
		driver_in(dir, cases[i], &err);
		assert_string_equal(err, "");
		free(err);
	}
	free(home);
	free(file);
}

static void config_file_is_a_directory(void **state)
{
	const char *dir = t2_scratch_dir();
	char *cfg = t2_path(dir, "cfgdir"), *home = t2_path(dir, "home");
	char *gitconfig = t2_path(home, ".gitconfig"), *xdg = t2_path(home, ".config/git/config");
	char global[4200], system[4200], home_var[4200];
	const char *const with_global[] = { global, NULL };
	const char *const with_system[] = { system, "GIT_CONFIG_NOSYSTEM", NULL };
	const char *const with_home[] = { home_var, NULL };
	const char *const *cases[] = { with_global, with_system, with_home };
	size_t i;

	(void)state;
	assert_int_equal(t2_mkdirs(cfg), 0);
	assert_int_equal(t2_mkdirs(gitconfig), 0);
	assert_int_equal(t2_mkdirs(xdg), 0);
	snprintf(global, sizeof(global), "GIT_CONFIG_GLOBAL=%s", cfg);
	snprintf(system, sizeof(system), "GIT_CONFIG_SYSTEM=%s", cfg);
	snprintf(home_var, sizeof(home_var), "HOME=%s", home);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *err;

		printf("[hostile] config file that is a directory: %s\n", cases[i][0]);
		driver_in(dir, cases[i], &err);
		printf("[hostile]   stderr: %s\n", *err ? err : "(empty)");
		free(err);
	}
	free(cfg);
	free(home);
	free(gitconfig);
	free(xdg);
}

/*
 * The global config file as a FIFO (Git blocks on it forever).  The
 * library waits for its end at most the destination limit
 * (GIT_TRACE2_DST_TIMEOUT, 200 ms here), then skips it with one warning.
 */
#define FIFO_LIMIT_MS 200
/* Generous: the wait is 200 ms; a hang is killed after FIFO_KILL_S. */
#define FIFO_BOUND_S 5.0
#define FIFO_KILL_S 15

struct fifo_writer {
	const char *path;
	const char *text;	/* written once the reader is there */
	int trickle;		/* then a comment byte each 20 ms, forever */
	int stall;		/* or: then hold it open, writing nothing */
};

static void sc_config_fifo_writer(void *arg)
{
	const struct fifo_writer *w = arg;
	int fd = open(w->path, O_WRONLY); /* waits for the reader */

	if (fd < 0 || write(fd, w->text, strlen(w->text)) < 0)
		_exit(1);
	while (w->trickle && write(fd, "#", 1) == 1)
		usleep(20 * 1000);
	while (w->stall)
		pause();
	close(fd);
}

struct fifo_run {
	char *err;		/* the driver's stderr */
	char *sys_normal;	/* what the system file's normal target got */
	char *fifo_perf;	/* what the FIFO's perf target got */
	double seconds;
};

/*
 * The driver with <dir>/fifo as its global config file (written by w,
 * or by nobody) and a regular system file naming <dir>/sys.normal as the
 * normal target; the FIFO's own content names <dir>/fifo.perf.
 */
static void run_with_fifo_config(const char *dir, struct fifo_writer *w, int limit_ms,
				 struct fifo_run *r)
{
	char *fifo = t2_path(dir, "fifo"), *sys = t2_path(dir, "system");
	char *normal = t2_path(dir, "sys.normal"), *perf = t2_path(dir, "fifo.perf");
	char text[4200], content[4200];
	struct t2_env env = { 0 };
	struct t2_proc p;
	int writer = -1;

	unlink(normal);
	unlink(perf);
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(text, sizeof(text), "[trace2]\n\tnormalTarget = %s\n", normal);
	assert_int_equal(t2_write_file(sys, text), 0);
	snprintf(content, sizeof(content), "[trace2]\n\tperfTarget = %s\n%s", perf,
		 w && (w->stall || w->trickle) ? "[trace2]\n\tperfBrief = tr" : "");
	if (w) {
		w->path = fifo;
		w->text = content;
		writer = t2_spawn(sc_config_fifo_writer, w, NULL, NULL, NULL);
		assert_true(writer > 0);
	}
	t2_env_add(&env, "GIT_CONFIG_GLOBAL=%s", fifo);
	t2_env_add(&env, "GIT_CONFIG_SYSTEM=%s", sys);
	t2_env_add(&env, "GIT_CONFIG_NOSYSTEM");
	t2_env_add(&env, "GIT_TRACE2_DST_TIMEOUT=%d", limit_ms);
	r->seconds = t2_now();
	t2_capture(exec_driver, NULL, t2_env_list(&env), FIFO_KILL_S, &p);
	r->seconds = t2_now() - r->seconds;
	if (writer > 0) {
		kill(writer, SIGKILL);
		t2_wait_timeout(writer, 10 * 1000);
	}
	printf("[hostile]   status 0x%x, %.2f s, stderr: %s\n", p.status, r->seconds,
	       *p.err ? p.err : "(empty)\n");
	assert_true(exited_0(p.status));
	r->err = p.err;
	free(p.out);
	r->sys_normal = t2_read_file(normal, NULL);
	r->fifo_perf = t2_read_file(perf, NULL);
	t2_env_free(&env);
	free(fifo);
	free(sys);
	free(normal);
	free(perf);
}

static void fifo_run_free(struct fifo_run *r)
{
	free(r->err);
	free(r->sys_normal);
	free(r->fifo_perf);
}

/* With writer w (NULL: none), the FIFO must be skipped whole with one
 * warning, the other settings kept, the host held about one limit. */
static void expect_fifo_skipped(const char *what, struct fifo_writer *w)
{
	const char *dir = t2_scratch_dir();
	char *fifo = t2_path(dir, "fifo"), want[4400];
	struct fifo_run r;

	printf("[hostile] global config file a FIFO %s\n", what);
	run_with_fifo_config(dir, w, FIFO_LIMIT_MS, &r);
	snprintf(want, sizeof(want), "warning: config file '%s' is a pipe that did not "
		 "reach its end within %d ms: skipped\n", fifo, FIFO_LIMIT_MS);
	assert_string_equal(r.err, want);
	assert_true(r.seconds < FIFO_BOUND_S);
	assert_true(r.seconds >= FIFO_LIMIT_MS / 1000.0);
	assert_non_null(r.sys_normal);
	assert_non_null(strstr(r.sys_normal, "version "));
	assert_null(r.fifo_perf);
	fifo_run_free(&r);
	free(fifo);
}

static void config_file_is_a_fifo(void **state)
{
	(void)state;
	expect_fifo_skipped("nobody writes", NULL);
}

/* A writer that sends its config and closes: read and applied, at once
 * (the limit is the default 5 s, so a slow writer still makes it). */
static void config_fifo_writer_sends_config(void **state)
{
	const char *dir = t2_scratch_dir();
	struct fifo_writer w = { 0 };
	struct fifo_run r;

	(void)state;
	printf("[hostile] global config file a FIFO whose writer sends it\n");
	run_with_fifo_config(dir, &w, 5000, &r);
	assert_string_equal(r.err, "");
	assert_non_null(r.sys_normal);
	assert_non_null(strstr(r.sys_normal, "version "));
	assert_non_null(r.fifo_perf);
	assert_non_null(strstr(r.fifo_perf, "| version      |"));
	assert_true(r.seconds < FIFO_BOUND_S);
	fifo_run_free(&r);
}

/* A writer that sends a part, then nothing while keeping it open. */
static void config_fifo_writer_stalls(void **state)
{
	struct fifo_writer w = { .stall = 1 };

	(void)state;
	expect_fifo_skipped("whose writer stalls", &w);
}

/* A writer that never ends, a byte at a time: bounded by the same
 * total limit, not a limit per read. */
static void config_fifo_writer_trickles(void **state)
{
	struct fifo_writer w = { .trickle = 1 };

	(void)state;
	expect_fifo_skipped("whose writer trickles forever", &w);
}

/* Big enough for thousands of reads and a value that outgrows any
 * buffer on the stack; what is counted does not depend on the size. */
#define BIG_CONFIG (4u * MIB)

/* Deterministic random bytes (xorshift). */
static void fill_random(char *buf, size_t n, size_t offset)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ offset;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (char)(x >> 24);
	}
}

/* "[big]\n\tvalue = aaaa..." (one BIG_CONFIG line) */
static void fill_one_line(char *buf, size_t n, size_t offset)
{
	static const char head[] = "[big]\n\tvalue = ";
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = offset + i < sizeof(head) - 1 ? head[offset + i] : 'a';
}

/* ~100,000 small valid entries. */
static const char ENTRY_UNIT[] = "[sect \"sub\"]\n\tkey = value ; comment\n# c\n";
#define ENTRY_UNIT_LEN (sizeof(ENTRY_UNIT) - 1)

static void fill_entries(char *buf, size_t n, size_t offset)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = ENTRY_UNIT[(offset + i) % ENTRY_UNIT_LEN];
}

/* The entries file, ending with a trace2 setting that must take effect. */
static void big_config_then_setting(const char *path, const char *target)
{
	FILE *f;

	write_big_file(path, BIG_CONFIG - BIG_CONFIG % ENTRY_UNIT_LEN, fill_entries);
	f = fopen(path, "ab");
	assert_non_null(f);
	fprintf(f, "[trace2]\n\tperfTarget = %s\n", target);
	assert_int_equal(fclose(f), 0);
}

/* The driver exits 128 on a malformed config file, as Git does. */
static void report_driver_verdict(const char *cfg)
{
	char global[4200];
	const char *const env[] = { global, NULL };
	struct t2_proc p;

	snprintf(global, sizeof(global), "GIT_CONFIG_GLOBAL=%s", cfg);
	t2_tool(env, &p, "trace2", "001return", "0", NULL);
	printf("[hostile]   the driver (Git's behaviour): exit %d, stderr %.200s\n",
	       WIFEXITED(p.status) ? WEXITSTATUS(p.status) : -1, p.err);
	t2_proc_free(&p);
}

/* What an in-process host's initialize did with its global config file. */
struct config_calls {
	long reads;	/* read() calls on the file */
	long bytes;	/* the bytes they returned */
	long allocs;	/* malloc(), calloc() and realloc() calls (any) */
};

static struct config_calls calls;
static const char *config_path;
static int config_fd = -1;
static struct tr2_sys real_sys;

static int counting_open(const char *path, int flags, mode_t mode)
{
	int fd = real_sys.open(path, flags, mode);

	if (fd >= 0 && !strcmp(path, config_path))
		config_fd = fd;
	return fd;
}

static ssize_t counting_read(int fd, void *buf, size_t n)
{
	ssize_t got = real_sys.read(fd, buf, n);

	if (fd == config_fd) {
		calls.reads++;
		calls.bytes += got > 0 ? got : 0;
	}
	return got;
}

static void *counting_malloc(size_t n)
{
	calls.allocs++;
	return real_sys.malloc(n);
}

static void *counting_calloc(size_t n, size_t size)
{
	calls.allocs++;
	return real_sys.calloc(n, size);
}

static void *counting_realloc(void *p, size_t n)
{
	calls.allocs++;
	return real_sys.realloc(p, n);
}

/* sc_hello, printing "<reads> <bytes> <allocs>" of its initialize. */
static void sc_counted_config(void *arg)
{
	(void)arg;
	config_path = getenv("GIT_CONFIG_GLOBAL");
	real_sys = tr2_sys;
	tr2_sys.open = counting_open;
	tr2_sys.read = counting_read;
	tr2_sys.malloc = counting_malloc;
	tr2_sys.calloc = counting_calloc;
	tr2_sys.realloc = counting_realloc;
	init_trace();
	tr2_sys = real_sys;
	printf("%ld %ld %ld\n", calls.reads, calls.bytes, calls.allocs);
	fflush(stdout);
	trace2_printf("hello");
	exit(trace2_cmd_exit(0));
}

/* Run sc_counted_config with GIT_CONFIG_GLOBAL=cfg; its counts. */
static struct config_calls counted_config_run(const char *dir, const char *cfg, char **err)
{
	char global[4200], *out;
	const char *const extra[] = { global, NULL };
	struct config_calls c;

	snprintf(global, sizeof(global), "GIT_CONFIG_GLOBAL=%s", cfg);
	run_in(dir, sc_counted_config, extra, &out, err);
	assert_int_equal(sscanf(out, "%ld %ld %ld", &c.reads, &c.bytes, &c.allocs), 3);
	printf("[hostile]   in-process host: %ld reads, %ld bytes, %ld allocations; "
	       "stderr: %.300s\n", c.reads, c.bytes, c.allocs, **err ? *err : "(empty)");
	free(out);
	return c;
}

/* log2(n), rounded up. */
static long log2_up(size_t n)
{
	long k = 0;

	while (((size_t)1 << k) < n)
		k++;
	return k;
}

/*
 * The library's default is to report a bad file and carry on
 * (docs/api.md, trace2_set_fatal_exit_code()): an in-process host must
 * keep running and tracing.  How it reads a big file is counted: it
 * stops at the first bad line, reads the rest in chunks (not a call per
 * line or byte), and grows a huge value's buffer geometrically; nothing
 * is allocated per entry.
 */
static void garbage_and_big_global_config(void **state)
{
	const char *dir = t2_scratch_dir();
	char *cfg = t2_path(dir, "gitconfig");
	char *perf = t2_path(dir, "trace/perf");
	struct config_calls base, c;
	char *err;

	(void)state;
	printf("[hostile] an empty global config\n");
	assert_int_equal(t2_write_file(cfg, ""), 0);
	base = counted_config_run(dir, cfg, &err);
	free(err);

	printf("[hostile] %u MiB of random bytes as global config\n", BIG_CONFIG / MIB);
	write_big_file(cfg, BIG_CONFIG, fill_random);
	c = counted_config_run(dir, cfg, &err);
	report_driver_verdict(cfg);
	assert_non_null(strstr(err, "bad config line 1 in file"));
	free(err);
	assert_true(c.bytes < BIG_CONFIG / 100);

	printf("[hostile] one %u MiB value\n", BIG_CONFIG / MIB);
	write_big_file(cfg, BIG_CONFIG, fill_one_line);
	c = counted_config_run(dir, cfg, &err);
	report_driver_verdict(cfg);
	assert_string_equal(err, "");
	free(err);
	assert_int_equal(c.bytes, BIG_CONFIG);
	assert_true(c.reads <= BIG_CONFIG / 1024 + 1);
	assert_true(c.allocs <= base.allocs + log2_up(BIG_CONFIG));

	printf("[hostile] %u MiB of entries, then trace2.perfTarget\n", BIG_CONFIG / MIB);
	big_config_then_setting(cfg, perf);
	c = counted_config_run(dir, cfg, &err);
	assert_string_equal(err, "");
	free(err);
	assert_true(c.reads <= BIG_CONFIG / 1024 + 2);
	/* the target's own copy of the setting, its destination */
	assert_true(c.allocs <= base.allocs + 4);
	/* the setting after all those entries was honoured */
	assert_true(access(perf, F_OK) == 0);
	free(cfg);
	free(perf);
}

/* ------------------------------------------------------------------ */
/* 10,000 nested regions.                                               */
/* ------------------------------------------------------------------ */

#define DEEP 10000

static void sc_deep(void *arg)
{
	int i;

	(void)arg;
	init_trace();
	for (i = 0; i < DEEP; i++)
		trace2_region_enter("deep", "d", NULL);
	trace2_printf("at the bottom");
	for (i = 0; i < DEEP; i++)
		trace2_region_leave("deep", "d", NULL);
	exit(trace2_cmd_exit(0));
}

/* Walk the regions of one file: nesting / dots go down and up by one. */
struct depth {
	int depth, enters, leaves, wrong, max;
};

static void depth_line(void *ctx, const char *line, size_t len)
{
	struct depth *d = ctx;
	struct t2_rec r;
	int nesting;

	t2_rec_parse(line, len, &r);
	nesting = r.kind == T2_REC_PERF ? r.dots / 2 + 1 : r.nesting;
	if (t2_slice_eq(r.event, "region_enter")) {
		d->enters++;
		d->wrong += nesting != d->depth || (r.kind == T2_REC_PERF && r.dots % 2);
		d->depth++;
	} else if (t2_slice_eq(r.event, "region_leave")) {
		d->leaves++;
		d->depth--;
		d->wrong += nesting != d->depth;
	}
	if (d->depth > d->max)
		d->max = d->depth;
	t2_rec_free(&r);
}

static void deep_nesting(void **state)
{
	const char *dir = t2_scratch_dir();
	struct t2_env env = { 0 };
	struct t2_proc p;
	double t0 = t2_now(), t_run;
	int i;

	(void)state;
	env_files(&env, dir);
	t2_env_add(&env, "GIT_TRACE2_EVENT_NESTING=%d", DEEP + 10);
	t2_capture(sc_deep, NULL, t2_env_list(&env), 300, &p);
	t_run = t2_now() - t0;
	assert_true(exited_0(p.status));
	assert_whole_dir(dir, "10,000 nested regions");
	for (i = 1; i < 3; i++) {
		char *path = t2_path(dir, FILE_NAMES[i]);
		struct depth d = { 1, 0, 0, 0, 1 };
		struct stat st;

		t2_foreach_line(path, depth_line, &d);
		stat(path, &st);
		printf("[hostile]   %s: %d enters, %d leaves, deepest %d, wrong nesting %d, "
		       "%lld bytes; run %.2f s\n", FILE_NAMES[i], d.enters, d.leaves, d.max,
		       d.wrong, (long long)st.st_size, t_run);
		assert_int_equal(d.enters, DEEP);
		assert_int_equal(d.leaves, DEEP);
		assert_int_equal(d.wrong, 0);
		assert_int_equal(d.depth, 1);
		free(path);
	}
	t2_proc_free(&p);
	t2_env_free(&env);
}

/* ------------------------------------------------------------------ */
/* 1 MiB labels, messages and values.                                   */
/* ------------------------------------------------------------------ */

#define HUGE_THREADS 4

/* 1 MiB of text with JSON-escaped and multi-byte characters in it; the
 * last byte names the variant so that records can be told apart. */
static char *huge_text(char tag)
{
	static const char unit[] = "abc \"q\" \\ \t\xc3\xa9\xe2\x82\xac 0123456789 ";
	char *s = malloc(MIB + 1);
	size_t i;

	for (i = 0; i < MIB; i++)
		s[i] = unit[i % (sizeof(unit) - 1)];
	/* never cut a multi-byte character: end on ASCII */
	memset(s + MIB - 8, 'z', 7);
	s[MIB - 1] = tag;
	s[MIB] = '\0';
	return s;
}

static void huge_records(char tag)
{
	char *label = huge_text(tag), *msg = huge_text(tag), *value = huge_text(tag);

	trace2_region_enter("huge", label, NULL);
	trace2_printf("%s", msg);
	trace2_data_string("huge", NULL, "key", value);
	trace2_region_leave("huge", label, NULL);
	free(label);
	free(msg);
	free(value);
}

static void *huge_thread(void *arg)
{
	trace2_thread_start("huge");
	huge_records(*(const char *)arg);
	trace2_thread_exit();
	return NULL;
}

/* arg: number of threads (0: the main thread alone). */
static void sc_huge(void *arg)
{
	static const char tags[HUGE_THREADS + 1] = "ABCD";
	int n = *(const int *)arg, i;
	pthread_t th[HUGE_THREADS];

	init_trace();
	if (!n)
		huge_records('M');
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, huge_thread, (void *)&tags[i]);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	exit(trace2_cmd_exit(0));
}

/* EVENT records carrying the full 1 MiB text (label, msg or value). */
struct huge_seen {
	char *want[HUGE_THREADS + 2];	/* by tag */
	int full, bad;
};

static void huge_line(void *ctx, const char *line, size_t len)
{
	struct huge_seen *h = ctx;
	struct t2_rec r;
	static const char *const keys[] = { "label", "msg", "value" };
	size_t k;

	if (t2_rec_parse(line, len, &r) == T2_REC_EVENT) {
		for (k = 0; k < 3; k++) {
			struct t2_slice s = t2_rec_str(&r, keys[k]);
			const char *tags = "ABCDM";
			const char *at;

			if (!s.p || s.len < MIB / 2)
				continue;
			at = s.len == MIB ? strchr(tags, s.p[MIB - 1]) : NULL;
			if (at && !memcmp(s.p, h->want[at - tags], MIB))
				h->full++;
			else
				h->bad++;
		}
	}
	t2_rec_free(&r);
}

static void check_huge_event(const char *path, int threads)
{
	struct huge_seen h = { { 0 }, 0, 0 };
	const char *tags = "ABCDM";
	int i, records = threads ? threads : 1;

	for (i = 0; i < HUGE_THREADS + 1; i++)
		h.want[i] = huge_text(tags[i]);
	t2_foreach_line(path, huge_line, &h);
	printf("[hostile]   EVENT: %d records with an intact 1 MiB text, %d damaged\n",
	       h.full, h.bad);
	fflush(stdout);
	/* enter label, printf msg, data value, leave label */
	assert_int_equal(h.full, 4 * records);
	assert_int_equal(h.bad, 0);
	for (i = 0; i < HUGE_THREADS + 1; i++)
		free(h.want[i]);
}

static void huge_in_files(const char *buffer)
{
	const char *dir = t2_scratch_dir();
	char *event;
	struct t2_env env = { 0 };
	struct t2_proc p;
	struct t2_whole w;
	int threads = 0;

	env_files(&env, dir);
	if (buffer)
		t2_env_add(&env, "GIT_TRACE2_BUFFER=%s", buffer);
	t2_capture(sc_huge, &threads, t2_env_list(&env), 120, &p);
	assert_true(exited_0(p.status));
	w = assert_whole_dir(dir, buffer ? "1 MiB texts, files, buffered 64k" :
			     "1 MiB texts, files");
	/* NORMAL: version, printf, exit, atexit */
	assert_int_equal(w.kinds[T2_REC_NORMAL], 4);
	event = t2_path(dir, "event");
	check_huge_event(event, 0);
	free(event);
	t2_proc_free(&p);
	t2_env_free(&env);
}

static void huge_texts_in_files(void **state)
{
	(void)state;
	huge_in_files(NULL);
	huge_in_files("64k");
}

/* A connection on lfd within ms milliseconds (-1 if none); reads from it
 * time out after ms too. */
static int accept_within(int lfd, int ms)
{
	struct pollfd pfd = { lfd, POLLIN, 0 };
	struct timeval tv = { ms / 1000, 0 };
	int fd;

	if (poll(&pfd, 1, ms) != 1 || (fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Copy everything fd delivers (until EOF or a read timeout) to path. */
static void save_stream(int fd, const char *path)
{
	char *buf = malloc(MIB);
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	assert_true(out >= 0);
	while ((n = read(fd, buf, MIB)) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(out);
	free(buf);
}

/* 4 threads writing 1 MiB records into one AF_UNIX stream socket. */
static void huge_texts_threads_stream_socket(void **state)
{
	const char *dir = t2_scratch_dir();
	char *sock = t2_path(dir, "sock"), *trace = t2_path(dir, "trace");
	char *event = t2_path(trace, "event");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct t2_env env = { 0 };
	int threads = HUGE_THREADS, lfd, cfd, pid, status;

	(void)state;
	assert_int_equal(mkdir(trace, 0777), 0);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	t2_env_add(&env, "GIT_TRACE2_EVENT=af_unix:stream:%s", sock);
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	pid = t2_spawn(sc_huge, &threads, t2_env_list(&env), NULL, NULL);
	cfd = accept_within(lfd, 60 * 1000);
	assert_true(cfd >= 0);
	save_stream(cfd, event);
	status = t2_wait_timeout(pid, 120 * 1000);
	close(cfd);
	close(lfd);
	assert_true(exited_0(status));
	assert_whole_dir(trace, "1 MiB texts from 4 threads, one stream socket");
	check_huge_event(event, HUGE_THREADS);
	t2_env_free(&env);
	free(sock);
	free(trace);
	free(event);
}

/* ------------------------------------------------------------------ */
/* A thread that ends without trace2_thread_exit().                      */
/* ------------------------------------------------------------------ */

static void *quitter(void *arg)
{
	(void)arg;
	trace2_thread_start("quitter");
	trace2_region_enter("q", "open forever", NULL);
	trace2_data_string("q", NULL, "k", "quitter data");
	trace2_printf("quitter printf");
	return NULL;	/* no region_leave, no thread_exit */
}

static void sc_quitter(void *arg)
{
	pthread_t th;

	(void)arg;
	init_trace();
	pthread_create(&th, NULL, quitter, NULL);
	pthread_join(th, NULL);
	trace2_region_enter("main", "after", NULL);
	trace2_printf("main after quitter");
	trace2_region_leave("main", "after", NULL);
	exit(trace2_cmd_exit(0));
}

/* The event names of the EVENT lines of one thread, space-separated. */
static char *thread_events(const char *text, const char *thread)
{
	char **lines = t2_lines(text, NULL), *out = strdup("");
	size_t i;

	for (i = 0; lines[i]; i++) {
		struct t2_rec r;

		if (t2_rec_parse(lines[i], strlen(lines[i]), &r) == T2_REC_EVENT &&
		    t2_slice_eq(r.thread, thread))
			t2_append(&out, "%s%.*s", *out ? " " : "", (int)r.event.len, r.event.p);
		t2_rec_free(&r);
	}
	t2_strv_free(lines);
	return out;
}

static void quitter_run(const char *buffer)
{
	const char *dir = t2_scratch_dir();
	char *event, *normal, *names;
	struct t2_env env = { 0 };
	struct t2_proc p;

	env_files(&env, dir);
	if (buffer)
		t2_env_add(&env, "GIT_TRACE2_BUFFER=%s", buffer);
	t2_capture(sc_quitter, NULL, t2_env_list(&env), 30, &p);
	assert_true(exited_0(p.status));
	assert_string_equal(p.err, "");
	assert_whole_dir(dir, buffer ? "thread without thread_exit (buffered)" :
			 "thread without thread_exit");
	event = read_in(dir, "event");
	normal = read_in(dir, "normal");
	names = t2_event_names(event);
	printf("[hostile]   EVENT: %s\n", names);
	free(names);
	/* per thread in order (buffered mode does not keep the order between
	 * threads: docs/configuration.md "Buffered mode") */
	names = thread_events(event, "main");
	assert_string_equal(names, "version region_enter printf region_leave exit atexit");
	free(names);
	names = thread_events(event, "th01:quitter");
	assert_string_equal(names, "thread_start region_enter data printf");
	free(names);
	assert_non_null(strstr(normal, "quitter printf"));
	assert_non_null(strstr(normal, "main after quitter"));
	free(event);
	free(normal);
	t2_proc_free(&p);
	t2_env_free(&env);
}

static void thread_without_thread_exit(void **state)
{
	(void)state;
	t2_leak_check_children(1);	/* the thread's state must be freed */
	quitter_run(NULL);
	quitter_run("64k");
	t2_leak_check_children(0);
}

/* ------------------------------------------------------------------ */
/* A thread cancelled while it traces.                                   */
/* ------------------------------------------------------------------ */

#define CANCEL_RECORDS 1000

static pthread_barrier_t cancel_requested;

/* Starts with its cancellation already requested, so the first
 * cancellation point it meets ends it: no trace2 call may be one. */
static void *cancelled_main(void *arg)
{
	int i;

	(void)arg;
	pthread_barrier_wait(&cancel_requested);
	for (i = 0; i < CANCEL_RECORDS; i++)
		trace2_printf("cancelled thread record %d", i);
	pthread_testcancel();
	return NULL;
}

static void sc_cancelled_thread(void *arg)
{
	pthread_t th;
	void *ret = NULL;

	(void)arg;
	init_trace();
	pthread_barrier_init(&cancel_requested, NULL, 2);
	if (pthread_create(&th, NULL, cancelled_main, NULL))
		exit(2);
	pthread_cancel(th);
	pthread_barrier_wait(&cancel_requested);
	pthread_join(th, &ret);
	trace2_printf("main after the cancelled thread");
	dprintf(1, "%s\n", ret == PTHREAD_CANCELED ? "cancelled" : "not cancelled");
	exit(trace2_cmd_exit(0));
}

/* The three targets as files, plain or buffered. */
static void cancelled_thread_files(const char *buffer)
{
	const char *dir = t2_scratch_dir();
	struct t2_env env = { 0 };
	struct t2_proc p;
	char *normal;

	env_files(&env, dir);
	if (buffer)
		t2_env_add(&env, "GIT_TRACE2_BUFFER=%s", buffer);
	t2_capture(sc_cancelled_thread, NULL, t2_env_list(&env), 30, &p);
	normal = read_in(dir, "normal");
	printf("[hostile] thread cancelled while tracing to files%s: %s, "
	       "%d of its %d records written, stdout: %s", buffer ? " (buffered)" : "",
	       exited_0(p.status) ? "returned" : "KILLED (blocked)",
	       count_substr(normal, "cancelled thread record"), CANCEL_RECORDS, p.out);
	fflush(stdout);
	assert_true(exited_0(p.status));
	assert_string_equal(p.out, "cancelled\n");
	assert_whole_dir(dir, "  files");
	assert_int_equal(count_substr(normal, "cancelled thread record"), CANCEL_RECORDS);
	assert_non_null(strstr(normal, "main after the cancelled thread"));
	free(normal);
	t2_proc_free(&p);
	t2_env_free(&env);
}

/* The normal target into a FIFO: writes to a pipe hold a lock. */
static void cancelled_thread_fifo(void)
{
	char *out = t2_path(t2_scratch_dir(), "out"), *text;
	struct t2_env env = { 0 };
	struct drain d = { 0 };
	int status;

	status = run_into_read_fifo(sc_cancelled_thread, NULL, &env, out, 30 * 1000, &d);
	text = t2_read_file(out, NULL);
	printf("[hostile] thread cancelled while tracing to a FIFO: %s, %zu lines, "
	       "%zu bad, partial %zu, stdout: %s", exited_0(status) ? "returned" :
	       "KILLED (blocked)", d.w.lines, d.w.bad, d.w.partial, text);
	fflush(stdout);
	assert_true(exited_0(status));
	assert_string_equal(text, "cancelled\n");
	assert_int_equal(d.w.bad, 0);
	assert_int_equal(d.w.partial, 0);
	/* version, the records, main's, exit, atexit */
	assert_int_equal(d.w.kinds[T2_REC_NORMAL], CANCEL_RECORDS + 4);
	free(text);
	t2_env_free(&env);
	free(out);
}

static void cancelled_thread(void **state)
{
	(void)state;
	cancelled_thread_files(NULL);
	cancelled_thread_files("4k");
	cancelled_thread_fifo();
}

/* ------------------------------------------------------------------ */
/* A host that unloads the shared library.                               */
/* ------------------------------------------------------------------ */

struct shared_lib {
	void (*initialize_fl)(const char *file, int line);
	void (*printf_fl)(const char *file, int line, const char *fmt, ...);
};

static pthread_barrier_t unload_step;

static void *traced_across_unload(void *arg)
{
	const struct shared_lib *lib = arg;

	lib->printf_fl(__FILE__, __LINE__, "worker before dlclose");
	pthread_barrier_wait(&unload_step);	/* main unloads the library */
	pthread_barrier_wait(&unload_step);
	return NULL;	/* the library's thread-end handler runs now */
}

/* dlopen() the library, trace on a thread, dlclose(), end the thread. */
static void sc_dlclose(void *arg)
{
	void *h = dlopen(arg, RTLD_NOW | RTLD_LOCAL);
	struct shared_lib lib;
	pthread_t th;

	if (!h) {
		dprintf(1, "dlopen: %s\n", dlerror());
		exit(2);
	}
	lib.initialize_fl = (void (*)(const char *, int))dlsym(h, "trace2_initialize_fl");
	lib.printf_fl = (void (*)(const char *, int, const char *, ...))
		dlsym(h, "trace2_printf_fl");
	if (!lib.initialize_fl || !lib.printf_fl)
		exit(3);
	lib.initialize_fl(__FILE__, __LINE__);
	pthread_barrier_init(&unload_step, NULL, 2);
	if (pthread_create(&th, NULL, traced_across_unload, &lib))
		exit(4);
	pthread_barrier_wait(&unload_step);
	dprintf(1, "dlclose %d\n", dlclose(h));
	pthread_barrier_wait(&unload_step);
	pthread_join(th, NULL);
	dprintf(1, "joined\n");
	exit(0);
}

/* The library stays loaded (-z nodelete): its thread-end and atexit
 * handlers must not run in unmapped code or before the process ends. */
static void dlclose_shared_library(void **state)
{
	const char *dir = t2_scratch_dir();
	char *so = t2_path(t2_bin_dir(), "../libtrace2.so"), *normal;
	struct t2_env env = { 0 };
	struct t2_proc p;

	(void)state;
	t2_env_add(&env, "GIT_TRACE2=%s/normal", dir);
	t2_capture(sc_dlclose, so, t2_env_list(&env), 30, &p);
	normal = read_in(dir, "normal");
	printf("[hostile] dlclose() of libtrace2.so with a traced thread: status 0x%x, "
	       "stdout: %s", (unsigned)p.status, p.out);
	fflush(stdout);
	assert_true(exited_0(p.status));
	assert_string_equal(p.out, "dlclose 0\njoined\n");
	/* version, the worker's record, and atexit when the process ends */
	assert_int_equal(assert_whole_dir(dir, "  trace").kinds[T2_REC_NORMAL], 3);
	assert_non_null(strstr(normal, " version "));
	assert_non_null(strstr(normal, "worker before dlclose\n"));
	assert_non_null(strstr(normal, " atexit elapsed:"));
	free(normal);
	free(so);
	t2_proc_free(&p);
	t2_env_free(&env);
}

/* ------------------------------------------------------------------ */
/* An atexit handler registered before initialize.                      */
/* ------------------------------------------------------------------ */

static const char *early_sid_file;

static void early_handler(void)
{
	char line[600];
	int fd;

	trace2_printf("from the early atexit handler");
	trace2_region_enter("early", "late", NULL);
	trace2_data_string("early", NULL, "k", "from the early atexit handler");
	trace2_region_leave("early", "late", NULL);
	fd = open(early_sid_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(line, sizeof(line), "%s\n", trace2_session_id());
	if (fd >= 0 && write(fd, line, strlen(line)) < 0)
		_exit(3);
	close(fd);
}

static void sc_early_atexit(void *arg)
{
	early_sid_file = arg;
	trace2_initialize_clock();
	atexit(early_handler);
	trace2_initialize();
	dprintf(1, "%s\n", trace2_session_id());
	trace2_printf("main");
	exit(trace2_cmd_exit(0));
}

static void atexit_before_initialize(void **state)
{
	const char *dir = t2_scratch_dir();
	char *trace = t2_path(dir, "trace");
	char *sid_file = t2_path(dir, "late-sid"), *late;
	struct t2_env env = { 0 };
	struct t2_proc p;
	char want[300];

	(void)state;
	assert_int_equal(mkdir(trace, 0777), 0);
	env_files(&env, trace);
	t2_leak_check_children(1);	/* everything released at exit */
	t2_capture(sc_early_atexit, sid_file, t2_env_list(&env), 30, &p);
	t2_leak_check_children(0);
	assert_true(exited_0(p.status));
	assert_whole_dir(trace, "atexit handler registered before initialize");
	/* its records were dropped */
	assert_false(t2_tree_contains(trace, "early", NULL));
	/* the SID was released: asking again makes a new one, a child of the
	 * old (docs/configuration.md, "Parent SID and name") */
	late = read_in(dir, "late-sid");
	snprintf(want, sizeof(want), "%.*s/", (int)strcspn(p.out, "\n"), p.out);
	printf("[hostile]   SID in main %.*s, SID asked for in the late handler %s",
	       (int)strcspn(p.out, "\n"), p.out, late);
	assert_int_equal(strncmp(late, want, strlen(want)), 0);
	free(late);
	t2_proc_free(&p);
	t2_env_free(&env);
	free(trace);
	free(sid_file);
}

/* ------------------------------------------------------------------ */
/* A signal handler that traces while the main thread traces.           */
/* ------------------------------------------------------------------ */

#define SIGNALS 2000

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	trace2_printf("signal record %d", (int)handled);
	handled++;
}

static void *signaller(void *arg)
{
	pthread_t main_thread = *(const pthread_t *)arg;
	const struct timespec gap = { 0, 50 * 1000 };
	int i;

	for (i = 0; i < SIGNALS; i++) {
		pthread_kill(main_thread, SIGUSR1);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

static void sc_signals(void *arg)
{
	struct sigaction sa;
	pthread_t self = pthread_self(), th;
	int done = 0, k = 0;

	(void)arg;
	alarm(30);
	init_trace();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_create(&th, NULL, signaller, &self);
	while (!done) {
		trace2_region_enter("main", "loop", NULL);
		trace2_data_intmax("main", NULL, "k", k++);
		trace2_printf("main record %d", k);
		trace2_region_leave("main", "loop", NULL);
		done = pthread_tryjoin_np(th, NULL) == 0;
	}
	dprintf(1, "%d %d\n", (int)handled, k);
	exit(trace2_cmd_exit(0));
}

static void signal_handler_traces_run(const char *buffer)
{
	const char *dir = t2_scratch_dir();
	struct t2_env env = { 0 };
	struct t2_proc p;
	int got = -1, loops = -1, i;

	env_files(&env, dir);
	if (buffer)
		t2_env_add(&env, "GIT_TRACE2_BUFFER=%s", buffer);
	t2_capture(sc_signals, NULL, t2_env_list(&env), 60, &p);
	sscanf(p.out, "%d %d", &got, &loops);
	printf("[hostile] SIGUSR1 handler calling trace2_printf%s: status 0x%x (%s), "
	       "%d signals handled, %d main loops\n", buffer ? " (buffered)" : "",
	       p.status, exited_0(p.status) ? "ok" : "DEADLOCK or crash", got, loops);
	fflush(stdout);
	assert_true(exited_0(p.status));
	assert_whole_dir(dir, "signal handler records");
	for (i = 0; i < 3; i++) {
		char *text = read_in(dir, FILE_NAMES[i]);
		int records = count_substr(text, "signal record ");

		printf("[hostile]   %s: %d signal records\n", FILE_NAMES[i], records);
		assert_int_equal(records, got);
		free(text);
	}
	t2_proc_free(&p);
	t2_env_free(&env);
}

static void signal_handler_traces(void **state)
{
	(void)state;
	signal_handler_traces_run(NULL);
	signal_handler_traces_run("64k");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: their children check for leaks (see t2rec.h) */
		cmocka_unit_test_teardown(thread_without_thread_exit, t2_scratch_cleanup),
		cmocka_unit_test_teardown(atexit_before_initialize, t2_scratch_cleanup),
		cmocka_unit_test_teardown(directory_through_symlink, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fifo_without_reader, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fifo_with_stalled_reader, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stalled_destination_costs_one_limit, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fifo_with_reader, t2_scratch_cleanup),
		cmocka_unit_test_teardown(terminal_with_reader, t2_scratch_cleanup),
		cmocka_unit_test_teardown(max_files_counts_up_to_the_limit, t2_scratch_cleanup),
		cmocka_unit_test_teardown(unwritable_or_odd_home, t2_scratch_cleanup),
		cmocka_unit_test_teardown(config_file_is_a_directory, t2_scratch_cleanup),
		cmocka_unit_test_teardown(config_file_is_a_fifo, t2_scratch_cleanup),
		cmocka_unit_test_teardown(config_fifo_writer_sends_config, t2_scratch_cleanup),
		cmocka_unit_test_teardown(config_fifo_writer_stalls, t2_scratch_cleanup),
		cmocka_unit_test_teardown(config_fifo_writer_trickles, t2_scratch_cleanup),
		cmocka_unit_test_teardown(garbage_and_big_global_config, t2_scratch_cleanup),
		cmocka_unit_test_teardown(deep_nesting, t2_scratch_cleanup),
		cmocka_unit_test_teardown(huge_texts_in_files, t2_scratch_cleanup),
		cmocka_unit_test_teardown(huge_texts_threads_stream_socket, t2_scratch_cleanup),
		cmocka_unit_test_teardown(signal_handler_traces, t2_scratch_cleanup),
		cmocka_unit_test_teardown(cancelled_thread, t2_scratch_cleanup),
		cmocka_unit_test_teardown(dlclose_shared_library, t2_scratch_cleanup),
	};

	t2_leak_check_runner_only();
	if (getenv("T2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("T2_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
