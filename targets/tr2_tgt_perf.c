/*
 * The PERF target (GIT_TRACE2_PERF): one line per event in fixed columns
 * "<time> <file:line> | d<depth> | <thread> | <event> | <repo> | <t_abs> |
 * <t_rel> | <category> | <dots><payload>".
 */
#include "tr2_tgt.h"
#include "tr2_hot.h"
#include "tr2_sid.h"

#include <stdio.h>

/* this target's per-event code, in a block of its own (tr2_hot.h) */
#define HOT TR2_HOT_IN("1_perf")

#define LOCATION_WIDTH 28
#define THREAD_WIDTH 24
#define EVENT_WIDTH 12
#define CATEGORY_WIDTH 12
#define TIME_WIDTH 9

static struct tr2_dst dst = TR2_DST_INIT(TR2_SYSENV_PERF);
static int brief;

#define LOC_FILE "trace2/tr2_tgt_perf.c"
#define LOC_SIGNAL 207
#define LOC_ATEXIT 219
#define LOC_TIMER 580
#define LOC_COUNTER 596

/* An event name and its length, for struct cols and the helpers. */
#define EVENT(name) name, sizeof(name) - 1

/* Which optional columns a record fills. */
enum { ABS = 1, REL = 2 };

struct cols {
	const char *event;
	size_t event_len;
	const struct repository *repo; /* NULL: blank repo column */
	unsigned times;                /* ABS, REL */
	const char *category;          /* NULL: blank */
};

static void init(void)
{
	brief = tr2_sysenv_bool(TR2_SYSENV_PERF_BRIEF, 0);
}

/* "<file>:<line>", or "..." and its last 25 bytes, padded to 28. */
static HOT char *put_location(char *p, const char *file, size_t file_len, int line)
{
	char *start = p;
	size_t len;

	if (file_len) {
		p = tr2_put(p, file, file_len);
		*p++ = ':';
		p = tr2_put_i64(p, line);
	}
	len = (size_t)(p - start);
	if (len > LOCATION_WIDTH) {
		memmove(start + 3, p - (LOCATION_WIDTH - 3), LOCATION_WIDTH - 3);
		memcpy(start, "...", 3);
		return start + LOCATION_WIDTH;
	}
	memcpy(p, tr2_spaces, TR2_PAD_MAX); /* the padding; room was reserved */
	return start + LOCATION_WIDTH;
}

/*
 * "d<depth> | <thread name padded> | " is the same for every record of a
 * thread context: made once per context (thread ids are never reused).
 */
struct ident {
	int thread_id;
	const struct tr2_tls *tls;
	size_t len;
	char text[16 + THREAD_WIDTH + TR2_PAD_MAX];
};

static _Thread_local struct ident ident;

static HOT const struct ident *thread_ident(const struct tr2_tls *tls)
{
	char *p;

	if (ident.tls == tls && ident.thread_id == tls->thread_id && ident.len)
		return &ident;
	p = ident.text;
	*p++ = 'd';
	p = tr2_put_i64(p, tr2_sid_depth());
	p = tr2_put_lit(p, " | ");
	p = tr2_put_padded(p, tls->name, tls->name_len, THREAD_WIDTH);
	p = tr2_put_lit(p, " | ");
	ident.len = (size_t)(p - ident.text);
	ident.tls = tls;
	ident.thread_id = tls->thread_id;
	return &ident;
}

static HOT char *put_time_column(char *p, int present, uint64_t us)
{
	if (present)
		p = tr2_put_seconds(p, us, TIME_WIDTH);
	else {
		memset(p, ' ', TIME_WIDTH);
		p += TIME_WIDTH;
	}
	return tr2_put_lit(p, " | ");
}

