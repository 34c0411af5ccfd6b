/*
 * trace2.* settings from config files (docs/configuration.md, "Config
 * files" and "Precedence"), proven
 * with the test driver: which files are read and in which order, how the
 * environment overrides them, the parser's syntax, includes, and the
 * fatal errors (the driver sets trace2_set_fatal_exit_code(128), so they
 * end it with 128 as in Git).
 *
 * Every test has a root directory holding HOME ("home/"), config files
 * and the *.log files the NORMAL target writes; "@R" in a config text
 * stands for the root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"

/* NORMAL brief first words of "trace2-tool trace2 001return 0". */
#define RUN_WORDS "version start " T2_ANCESTRY(" ") "cmd_name exit atexit"
/* A config text turning NORMAL brief on into "@R/<log>". */
#define TARGET(log) "[trace2]\n\tnormalTarget = @R/" log "\n\tnormalBrief = true\n"

struct fx {
	char *root;
	char *home;
	struct t2_env env;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->root = t2_tmpdir();
	f->home = t2_path(f->root, "home");
	if (mkdir(f->home, 0777))
		return -1;
	t2_env_add(&f->env, "HOME=%s", f->home);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	t2_env_free(&f->env);
	t2_rmtree(f->root);
	free(f->root);
	free(f->home);
	free(f);
	return 0;
}

/* "<root>/<rel>"; caller frees. */
static char *fx_path(const struct fx *f, const char *rel)
{
	return t2_path(f->root, rel);
}

/* Write "<root>/<rel>" (parents made) with text, "@R" replaced by the
 * root; returns the path (caller frees). */
static char *fx_write(const struct fx *f, const char *rel, const char *text)
{
	char *path = fx_path(f, rel), *dir = strdup(path), *body;

	*strrchr(dir, '/') = '\0';
	assert_int_equal(t2_mkdirs(dir), 0);
	body = t2_replace(text, "@R", f->root);
	assert_int_equal(t2_write_file(path, body), 0);
	free(body);
	free(dir);
	return path;
}

static void fx_put(const struct fx *f, const char *rel, const char *text)
{
	free(fx_write(f, rel, text));
}

/* The driver's 001return 0 with the fixture's environment. */
static void fx_run(const struct fx *f, struct t2_proc *p)
{
	t2_tool(t2_env_list(&f->env), p, "trace2", "001return", "0", NULL);
}

/* The *.log files in the root (names may hold spaces), sorted, joined
 * by "|"; caller frees.  Through t2_listdir_sep(), which a Windows
 * scenario's replay gets back as the runner saw it. */
static char *fx_logs(const struct fx *f)
{
	char *all = t2_listdir_sep(f->root, "/"), **names = t2_split(all, "/", NULL);
	char *out = strdup("");
	size_t i;

	for (i = 0; names[i]; i++) {
		size_t len = strlen(names[i]);

		if (len > 4 && !strcmp(names[i] + len - 4, ".log"))
			t2_append(&out, "%s%s", *out ? "|" : "", names[i]);
	}
	t2_strv_free(names);
	free(all);
	return out;
}

static void assert_log_words(const struct fx *f, const char *log, const char *words)
{
	char *path = fx_path(f, log), *text = t2_read_file(path, NULL), *got;

	assert_non_null(text);
	got = t2_first_words(text);
	assert_string_equal(got, words);
	free(got);
	free(text);
	free(path);
}

/* Drop the last environment entry added. */
static void fx_env_pop(struct fx *f)
{
	free(f->env.v[--f->env.n]);
	f->env.v[f->env.n] = NULL;
}

/* Take HOME away, and on Windows what the library takes for it then
 * (docs/configuration.md, "On Windows"). */
static void fx_unset_home(struct fx *f)
{
	t2_env_add(&f->env, "HOME");
#ifdef _WIN32
	t2_env_add(&f->env, "USERPROFILE");
	t2_env_add(&f->env, "HOMEDRIVE");
	t2_env_add(&f->env, "HOMEPATH");
#endif
}

