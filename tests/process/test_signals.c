/*
 * Signals (docs/embedding.md, "Signals"): SIGPIPE as in
 * Git, and SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT get the "signal" record on every enabled target when
 * their disposition at trace2_initialize() was the default; the process
 * then dies exactly as it would untraced.  A signal the host handles or
 * ignores is left alone (a host SIGPIPE handler is chained, as Git does).
 * Records stay whole when signals arrive while records are written, and
 * a trace pipe's SIGPIPE never reaches the host.  Records to a pipe
 * change no signal mask where the kernel has RWF_NOSIGNAL (counted
 * through --wrap=pthread_sigmask).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"
#include "tr2_sys.h"

#define TRACE_FD 5

static const char *const BRIEF[] = {
	"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1", "GIT_TRACE2_EVENT_BRIEF=1", NULL
};

/* The signals trace2 reports when their disposition is the default. */
static const int HANDLED[] = {
	SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
};
#define NHANDLED (sizeof(HANDLED) / sizeof(HANDLED[0]))

/* ------------------------------------------------------------------ */
/* In the child: dispositions, delivery, the host's handler.           */
/* ------------------------------------------------------------------ */

static volatile sig_atomic_t host_hits;

static void host_handler(int signo)
{
	(void)signo;
	host_hits++;
}

static void host_siginfo_handler(int signo, siginfo_t *info, void *uc)
{
	(void)signo;
	(void)info;
	(void)uc;
	host_hits++;
}

/* handler for signo, without SA_RESTART: interrupted calls fail with EINTR. */
static void set_action(int signo, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(signo, &sa, NULL))
		_exit(124);
}

/*
 * A child process as an ordinary program starts: the handled signals at
 * their default (cmocka and ASan install handlers of their own), none
 * blocked, and no core files.
 */
static void plain_process(void)
{
	struct rlimit none = { 0, 0 };
	sigset_t empty;
	size_t i;

	setrlimit(RLIMIT_CORE, &none);
	prctl(PR_SET_DUMPABLE, 0);
	for (i = 0; i < NHANDLED; i++)
		set_action(HANDLED[i], SIG_DFL);
	sigemptyset(&empty);
	sigprocmask(SIG_SETMASK, &empty, NULL);
}

enum disp {
	DISP_DEFAULT,
	DISP_HANDLER_BEFORE,	/* host handler installed before initialize */
	DISP_SIGINFO_BEFORE,	/* the same with SA_SIGINFO */
	DISP_HANDLER_AFTER,	/* host handler installed after initialize */
	DISP_IGNORE_BEFORE,	/* SIG_IGN before initialize */
};

enum how {
	HOW_KILL,	/* kill(getpid(), signo) */
	HOW_FAULT,	/* a real fault: SIGSEGV or SIGBUS */
	HOW_PIPE,	/* the host writes into a pipe without reader */
	HOW_ABORT,	/* abort() */
};

struct sigcase {
	int signo;
	enum how how;
	enum disp disp;
	int trace;	/* call trace2_initialize() */
	int times;	/* deliveries (0: 1) */
};

static void set_disposition(const struct sigcase *c)
{
	struct sigaction sa;

	switch (c->disp) {
	case DISP_HANDLER_BEFORE:
	case DISP_HANDLER_AFTER:
		set_action(c->signo, host_handler);
		break;
	case DISP_SIGINFO_BEFORE:
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = host_siginfo_handler;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(c->signo, &sa, NULL);
		break;
	case DISP_IGNORE_BEFORE:
		set_action(c->signo, SIG_IGN);
		break;
	case DISP_DEFAULT:
		break;
	}
}

/* A write to the page faults: SIGSEGV on PROT_NONE memory, SIGBUS on a
 * mapping past the end of an empty file. */
static void fault(int signo)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = MAP_FAILED;

	if (signo == SIGSEGV) {
		p = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else {
		FILE *f = tmpfile();

		if (f)
			p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fileno(f), 0);
	}
	if (p == MAP_FAILED)
		_exit(123);
	*(volatile char *)p = 1;
}

static void broken_pipe_write(void)
{
	int fds[2];
	char c = 'x';

	if (pipe(fds))
		_exit(123);
	close(fds[0]);
	if (write(fds[1], &c, 1) >= 0 || errno != EPIPE)
		_exit(122);
	close(fds[1]);
}

static void deliver(const struct sigcase *c)
{
	switch (c->how) {
	case HOW_KILL:
		kill(getpid(), c->signo);
		break;
	case HOW_FAULT:
		fault(c->signo);
		break;
	case HOW_PIPE:
		broken_pipe_write();
		break;
	case HOW_ABORT:
		abort();
	}
}

static void sc_signal(void *arg)
{
	const struct sigcase *c = arg;
	int i;

	plain_process();
	if (c->disp != DISP_HANDLER_AFTER)
		set_disposition(c);
	if (c->trace)
		trace2_initialize();
	if (c->disp == DISP_HANDLER_AFTER)
		set_disposition(c);
	for (i = 0; i < (c->times ? c->times : 1); i++) {
		deliver(c);
		trace2_printf("hits %d", (int)host_hits);
	}
}

/* ------------------------------------------------------------------ */
/* Expected records.                                                   */
/* ------------------------------------------------------------------ */

#define TIME "00:00:00.000000 "

static char *normal_signal(int signo)
{
	char *s = NULL;

	t2_append(&s, "%-50ssignal elapsed:0.000000 code:%d",
		  TIME "trace2/tr2_tgt_normal.c:118 ", signo);
	return s;
}

static char *perf_signal(int signo)
{
	char *s = NULL;

	t2_append(&s, TIME "%-28s | d0 | %-24s | %-12s |     | %9s |           |              | signo:%d",
		  "trace2/tr2_tgt_perf.c:207", "main", "signal", "0.000000", signo);
	return s;
}

