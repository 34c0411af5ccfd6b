/*
 * trace2-tool -- the test driver: Git's "test-tool trace2" helper and its
 * host program in one file, behaving as Git's does.
 *
 * Run as "trace2-tool [-C <dir>] trace2 <subcommand> [args]".  It makes
 * the same trace2 calls, in the same order and with Git's source
 * locations, as Git's test-tool; it reproduces the parts of Git's host
 * code that trace (main(), the exit() wrapper, die()/error()/BUG()/bug(),
 * run-command), so its output can be compared with Git's byte for byte.
 *
 * Environment: T2TOOL_VERSION, if set, is the version string reported by
 * the "version" event (default: the library version).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#else
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#endif

#include "trace2.h"

#define UNUSED __attribute__((unused))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof(*(a)))

/* Git's source files, for the locations printed by non-brief targets. */
#define COMMON_EXIT_C "common-exit.c"
#define COMMON_INIT_C "common-init.c"
#define COMMON_MAIN_C "common-main.c"
#define RUN_COMMAND_C "run-command.c"
#define TEST_TOOL_C "t/helper/test-tool.c"
#define TEST_TRACE2_C "t/helper/test-trace2.c"
#define USAGE_C "usage.c"

/*
 * Locations Git's output does not show: the exit(128) of test-tool's usage
 * message (printed), and the two listing calls after cmd_name (never
 * printed: cmd_name has already listed, and each lists once).
 */
#define TEST_TOOL_USAGE_EXIT_LINE 0
#define TEST_TOOL_LIST_CONFIG_LINE 133
#define TEST_TOOL_LIST_ENV_VARS_LINE 134

/* ------------------------------------------------------------------ */
/* Host state                                                          */
/* ------------------------------------------------------------------ */

/* Exit code of BUG(); 0 means abort() (test-tool sets 99). */
static int bug_exit_code;
/* Set by bug(), cleared by BUG(); checked by the exit wrapper. */
static int bug_called_must_BUG;
/* Git's global repository: never defined, so its trace2 id stays 0. */
static struct repository the_repository;

static _Noreturn void BUG_fl(const char *file, int line, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

/* ------------------------------------------------------------------ */
/* The exit() wrapper                                                  */
/* ------------------------------------------------------------------ */

static _Noreturn void host_exit(const char *file, int line, int code)
{
	code &= 0xff;
	if (bug_called_must_BUG)
		BUG_fl(COMMON_EXIT_C, 8, "on exit(): had bug() call(s) in this "
		       "process without explicit BUG_if_bug()");
	trace2_cmd_exit_fl(file, line, code);
	exit(code);
}

/* ------------------------------------------------------------------ */
/* Message functions                                                   */
/* ------------------------------------------------------------------ */

/* write() all of buf, retrying only after a partial write or EINTR. */
static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/*
 * Write prefix + message + LF to stderr in one write(), with control
 * characters other than TAB and LF replaced by '?'.
 */
static void report(const char *prefix, const char *fmt, va_list ap)
{
	char msg[4096];
	size_t off = strlen(prefix); /* short: at most a BUG prefix */
	size_t len;

	memcpy(msg, prefix, off);
	/* leave room for the LF */
	if (vsnprintf(msg + off, sizeof(msg) - off - 1, fmt, ap) < 0)
		msg[off] = '\0';
	len = off + strlen(msg + off);
	for (char *p = msg + off; p < msg + len; p++)
		if (iscntrl((unsigned char)*p) && *p != '\t' && *p != '\n')
			*p = '?';
	msg[len++] = '\n';
	write_all(2, msg, len);
}

/* The "BUG: <file>:<line>: <message>" line of BUG() and bug(). */
static void report_bug(const char *file, int line, const char *fmt, va_list ap)
{
	char prefix[256];

	snprintf(prefix, sizeof(prefix), "BUG: %s:%d: ", file, line);
	report(prefix, fmt, ap);
}

/* The error record (at file:line) first, then the stderr line. */
static void record_and_report(const char *file, int line, const char *prefix,
			      const char *fmt, va_list ap)
{
	va_list copy;

	va_copy(copy, ap);
	trace2_cmd_error_va_fl(file, line, fmt, copy);
	va_end(copy);
	report(prefix, fmt, ap);
}

static _Noreturn PRINTF_LIKE(1, 2) void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_and_report(USAGE_C, 73, "fatal: ", fmt, ap);
	va_end(ap);
	host_exit(USAGE_C, 87, 128);
}