/* Run the driver; it must exit 0 with nothing on stderr. */
static void run_ok(const struct fx *f)
{
	struct t2_proc p;

	fx_run(f, &p);
	assert_string_equal(p.err, "");
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 0);
	t2_proc_free(&p);
}

static void assert_logs(const struct fx *f, const char *expected)
{
	char *logs = fx_logs(f);

	assert_string_equal(logs, expected);
	free(logs);
}

/* run_ok(); log must then be the only *.log file, holding one brief
 * run (NULL: no log at all). */
static void expect_log(struct fx *f, const char *log)
{
	run_ok(f);
	assert_logs(f, log ? log : "");
	if (log)
		assert_log_words(f, log, RUN_WORDS);
}

/* Run the driver; it must exit 128 with exactly err on stderr ("@R"
 * replaced by the root). */
static void expect_fatal(struct fx *f, const char *err)
{
	struct t2_proc p;
	char *want = t2_replace(err, "@R", f->root);

	fx_run(f, &p);
	assert_string_equal(p.err, want);
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 128);
	free(want);
	t2_proc_free(&p);
}

/* Remove every *.log file of the root. */
static void fx_clear_logs(const struct fx *f)
{
	char *logs = fx_logs(f), **names = t2_split(logs, "|", NULL);
	size_t i;

	for (i = 0; names[i] && *names[i]; i++) {
		char *path = fx_path(f, names[i]);

		unlink(path);
		free(path);
	}
	t2_strv_free(names);
	free(logs);
}

/* ------------------------------------------------------------------ */
/* Which files are read.                                               */
/* ------------------------------------------------------------------ */

/* $GIT_CONFIG_SYSTEM, unless GIT_CONFIG_NOSYSTEM is true. */
static void system_file(void **state)
{
	static const char *const read_it[] = { "0", "false", "no", "off", "", NULL };
	static const char *const skip_it[] = { "1", "true", "yes", "on", "2", NULL };
	struct fx *f = *state;
	size_t i;

	fx_put(f, "sys", TARGET("sys.log"));
	t2_env_add(&f->env, "GIT_CONFIG_SYSTEM=%s/sys", f->root);
	t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM");
	expect_log(f, "sys.log");
	for (i = 0; read_it[i]; i++) {
		fx_clear_logs(f);
		t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM=%s", read_it[i]);
		expect_log(f, "sys.log");
	}
	for (i = 0; skip_it[i]; i++) {
		fx_clear_logs(f);
		t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM=%s", skip_it[i]);
		expect_log(f, NULL);
	}
}

/* An invalid GIT_CONFIG_NOSYSTEM is fatal, traced or not. */
static void system_switch_invalid(void **state)
{
	struct fx *f = *state;

	fx_put(f, "sys", TARGET("sys.log"));
	t2_env_add(&f->env, "GIT_CONFIG_SYSTEM=%s/sys", f->root);
	t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM=x");
	expect_fatal(f, "fatal: bad boolean environment value 'x' for 'GIT_CONFIG_NOSYSTEM'\n");
	t2_env_add(&f->env, "GIT_TRACE2=0");
	expect_fatal(f, "fatal: bad boolean environment value 'x' for 'GIT_CONFIG_NOSYSTEM'\n");
}

/* The global files override the system file. */
static void global_overrides_system(void **state)
{
	struct fx *f = *state;

	fx_put(f, "sys", TARGET("sys.log") "\tperfBrief = true\n");
	fx_put(f, "home/.gitconfig", TARGET("global.log"));
	t2_env_add(&f->env, "GIT_CONFIG_SYSTEM=%s/sys", f->root);
	t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM=0");
	expect_log(f, "global.log");
}

/* $GIT_CONFIG_GLOBAL is the only global file. */
static void global_variable(void **state)
{
	struct fx *f = *state;

	fx_put(f, "g", TARGET("g.log"));
	fx_put(f, "home/.gitconfig", "[trace2]\n\tperfTarget = @R/home.log\n");
	fx_put(f, "home/.config/git/config", "[trace2]\n\tperfTarget = @R/xdg.log\n");
	t2_env_add(&f->env, "GIT_CONFIG_GLOBAL=%s/g", f->root);
	expect_log(f, "g.log");
}

