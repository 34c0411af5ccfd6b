/*
 * The NORMAL target (GIT_TRACE2): one plain line per process-level event,
 * "<time> <file>:<line>" padded to column 50, then the payload.
 */
#include "tr2_tgt_normal.h"
#include "tr2_hot.h"
#include "tr2_gitloc.h"

/* this target's per-event code, in a block of its own (tr2_hot.h) */
#define HOT TR2_HOT_IN("3_normal")

#define PREFIX_COLUMNS 50

#define LOC_FILE TR2_GITLOC_NORMAL_FILE
#define LOC_SIGNAL TR2_GITLOC_NORMAL_SIGNAL
#define LOC_ATEXIT TR2_GITLOC_NORMAL_ATEXIT
#define LOC_TIMER TR2_GITLOC_NORMAL_TIMER
#define LOC_COUNTER TR2_GITLOC_NORMAL_COUNTER

typedef const struct tr2_tgt_state state;
typedef const struct trace2_event event_t;

static HOT void begin_at(state *st, struct tr2_buf *b, event_t *ev, const char *file,
			 int line)
{
	tr2_buf_init(b);
	if (st->brief)
		return;
	tr2_buf_add(b, trace2_event_local_time(ev), TR2_LOCAL_TIME_LEN);
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
static HOT void begin(state *st, struct tr2_buf *b, event_t *ev)
{
	begin_at(st, b, ev, ev->file, ev->line);
}

static HOT void finish(state *st, event_t *ev, struct tr2_buf *b)
{
	tr2_tgt_emit(st->dst, b, ev->time_us);
}

/* "<word> <text>" */
static void word_text(state *st, event_t *ev, const char *word, const char *text)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_adds(&b, word);
	tr2_buf_addc(&b, ' ');
	tr2_buf_add_str(&b, text);
	finish(st, ev, &b);
}

/* "<word> <quoted argv>" */
static void word_argv(state *st, event_t *ev, const char *word,
		      const char *const *argv)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_adds(&b, word);
	tr2_buf_addc(&b, ' ');
	tr2_buf_add_qargv(&b, argv);
	finish(st, ev, &b);
}

/* "<word> elapsed:<t_abs> code:<n>" at a given location. */
static void elapsed_code(state *st, event_t *ev, const char *file, int line,
			 const char *word, int code)
{
	struct tr2_buf b;

	begin_at(st, &b, ev, file, line);
	tr2_buf_adds(&b, word);
	tr2_buf_addlit(&b, " elapsed:");
	tr2_buf_add_seconds(&b, ev->t_abs_us, 0);
	tr2_buf_addlit(&b, " code:");
	tr2_buf_add_i64(&b, code);
	finish(st, ev, &b);
}

static void error(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "error");
	if (ev->error.fmt) {
		tr2_buf_addc(&b, ' ');
		tr2_buf_adds(&b, ev->error.msg);
	}
	finish(st, ev, &b);
}

static void cmd_ancestry(state *st, event_t *ev)
{
	const char *const *names = ev->cmd_ancestry.names;
	struct tr2_buf b;
	size_t i;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "cmd_ancestry ");
	for (i = 0; names && names[i]; i++) {
		if (i)
			tr2_buf_addlit(&b, " <- ");
		tr2_buf_adds(&b, names[i]);
	}
	finish(st, ev, &b);
}

static void cmd_name(state *st, event_t *ev)
{
	const char *hierarchy = ev->cmd_name.hierarchy;
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "cmd_name ");
	tr2_buf_add_str(&b, ev->cmd_name.name);
	if (hierarchy && *hierarchy) {
		tr2_buf_addlit(&b, " (");
		tr2_buf_adds(&b, hierarchy);
		tr2_buf_addc(&b, ')');
	}
	finish(st, ev, &b);
}

static void alias(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "alias ");
	tr2_buf_add_str(&b, ev->alias.alias);
	tr2_buf_addlit(&b, " -> ");
	tr2_buf_add_qargv(&b, ev->alias.argv);
	finish(st, ev, &b);
}