static PRINTF_LIKE(1, 2) int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_and_report(USAGE_C, 92, "error: ", fmt, ap);
	va_end(ap);
	return -1;
}

/* fmt + ": " + strerror(errnum), with '%' of strerror doubled. */
static void fmt_with_err(char *buf, size_t size, const char *fmt, int errnum)
{
	char quoted[256];
	const char *err = strerror(errnum);
	size_t j = 0;

	for (; *err && j < sizeof(quoted) - 2; err++) {
		if (*err == '%')
			quoted[j++] = '%';
		quoted[j++] = *err;
	}
	quoted[j] = '\0';
	snprintf(buf, size, "%s: %s", fmt, quoted);
}

static PRINTF_LIKE(1, 2) int error_errno(const char *fmt, ...)
{
	char fmt_err[1024];
	va_list ap;

	fmt_with_err(fmt_err, sizeof(fmt_err), fmt, errno);
	va_start(ap, fmt);
	record_and_report(USAGE_C, 92, "error: ", fmt_err, ap);
	va_end(ap);
	return -1;
}

/*
 * BUG(): also the library's BUG handler.  A BUG raised while handling one
 * (e.g. from the exit path) prints its line and aborts.
 */
static _Noreturn void BUG_vfl(const char *file, int line, const char *fmt,
			      va_list ap)
{
	static int in_bug;
	va_list copy;

	bug_called_must_BUG = 0;
	va_copy(copy, ap);
	report_bug(file, line, fmt, ap);
	if (in_bug)
		abort();
	in_bug = 1;
	trace2_cmd_error_va_fl(USAGE_C, 346, fmt, copy);
	va_end(copy);
	if (bug_exit_code)
		host_exit(USAGE_C, 349, bug_exit_code);
	abort();
}

static _Noreturn void BUG_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	BUG_vfl(file, line, fmt, ap);
}

static PRINTF_LIKE(3, 4) void bug_fl(const char *file, int line,
				     const char *fmt, ...)
{
	va_list ap;

	bug_called_must_BUG = 1;
	va_start(ap, fmt);
	report_bug(file, line, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	trace2_cmd_error_va_fl(USAGE_C, 376, fmt, ap);
	va_end(ap);
}

static PRINTF_LIKE(3, 4) void BUG_if_bug_fl(const char *file, int line,
					    const char *fmt, ...)
{
	va_list ap;

	if (!bug_called_must_BUG)
		return;
	va_start(ap, fmt);
	BUG_vfl(file, line, fmt, ap);
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb, size);

	if (!p)
		die("out of memory");
	return p;
}

/* A subcommand's number argument: a whole, non-empty decimal number. */
static int get_i(int *value, const char *data)
{
	char *end;
	long v;

	if (!data || !*data)
		return -1;
	errno = 0;
	v = strtol(data, &end, 10);
	if (*end || errno == ERANGE)
		return -1;
	*value = (int)v;
	return 0;
}

/* Exactly n arguments, each a valid get_i() number. */
static int get_n_ints(int argc, const char **argv, int n, int *values)
{
	if (argc != n)
		return -1;
	for (int i = 0; i < n; i++)
		if (get_i(&values[i], argv[i]))
			return -1;
	return 0;
}

#ifdef _WIN32
/*
 * Windows (mingw-w64): threads, children and exec with Win32 calls, as
 * Git for Windows has them; the scenarios' output is the same.
 */
static void sleep_ms(int ms)
{
	if (ms > 0)
		Sleep((DWORD)ms);
}

struct thread_call {
	void *(*fn)(void *);
	void *arg;
};

static unsigned __stdcall thread_main(void *p)
{
	struct thread_call *call = p;

	call->fn(call->arg);
	return 0;
}

