/*
 * Differential test against the installed git binary.
 *
 * A git command runs in a throwaway repository with all three targets
 * writing to files (non-brief, event nesting 100, clean environment).
 * Its EVENT records are then replayed through the public API of
 * libtrace2 in a forked child with the same settings (same file/line,
 * version string, arguments, repositories, child processes), and the
 * three outputs are compared line by line after scrubbing what changes
 * between runs (times, SIDs, durations) and mapping the two things that
 * differ between git 2.39.5 and current Git: the "evt" version and the
 * file and line of the atexit record.
 * Everything else must match byte for byte.
 *
 * Without git installed the tests are skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"

/* Exit code of a replay child that could not replay an event. */
#define REPLAY_FAILED 125
#define MAX_REPOS 8
#define MAX_CHILDREN 16

/* ------------------------------------------------------------------ */
/* The three targets and how git's output is reduced to comparable text. */
/* ------------------------------------------------------------------ */

/* Keep a line of git's output?  *state starts at 0 for every file. */
typedef int keep_fn(const char *line, int *state);

/*
 * NORMAL lines carry no SID: drop what a synchronous child wrote between
 * the parent's child_start and child_exit lines (nested pairs counted).
 */
static int keep_normal(const char *line, int *depth)
{
	if (strstr(line, " child_start["))
		return (*depth)++ == 0;
	if (strstr(line, " child_exit[") && *depth > 0)
		return --*depth == 0;
	return *depth == 0;
}

/* PERF: only the lines of depth 0, the traced process itself. */
static int keep_perf(const char *line, int *state)
{
	(void)state;
	return strstr(line, "| d0 |") != NULL;
}

/* EVENT: only the records whose (scrubbed) SID has no parent part. */
static int keep_event(const char *line, int *state)
{
	(void)state;
	return strstr(line, "\"sid\":\"SID/") == NULL;
}

struct target {
	const char *var;	/* the environment variable that enables it */
	const char *file;	/* file name inside a trace directory */
	const char *atexit_old;	/* atexit pseudo-location of git 2.39.5 */
	const char *atexit_new;	/* ... of current Git (our target) */
	keep_fn *keep;
};

static const struct target targets[] = {
	{ "GIT_TRACE2", "normal", "trace2/tr2_tgt_normal.c:126",
	  "trace2/tr2_tgt_normal.c:128", keep_normal },
	{ "GIT_TRACE2_PERF", "perf", "trace2/tr2_tgt_perf.c:216",
	  "trace2/tr2_tgt_perf.c:219", keep_perf },
	{ "GIT_TRACE2_EVENT", "event",
	  "\"file\":\"trace2/tr2_tgt_event.c\",\"line\":204",
	  "\"file\":\"trace2/tr2_tgt_event.c\",\"line\":207", keep_event },
};
#define NR_TARGETS (sizeof(targets) / sizeof(targets[0]))

/* ------------------------------------------------------------------ */
/* Fixture: a temporary root holding HOME, the repository and traces.  */
/* ------------------------------------------------------------------ */

struct fixture {
	char *root;
	char *home;
	char *home_var;	/* "HOME=<home>" */
	char *repo;
};

struct git_cmd {
	const char *dir;
	const char *const *argv;
};

/* In the t2_run_clean() child: run git in cmd->dir, stdout discarded. */
static void exec_git(void *arg)
{
	const struct git_cmd *cmd = arg;
	int null = open("/dev/null", O_WRONLY);

	if (null < 0 || dup2(null, STDOUT_FILENO) < 0 || chdir(cmd->dir))
		_exit(126);
	execvp("git", (char *const *)cmd->argv);
	_exit(127);
}

static int run_git(const char *dir, const char *const *argv, const char *const *env)
{
	struct git_cmd cmd = { dir, argv };

	return t2_run_clean(exec_git, &cmd, env);
}

static int exited_with(int status, int code)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == code;
}

static int git_installed(void)
{
	static const char *const version[] = { "git", "--version", NULL };

	return exited_with(run_git("/", version, NULL), 0);
}

static int fixture_git(const struct fixture *fx, const char *const *argv)
{
	const char *env[] = { fx->home_var, NULL };

	return exited_with(run_git(fx->repo, argv, env), 0);
}

