/*
 * The EVENT target (GIT_TRACE2_EVENT): one JSON object per line, event
 * format version "4".
 */
#include "tr2_tgt_event.h"
#include "tr2_hot.h"
#include "tr2_gitloc.h"
#include "tr2_diag.h"
#include "tr2_sysenv.h"

/* this target's per-event code, in a block of its own (tr2_hot.h) */
#define HOT TR2_HOT_IN("2_event")

#define EVENT_FORMAT_VERSION "4"
#define DEFAULT_NESTING 2

#define LOC_FILE TR2_GITLOC_EVENT_FILE
#define LOC_SIGNAL TR2_GITLOC_EVENT_SIGNAL
#define LOC_ATEXIT TR2_GITLOC_EVENT_ATEXIT
#define LOC_TIMER TR2_GITLOC_EVENT_TIMER
#define LOC_COUNTER TR2_GITLOC_EVENT_COUNTER

typedef const struct tr2_tgt_state state;
typedef const struct trace2_event event_t;

static int open_(void *ctx, const struct trace2_target_config *config)
{
	struct tr2_tgt_state *st = ctx;
	int n = tr2_sysenv_int(TR2_SYSENV_EVENT_NESTING, 0);

	st->max_nesting = n > 0 ? (size_t)n : DEFAULT_NESTING;
	return tr2_tgt_open(ctx, config);
}

/* A record's opening up to the SID's value, as one literal. */
struct head {
	const char *text;
	size_t len;
};
#define HEAD_TEXT(name) "{\"event\":\"" name "\",\"sid\":\""
#define EVENT(name) ((struct head){ HEAD_TEXT(name), sizeof(HEAD_TEXT(name)) - 1 })

static HOT char *put_time(char *p, event_t *ev)
{
	p = tr2_put_lit(p, ",\"time\":\"");
	p = tr2_put(p, trace2_event_utc_time(ev), TR2_UTC_TIME_LEN);
	*p++ = '"';
	return p;
}

/* Where a record's "time" member begins and ends (for a template). */
struct marks {
	size_t time, rest;
};

/* Keys every record starts with, in one reservation.  Brief mode keeps
 * "time" only where always_time is set (version, atexit).  Notes where
 * the time is in m (if not NULL). */
static HOT void begin_marked(state *st, struct tr2_buf *b, event_t *ev, struct head event,
			     const char *file, int line, int always_time,
			     struct marks *m)
{
	const struct trace2_thread *th = ev->thread;
	const struct trace2_process *proc = ev->process;
	size_t file_len = !st->brief && file ? tr2_strlen(file) : 0;
	char *p;

	tr2_buf_init(b);
	p = tr2_buf_reserve(b, 128 + event.len + proc->sid_json_len + th->json_name_len +
			       TR2_JSON_ESCAPED_MAX(file_len));
	if (!p)
		return;
	p = tr2_put(p, event.text, event.len);
	p = tr2_put(p, proc->sid_json, proc->sid_json_len);
	p = tr2_put_lit(p, "\",\"thread\":\"");
	p = tr2_put(p, th->json_name, th->json_name_len);
	*p++ = '"';
	if (m)
		m->time = (size_t)(p - b->p);
	if (!st->brief || always_time)
		p = put_time(p, ev);
	if (m)
		m->rest = (size_t)(p - b->p);
	if (file_len) {
		p = tr2_put_lit(p, ",\"file\":");
		p = tr2_put_json_str(p, file, file_len);
		p = tr2_put_lit(p, ",\"line\":");
		p = tr2_put_i64(p, line);
	}
	tr2_buf_commit(b, p);
}

static HOT void begin_at(state *st, struct tr2_buf *b, event_t *ev, struct head event,
			 const char *file, int line, int always_time)
{
	begin_marked(st, b, ev, event, file, line, always_time, NULL);
}

static HOT void begin(state *st, struct tr2_buf *b, event_t *ev, struct head event)
{
	begin_at(st, b, ev, event, ev->file, ev->line, 0);
}