/* $XDG_CONFIG_HOME/git/config if set and non-empty, else
 * $HOME/.config/git/config. */
static void global_xdg_file(void **state)
{
	struct fx *f = *state;

	fx_put(f, "xdg/git/config", TARGET("xdg.log"));
	fx_put(f, "home/.config/git/config", TARGET("dotconfig.log"));
	expect_log(f, "dotconfig.log");
	fx_clear_logs(f);
	t2_env_add(&f->env, "XDG_CONFIG_HOME=");
	expect_log(f, "dotconfig.log");
	fx_clear_logs(f);
	t2_env_add(&f->env, "XDG_CONFIG_HOME=%s/xdg", f->root);
	expect_log(f, "xdg.log");
}

/* Both global files are read; ~/.gitconfig last, so it wins, and an
 * XDG setting it does not touch stays. */
static void global_home_wins_over_xdg(void **state)
{
	struct fx *f = *state;

	fx_put(f, "xdg/git/config", "[trace2]\n\tnormalTarget = @R/xdg.log\n\tnormalBrief = true\n");
	fx_put(f, "home/.gitconfig", "[trace2]\n\tnormalTarget = @R/home.log\n");
	t2_env_add(&f->env, "XDG_CONFIG_HOME=%s/xdg", f->root);
	expect_log(f, "home.log");
}

/* Without HOME (and XDG_CONFIG_HOME) only the system file is read. */
static void no_home_only_system(void **state)
{
	struct fx *f = *state;

	fx_put(f, "sys", TARGET("sys.log"));
	fx_put(f, "home/.gitconfig", TARGET("home.log"));
	t2_env_add(&f->env, "GIT_CONFIG_SYSTEM=%s/sys", f->root);
	t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM");
	fx_unset_home(f);
	expect_log(f, "sys.log");
}

/* Run the driver; it must exit 0 with exactly err on stderr ("@R"
 * replaced by the root) and write log (a brief run) as its only log. */
static void expect_log_and_err(struct fx *f, const char *log, const char *err)
{
	struct t2_proc p;
	char *want = t2_replace(err, "@R", f->root);

	fx_run(f, &p);
	assert_string_equal(p.err, want);
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 0);
	assert_logs(f, log);
	assert_log_words(f, log, RUN_WORDS);
	free(want);
	t2_proc_free(&p);
}

/* A config path naming a directory is skipped with Git's warning. */
static void config_path_is_directory(void **state)
{
	struct fx *f = *state;
	char *d = fx_path(f, "adir");

	assert_int_equal(mkdir(d, 0777), 0);
	fx_put(f, "sys", TARGET("sys.log"));
	t2_env_add(&f->env, "GIT_CONFIG_SYSTEM=%s/sys", f->root);
	t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM");
	t2_env_add(&f->env, "GIT_CONFIG_GLOBAL=%s", d);
	expect_log_and_err(f, "sys.log", "warning: unable to access '@R/adir': Is a directory\n");
	fx_clear_logs(f);
	t2_env_add(&f->env, "GIT_CONFIG_SYSTEM=%s", d);
	t2_env_add(&f->env, "GIT_CONFIG_GLOBAL");
	fx_put(f, "xdg/git/config", TARGET("xdg.log"));
	t2_env_add(&f->env, "XDG_CONFIG_HOME=%s/xdg", f->root);
	{
		char *dot = t2_path(f->home, ".gitconfig");

		assert_int_equal(mkdir(dot, 0777), 0);
		free(dot);
	}
	expect_log_and_err(f, "xdg.log", "warning: unable to access '@R/adir': Is a directory\n"
			   "warning: unable to access '@R/home/.gitconfig': Is a directory\n");
	free(d);
}

