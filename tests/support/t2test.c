/* The tests' helpers that work alike everywhere; the processes, files and
 * directories that differ are in t2test_posix.c and t2test_win32.c. */
#include "t2test.h"
#include "t2test_plat.h"
#include "tjson.h"
#include "trace2.h"

#include <dirent.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *t2_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* The whole file, NUL-terminated, its size in *len; NULL if unreadable. */
static char *read_whole(const char *path, size_t *len)
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
	*len = n;
	return buf;
}

char *t2_read_file(const char *path, size_t *len)
{
	size_t n = 0;
	char *text;
	int rc;

	if (!t2_plat_replay(T2_CALL_READ, &rc, &text, &n)) {
		text = read_whole(path, &n);
		t2_plat_record(T2_CALL_READ, 0, text, n);
	}
	if (text && len)
		*len = n;
	return text;
}

/* Whether a replay gives back the result *rc of a call that changes
 * files (t2test_plat.h): the runner made it. */
static int replayed(enum t2_file_call call, int *rc)
{
	char *data = NULL;
	size_t n;
	int r = t2_plat_replay(call, rc, &data, &n);

	free(data);
	return r;
}

char *t2_xfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	return s;
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
	out->status = init ? t2_run(fn, arg, all) : t2_run_noinit(fn, arg, all);
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

void t2_run_all_raw_noinit(t2_scenario_fn *fn, void *arg, const char *const *env,
			   struct t2_out *out)
{
	run_all_files(fn, arg, env, out, read_raw, 0);
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
		/* Windows' own records (as Git for Windows writes them):
		 * the parents' names, a debugger, the run's memory sizes */
		{ "^.*\"?windows/(ancestry|debugger_present|memory)\"?.*\n", "" },
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

/* strstr() by strchr() and strncmp(): a sanitizer's strstr() reads all
 * the rest of s at each call, which made the splitting of a long output
 * quadratic. */
static const char *find(const char *s, const char *needle)
{
	size_t len = strlen(needle);

	for (; (s = strchr(s, needle[0])); s++)
		if (!strncmp(s, needle, len))
			return s;
	return NULL;
}

char *t2_replace(const char *text, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to), n = 0, count = 0;
	const char *p;
	char *out;

