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
 * Call-site templates for region records.  Between two region records of
 * the same call site, thread and nesting most of the line is the same
 * bytes: "event", "sid", "thread", "file", "line", "repo", "nesting",
 * "category", "label" and their values, JSON-escaped.  The target keeps
 * those bytes once, as three segments around the "time" and "t_rel"
 * members, and a record that hits copies the segments and formats only
 * the times and the message (~10% fewer instructions per buffered pair;
 * docs/performance.md).  The perf target has no templates: its columns
 * need no escaping, and checking a key costs what formatting them does.
 *
 * A template is found by a key: the numbers the text depends on and the
 * strings it was made from.  The API's strings have no lifetime
 * guarantee, so every string is compared by content (its length and
 * bytes, against a copy in the slot), never trusted by pointer; the file's
 * address only chooses the set.  The key names the record's thread and
 * process (id, escaped name, session id), not the calling OS thread, so
 * a thread formatting other threads' records (a writer thread, the
 * converter) gets theirs.
 *
 * The cache is per OS thread, in thread-local storage: TMPL_SETS x
 * TMPL_WAYS slots of ~380 bytes, the least recently used way replaced;
 * nothing allocated, no growth with the number of call sites.  Only region
 * records use it, never a signal handler's record, so a handler never
 * finds a slot half-written.
 */
#define TMPL_NUMS 8  /* numbers of a key; unused ones 0 */
#define TMPL_STRS 5  /* strings of a key */
#define TMPL_SEGS 3
#define TMPL_BYTES 320 /* a slot's key strings and text together */
#define TMPL_SETS 4
#define TMPL_WAYS 2

/* What a key and its slot compare as one block: the numbers, which
 * strings are NULL, and the lengths of the others. */
struct tmpl_fixed {
	int32_t num[TMPL_NUMS];
	uint32_t nulls;          /* bit i: string i is NULL; bit 31 set */
	uint16_t len[TMPL_STRS]; /* 0 for NULL */
	uint16_t unused;
};

struct tmpl_key {
	struct tmpl_fixed fixed;
	const char *str[TMPL_STRS];
};

struct tmpl {
	struct tmpl_fixed fixed; /* all 0: an empty slot */
	uint16_t seg_len[TMPL_SEGS];
	uint16_t strs_len;       /* where the text starts in bytes */
	char bytes[TMPL_BYTES];  /* the strings, then the segments */
};

struct tmpl_cache {
	struct tmpl slot[TMPL_SETS][TMPL_WAYS];
	unsigned char recent[TMPL_SETS]; /* the way used last */
};

/* A key with no numbers and no strings yet. */
static inline void tmpl_key_init(struct tmpl_key *key)
{
	memset(&key->fixed, 0, sizeof(key->fixed));
	key->fixed.nulls = 1u << 31;
}

/* Number i of a key; one that does not fit leaves the key unusable. */
static inline void tmpl_key_num(struct tmpl_key *key, int i, int64_t v)
{
	key->fixed.num[i] = (int32_t)v;
	if (v != key->fixed.num[i])
		key->fixed.nulls = 0;
}

/* String i of a key and its length (ignored for NULL); a string longer
 * than any slot leaves the key unusable (it never matches nor is kept). */
static inline void tmpl_key_str(struct tmpl_key *key, int i, const char *s,
				    size_t len)
{
	key->str[i] = s;
	if (!s)
		key->fixed.nulls |= 1u << i;
	else if (len > TMPL_BYTES)
		key->fixed.nulls = 0;
	else
		key->fixed.len[i] = (uint16_t)len;
}

/* A template's segment i. */
static inline const char *tmpl_seg(const struct tmpl *t, int i)
{
	const char *p = t->bytes + t->strs_len;

	while (i--)
		p += t->seg_len[i];
	return p;
}

/* The set of a key: its call site (file address, line), kind, thread
 * and nesting, mixed. */
static HOT struct tmpl *set_of(struct tmpl_cache *cache,
				       const struct tmpl_key *key, size_t *set)
{
	const int32_t *num = key->fixed.num;
	uint64_t h = (uint64_t)(uintptr_t)key->str[0] ^ ((uint64_t)(uint32_t)num[0] << 32) ^
		     ((uint64_t)(uint32_t)num[1] << 40) ^ ((uint64_t)(uint32_t)num[2] << 48) ^
		     (uint32_t)num[3];

	*set = (size_t)((h * 0x9e3779b97f4a7c15ull) >> 40) % TMPL_SETS;
	return cache->slot[*set];
}

/* The fixed parts compared a word at a time, the first word (the kind
 * and the line) telling most other call sites apart. */
static HOT int same_fixed(const struct tmpl_fixed *a, const struct tmpl_fixed *b)
{
	uint64_t x, y;
	size_t i;

#pragma GCC unroll 8
	for (i = 0; i < sizeof(*a); i += 8) {
		memcpy(&x, (const char *)a + i, 8);
		memcpy(&y, (const char *)b + i, 8);
		if (x != y)
			return 0;
	}
	return 1;
}