/* ------------------------------------------------------------------ */
/* Precedence of the environment.                                      */
/* ------------------------------------------------------------------ */

static void env_overrides_config(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", TARGET("config.log"));
	t2_env_add(&f->env, "GIT_TRACE2=%s/env.log", f->root);
	expect_log(f, "env.log");
	fx_clear_logs(f);
	t2_env_add(&f->env, "GIT_TRACE2=0");
	expect_log(f, NULL);
}

/* An empty variable does not override: GIT_TRACE2= leaves it on. */
static void empty_env_does_not_override(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", TARGET("config.log"));
	t2_env_add(&f->env, "GIT_TRACE2=");
	t2_env_add(&f->env, "GIT_TRACE2_BRIEF=");
	expect_log(f, "config.log");
}

/* The brief flag from the environment overrides the config's. */
static void env_brief_overrides_config(void **state)
{
	struct fx *f = *state;
	char *path, *text;

	fx_put(f, "home/.gitconfig", TARGET("config.log"));
	t2_env_add(&f->env, "GIT_TRACE2_BRIEF=false");
	run_ok(f);
	path = fx_path(f, "config.log");
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	assert_non_null(strstr(text, " common-init.c:77 "));
	free(text);
	free(path);
}

/* Messages about a configured value name the environment variable;
 * trace2.destinationDebug and trace2.maxFiles work from config. */
static void config_values_in_messages(void **state)
{
	struct fx *f = *state;
	struct t2_proc p;
	char *want;

	fx_put(f, "home/.gitconfig",
	       "[trace2]\n\tnormalTarget = ~/log\n\tperfTarget = @R/missing/p.log\n"
	       "\teventTarget = @R/tdir\n\tdestinationDebug = 1\n\tmaxFiles = 2\n");
	{
		char *d = fx_path(f, "tdir");

		assert_int_equal(mkdir(d, 0777), 0);
		free(d);
	}
	fx_run(f, &p);
	want = t2_replace("warning: trace2: unknown value for 'GIT_TRACE2': '~/log'\n"
			  "warning: trace2: could not open '@R/missing/p.log' for 'GIT_TRACE2_PERF' tracing: No such file or directory\n",
			  "@R", f->root);
	assert_string_equal(p.err, want);
	{
		char *d = fx_path(f, "tdir"), *list = t2_listdir(d);

		assert_string_equal(list, "git-trace2-discard");
		free(list);
		free(d);
	}
	free(want);
	t2_proc_free(&p);
}

/* ------------------------------------------------------------------ */
/* Syntax.                                                             */
/* ------------------------------------------------------------------ */

/* Comments, quoting, inner whitespace kept, trailing whitespace cut. */
static void syntax_comments_and_quotes(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig",
	       "# a comment\n"
	       "; another\n"
	       "\n"
	       "[trace2] # after a header\n"
	       "\tperfTarget = \"@R/p;q #r.log\" ; comment\n"
	       "\tnormalTarget =   @R/a  \"b\"  c.log   ; comment\n"
	       "\tnormalBrief = yes # c\n");
	run_ok(f);
	assert_logs(f, "a  b  c.log|p;q #r.log");
	assert_log_words(f, "a  b  c.log", RUN_WORDS);
}

/* \t \n \b \\ \" escapes, in a file name. */
static void syntax_escapes(void **state)
{
	struct fx *f = *state;

	T2_SKIP_ON_WINDOWS("a Windows file name holds no tab, LF, backspace or '\"', "
			   "and '\\' separates directories there");
	fx_put(f, "home/.gitconfig",
	       "[trace2]\n"
	       "\tnormalBrief = true\n"
	       "\tnormalTarget = \"@R/e\\tt\\\\b\\\"q\\nn\\bx.lo\"g\n");
	expect_log(f, "e\tt\\b\"q\nn\bx.log");
}

/* A line continuation inside a value. */
static void syntax_continuation(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", "[trace2]\n\tnormalBrief = true\n"
	       "\tnormalTarget = @R/con\\\ntinued.lo\\\ng\n");
	expect_log(f, "continued.log");
}

