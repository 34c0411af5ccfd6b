/*
 * AF_UNIX destinations (docs/configuration.md, "Target values") with
 * listeners owned by
 * the test (t2sink.h): every wait is bounded (poll() with short timeouts,
 * an overall deadline, the writer killed when it passes).  The EVENT
 * streams are also run through a checker that applies trace2receiver's
 * rules (docs/event-schema.md): required keys and JSON types, time format,
 * version first, a start with a non-empty argv, the main thread named
 * "main", threads announced before use, consistent region nesting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2sink.h"
#include "t2test.h"
#include "tjson.h"
#include "trace2.h"
#include "trace2/flight.h"

#define MAX_ARGS 32
#define UTC_RE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$"

/* ------------------------------------------------------------------ */
/* trace2receiver's rules (docs/event-schema.md)                       */
/* ------------------------------------------------------------------ */

/* Key types: s string, i integer, b boolean, a array, n number,
 * v string or number, j any JSON value. */
struct key_rule {
	const char *key;
	char type;
	int optional;
};

struct event_rule {
	const char *event;
	struct key_rule keys[7];
};

#define REGION_KEYS { { "nesting", 'i', 0 }, { "category", 's', 1 }, \
		      { "label", 's', 1 }, { "msg", 's', 1 } }
#define TIMER_KEYS { { "category", 's', 0 }, { "name", 's', 0 }, { "intervals", 'i', 0 }, \
		     { "t_total", 'n', 0 }, { "t_min", 'n', 0 }, { "t_max", 'n', 0 } }
#define COUNTER_KEYS { { "category", 's', 0 }, { "name", 's', 0 }, { "count", 'i', 0 } }

static const struct key_rule COMMON_KEYS[] = {
	{ "event", 's', 0 }, { "sid", 's', 0 }, { "thread", 's', 0 }, { "time", 's', 0 },
	{ "repo", 'i', 1 }, { NULL, 0, 0 },
};

static const struct event_rule EVENT_RULES[] = {
	{ "version", { { "evt", 's', 0 }, { "exe", 's', 0 } } },
	{ "start", { { "argv", 'a', 0 } } },
	{ "exit", { { "code", 'i', 0 } } },
	{ "atexit", { { "code", 'i', 0 } } },
	{ "signal", { { "signo", 'i', 0 } } },
	{ "error", { { "msg", 's', 0 }, { "fmt", 's', 0 } } },
	{ "printf", { { "msg", 's', 0 } } },
	{ "cmd_path", { { "path", 's', 0 } } },
	{ "cmd_ancestry", { { "ancestry", 'a', 0 } } },
	{ "cmd_name", { { "name", 's', 0 }, { "hierarchy", 's', 0 } } },
	{ "cmd_mode", { { "name", 's', 0 } } },
	{ "alias", { { "alias", 's', 0 }, { "argv", 'a', 0 } } },
	{ "child_start", { { "child_id", 'i', 0 }, { "child_class", 's', 0 },
			   { "use_shell", 'b', 0 }, { "argv", 'a', 0 }, { "cd", 's', 1 },
			   { "hook_name", 's', 1 } } },
	{ "child_exit", { { "child_id", 'i', 0 }, { "pid", 'i', 0 }, { "code", 'i', 0 } } },
	{ "child_ready", { { "child_id", 'i', 0 }, { "pid", 'i', 0 }, { "ready", 's', 0 } } },
	{ "exec", { { "exec_id", 'i', 0 }, { "argv", 'a', 0 }, { "exe", 's', 1 } } },
	{ "exec_result", { { "exec_id", 'i', 0 }, { "code", 'i', 0 } } },
	{ "def_param", { { "param", 's', 0 }, { "value", 's', 0 }, { "scope", 's', 1 } } },
	{ "def_repo", { { "repo", 'i', 0 }, { "worktree", 's', 0 } } },
	{ "region_enter", REGION_KEYS },
	{ "region_leave", REGION_KEYS },
	{ "data", { { "nesting", 'i', 0 }, { "category", 's', 0 }, { "key", 's', 0 },
		    { "value", 'v', 0 } } },
	{ "data_json", { { "value", 'j', 0 } } },
	{ "timer", TIMER_KEYS },
	{ "th_timer", TIMER_KEYS },
	{ "counter", COUNTER_KEYS },
	{ "th_counter", COUNTER_KEYS },
};
#define NRULES (sizeof(EVENT_RULES) / sizeof(EVENT_RULES[0]))

static int has_type(const struct tjson *v, char type)
{
	switch (type) {
	case 's': return v->type == TJSON_STRING;
	case 'i': return v->type == TJSON_NUMBER && !strpbrk(v->text, ".eE");
	case 'b': return v->type == TJSON_BOOL;
	case 'a': return v->type == TJSON_ARRAY;
	case 'n': return v->type == TJSON_NUMBER;
	case 'v': return v->type == TJSON_STRING || v->type == TJSON_NUMBER;
	default: return 1;
	}
}

/* Per-connection state of the checker. */
#define MAX_THREADS 64
struct rcv {
	char *why;
	size_t why_size;
	size_t events;  /* accepted event lines so far */
	int saw_start;
	size_t nthreads;
	char *thread[MAX_THREADS];
	int depth[MAX_THREADS];
};

