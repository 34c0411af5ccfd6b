/*
 * The process model through the test driver (build/bin/trace2-tool, run as
 * "trace2-tool trace2 <subcommand>"): child chains sharing files and a
 * directory, exec, URL redaction, configParams and envVars listing.
 * The rules: docs/configuration.md ("Target values", "Parent SID and
 * name", "URL passwords", "Config files", "Lists: configParams and
 * envVars"), docs/embedding.md ("fork() and exec()"); the subcommands
 * are those of tests/driver/trace2-tool.c.
 *
 * Expected output is built as a table of records (depth, event, texts for
 * the three targets) and rendered per target, for all processes or for
 * one depth; actual output is compared after scrubbing times and SIDs,
 * dropping cmd_ancestry lines and replacing child pids by "PID".  The
 * JSON of the EVENT target is checked structurally as well: SID chains,
 * pids, ancestry, keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "tjson.h"

#define MAX_ARGS 48
#define MAX_RECS 96
#define MAX_ENV 48
#define MAX_DEPTH 8
#define VERSION "V" /* the driver's version string in every run */

#define SID_COMPONENT_RE "^[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-(H[0-9a-f]{8}|Localhost)-P[0-9a-f]{8}$"
#define UTC_RE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$"
/* Non-brief prefixes: NORMAL up to column 50, PERF up to "| d". */
#define NORMAL_PREFIX_RE "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} [^ ]+:[0-9]+ +"
#define NORMAL_PREFIX_LEN 50
#define PERF_PREFIX_RE "^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} [^ |]+:[0-9]+ *\\| "
#define PERF_PREFIX_LEN 47
/* What the non-brief EVENT target adds to every record, once scrubbed. */
#define EVENT_NONBRIEF_RE ",\"time\":\"2000-01-01T00:00:00\\.000000Z\",\"file\":\"[^\"]*\",\"line\":[0-9]+"

static const char *const BRIEF[] = {
	"GIT_TRACE2_BRIEF=1", "GIT_TRACE2_PERF_BRIEF=1", "GIT_TRACE2_EVENT_BRIEF=1", NULL
};

/* ------------------------------------------------------------------ */
/* Small utilities                                                     */
/* ------------------------------------------------------------------ */

static const char *driver(void)
{
	static char *path;

	if (!path)
		path = t2_path(t2_bin_dir(), "trace2-tool");
	return path;
}

/* out = a followed by b (both NULL-terminated, either may be NULL). */
static void envcat(const char **out, const char *const *a, const char *const *b)
{
	size_t n = 0;

	for (; a && *a; a++)
		out[n++] = *a;
	for (; b && *b; b++)
		out[n++] = *b;
	assert_true(n < MAX_ENV);
	out[n] = NULL;
}

static int is_safe_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("+,-./:=@_^", c));
}

/* Shell quoting of one word (docs/targets.md, "Normal"), appended to *buf. */
static void append_qarg(char **buf, const char *s)
{
	const char *p;

	for (p = s; *p && is_safe_byte((unsigned char)*p); p++)
		;
	if (*s && !*p) {
		t2_append(buf, "%s", s);
		return;
	}
	t2_append(buf, "'");
	for (p = s; *p; p++) {
		if (*p == '\'')
			t2_append(buf, "'\\''");
		else if (*p == '!')
			t2_append(buf, "'\\!'");
		else
			t2_append(buf, "%c", *p);
	}
	t2_append(buf, "'");
}

typedef void append_fn(char **buf, const char *s);

/* open, then every argv[i] appended by fn with sep between them, then
 * close; caller frees. */
static char *join_argv(const char *const *argv, const char *open, const char *sep,
		       const char *close, append_fn *fn)
{
	char *s = strdup(open);

	for (size_t i = 0; argv[i]; i++) {
		if (i)
			t2_append(&s, "%s", sep);
		fn(&s, argv[i]);
	}
	t2_append(&s, "%s", close);
	return s;
}

/* argv pretty-quoted and joined by spaces ("" for an empty list). */
static char *qargv(const char *const *argv)
{
	return join_argv(argv, "", " ", "", append_qarg);
}

/* A JSON string for s; the tests only use printable ASCII. */
static void append_jstr(char **buf, const char *s)
{
	t2_append(buf, "\"");
	for (; *s; s++) {
		assert_true((unsigned char)*s >= 0x20);
		t2_append(buf, "%s%c", *s == '"' || *s == '\\' ? "\\" : "", *s);
	}
	t2_append(buf, "\"");
}

static char *jstr(const char *s)
{
	char *out = NULL;

	append_jstr(&out, s);
	return out;
}

/* argv as a JSON array of strings. */
static char *jargv(const char *const *argv)
{
	return join_argv(argv, "[", ",", "]", append_jstr);
}

/* "trace2" repeated depth + 1 times, joined by '/'. */
static char *hierarchy(int depth)
{
	char *s = strdup("trace2");

	for (int i = 0; i < depth; i++)
		t2_append(&s, "/trace2");
	return s;
}

/* ------------------------------------------------------------------ */
/* Running the driver                                                  */
/* ------------------------------------------------------------------ */

struct run {
	char *normal, *perf, *event; /* raw target files ("" if absent) */
	char *err;                   /* stderr */
	int code;                    /* exit code, -1 if killed */
};

struct cmd {
	const char *cwd;
	const char *argv[MAX_ARGS];
};

static void exec_cmd(void *arg)
{
	struct cmd *c = arg;

	if (c->cwd && chdir(c->cwd))
		_exit(125);
	execv(c->argv[0], (char *const *)c->argv);
	_exit(127);
}

static char *read_or_empty(const char *dir, const char *name)
{
	char *path = t2_path(dir, name), *text = t2_read_file(path, NULL);

	free(path);
	return text ? text : strdup("");
}

/*
 * Run argv (argv[0] is the program) in cwd (NULL: ours) with the three
 * targets writing into files of a fresh directory, T2TOOL_VERSION=V, then
 * env (which may override the targets).
 */