/* Section and key names in any case; subsections are other keys. */
static void syntax_names(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig",
	       "[trace2 \"sub\"]\n\tnormalTarget = @R/sub.log\n"
	       "[trace2.sub]\n\tnormalTarget = @R/dotsub.log\n"
	       "[core]\n\tbare\n"
	       "[TRACE2]\n\tNormalTARGET = @R/upper.log\n\tNORMALBRIEF=1\n"
	       "[trace2 \"x\"]\n\tnormalTarget = @R/later.log\n");
	expect_log(f, "upper.log");
}

/* The last assignment of a key wins. */
static void syntax_last_wins(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig",
	       TARGET("first.log") "[other]\n\tkey = v\n" TARGET("second.log"));
	expect_log(f, "second.log");
}

/* Subsection case is kept in the keys trace2_cmd_list_config reports. */
static void syntax_subsection_case(void **state)
{
	struct fx *f = *state;
	char *path, *text, *lines = NULL;

	fx_put(f, "home/.gitconfig",
	       TARGET("n.log")
	       "[Cfg \"Prop\"]\n\tBar = two words\n"
	       "[cfg \"prop\"] foo = red\n"
	       "[CFG.Dotted]\n\tKey = v\n"
	       "[cfg \"a\\\"b\\\\c\"]\n\tq = \"\"\n"
	       "[cfg]\n\tnovalue\n");
	t2_env_add(&f->env, "GIT_TRACE2_CONFIG_PARAMS=cfg.*");
	run_ok(f);
	path = fx_path(f, "n.log");
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	{
		char **v = t2_lines(text, NULL);
		size_t i;

		for (i = 0; v[i]; i++)
			if (!strncmp(v[i], "def_param ", 10))
				t2_append(&lines, "%s\n", v[i]);
		t2_strv_free(v);
	}
	assert_string_equal(lines,
			    "def_param scope:global cfg.Prop.bar=two words\n"
			    "def_param scope:global cfg.prop.foo=red\n"
			    "def_param scope:global cfg.dotted.key=v\n"
			    "def_param scope:global cfg.a\"b\\c.q=\n"
			    "def_param scope:global cfg.novalue\n");
	free(lines);
	free(text);
	free(path);
}

/* CR LF line ends and a UTF-8 byte order mark. */
static void syntax_crlf_and_bom(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig",
	       "\xef\xbb\xbf[trace2]\r\n\tnormalTarget = @R/crlf.log\r\n"
	       "\tnormalBrief = true\r\n");
	expect_log(f, "crlf.log");
}

/*
 * A file longer than one read: CR LF pairs split across the reader's
 * chunks (bytes 2047/2048 and 4095/4096), the entry after them.
 */
static void syntax_crlf_across_reads(void **state)
{
	static const size_t splits[] = { 2047, 4095 };
	struct fx *f = *state;
	char text[8192];
	size_t len = 0, i;

	len += (size_t)sprintf(text, "[other]\r\n");
	for (i = 0; i < 2; i++) {
		/* a comment line ending in the CR at splits[i] */
		text[len++] = '#';
		while (len < splits[i])
			text[len++] = 'x';
		text[len++] = '\r';
		text[len++] = '\n';
	}
	sprintf(text + len, "[trace2]\r\n\tnormalTarget = @R/long.log\r\n"
		"\tnormalBrief = true\r\n");
	fx_put(f, "home/.gitconfig", text);
	expect_log(f, "long.log");
}

/* Values are taken literally: no ~ or $VAR expansion. */
static void syntax_no_expansion(void **state)
{
	struct fx *f = *state;
	struct t2_proc p;

	fx_put(f, "home/.gitconfig", "[trace2]\n\tnormalTarget = $HOME/x.log\n");
	fx_run(f, &p);
	assert_string_equal(p.err, "warning: trace2: unknown value for 'GIT_TRACE2': '$HOME/x.log'\n");
	t2_proc_free(&p);
}

