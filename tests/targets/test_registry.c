/*
 * The target registry and the public target interface
 * (include/trace2/target.h), seen from a target written against it.
 *
 * The test target ("rec") serialises every record it is handed into a
 * line of JSON of its own (serialize(): the raw members, named after the
 * struct's, no interpretation), written at once with write(2) or through
 * trace2_output_write().  every_event_kind compares those lines, record
 * by record and field by field, with what the built-in event target
 * wrote in the same run, reading the event target's format as
 * docs/targets.md ("Event") describes it: KINDS[] names, per kind, each
 * JSON key and the member it must show.
 *
 * The other tests: sixteen_targets (19 targets on one fd: dispatch
 * order), registration_errors and registry_full (errno of every refusal,
 * TRACE2_TARGETS_MAX), setting_target_* and open_refused (a target with
 * the setting "mine": GIT_TRACE2_MINE, trace2.mineTarget, the brief flag,
 * created, every destination kind, failures), no_setting_lifecycle (on by
 * itself; open, flush, shutdown) and reentry_ignored.
 *
 * Every scenario runs in a forked child (t2_run_noinit(): clean
 * environment, empty HOME; the child registers its targets and then calls
 * trace2_initialize() itself).  Checks inside a child use CHECK()
 * (t2test.h), which ends the child with status 70.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2sink.h"
#include "t2test.h"
#include "tjson.h"
#include "trace2.h"
#include "trace2/target.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* The test target's serialiser: async-signal-safe (a stack buffer, no  */
/* allocation, no stdio), as the SIGNAL record needs.                   */
/* ------------------------------------------------------------------ */

struct sb {
	char *p;
	size_t n, cap;
};

static void sb_add(struct sb *b, const char *s, size_t len)
{
	if (len > b->cap - b->n)
		len = b->cap - b->n; /* cut: the parent then fails to parse it */
	memcpy(b->p + b->n, s, len);
	b->n += len;
}

static void sb_s(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_u64(struct sb *b, uint64_t v)
{
	char t[24];
	size_t i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_add(b, t + i, sizeof(t) - i);
}

static void sb_i64(struct sb *b, int64_t v)
{
	if (v < 0) {
		sb_s(b, "-");
		sb_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_u64(b, (uint64_t)v);
	}
}

/* A JSON string of s[0..len) (null for NULL). */
static void sb_jstrn(struct sb *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (!s) {
		sb_s(b, "null");
		return;
	}
	sb_s(b, "\"");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			sb_add(b, e, 2);
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			sb_add(b, e, 6);
		} else {
			sb_add(b, (const char *)&s[i], 1);
		}
	}
	sb_s(b, "\"");
}

static void sb_key(struct sb *b, const char *key)
{
	if (b->n && b->p[b->n - 1] != '{' && b->p[b->n - 1] != '[')
		sb_s(b, ",");
	sb_jstrn(b, key, strlen(key));
	sb_s(b, ":");
}

static void kv_strn(struct sb *b, const char *k, const char *s, size_t len)
{
	sb_key(b, k);
	sb_jstrn(b, s, len);
}

static void kv_str(struct sb *b, const char *k, const char *s)
{
	kv_strn(b, k, s, s ? strlen(s) : 0);
}

static void kv_i64(struct sb *b, const char *k, int64_t v)
{
	sb_key(b, k);
	sb_i64(b, v);
}

static void kv_u64(struct sb *b, const char *k, uint64_t v)
{
	sb_key(b, k);
	sb_u64(b, v);
}

static void kv_argv(struct sb *b, const char *k, const char *const *argv)
{
	sb_key(b, k);
	if (!argv) {
		sb_s(b, "null");
		return;
	}
	sb_s(b, "[");
	for (; *argv; argv++) {
		if (b->p[b->n - 1] != '[')
			sb_s(b, ",");
		sb_jstrn(b, *argv, strlen(*argv));
	}
	sb_s(b, "]");
}

/*
 * The kind's own members, as they are (the "f" object of a line): per
 * kind the members of its struct, each written under its own name by its
 * C type (_Generic picks the type, so a member whose type changes cannot
 * be read as another).
 */
enum mtype { MT_END, MT_STR, MT_STRN, MT_INT, MT_LONG, MT_U64, MT_ARGV };

struct member {
	const char *key;
	enum mtype type;
	size_t off;     /* in struct trace2_event */
	size_t len_off; /* MT_STRN: the offset of its size_t length */
};

#define MTYPE(e) _Generic((e), const char *: MT_STR, int: MT_INT, long: MT_LONG, \
			  uint64_t: MT_U64, const char *const *: MT_ARGV)
#define EV_OFF(u, f) offsetof(struct trace2_event, u.f)
#define MB(u, f) { #f, MTYPE(((const struct trace2_event *)0)->u.f), EV_OFF(u, f), 0 }
#define MB_N(u, f, len) { #f, MT_STRN, EV_OFF(u, f), EV_OFF(u, len) }
#define MB_END { NULL, MT_END, 0, 0 }

static const struct member VERSION_MB[] = { MB(version, exe), MB_END };
static const struct member START_MB[] = { MB(start, argv), MB_END };
static const struct member EXIT_MB[] = { MB(exit, code), MB_END };
static const struct member SIGNAL_MB[] = { MB(signal, signo), MB_END };
static const struct member ERROR_MB[] = { MB(error, msg), MB(error, fmt), MB_END };
static const struct member CMD_PATH_MB[] = { MB(cmd_path, path), MB_END };
static const struct member CMD_ANCESTRY_MB[] = { MB(cmd_ancestry, names), MB_END };
static const struct member CMD_NAME_MB[] = {
	MB(cmd_name, name), MB(cmd_name, hierarchy), MB_END
};
static const struct member CMD_MODE_MB[] = { MB(cmd_mode, name), MB_END };
static const struct member ALIAS_MB[] = { MB(alias, alias), MB(alias, argv), MB_END };
static const struct member CHILD_MB[] = {
	MB(child, id), MB(child, pid), MB(child, child_class), MB(child, hook_name),
	MB(child, cd), MB(child, argv), MB(child, git_cmd), MB(child, use_shell),
	MB(child, code), MB(child, ready), MB_END
};
static const struct member EXEC_MB[] = {
	MB(exec, id), MB(exec, exe), MB(exec, argv), MB(exec, code), MB_END
};
static const struct member DEF_PARAM_MB[] = {
	MB(def_param, param), MB(def_param, value), MB(def_param, scope), MB_END
};
static const struct member DEF_REPO_MB[] = {
	MB(def_repo, repo_id), MB(def_repo, worktree), MB_END
};
static const struct member REGION_MB[] = {
	MB(region, category), MB(region, label), MB(region, repo_id), MB(region, msg), MB_END
};
static const struct member DATA_MB[] = {
	MB(data, category), MB(data, repo_id), MB(data, key), MB(data, value),
	MB_N(data, json, json_len), MB(data, json_pretty), MB(data, json_open), MB_END
};
static const struct member PRINTF_MB[] = { MB(printf, msg), MB_END };
static const struct member TIMER_MB[] = {
	MB(timer, category), MB(timer, name), MB(timer, intervals), MB(timer, total_ns),
	MB(timer, min_ns), MB(timer, max_ns), MB_END
};
static const struct member COUNTER_MB[] = {
	MB(counter, category), MB(counter, name), MB(counter, value), MB_END
};

/* too_many_files, thread_start, thread_exit: no members */
static const struct member *const MEMBERS[TRACE2_EVENT_KIND_MAX] = {
	[TRACE2_EVENT_VERSION] = VERSION_MB,
	[TRACE2_EVENT_START] = START_MB,
	[TRACE2_EVENT_EXIT] = EXIT_MB,
	[TRACE2_EVENT_ATEXIT] = EXIT_MB,
	[TRACE2_EVENT_SIGNAL] = SIGNAL_MB,
	[TRACE2_EVENT_ERROR] = ERROR_MB,
	[TRACE2_EVENT_CMD_PATH] = CMD_PATH_MB,
	[TRACE2_EVENT_CMD_ANCESTRY] = CMD_ANCESTRY_MB,
	[TRACE2_EVENT_CMD_NAME] = CMD_NAME_MB,
	[TRACE2_EVENT_CMD_MODE] = CMD_MODE_MB,
	[TRACE2_EVENT_ALIAS] = ALIAS_MB,
	[TRACE2_EVENT_CHILD_START] = CHILD_MB,
	[TRACE2_EVENT_CHILD_EXIT] = CHILD_MB,
	[TRACE2_EVENT_CHILD_READY] = CHILD_MB,
	[TRACE2_EVENT_EXEC] = EXEC_MB,
	[TRACE2_EVENT_EXEC_RESULT] = EXEC_MB,
	[TRACE2_EVENT_DEF_PARAM] = DEF_PARAM_MB,
	[TRACE2_EVENT_DEF_REPO] = DEF_REPO_MB,
	[TRACE2_EVENT_REGION_ENTER] = REGION_MB,
	[TRACE2_EVENT_REGION_LEAVE] = REGION_MB,
	[TRACE2_EVENT_DATA] = DATA_MB,
	[TRACE2_EVENT_DATA_JSON] = DATA_MB,
	[TRACE2_EVENT_PRINTF] = PRINTF_MB,
	[TRACE2_EVENT_TIMER] = TIMER_MB,
	[TRACE2_EVENT_TH_TIMER] = TIMER_MB,
	[TRACE2_EVENT_COUNTER] = COUNTER_MB,
	[TRACE2_EVENT_TH_COUNTER] = COUNTER_MB,
};

static void serialize_fields(struct sb *b, const struct trace2_event *ev)
{
	const char *base = (const char *)ev;
	const struct member *m;

	if ((unsigned)ev->kind >= TRACE2_EVENT_KIND_MAX)
		return;
	for (m = MEMBERS[ev->kind]; m && m->key; m++) {
		const void *p = base + m->off;

		switch (m->type) {
		case MT_STR:
			kv_str(b, m->key, *(const char *const *)p);
			break;
		case MT_STRN:
			kv_strn(b, m->key, *(const char *const *)p,
				*(const size_t *)(const void *)(base + m->len_off));
			break;
		case MT_INT:
			kv_i64(b, m->key, *(const int *)p);
			break;
		case MT_LONG:
			kv_i64(b, m->key, *(const long *)p);
			break;
		case MT_U64:
			kv_u64(b, m->key, *(const uint64_t *)p);
			break;
		case MT_ARGV:
			kv_argv(b, m->key, *(const char *const *const *)p);
			break;
		case MT_END:
			break;
		}
	}
}