/* Everything up to the payload; the fixed-width part in one reservation. */
static HOT void begin_at(struct tr2_buf *b, struct tr2_ev *ev, const char *file,
		     int line, const struct cols *c)
{
	const struct tr2_tls *tls = ev->tls;
	const struct ident *id = thread_ident(tls);
	size_t file_len = file ? tr2_strlen(file) : 0;
	char *p, *repo_end;

	tr2_buf_init(b);
	p = tr2_buf_reserve(b, file_len + id->len + 256);
	if (!p)
		return;
	if (!brief) {
		p = tr2_put(p, tr2_ev_local_time(ev), TR2_LOCAL_TIME_LEN);
		*p++ = ' ';
		p = put_location(p, file, file_len, line);
		p = tr2_put_lit(p, " | ");
	}
	p = tr2_put(p, id->text, id->len);
	p = tr2_put_padded(p, c->event, c->event_len, EVENT_WIDTH);
	p = tr2_put_lit(p, " | ");
	repo_end = p + 3;
	if (c->repo) {
		*p++ = 'r';
		p = tr2_put_i64(p, c->repo->trace2_repo_id);
		*p++ = ' ';
	}
	if (p < repo_end)
		p = tr2_put_padded(p, "", 0, (size_t)(repo_end - p));
	p = tr2_put_lit(p, " | ");
	p = put_time_column(p, c->times & ABS, ev->us_abs);
	p = put_time_column(p, c->times & REL, ev->us_rel);
	p = tr2_put_padded(p, c->category,
			   c->category ? tr2_strnlen(c->category, CATEGORY_WIDTH) : 0,
			   CATEGORY_WIDTH);
	p = tr2_put_lit(p, " | ");
	tr2_buf_commit(b, p);
	if (tls->nr > 1)
		tr2_buf_addn(b, '.', 2 * (tls->nr - 1));
}

static HOT void begin(struct tr2_buf *b, struct tr2_ev *ev, const struct cols *c)
{
	begin_at(b, ev, ev->file, ev->line, c);
}

static HOT void finish(const struct tr2_ev *ev, struct tr2_buf *b)
{
	tr2_tgt_emit(&dst, b, ev->us_now);
}