static void run_argv(struct run *r, const char *const *env, const char *cwd,
		     const char *const *argv)
{
	char *dir = t2_tmpdir();
	char *vn = t2_xfmt("GIT_TRACE2=%s/normal", dir), *vp = t2_xfmt("GIT_TRACE2_PERF=%s/perf", dir),
	     *ve = t2_xfmt("GIT_TRACE2_EVENT=%s/event", dir);
	const char *base[] = { vn, vp, ve, "T2TOOL_VERSION=" VERSION, NULL };
	const char *all[MAX_ENV];
	struct cmd c = { .cwd = cwd };
	struct t2_proc p;
	size_t n;

	assert_non_null(dir);
	envcat(all, base, env);
	for (n = 0; argv[n]; n++) {
		assert_true(n + 1 < MAX_ARGS);
		c.argv[n] = argv[n];
	}
	c.argv[n] = NULL;
	t2_capture(exec_cmd, &c, all, 20, &p);
	r->code = WIFEXITED(p.status) ? WEXITSTATUS(p.status) : -1;
	r->err = p.err;
	free(p.out);
	r->normal = read_or_empty(dir, "normal");
	r->perf = read_or_empty(dir, "perf");
	r->event = read_or_empty(dir, "event");
	t2_rmtree(dir);
	free(dir);
	free(vn);
	free(vp);
	free(ve);
}

/* run_argv() of "<driver> trace2 <words...>" (NULL-terminated words). */
static void run_tool(struct run *r, const char *const *env, const char *cwd, ...)
	__attribute__((sentinel));
static void run_tool(struct run *r, const char *const *env, const char *cwd, ...)
{
	const char *argv[MAX_ARGS];
	size_t n = 0;
	va_list ap;

	argv[n++] = driver();
	argv[n++] = "trace2";
	va_start(ap, cwd);
	while ((argv[n] = va_arg(ap, const char *)))
		assert_true(++n < MAX_ARGS);
	va_end(ap);
	run_argv(r, env, cwd, argv);
}

static void run_free(struct run *r)
{
	free(r->normal);
	free(r->perf);
	free(r->event);
	free(r->err);
}

/* ------------------------------------------------------------------ */
/* Expected records                                                    */
/* ------------------------------------------------------------------ */

struct rec {
	int depth;
	const char *event;
	int abs, rel;     /* PERF t_abs / t_rel columns filled */
	const char *scope; /* def_param scope (PERF category "scope:<s>") */
	char *normal;     /* NORMAL brief payload; NULL: not written */
	char *perf;       /* PERF payload */
	char *json;       /* EVENT keys after the common ones */
};

struct expect {
	struct rec r[MAX_RECS];
	size_t n;
};

static void add(struct expect *x, int depth, const char *event, int abs, int rel,
		const char *cat, char *normal, char *perf, char *json)
{
	assert_true(x->n < MAX_RECS);
	x->r[x->n++] = (struct rec){ depth, event, abs, rel, cat, normal, perf, json };
}

static void expect_free(struct expect *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->r[i].normal);
		free(x->r[i].perf);
		free(x->r[i].json);
	}
	x->n = 0;
}

static void add_start(struct expect *x, int d, const char *const *argv)
{
	char *q = qargv(argv), *j = jargv(argv);

	add(x, d, "start", 1, 0, NULL, t2_xfmt("start %s", q), t2_xfmt("%s", q),
	    t2_xfmt("\"t_abs\":0.000000,\"argv\":%s", j));
	free(q);
	free(j);
}

/* version, start and cmd_name of the driver at depth d. */
static void host_begin(struct expect *x, int d, const char *const *argv)
{
	char *h = hierarchy(d);

	add(x, d, "version", 0, 0, NULL, t2_xfmt("version " VERSION), t2_xfmt(VERSION),
	    t2_xfmt("\"evt\":\"4\",\"exe\":\"" VERSION "\""));
	add_start(x, d, argv);
	add(x, d, "cmd_name", 0, 0, NULL, t2_xfmt("cmd_name trace2 (%s)", h),
	    t2_xfmt("trace2 (%s)", h), t2_xfmt("\"name\":\"trace2\",\"hierarchy\":\"%s\"", h));
	free(h);
}

static void add_exit_like(struct expect *x, int d, const char *event, int code)
{
	add(x, d, event, 1, 0, NULL, t2_xfmt("%s elapsed:0.000000 code:%d", event, code),
	    t2_xfmt("code:%d", code), t2_xfmt("\"t_abs\":0.000000,\"code\":%d", code));
}

/* exit and atexit with the given code. */
static void host_end(struct expect *x, int d, int code)
{
	add_exit_like(x, d, "exit", code);
	add_exit_like(x, d, "atexit", code);
}

static void add_child_start(struct expect *x, int d, const char *const *args)
{
	char *q = qargv(args), *j = jargv(args);

	add(x, d, "child_start", 1, 0, NULL, t2_xfmt("child_start[0] %s", q),
	    t2_xfmt("[ch0] class:? argv:[%s]", q),
	    t2_xfmt("\"child_id\":0,\"child_class\":\"?\",\"use_shell\":false,\"argv\":%s", j));
	free(q);
	free(j);
}

static void add_child_exit(struct expect *x, int d, int code)
{
	add(x, d, "child_exit", 1, 1, NULL,
	    t2_xfmt("child_exit[0] pid:PID code:%d elapsed:0.000000", code),
	    t2_xfmt("[ch0] pid:PID code:%d", code),
	    t2_xfmt("\"child_id\":0,\"pid\":PID,\"code\":%d,\"t_rel\":0.000000", code));
}

static void add_exec(struct expect *x, int d, const char *exe, const char *const *argv)
{
	char *q = qargv(argv), *j = jargv(argv), *je = jstr(exe);

	add(x, d, "exec", 1, 0, NULL, t2_xfmt("exec[0] %s %s", exe, q),
	    t2_xfmt("id:0 argv:[%s %s]", exe, q),
	    t2_xfmt("\"exec_id\":0,\"exe\":%s,\"argv\":%s", je, j));
	free(q);
	free(j);
	free(je);
}

static void add_def_param(struct expect *x, int d, const char *scope, const char *param,
			  const char *value)
{
	char *jp = jstr(param), *jv = value ? jstr(value) : NULL;

	add(x, d, "def_param", 0, 0, NULL,
	    t2_xfmt("def_param scope:%s %s%s%s", scope, param, value ? "=" : "", value ? value : ""),
	    t2_xfmt("%s%s%s", param, value ? ":" : "", value ? value : ""),
	    t2_xfmt("\"scope\":\"%s\",\"param\":%s%s%s", scope, jp, jv ? ",\"value\":" : "",
		 jv ? jv : ""));
	/* PERF shows the scope in the category column (cut to 12 there). */
	x->r[x->n - 1].scope = scope;
	free(jp);
	free(jv);
}

