/*
 * The configuration API (trace2_config_set(), trace2_set_env_prefix(),
 * trace2_set_config_files()): every trace2.* key set through the API and
 * its precedence over the environment and the config files, the errors,
 * and a program with its own environment prefix.
 *
 * Each run is a child process (t2_capture()) that registers the "mine"
 * target, sets what the run asks through the API, initializes, does a
 * fixed workload and exits; the test then looks at the files it wrote
 * and at its stderr.  "@D" in a value stands for the run's directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "trace2/target.h"

/* ------------------------------------------------------------------ */
/* The "mine" target: one line per record, "b" or "f" for brief or not. */

static struct trace2_output *mine_out;
static int mine_brief;

static int mine_open(void *ctx, const struct trace2_target_config *config)
{
	(void)ctx;
	mine_out = config->output;
	mine_brief = config->brief;
	return 0;
}

static void mine_event(void *ctx, const struct trace2_event *ev)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%c %d\n", mine_brief ? 'b' : 'f', (int)ev->kind);

	(void)ctx;
	if (ev->kind != TRACE2_EVENT_SIGNAL)
		trace2_output_write(mine_out, line, (size_t)n, ev);
}

static const struct trace2_target mine = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "mine",
	.setting = "mine",
	.open = mine_open,
	.event = mine_event,
};

/* ------------------------------------------------------------------ */
/* One run.                                                             */

struct run {
	const char *dir;
	const char *prefix;    /* trace2_set_env_prefix(), or NULL */
	const char *api_key;   /* trace2_config_set(api_key, api_value) */
	const char *api_value;
	int own_files;         /* trace2_set_config_files(system, global) */
	const char *system, *global;
	/* a traced child to start, its stdout into @D/child.txt */
	const char *const *child;
};

static char *at_dir(const char *dir, const char *value)
{
	return t2_replace(value, "@D", dir);
}

static const char *const env_argv[] = { "/usr/bin/env", NULL };
static const char *const git_argv[] = { "git", "version", NULL };

static void start_child(const char *dir, const char *const *argv)
{
	struct child_process cmd = CHILD_PROCESS_INIT;
	char *out = t2_path(dir, "child.txt");
	FILE *f = fopen(out, "w");
	int status;
	pid_t pid;

	CHECK(f);
	cmd.args.v = (const char **)argv;
	while (argv[cmd.args.nr])
		cmd.args.nr++;
	trace2_child_start(&cmd);
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		dup2(fileno(f), 1);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	cmd.pid = pid;
	CHECK(waitpid(pid, &status, 0) == pid);
	trace2_child_exit(&cmd, WEXITSTATUS(status));
	fclose(f);
	free(out);
}

/* Regions r1 > r2 > r3 > r4, two def_param candidates, the envVars
 * listing; then the size of @D/perf.log before exit on stdout. */
static void workload(const struct run *r)
{
	static const char *const labels[] = { "r1", "r2", "r3", "r4" };
	char *perf = t2_path(r->dir, "perf.log");
	struct stat st;
	int i;

	for (i = 0; i < 4; i++)
		trace2_region_enter("cat", labels[i], NULL);
	for (i = 3; i >= 0; i--)
		trace2_region_leave("cat", labels[i], NULL);
	trace2_cmd_set_config("foo.x", "1");
	trace2_cmd_set_config("bar.x", "1");
	trace2_cmd_list_env_vars();
	if (r->child)
		start_child(r->dir, r->child);
	printf("perf-bytes=%lld\n", stat(perf, &st) ? -1LL : (long long)st.st_size);
	free(perf);
}

static void run_scenario(void *arg)
{
	const struct run *r = arg;

	CHECK(trace2_register_target(&mine, NULL) == 0);
	if (r->prefix)
		trace2_set_env_prefix(r->prefix);
	if (r->own_files) {
		char *s = r->system ? at_dir(r->dir, r->system) : NULL;
		char *g = r->global ? at_dir(r->dir, r->global) : NULL;

		trace2_set_config_files(s, g);
		free(s);
		free(g);
	}
	if (r->api_key) {
		char *v = at_dir(r->dir, r->api_value);

		CHECK(trace2_config_set(r->api_key, v) == 0);
		free(v);
	}
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_name("cfgapi");
	workload(r);
}

