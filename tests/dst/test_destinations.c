/*
 * Destinations (docs/configuration.md, "Target values" and "Max files"),
 * proven with the test driver (trace2-tool) and small in-process
 * scenarios: every form of a target value, file mode, directory mode,
 * maxFiles and the discard sentinel, AF_UNIX sockets, write failures
 * (the project's rule: ENOSPC, EPIPE, EAGAIN, EBADF disable the
 * target, with the debug switch one warning and an "error" record on the
 * other targets; the host's output and exit code do not change), the
 * debug switch, closing at exit and close-on-exec descriptors.
 * (EINTR and short writes: tests/process/test_signals.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"

/* NORMAL brief first words of "trace2-tool trace2 001return 0". */
#define RUN_WORDS "version start " T2_ANCESTRY(" ") "cmd_name exit atexit"
#define SID_RE "^[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-(H[0-9a-f]{8}|Localhost)-P[0-9a-f]{8}$"
#define SENTINEL "git-trace2-discard"

static const char *const TARGET_VARS[] = {
	"GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT", NULL
};
static const char *const RETURN0[] = { "trace2", "001return", "0", NULL };
/* A child writing "hello" to stdout and exiting 3; the driver exits 3. */
static const char *const CHILD3[] = {
	"trace2", "004child", "sh", "-c", "echo hello; exit 3", NULL
};

/* ------------------------------------------------------------------ */
/* Running the driver after some preparation in its process.           */
/* ------------------------------------------------------------------ */

struct prep;
typedef void prep_fn(const struct prep *p);

/* What to do in the child before the driver is executed. */
struct prep {
	prep_fn *setup;			/* NULL: nothing */
	const char *path;		/* for setup */
	int fd;				/* for setup */
	int value;			/* for setup */
	const char *const *args;	/* driver arguments; NULL: RETURN0 */
	const char *bin;		/* the driver's directory; NULL: t2_bin_dir() */
};

static void exec_prepared(void *arg)
{
	const struct prep *p = arg;

	if (p->setup)
		p->setup(p);
	t2_exec_tool_in(p->bin ? p->bin : t2_bin_dir(), p->args ? p->args : RETURN0);
}

static void run_prepared(const struct prep *p, const struct t2_env *e,
			 struct t2_proc *out)
{
	t2_capture(exec_prepared, (void *)p, t2_env_list(e), 20, out);
}

/* The driver's 001return 0 with the given environment. */
static void run_tool(const struct t2_env *e, struct t2_proc *out)
{
	struct prep p = { 0 };

	run_prepared(&p, e, out);
}

static void setup_chdir(const struct prep *p)
{
	if (chdir(p->path))
		_exit(125);
}

static void setup_umask(const struct prep *p)
{
	umask((mode_t)p->value);
}

/* p->path opened for appending as descriptor p->fd. */
static void setup_fd_file(const struct prep *p)
{
	int f = open(p->path, O_WRONLY | O_CREAT | O_APPEND, 0666);

	if (f < 0 || dup2(f, p->fd) < 0)
		_exit(125);
	if (f != p->fd)
		close(f);
}

static void setup_close_fd(const struct prep *p)
{
	close(p->fd);
}

/* A pipe whose ends are above every descriptor a setup targets. */
static void pipe_above(int fds[2])
{
	int raw[2], i;

	if (pipe(raw))
		_exit(125);
	for (i = 0; i < 2; i++) {
		fds[i] = fcntl(raw[i], F_DUPFD, 20);
		if (fds[i] < 0)
			_exit(125);
		close(raw[i]);
	}
}

/* p->fd is the write end of a pipe whose reader is gone. */
static void setup_closed_pipe(const struct prep *p)
{
	int fds[2];

	pipe_above(fds);
	if (dup2(fds[1], p->fd) < 0)
		_exit(125);
	close(fds[0]);
	close(fds[1]);
}

/* p->fd is the non-blocking write end of a full pipe whose read end
 * stays open (also in the driver). */
static void setup_full_pipe(const struct prep *p)
{
	static char block[4096];
	int fds[2];

	pipe_above(fds);
	if (dup2(fds[1], p->fd) < 0)
		_exit(125);
	close(fds[1]);
	fcntl(p->fd, F_SETFL, O_NONBLOCK);
	while (write(p->fd, block, sizeof(block)) > 0)
		;
	if (errno != EAGAIN)
		_exit(125);
}

/* No descriptor but 0, 1 and 2 (the test runner may hold others). */
static void setup_close_stray(const struct prep *p)
{
	int fd, max = (int)sysconf(_SC_OPEN_MAX);

	(void)p;
	for (fd = 3; fd < max && fd < 65536; fd++)
		close(fd);
}

/* Ordinary user rights for the EACCES cases (root ignores modes), in
 * p->path, a t2_unprivileged_dir() that also holds the driver. */
static void setup_drop_privileges(const struct prep *p)
{
	t2_drop_privileges(p->path);
}

/* ------------------------------------------------------------------ */
/* Small helpers.                                                      */
/* ------------------------------------------------------------------ */

static void assert_exit_code(int status, int code)
{
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), code);
}

static char *file_words(const char *path)
{
	char *text = t2_read_file(path, NULL), *words;

	assert_non_null(text);
	words = t2_first_words(text);
	free(text);
	return words;
}

static void assert_file_words(const char *path, const char *expected)
{
	char *words = file_words(path);

	assert_string_equal(words, expected);
	free(words);
}

static void assert_file_events(const char *path, const char *expected)
{
	char *text = t2_read_file(path, NULL), *names;

	assert_non_null(text);
	names = t2_event_names(text);
	assert_string_equal(names, expected);
	free(names);
	free(text);
}

static void assert_stderr_words(const struct t2_proc *p, const char *expected)
{
	char *words = t2_first_words(p->err);

	assert_string_equal(words, expected);
	free(words);
}

/* A file "<dir>/<name>" with the given text. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char *path = t2_path(dir, name);

	assert_int_equal(t2_write_file(path, text), 0);
	free(path);
}

/* Files named "1" ... "<n>" in dir. */
static void put_numbered(const char *dir, int n)
{
	int i;

	for (i = 1; i <= n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%d", i);
		put_file(dir, name, "");
	}
}

static void assert_listing(const char *dir, const char *expected)
{
	char *list = t2_listdir(dir);

	assert_string_equal(list, expected);
	free(list);
}