static void add_error(struct expect *x, int d, const char *msg, const char *fmt)
{
	char *jm = jstr(msg), *jf = jstr(fmt);

	add(x, d, "error", 0, 0, NULL, t2_xfmt("error %s", msg), t2_xfmt("%s", msg),
	    t2_xfmt("\"msg\":%s,\"fmt\":%s", jm, jf));
	free(jm);
	free(jf);
}

/* ------------------------------------------------------------------ */
/* Rendering the expectation, normalising the actual output            */
/* ------------------------------------------------------------------ */

/* Whether record r belongs to the wanted depth (-1: every depth). */
static int wanted(const struct rec *r, int depth)
{
	return depth < 0 || r->depth == depth;
}

static char *render_normal(const struct expect *x, int depth)
{
	char *s = strdup(""), *out;

	for (size_t i = 0; i < x->n; i++)
		if (wanted(&x->r[i], depth) && x->r[i].normal)
			t2_append(&s, "%s\n", x->r[i].normal);
	out = t2_scrub(s);
	free(s);
	return out;
}

static char *render_perf(const struct expect *x, int depth)
{
	char *s = strdup(""), *out;

	for (size_t i = 0; i < x->n; i++) {
		const struct rec *r = &x->r[i];
		char cat[32] = "";

		if (!wanted(r, depth))
			continue;
		if (r->scope)
			snprintf(cat, sizeof(cat), "scope:%s", r->scope);
		t2_append(&s, "d%d | %-24s | %-12s |     | %9s | %9s | %-12.12s | %s\n",
			  r->depth, "main", r->event, r->abs ? "0.000000" : "",
			  r->rel ? "0.000000" : "", cat, r->perf);
	}
	out = t2_scrub(s);
	free(s);
	return out;
}

/* brief: "time" on version and atexit only (docs/targets.md, "Event");
 * otherwise
 * no "time" at all (the non-brief keys are cut from the actual text). */
static char *render_event(const struct expect *x, int depth, int brief)
{
	char *s = strdup(""), *out;

	for (size_t i = 0; i < x->n; i++) {
		const struct rec *r = &x->r[i];
		int timed = brief && (!strcmp(r->event, "version") || !strcmp(r->event, "atexit"));
		char *sid = hierarchy(r->depth), *sids = t2_replace(sid, "trace2", "SID");

		if (wanted(r, depth))
			t2_append(&s, "{\"event\":\"%s\",\"sid\":\"%s\",\"thread\":\"main\"%s%s%s}\n",
				  r->event, sids,
				  timed ? ",\"time\":\"2000-01-01T00:00:00.000000Z\"" : "",
				  *r->json ? "," : "", r->json);
		free(sid);
		free(sids);
	}
	out = t2_scrub(s);
	free(s);
	return out;
}

/* Times and SIDs scrubbed, cmd_ancestry dropped, child pids -> PID. */
static char *norm(const char *raw)
{
	char *a = t2_drop_lines(raw, "cmd_ancestry"), *b = t2_scrub(a),
	     *c = t2_regsub(b, "pid:[0-9]+", "pid:PID"),
	     *d = t2_regsub(c, "\"pid\":[0-9]+", "\"pid\":PID");

	free(a);
	free(b);
	free(c);
	return d;
}

/* Every line must start with a prefix matching re that is exactly len
 * bytes long; returns the text with those prefixes removed. */
static char *strip_prefixes(const char *text, const char *re, size_t len)
{
	char **lines = t2_lines(text, NULL), *out = strdup("");
	regex_t rx;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED), 0);
	for (size_t i = 0; lines[i]; i++) {
		regmatch_t m;

		if (regexec(&rx, lines[i], 1, &m, 0) || (size_t)m.rm_eo != len)
			fail_msg("bad non-brief prefix: '%s'", lines[i]);
		t2_append(&out, "%s\n", lines[i] + len);
	}
	regfree(&rx);
	t2_strv_free(lines);
	return out;
}

static void assert_same(char *actual, char *expected)
{
	assert_string_equal(actual, expected);
	free(actual);
	free(expected);
}

/* All three targets ran brief: compare each with the expectation. */
static void assert_brief_outputs(const struct expect *x, const struct run *r)
{
	assert_same(norm(r->normal), render_normal(x, -1));
	assert_same(norm(r->perf), render_perf(x, -1));
	assert_same(norm(r->event), render_event(x, -1, 1));
}

/* Non-brief outputs: prefixes checked and cut, then compared. */
static void assert_nonbrief_outputs(const struct expect *x, const struct run *r)
{
	char *n = norm(r->normal), *p = norm(r->perf), *e = norm(r->event);

	assert_same(strip_prefixes(n, NORMAL_PREFIX_RE, NORMAL_PREFIX_LEN),
		    render_normal(x, -1));
	assert_same(strip_prefixes(p, PERF_PREFIX_RE, PERF_PREFIX_LEN), render_perf(x, -1));
	assert_same(t2_regsub(e, EVENT_NONBRIEF_RE, ""), render_event(x, -1, 0));
	free(n);
	free(p);
	free(e);
}

/* ------------------------------------------------------------------ */
/* EVENT records as JSON                                               */
/* ------------------------------------------------------------------ */

struct evs {
	struct tjson **v;
	size_t n;
};

/* Every line of text must be one JSON object. */
static void parse_events(const char *text, struct evs *e)
{
	char **lines = t2_lines(text, &e->n);

	e->v = calloc(e->n + 1, sizeof(*e->v));
	for (size_t i = 0; i < e->n; i++) {
		const char *err = NULL;

		e->v[i] = tjson_parse(lines[i], strlen(lines[i]), &err);
		if (!e->v[i] || e->v[i]->type != TJSON_OBJECT)
			fail_msg("event line %zu is no JSON object (%s): %s", i, err, lines[i]);
	}
	t2_strv_free(lines);
}

static void evs_free(struct evs *e)
{
	for (size_t i = 0; i < e->n; i++)
		tjson_free(e->v[i]);
	free(e->v);
}

static const char *ev_str(const struct tjson *ev, const char *key)
{
	const char *s = tjson_get_str(ev, key);

	if (!s)
		fail_msg("event without string \"%s\"", key);
	return s;
}