/* Run r with the environment entries env ("@D" replaced); stdout and
 * stderr in p. */
static void run(const struct run *r, const char *const *env, struct t2_proc *p)
{
	struct t2_env e = { 0 };
	size_t i;

	for (i = 0; env && env[i]; i++) {
		char *v = at_dir(r->dir, env[i]);

		t2_env_add(&e, "%s", v);
		free(v);
	}
	t2_capture(run_scenario, (void *)r, t2_env_list(&e), 20, p);
	t2_env_free(&e);
	if (!WIFEXITED(p->status) || WEXITSTATUS(p->status))
		fail_msg("run failed (status %d): %s", p->status, p->err);
}

/* The text of @D/name, "" if missing; caller frees. */
static char *file_of(const char *dir, const char *name)
{
	char *path = t2_path(dir, name);
	char *text = t2_read_file(path, NULL);

	free(path);
	return text ? text : strdup("");
}

static int has_file(const char *dir, const char *name)
{
	char *path = t2_path(dir, name);
	struct stat st;
	int yes = !stat(path, &st);

	free(path);
	return yes;
}

/* A fresh run directory with dir/1 and dir/2 (for maxFiles); caller
 * frees. */
static char *fresh_dir(void)
{
	char *d = t2_tmpdir(), *sub = t2_path(d, "dir"), *f1 = t2_path(sub, "1"),
	     *f2 = t2_path(sub, "2");

	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(t2_write_file(f1, ""), 0);
	assert_int_equal(t2_write_file(f2, ""), 0);
	free(sub);
	free(f1);
	free(f2);
	return d;
}

/* ------------------------------------------------------------------ */
/* Every key: which of two values took effect.                          */

struct key_case {
	const char *key;   /* as a program would spell it */
	const char *env;   /* its environment variable */
	const char *v1, *v2;
	const char *base[4]; /* environment that makes the effect visible */
	/* 1 if the run shows v1's effect, 2 if v2's, 0 if neither */
	int (*observe)(const char *dir, const struct t2_proc *p);
	/* brief keys (observe NULL): the log, and whether its text is brief */
	const char *log;
	int (*brief)(const char *text);
};

/* Target keys: v1 "@D/a.log", v2 "@D/b.log". */
static int which_file(const char *dir, const struct t2_proc *p)
{
	int a = has_file(dir, "a.log"), b = has_file(dir, "b.log");

	(void)p;
	return a && !b ? 1 : b && !a ? 2 : 0;
}

/* Brief keys: v1 "true", v2 "false"; pred(first line of log) true for
 * brief. */
static int brief_by(const char *dir, const char *log, int (*brief)(const char *text))
{
	char *text = file_of(dir, log);
	int r = !*text ? 0 : brief(text) ? 1 : 2;

	free(text);
	return r;
}

static int normal_brief(const char *t) { return !strncmp(t, "version ", 8); }
static int perf_brief(const char *t) { return !strncmp(t, "d0 | main", 9); }
static int event_brief(const char *t) { return !strstr(t, "\"file\":"); }
static int chrome_brief(const char *t) { return !strstr(t, "\"args\":{\"sid\""); }
static int mine_is_brief(const char *t) { return t[0] == 'b'; }


/* 1 if the event log holds a but not b, 2 if it holds c but not d. */
static int event_log_pick(const char *dir, const char *a, const char *b, const char *c,
			  const char *d)
{
	char *t = file_of(dir, "event.log");
	int r = strstr(t, a) && !strstr(t, b) ? 1 : strstr(t, c) && !strstr(t, d) ? 2 : 0;

	free(t);
	return r;
}

/* eventNesting: v1 3 writes r3 but not r4, v2 1 writes r1 but not r2. */
static int nesting_of(const char *d, const struct t2_proc *p)
{
	(void)p;
	return event_log_pick(d, "\"label\":\"r3\"", "\"label\":\"r4\"", "\"label\":\"r1\"",
			      "\"label\":\"r2\"");
}

/* configParams: v1 "foo.*", v2 "bar.*". */
static int params_of(const char *d, const struct t2_proc *p)
{
	(void)p;
	return event_log_pick(d, "\"param\":\"foo.x\"", "\"param\":\"bar.x\"",
			      "\"param\":\"bar.x\"", "\"param\":\"foo.x\"");
}