static char *event_signal(int signo)
{
	char *s = NULL;

	t2_append(&s, "{\"event\":\"signal\",\"sid\":\"SID\",\"thread\":\"main\","
		  "\"time\":\"2000-01-01T00:00:00.000000Z\","
		  "\"file\":\"trace2/tr2_tgt_event.c\",\"line\":191,"
		  "\"t_abs\":0.000000,\"signo\":%d}", signo);
	return s;
}

/* The last line of text equals expected; text has nlines lines (0: any
 * number) and ends with a LF. */
static void assert_last_line(const char *text, const char *expected, size_t nlines)
{
	size_t n;
	char **lines = t2_lines(text, &n);

	assert_true(n > 0);
	assert_int_equal(text[strlen(text) - 1], '\n');
	assert_string_equal(lines[n - 1], expected);
	if (nlines)
		assert_int_equal(n, nlines);
	t2_strv_free(lines);
}

/* Each target ends with its non-brief "signal" record for signo. */
static void assert_signal_records(const struct t2_out *out, int signo, size_t nlines)
{
	char *n = normal_signal(signo), *p = perf_signal(signo), *e = event_signal(signo);

	assert_last_line(out->normal, n, nlines);
	assert_last_line(out->perf, p, nlines);
	assert_last_line(out->event, e, nlines);
	assert_null(strstr(out->normal, "atexit"));
	assert_null(strstr(out->normal, " exit "));
	assert_null(strstr(out->event, "\"event\":\"atexit\""));
	free(n);
	free(p);
	free(e);
}

/* The wait status of sc_signal without any tracing. */
static int untraced_status(const struct sigcase *c)
{
	struct sigcase plain = *c;

	plain.trace = 0;
	return t2_run_noinit(sc_signal, &plain, NULL);
}

/* ------------------------------------------------------------------ */
/* Default dispositions.                                               */
/* ------------------------------------------------------------------ */

static void check_default(int signo, enum how how)
{
	struct sigcase c = { signo, how, DISP_DEFAULT, 1, 0 };
	struct t2_out out;
	int plain = untraced_status(&c);

	assert_true(WIFSIGNALED(plain));
	assert_int_equal(WTERMSIG(plain), signo);
	t2_run_all_noinit(sc_signal, &c, NULL, &out);
	assert_int_equal(out.status, plain);
	assert_signal_records(&out, signo, 2);	/* version, signal */
	t2_out_free(&out);
}

static void default_terminating_signals(void **state)
{
	(void)state;
	check_default(SIGTERM, HOW_KILL);
	check_default(SIGINT, HOW_KILL);
	check_default(SIGHUP, HOW_KILL);
	check_default(SIGQUIT, HOW_KILL);
}

static void default_sigpipe_from_host_write(void **state)
{
	(void)state;
	check_default(SIGPIPE, HOW_PIPE);
}

static void default_crash_signals(void **state)
{
	(void)state;
	check_default(SIGSEGV, HOW_FAULT);
	check_default(SIGBUS, HOW_FAULT);
	check_default(SIGABRT, HOW_ABORT);
	check_default(SIGFPE, HOW_KILL);
	check_default(SIGILL, HOW_KILL);
}

/* A signal trace2 does not handle (SIGUSR1) ends the process with no
 * record. */
static void unhandled_signal_no_record(void **state)
{
	struct sigcase c = { SIGUSR1, HOW_KILL, DISP_DEFAULT, 1, 0 };
	struct t2_out out;
	int plain = untraced_status(&c);

	(void)state;
	t2_run_all_noinit(sc_signal, &c, BRIEF, &out);
	assert_int_equal(out.status, plain);
	assert_string_equal(out.normal, "version " TRACE2_VERSION_STRING "\n");
	t2_out_free(&out);
}

/* ------------------------------------------------------------------ */
/* The driver killed from outside.                                     */
/* ------------------------------------------------------------------ */

static const char *const TIMER_ARGS[] = { "trace2", "100timer", "100", "50", NULL };

static void exec_timer(void *arg)
{
	(void)arg;
	t2_exec_tool(TIMER_ARGS);
}

/* Start the driver (env), wait until ready_file shows cmd_name (NULL:
 * 100 ms), send signo, return the wait status. */
static int kill_driver(const char *const *env, const char *ready_file, int signo)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };
	int pid = t2_spawn(exec_timer, NULL, env, NULL, NULL);

	assert_true(pid > 0);
	if (ready_file)
		assert_true(t2_wait_for_text(ready_file, "cmd_name", 10000));
	else
		nanosleep(&pause, NULL);
	kill(pid, signo);
	return t2_wait_timeout(pid, 10000);
}

static char *slurp_scrubbed(const char *dir, const char *name)
{
	char *path = t2_path(dir, name), *raw = t2_read_file(path, NULL), *s;

	assert_non_null(raw);
	s = t2_scrub(raw);
	free(raw);
	free(path);
	return s;
}

static void check_driver_killed(int signo)
{
	char *dir = t2_tmpdir(), *normal = t2_path(dir, "normal");
	struct t2_env e = { 0 };
	struct t2_out out;
	int plain, status;

	t2_env_add(&e, "GIT_TRACE2=%s", normal);
	t2_env_add(&e, "GIT_TRACE2_PERF=%s/perf", dir);
	t2_env_add(&e, "GIT_TRACE2_EVENT=%s/event", dir);
	plain = kill_driver(NULL, NULL, signo);
	status = kill_driver(t2_env_list(&e), normal, signo);
	assert_true(WIFSIGNALED(plain));
	assert_int_equal(WTERMSIG(plain), signo);
	assert_int_equal(status, plain);
	out.normal = slurp_scrubbed(dir, "normal");
	out.perf = slurp_scrubbed(dir, "perf");
	out.event = slurp_scrubbed(dir, "event");
	assert_signal_records(&out, signo, 0);
	t2_out_free(&out);
	t2_env_free(&e);
	free(normal);
	t2_rmtree(dir);
	free(dir);
}