static void add_repo(struct tr2_buf *b, int repo_id)
{
	if (tr2_tgt_has_repo(repo_id))
		TR2_JSON_INT(b, "repo", repo_id);
}

static HOT void finish(state *st, event_t *ev, struct tr2_buf *b)
{
	tr2_buf_addc(b, '}');
	tr2_tgt_emit(st->dst, b, ev->time_us);
}

/* A record with no more than the common keys. */
static void bare(state *st, event_t *ev, struct head event)
{
	struct tr2_buf b;

	begin(st, &b, ev, event);
	finish(st, ev, &b);
}

/* A record with one more string member. */
static void one_str(state *st, event_t *ev, struct head event, const char *key,
		    size_t key_len, const char *value)
{
	struct tr2_buf b;

	begin(st, &b, ev, event);
	tr2_json_add_str(&b, key, key_len, value);
	finish(st, ev, &b);
}

static void version(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin_at(st, &b, ev, EVENT("version"), ev->file, ev->line, 1);
	TR2_JSON_STR(&b, "evt", EVENT_FORMAT_VERSION);
	TR2_JSON_STR(&b, "exe", ev->version.exe);
	finish(st, ev, &b);
}

static void start(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("start"));
	TR2_JSON_SECS(&b, "t_abs", ev->t_abs_us);
	TR2_JSON_KEY(&b, "argv");
	tr2_json_add_argv(&b, ev->start.argv, 0);
	finish(st, ev, &b);
}

static void abs_int(state *st, event_t *ev, struct head event, const char *file,
		    int line, int always_time, const char *key, size_t key_len,
		    int value)
{
	struct tr2_buf b;

	begin_at(st, &b, ev, event, file, line, always_time);
	TR2_JSON_SECS(&b, "t_abs", ev->t_abs_us);
	tr2_json_add_int(&b, key, key_len, value);
	finish(st, ev, &b);
}

static void error(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("error"));
	if (ev->error.fmt) {
		TR2_JSON_STR(&b, "msg", ev->error.msg);
		TR2_JSON_STR(&b, "fmt", ev->error.fmt);
	}
	finish(st, ev, &b);
}

static void cmd_ancestry(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("cmd_ancestry"));
	TR2_JSON_KEY(&b, "ancestry");
	tr2_json_add_argv(&b, ev->cmd_ancestry.names, 0);
	finish(st, ev, &b);
}

static void cmd_name(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("cmd_name"));
	TR2_JSON_STR(&b, "name", ev->cmd_name.name);
	if (ev->cmd_name.hierarchy && *ev->cmd_name.hierarchy)
		TR2_JSON_STR(&b, "hierarchy", ev->cmd_name.hierarchy);
	finish(st, ev, &b);
}

static void alias(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("alias"));
	TR2_JSON_STR(&b, "alias", ev->alias.alias);
	TR2_JSON_KEY(&b, "argv");
	tr2_json_add_argv(&b, ev->alias.argv, 0);
	finish(st, ev, &b);
}

static void child_start(state *st, event_t *ev)
{
	const struct trace2_ev_child *ch = &ev->child;
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("child_start"));
	TR2_JSON_INT(&b, "child_id", ch->id);
	if (ch->hook_name) {
		TR2_JSON_STR(&b, "child_class", "hook");
		TR2_JSON_STR(&b, "hook_name", ch->hook_name);
	} else
		TR2_JSON_STR(&b, "child_class", ch->child_class ? ch->child_class : "?");
	if (ch->cd)
		TR2_JSON_STR(&b, "cd", ch->cd);
	TR2_JSON_KEY(&b, "use_shell");
	if (ch->use_shell)
		tr2_buf_addlit(&b, "true");
	else
		tr2_buf_addlit(&b, "false");
	TR2_JSON_KEY(&b, "argv");
	tr2_json_add_argv(&b, ch->argv, ch->git_cmd);
	finish(st, ev, &b);
}