static int write_file(const char *dir, const char *name, const char *mode,
		      const char *text)
{
	char *path = t2_path(dir, name);
	FILE *f = fopen(path, mode);
	int ok = f && fputs(text, f) >= 0;

	if (f && fclose(f))
		ok = 0;
	free(path);
	return ok;
}

/* Two committed files, one of them modified, one untracked file. */
static int make_repo(const struct fixture *fx)
{
	static const char *const init[] = {
		"git", "-c", "init.defaultBranch=main", "init", "-q", NULL
	};
	static const char *const add[] = { "git", "add", "a.txt", "b.txt", NULL };
	static const char *const commit[] = {
		"git", "-c", "user.name=T", "-c", "user.email=t@example.com",
		"commit", "-q", "-m", "initial", NULL
	};

	return fixture_git(fx, init) &&
	       write_file(fx->repo, "a.txt", "w", "alpha\n") &&
	       write_file(fx->repo, "b.txt", "w", "beta\n") &&
	       fixture_git(fx, add) && fixture_git(fx, commit) &&
	       write_file(fx->repo, "a.txt", "a", "more alpha\n") &&
	       write_file(fx->repo, "untracked.txt", "w", "new\n");
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	*state = fx;
	if (!fx || !git_installed())
		return 0;	/* fx->root NULL: the test skips */
	fx->root = t2_tmpdir();
	if (!fx->root)
		return -1;
	fx->home = t2_path(fx->root, "home");
	fx->repo = t2_path(fx->root, "repo");
	if (asprintf(&fx->home_var, "HOME=%s", fx->home) < 0)
		return -1;
	if (mkdir(fx->home, 0700) || mkdir(fx->repo, 0700))
		return -1;
	return make_repo(fx) ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx && fx->root)
		t2_rmtree(fx->root);
	if (fx) {
		free(fx->root);
		free(fx->home);
		free(fx->home_var);
		free(fx->repo);
	}
	free(fx);
	return 0;
}

/* The environment of a traced run: the three targets as files in dir,
 * non-brief, every region and data record kept by the event target. */
struct trace_env {
	char *vars[NR_TARGETS];
	const char *env[NR_TARGETS + 3];
};

static void trace_env_init(struct trace_env *te, const struct fixture *fx,
			   const char *dir)
{
	size_t i;

	for (i = 0; i < NR_TARGETS; i++) {
		char *path = t2_path(dir, targets[i].file);

		assert_true(asprintf(&te->vars[i], "%s=%s", targets[i].var, path) > 0);
		te->env[i] = te->vars[i];
		free(path);
	}
	te->env[i++] = "GIT_TRACE2_EVENT_NESTING=100";
	te->env[i++] = fx->home_var;
	te->env[i] = NULL;
}

static void trace_env_release(struct trace_env *te)
{
	size_t i;

	for (i = 0; i < NR_TARGETS; i++)
		free(te->vars[i]);
}

/* ------------------------------------------------------------------ */
/* Replay (runs in the forked child).                                  */
/* ------------------------------------------------------------------ */

struct replay {
	/* repos[0] is never defined: git's "repo":0 */
	struct repository repos[MAX_REPOS];
	size_t nr_repos;
	struct child_process children[MAX_CHILDREN];
	const char **child_argv[MAX_CHILDREN];
	int exit_code;
};