static long ev_int(const struct tjson *ev, const char *key)
{
	const struct tjson *v = tjson_get(ev, key);

	if (!v || v->type != TJSON_NUMBER || strpbrk(v->text, ".eE"))
		fail_msg("event without integer \"%s\"", key);
	return strtol(v->text, NULL, 10);
}

static int sid_depth(const char *sid)
{
	int d = 0;

	for (; *sid; sid++)
		d += *sid == '/';
	return d;
}

/* The pid in the last SID component ("-P%08x"). */
static long sid_pid(const char *sid)
{
	const char *p = strrchr(sid, 'P');

	assert_non_null(p);
	return strtol(p + 1, NULL, 16);
}

/*
 * The SIDs by depth: one per depth 0..levels-1, each one component more
 * than its parent (docs/configuration.md, "Parent SID and name"),
 * components well formed.
 */
static void collect_sids(const struct evs *e, int levels, const char **sid)
{
	for (int d = 0; d < MAX_DEPTH; d++)
		sid[d] = NULL;
	for (size_t i = 0; i < e->n; i++) {
		const char *s = ev_str(e->v[i], "sid");
		int d = sid_depth(s);

		assert_in_range(d, 0, levels - 1);
		if (!sid[d])
			sid[d] = s;
		assert_string_equal(s, sid[d]);
	}
	for (int d = 0; d < levels; d++) {
		const char *own = d ? sid[d] + strlen(sid[d - 1]) + 1 : sid[d];

		assert_non_null(sid[d]);
		if (d) {
			assert_memory_equal(sid[d], sid[d - 1], strlen(sid[d - 1]));
			assert_int_equal(sid[d][strlen(sid[d - 1])], '/');
		}
		if (!t2_matches(own, SID_COMPONENT_RE))
			fail_msg("bad SID component '%s'", own);
	}
}

/* Every child_exit at depth d names the pid of the process at d + 1. */
static void check_child_pids(const struct evs *e, const char *const *sid)
{
	size_t seen = 0;

	for (size_t i = 0; i < e->n; i++) {
		const char *s = ev_str(e->v[i], "sid");

		if (strcmp(ev_str(e->v[i], "event"), "child_exit"))
			continue;
		assert_int_equal(ev_int(e->v[i], "pid"), sid_pid(sid[sid_depth(s) + 1]));
		seen++;
	}
	assert_true(seen > 0);
}

/* A child at depth d has d driver processes as its nearest ancestors. */
static void check_ancestry(const struct evs *e)
{
	size_t seen = 0;

	if (t2_emulator()) {
		print_message("ancestry names not checked under %s: the kernel names "
			      "the drivers after it\n", t2_emulator());
		return;
	}
	for (size_t i = 0; i < e->n; i++) {
		const struct tjson *a = tjson_get(e->v[i], "ancestry");
		int d = sid_depth(ev_str(e->v[i], "sid"));

		if (strcmp(ev_str(e->v[i], "event"), "cmd_ancestry"))
			continue;
		seen++;
		assert_non_null(a);
		assert_true(a->type == TJSON_ARRAY && a->n >= (size_t)d);
		for (int k = 0; k < d; k++)
			assert_string_equal(a->items[k]->text, T2_PROGRAM("trace2-tool"));
	}
	/* one per process, or none in the POSIX fallback */
	assert_true(T2_HAVE_ANCESTRY ? seen > 0 : seen == 0);
}

/* Non-brief EVENT: time, file and line on every record. */
static void check_nonbrief_keys(const struct evs *e)
{
	for (size_t i = 0; i < e->n; i++) {
		if (!t2_matches(ev_str(e->v[i], "time"), UTC_RE))
			fail_msg("bad time in record %zu", i);
		assert_true(*ev_str(e->v[i], "file"));
		assert_true(ev_int(e->v[i], "line") > 0);
	}
}

/* The SID tree of a child chain of the given number of levels. */
static void check_chain_json(const char *event_text, int levels, int nonbrief)
{
	const char *sid[MAX_DEPTH];
	struct evs e;

	parse_events(event_text, &e);
	collect_sids(&e, levels, sid);
	check_child_pids(&e, sid);
	check_ancestry(&e);
	if (nonbrief)
		check_nonbrief_keys(&e);
	evs_free(&e);
}

/* ------------------------------------------------------------------ */
/* Child chains                                                        */
/* ------------------------------------------------------------------ */

/* argv of the process at depth d of a chain of levels processes:
 * driver trace2 (004child driver trace2)* 001return code */
static void chain_argv(const char **argv, int d, int levels, const char *code)
{
	size_t n = 0;

	argv[n++] = driver();
	argv[n++] = "trace2";
	for (int i = d; i < levels - 1; i++) {
		argv[n++] = "004child";
		argv[n++] = driver();
		argv[n++] = "trace2";
	}
	argv[n++] = "001return";
	argv[n++] = code;
	argv[n] = NULL;
}

/* The records of the chain from depth d down; every process exits code. */
static void expect_chain(struct expect *x, int d, int levels, int code)
{
	const char *argv[MAX_ARGS];
	char code_s[16];

	snprintf(code_s, sizeof(code_s), "%d", code);
	chain_argv(argv, d, levels, code_s);
	host_begin(x, d, argv);
	if (d + 1 < levels) {
		add_child_start(x, d, argv + 3); /* driver trace2 004child | ... */
		expect_chain(x, d + 1, levels, code);
		add_child_exit(x, d, code);
	}
	host_end(x, d, code);
}

/* Run the chain of three processes, each exiting code, with env added;
 * it must exit code and print nothing; x gets its records. */
static void run_chain(struct run *r, const char *const *env, int code, struct expect *x)
{
	const char *argv[MAX_ARGS];
	char code_s[16];

	snprintf(code_s, sizeof(code_s), "%d", code);
	chain_argv(argv, 0, 3, code_s);
	run_argv(r, env, NULL, argv);
	assert_int_equal(r->code, code);
	assert_string_equal(r->err, "");
	expect_chain(x, 0, 3, code);
}

/* Three processes append to one file per target (a file target value). */
static void chain_shares_one_file_per_target(void **state)
{
	struct expect x = { .n = 0 };
	struct run r;

	(void)state;
	run_chain(&r, NULL, 0, &x);
	assert_nonbrief_outputs(&x, &r);
	check_chain_json(r.event, 3, 1);
	expect_free(&x);
	run_free(&r);
}