/* The only entry of dir, which must hold exactly one; caller frees. */
static char *only_entry(const char *dir)
{
	char *list = t2_listdir(dir);

	assert_true(*list && !strchr(list, ' '));
	return list;
}

/* "NAME=value" for the first n target variables, BRIEF on for all. */
static void env_targets(struct t2_env *e, size_t n, const char *value)
{
	size_t i;

	for (i = 0; i < n; i++)
		t2_env_add(e, "%s=%s", TARGET_VARS[i], value);
	t2_env_add(e, "GIT_TRACE2_BRIEF=1");
	t2_env_add(e, "GIT_TRACE2_PERF_BRIEF=1");
	t2_env_add(e, "GIT_TRACE2_EVENT_BRIEF=1");
}

/* ------------------------------------------------------------------ */
/* Target values.                                                      */
/* ------------------------------------------------------------------ */

/* Rule 1: off, silently, even with the debug switch (every value on
 * every target, three targets a run). */
static void value_off_forms(void **state)
{
	static const char *const values[] = { "0", "false", "FALSE", "fAlSe", "" };
	const size_t n = sizeof(values) / sizeof(values[0]);
	size_t i, j;

	(void)state;
	for (j = 0; j < n; j++) {
		struct t2_env e = { 0 };
		struct t2_proc p;

		for (i = 0; TARGET_VARS[i]; i++)
			t2_env_add(&e, "%s=%s", TARGET_VARS[i], values[(j + i) % n]);
		t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
		run_tool(&e, &p);
		assert_exit_code(p.status, 0);
		assert_string_equal(p.out, "");
		assert_string_equal(p.err, "");
		t2_proc_free(&p);
		t2_env_free(&e);
	}
}

/* Rule 2: "1" and "true" in any case mean stderr (not stdout, fd 1). */
static void value_one_and_true_mean_stderr(void **state)
{
	static const char *const values[] = { "1", "true", "TRUE", "True", NULL };
	size_t i;

	(void)state;
	for (i = 0; values[i]; i++) {
		struct t2_env e = { 0 };
		struct t2_proc p;

		t2_env_add(&e, "GIT_TRACE2=%s", values[i]);
		t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
		run_tool(&e, &p);
		assert_exit_code(p.status, 0);
		assert_string_equal(p.out, "");
		assert_stderr_words(&p, RUN_WORDS);
		t2_proc_free(&p);
		t2_env_free(&e);
	}
}

/* Rule 3: one digit is a descriptor number used as is. */
static void value_digit_is_inherited_fd(void **state)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "fd-file");
	int fd;

	(void)state;
	for (fd = 3; fd <= 9; fd++) {
		struct prep prep = { setup_fd_file, path, fd, 0, NULL, NULL };
		struct t2_env e = { 0 };
		struct t2_proc p;

		unlink(path);
		t2_env_add(&e, "GIT_TRACE2=%d", fd);
		t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
		run_prepared(&prep, &e, &p);
		assert_exit_code(p.status, 0);
		assert_string_equal(p.err, "");
		assert_file_words(path, RUN_WORDS);
		t2_proc_free(&p);
		t2_env_free(&e);
	}
	free(path);
	t2_rmtree(dir);
	free(dir);
}

static void value_digit_two_is_stderr(void **state)
{
	struct t2_env e = { 0 };
	struct t2_proc p;

	(void)state;
	t2_env_add(&e, "GIT_TRACE2_EVENT=2");
	t2_env_add(&e, "GIT_TRACE2_EVENT_BRIEF=1");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	{
		char *names = t2_event_names(p.err);

		assert_string_equal(names, RUN_WORDS);
		free(names);
	}
	t2_proc_free(&p);
	t2_env_free(&e);
}

/* File mode with the given umask; the file must get mode. */
static void check_file_mode(const char *path, int mask, mode_t mode)
{
	struct prep prep = { setup_umask, NULL, -1, mask, NULL, NULL };
	struct t2_env e = { 0 };
	struct t2_proc p;
	struct stat st;

	unlink(path);
	t2_env_add(&e, "GIT_TRACE2=%s", path);
	t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
	run_prepared(&prep, &e, &p);
	assert_exit_code(p.status, 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, mode);
	t2_proc_free(&p);
	t2_env_free(&e);
}

/* Any other absolute path: created 0666 minus the umask, appended to. */
static void value_absolute_file(void **state)
{
	T2_SKIP_ON_WINDOWS("file modes and the umask are POSIX's");
	char *dir = t2_tmpdir(), *path = t2_path(dir, "trace.log");
	struct t2_env e = { 0 };
	struct t2_proc p;

	(void)state;
	check_file_mode(path, 0, 0666);
	check_file_mode(path, 027, 0640);
	t2_env_add(&e, "GIT_TRACE2=%s", path);
	t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	assert_file_words(path, RUN_WORDS " " RUN_WORDS);
	t2_proc_free(&p);
	t2_env_free(&e);
	free(path);
	t2_rmtree(dir);
	free(dir);
}

/* A directory: a file named after the last SID component. */
static void check_directory_value(const char *dir, const char *value)
{
	struct t2_env e = { 0 };
	struct t2_proc p;
	char *name, *path, *text, *want;
	struct tjson *v;

	t2_env_add(&e, "GIT_TRACE2_EVENT=%s", value);
	t2_env_add(&e, "GIT_TRACE2_PARENT_SID=outer/parent");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	name = only_entry(dir);
	assert_true(t2_matches(name, SID_RE));
	path = t2_path(dir, name);
	text = t2_read_file(path, NULL);
	v = tjson_parse(text, strcspn(text, "\n"), NULL);
	assert_non_null(v);
	want = NULL;
	t2_append(&want, "outer/parent/%s", name);
	assert_string_equal(tjson_get_str(v, "sid"), want);
	tjson_free(v);
	unlink(path);
	free(want);
	free(text);
	free(path);
	free(name);
	t2_proc_free(&p);
	t2_env_free(&e);
}

static void value_directory(void **state)
{
	char *dir = t2_tmpdir(), *slash = NULL;

	(void)state;
	t2_append(&slash, "%s/", dir);
	check_directory_value(dir, dir);
	check_directory_value(dir, slash);
	free(slash);
	t2_rmtree(dir);
	free(dir);
}