static _Noreturn void replay_fail(const struct tjson *ev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static _Noreturn void replay_fail(const struct tjson *ev, const char *fmt, ...)
{
	char *dump = tjson_dump(ev);
	va_list ap;

	fprintf(stderr, "replay of %s: ", dump ? dump : "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(REPLAY_FAILED);
}

static const char *ev_str(const struct tjson *ev, const char *key)
{
	const char *s = tjson_get_str(ev, key);

	if (!s)
		replay_fail(ev, "no string member \"%s\"", key);
	return s;
}

static int ev_int(const struct tjson *ev, const char *key)
{
	const struct tjson *v = tjson_get(ev, key);

	if (!v || v->type != TJSON_NUMBER)
		replay_fail(ev, "no number member \"%s\"", key);
	return (int)v->number;
}

/* The string array member key as a NULL-terminated vector; the caller
 * frees the vector (not the strings). */
static const char **ev_argv(const struct tjson *ev, const char *key, size_t *nr)
{
	const struct tjson *a = tjson_get(ev, key);
	const char **v;
	size_t i;

	if (!a || a->type != TJSON_ARRAY)
		replay_fail(ev, "no array member \"%s\"", key);
	v = calloc(a->n + 1, sizeof(*v));
	for (i = 0; i < a->n; i++) {
		if (a->items[i]->type != TJSON_STRING)
			replay_fail(ev, "non-string element in \"%s\"", key);
		v[i] = a->items[i]->text;
	}
	if (nr)
		*nr = a->n;
	return v;
}

/* The repository of git's "repo" id (absent: NULL). */
static const struct repository *ev_repo(const struct replay *r, const struct tjson *ev)
{
	const struct tjson *v = tjson_get(ev, "repo");
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < r->nr_repos; i++)
		if (v->type == TJSON_NUMBER && r->repos[i].trace2_repo_id == (int)v->number)
			return &r->repos[i];
	replay_fail(ev, "no repository with this id was defined");
}

static struct child_process *ev_child(struct replay *r, const struct tjson *ev)
{
	int id = ev_int(ev, "child_id");

	if (id < 0 || id >= MAX_CHILDREN)
		replay_fail(ev, "child_id out of the test's range");
	return &r->children[id];
}

typedef void replay_fn(struct replay *r, const struct tjson *ev,
		       const char *file, int line);

static void rp_version(struct replay *r, const struct tjson *ev,
		       const char *file, int line)
{
	(void)r;
	trace2_set_version_string(ev_str(ev, "exe"));
	trace2_initialize_fl(file, line);
	if (!trace2_is_enabled())
		replay_fail(ev, "tracing is not enabled after trace2_initialize_fl()");
}

static void rp_start(struct replay *r, const struct tjson *ev,
		     const char *file, int line)
{
	const char **argv = ev_argv(ev, "argv", NULL);

	(void)r;
	trace2_cmd_start_fl(file, line, argv);
	free(argv);
}

static void rp_ancestry(struct replay *r, const struct tjson *ev,
			const char *file, int line)
{
	const char **names = ev_argv(ev, "ancestry", NULL);

	(void)r;
	trace2_cmd_ancestry_fl(file, line, names);
	free(names);
}

static void rp_def_repo(struct replay *r, const struct tjson *ev,
			const char *file, int line)
{
	struct repository *repo;

	if (r->nr_repos == MAX_REPOS)
		replay_fail(ev, "too many repositories for the test");
	repo = &r->repos[r->nr_repos++];
	repo->worktree = (char *)ev_str(ev, "worktree");
	trace2_def_repo_fl(file, line, repo);
	if (repo->trace2_repo_id != ev_int(ev, "repo"))
		replay_fail(ev, "the library assigned repo id %d", repo->trace2_repo_id);
}

static void rp_cmd_name(struct replay *r, const struct tjson *ev,
			const char *file, int line)
{
	(void)r;
	trace2_cmd_name_fl(file, line, ev_str(ev, "name"));
}

static void rp_alias(struct replay *r, const struct tjson *ev,
		     const char *file, int line)
{
	const char **argv = ev_argv(ev, "argv", NULL);

	(void)r;
	trace2_cmd_alias_fl(file, line, ev_str(ev, "alias"), argv);
	free(argv);
}

/* region_enter/region_leave: the printf form exactly when git has a msg. */
static void replay_region(const struct replay *r, const struct tjson *ev,
			  const char *file, int line, int enter)
{
	const char *category = tjson_get_str(ev, "category");
	const char *label = tjson_get_str(ev, "label");
	const char *msg = tjson_get_str(ev, "msg");
	const struct repository *repo = ev_repo(r, ev);

	if (msg && enter)
		trace2_region_enter_printf_fl(file, line, category, label, repo, "%s", msg);
	else if (msg)
		trace2_region_leave_printf_fl(file, line, category, label, repo, "%s", msg);
	else if (enter)
		trace2_region_enter_fl(file, line, category, label, repo);
	else
		trace2_region_leave_fl(file, line, category, label, repo);
}

static void rp_region_enter(struct replay *r, const struct tjson *ev,
			    const char *file, int line)
{
	replay_region(r, ev, file, line, 1);
}

static void rp_region_leave(struct replay *r, const struct tjson *ev,
			    const char *file, int line)
{
	replay_region(r, ev, file, line, 0);
}

static void rp_data(struct replay *r, const struct tjson *ev,
		    const char *file, int line)
{
	trace2_data_string_fl(file, line, tjson_get_str(ev, "category"),
			      ev_repo(r, ev), ev_str(ev, "key"), ev_str(ev, "value"));
}

static void jw_add(struct json_writer *jw, const char *key,
		   const struct tjson *v, const struct tjson *ev);

/* Every member (object) or element (array) of v, appended to jw. */
static void jw_add_children(struct json_writer *jw, const struct tjson *v,
			    const struct tjson *ev)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		jw_add(jw, v->type == TJSON_OBJECT ? v->keys[i] : NULL, v->items[i], ev);
}