/* ------------------------------------------------------------------ */
/* Includes.                                                           */
/* ------------------------------------------------------------------ */

/* Relative to the including file's directory, also when nested. */
static void include_relative(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", "[include]\n\tpath = inc/one.cfg\n");
	fx_put(f, "home/inc/one.cfg", "[include]\n\tpath = two.cfg\n");
	fx_put(f, "home/inc/two.cfg", TARGET("two.log"));
	expect_log(f, "two.log");
}

/* "~/" is $HOME; the include happens at its place in the file. */
static void include_home_and_order(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig",
	       TARGET("before.log") "[include]\n\tpath = ~/cfg/inc\n");
	fx_put(f, "home/cfg/inc", TARGET("inc.log"));
	expect_log(f, "inc.log");
	fx_clear_logs(f);
	fx_put(f, "home/.gitconfig",
	       "[include]\n\tpath = ~/cfg/inc\n" TARGET("after.log"));
	expect_log(f, "after.log");
}

/* Git's t0210: a global file holding only include.path = <abs path>. */
static void include_absolute_only(void **state)
{
	struct fx *f = *state;

	fx_put(f, "real.cfg", TARGET("real.log"));
	fx_put(f, "home/.gitconfig", "[include]\n\tpath = @R/real.cfg\n");
	expect_log(f, "real.log");
}

/* A missing include is ignored. */
static void include_missing(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig",
	       "[include]\n\tpath = missing.cfg\n\tpath = ~/nope\n"
	       TARGET("main.log"));
	expect_log(f, "main.log");
}

/* includeIf is false here (no repository is known). */
static void include_if_ignored(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig",
	       TARGET("main.log")
	       "[includeIf \"gitdir:/\"]\n\tpath = cond.cfg\n"
	       "[includeIf \"onbranch:main\"]\n\tpath = cond.cfg\n");
	fx_put(f, "home/cond.cfg", TARGET("cond.log"));
	expect_log(f, "main.log");
}

/* Including itself: more than 10 levels is fatal. */
static void include_too_deep(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", "[include]\n\tpath = .gitconfig\n");
	expect_fatal(f, "fatal: exceeded maximum include depth (10) while including\n"
		     "\t@R/home/.gitconfig\nfrom\n\t@R/home/.gitconfig\n"
		     "This might be due to circular includes.\n");
}

/* An include naming a directory: Git's warning, then the include's line;
 * "~" expanded without HOME: an error, then the line. */
static void include_unusable(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", "[include]\n\tpath = \\\n@R\n");
	expect_fatal(f, "warning: unable to access '@R': Is a directory\n"
		     "fatal: bad config line 3 in file @R/home/.gitconfig\n");
	fx_put(f, "g.cfg", "[include]\n\tpath = ~/x\n");
	t2_env_add(&f->env, "GIT_CONFIG_GLOBAL=%s/g.cfg", f->root);
	fx_unset_home(f);
	expect_fatal(f, "error: could not expand include path '~/x'\n"
		     "fatal: bad config line 2 in file @R/g.cfg\n");
}

/* ------------------------------------------------------------------ */
/* Fatal errors.                                                       */
/* ------------------------------------------------------------------ */

/* A valueless trace2.* key: the error line, then the fatal one. */
static void malformed_missing_value(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", "[trace2]\n\tnormalTarget\n");
	expect_fatal(f, "error: missing value for 'trace2.normaltarget'\n"
		     "fatal: bad config line 2 in file @R/home/.gitconfig\n");
	fx_put(f, "home/.gitconfig", "# c\n[Trace2]\n\tperfBrief = 1\n\tMaxFiles\n");
	expect_fatal(f, "error: missing value for 'trace2.maxfiles'\n"
		     "fatal: bad config line 4 in file @R/home/.gitconfig\n");
}

