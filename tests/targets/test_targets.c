/*
 * Every event on every target, byte for byte: each scenario runs in a
 * child process with all three targets on, and the scrubbed files are
 * compared whole with the expected text (docs/targets.md).  Every EVENT
 * line is also parsed with the strict JSON parser and its key list
 * checked against the key order: the common keys (docs/targets.md,
 * "Event"), then the event's own (docs/event-schema.md, "Keys per
 * event").
 *
 * Scenarios are initialised at "i.c":1 (see run_scenario), so non-brief
 * runs have a fixed version record; non-brief scenarios pass explicit
 * locations to the *_fl functions.  Checks made inside a child use
 * CHECK() (t2test.h), which ends the child with status 70.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "t2va.h"
#include "tjson.h"
#include "trace2.h"
#include "tr2_sys.h"

/* ------------------------------------------------------------------ */
/* Expected framing: version first, atexit last.                        */
/* ------------------------------------------------------------------ */

static const char *const BRIEF[] = {
	"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1", "GIT_TRACE2_EVENT_BRIEF=1", NULL
};

#define PERF_PREFIX "d0 | main                     | "
#define EV_SID "{\"event\":\"%s\",\"sid\":\"SID\",\"thread\":\"main\""
#define UTC "2000-01-01T00:00:00.000000Z"

/* The version lines every brief run starts with. */
#define VERSION_NORMAL "version " TRACE2_VERSION_STRING "\n"
#define VERSION_PERF PERF_PREFIX "version      |     |           |           |              | " TRACE2_VERSION_STRING "\n"
#define VERSION_EVENT "{\"event\":\"version\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"" UTC "\",\"evt\":\"4\",\"exe\":\"" TRACE2_VERSION_STRING "\"}\n"
#define ATEXIT_NORMAL(code) "atexit elapsed:0.000000 code:" #code "\n"
#define ATEXIT_PERF(code) PERF_PREFIX "atexit       |     |  0.000000 |           |              | code:" #code "\n"
#define ATEXIT_EVENT(code) "{\"event\":\"atexit\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"" UTC "\",\"t_abs\":0.000000,\"code\":" #code "}\n"

/* Non-brief: the version record comes from run_scenario()'s "i.c":1, the
 * atexit record has the fixed file and line Git writes for it. */
#define FULL_VERSION_NORMAL "00:00:00.000000 i.c:1                             version " TRACE2_VERSION_STRING "\n"
#define FULL_VERSION_PERF "00:00:00.000000 i.c:1                        | " VERSION_PERF
#define FULL_VERSION_EVENT "{\"event\":\"version\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"" UTC "\",\"file\":\"i.c\",\"line\":1,\"evt\":\"4\",\"exe\":\"" TRACE2_VERSION_STRING "\"}\n"
#define FULL_ATEXIT_NORMAL(code) "00:00:00.000000 trace2/tr2_tgt_normal.c:128       atexit elapsed:0.000000 code:" #code "\n"
#define FULL_ATEXIT_PERF(code) "00:00:00.000000 trace2/tr2_tgt_perf.c:219    | " ATEXIT_PERF(code)
#define FULL_ATEXIT_EVENT(code) "{\"event\":\"atexit\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"" UTC "\",\"file\":\"trace2/tr2_tgt_event.c\",\"line\":207,\"t_abs\":0.000000,\"code\":" #code "}\n"

_Static_assert(sizeof("00:00:00.000000 i.c:1                             ") - 1 == 50,
	       "normal payload column");
_Static_assert(sizeof("00:00:00.000000 trace2/tr2_tgt_normal.c:128       ") - 1 == 50,
	       "normal payload column");
_Static_assert(sizeof("i.c:1                        ") - 1 == 29, "perf location width");
_Static_assert(sizeof("trace2/tr2_tgt_perf.c:219    ") - 1 == 29, "perf location width");

/* ------------------------------------------------------------------ */
/* Running scenarios.                                                   */
/* ------------------------------------------------------------------ */

#define INIT() trace2_initialize_fl("i.c", 1)

struct opts {
	const char *const *env;	/* extra "NAME=value" settings */
	int full;		/* non-brief on all three targets */
	int self_init;		/* the scenario calls INIT() itself */
	int code;		/* code of the atexit records */
	int signo;		/* the child dies of this signal: no atexit */
	int capture_fd;		/* if > 0: capture this fd of the child ... */
	char *captured;		/* ... scrubbed, here (caller frees) */
};

static const struct opts BRIEF_RUN = { .full = 0 };
static const struct opts FULL_RUN = { .full = 1 };

struct call {
	t2_scenario_fn *fn;
	void *arg;
	int self_init;
};

static void run_scenario(void *p)
{
	struct call *c = p;

	if (!c->self_init)
		INIT();
	c->fn(c->arg);
}

/* env: BRIEF (unless full) followed by extra; static storage. */
static const char *const *build_env(int full, const char *const *extra)
{
	static const char *all[64];
	size_t n = 0, i;

	for (i = 0; !full && BRIEF[i]; i++)
		all[n++] = BRIEF[i];
	for (; extra && *extra && n < 63; extra++)
		all[n++] = *extra;
	all[n] = NULL;
	return all;
}

/* Fail showing the first differing line, then the whole texts. */
static void expect_text(const char *what, const char *actual, const char *expected)
{
	size_t i = 0, line = 1, bol = 0;

	if (!strcmp(actual, expected))
		return;
	while (actual[i] && actual[i] == expected[i]) {
		if (actual[i] == '\n') {
			line++;
			bol = i + 1;
		}
		i++;
	}
	print_error("%s differs at line %zu:\n  expected: %.*s\n  actual:   %.*s\n",
		    what, line,
		    (int)strcspn(expected + bol, "\n"), expected + bol,
		    (int)strcspn(actual + bol, "\n"), actual + bol);
	assert_string_equal(actual, expected);
}

static char *concat3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = malloc(la + lb + lc + 1);

	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c, lc + 1);
	return s;
}

/* Expected whole file: version record, body, atexit record; body NULL:
 * the target is off, the file empty or missing. */
static void expect_framed(const char *what, const char *actual, const char *version,
			  const char *body, const char *atexit_fmt, int code)
{
	char atexit_line[512];
	char *e;

	if (!body) {
		expect_text(what, actual, "");
		return;
	}
	snprintf(atexit_line, sizeof(atexit_line), atexit_fmt ? atexit_fmt : "", code);
	e = concat3(version, body, atexit_line);
	expect_text(what, actual, e);
	free(e);
}

/* Redirect fd into a temporary file until capture_end(), which returns
 * the scrubbed text written to it. */
struct capture {
	int fd;
	int saved;
	char *dir;
	char *path;
};

static void capture_start(struct capture *c, int fd)
{
	int f;

	c->fd = fd;
	c->dir = t2_tmpdir();
	c->path = t2_path(c->dir, "captured");
	fflush(NULL);
	f = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(f >= 0);
	c->saved = dup(fd);
	assert_true(dup2(f, fd) == fd);
	close(f);
}

static char *capture_end(struct capture *c)
{
	char *raw, *text;

	fflush(NULL);
	if (c->saved >= 0) {
		dup2(c->saved, c->fd);
		close(c->saved);
	} else {
		close(c->fd);
	}
	raw = t2_read_file(c->path, NULL);
	text = t2_scrub(raw ? raw : "");
	free(raw);
	t2_rmtree(c->dir);
	free(c->dir);
	free(c->path);
	return text;
}

/*
 * The keys of every EVENT record in their order (docs/targets.md,
 * "Event"; docs/event-schema.md, "Keys per event"):
 * the common keys, then these ("?" = present only under its condition).
 */
static const char *const EVENT_KEYS[][2] = {
	{ "version", "evt,exe" },
	{ "too_many_files", "" },
	{ "start", "t_abs,argv" },
	{ "exit", "t_abs,code" },
	{ "signal", "t_abs,signo" },
	{ "atexit", "t_abs,code" },
	{ "error", "?msg,?fmt" },
	{ "cmd_path", "path" },
	{ "cmd_ancestry", "ancestry" },
	{ "cmd_name", "name,?hierarchy" },
	{ "cmd_mode", "name" },
	{ "alias", "alias,argv" },
	{ "child_start", "child_id,child_class,?hook_name,?cd,use_shell,argv" },
	{ "child_exit", "child_id,pid,code,t_rel" },
	{ "child_ready", "child_id,pid,ready,t_rel" },
	{ "thread_start", "" },
	{ "thread_exit", "t_rel" },
	{ "exec", "exec_id,?exe,argv" },
	{ "exec_result", "exec_id,code" },
	{ "def_param", "scope,param,?value" },
	{ "def_repo", "worktree" },
	{ "region_enter", "nesting,?category,?label,?msg" },
	{ "region_leave", "t_rel,nesting,?category,?label,?msg" },
	{ "data", "t_abs,t_rel,nesting,category,key,value" },
	{ "data_json", "t_abs,t_rel,nesting,category,key,value" },
	{ "printf", "t_abs,?msg" },
	{ "timer", "category,name,intervals,t_total,t_min,t_max" },
	{ "th_timer", "category,name,intervals,t_total,t_min,t_max" },
	{ "counter", "category,name,count" },
	{ "th_counter", "category,name,count" },
};

static void add_key(char *list, size_t size, const char *key)
{
	if (*list)
		strncat(list, ",", size - strlen(list) - 1);
	strncat(list, key, size - strlen(list) - 1);
}

/* The key list an event record must have, given which optional keys it has. */
static void expected_keys(const struct tjson *v, const char *ev, int full,
			  char *list, size_t size)
{
	const char *spec = NULL;
	char **keys;
	size_t i;
	int repo_event = !strcmp(ev, "region_enter") || !strcmp(ev, "region_leave") ||
			 !strcmp(ev, "data") || !strcmp(ev, "data_json");

	for (i = 0; i < sizeof(EVENT_KEYS) / sizeof(EVENT_KEYS[0]); i++)
		if (!strcmp(EVENT_KEYS[i][0], ev))
			spec = EVENT_KEYS[i][1];
	if (!spec)
		fail_msg("unknown event \"%s\"", ev);
	*list = '\0';
	add_key(list, size, "event");
	add_key(list, size, "sid");
	add_key(list, size, "thread");
	/* brief: "time" only on version and atexit; file/line never */
	if (full || !strcmp(ev, "version") || !strcmp(ev, "atexit"))
		add_key(list, size, "time");
	if (full && tjson_get(v, "file")) {
		add_key(list, size, "file");
		add_key(list, size, "line");
	}
	if (!strcmp(ev, "def_repo") || (repo_event && tjson_get(v, "repo")))
		add_key(list, size, "repo");
	keys = t2_split(spec, ",", NULL);
	for (i = 0; keys[i]; i++) {
		if (!*keys[i])
			continue;
		if (*keys[i] != '?')
			add_key(list, size, keys[i]);
		else if (tjson_get(v, keys[i] + 1))
			add_key(list, size, keys[i] + 1);
	}
	t2_strv_free(keys);
}

static void check_event_keys(const char *text, int full)
{
	size_t n, i;
	char **lines = t2_lines(text, &n);

	for (i = 0; i < n; i++) {
		const char *err = NULL, *ev;
		struct tjson *v = tjson_parse(lines[i], strlen(lines[i]), &err);
		char want[512], *got;

		if (!v)
			fail_msg("invalid JSON (%s): %s", err, lines[i]);
		ev = tjson_get_str(v, "event");
		if (!ev)
			fail_msg("no event name: %s", lines[i]);
		expected_keys(v, ev, full, want, sizeof(want));
		got = tjson_keys(v);
		if (strcmp(got, want))
			print_error("keys of: %s\n", lines[i]);
		assert_string_equal(got, want);
		/* error: "msg" and "fmt" come together */
		if (!strcmp(ev, "error"))
			assert_int_equal(!tjson_get(v, "msg"), !tjson_get(v, "fmt"));
		free(got);
		tjson_free(v);
	}
	t2_strv_free(lines);
}

/*
 * Run fn(arg) with all three targets writing to files (brief unless
 * o->full, plus o->env) and compare each whole file with version + the
 * expected body + atexit (NULL body: file empty).
 */
static void expect_run(struct opts *o, t2_scenario_fn *fn, void *arg,
		       const char *normal, const char *perf, const char *event)
{
	struct call c = { fn, arg, o->self_init };
	struct capture cap = { 0, -1, NULL, NULL };
	struct t2_out out;

	if (o->capture_fd > 0)
		capture_start(&cap, o->capture_fd);
	t2_run_all_noinit(run_scenario, &c, build_env(o->full, o->env), &out);
	if (o->capture_fd > 0)
		o->captured = capture_end(&cap);
	if (o->signo) {
		assert_true(WIFSIGNALED(out.status));
		assert_int_equal(WTERMSIG(out.status), o->signo);
	} else {
		assert_int_equal(out.status, 0);
	}
	if (o->full) {
		expect_framed("normal", out.normal, FULL_VERSION_NORMAL, normal,
			      o->signo ? NULL : FULL_ATEXIT_NORMAL(%d), o->code);
		expect_framed("perf", out.perf, FULL_VERSION_PERF, perf,
			      o->signo ? NULL : FULL_ATEXIT_PERF(%d), o->code);
		expect_framed("event", out.event, FULL_VERSION_EVENT, event,
			      o->signo ? NULL : FULL_ATEXIT_EVENT(%d), o->code);
	} else {
		expect_framed("normal", out.normal, VERSION_NORMAL, normal,
			      o->signo ? NULL : ATEXIT_NORMAL(%d), o->code);
		expect_framed("perf", out.perf, VERSION_PERF, perf,
			      o->signo ? NULL : ATEXIT_PERF(%d), o->code);
		expect_framed("event", out.event, VERSION_EVENT, event,
			      o->signo ? NULL : ATEXIT_EVENT(%d), o->code);
	}
	check_event_keys(out.event, o->full);
	t2_out_free(&out);
}

static void expect_brief(t2_scenario_fn *fn, const char *normal, const char *perf,
			 const char *event)
{
	struct opts o = BRIEF_RUN;

	expect_run(&o, fn, NULL, normal, perf, event);
}

static void expect_full(t2_scenario_fn *fn, const char *normal, const char *perf,
			const char *event)
{
	struct opts o = FULL_RUN;

	expect_run(&o, fn, NULL, normal, perf, event);
}

/* ------------------------------------------------------------------ */
/* Command events.                                                      */
/* ------------------------------------------------------------------ */

static void sc_start(void *arg)
{
	const char *argv[] = { "git", "it's", "a!b", "", "hello world", "x=y", NULL };

	(void)arg;
	trace2_cmd_start(argv);
}

static void start_quotes_arguments(void **state)
{
	(void)state;
	expect_brief(sc_start,
		     "start git 'it'\\''s' 'a'\\!'b' '' 'hello world' x=y\n",
		     PERF_PREFIX "start        |     |  0.000000 |           |              | git 'it'\\''s' 'a'\\!'b' '' 'hello world' x=y\n",
		     "{\"event\":\"start\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"argv\":[\"git\",\"it's\",\"a!b\",\"\",\"hello world\",\"x=y\"]}\n");
}

/* A W3C TRACEPARENT in the environment is recorded after "start" as a
 * data record (category trace2, key traceparent); a malformed one is
 * not. */
static void traceparent_recorded(void **state)
{
	static const char *const good[] = {
		"TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", NULL
	};
	static const char *const later_version[] = {
		"TRACEPARENT=01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00-more", NULL
	};
	static const char *const bad[][2] = {
		{ "TRACEPARENT=00-00000000000000000000000000000000-b7ad6b7169203331-01", NULL },
		{ "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", NULL },
		{ "TRACEPARENT=ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", NULL },
		{ "TRACEPARENT=00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", NULL },
		{ "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x", NULL },
		{ "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333", NULL },
		{ "TRACEPARENT=", NULL },
	};
	const char *start_perf = PERF_PREFIX "start        |     |  0.000000 |           |              | git 'it'\\''s' 'a'\\!'b' '' 'hello world' x=y\n";
	const char *start_event = "{\"event\":\"start\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"argv\":[\"git\",\"it's\",\"a!b\",\"\",\"hello world\",\"x=y\"]}\n";
	char *perf = t2_xfmt("%s" PERF_PREFIX "data         |     |  0.000000 |  0.000000 | trace2       | traceparent:%s\n",
			     start_perf, good[0] + 12);
	char *event = t2_xfmt("%s{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"trace2\",\"key\":\"traceparent\",\"value\":\"%s\"}\n",
			      start_event, good[0] + 12);
	struct opts o = BRIEF_RUN;
	size_t i;

	(void)state;
	o.env = good;
	expect_run(&o, sc_start, NULL, "start git 'it'\\''s' 'a'\\!'b' '' 'hello world' x=y\n",
		   perf, event);
	free(perf);
	free(event);
	o.env = later_version;
	perf = t2_xfmt("%s" PERF_PREFIX "data         |     |  0.000000 |  0.000000 | trace2       | traceparent:%s\n",
		       start_perf, later_version[0] + 12);
	event = t2_xfmt("%s{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"trace2\",\"key\":\"traceparent\",\"value\":\"%s\"}\n",
			start_event, later_version[0] + 12);
	expect_run(&o, sc_start, NULL, "start git 'it'\\''s' 'a'\\!'b' '' 'hello world' x=y\n",
		   perf, event);
	free(perf);
	free(event);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		o.env = bad[i];
		expect_run(&o, sc_start, NULL,
			   "start git 'it'\\''s' 'a'\\!'b' '' 'hello world' x=y\n",
			   start_perf, start_event);
	}
}