/* envVars: v1 "T2CFG_A", v2 "T2CFG_B" (both set). */
static int env_vars_of(const char *d, const struct t2_proc *p)
{
	(void)p;
	return event_log_pick(d, "\"param\":\"T2CFG_A\"", "\"param\":\"T2CFG_B\"",
			      "\"param\":\"T2CFG_B\"", "\"param\":\"T2CFG_A\"");
}

/* destinationDebug: v1 "1" warns about the unusable file, v2 "0" not. */
static int dst_debug_of(const char *d, const struct t2_proc *p)
{
	(void)d;
	return strstr(p->err, "warning: trace2: could not open '/nonexistent/t2cfg/x.log'")
		       ? 1 : !*p->err ? 2 : 0;
}

/* maxFiles: v1 3 (dir holds 2 files: full), v2 100. */
static int max_files_of(const char *d, const struct t2_proc *p)
{
	char *names;
	int r;

	(void)p;
	names = file_of(d, "dir/git-trace2-discard");
	r = has_file(d, "dir/git-trace2-discard") ? (strstr(names, "version") ? 1 : 0) : 2;
	free(names);
	return r;
}

/* buffer: v1 "64k" (nothing written before exit), v2 "0". */
static int buffer_of(const char *d, const struct t2_proc *p)
{
	(void)d;
	return strstr(p->out, "perf-bytes=0\n") ? 1 : strstr(p->out, "perf-bytes=-1") ? 0 : 2;
}

/* maxFileSize: v1 "300" stops the perf log, v2 "1m" does not. */
static int max_size_of(const char *d, const struct t2_proc *p)
{
	char *t = file_of(d, "perf.log");
	int r = strstr(t, "max_file_size 300 reached") ? 1 : strstr(t, "atexit") ? 2 : 0;

	(void)p;
	free(t);
	return r;
}

/* categories: v1 "-cat" filters the workload's regions, v2 "c*" does not. */
static int categories_of(const char *d, const struct t2_proc *p)
{
	char *t = file_of(d, "perf.log");
	int r = !strstr(t, "atexit") ? 0 : strstr(t, "region_enter") ? 2 : 1;

	(void)p;
	free(t);
	return r;
}

/* A target's two keys: its destination, and its brief flag seen in log. */
#define TARGET_KEY(setting, env) \
	{ "trace2." setting "Target", env, "@D/a.log", "@D/b.log", { NULL }, which_file, \
	  NULL, NULL }
#define BRIEF_KEY(setting, env, v1, v2, log, brief) \
	{ "trace2." setting "Brief", env "_BRIEF", v1, v2, { env "=@D/" log, NULL }, NULL, \
	  log, brief }

static const struct key_case cases[] = {
	TARGET_KEY("normal", "GIT_TRACE2"),
	BRIEF_KEY("normal", "GIT_TRACE2", "true", "false", "normal.log", normal_brief),
	TARGET_KEY("perf", "GIT_TRACE2_PERF"),
	BRIEF_KEY("perf", "GIT_TRACE2_PERF", "yes", "no", "perf.log", perf_brief),
	TARGET_KEY("event", "GIT_TRACE2_EVENT"),
	BRIEF_KEY("event", "GIT_TRACE2_EVENT", "1", "0", "event.log", event_brief),
	TARGET_KEY("chrome", "GIT_TRACE2_CHROME"),
	BRIEF_KEY("chrome", "GIT_TRACE2_CHROME", "on", "off", "chrome.json", chrome_brief),
	TARGET_KEY("mine", "GIT_TRACE2_MINE"),
	BRIEF_KEY("mine", "GIT_TRACE2_MINE", "true", "false", "mine.log", mine_is_brief),
	{ "trace2.eventNesting", "GIT_TRACE2_EVENT_NESTING", "3", "1",
	  { "GIT_TRACE2_EVENT=@D/event.log", NULL }, nesting_of, NULL, NULL },
	{ "trace2.configParams", "GIT_TRACE2_CONFIG_PARAMS", "foo.*", "bar.*",
	  { "GIT_TRACE2_EVENT=@D/event.log", NULL }, params_of, NULL, NULL },
	{ "trace2.envVars", "GIT_TRACE2_ENV_VARS", "T2CFG_A", "T2CFG_B",
	  { "GIT_TRACE2_EVENT=@D/event.log", "T2CFG_A=a", "T2CFG_B=b", NULL },
	  env_vars_of, NULL, NULL },
	{ "trace2.destinationDebug", "GIT_TRACE2_DST_DEBUG", "1", "0",
	  { "GIT_TRACE2_PERF=/nonexistent/t2cfg/x.log", NULL }, dst_debug_of, NULL, NULL },
	{ "trace2.maxFiles", "GIT_TRACE2_MAX_FILES", "3", "100",
	  { "GIT_TRACE2_PERF=@D/dir", NULL }, max_files_of, NULL, NULL },
	{ "trace2.buffer", "GIT_TRACE2_BUFFER", "64k", "0",
	  { "GIT_TRACE2_PERF=@D/perf.log", NULL }, buffer_of, NULL, NULL },
	{ "trace2.maxFileSize", "GIT_TRACE2_MAX_FILE_SIZE", "300", "1m",
	  { "GIT_TRACE2_PERF=@D/perf.log", NULL }, max_size_of, NULL, NULL },
	{ "trace2.categories", "GIT_TRACE2_CATEGORIES", "-cat", "c*",
	  { "GIT_TRACE2_PERF=@D/perf.log", NULL }, categories_of, NULL, NULL },
};