/* Rule 7: anything else is off and always warned about, one warning
 * per target in the order NORMAL, PERF, EVENT.  Each run gives the
 * three targets three different values of the list, so that every value
 * is tried on every target. */
static void value_unknown_warns_always(void **state)
{
	static const char *const values[] = {
		"yes", "on", "10", " 1", "1 ", "~/log", "relative/path", "log",
		"-1", "01", "af_unix",
	};
	const size_t n = sizeof(values) / sizeof(values[0]);
	char *dir = t2_tmpdir();
	struct prep prep = { setup_chdir, dir, -1, 0, NULL, NULL };
	size_t i, j;

	(void)state;
	for (j = 0; j < n; j++) {
		struct t2_env e = { 0 };
		struct t2_proc p;
		char *want = NULL;

		for (i = 0; TARGET_VARS[i]; i++) {
			t2_env_add(&e, "%s=%s", TARGET_VARS[i], values[(j + i) % n]);
			t2_append(&want, "warning: trace2: unknown value for '%s': '%s'\n",
				  TARGET_VARS[i], values[(j + i) % n]);
		}
		t2_env_add(&e, "HOME=%s", dir);
		run_prepared(&prep, &e, &p);
		assert_exit_code(p.status, 0);
		assert_string_equal(p.err, want);
		assert_string_equal(p.out, "");
		assert_listing(dir, "");
		free(want);
		t2_proc_free(&p);
		t2_env_free(&e);
	}
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* AF_UNIX.                                                             */
/* ------------------------------------------------------------------ */

static int unix_socket(const char *path, int type)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 8), 0);
	return fd;
}

/* Everything the (finished) client sent over its stream connection. */
static char *read_stream(int listener)
{
	int conn = accept4(listener, NULL, NULL, SOCK_NONBLOCK);
	char *text = strdup(""), buf[4096];
	ssize_t n;

	assert_true(conn >= 0);
	while ((n = read(conn, buf, sizeof(buf))) > 0)
		t2_append(&text, "%.*s", (int)n, buf);
	close(conn);
	return text;
}

/* All queued datagrams, each of which must end with exactly one LF. */
static char *read_datagrams(int sock)
{
	char *text = strdup(""), buf[65536];
	ssize_t n;

	while ((n = recv(sock, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		assert_int_equal(buf[n - 1], '\n');
		assert_null(memchr(buf, '\n', (size_t)n - 1));
		t2_append(&text, "%.*s", (int)n, buf);
	}
	return text;
}

static void check_socket_value(const char *value, int sock,
			       char *(*read_all)(int))
{
	struct t2_env e = { 0 };
	struct t2_proc p;
	char *text, *words;

	t2_env_add(&e, "GIT_TRACE2=%s", value);
	t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	text = read_all(sock);
	words = t2_first_words(text);
	assert_string_equal(words, RUN_WORDS);
	free(words);
	free(text);
	t2_proc_free(&p);
	t2_env_free(&e);
}

static void value_af_unix_sockets(void **state)
{
	T2_SKIP_ON_WINDOWS("no Unix sockets in the Windows build: af_unix: is one warning, target off, as in Git for Windows");
	char *dir = t2_tmpdir(), *spath = t2_path(dir, "stream"),
	     *dpath = t2_path(dir, "dgram"), *v = NULL;
	int s = unix_socket(spath, SOCK_STREAM), d = unix_socket(dpath, SOCK_DGRAM);
	const char *const forms[] = { "af_unix:%s", "af_unix:stream:%s" };
	const char *const dforms[] = { "af_unix:%s", "af_unix:dgram:%s" };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		free(v);
		v = NULL;
		t2_append(&v, forms[i], spath);
		check_socket_value(v, s, read_stream);
		free(v);
		v = NULL;
		t2_append(&v, dforms[i], dpath);
		check_socket_value(v, d, read_datagrams);
	}
	free(v);
	close(s);
	close(d);
	free(spath);
	free(dpath);
	t2_rmtree(dir);
	free(dir);
}

/* value in GIT_TRACE2_PERF with debug on: off with exactly message. */
static void check_debug_message(const char *value, const char *message)
{
	struct t2_env e = { 0 };
	struct t2_proc p;

	t2_env_add(&e, "GIT_TRACE2_PERF=%s", value);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.out, "");
	assert_string_equal(p.err, message);
	t2_proc_free(&p);
	t2_env_free(&e);
}

/* check_debug_message() with a value and a message made by t2_xfmt(). */
static void check_debug_owned(char *value, char *message)
{
	check_debug_message(value, message);
	free(value);
	free(message);
}

static void value_af_unix_failures(void **state)
{
	T2_SKIP_ON_WINDOWS("no Unix sockets in the Windows build: af_unix: is one warning, target off, as in Git for Windows");
	char *dir = t2_tmpdir(), *spath = t2_path(dir, "stream"),
	     *dpath = t2_path(dir, "dgram"),
	     longpath[200];
	int s = unix_socket(spath, SOCK_STREAM), d = unix_socket(dpath, SOCK_DGRAM);

	(void)state;
	check_debug_message("af_unix:", "warning: trace2: invalid AF_UNIX value 'af_unix:' for 'GIT_TRACE2_PERF' tracing\n");
	check_debug_message("af_unix:stream:", "warning: trace2: invalid AF_UNIX value 'af_unix:stream:' for 'GIT_TRACE2_PERF' tracing\n");
	check_debug_message("af_unix:dgram:", "warning: trace2: invalid AF_UNIX value 'af_unix:dgram:' for 'GIT_TRACE2_PERF' tracing\n");
	check_debug_message("af_unix:rel/sock", "warning: trace2: invalid AF_UNIX path 'rel/sock' for 'GIT_TRACE2_PERF' tracing\n");
	memset(longpath, 'a', sizeof(longpath));
	longpath[0] = '/';
	longpath[108] = '\0';	/* 108 bytes: as long as sun_path */
	check_debug_owned(t2_xfmt("af_unix:%s", longpath),
			  t2_xfmt("warning: trace2: invalid AF_UNIX path '%s' for 'GIT_TRACE2_PERF' tracing\n", longpath));
	check_debug_owned(t2_xfmt("af_unix:%s/missing", dir),
			  t2_xfmt("warning: trace2: could not connect to socket '%s/missing' for 'GIT_TRACE2_PERF' tracing: No such file or directory\n", dir));
	check_debug_owned(t2_xfmt("af_unix:stream:%s", dpath),
			  t2_xfmt("warning: trace2: could not connect to socket '%s' for 'GIT_TRACE2_PERF' tracing: Protocol wrong type for socket\n", dpath));
	check_debug_owned(t2_xfmt("af_unix:dgram:%s", spath),
			  t2_xfmt("warning: trace2: could not connect to socket '%s' for 'GIT_TRACE2_PERF' tracing: Protocol wrong type for socket\n", spath));
	close(s);
	close(d);
	free(spath);
	free(dpath);
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* Open failures and the debug switch.                                 */
/* ------------------------------------------------------------------ */

/* GIT_TRACE2=path (prepared by prep) with GIT_TRACE2_DST_DEBUG=debug
 * (NULL: unset) must print exactly expected on stderr. */
static void check_open_failure(const struct prep *prep, const char *path,
			       const char *debug, const char *expected)
{
	struct t2_env e = { 0 };
	struct t2_proc p;

	t2_env_add(&e, "GIT_TRACE2=%s", path);
	if (debug)
		t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=%s", debug);
	run_prepared(prep, &e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.out, "");
	assert_string_equal(p.err, expected);
	t2_proc_free(&p);
	t2_env_free(&e);
}

static void open_failure_missing_parent(void **state)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "no/such/file"), *want = NULL;
	struct prep prep = { 0 };

	(void)state;
	t2_append(&want, "warning: trace2: could not open '%s' for 'GIT_TRACE2' tracing: No such file or directory\n", path);
	check_open_failure(&prep, path, "1", want);
	check_open_failure(&prep, path, NULL, "");
	assert_listing(dir, "");
	free(want);
	free(path);
	t2_rmtree(dir);
	free(dir);
}