/* Start nr threads running fn(arg), then join them in order. */
static void run_threads(int nr, void *(*fn)(void *), void *arg)
{
	struct thread_call call = { fn, arg };
	HANDLE *threads;

	if (nr <= 0)
		return;
	threads = xcalloc((size_t)nr, sizeof(*threads));
	for (int i = 0; i < nr; i++)
		if (!(threads[i] = (HANDLE)_beginthreadex(NULL, 0, thread_main, &call, 0, NULL)))
			die("failed to create thread[%d]", i);
	for (int i = 0; i < nr; i++) {
		if (WaitForSingleObject(threads[i], INFINITE) != WAIT_OBJECT_0)
			die("failed to join thread[%d]", i);
		CloseHandle(threads[i]);
	}
	free(threads);
}
#else
static void sleep_ms(int ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Start nr threads running fn(arg), then join them in order. */
static void run_threads(int nr, void *(*fn)(void *), void *arg)
{
	pthread_t *threads;

	if (nr <= 0)
		return;
	threads = xcalloc((size_t)nr, sizeof(*threads));
	for (int i = 0; i < nr; i++)
		if (pthread_create(&threads[i], NULL, fn, arg))
			die("failed to create thread[%d]", i);
	for (int i = 0; i < nr; i++)
		if (pthread_join(threads[i], NULL))
			die("failed to join thread[%d]", i);
	free(threads);
}
#endif

/* ------------------------------------------------------------------ */
/* Running children                                                    */
/* ------------------------------------------------------------------ */

#ifdef _WIN32
#define PATH_SEP ';'
#define DIR_SEPS "/\\"
/* Windows programs end in ".exe"; the name may leave it out. */
#define EXE_SUFFIX ".exe"
static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}
#else
#define PATH_SEP ':'
#define DIR_SEPS "/"
#define EXE_SUFFIX ""
static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}
#endif

/* dir/name into buf (name alone for an empty dir), with EXE_SUFFIX if
 * name has no such ending; whether it is an executable file. */
static int try_program(const char *dir, size_t dir_len, const char *name, char *buf,
		       size_t size)
{
	size_t len = strlen(name), suffix = strlen(EXE_SUFFIX);
	const char *add = len >= suffix && !strcmp(name + len - suffix, EXE_SUFFIX) ? "" : EXE_SUFFIX;
	int n = dir_len ? snprintf(buf, size, "%.*s/%s%s", (int)dir_len, dir, name, add) :
			  snprintf(buf, size, "%s%s", name, add);

	return n > 0 && (size_t)n < size && is_executable(buf);
}

/*
 * The program to execute for name: name itself if it contains a
 * directory separator, else the first executable match in $PATH (into
 * buf), else NULL.
 */
