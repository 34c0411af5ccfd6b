/*
 * The NORMAL target (GIT_TRACE2): one plain line per process-level event,
 * "<time> <file>:<line>" padded to column 50, then the payload.
 */
#include "tr2_tgt.h"
#include "tr2_hot.h"

/* this target's per-event code, in a block of its own (tr2_hot.h) */
#define HOT TR2_HOT_IN("3_normal")

#define PREFIX_COLUMNS 50

static struct tr2_dst dst = TR2_DST_INIT(TR2_SYSENV_NORMAL);
static int brief;

/* Pseudo-locations of Git's normal target (Git-compat constants). */
#define LOC_FILE "trace2/tr2_tgt_normal.c"
#define LOC_SIGNAL 118
#define LOC_ATEXIT 128
#define LOC_TIMER 357
#define LOC_COUNTER 372

static void init(void)
{
	brief = tr2_sysenv_bool(TR2_SYSENV_NORMAL_BRIEF, 0);
}

static HOT void begin(struct tr2_buf *b, struct tr2_ev *ev, const char *file, int line)
{
	tr2_buf_init(b);
	if (brief)
		return;
	tr2_buf_add(b, tr2_ev_local_time(ev), TR2_LOCAL_TIME_LEN);
	tr2_buf_addc(b, ' ');
	if (file && *file) {
		tr2_buf_adds(b, file);
		tr2_buf_addc(b, ':');
		tr2_buf_add_i64(b, line);
		tr2_buf_addc(b, ' ');
	}
	tr2_buf_pad_to(b, PREFIX_COLUMNS);
}

/* A record at the caller's location. */
static void begin_ev(struct tr2_buf *b, struct tr2_ev *ev)
{
	begin(b, ev, ev->file, ev->line);
}

static HOT void finish(const struct tr2_ev *ev, struct tr2_buf *b)
{
	tr2_tgt_emit(&dst, b, ev->us_now);
}

static void version(struct tr2_ev *ev, const char *v)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "version ");
	tr2_buf_add_str(&b, v);
	finish(ev, &b);
}

static void start(struct tr2_ev *ev, const char **argv)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "start ");
	tr2_buf_add_qargv(&b, argv);
	finish(ev, &b);
}

/* "<word> elapsed:<t_abs> code:<n>" at a given location. */
static void elapsed_code(struct tr2_ev *ev, const char *file, int line,
			 const char *word, int code)
{
	struct tr2_buf b;

	begin(&b, ev, file, line);
	tr2_buf_adds(&b, word);
	tr2_buf_addlit(&b, " elapsed:");
	tr2_buf_add_seconds(&b, ev->us_abs, 0);
	tr2_buf_addlit(&b, " code:");
	tr2_buf_add_i64(&b, code);
	finish(ev, &b);
}

static void exit_(struct tr2_ev *ev, int code)
{
	elapsed_code(ev, ev->file, ev->line, "exit", code);
}

static void signal_(struct tr2_ev *ev, int signo)
{
	elapsed_code(ev, LOC_FILE, LOC_SIGNAL, "signal", signo);
}

static void atexit_(struct tr2_ev *ev, int code)
{
	elapsed_code(ev, LOC_FILE, LOC_ATEXIT, "atexit", code);
}

static void error(struct tr2_ev *ev, const char *msg, const char *fmt)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "error");
	if (fmt) {
		tr2_buf_addc(&b, ' ');
		tr2_buf_adds(&b, msg);
	}
	finish(ev, &b);
}

/* "<word> <text>" */
static void word_text(struct tr2_ev *ev, const char *word, const char *text)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_adds(&b, word);
	tr2_buf_addc(&b, ' ');
	tr2_buf_add_str(&b, text);
	finish(ev, &b);
}

static void cmd_path(struct tr2_ev *ev, const char *path)
{
	word_text(ev, "cmd_path", path);
}

static void cmd_mode(struct tr2_ev *ev, const char *mode)
{
	word_text(ev, "cmd_mode", mode);
}

static void cmd_ancestry(struct tr2_ev *ev, const char **names)
{
	struct tr2_buf b;
	size_t i;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "cmd_ancestry ");
	for (i = 0; names && names[i]; i++) {
		if (i)
			tr2_buf_addlit(&b, " <- ");
		tr2_buf_adds(&b, names[i]);
	}
	finish(ev, &b);
}

static void cmd_name(struct tr2_ev *ev, const char *name, const char *hierarchy)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "cmd_name ");
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
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "alias ");
	tr2_buf_add_str(&b, alias_name);
	tr2_buf_addlit(&b, " -> ");
	tr2_buf_add_qargv(&b, argv);
	finish(ev, &b);
}

