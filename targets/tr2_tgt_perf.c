/*
 * The PERF target (GIT_TRACE2_PERF): one line per event in fixed columns
 * "<time> <file:line> | d<depth> | <thread> | <event> | <repo> | <t_abs> |
 * <t_rel> | <category> | <dots><payload>".
 */
#include "tr2_tgt_perf.h"
#include "tr2_hot.h"
#include "tr2_gitloc.h"

#include <stdio.h>

/* this target's per-event code, in a block of its own (tr2_hot.h) */
#define HOT TR2_HOT_IN("1_perf")

#define LOCATION_WIDTH 28
#define THREAD_WIDTH 24
#define EVENT_WIDTH 12
#define CATEGORY_WIDTH 12
#define TIME_WIDTH 9

#define LOC_FILE TR2_GITLOC_PERF_FILE
#define LOC_SIGNAL TR2_GITLOC_PERF_SIGNAL
#define LOC_ATEXIT TR2_GITLOC_PERF_ATEXIT
#define LOC_TIMER TR2_GITLOC_PERF_TIMER
#define LOC_COUNTER TR2_GITLOC_PERF_COUNTER

/* An event name and its length, for struct cols and the helpers. */
#define EVENT(name) name, sizeof(name) - 1

/* Which optional columns a record fills. */
enum { ABS = 1, REL = 2 };

struct cols {
	const char *event;
	size_t event_len;
	int repo_id;           /* TRACE2_NO_REPO: blank repo column */
	unsigned times;        /* ABS, REL */
	const char *category;  /* NULL: blank */
};

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
 * thread: made once per thread (thread ids are never reused within a
 * process; the depth tells a restarted child from its parent).  The name
 * is compared too: a converter or a writer thread formats the records of
 * many threads through storage it reuses.
 */
struct ident {
	const struct trace2_thread *thread;
	int thread_id;
	int depth;
	size_t len;
	size_t name_at; /* where the name is in text */
	size_t name_len;
	char text[16 + THREAD_WIDTH + TR2_PAD_MAX];
};

static _Thread_local struct ident ident;

/* "d<depth> | <thread name padded> | "; needs 20 + TR2_PAD_MAX bytes more
 * than the name. */
static HOT char *put_ident(char *p, int depth, const struct trace2_thread *th)
{
	*p++ = 'd';
	p = tr2_put_i64(p, depth);
	p = tr2_put_lit(p, " | ");
	p = tr2_put_padded(p, th->name, th->name_len, THREAD_WIDTH);
	return tr2_put_lit(p, " | ");
}

/* The thread's ident, or NULL when its name is too long to keep (a
 * converted log's thread may have any name). */