/* The file of target name for the process whose own SID component is own. */
static char *dir_file(const char *dir, const char *own, const char *suffix)
{
	char *name = t2_xfmt("%s%s", own, suffix), *path = t2_path(dir, name);
	char *text = t2_read_file(path, NULL);

	if (!text)
		fail_msg("missing %s in trace directory", name);
	free(name);
	free(path);
	return text;
}

/* The SID of the first record of an EVENT text (caller frees). */
static char *first_sid(const char *event_text)
{
	struct evs e;
	char *sid;

	parse_events(event_text, &e);
	assert_true(e.n > 0);
	sid = strdup(ev_str(e.v[0], "sid"));
	evs_free(&e);
	return sid;
}

/*
 * Among the names, the EVENT file ("<own>.2") of the process at depth d;
 * returns its own SID component (caller frees), failing unless there is
 * exactly one.
 */
static char *own_component_at_depth(const char *dir, char *const *names, int d)
{
	char *own = NULL;

	for (size_t i = 0; names[i]; i++) {
		size_t len = strlen(names[i]);
		char *text, *sid;
		const char *slash;

		if (len < 3 || strcmp(names[i] + len - 2, ".2"))
			continue;
		text = dir_file(dir, names[i], "");
		sid = first_sid(text);
		slash = strrchr(sid, '/');
		if (sid_depth(sid) == d) {
			assert_null(own);
			own = strdup(slash ? slash + 1 : sid);
			assert_int_equal(len, strlen(own) + 2);
			assert_memory_equal(names[i], own, strlen(own));
		}
		free(sid);
		free(text);
	}
	if (!own)
		fail_msg("no EVENT file of depth %d", d);
	return own;
}

/*
 * One directory for all targets: every process creates <sid> (NORMAL),
 * <sid>.1 (PERF), <sid>.2 (EVENT) (docs/configuration.md, "Target values");
 * each file holds
 * exactly that process's records, and nothing else is there.
 */
static void check_process_files(const char *dir, const struct expect *x, int levels)
{
	char *list = t2_listdir(dir), **names = t2_split(list, " ", NULL),
	     *all_events = strdup("");
	size_t count;

	for (count = 0; names[count]; count++)
		;
	assert_int_equal(count, 3 * (size_t)levels);
	for (int d = 0; d < levels; d++) {
		char *own = own_component_at_depth(dir, names, d), *n = dir_file(dir, own, ""),
		     *p = dir_file(dir, own, ".1"), *e = dir_file(dir, own, ".2");

		assert_same(norm(n), render_normal(x, d));
		assert_same(norm(p), render_perf(x, d));
		assert_same(norm(e), render_event(x, d, 1));
		t2_append(&all_events, "%s", e);
		free(own);
		free(n);
		free(p);
		free(e);
	}
	check_chain_json(all_events, levels, 0);
	free(all_events);
	free(list);
	t2_strv_free(names);
}

static void chain_in_one_directory(void **state)
{
	char *dir = t2_tmpdir(), *vn = t2_xfmt("GIT_TRACE2=%s", dir),
	     *vp = t2_xfmt("GIT_TRACE2_PERF=%s", dir), *ve = t2_xfmt("GIT_TRACE2_EVENT=%s", dir);
	const char *env[] = { vn, vp, ve, BRIEF[0], BRIEF[1], BRIEF[2], NULL };
	struct expect x = { .n = 0 };
	struct run r;

	(void)state;
	run_chain(&r, env, 5, &x);
	check_process_files(dir, &x, 3);
	expect_free(&x);
	run_free(&r);
	t2_rmtree(dir);
	free(dir);
	free(vn);
	free(vp);
	free(ve);
}

/* ------------------------------------------------------------------ */
/* exec                                                                */
/* ------------------------------------------------------------------ */

static const char *const EXEC_ARGV[] = { "git", "trace2", "001return", "3", NULL };

/* 005exec with PATH set to bin_dir (holding a "git" or nothing). */
static void run_exec(struct run *r, const char *bin_dir)
{
	char *path = t2_xfmt("PATH=%s", bin_dir);
	const char *extra[] = { path, NULL }, *env[MAX_ENV];

	envcat(env, BRIEF, extra);
	run_tool(r, env, NULL, "005exec", "trace2", "001return", "3", NULL);
	free(path);
}

static void expect_exec_begin(struct expect *x)
{
	const char *argv[] = { driver(), "trace2", "005exec", "trace2", "001return", "3", NULL };

	host_begin(x, 0, argv);
	add_exec(x, 0, "git", EXEC_ARGV);
}

/*
 * The exec'd image (the driver again, as "git") continues the session as
 * a child: depth 1, hierarchy trace2/trace2, same pid; the first image
 * writes no exit/atexit (docs/embedding.md, "fork() and exec()"; the
 * driver's 005exec).
 */
static void exec_continues_as_child(void **state)
{
	T2_SKIP_ON_WINDOWS("exec() starts a new process there (another pid), and the test links the driver as \"git\" with a symbolic link");
	char *bin = t2_tmpdir(), *git = t2_path(bin, "git");
	struct expect x = { .n = 0 };
	const char *sid[MAX_DEPTH];
	struct evs e;
	struct run r;

	(void)state;
	assert_int_equal(symlink(driver(), git), 0);
	run_exec(&r, bin);
	assert_int_equal(r.code, 3);
	assert_string_equal(r.err, "");
	expect_exec_begin(&x);
	host_begin(&x, 1, EXEC_ARGV);
	host_end(&x, 1, 3);
	assert_brief_outputs(&x, &r);
	parse_events(r.event, &e);
	collect_sids(&e, 2, sid);
	assert_int_equal(sid_pid(sid[0]), sid_pid(sid[1]));
	evs_free(&e);
	expect_free(&x);
	run_free(&r);
	t2_rmtree(bin);
	free(bin);
	free(git);
}

/* No git in PATH: exec_result with ENOENT, then exit 255. */
static void exec_failure_reports_result(void **state)
{
	char *bin = t2_tmpdir();
	struct expect x = { .n = 0 };
	struct run r;

	(void)state;
	run_exec(&r, bin);
	assert_int_equal(r.code, 255);
	assert_string_equal(r.err, "");
	expect_exec_begin(&x);
	add(&x, 0, "exec_result", 1, 0, NULL,
	    t2_xfmt("exec_result[0] code:2 err:No such file or directory"),
	    t2_xfmt("id:0 code:2 err:No such file or directory"),
	    t2_xfmt("\"exec_id\":0,\"code\":2"));
	host_end(&x, 0, 255);
	assert_brief_outputs(&x, &r);
	expect_free(&x);
	run_free(&r);
	t2_rmtree(bin);
	free(bin);
}