static const char *locate_program(const char *name, char *buf, size_t size)
{
	const char *p = getenv("PATH");

	if (strpbrk(name, DIR_SEPS))
		return try_program("", 0, name, buf, size) ? buf : name;
	while (p) {
		const char *end = strchr(p, PATH_SEP);
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (try_program(p, len, name, buf, size))
			return buf;
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

#ifndef _WIN32
/* environ with the "NAME=value" entries of adds applied in order. */
static char **child_environment(const struct strvec *adds)
{
	size_t n = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + adds->nr + 1, sizeof(*env));
	memcpy(env, environ, n * sizeof(*env));
	for (size_t i = 0; i < adds->nr; i++) {
		const char *add = adds->v[i];
		size_t name_len = strcspn(add, "=") + 1;
		size_t j = 0;

		while (j < n && strncmp(env[j], add, name_len))
			j++;
		env[j] = (char *)add;
		if (j == n)
			n++;
	}
	return env;
}
#endif

#ifdef _WIN32
#define LINE_MAX_W 32768

/*
 * arg appended to line at *at as the C runtime's parser reads it back:
 * in quotes if it has a blank or is empty, backslashes doubled before a
 * '"' (which is escaped) and before the closing quote.
 */
static void quote_arg(char *line, size_t *at, const char *arg)
{
	int quote = !*arg || strpbrk(arg, " \t\"") != NULL;
	size_t slashes = 0, n = *at;

	if (quote)
		line[n++] = '"';
	for (; *arg && n < LINE_MAX_W - 4; arg++) {
		if (*arg == '\\') {
			slashes++;
		} else {
			/* the backslashes before a '"' doubled, plus its own */
			for (size_t k = *arg == '"' ? slashes + 1 : 0; k && n < LINE_MAX_W - 4; k--)
				line[n++] = '\\';
			slashes = 0;
		}
		line[n++] = *arg;
	}
	for (; quote && slashes && n < LINE_MAX_W - 4; slashes--)
		line[n++] = '\\';
	if (quote)
		line[n++] = '"';
	if (n >= LINE_MAX_W - 4)
		die("command line too long");
	line[n] = '\0';
	*at = n;
}

/* The process of the last child started (the driver runs one at a time). */
static HANDLE child_process_handle;

/* A's UTF-16 form (the driver's strings are in the ANSI code page, as
 * its argv). */
static wchar_t *wide_of_ansi(const char *a)
{
	int n = MultiByteToWideChar(CP_ACP, 0, a, -1, NULL, 0);
	wchar_t *w = xcalloc(n > 0 ? (size_t)n : 1, sizeof(*w));

	MultiByteToWideChar(CP_ACP, 0, a, -1, w, n);
	return w;
}

/* Whether the "NAME=value" entries a and b have one name (in any case,
 * as Windows compares them; "=C:" names start with '='). */
static int same_variable(const wchar_t *a, const wchar_t *b)
{
	size_t n = wcscspn(a + 1, L"=") + 1;

	return n == wcscspn(b + 1, L"=") + 1 && !_wcsnicmp(a, b, n);
}

/* Whether an entry of adds[from..] sets entry's variable. */
static int replaced(const wchar_t *entry, wchar_t **adds, size_t from)
{
	for (; adds[from]; from++)
		if (same_variable(entry, adds[from]))
			return 1;
	return 0;
}

static void append_entry(wchar_t *block, size_t *at, const wchar_t *entry)
{
	size_t n = wcslen(entry) + 1;

	memcpy(block + *at, entry, n * sizeof(*entry));
	*at += n;
}

/*
 * The block for CreateProcess: the process's own environment, in UTF-16
 * as Windows keeps it (as Git for Windows passes it on; the C runtime's
 * environ, in the ANSI code page, loses what that page cannot write),
 * with the "NAME=value" entries of adds applied in order.
 */
static wchar_t *environment_block(const struct strvec *adds)
{
	wchar_t *own = GetEnvironmentStringsW(), **wadds = xcalloc(adds->nr + 1, sizeof(*wadds));
	wchar_t *block;
	const wchar_t *e;
	size_t len = 1, at = 0;

	for (size_t i = 0; i < adds->nr; i++) {
		wadds[i] = wide_of_ansi(adds->v[i]);
		len += wcslen(wadds[i]) + 1;
	}
	for (e = own; *e; e += wcslen(e) + 1)
		len += wcslen(e) + 1;
	block = xcalloc(len, sizeof(*block));
	for (e = own; *e; e += wcslen(e) + 1)
		if (!replaced(e, wadds, 0))
			append_entry(block, &at, e);
	for (size_t i = 0; i < adds->nr; i++) {
		if (!replaced(wadds[i], wadds, i + 1))
			append_entry(block, &at, wadds[i]);
		free(wadds[i]);
	}
	free(wadds);
	FreeEnvironmentStringsW(own);
	return block;
}

static int start_process(const char *path, const char **argv, const struct strvec *adds,
			 HANDLE *process, DWORD *pid)
{
	char *line = xcalloc(LINE_MAX_W, 1);
	wchar_t *block = environment_block(adds);
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	size_t at = 0;
	int err = 0;

	for (size_t i = 0; argv[i]; i++) {
		if (i)
			line[at++] = ' ';
		quote_arg(line, &at, argv[i]);
	}
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (!CreateProcessA(path, line, NULL, NULL, TRUE, CREATE_UNICODE_ENVIRONMENT, block, NULL,
			    &si, &pi))
		err = GetLastError() == ERROR_FILE_NOT_FOUND ? ENOENT : EACCES;
	free(line);
	free(block);
	if (err)
		return err;
	CloseHandle(pi.hThread);
	*process = pi.hProcess;
	*pid = pi.dwProcessId;
	return 0;
}

static DWORD wait_process(HANDLE process)
{
	DWORD code = 128;

	WaitForSingleObject(process, INFINITE);
	GetExitCodeProcess(process, &code);
	CloseHandle(process);
	return code;
}
#endif

/* Spawn cmd as path (argv[0] = path, without the EXE_SUFFIX that
 * locate_program() added to a path given); returns 0 or an errno value. */
static int spawn_child(struct child_process *cmd, const char *path)
{
	const char **argv = xcalloc(cmd->args.nr + 1, sizeof(*argv));
	int err;

	memcpy(argv, cmd->args.v, cmd->args.nr * sizeof(*argv));
	argv[0] = strpbrk(cmd->args.v[0], DIR_SEPS) ? cmd->args.v[0] : path;
#ifdef _WIN32
	{
		DWORD pid = 0;

		err = start_process(path, argv, &cmd->env, &child_process_handle, &pid);
		cmd->pid = (trace2_pid_t)pid;
	}
#else
	{
		char **env = child_environment(&cmd->env);
		pid_t pid;

		err = posix_spawn(&pid, path, NULL, NULL, (char *const *)argv, env);
		cmd->pid = (trace2_pid_t)pid;
		free(env);
	}
#endif
	free(argv);
	return err;
}

/* The child's exit code, or 128 + signal number if it was killed. */
static int wait_child(const struct child_process *cmd)
{
#ifdef _WIN32
	(void)cmd;
	return (int)(wait_process(child_process_handle) & 0xff);
#else
	const char *argv0 = cmd->args.v[0];
	int status;

	while (waitpid(cmd->pid, &status, 0) < 0)
		if (errno != EINTR)
			return error_errno("waitpid for %s failed", argv0);
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (sig != SIGINT && sig != SIGQUIT && sig != SIGPIPE)
			error("%s died of signal %d", argv0, sig);
		return 128 + sig;
	}
	return WEXITSTATUS(status);
#endif
}