static int reject(struct rcv *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int reject(struct rcv *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, r->why_size, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_keys(struct rcv *r, const struct tjson *ev, const struct key_rule *rules)
{
	for (; rules->key; rules++) {
		const struct tjson *v = tjson_get(ev, rules->key);

		if (!v && !rules->optional)
			return reject(r, "missing \"%s\"", rules->key);
		if (v && !has_type(v, rules->type))
			return reject(r, "\"%s\" is not of type %c", rules->key, rules->type);
	}
	return 0;
}

static const struct event_rule *find_rule(const char *event)
{
	for (size_t i = 0; i < NRULES; i++)
		if (!strcmp(EVENT_RULES[i].event, event))
			return &EVENT_RULES[i];
	return NULL;
}

/* Index of the known thread name, or -1. */
static int thread_index(const struct rcv *r, const char *name)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (!strcmp(r->thread[i], name))
			return (int)i;
	return -1;
}

static void add_thread(struct rcv *r, const char *name)
{
	if (thread_index(r, name) < 0 && r->nthreads < MAX_THREADS) {
		r->depth[r->nthreads] = 0;
		r->thread[r->nthreads++] = strdup(name);
	}
}

/* Threads: "main" is implicit, others must have sent thread_start. */
static int check_thread(struct rcv *r, const char *event, const char *thread)
{
	if (!strcmp(event, "thread_start"))
		add_thread(r, thread);
	if (thread_index(r, thread) < 0)
		return reject(r, "event \"%s\" of unannounced thread \"%s\"", event, thread);
	return 0;
}

/* region_enter: nesting = depth + 1; region_leave: nesting = depth. */
static int check_region(struct rcv *r, const struct tjson *ev, const char *event,
			const char *thread)
{
	int t = thread_index(r, thread), enter = !strcmp(event, "region_enter");
	long nesting;

	if (!enter && strcmp(event, "region_leave"))
		return 0;
	nesting = strtol(tjson_get(ev, "nesting")->text, NULL, 10);
	if (nesting != r->depth[t] + enter)
		return reject(r, "%s nesting %ld at depth %d", event, nesting, r->depth[t]);
	r->depth[t] += enter ? 1 : -1;
	return 0;
}

/* The order rules: version first (on "main"), start with non-empty argv. */
static int check_order(struct rcv *r, const struct tjson *ev, const char *event,
		       const char *thread)
{
	if (!r->events && strcmp(event, "version"))
		return reject(r, "first event is \"%s\", not version", event);
	if ((!strcmp(event, "version") || !strcmp(event, "start")) && strcmp(thread, "main"))
		return reject(r, "%s on thread \"%s\", not main", event, thread);
	if (!strcmp(event, "start")) {
		const struct tjson *argv = tjson_get(ev, "argv");

		if (!argv->n || argv->items[0]->type != TJSON_STRING)
			return reject(r, "start without a string argv[0]");
		r->saw_start = 1;
	}
	return 0;
}

static int check_event(struct rcv *r, const struct tjson *ev)
{
	const struct event_rule *rule;
	const char *event, *thread;
	const char *cls;

	if (check_keys(r, ev, COMMON_KEYS))
		return -1;
	if (!t2_matches(tjson_get_str(ev, "time"), UTC_RE))
		return reject(r, "bad time \"%s\"", tjson_get_str(ev, "time"));
	event = tjson_get_str(ev, "event");
	thread = tjson_get_str(ev, "thread");
	rule = find_rule(event);
	if (rule && check_keys(r, ev, rule->keys))
		return -1;
	cls = tjson_get_str(ev, "child_class");
	if (!strcmp(event, "child_start") && !strcmp(cls, "hook") &&
	    !tjson_get_str(ev, "hook_name"))
		return reject(r, "hook child_start without hook_name");
	if (check_order(r, ev, event, thread) || check_thread(r, event, thread) ||
	    check_region(r, ev, event, thread))
		return -1;
	r->events++;
	return 0;
}

/* One line; blank, '#' and non-'{' lines are ignored. */
static int check_line(struct rcv *r, const char *line)
{
	const char *err = NULL;
	struct tjson *ev;
	int rc;

	if (line[0] != '{')
		return 0;
	ev = tjson_parse(line, strlen(line), &err);
	if (!ev || ev->type != TJSON_OBJECT)
		rc = reject(r, "invalid JSON (%s)", err ? err : "not an object");
	else
		rc = check_event(r, ev);
	tjson_free(ev);
	return rc;
}

/*
 * 0 if trace2receiver would export the process whose connection carried
 * text; else -1 with the reason in why.  A final line without LF is
 * discarded, as the receiver does.
 */
static int receiver_check(const char *text, char *why, size_t why_size)
{
	struct rcv r = { .why = why, .why_size = why_size };
	char **lines;
	size_t n;
	int rc = 0;

	why[0] = '\0';
	add_thread(&r, "main");
	lines = t2_split(text, "\n", &n);
	for (size_t i = 0; i + 1 < n && !rc; i++)
		rc = check_line(&r, lines[i]);
	if (!rc && !r.saw_start)
		rc = reject(&r, "no start event");
	t2_strv_free(lines);
	for (size_t i = 0; i < r.nthreads; i++)
		free(r.thread[i]);
	return rc;
}

static void assert_receiver_accepts(const char *text)
{
	char why[256];

	if (receiver_check(text, why, sizeof(why)))
		fail_msg("trace2receiver would drop the stream: %s", why);
}

/* ------------------------------------------------------------------ */
/* The checker itself: good and bad streams                            */
/* ------------------------------------------------------------------ */

#define COMMON(ev) "{\"event\":\"" ev "\",\"sid\":\"S\",\"thread\":\"main\"," \
		   "\"time\":\"2026-11-22T05:03:00.381742Z\""
#define VERSION_L COMMON("version") ",\"evt\":\"4\",\"exe\":\"V\"}\n"
#define START_L COMMON("start") ",\"t_abs\":0.1,\"argv\":[\"git\"]}\n"
#define EXIT_L COMMON("exit") ",\"t_abs\":0.2,\"code\":0}\n"
#define GOOD VERSION_L START_L EXIT_L

static const struct {
	const char *name, *text;
	int ok;
} CHECKER_CASES[] = {
	{ "minimal", GOOD, 1 },
	{ "ignored lines", VERSION_L "\n# comment\nnot json\n" START_L EXIT_L, 1 },
	{ "unterminated last line dropped", GOOD "{\"event\":", 1 },
	{ "unknown event", VERSION_L START_L COMMON("later") "}\n", 1 },
	{ "regions", VERSION_L START_L COMMON("region_enter") ",\"nesting\":1}\n"
		     COMMON("region_enter") ",\"nesting\":2,\"label\":\"x\"}\n"
		     COMMON("region_leave") ",\"nesting\":2}\n"
		     COMMON("region_leave") ",\"nesting\":1}\n", 1 },
	{ "start first", START_L VERSION_L EXIT_L, 0 },
	{ "no start", VERSION_L EXIT_L, 0 },
	{ "empty argv", VERSION_L COMMON("start") ",\"argv\":[]}\n", 0 },
	{ "argv[0] no string", VERSION_L COMMON("start") ",\"argv\":[1]}\n", 0 },
	{ "code as string", VERSION_L START_L COMMON("exit") ",\"code\":\"0\"}\n", 0 },
	{ "code as float", VERSION_L START_L COMMON("exit") ",\"code\":0.5}\n", 0 },
	{ "bad time", "{\"event\":\"version\",\"sid\":\"S\",\"thread\":\"main\","
		      "\"time\":\"2026-11-22 05:03:00\",\"evt\":\"4\",\"exe\":\"V\"}\n" START_L, 0 },
	{ "no time (brief)", "{\"event\":\"version\",\"sid\":\"S\",\"thread\":\"main\","
			     "\"evt\":\"4\",\"exe\":\"V\"}\n" START_L, 0 },
	{ "invalid JSON", VERSION_L START_L "{\"event\":\"exit\",}\n", 0 },
	{ "main not named main", "{\"event\":\"version\",\"sid\":\"S\",\"thread\":\"th00:main\","
				 "\"time\":\"2026-11-22T05:03:00.381742Z\",\"evt\":\"4\",\"exe\":\"V\"}\n"
				 START_L, 0 },
	{ "region skips a level", GOOD COMMON("region_enter") ",\"nesting\":2}\n", 0 },
	{ "region_leave mismatch", GOOD COMMON("region_enter") ",\"nesting\":1}\n"
				   COMMON("region_leave") ",\"nesting\":2}\n", 0 },
	{ "unannounced thread", GOOD "{\"event\":\"printf\",\"sid\":\"S\",\"thread\":\"th01:x\","
				"\"time\":\"2026-11-22T05:03:00.381742Z\",\"msg\":\"m\"}\n", 0 },
	{ "def_param without value", GOOD COMMON("def_param") ",\"scope\":\"command\","
				     "\"param\":\"foo.true\"}\n", 0 },
	{ "hook without hook_name", GOOD COMMON("child_start") ",\"child_id\":0,\"child_class\":"
				    "\"hook\",\"use_shell\":false,\"argv\":[\"x\"]}\n", 0 },
	{ "use_shell as int", GOOD COMMON("child_start") ",\"child_id\":0,\"child_class\":\"?\","
			      "\"use_shell\":0,\"argv\":[\"x\"]}\n", 0 },
	{ "data value object", GOOD COMMON("data") ",\"nesting\":1,\"category\":\"c\","
			       "\"key\":\"k\",\"value\":{}}\n", 0 },
	{ "repo as string", GOOD COMMON("def_repo") ",\"repo\":\"1\",\"worktree\":\"/w\"}\n", 0 },
	{ "common repo as string", GOOD COMMON("data") ",\"repo\":\"0\",\"nesting\":1,"
				   "\"category\":\"c\",\"key\":\"k\",\"value\":\"v\"}\n", 0 },
	{ "common repo as integer", GOOD COMMON("data") ",\"repo\":0,\"nesting\":1,"
				    "\"category\":\"c\",\"key\":\"k\",\"value\":7}\n", 1 },
	{ "timer t_total as string", GOOD COMMON("timer") ",\"category\":\"c\",\"name\":\"n\","
				     "\"intervals\":1,\"t_total\":\"1\",\"t_min\":1,\"t_max\":1}\n", 0 },
};

static void receiver_checker_rules(void **state)
{
	char why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(CHECKER_CASES) / sizeof(CHECKER_CASES[0]); i++) {
		int ok = !receiver_check(CHECKER_CASES[i].text, why, sizeof(why));

		if (ok != CHECKER_CASES[i].ok)
			fail_msg("checker case '%s': %s (%s)", CHECKER_CASES[i].name,
				 ok ? "accepted" : "rejected", why);
	}
}

