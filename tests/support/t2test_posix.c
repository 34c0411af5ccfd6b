/* t2test.h's processes, files and directories on POSIX systems: each
 * scenario in a forked child (tests/support/t2test_win32.c has Windows'). */
#ifndef _WIN32
#include "t2test.h"
#include "t2test_plat.h"
#include "trace2.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define NOBODY 65534

/* A forked child has the runner's files and results: nothing to replay. */
int t2_plat_replay(enum t2_file_call call, int *rc, char **data, size_t *len)
{
	(void)call, (void)rc, (void)data, (void)len;
	return 0;
}

void t2_plat_record(enum t2_file_call call, int rc, const char *data, size_t len)
{
	(void)call, (void)rc, (void)data, (void)len;
}

char *t2_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];

	snprintf(tmpl, sizeof(tmpl), "%s/t2test.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpl))
		return NULL;
	return strdup(tmpl);
}

void t2_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = t2_path(dir, e->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			t2_rmtree(p);
		else
			unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

/* Remove the variables that could change what trace2 does. */
static void clean_environment(void)
{
	size_t i = 0;

	while (environ[i]) {
		if (!strncmp(environ[i], "GIT_TRACE2", 10) ||
		    !strncmp(environ[i], "GIT_CONFIG", 10)) {
			char name[256];
			size_t n = strcspn(environ[i], "=");

			if (n >= sizeof(name))
				n = sizeof(name) - 1;
			memcpy(name, environ[i], n);
			name[n] = '\0';
			unsetenv(name);
			i = 0;
			continue;
		}
		i++;
	}
}

static void apply_env(const char *const *env)
{
	for (; env && *env; env++)
		putenv((char *)*env);
}

static void child_environment(const char *const *env, const char *home_dir)
{
	static char home[4200];

	clean_environment();
	snprintf(home, sizeof(home), "HOME=%s", home_dir ? home_dir : "/nonexistent");
	putenv(home);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("TRACEPARENT");
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	apply_env(env);
}

/* Wait for a child of run_child()/t2_system_env(), remove its HOME. */
static int wait_and_clean(pid_t pid, char *home)
{
	int status = -1;

	if (pid > 0)
		waitpid(pid, &status, 0);
	if (home)
		t2_rmtree(home);
	free(home);
	return status;
}

/* Fork; the child gets a clean environment and an empty HOME (removed
 * afterwards), initializes trace2 if init is set, runs fn and exits. */
static int run_child(t2_scenario_fn *fn, void *arg, const char *const *env, int init)
{
	char *home = t2_tmpdir();
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		child_environment(env, home);
		trace2_initialize_clock();
		if (init)
			trace2_initialize();
		fn(arg);
		exit(0);
	}
	return wait_and_clean(pid, home);
}

int t2_run(t2_scenario_fn *fn, void *arg, const char *const *env)
{
	return run_child(fn, arg, env, 1);
}

int t2_run_noinit(t2_scenario_fn *fn, void *arg, const char *const *env)
{
	return run_child(fn, arg, env, 0);
}

int t2_system_env(const char *const *env, const char *fmt, ...)
{
	char cmd[8192], *home;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	home = t2_tmpdir();
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		child_environment(env, home);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return wait_and_clean(pid, home);
}

/* Unset every environment variable whose name starts with prefix. */
static void unset_prefixed(const char *prefix)
{
	size_t i = 0, plen = strlen(prefix);

	while (environ[i]) {
		char *name;

		if (strncmp(environ[i], prefix, plen)) {
			i++;
			continue;
		}
		name = strndup(environ[i], strcspn(environ[i], "="));
		unsetenv(name);
		free(name);
		i = 0;
	}
}