enum source { API, ENV, FILES };
static const char *const source_name[] = { "api", "environment", "config file" };

/* The effect of setting c's key to hi_value at source hi and lo_value at
 * source lo (the same value at both for hi == lo). */
static int effect(const struct key_case *c, enum source hi, const char *hi_value,
		  enum source lo, const char *lo_value)
{
	char *dir = fresh_dir(), *cfg = t2_path(dir, "gitconfig");
	struct run r = { dir, NULL, NULL, NULL, 0, NULL, NULL, NULL };
	const char *env[12];
	char *owned[3] = { NULL, NULL, NULL };
	struct t2_proc p;
	size_t n = 0, i;
	int got;

	for (i = 0; c->base[i]; i++)
		env[n++] = c->base[i];
	for (i = 0; i < (hi == lo ? 1u : 2u); i++) {
		enum source s = i ? lo : hi;
		const char *v = i ? lo_value : hi_value;

		if (s == API) {
			r.api_key = c->key;
			r.api_value = v;
		} else if (s == ENV) {
			env[n++] = owned[0] = t2_xfmt("%s=%s", c->env, v);
		} else {
			char *text = t2_xfmt("[trace2]\n\t%s = %s\n", c->key + 7, v);
			char *expanded = at_dir(dir, text);

			assert_int_equal(t2_write_file(cfg, expanded), 0);
			env[n++] = owned[1] = t2_xfmt("GIT_CONFIG_GLOBAL=%s", cfg);
			free(text);
			free(expanded);
		}
	}
	env[n] = NULL;
	run(&r, env, &p);
	got = c->observe ? c->observe(dir, &p) : brief_by(dir, c->log, c->brief);
	t2_proc_free(&p);
	for (i = 0; i < 3; i++)
		free(owned[i]);
	t2_rmtree(dir);
	free(dir);
	free(cfg);
	return got;
}

/* Alone, each value shows its own effect; against a lower source, the
 * higher one wins, whichever value it holds. */