static void child_end(state *st, event_t *ev)
{
	const struct trace2_ev_child *ch = &ev->child;
	struct tr2_buf b;

	if (ev->kind == TRACE2_EVENT_CHILD_EXIT)
		begin(st, &b, ev, EVENT("child_exit"));
	else
		begin(st, &b, ev, EVENT("child_ready"));
	TR2_JSON_INT(&b, "child_id", ch->id);
	TR2_JSON_INT(&b, "pid", ch->pid);
	if (ev->kind == TRACE2_EVENT_CHILD_EXIT)
		TR2_JSON_INT(&b, "code", ch->code);
	else
		TR2_JSON_STR(&b, "ready", ch->ready);
	TR2_JSON_SECS(&b, "t_rel", ev->t_rel_us);
	finish(st, ev, &b);
}

static void thread_exit(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("thread_exit"));
	TR2_JSON_SECS(&b, "t_rel", ev->t_rel_us);
	finish(st, ev, &b);
}

static void exec_(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("exec"));
	TR2_JSON_INT(&b, "exec_id", ev->exec.id);
	if (ev->exec.exe)
		TR2_JSON_STR(&b, "exe", ev->exec.exe);
	TR2_JSON_KEY(&b, "argv");
	tr2_json_add_argv(&b, ev->exec.argv, 0);
	finish(st, ev, &b);
}

static void exec_result(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("exec_result"));
	TR2_JSON_INT(&b, "exec_id", ev->exec.id);
	TR2_JSON_INT(&b, "code", ev->exec.code);
	finish(st, ev, &b);
}

static void param(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("def_param"));
	TR2_JSON_STR(&b, "scope", ev->def_param.scope);
	TR2_JSON_STR(&b, "param", ev->def_param.param);
	if (ev->def_param.value)
		TR2_JSON_STR(&b, "value", ev->def_param.value);
	finish(st, ev, &b);
}

static void repo(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("def_repo"));
	add_repo(&b, ev->def_repo.repo_id);
	TR2_JSON_STR(&b, "worktree", ev->def_repo.worktree);
	finish(st, ev, &b);
}

static HOT int filtered(state *st, event_t *ev)
{
	return ev->nesting > st->max_nesting;
}

/*
 * Region records through call-site templates (tr2_tgt.h): three segments
 * around the "time" and "t_rel" members, then the message.  The key holds
 * what the segments depend on.
 */
static _Thread_local struct tr2_tmpl_cache templates;

static HOT void region_key(state *st, event_t *ev, struct tr2_tmpl_key *k)
{
	tr2_tmpl_region_key(k, ev, st->brief, SIZE_MAX);
	tr2_tmpl_key_str(k, 3, ev->thread->json_name, ev->thread->json_name_len);
	tr2_tmpl_key_str(k, 4, ev->process->sid_json, ev->process->sid_json_len);
}

static HOT char *put_t_rel(char *p, event_t *ev)
{
	if (ev->kind != TRACE2_EVENT_REGION_LEAVE)
		return p;
	p = tr2_put_lit(p, ",\"t_rel\":");
	return tr2_put_seconds(p, ev->t_rel_us, 0);
}

/* The record up to its message from template t. */
static HOT char *region_from(state *st, char *p, event_t *ev, const struct tr2_tmpl *t)
{
	const char *seg = tr2_tmpl_seg(t, 0);

	memcpy(p, seg, t->seg_len[0]);
	p += t->seg_len[0];
	if (!st->brief)
		p = put_time(p, ev);
	seg += t->seg_len[0];
	memcpy(p, seg, t->seg_len[1]);
	p += t->seg_len[1];
	p = put_t_rel(p, ev);
	seg += t->seg_len[1];
	memcpy(p, seg, t->seg_len[2]);
	return p + t->seg_len[2];
}