static void sc_cmd_events(void *arg)
{
	const char *ancestry[] = { "bash", "tmux: server", "init", NULL };
	const char *none[] = { NULL };
	const char *expansion[] = { "log", "--oneline", "it's", "", "https://u:p@h", NULL };

	(void)arg;
	trace2_cmd_path("/usr/bin/git");
	trace2_cmd_ancestry(ancestry);
	trace2_cmd_ancestry(none);
	trace2_cmd_mode("branch");
	trace2_cmd_alias("lg", expansion);
	CHECK(trace2_cmd_exit(3) == 3);
	CHECK(trace2_cmd_exit_fl(NULL, 0, -1) == -1);
	trace2_initialize_fl("again.c", 2);
}

/* path, ancestry (also empty), mode, alias (its URL passwords redacted), exit twice:
 * the last code (as given, not masked) is the one of atexit; a second initialize is silent */
static void cmd_events(void **state)
{
	struct opts o = BRIEF_RUN;

	(void)state;
	o.code = -1;
	expect_run(&o, sc_cmd_events, NULL,
		   "cmd_path /usr/bin/git\n"
		   "cmd_ancestry bash <- tmux: server <- init\n"
		   "cmd_ancestry \n"
		   "cmd_mode branch\n"
		   "alias lg -> log --oneline 'it'\\''s' '' 'https://u:<REDACTED>@h'\n"
		   "exit elapsed:0.000000 code:3\n"
		   "exit elapsed:0.000000 code:-1\n",
		   PERF_PREFIX "cmd_path     |     |           |           |              | /usr/bin/git\n"
		   PERF_PREFIX "cmd_ancestry |     |           |           |              | ancestry:[bash 'tmux: server' init]\n"
		   PERF_PREFIX "cmd_ancestry |     |           |           |              | ancestry:[]\n"
		   PERF_PREFIX "cmd_mode     |     |           |           |              | branch\n"
		   PERF_PREFIX "alias        |     |           |           |              | alias:lg argv:[log --oneline 'it'\\''s' '' 'https://u:<REDACTED>@h']\n"
		   PERF_PREFIX "exit         |     |  0.000000 |           |              | code:3\n"
		   PERF_PREFIX "exit         |     |  0.000000 |           |              | code:-1\n",
		   "{\"event\":\"cmd_path\",\"sid\":\"SID\",\"thread\":\"main\",\"path\":\"/usr/bin/git\"}\n"
		   "{\"event\":\"cmd_ancestry\",\"sid\":\"SID\",\"thread\":\"main\",\"ancestry\":[\"bash\",\"tmux: server\",\"init\"]}\n"
		   "{\"event\":\"cmd_ancestry\",\"sid\":\"SID\",\"thread\":\"main\",\"ancestry\":[]}\n"
		   "{\"event\":\"cmd_mode\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"branch\"}\n"
		   "{\"event\":\"alias\",\"sid\":\"SID\",\"thread\":\"main\",\"alias\":\"lg\",\"argv\":[\"log\",\"--oneline\",\"it's\",\"\",\"https://u:<REDACTED>@h\"]}\n"
		   "{\"event\":\"exit\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"code\":3}\n"
		   "{\"event\":\"exit\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"code\":-1}\n");
}

static void sc_errors(void *arg)
{
	(void)arg;
	t2_error_va(NULL);
	t2_error_va("");
	trace2_cmd_error("hello %s", "world");
	trace2_cmd_error("%s", "");
	trace2_cmd_error("%s", "tab\tquote\" back\\ nl\nx");
	t2_error_va("%d%%", 5);
}

/* fmt NULL and "" leave the message out; a message expanding to "" is
 * still there (normal "error " with its space, event "msg":"") */
static void errors(void **state)
{
	(void)state;
	expect_brief(sc_errors,
		     "error\n"
		     "error\n"
		     "error hello world\n"
		     "error \n"
		     "error tab\tquote\" back\\ nl\n"
		     "x\n"
		     "error 5%\n",
		     PERF_PREFIX "error        |     |           |           |              | \n"
		     PERF_PREFIX "error        |     |           |           |              | \n"
		     PERF_PREFIX "error        |     |           |           |              | hello world\n"
		     PERF_PREFIX "error        |     |           |           |              | \n"
		     PERF_PREFIX "error        |     |           |           |              | tab\tquote\" back\\ nl\n"
		     "x\n"
		     PERF_PREFIX "error        |     |           |           |              | 5%\n",
		     "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\"}\n"
		     "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\"}\n"
		     "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"msg\":\"hello world\",\"fmt\":\"hello %s\"}\n"
		     "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"msg\":\"\",\"fmt\":\"%s\"}\n"
		     "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"msg\":\"tab\\tquote\\\" back\\\\ nl\\nx\",\"fmt\":\"%s\"}\n"
		     "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"msg\":\"5%\",\"fmt\":\"%d%%\"}\n");
}

static void sc_cmd_name(void *arg)
{
	const char *exported;

	(void)arg;
	trace2_cmd_name("");
	trace2_cmd_name("a");
	trace2_cmd_name("b");
	exported = getenv("GIT_TRACE2_PARENT_NAME");
	CHECK(exported);
	trace2_printf("exported %s", exported);
}

static void sc_cmd_name_once(void *arg)
{
	(void)arg;
	trace2_cmd_name("a");
}

/* the hierarchy grows with every call; an empty one is left out */
static void cmd_name_hierarchy(void **state)
{
	static const char *const parent[] = { "GIT_TRACE2_PARENT_NAME=p/q", NULL };
	struct opts o = BRIEF_RUN;

	(void)state;
	expect_brief(sc_cmd_name,
		     "cmd_name \n"
		     "cmd_name a (a)\n"
		     "cmd_name b (a/b)\n"
		     "exported a/b\n",
		     PERF_PREFIX "cmd_name     |     |           |           |              | \n"
		     PERF_PREFIX "cmd_name     |     |           |           |              | a (a)\n"
		     PERF_PREFIX "cmd_name     |     |           |           |              | b (a/b)\n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | exported a/b\n",
		     "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"\"}\n"
		     "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"a\",\"hierarchy\":\"a\"}\n"
		     "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"b\",\"hierarchy\":\"a/b\"}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"exported a/b\"}\n");
	o.env = parent;
	expect_run(&o, sc_cmd_name_once, NULL,
		   "cmd_name a (p/q/a)\n",
		   PERF_PREFIX "cmd_name     |     |           |           |              | a (p/q/a)\n",
		   "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"a\",\"hierarchy\":\"p/q/a\"}\n");
}

/* ------------------------------------------------------------------ */
/* Child processes and exec.                                            */
/* ------------------------------------------------------------------ */

static void sc_children(void *arg)
{
	const char *fetch[] = { "rev-list", "--all", NULL };
	const char *hook[] = { "echo hi | cat", NULL };
	const char *ls[] = { "ls", "-l", NULL };
	struct child_process c0 = CHILD_PROCESS_INIT, c1 = CHILD_PROCESS_INIT,
			     c2 = CHILD_PROCESS_INIT, c3 = CHILD_PROCESS_INIT,
			     c4 = CHILD_PROCESS_INIT, never = CHILD_PROCESS_INIT;

	(void)arg;
	c0.args.v = fetch;
	c0.args.nr = 2;
	c0.trace2_child_class = "transport/ssh";
	c0.dir = "/srv/a dir";
	c0.git_cmd = 1;
	c1.args.v = hook;
	c1.args.nr = 1;
	c1.trace2_child_class = "ignored";
	c1.trace2_hook_name = "pre-commit";
	c1.use_shell = 1;
	c2.git_cmd = 1;
	c3.args.v = ls;
	c3.args.nr = 2;
	trace2_child_start(&c0);
	trace2_child_start(&c1);
	trace2_child_start(&c2);
	trace2_child_start(&c3);
	trace2_child_start(&c4);
	CHECK(c0.trace2_child_id == 0 && c1.trace2_child_id == 1);
	CHECK(c2.trace2_child_id == 2 && c3.trace2_child_id == 3);
	CHECK(c4.trace2_child_id == 4);
	CHECK(c0.args.v == fetch && c1.args.v == hook && c0.trace2_child_us_start);
	c0.pid = 1234;
	c1.pid = 5678;
	c2.pid = -1;
	trace2_child_exit(&c0, 0);
	trace2_child_ready(&c1, "ready");
	trace2_child_exit(&c2, -1);
	trace2_child_ready(&c3, "timeout");
	never.trace2_child_id = 9;
	never.pid = 77;
	trace2_child_exit(&never, 141);
}

/* class NULL -> "?", a hook name forces class "hook", dir with a space,
 * git_cmd with and without args, no args at all, use_shell */
static void children(void **state)
{
	(void)state;
	expect_brief(sc_children,
		     "child_start[0] cd '/srv/a dir'; git rev-list --all\n"
		     "child_start[1] 'echo hi | cat'\n"
		     "child_start[2] git \n"
		     "child_start[3] ls -l\n"
		     "child_start[4] \n"
		     "child_exit[0] pid:1234 code:0 elapsed:0.000000\n"
		     "child_ready[1] pid:5678 ready:ready elapsed:0.000000\n"
		     "child_exit[2] pid:-1 code:-1 elapsed:0.000000\n"
		     "child_ready[3] pid:0 ready:timeout elapsed:0.000000\n"
		     "child_exit[9] pid:77 code:141 elapsed:0.000000\n",
		     PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch0] class:transport/ssh cd:'/srv/a dir' argv:[git rev-list --all]\n"
		     PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch1] class:hook hook:pre-commit argv:['echo hi | cat']\n"
		     PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch2] class:? argv:[git]\n"
		     PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch3] class:? argv:[ls -l]\n"
		     PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch4] class:? argv:[]\n"
		     PERF_PREFIX "child_exit   |     |  0.000000 |  0.000000 |              | [ch0] pid:1234 code:0\n"
		     PERF_PREFIX "child_ready  |     |  0.000000 |  0.000000 |              | [ch1] pid:5678 ready:ready\n"
		     PERF_PREFIX "child_exit   |     |  0.000000 |  0.000000 |              | [ch2] pid:-1 code:-1\n"
		     PERF_PREFIX "child_ready  |     |  0.000000 |  0.000000 |              | [ch3] pid:0 ready:timeout\n"
		     PERF_PREFIX "child_exit   |     |  0.000000 |  0.000000 |              | [ch9] pid:77 code:141\n",
		     "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":0,\"child_class\":\"transport/ssh\",\"cd\":\"/srv/a dir\",\"use_shell\":false,\"argv\":[\"git\",\"rev-list\",\"--all\"]}\n"
		     "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":1,\"child_class\":\"hook\",\"hook_name\":\"pre-commit\",\"use_shell\":true,\"argv\":[\"echo hi | cat\"]}\n"
		     "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":2,\"child_class\":\"?\",\"use_shell\":false,\"argv\":[\"git\"]}\n"
		     "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":3,\"child_class\":\"?\",\"use_shell\":false,\"argv\":[\"ls\",\"-l\"]}\n"
		     "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":4,\"child_class\":\"?\",\"use_shell\":false,\"argv\":[]}\n"
		     "{\"event\":\"child_exit\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":0,\"pid\":1234,\"code\":0,\"t_rel\":0.000000}\n"
		     "{\"event\":\"child_ready\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":1,\"pid\":5678,\"ready\":\"ready\",\"t_rel\":0.000000}\n"
		     "{\"event\":\"child_exit\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":2,\"pid\":-1,\"code\":-1,\"t_rel\":0.000000}\n"
		     "{\"event\":\"child_ready\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":3,\"pid\":0,\"ready\":\"timeout\",\"t_rel\":0.000000}\n"
		     "{\"event\":\"child_exit\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":9,\"pid\":77,\"code\":141,\"t_rel\":0.000000}\n");
}

static void sc_exec(void *arg)
{
	const char *argv[] = { "git", "version", NULL };
	const char *none[] = { NULL };

	(void)arg;
	CHECK(trace2_exec("git", argv) == 0);
	CHECK(trace2_exec(NULL, argv) == 1);
	CHECK(trace2_exec("exe-only", none) == 2);
	CHECK(trace2_exec(NULL, none) == 3);
	trace2_exec_result(0, 0);
	trace2_exec_result(1, 2);
	trace2_exec_result(3, -1);
}

/* exe NULL, empty argv, both; exec_result with and without strerror */
static void exec_events(void **state)
{
	(void)state;
	expect_brief(sc_exec,
		     "exec[0] git git version\n"
		     "exec[1] git version\n"
		     "exec[2] exe-only \n"
		     "exec[3] \n"
		     "exec_result[0] code:0\n"
		     "exec_result[1] code:2 err:No such file or directory\n"
		     "exec_result[3] code:-1\n",
		     PERF_PREFIX "exec         |     |  0.000000 |           |              | id:0 argv:[git git version]\n"
		     PERF_PREFIX "exec         |     |  0.000000 |           |              | id:1 argv:[git version]\n"
		     PERF_PREFIX "exec         |     |  0.000000 |           |              | id:2 argv:[exe-only]\n"
		     PERF_PREFIX "exec         |     |  0.000000 |           |              | id:3 argv:[]\n"
		     PERF_PREFIX "exec_result  |     |  0.000000 |           |              | id:0 code:0\n"
		     PERF_PREFIX "exec_result  |     |  0.000000 |           |              | id:1 code:2 err:No such file or directory\n"
		     PERF_PREFIX "exec_result  |     |  0.000000 |           |              | id:3 code:-1\n",
		     "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":0,\"exe\":\"git\",\"argv\":[\"git\",\"version\"]}\n"
		     "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":1,\"argv\":[\"git\",\"version\"]}\n"
		     "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":2,\"exe\":\"exe-only\",\"argv\":[]}\n"
		     "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":3,\"argv\":[]}\n"
		     "{\"event\":\"exec_result\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":0,\"code\":0}\n"
		     "{\"event\":\"exec_result\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":1,\"code\":2}\n"
		     "{\"event\":\"exec_result\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":3,\"code\":-1}\n");
}

/* ------------------------------------------------------------------ */
/* def_param and def_repo.                                              */
/* ------------------------------------------------------------------ */

static void sc_def_param(void *arg)
{
	static const char *const names[] = {
		"p.unknown", "p.system", "p.global", "p.local", "p.worktree",
		"p.command", "p.submodule", "p.invalid",
	};
	struct key_value_info kvi = KVI_INIT;
	int scope;

	(void)arg;
	trace2_cmd_list_config();
	trace2_cmd_name("x");
	trace2_cmd_list_config();
	trace2_cmd_list_env_vars();
	trace2_cmd_set_config("Cfg.Prop.New", "v");
	trace2_cmd_set_config("other.key", "v");
	trace2_cmd_set_config("foo.true", NULL);
	for (scope = CONFIG_SCOPE_UNKNOWN; scope <= CONFIG_SCOPE_SUBMODULE + 1; scope++) {
		kvi.scope = (enum config_scope)scope;
		trace2_def_param(names[scope], "v", &kvi);
	}
	kvi.scope = CONFIG_SCOPE_COMMAND;
	trace2_def_param("p.novalue", NULL, &kvi);
	trace2_def_param("p.nokvi", "v", NULL);
}

/* Config listing (global file + GIT_CONFIG_COUNT), env var listing (from
 * cmd_name, once), set_config, every scope (perf: truncated to 12) */