/* One record as one line of JSON. */
static void serialize(struct sb *b, const struct trace2_event *ev)
{
	const struct trace2_thread *th = ev->thread;
	const struct trace2_process *pr = ev->process;

	sb_s(b, "{");
	kv_str(b, "ev", trace2_event_name(ev->kind));
	kv_i64(b, "kind", ev->kind);
	kv_strn(b, "thread", th->name, th->name_len);
	kv_strn(b, "thread_json", th->json_name, th->json_name_len);
	kv_i64(b, "tid", th->id);
	kv_strn(b, "sid", pr->sid, pr->sid_len);
	kv_strn(b, "sid_json", pr->sid_json, pr->sid_json_len);
	kv_i64(b, "depth", pr->depth);
	kv_str(b, "utc", trace2_event_utc_time(ev));
	kv_str(b, "local", trace2_event_local_time(ev));
	kv_str(b, "file", ev->file);
	kv_i64(b, "line", ev->line);
	kv_u64(b, "time_us", ev->time_us);
	kv_u64(b, "t_abs_us", ev->t_abs_us);
	kv_u64(b, "t_rel_us", ev->t_rel_us);
	kv_u64(b, "nesting", ev->nesting);
	sb_key(b, "f");
	sb_s(b, "{");
	serialize_fields(b, ev);
	sb_s(b, "}}\n");
}

/* ------------------------------------------------------------------ */
/* The test target.                                                     */
/* ------------------------------------------------------------------ */

struct rec {
	const char *prefix;         /* put before each record line, or NULL */
	int fd;                     /* records go here with write(2) ... */
	struct trace2_output *out;  /* ... or, when open() got one, here */
	int log_fd;                 /* "#..." lines (callbacks); -1: fd */
	int log_events;             /* also "#ev <name>" for every event() */
	int open_rc;                /* what open() returns */
	int reenter;                /* event() calls trace2 itself */
};

static _Thread_local int in_callback;

static void put(int fd, const char *s, size_t len)
{
	while (fd >= 0 && len) {
		ssize_t w = write(fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		len -= (size_t)w;
	}
}

static void rec_log(const struct rec *r, const char *line)
{
	put(r->log_fd >= 0 ? r->log_fd : r->fd, line, strlen(line));
}

static int rec_open(void *ctx, const struct trace2_target_config *c)
{
	struct rec *r = ctx;
	char line[128];

	r->out = c->output;
	snprintf(line, sizeof(line), "#open output=%d brief=%d created=%d\n",
		 c->output != NULL, c->brief, c->created);
	rec_log(r, line);
	return r->open_rc;
}

/* Calls that, made from inside a callback, must be ignored. */
static void reenter_calls(void)
{
	trace2_region_enter("re", "enter", NULL);
	trace2_region_enter_printf("re", "enter", NULL, "m%d", 1);
	trace2_printf("re %d", 1);
	trace2_data_string("re", NULL, "k", "v");
	trace2_data_intmax("re", NULL, "n", 1);
	trace2_cmd_error("re %d", 1);
	trace2_def_param("re.p", "v", NULL);
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 1);
	trace2_region_leave("re", "leave", NULL);
}

static void rec_event(void *ctx, const struct trace2_event *ev)
{
	struct rec *r = ctx;
	char mem[16384];
	struct sb b = { mem, 0, sizeof(mem) };
	int saved = errno;

	if (in_callback++)
		rec_log(r, "#RECURSION\n");
	if (r->log_events) {
		char line[64] = "#ev ";

		strncat(line, trace2_event_name(ev->kind), sizeof(line) - 6);
		strcat(line, "\n");
		rec_log(r, line);
	}
	if (r->prefix)
		sb_s(&b, r->prefix);
	serialize(&b, ev);
	if (r->reenter && ev->kind != TRACE2_EVENT_SIGNAL)
		reenter_calls();
	if (r->out) {
		if (trace2_output_write(r->out, mem, b.n, ev))
			rec_log(r, "#write failed\n");
	} else {
		put(r->fd, mem, b.n);
	}
	in_callback--;
	errno = saved;
}

static void rec_flush(void *ctx)
{
	rec_log(ctx, "#flush\n");
}

static void rec_shutdown(void *ctx)
{
	rec_log(ctx, "#shutdown\n");
}

#define REC_TARGET(name, setting, flags) \
	{ TRACE2_TARGET_ABI_VERSION, (name), (setting), (flags), \
	  rec_open, rec_event, rec_flush, rec_shutdown }

static int open_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);

	CHECK(fd >= 0);
	return fd;
}

/* In a child: register a test target without a setting, named name,
 * that appends its records and log lines to the file path.  Returns its
 * state (static: the registry keeps it), to be changed before
 * trace2_initialize(). */
static struct rec *register_file_target(const char *name, const char *path)
{
	static struct rec recs[4];
	static struct trace2_target ts[4];
	static size_t n;

	CHECK(n < ARRAY_SIZE(recs));
	recs[n] = (struct rec){ .fd = open_append(path), .log_fd = -1 };
	ts[n] = (struct trace2_target)REC_TARGET(name, NULL, 0);
	CHECK(trace2_register_target(&ts[n], &recs[n]) == 0);
	return &recs[n++];
}

/* Default disposition and unblocked, as a process would start. */
static void default_signal(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void sleep_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */
/* Parent side: lines of JSON.                                          */
/* ------------------------------------------------------------------ */

struct jl {
	size_t n;
	char **line;
	struct tjson **v;
};

/* Every line of text as JSON; lines starting with '#' (the test target's
 * log lines) left out. */
static void jl_parse(struct jl *jl, const char *what, const char *text)
{
	char **lines = t2_lines(text ? text : "", NULL);
	size_t i;

	memset(jl, 0, sizeof(*jl));
	for (i = 0; lines[i]; i++) {
		const char *err = NULL;
		struct tjson *v;

		if (lines[i][0] == '#')
			continue;
		v = tjson_parse(lines[i], strlen(lines[i]), &err);
		if (!v)
			fail_msg("%s: line %zu is no JSON (%s): %s", what, i + 1, err, lines[i]);
		jl->line = realloc(jl->line, (jl->n + 1) * sizeof(*jl->line));
		jl->v = realloc(jl->v, (jl->n + 1) * sizeof(*jl->v));
		jl->line[jl->n] = strdup(lines[i]);
		jl->v[jl->n++] = v;
	}
	t2_strv_free(lines);
}

static void jl_free(struct jl *jl)
{
	size_t i;

	for (i = 0; i < jl->n; i++) {
		free(jl->line[i]);
		tjson_free(jl->v[i]);
	}
	free(jl->line);
	free(jl->v);
	memset(jl, 0, sizeof(*jl));
}

static void jl_read(struct jl *jl, const char *what, const char *path)
{
	char *text = t2_read_file(path, NULL);

	if (!text)
		fail_msg("%s: cannot read %s", what, path);
	jl_parse(jl, what, text);
	free(text);
}

static const char *jstr(const struct tjson *v)
{
	return v && v->type == TJSON_STRING ? v->text : NULL;
}

static const struct tjson *rec_field(const struct tjson *rec, const char *name)
{
	const struct tjson *f = tjson_get(rec, "f");
	const struct tjson *v = f ? tjson_get(f, name) : NULL;

	return v ? v : tjson_get(rec, name);
}

/* The test target's event name of a line (trace2_event_name()). */
static const char *rec_ev(const struct tjson *rec)
{
	return jstr(tjson_get(rec, "ev"));
}

static uint64_t rec_u64(const struct tjson *rec, const char *name)
{
	const struct tjson *v = rec_field(rec, name);

	assert_non_null(v);
	assert_int_equal(v->type, TJSON_NUMBER);
	return strtoull(v->text, NULL, 10);
}

static int64_t rec_i64(const struct tjson *rec, const char *name)
{
	const struct tjson *v = rec_field(rec, name);

	assert_non_null(v);
	assert_int_equal(v->type, TJSON_NUMBER);
	return strtoll(v->text, NULL, 10);
}

static const char *rec_str(const struct tjson *rec, const char *name)
{
	return jstr(rec_field(rec, name));
}

/* The names of the records of a stream, space-separated; caller frees. */
static char *jl_names(const struct jl *jl, const char *key)
{
	char *out = strdup("");
	size_t i;

	for (i = 0; i < jl->n; i++) {
		const char *name = jstr(tjson_get(jl->v[i], key));

		t2_append(&out, "%s%s", i ? " " : "", name ? name : "?");
	}
	return out;
}

/*
 * A test target's output as one line: each record's event name and each
 * "#..." log line, in order, space-separated; with only set, just the
 * log lines starting with it, without it ("#ev " gives the kinds event()
 * was called for).  Caller frees.
 */
static char *sequence(const char *text, const char *only)
{
	char **lines = t2_lines(text, NULL), *out = strdup("");
	size_t i;

	for (i = 0; lines[i]; i++) {
		struct tjson *v = NULL;
		const char *item = lines[i];

		if (only) {
			if (strncmp(item, only, strlen(only)))
				continue;
			item += strlen(only);
		} else if (item[0] != '#') {
			v = tjson_parse(item, strlen(item), NULL);
			item = v && rec_ev(v) ? rec_ev(v) : "INVALID";
		}
		t2_append(&out, "%s%s", *out ? " " : "", item);
		tjson_free(v);
	}
	t2_strv_free(lines);
	return out;
}

/* ------------------------------------------------------------------ */
/* The event target's view of each kind (docs/targets.md, "Event").     */
/* ------------------------------------------------------------------ */

enum conv {
	C_END,
	C_STR,        /* a string, or JSON null for a NULL one */
	C_OPT,        /* a string; the key absent for a NULL one */
	C_INT,        /* the same integer */
	C_BOOL,       /* true exactly when the member is non-zero */
	C_US,         /* microseconds, as seconds with six decimals */
	C_NS,         /* nanoseconds, as seconds with six decimals */
	C_ARGV,       /* the same array of strings */
	C_CHILD_ARGV, /* argv, with "git" first for a git_cmd child */
	C_CLASS,      /* "hook" for a hook, "?" for no class, else the class */
	C_REPO,       /* repo_id; the key absent for TRACE2_NO_REPO */
	C_JSON,       /* the writer's text as embedded JSON */
	C_CONST,      /* the JSON string is the "field" text itself */
};

struct key_map {
	const char *key;   /* in the event target's record */
	const char *field; /* of the test target's line */
	enum conv conv;
};

struct kind_map {
	enum trace2_event_kind kind;
	const char *name;  /* the event target's "event" */
	struct key_map keys[8];
};

#define T_ABS { "t_abs", "t_abs_us", C_US }
#define T_REL { "t_rel", "t_rel_us", C_US }
#define NESTING { "nesting", "nesting", C_INT }
#define REPO { "repo", "repo_id", C_REPO }
#define TIMER_KEYS { "category", "category", C_STR }, { "name", "name", C_STR }, \
	{ "intervals", "intervals", C_INT }, { "t_total", "total_ns", C_NS }, \
	{ "t_min", "min_ns", C_NS }, { "t_max", "max_ns", C_NS }
#define COUNTER_KEYS { "category", "category", C_STR }, { "name", "name", C_STR }, \
	{ "count", "value", C_INT }

static const struct kind_map KINDS[] = {
	{ TRACE2_EVENT_VERSION, "version", { { "evt", "4", C_CONST }, { "exe", "exe", C_STR } } },
	{ TRACE2_EVENT_TOO_MANY_FILES, "too_many_files", { { 0 } } },
	{ TRACE2_EVENT_START, "start", { T_ABS, { "argv", "argv", C_ARGV } } },
	{ TRACE2_EVENT_EXIT, "exit", { T_ABS, { "code", "code", C_INT } } },
	{ TRACE2_EVENT_SIGNAL, "signal", { T_ABS, { "signo", "signo", C_INT } } },
	{ TRACE2_EVENT_ATEXIT, "atexit", { T_ABS, { "code", "code", C_INT } } },
	{ TRACE2_EVENT_ERROR, "error", { { "msg", "msg", C_OPT }, { "fmt", "fmt", C_OPT } } },
	{ TRACE2_EVENT_CMD_PATH, "cmd_path", { { "path", "path", C_STR } } },
	{ TRACE2_EVENT_CMD_ANCESTRY, "cmd_ancestry", { { "ancestry", "names", C_ARGV } } },
	{ TRACE2_EVENT_CMD_NAME, "cmd_name",
	  { { "name", "name", C_STR }, { "hierarchy", "hierarchy", C_OPT } } },
	{ TRACE2_EVENT_CMD_MODE, "cmd_mode", { { "name", "name", C_STR } } },
	{ TRACE2_EVENT_ALIAS, "alias", { { "alias", "alias", C_STR }, { "argv", "argv", C_ARGV } } },
	{ TRACE2_EVENT_CHILD_START, "child_start",
	  { { "child_id", "id", C_INT }, { "child_class", "child_class", C_CLASS },
	    { "hook_name", "hook_name", C_OPT }, { "cd", "cd", C_OPT },
	    { "use_shell", "use_shell", C_BOOL }, { "argv", "argv", C_CHILD_ARGV } } },
	{ TRACE2_EVENT_CHILD_EXIT, "child_exit",
	  { { "child_id", "id", C_INT }, { "pid", "pid", C_INT }, { "code", "code", C_INT }, T_REL } },
	{ TRACE2_EVENT_CHILD_READY, "child_ready",
	  { { "child_id", "id", C_INT }, { "pid", "pid", C_INT }, { "ready", "ready", C_STR }, T_REL } },
	{ TRACE2_EVENT_THREAD_START, "thread_start", { { 0 } } },
	{ TRACE2_EVENT_THREAD_EXIT, "thread_exit", { T_REL } },
	{ TRACE2_EVENT_EXEC, "exec",
	  { { "exec_id", "id", C_INT }, { "exe", "exe", C_OPT }, { "argv", "argv", C_ARGV } } },
	{ TRACE2_EVENT_EXEC_RESULT, "exec_result",
	  { { "exec_id", "id", C_INT }, { "code", "code", C_INT } } },
	{ TRACE2_EVENT_DEF_PARAM, "def_param",
	  { { "scope", "scope", C_STR }, { "param", "param", C_STR }, { "value", "value", C_OPT } } },
	{ TRACE2_EVENT_DEF_REPO, "def_repo",
	  { { "repo", "repo_id", C_INT }, { "worktree", "worktree", C_STR } } },
	{ TRACE2_EVENT_REGION_ENTER, "region_enter",
	  { REPO, NESTING, { "category", "category", C_OPT }, { "label", "label", C_OPT },
	    { "msg", "msg", C_OPT } } },
	{ TRACE2_EVENT_REGION_LEAVE, "region_leave",
	  { REPO, T_REL, NESTING, { "category", "category", C_OPT }, { "label", "label", C_OPT },
	    { "msg", "msg", C_OPT } } },
	{ TRACE2_EVENT_DATA, "data",
	  { REPO, T_ABS, T_REL, NESTING, { "category", "category", C_STR },
	    { "key", "key", C_STR }, { "value", "value", C_STR } } },
	{ TRACE2_EVENT_DATA_JSON, "data_json",
	  { REPO, T_ABS, T_REL, NESTING, { "category", "category", C_STR },
	    { "key", "key", C_STR }, { "value", "json", C_JSON } } },
	{ TRACE2_EVENT_PRINTF, "printf", { T_ABS, { "msg", "msg", C_OPT } } },
	{ TRACE2_EVENT_TIMER, "timer", { TIMER_KEYS } },
	{ TRACE2_EVENT_TH_TIMER, "th_timer", { TIMER_KEYS } },
	{ TRACE2_EVENT_COUNTER, "counter", { COUNTER_KEYS } },
	{ TRACE2_EVENT_TH_COUNTER, "th_counter", { COUNTER_KEYS } },
};

_Static_assert(ARRAY_SIZE(KINDS) == TRACE2_EVENT_KIND_MAX - 1, "one row per kind");

static const struct kind_map *kind_map(long kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(KINDS); i++)
		if ((long)KINDS[i].kind == kind)
			return &KINDS[i];
	return NULL;
}

