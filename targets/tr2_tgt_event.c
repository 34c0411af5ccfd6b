/*
 * The EVENT target (GIT_TRACE2_EVENT): one JSON object per line, event
 * format version "4".
 */
#include "tr2_tgt.h"
#include "tr2_hot.h"
#include "tr2_bug.h"
#include "tr2_sid.h"

#include <stdlib.h>

/* this target's per-event code, in a block of its own (tr2_hot.h) */
#define HOT TR2_HOT_IN("2_event")

#define EVENT_FORMAT_VERSION "4"
#define DEFAULT_NESTING 2

static struct tr2_dst dst = TR2_DST_INIT(TR2_SYSENV_EVENT);
static int brief;
static size_t max_nesting = DEFAULT_NESTING;

#define LOC_FILE "trace2/tr2_tgt_event.c"
#define LOC_SIGNAL 191
#define LOC_ATEXIT 207
#define LOC_TIMER 657
#define LOC_COUNTER 678

static void init(void)
{
	int n = tr2_sysenv_int(TR2_SYSENV_EVENT_NESTING, 0);

	brief = tr2_sysenv_bool(TR2_SYSENV_EVENT_BRIEF, 0);
	max_nesting = n > 0 ? (size_t)n : DEFAULT_NESTING;
}

/* A record's opening up to the SID's value, as one literal. */
struct head {
	const char *text;
	size_t len;
};
#define HEAD_TEXT(name) "{\"event\":\"" name "\",\"sid\":\""
#define EVENT(name) ((struct head){ HEAD_TEXT(name), sizeof(HEAD_TEXT(name)) - 1 })

/* Keys every record starts with, in one reservation.  Brief mode keeps
 * "time" only where always_time is set (version, atexit). */
static HOT void begin_at(struct tr2_buf *b, struct tr2_ev *ev, struct head event,
		     const char *file, int line, int always_time)
{
	const struct tr2_tls *tls = ev->tls;
	size_t sid_len;
	const char *sid = tr2_sid_json(&sid_len);
	size_t file_len = !brief && file ? tr2_strlen(file) : 0;
	char *p;

	tr2_buf_init(b);
	p = tr2_buf_reserve(b, 128 + event.len + sid_len + tls->json_name_len +
			       TR2_JSON_ESCAPED_MAX(file_len));
	if (!p)
		return;
	p = tr2_put(p, event.text, event.len);
	p = tr2_put(p, sid, sid_len);
	p = tr2_put_lit(p, "\",\"thread\":\"");
	p = tr2_put(p, tls->json_name, tls->json_name_len);
	*p++ = '"';
	if (!brief || always_time) {
		p = tr2_put_lit(p, ",\"time\":\"");
		p = tr2_put(p, tr2_ev_utc_time(ev), TR2_UTC_TIME_LEN);
		*p++ = '"';
	}
	if (file_len) {
		p = tr2_put_lit(p, ",\"file\":");
		p = tr2_put_json_str(p, file, file_len);
		p = tr2_put_lit(p, ",\"line\":");
		p = tr2_put_i64(p, line);
	}
	tr2_buf_commit(b, p);
}

static HOT void begin(struct tr2_buf *b, struct tr2_ev *ev, struct head event)
{
	begin_at(b, ev, event, ev->file, ev->line, 0);
}

/* ,"<key>":  (key is a trusted literal) */
#define KEY(b, k) tr2_buf_addlit((b), ",\"" k "\":")

static void add_repo(struct tr2_buf *b, const struct repository *repo)
{
	if (repo) {
		KEY(b, "repo");
		tr2_buf_add_i64(b, repo->trace2_repo_id);
	}
}

static void add_str(struct tr2_buf *b, const char *key_lit, size_t key_len,
		    const char *value)
{
	tr2_buf_add(b, key_lit, key_len);
	tr2_buf_add_json_str(b, value);
}
#define STR(b, k, v) add_str((b), ",\"" k "\":", sizeof(",\"" k "\":") - 1, (v))

static void add_int(struct tr2_buf *b, const char *key_lit, size_t key_len, int64_t v)
{
	tr2_buf_add(b, key_lit, key_len);
	tr2_buf_add_i64(b, v);
}
#define INT(b, k, v) add_int((b), ",\"" k "\":", sizeof(",\"" k "\":") - 1, (v))

static void add_seconds(struct tr2_buf *b, const char *key_lit, size_t key_len,
			uint64_t us)
{
	tr2_buf_add(b, key_lit, key_len);
	tr2_buf_add_seconds(b, us, 0);
}
#define SECS(b, k, v) add_seconds((b), ",\"" k "\":", sizeof(",\"" k "\":") - 1, (v))