static void def_param(void **state)
{
	static char global[4200];
	static const char *env[] = {
		global,
		"GIT_TRACE2_CONFIG_PARAMS= CFG.PROP.* , foo.true,,core.bare",
		"GIT_TRACE2_ENV_VARS=ENV_A, ENV_B ,ENV_EMPTY,ENV_MISSING",
		"ENV_A=1", "ENV_B=x y", "ENV_EMPTY=",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=cfg.prop.cmd",
		"GIT_CONFIG_VALUE_0=fromcmd", NULL
	};
	char *dir = t2_tmpdir(), *path = t2_path(dir, "gitconfig");
	FILE *f = fopen(path, "w");
	struct opts o = BRIEF_RUN;

	(void)state;
	assert_non_null(f);
	fputs("[cfg \"prop\"]\n\tfoo = red\n\tfoo = second\n"
	      "[Cfg \"Prop\"]\n\tBar = two words\n"
	      "[core]\n\tbare = false\n[other]\n\tkey = ignored\n", f);
	fclose(f);
	snprintf(global, sizeof(global), "GIT_CONFIG_GLOBAL=%s", path);
	o.env = env;
	expect_run(&o, sc_def_param, NULL,
		   "def_param scope:global cfg.prop.foo=red\n"
		   "def_param scope:global cfg.prop.foo=second\n"
		   "def_param scope:global cfg.Prop.bar=two words\n"
		   "def_param scope:global core.bare=false\n"
		   "def_param scope:command cfg.prop.cmd=fromcmd\n"
		   "cmd_name x (x)\n"
		   "def_param scope:command ENV_A=1\n"
		   "def_param scope:command ENV_B=x y\n"
		   "def_param scope:unknown Cfg.Prop.New=v\n"
		   "def_param scope:unknown foo.true\n"
		   "def_param scope:unknown p.unknown=v\n"
		   "def_param scope:system p.system=v\n"
		   "def_param scope:global p.global=v\n"
		   "def_param scope:local p.local=v\n"
		   "def_param scope:worktree p.worktree=v\n"
		   "def_param scope:command p.command=v\n"
		   "def_param scope:submodule p.submodule=v\n"
		   "def_param scope:unknown p.invalid=v\n"
		   "def_param scope:command p.novalue\n"
		   "def_param scope:unknown p.nokvi=v\n",
		   PERF_PREFIX "def_param    |     |           |           | scope:global | cfg.prop.foo:red\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:global | cfg.prop.foo:second\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:global | cfg.Prop.bar:two words\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:global | core.bare:false\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:comman | cfg.prop.cmd:fromcmd\n"
		   PERF_PREFIX "cmd_name     |     |           |           |              | x (x)\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:comman | ENV_A:1\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:comman | ENV_B:x y\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:unknow | Cfg.Prop.New:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:unknow | foo.true\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:unknow | p.unknown:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:system | p.system:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:global | p.global:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:local  | p.local:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:worktr | p.worktree:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:comman | p.command:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:submod | p.submodule:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:unknow | p.invalid:v\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:comman | p.novalue\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:unknow | p.nokvi:v\n",
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"global\",\"param\":\"cfg.prop.foo\",\"value\":\"red\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"global\",\"param\":\"cfg.prop.foo\",\"value\":\"second\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"global\",\"param\":\"cfg.Prop.bar\",\"value\":\"two words\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"global\",\"param\":\"core.bare\",\"value\":\"false\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"cfg.prop.cmd\",\"value\":\"fromcmd\"}\n"
		   "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"x\",\"hierarchy\":\"x\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"ENV_A\",\"value\":\"1\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"ENV_B\",\"value\":\"x y\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"Cfg.Prop.New\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"foo.true\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"p.unknown\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"system\",\"param\":\"p.system\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"global\",\"param\":\"p.global\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"local\",\"param\":\"p.local\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"worktree\",\"param\":\"p.worktree\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"p.command\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"submodule\",\"param\":\"p.submodule\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"p.invalid\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"p.novalue\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"p.nokvi\",\"value\":\"v\"}\n");
	t2_rmtree(dir);
	free(dir);
	free(path);
}

static void sc_def_repo(void *arg)
{
	struct repository r[10], undefined = { "/w/u", 0 };
	int i;

	(void)arg;
	for (i = 0; i < 10; i++) {
		r[i].worktree = i == 1 ? "/w/a dir" : "/w/n";
		r[i].trace2_repo_id = 0;
	}
	trace2_def_repo(&r[0]);
	trace2_def_repo(&r[1]);
	trace2_def_repo(&r[0]);
	CHECK(r[0].trace2_repo_id == 1 && r[1].trace2_repo_id == 2);
	for (i = 2; i < 10; i++)
		trace2_def_repo(&r[i]);
	CHECK(r[9].trace2_repo_id == 10);
	trace2_region_enter("c", "l", &r[9]);
	trace2_data_intmax("c", &undefined, "k", 1);
	trace2_region_leave("c", "l", &r[9]);
}

/* ids 1, 2, ...; a second def_repo of a repo is silent; repo id 10 widens
 * the perf column; an undefined repo prints r0 */
static void def_repo(void **state)
{
	(void)state;
	expect_brief(sc_def_repo,
		     "worktree /w/n\n"
		     "worktree '/w/a dir'\n"
		     "worktree /w/n\n"
		     "worktree /w/n\n"
		     "worktree /w/n\n"
		     "worktree /w/n\n"
		     "worktree /w/n\n"
		     "worktree /w/n\n"
		     "worktree /w/n\n"
		     "worktree /w/n\n",
		     PERF_PREFIX "def_repo     | r1  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r2  |           |           |              | worktree:'/w/a dir'\n"
		     PERF_PREFIX "def_repo     | r3  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r4  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r5  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r6  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r7  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r8  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r9  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "def_repo     | r10  |           |           |              | worktree:/w/n\n"
		     PERF_PREFIX "region_enter | r10  |  0.000000 |           | c            | label:l\n"
		     PERF_PREFIX "data         | r0  |  0.000000 |  0.000000 | c            | ..k:1\n"
		     PERF_PREFIX "region_leave | r10  |  0.000000 |  0.000000 | c            | label:l\n",
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":1,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":2,\"worktree\":\"/w/a dir\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":3,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":4,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":5,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":6,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":7,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":8,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":9,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":10,\"worktree\":\"/w/n\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":10,\"nesting\":1,\"category\":\"c\",\"label\":\"l\"}\n"
		     "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":0,\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"c\",\"key\":\"k\",\"value\":\"1\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":10,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"c\",\"label\":\"l\"}\n");
}

/* ------------------------------------------------------------------ */
/* Regions, data, printf.                                               */
/* ------------------------------------------------------------------ */

static void sc_regions(void *arg)
{
	(void)arg;
	trace2_region_enter_fl("r.c", 1, "cat", "outer", NULL);
	trace2_region_enter_printf_fl("r.c", 2, "category-too-long", "inner", NULL, "n=%d", 7);
	trace2_data_string_fl("r.c", 3, "cat", NULL, "deep", "dropped by event");
	trace2_region_leave_fl("r.c", 4, "category-too-long", "inner", NULL);
	trace2_data_intmax_fl("r.c", 5, "cat", NULL, "k", -17);
	trace2_region_leave_fl("r.c", 6, "cat", "outer", NULL);
}

static void regions_nest_and_filter(void **state)
{
	(void)state;
	expect_brief(sc_regions, "",
		     PERF_PREFIX "region_enter |     |  0.000000 |           | cat          | label:outer\n"
		     PERF_PREFIX "region_enter |     |  0.000000 |           | category-too | ..label:inner n=7\n"
		     PERF_PREFIX "data         |     |  0.000000 |  0.000000 | cat          | ....deep:dropped by event\n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | category-too | ..label:inner\n"
		     PERF_PREFIX "data         |     |  0.000000 |  0.000000 | cat          | ..k:-17\n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | cat          | label:outer\n",
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"cat\",\"label\":\"outer\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":2,\"category\":\"category-too-long\",\"label\":\"inner\",\"msg\":\"n=7\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":2,\"category\":\"category-too-long\",\"label\":\"inner\"}\n"
		     "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"cat\",\"key\":\"k\",\"value\":\"-17\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"category\":\"cat\",\"label\":\"outer\"}\n");
}

static void sc_region_forms(void *arg)
{
	struct repository r0 = { "/w", 0 }, r1 = { "/w", 0 };

	(void)arg;
	trace2_def_repo(&r1);
	trace2_region_enter("c1", "l1", &r1);
	trace2_region_enter_printf("c2", NULL, &r0, "%s", "");
	trace2_region_leave_printf("c2", NULL, &r0, "%s", "");
	t2_enter_va(NULL, "l3", NULL, "n=%d", 3);
	t2_leave_va(NULL, "l3", NULL, "n=%d", 4);
	trace2_region_leave("c1", "l1", &r1);
	trace2_region_enter(NULL, NULL, NULL);
	trace2_region_leave(NULL, NULL, NULL);
	trace2_region_enter_printf(NULL, NULL, NULL, "thread-proc on main: %s", "fake");
	trace2_region_leave_printf(NULL, NULL, NULL, "%s", "done");
	trace2_region_enter_fl(NULL, 0, "ignored", "args", NULL, "trailing", 1);
	trace2_region_leave_fl(NULL, 0, "ignored", "args", NULL, "trailing", 2);
}

/* all six entry points; label, category, repo NULL; repo r0 and r1; a
 * message expanding to "" (perf: one space, event "msg":"") */
static void region_forms(void **state)
{
	(void)state;
	expect_brief(sc_region_forms,
		     "worktree /w\n",
		     PERF_PREFIX "def_repo     | r1  |           |           |              | worktree:/w\n"
		     PERF_PREFIX "region_enter | r1  |  0.000000 |           | c1           | label:l1\n"
		     PERF_PREFIX "region_enter | r0  |  0.000000 |           | c2           | .. \n"
		     PERF_PREFIX "region_leave | r0  |  0.000000 |  0.000000 | c2           | .. \n"
		     PERF_PREFIX "region_enter |     |  0.000000 |           |              | ..label:l3 n=3\n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 |              | ..label:l3 n=4\n"
		     PERF_PREFIX "region_leave | r1  |  0.000000 |  0.000000 | c1           | label:l1\n"
		     PERF_PREFIX "region_enter |     |  0.000000 |           |              | \n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 |              | \n"
		     PERF_PREFIX "region_enter |     |  0.000000 |           |              |  thread-proc on main: fake\n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 |              |  done\n"
		     PERF_PREFIX "region_enter |     |  0.000000 |           | ignored      | label:args\n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | ignored      | label:args\n",
		     "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":1,\"worktree\":\"/w\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":1,\"nesting\":1,\"category\":\"c1\",\"label\":\"l1\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":0,\"nesting\":2,\"category\":\"c2\",\"msg\":\"\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":0,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"c2\",\"msg\":\"\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":2,\"label\":\"l3\",\"msg\":\"n=3\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":2,\"label\":\"l3\",\"msg\":\"n=4\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":1,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"c1\",\"label\":\"l1\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"msg\":\"thread-proc on main: fake\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"msg\":\"done\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"ignored\",\"label\":\"args\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"category\":\"ignored\",\"label\":\"args\"}\n");
}

static void build_compact(struct json_writer *jw)
{
	jw_object_begin(jw, 0);
	jw_object_string(jw, "s", "a\"b\\c\001\037\177\303\251");
	jw_object_intmax(jw, "i", -3);
	jw_object_double(jw, "d", 3, 1.5);
	jw_object_inline_begin_array(jw, "arr");
	jw_array_true(jw);
	jw_array_null(jw);
	jw_end(jw);
	jw_end(jw);
}

static void sc_data(void *arg)
{
	struct repository r0 = { "/w", 0 };
	struct json_writer compact = JSON_WRITER_INIT, pretty = JSON_WRITER_INIT;

	(void)arg;
	build_compact(&compact);
	t2_jw_api_example(&pretty);
	trace2_data_string("cat", NULL, "s", "v a l");
	trace2_data_intmax("category-too-long", &r0, "min", INTMAX_MIN);
	trace2_data_json("jcat", &r0, "compact", &compact);
	trace2_data_json("jcat", NULL, "pretty", &pretty);
	trace2_region_enter("r", "outer", NULL);
	trace2_data_json("jcat", NULL, "inside", &compact);
	trace2_region_leave("r", "outer", NULL);
	jw_release(&compact);
	jw_release(&pretty);
}

/* data_string, data_intmax (INTMAX_MIN), data_json compact and pretty:
 * perf verbatim, event compacted (docs/targets.md, "Event") */
static void data_events(void **state)
{
	(void)state;
	expect_brief(sc_data,
		     "",
		     PERF_PREFIX "data         |     |  0.000000 |  0.000000 | cat          | s:v a l\n"
		     PERF_PREFIX "data         | r0  |  0.000000 |  0.000000 | category-too | min:-9223372036854775808\n"
		     PERF_PREFIX "data_json    | r0  |  0.000000 |  0.000000 | jcat         | compact:{\"s\":\"a\\\"b\\\\c\\u0001\\u001f\177\303\251\",\"i\":-3,\"d\":1.500,\"arr\":[true,null]}\n"
		     PERF_PREFIX "data_json    |     |  0.000000 |  0.000000 | jcat         | pretty:{\n"
		     "  \"a\": \"b\",\n"
		     "  \"o\": {\n"
		     "    \"n\": 1\n"
		     "  }\n"
		     "}\n"
		     PERF_PREFIX "region_enter |     |  0.000000 |           | r            | label:outer\n"
		     PERF_PREFIX "data_json    |     |  0.000000 |  0.000000 | jcat         | ..inside:{\"s\":\"a\\\"b\\\\c\\u0001\\u001f\177\303\251\",\"i\":-3,\"d\":1.500,\"arr\":[true,null]}\n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | r            | label:outer\n",
		     "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"cat\",\"key\":\"s\",\"value\":\"v a l\"}\n"
		     "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":0,\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"category-too-long\",\"key\":\"min\",\"value\":\"-9223372036854775808\"}\n"
		     "{\"event\":\"data_json\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":0,\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"jcat\",\"key\":\"compact\",\"value\":{\"s\":\"a\\\"b\\\\c\\u0001\\u001f\177\303\251\",\"i\":-3,\"d\":1.500,\"arr\":[true,null]}}\n"
		     "{\"event\":\"data_json\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":\"jcat\",\"key\":\"pretty\",\"value\":{\"a\": \"b\",\"o\": {\"n\": 1}}}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"r\",\"label\":\"outer\"}\n"
		     "{\"event\":\"data_json\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"jcat\",\"key\":\"inside\",\"value\":{\"s\":\"a\\\"b\\\\c\\u0001\\u001f\177\303\251\",\"i\":-3,\"d\":1.500,\"arr\":[true,null]}}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"category\":\"r\",\"label\":\"outer\"}\n");
}

static void sc_printf(void *arg)
{
	(void)arg;
	trace2_printf("hello %d", 42);
	t2_printf_va("va %s", "x");
	t2_printf_va(NULL);
	t2_printf_va("");
	trace2_printf("%s", "");
	trace2_printf("%s", "two\nlines");
	trace2_printf("%s", "ends with LF\n");
	trace2_printf("%s", "bad \377 and \200 byte");
}

/* brief normal writes nothing at all for an empty message; no second LF
 * after a message ending in one; invalid UTF-8 is kept by normal and perf
 * and becomes U+FFFD in event (docs/targets.md, "JSON strings") */
static void printf_events(void **state)
{
	(void)state;
	expect_brief(sc_printf,
		     "hello 42\n"
		     "va x\n"
		     "two\n"
		     "lines\n"
		     "ends with LF\n"
		     "bad \377 and \200 byte\n",
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | hello 42\n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | va x\n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | \n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | \n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | \n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | two\n"
		     "lines\n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | ends with LF\n"
		     PERF_PREFIX "printf       |     |  0.000000 |           |              | bad \377 and \200 byte\n",
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"hello 42\"}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"va x\"}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"\"}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"two\\nlines\"}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"ends with LF\\n\"}\n"
		     "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"bad \357\277\275 and \357\277\275 byte\"}\n");
}

/* ------------------------------------------------------------------ */
/* Threads.                                                             */
/* ------------------------------------------------------------------ */

static void sc_thread_on_main(void *arg)
{
	(void)arg;
	trace2_thread_start("x");
	trace2_data_string("c", NULL, "k", "v");
	trace2_thread_exit();
}

/* on the main thread thread_start/exit are the regions
 * "thread-proc on main: x" / "thread-proc on main" */
static void thread_on_main(void **state)
{
	(void)state;
	expect_brief(sc_thread_on_main,
		     "",
		     PERF_PREFIX "region_enter |     |  0.000000 |           |              |  thread-proc on main: x\n"
		     PERF_PREFIX "data         |     |  0.000000 |  0.000000 | c            | ..k:v\n"
		     PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 |              |  thread-proc on main\n",
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"msg\":\"thread-proc on main: x\"}\n"
		     "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"c\",\"key\":\"k\",\"value\":\"v\"}\n"
		     "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"msg\":\"thread-proc on main\"}\n");
}

static void *worker(void *name)
{
	trace2_thread_start((const char *)name);
	trace2_region_enter("w", "inner", NULL);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 7);
	trace2_thread_exit();
	return NULL;
}

static void *idle(void *name)
{
	trace2_thread_start((const char *)name);
	trace2_thread_exit();
	return NULL;
}

static void run_thread(void *(*fn)(void *), const char *name)
{
	pthread_t t;

	CHECK(!pthread_create(&t, NULL, fn, (void *)name));
	CHECK(!pthread_join(t, NULL));
}

static void sc_threads(void *arg)
{
	(void)arg;
	run_thread(worker, "worker");
	run_thread(idle, "a_very_long_thread_base_name_here");
}

/* thread_start/thread_exit of other threads, names cut to 24 bytes,
 * per-thread records before thread_exit, totals at exit */