int t2_run_clean(t2_scenario_fn *fn, void *arg, const char *const *env)
{
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		unset_prefixed("GIT_");
		unsetenv("XDG_CONFIG_HOME");
		unsetenv("TRACEPARENT");
		setenv("HOME", "/nonexistent", 1);
		setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
		apply_env(env);
		fn(arg);
		exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

const char *t2_bin_dir(void)
{
	static char abs[PATH_MAX];
	const char *dir = getenv("T2_BIN");

	if (!dir || !*dir)
		dir = "build/bin";
	if (!abs[0] && !realpath(dir, abs))
		snprintf(abs, sizeof(abs), "%s", dir);
	return abs;
}

const char *t2_emulator(void)
{
	const char *run = getenv("T2_RUN");

	return run && *run ? run : NULL;
}

void t2_exec_built(const char *path, char *const argv[])
{
	char self[PATH_MAX];
	const char *args[64];
	ssize_t len;
	size_t n = 0;

	if (!path) {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len < 0)
			return;
		self[len] = '\0';
		path = self;
	}
	if (!t2_emulator()) {
		execv(path, argv);
		return;
	}
	args[n++] = t2_emulator();
	args[n++] = "-0";
	args[n++] = argv[0];
	args[n++] = path;
	for (size_t i = 1; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	execvp(args[0], (char *const *)args);
}

/* "NAME=value" sets NAME, a bare "NAME" unsets it. */
static void apply_env_entry(const char *entry)
{
	const char *eq = strchr(entry, '=');
	char *name;

	if (!eq) {
		unsetenv(entry);
		return;
	}
	name = strndup(entry, (size_t)(eq - entry));
	setenv(name, eq + 1, 1);
	free(name);
}

/* Every catchable signal back to the default action, none blocked. */
static void default_signals(void)
{
	sigset_t none;
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Point fd at path (created, truncated); _exit(126) on failure. */
static void redirect(int fd, const char *path, int flags)
{
	int f = open(path, flags, 0666);

	if (f < 0 || dup2(f, fd) < 0)
		_exit(126);
	if (f != fd)
		close(f);
}

static void capture_child(t2_scenario_fn *fn, void *arg, const char *const *env,
			  const char *out, const char *err)
{
	redirect(0, "/dev/null", O_RDONLY);
	redirect(1, out, O_WRONLY | O_CREAT | O_TRUNC);
	redirect(2, err, O_WRONLY | O_CREAT | O_TRUNC);
	default_signals();
	unset_prefixed("GIT_");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("TRACEPARENT");
	setenv("HOME", "/nonexistent", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	for (; env && *env; env++)
		apply_env_entry(*env);
	fn(arg);
	exit(0);
}

/* Whether thread tid is inside open() of path: the system call's path
 * argument, an address in this process, read here. */
static int thread_in_open(int tid, const char *path)
{
	char proc[64], buf[256] = "";
	unsigned long long arg[2] = { 0, 0 };
	uintptr_t name = 0;
	long nr = -1;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/task/%d/syscall", tid);
	fd = open(proc, O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) > 0 &&
		    sscanf(buf, "%ld %llx %llx", &nr, &arg[0], &arg[1]) != 3)
			nr = -1;
		close(fd);
	}
#ifdef SYS_open /* aarch64 has only openat */
	if (nr == SYS_open)
		name = (uintptr_t)arg[0];
#endif
	if (nr == SYS_openat)
		name = (uintptr_t)arg[1];
	return name && !strcmp((const char *)name, path);
}

int t2_wait_thread_in_open(const int *tid, const char *path, int timeout_ms)
{
	int waited, t = 0;

	for (waited = 0; waited < timeout_ms; waited++) {
		t = __atomic_load_n(tid, __ATOMIC_ACQUIRE);
		if (t && thread_in_open(t, path))
			return 1;
		usleep(1000);
	}
	return 0;
}

int t2_wait_timeout(int pid, int timeout_ms)
{
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	int status = -1, waited = 0;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return status;
		if (waited >= timeout_ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return status;
		}
		nanosleep(&tick, NULL);
		waited += 5;
	}
}

void t2_capture(t2_scenario_fn *fn, void *arg, const char *const *env,
		int timeout_s, struct t2_proc *p)
{
	char *dir = t2_tmpdir(), *out = t2_path(dir, "stdout"),
	     *err = t2_path(dir, "stderr");
	pid_t pid;

	t2_bin_dir(); /* absolute, before the child may chdir() */
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		capture_child(fn, arg, env, out, err);
	p->status = pid > 0 ? t2_wait_timeout(pid, timeout_s * 1000) : -1;
	p->out = t2_read_file(out, NULL);
	p->err = t2_read_file(err, NULL);
	if (!p->out)
		p->out = strdup("");
	if (!p->err)
		p->err = strdup("");
	t2_rmtree(dir);
	free(dir);
	free(out);
	free(err);
}

int t2_mkdirs(const char *path)
{
	char *copy = strdup(path), *p;
	int rc = 0;

	for (p = copy + 1; rc == 0 && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) && errno != EEXIST)
			rc = -1;
		*p = '/';
	}
	if (rc == 0 && mkdir(copy, 0777) && errno != EEXIST)
		rc = -1;
	free(copy);
	return rc;
}

int t2_spawn(t2_scenario_fn *fn, void *arg, const char *const *env,
	     const char *out_path, const char *err_path)
{
	pid_t pid;

	t2_bin_dir(); /* absolute, before the child may chdir() */
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		capture_child(fn, arg, env, out_path ? out_path : "/dev/null",
			      err_path ? err_path : "/dev/null");
	return pid;
}

double t2_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void t2_drop_privileges(const char *dir)
{
	if (geteuid() == 0 && (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)))
		_exit(125);
	if (chdir(dir))
		_exit(125);
}

/* Copy the file from to a new file to with the given mode; 0 on success. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ok = in >= 0;
	ssize_t n = 0;

	if (ok)
		out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	ok = ok && out >= 0;
	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	ok = ok && n == 0 && !fchmod(out, mode);
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		ok = 0;
	return ok ? 0 : -1;
}

/* In a forked child: can user nobody enter dir and run its driver? */
static const char *probe_as_nobody(const char *dir)
{
	static const char *const why[] = {
		NULL,
		"cannot fork",
		"cannot switch to user and group 65534 (nobody)",
		"user nobody cannot enter a 0755 directory under /tmp",
		"user nobody cannot execute the copy of the driver there",
	};
	char *tool = t2_path(dir, "trace2-tool");
	pid_t pid = fork();
	int status, code = 1;

	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		if (chdir(dir))
			_exit(3);
		_exit(access(tool, X_OK) ? 4 : 0);
	}
	free(tool);
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		code = WIFEXITED(status) && WEXITSTATUS(status) <= 4 ? WEXITSTATUS(status) : 1;
	return why[code];
}

char *t2_unprivileged_dir(const char **why)
{
	char tmpl[] = "/tmp/t2nobody.XXXXXX";
	char *from, *to;
	int ok;

	*why = NULL;
	if (!mkdtemp(tmpl)) {
		*why = "cannot make a directory under /tmp";
		return NULL;
	}
	from = t2_path(t2_bin_dir(), "trace2-tool");
	to = t2_path(tmpl, "trace2-tool");
	ok = !chmod(tmpl, 0755) && !copy_file(from, to, 0755);
	free(from);
	free(to);
	if (!ok)
		*why = "cannot copy the driver to a directory under /tmp";
	else if (geteuid() == 0)
		*why = probe_as_nobody(tmpl);
	if (*why) {
		t2_rmtree(tmpl);
		return NULL;
	}
	return strdup(tmpl);
}
#endif