/* ------------------------------------------------------------------ */
/* Driver runs                                                         */
/* ------------------------------------------------------------------ */

static const char *driver(void)
{
	static char *path;

	if (!path)
		path = t2_path(t2_bin_dir(), "trace2-tool");
	return path;
}

static void exec_tool(void *arg)
{
	t2_exec_tool(arg);
}

/* Driver arguments of a 3-level chain (after the driver path). */
static void chain_args(const char **args)
{
	const char *const words[] = { "trace2", "004child", driver(), "trace2", "004child",
				      driver(), "trace2", "001return", "0", NULL };

	memcpy(args, words, sizeof(words));
}

/* Start the driver with args, the EVENT target at value and the setting
 * mode ("NAME=VALUE", or NULL), serve s until it exits; returns its exit
 * code. */
static int serve_driver(struct t2_sink *s, const char *value, const char *const *args,
			const char *mode)
{
	char *ev = t2_xfmt("GIT_TRACE2_EVENT=%s", value);
	const char *env[] = { ev, "T2TOOL_VERSION=V", mode, NULL };
	int status = t2_sink_collect(s, t2_spawn(exec_tool, (void *)args, env, NULL, NULL));

	free(ev);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int sid_depth(const char *sid)
{
	int d = 0;

	for (; *sid; sid++)
		d += *sid == '/';
	return d;
}

/*
 * The records of one process: every line whole and JSON, one SID; the
 * comma-joined event names into *names (caller frees); returns the SID
 * (caller frees).
 */
static char *process_events(const char *text, char **names)
{
	char **lines = t2_lines(text, NULL), *sid = NULL;

	*names = strdup("");
	for (size_t i = 0; lines[i]; i++) {
		struct tjson *ev = tjson_parse(lines[i], strlen(lines[i]), NULL);

		if (!ev || !tjson_get_str(ev, "sid") || !tjson_get_str(ev, "event"))
			fail_msg("bad record: %s", lines[i]);
		if (!sid)
			sid = strdup(tjson_get_str(ev, "sid"));
		assert_string_equal(tjson_get_str(ev, "sid"), sid);
		t2_append(names, "%s%s", i ? "," : "", tjson_get_str(ev, "event"));
		tjson_free(ev);
	}
	t2_strv_free(lines);
	assert_non_null(sid);
	return sid;
}

#define PARENT_EVENTS "version,start," T2_ANCESTRY(",") "cmd_name,child_start,child_exit,exit,atexit"
#define LEAF_EVENTS "version,start," T2_ANCESTRY(",") "cmd_name,exit,atexit"

/* One connection per process of the chain; each a complete stream that
 * trace2receiver accepts; SIDs nest. */
static void check_stream_chain(const struct t2_sink *s)
{
	char *sid[3] = { NULL, NULL, NULL };

	assert_int_equal(s->nconn, 3);
	for (size_t i = 0; i < s->nconn; i++) {
		char *names, *id;
		int d;

		assert_true(s->conn[i].n > 0);
		assert_int_equal(s->conn[i].p[s->conn[i].n - 1], '\n');
		assert_int_equal(strlen(s->conn[i].p), s->conn[i].n);
		assert_receiver_accepts(s->conn[i].p);
		id = process_events(s->conn[i].p, &names);
		d = sid_depth(id);
		assert_in_range(d, 0, 2);
		assert_null(sid[d]);
		sid[d] = id;
		assert_string_equal(names, d < 2 ? PARENT_EVENTS : LEAF_EVENTS);
		free(names);
	}
	for (int d = 1; d < 3; d++) {
		assert_memory_equal(sid[d], sid[d - 1], strlen(sid[d - 1]));
		assert_int_equal(sid[d][strlen(sid[d - 1])], '/');
	}
	for (int d = 0; d < 3; d++)
		free(sid[d]);
}

static void check_dgram_chain(const struct t2_sink *s);

/*
 * The chain with EVENT at prefix + the path of a listener of the given
 * type, and the setting mode (or NULL).  Datagram: more records than
 * Linux queues unread (max_dgram_qlen 10), so the listener must be
 * served while the chain runs.
 */
static void socket_chain(int type, const char *prefix, const char *mode)
{
	const char *args[MAX_ARGS];
	struct t2_sink s;
	char *value;

	t2_sink_open(&s, type);
	value = t2_xfmt("%s%s", prefix, s.path);
	chain_args(args);
	assert_int_equal(serve_driver(&s, value, args, mode), 0);
	if (type == SOCK_DGRAM) {
		assert_true(s.ndgram > 10);
		check_dgram_chain(&s);
	} else {
		check_stream_chain(&s);
	}
	free(value);
	t2_sink_close(&s);
}

static void stream_socket_chain(void **state)
{
	(void)state;
	socket_chain(SOCK_STREAM, "af_unix:stream:", NULL);
}

/* af_unix:<path> tries stream first. */
static void plain_prefix_prefers_stream(void **state)
{
	(void)state;
	socket_chain(SOCK_STREAM, "af_unix:", NULL);
}

/* "d<depth>:<event>" of every record of the chain, in order. */
static void append_chain_order(char **out, int d)
{
	const char *own[] = { "version", "start", T2_ANCESTRY(""), "cmd_name", NULL };

	for (size_t i = 0; own[i]; i++)
		if (*own[i])
			t2_append(out, "d%d:%s,", d, own[i]);
	if (d < 2) {
		t2_append(out, "d%d:child_start,", d);
		append_chain_order(out, d + 1);
		t2_append(out, "d%d:child_exit,", d);
	}
	t2_append(out, "d%d:exit,d%d:atexit,", d, d);
}

/* Each record one datagram ending in its only LF, all in order. */
static void check_dgram_chain(const struct t2_sink *s)
{
	char *want = strdup(""), *got = strdup("");

	append_chain_order(&want, 0);
	for (size_t i = 0; i < s->ndgram; i++) {
		const struct t2_buf *b = &s->dgram[i];
		struct tjson *ev;

		assert_true(b->n > 1);
		assert_int_equal(b->p[b->n - 1], '\n');
		assert_null(memchr(b->p, '\n', b->n - 1));
		ev = tjson_parse(b->p, b->n, NULL);
		assert_non_null(ev);
		t2_append(&got, "d%d:%s,", sid_depth(tjson_get_str(ev, "sid")),
			  tjson_get_str(ev, "event"));
		tjson_free(ev);
	}
	assert_string_equal(got, want);
	free(want);
	free(got);
}

static void dgram_socket_one_datagram_per_record(void **state)
{
	(void)state;
	socket_chain(SOCK_DGRAM, "af_unix:dgram:", NULL);
}

/* af_unix:<path> tries stream, then datagram. */
static void plain_prefix_falls_back_to_dgram(void **state)
{
	(void)state;
	socket_chain(SOCK_DGRAM, "af_unix:", NULL);
}

/*
 * Records that wait in a buffer (buffered mode, the deferred mode's
 * writer) still go out one per datagram, as a collector reading a
 * datagram as one record needs, whichever prefix found the socket.
 */
static void dgram_socket_one_record_each_in_every_mode(void **state)
{
	static const char *const modes[] = { "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_BUFFER=64k" };
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		socket_chain(SOCK_DGRAM, "af_unix:dgram:", modes[i]);
		socket_chain(SOCK_DGRAM, "af_unix:", modes[i]);
	}
}