/*
 * A number by its literal text: an integer with *_intmax, a decimal
 * fraction with *_double and as many decimals as the literal has.
 */
static void jw_add_number(struct json_writer *jw, const char *key,
			  const struct tjson *v, const struct tjson *ev)
{
	const char *dot = strchr(v->text, '.');
	intmax_t i;

	if (strpbrk(v->text, "eE"))
		replay_fail(ev, "number %s has an exponent; no jw_* call writes that", v->text);
	if (dot) {
		int precision = (int)strlen(dot + 1);

		key ? jw_object_double(jw, key, precision, v->number)
		    : jw_array_double(jw, precision, v->number);
		return;
	}
	errno = 0;
	i = strtoimax(v->text, NULL, 10);
	if (errno)
		replay_fail(ev, "integer %s does not fit intmax_t", v->text);
	key ? jw_object_intmax(jw, key, i) : jw_array_intmax(jw, i);
}

/* Append v as member key of the open object, or (key NULL) as an element
 * of the open array. */
static void jw_add(struct json_writer *jw, const char *key,
		   const struct tjson *v, const struct tjson *ev)
{
	switch (v->type) {
	case TJSON_NULL:
		key ? jw_object_null(jw, key) : jw_array_null(jw);
		break;
	case TJSON_BOOL:
		key ? jw_object_bool(jw, key, v->boolean) : jw_array_bool(jw, v->boolean);
		break;
	case TJSON_STRING:
		key ? jw_object_string(jw, key, v->text) : jw_array_string(jw, v->text);
		break;
	case TJSON_NUMBER:
		jw_add_number(jw, key, v, ev);
		break;
	case TJSON_OBJECT:
		key ? jw_object_inline_begin_object(jw, key) : jw_array_inline_begin_object(jw);
		jw_add_children(jw, v, ev);
		jw_end(jw);
		break;
	case TJSON_ARRAY:
		key ? jw_object_inline_begin_array(jw, key) : jw_array_inline_begin_array(jw);
		jw_add_children(jw, v, ev);
		jw_end(jw);
		break;
	}
}

static void rp_data_json(struct replay *r, const struct tjson *ev,
			 const char *file, int line)
{
	struct json_writer jw = JSON_WRITER_INIT;
	const struct tjson *v = tjson_get(ev, "value");

	if (v && v->type == TJSON_OBJECT)
		jw_object_begin(&jw, 0);
	else if (v && v->type == TJSON_ARRAY)
		jw_array_begin(&jw, 0);
	else
		replay_fail(ev, "the value is neither an object nor an array");
	jw_add_children(&jw, v, ev);
	jw_end(&jw);
	trace2_data_json_fl(file, line, tjson_get_str(ev, "category"),
			    ev_repo(r, ev), ev_str(ev, "key"), &jw);
	jw_release(&jw);
}

static void rp_child_start(struct replay *r, const struct tjson *ev,
			   const char *file, int line)
{
	struct child_process *cp = ev_child(r, ev);
	const struct tjson *shell = tjson_get(ev, "use_shell");
	const char *class = ev_str(ev, "child_class");
	size_t id = (size_t)(cp - r->children);

	*cp = (struct child_process)CHILD_PROCESS_INIT;
	free(r->child_argv[id]);
	r->child_argv[id] = ev_argv(ev, "argv", &cp->args.nr);
	cp->args.v = r->child_argv[id];
	cp->trace2_child_class = strcmp(class, "?") ? class : NULL;
	cp->trace2_hook_name = tjson_get_str(ev, "hook_name");
	cp->dir = tjson_get_str(ev, "cd");
	cp->use_shell = shell && shell->type == TJSON_BOOL && shell->boolean;
	trace2_child_start_fl(file, line, cp);
	if (cp->trace2_child_id != (int)id)
		replay_fail(ev, "the library assigned child id %d", cp->trace2_child_id);
}

