/*
 * Security properties (docs/reliability.md, "Security";
 * docs/configuration.md, "URL passwords"):
 *  - URL passwords never reach a trace from the events that redact them
 *    (start, child_start, exec, def_param from trace2_def_param, the
 *    config listing, the env var listing and cmd_set_config), on every
 *    target, in file and directory mode; GIT_TRACE2_REDACT=0 is the
 *    control that shows the scan finds them;
 *  - trace files get mode 0666 & ~umask (file, directory and sentinel);
 *  - directory mode creates its files exclusively and never follows a
 *    symlink planted where it is about to create one (simulated through
 *    the library's tr2_sys seam at the exact path it opens), nor a planted
 *    discard sentinel;
 *  - trace2.* settings come only from the system and global files: a
 *    repository's .git/config, GIT_CONFIG_COUNT and GIT_CONFIG_PARAMETERS
 *    never enable tracing (the global file is the control);
 *  - environment variable values appear only when GIT_TRACE2_ENV_VARS
 *    lists them.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2rec.h"
#include "t2test.h"
#include "tjson.h"
#include "trace2.h"
#include "tr2_sys.h"

#define PASSWORD "pw-S3cr3t-4711"
#define SECRET "tok-XyZ-8081-hush"
static const char *const TARGET_VARS[] = { "GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT" };
static const char *const FILE_NAMES[] = { "normal", "perf", "event" };
static const char *const RETURN0[] = { "trace2", "001return", "0", NULL };

static int exited_0(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The three targets into files of dir, or all into directory dir. */
static void env_targets(struct t2_env *env, const char *dir, int directory_mode)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (directory_mode)
			t2_env_add(env, "%s=%s", TARGET_VARS[i], dir);
		else
			t2_env_add(env, "%s=%s/%s", TARGET_VARS[i], dir, FILE_NAMES[i]);
	}
}