static void driver_killed_from_outside(void **state)
{
	(void)state;
	check_driver_killed(SIGTERM);
	check_driver_killed(SIGINT);
	check_driver_killed(SIGHUP);
}

/* ------------------------------------------------------------------ */
/* Host dispositions.                                                  */
/* ------------------------------------------------------------------ */

/* sc_signal with brief targets: exit 0 and exactly normal_body between
 * the version and atexit lines of NORMAL; EVENT without "signal" unless
 * the body has one. */
static void check_host(int signo, enum how how, enum disp disp, int times,
		       const char *normal_body)
{
	struct sigcase c = { signo, how, disp, 1, times };
	struct t2_out out;
	char *want = NULL;

	t2_run_all_noinit(sc_signal, &c, BRIEF, &out);
	assert_true(WIFEXITED(out.status));
	assert_int_equal(WEXITSTATUS(out.status), 0);
	t2_append(&want, "version %s\n%satexit elapsed:0.000000 code:0\n",
		  TRACE2_VERSION_STRING, normal_body);
	assert_string_equal(out.normal, want);
	assert_int_equal(strstr(out.event, "\"event\":\"signal\"") != NULL,
			 strstr(normal_body, "signal ") != NULL);
	assert_int_equal(strstr(out.perf, "| signal ") != NULL,
			 strstr(normal_body, "signal ") != NULL);
	free(want);
	t2_out_free(&out);
}

/* A host handler installed before initialize is left alone. */
static void handler_before_init_left_alone(void **state)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGFPE, SIGABRT };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		check_host(sigs[i], HOW_KILL, DISP_HANDLER_BEFORE, 2, "hits 1\nhits 2\n");
		check_host(sigs[i], HOW_KILL, DISP_SIGINFO_BEFORE, 1, "hits 1\n");
	}
}

/* SIGPIPE with a host handler before initialize: chained as in Git --
 * the record, then the host's handler, which stays installed. */
static void sigpipe_handler_chained(void **state)
{
	(void)state;
	check_host(SIGPIPE, HOW_PIPE, DISP_HANDLER_BEFORE, 2,
		   "signal elapsed:0.000000 code:13\nhits 1\nhits 2\n");
	check_host(SIGPIPE, HOW_KILL, DISP_HANDLER_BEFORE, 1,
		   "signal elapsed:0.000000 code:13\nhits 1\n");
	check_host(SIGPIPE, HOW_PIPE, DISP_SIGINFO_BEFORE, 2,
		   "signal elapsed:0.000000 code:13\nhits 1\nhits 2\n");
}

/* A handler installed after initialize replaces trace2's. */
static void handler_after_init_replaces(void **state)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGPIPE };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		check_host(sigs[i], sigs[i] == SIGPIPE ? HOW_PIPE : HOW_KILL,
			   DISP_HANDLER_AFTER, 1, "hits 1\n");
}

/* SIG_IGN before initialize stays: nothing happens. */
static void ignored_before_init(void **state)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		check_host(sigs[i], sigs[i] == SIGPIPE ? HOW_PIPE : HOW_KILL,
			   DISP_IGNORE_BEFORE, 1, "hits 0\n");
}

/* With no target enabled trace2 installs nothing. */
static void sc_dispositions_untouched(void *arg)
{
	size_t i;

	(void)arg;
	plain_process();
	trace2_initialize();
	for (i = 0; i < NHANDLED; i++) {
		struct sigaction now;

		sigaction(HANDLED[i], NULL, &now);
		if (now.sa_handler != SIG_DFL || (now.sa_flags & SA_SIGINFO))
			_exit(10 + (int)i);
	}
}

static void tracing_off_installs_nothing(void **state)
{
	int status;

	(void)state;
	status = t2_run_noinit(sc_dispositions_untouched, NULL, NULL);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ------------------------------------------------------------------ */
/* A trace pipe's SIGPIPE never reaches the host.                      */
/* ------------------------------------------------------------------ */

/*
 * EVENT on a pipe whose reader is gone, host SIGPIPE handler (chained).
 * The record that meets the closed pipe is small (one piece, written
 * without held signals where the kernel can keep it from raising
 * SIGPIPE) or larger than PIPE_BUF (pieces written with signals held).
 */
static void sc_trace_pipe_broken(void *arg)
{
	const char *big = arg;
	int fds[2];

	plain_process();
	if (pipe(fds) || dup2(fds[1], TRACE_FD) < 0)
		_exit(123);
	close(fds[1]);
	set_action(SIGPIPE, host_handler);
	trace2_initialize();
	close(fds[0]);
	trace2_printf("hits %d%s", (int)host_hits, big);
	broken_pipe_write();
	trace2_printf("hits %d", (int)host_hits);
}

static void check_trace_pipe_sigpipe_hidden(size_t extra)
{
	static const char *const env[] = {
		"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1",
		"GIT_TRACE2_EVENT=5", NULL
	};
	char *big = calloc(extra + 1, 1), *expected;
	struct t2_out out;

	memset(big, 'x', extra);
	expected = t2_xfmt("version " TRACE2_VERSION_STRING "\n"
			   "hits 0%s\n"
			   "signal elapsed:0.000000 code:13\n"
			   "hits 1\n"
			   "atexit elapsed:0.000000 code:0\n", big);
	t2_run_all_noinit(sc_trace_pipe_broken, big, env, &out);
	assert_true(WIFEXITED(out.status));
	assert_int_equal(WEXITSTATUS(out.status), 0);
	assert_string_equal(out.normal, expected);
	t2_out_free(&out);
	free(expected);
	free(big);
}

static void trace_pipe_sigpipe_hidden(void **state)
{
	(void)state;
	check_trace_pipe_sigpipe_hidden(0);
	check_trace_pipe_sigpipe_hidden(2 * PIPE_BUF);
}

/*
 * The host blocks SIGPIPE; EVENT is a pipe without reader.  The failed
 * trace write's SIGPIPE is consumed, but one the host caused itself
 * before stays pending; unblocked, it ends the process as it would
 * untraced (with the record, the disposition being the default).
 */
struct blocked_pipe {
	int host_write_first;
	int trace;
};

static void sc_blocked_sigpipe(void *arg)
{
	const struct blocked_pipe *b = arg;
	sigset_t pipe_set, pending;
	int fds[2];

	plain_process();
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, NULL);
	if (pipe(fds) || dup2(fds[1], TRACE_FD) < 0)
		_exit(123);
	close(fds[0]);
	close(fds[1]);
	if (b->host_write_first)
		broken_pipe_write();
	if (b->trace)
		trace2_initialize();	/* EVENT's first write fails: EPIPE */
	sigpending(&pending);
	trace2_printf("pending %d", sigismember(&pending, SIGPIPE));
	sigprocmask(SIG_UNBLOCK, &pipe_set, NULL);
}