static void test_every_key_and_precedence(void **state)
{
	static const enum source pairs[][2] = { { API, ENV }, { API, FILES }, { ENV, FILES } };
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct key_case *c = &cases[i];

		for (k = 0; k < 3; k++) {
			int alone1 = effect(c, (enum source)k, c->v1, (enum source)k, c->v1);
			int alone2 = effect(c, (enum source)k, c->v2, (enum source)k, c->v2);

			if (alone1 != 1 || alone2 != 2)
				fail_msg("%s through the %s alone: %s gave %d, %s gave %d", c->key,
					 source_name[k], c->v1, alone1, c->v2, alone2);
		}
		for (k = 0; k < 3; k++) {
			enum source hi = pairs[k][0], lo = pairs[k][1];
			int a = effect(c, hi, c->v1, lo, c->v2), b = effect(c, hi, c->v2, lo, c->v1);

			if (a != 1 || b != 2)
				fail_msg("%s: %s over %s: got %d and %d, want 1 and 2", c->key,
					 source_name[hi], source_name[lo], a, b);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Errors.                                                              */

static void expect_error(const char *key, const char *value, int err)
{
	errno = 0;
	if (trace2_config_set(key, value) != -1 || errno != err) {
		fprintf(stderr, "trace2_config_set(\"%s\", \"%s\"): errno %d, want %d\n",
			key ? key : "(null)", value ? value : "(null)", errno, err);
		_exit(70);
	}
}

static void errors_scenario(void *arg)
{
	(void)arg;
	expect_error("trace2.noSuchKey", "1", EINVAL);
	expect_error("core.editor", "vi", EINVAL);
	expect_error("trace2", "1", EINVAL);
	expect_error("trace2.perf.target", "1", EINVAL);
	expect_error(NULL, "1", EINVAL);
	expect_error("trace2.perfTarget", NULL, EINVAL);
	expect_error("trace2.perfTarget", "yes", EINVAL);
	expect_error("trace2.perfTarget", "relative/path", EINVAL);
	expect_error("trace2.perfBrief", "maybe", EINVAL);
	expect_error("trace2.eventNesting", "deep", EINVAL);
	expect_error("trace2.maxFiles", "", EINVAL);
	expect_error("trace2.buffer", "12q", EINVAL);
	expect_error("trace2.maxFileSize", "-1", EINVAL);
	/* a registered target's keys exist once it is registered */
	expect_error("trace2.mineTarget", "1", EINVAL);
	CHECK(trace2_register_target(&mine, NULL) == 0);
	CHECK(trace2_config_set("trace2.mineTarget", "0") == 0);
	/* keys in any case, values as the file parser reads them */
	CHECK(trace2_config_set("TRACE2.PERFTARGET", "") == 0);
	CHECK(trace2_config_set("trace2.eventnesting", " 3x") == 0);
	CHECK(trace2_config_set("trace2.configParams", "a.*, b") == 0);
	CHECK(trace2_config_set("trace2.maxFileSize", "2M") == 0);
	CHECK(trace2_config_set("trace2.normalTarget", "false") == 0);
	trace2_initialize();
	expect_error("trace2.perfTarget", "1", EBUSY);
	expect_error("trace2.noSuchKey", "1", EBUSY);
}

static void test_errors(void **state)
{
	(void)state;
	assert_int_equal(t2_run_noinit(errors_scenario, NULL, NULL), 0);
}

/* ------------------------------------------------------------------ */
/* Config files named by the program.                                   */

/* System then global, both read; Git's files are not. */
static void test_own_config_files(void **state)
{
	char *dir = fresh_dir(), *home = t2_path(dir, "home"), *gitcfg = t2_path(home, ".gitconfig");
	char *sys = t2_path(dir, "sys.cfg"), *glob = t2_path(dir, "glob.cfg");
	char *text, *env_home = t2_xfmt("HOME=%s", home);
	const char *env[] = { env_home, NULL };
	struct run r = { dir, NULL, NULL, NULL, 1, "@D/sys.cfg", "@D/glob.cfg", NULL };
	struct t2_proc p;

	(void)state;
	assert_int_equal(mkdir(home, 0777), 0);
	text = t2_xfmt("[trace2]\n\teventTarget = %s/git.log\n", dir);
	assert_int_equal(t2_write_file(gitcfg, text), 0);
	free(text);
	text = t2_xfmt("[trace2]\n\tnormalTarget = %s/sys.log\n\tnormalBrief = true\n"
		       "\tconfigParams = foo.*\n[foo]\n\tsys = 1\n", dir);
	assert_int_equal(t2_write_file(sys, text), 0);
	free(text);
	text = t2_xfmt("[trace2]\n\tnormalTarget = %s/normal.log\n[foo]\n\tglob = 2\n", dir);
	assert_int_equal(t2_write_file(glob, text), 0);
	free(text);

	run(&r, env, &p);
	t2_proc_free(&p);
	assert_false(has_file(dir, "git.log"));
	assert_false(has_file(dir, "sys.log"));
	text = file_of(dir, "normal.log");
	assert_non_null(strstr(text, "cmd_name cfgapi (cfgapi)\n"
				     "def_param scope:system foo.sys=1\n"
				     "def_param scope:global foo.glob=2\n"));
	free(text);

	/* without the call, ~/.gitconfig is read (prefix GIT) */
	r.own_files = 0;
	run(&r, env, &p);
	t2_proc_free(&p);
	assert_true(has_file(dir, "git.log"));
	assert_int_equal(unlink(gitcfg), 0);

	/* NULL, NULL: no file at all */
	r.own_files = 1;
	r.system = r.global = NULL;
	text = t2_path(dir, "normal.log");
	unlink(text);
	free(text);
	assert_int_equal(t2_write_file(gitcfg, "[trace2]\n\tnormalTarget = yes\n"), 0);
	run(&r, env, &p);
	assert_string_equal(p.err, "");
	t2_proc_free(&p);
	assert_false(has_file(dir, "normal.log"));

	t2_rmtree(dir);
	free(dir);
	free(home);
	free(gitcfg);
	free(sys);
	free(glob);
	free(env_home);
}

/* ------------------------------------------------------------------ */
/* An own environment prefix.                                           */

/* The value of NAME in env(1)'s output, or NULL; caller frees. */
static char *env_value(const char *text, const char *name)
{
	char *needle = t2_xfmt("\n%s=", name), *nl = t2_xfmt("\n%s", text), *at, *end, *v = NULL;

	if ((at = strstr(nl, needle))) {
		at += strlen(needle);
		end = strchr(at, '\n');
		v = strndup(at, end ? (size_t)(end - at) : strlen(at));
	}
	free(needle);
	free(nl);
	return v;
}

/* The "sid" of the first line of an event log; caller frees. */
static char *sid_of(const char *log)
{
	const char *at = strstr(log, "\"sid\":\"");

	if (!at)
		return NULL;
	at += 7;
	return strndup(at, strcspn(at, "\""));
}

static void test_prefix_child_and_environment(void **state)
{
	char *dir = fresh_dir(), *log, *envs, *sid, *v;
	const char *env[] = { "GIT_TRACE2_EVENT=@D/git.log", "GIT_TRACE2=@D/gitnormal.log",
			      "GIT_TRACE2_PARENT_SID=from-git",
			      "MYAPP_TRACE2_EVENT=@D/my.log", "MYAPP_TRACE2_EVENT_BRIEF=1",
			      "MYAPP_TRACE2_MINE=@D/mine.log", "GIT_TRACE2_MINE_BRIEF=1",
			      NULL };
	struct run r = { dir, "MYAPP", NULL, NULL, 0, NULL, NULL, env_argv };
	struct t2_proc p;

	(void)state;
	run(&r, env, &p);
	t2_proc_free(&p);
	assert_false(has_file(dir, "git.log"));
	assert_false(has_file(dir, "gitnormal.log"));
	log = file_of(dir, "my.log");
	sid = sid_of(log);
	assert_non_null(sid);
	/* GIT_TRACE2_PARENT_SID is not ours: no parent */
	assert_null(strchr(sid, '/'));
	/* MYAPP_TRACE2_EVENT_BRIEF was read */
	assert_null(strstr(log, "\"file\":"));
	assert_non_null(strstr(log, "\"event\":\"child_start\""));
	/* the registered target's setting, prefixed; its brief from GIT_ not */
	free(log);
	log = file_of(dir, "mine.log");
	assert_int_equal(log[0], 'f');
	free(log);

	envs = file_of(dir, "child.txt");
	v = env_value(envs, "MYAPP_TRACE2_PARENT_SID");
	assert_non_null(v);
	assert_string_equal(v, sid);
	free(v);
	v = env_value(envs, "GIT_TRACE2_PARENT_SID");
	assert_non_null(v);
	assert_string_equal(v, sid);
	free(v);
	v = env_value(envs, "MYAPP_TRACE2_PARENT_NAME");
	assert_non_null(v);
	assert_string_equal(v, "cfgapi");
	free(v);
	free(envs);
	free(sid);
	t2_rmtree(dir);
	free(dir);
}

static void test_prefix_reads_its_own_names(void **state)
{
	char *dir = fresh_dir(), *log, *sid, *home = t2_path(dir, "home"),
	     *gitcfg = t2_path(home, ".gitconfig"), *env_home = t2_xfmt("HOME=%s", home);
	const char *env[] = { "MYAPP_TRACE2_EVENT=@D/my.log", "MYAPP_TRACE2_PARENT_SID=my-parent",
			      "MYAPP_TRACE2_PERF=yes", env_home, NULL };
	struct run r = { dir, "MYAPP", NULL, NULL, 0, NULL, NULL, NULL };
	struct t2_proc p;
	char *text;

	(void)state;
	assert_int_equal(mkdir(home, 0777), 0);
	text = t2_xfmt("[trace2]\n\tnormalTarget = %s/git.log\n", dir);
	assert_int_equal(t2_write_file(gitcfg, text), 0);
	free(text);
	run(&r, env, &p);
	/* messages name the prefixed variable */
	assert_string_equal(p.err, "warning: trace2: unknown value for 'MYAPP_TRACE2_PERF': 'yes'\n");
	t2_proc_free(&p);
	/* no git config file under another prefix */
	assert_false(has_file(dir, "git.log"));
	log = file_of(dir, "my.log");
	sid = sid_of(log);
	assert_non_null(sid);
	assert_int_equal(strncmp(sid, "my-parent/", 10), 0);
	free(sid);
	free(log);

	/* the API wins over the prefixed environment too */
	r.api_key = "trace2.eventTarget";
	r.api_value = "@D/api.log";
	run(&r, env, &p);
	t2_proc_free(&p);
	assert_true(has_file(dir, "api.log"));

	/* and a config file the program names is read */
	r.api_key = NULL;
	r.own_files = 1;
	r.global = "@D/home/.gitconfig";
	run(&r, env, &p);
	t2_proc_free(&p);
	assert_true(has_file(dir, "git.log"));

	t2_rmtree(dir);
	free(dir);
	free(home);
	free(gitcfg);
	free(env_home);
}

/* A git child joins the program's process tree: its session id starts
 * with the program's, though GIT_TRACE2_EVENT does not trace the program. */
static void test_prefix_git_child_joins(void **state)
{
	char *dir = fresh_dir(), *mine_log, *git_log, *sid, *want, **lines;
	const char *env[] = { "GIT_TRACE2_EVENT=@D/git.log", "MYAPP_TRACE2_EVENT=@D/my.log",
			      NULL };
	struct run r = { dir, "MYAPP", NULL, NULL, 0, NULL, NULL, git_argv };
	struct t2_proc p;
	size_t i, n;

	(void)state;
	if (t2_system_env(NULL, "git version >/dev/null 2>&1")) {
		printf("skipped: no git on PATH to start as a child\n");
		t2_rmtree(dir);
		free(dir);
		skip();
	}
	run(&r, env, &p);
	t2_proc_free(&p);
	mine_log = file_of(dir, "my.log");
	git_log = file_of(dir, "git.log");
	sid = sid_of(mine_log);
	assert_non_null(sid);
	assert_non_null(strstr(mine_log, "\"event\":\"child_exit\""));
	want = t2_xfmt("\"sid\":\"%s/", sid);
	lines = t2_lines(git_log, &n);
	assert_true(n > 0);
	for (i = 0; i < n; i++)
		if (!strstr(lines[i], want))
			fail_msg("git's record outside the tree of %s: %s", sid, lines[i]);
	assert_non_null(strstr(git_log, "\"event\":\"version\""));
	t2_strv_free(lines);
	free(want);
	free(sid);
	free(mine_log);
	free(git_log);
	t2_rmtree(dir);
	free(dir);
}

/* An invalid prefix is ignored: GIT stays. */
static void bad_prefix_scenario(void *arg)
{
	(void)arg;
	trace2_set_env_prefix("MY-APP");
	trace2_set_env_prefix("");
	trace2_initialize();
	CHECK(trace2_is_enabled());
}

static void test_bad_prefix_ignored(void **state)
{
	char *dir = t2_tmpdir(), *env_ev = t2_xfmt("GIT_TRACE2_EVENT=%s/ev.log", dir);
	const char *env[] = { env_ev, NULL };

	(void)state;
	assert_int_equal(t2_run_noinit(bad_prefix_scenario, NULL, env), 0);
	assert_true(has_file(dir, "ev.log"));
	t2_rmtree(dir);
	free(dir);
	free(env_ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_and_precedence),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_own_config_files),
		cmocka_unit_test(test_prefix_child_and_environment),
		cmocka_unit_test(test_prefix_reads_its_own_names),
		cmocka_unit_test(test_prefix_git_child_joins),
		cmocka_unit_test(test_bad_prefix_ignored),
	};

	t2_leak_check_runner_only();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