static void threads(void **state)
{
	(void)state;
	expect_brief(sc_threads,
		     "th_timer test/test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     "th_counter test/test2 value:7\n"
		     "timer test/test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     "counter test/test2 value:7\n",
		     "d0 | th01:worker              | thread_start |     |  0.000000 |           |              | \n"
		     "d0 | th01:worker              | region_enter |     |  0.000000 |           | w            | label:inner\n"
		     "d0 | th01:worker              | th_timer     |     |           |           | test         | name:test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     "d0 | th01:worker              | th_counter   |     |           |           | test         | name:test2 value:7\n"
		     "d0 | th01:worker              | thread_exit  |     |  0.000000 |  0.000000 |              | \n"
		     "d0 | th02:a_very_long_thread_ | thread_start |     |  0.000000 |           |              | \n"
		     "d0 | th02:a_very_long_thread_ | thread_exit  |     |  0.000000 |  0.000000 |              | \n"
		     PERF_PREFIX "timer        |     |           |           | test         | name:test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     PERF_PREFIX "counter      |     |           |           | test         | name:test2 value:7\n",
		     "{\"event\":\"thread_start\",\"sid\":\"SID\",\"thread\":\"th01:worker\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"th01:worker\",\"nesting\":1,\"category\":\"w\",\"label\":\"inner\"}\n"
		     "{\"event\":\"th_timer\",\"sid\":\"SID\",\"thread\":\"th01:worker\",\"category\":\"test\",\"name\":\"test2\",\"intervals\":1,\"t_total\":0.000000,\"t_min\":0.000000,\"t_max\":0.000000}\n"
		     "{\"event\":\"th_counter\",\"sid\":\"SID\",\"thread\":\"th01:worker\",\"category\":\"test\",\"name\":\"test2\",\"count\":7}\n"
		     "{\"event\":\"thread_exit\",\"sid\":\"SID\",\"thread\":\"th01:worker\",\"t_rel\":0.000000}\n"
		     "{\"event\":\"thread_start\",\"sid\":\"SID\",\"thread\":\"th02:a_very_long_thread_\"}\n"
		     "{\"event\":\"thread_exit\",\"sid\":\"SID\",\"thread\":\"th02:a_very_long_thread_\",\"t_rel\":0.000000}\n"
		     "{\"event\":\"timer\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"intervals\":1,\"t_total\":0.000000,\"t_min\":0.000000,\"t_max\":0.000000}\n"
		     "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"count\":7}\n");
}

/* ------------------------------------------------------------------ */
/* Region stack underflow and the BUG handler.                          */
/* ------------------------------------------------------------------ */

static void sc_underflow(void *arg)
{
	(void)arg;
	trace2_region_leave("c", "extra1", NULL);
	trace2_data_string("c", NULL, "after", "x");
	trace2_region_leave("c", "extra2", NULL);
	trace2_region_enter("c", "again", NULL);
	trace2_region_leave("c", "again", NULL);
}

/* first extra leave: nesting 0; second: BUG through the default handler
 * (stderr line + error event), and the leave itself does nothing */
static void region_underflow_default_bug(void **state)
{
	struct opts o = BRIEF_RUN;

	(void)state;
	o.capture_fd = 2;
	expect_run(&o, sc_underflow, NULL,
		   "error no open regions in thread 'main'\n",
		   PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | c            | label:extra1\n"
		   PERF_PREFIX "data         |     |  0.000000 |  0.000000 | c            | after:x\n"
		   PERF_PREFIX "error        |     |           |           |              | no open regions in thread 'main'\n"
		   PERF_PREFIX "region_enter |     |  0.000000 |           | c            | label:again\n"
		   PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | c            | label:again\n",
		   "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":0,\"category\":\"c\",\"label\":\"extra1\"}\n"
		   "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":0,\"category\":\"c\",\"key\":\"after\",\"value\":\"x\"}\n"
		   "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"msg\":\"no open regions in thread 'main'\",\"fmt\":\"no open regions in thread '%s'\"}\n"
		   "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":0,\"category\":\"c\",\"label\":\"again\"}\n"
		   "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":0,\"category\":\"c\",\"label\":\"again\"}\n");
	expect_text("stderr", o.captured,
		    "BUG: trace2/tr2_tls.c:120: no open regions in thread 'main'\n");
	free(o.captured);
}

static void sc_unterminated_json(void *arg)
{
	struct json_writer jw = JSON_WRITER_INIT;

	(void)arg;
	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "x", 1);
	trace2_data_json("c", NULL, "k", &jw);
	trace2_printf("after");
	jw_release(&jw);
}

/* A writer without jw_end(): the event target raises the BUG (stderr, an
 * error record to every target) and writes no data_json; the perf target,
 * before it, prints the text the writer holds (docs/api.md, "JSON
 * writer"). */
static void data_json_unterminated(void **state)
{
	struct opts o = BRIEF_RUN;

	(void)state;
	o.capture_fd = 2;
	expect_run(&o, sc_unterminated_json, NULL,
		   "error json-writer: object: missing jw_end(): '{\"x\":1'\n"
		   "after\n",
		   PERF_PREFIX "data_json    |     |  0.000000 |  0.000000 | c            | k:{\"x\":1\n"
		   PERF_PREFIX "error        |     |           |           |              | json-writer: object: missing jw_end(): '{\"x\":1'\n"
		   PERF_PREFIX "printf       |     |  0.000000 |           |              | after\n",
		   "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"msg\":\"json-writer: object: missing jw_end(): '{\\\"x\\\":1'\",\"fmt\":\"json-writer: %s: missing jw_end(): '%s'\"}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"after\"}\n");
	assert_non_null(strstr(o.captured, "BUG: targets/tr2_tgt_event.c:"));
	assert_non_null(strstr(o.captured, ": json-writer: object: missing jw_end(): '{\"x\":1'\n"));
	free(o.captured);
}

static int bug_count;
static char bug_file[256], bug_msg[256];
static int bug_line;

static void count_bug(const char *file, int line, const char *fmt, va_list ap)
{
	bug_count++;
	snprintf(bug_file, sizeof(bug_file), "%s", file ? file : "(null)");
	bug_line = line;
	vsnprintf(bug_msg, sizeof(bug_msg), fmt, ap);
}

static void sc_bug_handler(void *arg)
{
	(void)arg;
	trace2_set_bug_handler(count_bug);
	INIT();
	trace2_region_leave("c", "extra1", NULL);
	trace2_region_leave("c", "extra2", NULL);
	trace2_printf("bugs:%d at %s:%d: %s", bug_count, bug_file, bug_line, bug_msg);
	trace2_timer_start(TRACE2_NUMBER_OF_TIMERS);
	trace2_printf("bugs:%d %s", bug_count, bug_msg);
	trace2_timer_stop(TRACE2_NUMBER_OF_TIMERS);
	trace2_printf("bugs:%d %s", bug_count, bug_msg);
	trace2_counter_add(TRACE2_NUMBER_OF_COUNTERS, 1);
	trace2_printf("bugs:%d %s", bug_count, bug_msg);
}

/* a handler replaces the default completely: no stderr, no error event */
static void bug_handler_replaces_default(void **state)
{
	struct opts o = BRIEF_RUN;

	(void)state;
	o.self_init = 1;
	o.capture_fd = 2;
	expect_run(&o, sc_bug_handler, NULL,
		   "bugs:1 at trace2/tr2_tls.c:120: no open regions in thread 'main'\n"
		   "bugs:2 trace2_timer_start: invalid timer id: 2\n"
		   "bugs:3 trace2_timer_stop: invalid timer id: 2\n"
		   "bugs:4 trace2_counter_add: invalid counter id: 6\n",
		   PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | c            | label:extra1\n"
		   PERF_PREFIX "printf       |     |  0.000000 |           |              | bugs:1 at trace2/tr2_tls.c:120: no open regions in thread 'main'\n"
		   PERF_PREFIX "printf       |     |  0.000000 |           |              | bugs:2 trace2_timer_start: invalid timer id: 2\n"
		   PERF_PREFIX "printf       |     |  0.000000 |           |              | bugs:3 trace2_timer_stop: invalid timer id: 2\n"
		   PERF_PREFIX "printf       |     |  0.000000 |           |              | bugs:4 trace2_counter_add: invalid counter id: 6\n",
		   "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":0,\"category\":\"c\",\"label\":\"extra1\"}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"bugs:1 at trace2/tr2_tls.c:120: no open regions in thread 'main'\"}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"bugs:2 trace2_timer_start: invalid timer id: 2\"}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"bugs:3 trace2_timer_stop: invalid timer id: 2\"}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"bugs:4 trace2_counter_add: invalid counter id: 6\"}\n");
	expect_text("stderr", o.captured, "");
	free(o.captured);
}

/* ------------------------------------------------------------------ */
/* Timers and counters.                                                 */
/* ------------------------------------------------------------------ */

static void sc_timers_counters(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 3; i++) {
		trace2_timer_start(TRACE2_TIMER_ID_TEST1);
		trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	}
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, (uint64_t)-5);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 2);
	trace2_counter_add(TRACE2_COUNTER_ID_PACKED_REFS_JUMPS, 2);
	trace2_counter_add(TRACE2_COUNTER_ID_REFTABLE_RESEEKS, 0);
	trace2_counter_add(TRACE2_COUNTER_ID_FSYNC_WRITEOUT_ONLY, 1);
	trace2_counter_add(TRACE2_COUNTER_ID_FSYNC_HARDWARE_FLUSH, 4);
	trace2_cmd_exit(0);
}

/* records at exit: th_timer, th_counter (main used the per-thread ids),
 * then totals in id order; (uint64_t)-5 is 18446744073709551611 / -5 */
static void timers_and_counters(void **state)
{
	(void)state;
	expect_brief(sc_timers_counters,
		     "exit elapsed:0.000000 code:0\n"
		     "th_timer test/test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     "th_counter test/test2 value:3\n"
		     "timer test/test1 intervals:3 total:0.000000 min:0.000000 max:0.000000\n"
		     "timer test/test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     "counter test/test1 value:18446744073709551611\n"
		     "counter test/test2 value:3\n"
		     "counter packed-refs/jumps_made value:2\n"
		     "counter fsync/writeout-only value:1\n"
		     "counter fsync/hardware-flush value:4\n",
		     PERF_PREFIX "exit         |     |  0.000000 |           |              | code:0\n"
		     PERF_PREFIX "th_timer     |     |           |           | test         | name:test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     PERF_PREFIX "th_counter   |     |           |           | test         | name:test2 value:3\n"
		     PERF_PREFIX "timer        |     |           |           | test         | name:test1 intervals:3 total:0.000000 min:0.000000 max:0.000000\n"
		     PERF_PREFIX "timer        |     |           |           | test         | name:test2 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		     PERF_PREFIX "counter      |     |           |           | test         | name:test1 value:18446744073709551611\n"
		     PERF_PREFIX "counter      |     |           |           | test         | name:test2 value:3\n"
		     PERF_PREFIX "counter      |     |           |           | packed-refs  | name:jumps_made value:2\n"
		     PERF_PREFIX "counter      |     |           |           | fsync        | name:writeout-only value:1\n"
		     PERF_PREFIX "counter      |     |           |           | fsync        | name:hardware-flush value:4\n",
		     "{\"event\":\"exit\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"code\":0}\n"
		     "{\"event\":\"th_timer\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"intervals\":1,\"t_total\":0.000000,\"t_min\":0.000000,\"t_max\":0.000000}\n"
		     "{\"event\":\"th_counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"count\":3}\n"
		     "{\"event\":\"timer\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test1\",\"intervals\":3,\"t_total\":0.000000,\"t_min\":0.000000,\"t_max\":0.000000}\n"
		     "{\"event\":\"timer\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"intervals\":1,\"t_total\":0.000000,\"t_min\":0.000000,\"t_max\":0.000000}\n"
		     "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test1\",\"count\":-5}\n"
		     "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"count\":3}\n"
		     "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"packed-refs\",\"name\":\"jumps_made\",\"count\":2}\n"
		     "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"fsync\",\"name\":\"writeout-only\",\"count\":1}\n"
		     "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"fsync\",\"name\":\"hardware-flush\",\"count\":4}\n");
}

static void sc_probe(void *arg)
{
	(void)arg;
	trace2_region_enter("c", "a", NULL);
	trace2_region_enter("c", "b", NULL);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 5);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 0);
	trace2_cmd_exit(0);
}

/* The main thread using per-thread timer and counter ids, with regions
 * left open at exit (docs/api.md, "Timers and counters"). */
static void timers_counters_probe(void **state)
{
	(void)state;
	expect_brief(sc_probe,
		     "exit elapsed:0.000000 code:0\n"
		     "th_counter test/test2 value:5\n"
		     "counter test/test2 value:5\n",
		     PERF_PREFIX "region_enter |     |  0.000000 |           | c            | label:a\n"
		     PERF_PREFIX "region_enter |     |  0.000000 |           | c            | ..label:b\n"
		     PERF_PREFIX "exit         |     |  0.000000 |           |              | ....code:0\n"
		     PERF_PREFIX "th_counter   |     |           |           | test         | name:test2 value:5\n"
		     PERF_PREFIX "counter      |     |           |           | test         | name:test2 value:5\n",
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"c\",\"label\":\"a\"}\n"
		     "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":2,\"category\":\"c\",\"label\":\"b\"}\n"
		     "{\"event\":\"exit\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"code\":0}\n"
		     "{\"event\":\"th_counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"count\":5}\n"
		     "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"category\":\"test\",\"name\":\"test2\",\"count\":5}\n");
}

/* ------------------------------------------------------------------ */
/* Non-brief layout.                                                    */
/* ------------------------------------------------------------------ */

#define F(n) "f.c", n

/* One config entry and one env var for the def_param listings. */
static const char *const LISTING_ENV[] = {
	"GIT_TRACE2_CONFIG_PARAMS=p.*", "GIT_CONFIG_COUNT=1",
	"GIT_CONFIG_KEY_0=p.k", "GIT_CONFIG_VALUE_0=v",
	"GIT_TRACE2_ENV_VARS=T2_VAR", "T2_VAR=x", NULL
};

static void sc_full(void *arg)
{
	const char *argv[] = { "prog", "a b", NULL };
	const char *names[] = { "sh", NULL };
	const char *ls[] = { "ls", NULL };
	struct child_process c = CHILD_PROCESS_INIT;
	struct repository repo = { "/w", 0 };
	struct key_value_info kvi = KVI_INIT;
	struct json_writer jw = JSON_WRITER_INIT;

	(void)arg;
	kvi.scope = CONFIG_SCOPE_GLOBAL;
	c.args.v = ls;
	c.args.nr = 1;
	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "n", 1);
	jw_end(&jw);
	trace2_cmd_start_fl(F(10), argv);
	trace2_cmd_path_fl(F(11), "/bin/prog");
	trace2_cmd_ancestry_fl(F(12), names);
	trace2_cmd_name_fl(F(13), "nm");
	trace2_cmd_mode_fl(F(14), "md");
	trace2_cmd_alias_fl(F(15), "al", ls);
	trace2_cmd_error_fl(F(16), "e %d", 1);
	trace2_def_param_fl(F(17), "dp", "v", &kvi);
	trace2_def_repo_fl(F(18), &repo);
	trace2_child_start_fl(F(19), &c);
	c.pid = 42;
	trace2_child_exit_fl(F(20), &c, 0);
	trace2_child_ready_fl(F(21), &c, "ready");
	CHECK(trace2_exec_fl(F(22), "ex", ls) == 0);
	trace2_exec_result_fl(F(23), 0, 2);
	trace2_thread_start_fl(F(24), "th");
	trace2_data_string_fl(F(25), "c", &repo, "k", "v");
	trace2_data_intmax_fl(F(26), "c", NULL, "n", 5);
	trace2_data_json_fl(F(27), "c", NULL, "j", &jw);
	trace2_region_enter_printf_fl(F(28), "c", "l", &repo, "m%d", 1);
	trace2_region_leave_printf_fl(F(29), "c", "l", &repo, "m%d", 2);
	trace2_thread_exit_fl(F(30));
	trace2_printf_fl(F(31), "p %d", 1);
	t2_printf_va_fl(F(32), "%s", "");
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 1);
	trace2_cmd_exit_fl(F(33), 0);
	jw_release(&jw);
}

/* every event non-brief: normal and perf prefixes, event time/file/line;
 * def_params of cmd_name at trace2.c:439/440, timer/counter/atexit at
 * the pseudo-locations */