static void child_start(state *st, event_t *ev)
{
	const struct trace2_ev_child *ch = &ev->child;
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "child_start[");
	tr2_buf_add_i64(&b, ch->id);
	tr2_buf_addc(&b, ']');
	if (ch->cd) {
		tr2_buf_addlit(&b, " cd ");
		tr2_buf_add_qarg(&b, ch->cd);
		tr2_buf_addc(&b, ';');
	}
	tr2_buf_addc(&b, ' ');
	if (ch->git_cmd)
		tr2_buf_addlit(&b, "git ");
	tr2_buf_add_qargv(&b, ch->argv);
	finish(st, ev, &b);
}

/* "child_<kind>[<id>] pid:<pid> <what>:<value> elapsed:<t>" */
static void child_end(state *st, event_t *ev)
{
	const struct trace2_ev_child *ch = &ev->child;
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_adds(&b, trace2_event_name(ev->kind));
	tr2_buf_addc(&b, '[');
	tr2_buf_add_i64(&b, ch->id);
	tr2_buf_addlit(&b, "] pid:");
	tr2_buf_add_i64(&b, ch->pid);
	if (ev->kind == TRACE2_EVENT_CHILD_EXIT) {
		tr2_buf_addlit(&b, " code:");
		tr2_buf_add_i64(&b, ch->code);
	} else {
		tr2_buf_addlit(&b, " ready:");
		tr2_buf_add_str(&b, ch->ready);
	}
	tr2_buf_addlit(&b, " elapsed:");
	tr2_buf_add_seconds(&b, ev->t_rel_us, 0);
	finish(st, ev, &b);
}

static void exec_(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "exec[");
	tr2_buf_add_i64(&b, ev->exec.id);
	tr2_buf_addlit(&b, "] ");
	if (ev->exec.exe) {
		tr2_buf_adds(&b, ev->exec.exe);
		tr2_buf_addc(&b, ' ');
	}
	tr2_buf_add_qargv(&b, ev->exec.argv);
	finish(st, ev, &b);
}

static void exec_result(state *st, event_t *ev)
{
	int code = ev->exec.code;
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "exec_result[");
	tr2_buf_add_i64(&b, ev->exec.id);
	tr2_buf_addlit(&b, "] code:");
	tr2_buf_add_i64(&b, code);
	if (code > 0) {
		tr2_buf_addlit(&b, " err:");
		tr2_buf_adds(&b, strerror(code));
	}
	finish(st, ev, &b);
}

static void param(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "def_param scope:");
	tr2_buf_adds(&b, ev->def_param.scope);
	tr2_buf_addc(&b, ' ');
	tr2_buf_add_str(&b, ev->def_param.param);
	if (ev->def_param.value) {
		tr2_buf_addc(&b, '=');
		tr2_buf_adds(&b, ev->def_param.value);
	}
	finish(st, ev, &b);
}

static void repo(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	tr2_buf_addlit(&b, "worktree ");
	tr2_buf_add_qarg(&b, ev->def_repo.worktree);
	finish(st, ev, &b);
}

static HOT void printf_(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev);
	if (ev->printf.msg)
		tr2_buf_adds(&b, ev->printf.msg);
	finish(st, ev, &b);
}

static void timer(state *st, event_t *ev)
{
	const struct trace2_ev_timer *t = &ev->timer;
	struct tr2_buf b;

	begin_at(st, &b, ev, LOC_FILE, LOC_TIMER);
	tr2_buf_adds(&b, trace2_event_name(ev->kind));
	tr2_buf_addf(&b, " %s/%s intervals:%llu total:%8.6f min:%8.6f max:%8.6f",
		     t->category, t->name, (unsigned long long)t->intervals,
		     (double)t->total_ns / 1e9, (double)t->min_ns / 1e9,
		     (double)t->max_ns / 1e9);
	finish(st, ev, &b);
}