/*
 * exec name with argv: on Windows, as Git for Windows does it, the
 * program runs as a child and this process ends with its exit code.
 * Returns only on failure (errno set).
 */
static void exec_program(const char *name, const char **argv)
{
#ifdef _WIN32
	char buf[PATH_MAX];
	const char *path = locate_program(name, buf, sizeof(buf));
	HANDLE process;
	DWORD pid;

	errno = path ? start_process(path, argv, NULL, &process, &pid) : ENOENT;
	if (!errno)
		exit((int)wait_process(process));
#else
	execvp(name, (char *const *)argv);
#endif
}

/* Git's run_command(): -1 if the program could not be started. */
static int run_command(struct child_process *cmd)
{
	char buf[PATH_MAX];
	const char *path;
	int err, code;

	trace2_child_start_fl(RUN_COMMAND_C, 740, cmd);
	path = locate_program(cmd->args.v[0], buf, sizeof(buf));
	err = path ? spawn_child(cmd, path) : ENOENT;
	if (err) {
		errno = err;
		error_errno("cannot run %s", cmd->args.v[0]);
		cmd->pid = -1;
		trace2_child_exit_fl(RUN_COMMAND_C, 967, cmd, -1);
		return -1;
	}
	code = wait_child(cmd);
	trace2_child_exit_fl(RUN_COMMAND_C, 1007, cmd, code);
	return code;
}

/* A child_process whose args are argv[0..argc). */
static void set_args(struct child_process *cmd, int argc, const char **argv)
{
	cmd->args.v = argv;
	cmd->args.nr = (size_t)argc;
}

/* ------------------------------------------------------------------ */
/* Subcommands                                                         */
/* ------------------------------------------------------------------ */

static int ut_001return(int argc UNUSED, const char **argv)
{
	int ec;

	if (get_i(&ec, argv[0]))
		die("expect <exit_code>");
	return ec;
}

static int ut_002exit(int argc UNUSED, const char **argv)
{
	int ec;

	if (get_i(&ec, argv[0]))
		die("expect <exit_code>");
	host_exit(TEST_TRACE2_C, 79, ec);
}

static int ut_003error(int argc, const char **argv)
{
	if (!argv[0] || !*argv[0])
		die("expect <error_message>");
	for (int i = 0; i < argc; i++)
		error("%s", argv[i]);
	return 0;
}

static int ut_004child(int argc, const char **argv)
{
	struct child_process cmd = CHILD_PROCESS_INIT;

	if (!argc)
		return 0;
	set_args(&cmd, argc, argv);
	host_exit(TEST_TRACE2_C, 152, run_command(&cmd));
}

static int ut_005exec(int argc, const char **argv)
{
	const char **git_argv;
	int exec_id;

	if (!argc)
		return 0;
	git_argv = xcalloc((size_t)argc + 2, sizeof(*git_argv));
	git_argv[0] = "git";
	memcpy(git_argv + 1, argv, (size_t)argc * sizeof(*argv));
	exec_id = trace2_exec_fl(RUN_COMMAND_C, 243, "git", git_argv);
	exec_program("git", git_argv);
	trace2_exec_result_fl(RUN_COMMAND_C, 252, exec_id, errno);
	free(git_argv);
	return -1;
}

static int ut_006data(int argc, const char **argv)
{
	if (argc % 3)
		die("expect <cat0> <k0> <v0> [<cat1> <k1> <v1> [...]]");
	for (; argc > 0; argc -= 3, argv += 3) {
		if (!*argv[0] || !*argv[1] || !*argv[2])
			die("expect <cat0> <k0> <v0> [<cat1> <k1> <v1> [...]]");
		trace2_data_string_fl(TEST_TRACE2_C, 200, argv[0],
				      &the_repository, argv[1], argv[2]);
	}
	return 0;
}