static void rp_child_exit(struct replay *r, const struct tjson *ev,
			  const char *file, int line)
{
	struct child_process *cp = ev_child(r, ev);

	cp->pid = (trace2_pid_t)ev_int(ev, "pid");
	trace2_child_exit_fl(file, line, cp, ev_int(ev, "code"));
}

static void rp_exit(struct replay *r, const struct tjson *ev,
		    const char *file, int line)
{
	r->exit_code = ev_int(ev, "code");
	trace2_cmd_exit_fl(file, line, r->exit_code);
}

/* "atexit": the library writes it when the replay child exits. */
static void rp_nothing(struct replay *r, const struct tjson *ev,
		       const char *file, int line)
{
	(void)r;
	(void)ev;
	(void)file;
	(void)line;
}

static const struct handler {
	const char *event;
	replay_fn *fn;
} handlers[] = {
	{ "version", rp_version },
	{ "start", rp_start },
	{ "cmd_ancestry", rp_ancestry },
	{ "def_repo", rp_def_repo },
	{ "cmd_name", rp_cmd_name },
	{ "alias", rp_alias },
	{ "region_enter", rp_region_enter },
	{ "region_leave", rp_region_leave },
	{ "data", rp_data },
	{ "data_json", rp_data_json },
	{ "child_start", rp_child_start },
	{ "child_exit", rp_child_exit },
	{ "exit", rp_exit },
	{ "atexit", rp_nothing },
};

static const struct handler *find_handler(const char *event)
{
	size_t i;

	for (i = 0; event && i < sizeof(handlers) / sizeof(handlers[0]); i++)
		if (!strcmp(handlers[i].event, event))
			return &handlers[i];
	return NULL;
}

/* git's records of the traced process itself (its children's dropped). */
struct events {
	struct tjson **v;
	size_t nr;
};

/* The t2_run_clean() child: replay every event, then exit like git. */
static void replay(void *arg)
{
	const struct events *evs = arg;
	struct replay r;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.nr_repos = 1;
	trace2_initialize_clock();
	for (i = 0; i < evs->nr; i++) {
		const struct tjson *ev = evs->v[i];

		find_handler(tjson_get_str(ev, "event"))->fn(&r, ev, ev_str(ev, "file"),
							      ev_int(ev, "line"));
	}
	for (i = 0; i < MAX_CHILDREN; i++)
		free(r.child_argv[i]);
	exit(r.exit_code);
}

/* Parse git's event file; fail on a record the replay cannot handle. */
static void load_events(const char *dir, struct events *evs)
{
	char *path = t2_path(dir, "event"), *text = t2_read_file(path, NULL);
	char *line, *save = NULL;

	free(path);
	assert_non_null(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *err = NULL, *sid, *event;
		struct tjson *ev = tjson_parse(line, strlen(line), &err);

		if (!ev)
			fail_msg("git's event line does not parse (%s): %s", err, line);
		sid = tjson_get_str(ev, "sid");
		event = tjson_get_str(ev, "event");
		if (!sid || !event)
			fail_msg("git's event line has no sid or event: %s", line);
		if (strchr(sid, '/')) {
			tjson_free(ev);
			continue;
		}
		if (!find_handler(event))
			fail_msg("git wrote a \"%s\" event, which this test cannot replay: %s",
				 event, line);
		evs->v = realloc(evs->v, (evs->nr + 1) * sizeof(*evs->v));
		evs->v[evs->nr++] = ev;
	}
	free(text);
}

static void events_release(struct events *evs)
{
	size_t i;

	for (i = 0; i < evs->nr; i++)
		tjson_free(evs->v[i]);
	free(evs->v);
}

/* ------------------------------------------------------------------ */
/* Comparison.                                                          */
/* ------------------------------------------------------------------ */