static void counter(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin_at(st, &b, ev, LOC_FILE, LOC_COUNTER);
	tr2_buf_adds(&b, trace2_event_name(ev->kind));
	tr2_buf_addc(&b, ' ');
	tr2_buf_adds(&b, ev->counter.category);
	tr2_buf_addc(&b, '/');
	tr2_buf_adds(&b, ev->counter.name);
	tr2_buf_addlit(&b, " value:");
	tr2_buf_add_u64(&b, ev->counter.value);
	finish(st, ev, &b);
}

/* Git's normal format has no data records; those the library makes
 * itself (category "trace2", no source location) are shown all the
 * same: the records a full ring dropped in deferred mode, those the
 * flight recorder overwrote and why it wrote, the rate a sampled tree
 * was kept at. */
static void library_data(state *st, event_t *ev)
{
	struct tr2_buf b;

	if (ev->file || strcmp(ev->data.category, "trace2"))
		return;
	begin(st, &b, ev);
	tr2_buf_addlit(&b, "data trace2/");
	tr2_buf_adds(&b, ev->data.key);
	tr2_buf_addlit(&b, " value:");
	tr2_buf_adds(&b, ev->data.value);
	finish(st, ev, &b);
}

static HOT void event(void *ctx, const struct trace2_event *ev)
{
	state *st = ctx;

	switch (ev->kind) {
	case TRACE2_EVENT_PRINTF:
		printf_(st, ev);
		break;
	case TRACE2_EVENT_VERSION:
		word_text(st, ev, "version", ev->version.exe);
		break;
	case TRACE2_EVENT_START:
		word_argv(st, ev, "start", ev->start.argv);
		break;
	case TRACE2_EVENT_EXIT:
		elapsed_code(st, ev, ev->file, ev->line, "exit", ev->exit.code);
		break;
	case TRACE2_EVENT_SIGNAL:
		elapsed_code(st, ev, LOC_FILE, LOC_SIGNAL, "signal", ev->signal.signo);
		break;
	case TRACE2_EVENT_ATEXIT:
		elapsed_code(st, ev, LOC_FILE, LOC_ATEXIT, "atexit", ev->exit.code);
		break;
	case TRACE2_EVENT_ERROR:
		error(st, ev);
		break;
	case TRACE2_EVENT_CMD_PATH:
		word_text(st, ev, "cmd_path", ev->cmd_path.path);
		break;
	case TRACE2_EVENT_CMD_ANCESTRY:
		cmd_ancestry(st, ev);
		break;
	case TRACE2_EVENT_CMD_NAME:
		cmd_name(st, ev);
		break;
	case TRACE2_EVENT_CMD_MODE:
		word_text(st, ev, "cmd_mode", ev->cmd_mode.name);
		break;
	case TRACE2_EVENT_ALIAS:
		alias(st, ev);
		break;
	case TRACE2_EVENT_CHILD_START:
		child_start(st, ev);
		break;
	case TRACE2_EVENT_CHILD_EXIT:
	case TRACE2_EVENT_CHILD_READY:
		child_end(st, ev);
		break;
	case TRACE2_EVENT_EXEC:
		exec_(st, ev);
		break;
	case TRACE2_EVENT_EXEC_RESULT:
		exec_result(st, ev);
		break;
	case TRACE2_EVENT_DEF_PARAM:
		param(st, ev);
		break;
	case TRACE2_EVENT_DEF_REPO:
		repo(st, ev);
		break;
	case TRACE2_EVENT_TIMER:
	case TRACE2_EVENT_TH_TIMER:
		timer(st, ev);
		break;
	case TRACE2_EVENT_COUNTER:
	case TRACE2_EVENT_TH_COUNTER:
		counter(st, ev);
		break;
	case TRACE2_EVENT_DATA:
		library_data(st, ev);
		break;
	default: /* regions, data, threads: not in this target */
		break;
	}
}

const struct trace2_target tr2_tgt_normal = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "normal",
	.setting = "normal",
	.flags = TRACE2_TARGET_SIGNAL_SAFE,
	.open = tr2_tgt_open,
	.event = event,
};

const struct tr2_replay_ops tr2_tgt_normal_replay = {
	.target = &tr2_tgt_normal,
	.state_size = sizeof(struct tr2_tgt_state),
};