static HOT int matches(const struct tmpl *t, const struct tmpl_key *key)
{
	const char *s = t->bytes;
	int i;

	if (!same_fixed(&t->fixed, &key->fixed))
		return 0;
#pragma GCC unroll 8
	for (i = 0; i < TMPL_STRS; i++) {
		if (!tr2_same_bytes(s, key->str[i], key->fixed.len[i]))
			return 0;
		s += key->fixed.len[i];
	}
	return 1;
}

/* The template of key in cache, or NULL. */
static HOT const struct tmpl *tmpl_find(struct tmpl_cache *cache,
					     const struct tmpl_key *key)
{
	size_t set;
	struct tmpl *way = set_of(cache, key, &set);
	int i;

	if (!key->fixed.nulls)
		return NULL;
	/* the way used last first: a loop's next record is often its */
	i = cache->recent[set];
	if (matches(&way[i], key))
		return &way[i];
	i = (i + 1) % TMPL_WAYS;
	if (matches(&way[i], key)) {
		cache->recent[set] = (unsigned char)i;
		return &way[i];
	}
	return NULL;
}

/* Keep the segments seg[i] (seg_len[i] bytes) as key's template, in place
 * of the set's least recently used one; nothing if they do not fit. */
static void tmpl_keep(struct tmpl_cache *cache, const struct tmpl_key *key,
		   const char *const seg[TMPL_SEGS],
		   const size_t seg_len[TMPL_SEGS])
{
	size_t set, need = 0, n = 0;
	struct tmpl *way = set_of(cache, key, &set);
	unsigned char victim = (unsigned char)(cache->recent[set] + 1) % TMPL_WAYS;
	struct tmpl *t = &way[victim];
	int i;

	for (i = 0; i < TMPL_STRS; i++)
		need += key->fixed.len[i];
	for (i = 0; i < TMPL_SEGS; i++)
		need += seg_len[i];
	if (!key->fixed.nulls || need > TMPL_BYTES)
		return;
	for (i = 0; i < TMPL_STRS; i++) {
		if (key->fixed.len[i])
			memcpy(t->bytes + n, key->str[i], key->fixed.len[i]);
		n += key->fixed.len[i];
	}
	t->strs_len = (uint16_t)n;
	for (i = 0; i < TMPL_SEGS; i++) {
		t->seg_len[i] = (uint16_t)seg_len[i];
		memcpy(t->bytes + n, seg[i], seg_len[i]);
		n += seg_len[i];
	}
	t->fixed = key->fixed;
	cache->recent[set] = victim;
}

/* The region record's template cache and key. */
static _Thread_local struct tmpl_cache templates;

static HOT void region_key(state *st, event_t *ev, struct tmpl_key *k)
{
	const struct trace2_ev_region *r = &ev->region;

	tmpl_key_init(k);
	tmpl_key_num(k, 0, ev->kind);
	tmpl_key_num(k, 1, ev->line);
	tmpl_key_num(k, 2, ev->thread->id);
	tmpl_key_num(k, 3, (int64_t)ev->nesting);
	tmpl_key_num(k, 4, r->repo_id);
	tmpl_key_num(k, 5, st->brief);
	tmpl_key_str(k, 0, ev->file, ev->file ? tr2_strlen(ev->file) : 0);
	tmpl_key_str(k, 1, r->category, r->category ? tr2_strlen(r->category) : 0);
	tmpl_key_str(k, 2, r->label, r->label ? tr2_strlen(r->label) : 0);
	tmpl_key_str(k, 3, ev->thread->json_name, ev->thread->json_name_len);
	tmpl_key_str(k, 4, ev->process->sid_json, ev->process->sid_json_len);
}

static HOT char *put_t_rel(char *p, event_t *ev)
{
	if (ev->kind != TRACE2_EVENT_REGION_LEAVE)
		return p;
	p = tr2_put_lit(p, ",\"t_rel\":");
	return tr2_put_seconds(p, ev->t_rel_us, 0);
}

/* The record up to its message from template t. */
static HOT char *region_from(state *st, char *p, event_t *ev, const struct tmpl *t)
{
	const char *seg = tmpl_seg(t, 0);

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
				 const struct tmpl_key *k)
{
	const struct trace2_ev_region *r = &ev->region;
	size_t cat_len = r->category ? tr2_strlen(r->category) : 0;
	size_t label_len = r->label ? tr2_strlen(r->label) : 0;
	size_t t_rel, rest;
	struct marks m = { 0, 0 };
	const char *seg[TMPL_SEGS];
	size_t seg_len[TMPL_SEGS];
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
	tmpl_keep(&templates, k, seg, seg_len);
}

static HOT void region(state *st, event_t *ev)
{
	const char *msg = ev->region.msg;
	size_t msg_len = msg ? tr2_strlen(msg) : 0;
	const struct tmpl *t;
	struct tmpl_key k;
	struct tr2_buf b;
	char *p;

	if (filtered(st, ev))
		return;
	region_key(st, ev, &k);
	t = tmpl_find(&templates, &k);
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
	.flags = TRACE2_TARGET_SIGNAL_SAFE,
	.open = open_,
	.event = event,
};

const struct tr2_replay_ops tr2_tgt_event_replay = {
	.target = &tr2_tgt_event,
	.state_size = sizeof(struct tr2_tgt_state),
};