/* ------------------------------------------------------------------ */
/* Redaction (docs/configuration.md, "URL passwords")                  */
/* ------------------------------------------------------------------ */

struct redact_row {
	const char *in;
	const char *out; /* NULL: unchanged */
};

/* Git's own cases of URL redaction (where Git leaves HTTPS:// and
 * x.y=https:// alone, libtrace2 redacts them too), then two more cases
 * of its rule. */
static const struct redact_row ROWS[] = {
	{ "https://user:pwd@example.com/", "https://user:<REDACTED>@example.com/" },
	{ "https://u:p@h", "https://u:<REDACTED>@h" },
	{ "https://:@h", "https://:<REDACTED>@h" },
	{ "https://u:@h", "https://u:<REDACTED>@h" },
	{ "https://u:p@", "https://u:<REDACTED>@" },
	{ "http://a@b/c", NULL },
	{ "https://h/p:q@r", NULL },
	{ "HTTPS://u:p@h", "HTTPS://u:<REDACTED>@h" },
	{ "x.y=https://u:p@h", "x.y=https://u:<REDACTED>@h" },
	{ "http://u:p@h/x", "http://u:<REDACTED>@h/x" },        /* http scheme */
	{ "https://u:p:q@h", "https://u:<REDACTED>@h" },        /* first ':' */
};
#define NROWS (sizeof(ROWS) / sizeof(ROWS[0]))

/*
 * GIT_TRACE2_REDACT settings and whether redaction is on
 * (docs/configuration.md, "Booleans").
 * The switch is read once for the process, so 300redact_start runs with
 * all of them and the others with the first two (default and off).
 */
static const struct {
	const char *env;
	int on;
} REDACT_MODES[] = {
	{ NULL, 1 },
	{ "GIT_TRACE2_REDACT=0", 0 },
	{ "GIT_TRACE2_REDACT=true", 1 },
	{ "GIT_TRACE2_REDACT=", 0 },
};
#define NMODES (sizeof(REDACT_MODES) / sizeof(REDACT_MODES[0]))
#define NMODES_SHORT 2

static const char *row_out(size_t i, int on)
{
	return on && ROWS[i].out ? ROWS[i].out : ROWS[i].in;
}

/* w as trace2 shows it: redacted if it is a row's input. */
static const char *shown_word(const char *w, int on)
{
	for (size_t i = 0; i < NROWS; i++)
		if (!strcmp(w, ROWS[i].in))
			return row_out(i, on);
	return w;
}

/* lead words, then every row (in or out), NULL-terminated. */
static void row_argv(const char **argv, const char *const *lead, int out, int on)
{
	size_t n = 0;

	for (; *lead; lead++)
		argv[n++] = out ? shown_word(*lead, on) : *lead;
	for (size_t i = 0; i < NROWS; i++)
		argv[n++] = out ? row_out(i, on) : ROWS[i].in;
	argv[n] = NULL;
}

/* Redacting subcommands: what they add between cmd_name and exit. */
typedef void redact_expect_fn(struct expect *x, const char *const *words);

static void expect_redact_start(struct expect *x, const char *const *words)
{
	add_start(x, 0, words);
}

static void expect_redact_child(struct expect *x, const char *const *words)
{
	add_child_start(x, 0, words);
}

/* 302redact_exec <exe> <argv...>: exe is redacted too (Git leaves it). */
static void expect_redact_exec(struct expect *x, const char *const *words)
{
	add_exec(x, 0, words[0], words + 1);
}

static void run_redact_case(const char *subcommand, const char *const *lead,
			    redact_expect_fn *fn, size_t mode)
{
	const char *head[] = { driver(), "trace2", subcommand, NULL };
	const char *in_lead[MAX_ARGS], *argv[MAX_ARGS], *shown[MAX_ARGS], *words[MAX_ARGS];
	const char *extra[] = { REDACT_MODES[mode].env, NULL }, *env[MAX_ENV];
	int on = REDACT_MODES[mode].on;
	struct expect x = { .n = 0 };
	struct run r;
	size_t n = 0;

	for (size_t i = 0; head[i]; i++)
		in_lead[n++] = head[i];
	for (size_t i = 0; lead[i]; i++)
		in_lead[n++] = lead[i];
	in_lead[n] = NULL;
	envcat(env, BRIEF, extra);
	row_argv(argv, in_lead, 0, on);
	for (n = 0; argv[n]; n++)
		shown[n] = shown_word(argv[n], on);
	shown[n] = NULL;
	row_argv(words, lead, 1, on);
	run_argv(&r, env, NULL, argv);
	assert_int_equal(r.code, 0);
	host_begin(&x, 0, shown);
	fn(&x, words);
	host_end(&x, 0, 0);
	assert_brief_outputs(&x, &r);
	expect_free(&x);
	run_free(&r);
}

static void redact_for_modes(const char *subcommand, const char *const *lead,
			     redact_expect_fn *fn, size_t nmodes)
{
	for (size_t m = 0; m < nmodes; m++)
		run_redact_case(subcommand, lead, fn, m);
}

static const char *const GIT_CLONE[] = { "git", "clone", NULL };

static void redact_start_argv(void **state)
{
	(void)state;
	redact_for_modes("300redact_start", GIT_CLONE, expect_redact_start, NMODES);
}

static void redact_child_start_args(void **state)
{
	(void)state;
	redact_for_modes("301redact_child_start", GIT_CLONE, expect_redact_child, NMODES_SHORT);
}

static void redact_exec_exe_and_argv(void **state)
{
	const char *lead[] = { ROWS[1].in, "git", "clone", NULL };

	(void)state;
	redact_for_modes("302redact_exec", lead, expect_redact_exec, NMODES_SHORT);
}

/* 303redact_def_param url <row>: one process per row and mode. */
static void redact_def_param_value(void **state)
{
	(void)state;
	for (size_t m = 0; m < NMODES_SHORT; m++) {
		const char *extra[] = { REDACT_MODES[m].env, NULL }, *env[MAX_ENV];

		envcat(env, BRIEF, extra);
		for (size_t i = 0; i < NROWS; i++) {
			const char *shown[] = { driver(), "trace2", "303redact_def_param", "url",
						row_out(i, REDACT_MODES[m].on), NULL };
			struct expect x = { .n = 0 };
			struct run r;

			run_tool(&r, env, NULL, "303redact_def_param", "url", ROWS[i].in, NULL);
			assert_int_equal(r.code, 0);
			host_begin(&x, 0, shown);
			add_def_param(&x, 0, "unknown", "url", row_out(i, REDACT_MODES[m].on));
			host_end(&x, 0, 0);
			assert_brief_outputs(&x, &r);
			expect_free(&x);
			run_free(&r);
		}
	}
}