	for (p = text; (p = find(p, from)); p += flen)
		count++;
	out = malloc(strlen(text) + count * tlen + 1);
	for (p = text; count--; ) {
		const char *hit = find(p, from);

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
		const char *e = find(s, sep);
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

/* ------------------------------------------------------------------ */
/* Processes with captured output.                                     */
/* ------------------------------------------------------------------ */

void t2_exec_tool(const char *const *args)
{
	t2_exec_tool_in(t2_bin_dir(), args);
}

void t2_exec_tool_in(const char *bin_dir, const char *const *args)
{
	t2_exec_program(bin_dir, "trace2-tool", args);
}

void t2_exec_program(const char *bin_dir, const char *name, const char *const *args)
{
	const char *argv[64];
	char *prog = t2_path(bin_dir, name);
	size_t n = 0;

	argv[n++] = prog;
	for (; args && *args && n < 63; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	t2_exec_built(prog, (char *const *)argv); /* through the emulator, if any */
	_exit(127);
}

static void exec_tool_fn(void *arg)
{
	t2_exec_tool(arg);
}

static void exec_trace2_fn(void *arg)
{
	t2_exec_program(t2_bin_dir(), "trace2", arg);
}

void t2_trace2(const char *const *env, const char *const *args, int timeout_s,
	       struct t2_proc *p)
{
	t2_capture(exec_trace2_fn, (void *)args, env, timeout_s, p);
}

/* What trace2 SUBCOMMAND [--strict] FILE printed, or NULL (said why on
 * stderr) when it did not exit 0. */
static char *trace2_said(const char *subcommand, const char *path)
{
	const char *args[] = { subcommand, "--strict", path, NULL };
	struct t2_proc p;
	char *said = NULL;

	if (strcmp(subcommand, "validate")) {
		args[1] = path;
		args[2] = NULL;
	}
	t2_trace2(NULL, args, 120, &p);
	if (p.status)
		fprintf(stderr, "trace2 %s %s: status %d\n%.2000s%.2000s\n", subcommand, path,
			p.status, p.out, p.err);
	else
		said = t2_xfmt("%s%s", p.out, p.err);
	t2_proc_free(&p);
	return said;
}

int t2_log_whole(const char *path, int open_at_end)
{
	char *valid = trace2_said("validate", path), *summary = trace2_said("summary", path);
	int whole = valid && summary && strstr(valid, " 0 errors, 0 warnings") &&
		    !strstr(summary, "without region_enter") &&
		    (open_at_end || !strstr(summary, "never left"));

	if (valid && summary && !whole)
		fprintf(stderr, "%s: not a whole log:\n%.2000s%.2000s\n", path, valid, summary);
	else if (valid)
		fprintf(stderr, "%s", valid);
	free(valid);
	free(summary);
	return whole;
}

void t2_tool(const char *const *env, struct t2_proc *p, ...)
{
	const char *args[64];
	size_t n = 0;
	va_list ap;

	va_start(ap, p);
	while (n < 63 && (args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	args[n] = NULL;
	t2_capture(exec_tool_fn, args, env, 20, p);
}

void t2_proc_free(struct t2_proc *p)
{
	free(p->out);
	free(p->err);
	p->out = p->err = NULL;
}

int t2_write_file(const char *path, const char *text)
{
	FILE *f;
	int ok, rc;

	if (replayed(T2_CALL_WRITE, &rc))
		return rc;
	f = fopen(path, "wb");
	ok = f && fputs(text, f) >= 0;
	rc = f && !fclose(f) && ok ? 0 : -1;
	t2_plat_record(T2_CALL_WRITE, rc, NULL, 0);
	return rc;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted, joined by sep. */
static char *list_names(const char *dir, const char *sep)
{
	DIR *d = opendir(dir);
	char **names = NULL, *out = strdup("");
	size_t n = 0, i;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), compare_names);
	for (i = 0; i < n; i++) {
		t2_append(&out, "%s%s", i ? sep : "", names[i]);
		free(names[i]);
	}
	free(names);
	return out;
}

char *t2_listdir_sep(const char *dir, const char *sep)
{
	char *out;
	size_t n;
	int rc;

	if (t2_plat_replay(T2_CALL_LIST, &rc, &out, &n))
		return out ? out : strdup("");
	out = list_names(dir, sep);
	t2_plat_record(T2_CALL_LIST, 0, out, strlen(out));
	return out;
}

char *t2_listdir(const char *dir)
{
	return t2_listdir_sep(dir, " ");
}

int t2_wait_for_text(const char *path, const char *needle, int timeout_ms)
{
	int waited;

	for (waited = 0; ; waited += 5) {
		char *text = t2_read_file(path, NULL);
		int found = text && strstr(text, needle);

		free(text);
		if (found)
			return 1;
		if (waited >= timeout_ms)
			return 0;
		usleep(5000);
	}
}

char *t2_regsub(const char *text, const char *re, const char *with)
{
	regex_t rx;
	int empty;

	/* replace_all() mishandles empty matches: refuse such patterns. */
	if (regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB))
		abort();
	empty = !regexec(&rx, "", 0, NULL, 0);
	regfree(&rx);
	if (empty)
		abort();
	return replace_all(text, re, with);
}

int t2_matches(const char *text, const char *re)
{
	regex_t rx;
	int ok;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		abort();
	ok = !regexec(&rx, text, 0, NULL, 0);
	regfree(&rx);
	return ok;
}

char *t2_drop_lines(const char *text, const char *needle)
{
	char *out = strdup("");
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
		char *line = strndup(p, len);

		if (!strstr(line, needle))
			t2_append(&out, "%s", line);
		free(line);
		p += len;
	}
	return out;
}

void t2_env_add(struct t2_env *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (e->n + 1 >= sizeof(e->v) / sizeof(e->v[0]))
		abort();
	va_start(ap, fmt);
	n = vasprintf(&e->v[e->n], fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	e->v[++e->n] = NULL;
}

const char *const *t2_env_list(const struct t2_env *e)
{
	return (const char *const *)e->v;
}

void t2_env_free(struct t2_env *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i]);
	e->n = 0;
	e->v[0] = NULL;
}

void t2_jw_api_example(struct json_writer *jw)
{
	jw_object_begin(jw, 1);
	jw_object_string(jw, "a", "b");
	jw_object_inline_begin_object(jw, "o");
	jw_object_intmax(jw, "n", 1);
	jw_end(jw);
	jw_end(jw);
}

char *t2_first_words(const char *text)
{
	char **lines = t2_lines(text, NULL), *out = strdup("");
	size_t i;

	for (i = 0; lines[i]; i++)
		t2_append(&out, "%s%.*s", i ? " " : "",
			  (int)strcspn(lines[i], " "), lines[i]);
	t2_strv_free(lines);
	return out;
}

char *t2_event_names(const char *text)
{
	char **lines = t2_lines(text, NULL), *out = strdup("");
	size_t i;

	for (i = 0; lines[i]; i++) {
		struct tjson *v = tjson_parse(lines[i], strlen(lines[i]), NULL);
		const char *name = v ? tjson_get_str(v, "event") : NULL;
		const char *key = v ? tjson_get_str(v, "key") : NULL;

		/* Windows' own records left out, as t2_scrub() does */
		if (!key || strncmp(key, "windows/", 8))
			t2_append(&out, "%s%s", *out ? " " : "", name ? name : "INVALID");
		tjson_free(v);
	}
	t2_strv_free(lines);
	return out;
}

/* ------------------------------------------------------------------ */

static int file_contains(const char *path, const char *needle)
{
	size_t len;
	char *text = t2_read_file(path, &len);
	int found = text && memmem(text, len, needle, strlen(needle)) != NULL;

	free(text);
	return found;
}

int t2_tree_contains(const char *dir, const char *needle, char **which)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	while (!found && d && (e = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = t2_path(dir, e->d_name);
		if (lstat(p, &st))
			st.st_mode = 0;
		if (S_ISDIR(st.st_mode))
			found = t2_tree_contains(p, needle, which);
		else if (S_ISREG(st.st_mode) && file_contains(p, needle)) {
			found = 1;
			if (which)
				*which = strdup(p);
		}
		free(p);
	}
	if (d)
		closedir(d);
	return found;
}

#define MAX_SCRATCH 64
static char *scratch[MAX_SCRATCH];
static int nscratch;

const char *t2_scratch_dir(void)
{
	char *dir = t2_tmpdir();

	if (!dir || nscratch == MAX_SCRATCH)
		abort();
	scratch[nscratch++] = dir;
	return dir;
}

int t2_scratch_cleanup(void **state)
{
	int keep = getenv("T2_KEEP") != NULL;

	(void)state;
	while (nscratch > 0) {
		char *dir = scratch[--nscratch];

		if (keep)
			printf("[kept] %s\n", dir);
		else
			t2_rmtree(dir);
		free(dir);
	}
	return 0;
}

static pid_t leak_runner;
static int leak_children_off, leak_children_on;

void t2_leak_check_runner_only(void)
{
	leak_runner = getpid();
	leak_children_off = 1;
}

void t2_leak_check_children(int on)
{
	leak_children_on = on;
}

/* LeakSanitizer's opt-out hook (sanitizer/lsan_interface.h), consulted at
 * exit; without a sanitizer nobody calls it. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return leak_children_off && !leak_children_on && getpid() != leak_runner;
}