static void check_blocked_sigpipe(int host_write_first, const char *normal)
{
	static const char *const env[] = {
		"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_EVENT=5", NULL
	};
	struct blocked_pipe plain = { host_write_first, 0 }, traced = { host_write_first, 1 };
	struct t2_out out;
	int status = t2_run_noinit(sc_blocked_sigpipe, &plain, NULL);

	t2_run_all_noinit(sc_blocked_sigpipe, &traced, env, &out);
	assert_int_equal(out.status, status);
	assert_string_equal(out.normal, normal);
	t2_out_free(&out);
}

static void blocked_sigpipe_kept_for_host(void **state)
{
	(void)state;
	check_blocked_sigpipe(0, "version " TRACE2_VERSION_STRING "\npending 0\n"
			      "atexit elapsed:0.000000 code:0\n");
	check_blocked_sigpipe(1, "version " TRACE2_VERSION_STRING "\npending 1\n"
			      "signal elapsed:0.000000 code:13\n");
}

/* ------------------------------------------------------------------ */
/* Records stay whole while signals arrive during writes.              */
/* ------------------------------------------------------------------ */

struct flood {
	int term_after_ms;	/* > 0: a thread sends SIGTERM to the writer */
	int alarm_us;		/* > 0: SIGALRM (host handler, no SA_RESTART) */
	int records;		/* data events; 0: until killed */
	size_t size;		/* length of each value */
};

static pthread_t writer;
static int written;	/* records the writer has made (atomic) */
static int pipe_fd;	/* the trace pipe's write end, for the child */

/* Once the writer is under way, wait term_after_ms, send SIGTERM. */
static void *send_term(void *arg)
{
	const struct flood *f = arg;
	struct timespec t = { f->term_after_ms / 1000, (f->term_after_ms % 1000) * 1000000L },
			tick = { 0, 1000 * 1000 };

	while (__atomic_load_n(&written, __ATOMIC_RELAXED) < 3)
		nanosleep(&tick, NULL);
	nanosleep(&t, NULL);
	pthread_kill(writer, SIGTERM);
	return NULL;
}