/* error messages are not redacted, the start argv is (docs/configuration.md,
 * "URL passwords"). */
static void redact_skips_error_messages(void **state)
{
	const char *shown[] = { driver(), "trace2", "003error", ROWS[1].out, NULL };
	struct expect x = { .n = 0 };
	struct run r;

	(void)state;
	run_tool(&r, BRIEF, NULL, "003error", ROWS[1].in, NULL);
	assert_int_equal(r.code, 0);
	assert_string_equal(r.err, "error: https://u:p@h\n");
	host_begin(&x, 0, shown);
	add_error(&x, 0, ROWS[1].in, "%s");
	host_end(&x, 0, 0);
	assert_brief_outputs(&x, &r);
	expect_free(&x);
	run_free(&r);
}

/* An unparsable GIT_TRACE2_REDACT is fatal (docs/configuration.md,
 * "Booleans"). */
static void redact_invalid_value_is_fatal(void **state)
{
	const char *env[] = { "GIT_TRACE2_BRIEF=1", "GIT_TRACE2_REDACT=maybe", NULL };
	struct run r;

	(void)state;
	run_tool(&r, env, NULL, "001return", "0", NULL);
	assert_int_equal(r.code, 128);
	assert_string_equal(r.err,
			    "fatal: bad boolean environment value 'maybe' for 'GIT_TRACE2_REDACT'\n");
	assert_same(t2_scrub(r.normal),
		    strdup("error bad boolean environment value 'maybe' for 'GIT_TRACE2_REDACT'\n"
			   "exit elapsed:0.000000 code:128\n"));
	run_free(&r);
}

/*
 * The failing initialize emits its records before thread storage exists,
 * so t_abs is 0.  Git also makes a fresh
 * "unknown" context for every PERF/EVENT record there (unknown,
 * th01:unknown, ...); libtrace2 names them all "unknown" (a known
 * difference, of little weight).
 */
static void failed_initialize_records(void **state)
{
	const char *env[] = { BRIEF[0], BRIEF[1], BRIEF[2], "GIT_TRACE2_REDACT=maybe", NULL };
	struct run r;

	(void)state;
	run_tool(&r, env, NULL, "001return", "0", NULL);
	assert_int_equal(r.code, 128);
	assert_string_equal(r.normal,
			    "error bad boolean environment value 'maybe' for 'GIT_TRACE2_REDACT'\n"
			    "exit elapsed:0.000000 code:128\n");
	assert_non_null(strstr(r.perf, "d0 | unknown                  | error "));
	assert_non_null(strstr(r.perf, "d0 | unknown                  | exit         |     |  0.000000 |"));
	assert_non_null(strstr(r.event, "\"thread\":\"unknown\",\"t_abs\":0.000000,\"code\":128}"));
	run_free(&r);
}

/* ------------------------------------------------------------------ */
/* configParams and envVars (docs/configuration.md)                   */
/* ------------------------------------------------------------------ */

struct param {
	const char *scope, *key, *value;
};

/* A fresh directory with the files of the NULL-terminated {path, text}
 * pairs (parent directories created). */
static char *make_tree(const char *const (*files)[2])
{
	char *dir = t2_tmpdir();

	for (; (*files)[0]; files++) {
		char *path = t2_path(dir, (*files)[0]), *slash = strrchr(path, '/');

		*slash = '\0';
		assert_int_equal(t2_mkdirs(path), 0);
		*slash = '/';
		assert_int_equal(t2_write_file(path, (*files)[1]), 0);
		free(path);
	}
	return dir;
}

/* Run "001return 0" in cwd with env (brief) and expect exactly these
 * def_param records after cmd_name. */
static void expect_params(const char *const *env, const char *cwd,
			  const struct param *params, size_t n)
{
	const char *argv[] = { driver(), "trace2", "001return", "0", NULL }, *all[MAX_ENV];
	struct expect x = { .n = 0 };
	struct run r;

	envcat(all, BRIEF, env);
	run_argv(&r, all, cwd, argv);
	assert_int_equal(r.code, 0);
	assert_string_equal(r.err, "");
	host_begin(&x, 0, argv);
	for (size_t i = 0; i < n; i++)
		add_def_param(&x, 0, params[i].scope, params[i].key, params[i].value);
	host_end(&x, 0, 0);
	assert_brief_outputs(&x, &r);
	expect_free(&x);
	run_free(&r);
}

static const char *const CONFIG_FILES[][2] = {
	{ "system", "[cfg \"prop\"]\n\tsys = fromsystem\n" },
	{ "global", "[cfg \"prop\"]\n\tfoo = red\n\tfoo = second\n"
		    "[Cfg \"Prop\"]\n\tBar = two words\n[other]\n\tkey = ignored\n" },
	{ "repo/.git/config", "[core]\n\tbare = false\n[cfg \"prop\"]\n\tfoo = localval\n" },
	{ "repo/a/b/.keep", "" },
	{ NULL, NULL },
};

/*
 * A global and a local file, plus a system file, GIT_CONFIG_COUNT entries
 * and both styles of GIT_CONFIG_PARAMETERS words: system, global, local
 * (found upwards from a subdirectory), command (COUNT, then PARAMETERS),
 * then the environment variables.
 */