static void full_all_events(void **state)
{
	struct opts o = FULL_RUN;

	(void)state;
	o.env = LISTING_ENV;
	expect_run(&o, sc_full, NULL,
		   "00:00:00.000000 f.c:10                            start prog 'a b'\n"
		   "00:00:00.000000 f.c:11                            cmd_path /bin/prog\n"
		   "00:00:00.000000 f.c:12                            cmd_ancestry sh\n"
		   "00:00:00.000000 f.c:13                            cmd_name nm (nm)\n"
		   "00:00:00.000000 trace2.c:439                      def_param scope:command p.k=v\n"
		   "00:00:00.000000 trace2.c:440                      def_param scope:command T2_VAR=x\n"
		   "00:00:00.000000 f.c:14                            cmd_mode md\n"
		   "00:00:00.000000 f.c:15                            alias al -> ls\n"
		   "00:00:00.000000 f.c:16                            error e 1\n"
		   "00:00:00.000000 f.c:17                            def_param scope:global dp=v\n"
		   "00:00:00.000000 f.c:18                            worktree /w\n"
		   "00:00:00.000000 f.c:19                            child_start[0] ls\n"
		   "00:00:00.000000 f.c:20                            child_exit[0] pid:42 code:0 elapsed:0.000000\n"
		   "00:00:00.000000 f.c:21                            child_ready[0] pid:42 ready:ready elapsed:0.000000\n"
		   "00:00:00.000000 f.c:22                            exec[0] ex ls\n"
		   "00:00:00.000000 f.c:23                            exec_result[0] code:2 err:No such file or directory\n"
		   "00:00:00.000000 f.c:31                            p 1\n"
		   "00:00:00.000000 f.c:32                            \n"
		   "00:00:00.000000 f.c:33                            exit elapsed:0.000000 code:0\n"
		   "00:00:00.000000 trace2/tr2_tgt_normal.c:357       timer test/test1 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		   "00:00:00.000000 trace2/tr2_tgt_normal.c:372       counter test/test1 value:1\n",
		   "00:00:00.000000 f.c:10                       | d0 | main                     | start        |     |  0.000000 |           |              | prog 'a b'\n"
		   "00:00:00.000000 f.c:11                       | d0 | main                     | cmd_path     |     |           |           |              | /bin/prog\n"
		   "00:00:00.000000 f.c:12                       | d0 | main                     | cmd_ancestry |     |           |           |              | ancestry:[sh]\n"
		   "00:00:00.000000 f.c:13                       | d0 | main                     | cmd_name     |     |           |           |              | nm (nm)\n"
		   "00:00:00.000000 trace2.c:439                 | d0 | main                     | def_param    |     |           |           | scope:comman | p.k:v\n"
		   "00:00:00.000000 trace2.c:440                 | d0 | main                     | def_param    |     |           |           | scope:comman | T2_VAR:x\n"
		   "00:00:00.000000 f.c:14                       | d0 | main                     | cmd_mode     |     |           |           |              | md\n"
		   "00:00:00.000000 f.c:15                       | d0 | main                     | alias        |     |           |           |              | alias:al argv:[ls]\n"
		   "00:00:00.000000 f.c:16                       | d0 | main                     | error        |     |           |           |              | e 1\n"
		   "00:00:00.000000 f.c:17                       | d0 | main                     | def_param    |     |           |           | scope:global | dp:v\n"
		   "00:00:00.000000 f.c:18                       | d0 | main                     | def_repo     | r1  |           |           |              | worktree:/w\n"
		   "00:00:00.000000 f.c:19                       | d0 | main                     | child_start  |     |  0.000000 |           |              | [ch0] class:? argv:[ls]\n"
		   "00:00:00.000000 f.c:20                       | d0 | main                     | child_exit   |     |  0.000000 |  0.000000 |              | [ch0] pid:42 code:0\n"
		   "00:00:00.000000 f.c:21                       | d0 | main                     | child_ready  |     |  0.000000 |  0.000000 |              | [ch0] pid:42 ready:ready\n"
		   "00:00:00.000000 f.c:22                       | d0 | main                     | exec         |     |  0.000000 |           |              | id:0 argv:[ex ls]\n"
		   "00:00:00.000000 f.c:23                       | d0 | main                     | exec_result  |     |  0.000000 |           |              | id:0 code:2 err:No such file or directory\n"
		   "00:00:00.000000 f.c:24                       | d0 | main                     | region_enter |     |  0.000000 |           |              |  thread-proc on main: th\n"
		   "00:00:00.000000 f.c:25                       | d0 | main                     | data         | r1  |  0.000000 |  0.000000 | c            | ..k:v\n"
		   "00:00:00.000000 f.c:26                       | d0 | main                     | data         |     |  0.000000 |  0.000000 | c            | ..n:5\n"
		   "00:00:00.000000 f.c:27                       | d0 | main                     | data_json    |     |  0.000000 |  0.000000 | c            | ..j:{\"n\":1}\n"
		   "00:00:00.000000 f.c:28                       | d0 | main                     | region_enter | r1  |  0.000000 |           | c            | ..label:l m1\n"
		   "00:00:00.000000 f.c:29                       | d0 | main                     | region_leave | r1  |  0.000000 |  0.000000 | c            | ..label:l m2\n"
		   "00:00:00.000000 f.c:30                       | d0 | main                     | region_leave |     |  0.000000 |  0.000000 |              |  thread-proc on main\n"
		   "00:00:00.000000 f.c:31                       | d0 | main                     | printf       |     |  0.000000 |           |              | p 1\n"
		   "00:00:00.000000 f.c:32                       | d0 | main                     | printf       |     |  0.000000 |           |              | \n"
		   "00:00:00.000000 f.c:33                       | d0 | main                     | exit         |     |  0.000000 |           |              | code:0\n"
		   "00:00:00.000000 trace2/tr2_tgt_perf.c:580    | d0 | main                     | timer        |     |           |           | test         | name:test1 intervals:1 total:0.000000 min:0.000000 max:0.000000\n"
		   "00:00:00.000000 trace2/tr2_tgt_perf.c:596    | d0 | main                     | counter      |     |           |           | test         | name:test1 value:1\n",
		   "{\"event\":\"start\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":10,\"t_abs\":0.000000,\"argv\":[\"prog\",\"a b\"]}\n"
		   "{\"event\":\"cmd_path\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":11,\"path\":\"/bin/prog\"}\n"
		   "{\"event\":\"cmd_ancestry\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":12,\"ancestry\":[\"sh\"]}\n"
		   "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":13,\"name\":\"nm\",\"hierarchy\":\"nm\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"trace2.c\",\"line\":439,\"scope\":\"command\",\"param\":\"p.k\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"trace2.c\",\"line\":440,\"scope\":\"command\",\"param\":\"T2_VAR\",\"value\":\"x\"}\n"
		   "{\"event\":\"cmd_mode\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":14,\"name\":\"md\"}\n"
		   "{\"event\":\"alias\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":15,\"alias\":\"al\",\"argv\":[\"ls\"]}\n"
		   "{\"event\":\"error\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":16,\"msg\":\"e 1\",\"fmt\":\"e %d\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":17,\"scope\":\"global\",\"param\":\"dp\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":18,\"repo\":1,\"worktree\":\"/w\"}\n"
		   "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":19,\"child_id\":0,\"child_class\":\"?\",\"use_shell\":false,\"argv\":[\"ls\"]}\n"
		   "{\"event\":\"child_exit\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":20,\"child_id\":0,\"pid\":42,\"code\":0,\"t_rel\":0.000000}\n"
		   "{\"event\":\"child_ready\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":21,\"child_id\":0,\"pid\":42,\"ready\":\"ready\",\"t_rel\":0.000000}\n"
		   "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":22,\"exec_id\":0,\"exe\":\"ex\",\"argv\":[\"ls\"]}\n"
		   "{\"event\":\"exec_result\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":23,\"exec_id\":0,\"code\":2}\n"
		   "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":24,\"nesting\":1,\"msg\":\"thread-proc on main: th\"}\n"
		   "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":25,\"repo\":1,\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"c\",\"key\":\"k\",\"value\":\"v\"}\n"
		   "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":26,\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"c\",\"key\":\"n\",\"value\":\"5\"}\n"
		   "{\"event\":\"data_json\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":27,\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"c\",\"key\":\"j\",\"value\":{\"n\":1}}\n"
		   "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":28,\"repo\":1,\"nesting\":2,\"category\":\"c\",\"label\":\"l\",\"msg\":\"m1\"}\n"
		   "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":29,\"repo\":1,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"c\",\"label\":\"l\",\"msg\":\"m2\"}\n"
		   "{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":30,\"t_rel\":0.000000,\"nesting\":1,\"msg\":\"thread-proc on main\"}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":31,\"t_abs\":0.000000,\"msg\":\"p 1\"}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":32,\"t_abs\":0.000000,\"msg\":\"\"}\n"
		   "{\"event\":\"exit\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":33,\"t_abs\":0.000000,\"code\":0}\n"
		   "{\"event\":\"timer\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"trace2/tr2_tgt_event.c\",\"line\":657,\"category\":\"test\",\"name\":\"test1\",\"intervals\":1,\"t_total\":0.000000,\"t_min\":0.000000,\"t_max\":0.000000}\n"
		   "{\"event\":\"counter\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"trace2/tr2_tgt_event.c\",\"line\":678,\"category\":\"test\",\"name\":\"test1\",\"count\":1}\n");
}

static void sc_listing_at_caller(void *arg)
{
	(void)arg;
	trace2_cmd_list_config_fl(F(40));
	trace2_cmd_list_env_vars_fl(F(41));
	trace2_cmd_set_config_fl(F(42), "p.set", "w");
	trace2_cmd_name_fl(F(43), "nm");
}

/* listing called by the host (not from cmd_name): the caller's location */
static void full_listing_location(void **state)
{
	struct opts o = FULL_RUN;

	(void)state;
	o.env = LISTING_ENV;
	expect_run(&o, sc_listing_at_caller, NULL,
		   "00:00:00.000000 f.c:40                            def_param scope:command p.k=v\n"
		   "00:00:00.000000 f.c:41                            def_param scope:command T2_VAR=x\n"
		   "00:00:00.000000 f.c:42                            def_param scope:unknown p.set=w\n"
		   "00:00:00.000000 f.c:43                            cmd_name nm (nm)\n",
		   "00:00:00.000000 f.c:40                       | d0 | main                     | def_param    |     |           |           | scope:comman | p.k:v\n"
		   "00:00:00.000000 f.c:41                       | d0 | main                     | def_param    |     |           |           | scope:comman | T2_VAR:x\n"
		   "00:00:00.000000 f.c:42                       | d0 | main                     | def_param    |     |           |           | scope:unknow | p.set:w\n"
		   "00:00:00.000000 f.c:43                       | d0 | main                     | cmd_name     |     |           |           |              | nm (nm)\n",
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":40,\"scope\":\"command\",\"param\":\"p.k\",\"value\":\"v\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":41,\"scope\":\"command\",\"param\":\"T2_VAR\",\"value\":\"x\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":42,\"scope\":\"unknown\",\"param\":\"p.set\",\"value\":\"w\"}\n"
		   "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":43,\"name\":\"nm\",\"hierarchy\":\"nm\"}\n");
}

static void sc_layout(void *arg)
{
	(void)arg;
	trace2_printf_fl("common-init.c", 77, "%s", "short location");
	trace2_printf_fl("abcdefghijklmnopqrstuvwxyz0.c", 123, "%s", "33 chars");
	trace2_printf_fl("abcdefghijklmnopqrstuvwxyz01.c", 123, "%s", "34 chars");
	trace2_printf_fl("abcdefghijklmnopqrstuvwxyz0123.c", 12, "%s", "35 chars");
	trace2_printf_fl("abcdefghijklmnopqrstuv.c", 123, "%s", "28 chars: kept");
	trace2_printf_fl("abcdefghijklmnopqrstuv.c", 1234, "%s", "29 chars: truncated");
	trace2_printf_fl("deep/path/to/some/long/name/source_file.c", 123456, "%s", "long");
	trace2_printf_fl(NULL, 5, "%s", "file == NULL");
	trace2_printf_fl("", 6, "%s", "file empty");
	trace2_printf_fl("f.c", -1, "%s", "negative line");
}

/* normal: payload at column 51, a longer file:line pushes it right;
 * perf: locations over 28 bytes become "..." + the last 25 */
static void full_layout(void **state)
{
	(void)state;
	expect_full(sc_layout,
		    "00:00:00.000000 common-init.c:77                  short location\n"
		    "00:00:00.000000 abcdefghijklmnopqrstuvwxyz0.c:123 33 chars\n"
		    "00:00:00.000000 abcdefghijklmnopqrstuvwxyz01.c:123 34 chars\n"
		    "00:00:00.000000 abcdefghijklmnopqrstuvwxyz0123.c:12 35 chars\n"
		    "00:00:00.000000 abcdefghijklmnopqrstuv.c:123      28 chars: kept\n"
		    "00:00:00.000000 abcdefghijklmnopqrstuv.c:1234     29 chars: truncated\n"
		    "00:00:00.000000 deep/path/to/some/long/name/source_file.c:123456 long\n"
		    "00:00:00.000000                                   file == NULL\n"
		    "00:00:00.000000                                   file empty\n"
		    "00:00:00.000000 f.c:-1                            negative line\n",
		    "00:00:00.000000 common-init.c:77             | d0 | main                     | printf       |     |  0.000000 |           |              | short location\n"
		    "00:00:00.000000 ...ijklmnopqrstuvwxyz0.c:123 | d0 | main                     | printf       |     |  0.000000 |           |              | 33 chars\n"
		    "00:00:00.000000 ...jklmnopqrstuvwxyz01.c:123 | d0 | main                     | printf       |     |  0.000000 |           |              | 34 chars\n"
		    "00:00:00.000000 ...klmnopqrstuvwxyz0123.c:12 | d0 | main                     | printf       |     |  0.000000 |           |              | 35 chars\n"
		    "00:00:00.000000 abcdefghijklmnopqrstuv.c:123 | d0 | main                     | printf       |     |  0.000000 |           |              | 28 chars: kept\n"
		    "00:00:00.000000 ...efghijklmnopqrstuv.c:1234 | d0 | main                     | printf       |     |  0.000000 |           |              | 29 chars: truncated\n"
		    "00:00:00.000000 ...name/source_file.c:123456 | d0 | main                     | printf       |     |  0.000000 |           |              | long\n"
		    "00:00:00.000000                              | d0 | main                     | printf       |     |  0.000000 |           |              | file == NULL\n"
		    "00:00:00.000000                              | d0 | main                     | printf       |     |  0.000000 |           |              | file empty\n"
		    "00:00:00.000000 f.c:-1                       | d0 | main                     | printf       |     |  0.000000 |           |              | negative line\n",
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"common-init.c\",\"line\":77,\"t_abs\":0.000000,\"msg\":\"short location\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"abcdefghijklmnopqrstuvwxyz0.c\",\"line\":123,\"t_abs\":0.000000,\"msg\":\"33 chars\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"abcdefghijklmnopqrstuvwxyz01.c\",\"line\":123,\"t_abs\":0.000000,\"msg\":\"34 chars\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"abcdefghijklmnopqrstuvwxyz0123.c\",\"line\":12,\"t_abs\":0.000000,\"msg\":\"35 chars\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"abcdefghijklmnopqrstuv.c\",\"line\":123,\"t_abs\":0.000000,\"msg\":\"28 chars: kept\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"abcdefghijklmnopqrstuv.c\",\"line\":1234,\"t_abs\":0.000000,\"msg\":\"29 chars: truncated\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"deep/path/to/some/long/name/source_file.c\",\"line\":123456,\"t_abs\":0.000000,\"msg\":\"long\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"t_abs\":0.000000,\"msg\":\"file == NULL\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"t_abs\":0.000000,\"msg\":\"file empty\"}\n"
		    "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":-1,\"t_abs\":0.000000,\"msg\":\"negative line\"}\n");
}

/* ------------------------------------------------------------------ */
/* cmd_ancestry from /proc.                                             */
/* ------------------------------------------------------------------ */

/* The parent chain starting at pid, as trace2_collect_process_info()
 * reads it (docs/api.md, "Process"). */
static size_t read_ancestry(pid_t pid, char names[][64], size_t max)
{
	size_t n = 0;

	while (n < max) {
		char path[64], buf[65], *open, *close, *end;
		size_t got;
		long ppid;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
		f = fopen(path, "r");
		if (!f)
			break;
		got = fread(buf, 1, 64, f);
		fclose(f);
		buf[got] = '\0';
		open = memchr(buf, '(', got);
		close = memrchr(buf, ')', got);
		if (!got || !open || !close || close < open || close + 4 >= buf + got)
			break;
		ppid = strtol(close + 4, &end, 10);
		if (*end != ' ')
			break;
		snprintf(names[n++], 64, "%.*s", (int)(close - open - 1), open + 1);
		if (!ppid)
			break;
		pid = (pid_t)ppid;
	}
	return n;
}

/* Append s shell-quoted (docs/targets.md, "Normal"). */
static void add_qarg(char *out, size_t size, const char *s)
{
	const char *p;
	int plain = *s != '\0';
	size_t n = strlen(out);

	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("+,-./:=@_^", *p)))
			plain = 0;
	if (plain) {
		snprintf(out + n, size - n, "%s", s);
		return;
	}
	n += snprintf(out + n, size - n, "'");
	for (p = s; *p && n < size; p++)
		n += snprintf(out + n, size - n, "%s",
			      *p == '\'' ? "'\\''" : *p == '!' ? "'\\!'" :
			      (char[2]){ *p, 0 });
	snprintf(out + n, size - n, "'");
}