/* The members after "file" and "line", up to the message. */
static HOT char *put_region(char *p, event_t *ev, size_t cat_len, size_t label_len,
			    size_t *t_rel, size_t *rest, const char *start)
{
	const struct trace2_ev_region *r = &ev->region;

	if (tr2_tgt_has_repo(r->repo_id)) {
		p = tr2_put_lit(p, ",\"repo\":");
		p = tr2_put_i64(p, r->repo_id);
	}
	*t_rel = (size_t)(p - start);
	p = put_t_rel(p, ev);
	*rest = (size_t)(p - start);
	p = tr2_put_lit(p, ",\"nesting\":");
	p = tr2_put_u64(p, ev->nesting);
	p = TR2_JSON_OPT_STR(p, "category", r->category, cat_len);
	return TR2_JSON_OPT_STR(p, "label", r->label, label_len);
}

/* The record up to its message formatted, and kept as k's template. */
static HOT void region_formatted(state *st, struct tr2_buf *b, event_t *ev,
				 const struct tr2_tmpl_key *k)
{
	const struct trace2_ev_region *r = &ev->region;
	size_t cat_len = r->category ? tr2_strlen(r->category) : 0;
	size_t label_len = r->label ? tr2_strlen(r->label) : 0;
	size_t t_rel, rest;
	struct marks m = { 0, 0 };
	const char *seg[TR2_TMPL_SEGS];
	size_t seg_len[TR2_TMPL_SEGS];
	char *p;

	begin_marked(st, b, ev,
		     ev->kind == TRACE2_EVENT_REGION_LEAVE ? EVENT("region_leave")
							   : EVENT("region_enter"),
		     ev->file, ev->line, 0, &m);
	p = tr2_buf_reserve(b, 128 + TR2_JSON_ESCAPED_MAX(cat_len + label_len));
	if (!p)
		return;
	p = put_region(p, ev, cat_len, label_len, &t_rel, &rest, b->p);
	tr2_buf_commit(b, p);
	if (b->failed)
		return;
	seg[0] = b->p;
	seg_len[0] = m.time;
	seg[1] = b->p + m.rest;
	seg_len[1] = t_rel - m.rest;
	seg[2] = b->p + rest;
	seg_len[2] = b->len - rest;
	tr2_tmpl_keep(&templates, k, seg, seg_len);
}

static HOT void region(state *st, event_t *ev)
{
	const char *msg = ev->region.msg;
	size_t msg_len = msg ? tr2_strlen(msg) : 0;
	const struct tr2_tmpl *t;
	struct tr2_tmpl_key k;
	struct tr2_buf b;
	char *p;

	if (filtered(st, ev))
		return;
	region_key(st, ev, &k);
	t = tr2_tmpl_find(&templates, &k);
	if (t) {
		tr2_buf_init(&b);
		p = tr2_buf_reserve(&b, 128 + t->seg_len[0] + t->seg_len[1] + t->seg_len[2]);
		if (p)
			tr2_buf_commit(&b, region_from(st, p, ev, t));
	} else
		region_formatted(st, &b, ev, &k);
	p = tr2_buf_reserve(&b, 16 + TR2_JSON_ESCAPED_MAX(msg_len));
	if (!p) {
		tr2_buf_release(&b);
		return;
	}
	tr2_buf_commit(&b, TR2_JSON_OPT_STR(p, "msg", msg, msg_len));
	finish(st, ev, &b);
}

static HOT void data(state *st, event_t *ev)
{
	const struct trace2_ev_data *d = &ev->data;
	int json = ev->kind == TRACE2_EVENT_DATA_JSON;
	struct tr2_buf b;

	if (filtered(st, ev))
		return;
	if (json && d->json_open) {
		tr2_bug("json-writer: %s: missing jw_end(): '%s'",
			d->json_open == '[' ? "array" : "object",
			d->json ? d->json : "");
		return;
	}
	begin(st, &b, ev, json ? EVENT("data_json") : EVENT("data"));
	add_repo(&b, d->repo_id);
	TR2_JSON_SECS(&b, "t_abs", ev->t_abs_us);
	TR2_JSON_SECS(&b, "t_rel", ev->t_rel_us);
	TR2_JSON_INT(&b, "nesting", (int64_t)ev->nesting);
	TR2_JSON_STR(&b, "category", d->category);
	TR2_JSON_STR(&b, "key", d->key);
	TR2_JSON_KEY(&b, "value");
	if (json)
		tr2_json_add_data_value(&b, d);
	else
		tr2_buf_add_json_str(&b, d->value);
	finish(st, ev, &b);
}