static void open_failure_permission_denied(void **state)
{
	const char *why;
	char *dir = t2_unprivileged_dir(&why), *ro, *path, *want = NULL;
	struct prep prep = { setup_drop_privileges, NULL, -1, 0, NULL, NULL };

	(void)state;
	if (!dir) {
		print_message("open_failure_permission_denied: skipped: %s\n", why);
		skip();
	}
	prep.path = prep.bin = dir;
	ro = t2_path(dir, "ro");
	path = t2_path(ro, "file");
	assert_int_equal(mkdir(ro, 0555), 0);
	t2_append(&want, "warning: trace2: could not open '%s' for 'GIT_TRACE2' tracing: Permission denied\n", path);
	check_open_failure(&prep, path, "1", want);
	check_open_failure(&prep, path, NULL, "");
	assert_listing(ro, "");
	free(want);
	free(path);
	free(ro);
	t2_rmtree(dir);
	free(dir);
}

/* On iff atoi(value) > 0: not a boolean. */
static void dst_debug_values(void **state)
{
	static const char *const on[] = { "1", "2", "10", " 1", "3x", NULL };
	static const char *const off[] = { "true", "yes", "on", "0", "-1", "", "x1", NULL };
	char *dir = t2_tmpdir(), *path = t2_path(dir, "missing/file"), *want = NULL;
	struct prep prep = { 0 };
	size_t i;

	(void)state;
	t2_append(&want, "warning: trace2: could not open '%s' for 'GIT_TRACE2' tracing: No such file or directory\n", path);
	for (i = 0; on[i]; i++)
		check_open_failure(&prep, path, on[i], want);
	for (i = 0; off[i]; i++)
		check_open_failure(&prep, path, off[i], "");
	free(want);
	free(path);
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* Directory mode.                                                     */
/* ------------------------------------------------------------------ */

/* One process, three targets, one directory: <sid>, <sid>.1, <sid>.2. */
static void directory_three_targets(void **state)
{
	char *dir = t2_tmpdir(), *list, *want = NULL, *sid, *path;
	struct t2_env e = { 0 };
	struct t2_proc p;

	(void)state;
	env_targets(&e, 3, dir);
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	list = t2_listdir(dir);
	sid = strndup(list, strcspn(list, " "));
	assert_true(t2_matches(sid, SID_RE));
	t2_append(&want, "%s %s.1 %s.2", sid, sid, sid);
	assert_string_equal(list, want);
	path = t2_path(dir, sid);
	assert_file_words(path, RUN_WORDS);
	free(path);
	free(want);
	want = NULL;
	t2_append(&want, "%s/%s.2", dir, sid);
	assert_file_events(want, RUN_WORDS);
	free(want);
	want = NULL;
	t2_append(&want, "%s/%s.1", dir, sid);
	{
		char *text = t2_read_file(want, NULL);

		assert_non_null(text);
		assert_true(!strncmp(text, "d0 | main                     | version ", 40));
		free(text);
	}
	free(want);
	free(sid);
	free(list);
	t2_proc_free(&p);
	t2_env_free(&e);
	t2_rmtree(dir);
	free(dir);
}

struct collide {
	const char *dir;
	int taken;	/* names already present: <sid>, <sid>.1, ... */
};

/* The numbered names of directory mode: attempt 0 is <sid>, k is <sid>.k. */
static char *attempt_path(const char *dir, const char *sid, int k)
{
	char *path = NULL;

	if (k)
		t2_append(&path, "%s/%s.%d", dir, sid, k);
	else
		t2_append(&path, "%s/%s", dir, sid);
	return path;
}

/* Take the first c->taken names, print the SID, then initialize. */
static void sc_collide(void *arg)
{
	const struct collide *c = arg;
	const char *sid = trace2_session_id(), *last = strrchr(sid, '/');
	int k;

	last = last ? last + 1 : sid;
	for (k = 0; k < c->taken; k++) {
		char *path = attempt_path(c->dir, last, k);

		if (t2_write_file(path, ""))
			_exit(125);
		free(path);
	}
	printf("%s", last);
	fflush(stdout);
	trace2_initialize();
	trace2_cmd_exit(0);
}

static void check_collisions(int taken)
{
	char *dir = t2_tmpdir(), *want = NULL, *path;
	struct collide c = { dir, taken };
	struct t2_env e = { 0 };
	struct t2_proc p;
	int k;

	t2_env_add(&e, "GIT_TRACE2=%s", dir);
	t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	t2_capture(sc_collide, &c, t2_env_list(&e), 20, &p);
	assert_exit_code(p.status, 0);
	assert_true(t2_matches(p.out, SID_RE));
	for (k = 0; k < taken && k < 10; k++) {
		path = attempt_path(dir, p.out, k);
		assert_file_words(path, "");
		free(path);
	}
	if (taken < 10) {
		assert_string_equal(p.err, "");
		path = attempt_path(dir, p.out, taken);
		assert_file_words(path, "version exit atexit");
		free(path);
	} else {
		t2_append(&want, "warning: trace2: could not open '%s/%s' for 'GIT_TRACE2' tracing: File exists\n",
			  dir, p.out);
		assert_string_equal(p.err, want);
	}
	free(want);
	t2_proc_free(&p);
	t2_env_free(&e);
	t2_rmtree(dir);
	free(dir);
}

static void directory_exclusive_names(void **state)
{
	static const int taken[] = { 1, 2, 5, 9, 10 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		check_collisions(taken[i]);
}

/* A symbolic link to a directory is a directory (stat follows it). */
static void directory_through_symlink(void **state)
{
	T2_SKIP_ON_WINDOWS("symbolic links need a privilege a test does not have");
	char *dir = t2_tmpdir(), *real = t2_path(dir, "real"), *link = t2_path(dir, "link"),
	     *name, *path;
	struct t2_env e = { 0 };
	struct t2_proc p;

	(void)state;
	assert_int_equal(mkdir(real, 0777), 0);
	assert_int_equal(symlink(real, link), 0);
	env_targets(&e, 1, link);
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	name = only_entry(real);
	assert_true(t2_matches(name, SID_RE));
	path = t2_path(real, name);
	assert_file_words(path, RUN_WORDS);
	assert_listing(dir, "link real");
	free(path);
	free(name);
	t2_proc_free(&p);
	t2_env_free(&e);
	free(real);
	free(link);
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* maxFiles and the discard sentinel.                                  */
/* ------------------------------------------------------------------ */

/* Run 001return 0 with the first ntargets targets on dir (brief),
 * GIT_TRACE2_MAX_FILES=max (NULL: unset) and the debug switch if debug. */
static void run_in_dir(const char *dir, size_t ntargets, const char *max,
		       int debug, struct t2_proc *p)
{
	struct t2_env e = { 0 };

	env_targets(&e, ntargets, dir);
	if (max)
		t2_env_add(&e, "GIT_TRACE2_MAX_FILES=%s", max);
	if (debug)
		t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_tool(&e, p);
	t2_env_free(&e);
}

/* Git's t0212: files 1..5, limit 5 -> the sentinel, holding "version"
 * then "too_many_files" (at the location of "version"); a later process
 * writes nothing. */
static void max_files_t0212(void **state)
{
	char *dir = t2_tmpdir(), *sentinel = t2_path(dir, SENTINEL), *first, *again;
	struct t2_env e = { 0 };
	struct t2_proc p;
	char **lines;
	struct tjson *v, *t;

	(void)state;
	put_numbered(dir, 5);
	t2_env_add(&e, "GIT_TRACE2_EVENT=%s", dir);
	t2_env_add(&e, "GIT_TRACE2_MAX_FILES=5");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	t2_proc_free(&p);
	assert_listing(dir, "1 2 3 4 5 " SENTINEL);
	first = t2_read_file(sentinel, NULL);
	lines = t2_lines(first, NULL);
	assert_non_null(lines[0]);
	assert_non_null(lines[1]);
	v = tjson_parse(lines[0], strlen(lines[0]), NULL);
	t = tjson_parse(lines[1], strlen(lines[1]), NULL);
	assert_string_equal(tjson_get_str(v, "event"), "version");
	assert_string_equal(tjson_get_str(t, "event"), "too_many_files");
	assert_string_equal(tjson_get_str(t, "file"), tjson_get_str(v, "file"));
	assert_string_equal(tjson_get(t, "line")->text, tjson_get(v, "line")->text);
	tjson_free(v);
	tjson_free(t);
	t2_strv_free(lines);
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	again = t2_read_file(sentinel, NULL);
	assert_string_equal(again, first);
	assert_listing(dir, "1 2 3 4 5 " SENTINEL);
	free(again);
	free(first);
	t2_proc_free(&p);
	t2_env_free(&e);
	free(sentinel);
	t2_rmtree(dir);
	free(dir);
}

/* "." and ".." count: n-3 files stay below the limit, n-2 reach it. */
static void max_files_counts_dot_entries(void **state)
{
	char *dir = t2_tmpdir(), *name, *sentinel = t2_path(dir, SENTINEL);
	struct t2_proc p;

	(void)state;
	put_numbered(dir, 2);
	run_in_dir(dir, 1, "5", 1, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	t2_proc_free(&p);
	name = t2_listdir(dir);
	assert_true(!strncmp(name, "1 2 ", 4) && t2_matches(name + 4, SID_RE));
	free(name);
	/* now 3 files: 5 entries with "." and ".." */
	run_in_dir(dir, 1, "5", 1, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	assert_file_words(sentinel, RUN_WORDS);
	t2_proc_free(&p);
	free(sentinel);
	t2_rmtree(dir);
	free(dir);
}

/* A limit past the int range is the largest limit, not what atoi()'s
 * overflow makes of it (4294967297 became 1: every directory was full). */
static void max_files_beyond_int_is_no_small_limit(void **state)
{
	char *dir = t2_tmpdir(), *name;
	struct t2_proc p;

	(void)state;
	run_in_dir(dir, 1, "4294967297", 1, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	t2_proc_free(&p);
	name = t2_listdir(dir);
	assert_true(t2_matches(name, SID_RE));
	free(name);
	t2_rmtree(dir);
	free(dir);
}

/* A present sentinel switches a directory target off (debug message);
 * limit 0 ("0", "abc", a negative value) disables the check. */
static void max_files_sentinel_present(void **state)
{
	char *dir = t2_tmpdir(), *want = NULL, *list;
	struct t2_proc p;
	static const char *const no_limit[] = { "0", "abc", "-1", "", NULL };
	size_t i;

	(void)state;
	put_file(dir, SENTINEL, "");
	run_in_dir(dir, 3, "100", 1, &p);
	assert_exit_code(p.status, 0);
	t2_append(&want, "warning: trace2: not opening GIT_TRACE2 trace file due to too many files in target directory %s\n"
		  "warning: trace2: not opening GIT_TRACE2_PERF trace file due to too many files in target directory %s\n"
		  "warning: trace2: not opening GIT_TRACE2_EVENT trace file due to too many files in target directory %s\n",
		  dir, dir, dir);
	assert_string_equal(p.err, want);
	t2_proc_free(&p);
	run_in_dir(dir, 3, "100", 0, &p);
	assert_string_equal(p.err, "");
	t2_proc_free(&p);
	assert_listing(dir, SENTINEL);
	for (i = 0; no_limit[i]; i++) {
		run_in_dir(dir, 1, no_limit[i], 1, &p);
		assert_string_equal(p.err, "");
		t2_proc_free(&p);
		list = t2_listdir(dir);
		assert_int_equal(strlen(list), strlen(SENTINEL) + (i + 1) * (1 + 43));
		free(list);
	}
	free(want);
	t2_rmtree(dir);
	free(dir);
}

/* NORMAL makes the sentinel and writes into it; EVENT then finds it. */
static void max_files_normal_and_event(void **state)
{
	char *dir = t2_tmpdir(), *sentinel = t2_path(dir, SENTINEL), *want = NULL;
	struct t2_env e = { 0 };
	struct t2_proc p;

	(void)state;
	put_numbered(dir, 5);
	t2_env_add(&e, "GIT_TRACE2=%s", dir);
	t2_env_add(&e, "GIT_TRACE2_EVENT=%s", dir);
	t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
	t2_env_add(&e, "GIT_TRACE2_MAX_FILES=5");
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	t2_append(&want, "warning: trace2: not opening GIT_TRACE2_EVENT trace file due to too many files in target directory %s\n", dir);
	assert_string_equal(p.err, want);
	assert_listing(dir, "1 2 3 4 5 " SENTINEL);
	assert_file_words(sentinel, RUN_WORDS);
	free(want);
	t2_proc_free(&p);
	t2_env_free(&e);
	free(sentinel);
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* Write failures.                                                     */
/* ------------------------------------------------------------------ */

/* GIT_TRACE2=9 with fd 9 closed: PERF starts with the error record. */
static void write_failure_first_in_other_target(void **state)
{
	char *dir = t2_tmpdir(), *perf = t2_path(dir, "perf"), *raw, *text;
	struct prep prep = { setup_close_fd, NULL, 9, 0, NULL, NULL };
	struct t2_env e = { 0 };
	struct t2_proc p;
	char **lines;

	(void)state;
	t2_env_add(&e, "GIT_TRACE2=9");
	t2_env_add(&e, "GIT_TRACE2_PERF=%s", perf);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_prepared(&prep, &e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "warning: unable to write trace to 'GIT_TRACE2': Bad file descriptor\n");
	raw = t2_read_file(perf, NULL);
	assert_non_null(raw);
	text = t2_scrub(raw);
	lines = t2_lines(text, NULL);
	assert_string_equal(lines[0], "00:00:00.000000 usage.c:99                   | d0 | main                     | error        |     |           |           |              | unable to write trace to 'GIT_TRACE2': Bad file descriptor");
	assert_non_null(strstr(lines[1], "| version      |"));
	t2_strv_free(lines);
	free(text);
	free(raw);
	t2_proc_free(&p);
	t2_env_free(&e);
	free(perf);
	t2_rmtree(dir);
	free(dir);
}

/* The first line of the EVENT file is the "error" record of the
 * warning text message (without its LF). */
static void assert_first_error(const char *path, const char *message)
{
	char *text = t2_read_file(path, NULL), *msg = strndup(message, strcspn(message, "\n"));
	struct tjson *v;

	assert_non_null(text);
	v = tjson_parse(text, strcspn(text, "\n"), NULL);
	assert_non_null(v);
	assert_string_equal(tjson_get_str(v, "event"), "error");
	assert_string_equal(tjson_get_str(v, "msg"), msg);
	assert_string_equal(tjson_get_str(v, "fmt"), "unable to write trace to '%s': %s");
	assert_string_equal(tjson_get_str(v, "file"), "usage.c");
	assert_string_equal(tjson_get(v, "line")->text, "99");
	tjson_free(v);
	free(msg);
	free(text);
}

/* The write limit of the failing destinations: a full pipe is given up
 * after this, not after the default 5 s. */
#define FAILURE_LIMIT_MS 100

/*
 * GIT_TRACE2 on a destination that fails (prepared by prep, value
 * target): the host's stdout and exit code are those of an untraced run;
 * with debug exactly one warning naming strerror(err) and an "error"
 * record first on EVENT (then the whole run there, no "signal");
 * without debug nothing at all.
 */
static void check_write_failure(const struct prep *prep, const char *target, int err)
{
	char *dir = t2_tmpdir(), *event = t2_path(dir, "event"), *want = NULL;
	struct t2_proc base, p;
	struct t2_env plain = { 0 }, e = { 0 }, quiet = { 0 };

	run_prepared(prep, &plain, &base);
	t2_env_add(&e, "GIT_TRACE2=%s", target);
	t2_env_add(&e, "GIT_TRACE2_EVENT=%s", event);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	t2_env_add(&e, "GIT_TRACE2_DST_TIMEOUT=%d", FAILURE_LIMIT_MS);
	run_prepared(prep, &e, &p);
	assert_int_equal(p.status, base.status);
	assert_true(WIFEXITED(p.status));
	assert_string_equal(p.out, base.out);
	t2_append(&want, "warning: unable to write trace to 'GIT_TRACE2': %s\n", strerror(err));
	assert_string_equal(p.err, want);
	assert_file_events(event, "error version start " T2_ANCESTRY(" ") "cmd_name child_start child_exit exit atexit");
	assert_first_error(event, want + strlen("warning: "));
	t2_proc_free(&p);
	t2_env_add(&quiet, "GIT_TRACE2=%s", target);
	t2_env_add(&quiet, "GIT_TRACE2_DST_TIMEOUT=%d", FAILURE_LIMIT_MS);
	run_prepared(prep, &quiet, &p);
	assert_int_equal(p.status, base.status);
	assert_string_equal(p.out, base.out);
	assert_string_equal(p.err, "");
	free(want);
	t2_proc_free(&p);
	t2_proc_free(&base);
	t2_env_free(&e);
	t2_env_free(&quiet);
	free(event);
	t2_rmtree(dir);
	free(dir);
}

static void write_failure_enospc(void **state)
{
	T2_SKIP_ON_WINDOWS("no /dev/full to fail a write with ENOSPC");
	struct prep prep = { NULL, NULL, -1, 0, CHILD3, NULL };

	(void)state;
	check_write_failure(&prep, "/dev/full", ENOSPC);
}

/* The reader of a trace pipe is gone: EPIPE, no SIGPIPE, no "signal". */
static void write_failure_epipe(void **state)
{
	T2_SKIP_ON_WINDOWS("the traced child is a POSIX shell (sh -c)");
	struct prep prep = { setup_closed_pipe, NULL, 5, 0, CHILD3, NULL };

	(void)state;
	check_write_failure(&prep, "5", EPIPE);
}

static void write_failure_eagain(void **state)
{
	T2_SKIP_ON_WINDOWS("no non-blocking anonymous pipes for the C runtime's descriptors");
	struct prep prep = { setup_full_pipe, NULL, 6, 0, CHILD3, NULL };

	(void)state;
	check_write_failure(&prep, "6", EAGAIN);
}

static void write_failure_ebadf(void **state)
{
	T2_SKIP_ON_WINDOWS("the traced child is a POSIX shell (sh -c)");
	struct prep prep = { setup_close_fd, NULL, 7, 0, CHILD3, NULL };

	(void)state;
	check_write_failure(&prep, "7", EBADF);
}

/* Two failing targets: one warning each, in resolution order; the
 * remaining target gets both "error" records before its "version". */
static void write_failure_two_targets(void **state)
{
	T2_SKIP_ON_WINDOWS("no /dev/full to fail a write with ENOSPC");
	char *dir = t2_tmpdir(), *event = t2_path(dir, "event"), *text, *names;
	struct t2_env e = { 0 };
	struct t2_proc p;

	(void)state;
	t2_env_add(&e, "GIT_TRACE2=/dev/full");
	t2_env_add(&e, "GIT_TRACE2_PERF=/dev/full");
	t2_env_add(&e, "GIT_TRACE2_EVENT=%s", event);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_tool(&e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err,
			    "warning: unable to write trace to 'GIT_TRACE2': No space left on device\n"
			    "warning: unable to write trace to 'GIT_TRACE2_PERF': No space left on device\n");
	assert_file_events(event, "error error " RUN_WORDS);
	text = t2_read_file(event, NULL);
	names = strstr(text, "'GIT_TRACE2': No space");
	assert_non_null(names);
	assert_non_null(strstr(text, "'GIT_TRACE2_PERF': No space"));
	assert_true(names < strstr(text, "\"event\":\"version\""));
	free(text);
	t2_proc_free(&p);
	t2_env_free(&e);
	free(event);
	t2_rmtree(dir);
	free(dir);
}

/*
 * A number not open at initialize is checked there, in every mode: the
 * host then opens a file of its own, which gets that number, and traces
 * on.  Before, buffered and deferred records went into the host's file.
 */
#define REUSED_FD 3

static void sc_host_file_takes_fd(void *arg)
{
	int fd;

	close(REUSED_FD);
	trace2_initialize_clock();
	trace2_initialize();
	fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	CHECK(fd == REUSED_FD);
	CHECK(write(fd, "host\n", 5) == 5);
	trace2_printf("after the host's open");
	trace2_region_enter("test", "region", NULL);
	trace2_region_leave("test", "region", NULL);
	trace2_flush();
	exit(trace2_cmd_exit(0));
}

/* GIT_TRACE2_EVENT=3 with mode (a setting, or NULL): the host's file has
 * the host's line only, and the debug switch gives Git's warning for a
 * first write to a closed descriptor, once. */
static void check_fd_closed_at_initialize(const char *mode)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "host-file"), *text;
	struct t2_env e = { 0 };
	struct t2_proc p;

	t2_env_add(&e, "GIT_TRACE2_EVENT=%d", REUSED_FD);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	if (mode)
		t2_env_add(&e, "%s", mode);
	t2_capture(sc_host_file_takes_fd, path, t2_env_list(&e), 20, &p);
	assert_exit_code(p.status, 0);
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	assert_string_equal(text, "host\n");
	assert_string_equal(p.err,
			    "warning: unable to write trace to 'GIT_TRACE2_EVENT': Bad file descriptor\n");
	free(text);
	t2_proc_free(&p);
	t2_env_free(&e);
	free(path);
	t2_rmtree(dir);
	free(dir);
}

static void fd_closed_at_initialize_plain(void **state)
{
	(void)state;
	check_fd_closed_at_initialize(NULL);
}

static void fd_closed_at_initialize_buffered(void **state)
{
	(void)state;
	check_fd_closed_at_initialize("GIT_TRACE2_BUFFER=64k");
}

static void fd_closed_at_initialize_deferred(void **state)
{
	(void)state;
	check_fd_closed_at_initialize("GIT_TRACE2_DEFERRED=1");
}

/* ------------------------------------------------------------------ */
/* Closing at exit.                                                    */
/* ------------------------------------------------------------------ */

#define INHERITED_FD 8
#define MAX_PROBED_FD 1024
static unsigned char open_before[MAX_PROBED_FD];

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Registered before trace2_initialize(), so it runs after trace2's
 * atexit handler: every descriptor trace2 opened is closed again, the
 * inherited ones (2, INHERITED_FD) are not. */
static void check_closed_at_exit(void)
{
	int fd;

	for (fd = 0; fd < MAX_PROBED_FD; fd++)
		if (fd_is_open(fd) != open_before[fd])
			_exit(fd_is_open(fd) ? 60 : 61);
}

static void sc_closing(void *arg)
{
	int fd = open("/dev/null", O_WRONLY);

	(void)arg;
	if (fd < 0 || dup2(fd, INHERITED_FD) < 0)
		_exit(125);
	close(fd);
	for (fd = 0; fd < MAX_PROBED_FD; fd++)
		open_before[fd] = (unsigned char)fd_is_open(fd);
	atexit(check_closed_at_exit);
	trace2_initialize();
	trace2_cmd_exit(0);
}

static void check_closing(const struct t2_env *e)
{
	struct t2_proc p;

	t2_capture(sc_closing, NULL, t2_env_list(e), 20, &p);
	assert_string_equal(p.err, "");
	assert_exit_code(p.status, 0);
	t2_proc_free(&p);
}

static void descriptors_closed_at_exit(void **state)
{
	T2_SKIP_ON_WINDOWS("the descriptor checks use Unix sockets and fcntl()");
	char *dir = t2_tmpdir(), *sock = t2_path(dir, "sock"), *tdir = t2_path(dir, "d");
	int s = unix_socket(sock, SOCK_STREAM);
	struct t2_env e = { 0 };

	(void)state;
	assert_int_equal(mkdir(tdir, 0777), 0);
	t2_env_add(&e, "GIT_TRACE2=%s/normal", dir);
	t2_env_add(&e, "GIT_TRACE2_PERF=%s", tdir);
	t2_env_add(&e, "GIT_TRACE2_EVENT=af_unix:%s", sock);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	check_closing(&e);
	t2_env_free(&e);
	t2_env_add(&e, "GIT_TRACE2=%d", INHERITED_FD);
	t2_env_add(&e, "GIT_TRACE2_PERF=%s", tdir);
	t2_env_add(&e, "GIT_TRACE2_MAX_FILES=1");	/* the sentinel */
	t2_env_add(&e, "GIT_TRACE2_EVENT=2");
	t2_env_add(&e, "GIT_TRACE2_EVENT_BRIEF=1");
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	{
		struct t2_proc p;

		t2_capture(sc_closing, NULL, t2_env_list(&e), 20, &p);
		assert_exit_code(p.status, 0);
		assert_non_null(strstr(p.err, "\"event\":\"atexit\""));
		t2_proc_free(&p);
	}
	{
		char *list = t2_listdir(tdir);

		assert_non_null(strstr(list, SENTINEL));
		free(list);
	}
	t2_env_free(&e);
	close(s);
	free(sock);
	free(tdir);
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* Descriptors trace2 opens are close-on-exec.                         */
/* ------------------------------------------------------------------ */

static const char *const LIST_FDS[] = {
	"trace2", "004child", "sh", "-c", "ls -l /proc/$$/fd/", NULL
};

/* The descriptor numbers (sorted) of an "ls -l /proc/<pid>/fd/" listing. */
static char *fd_numbers(const char *listing)
{
	char **lines = t2_lines(listing, NULL), *out = strdup("");
	size_t i;

	for (i = 0; lines[i]; i++) {
		const char *arrow = strstr(lines[i], " -> "), *p;

		if (!arrow)
			continue;
		for (p = arrow; p > lines[i] && p[-1] != ' '; p--)
			;
		t2_append(&out, "%.*s ", (int)(arrow - p), p);
	}
	t2_strv_free(lines);
	return out;
}

/* The child of a traced driver (file, directory file or sentinel, and a
 * socket target) holds no more descriptors than an untraced one's. */
static void check_no_inherited(const char *max_files)
{
	char *dir = t2_tmpdir(), *file = t2_path(dir, "normal"), *tdir = t2_path(dir, "d"),
	     *sock = t2_path(dir, "sock"), *plain_fds, *fds;
	int s = unix_socket(sock, SOCK_STREAM);
	struct prep prep = { setup_close_stray, NULL, -1, 0, LIST_FDS, NULL };
	struct t2_env plain = { 0 }, e = { 0 };
	struct t2_proc base, p;

	assert_int_equal(mkdir(tdir, 0777), 0);
	run_prepared(&prep, &plain, &base);
	t2_env_add(&e, "GIT_TRACE2=%s", file);
	t2_env_add(&e, "GIT_TRACE2_BRIEF=1");
	t2_env_add(&e, "GIT_TRACE2_PERF=%s", tdir);
	t2_env_add(&e, "GIT_TRACE2_EVENT=af_unix:%s", sock);
	t2_env_add(&e, "GIT_TRACE2_MAX_FILES=%s", max_files);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_prepared(&prep, &e, &p);
	assert_exit_code(p.status, 0);
	assert_string_equal(p.err, "");
	assert_null(strstr(p.out, "socket:"));
	assert_null(strstr(p.out, dir));
	plain_fds = fd_numbers(base.out);
	fds = fd_numbers(p.out);
	assert_string_equal(fds, plain_fds);
	assert_string_equal(fds, "0 1 2 ");
	assert_file_words(file, "version start " T2_ANCESTRY(" ") "cmd_name child_start[0] child_exit[0] exit atexit");
	free(plain_fds);
	free(fds);
	t2_proc_free(&p);
	t2_proc_free(&base);
	t2_env_free(&e);
	close(s);
	free(file);
	free(tdir);
	free(sock);
	t2_rmtree(dir);
	free(dir);
}

static void descriptors_close_on_exec(void **state)
{
	T2_SKIP_ON_WINDOWS("the descriptor checks use Unix sockets and fcntl()");
	(void)state;
	check_no_inherited("0");	/* PERF: <dir>/<sid> */
	check_no_inherited("2");	/* PERF: the sentinel */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(value_off_forms),
		cmocka_unit_test(value_one_and_true_mean_stderr),
		cmocka_unit_test(value_digit_is_inherited_fd),
		cmocka_unit_test(value_digit_two_is_stderr),
		cmocka_unit_test(value_absolute_file),
		cmocka_unit_test(value_directory),
		cmocka_unit_test(value_unknown_warns_always),
		cmocka_unit_test(value_af_unix_sockets),
		cmocka_unit_test(value_af_unix_failures),
		cmocka_unit_test(open_failure_missing_parent),
		cmocka_unit_test(open_failure_permission_denied),
		cmocka_unit_test(dst_debug_values),
		cmocka_unit_test(directory_three_targets),
		cmocka_unit_test(directory_exclusive_names),
		cmocka_unit_test(directory_through_symlink),
		cmocka_unit_test(max_files_t0212),
		cmocka_unit_test(max_files_counts_dot_entries),
		cmocka_unit_test(max_files_beyond_int_is_no_small_limit),
		cmocka_unit_test(max_files_sentinel_present),
		cmocka_unit_test(max_files_normal_and_event),
		cmocka_unit_test(write_failure_first_in_other_target),
		cmocka_unit_test(write_failure_enospc),
		cmocka_unit_test(write_failure_epipe),
		cmocka_unit_test(write_failure_eagain),
		cmocka_unit_test(write_failure_ebadf),
		cmocka_unit_test(write_failure_two_targets),
		cmocka_unit_test(fd_closed_at_initialize_plain),
		cmocka_unit_test(fd_closed_at_initialize_buffered),
		cmocka_unit_test(fd_closed_at_initialize_deferred),
		cmocka_unit_test(descriptors_closed_at_exit),
		cmocka_unit_test(descriptors_close_on_exec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