static HOT const struct ident *thread_ident(const struct trace2_event *ev)
{
	const struct trace2_thread *th = ev->thread;
	int depth = ev->process->depth;

	if (ident.thread == th && ident.thread_id == th->id && ident.depth == depth &&
	    ident.len && ident.name_len == th->name_len &&
	    tr2_same_bytes(ident.text + ident.name_at, th->name, th->name_len))
		return &ident;
	if (th->name_len > THREAD_WIDTH)
		return NULL;
	ident.len = (size_t)(put_ident(ident.text, depth, th) - ident.text);
	ident.name_at = ident.len - THREAD_WIDTH - 3; /* before the padded name */
	ident.name_len = th->name_len;
	ident.thread = th;
	ident.thread_id = th->id;
	ident.depth = depth;
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
static HOT void begin_at(const struct tr2_tgt_state *st, struct tr2_buf *b,
			 const struct trace2_event *ev, const char *file, int line,
			 const struct cols *c)
{
	/* a signal handler's record must not find the cache half-written */
	const struct ident *id = ev->kind == TRACE2_EVENT_SIGNAL ? NULL : thread_ident(ev);
	size_t file_len = file ? tr2_strlen(file) : 0;
	char *p, *repo_end;

	tr2_buf_init(b);
	p = tr2_buf_reserve(b, file_len + ev->thread->name_len + 256);
	if (!p)
		return;
	if (!st->brief) {
		p = tr2_put(p, trace2_event_local_time(ev), TR2_LOCAL_TIME_LEN);
		*p++ = ' ';
		p = put_location(p, file, file_len, line);
		p = tr2_put_lit(p, " | ");
	}
	if (id)
		p = tr2_put(p, id->text, id->len);
	else
		p = put_ident(p, ev->process->depth, ev->thread);
	p = tr2_put_padded(p, c->event, c->event_len, EVENT_WIDTH);
	p = tr2_put_lit(p, " | ");
	repo_end = p + 3;
	if (tr2_tgt_has_repo(c->repo_id)) {
		*p++ = 'r';
		p = tr2_put_i64(p, c->repo_id);
		*p++ = ' ';
	}
	if (p < repo_end)
		p = tr2_put_padded(p, "", 0, (size_t)(repo_end - p));
	p = tr2_put_lit(p, " | ");
	p = put_time_column(p, c->times & ABS, ev->t_abs_us);
	p = put_time_column(p, c->times & REL, ev->t_rel_us);
	p = tr2_put_padded(p, c->category,
			   c->category ? tr2_strnlen(c->category, CATEGORY_WIDTH) : 0,
			   CATEGORY_WIDTH);
	p = tr2_put_lit(p, " | ");
	tr2_buf_commit(b, p);
	if (ev->nesting > 1)
		tr2_buf_addn(b, '.', 2 * (ev->nesting - 1));
}

static HOT void begin(const struct tr2_tgt_state *st, struct tr2_buf *b,
		      const struct trace2_event *ev, const struct cols *c)
{
	begin_at(st, b, ev, ev->file, ev->line, c);
}

static HOT void finish(const struct tr2_tgt_state *st, const struct trace2_event *ev,
		       struct tr2_buf *b)
{
	tr2_tgt_emit(st->dst, b, ev->time_us);
}

/* A record whose payload is one string. */
static HOT void simple(const struct tr2_tgt_state *st, const struct trace2_event *ev,
		       const char *name, size_t name_len, unsigned times,
		       const char *text)
{
	struct cols c = { name, name_len, TRACE2_NO_REPO, times, NULL };
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_add_str(&b, text);
	finish(st, ev, &b);
}

/* The event's name, and whether its payload is a bracketed argv. */
static void named(const struct tr2_tgt_state *st, const struct trace2_event *ev,
		  unsigned times, const char *word, const char *const *argv, int brackets)
{
	const char *name = trace2_event_name(ev->kind);
	struct cols c = { name, tr2_strlen(name), TRACE2_NO_REPO, times, NULL };
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_adds(&b, word);
	tr2_buf_add_qargv(&b, argv);
	if (brackets)
		tr2_buf_addc(&b, ']');
	finish(st, ev, &b);
}

static void abs_code(const struct tr2_tgt_state *st, const struct trace2_event *ev,
		     const char *file, int line, const char *word, int code)
{
	const char *name = trace2_event_name(ev->kind);
	struct cols c = { name, tr2_strlen(name), TRACE2_NO_REPO, ABS, NULL };
	struct tr2_buf b;

	begin_at(st, &b, ev, file, line, &c);
	tr2_buf_adds(&b, word);
	tr2_buf_add_i64(&b, code);
	finish(st, ev, &b);
}

static void cmd_name(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	struct cols c = { EVENT("cmd_name"), TRACE2_NO_REPO, 0, NULL };
	const char *hierarchy = ev->cmd_name.hierarchy;
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_add_str(&b, ev->cmd_name.name);
	if (hierarchy && *hierarchy) {
		tr2_buf_addlit(&b, " (");
		tr2_buf_adds(&b, hierarchy);
		tr2_buf_addc(&b, ')');
	}
	finish(st, ev, &b);
}

static void alias(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	struct cols c = { EVENT("alias"), TRACE2_NO_REPO, 0, NULL };
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_addlit(&b, "alias:");
	tr2_buf_add_str(&b, ev->alias.alias);
	tr2_buf_addlit(&b, " argv:[");
	tr2_buf_add_qargv(&b, ev->alias.argv);
	tr2_buf_addc(&b, ']');
	finish(st, ev, &b);
}

static void child_start(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	const struct trace2_ev_child *ch = &ev->child;
	struct cols c = { EVENT("child_start"), TRACE2_NO_REPO, ABS, NULL };
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_addlit(&b, "[ch");
	tr2_buf_add_i64(&b, ch->id);
	tr2_buf_addlit(&b, "] class:");
	if (ch->hook_name) {
		tr2_buf_addlit(&b, "hook hook:");
		tr2_buf_adds(&b, ch->hook_name);
	} else
		tr2_buf_adds(&b, ch->child_class ? ch->child_class : "?");
	if (ch->cd) {
		tr2_buf_addlit(&b, " cd:");
		tr2_buf_add_qarg(&b, ch->cd);
	}
	tr2_buf_addlit(&b, " argv:[");
	if (ch->git_cmd) {
		tr2_buf_addlit(&b, "git");
		if (ch->argv && ch->argv[0])
			tr2_buf_addc(&b, ' ');
	}
	tr2_buf_add_qargv(&b, ch->argv);
	tr2_buf_addc(&b, ']');
	finish(st, ev, &b);
}

static void child_end(const struct tr2_tgt_state *st, const struct trace2_event *ev,
		      const char *what, const char *text, int code)
{
	const char *name = trace2_event_name(ev->kind);
	struct cols c = { name, tr2_strlen(name), TRACE2_NO_REPO, ABS | REL, NULL };
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_addlit(&b, "[ch");
	tr2_buf_add_i64(&b, ev->child.id);
	tr2_buf_addlit(&b, "] pid:");
	tr2_buf_add_i64(&b, ev->child.pid);
	tr2_buf_adds(&b, what);
	if (text)
		tr2_buf_adds(&b, text);
	else
		tr2_buf_add_i64(&b, code);
	finish(st, ev, &b);
}

static void exec_(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	struct cols c = { EVENT("exec"), TRACE2_NO_REPO, ABS, NULL };
	const char *const *argv = ev->exec.argv;
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_addlit(&b, "id:");
	tr2_buf_add_i64(&b, ev->exec.id);
	tr2_buf_addlit(&b, " argv:[");
	if (ev->exec.exe) {
		tr2_buf_adds(&b, ev->exec.exe);
		if (argv && argv[0])
			tr2_buf_addc(&b, ' ');
	}
	tr2_buf_add_qargv(&b, argv);
	tr2_buf_addc(&b, ']');
	finish(st, ev, &b);
}

static void exec_result(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	struct cols c = { EVENT("exec_result"), TRACE2_NO_REPO, ABS, NULL };
	int code = ev->exec.code;
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_addlit(&b, "id:");
	tr2_buf_add_i64(&b, ev->exec.id);
	tr2_buf_addlit(&b, " code:");
	tr2_buf_add_i64(&b, code);
	if (code > 0) {
		tr2_buf_addlit(&b, " err:");
		tr2_buf_adds(&b, strerror(code));
	}
	finish(st, ev, &b);
}

static void param(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	char category[32];
	struct cols c = { EVENT("def_param"), TRACE2_NO_REPO, 0, category };
	struct tr2_buf b;

	snprintf(category, sizeof(category), "scope:%s", ev->def_param.scope);
	begin(st, &b, ev, &c);
	tr2_buf_add_str(&b, ev->def_param.param);
	if (ev->def_param.value) {
		tr2_buf_addc(&b, ':');
		tr2_buf_adds(&b, ev->def_param.value);
	}
	finish(st, ev, &b);
}

static void repo(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	struct cols c = { EVENT("def_repo"), ev->def_repo.repo_id, 0, NULL };
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_addlit(&b, "worktree:");
	tr2_buf_add_qarg(&b, ev->def_repo.worktree);
	finish(st, ev, &b);
}

static HOT void region(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	const struct trace2_ev_region *r = &ev->region;
	struct cols c = { EVENT("region_enter"), r->repo_id, ABS, r->category };
	struct tr2_buf b;

	if (ev->kind == TRACE2_EVENT_REGION_LEAVE) {
		c.event = "region_leave";
		c.event_len = sizeof("region_leave") - 1;
		c.times = ABS | REL;
	}
	begin(st, &b, ev, &c);
	if (r->label) {
		tr2_buf_addlit(&b, "label:");
		tr2_buf_adds(&b, r->label);
	}
	if (r->msg) {
		tr2_buf_addc(&b, ' ');
		tr2_buf_adds(&b, r->msg);
	}
	finish(st, ev, &b);
}

static HOT void data(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	const struct trace2_ev_data *d = &ev->data;
	const char *name = trace2_event_name(ev->kind);
	struct cols c = { name, tr2_strlen(name), d->repo_id, ABS | REL, d->category };
	struct tr2_buf b;

	begin(st, &b, ev, &c);
	tr2_buf_add_str(&b, d->key);
	tr2_buf_addc(&b, ':');
	if (ev->kind == TRACE2_EVENT_DATA)
		tr2_buf_add_str(&b, d->value);
	else if (d->json)
		tr2_buf_add(&b, d->json, d->json_len);
	finish(st, ev, &b);
}

static void timer(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	const struct trace2_ev_timer *t = &ev->timer;
	const char *name = trace2_event_name(ev->kind);
	struct cols c = { name, tr2_strlen(name), TRACE2_NO_REPO, 0, t->category };
	struct tr2_buf b;

	begin_at(st, &b, ev, LOC_FILE, LOC_TIMER, &c);
	tr2_buf_addf(&b, "name:%s intervals:%llu total:%8.6f min:%8.6f max:%8.6f",
		     t->name, (unsigned long long)t->intervals,
		     (double)t->total_ns / 1e9, (double)t->min_ns / 1e9,
		     (double)t->max_ns / 1e9);
	finish(st, ev, &b);
}

static void counter(const struct tr2_tgt_state *st, const struct trace2_event *ev)
{
	const char *name = trace2_event_name(ev->kind);
	struct cols c = { name, tr2_strlen(name), TRACE2_NO_REPO, 0, ev->counter.category };
	struct tr2_buf b;

	begin_at(st, &b, ev, LOC_FILE, LOC_COUNTER, &c);
	tr2_buf_addlit(&b, "name:");
	tr2_buf_adds(&b, ev->counter.name);
	tr2_buf_addlit(&b, " value:");
	tr2_buf_add_u64(&b, ev->counter.value);
	finish(st, ev, &b);
}

static HOT void event(void *ctx, const struct trace2_event *ev)
{
	const struct tr2_tgt_state *st = ctx;

	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
	case TRACE2_EVENT_REGION_LEAVE:
		region(st, ev);
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		data(st, ev);
		break;
	case TRACE2_EVENT_PRINTF:
		simple(st, ev, EVENT("printf"), ABS, ev->printf.msg ? ev->printf.msg : "");
		break;
	case TRACE2_EVENT_VERSION:
		simple(st, ev, EVENT("version"), 0, ev->version.exe);
		break;
	case TRACE2_EVENT_START:
		named(st, ev, ABS, "", ev->start.argv, 0);
		break;
	case TRACE2_EVENT_EXIT:
		abs_code(st, ev, ev->file, ev->line, "code:", ev->exit.code);
		break;
	case TRACE2_EVENT_SIGNAL:
		abs_code(st, ev, LOC_FILE, LOC_SIGNAL, "signo:", ev->signal.signo);
		break;
	case TRACE2_EVENT_ATEXIT:
		abs_code(st, ev, LOC_FILE, LOC_ATEXIT, "code:", ev->exit.code);
		break;
	case TRACE2_EVENT_ERROR:
		simple(st, ev, EVENT("error"), 0, ev->error.msg ? ev->error.msg : "");
		break;
	case TRACE2_EVENT_CMD_PATH:
		simple(st, ev, EVENT("cmd_path"), 0, ev->cmd_path.path);
		break;
	case TRACE2_EVENT_CMD_ANCESTRY:
		named(st, ev, 0, "ancestry:[", ev->cmd_ancestry.names, 1);
		break;
	case TRACE2_EVENT_CMD_NAME:
		cmd_name(st, ev);
		break;
	case TRACE2_EVENT_CMD_MODE:
		simple(st, ev, EVENT("cmd_mode"), 0, ev->cmd_mode.name);
		break;
	case TRACE2_EVENT_ALIAS:
		alias(st, ev);
		break;
	case TRACE2_EVENT_CHILD_START:
		child_start(st, ev);
		break;
	case TRACE2_EVENT_CHILD_EXIT:
		child_end(st, ev, " code:", NULL, ev->child.code);
		break;
	case TRACE2_EVENT_CHILD_READY:
		child_end(st, ev, " ready:", ev->child.ready ? ev->child.ready : "(null)", 0);
		break;
	case TRACE2_EVENT_THREAD_START:
		simple(st, ev, EVENT("thread_start"), ABS, "");
		break;
	case TRACE2_EVENT_THREAD_EXIT:
		simple(st, ev, EVENT("thread_exit"), ABS | REL, "");
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
	default:
		break;
	}
}

const struct trace2_target tr2_tgt_perf = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "perf",
	.setting = "perf",
	.flags = TRACE2_TARGET_SIGNAL_SAFE,
	.open = tr2_tgt_open,
	.event = event,
};

const struct tr2_replay_ops tr2_tgt_perf_replay = {
	.target = &tr2_tgt_perf,
	.state_size = sizeof(struct tr2_tgt_state),
};