static int count_in(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

/* Occurrences of needle in all regular files of dir (not recursive). */
static int count_in_dir(const char *dir, const char *needle)
{
	char *names = t2_listdir(dir);
	char **v = t2_split(names, " ", NULL);
	int n = 0, i;

	for (i = 0; v[i] && *v[i]; i++) {
		char *path = t2_path(dir, v[i]), *text = t2_read_file(path, NULL);

		n += text ? count_in(text, needle) : 0;
		free(text);
		free(path);
	}
	t2_strv_free(v);
	free(names);
	return n;
}

/* Regular files directly in dir. */
static int count_files(const char *dir)
{
	char *names = t2_listdir(dir);
	char **v = t2_split(names, " ", NULL);
	int n = 0;

	while (v[n] && *v[n])
		n++;
	t2_strv_free(v);
	free(names);
	return n;
}

/* ------------------------------------------------------------------ */
/* Credentials.                                                         */
/* ------------------------------------------------------------------ */

#define URL1 "https://user:" PASSWORD "@example.com/repo.git"
#define URL2 "http://bob:" PASSWORD "@h:8080/p?q=1"
#define URL3 "https://:" PASSWORD "@h"

static void sc_credentials(void *arg)
{
	const char *argv[] = { "host", "clone", URL1, URL2, URL3, NULL };
	const char *child_args[] = { "git", "fetch", URL1, NULL };
	const char *exec_argv[] = { "git", "push", URL2, NULL };
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct key_value_info kvi = KVI_INIT;

	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_cmd_name("sec");	/* lists configParams and envVars */
	trace2_cmd_list_config();
	trace2_cmd_list_env_vars();
	cmd.args.v = child_args;
	cmd.args.nr = 3;
	trace2_child_start(&cmd);
	trace2_child_exit(&cmd, 0);
	trace2_exec_result(trace2_exec("git", exec_argv), ENOENT);
	kvi.scope = CONFIG_SCOPE_GLOBAL;
	trace2_def_param("remote.direct.url", URL3, &kvi);
	trace2_def_param("remote.nokvi.url", URL1, NULL);
	trace2_cmd_set_config("remote.set.url", URL2);
	exit(trace2_cmd_exit(0));
}

/* Environment of a credential run; the config file is written here. */
static void credential_env(struct t2_env *env, const char *dir)
{
	char *cfg = t2_path(dir, "gitconfig");

	assert_int_equal(t2_write_file(cfg, "[remote \"origin\"]\n\turl = " URL1 "\n"
				       "[cred]\n\tfile = " URL2 "\n"), 0);
	t2_env_add(env, "GIT_CONFIG_GLOBAL=%s", cfg);
	t2_env_add(env, "GIT_TRACE2_CONFIG_PARAMS=remote.*.url,cred.*");
	t2_env_add(env, "GIT_TRACE2_ENV_VARS=MY_URL");
	t2_env_add(env, "MY_URL=%s", URL1);
	t2_env_add(env, "GIT_CONFIG_COUNT=1");
	t2_env_add(env, "GIT_CONFIG_KEY_0=cred.count");
	t2_env_add(env, "GIT_CONFIG_VALUE_0=%s", URL3);
	t2_env_add(env, "GIT_CONFIG_PARAMETERS='cred.param'='%s'", URL1);
	free(cfg);
}

/* Run the scenario into dir/trace; returns the number of passwords found
 * in all trace files, *redacted the number of <REDACTED> markers. */
static int credential_run(const char *dir, int directory_mode, const char *redact,
			  int *redacted)
{
	char *trace = t2_path(dir, "trace");
	struct t2_env env = { 0 };
	struct t2_proc p;
	int found;

	t2_rmtree(trace);
	assert_int_equal(mkdir(trace, 0777), 0);
	env_targets(&env, trace, directory_mode);
	credential_env(&env, dir);
	if (redact)
		t2_env_add(&env, "GIT_TRACE2_REDACT=%s", redact);
	t2_capture(sc_credentials, NULL, t2_env_list(&env), 30, &p);
	assert_true(exited_0(p.status));
	assert_string_equal(p.err, "");
	found = count_in_dir(trace, PASSWORD);
	*redacted = count_in_dir(trace, "<REDACTED>");
	printf("[security] credentials, %s mode%s: %d passwords, %d <REDACTED> in %d files\n",
	       directory_mode ? "directory" : "file", redact ? " (GIT_TRACE2_REDACT=0)" : "",
	       found, *redacted, count_files(trace));
	fflush(stdout);
	t2_proc_free(&p);
	t2_env_free(&env);
	free(trace);
	return found;
}

/*
 * Every redacted event on every target: start (3 URLs), cmd_name's and
 * the explicit config listing (global file 2, GIT_CONFIG_COUNT 1,
 * GIT_CONFIG_PARAMETERS 1), env vars 1, child_start 1, exec 1, def_param 2,
 * set_config 1: 13 per target that shows the event.
 */
static void credentials_never_traced(void **state)
{
	const char *dir = t2_scratch_dir();
	int redacted, mode;

	(void)state;
	for (mode = 0; mode < 2; mode++) {
		assert_int_equal(credential_run(dir, mode, NULL, &redacted), 0);
		assert_int_equal(redacted, 13 * 3);
	}
	/* the control: without redaction the scan finds them all */
	assert_int_equal(credential_run(dir, 0, "0", &redacted), 13 * 3);
	assert_int_equal(redacted, 0);
}

static void exec_tool_args(void *arg)
{
	t2_exec_tool(arg);
}

/* The driver's redaction helpers and its own command line. */
static void credentials_never_traced_by_driver(void **state)
{
	static const char *const cmds[][6] = {
		{ "trace2", "300redact_start", "git", "clone", URL1, NULL },
		{ "trace2", "301redact_child_start", "git", "fetch", URL2, NULL },
		{ "trace2", "302redact_exec", "git", "git", URL3, NULL },
		{ "trace2", "303redact_def_param", "remote.o.url", URL1, NULL },
		{ "trace2", "001return", "0", URL2, NULL },
	};
	const char *dir = t2_scratch_dir();
	char *trace = t2_path(dir, "trace");
	struct t2_env env = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(mkdir(trace, 0777), 0);
	env_targets(&env, trace, 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct t2_proc p;

		t2_capture(exec_tool_args, (void *)cmds[i], t2_env_list(&env), 20, &p);
		assert_true(WIFEXITED(p.status));
		t2_proc_free(&p);
	}
	printf("[security] driver redaction helpers: %d passwords, %d <REDACTED>\n",
	       count_in_dir(trace, PASSWORD), count_in_dir(trace, "<REDACTED>"));
	assert_int_equal(count_in_dir(trace, PASSWORD), 0);
	/* per target: 300 two starts, 301 start + child_start, 302 start +
	 * exec, 303 start + def_param, 001return its start */
	assert_int_equal(count_in_dir(trace, "<REDACTED>"), 9 * 3);
	t2_env_free(&env);
	free(trace);
}

static int count_regular_with(const char *dir, const char *needle)
{
	char *names = t2_listdir(dir);
	char **v = t2_split(names, " ", NULL);
	int n = 0, i;

	for (i = 0; v[i] && *v[i]; i++) {
		char *path = t2_path(dir, v[i]), *text;
		struct stat st;

		if (!lstat(path, &st) && S_ISREG(st.st_mode) &&
		    (text = t2_read_file(path, NULL))) {
			n += strstr(text, needle) != NULL;
			free(text);
		}
		free(path);
	}
	t2_strv_free(v);
	free(names);
	return n;
}

/* ------------------------------------------------------------------ */
/* File modes.                                                          */
/* ------------------------------------------------------------------ */

static void sc_umask(void *arg)
{
	umask(*(const mode_t *)arg);
	trace2_initialize_clock();
	trace2_initialize();
	trace2_printf("mode");
	exit(trace2_cmd_exit(0));
}

/* Every regular file below dir must have mode want; returns how many. */
static int check_modes(const char *dir, mode_t want)
{
	char *names = t2_listdir(dir);
	char **v = t2_split(names, " ", NULL);
	int n = 0, i;

	for (i = 0; v[i] && *v[i]; i++) {
		char *path = t2_path(dir, v[i]);
		struct stat st;

		assert_int_equal(lstat(path, &st), 0);
		if (S_ISDIR(st.st_mode))
			n += check_modes(path, want);
		else {
			printf("[security]   %s: %04o\n", v[i], (unsigned)(st.st_mode & 07777));
			assert_true(S_ISREG(st.st_mode));
			assert_int_equal(st.st_mode & 07777, want);
			n++;
		}
		free(path);
	}
	t2_strv_free(v);
	free(names);
	return n;
}

static void modes_with_umask(mode_t mask)
{
	const char *dir = t2_scratch_dir();
	char *plain = t2_path(dir, "plain"), *full = t2_path(dir, "full");
	struct t2_env env = { 0 }, sentinel_env = { 0 };
	struct t2_proc p;

	assert_int_equal(mkdir(plain, 0777), 0);
	assert_int_equal(mkdir(full, 0777), 0);
	/* a file target and a directory target */
	t2_env_add(&env, "GIT_TRACE2=%s/normal", dir);
	t2_env_add(&env, "GIT_TRACE2_PERF=%s", plain);
	t2_capture(sc_umask, &mask, t2_env_list(&env), 20, &p);
	assert_true(exited_0(p.status));
	t2_proc_free(&p);
	/* the discard sentinel: "." and ".." already reach a limit of 2 */
	t2_env_add(&sentinel_env, "GIT_TRACE2_EVENT=%s", full);
	t2_env_add(&sentinel_env, "GIT_TRACE2_MAX_FILES=2");
	t2_capture(sc_umask, &mask, t2_env_list(&sentinel_env), 20, &p);
	assert_true(exited_0(p.status));
	t2_proc_free(&p);
	printf("[security] umask %03o: every trace file must be %04o\n", (unsigned)mask,
	       (unsigned)(0666 & ~mask));
	assert_int_equal(check_modes(dir, 0666 & ~mask), 3);
	assert_int_equal(count_regular_with(full, "\"event\":\"too_many_files\""), 1);
	t2_env_free(&env);
	t2_env_free(&sentinel_env);
	free(plain);
	free(full);
}

static void trace_file_modes(void **state)
{
	(void)state;
	modes_with_umask(022);
	modes_with_umask(077);
	modes_with_umask(0);
}

/* ------------------------------------------------------------------ */
/* Directory mode: exclusive creation, planted symlinks.                */
/* ------------------------------------------------------------------ */

enum plant_kind {
	PLANT_SYMLINK_FIRST,	/* a symlink at the first path it creates */
	PLANT_FILE_FIRST,	/* a regular file there */
	PLANT_SYMLINK_ALL,	/* a symlink at every path it creates */
};

struct plant {
	enum plant_kind kind;
	const char *dir;	/* the traced directory */
	const char *victim;	/* what planted symlinks point at */
	int planted;
};

static struct plant plant;
static int (*real_open)(const char *path, int flags, mode_t mode);

/* tr2_sys.open: an attacker wins the race at the exact path. */
static int planting_open(const char *path, int flags, mode_t mode)
{
	size_t n = strlen(plant.dir);
	int first = !plant.planted;

	if (!strncmp(path, plant.dir, n) && path[n] == '/' && (flags & O_CREAT)) {
		dprintf(1, "open %s flags%s%s%s%s\n", path + n + 1,
			flags & O_CREAT ? " O_CREAT" : "", flags & O_EXCL ? " O_EXCL" : "",
			flags & O_NOFOLLOW ? " O_NOFOLLOW" : "",
			flags & O_CLOEXEC ? " O_CLOEXEC" : "");
		if (plant.kind == PLANT_SYMLINK_ALL || (first && plant.kind == PLANT_SYMLINK_FIRST)) {
			if (symlink(plant.victim, path))
				_exit(5);
		} else if (first && plant.kind == PLANT_FILE_FIRST) {
			if (t2_write_file(path, "precious\n"))
				_exit(5);
		}
		plant.planted++;
	}
	return real_open(path, flags, mode);
}

static void sc_planted(void *arg)
{
	plant = *(const struct plant *)arg;
	real_open = tr2_sys.open;
	tr2_sys.open = planting_open;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_printf("planted");
	dprintf(1, "enabled %d\n", trace2_is_enabled());
	exit(trace2_cmd_exit(0));
}

/* Run with EVENT in directory mode and the given plant; the victim file
 * must keep its content; returns the scenario's stdout. */
static char *run_planted(enum plant_kind kind, const char **dir_out)
{
	const char *dir = t2_scratch_dir();
	char *traces = t2_path(dir, "traces"),
	     *victim = t2_path(dir, "victim"), *text, *out, *listing;
	struct plant pl = { kind, traces, victim, 0 };
	struct t2_env env = { 0 };
	struct t2_proc p;

	assert_int_equal(mkdir(traces, 0777), 0);
	assert_int_equal(t2_write_file(victim, "precious\n"), 0);
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s", traces);
	t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
	t2_capture(sc_planted, &pl, t2_env_list(&env), 20, &p);
	assert_true(exited_0(p.status));
	text = t2_read_file(victim, NULL);
	listing = t2_listdir(traces);
	printf("[security] planted %s: victim %s; directory: %s; the library's opens:\n%s",
	       kind == PLANT_SYMLINK_FIRST ? "symlink at the first name" :
	       kind == PLANT_FILE_FIRST ? "file at the first name" : "symlinks at all names",
	       !strcmp(text, "precious\n") ? "untouched" : "WRITTEN", listing, p.out);
	free(listing);
	if (*p.err)
		printf("[security]   stderr: %s", p.err);
	fflush(stdout);
	assert_string_equal(text, "precious\n");
	free(text);
	out = p.out;
	free(p.err);
	t2_env_free(&env);
	free(victim);
	free(traces);
	*dir_out = dir;
	return out;
}

static void directory_mode_never_follows_planted_links(void **state)
{
	enum plant_kind kinds[] = { PLANT_SYMLINK_FIRST, PLANT_FILE_FIRST };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		const char *dir;
		char *out = run_planted(kinds[i], &dir), *traces = t2_path(dir, "traces");

		/* first name refused, "<sid>.1" made: exclusive and no-follow */
		assert_int_equal(count_in(out, " O_CREAT O_EXCL O_NOFOLLOW O_CLOEXEC\n"), 2);
		assert_int_equal(count_in(out, ".1 flags"), 1);
		assert_non_null(strstr(out, "enabled 1"));
		assert_int_equal(count_regular_with(traces, "\"event\":\"printf\""), 1);
		/* a planted file keeps its content */
		assert_int_equal(count_regular_with(traces, "precious"), kinds[i] == PLANT_FILE_FIRST);
		free(out);
		free(traces);
	}
}