static int ut_007bug(int argc UNUSED, const char **argv UNUSED)
{
	BUG_fl(TEST_TRACE2_C, 213, "the bug message");
}

static int ut_008bug(int argc UNUSED, const char **argv UNUSED)
{
	bug_fl(TEST_TRACE2_C, 218, "a bug message");
	bug_fl(TEST_TRACE2_C, 219, "another bug message");
	BUG_if_bug_fl(TEST_TRACE2_C, 220, "an explicit BUG_if_bug() following "
		      "bug() call(s) is nice, but not required");
	return 0;
}

static int ut_009bug_BUG(int argc UNUSED, const char **argv UNUSED)
{
	bug_fl(TEST_TRACE2_C, 226, "a bug message");
	bug_fl(TEST_TRACE2_C, 227, "another bug message");
	return 0;
}

static int ut_010bug_BUG(int argc UNUSED, const char **argv UNUSED)
{
	bug_fl(TEST_TRACE2_C, 234, "a %s message", "bug");
	BUG_fl(TEST_TRACE2_C, 235, "a %s message", "BUG");
}

struct timer_work {
	int count;
	int ms_delay;
};

/* count intervals of ms_delay each on timer tid. */
static void time_intervals(enum trace2_timer_id tid, const struct timer_work *w)
{
	for (int i = 0; i < w->count; i++) {
		trace2_timer_start(tid);
		sleep_ms(w->ms_delay);
		trace2_timer_stop(tid);
	}
}

/* Exactly n integers into v (dies with usage otherwise), of which the
 * first two are <count> <ms_delay>. */
static struct timer_work get_timer_work(int argc, const char **argv, int n, int *v,
					const char *usage)
{
	struct timer_work w;

	if (get_n_ints(argc, argv, n, v))
		die("%s", usage);
	w.count = v[0];
	w.ms_delay = v[1];
	return w;
}

static int ut_100timer(int argc, const char **argv)
{
	int v[2];
	struct timer_work w = get_timer_work(argc, argv, 2, v, "expect <count> <ms_delay>");

	time_intervals(TRACE2_TIMER_ID_TEST1, &w);
	return 0;
}

static void *ut_101timer_thread(void *data)
{
	trace2_thread_start_fl(TEST_TRACE2_C, 279, "ut_101");
	time_intervals(TRACE2_TIMER_ID_TEST2, data);
	trace2_thread_exit_fl(TEST_TRACE2_C, 287);
	return NULL;
}

static int ut_101timer(int argc, const char **argv)
{
	int v[3];
	struct timer_work w = get_timer_work(argc, argv, 3, v,
					     "expect <count> <ms_delay> <threads>");

	run_threads(v[2], ut_101timer_thread, &w);
	return 0;
}

/* Not in Git's test-tool: count region pairs, then the exit code (for
 * the flight recorder's tests: what an event costs in system calls). */
static int ut_500regions(int argc, const char **argv)
{
	int v[2], k;

	if (get_n_ints(argc, argv, 2, v))
		die("expect <count> <exit_code>");
	for (k = 0; k < v[0]; k++) {
		trace2_region_enter("t2", "pair", NULL);
		trace2_region_leave("t2", "pair", NULL);
	}
	return v[1];
}

static int ut_200counter(int argc, const char **argv)
{
	if (!argc)
		die("expect <v1> [<v2> [...]]");
	for (int i = 0; i < argc; i++) {
		int v;

		if (get_i(&v, argv[i]))
			die("invalid value[%s] -- expect <v1> [<v2> [...]]",
			    argv[i]);
		trace2_counter_add(TRACE2_COUNTER_ID_TEST1, (uint64_t)v);
	}
	return 0;
}

static void *ut_201counter_thread(void *data)
{
	const int *v = data;

	trace2_thread_start_fl(TEST_TRACE2_C, 374, "ut_201");
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, (uint64_t)v[0]);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, (uint64_t)v[1]);
	trace2_thread_exit_fl(TEST_TRACE2_C, 379);
	return NULL;
}

static int ut_201counter(int argc, const char **argv)
{
	int v[3];

	if (get_n_ints(argc, argv, 3, v))
		die("expect <v1> <v2> <threads>");
	run_threads(v[2], ut_201counter_thread, v);
	return 0;
}