/* Records that come from no caller (target.h: file NULL). */
static int kind_without_location(long kind)
{
	return kind == TRACE2_EVENT_SIGNAL || kind == TRACE2_EVENT_ATEXIT ||
	       kind == TRACE2_EVENT_TIMER || kind == TRACE2_EVENT_TH_TIMER ||
	       kind == TRACE2_EVENT_COUNTER || kind == TRACE2_EVENT_TH_COUNTER;
}

/* Records with a t_rel (target.h); all others have t_rel_us 0. */
static int kind_with_t_rel(long kind)
{
	return kind == TRACE2_EVENT_REGION_LEAVE || kind == TRACE2_EVENT_DATA ||
	       kind == TRACE2_EVENT_DATA_JSON || kind == TRACE2_EVENT_CHILD_EXIT ||
	       kind == TRACE2_EVENT_CHILD_READY || kind == TRACE2_EVENT_THREAD_EXIT;
}

/* The names trace2_event_name() gives, from target.h's promise of the
 * event target's names. */
static void event_names(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(KINDS); i++)
		assert_string_equal(trace2_event_name(KINDS[i].kind), KINDS[i].name);
	assert_string_equal(trace2_event_name((enum trace2_event_kind)0), "");
	assert_string_equal(trace2_event_name(TRACE2_EVENT_KIND_MAX), "");
}

/* ------------------------------------------------------------------ */
/* Comparing one event-target record with one test-target record.       */
/* ------------------------------------------------------------------ */

struct cmp {
	const char *what;
	size_t index;
	const char *eline, *rline;
	int brief;         /* the event target ran in brief mode */
};

#define MISMATCH(c, ...)                                                       \
	do {                                                                   \
		print_error("%s, record %zu:\n  event target: %s\n  test target:  %s\n", \
			    (c)->what, (c)->index, (c)->eline, (c)->rline);    \
		fail_msg(__VA_ARGS__);                                         \
	} while (0)

static char *fmt_us(uint64_t us)
{
	return t2_xfmt("%llu.%06llu", (unsigned long long)(us / 1000000),
		       (unsigned long long)(us % 1000000));
}

/* "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" or (local) "HH:MM:SS.uuuuuu" of time_us. */
static char *fmt_wall(uint64_t time_us, int utc)
{
	time_t secs = (time_t)(time_us / 1000000);
	struct tm tm;
	char buf[64];

	if (utc)
		gmtime_r(&secs, &tm);
	else
		localtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), utc ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S", &tm);
	return t2_xfmt("%s.%06llu%s", buf, (unsigned long long)(time_us % 1000000),
		       utc ? "Z" : "");
}

static void want_num(struct cmp *c, const char *key, const struct tjson *e,
		     const char *want)
{
	if (!e || e->type != TJSON_NUMBER || strcmp(e->text, want))
		MISMATCH(c, "\"%s\" should be the number %s", key, want);
}

static void want_str(struct cmp *c, const char *key, const struct tjson *e,
		     const char *want)
{
	if (!jstr(e) || strcmp(jstr(e), want))
		MISMATCH(c, "\"%s\" should be the string \"%s\"", key, want);
}

static void want_strv(struct cmp *c, const char *key, const struct tjson *e,
		      const struct tjson *argv, const char *first)
{
	size_t n = argv->n + (first != NULL), i;

	if (!e || e->type != TJSON_ARRAY || e->n != n)
		MISMATCH(c, "\"%s\" should be an array of %zu strings", key, n);
	for (i = 0; i < n; i++) {
		const char *want = first ? (i ? jstr(argv->items[i - 1]) : first)
					 : jstr(argv->items[i]);

		if (!want || !jstr(e->items[i]) || strcmp(jstr(e->items[i]), want))
			MISMATCH(c, "\"%s\"[%zu] should be \"%s\"", key, i, want ? want : "?");
	}
}

static char *dump_json_text(const char *text)
{
	struct tjson *v = tjson_parse(text, strlen(text), NULL);
	char *d = v ? tjson_dump(v) : NULL;

	tjson_free(v);
	return d;
}

/* One key of the event target's record against the test target's line. */
static void want_key(struct cmp *c, const struct key_map *m, const struct tjson *e,
		       const struct tjson *r)
{
	const struct tjson *rv = m->conv == C_CONST ? NULL : rec_field(r, m->field);
	char *want = NULL;

	if (m->conv != C_CONST && !rv)
		MISMATCH(c, "the test target's line lacks \"%s\"", m->field);
	switch (m->conv) {
	case C_CONST:
		want_str(c, m->key, e, m->field);
		break;
	case C_STR:
	case C_OPT:
		if (rv->type == TJSON_NULL) {
			if (m->conv == C_OPT && e)
				MISMATCH(c, "\"%s\" should be absent (member NULL)", m->key);
			if (m->conv == C_STR && (!e || e->type != TJSON_NULL))
				MISMATCH(c, "\"%s\" should be null (member NULL)", m->key);
		} else {
			want_str(c, m->key, e, jstr(rv));
		}
		break;
	case C_INT:
		want_num(c, m->key, e, rv->text);
		break;
	case C_BOOL:
		if (!e || e->type != TJSON_BOOL || e->boolean != (strtoll(rv->text, NULL, 10) != 0))
			MISMATCH(c, "\"%s\" should be %s", m->key,
				 strtoll(rv->text, NULL, 10) ? "true" : "false");
		break;
	case C_US:
		want = fmt_us(strtoull(rv->text, NULL, 10));
		want_num(c, m->key, e, want);
		break;
	case C_NS:
		want = t2_xfmt("%.6f", (double)strtoull(rv->text, NULL, 10) / 1e9);
		want_num(c, m->key, e, want);
		break;
	case C_ARGV:
		if (rv->type == TJSON_NULL) {
			if (e)
				MISMATCH(c, "\"%s\" should be absent (vector NULL)", m->key);
		} else {
			want_strv(c, m->key, e, rv, NULL);
		}
		break;
	case C_CHILD_ARGV:
		want_strv(c, m->key, e, rv, rec_i64(r, "git_cmd") ? "git" : NULL);
		break;
	case C_CLASS:
		want_str(c, m->key, e, rec_str(r, "hook_name") ? "hook" :
			      jstr(rv) ? jstr(rv) : "?");
		break;
	case C_REPO:
		if (strtoll(rv->text, NULL, 10) == TRACE2_NO_REPO) {
			if (e)
				MISMATCH(c, "\"repo\" should be absent (no repository)");
		} else {
			want_num(c, m->key, e, rv->text);
		}
		break;
	case C_JSON: {
		char *got = e ? tjson_dump(e) : NULL;

		want = jstr(rv) ? dump_json_text(jstr(rv)) : NULL;
		if (!want || !got || strcmp(got, want))
			MISMATCH(c, "\"%s\" should be the writer's JSON %s", m->key,
				 jstr(rv) ? jstr(rv) : "(none)");
		free(got);
		break;
	}
	case C_END:
		break;
	}
	free(want);
}