struct lines {
	char *buf;
	char **v;
	size_t nr;
};

static char *replace_owned(char *text, const char *from, const char *to)
{
	char *s = t2_replace(text, from, to);

	free(text);
	return s;
}

/*
 * The scrubbed lines of one target file.  git's output is first mapped to
 * current Git ("evt" and atexit location) and reduced to its own lines.
 */
static void read_lines(struct lines *l, const char *dir, const struct target *t,
		       int from_git)
{
	char *path = t2_path(dir, t->file), *raw = t2_read_file(path, NULL), *p;
	int state = 0;

	free(path);
	if (!raw)
		raw = strdup("");
	if (from_git) {
		raw = replace_owned(raw, "\"evt\":\"3\"", "\"evt\":\"4\"");
		raw = replace_owned(raw, t->atexit_old, t->atexit_new);
	}
	l->buf = t2_scrub(raw);
	free(raw);
	l->v = NULL;
	l->nr = 0;
	for (p = l->buf; *p; ) {
		char *end = p + strcspn(p, "\n");
		int more = *end != '\0';

		*end = '\0';
		if (!from_git || t->keep(p, &state)) {
			l->v = realloc(l->v, (l->nr + 1) * sizeof(*l->v));
			l->v[l->nr++] = p;
		}
		p = more ? end + 1 : end;
	}
}

/* Print every differing line; returns how many differ. */
static size_t compare_target(const struct target *t, const char *git_dir,
			     const char *our_dir)
{
	struct lines g, o;
	size_t i, bad = 0;

	read_lines(&g, git_dir, t, 1);
	read_lines(&o, our_dir, t, 0);
	if (!g.nr) {
		print_error("%s: git wrote nothing\n", t->file);
		bad++;
	}
	for (i = 0; i < g.nr || i < o.nr; i++) {
		if (i < g.nr && i < o.nr && !strcmp(g.v[i], o.v[i]))
			continue;
		print_error("%s line %zu differs:\n  git:  %s\n  ours: %s\n", t->file,
			    i + 1, i < g.nr ? g.v[i] : "(no line)",
			    i < o.nr ? o.v[i] : "(no line)");
		bad++;
	}
	free(g.v);
	free(g.buf);
	free(o.v);
	free(o.buf);
	return bad;
}

/* Run git_argv traced in the fixture's repository, replay, compare. */
static void compare_with_git(void **state, const char *const *git_argv)
{
	const struct fixture *fx = *state;
	char *git_dir, *our_dir;
	struct trace_env git_env, our_env;
	struct events evs = { NULL, 0 };
	size_t i, bad = 0;
	int git_status, our_status;

	if (!fx->root)
		skip();	/* git is not installed */
	git_dir = t2_path(fx->root, "trace-git");
	our_dir = t2_path(fx->root, "trace-ours");
	assert_int_equal(mkdir(git_dir, 0700), 0);
	assert_int_equal(mkdir(our_dir, 0700), 0);
	trace_env_init(&git_env, fx, git_dir);
	trace_env_init(&our_env, fx, our_dir);

	git_status = run_git(fx->repo, git_argv, git_env.env);
	assert_true(WIFEXITED(git_status));
	load_events(git_dir, &evs);
	our_status = t2_run_clean(replay, &evs, our_env.env);
	if (!exited_with(our_status, WEXITSTATUS(git_status)))
		fail_msg("replay child: wait status 0x%x, git exited with %d",
			 our_status, WEXITSTATUS(git_status));
	for (i = 0; i < NR_TARGETS; i++)
		bad += compare_target(&targets[i], git_dir, our_dir);

	events_release(&evs);
	trace_env_release(&git_env);
	trace_env_release(&our_env);
	free(git_dir);
	free(our_dir);
	assert_int_equal(bad, 0);
}

static void git_status_matches(void **state)
{
	static const char *const argv[] = { "git", "status", NULL };

	compare_with_git(state, argv);
}

static void git_alias_parent_matches(void **state)
{
	static const char *const argv[] = {
		"git", "-c", "alias.xyz=version", "xyz", NULL
	};

	compare_with_git(state, argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(git_status_matches, setup, teardown),
		cmocka_unit_test_setup_teardown(git_alias_parent_matches, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