static HOT void finish(const struct tr2_ev *ev, struct tr2_buf *b)
{
	tr2_buf_addc(b, '}');
	tr2_tgt_emit(&dst, b, ev->us_now);
}

static void version(struct tr2_ev *ev, const char *v)
{
	struct tr2_buf b;

	begin_at(&b, ev, EVENT("version"), ev->file, ev->line, 1);
	STR(&b, "evt", EVENT_FORMAT_VERSION);
	STR(&b, "exe", v);
	finish(ev, &b);
}

static void too_many_files(struct tr2_ev *ev)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("too_many_files"));
	finish(ev, &b);
}

static void start(struct tr2_ev *ev, const char **argv)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("start"));
	SECS(&b, "t_abs", ev->us_abs);
	KEY(&b, "argv");
	tr2_buf_add_json_argv(&b, argv);
	finish(ev, &b);
}

static void abs_int(struct tr2_ev *ev, struct head event, const char *file,
		    int line, int always_time, const char *key_lit, size_t key_len,
		    int value)
{
	struct tr2_buf b;

	begin_at(&b, ev, event, file, line, always_time);
	SECS(&b, "t_abs", ev->us_abs);
	add_int(&b, key_lit, key_len, value);
	finish(ev, &b);
}
#define CODE_KEY ",\"code\":", sizeof(",\"code\":") - 1

static void exit_(struct tr2_ev *ev, int code)
{
	abs_int(ev, EVENT("exit"), ev->file, ev->line, 0, CODE_KEY, code);
}

static void signal_(struct tr2_ev *ev, int signo)
{
	abs_int(ev, EVENT("signal"), LOC_FILE, LOC_SIGNAL, 0,
		",\"signo\":", sizeof(",\"signo\":") - 1, signo);
}

static void atexit_(struct tr2_ev *ev, int code)
{
	abs_int(ev, EVENT("atexit"), LOC_FILE, LOC_ATEXIT, 1, CODE_KEY, code);
}

static void error(struct tr2_ev *ev, const char *msg, const char *fmt)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("error"));
	if (fmt) {
		STR(&b, "msg", msg);
		STR(&b, "fmt", fmt);
	}
	finish(ev, &b);
}

static void cmd_path(struct tr2_ev *ev, const char *path)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("cmd_path"));
	STR(&b, "path", path);
	finish(ev, &b);
}

static void cmd_ancestry(struct tr2_ev *ev, const char **names)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("cmd_ancestry"));
	KEY(&b, "ancestry");
	tr2_buf_add_json_argv(&b, names);
	finish(ev, &b);
}

static void cmd_name(struct tr2_ev *ev, const char *name, const char *hierarchy)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("cmd_name"));
	STR(&b, "name", name);
	if (hierarchy && *hierarchy)
		STR(&b, "hierarchy", hierarchy);
	finish(ev, &b);
}

static void cmd_mode(struct tr2_ev *ev, const char *mode)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("cmd_mode"));
	STR(&b, "name", mode);
	finish(ev, &b);
}

static void alias(struct tr2_ev *ev, const char *alias_name, const char **argv)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("alias"));
	STR(&b, "alias", alias_name);
	KEY(&b, "argv");
	tr2_buf_add_json_argv(&b, argv);
	finish(ev, &b);
}

static void child_start(struct tr2_ev *ev, const struct child_process *cmd)
{
	struct tr2_buf b;
	size_t i;

	begin(&b, ev, EVENT("child_start"));
	INT(&b, "child_id", cmd->trace2_child_id);
	if (cmd->trace2_hook_name) {
		STR(&b, "child_class", "hook");
		STR(&b, "hook_name", cmd->trace2_hook_name);
	} else
		STR(&b, "child_class", cmd->trace2_child_class ? cmd->trace2_child_class : "?");
	if (cmd->dir)
		STR(&b, "cd", cmd->dir);
	KEY(&b, "use_shell");
	if (cmd->use_shell)
		tr2_buf_addlit(&b, "true");
	else
		tr2_buf_addlit(&b, "false");
	KEY(&b, "argv");
	tr2_buf_addc(&b, '[');
	if (cmd->git_cmd)
		tr2_buf_addlit(&b, "\"git\"");
	for (i = 0; cmd->args.v && cmd->args.v[i]; i++) {
		if (i || cmd->git_cmd)
			tr2_buf_addc(&b, ',');
		tr2_buf_add_json_str(&b, cmd->args.v[i]);
	}
	tr2_buf_addc(&b, ']');
	finish(ev, &b);
}