/* What target.h promises of every record, whatever the event target. */
static void check_record_alone(struct cmp *c, const struct tjson *r)
{
	long kind = (long)rec_i64(r, "kind");
	const char *sid = rec_str(r, "sid"), *thread = rec_str(r, "thread"), *p;
	char *utc = fmt_wall(rec_u64(r, "time_us"), 1), *local = fmt_wall(rec_u64(r, "time_us"), 0);
	const struct tjson *file = rec_field(r, "file");
	int64_t slashes = 0;

	if (!sid || !thread)
		MISMATCH(c, "no sid or thread name");
	for (p = sid; *p; p++)
		slashes += *p == '/';
	if (rec_i64(r, "depth") != slashes)
		MISMATCH(c, "depth should be the '/' count of the sid, %lld", (long long)slashes);
	if (strcmp(rec_str(r, "sid_json"), sid) || strcmp(rec_str(r, "thread_json"), thread))
		MISMATCH(c, "the JSON forms of sid and thread name should equal them (ASCII)");
	if ((rec_i64(r, "tid") == 0) != !strcmp(thread, "main"))
		MISMATCH(c, "thread id 0 is exactly the main thread");
	if (strcmp(rec_str(r, "utc"), utc))
		MISMATCH(c, "trace2_event_utc_time() should be %s (time_us)", utc);
	if (strcmp(rec_str(r, "local"), local))
		MISMATCH(c, "trace2_event_local_time() should be %s (time_us)", local);
	if ((file->type == TJSON_NULL) != kind_without_location(kind))
		MISMATCH(c, "file should be NULL exactly for records without a caller");
	if (!kind_with_t_rel(kind) && rec_u64(r, "t_rel_us"))
		MISMATCH(c, "t_rel_us should be 0 for this kind");
	free(utc);
	free(local);
}

static int is_common_key(const char *k)
{
	static const char *const common[] = { "event", "sid", "thread", "time", "file", "line" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(common); i++)
		if (!strcmp(k, common[i]))
			return 1;
	return 0;
}

static void compare_record(struct cmp *c, const struct tjson *e, const struct tjson *r)
{
	long kind = (long)rec_i64(r, "kind");
	const struct kind_map *km = kind_map(kind);
	const char *name = rec_ev(r), *file = rec_str(r, "file");
	const struct key_map *m;
	size_t i;

	check_record_alone(c, r);
	if (!km)
		MISMATCH(c, "unknown kind %ld", kind);
	if (!name || strcmp(name, km->name))
		MISMATCH(c, "trace2_event_name(%ld) should be \"%s\"", kind, km->name);
	want_str(c, "event", tjson_get(e, "event"), km->name);
	if (e->n < 3 || strcmp(e->keys[0], "event") || strcmp(e->keys[1], "sid") ||
	    strcmp(e->keys[2], "thread"))
		MISMATCH(c, "a record starts with event, sid, thread");
	want_str(c, "sid", tjson_get(e, "sid"), rec_str(r, "sid"));
	want_str(c, "thread", tjson_get(e, "thread"), rec_str(r, "thread"));

	/* time: always, or in brief mode on version and atexit only */
	if (!c->brief || kind == TRACE2_EVENT_VERSION || kind == TRACE2_EVENT_ATEXIT)
		want_str(c, "time", tjson_get(e, "time"), rec_str(r, "utc"));
	else if (tjson_get(e, "time"))
		MISMATCH(c, "brief mode: no \"time\" here");
	/* file/line: the caller's (non-brief); records without a caller show
	 * a location of Git's own, not checked here */
	if (c->brief || (file && !*file)) {
		if (tjson_get(e, "file") || tjson_get(e, "line"))
			MISMATCH(c, "no \"file\"/\"line\" expected");
	} else if (file) {
		const struct tjson *line = rec_field(r, "line");

		want_str(c, "file", tjson_get(e, "file"), file);
		want_num(c, "line", tjson_get(e, "line"), line->text);
	}

	for (i = 0; i < e->n; i++) {
		int known = is_common_key(e->keys[i]);

		for (m = km->keys; !known && m->key; m++)
			known = !strcmp(m->key, e->keys[i]);
		if (!known)
			MISMATCH(c, "key \"%s\" is not in this test's map of \"%s\"",
				 e->keys[i], km->name);
	}
	for (m = km->keys; m->key; m++)
		want_key(c, m, tjson_get(e, m->key), r);
}

/*
 * The event target's records against a test target's, in order.  With
 * skip_too_many, the event target's too_many_files record (not handed to
 * a target whose own directory is not full) has no counterpart.  Marks
 * each kind compared in *seen.
 */
static void compare_streams(const char *what, const struct jl *ev, const struct jl *rec,
			    int brief, int skip_too_many, uint64_t *seen)
{
	size_t i, j = 0;
	struct cmp c = { what, 0, NULL, NULL, brief };

	for (i = 0; i < ev->n; i++) {
		const char *name = jstr(tjson_get(ev->v[i], "event"));

		if (skip_too_many && name && !strcmp(name, "too_many_files"))
			continue;
		c.index = j;
		c.eline = ev->line[i];
		c.rline = j < rec->n ? rec->line[j] : "(none)";
		if (j >= rec->n)
			MISMATCH(&c, "the test target has fewer records");
		compare_record(&c, ev->v[i], rec->v[j]);
		*seen |= (uint64_t)1 << rec_i64(rec->v[j], "kind");
		j++;
	}
	if (j != rec->n) {
		c.index = j;
		c.eline = "(none)";
		c.rline = rec->line[j];
		MISMATCH(&c, "the test target has more records");
	}
}

/* ------------------------------------------------------------------ */
/* 1. Every event kind, compared with the event target.                 */
/* ------------------------------------------------------------------ */

struct every_arg {
	char plain[PATH_MAX]; /* the no-setting target's records */
	int signal_end;       /* end by SIGTERM instead of exit */
};

static void *every_worker(void *arg)
{
	int i;

	(void)arg;
	trace2_thread_start("wk");
	trace2_region_enter("w", "work", NULL);
	for (i = 0; i < 2; i++) {
		trace2_timer_start(TRACE2_TIMER_ID_TEST2);
		sleep_us(300);
		trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	}
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 5);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 2);
	trace2_data_intmax("w", NULL, "n", 7);
	trace2_region_leave("w", "work", NULL);
	trace2_thread_exit();
	return NULL;
}

static void sc_every(void *p)
{
	const struct every_arg *a = p;
	static struct rec mine = { .fd = -1, .log_fd = -1 };
	static const struct trace2_target mine_t = REC_TARGET("recmine", "mine", 0);
	const char *argv[] = { "prog", "https://user:secret@example.com/r", "a b", NULL };
	const char *ancestry[] = { "bash", "init", NULL };
	const char *alias[] = { "log", "--oneline", NULL };
	const char *git_args[] = { "status", "-s", NULL };
	const char *hook_args[] = { ".git/hooks/pre-commit", NULL };
	const char *sh_args[] = { "ls -l | wc", NULL };
	struct child_process c1 = CHILD_PROCESS_INIT, c2 = CHILD_PROCESS_INIT,
			     c3 = CHILD_PROCESS_INIT;
	struct repository repo = { "/work/tree", 0 };
	struct key_value_info kvi = KVI_INIT;
	struct json_writer jw = JSON_WRITER_INIT, pretty = JSON_WRITER_INIT;
	pthread_t th;
	int id;

	default_signal(SIGTERM);
	trace2_set_version_string("reg-1.2.3");
	register_file_target("plain", a->plain);
	CHECK(trace2_register_target(&mine_t, &mine) == 0);
	trace2_initialize();
	CHECK(trace2_is_enabled());

	trace2_cmd_start(argv);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	trace2_cmd_ancestry(ancestry);
	trace2_cmd_path("/usr/bin/prog");
	trace2_cmd_name("nm");
	trace2_cmd_mode("md");
	trace2_cmd_alias("lg", alias);
	trace2_cmd_error("bad %s %d", "thing", 3);
	kvi.scope = CONFIG_SCOPE_GLOBAL;
	trace2_def_param("core.x", "on", &kvi);
	trace2_def_param("core.valueless", NULL, NULL);
	trace2_def_repo(&repo);

	c1.args.v = git_args;
	c1.args.nr = 2;
	c1.git_cmd = 1;
	c1.trace2_child_class = "cls";
	c1.dir = "/some/dir";
	trace2_child_start(&c1);
	c1.pid = 4242;
	trace2_child_ready(&c1, "ready");
	trace2_child_exit(&c1, 3);
	c2.args.v = hook_args;
	c2.args.nr = 1;
	c2.trace2_hook_name = "pre-commit";
	trace2_child_start(&c2);
	c2.pid = 4343;
	trace2_child_exit(&c2, 0);
	c3.args.v = sh_args;
	c3.args.nr = 1;
	c3.use_shell = 1;
	trace2_child_start(&c3);
	trace2_child_exit(&c3, -1);
	id = trace2_exec("/bin/ex", alias);
	trace2_exec_result(id, ENOENT);
	id = trace2_exec(NULL, alias);
	trace2_exec_result(id, EACCES);

	jw_object_begin(&jw, 0);
	jw_object_string(&jw, "s", "x\"y");
	jw_object_intmax(&jw, "n", -3);
	jw_object_inline_begin_array(&jw, "a");
	jw_array_true(&jw);
	jw_array_null(&jw);
	jw_end(&jw);
	jw_end(&jw);
	jw_array_begin(&pretty, 1);
	jw_array_string(&pretty, "p");
	jw_array_inline_begin_object(&pretty);
	jw_object_double(&pretty, "d", 2, 1.5);
	jw_end(&pretty);
	jw_end(&pretty);
	trace2_region_enter("cat", "outer", NULL);
	trace2_region_enter_printf("cat", "inner", &repo, "msg %d", 1);
	trace2_region_enter(NULL, NULL, NULL);
	trace2_data_string("cat", &repo, "key", "value \"q\"\t");
	trace2_data_intmax("cat", NULL, "n", -42);
	trace2_data_json("cat", NULL, "j", &jw);
	trace2_data_json("cat", &repo, "pj", &pretty);
	trace2_region_leave(NULL, NULL, NULL);
	trace2_region_leave_printf("cat", "inner", &repo, "msg %d", 2);
	trace2_printf("p %d", 7);
	trace2_region_leave("cat", "outer", NULL);
	trace2_data_string("top", NULL, "k", "v");
	trace2_thread_start("onmain");
	trace2_thread_exit();
	CHECK(pthread_create(&th, NULL, every_worker, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);

	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	sleep_us(200);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 3);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 1);
	trace2_cmd_exit(5);
	jw_release(&jw);
	jw_release(&pretty);
	if (a->signal_end) {
		raise(SIGTERM);
		CHECK(!"SIGTERM did not end the process");
	}
}