/* A record whose payload is one string. */
static HOT void simple(struct tr2_ev *ev, const char *event, size_t event_len,
		   unsigned times, const char *text)
{
	struct cols c = { event, event_len, NULL, times, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_add_str(&b, text);
	finish(ev, &b);
}

static void version(struct tr2_ev *ev, const char *v)
{
	simple(ev, EVENT("version"), 0, v);
}

static void start(struct tr2_ev *ev, const char **argv)
{
	struct cols c = { EVENT("start"), NULL, ABS, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_add_qargv(&b, argv);
	finish(ev, &b);
}

static void abs_code(struct tr2_ev *ev, const char *file, int line,
		     const char *event, size_t event_len, const char *word, int code)
{
	struct cols c = { event, event_len, NULL, ABS, NULL };
	struct tr2_buf b;

	begin_at(&b, ev, file, line, &c);
	tr2_buf_adds(&b, word);
	tr2_buf_add_i64(&b, code);
	finish(ev, &b);
}

static void exit_(struct tr2_ev *ev, int code)
{
	abs_code(ev, ev->file, ev->line, EVENT("exit"), "code:", code);
}

static void signal_(struct tr2_ev *ev, int signo)
{
	abs_code(ev, LOC_FILE, LOC_SIGNAL, EVENT("signal"), "signo:", signo);
}

static void atexit_(struct tr2_ev *ev, int code)
{
	abs_code(ev, LOC_FILE, LOC_ATEXIT, EVENT("atexit"), "code:", code);
}

static void error(struct tr2_ev *ev, const char *msg, const char *fmt)
{
	(void)fmt;
	simple(ev, EVENT("error"), 0, msg ? msg : "");
}

static void cmd_path(struct tr2_ev *ev, const char *path)
{
	simple(ev, EVENT("cmd_path"), 0, path);
}

static void cmd_mode(struct tr2_ev *ev, const char *mode)
{
	simple(ev, EVENT("cmd_mode"), 0, mode);
}

static void cmd_ancestry(struct tr2_ev *ev, const char **names)
{
	struct cols c = { EVENT("cmd_ancestry"), NULL, 0, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_addlit(&b, "ancestry:[");
	tr2_buf_add_qargv(&b, names);
	tr2_buf_addc(&b, ']');
	finish(ev, &b);
}

static void cmd_name(struct tr2_ev *ev, const char *name, const char *hierarchy)
{
	struct cols c = { EVENT("cmd_name"), NULL, 0, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_add_str(&b, name);
	if (hierarchy && *hierarchy) {
		tr2_buf_addlit(&b, " (");
		tr2_buf_adds(&b, hierarchy);
		tr2_buf_addc(&b, ')');
	}
	finish(ev, &b);
}

static void alias(struct tr2_ev *ev, const char *alias_name, const char **argv)
{
	struct cols c = { EVENT("alias"), NULL, 0, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_addlit(&b, "alias:");
	tr2_buf_add_str(&b, alias_name);
	tr2_buf_addlit(&b, " argv:[");
	tr2_buf_add_qargv(&b, argv);
	tr2_buf_addc(&b, ']');
	finish(ev, &b);
}

static void child_start(struct tr2_ev *ev, const struct child_process *cmd)
{
	struct cols c = { EVENT("child_start"), NULL, ABS, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_addlit(&b, "[ch");
	tr2_buf_add_i64(&b, cmd->trace2_child_id);
	tr2_buf_addlit(&b, "] class:");
	if (cmd->trace2_hook_name) {
		tr2_buf_addlit(&b, "hook hook:");
		tr2_buf_adds(&b, cmd->trace2_hook_name);
	} else
		tr2_buf_adds(&b, cmd->trace2_child_class ? cmd->trace2_child_class : "?");
	if (cmd->dir) {
		tr2_buf_addlit(&b, " cd:");
		tr2_buf_add_qarg(&b, cmd->dir);
	}
	tr2_buf_addlit(&b, " argv:[");
	if (cmd->git_cmd) {
		tr2_buf_addlit(&b, "git");
		if (cmd->args.nr)
			tr2_buf_addc(&b, ' ');
	}
	tr2_buf_add_qargv(&b, cmd->args.v);
	tr2_buf_addc(&b, ']');
	finish(ev, &b);
}

static void child_end(struct tr2_ev *ev, const char *event, size_t event_len,
		      const struct child_process *cmd, const char *what,
		      const char *text, int code)
{
	struct cols c = { event, event_len, NULL, ABS | REL, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_addlit(&b, "[ch");
	tr2_buf_add_i64(&b, cmd->trace2_child_id);
	tr2_buf_addlit(&b, "] pid:");
	tr2_buf_add_i64(&b, cmd->pid);
	tr2_buf_adds(&b, what);
	if (text)
		tr2_buf_adds(&b, text);
	else
		tr2_buf_add_i64(&b, code);
	finish(ev, &b);
}

static void child_exit(struct tr2_ev *ev, const struct child_process *cmd, int code)
{
	child_end(ev, EVENT("child_exit"), cmd, " code:", NULL, code);
}

static void child_ready(struct tr2_ev *ev, const struct child_process *cmd,
			const char *ready)
{
	child_end(ev, EVENT("child_ready"), cmd, " ready:", ready ? ready : "(null)", 0);
}

static void thread_start(struct tr2_ev *ev)
{
	simple(ev, EVENT("thread_start"), ABS, "");
}

static void thread_exit(struct tr2_ev *ev)
{
	simple(ev, EVENT("thread_exit"), ABS | REL, "");
}

static void exec_(struct tr2_ev *ev, int exec_id, const char *exe, const char **argv)
{
	struct cols c = { EVENT("exec"), NULL, ABS, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_addlit(&b, "id:");
	tr2_buf_add_i64(&b, exec_id);
	tr2_buf_addlit(&b, " argv:[");
	if (exe) {
		tr2_buf_adds(&b, exe);
		if (argv && argv[0])
			tr2_buf_addc(&b, ' ');
	}
	tr2_buf_add_qargv(&b, argv);
	tr2_buf_addc(&b, ']');
	finish(ev, &b);
}

static void exec_result(struct tr2_ev *ev, int exec_id, int code)
{
	struct cols c = { EVENT("exec_result"), NULL, ABS, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_addlit(&b, "id:");
	tr2_buf_add_i64(&b, exec_id);
	tr2_buf_addlit(&b, " code:");
	tr2_buf_add_i64(&b, code);
	if (code > 0) {
		tr2_buf_addlit(&b, " err:");
		tr2_buf_adds(&b, strerror(code));
	}
	finish(ev, &b);
}

static void param(struct tr2_ev *ev, const char *name, const char *value,
		  const char *scope)
{
	char category[32];
	struct cols c = { EVENT("def_param"), NULL, 0, category };
	struct tr2_buf b;

	snprintf(category, sizeof(category), "scope:%s", scope);
	begin(&b, ev, &c);
	tr2_buf_add_str(&b, name);
	if (value) {
		tr2_buf_addc(&b, ':');
		tr2_buf_adds(&b, value);
	}
	finish(ev, &b);
}

static void repo(struct tr2_ev *ev, const struct repository *r)
{
	struct cols c = { EVENT("def_repo"), r, 0, NULL };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_addlit(&b, "worktree:");
	tr2_buf_add_qarg(&b, r->worktree);
	finish(ev, &b);
}

/* Six arguments, so that region_enter() and region_leave() can jump here
 * (tr2_dst.h: frames between the write() and the host cost time). */
static HOT void region(struct tr2_ev *ev, int leave, const char *category,
		       const char *label, const struct repository *r, const char *msg)
{
	struct cols c = { EVENT("region_enter"), r, ABS, category };
	struct tr2_buf b;

	if (leave) {
		c.event = "region_leave";
		c.event_len = sizeof("region_leave") - 1;
		c.times = ABS | REL;
	}
	begin(&b, ev, &c);
	if (label) {
		tr2_buf_addlit(&b, "label:");
		tr2_buf_adds(&b, label);
	}
	if (msg) {
		tr2_buf_addc(&b, ' ');
		tr2_buf_adds(&b, msg);
	}
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

static HOT void data(struct tr2_ev *ev, const char *category, const struct repository *r,
		 const char *key, const char *value)
{
	struct cols c = { EVENT("data"), r, ABS | REL, category };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_add_str(&b, key);
	tr2_buf_addc(&b, ':');
	tr2_buf_add_str(&b, value);
	finish(ev, &b);
}

static void data_json(struct tr2_ev *ev, const char *category,
		      const struct repository *r, const char *key,
		      const struct json_writer *jw)
{
	struct cols c = { EVENT("data_json"), r, ABS | REL, category };
	struct tr2_buf b;

	begin(&b, ev, &c);
	tr2_buf_add_str(&b, key);
	tr2_buf_addc(&b, ':');
	if (jw->json.buf)
		tr2_buf_add(&b, jw->json.buf, jw->json.len);
	finish(ev, &b);
}

static HOT void printf_(struct tr2_ev *ev, const char *msg)
{
	simple(ev, EVENT("printf"), ABS, msg ? msg : "");
}

static void timer(struct tr2_ev *ev, const struct tr2_metric *m,
		  const struct tr2_timer *t, int per_thread)
{
	const char *event = per_thread ? "th_timer" : "timer";
	struct cols c = { event, tr2_strlen(event), NULL, 0, m->category };
	struct tr2_buf b;

	begin_at(&b, ev, LOC_FILE, LOC_TIMER, &c);
	tr2_buf_addf(&b, "name:%s intervals:%llu total:%8.6f min:%8.6f max:%8.6f",
		     m->name, (unsigned long long)t->intervals,
		     (double)t->total_ns / 1e9, (double)t->min_ns / 1e9,
		     (double)t->max_ns / 1e9);
	finish(ev, &b);
}

static void counter(struct tr2_ev *ev, const struct tr2_metric *m, uint64_t value,
		    int per_thread)
{
	const char *event = per_thread ? "th_counter" : "counter";
	struct cols c = { event, tr2_strlen(event), NULL, 0, m->category };
	struct tr2_buf b;

	begin_at(&b, ev, LOC_FILE, LOC_COUNTER, &c);
	tr2_buf_addlit(&b, "name:");
	tr2_buf_adds(&b, m->name);
	tr2_buf_addlit(&b, " value:");
	tr2_buf_add_u64(&b, value);
	finish(ev, &b);
}

const struct tr2_tgt tr2_tgt_perf = {
	.dst = &dst,
	.init = init,
	.version = version,
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