/* Append s as a JSON string (docs/targets.md, "JSON strings"). */
static void add_json_string(char *out, size_t size, const char *s)
{
	size_t n = strlen(out);

	n += snprintf(out + n, size - n, "\"");
	for (; *s && n < size; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			n += snprintf(out + n, size - n, "\\%c", ch);
		else if (ch < 0x20)
			n += snprintf(out + n, size - n, "\\u%04x", ch);
		else
			n += snprintf(out + n, size - n, "%c", ch);
	}
	snprintf(out + n, size - n, "\"");
}

static void sc_process_info(void *arg)
{
	(void)arg;
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_EXIT);
}

/* cmd_ancestry of the real parent chain, brief and at
 * compat/linux/procinfo.c:170; nothing at EXIT, nor at all in the POSIX
 * fallback */
static void process_info(void **state)
{
	char names[64][64];
	size_t n = TR2_HAVE_PROC_STAT ? read_ancestry(getpid(), names, 64) : 0, i;
	char normal[8192] = "", perf[8192] = "", event[8192] = "";
	char nb[8192] = "", pb[8192] = "", eb[8192] = "";
	char nf[8192] = "", pf[8192] = "", ef[8192] = "";

	(void)state;
	T2_SKIP_ON_WINDOWS("the parents come from a process snapshot there "
			   "(tests/process/test_win_process.c)");
	/* qemu-user shows the test its own /proc/<pid>/stat with the
	 * program's name; the library, in a child, reads the parent's from
	 * the kernel, which names the emulator. */
	T2_SKIP_UNDER_EMULATOR("the kernel names this process after the emulator, qemu after the program");
	for (i = 0; i < n; i++) {
		strcat(normal, i ? " <- " : "");
		strcat(normal, names[i]);
		strcat(perf, i ? " " : "");
		add_qarg(perf, sizeof(perf), names[i]);
		strcat(event, i ? "," : "");
		add_json_string(event, sizeof(event), names[i]);
	}
	if (n) {
		snprintf(nb, sizeof(nb), "cmd_ancestry %s\n", normal);
		snprintf(pb, sizeof(pb), PERF_PREFIX "cmd_ancestry |     |           |           |              | ancestry:[%s]\n", perf);
		snprintf(eb, sizeof(eb), EV_SID ",\"ancestry\":[%s]}\n", "cmd_ancestry", event);
		snprintf(nf, sizeof(nf), "00:00:00.000000 compat/linux/procinfo.c:170       %s", nb);
		snprintf(pf, sizeof(pf), "00:00:00.000000 compat/linux/procinfo.c:170  | %s", pb);
		snprintf(ef, sizeof(ef), EV_SID ",\"time\":\"" UTC "\",\"file\":\"compat/linux/procinfo.c\",\"line\":170,\"ancestry\":[%s]}\n",
			 "cmd_ancestry", event);
	}
	expect_brief(sc_process_info, nb, pb, eb);
	expect_full(sc_process_info, nf, pf, ef);
}

/* ------------------------------------------------------------------ */
/* Settings.                                                            */
/* ------------------------------------------------------------------ */

static void sc_nesting(void *arg)
{
	(void)arg;
	trace2_region_enter("n", "l1", NULL);
	trace2_data_string("n", NULL, "d", "2");
	trace2_region_enter("n", "l2", NULL);
	trace2_data_string("n", NULL, "d", "3");
	trace2_region_enter("n", "l3", NULL);
	trace2_data_string("n", NULL, "d", "4");
	trace2_region_leave("n", "l3", NULL);
	trace2_region_leave("n", "l2", NULL);
	trace2_region_leave("n", "l1", NULL);
}

/* The EVENT records of sc_nesting under a nesting limit of 1, 2, 3. */
static const char NESTING_1[] =
	"{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"n\",\"label\":\"l1\"}\n"
	"{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"category\":\"n\",\"label\":\"l1\"}\n";
static const char NESTING_2[] =
	"{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"n\",\"label\":\"l1\"}\n"
	"{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"n\",\"key\":\"d\",\"value\":\"2\"}\n"
	"{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":2,\"category\":\"n\",\"label\":\"l2\"}\n"
	"{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":2,\"category\":\"n\",\"label\":\"l2\"}\n"
	"{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"category\":\"n\",\"label\":\"l1\"}\n";
static const char NESTING_3[] =
	"{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"n\",\"label\":\"l1\"}\n"
	"{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":2,\"category\":\"n\",\"key\":\"d\",\"value\":\"2\"}\n"
	"{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":2,\"category\":\"n\",\"label\":\"l2\"}\n"
	"{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":3,\"category\":\"n\",\"key\":\"d\",\"value\":\"3\"}\n"
	"{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":3,\"category\":\"n\",\"label\":\"l3\"}\n"
	"{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":3,\"category\":\"n\",\"label\":\"l3\"}\n"
	"{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":2,\"category\":\"n\",\"label\":\"l2\"}\n"
	"{\"event\":\"region_leave\",\"sid\":\"SID\",\"thread\":\"main\",\"t_rel\":0.000000,\"nesting\":1,\"category\":\"n\",\"label\":\"l1\"}\n";