static void set_alarm(int us)
{
	struct itimerval it = { { 0, us }, { 0, us } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void sc_flood(void *arg)
{
	const struct flood *f = arg;
	char *value = malloc(f->size + 1);
	pthread_t killer;
	int i;

	plain_process();
	if (dup2(pipe_fd, TRACE_FD) < 0 || !value)
		_exit(123);
	for (i = 0; (size_t)i < f->size; i++)
		value[i] = (char)('a' + i % 26);
	value[f->size] = '\0';
	if (f->alarm_us) {
		set_action(SIGALRM, host_handler);
		set_alarm(f->alarm_us);
	}
	trace2_initialize();
	writer = pthread_self();
	if (f->term_after_ms && pthread_create(&killer, NULL, send_term, (void *)f))
		_exit(123);
	for (i = 0; !f->records || i < f->records; i++) {
		trace2_data_string("flood", NULL, "value", value);
		__atomic_store_n(&written, i + 1, __ATOMIC_RELAXED);
	}
	set_alarm(0);
	free(value);
	exit(!f->alarm_us || host_hits ? 0 : 3);
}

/* Read fd until EOF (every write end closed) or timeout_ms, slowly
 * enough that the writer keeps blocking in write(). */
static char *read_until_eof(int fd, int timeout_ms)
{
	struct timespec pause = { 0, 50 * 1000 };
	size_t len = 0, cap = 1 << 16;
	char *text = malloc(cap + 1);
	struct pollfd pfd = { fd, POLLIN, 0 };

	while (poll(&pfd, 1, timeout_ms) > 0) {
		ssize_t n;

		if (cap - len < 4096)
			text = realloc(text, (cap *= 2) + 1);
		n = read(fd, text + len, 4096);
		if (n <= 0)
			break;
		len += (size_t)n;
		nanosleep(&pause, NULL);
	}
	text[len] = '\0';
	return text;
}

struct tally {
	size_t data;		/* "data" records, each value intact (of the
				 * expected size unless that is 0) */
	size_t bad;		/* lines that are no complete record */
	char *last;		/* the last record's event name */
};

static void tally_lines(const char *text, size_t size, struct tally *t)
{
	size_t n, i;
	char **lines = t2_lines(text, &n);

	memset(t, 0, sizeof(*t));
	if (*text && text[strlen(text) - 1] != '\n')
		t->bad++;
	for (i = 0; i < n; i++) {
		struct tjson *v = tjson_parse(lines[i], strlen(lines[i]), NULL);
		const char *ev = v ? tjson_get_str(v, "event") : NULL;

		if (!ev)
			t->bad++;
		else if (!strcmp(ev, "data")) {
			const char *val = tjson_get_str(v, "value");

			if (val && (!size || strlen(val) == size))
				t->data++;
			else
				t->bad++;
		}
		if (i == n - 1) {
			free(t->last);
			t->last = strdup(ev ? ev : "INVALID");
		}
		tjson_free(v);
	}
	t2_strv_free(lines);
}

/* Start fn(arg) with env and a new pipe's write end in pipe_fd; *reader
 * is its read end. */
static int spawn_on_pipe(t2_scenario_fn *fn, void *arg, const char *const *env,
			 int *reader)
{
	int fds[2], pid;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pipe_fd = fds[1];
	pid = t2_spawn(fn, arg, env, NULL, NULL);
	close(fds[1]);
	assert_true(pid > 0);
	*reader = fds[0];
	return pid;
}

/* spawn_on_pipe(), the pipe read here to its end into *text; the child's
 * wait status. */
static int run_on_pipe(t2_scenario_fn *fn, void *arg, const char *const *env,
		       char **text)
{
	int reader, pid = spawn_on_pipe(fn, arg, env, &reader);

	*text = read_until_eof(reader, 15000);
	close(reader);
	return t2_wait_timeout(pid, 5000);
}

static const char *const FLOOD_ENV[] = {
	"GIT_TRACE2_EVENT=5", "GIT_TRACE2_EVENT_BRIEF=1", NULL
};

/* sc_flood with EVENT on a pipe; *reader is its read end. */
static int spawn_flood(struct flood *f, int *reader)
{
	return spawn_on_pipe(sc_flood, f, FLOOD_ENV, reader);
}

/* Run sc_flood with EVENT on a pipe read by this process. */
static int run_flood(struct flood *f, char **text)
{
	return run_on_pipe(sc_flood, f, FLOOD_ENV, text);
}

/* SIGTERM sent to the thread writing large records into a pipe. */
static void sigterm_while_writing(void **state)
{
	struct flood f = { 50, 0, 0, 10000 };
	struct tally t;
	char *text;
	int status;

	(void)state;
	status = run_flood(&f, &text);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	tally_lines(text, f.size, &t);
	assert_int_equal(t.bad, 0);
	assert_true(t.data > 0);
	assert_string_equal(t.last, "signal");
	free(t.last);
	free(text);
}

/* A host signal interrupting blocked pipe writes (EINTR, short writes):
 * every record arrives whole. */
static void interrupted_writes_completed(void **state)
{
	struct flood f = { 0, 200, 300, 20000 };
	struct tally t;
	char *text;
	int status;

	(void)state;
	status = run_flood(&f, &text);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	tally_lines(text, f.size, &t);
	assert_int_equal(t.bad, 0);
	assert_int_equal(t.data, 300);
	assert_string_equal(t.last, "atexit");
	free(t.last);
	free(text);
}

/* Both: SIGTERM arrives while interrupted writes are being completed. */
static void sigterm_during_interrupted_writes(void **state)
{
	int round;

	(void)state;
	for (round = 0; round < 15; round++) {
		struct flood f = { 20 + 7 * round, 200, 0, 20000 };
		struct tally t;
		char *text;
		int status = run_flood(&f, &text);

		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGTERM);
		tally_lines(text, f.size, &t);
		assert_int_equal(t.bad, 0);
		assert_string_equal(t.last, "signal");
		free(t.last);
		free(text);
	}
}

/*
 * The trace pipe's reader has stopped reading (a hung collector), so the
 * host is blocked in a trace write: SIGTERM and SIGINT must still end it
 * as they would end it untraced (blocked in any other write).
 */
static void check_stalled_pipe(int signo)
{
	struct flood f = { 0, 0, 0, 1000 };
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	int reader, pid = spawn_flood(&f, &reader), queued = 0, waited, status;

	for (waited = 0; waited < 10000 && queued < 32768; waited += 5) {
		nanosleep(&tick, NULL);
		ioctl(reader, FIONREAD, &queued);
	}
	assert_true(queued >= 32768);	/* the pipe fills: the writer blocks */
	tick.tv_nsec = 100 * 1000 * 1000;
	nanosleep(&tick, NULL);
	kill(pid, signo);
	status = t2_wait_timeout(pid, 3000);
	close(reader);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), signo);	/* SIGKILL: it hung */
}

static void signal_while_trace_pipe_stalled(void **state)
{
	(void)state;
	check_stalled_pipe(SIGTERM);
	check_stalled_pipe(SIGINT);
}

/* A crash in a named thread: the record carries that thread's name. */
static void *crash_thread(void *arg)
{
	(void)arg;
	trace2_thread_start("worker");
	fault(SIGSEGV);
	return NULL;
}

static void sc_crash_in_thread(void *arg)
{
	pthread_t t;

	(void)arg;
	plain_process();
	trace2_initialize();
	if (pthread_create(&t, NULL, crash_thread, NULL))
		_exit(123);
	pthread_join(t, NULL);
	_exit(122);
}