static int ut_300redact_start(int argc, const char **argv)
{
	if (!argc)
		die("expect <argv...>");
	trace2_cmd_start_fl(TEST_TRACE2_C, 424, argv);
	return 0;
}

static int ut_301redact_child_start(int argc, const char **argv)
{
	struct child_process cmd = CHILD_PROCESS_INIT;

	if (!argc)
		die("expect <argv...>");
	set_args(&cmd, argc, argv);
	trace2_child_start_fl(TEST_TRACE2_C, 440, &cmd);
	return 0;
}

static int ut_302redact_exec(int argc, const char **argv)
{
	if (!argc)
		die("expect <exe> <argv...>");
	trace2_exec_fl(TEST_TRACE2_C, 452, argv[0], &argv[1]);
	return 0;
}

static int ut_303redact_def_param(int argc, const char **argv)
{
	struct key_value_info kvi = KVI_INIT;

	if (argc < 2)
		die("expect <key> <value>");
	trace2_def_param_fl(TEST_TRACE2_C, 464, argv[0], argv[1], &kvi);
	return 0;
}

/* The environment variable of a 400ancestry target. */
static const char *target_variable(const char *target)
{
	static const char *const targets[][2] = {
		{ "normal", "GIT_TRACE2" },
		{ "perf", "GIT_TRACE2_PERF" },
		{ "event", "GIT_TRACE2_EVENT" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(targets); i++)
		if (!strcmp(target, targets[i][0]))
			return targets[i][1];
	die("invalid target '%s', expected: normal, perf, event", target);
}

static int ut_400ancestry(int argc, const char **argv)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	char target_file[PATH_MAX + 32];
	const char *env[] = {
		"GIT_TRACE2=", "GIT_TRACE2_PERF=", "GIT_TRACE2_EVENT=",
		"GIT_TRACE2_BRIEF=1", target_file, NULL
	};

	if (argc < 3)
		die("expect <target> <output_file> <child_command_line>");
	snprintf(target_file, sizeof(target_file), "%s=%s",
		 target_variable(argv[0]), argv[1]);
	cmd.env.v = env;
	cmd.env.nr = ARRAY_SIZE(env) - 1;
	set_args(&cmd, argc - 2, argv + 2);
	host_exit(TEST_TRACE2_C, 523, run_command(&cmd));
}

/* ------------------------------------------------------------------ */
/* The trace2 helper: subcommand table, usage, dispatch                */
/* ------------------------------------------------------------------ */

struct subcommand {
	const char *name;
	const char *usage;
	int (*fn)(int argc, const char **argv);
};

static const struct subcommand subcommands[] = {
	{ "001return", "<exit_code>", ut_001return },
	{ "002exit", "<exit_code>", ut_002exit },
	{ "003error", "<error_message>+", ut_003error },
	{ "004child", "[<child_command_line>]", ut_004child },
	{ "005exec", "<git_command_args>", ut_005exec },
	{ "006data", "[<category> <key> <value>]+", ut_006data },
	{ "007bug", "", ut_007bug },
	{ "008bug", "", ut_008bug },
	{ "009bug_BUG", "", ut_009bug_BUG },
	{ "010bug_BUG", "", ut_010bug_BUG },
	{ "100timer", "<count> <ms_delay>", ut_100timer },
	{ "101timer", "<count> <ms_delay> <threads>", ut_101timer },
	{ "200counter", "<v1> [<v2> [<v3> [...]]]", ut_200counter },
	{ "201counter", "<v1> <v2> <threads>", ut_201counter },
	{ "300redact_start", "<argv...>", ut_300redact_start },
	{ "301redact_child_start", "<argv...>", ut_301redact_child_start },
	{ "302redact_exec", "<exe> <argv...>", ut_302redact_exec },
	{ "303redact_def_param", "<key> <value>", ut_303redact_def_param },
	{ "400ancestry", "<target> <output_file> [<child_command_line>]",
	  ut_400ancestry },
	{ "500regions", "<count> <exit_code>", ut_500regions },
};

static int print_trace2_usage(void)
{
	fprintf(stderr, "usage:\n");
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(stderr, "\ttest-tool trace2 %s %s\n",
			subcommands[i].name, subcommands[i].usage);
	return 129;
}

/* argv[0] is "trace2". */
static int cmd_trace2(int argc, const char **argv)
{
	if (argc > 1)
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
			if (!strcmp(argv[1], subcommands[i].name))
				return subcommands[i].fn(argc - 2, argv + 2);
	return print_trace2_usage();
}