static void directory_mode_all_names_planted(void **state)
{
	const char *dir;
	char *out = run_planted(PLANT_SYMLINK_ALL, &dir), *traces = t2_path(dir, "traces");

	(void)state;
	/* ten attempts, all refused: tracing off, nothing written anywhere */
	assert_int_equal(count_in(out, " O_CREAT O_EXCL O_NOFOLLOW O_CLOEXEC\n"), 10);
	assert_non_null(strstr(out, "enabled 0"));
	assert_int_equal(count_regular_with(traces, "event"), 0);
	free(out);
	free(traces);
}

static void exec_driver(void *arg)
{
	(void)arg;
	t2_exec_tool(RETURN0);
}

/* A discard sentinel planted as a symlink: to an existing file (the
 * directory counts as discarding) and dangling (creating it must fail). */
static void planted_sentinel_symlink(void **state)
{
	int dangling;

	(void)state;
	for (dangling = 0; dangling < 2; dangling++) {
		const char *dir = t2_scratch_dir();
		char *traces = t2_path(dir, "traces"),
		     *victim = t2_path(dir, "victim"), *link = t2_path(traces, "git-trace2-discard");
		struct t2_env env = { 0 };
		struct t2_proc p;
		char *text, *listing;

		assert_int_equal(mkdir(traces, 0777), 0);
		if (!dangling)
			assert_int_equal(t2_write_file(victim, "precious\n"), 0);
		assert_int_equal(symlink(victim, link), 0);
		t2_env_add(&env, "GIT_TRACE2_EVENT=%s", traces);
		t2_env_add(&env, "GIT_TRACE2_MAX_FILES=2");
		t2_env_add(&env, "GIT_TRACE2_DST_DEBUG=1");
		t2_capture(exec_driver, NULL, t2_env_list(&env), 20, &p);
		text = t2_read_file(victim, NULL);
		printf("[security] sentinel planted as a %s symlink: victim %s; stderr: %s",
		       dangling ? "dangling" : "live", !text ? "not created" :
		       !strcmp(text, "precious\n") ? "untouched" : "WRITTEN", p.err);
		fflush(stdout);
		assert_true(exited_0(p.status));
		if (dangling)
			assert_null(text);
		else
			assert_string_equal(text, "precious\n");
		listing = t2_listdir(traces);
		assert_string_equal(listing, "git-trace2-discard");
		free(listing);
		free(text);
		t2_proc_free(&p);
		t2_env_free(&env);
		free(traces);
		free(victim);
		free(link);
	}
}