static void config_params_and_env_vars(void **state)
{
	char *dir = make_tree(CONFIG_FILES), *cwd = t2_path(dir, "repo/a/b"),
	     *sys = t2_xfmt("GIT_CONFIG_SYSTEM=%s/system", dir),
	     *glob = t2_xfmt("GIT_CONFIG_GLOBAL=%s/global", dir);
	const char *env[] = {
		"GIT_CONFIG_NOSYSTEM=0", sys, glob, "GIT_DIR",
		"GIT_TRACE2_CONFIG_PARAMS= CFG.PROP.* , foo.true,,core.bare,*.bare",
		"GIT_TRACE2_ENV_VARS=ENV_A, ENV_B ,ENV_EMPTY,ENV_MISSING",
		"ENV_A=1", "ENV_B=x y", "ENV_EMPTY=", "ENV_MISSING",
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=cfg.prop.count", "GIT_CONFIG_VALUE_0=fromcount",
		"GIT_CONFIG_KEY_1=other.count", "GIT_CONFIG_VALUE_1=x",
		"GIT_CONFIG_PARAMETERS='foo.true'= 'cfg.prop.cmd'='fromcmd' "
		"'CFG.Prop.Mixed'='m' 'cfg.prop.old=oldval' 'cfg.prop.oldbool'",
		NULL
	};
	static const struct param params[] = {
		{ "system", "cfg.prop.sys", "fromsystem" },
		{ "global", "cfg.prop.foo", "red" },
		{ "global", "cfg.prop.foo", "second" },
		{ "global", "cfg.Prop.bar", "two words" },
		{ "local", "core.bare", "false" },
		{ "local", "cfg.prop.foo", "localval" },
		{ "command", "cfg.prop.count", "fromcount" },
		{ "command", "foo.true", NULL },
		{ "command", "cfg.prop.cmd", "fromcmd" },
		{ "command", "cfg.Prop.mixed", "m" },
		{ "command", "cfg.prop.old", "oldval" },
		{ "command", "cfg.prop.oldbool", NULL },
		{ "command", "ENV_A", "1" },
		{ "command", "ENV_B", "x y" },
	};

	(void)state;
	expect_params(env, cwd, params, sizeof(params) / sizeof(params[0]));
	t2_rmtree(dir);
	free(dir);
	free(cwd);
	free(sys);
	free(glob);
}

/*
 * GIT_CONFIG_COUNT as large as an int holds (and past it) with one pair
 * set: the listing stops at the first missing pair, so the host is not
 * held by two billion look-ups (killed after 20 s before it did).
 */
static void config_count_huge_stops_at_missing_pair(void **state)
{
	static const char *const counts[] = { "GIT_CONFIG_COUNT=2147483647",
					      "GIT_CONFIG_COUNT=99999999999999999999" };
	static const struct param params[] = {
		{ "command", "cfg.prop.count", "fromcount" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		const char *env[] = {
			"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_DIR",
			"GIT_TRACE2_CONFIG_PARAMS=cfg.prop.*", counts[i],
			"GIT_CONFIG_KEY_0=cfg.prop.count", "GIT_CONFIG_VALUE_0=fromcount",
			"GIT_CONFIG_KEY_2=cfg.prop.after", "GIT_CONFIG_VALUE_2=after the gap",
			NULL
		};

		expect_params(env, NULL, params, 1);
	}
}

static const char *const HOME_FILES[][2] = {
	{ "xdg/git/config", "[cfg]\n\tfoo = xdg\n" },
	{ "home/.config/git/config", "[cfg]\n\tfoo = homexdg\n" },
	{ "home/.gitconfig", "[cfg]\n\tfoo = home\n" },
	{ NULL, NULL },
};

/* Without GIT_CONFIG_GLOBAL: the XDG file, then ~/.gitconfig
 * (docs/configuration.md, "Config files"). */
static void config_global_files_from_home(void **state)
{
	char *dir = make_tree(HOME_FILES), *home = t2_xfmt("HOME=%s/home", dir),
	     *xdg = t2_xfmt("XDG_CONFIG_HOME=%s/xdg", dir);
	const char *with_xdg[] = { home, xdg, "GIT_TRACE2_CONFIG_PARAMS=cfg.*", NULL };
	const char *without[] = { home, "GIT_TRACE2_CONFIG_PARAMS=cfg.*", NULL };
	static const struct param p_xdg[] = {
		{ "global", "cfg.foo", "xdg" }, { "global", "cfg.foo", "home" },
	};
	static const struct param p_home[] = {
		{ "global", "cfg.foo", "homexdg" }, { "global", "cfg.foo", "home" },
	};

	(void)state;
	expect_params(with_xdg, dir, p_xdg, 2);
	expect_params(without, dir, p_home, 2);
	t2_rmtree(dir);
	free(dir);
	free(home);
	free(xdg);
}

static const char *const URL_FILES[][2] = {
	{ "global", "[remote \"origin\"]\n\turl = https://u:p@h/x\n" },
	{ NULL, NULL },
};

/* Listed config values and environment variables are redacted too. */
static void config_and_env_values_are_redacted(void **state)
{
	char *dir = make_tree(URL_FILES), *glob = t2_xfmt("GIT_CONFIG_GLOBAL=%s/global", dir);
	const char *on[] = { glob, "GIT_TRACE2_CONFIG_PARAMS=remote.*.url",
			     "GIT_TRACE2_ENV_VARS=MY_URL", "MY_URL=https://a:b@c/", NULL };
	const char *off[] = { glob, "GIT_TRACE2_CONFIG_PARAMS=remote.*.url",
			      "GIT_TRACE2_ENV_VARS=MY_URL", "MY_URL=https://a:b@c/",
			      "GIT_TRACE2_REDACT=false", NULL };
	static const struct param p_on[] = {
		{ "global", "remote.origin.url", "https://u:<REDACTED>@h/x" },
		{ "command", "MY_URL", "https://a:<REDACTED>@c/" },
	};
	static const struct param p_off[] = {
		{ "global", "remote.origin.url", "https://u:p@h/x" },
		{ "command", "MY_URL", "https://a:b@c/" },
	};

	(void)state;
	expect_params(on, dir, p_on, 2);
	expect_params(off, dir, p_off, 2);
	t2_rmtree(dir);
	free(dir);
	free(glob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chain_shares_one_file_per_target),
		cmocka_unit_test(chain_in_one_directory),
		cmocka_unit_test(exec_continues_as_child),
		cmocka_unit_test(exec_failure_reports_result),
		cmocka_unit_test(redact_start_argv),
		cmocka_unit_test(redact_child_start_args),
		cmocka_unit_test(redact_exec_exe_and_argv),
		cmocka_unit_test(redact_def_param_value),
		cmocka_unit_test(redact_skips_error_messages),
		cmocka_unit_test(redact_invalid_value_is_fatal),
		cmocka_unit_test(failed_initialize_records),
		cmocka_unit_test(config_params_and_env_vars),
		cmocka_unit_test(config_count_huge_stops_at_missing_pair),
		cmocka_unit_test(config_global_files_from_home),
		cmocka_unit_test(config_and_env_values_are_redacted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