/* ------------------------------------------------------------------ */
/* test-tool's cmd_main() and main()                                   */
/* ------------------------------------------------------------------ */

struct tool {
	const char *name;
	int (*fn)(int argc, const char **argv);
};

static const struct tool tools[] = {
	{ "trace2", cmd_trace2 },
};

static _Noreturn void die_usage(void)
{
	fprintf(stderr, "usage: test-tool <toolname> [args]\n");
	for (size_t i = 0; i < ARRAY_SIZE(tools); i++)
		fprintf(stderr, "  %s\n", tools[i].name);
	host_exit(TEST_TOOL_C, TEST_TOOL_USAGE_EXIT_LINE, 128);
}

/* argv[0] is the program name; options: -C <dir>. */
static int test_tool_main(int argc, const char **argv)
{
	const char *dir = NULL;

	bug_exit_code = 99;
	argc--;
	argv++;
	while (argc > 1 && !strcmp(argv[0], "-C")) {
		dir = argv[1];
		argc -= 2;
		argv += 2;
	}
	if (argc < 1)
		die_usage();
	if (dir && chdir(dir) < 0)
		die("could not cd to '%s'", dir);
	for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
		if (strcmp(argv[0], tools[i].name))
			continue;
		trace2_cmd_name_fl(TEST_TOOL_C, 132, tools[i].name);
		trace2_cmd_list_config_fl(TEST_TOOL_C, TEST_TOOL_LIST_CONFIG_LINE);
		trace2_cmd_list_env_vars_fl(TEST_TOOL_C, TEST_TOOL_LIST_ENV_VARS_LINE);
		return tools[i].fn(argc, argv);
	}
	error("there is no tool named '%s'", argv[0]);
	die_usage();
}

/* Git's main() resets SIGPIPE to the default action and unblocks it
 * (Windows has none: Git for Windows' sets binary mode for files and the
 * standard streams instead, so that "\n" stays "\n"). */
static void restore_sigpipe(void)
{
#ifdef _WIN32
	_fmode = _O_BINARY;
	for (int fd = 0; fd <= 2; fd++)
		_setmode(fd, _O_BINARY);
#else
	sigset_t set;

	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
#endif
}

/* The last of DIR_SEPS in path, or NULL. */
static char *last_dir_sep(char *path)
{
	char *last = NULL;

	for (char *p = strpbrk(path, DIR_SEPS); p; p = strpbrk(p + 1, DIR_SEPS))
		last = p;
	return last;
}

/* "<dir>/.git/config" if dir holds a repository directory. */
static int repo_config_in(const char *dir, char *out, size_t size)
{
	struct stat st;

	snprintf(out, size, "%s/.git", dir);
	if (stat(out, &st) || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(out, size, "%s/.git/config", dir);
	return 1;
}

/*
 * Git's own contribution to trace2_cmd_list_config(): the repository's
 * config file ($GIT_DIR/config, else the nearest .git/config above the
 * current directory), scope "local".
 */
static void list_repo_config(trace2_config_entry_fn *entry, void *ctx)
{
	const char *git_dir = getenv("GIT_DIR");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	int found = 0;

	if (git_dir) {
		snprintf(path, sizeof(path), "%s/config", git_dir);
		found = 1;
	} else if (getcwd(dir, sizeof(dir))) {
		while (!(found = repo_config_in(dir, path, sizeof(path)))) {
			char *slash = last_dir_sep(dir);

			if (!slash || (slash == dir && !dir[1]))
				break; /* "/" was the last to check */
			slash[slash == dir] = '\0';
		}
	}
	if (found)
		trace2_config_read_file(path, CONFIG_SCOPE_LOCAL, entry, ctx);
}

int main(int argc, char **argv)
{
	const char **av = (const char **)argv;
	const char *version = getenv("T2TOOL_VERSION");

	trace2_initialize_clock();
	restore_sigpipe();
	trace2_set_version_string(version ? version : trace2_version());
	trace2_set_bug_handler(BUG_vfl);
	trace2_set_fatal_exit_code(128);
	trace2_set_config_hook(list_repo_config);
	trace2_initialize_fl(COMMON_INIT_C, 77);
	trace2_cmd_start_fl(COMMON_INIT_C, 78, av);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	host_exit(COMMON_MAIN_C, 12, test_tool_main(argc, av));
}