/* ------------------------------------------------------------------ */
/* Where trace2.* settings may come from.                               */
/* ------------------------------------------------------------------ */

struct in_dir {
	const char *cwd;
};

static void exec_driver_in(void *arg)
{
	const struct in_dir *d = arg;

	if (chdir(d->cwd))
		_exit(126);
	t2_exec_tool(RETURN0);
}

/* A [trace2] section naming the three targets in dir/from-<origin>. */
static char *trace2_section(const char *dir, const char *origin)
{
	char *text = NULL;
	int i;

	t2_append(&text, "[trace2]\n");
	for (i = 0; i < 3; i++)
		t2_append(&text, "\t%sTarget = %s/from-%s-%s\n",
			  i == 0 ? "normal" : i == 1 ? "perf" : "event", dir, origin, FILE_NAMES[i]);
	return text;
}

static int run_in_repo(const char *dir, const char *cwd, const char *const *extra)
{
	struct in_dir d = { cwd };
	struct t2_proc p;
	int status;

	t2_capture(exec_driver_in, &d, extra, 20, &p);
	status = p.status;
	if (*p.err)
		printf("[security]   stderr: %s", p.err);
	t2_proc_free(&p);
	(void)dir;
	return status;
}

static void repo_config_never_enables_tracing(void **state)
{
	const char *dir = t2_scratch_dir();
	char *repo = t2_path(dir, "repo"), *sub = t2_path(repo, "a/b");
	char *git = t2_path(repo, ".git"), *cfg = t2_path(git, "config");
	char *global = t2_path(dir, "global"), *section = trace2_section(dir, "repo");
	char git_dir[4200], global_var[4200], count_key[64], count_val[4200], params[4200];
	const char *const plain[] = { NULL };
	const char *const with_git_dir[] = { git_dir, NULL };
	const char *const with_count[] = { "GIT_CONFIG_COUNT=1", count_key, count_val, NULL };
	const char *const with_params[] = { params, NULL };
	const char *const with_global[] = { global_var, NULL };
	const char *const *cases[] = { plain, with_git_dir, with_count, with_params };
	char *listing;
	size_t i;

	(void)state;
	assert_int_equal(t2_mkdirs(sub), 0);
	assert_int_equal(t2_mkdirs(git), 0);
	assert_int_equal(t2_write_file(cfg, section), 0);
	snprintf(git_dir, sizeof(git_dir), "GIT_DIR=%s", git);
	snprintf(count_key, sizeof(count_key), "GIT_CONFIG_KEY_0=trace2.eventTarget");
	snprintf(count_val, sizeof(count_val), "GIT_CONFIG_VALUE_0=%s/from-count", dir);
	snprintf(params, sizeof(params), "GIT_CONFIG_PARAMETERS='trace2.eventtarget'='%s/from-params'",
		 dir);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_true(exited_0(run_in_repo(dir, sub, cases[i])));
	listing = t2_listdir(dir);
	printf("[security] driver inside a repository whose .git/config sets trace2.*Target "
	       "(also with GIT_DIR, GIT_CONFIG_COUNT, GIT_CONFIG_PARAMETERS): %s\n", listing);
	assert_string_equal(listing, "repo");
	free(listing);
	/* the control: the same section in the global file does enable it */
	free(section);
	section = trace2_section(dir, "global");
	assert_int_equal(t2_write_file(global, section), 0);
	snprintf(global_var, sizeof(global_var), "GIT_CONFIG_GLOBAL=%s", global);
	assert_true(exited_0(run_in_repo(dir, sub, with_global)));
	listing = t2_listdir(dir);
	printf("[security]   control, same section in the global file: %s\n", listing);
	assert_string_equal(listing, "from-global-event from-global-normal from-global-perf "
			    "global repo");
	free(listing);
	free(section);
	free(repo);
	free(sub);
	free(git);
	free(cfg);
	free(global);
}