/* ------------------------------------------------------------------ */
/* Failures and their warnings                                         */
/* ------------------------------------------------------------------ */

#define CONNECT_WARNING "warning: trace2: could not connect to socket '%s' for " \
			"'GIT_TRACE2_EVENT' tracing: %s\n"

/*
 * Run "001return 0" with the EVENT target at the value and the debug
 * switch as given; the target is off, nothing reaches the socket; returns
 * stderr (caller frees).
 */
static char *failed_connect_stderr(const char *value, struct t2_sink *s, int debug)
{
	const char *env[] = { NULL, debug ? "GIT_TRACE2_DST_DEBUG=1" : NULL, NULL };
	char *ev = t2_xfmt("GIT_TRACE2_EVENT=%s", value), *err;
	struct t2_proc p;

	env[0] = ev;
	t2_tool(env, &p, "trace2", "001return", "0", NULL);
	assert_true(WIFEXITED(p.status));
	assert_int_equal(WEXITSTATUS(p.status), 0);
	assert_string_equal(p.out, "");
	if (s) {
		t2_sink_pump(s, 0);
		assert_int_equal(s->nconn + s->ndgram, 0);
	}
	err = p.err;
	free(p.out);
	free(ev);
	return err;
}

static void check_warning(const char *value, struct t2_sink *s, const char *want)
{
	char *err = failed_connect_stderr(value, s, 1);

	assert_string_equal(err, want);
	free(err);
	err = failed_connect_stderr(value, s, 0);
	assert_string_equal(err, "");
	free(err);
}