struct every_variant {
	const char *what;
	int dirs;       /* event and mine write to full directories */
	int signal_end;
	int brief;      /* GIT_TRACE2_EVENT_BRIEF=1 */
};

static void run_every(const struct every_variant *v, uint64_t *seen)
{
	/* config parameters, environment variables, the parent's name */
	static const char *const more_env[] = {
		"GIT_TRACE2_CONFIG_PARAMS=p.*", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=p.k",
		"GIT_CONFIG_VALUE_0=v", "GIT_TRACE2_ENV_VARS=T2_VAR", "T2_VAR=x",
		"GIT_TRACE2_PARENT_NAME=par",
	};
	char *dir = t2_tmpdir();
	char *event = t2_path(dir, v->dirs ? "evdir" : "event.json");
	char *mine = t2_path(dir, v->dirs ? "minedir" : "mine.json");
	char *ev_file = v->dirs ? t2_path(event, "git-trace2-discard") : strdup(event);
	char *mine_file = v->dirs ? t2_path(mine, "git-trace2-discard") : strdup(mine);
	struct every_arg a = { .signal_end = v->signal_end };
	struct t2_env e = { 0 };
	struct jl evj, plainj, minej;
	char *what, *list;
	int status;

	print_message("variant: %s\n", v->what);
	snprintf(a.plain, sizeof(a.plain), "%s/plain.json", dir);
	if (v->dirs) {
		assert_int_equal(mkdir(event, 0777), 0);
		assert_int_equal(mkdir(mine, 0777), 0);
		t2_env_add(&e, "GIT_TRACE2_MAX_FILES=1");
		t2_env_add(&e, "GIT_TRACE2_PARENT_SID=parent-sid");
	}
	t2_env_add(&e, "GIT_TRACE2_EVENT=%s", event);
	t2_env_add(&e, "GIT_TRACE2_MINE=%s", mine);
	t2_env_add(&e, "GIT_TRACE2_EVENT_NESTING=100");
	if (v->brief)
		t2_env_add(&e, "GIT_TRACE2_EVENT_BRIEF=1");
	for (size_t i = 0; i < ARRAY_SIZE(more_env); i++)
		t2_env_add(&e, "%s", more_env[i]);

	status = t2_run_noinit(sc_every, &a, t2_env_list(&e));
	if (v->signal_end) {
		assert_true(WIFSIGNALED(status));
		assert_int_equal(WTERMSIG(status), SIGTERM);
	} else {
		assert_int_equal(status, 0);
	}
	for (int i = 0; v->dirs && i < 2; i++) { /* each directory: only its discard file */
		list = t2_listdir(i ? mine : event);
		assert_string_equal(list, "git-trace2-discard");
		free(list);
	}
	jl_read(&evj, "event target", ev_file);
	jl_read(&plainj, "plain target", a.plain);
	jl_read(&minej, "mine target", mine_file);
	assert_true(evj.n > 40);
	list = jl_names(&evj, "event");
	print_message("  %zu records: %s\n", evj.n, list);
	assert_true(!strncmp(list, v->dirs ? "version too_many_files start " : "version start ",
			     strlen(v->dirs ? "version too_many_files start " : "version start ")));
	assert_string_equal(strrchr(list, ' ') + 1, v->signal_end ? "signal" : "atexit");
	free(list);
	if (v->dirs)
		assert_true(!strncmp(rec_str(plainj.v[0], "sid"), "parent-sid/", 11));

	what = t2_xfmt("%s: no-setting target", v->what);
	compare_streams(what, &evj, &plainj, v->brief, 1, seen);
	free(what);
	what = t2_xfmt("%s: target with a setting", v->what);
	compare_streams(what, &evj, &minej, v->brief, 0, seen);
	free(what);

	jl_free(&evj);
	jl_free(&plainj);
	jl_free(&minej);
	t2_env_free(&e);
	t2_rmtree(dir);
	free(dir);
	free(event);
	free(mine);
	free(ev_file);
	free(mine_file);
}

/* Every kind reaches a registered target as the event target shows it:
 * a file target exiting normally, full directories (too_many_files) and
 * a traced parent ending by SIGTERM, and the event target in brief mode. */
static void every_event_kind(void **state)
{
	static const struct every_variant variants[] = {
		{ "file targets, exit", 0, 0, 0 },
		{ "full directories, parent sid, SIGTERM", 1, 1, 0 },
		{ "event target brief", 0, 0, 1 },
	};
	uint64_t seen = 0;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(variants); i++)
		run_every(&variants[i], &seen);
	for (i = 0; i < ARRAY_SIZE(KINDS); i++)
		if (!(seen & ((uint64_t)1 << KINDS[i].kind)))
			fail_msg("kind %s was never compared", KINDS[i].name);
}

/* ------------------------------------------------------------------ */
/* A small workload for the tests below.                                */
/* ------------------------------------------------------------------ */

static void *small_worker(void *arg)
{
	(void)arg;
	trace2_thread_start("sw");
	trace2_printf("worker %d", 1);
	trace2_timer_start(TRACE2_TIMER_ID_TEST2);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST2);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST2, 2);
	trace2_thread_exit();
	return NULL;
}

static void small_workload(void)
{
	const char *argv[] = { "prog", "x", NULL };
	struct child_process c = CHILD_PROCESS_INIT;
	pthread_t th;

	trace2_cmd_start(argv);
	trace2_cmd_name("small");
	trace2_region_enter("c", "r", NULL);
	trace2_data_string("c", NULL, "k", "v");
	trace2_printf("in %d", 1);
	trace2_region_leave("c", "r", NULL);
	c.args.v = argv;
	c.args.nr = 2;
	trace2_child_start(&c);
	c.pid = 99;
	trace2_child_exit(&c, 0);
	trace2_cmd_error("err %d", 2);
	CHECK(pthread_create(&th, NULL, small_worker, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	trace2_timer_start(TRACE2_TIMER_ID_TEST1);
	trace2_timer_stop(TRACE2_TIMER_ID_TEST1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 4);
	trace2_cmd_exit(0);
}

/* ------------------------------------------------------------------ */
/* 2. Sixteen targets at once.                                          */
/* ------------------------------------------------------------------ */

#define N16 16

static void sc_sixteen(void *p)
{
	static struct rec recs[N16];
	static struct trace2_target ts[N16];
	static char names[N16][8], prefixes[N16][8];
	int fd = open_append(p), i;

	CHECK(dup2(fd, 7) == 7);
	for (i = 0; i < N16; i++) {
		snprintf(names[i], sizeof(names[i]), "t%d", i);
		snprintf(prefixes[i], sizeof(prefixes[i]), "T%02d ", i);
		recs[i] = (struct rec){ .prefix = prefixes[i], .fd = 7, .log_fd = -1 };
		ts[i] = (struct trace2_target)REC_TARGET(names[i], NULL, 0);
		CHECK(trace2_register_target(&ts[i], &recs[i]) == 0);
	}
	trace2_initialize();
	CHECK(trace2_is_enabled());
	small_workload();
}

/* A line of the perf target (non-brief) for the event name. */
static int is_perf_line(const char *line, const char *name)
{
	char col[32];

	snprintf(col, sizeof(col), "| %-12s |", name);
	return strstr(line, " | d0 | ") && strstr(line, col);
}

/*
 * 16 registered targets and the 3 built-in ones all write to one fd: for
 * every record, the built-ins' lines (normal if it writes that kind, then
 * perf, then event), then T00 ... T15 with the same record.
 */
static void sixteen_targets(void **state)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "shared"), *text;
	static const char *const env[] = {
		"GIT_TRACE2=7", "GIT_TRACE2_PERF=7", "GIT_TRACE2_EVENT=7",
		"GIT_TRACE2_EVENT_NESTING=100", NULL
	};
	char **lines;
	size_t n, i = 0, groups = 0, k;
	char *names = strdup("");

	(void)state;
	assert_int_equal(t2_run_noinit(sc_sixteen, path, env), 0);
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	lines = t2_lines(text, &n);
	while (i < n) {
		size_t start = i, nb;
		struct tjson *ev, *rec;
		const char *name;

		while (i < n && (lines[i][0] == '#' || strncmp(lines[i], "T00 ", 4)))
			i++;
		if (i == n) {
			/* only callback log lines may follow the last record */
			for (k = start; k < n; k++)
				if (lines[k][0] != '#')
					fail_msg("line %zu belongs to no record: %s", k + 1, lines[k]);
			break;
		}
		/* T00 ... T15: the same record, in registration order */
		for (k = 0; k < N16; k++) {
			char prefix[8];

			snprintf(prefix, sizeof(prefix), "T%02zu ", k);
			if (i + k >= n || strncmp(lines[i + k], prefix, 4) ||
			    strcmp(lines[i + k] + 4, lines[i] + 4))
				fail_msg("record %zu: line %zu should be %s<%s>, is %s", groups,
					 i + k + 1, prefix, lines[i] + 4,
					 i + k < n ? lines[i + k] : "(end)");
		}
		rec = tjson_parse(lines[i] + 4, strlen(lines[i] + 4), NULL);
		assert_non_null(rec);
		name = rec_ev(rec);
		assert_non_null(name);
		t2_append(&names, "%s%s", groups ? " " : "", name);
		/* before them: [normal] perf event, skipping log lines */
		{
			const char *b[8];

			nb = 0;
			for (k = start; k < i; k++)
				if (lines[k][0] != '#' && nb < ARRAY_SIZE(b))
					b[nb++] = lines[k];
			if (nb < 2 || nb > 3)
				fail_msg("record %zu (%s): %zu built-in lines before T00", groups, name, nb);
			ev = tjson_parse(b[nb - 1], strlen(b[nb - 1]), NULL);
			if (!ev || !jstr(tjson_get(ev, "event")) ||
			    strcmp(jstr(tjson_get(ev, "event")), name))
				fail_msg("record %zu (%s): the event target's line should come "
					 "right before T00: %s", groups, name, b[nb - 1]);
			if (!is_perf_line(b[nb - 2], name))
				fail_msg("record %zu (%s): the perf line should come before the "
					 "event line: %s", groups, name, b[nb - 2]);
			if (nb == 3 && (b[0][0] == '{' || strstr(b[0], " | d0 | ")))
				fail_msg("record %zu (%s): the first line should be normal's: %s",
					 groups, name, b[0]);
			tjson_free(ev);
		}
		tjson_free(rec);
		groups++;
		i += N16;
	}
	print_message("%zu records x 16 targets: %s\n", groups, names);
	assert_true(groups >= 15);
	assert_true(!strncmp(names, "version start cmd_name ", 23));
	assert_string_equal(strrchr(names, ' ') + 1, "atexit");
	free(names);
	t2_strv_free(lines);
	free(text);
	t2_rmtree(dir);
	free(dir);
	free(path);
}

/* ------------------------------------------------------------------ */
/* 3. Registration errors.                                              */
/* ------------------------------------------------------------------ */

static void ev_noop(void *ctx, const struct trace2_event *ev)
{
	(void)ctx;
	(void)ev;
}