/* GIT_TRACE2_EVENT_NESTING: atoi, used only if > 0 (docs/configuration.md) */
static void event_nesting(void **state)
{
	static const struct {
		const char *value;
		const char *event;
	} cases[] = {
		{ "3", NESTING_3 }, { "3x", NESTING_3 }, { "1", NESTING_1 },
		{ "0", NESTING_2 }, { "-1", NESTING_2 }, { "abc", NESTING_2 },
		{ "", NESTING_2 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static char setting[64];
		const char *env[] = { setting, NULL };
		struct opts o = BRIEF_RUN;

		snprintf(setting, sizeof(setting), "GIT_TRACE2_EVENT_NESTING=%s", cases[i].value);
		o.env = env;
		print_message("%s\n", setting);
		expect_run(&o, sc_nesting, NULL, "",
			   PERF_PREFIX "region_enter |     |  0.000000 |           | n            | label:l1\n"
			   PERF_PREFIX "data         |     |  0.000000 |  0.000000 | n            | ..d:2\n"
			   PERF_PREFIX "region_enter |     |  0.000000 |           | n            | ..label:l2\n"
			   PERF_PREFIX "data         |     |  0.000000 |  0.000000 | n            | ....d:3\n"
			   PERF_PREFIX "region_enter |     |  0.000000 |           | n            | ....label:l3\n"
			   PERF_PREFIX "data         |     |  0.000000 |  0.000000 | n            | ......d:4\n"
			   PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | n            | ....label:l3\n"
			   PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | n            | ..label:l2\n"
			   PERF_PREFIX "region_leave |     |  0.000000 |  0.000000 | n            | label:l1\n",
			   cases[i].event);
	}
}

static void sc_one_printf(void *arg)
{
	(void)arg;
	trace2_printf_fl("f.c", 10, "%s", "m");
}

/* Its records, brief and not. */
#define ONE_NORMAL "m\n"
#define ONE_PERF PERF_PREFIX "printf       |     |  0.000000 |           |              | m\n"
#define ONE_EVENT "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"m\"}\n"
#define ONE_NORMAL_FULL "00:00:00.000000 f.c:10                            m\n"
#define ONE_PERF_FULL "00:00:00.000000 f.c:10                       | d0 | main                     | printf       |     |  0.000000 |           |              | m\n"
#define ONE_EVENT_FULL "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":10,\"t_abs\":0.000000,\"msg\":\"m\"}\n"

/* the maybe-bool parser of the three brief flags (docs/configuration.md,
 * "Booleans") */
static void brief_flag_values(void **state)
{
	static const struct {
		const char *value;
		int brief;
	} cases[] = {
		{ "yes", 1 }, { "on", 1 }, { "2", 1 }, { "1k", 1 }, { "0x1", 1 },
		{ " 1", 1 }, { "-1", 1 }, { "TRUE", 1 }, { "1g", 1 },
		{ "abc", 0 }, { "no", 0 }, { "0", 0 }, { "OFF", 0 }, { "1x", 0 },
		{ "2g", 0 }, { "", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static char n[64], p[64], e[64];
		const char *env[] = { n, p, e, NULL };
		struct opts o = BRIEF_RUN;

		snprintf(n, sizeof(n), "GIT_TRACE2_BRIEF=%s", cases[i].value);
		snprintf(p, sizeof(p), "GIT_TRACE2_PERF_BRIEF=%s", cases[i].value);
		snprintf(e, sizeof(e), "GIT_TRACE2_EVENT_BRIEF=%s", cases[i].value);
		print_message("brief flags \"%s\"\n", cases[i].value);
		o.env = env;
		o.full = !cases[i].brief;
		if (cases[i].brief)
			expect_run(&o, sc_one_printf, NULL, ONE_NORMAL, ONE_PERF, ONE_EVENT);
		else
			expect_run(&o, sc_one_printf, NULL, ONE_NORMAL_FULL,
				   ONE_PERF_FULL, ONE_EVENT_FULL);
	}
}

/* Every event-emitting entry point, called while tracing is off: nothing
 * is emitted, no id assigned, no macro argument evaluated (except
 * trace2_cmd_exit's, exactly once). */
static void region_va(int leave, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (leave)
		trace2_region_leave_printf_va_fl(NULL, 0, "c", "l", NULL, fmt, ap);
	else
		trace2_region_enter_printf_va_fl(NULL, 0, "c", "l", NULL, fmt, ap);
	va_end(ap);
}

static void call_everything(void)
{
	const char *argv[] = { "x", NULL };
	struct repository repo = { "/w", 0 };
	struct child_process c = CHILD_PROCESS_INIT;
	struct key_value_info kvi = KVI_INIT;
	struct json_writer jw = JSON_WRITER_INIT;
	int n = 0;

	c.args.v = argv;
	c.args.nr = 1;
	c.trace2_child_id = 42;
	jw_object_begin(&jw, 0);
	jw_end(&jw);
	CHECK(!trace2_is_enabled());
	trace2_cmd_start(argv);
	trace2_cmd_start_fl(F(1), argv);
	CHECK(trace2_cmd_exit(++n) == 1 && n == 1);
	CHECK(trace2_cmd_exit_fl(F(1), 5) == 5);
	trace2_cmd_error("e %d", ++n);
	trace2_cmd_error_fl(F(1), "e");
	t2_error_va("e");
	trace2_cmd_path("/p");
	trace2_cmd_path_fl(F(1), "/p");
	trace2_cmd_ancestry(argv);
	trace2_cmd_ancestry_fl(F(1), argv);
	trace2_cmd_name("a");
	trace2_cmd_name_fl(F(1), "a");
	trace2_cmd_mode("m");
	trace2_cmd_mode_fl(F(1), "m");
	trace2_cmd_alias("a", argv);
	trace2_cmd_alias_fl(F(1), "a", argv);
	trace2_cmd_list_config();
	trace2_cmd_list_config_fl(F(1));
	trace2_cmd_list_env_vars();
	trace2_cmd_list_env_vars_fl(F(1));
	trace2_cmd_set_config("k", "v");
	trace2_cmd_set_config_fl(F(1), "k", "v");
	trace2_def_param("k", "v", &kvi);
	trace2_def_param_fl(F(1), "k", "v", &kvi);
	trace2_def_repo(&repo);
	trace2_def_repo_fl(F(1), &repo);
	CHECK(repo.trace2_repo_id == 0);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	trace2_child_start(&c);
	trace2_child_start_fl(F(1), &c);
	CHECK(c.trace2_child_id == 42 && c.trace2_child_us_start == 0);
	trace2_child_exit(&c, 0);
	trace2_child_exit_fl(F(1), &c, 0);
	trace2_child_ready(&c, "ready");
	trace2_child_ready_fl(F(1), &c, "ready");
	CHECK(trace2_exec("x", argv) == -1);
	CHECK(trace2_exec_fl(F(1), "x", argv) == -1);
	trace2_exec_result(0, 2);
	trace2_exec_result_fl(F(1), 0, 2);
	trace2_thread_start("t");
	trace2_thread_start_fl(F(1), "t");
	trace2_thread_exit();
	trace2_thread_exit_fl(F(1));
	trace2_region_enter("c", "l", &repo);
	trace2_region_enter_fl(F(1), "c", "l", &repo);
	trace2_region_enter_printf("c", "l", &repo, "%d", ++n);
	trace2_region_enter_printf_fl(F(1), "c", "l", &repo, "x");
	t2_enter_va("c", "l", NULL, "x");
	region_va(0, "x");
	trace2_region_leave("c", "l", &repo);
	trace2_region_leave_fl(F(1), "c", "l", &repo);
	trace2_region_leave_printf("c", "l", &repo, "%d", ++n);
	trace2_region_leave_printf_fl(F(1), "c", "l", &repo, "x");
	t2_leave_va("c", "l", NULL, "x");
	region_va(1, "x");
	trace2_data_string("c", &repo, "k", "v");
	trace2_data_string_fl(F(1), "c", &repo, "k", "v");
	trace2_data_intmax("c", &repo, "k", ++n);
	trace2_data_intmax_fl(F(1), "c", &repo, "k", 1);
	trace2_data_json("c", &repo, "k", &jw);
	trace2_data_json_fl(F(1), "c", &repo, "k", &jw);
	trace2_printf("%d", ++n);
	trace2_printf_fl(F(1), "x");
	t2_printf_va("x");
	t2_printf_va_fl(F(1), "x");
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	(trace2_timer_start)(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	(trace2_timer_stop)(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, ++n);
	(trace2_counter_add)(TRACE2_COUNTER_ID_TEST1, 1);
	CHECK(n == 1);
	CHECK(!trace2_is_enabled());
	jw_release(&jw);
}

static void sc_disabled(void *arg)
{
	(void)arg;
	call_everything();
}

/* "0", "false" (any case) and "" switch a target off; with no target on,
 * tracing stays off */
static void targets_off(void **state)
{
	static const char *const off[] = {
		"GIT_TRACE2=0", "GIT_TRACE2_PERF=false", "GIT_TRACE2_EVENT=", NULL
	};
	static const char *const off2[] = {
		"GIT_TRACE2=FALSE", "GIT_TRACE2_PERF=0", "GIT_TRACE2_EVENT=False", NULL
	};
	static const char *const normal_off[] = { "GIT_TRACE2=0", NULL };
	const char *const *envs[] = { off, off2 };
	struct opts o = BRIEF_RUN;
	struct t2_out out;
	size_t i;

	(void)state;
	assert_int_equal(t2_run(sc_disabled, NULL, NULL), 0);
	assert_int_equal(t2_run(sc_disabled, NULL, off), 0);
	for (i = 0; i < 2; i++) {
		t2_run_all(sc_disabled, NULL, envs[i], &out);
		assert_int_equal(out.status, 0);
		expect_text("normal", out.normal, "");
		expect_text("perf", out.perf, "");
		expect_text("event", out.event, "");
		t2_out_free(&out);
	}
	o.env = normal_off;
	expect_run(&o, sc_one_printf, NULL, NULL, ONE_PERF, ONE_EVENT);
}

static void sc_before_init(void *arg)
{
	const char *argv[] = { "x", NULL };
	struct repository repo = { "/w", 0 };
	struct child_process c = CHILD_PROCESS_INIT;

	(void)arg;
	c.args.v = argv;
	c.args.nr = 1;
	call_everything();
	INIT();
	CHECK(trace2_is_enabled());
	trace2_cmd_name("b");
	CHECK(trace2_exec("x", argv) == 0);
	trace2_def_repo(&repo);
	CHECK(repo.trace2_repo_id == 1);
	trace2_child_start(&c);
	CHECK(c.trace2_child_id == 0);
}

/* calls before trace2_initialize(): no output, no ids, no cmd_name
 * hierarchy, no once-only listing used up, no exit code, no counters */
static void before_initialize(void **state)
{
	static const char *const env[] = {
		"GIT_TRACE2_ENV_VARS=T2_VAR", "T2_VAR=x", NULL
	};
	struct opts o = BRIEF_RUN;

	(void)state;
	o.env = env;
	o.self_init = 1;
	expect_run(&o, sc_before_init, NULL,
		   "cmd_name b (b)\n"
		   "def_param scope:command T2_VAR=x\n"
		   "exec[0] x x\n"
		   "worktree /w\n"
		   "child_start[0] x\n",
		   PERF_PREFIX "cmd_name     |     |           |           |              | b (b)\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:comman | T2_VAR:x\n"
		   PERF_PREFIX "exec         |     |  0.000000 |           |              | id:0 argv:[x x]\n"
		   PERF_PREFIX "def_repo     | r1  |           |           |              | worktree:/w\n"
		   PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch0] class:? argv:[x]\n",
		   "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"b\",\"hierarchy\":\"b\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"T2_VAR\",\"value\":\"x\"}\n"
		   "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":0,\"exe\":\"x\",\"argv\":[\"x\"]}\n"
		   "{\"event\":\"def_repo\",\"sid\":\"SID\",\"thread\":\"main\",\"repo\":1,\"worktree\":\"/w\"}\n"
		   "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":0,\"child_class\":\"?\",\"use_shell\":false,\"argv\":[\"x\"]}\n");
}

/* GIT_TRACE2=1 and "2", "true" are stderr, one target after the other
 * for each event; a single digit is that fd */
static void fd_targets(void **state)
{
	static const char *const to_stderr[] = {
		"GIT_TRACE2=1", "GIT_TRACE2_PERF=2", "GIT_TRACE2_EVENT=true", NULL
	};
	static const char *const to_fd9[] = { "GIT_TRACE2_EVENT=9", NULL };
	struct opts o = BRIEF_RUN;

	(void)state;
	o.env = to_stderr;
	o.capture_fd = 2;
	expect_run(&o, sc_one_printf, NULL, NULL, NULL, NULL);
	expect_text("stderr", o.captured,
		    VERSION_NORMAL VERSION_PERF VERSION_EVENT
		    ONE_NORMAL ONE_PERF ONE_EVENT
		    ATEXIT_NORMAL(0) ATEXIT_PERF(0) ATEXIT_EVENT(0));
	free(o.captured);
	o.env = to_fd9;
	o.capture_fd = 9;
	expect_run(&o, sc_one_printf, NULL, ONE_NORMAL, ONE_PERF, NULL);
	expect_text("fd 9", o.captured, VERSION_EVENT ONE_EVENT ATEXIT_EVENT(0));
	check_event_keys(o.captured, 0);
	free(o.captured);
}

/* A directory target whose directory already holds max-files entries
 * ("." and ".." count): the EVENT target writes into the discard sentinel,
 * with "too_many_files" right after "version" (docs/configuration.md,
 * "Max files"). */
static void too_many_files(void **state)
{
	static char target[4200];
	static const char *const env[] = { target, "GIT_TRACE2_MAX_FILES=3", NULL };
	char *dir = t2_tmpdir(), *other = t2_path(dir, "other"), *sentinel, *raw, *text;
	struct opts o = BRIEF_RUN;
	FILE *f = fopen(other, "w");
	size_t i;

	(void)state;
	assert_non_null(f);
	fclose(f);
	snprintf(target, sizeof(target), "GIT_TRACE2_EVENT=%s", dir);
	for (i = 0; i < 2; i++) {
		o = i ? FULL_RUN : BRIEF_RUN;
		o.env = env;
		if (i)
			expect_run(&o, sc_one_printf, NULL, ONE_NORMAL_FULL, ONE_PERF_FULL, NULL);
		else
			expect_run(&o, sc_one_printf, NULL, ONE_NORMAL, ONE_PERF, NULL);
		sentinel = t2_path(dir, "git-trace2-discard");
		raw = t2_read_file(sentinel, NULL);
		assert_non_null(raw);
		text = t2_scrub(raw);
		expect_text("sentinel", text, i ?
			    FULL_VERSION_EVENT "{\"event\":\"too_many_files\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"i.c\",\"line\":1}\n" ONE_EVENT_FULL FULL_ATEXIT_EVENT(0) :
			    VERSION_EVENT "{\"event\":\"too_many_files\",\"sid\":\"SID\",\"thread\":\"main\"}\n" ONE_EVENT ATEXIT_EVENT(0));
		check_event_keys(text, (int)i);
		unlink(sentinel);
		free(sentinel);
		free(raw);
		free(text);
	}
	t2_rmtree(dir);
	free(dir);
	free(other);
}

static void sc_sigpipe(void *arg)
{
	sigset_t set;

	(void)arg;
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	INIT();
	trace2_region_enter_fl(F(50), "c", "open", NULL);
	raise(SIGPIPE);
	CHECK(!"SIGPIPE did not end the process");
}

/* SIGPIPE: "signal" record, then the default action (no atexit) */
static void signal_event(void **state)
{
	T2_SKIP_ON_WINDOWS("no SIGPIPE: the signal record of a POSIX signal");
	struct opts o = BRIEF_RUN;

	(void)state;
	o.self_init = 1;
	o.signo = SIGPIPE;
	expect_run(&o, sc_sigpipe, NULL,
		   "signal elapsed:0.000000 code:13\n",
		   PERF_PREFIX "region_enter |     |  0.000000 |           | c            | label:open\n"
		   PERF_PREFIX "signal       |     |  0.000000 |           |              | ..signo:13\n",
		   "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"nesting\":1,\"category\":\"c\",\"label\":\"open\"}\n"
		   "{\"event\":\"signal\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"signo\":13}\n");
	o.full = 1;
	expect_run(&o, sc_sigpipe, NULL,
		   "00:00:00.000000 trace2/tr2_tgt_normal.c:118       signal elapsed:0.000000 code:13\n",
		   "00:00:00.000000 f.c:50                       | d0 | main                     | region_enter |     |  0.000000 |           | c            | label:open\n"
		   "00:00:00.000000 trace2/tr2_tgt_perf.c:207    | d0 | main                     | signal       |     |  0.000000 |           |              | ..signo:13\n",
		   "{\"event\":\"region_enter\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"f.c\",\"line\":50,\"nesting\":1,\"category\":\"c\",\"label\":\"open\"}\n"
		   "{\"event\":\"signal\",\"sid\":\"SID\",\"thread\":\"main\",\"time\":\"2000-01-01T00:00:00.000000Z\",\"file\":\"trace2/tr2_tgt_event.c\",\"line\":191,\"t_abs\":0.000000,\"signo\":13}\n");
}

static void sc_null_strings(void *arg)
{
	const char *argv[] = { "x", NULL };
	struct child_process c = CHILD_PROCESS_INIT;

	(void)arg;
	trace2_cmd_path(NULL);
	trace2_cmd_mode(NULL);
	trace2_cmd_alias(NULL, argv);
	trace2_child_ready(&c, NULL);
	trace2_def_param(NULL, "v", NULL);
	trace2_data_string(NULL, NULL, NULL, NULL);
}

/* docs/api.md, "Rules that apply to every call": where Git prints
 * "(null)" we do, where it crashes we print "(null)" / JSON null; a NULL
 * data category leaves the perf column empty as in Git */
static void null_strings(void **state)
{
	(void)state;
	expect_brief(sc_null_strings,
		     "cmd_path (null)\n"
		     "cmd_mode (null)\n"
		     "alias (null) -> x\n"
		     "child_ready[0] pid:0 ready:(null) elapsed:0.000000\n"
		     "def_param scope:unknown (null)=v\n",
		     PERF_PREFIX "cmd_path     |     |           |           |              | (null)\n"
		     PERF_PREFIX "cmd_mode     |     |           |           |              | (null)\n"
		     PERF_PREFIX "alias        |     |           |           |              | alias:(null) argv:[x]\n"
		     PERF_PREFIX "child_ready  |     |  0.000000 |  0.000000 |              | [ch0] pid:0 ready:(null)\n"
		     PERF_PREFIX "def_param    |     |           |           | scope:unknow | (null):v\n"
		     PERF_PREFIX "data         |     |  0.000000 |  0.000000 |              | (null):(null)\n",
		     "{\"event\":\"cmd_path\",\"sid\":\"SID\",\"thread\":\"main\",\"path\":null}\n"
		     "{\"event\":\"cmd_mode\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":null}\n"
		     "{\"event\":\"alias\",\"sid\":\"SID\",\"thread\":\"main\",\"alias\":null,\"argv\":[\"x\"]}\n"
		     "{\"event\":\"child_ready\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":0,\"pid\":0,\"ready\":null,\"t_rel\":0.000000}\n"
		     "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":null,\"value\":\"v\"}\n"
		     "{\"event\":\"data\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"t_rel\":0.000000,\"nesting\":1,\"category\":null,\"key\":null,\"value\":null}\n");
}

/* ------------------------------------------------------------------ */
/* URL redaction (docs/configuration.md, "URL passwords").             */
/* ------------------------------------------------------------------ */

static void sc_redact(void *arg)
{
	const char *argv[] = {
		"git", "https://user:pwd@example.com/", "https://u:p@h", "https://:@h",
		"https://u:@h", "https://u:p@", "http://u:p:q@h", "http://a@b/c",
		"https://h/p:q@r", "HTTPS://u:p@h", "x.y=https://u:p@h", NULL
	};
	const char *url[] = { "fetch", "https://u:p@h", NULL };
	struct child_process c = CHILD_PROCESS_INIT;

	(void)arg;
	c.args.v = url;
	c.args.nr = 2;
	c.dir = "https://d:p@h";
	c.git_cmd = 1;
	trace2_cmd_start(argv);
	trace2_child_start(&c);
	CHECK(c.args.v == url && !strcmp(url[1], "https://u:p@h"));
	trace2_exec("https://e:p@h", url);
	trace2_def_param("remote.origin.url", "https://u:p@h/x", NULL);
	trace2_cmd_set_config("remote.x.url", "https://u:p@h");
	trace2_cmd_name("n");
	trace2_cmd_alias("al", url);
	trace2_printf("%s", "https://u:p@h");
}

#define REDACT_ENV "GIT_TRACE2_CONFIG_PARAMS=remote.*", \
	"GIT_TRACE2_ENV_VARS=URL_VAR", "URL_VAR=https://u:p@h"

/* start, child_start (args, not dir), exec (exe and argv), def_param
 * (all three sources) and alias are redacted (Git leaves HTTPS://,
 * x.y=https://, exe and alias); printf and dir are not; REDACT=0 and
 * REDACT= (empty is false) turn it off */
static void redaction(void **state)
{
	static const char *const on[] = { REDACT_ENV, NULL };
	static const char *const off0[] = { REDACT_ENV, "GIT_TRACE2_REDACT=0", NULL };
	static const char *const off_empty[] = { REDACT_ENV, "GIT_TRACE2_REDACT=", NULL };
	const char *const *off[] = { off0, off_empty };
	struct opts o = BRIEF_RUN;
	size_t i;

	(void)state;
	o.env = on;
	expect_run(&o, sc_redact, NULL,
		   "start git 'https://user:<REDACTED>@example.com/' 'https://u:<REDACTED>@h' 'https://:<REDACTED>@h' 'https://u:<REDACTED>@h' 'https://u:<REDACTED>@' 'http://u:<REDACTED>@h' http://a@b/c https://h/p:q@r 'HTTPS://u:<REDACTED>@h' 'x.y=https://u:<REDACTED>@h'\n"
		   "child_start[0] cd https://d:p@h; git fetch 'https://u:<REDACTED>@h'\n"
		   "exec[0] https://e:<REDACTED>@h fetch 'https://u:<REDACTED>@h'\n"
		   "def_param scope:unknown remote.origin.url=https://u:<REDACTED>@h/x\n"
		   "def_param scope:unknown remote.x.url=https://u:<REDACTED>@h\n"
		   "cmd_name n (n)\n"
		   "def_param scope:command URL_VAR=https://u:<REDACTED>@h\n"
		   "alias al -> fetch 'https://u:<REDACTED>@h'\n"
		   "https://u:p@h\n",
		   PERF_PREFIX "start        |     |  0.000000 |           |              | git 'https://user:<REDACTED>@example.com/' 'https://u:<REDACTED>@h' 'https://:<REDACTED>@h' 'https://u:<REDACTED>@h' 'https://u:<REDACTED>@' 'http://u:<REDACTED>@h' http://a@b/c https://h/p:q@r 'HTTPS://u:<REDACTED>@h' 'x.y=https://u:<REDACTED>@h'\n"
		   PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch0] class:? cd:https://d:p@h argv:[git fetch 'https://u:<REDACTED>@h']\n"
		   PERF_PREFIX "exec         |     |  0.000000 |           |              | id:0 argv:[https://e:<REDACTED>@h fetch 'https://u:<REDACTED>@h']\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:unknow | remote.origin.url:https://u:<REDACTED>@h/x\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:unknow | remote.x.url:https://u:<REDACTED>@h\n"
		   PERF_PREFIX "cmd_name     |     |           |           |              | n (n)\n"
		   PERF_PREFIX "def_param    |     |           |           | scope:comman | URL_VAR:https://u:<REDACTED>@h\n"
		   PERF_PREFIX "alias        |     |           |           |              | alias:al argv:[fetch 'https://u:<REDACTED>@h']\n"
		   PERF_PREFIX "printf       |     |  0.000000 |           |              | https://u:p@h\n",
		   "{\"event\":\"start\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"argv\":[\"git\",\"https://user:<REDACTED>@example.com/\",\"https://u:<REDACTED>@h\",\"https://:<REDACTED>@h\",\"https://u:<REDACTED>@h\",\"https://u:<REDACTED>@\",\"http://u:<REDACTED>@h\",\"http://a@b/c\",\"https://h/p:q@r\",\"HTTPS://u:<REDACTED>@h\",\"x.y=https://u:<REDACTED>@h\"]}\n"
		   "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":0,\"child_class\":\"?\",\"cd\":\"https://d:p@h\",\"use_shell\":false,\"argv\":[\"git\",\"fetch\",\"https://u:<REDACTED>@h\"]}\n"
		   "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":0,\"exe\":\"https://e:<REDACTED>@h\",\"argv\":[\"fetch\",\"https://u:<REDACTED>@h\"]}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"remote.origin.url\",\"value\":\"https://u:<REDACTED>@h/x\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"remote.x.url\",\"value\":\"https://u:<REDACTED>@h\"}\n"
		   "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"n\",\"hierarchy\":\"n\"}\n"
		   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"URL_VAR\",\"value\":\"https://u:<REDACTED>@h\"}\n"
		   "{\"event\":\"alias\",\"sid\":\"SID\",\"thread\":\"main\",\"alias\":\"al\",\"argv\":[\"fetch\",\"https://u:<REDACTED>@h\"]}\n"
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"https://u:p@h\"}\n");
	for (i = 0; i < 2; i++) {
		o.env = off[i];
		print_message("%s\n", off[i][3]);
		expect_run(&o, sc_redact, NULL,
			   "start git https://user:pwd@example.com/ https://u:p@h https://:@h https://u:@h https://u:p@ http://u:p:q@h http://a@b/c https://h/p:q@r HTTPS://u:p@h x.y=https://u:p@h\n"
			   "child_start[0] cd https://d:p@h; git fetch https://u:p@h\n"
			   "exec[0] https://e:p@h fetch https://u:p@h\n"
			   "def_param scope:unknown remote.origin.url=https://u:p@h/x\n"
			   "def_param scope:unknown remote.x.url=https://u:p@h\n"
			   "cmd_name n (n)\n"
			   "def_param scope:command URL_VAR=https://u:p@h\n"
			   "alias al -> fetch https://u:p@h\n"
			   "https://u:p@h\n",
			   PERF_PREFIX "start        |     |  0.000000 |           |              | git https://user:pwd@example.com/ https://u:p@h https://:@h https://u:@h https://u:p@ http://u:p:q@h http://a@b/c https://h/p:q@r HTTPS://u:p@h x.y=https://u:p@h\n"
			   PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch0] class:? cd:https://d:p@h argv:[git fetch https://u:p@h]\n"
			   PERF_PREFIX "exec         |     |  0.000000 |           |              | id:0 argv:[https://e:p@h fetch https://u:p@h]\n"
			   PERF_PREFIX "def_param    |     |           |           | scope:unknow | remote.origin.url:https://u:p@h/x\n"
			   PERF_PREFIX "def_param    |     |           |           | scope:unknow | remote.x.url:https://u:p@h\n"
			   PERF_PREFIX "cmd_name     |     |           |           |              | n (n)\n"
			   PERF_PREFIX "def_param    |     |           |           | scope:comman | URL_VAR:https://u:p@h\n"
			   PERF_PREFIX "alias        |     |           |           |              | alias:al argv:[fetch https://u:p@h]\n"
			   PERF_PREFIX "printf       |     |  0.000000 |           |              | https://u:p@h\n",
			   "{\"event\":\"start\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"argv\":[\"git\",\"https://user:pwd@example.com/\",\"https://u:p@h\",\"https://:@h\",\"https://u:@h\",\"https://u:p@\",\"http://u:p:q@h\",\"http://a@b/c\",\"https://h/p:q@r\",\"HTTPS://u:p@h\",\"x.y=https://u:p@h\"]}\n"
			   "{\"event\":\"child_start\",\"sid\":\"SID\",\"thread\":\"main\",\"child_id\":0,\"child_class\":\"?\",\"cd\":\"https://d:p@h\",\"use_shell\":false,\"argv\":[\"git\",\"fetch\",\"https://u:p@h\"]}\n"
			   "{\"event\":\"exec\",\"sid\":\"SID\",\"thread\":\"main\",\"exec_id\":0,\"exe\":\"https://e:p@h\",\"argv\":[\"fetch\",\"https://u:p@h\"]}\n"
			   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"remote.origin.url\",\"value\":\"https://u:p@h/x\"}\n"
			   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"unknown\",\"param\":\"remote.x.url\",\"value\":\"https://u:p@h\"}\n"
			   "{\"event\":\"cmd_name\",\"sid\":\"SID\",\"thread\":\"main\",\"name\":\"n\",\"hierarchy\":\"n\"}\n"
			   "{\"event\":\"def_param\",\"sid\":\"SID\",\"thread\":\"main\",\"scope\":\"command\",\"param\":\"URL_VAR\",\"value\":\"https://u:p@h\"}\n"
			   "{\"event\":\"alias\",\"sid\":\"SID\",\"thread\":\"main\",\"alias\":\"al\",\"argv\":[\"fetch\",\"https://u:p@h\"]}\n"
			   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"https://u:p@h\"}\n");
	}
}