/* prefix + the path of a listener of the other type: the exact warning. */
static void check_wrong_type(const char *prefix, int listener_type)
{
	struct t2_sink s;
	char *value, *want;

	t2_sink_open(&s, listener_type);
	value = t2_xfmt("%s%s", prefix, s.path);
	want = t2_xfmt(CONNECT_WARNING, s.path, "Protocol wrong type for socket");
	check_warning(value, &s, want);
	free(value);
	free(want);
	t2_sink_close(&s);
}

/* The exact warning for "stream:" against a datagram socket. */
static void stream_against_dgram_fails(void **state)
{
	(void)state;
	check_wrong_type("af_unix:stream:", SOCK_DGRAM);
}

/* "dgram:" against a stream socket, like the reverse. */
static void dgram_against_stream_fails(void **state)
{
	(void)state;
	check_wrong_type("af_unix:dgram:", SOCK_STREAM);
}

/* "<dir>/" followed by 'x's up to len bytes in all; caller frees. */
static char *path_of_length(const char *dir, size_t len)
{
	char *p = t2_path(dir, "");

	assert_true(strlen(p) < len);
	p = realloc(p, len + 1);
	memset(p + strlen(p), 'x', len - strlen(p));
	p[len] = '\0';
	return p;
}

/* Missing socket, non-socket file, empty, relative and too long paths
 * (each turns the target off, with a warning only under the debug
 * switch). */
static void unusable_socket_values(void **state)
{
	char *dir = t2_tmpdir(), *missing = t2_path(dir, "missing"),
	     *file = t2_path(dir, "file"), *p107 = path_of_length(dir, 107),
	     *p108 = path_of_length(dir, 108);
	const struct {
		const char *prefix, *path, *reason;
	} connect_fails[] = {
		{ "af_unix:", missing, "No such file or directory" },
		{ "af_unix:stream:", missing, "No such file or directory" },
		{ "af_unix:dgram:", missing, "No such file or directory" },
		{ "af_unix:", file, "Connection refused" },
		{ "af_unix:", p107, "No such file or directory" },
	};
	const struct {
		const char *value, *want;
	} invalid[] = {
		{ "af_unix:stream:", "warning: trace2: invalid AF_UNIX value 'af_unix:stream:' "
				     "for 'GIT_TRACE2_EVENT' tracing\n" },
		{ "af_unix:dgram:rel/path", "warning: trace2: invalid AF_UNIX path 'rel/path' "
					    "for 'GIT_TRACE2_EVENT' tracing\n" },
	};

	(void)state;
	assert_int_equal(t2_write_file(file, "not a socket\n"), 0);
	for (size_t i = 0; i < sizeof(connect_fails) / sizeof(connect_fails[0]); i++) {
		char *value = t2_xfmt("%s%s", connect_fails[i].prefix, connect_fails[i].path),
		     *want = t2_xfmt(CONNECT_WARNING, connect_fails[i].path, connect_fails[i].reason);

		check_warning(value, NULL, want);
		free(value);
		free(want);
	}
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		check_warning(invalid[i].value, NULL, invalid[i].want);
	{
		char *value = t2_xfmt("af_unix:%s", p108),
		     *want = t2_xfmt("warning: trace2: invalid AF_UNIX path '%s' for "
				  "'GIT_TRACE2_EVENT' tracing\n", p108);

		check_warning(value, NULL, want);
		free(value);
		free(want);
	}
	t2_rmtree(dir);
	free(dir);
	free(missing);
	free(file);
	free(p107);
	free(p108);
}

/* ------------------------------------------------------------------ */
/* Every event type through a stream socket, checked as the receiver   */
/* ------------------------------------------------------------------ */

static void *worker(void *arg)
{
	(void)arg;
	trace2_thread_start("worker");
	trace2_region_enter("w", "job", NULL);
	trace2_data_intmax("w", NULL, "n", 3);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 2);
	trace2_region_leave("w", "job", NULL);
	trace2_thread_exit();
	return NULL;
}

static void scenario_command(void)
{
	const char *argv[] = { "prog", "arg", NULL }, *anc[] = { "bash", "init", NULL },
		   *alias[] = { "log", "--oneline", NULL };
	struct key_value_info kvi = KVI_INIT;

	trace2_cmd_start(argv);
	trace2_cmd_path("/usr/bin/prog");
	trace2_cmd_ancestry(anc);
	trace2_cmd_name("rich");
	trace2_cmd_mode("mode");
	trace2_cmd_alias("lg", alias);
	trace2_def_param("p", "https://u:p@h", &kvi);
}

/* Three levels of regions (the third filtered by the EVENT target), data,
 * data_json, and a thread_start on main (a label-less region). */
static void scenario_regions(void)
{
	static struct repository repo = { .worktree = "/w" };
	struct json_writer jw = JSON_WRITER_INIT;

	trace2_def_repo(&repo);
	trace2_region_enter("c", "outer", &repo);
	trace2_region_enter_printf("c", "inner", NULL, "m%d", 1);
	trace2_region_enter("c", "deep", NULL);
	trace2_data_string("c", NULL, "k", "filtered");
	trace2_region_leave("c", "deep", NULL);
	trace2_region_leave_printf("c", "inner", NULL, "m%d", 1);
	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "i", 1);
	jw_end(&jw);
	trace2_data_json("c", &repo, "j", &jw);
	jw_release(&jw);
	trace2_region_leave("c", "outer", &repo);
	trace2_thread_start("fake");
	trace2_printf("inside %s", "fake");
	trace2_thread_exit();
}