static void child_exit(struct tr2_ev *ev, const struct child_process *cmd, int code)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("child_exit"));
	INT(&b, "child_id", cmd->trace2_child_id);
	INT(&b, "pid", cmd->pid);
	INT(&b, "code", code);
	SECS(&b, "t_rel", ev->us_rel);
	finish(ev, &b);
}

static void child_ready(struct tr2_ev *ev, const struct child_process *cmd,
			const char *ready)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("child_ready"));
	INT(&b, "child_id", cmd->trace2_child_id);
	INT(&b, "pid", cmd->pid);
	STR(&b, "ready", ready);
	SECS(&b, "t_rel", ev->us_rel);
	finish(ev, &b);
}

static void thread_start(struct tr2_ev *ev)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("thread_start"));
	finish(ev, &b);
}

static void thread_exit(struct tr2_ev *ev)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("thread_exit"));
	SECS(&b, "t_rel", ev->us_rel);
	finish(ev, &b);
}

static void exec_(struct tr2_ev *ev, int exec_id, const char *exe, const char **argv)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("exec"));
	INT(&b, "exec_id", exec_id);
	if (exe)
		STR(&b, "exe", exe);
	KEY(&b, "argv");
	tr2_buf_add_json_argv(&b, argv);
	finish(ev, &b);
}

static void exec_result(struct tr2_ev *ev, int exec_id, int code)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("exec_result"));
	INT(&b, "exec_id", exec_id);
	INT(&b, "code", code);
	finish(ev, &b);
}

static void param(struct tr2_ev *ev, const char *name, const char *value,
		  const char *scope)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("def_param"));
	STR(&b, "scope", scope);
	STR(&b, "param", name);
	if (value)
		STR(&b, "value", value);
	finish(ev, &b);
}

static void repo(struct tr2_ev *ev, const struct repository *r)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("def_repo"));
	add_repo(&b, r);
	STR(&b, "worktree", r->worktree);
	finish(ev, &b);
}

static HOT int filtered(const struct tr2_ev *ev)
{
	return ev->tls->nr > max_nesting;
}

/* ,"<key>":"<escaped value>" for an optional string. */
static char *put_opt_str(char *p, const char *key_lit, size_t key_len,
			 const char *value, size_t len)
{
	if (!value)
		return p;
	p = tr2_put(p, key_lit, key_len);
	return tr2_put_json_str(p, value, len);
}
#define OPT_STR(p, k, v, len) \
	put_opt_str((p), ",\"" k "\":", sizeof(",\"" k "\":") - 1, (v), (len))

/* Six arguments, so that region_enter() and region_leave() can jump here
 * (tr2_dst.h: frames between the write() and the host cost time). */
static HOT void region(struct tr2_ev *ev, int leave, const char *category,
		       const char *label, const struct repository *r, const char *msg)
{
	size_t cat_len = category ? tr2_strlen(category) : 0;
	size_t label_len = label ? tr2_strlen(label) : 0;
	size_t msg_len = msg ? tr2_strlen(msg) : 0;
	struct tr2_buf b;
	char *p;

	if (filtered(ev))
		return;
	begin(&b, ev, leave ? EVENT("region_leave") : EVENT("region_enter"));
	p = tr2_buf_reserve(&b, 128 + TR2_JSON_ESCAPED_MAX(cat_len + label_len + msg_len));
	if (!p) {
		tr2_buf_release(&b);
		return;
	}
	if (r) {
		p = tr2_put_lit(p, ",\"repo\":");
		p = tr2_put_i64(p, r->trace2_repo_id);
	}
	if (leave) {
		p = tr2_put_lit(p, ",\"t_rel\":");
		p = tr2_put_seconds(p, ev->us_rel, 0);
	}
	p = tr2_put_lit(p, ",\"nesting\":");
	p = tr2_put_u64(p, ev->tls->nr);
	p = OPT_STR(p, "category", category, cat_len);
	p = OPT_STR(p, "label", label, label_len);
	p = OPT_STR(p, "msg", msg, msg_len);
	tr2_buf_commit(&b, p);
	finish(ev, &b);
}

static HOT void region_enter(struct tr2_ev *ev, const char *category, const char *label,
			 const struct repository *r, const char *msg)
{
	region(ev, 0, category, label, r, msg);
}