/* Syntax errors: only the fatal line, naming the file and line. */
static void malformed_syntax(void **state)
{
	static const char *const bad[][2] = {
		{ "[trace2]\n\tnormalTarget = a\\qb\n", "2" },
		{ "[trace2]\n\tnormalBrief = 1\n\t=value\n", "3" },
		{ "[trace2]\n\t1key = x\n", "2" },
		{ "[trace2]\n\tkey! = x\n", "2" },
		{ "[tra ce2\n", "1" },
		{ "[trace2\n\tperfTarget = 1\n", "1" },
		{ "[trace2", "2" },
		{ "[trace2]\n\tperfTarget = \"abc\n\n", "2" },
		{ "[trace2]\n\tperfTarget = \"abc\\", "3" },
		{ "[x \"y\n\"]\n", "1" },
		{ "[trace2]\n\tk ; c\n", "2" },
	};
	struct fx *f = *state;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *want = NULL;

		fx_put(f, "g.cfg", bad[i][0]);
		t2_env_add(&f->env, "GIT_CONFIG_GLOBAL=%s/g.cfg", f->root);
		t2_append(&want, "fatal: bad config line %s in file @R/g.cfg\n", bad[i][1]);
		expect_fatal(f, want);
		free(want);
	}
}

/* An error inside an included file names that file. */
static void malformed_in_include(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", "[include]\n\tpath = sub/bad.cfg\n");
	fx_put(f, "home/sub/bad.cfg", "\n\n[trace2]\n\teventTarget\n");
	expect_fatal(f, "error: missing value for 'trace2.eventtarget'\n"
		     "fatal: bad config line 4 in file @R/home/sub/bad.cfg\n");
}

/* The fatal errors happen while the config is read, before any target
 * is open: a target from the environment gets nothing, its file is not
 * even created. */
static void fatal_before_tracing(void **state)
{
	struct fx *f = *state;

	t2_env_add(&f->env, "GIT_TRACE2=%s/env.log", f->root);
	fx_put(f, "home/.gitconfig", "[trace2]\n\tnormalTarget\n");
	expect_fatal(f, "error: missing value for 'trace2.normaltarget'\n"
		     "fatal: bad config line 2 in file @R/home/.gitconfig\n");
	assert_logs(f, "");
	fx_put(f, "home/.gitconfig", "");
	t2_env_add(&f->env, "GIT_CONFIG_NOSYSTEM=maybe");
	expect_fatal(f, "fatal: bad boolean environment value 'maybe' for 'GIT_CONFIG_NOSYSTEM'\n");
	assert_logs(f, "");
}

/* Whether the NORMAL log of one run is brief (its first line starts
 * with "version") or not (with the time of day). */
static int log_is_brief(const struct fx *f, const char *log)
{
	char *path = fx_path(f, log), *text = t2_read_file(path, NULL);
	int brief;

	assert_non_null(text);
	brief = !strncmp(text, "version ", 8);
	assert_true(brief || strstr(text, " common-init.c:77 "));
	free(text);
	free(path);
	return brief;
}

/* Brief flags are "maybe-bool" (docs/configuration.md, "Booleans"):
 * words, integers with base prefixes and k/m/g units; anything else is
 * ignored (not brief). */
static void brief_values(void **state)
{
	static const char *const values[][2] = {
		{ "yes", "1" }, { "On", "1" }, { "TRUE", "1" }, { "2", "1" },
		{ "1k", "1" }, { "0x1", "1" }, { " 1", "1" }, { "-1", "1" },
		{ "010", "1" }, { "1G", "1" }, { "no", "0" }, { "off", "0" },
		{ "false", "0" }, { "0", "0" }, { "0x0", "0" }, { "abc", "0" },
		{ "1x", "0" }, { "1kk", "0" }, { "99999999999", "0" },
	};
	struct fx *f = *state;
	size_t i;

	t2_env_add(&f->env, "GIT_TRACE2=%s/b.log", f->root);
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		fx_clear_logs(f);
		t2_env_add(&f->env, "GIT_TRACE2_BRIEF=%s", values[i][0]);
		run_ok(f);
		if (log_is_brief(f, "b.log") != (values[i][1][0] == '1'))
			fail_msg("GIT_TRACE2_BRIEF='%s'", values[i][0]);
		fx_env_pop(f);
	}
	fx_clear_logs(f);
	fx_put(f, "home/.gitconfig", "[trace2]\n\tnormalBrief = 0x10\n");
	run_ok(f);
	assert_true(log_is_brief(f, "b.log"));
}

