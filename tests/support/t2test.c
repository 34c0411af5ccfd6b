#include "t2test.h"
#include "trace2.h"

#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

char *t2_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

char *t2_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
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
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	apply_env(env);
}

/* Fork; the child gets a clean environment and an empty HOME (removed
 * afterwards), initializes trace2 if init is set, runs fn and exits. */
static int run_child(t2_scenario_fn *fn, void *arg, const char *const *env, int init)
{
	char *home = t2_tmpdir();
	int status = -1;
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
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (home)
		t2_rmtree(home);
	free(home);
	return status;
}

int t2_run(t2_scenario_fn *fn, void *arg, const char *const *env)
{
	return run_child(fn, arg, env, 1);
}

int t2_run_noinit(t2_scenario_fn *fn, void *arg, const char *const *env)
{
	return run_child(fn, arg, env, 0);
}

static char *read_scrubbed(const char *dir, const char *name)
{
	char *path = t2_path(dir, name), *raw = t2_read_file(path, NULL), *s;

	free(path);
	if (!raw)
		return strdup("");
	s = t2_scrub(raw);
	free(raw);
	return s;
}

static char *read_raw(const char *dir, const char *name)
{
	char *path = t2_path(dir, name), *raw = t2_read_file(path, NULL);

	free(path);
	return raw ? raw : strdup("");
}

/* t2_run_all(), t2_run_all_raw() and t2_run_all_noinit(): read turns each
 * file into text; init says whether the child calls trace2_initialize(). */
static void run_all_files(t2_scenario_fn *fn, void *arg, const char *const *env,
			  struct t2_out *out,
			  char *(*read)(const char *dir, const char *name),
			  int init)
{
	char *dir = t2_tmpdir();
	char vn[4200], vp[4200], ve[4200];
	const char *all[64];
	size_t n = 0;

	snprintf(vn, sizeof(vn), "GIT_TRACE2=%s/normal", dir);
	snprintf(vp, sizeof(vp), "GIT_TRACE2_PERF=%s/perf", dir);
	snprintf(ve, sizeof(ve), "GIT_TRACE2_EVENT=%s/event", dir);
	all[n++] = vn;
	all[n++] = vp;
	all[n++] = ve;
	for (; env && *env && n < 63; env++)
		all[n++] = *env;
	all[n] = NULL;
	out->status = run_child(fn, arg, all, init);
	out->normal = read(dir, "normal");
	out->perf = read(dir, "perf");
	out->event = read(dir, "event");
	t2_rmtree(dir);
	free(dir);
}

void t2_run_all_raw(t2_scenario_fn *fn, void *arg, const char *const *env,
		    struct t2_out *out)
{
	run_all_files(fn, arg, env, out, read_raw, 1);
}

void t2_run_all(t2_scenario_fn *fn, void *arg, const char *const *env,
		struct t2_out *out)
{
	run_all_files(fn, arg, env, out, read_scrubbed, 1);
}

void t2_run_all_noinit(t2_scenario_fn *fn, void *arg, const char *const *env,
		       struct t2_out *out)
{
	run_all_files(fn, arg, env, out, read_scrubbed, 0);
}

void t2_out_free(struct t2_out *out)
{
	free(out->normal);
	free(out->perf);
	free(out->event);
}

/* Replace every match of re in text by with; returns a new string. */
static char *replace_all(const char *text, const char *re, const char *with)
{
	regex_t rx;
	regmatch_t m;
	size_t cap = strlen(text) * 2 + 64, n = 0, wl = strlen(with);
	char *out = malloc(cap);
	const char *p = text;
	int flags = 0;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE))
		abort();
	while (!regexec(&rx, p, 1, &m, flags)) {
		size_t pre = (size_t)m.rm_so;

		if (n + pre + wl + 1 > cap)
			out = realloc(out, cap = (n + pre + wl + 1) * 2);
		memcpy(out + n, p, pre);
		n += pre;
		memcpy(out + n, with, wl);
		n += wl;
		p += m.rm_eo > 0 ? (size_t)m.rm_eo : 1;
		flags = REG_NOTBOL;
		if (m.rm_eo == 0)
			break;
	}
	if (n + strlen(p) + 1 > cap)
		out = realloc(out, n + strlen(p) + 1);
	strcpy(out + n, p);
	regfree(&rx);
	return out;
}

char *t2_scrub(const char *text)
{
	static const char *const rules[][2] = {
		{ "[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-(H[0-9a-f]{8}|Localhost)-P[0-9a-f]{8}", "SID" },
		/* digit-free placeholders first, so the durations rule cannot
		 * match inside them */
		{ "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z", "@UTC@" },
		{ "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} ", "@TOD@ " },
		{ "[0-9]+\\.[0-9]{6}", "0.000000" },
		{ "@UTC@", "2000-01-01T00:00:00.000000Z" },
		{ "@TOD@", "00:00:00.000000" },
	};
	char *s = strdup(text);
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char *next = replace_all(s, rules[i][0], rules[i][1]);

		free(s);
		s = next;
	}
	return s;
}

int t2_system_env(const char *const *env, const char *fmt, ...)
{
	char cmd[8192], *home;
	va_list ap;
	int status = -1;
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
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (home)
		t2_rmtree(home);
	free(home);
	return status;
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

char *t2_replace(const char *text, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to), n = 0, count = 0;
	const char *p;
	char *out;

	for (p = text; (p = strstr(p, from)); p += flen)
		count++;
	out = malloc(strlen(text) + count * tlen + 1);
	for (p = text; count--; ) {
		const char *hit = strstr(p, from);

		memcpy(out + n, p, (size_t)(hit - p));
		n += (size_t)(hit - p);
		memcpy(out + n, to, tlen);
		n += tlen;
		p = hit + flen;
	}
	strcpy(out + n, p);
	return out;
}

char **t2_split(const char *s, const char *sep, size_t *count)
{
	size_t n = 0, cap = 8, sl = strlen(sep);
	char **v = malloc(cap * sizeof(*v));

	for (;;) {
		const char *e = strstr(s, sep);
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (n + 2 > cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n] = malloc(len + 1);
		memcpy(v[n], s, len);
		v[n++][len] = '\0';
		if (!e)
			break;
		s = e + sl;
	}
	v[n] = NULL;
	if (count)
		*count = n;
	return v;
}

char **t2_lines(const char *text, size_t *count)
{
	size_t n;
	char **v = t2_split(text, "\n", &n);

	if (!*v[n - 1]) {
		free(v[--n]);
		v[n] = NULL;
	}
	if (count)
		*count = n;
	return v;
}

void t2_strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void t2_append(char **buf, const char *fmt, ...)
{
	size_t len = *buf ? strlen(*buf) : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	*buf = realloc(*buf, len + (size_t)n + 1);
	if (!*buf)
		abort();
	va_start(ap, fmt);
	vsnprintf(*buf + len, (size_t)n + 1, fmt, ap);
	va_end(ap);
}

void t2_perf_brief(char **buf, const char *thread, const char *event, int abs,
		   int rel, const char *category, const char *payload)
{
	size_t len = strlen(payload);

	t2_append(buf, "d0 | %-24s | %-12s |     | %9s | %9s | %-12.12s | %s%s",
		  thread, event, abs ? "0.000000" : "", rel ? "0.000000" : "",
		  category, payload, len && payload[len - 1] == '\n' ? "" : "\n");
}