/* ------------------------------------------------------------------ */
/* Environment variables.                                               */
/* ------------------------------------------------------------------ */

static void sc_env_everything(void *arg)
{
	const char *argv[] = { "host", "run", NULL };
	const char *child_args[] = { "sh", "-c", "exit 0", NULL };
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct repository repo = { NULL, 0 };

	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	trace2_cmd_name("envtest");
	trace2_cmd_list_config();
	trace2_cmd_list_env_vars();
	trace2_def_repo(&repo);
	cmd.args.v = child_args;
	cmd.args.nr = 3;
	trace2_child_start(&cmd);
	trace2_child_exit(&cmd, 0);
	trace2_region_enter("env", "r", NULL);
	trace2_data_string("env", NULL, "k", "v");
	trace2_region_leave("env", "r", NULL);
	trace2_cmd_error("an error");
	exit(trace2_cmd_exit(0));
}

/* Secrets in assorted variables, the traced programs, a grep. */
static int secrets_in_traces(const char *dir, const char *env_vars, int directory_mode)
{
	static const char *const names[] = {
		"SECRET_TOKEN", "GIT_ASKPASS", "HTTPS_PROXY", "GIT_TRACE2_SECRETISH",
		"PWD_SECRET", NULL
	};
	char *trace = t2_path(dir, "trace");
	struct t2_env env = { 0 };
	struct t2_proc p;
	size_t i;
	int found;

	t2_rmtree(trace);
	assert_int_equal(mkdir(trace, 0777), 0);
	env_targets(&env, trace, directory_mode);
	for (i = 0; names[i]; i++)
		t2_env_add(&env, "%s=%s-%s", names[i], SECRET, names[i]);
	t2_env_add(&env, "GIT_TRACE2_CONFIG_PARAMS=*");
	if (env_vars)
		t2_env_add(&env, "GIT_TRACE2_ENV_VARS=%s", env_vars);
	t2_capture(sc_env_everything, NULL, t2_env_list(&env), 30, &p);
	assert_true(exited_0(p.status));
	t2_proc_free(&p);
	t2_tool(t2_env_list(&env), &p, "trace2", "004child", "sh", "-c", "exit 0", NULL);
	assert_true(exited_0(p.status));
	t2_proc_free(&p);
	found = count_in_dir(trace, SECRET);
	printf("[security] secrets in 5 environment variables, %s mode, envVars=%s: "
	       "%d found in %d trace lines\n", directory_mode ? "directory" : "file",
	       env_vars ? env_vars : "(none)", found, count_in_dir(trace, "\n"));
	t2_env_free(&env);
	free(trace);
	return found;
}