/*
 * Beyond Git (docs/configuration.md, "URL passwords"): a password in a URL
 * of any scheme, anywhere in a string, is redacted in every record that
 * carries an argument vector or a command path: start, cmd_path, alias,
 * child_start, exec (exe and argv) and def_param.  Each case runs the
 * string `in` through all of them; `out` is how it must show, `q` the
 * same as the NORMAL and PERF targets quote an argument (both by hand).
 */
struct redact_case {
	const char *in, *out, *q;
};

static void sc_redact_everywhere(void *arg)
{
	const char *in = arg;
	const char *start[] = { "git", in, NULL }, *alias[] = { in, NULL };
	const char *args[] = { "fetch", in, NULL };
	struct child_process c = CHILD_PROCESS_INIT;

	c.args.v = args;
	c.args.nr = 2;
	c.git_cmd = 1;
	trace2_cmd_start(start);
	trace2_cmd_path(in);
	trace2_cmd_alias("al", alias);
	trace2_child_start(&c);
	CHECK(c.args.v == args && args[1] == in);
	trace2_exec(in, args);
	trace2_def_param("url", in, NULL);
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	assert_true(vasprintf(&s, fmt, ap) >= 0);
	va_end(ap);
	return s;
}

static void expect_redacted(const struct redact_case *c)
{
	struct opts o = BRIEF_RUN;
	const char *o_ = c->out, *q = c->q;
	char *normal, *perf, *event;

	print_message("%.60s -> %.60s\n", c->in, c->out);
	normal = xasprintf("start git %s\n"
			   "cmd_path %s\n"
			   "alias al -> %s\n"
			   "child_start[0] git fetch %s\n"
			   "exec[0] %s fetch %s\n"
			   "def_param scope:unknown url=%s\n",
			   q, o_, q, q, o_, q, o_);
	perf = xasprintf(PERF_PREFIX "start        |     |  0.000000 |           |              | git %s\n"
			 PERF_PREFIX "cmd_path     |     |           |           |              | %s\n"
			 PERF_PREFIX "alias        |     |           |           |              | alias:al argv:[%s]\n"
			 PERF_PREFIX "child_start  |     |  0.000000 |           |              | [ch0] class:? argv:[git fetch %s]\n"
			 PERF_PREFIX "exec         |     |  0.000000 |           |              | id:0 argv:[%s fetch %s]\n"
			 PERF_PREFIX "def_param    |     |           |           | scope:unknow | url:%s\n",
			 q, o_, q, q, o_, q, o_);
	event = xasprintf(EV_SID ",\"t_abs\":0.000000,\"argv\":[\"git\",\"%s\"]}\n"
			  EV_SID ",\"path\":\"%s\"}\n"
			  EV_SID ",\"alias\":\"al\",\"argv\":[\"%s\"]}\n"
			  EV_SID ",\"child_id\":0,\"child_class\":\"?\",\"use_shell\":false,\"argv\":[\"git\",\"fetch\",\"%s\"]}\n"
			  EV_SID ",\"exec_id\":0,\"exe\":\"%s\",\"argv\":[\"fetch\",\"%s\"]}\n"
			  EV_SID ",\"scope\":\"unknown\",\"param\":\"url\",\"value\":\"%s\"}\n",
			  "start", o_, "cmd_path", o_, "alias", o_, "child_start", o_,
			  "exec", o_, o_, "def_param", o_);
	expect_run(&o, sc_redact_everywhere, (void *)c->in, normal, perf, event);
	free(normal);
	free(perf);
	free(event);
}

static void expect_redacted_cases(const struct redact_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_redacted(&c[i]);
}

#define REDACT_CASES(...) do {                                              \
		static const struct redact_case cases_[] = { __VA_ARGS__ };   \
		(void)state;                                                  \
		expect_redacted_cases(cases_, sizeof(cases_) / sizeof(cases_[0])); \
	} while (0)

/* Git compares the scheme case-sensitively: HTTPS:// leaked. */
static void redact_uppercase_scheme(void **state)
{
	REDACT_CASES({ "HTTPS://u:p@h", "HTTPS://u:<REDACTED>@h", "'HTTPS://u:<REDACTED>@h'" },
		     { "Http://u:p@h/x", "Http://u:<REDACTED>@h/x", "'Http://u:<REDACTED>@h/x'" });
}

static void redact_ssh_scheme(void **state)
{
	REDACT_CASES({ "ssh://git:tok@host:22/r.git", "ssh://git:<REDACTED>@host:22/r.git",
		       "'ssh://git:<REDACTED>@host:22/r.git'" });
}

static void redact_ftp_scheme(void **state)
{
	REDACT_CASES({ "ftp://u:p@h/f", "ftp://u:<REDACTED>@h/f", "'ftp://u:<REDACTED>@h/f'" });
}

/* Any scheme of letters, digits, '+', '-' and '.' before "://". */
static void redact_any_scheme(void **state)
{
	REDACT_CASES({ "git+https://u:p@h", "git+https://u:<REDACTED>@h",
		       "'git+https://u:<REDACTED>@h'" },
		     { "svn+ssh://u:p@h", "svn+ssh://u:<REDACTED>@h", "'svn+ssh://u:<REDACTED>@h'" },
		     { "x-y.2://u:p@h", "x-y.2://u:<REDACTED>@h", "'x-y.2://u:<REDACTED>@h'" });
}

static void redact_option_url(void **state)
{
	REDACT_CASES({ "--url=https://u:p@h", "--url=https://u:<REDACTED>@h",
		       "'--url=https://u:<REDACTED>@h'" },
		     { "x.y=https://u:p@h", "x.y=https://u:<REDACTED>@h",
		       "'x.y=https://u:<REDACTED>@h'" });
}

/* After other text, and two URLs in one argument. */
static void redact_url_after_text(void **state)
{
	REDACT_CASES({ "see https://u:p@h and ftp://a:b@c/d",
		       "see https://u:<REDACTED>@h and ftp://a:<REDACTED>@c/d",
		       "'see https://u:<REDACTED>@h and ftp://a:<REDACTED>@c/d'" },
		     { "remote=(https://u:p@h)", "remote=(https://u:<REDACTED>@h)",
		       "'remote=(https://u:<REDACTED>@h)'" });
}

/* Git redacts the argv of start, child_start and exec, but not exec's
 * exe, alias's argv nor cmd_path's path. */
static void redact_exe_alias_and_path(void **state)
{
	REDACT_CASES({ "https://e:p@h", "https://e:<REDACTED>@h", "'https://e:<REDACTED>@h'" });
}

/* The user-info ends at the last '@' of the authority (which ends at the
 * first '/', '?' or '#'): Git showed RET6 of the password SEC@RET6. */
static void redact_password_with_at(void **state)
{
	REDACT_CASES({ "https://f:SEC@RET6@host", "https://f:<REDACTED>@host",
		       "'https://f:<REDACTED>@host'" },
		     { "https://f:a@b@c/p@q", "https://f:<REDACTED>@c/p@q",
		       "'https://f:<REDACTED>@c/p@q'" },
		     { "https://f:a@b@c?x@y", "https://f:<REDACTED>@c?x@y",
		       "'https://f:<REDACTED>@c?x@y'" },
		     { "https://f:a@b@c#x@y", "https://f:<REDACTED>@c#x@y",
		       "'https://f:<REDACTED>@c#x@y'" });
}

/*
 * What must not change: arguments without a password, byte for byte, and
 * Git's own cases (the table of docs/configuration.md, "URL passwords"),
 * exactly as Git shows them.
 */
static void redact_keeps_the_rest(void **state)
{
	REDACT_CASES({ "plain", "plain", "plain" },
		     { "http://a@b/c", "http://a@b/c", "http://a@b/c" },
		     { "https://h/p:q@r", "https://h/p:q@r", "https://h/p:q@r" },
		     { "ssh://host/r.git", "ssh://host/r.git", "ssh://host/r.git" },
		     { "://u:p@h", "://u:p@h", "://u:p@h" },
		     { "mailto:u:p@h", "mailto:u:p@h", "mailto:u:p@h" },
		     { "https://h/?q=a:b@c", "https://h/?q=a:b@c", "'https://h/?q=a:b@c'" },
		     { "https://user:pwd@example.com/", "https://user:<REDACTED>@example.com/",
		       "'https://user:<REDACTED>@example.com/'" },
		     { "https://u:p@h", "https://u:<REDACTED>@h", "'https://u:<REDACTED>@h'" },
		     { "https://:@h", "https://:<REDACTED>@h", "'https://:<REDACTED>@h'" },
		     { "https://u:@h", "https://u:<REDACTED>@h", "'https://u:<REDACTED>@h'" },
		     { "https://u:p@", "https://u:<REDACTED>@", "'https://u:<REDACTED>@'" },
		     { "http://u:p:q@h", "http://u:<REDACTED>@h", "'http://u:<REDACTED>@h'" },
		     /* not an authority's '@', but Git redacts up to it */
		     { "https://h?a:b@c", "https://h?a:<REDACTED>@c", "'https://h?a:<REDACTED>@c'" });
}

#define HUGE_PATH (1 << 20)

/* A 1 MiB argument is redacted whole, never cut (its copy outgrows the
 * stack); so are more arguments with passwords than fit there. */
static void redact_huge_argument(void **state)
{
	char *path = malloc(HUGE_PATH + 1), *in, *out, *q;
	struct redact_case c;

	(void)state;
	memset(path, 'x', HUGE_PATH);
	path[HUGE_PATH] = '\0';
	in = xasprintf("https://u:p@h/%s ssh://v:q@k", path);
	out = xasprintf("https://u:<REDACTED>@h/%s ssh://v:<REDACTED>@k", path);
	q = xasprintf("'%s'", out);
	c = (struct redact_case){ in, out, q };
	expect_redacted(&c);
	free(path);
	free(in);
	free(out);
	free(q);
}

#define MANY_ARGS 40

static void sc_many_passwords(void *arg)
{
	const char *argv[MANY_ARGS + 1];
	size_t i;

	(void)arg;
	for (i = 0; i < MANY_ARGS; i++)
		argv[i] = i % 2 ? "https://u:p@h" : "a";
	argv[MANY_ARGS] = NULL;
	trace2_cmd_start(argv);
}

static void redact_many_arguments(void **state)
{
	char normal[MANY_ARGS * 32] = "start", perf[sizeof(normal) + 128], event[MANY_ARGS * 32];
	struct opts o = BRIEF_RUN;
	size_t i, n;

	(void)state;
	n = (size_t)snprintf(event, sizeof(event), EV_SID ",\"t_abs\":0.000000,\"argv\":[", "start");
	for (i = 0; i < MANY_ARGS; i++) {
		strcat(normal, i % 2 ? " 'https://u:<REDACTED>@h'" : " a");
		n += (size_t)snprintf(event + n, sizeof(event) - n, "%s%s", i ? "," : "",
				      i % 2 ? "\"https://u:<REDACTED>@h\"" : "\"a\"");
	}
	snprintf(event + n, sizeof(event) - n, "]}\n");
	snprintf(perf, sizeof(perf), PERF_PREFIX "start        |     |  0.000000 |           "
		 "|              | %s\n", normal + 6);
	strcat(normal, "\n");
	expect_run(&o, sc_many_passwords, NULL, normal, perf, event);
}

/* Memory runs out when the region stack must grow: no region beyond it
 * is traced, nor its leave, so what is written stays balanced. */
static void *no_memory(size_t n)
{
	(void)n;
	return NULL;
}

/* The next allocation fails, the later ones work. */
static int fail_next_malloc;

static void *malloc_failing_once(size_t n)
{
	if (fail_next_malloc) {
		fail_next_malloc = 0;
		return NULL;
	}
	return malloc(n);
}

/* A redacted copy too big for the stack, without memory for it (but with
 * memory to write the record): the record is dropped, never written
 * unredacted nor cut. */
static void sc_redact_without_memory(void *arg)
{
	const char *big = arg, *argv[] = { "git", big, NULL };

	tr2_sys.malloc = malloc_failing_once;
	fail_next_malloc = 1;
	trace2_cmd_start(argv);
	fail_next_malloc = 1;
	trace2_cmd_path(big);
	fail_next_malloc = 1;
	trace2_exec(big, argv);
	trace2_printf("after");
	tr2_sys_reset();
}

static void redact_without_memory_drops_record(void **state)
{
	struct opts o = BRIEF_RUN;
	char *path = malloc(HUGE_PATH + 1), *big;

	(void)state;
	memset(path, 'x', HUGE_PATH);
	path[HUGE_PATH] = '\0';
	big = xasprintf("%s https://u:p@h", path);
	expect_run(&o, sc_redact_without_memory, big, "after\n",
		   PERF_PREFIX "printf       |     |  0.000000 |           |              | after\n",
		   "{\"event\":\"printf\",\"sid\":\"SID\",\"thread\":\"main\",\"t_abs\":0.000000,\"msg\":\"after\"}\n");
	free(path);
	free(big);
}

static void sc_stack_cannot_grow(void *arg)
{
	int i;

	(void)arg;
	tr2_sys.malloc = no_memory;
	for (i = 0; i < 40; i++)
		trace2_region_enter("deep", "r", NULL);
	for (i = 0; i < 40; i++)
		trace2_region_leave("deep", "r", NULL);
	trace2_printf("after");
	tr2_sys_reset();
}

static size_t count_lines_with(const char *text, const char *word)
{
	size_t n = 0;
	const char *p = text;

	while ((p = strstr(p, word))) {
		n++;
		p += strlen(word);
	}
	return n;
}

static void region_stack_cannot_grow(void **state)
{
	static const char *const env[] = {
		"GIT_TRACE2_PERF_BRIEF=1", "GIT_TRACE2_EVENT_NESTING=100", NULL
	};
	struct t2_out out;

	(void)state;
	t2_run_all(sc_stack_cannot_grow, NULL, env, &out);
	assert_int_equal(out.status, 0);
	/* the stack holds the thread's start and 31 regions inline */
	assert_int_equal(count_lines_with(out.perf, "| region_enter |"), 31);
	assert_int_equal(count_lines_with(out.perf, "| region_leave |"), 31);
	assert_int_equal(count_lines_with(out.event, "\"region_enter\""), 31);
	assert_int_equal(count_lines_with(out.event, "\"region_leave\""), 31);
	assert_non_null(strstr(out.perf, "| printf       |     |  0.000000 |           |              | after\n"));
	assert_null(strstr(out.perf, "BUG"));
	assert_non_null(strstr(out.event, "\"nesting\":31,\"category\":\"deep\""));
	assert_null(strstr(out.event, "\"nesting\":32"));
	t2_out_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(start_quotes_arguments),
		cmocka_unit_test(traceparent_recorded),
		cmocka_unit_test(region_stack_cannot_grow),
		cmocka_unit_test(data_json_unterminated),
		cmocka_unit_test(cmd_events),
		cmocka_unit_test(errors),
		cmocka_unit_test(cmd_name_hierarchy),
		cmocka_unit_test(children),
		cmocka_unit_test(exec_events),
		cmocka_unit_test(def_param),
		cmocka_unit_test(def_repo),
		cmocka_unit_test(regions_nest_and_filter),
		cmocka_unit_test(region_forms),
		cmocka_unit_test(data_events),
		cmocka_unit_test(printf_events),
		cmocka_unit_test(thread_on_main),
		cmocka_unit_test(threads),
		cmocka_unit_test(region_underflow_default_bug),
		cmocka_unit_test(bug_handler_replaces_default),
		cmocka_unit_test(timers_and_counters),
		cmocka_unit_test(timers_counters_probe),
		cmocka_unit_test(full_all_events),
		cmocka_unit_test(full_listing_location),
		cmocka_unit_test(full_layout),
		cmocka_unit_test(process_info),
		cmocka_unit_test(event_nesting),
		cmocka_unit_test(brief_flag_values),
		cmocka_unit_test(targets_off),
		cmocka_unit_test(before_initialize),
		cmocka_unit_test(fd_targets),
		cmocka_unit_test(too_many_files),
		cmocka_unit_test(signal_event),
		cmocka_unit_test(null_strings),
		cmocka_unit_test(redaction),
		cmocka_unit_test(redact_uppercase_scheme),
		cmocka_unit_test(redact_ssh_scheme),
		cmocka_unit_test(redact_ftp_scheme),
		cmocka_unit_test(redact_any_scheme),
		cmocka_unit_test(redact_option_url),
		cmocka_unit_test(redact_url_after_text),
		cmocka_unit_test(redact_exe_alias_and_path),
		cmocka_unit_test(redact_password_with_at),
		cmocka_unit_test(redact_keeps_the_rest),
		cmocka_unit_test(redact_huge_argument),
		cmocka_unit_test(redact_many_arguments),
		cmocka_unit_test(redact_without_memory_drops_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