static HOT void region_leave(struct tr2_ev *ev, const char *category, const char *label,
			 const struct repository *r, const char *msg)
{
	region(ev, 1, category, label, r, msg);
}

/* The common part of data and data_json, up to the "value" key. */
static HOT void begin_data(struct tr2_buf *b, struct tr2_ev *ev, struct head event,
		       const char *category, const struct repository *r,
		       const char *key)
{
	begin(b, ev, event);
	add_repo(b, r);
	SECS(b, "t_abs", ev->us_abs);
	SECS(b, "t_rel", ev->us_rel);
	INT(b, "nesting", (int64_t)ev->tls->nr);
	STR(b, "category", category);
	STR(b, "key", key);
	KEY(b, "value");
}

static HOT void data(struct tr2_ev *ev, const char *category, const struct repository *r,
		 const char *key, const char *value)
{
	struct tr2_buf b;

	if (filtered(ev))
		return;
	begin_data(&b, ev, EVENT("data"), category, r, key);
	tr2_buf_add_json_str(&b, value);
	finish(ev, &b);
}

/* A pretty writer's text with each newline and the indentation after it
 * removed. */
static void add_compacted(struct tr2_buf *b, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (s[i] == '\n') {
			for (i++; i < len && s[i] == ' '; i++)
				;
			continue;
		}
		tr2_buf_addc(b, s[i++]);
	}
}

static void data_json(struct tr2_ev *ev, const char *category,
		      const struct repository *r, const char *key,
		      const struct json_writer *jw)
{
	struct tr2_buf b;

	if (filtered(ev))
		return;
	if (jw->open_stack.len) {
		tr2_bug("json-writer: %s: missing jw_end(): '%s'",
			jw->open_stack.buf[0] == '[' ? "array" : "object",
			jw->json.buf ? jw->json.buf : "");
		return;
	}
	begin_data(&b, ev, EVENT("data_json"), category, r, key);
	if (!jw->json.len)
		tr2_buf_addlit(&b, "null");
	else if (jw->pretty)
		add_compacted(&b, jw->json.buf, jw->json.len);
	else
		tr2_buf_add(&b, jw->json.buf, jw->json.len);
	finish(ev, &b);
}

static HOT void printf_(struct tr2_ev *ev, const char *msg)
{
	struct tr2_buf b;

	begin(&b, ev, EVENT("printf"));
	SECS(&b, "t_abs", ev->us_abs);
	if (msg)
		STR(&b, "msg", msg);
	finish(ev, &b);
}

static void timer(struct tr2_ev *ev, const struct tr2_metric *m,
		  const struct tr2_timer *t, int per_thread)
{
	struct tr2_buf b;

	begin_at(&b, ev, per_thread ? EVENT("th_timer") : EVENT("timer"), LOC_FILE, LOC_TIMER, 0);
	STR(&b, "category", m->category);
	STR(&b, "name", m->name);
	INT(&b, "intervals", (int64_t)t->intervals);
	tr2_buf_addf(&b, ",\"t_total\":%.6f,\"t_min\":%.6f,\"t_max\":%.6f",
		     (double)t->total_ns / 1e9, (double)t->min_ns / 1e9,
		     (double)t->max_ns / 1e9);
	finish(ev, &b);
}

static void counter(struct tr2_ev *ev, const struct tr2_metric *m, uint64_t value,
		    int per_thread)
{
	struct tr2_buf b;

	begin_at(&b, ev, per_thread ? EVENT("th_counter") : EVENT("counter"), LOC_FILE, LOC_COUNTER, 0);
	STR(&b, "category", m->category);
	STR(&b, "name", m->name);
	INT(&b, "count", (int64_t)value);
	finish(ev, &b);
}

const struct tr2_tgt tr2_tgt_event = {
	.dst = &dst,
	.init = init,
	.version = version,
	.too_many_files = too_many_files,
	.start = start,
	.exit = exit_,
	.signal = signal_,
	.atexit = atexit_,
	.error = error,
	.cmd_path = cmd_path,
	.cmd_ancestry = cmd_ancestry,
	.cmd_name = cmd_name,
	.cmd_mode = cmd_mode,
	.alias = alias,
	.child_start = child_start,
	.child_exit = child_exit,
	.child_ready = child_ready,
	.thread_start = thread_start,
	.thread_exit = thread_exit,
	.exec = exec_,
	.exec_result = exec_result,
	.param = param,
	.repo = repo,
	.region_enter = region_enter,
	.region_leave = region_leave,
	.data = data,
	.data_json = data_json,
	.printf = printf_,
	.timer = timer,
	.counter = counter,
};