static void scenario_children(void)
{
	struct child_process hook = CHILD_PROCESS_INIT, git = CHILD_PROCESS_INIT;
	const char *hook_args[] = { "echo hi", NULL }, *git_args[] = { "status", NULL },
		   *exec_argv[] = { "git", "version", NULL };
	int id;

	hook.args.v = hook_args;
	hook.args.nr = 1;
	hook.trace2_hook_name = "pre-commit";
	hook.use_shell = 1;
	hook.dir = "/tmp";
	trace2_child_start(&hook);
	hook.pid = 42;
	trace2_child_ready(&hook, "ready");
	trace2_child_exit(&hook, 0);
	git.args.v = git_args;
	git.args.nr = 1;
	git.git_cmd = 1;
	git.trace2_child_class = "transport/ssh";
	trace2_child_start(&git);
	git.pid = 43;
	trace2_child_exit(&git, 1);
	id = trace2_exec("git", exec_argv);
	trace2_exec_result(id, 2);
}

static void rich_scenario(void *arg)
{
	pthread_t th;

	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	scenario_command();
	scenario_regions();
	assert_int_equal(pthread_create(&th, NULL, worker, NULL), 0);
	pthread_join(th, NULL);
	scenario_children();
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 5);
	trace2_cmd_error("oops %s", "x");
	trace2_cmd_exit(0);
}

static const char *const ALL_EVENTS[] = {
	"version", "start", "cmd_path", "cmd_ancestry", "cmd_name", "cmd_mode", "alias",
	"def_param", "def_repo", "region_enter", "region_leave", "data_json", "printf",
	"thread_start", "data", "th_timer", "th_counter", "thread_exit", "child_start",
	"child_ready", "child_exit", "exec", "exec_result", "error", "exit", "timer",
	"counter", "atexit", NULL
};

/* Serve a stream listener while fn runs in a child with the EVENT target
 * on it (extra env allowed); returns the wait status. */
static int serve_scenario(struct t2_sink *s, t2_scenario_fn *fn, const char *extra)
{
	char *ev = t2_xfmt("GIT_TRACE2_EVENT=af_unix:stream:%s", s->path);
	const char *env[] = { ev, extra, NULL };
	int status = t2_sink_collect(s, t2_spawn(fn, NULL, env, NULL, NULL));

	free(ev);
	return status;
}

static void receiver_accepts_every_event_type(void **state)
{
	struct t2_sink s;
	char *names, *sid;

	(void)state;
	t2_sink_open(&s, SOCK_STREAM);
	assert_int_equal(serve_scenario(&s, rich_scenario, NULL), 0);
	assert_int_equal(s.nconn, 1);
	assert_int_equal(s.conn[0].p[s.conn[0].n - 1], '\n');
	assert_receiver_accepts(s.conn[0].p);
	sid = process_events(s.conn[0].p, &names);
	for (size_t i = 0; ALL_EVENTS[i]; i++)
		if (!strstr(names, ALL_EVENTS[i]))
			fail_msg("no %s record in: %s", ALL_EVENTS[i], names);
	free(names);
	free(sid);
	t2_sink_close(&s);
}

/* Brief mode drops "time": trace2receiver cannot take it
 * (docs/event-schema.md). */
static void receiver_rejects_brief_stream(void **state)
{
	struct t2_sink s;
	char why[256];

	(void)state;
	t2_sink_open(&s, SOCK_STREAM);
	assert_int_equal(serve_scenario(&s, rich_scenario, "GIT_TRACE2_EVENT_BRIEF=1"), 0);
	assert_int_equal(s.nconn, 1);
	assert_int_equal(receiver_check(s.conn[0].p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "\"time\""));
	t2_sink_close(&s);
}

static void sigpipe_scenario(void *arg)
{
	const char *argv[] = { "prog", NULL };

	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	raise(SIGPIPE);
}

/* A process killed by SIGPIPE ends its stream with "signal". */
static void receiver_accepts_signal_end(void **state)
{
	struct t2_sink s;
	char *names, *sid;
	int status;

	(void)state;
	t2_sink_open(&s, SOCK_STREAM);
	status = serve_scenario(&s, sigpipe_scenario, NULL);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGPIPE);
	assert_int_equal(s.nconn, 1);
	assert_receiver_accepts(s.conn[0].p);
	sid = process_events(s.conn[0].p, &names);
	assert_string_equal(names, "version,start,signal");
	free(names);
	free(sid);
	t2_sink_close(&s);
}

/* ------------------------------------------------------------------ */
/* A reader that goes away; empty records                               */
/* ------------------------------------------------------------------ */

/* Written by the parent (or closed) when the child may go on. */
struct gate {
	int fd[2];
};

static void broken_pipe_scenario(void *arg)
{
	struct gate *g = arg;
	const char *argv[] = { "prog", NULL };
	char c;

	close(g->fd[1]);
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	if (read(g->fd[0], &c, 1) != 1)
		_exit(3);
	trace2_printf("after");
	trace2_printf("again");
	trace2_cmd_exit(0);
}

/* Serve s until connection 0 carries needle. */
static void wait_for_record(struct t2_sink *s, const char *needle)
{
	double deadline = t2_now() + T2_SINK_TIMEOUT_MS / 1000.0;

	while (!s->nconn || !s->conn[0].p || !strstr(s->conn[0].p, needle)) {
		if (t2_now() > deadline)
			fail_msg("no %s record within %d ms", needle, T2_SINK_TIMEOUT_MS);
		t2_sink_pump(s, T2_SINK_POLL_MS);
	}
}

/*
 * The reader closes its end: the next write fails with EPIPE, which
 * neither kills the writer nor is retried; the target goes off and, with
 * the debug switch, the warning goes to stderr and an "error" record to
 * the other targets (docs/configuration.md, "Target values") -- after
 * NORMAL's copy of the failed record, which was dispatched first (the
 * targets run in a fixed order: docs/targets.md).
 */