static HOT void printf_(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin(st, &b, ev, EVENT("printf"));
	TR2_JSON_SECS(&b, "t_abs", ev->t_abs_us);
	if (ev->printf.msg)
		TR2_JSON_STR(&b, "msg", ev->printf.msg);
	finish(st, ev, &b);
}

static void timer(state *st, event_t *ev)
{
	const struct trace2_ev_timer *t = &ev->timer;
	struct tr2_buf b;

	begin_at(st, &b, ev, ev->kind == TRACE2_EVENT_TH_TIMER ? EVENT("th_timer") : EVENT("timer"),
		 LOC_FILE, LOC_TIMER, 0);
	TR2_JSON_STR(&b, "category", t->category);
	TR2_JSON_STR(&b, "name", t->name);
	TR2_JSON_INT(&b, "intervals", (int64_t)t->intervals);
	tr2_buf_addf(&b, ",\"t_total\":%.6f,\"t_min\":%.6f,\"t_max\":%.6f",
		     (double)t->total_ns / 1e9, (double)t->min_ns / 1e9,
		     (double)t->max_ns / 1e9);
	finish(st, ev, &b);
}

static void counter(state *st, event_t *ev)
{
	struct tr2_buf b;

	begin_at(st, &b, ev,
		 ev->kind == TRACE2_EVENT_TH_COUNTER ? EVENT("th_counter") : EVENT("counter"),
		 LOC_FILE, LOC_COUNTER, 0);
	TR2_JSON_STR(&b, "category", ev->counter.category);
	TR2_JSON_STR(&b, "name", ev->counter.name);
	TR2_JSON_INT(&b, "count", (int64_t)ev->counter.value);
	finish(st, ev, &b);
}

static HOT void event(void *ctx, const struct trace2_event *ev)
{
	state *st = ctx;

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
		printf_(st, ev);
		break;
	case TRACE2_EVENT_VERSION:
		version(st, ev);
		break;
	case TRACE2_EVENT_TOO_MANY_FILES:
		bare(st, ev, EVENT("too_many_files"));
		break;
	case TRACE2_EVENT_START:
		start(st, ev);
		break;
	case TRACE2_EVENT_EXIT:
		abs_int(st, ev, EVENT("exit"), ev->file, ev->line, 0,
			TR2_JSON_KEY_LIT("code"), ev->exit.code);
		break;
	case TRACE2_EVENT_SIGNAL:
		abs_int(st, ev, EVENT("signal"), LOC_FILE, LOC_SIGNAL, 0,
			TR2_JSON_KEY_LIT("signo"), ev->signal.signo);
		break;
	case TRACE2_EVENT_ATEXIT:
		abs_int(st, ev, EVENT("atexit"), LOC_FILE, LOC_ATEXIT, 1,
			TR2_JSON_KEY_LIT("code"), ev->exit.code);
		break;
	case TRACE2_EVENT_ERROR:
		error(st, ev);
		break;
	case TRACE2_EVENT_CMD_PATH:
		one_str(st, ev, EVENT("cmd_path"), TR2_JSON_KEY_LIT("path"), ev->cmd_path.path);
		break;
	case TRACE2_EVENT_CMD_ANCESTRY:
		cmd_ancestry(st, ev);
		break;
	case TRACE2_EVENT_CMD_NAME:
		cmd_name(st, ev);
		break;
	case TRACE2_EVENT_CMD_MODE:
		one_str(st, ev, EVENT("cmd_mode"), TR2_JSON_KEY_LIT("name"), ev->cmd_mode.name);
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
	case TRACE2_EVENT_THREAD_START:
		bare(st, ev, EVENT("thread_start"));
		break;
	case TRACE2_EVENT_THREAD_EXIT:
		thread_exit(st, ev);
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

const struct trace2_target tr2_tgt_event = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "event",
	.setting = "event",
	.open = open_,
	.event = event,
};