static int open_noop(void *ctx, const struct trace2_target_config *c)
{
	(void)ctx;
	(void)c;
	return 0;
}

struct reg_step {
	int null_target;
	int abi;
	const char *name, *setting;
	int no_event, no_open;
	int err;            /* the errno expected, 0: success */
};

struct reg_case {
	const char *what;
	int init_before_last; /* trace2_initialize() before the last step */
	size_t n;
	struct reg_step steps[3];
};

#define ABI TRACE2_TARGET_ABI_VERSION
#define GOOD(nm, st) { .abi = ABI, .name = (nm), .setting = (st) }
#define BAD(nm, st, e) { .abi = ABI, .name = (nm), .setting = (st), .err = (e) }

static void sc_register(void *p)
{
	const struct reg_case *rc = p;
	static struct trace2_target ts[3];
	size_t i;

	for (i = 0; i < rc->n; i++) {
		const struct reg_step *s = &rc->steps[i];
		int r;

		ts[i] = (struct trace2_target){
			s->abi, s->name, s->setting, 0, s->no_open ? NULL : open_noop,
			s->no_event ? NULL : ev_noop, NULL, NULL
		};
		if (rc->init_before_last && i + 1 == rc->n)
			trace2_initialize();
		errno = 0;
		r = trace2_register_target(s->null_target ? NULL : &ts[i], NULL);
		if (s->err) {
			if (r != -1 || errno != s->err)
				fprintf(stderr, "step %zu: rc %d errno %d (%s), want -1 errno %d\n",
					i, r, errno, strerror(errno), s->err);
			CHECK(r == -1 && errno == s->err);
		} else {
			if (r)
				fprintf(stderr, "step %zu: rc %d errno %d (%s), want 0\n",
					i, r, errno, strerror(errno));
			CHECK(r == 0);
		}
	}
}

static void run_reg_case(const struct reg_case *rc)
{
	int status = t2_run_noinit(sc_register, (void *)rc, NULL);

	if (status != 0)
		fail_msg("registration case \"%s\" failed (status %d)", rc->what, status);
}

static const struct reg_case REG_CASES[] = {
	{ "after trace2_initialize()", 1, 1, { BAD("late", NULL, EBUSY) } },
	{ "after trace2_initialize(), tracing on", 1, 2,
	  { GOOD("first", NULL), BAD("late", NULL, EBUSY) } },
	{ "NULL target", 0, 1, { { .null_target = 1, .err = EINVAL } } },
	{ "ABI version 0", 0, 1, { { .abi = 0, .name = "x", .err = EINVAL } } },
	{ "ABI version + 1", 0, 1, { { .abi = ABI + 1, .name = "x", .err = EINVAL } } },
	{ "NULL event callback", 0, 1, { { .abi = ABI, .name = "x", .no_event = 1, .err = EINVAL } } },
	{ "setting without open", 0, 1,
	  { { .abi = ABI, .name = "x", .setting = "xs", .no_open = 1, .err = EINVAL } } },
	{ "no setting, no open: fine", 0, 1, { { .abi = ABI, .name = "x", .no_open = 1 } } },
	{ "31-character name and setting", 0, 1,
	  { GOOD("abcdefghijklmnopqrstuvwxyz01234", "zyxwvutsrqponmlkjihgfedcba01234") } },
	{ "one-character name and setting", 0, 1, { GOOD("a", "b9") } },
	{ "name registered twice", 0, 2, { GOOD("aa", NULL), BAD("aa", NULL, EINVAL) } },
	{ "name equal to another's setting", 0, 2,
	  { GOOD("aa", "bb"), BAD("bb", NULL, EINVAL) } },
	{ "setting equal to another's name", 0, 2,
	  { GOOD("aa", NULL), BAD("cc", "aa", EINVAL) } },
	{ "setting registered twice", 0, 2,
	  { GOOD("aa", "bb"), BAD("cc", "bb", EINVAL) } },
	{ "a refused target takes no name", 0, 3,
	  { BAD("aa", "A", EINVAL), GOOD("aa", "bb"), GOOD("cc", NULL) } },
};

/* Names that break [a-z][a-z0-9]{0,30}, and names a built-in target or a
 * GIT_TRACE2_* setting (or its trace2.* key) already has. */
static const char *const BAD_NAMES[] = {
	"", "A", "Ab", "aB", "9x", "a-b", "a_b", "a b", "a.b", "\xc3\xa9",
	"abcdefghijklmnopqrstuvwxyz012345", /* 32 */
};
static const char *const TAKEN_NAMES[] = {
	"normal", "perf", "event", "brief", "buffer", "envvars", "redact",
	"configparams", "maxfiles", "chrome", "stats", "statsformat",
};

static void registration_errors(void **state)
{
	struct reg_case rc = { 0 };
	size_t i, pass;
	char what[128];

	(void)state;
	for (i = 0; i < ARRAY_SIZE(REG_CASES); i++)
		run_reg_case(&REG_CASES[i]);
	rc.what = what;
	rc.n = 1;
	for (pass = 0; pass < 2; pass++) {
		const char *const *names = pass ? TAKEN_NAMES : BAD_NAMES;
		size_t count = pass ? ARRAY_SIZE(TAKEN_NAMES) : ARRAY_SIZE(BAD_NAMES);

		for (i = 0; i < count; i++) {
			snprintf(what, sizeof(what), "name \"%s\"", names[i]);
			rc.steps[0] = (struct reg_step)BAD(names[i], NULL, EINVAL);
			run_reg_case(&rc);
			snprintf(what, sizeof(what), "setting \"%s\"", names[i]);
			rc.steps[0] = (struct reg_step)BAD("ok", names[i], EINVAL);
			run_reg_case(&rc);
		}
	}
	snprintf(what, sizeof(what), "NULL name");
	rc.steps[0] = (struct reg_step)BAD(NULL, NULL, EINVAL);
	run_reg_case(&rc);
}

static void count_event(void *ctx, const struct trace2_event *ev)
{
	(void)ev;
	(*(int *)ctx)++;
}

static void sc_fill_registry(void *p)
{
	static struct trace2_target ts[TRACE2_TARGETS_MAX + 1];
	static char names[TRACE2_TARGETS_MAX + 1][8];
	static int hits[TRACE2_TARGETS_MAX + 1];
	static const struct trace2_target bad = { ABI, "A", NULL, 0, NULL, count_event, NULL, NULL };
	int i, n;

	(void)p;
	/* refused registrations first: they take no slot */
	CHECK(trace2_register_target(NULL, NULL) == -1 && errno == EINVAL);
	CHECK(trace2_register_target(&bad, NULL) == -1 && errno == EINVAL);
	for (n = 0; n <= TRACE2_TARGETS_MAX; n++) {
		snprintf(names[n], sizeof(names[n]), "f%d", n);
		ts[n] = (struct trace2_target){ ABI, names[n], NULL, 0, NULL, count_event, NULL, NULL };
		errno = 0;
		if (trace2_register_target(&ts[n], &hits[n]))
			break;
	}
	fprintf(stderr, "registered %d targets, then errno %d\n", n, errno);
	CHECK(n == TRACE2_TARGETS_MAX - 6); /* normal, perf, event, chrome, record, stats */
	CHECK(errno == ENOSPC);
	CHECK(trace2_register_target(&ts[n], &hits[n]) == -1 && errno == ENOSPC);
	trace2_initialize();
	CHECK(trace2_is_enabled());
	trace2_printf("%s", "x");
	for (i = 0; i < n; i++)
		CHECK(hits[i] == 2); /* version, printf */
	CHECK(hits[n] == 0);
}

/* TRACE2_TARGETS_MAX counts the 6 built-in targets: 26 more fit, the
 * next gets ENOSPC, and every one registered is called. */
static void registry_full(void **state)
{
	(void)state;
	assert_int_equal(t2_run_noinit(sc_fill_registry, NULL, NULL), 0);
}

/* ------------------------------------------------------------------ */
/* 4. A target with a setting: settings, destinations, created.         */
/* ------------------------------------------------------------------ */

#define WORKER_PRINTFS 20
#define BIG_VALUE 5000

struct dest_arg {
	char log[PATH_MAX];        /* mine's "#..." lines */
	char dup_path[PATH_MAX];   /* a file put on fd dup_fd first ... */
	int dup_fd;
	int broken_pipe_fd;        /* ... or a pipe without reader on this fd */
	char gitconfig[2 * PATH_MAX];
	int setting;               /* mine has the setting "mine" */
	unsigned flags;
	int open_rc;
	int nthreads;
	char other[PATH_MAX];      /* records of a second, no-setting target */
	int expect_enabled;        /* trace2_is_enabled() after initialize */
};

static void *dest_worker(void *arg)
{
	int i;

	(void)arg;
	trace2_thread_start("w");
	for (i = 0; i < WORKER_PRINTFS; i++)
		trace2_printf("w%d", i);
	trace2_thread_exit();
	return NULL;
}