static void crash_in_thread_names_it(void **state)
{
	struct t2_out out;
	char *perf = NULL;

	(void)state;
	t2_run_all_noinit(sc_crash_in_thread, NULL, BRIEF, &out);
	assert_true(WIFSIGNALED(out.status));
	assert_int_equal(WTERMSIG(out.status), SIGSEGV);
	assert_non_null(strstr(out.normal, "\nsignal elapsed:0.000000 code:11\n"));
	t2_append(&perf, "| %-24s | %-12s |", "th01:worker", "signal");
	assert_non_null(strstr(out.perf, perf));
	assert_non_null(strstr(out.event, "{\"event\":\"signal\",\"sid\":\"SID\",\"thread\":\"th01:worker\",\"t_abs\":0.000000,\"signo\":11}\n"));
	free(perf);
	t2_out_free(&out);
}

/* Many API calls on files, SIGTERM at varying moments: never a hang,
 * one "signal" record per target, only whole lines. */
static void *term_after_us(void *arg)
{
	long us = (long)(intptr_t)arg;
	struct timespec t = { 0, us * 1000 };

	nanosleep(&t, NULL);
	pthread_kill(writer, SIGTERM);
	return NULL;
}

static void sc_busy(void *arg)
{
	pthread_t killer;
	uint64_t i;

	plain_process();
	trace2_initialize();
	writer = pthread_self();
	if (pthread_create(&killer, NULL, term_after_us, arg))
		_exit(123);
	for (i = 0; ; i++) {
		trace2_region_enter("busy", "loop", NULL);
		trace2_timer_start(TRACE2_TIMER_ID_TEST1);
		trace2_data_intmax("busy", NULL, "i", (intmax_t)i);
		trace2_printf("i=%llu", (unsigned long long)i);
		trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 1);
		trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
		trace2_region_leave("busy", "loop", NULL);
	}
}

/* Lines of a NORMAL or PERF file not starting with a time of day. */
static size_t lines_without_time(const char *text)
{
	static const char shape[] = "00:00:00.000000 ";
	size_t n, i, j, bad = 0;
	char **lines = t2_lines(text, &n);

	for (i = 0; i < n; i++) {
		for (j = 0; shape[j]; j++)
			if (shape[j] == '0' ? (lines[i][j] < '0' || lines[i][j] > '9')
					    : lines[i][j] != shape[j])
				break;
		bad += shape[j] != '\0';
	}
	t2_strv_free(lines);
	return bad;
}

static size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (; (text = strstr(text, needle)); text++)
		n++;
	return n;
}

/* The last line of the file, scrubbed, with its LF (big files are not
 * scrubbed whole: too slow under ASan). */
static char *last_line_scrubbed(const char *raw)
{
	size_t len = strlen(raw);
	const char *p = raw + len - (len && raw[len - 1] == '\n');
	char *line, *s;

	while (p > raw && p[-1] != '\n')
		p--;
	line = strdup(p);
	s = t2_scrub(line);
	free(line);
	return s;
}

/* Raw target files of a busy run: whole lines, exactly one "signal"
 * record per target and that one last, no exit or atexit. */
static void check_busy_files(const char *dir)
{
	static const char *const names[] = { "normal", "perf", "event" };
	char *raw[3], *perf;
	struct t2_out out;
	struct tally t;
	size_t i;

	for (i = 0; i < 3; i++) {
		char *path = t2_path(dir, names[i]);

		raw[i] = t2_read_file(path, NULL);
		assert_non_null(raw[i]);
		free(path);
	}
	assert_int_equal(count(raw[0], " signal elapsed:"), 1);
	assert_int_equal(count(raw[1], "| signal "), 1);
	assert_int_equal(count(raw[2], "\"event\":\"signal\""), 1);
	assert_int_equal(lines_without_time(raw[0]), 0);
	assert_int_equal(lines_without_time(raw[1]), 0);
	tally_lines(raw[2], 0, &t);
	assert_int_equal(t.bad, 0);
	free(t.last);
	out.normal = last_line_scrubbed(raw[0]);
	perf = last_line_scrubbed(raw[1]);
	/* inside the region: PERF indents the record (docs/targets.md,
	 * "Perf") */
	out.perf = t2_replace(perf, "| ..signo:", "| signo:");
	out.event = last_line_scrubbed(raw[2]);
	assert_signal_records(&out, SIGTERM, 0);
	assert_null(strstr(raw[0], "atexit"));
	assert_null(strstr(raw[2], "\"event\":\"atexit\""));
	free(perf);
	t2_out_free(&out);
	for (i = 0; i < 3; i++)
		free(raw[i]);
}

static void check_busy_run(long us)
{
	char *dir = t2_tmpdir();
	struct t2_env e = { 0 };
	int pid, status;

	t2_env_add(&e, "GIT_TRACE2=%s/normal", dir);
	t2_env_add(&e, "GIT_TRACE2_PERF=%s/perf", dir);
	t2_env_add(&e, "GIT_TRACE2_EVENT=%s/event", dir);
	t2_env_add(&e, "GIT_TRACE2_EVENT_NESTING=5");
	pid = t2_spawn(sc_busy, (void *)(intptr_t)us, t2_env_list(&e), NULL, NULL);
	assert_true(pid > 0);
	status = t2_wait_timeout(pid, 5000);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);	/* not SIGKILL: no hang */
	check_busy_files(dir);
	t2_env_free(&e);
	t2_rmtree(dir);
	free(dir);
}

static void sigterm_at_random_moments(void **state)
{
	long us;

	(void)state;
	for (us = 100; us < 12000; us = us * 3 / 2 + 37)
		check_busy_run(us);
}

/* ------------------------------------------------------------------ */
/* A host's handler that traces while the library is in localtime_r(). */
/* ------------------------------------------------------------------ */

struct localtime_case {
	const char *fifo;
	pthread_t main_thread;
};

static int main_tid;
static volatile sig_atomic_t handler_returned;