/* A valueless key outside trace2 is fine for the settings. */
static void valueless_other_key_is_fine(void **state)
{
	struct fx *f = *state;

	fx_put(f, "home/.gitconfig", "[core]\n\tbare\n" TARGET("ok.log") "[x]\n\ty\n");
	expect_log(f, "ok.log");
}

/* An invalid GIT_TRACE2_REDACT is fatal once tracing is on. */
static void redact_invalid(void **state)
{
	struct fx *f = *state;
	struct t2_proc p;
	char *path = fx_path(f, "n.log"), *raw, *text;

	t2_env_add(&f->env, "GIT_TRACE2_REDACT=maybe");
	expect_log(f, NULL);	/* tracing off: not even parsed */
	t2_env_add(&f->env, "GIT_TRACE2=%s", path);
	t2_env_add(&f->env, "GIT_TRACE2_BRIEF=1");
	fx_run(f, &p);
	assert_string_equal(p.err, "fatal: bad boolean environment value 'maybe' for 'GIT_TRACE2_REDACT'\n");
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 128);
	raw = t2_read_file(path, NULL);
	assert_non_null(raw);
	text = t2_scrub(raw);
	assert_string_equal(text, "error bad boolean environment value 'maybe' for 'GIT_TRACE2_REDACT'\n"
			    "exit elapsed:0.000000 code:128\n");
	free(text);
	free(raw);
	free(path);
	t2_proc_free(&p);
}

/* Valid GIT_TRACE2_REDACT values, the empty one included, are fine. */
static void redact_valid(void **state)
{
	static const char *const values[] = { "", "0", "1", "yes", "OFF", "2k", NULL };
	struct fx *f = *state;
	size_t i;

	t2_env_add(&f->env, "GIT_TRACE2=%s/r.log", f->root);
	t2_env_add(&f->env, "GIT_TRACE2_BRIEF=1");
	for (i = 0; values[i]; i++) {
		fx_clear_logs(f);
		t2_env_add(&f->env, "GIT_TRACE2_REDACT=%s", values[i]);
		expect_log(f, "r.log");
	}
}

#define FX_TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(system_file),
		FX_TEST(system_switch_invalid),
		FX_TEST(global_overrides_system),
		FX_TEST(global_variable),
		FX_TEST(global_xdg_file),
		FX_TEST(global_home_wins_over_xdg),
		FX_TEST(no_home_only_system),
		FX_TEST(config_path_is_directory),
		FX_TEST(env_overrides_config),
		FX_TEST(empty_env_does_not_override),
		FX_TEST(env_brief_overrides_config),
		FX_TEST(config_values_in_messages),
		FX_TEST(syntax_comments_and_quotes),
		FX_TEST(syntax_escapes),
		FX_TEST(syntax_continuation),
		FX_TEST(syntax_names),
		FX_TEST(syntax_last_wins),
		FX_TEST(syntax_subsection_case),
		FX_TEST(syntax_crlf_and_bom),
		FX_TEST(syntax_crlf_across_reads),
		FX_TEST(syntax_no_expansion),
		FX_TEST(include_relative),
		FX_TEST(include_home_and_order),
		FX_TEST(include_absolute_only),
		FX_TEST(include_missing),
		FX_TEST(include_if_ignored),
		FX_TEST(include_too_deep),
		FX_TEST(include_unusable),
		FX_TEST(malformed_missing_value),
		FX_TEST(malformed_syntax),
		FX_TEST(malformed_in_include),
		FX_TEST(valueless_other_key_is_fine),
		FX_TEST(fatal_before_tracing),
		FX_TEST(brief_values),
		FX_TEST(redact_invalid),
		FX_TEST(redact_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