static void reader_gone_disables_target(void **state)
{
	char *dir = t2_tmpdir(), *normal = t2_path(dir, "normal"), *err = t2_path(dir, "err");
	char *nv = t2_xfmt("GIT_TRACE2=%s", normal), *ev, *got_err, *got_normal;
	struct gate g;
	struct t2_sink s;
	int pid, status;

	(void)state;
	t2_sink_open(&s, SOCK_STREAM);
	ev = t2_xfmt("GIT_TRACE2_EVENT=af_unix:stream:%s", s.path);
	{
		const char *env[] = { nv, ev, "GIT_TRACE2_BRIEF=1", "GIT_TRACE2_DST_DEBUG=1", NULL };

		assert_int_equal(pipe(g.fd), 0);
		pid = t2_spawn(broken_pipe_scenario, &g, env, NULL, err);
	}
	close(g.fd[0]);
	wait_for_record(&s, "\"event\":\"start\"");
	close(s.cfd[0]);
	s.cfd[0] = -1;
	assert_int_equal(write(g.fd[1], "x", 1), 1);
	close(g.fd[1]);
	status = t2_wait_timeout(pid, T2_SINK_TIMEOUT_MS);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	got_err = t2_read_file(err, NULL);
	assert_string_equal(got_err,
			    "warning: unable to write trace to 'GIT_TRACE2_EVENT': Broken pipe\n");
	{
		char *raw = t2_read_file(normal, NULL);

		got_normal = t2_scrub(raw);
		free(raw);
	}
	assert_string_equal(got_normal,
			    "version " TRACE2_VERSION_STRING "\nstart prog\nafter\n"
			    "error unable to write trace to 'GIT_TRACE2_EVENT': Broken pipe\n"
			    "again\n"
			    "exit elapsed:0.000000 code:0\natexit elapsed:0.000000 code:0\n");
	free(got_err);
	free(got_normal);
	free(ev);
	free(nv);
	free(err);
	free(normal);
	t2_rmtree(dir);
	free(dir);
	t2_sink_close(&s);
}

static void empty_printf_scenario(void *arg)
{
	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_printf("%s", "");
	trace2_printf("%s", "x");
}

/* A zero-length record (brief NORMAL, empty printf) is an empty datagram
 * (a socket gets one write per record, whatever its length). */
static void empty_record_is_empty_datagram(void **state)
{
	struct t2_sink s;
	char *value;
	int status;

	(void)state;
	t2_sink_open(&s, SOCK_DGRAM);
	value = t2_xfmt("GIT_TRACE2=af_unix:dgram:%s", s.path);
	{
		const char *env[] = { value, "GIT_TRACE2_BRIEF=1", NULL };

		status = t2_sink_collect(&s, t2_spawn(empty_printf_scenario, NULL, env, NULL, NULL));
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(s.ndgram, 4);
	assert_string_equal(s.dgram[0].p, "version " TRACE2_VERSION_STRING "\n");
	assert_int_equal(s.dgram[1].n, 0);
	assert_string_equal(s.dgram[2].p, "x\n");
	assert_non_null(strstr(s.dgram[3].p, "atexit elapsed:"));
	free(value);
	t2_sink_close(&s);
}

/* ------------------------------------------------------------------ */
/* The flight recorder: connected by its first trigger                 */
/* ------------------------------------------------------------------ */

enum flight_end { FLIGHT_QUIET, FLIGHT_EXIT_1, FLIGHT_DUMP_IN_HANDLER };

static void dump_in_handler(int signo)
{
	(void)signo;
	if (trace2_flight_dump("usr1"))
		_exit(71);
}

/* A region, then the end *arg says: exit 0 (nothing triggered), exit 1,
 * or trace2_flight_dump() from a signal handler, then exit 0. */
static void flight_scenario(void *arg)
{
	enum flight_end end = *(const enum flight_end *)arg;

	trace2_initialize_clock();
	trace2_initialize();
	trace2_region_enter("flight", "work", NULL);
	trace2_region_leave("flight", "work", NULL);
	if (end == FLIGHT_DUMP_IN_HANDLER && (signal(SIGUSR1, dump_in_handler) == SIG_ERR ||
					      raise(SIGUSR1)))
		_exit(72);
	exit(trace2_cmd_exit(end == FLIGHT_EXIT_1));
}

/* Serve a new listener of type while flight_scenario(end) runs with the
 * EVENT target on it; its wait status in *status. */
static void serve_flight(struct t2_sink *s, int type, enum flight_end end, int *status)
{
	char *ev;

	t2_sink_open(s, type);
	ev = t2_xfmt("GIT_TRACE2_EVENT=af_unix:%s:%s", type == SOCK_STREAM ? "stream" : "dgram",
		     s->path);
	{
		const char *env[] = { ev, "GIT_TRACE2_FLIGHT=64k", NULL };

		*status = t2_sink_collect(s, t2_spawn(flight_scenario, &end, env, NULL, NULL));
	}
	free(ev);
}

/* What s received, in order: its connections' bytes or its datagrams,
 * each of them one record, ending in its only LF. */
static char *received(const struct t2_sink *s)
{
	char *all = NULL;
	size_t i;

	for (i = 0; i < s->nconn; i++)
		t2_append(&all, "%s", s->conn[i].p ? s->conn[i].p : "");
	for (i = 0; i < s->ndgram; i++) {
		const struct t2_buf *b = &s->dgram[i];

		assert_true(b->n && b->p[b->n - 1] == '\n');
		assert_null(memchr(b->p, '\n', b->n - 1));
		t2_append(&all, "%s", b->p);
	}
	return all ? all : t2_xfmt("%s", "");
}

/*
 * With the flight recorder a socket target is connected by the first
 * trigger, as a file is made by it: a run that never triggers makes no
 * connection (a collector would see one per process, most of them
 * empty); a trigger connects, at exit or inside a signal handler, and
 * sends the records, with the dump's reason.
 */
static void flight_connects_at_the_trigger(void **state)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM };
	struct t2_sink s;
	int status;
	size_t i;
	char *all;

	(void)state;
	for (i = 0; i < 2; i++) {
		serve_flight(&s, types[i], FLIGHT_QUIET, &status);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		assert_int_equal(s.nconn, 0);
		assert_int_equal(s.ndgram, 0);
		t2_sink_close(&s);
		serve_flight(&s, types[i], FLIGHT_EXIT_1, &status);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
		if (types[i] == SOCK_STREAM)
			assert_int_equal(s.nconn, 1);
		else
			assert_true(s.ndgram > 0);
		all = received(&s);
		assert_true(!strncmp(all, "{\"event\":\"version\",", 19));
		assert_non_null(strstr(all, "\"label\":\"work\""));
		assert_non_null(strstr(all, "\"key\":\"flight\",\"value\":\"exit\""));
		free(all);
		t2_sink_close(&s);
	}
	serve_flight(&s, SOCK_STREAM, FLIGHT_DUMP_IN_HANDLER, &status);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(s.nconn, 1);
	assert_non_null(strstr(s.conn[0].p, "\"key\":\"flight\",\"value\":\"usr1\""));
	t2_sink_close(&s);
}