static void child_start(struct tr2_ev *ev, const struct child_process *cmd)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "child_start[");
	tr2_buf_add_i64(&b, cmd->trace2_child_id);
	tr2_buf_addc(&b, ']');
	if (cmd->dir) {
		tr2_buf_addlit(&b, " cd ");
		tr2_buf_add_qarg(&b, cmd->dir);
		tr2_buf_addc(&b, ';');
	}
	tr2_buf_addc(&b, ' ');
	if (cmd->git_cmd)
		tr2_buf_addlit(&b, "git ");
	tr2_buf_add_qargv(&b, cmd->args.v);
	finish(ev, &b);
}

/* "child_<kind>[<id>] pid:<pid> <what>:<value> elapsed:<t>" */
static void child_end(struct tr2_ev *ev, const struct child_process *cmd,
		      const char *kind, const char *what, const char *text, int code)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_adds(&b, kind);
	tr2_buf_addc(&b, '[');
	tr2_buf_add_i64(&b, cmd->trace2_child_id);
	tr2_buf_addlit(&b, "] pid:");
	tr2_buf_add_i64(&b, cmd->pid);
	tr2_buf_adds(&b, what);
	if (text)
		tr2_buf_add_str(&b, text);
	else
		tr2_buf_add_i64(&b, code);
	tr2_buf_addlit(&b, " elapsed:");
	tr2_buf_add_seconds(&b, ev->us_rel, 0);
	finish(ev, &b);
}

static void child_exit(struct tr2_ev *ev, const struct child_process *cmd, int code)
{
	child_end(ev, cmd, "child_exit", " code:", NULL, code);
}

static void child_ready(struct tr2_ev *ev, const struct child_process *cmd,
			const char *ready)
{
	child_end(ev, cmd, "child_ready", " ready:", ready ? ready : "(null)", 0);
}

static void exec_(struct tr2_ev *ev, int exec_id, const char *exe, const char **argv)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "exec[");
	tr2_buf_add_i64(&b, exec_id);
	tr2_buf_addlit(&b, "] ");
	if (exe) {
		tr2_buf_adds(&b, exe);
		tr2_buf_addc(&b, ' ');
	}
	tr2_buf_add_qargv(&b, argv);
	finish(ev, &b);
}

static void exec_result(struct tr2_ev *ev, int exec_id, int code)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "exec_result[");
	tr2_buf_add_i64(&b, exec_id);
	tr2_buf_addlit(&b, "] code:");
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
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "def_param scope:");
	tr2_buf_adds(&b, scope);
	tr2_buf_addc(&b, ' ');
	tr2_buf_add_str(&b, name);
	if (value) {
		tr2_buf_addc(&b, '=');
		tr2_buf_adds(&b, value);
	}
	finish(ev, &b);
}

static void repo(struct tr2_ev *ev, const struct repository *r)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	tr2_buf_addlit(&b, "worktree ");
	tr2_buf_add_qarg(&b, r->worktree);
	finish(ev, &b);
}

static HOT void printf_(struct tr2_ev *ev, const char *msg)
{
	struct tr2_buf b;

	begin_ev(&b, ev);
	if (msg)
		tr2_buf_adds(&b, msg);
	finish(ev, &b);
}

static void timer(struct tr2_ev *ev, const struct tr2_metric *m,
		  const struct tr2_timer *t, int per_thread)
{
	struct tr2_buf b;

	begin(&b, ev, LOC_FILE, LOC_TIMER);
	tr2_buf_adds(&b, per_thread ? "th_timer " : "timer ");
	tr2_buf_addf(&b, "%s/%s intervals:%llu total:%8.6f min:%8.6f max:%8.6f",
		     m->category, m->name, (unsigned long long)t->intervals,
		     (double)t->total_ns / 1e9, (double)t->min_ns / 1e9,
		     (double)t->max_ns / 1e9);
	finish(ev, &b);
}

static void counter(struct tr2_ev *ev, const struct tr2_metric *m, uint64_t value,
		    int per_thread)
{
	struct tr2_buf b;

	begin(&b, ev, LOC_FILE, LOC_COUNTER);
	tr2_buf_adds(&b, per_thread ? "th_counter " : "counter ");
	tr2_buf_adds(&b, m->category);
	tr2_buf_addc(&b, '/');
	tr2_buf_adds(&b, m->name);
	tr2_buf_addlit(&b, " value:");
	tr2_buf_add_u64(&b, value);
	finish(ev, &b);
}

const struct tr2_tgt tr2_tgt_normal = {
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
	.exec = exec_,
	.exec_result = exec_result,
	.param = param,
	.repo = repo,
	.printf = printf_,
	.timer = timer,
	.counter = counter,
};