static void sc_dest(void *p)
{
	const struct dest_arg *a = p;
	static struct rec mine;
	static struct trace2_target mine_t;
	static char big[BIG_VALUE + 1];
	pthread_t th[8];
	int i;

	if (a->dup_path[0]) {
		int fd = open_append(a->dup_path);

		CHECK(dup2(fd, a->dup_fd) == a->dup_fd);
	}
	if (a->broken_pipe_fd) {
		int pfd[2];

		CHECK(pipe(pfd) == 0);
		close(pfd[0]);
		CHECK(dup2(pfd[1], a->broken_pipe_fd) == a->broken_pipe_fd);
	}
	if (a->gitconfig[0]) {
		char *cfg = t2_path(getenv("HOME"), ".gitconfig");

		CHECK(t2_write_file(cfg, a->gitconfig) == 0);
		free(cfg);
	}
	mine = (struct rec){ .fd = -1, .log_fd = open_append(a->log), .log_events = 1,
			     .open_rc = a->open_rc };
	mine_t = (struct trace2_target)REC_TARGET("rec", a->setting ? "mine" : NULL, a->flags);
	CHECK(trace2_register_target(&mine_t, &mine) == 0);
	if (a->other[0])
		register_file_target("other", a->other);
	trace2_initialize();
	CHECK(trace2_is_enabled() == a->expect_enabled);
	trace2_printf("%s", "one");
	memset(big, 'x', BIG_VALUE);
	trace2_data_string("d", NULL, "big", big);
	for (i = 0; i < a->nthreads; i++)
		CHECK(pthread_create(&th[i], NULL, dest_worker, NULL) == 0);
	for (i = 0; i < a->nthreads; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
	trace2_printf("%s", "two");
	trace2_cmd_exit(0);
}

/*
 * The records a sc_dest() run leaves at a destination: every line one
 * whole record; main's are version, printf one, data (big), printf two,
 * exit, atexit; each worker's are thread_start, printf w0..w19,
 * thread_exit, in order (threads may interleave, buffers may reorder
 * threads).  Returns the records' SID (caller frees).
 */
static char *check_dest_records(const char *what, const char *text, int nthreads)
{
	struct jl jl;
	char *main_seq = strdup(""), *sid = NULL;
	char *thread_names[8] = { 0 }, *thread_seq[8] = { 0 };
	size_t i, k, nt = 0;

	jl_parse(&jl, what, text);
	for (i = 0; i < jl.n; i++) {
		const struct tjson *r = jl.v[i];
		const char *name = rec_ev(r), *thread = rec_str(r, "thread");
		const char *msg = rec_str(r, "msg"), *value = rec_str(r, "value");
		char **seq = &main_seq;

		assert_non_null(name);
		assert_non_null(thread);
		if (!sid)
			sid = strdup(rec_str(r, "sid"));
		assert_string_equal(rec_str(r, "sid"), sid);
		if (strcmp(thread, "main")) {
			for (k = 0; k < nt && strcmp(thread_names[k], thread); k++)
				;
			if (k == nt) {
				assert_true(nt < ARRAY_SIZE(thread_names));
				thread_names[nt] = strdup(thread);
				thread_seq[nt++] = strdup("");
			}
			seq = &thread_seq[k];
		}
		if (!strcmp(name, "data") && value && strlen(value) == BIG_VALUE &&
		    strspn(value, "x") == BIG_VALUE)
			value = "BIG";
		t2_append(seq, "%s%s%s%s", **seq ? " " : "", name,
			  msg ? ":" : value ? "=" : "", msg ? msg : value ? value : "");
	}
	if (strcmp(main_seq, "version printf:one data=BIG printf:two exit atexit")) {
		print_error("%s: main thread's records: %s\n", what, main_seq);
		fail_msg("%s: main thread's records differ", what);
	}
	assert_int_equal(nt, nthreads);
	for (k = 0; k < nt; k++) {
		char *want = strdup("thread_start");
		int j;

		for (j = 0; j < WORKER_PRINTFS; j++)
			t2_append(&want, " printf:w%d", j);
		t2_append(&want, " thread_exit");
		if (strcmp(thread_seq[k], want))
			fail_msg("%s: thread %s's records: %s", what, thread_names[k], thread_seq[k]);
		free(want);
		free(thread_names[k]);
		free(thread_seq[k]);
	}
	free(main_seq);
	jl_free(&jl);
	return sid;
}

enum dkind { D_FILE, D_EXISTING, D_DIR, D_STDERR, D_FD, D_STREAM, D_DGRAM };

struct dest_case {
	const char *what;
	enum dkind kind;
	unsigned flags;
	const char *env;   /* one more setting, or NULL */
	int config;        /* 1: trace2.mineTarget and trace2.mineBrief in
			    * ~/.gitconfig; 2: trace2.mineTarget names another
			    * file, GIT_TRACE2_MINE wins */
	int nthreads;
	int created, brief; /* what open() must be told */
};

#define WANTS TRACE2_TARGET_WANTS_CREATED

static void run_dest_case(const struct dest_case *dc)
{
	char *dir = t2_tmpdir(), *target = NULL, *text = NULL, *entry = NULL, *sid, *log;
	char *file = t2_path(dir, "mine.json"), *other_cfg = t2_path(dir, "cfg.json"), *want_log;
	char *child_err = t2_path(dir, "child-stderr");
	int sock = dc->kind == D_STREAM || dc->kind == D_DGRAM;
	struct dest_arg a = { .setting = 1, .flags = dc->flags, .nthreads = dc->nthreads,
			      .expect_enabled = 1 };
	struct t2_env e = { 0 };
	struct t2_sink sink;
	int status;

	print_message("destination: %s\n", dc->what);
	snprintf(a.log, sizeof(a.log), "%s/log", dir);
	switch (dc->kind) {
	case D_EXISTING:
		assert_int_equal(t2_write_file(file, "old line\n"), 0);
		/* fall through */
	case D_FILE:
		target = strdup(file);
		break;
	case D_DIR:
		target = t2_path(dir, "d");
		assert_int_equal(mkdir(target, 0777), 0);
		break;
	case D_STDERR:
	case D_FD:
		a.dup_fd = dc->kind == D_STDERR ? 2 : 7;
		snprintf(a.dup_path, sizeof(a.dup_path), "%s/fd%d", dir, a.dup_fd);
		target = strdup(dc->kind == D_STDERR ? "1" : "7");
		break;
	case D_STREAM:
	case D_DGRAM:
		t2_sink_open(&sink, dc->kind == D_STREAM ? SOCK_STREAM : SOCK_DGRAM);
		target = t2_xfmt("af_unix:%s:%s", dc->kind == D_STREAM ? "stream" : "dgram",
				 sink.path);
		break;
	}
	if (dc->config == 1)
		snprintf(a.gitconfig, sizeof(a.gitconfig),
			 "[trace2]\n\tmineTarget = %s\n\tmineBrief = true\n", target);
	else
		t2_env_add(&e, "GIT_TRACE2_MINE=%s", target);
	if (dc->config == 2)
		snprintf(a.gitconfig, sizeof(a.gitconfig), "[trace2]\n\tmineTarget = %s\n",
			 other_cfg);
	if (dc->env)
		t2_env_add(&e, "%s", dc->env);

	/* a socket is served here while the child runs (t2_spawn(): HOME is
	 * /nonexistent, which these cases, without ~/.gitconfig, allow) */
	assert_true(!sock || !a.gitconfig[0]);
	if (sock)
		status = t2_sink_collect(&sink, t2_spawn(sc_dest, &a, t2_env_list(&e), NULL,
							  child_err));
	else
		status = t2_run_noinit(sc_dest, &a, t2_env_list(&e));
	if (status && (sock || a.dup_fd == 2)) { /* CHECK() messages went there */
		char *err = t2_read_file(sock ? child_err : a.dup_path, NULL);

		print_error("child's stderr:\n%s\n", err ? err : "");
		free(err);
	}
	assert_int_equal(status, 0);

	/* open() was told brief and created; no write failed; shutdown last */
	log = t2_read_file(a.log, NULL);
	assert_non_null(log);
	want_log = t2_xfmt("#open output=1 brief=%d created=%d\n", dc->brief, dc->created);
	if (strncmp(log, want_log, strlen(want_log)) || strstr(log, "#write failed") ||
	    strstr(log, "#shutdown\n") != log + strlen(log) - strlen("#shutdown\n"))
		fail_msg("%s: callback log:\n%s\nwanted to start with %s, end with #shutdown",
			 dc->what, log, want_log);

	switch (dc->kind) {
	case D_FILE:
	case D_EXISTING:
		text = t2_read_file(file, NULL);
		assert_non_null(text);
		if (dc->kind == D_EXISTING) {
			assert_true(!strncmp(text, "old line\n", 9));
			memmove(text, text + 9, strlen(text + 9) + 1);
		}
		break;
	case D_DIR: {
		char *p;

		entry = t2_listdir(target);
		assert_true(*entry && !strchr(entry, ' ')); /* exactly one new file */
		p = t2_path(target, entry);
		text = t2_read_file(p, NULL);
		free(p);
		break;
	}
	case D_STDERR:
	case D_FD:
		text = t2_read_file(a.dup_path, NULL);
		break;
	case D_STREAM: /* one connection */
		assert_int_equal(sink.nconn, 1);
		text = strdup(sink.conn[0].p ? sink.conn[0].p : "");
		t2_sink_close(&sink);
		break;
	case D_DGRAM: /* one record per datagram */
		assert_int_equal(sink.ndgram, 6 + dc->nthreads * (WORKER_PRINTFS + 2));
		text = strdup("");
		for (size_t i = 0; i < sink.ndgram; i++) {
			const struct t2_buf *d = &sink.dgram[i];

			if (!d->n || d->p[d->n - 1] != '\n' || strlen(d->p) != d->n ||
			    memchr(d->p, '\n', d->n - 1))
				fail_msg("%s: datagram %zu is not one record: %s", dc->what, i,
					 d->p ? d->p : "");
			t2_append(&text, "%s", d->p);
		}
		t2_sink_close(&sink);
		break;
	}
	assert_non_null(text);
	sid = check_dest_records(dc->what, text, dc->nthreads);
	if (entry) /* the directory's new file is named after the session id */
		assert_string_equal(entry, sid);
	free(sid);
	free(entry);
	if (dc->config == 2)
		assert_int_equal(access(other_cfg, F_OK), -1);

	free(text);
	free(log);
	free(want_log);
	free(target);
	free(file);
	free(other_cfg);
	free(child_err);
	t2_env_free(&e);
	t2_rmtree(dir);
	free(dir);
}

static const struct dest_case DEST_CASES[] = {
	{ "new file", D_FILE, WANTS, NULL, 0, 3, 1, 0 },
	{ "existing file", D_EXISTING, WANTS, NULL, 0, 0, 0, 0 },
	{ "trace2.mineTarget and mineBrief", D_FILE, WANTS, NULL, 1, 0, 1, 1 },
	{ "GIT_TRACE2_MINE_BRIEF=1", D_FILE, WANTS, "GIT_TRACE2_MINE_BRIEF=1", 0, 0, 1, 1 },
	{ "GIT_TRACE2_MINE_BRIEF=false", D_FILE, WANTS, "GIT_TRACE2_MINE_BRIEF=false", 0, 0, 1, 0 },
	{ "GIT_TRACE2_MINE beats trace2.mineTarget", D_FILE, WANTS, NULL, 2, 0, 1, 0 },
	{ "directory", D_DIR, 0, NULL, 0, 2, 1, 0 },
	{ "stderr", D_STDERR, 0, NULL, 0, 2, 1, 0 },
	{ "stderr, traced parent", D_STDERR, 0, "GIT_TRACE2_PARENT_SID=parent-sid", 0, 0, 0, 0 },
	{ "fd 7", D_FD, 0, NULL, 0, 2, 1, 0 },
	{ "fd 7, traced parent", D_FD, 0, "GIT_TRACE2_PARENT_SID=parent-sid", 0, 0, 0, 0 },
	{ "buffered file", D_FILE, WANTS, "GIT_TRACE2_BUFFER=64k", 0, 3, 1, 0 },
	{ "buffered directory", D_DIR, 0, "GIT_TRACE2_BUFFER=64k", 0, 2, 1, 0 },
};

static const struct dest_case SOCKET_CASES[] = {
	{ "stream socket", D_STREAM, 0, NULL, 0, 3, 1, 0 },
	{ "stream socket, traced parent", D_STREAM, 0, "GIT_TRACE2_PARENT_SID=p", 0, 0, 0, 0 },
	{ "buffered stream socket", D_STREAM, 0, "GIT_TRACE2_BUFFER=64k", 0, 2, 1, 0 },
	/* few records: the kernel queues only max_dgram_qlen datagrams */
	{ "datagram socket", D_DGRAM, 0, NULL, 0, 0, 1, 0 },
};

/* GIT_TRACE2_MINE / trace2.mineTarget, the brief flag, created, and
 * whole records at every file-like destination kind. */
static void setting_target_destinations(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(DEST_CASES); i++)
		run_dest_case(&DEST_CASES[i]);
}