/* ------------------------------------------------------------------ */
/* A collector that does not accept                                    */
/* ------------------------------------------------------------------ */

/* GIT_TRACE2_DST_TIMEOUT of these tests. */
#define BACKLOG_LIMIT_MS 500
#define MAX_PENDING 64

/* A stream listener that never accepts, its backlog filled by clients
 * of the test. */
struct full_listener {
	char *dir, *path;
	int fd;
	int clients[MAX_PENDING];
	int n;
};

static void open_full_listener(struct full_listener *l)
{
	struct sockaddr_un sa;

	l->dir = t2_tmpdir();
	l->path = t2_path(l->dir, "sock");
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	assert_true(strlen(l->path) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, l->path);
	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l->fd >= 0);
	assert_int_equal(bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(l->fd, 0), 0);
	for (l->n = 0; l->n < MAX_PENDING; l->n++) {
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err;

		assert_true(c >= 0);
		if (!connect(c, (struct sockaddr *)&sa, sizeof(sa))) {
			l->clients[l->n] = c;
			continue;
		}
		err = errno;
		close(c);
		assert_int_equal(err, EAGAIN); /* the backlog is full */
		break;
	}
	assert_true(l->n < MAX_PENDING);
}

static void close_full_listener(struct full_listener *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		close(l->clients[i]);
	close(l->fd);
	t2_rmtree(l->dir);
	free(l->dir);
	free(l->path);
}

static void sc_timed_initialize(void *arg)
{
	double t0 = t2_now();

	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	printf("enabled %d after %d ms\n", trace2_is_enabled(), (int)((t2_now() - t0) * 1000));
}

/* The targets named (NULL-terminated) at the listener: initialize's
 * milliseconds; every target off, with one warning each. */
static int initialize_against_full_backlog(const char *const *targets)
{
	struct full_listener l;
	struct t2_env e = { 0 };
	struct t2_proc p;
	char *want = NULL;
	int enabled = -1, ms = -1, i;

	open_full_listener(&l);
	for (i = 0; targets[i]; i++) {
		t2_env_add(&e, "%s=af_unix:%s", targets[i], l.path);
		t2_append(&want, "warning: trace2: could not connect to socket '%s' for '%s' "
			  "tracing: %s\n", l.path, targets[i], strerror(EAGAIN));
	}
	t2_env_add(&e, "GIT_TRACE2_DST_TIMEOUT=%d", BACKLOG_LIMIT_MS);
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	t2_capture(sc_timed_initialize, NULL, t2_env_list(&e), 10, &p);
	print_message("[socket] %s%s", p.out, p.err);
	if (!WIFEXITED(p.status))
		fail_msg("trace2_initialize() did not return (killed after 10 s)");
	assert_int_equal(WEXITSTATUS(p.status), 0);
	assert_int_equal(sscanf(p.out, "enabled %d after %d ms", &enabled, &ms), 2);
	assert_int_equal(enabled, 0);
	assert_string_equal(p.err, want);
	/* it did wait for the collector: up to the limit */
	assert_true(ms >= BACKLOG_LIMIT_MS * 9 / 10);
	free(want);
	t2_proc_free(&p);
	t2_env_free(&e);
	close_full_listener(&l);
	return ms;
}

/* Before, connect() waited for the collector to accept, for good. */
static void connect_to_full_backlog_is_bounded(void **state)
{
	static const char *const targets[] = { "GIT_TRACE2_EVENT", NULL };

	(void)state;
	assert_true(initialize_against_full_backlog(targets) < 10 * BACKLOG_LIMIT_MS);
}

/* The second target does not wait for the collector again. */
static void full_backlog_costs_one_limit_for_all_targets(void **state)
{
	static const char *const targets[] = { "GIT_TRACE2", "GIT_TRACE2_EVENT", NULL };

	(void)state;
	assert_true(initialize_against_full_backlog(targets) < 2 * BACKLOG_LIMIT_MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(receiver_checker_rules),
		cmocka_unit_test(stream_socket_chain),
		cmocka_unit_test(plain_prefix_prefers_stream),
		cmocka_unit_test(dgram_socket_one_datagram_per_record),
		cmocka_unit_test(plain_prefix_falls_back_to_dgram),
		cmocka_unit_test(dgram_socket_one_record_each_in_every_mode),
		cmocka_unit_test(stream_against_dgram_fails),
		cmocka_unit_test(dgram_against_stream_fails),
		cmocka_unit_test(unusable_socket_values),
		cmocka_unit_test(receiver_accepts_every_event_type),
		cmocka_unit_test(receiver_rejects_brief_stream),
		cmocka_unit_test(receiver_accepts_signal_end),
		cmocka_unit_test(reader_gone_disables_target),
		cmocka_unit_test(empty_record_is_empty_datagram),
		cmocka_unit_test(flight_connects_at_the_trigger),
		cmocka_unit_test(connect_to_full_backlog_is_bounded),
		cmocka_unit_test(full_backlog_costs_one_limit_for_all_targets),
	};

	/* A reader that goes away must not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