static void env_values_only_when_listed(void **state)
{
	const char *dir = t2_scratch_dir();

	(void)state;
	assert_int_equal(secrets_in_traces(dir, NULL, 0), 0);
	assert_int_equal(secrets_in_traces(dir, NULL, 1), 0);
	assert_int_equal(secrets_in_traces(dir, "OTHER,PATH", 0), 0);
	/* the control: listed, it shows (def_param on 3 targets, 2 programs) */
	assert_int_equal(secrets_in_traces(dir, "SECRET_TOKEN", 0), 3 * 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(credentials_never_traced, t2_scratch_cleanup),
		cmocka_unit_test_teardown(credentials_never_traced_by_driver, t2_scratch_cleanup),
		cmocka_unit_test_teardown(trace_file_modes, t2_scratch_cleanup),
		cmocka_unit_test_teardown(directory_mode_never_follows_planted_links, t2_scratch_cleanup),
		cmocka_unit_test_teardown(directory_mode_all_names_planted, t2_scratch_cleanup),
		cmocka_unit_test_teardown(planted_sentinel_symlink, t2_scratch_cleanup),
		cmocka_unit_test_teardown(repo_config_never_enables_tracing, t2_scratch_cleanup),
		cmocka_unit_test_teardown(env_values_only_when_listed, t2_scratch_cleanup),
	};

	t2_leak_check_runner_only();
	if (getenv("T2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("T2_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