static void setting_target_sockets(void **state)
{
	size_t i;

	(void)state;
	if (!t2_sink_available(SOCK_STREAM) || !t2_sink_available(SOCK_DGRAM)) {
		print_message("skipped: AF_UNIX stream and datagram sockets are not available\n");
		skip();
	}
	for (i = 0; i < ARRAY_SIZE(SOCKET_CASES); i++)
		run_dest_case(&SOCKET_CASES[i]);
}

struct failure_run {
	char *dir, *err, *log, *other_names, *event_names;
	struct jl other;
};

/* Run sc_dest() with a (presumably failing) mine, the no-setting target
 * "other" and the event target; collect what each left. */
static void run_failure(struct dest_arg *a, struct t2_env *e, struct failure_run *f)
{
	char *event;
	struct jl ev;

	f->dir = t2_tmpdir();
	event = t2_path(f->dir, "event.json");
	snprintf(a->log, sizeof(a->log), "%s/log", f->dir);
	snprintf(a->other, sizeof(a->other), "%s/other.json", f->dir);
	snprintf(a->dup_path, sizeof(a->dup_path), "%s/stderr", f->dir);
	a->dup_fd = 2;
	t2_env_add(e, "GIT_TRACE2_EVENT=%s", event);
	assert_int_equal(t2_run_noinit(sc_dest, a, t2_env_list(e)), 0);
	f->err = t2_read_file(a->dup_path, NULL);
	f->log = t2_read_file(a->log, NULL);
	assert_non_null(f->err);
	assert_non_null(f->log);
	jl_read(&f->other, "other target", a->other);
	jl_read(&ev, "event target", event);
	f->other_names = jl_names(&f->other, "ev");
	f->event_names = jl_names(&ev, "event");
	jl_free(&ev);
	free(event);
}

/* The other targets went on: both saw the whole run. */
static void assert_others_went_on(const struct failure_run *f)
{
	assert_string_equal(f->other_names, f->event_names);
	assert_string_equal(f->event_names, "version printf data printf exit atexit");
}

static void free_failure(struct failure_run *f)
{
	jl_free(&f->other);
	free(f->err);
	free(f->log);
	free(f->other_names);
	free(f->event_names);
	t2_rmtree(f->dir);
	free(f->dir);
}

/* A destination that cannot be opened: one warning with
 * GIT_TRACE2_DST_DEBUG (none without), the target is never called, the
 * other targets go on. */
static void setting_target_bad_destination(void **state)
{
	int debug;

	(void)state;
	for (debug = 0; debug < 2; debug++) {
		struct dest_arg a = { .setting = 1, .expect_enabled = 1 };
		struct t2_env e = { 0 };
		struct failure_run f;
		static const char bad[] = "/nonexistent-t2-dir/sub/x";
		char *want, *events;

		t2_env_add(&e, "GIT_TRACE2_MINE=%s", bad);
		if (debug)
			t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
		run_failure(&a, &e, &f);
		assert_others_went_on(&f);
		want = debug ? t2_xfmt("warning: trace2: could not open '%s' for "
				       "'GIT_TRACE2_MINE' tracing: No such file or directory\n", bad)
			     : strdup("");
		assert_string_equal(f.err, want);
		events = sequence(f.log, "#ev ");
		assert_string_equal(events, "");
		free(events);
		free(want);
		free_failure(&f);
		t2_env_free(&e);
	}
}

/* A destination that fails at the first write (a pipe without reader on
 * fd 7): event() is called for that record only, trace2_output_write()
 * says -1, one warning, and the other targets get an "error" record
 * (configuration.md, "Target values"). */
static void setting_target_write_failure(void **state)
{
	struct dest_arg a = { .setting = 1, .expect_enabled = 1, .broken_pipe_fd = 7 };
	struct t2_env e = { 0 };
	struct failure_run f;
	char *events;
	size_t i, errors = 0;
	static const char msg[] = "unable to write trace to 'GIT_TRACE2_MINE': Broken pipe";

	(void)state;
	t2_env_add(&e, "GIT_TRACE2_MINE=7");
	t2_env_add(&e, "GIT_TRACE2_DST_DEBUG=1");
	run_failure(&a, &e, &f);
	assert_string_equal(f.err, "warning: unable to write trace to 'GIT_TRACE2_MINE': Broken pipe\n");
	events = sequence(f.log, "#ev ");
	assert_string_equal(events, "version");
	assert_non_null(strstr(f.log, "#ev version\n#write failed\n"));
	for (i = 0; i < f.other.n; i++)
		if (!strcmp(rec_ev(f.other.v[i]), "error")) {
			errors++;
			assert_string_equal(rec_str(f.other.v[i], "msg"), msg);
		}
	assert_int_equal(errors, 1);
	/* The error is reported while version is being handed out, as for
	 * the built-in targets (test_destinations: a failing normal target
	 * puts "error" first on EVENT): the event target, before mine, had
	 * version already; "other", after it, gets the error first. */
	assert_string_equal(f.event_names, "version error printf data printf exit atexit");
	assert_string_equal(f.other_names, "error version printf data printf exit atexit");
	free(events);
	free_failure(&f);
	t2_env_free(&e);
}

/* open() returning non-zero: the target is never called (no event, flush
 * or shutdown), its destination gets nothing, the others go on; a lone
 * target without a setting that refuses leaves tracing off. */
static void open_refused(void **state)
{
	struct dest_arg a = { .setting = 1, .open_rc = 1, .flags = WANTS, .expect_enabled = 1 };
	struct t2_env e = { 0 };
	struct failure_run f;
	char *dir = t2_tmpdir(), *file = t2_path(dir, "mine.json"), *text;
	int status;

	(void)state;
	t2_env_add(&e, "GIT_TRACE2_MINE=%s", file);
	run_failure(&a, &e, &f);
	assert_others_went_on(&f);
	assert_string_equal(f.err, "");
	assert_string_equal(f.log, "#open output=1 brief=0 created=1\n");
	text = t2_read_file(file, NULL);
	assert_string_equal(text ? text : "", "");
	free(text);
	free_failure(&f);
	t2_env_free(&e);

	/* alone, without a setting, open() says -1: tracing stays off */
	a = (struct dest_arg){ .setting = 0, .open_rc = -1, .expect_enabled = 0 };
	snprintf(a.log, sizeof(a.log), "%s/log", dir);
	status = t2_run_noinit(sc_dest, &a, NULL);
	assert_int_equal(status, 0);
	text = t2_read_file(a.log, NULL);
	assert_non_null(text);
	assert_string_equal(text, "#open output=0 brief=0 created=1\n");
	free(text);
	t2_rmtree(dir);
	free(dir);
	free(file);
}

/* ------------------------------------------------------------------ */
/* 5. A target without a setting: on by itself; flush and shutdown.    */
/* ------------------------------------------------------------------ */

/* The scenarios of 5 and 6: one test target writing to a file. */
struct solo_arg {
	char path[PATH_MAX]; /* its records */
	int variant;         /* 5: it is registered; 6: it re-enters */
};

static void sc_lifecycle(void *p)
{
	const struct solo_arg *a = p;
	const char *argv[] = { "prog", NULL };
	struct child_process c = CHILD_PROCESS_INIT;

	if (a->variant)
		register_file_target("solo", a->path);
	trace2_initialize();
	CHECK(trace2_is_enabled() == a->variant);
	if (!a->variant)
		return;
	trace2_cmd_start(argv);
	c.args.v = argv;
	c.args.nr = 1;
	trace2_child_start(&c);
	trace2_printf("%s", "child running");
	c.pid = 1;
	trace2_child_exit(&c, 0);
	trace2_exec("prog", argv);
	trace2_printf("%s", "exec failed");
	trace2_cmd_exit(0);
}

static void no_setting_lifecycle(void **state)
{
	char *dir = t2_tmpdir(), *text, *seq;
	struct solo_arg a = { .variant = 0 }; /* not registered */

	(void)state;
	snprintf(a.path, sizeof(a.path), "%s/solo", dir);
	/* without the target and without GIT_TRACE2*, tracing is off */
	assert_int_equal(t2_run_noinit(sc_lifecycle, &a, NULL), 0);
	text = t2_read_file(a.path, NULL);
	assert_string_equal(text ? text : "", "");
	free(text);

	a.variant = 1;
	assert_int_equal(t2_run_noinit(sc_lifecycle, &a, NULL), 0);
	text = t2_read_file(a.path, NULL);
	assert_non_null(text);
	seq = sequence(text, NULL);
	assert_string_equal(seq,
			    "#open output=0 brief=0 created=1 version start child_start #flush "
			    "printf child_exit exec #flush printf exit atexit #flush #shutdown");
	free(seq);
	free(text);
	t2_rmtree(dir);
	free(dir);
}

/* ------------------------------------------------------------------ */
/* 6. Re-entry: calls from inside a callback are ignored.               */
/* ------------------------------------------------------------------ */

static void sc_reentry(void *p)
{
	const struct solo_arg *a = p;

	register_file_target("loud", a->path)->reenter = a->variant;
	trace2_initialize();
	small_workload();
}

/* The records of a re-entering target's run without what changes
 * between runs; caller frees. */
static char *reentry_records(const char *path)
{
	char *text = t2_read_file(path, NULL), *out = strdup("");
	struct jl jl;
	size_t i;

	assert_non_null(text);
	assert_null(strstr(text, "#RECURSION"));
	jl_parse(&jl, "loud target", text);
	for (i = 0; i < jl.n; i++)
		t2_append(&out, "%s/%s/%lld ", rec_ev(jl.v[i]), rec_str(jl.v[i], "thread"),
			  (long long)rec_i64(jl.v[i], "nesting"));
	jl_free(&jl);
	free(text);
	return out;
}

static void reentry_ignored(void **state)
{
	static const char *const env[] = { "GIT_TRACE2_EVENT_NESTING=100", NULL };
	struct solo_arg a[2];
	struct t2_out out[2];
	char *dir = t2_tmpdir(), *recs[2];
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		a[i].variant = i; /* 1: the target re-enters */
		snprintf(a[i].path, sizeof(a[i].path), "%s/loud%d", dir, i);
		t2_run_all_noinit(sc_reentry, &a[i], env, &out[i]);
		assert_int_equal(out[i].status, 0);
		recs[i] = reentry_records(a[i].path);
	}
	assert_true(strlen(out[0].event) > 0);
	assert_string_equal(out[1].normal, out[0].normal);
	assert_string_equal(out[1].perf, out[0].perf);
	assert_string_equal(out[1].event, out[0].event);
	assert_string_equal(recs[1], recs[0]);
	for (i = 0; i < 2; i++) {
		t2_out_free(&out[i]);
		free(recs[i]);
	}
	t2_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(event_names),
		cmocka_unit_test(every_event_kind),
		cmocka_unit_test(sixteen_targets),
		cmocka_unit_test(registration_errors),
		cmocka_unit_test(registry_full),
		cmocka_unit_test(setting_target_destinations),
		cmocka_unit_test(setting_target_sockets),
		cmocka_unit_test(setting_target_bad_destination),
		cmocka_unit_test(setting_target_write_failure),
		cmocka_unit_test(open_refused),
		cmocka_unit_test(no_setting_lifecycle),
		cmocka_unit_test(reentry_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