static void trace_from_handler(int signo)
{
	(void)signo;
	trace2_printf("from the handler");
	handler_returned = 1;
}

/* Interrupts the main thread while it is blocked inside localtime_r()
 * (holding libc's time zone lock), then lets it go on. */
static void *interrupt_localtime(void *arg)
{
	const struct localtime_case *c = arg;
	int i, fd;

	dprintf(1, "main in open %d\n", t2_wait_thread_in_open(&main_tid, c->fifo, 5000));
	pthread_kill(c->main_thread, SIGUSR1);
	for (i = 0; i < 5000 && !handler_returned; i++)
		usleep(1000);
	dprintf(1, "handler returned %d\n", (int)handler_returned);
	if (!handler_returned)
		_exit(3);
	fd = open(c->fifo, O_WRONLY);	/* an empty zone: UTC */
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * TZ names a FIFO, so the library's first localtime_r() (the perf
 * target's version record) blocks in open() with the lock held.
 */
static void sc_handler_during_localtime(void *arg)
{
	struct localtime_case c = { arg, pthread_self() };
	char tz[PATH_MAX + 2];
	struct sigaction sa;
	pthread_t th;

	alarm(20);
	snprintf(tz, sizeof(tz), ":%s", (const char *)arg);
	setenv("TZ", tz, 1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = trace_from_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	main_tid = (int)gettid();
	if (pthread_create(&th, NULL, interrupt_localtime, &c))
		_exit(4);
	trace2_initialize();
	pthread_join(th, NULL);
	exit(trace2_cmd_exit(0));
}

static void handler_during_localtime(void **state)
{
	T2_SKIP_UNDER_EMULATOR("/proc/<pid>/task/<tid>/syscall shows the emulator's own system calls");
	char *dir = t2_tmpdir(), *fifo = t2_path(dir, "tz.fifo");
	char *perf_path = t2_path(dir, "perf"), *perf, *mine, *version;
	char *env_perf = t2_xfmt("GIT_TRACE2_PERF=%s", perf_path);
	const char *env[] = { env_perf, NULL };
	struct t2_proc p;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	t2_capture(sc_handler_during_localtime, fifo, env, 30, &p);
	assert_string_equal(p.out, "main in open 1\nhandler returned 1\n");
	assert_int_equal(p.status, 0);
	perf = t2_read_file(perf_path, NULL);
	assert_non_null(perf);
	mine = strstr(perf, "| printf       |");
	version = strstr(perf, "| version      |");
	assert_non_null(mine);
	assert_non_null(strstr(mine, "| from the handler\n"));
	assert_non_null(version);
	assert_true(mine < version);	/* written while version waited */
	free(perf);
	t2_proc_free(&p);
	free(env_perf);
	free(perf_path);
	free(fifo);
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* Small records to a pipe: no signal mask changes, never written      */
/* twice by a handler.                                                  */
/* ------------------------------------------------------------------ */

/* Every change of the signal mask (the test links with
 * --wrap=pthread_sigmask; the library holds signals through it). */
static int mask_changes;
int __real_pthread_sigmask(int how, const sigset_t *set, sigset_t *old);
int __wrap_pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (set)
		__atomic_fetch_add(&mask_changes, 1, __ATOMIC_RELAXED);
	return __real_pthread_sigmask(how, set, old);
}

/* Whether this kernel keeps a pipe write from raising SIGPIPE on request
 * (RWF_NOSIGNAL, Linux 6.18) and the library asks it to (pwritev2(): not
 * in the POSIX fallback). */
static int kernel_has_nosignal(void)
{
	struct iovec iov = { "x", 1 };
	int fds[2], ok;

	if (!TR2_HAVE_PWRITEV2 || pipe(fds))
		return 0;
	ok = syscall(SYS_pwritev2, fds[1], &iov, 1, -1L, -1L, 0x100L) == 1;
	close(fds[0]);
	close(fds[1]);
	return ok;
}

/* run_on_pipe() with the normal target (brief) on the pipe; *text is
 * what came through, scrubbed. */
static int run_normal_on_pipe(t2_scenario_fn *fn, void *arg, char **text)
{
	static const char *const env[] = {
		"GIT_TRACE2=5", "GIT_TRACE2_BRIEF=1", NULL
	};
	char *raw;
	int status = run_on_pipe(fn, arg, env, &raw);

	*text = t2_scrub(raw);
	free(raw);
	return status;
}

#define PIPE_RECORDS 100

/* tr2_sys.write_flags() as a kernel that refuses some TR2_WRITE_* flags
 * (EOPNOTSUPP), counting the writes it lets through. */
static ssize_t (*real_write_flags)(int fd, const void *buf, size_t n, int flags);
static int refused_flags, flag_writes;

static ssize_t write_refusing(int fd, const void *buf, size_t n, int flags)
{
	ssize_t w;

	if (flags & refused_flags) {
		errno = EOPNOTSUPP;
		return -1;
	}
	w = real_write_flags(fd, buf, n, flags);
	if (w >= 0)
		__atomic_fetch_add(&flag_writes, 1, __ATOMIC_RELAXED);
	return w;
}

/* In the child: TRACE_FD is the pipe, the library writes through fn. */
static void trace_to_pipe_through(ssize_t (*fn)(int fd, const void *buf, size_t n,
						 int flags))
{
	plain_process();
	if (dup2(pipe_fd, TRACE_FD) < 0)
		_exit(123);
	real_write_flags = tr2_sys.write_flags;
	tr2_sys.write_flags = fn;
}

static void sc_count_writes(void *arg)
{
	int i, masks, writes;

	trace_to_pipe_through(write_refusing);
	refused_flags = *(const int *)arg;
	trace2_initialize();	/* the version record learns what is refused */
	masks = __atomic_load_n(&mask_changes, __ATOMIC_RELAXED);
	writes = __atomic_load_n(&flag_writes, __ATOMIC_RELAXED);
	for (i = 0; i < PIPE_RECORDS; i++)
		trace2_printf("%d", i);
	trace2_printf("writes %d mask changes %d",
		      __atomic_load_n(&flag_writes, __ATOMIC_RELAXED) - writes,
		      __atomic_load_n(&mask_changes, __ATOMIC_RELAXED) - masks);
}

/* The lines "0" to "n - 1", each ending in a newline. */
static char *numbered_lines(int n)
{
	char *text = strdup("");
	int i;

	for (i = 0; i < n; i++)
		t2_append(&text, "%d\n", i);
	return text;
}

/*
 * Records to a pipe arrive whole and in order whatever the kernel
 * refuses.  With RWF_NOSIGNAL each is one write with no signal mask
 * change; without it, signals are held around each (two changes);
 * without either flag, the records go out by plain write().  The POSIX
 * fallback has neither flag (tr2_plat_write_flags() refuses both).
 */
static void pipe_writes_by_kernel(void **state)
{
	static const int refusals[] = {
		0, TR2_WRITE_NOSIGNAL, TR2_WRITE_NOWAIT,
		TR2_WRITE_NOWAIT | TR2_WRITE_NOSIGNAL,
	};
	int unsupported;
	char *numbers;
	size_t i;

	(void)state;
	T2_SKIP_UNDER_EMULATOR("qemu-user 7.2 has no pwritev2() (ENOSYS) for the flags to be refused");
	unsupported = TR2_HAVE_PWRITEV2 ? kernel_has_nosignal() ? 0 : TR2_WRITE_NOSIGNAL
				      : TR2_WRITE_NOWAIT | TR2_WRITE_NOSIGNAL;
	numbers = numbered_lines(PIPE_RECORDS);
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		int refused = refusals[i] | unsupported;
		int all = TR2_WRITE_NOWAIT | TR2_WRITE_NOSIGNAL;
		char *text, *expected;
		int status;

		expected = t2_xfmt("version " TRACE2_VERSION_STRING "\n%s"
				   "writes %d mask changes %d\n"
				   "atexit elapsed:0.000000 code:0\n", numbers,
				   refused == all ? 0 : PIPE_RECORDS,
				   refused & TR2_WRITE_NOSIGNAL ? 2 * PIPE_RECORDS : 0);
		status = run_normal_on_pipe(sc_count_writes, (void *)&refusals[i], &text);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		assert_string_equal(text, expected);
		free(expected);
		free(text);
	}
	free(numbers);
}

/*
 * SIGTERM arrives right before or right after the system call that
 * writes the record "3" (the library's write goes through tr2_sys).
 * The handler cannot know whether that record went out, so it must not
 * write it again: the record appears once or, if the process dies before
 * its write, not at all, and the signal record follows whole.
 */
static int sigterm_after_write;

static ssize_t write_meeting_sigterm(int fd, const void *buf, size_t n, int flags)
{
	ssize_t w;

	if (fd != TRACE_FD || n != 2 || memcmp(buf, "3\n", 2))
		return real_write_flags(fd, buf, n, flags);
	if (!sigterm_after_write)
		raise(SIGTERM);
	w = real_write_flags(fd, buf, n, flags);
	raise(SIGTERM);
	return w;
}

static void sc_sigterm_meets_write(void *arg)
{
	int i;

	(void)arg;
	trace_to_pipe_through(write_meeting_sigterm);
	trace2_initialize();
	for (i = 0; i < 5; i++)
		trace2_printf("%d", i);
	_exit(3);
}

static void check_sigterm_meets_write(int after, int records)
{
	char *text, *numbers = numbered_lines(records), *expected;
	int status;

	sigterm_after_write = after;
	status = run_normal_on_pipe(sc_sigterm_meets_write, NULL, &text);
	expected = t2_xfmt("version " TRACE2_VERSION_STRING "\n%s"
			   "signal elapsed:0.000000 code:15\n", numbers);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_string_equal(text, expected);
	free(expected);
	free(numbers);
	free(text);
}

static void handler_never_writes_a_record_twice(void **state)
{
	(void)state;
	if (!kernel_has_nosignal()) {
		print_message("skipped: no RWF_NOSIGNAL: records are written with signals held\n");
		skip();
	}
	check_sigterm_meets_write(1, 4);
	check_sigterm_meets_write(0, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_terminating_signals),
		cmocka_unit_test(default_sigpipe_from_host_write),
		cmocka_unit_test(default_crash_signals),
		cmocka_unit_test(unhandled_signal_no_record),
		cmocka_unit_test(driver_killed_from_outside),
		cmocka_unit_test(handler_before_init_left_alone),
		cmocka_unit_test(sigpipe_handler_chained),
		cmocka_unit_test(handler_after_init_replaces),
		cmocka_unit_test(ignored_before_init),
		cmocka_unit_test(tracing_off_installs_nothing),
		cmocka_unit_test(trace_pipe_sigpipe_hidden),
		cmocka_unit_test(blocked_sigpipe_kept_for_host),
		cmocka_unit_test(sigterm_while_writing),
		cmocka_unit_test(interrupted_writes_completed),
		cmocka_unit_test(sigterm_during_interrupted_writes),
		cmocka_unit_test(signal_while_trace_pipe_stalled),
		cmocka_unit_test(crash_in_thread_names_it),
		cmocka_unit_test(sigterm_at_random_moments),
		cmocka_unit_test(handler_during_localtime),
		cmocka_unit_test(pipe_writes_by_kernel),
		cmocka_unit_test(handler_never_writes_a_record_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
