/* The event-format reader (see reader.h). */
#include "reader.h"
#include "alloc.h"
#include "record.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace2/target.h"

#define READ_CHUNK 65536

/* s escaped as the inside of a JSON string, allocated. */
static char *json_escaped(const char *s, size_t n, size_t *out_len)
{
	char *p = t2_realloc(NULL, TRACE2_JSON_ESCAPED_MAX(n) + 1);

	*out_len = trace2_json_escape(p, TRACE2_JSON_ESCAPED_MAX(n), s, n);
	p[*out_len] = '\0';
	return p;
}

enum trace2_event_kind t2_event_kind(const char *name)
{
	/* every line asks: the last answer first (the command is one
	 * thread), then by first letter */
	static enum trace2_event_kind last;
	const char *n;
	int k;

	if (last && !strcmp(name, trace2_event_name(last)))
		return last;
	for (k = 1; k < TRACE2_EVENT_KIND_MAX; k++) {
		n = trace2_event_name((enum trace2_event_kind)k);
		if (n[0] == name[0] && !strcmp(name, n))
			return last = (enum trace2_event_kind)k;
	}
	return (enum trace2_event_kind)0;
}

/* Standard output and error, where they are regular files. */
static void note_outputs(struct t2_reader *r)
{
	int fd;

	for (fd = 1; fd <= 2; fd++)
		if (t2_sys_regular_fd(fd, &r->outputs[r->n_outputs].id))
			r->outputs[r->n_outputs++].fd = fd;
	r->stdout_name = "standard output";
}

void t2_reader_init(struct t2_reader *r, t2_record_fn on_record,
		    t2_bad_line_fn on_bad_line, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->on_record = on_record;
	r->on_bad_line = on_bad_line;
	r->ctx = ctx;
	r->max_line = T2_LINE_MAX;
	r->find_repeats = 1;
	r->made_end = &r->made;
	jobj_init(&r->obj);
	note_outputs(r);
}

static void free_process(struct t2_process *p)
{
	struct t2_thread *t, *next;

	for (t = p->threads; t; t = next) {
		next = t->next;
		free((char *)t->pub.name);
		free((char *)t->pub.json_name);
		free(t->user);
		free(t);
	}
	free((char *)p->pub.sid);
	free((char *)p->pub.sid_json);
	free(p->anchors);
	free(p->user);
	free(p);
}

void t2_reader_free(struct t2_reader *r)
{
	struct t2_process *p, *next;

	for (p = r->made; p; p = next) {
		next = p->next_made;
		free_process(p);
	}
	t2_map_free(&r->procs);
	jobj_free(&r->obj);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

void t2_report_bad_line(void *ctx, const char *src, unsigned long lineno, const char *reason,
			int ignored, int no_newline)
{
	(void)ctx;
	(void)ignored;
	if (!lineno) /* a recording's: the reason says where */
		fprintf(stderr, "%s: %s%s%s\n", src, no_newline ? "warning: " : "", reason,
			no_newline ? "" : "; skipped");
	else /* a last line cut off (a full disk, a kill) is to be expected */
		fprintf(stderr, "%s:%lu: %s%s; skipped\n", src, lineno,
			no_newline ? "warning: last line, no newline (cut off?): " : "", reason);
}

int t2_record_usable(const struct t2_record *rec, int quiet)
{
	if (rec->no_newline && !quiet)
		fprintf(stderr, "%s:%lu: warning: last line, no newline (cut off?); read\n",
			rec->src, rec->lineno);
	if (rec->first_repeat && !quiet)
		fprintf(stderr, "%s:%lu: a record read before, again (the same log given "
			"twice?); skipped, as are the later ones of this input that repeat\n",
			rec->src, rec->lineno);
	if (rec->repeat)
		return 0;
	if (!rec->known)
		return 0; /* another version's event: nothing to do with it */
	if (rec->proc && rec->thread)
		return 1;
	if (!quiet)
		fprintf(stderr, "%s:%lu: no %s string; skipped\n", rec->src, rec->lineno,
			rec->proc ? "\"thread\"" : "\"sid\"");
	return 0;
}

int t2_pid_of_sid(const char *sid, uint32_t *pid)
{
	const char *own = strrchr(sid, '/'), *p, *q = NULL;
	char *end;
	unsigned long v;

	own = own ? own + 1 : sid;
	for (p = own; (p = strstr(p, "-P")); p += 2)
		q = p + 2;
	if (!q || !*q)
		return -1;
	v = strtoul(q, &end, 16);
	if (*end || end - q > 8)
		return -1;
	*pid = (uint32_t)v;
	return 0;
}

const char *t2_unnamed(const struct t2_process *p, char *buf)
{
	uint32_t pid;

	if (t2_pid_of_sid(p->pub.sid, &pid))
		return "?";
	snprintf(buf, T2_UNNAMED_MAX, "(pid %lu)", (unsigned long)pid);
	return buf;
}

void t2_reader_each_process(struct t2_reader *r,
			    void (*fn)(void *ctx, struct t2_process *p), void *ctx)
{
	struct t2_process *p;

	for (p = r->made; p; p = p->next_made)
		fn(ctx, p);
}

static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 5381;

	while (n--)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static struct t2_process *get_process(struct t2_reader *r, const char *sid, size_t len,
				      int *created)
{
	union t2_map_val *head;
	struct t2_process *p;
	size_t i;

	*created = 0;
	if ((p = t2_reader_find(r, sid, len)))
		return p;
	p = t2_realloc(NULL, sizeof(*p));
	memset(p, 0, sizeof(*p));
	p->pub.sid = t2_memdup(sid, len);
	p->pub.sid_len = len;
	p->pub.sid_json = json_escaped(sid, len, &p->pub.sid_json_len);
	for (i = 0; i < len; i++)
		if (sid[i] == '/')
			p->pub.depth++;
	p->next_thread_id = 1000;
	head = t2_map_at(&r->procs, hash(sid, len), 1);
	p->next = head->p;
	head->p = p;
	*r->made_end = p;
	r->made_end = &p->next_made;
	*created = 1;
	return p;
}

struct t2_process *t2_reader_find(struct t2_reader *r, const char *sid, size_t len)
{
	union t2_map_val *head = t2_map_at(&r->procs, hash(sid, len), 0);
	struct t2_process *p = head ? head->p : NULL;

	for (; p; p = p->next)
		if (p->pub.sid_len == len && !memcmp(p->pub.sid, sid, len))
			return p;
	return NULL;
}

/* "main" is 0, "thNN:..." is NN, anything else gets an id of its own. */
static int thread_id(struct t2_process *p, const char *name)
{
	int id = 0;
	const char *s = name + 2;

	if (!strcmp(name, "main"))
		return 0;
	if (!strncmp(name, "th", 2) && *s >= '0' && *s <= '9') {
		while (*s >= '0' && *s <= '9' && id < 100000000)
			id = id * 10 + (*s++ - '0');
		if (*s == ':')
			return id;
	}
	return p->next_thread_id++;
}

static struct t2_thread *get_thread(struct t2_process *p, const char *name, size_t len,
				    int *created)
{
	struct t2_thread *t, **tail = &p->threads;

	*created = 0;
	for (t = p->threads; t; t = t->next) {
		if (t->pub.name_len == len && !memcmp(t->pub.name, name, len))
			return t;
		tail = &t->next;
	}
	t = t2_realloc(NULL, sizeof(*t));
	memset(t, 0, sizeof(*t));
	t->pub.name = t2_memdup(name, len);
	t->pub.name_len = len;
	t->pub.json_name = json_escaped(name, len, &t->pub.json_name_len);
	t->pub.id = thread_id(p, t->pub.name);
	t->level = 1;
	t->mid = p->mid;
	*tail = t;
	*created = 1;
	return t;
}

/* ---------------------------------------------------------------- */
/* Members of the line.                                               */

static const char *str_or(const struct jobj *o, const char *key, const char *dflt)
{
	const struct jval *v = jobj_get(o, key);

	return v && v->type == J_STRING ? v->str : dflt;
}

static int64_t int_or(const struct jobj *o, const char *key, int64_t dflt)
{
	const struct jval *v = jobj_get(o, key);
	int64_t x;

	return v && !jval_int(v, &x) ? x : dflt;
}

static int micros(const struct jobj *o, const char *key, uint64_t *us)
{
	const struct jval *v = jobj_get(o, key);

	return v && !jval_micros(v, us) ? 0 : -1;
}

static uint64_t micros_or0(const struct jobj *o, const char *key)
{
	uint64_t us = 0;

	micros(o, key, &us);
	return us;
}

static const char *const *argv_of(const struct jobj *o, const char *key)
{
	const struct jval *v = jobj_get(o, key);

	return v && v->type == J_ARRAY ? v->strs : NULL;
}

/* A data value that is not a string (a number): its text, NUL-terminated. */
static const char *text_of(struct t2_reader *r, const struct jval *v)
{
	if (r->scratch_cap < v->raw_len + 1) {
		free(r->scratch);
		r->scratch = t2_realloc(NULL, v->raw_len + 1);
		r->scratch_cap = v->raw_len + 1;
	}
	memcpy(r->scratch, v->raw, v->raw_len);
	r->scratch[v->raw_len] = '\0';
	return r->scratch;
}

static const char *empty_argv[] = { NULL };

/* How a key of tr2_kinds.def is read into its field. */
enum fill_how { F_STR, F_INT, F_SECS, F_BOOL, F_ARGV, F_STR_OR_NUM, F_ANY };

struct fill {
	const char *key;
	enum fill_how how;
	size_t off, size;   /* the field in struct trace2_event */
	const char *str;    /* the default of a string */
	const char *const *argv; /* of a vector */
	int64_t num;        /* of an integer; a time's units per microsecond */
};

#define MAX_FILLS 8
#define DFLT_STR(d) .str = d
#define DFLT_STR_OR_NUM(d) .str = d
#define DFLT_ANY(d) .str = d
#define DFLT_ARGV(d) .argv = d
#define DFLT_INT(d) .num = d
#define DFLT_SECS(d) .num = d
#define DFLT_BOOL(d) .num = d
#define TR2_EMPTY_ARGV empty_argv
#define TR2_READ(k, type, field, dflt)                                          \
	{ .key = k, .how = F_##type, .off = offsetof(struct trace2_event, field), \
	  .size = sizeof(((struct trace2_event *)0)->field), DFLT_##type(dflt) },
#define TR2_KEY(k, type, need, field, dflt) TR2_READ(k, type, field, dflt)
#define TR2_CHECK(k, type, need)
#define TR2_KIND(kind, name, payload, strings, argv, rec, keys) \
	[TRACE2_EVENT_##kind] = { keys { .key = NULL } },
/* Each kind's keys that fill its record, from tr2_kinds.def. */
static const struct fill fills[TRACE2_EVENT_KIND_MAX][MAX_FILLS] = {
#include "tr2_kinds.def"
};
#undef TR2_KIND
#undef TR2_CHECK
#undef TR2_KEY
#undef TR2_READ
#undef TR2_EMPTY_ARGV
#undef DFLT_BOOL
#undef DFLT_SECS
#undef DFLT_INT
#undef DFLT_ARGV
#undef DFLT_ANY
#undef DFLT_STR_OR_NUM
#undef DFLT_STR

static void put_ptr(char *at, const void *p)
{
	memcpy(at, &p, sizeof(p));
}

/* n into an integer field of size bytes (an int, or 64 bits) */
static void put_num(char *at, size_t size, int64_t n)
{
	int i = (int)n;

	if (size == sizeof(i))
		memcpy(at, &i, sizeof(i));
	else
		memcpy(at, &n, sizeof(n));
}

/* A data value: a string as it is, a number as its text. */
static const char *value_text(struct t2_reader *r, const struct jval *v, const char *dflt)
{
	if (v && v->type == J_STRING)
		return v->str;
	return v && v->type != J_NULL ? text_of(r, v) : dflt;
}

static void fill_field(struct t2_reader *r, const struct jobj *o, struct trace2_event *ev,
		       const struct fill *f)
{
	char *at = (char *)ev + f->off;
	const struct jval *v;
	const char *const *argv;

	switch (f->how) {
	case F_STR:
		put_ptr(at, str_or(o, f->key, f->str));
		break;
	case F_INT:
		put_num(at, f->size, int_or(o, f->key, f->num));
		break;
	case F_SECS:
		put_num(at, f->size, (int64_t)(micros_or0(o, f->key) * (uint64_t)f->num));
		break;
	case F_BOOL:
		v = jobj_get(o, f->key);
		put_num(at, f->size, v && v->type == J_TRUE);
		break;
	case F_ARGV:
		argv = argv_of(o, f->key);
		put_ptr(at, argv ? argv : f->argv);
		break;
	case F_STR_OR_NUM:
		put_ptr(at, value_text(r, jobj_get(o, f->key), f->str));
		break;
	case F_ANY: /* data_json's value: its text and length */
		v = jobj_get(o, f->key);
		if (v) {
			ev->data.json = v->raw;
			ev->data.json_len = v->raw_len;
		}
		break;
	}
}

/* The kind's fields from the line: its keys (tr2_kinds.def), then what
 * the event target writes differently from the record. */
static void fill_payload(struct t2_reader *r, struct t2_record *rec)
{
	struct trace2_event *ev = &rec->ev;
	const struct fill *f;

	if ((unsigned)ev->kind >= TRACE2_EVENT_KIND_MAX)
		return;
	for (f = fills[ev->kind]; f < fills[ev->kind] + MAX_FILLS && f->key; f++)
		fill_field(r, rec->obj, ev, f);
	/* the event target writes "git" first for a git command */
	if (ev->kind == TRACE2_EVENT_CHILD_START && ev->child.argv && ev->child.argv[0] &&
	    !strcmp(ev->child.argv[0], "git")) {
		ev->child.git_cmd = 1;
		ev->child.argv++;
	}
}

void t2_event_defaults(struct trace2_event *ev)
{
	const struct fill *f;
	char *at;
	void *p;

	if ((unsigned)ev->kind >= TRACE2_EVENT_KIND_MAX)
		return;
	for (f = fills[ev->kind]; f < fills[ev->kind] + MAX_FILLS && f->key; f++) {
		if (f->how != F_STR && f->how != F_ARGV)
			continue;
		at = (char *)ev + f->off;
		memcpy(&p, at, sizeof(p));
		if (!p)
			put_ptr(at, f->how == F_STR ? (const void *)f->str : (const void *)f->argv);
	}
}

/* ---------------------------------------------------------------- */
/* Numbers in range.                                                  */

struct int_range {
	const char *key;
	int64_t min, max;
};

/* Every integer key a record's use takes, whatever its kind: ids and
 * nesting index and size, the others must fit the int they become. */
static const struct int_range int_ranges[] = {
	{ "child_id", 0, T2_ID_MAX },
	{ "exec_id", 0, T2_ID_MAX },
	{ "nesting", 0, T2_NESTING_MAX },
	{ "signo", 0, T2_SIGNO_MAX },
	{ "line", 0, INT_MAX },
	{ "repo", 0, INT_MAX },
	{ "code", INT_MIN, INT_MAX },
	{ "pid", INT_MIN, INT_MAX },
	{ "intervals", 0, INT64_MAX },
	{ "count", 0, INT64_MAX },
};

/* Numbers of seconds: nanoseconds of them must fit 64 bits. */
static const char *const seconds_keys[] = { "t_abs", "t_rel", "t_total", "t_min", "t_max" };

int t2_field_range(enum trace2_event_kind kind, size_t off, int64_t *min, int64_t *max)
{
	const struct fill *f;
	size_t i;

	if ((unsigned)kind >= TRACE2_EVENT_KIND_MAX)
		return -1;
	for (f = fills[kind]; f < fills[kind] + MAX_FILLS && f->key && f->off != off; f++)
		;
	if (f == fills[kind] + MAX_FILLS || !f->key)
		return -1;
	*min = f->how == F_INT ? INT64_MIN : 0;
	*max = f->how == F_BOOL ? 1 : INT64_MAX;
	if (f->how == F_SECS)
		*max = ((int64_t)T2_SECONDS_MAX * 1000000 + 999999) * f->num;
	for (i = 0; f->how == F_INT && i < sizeof(int_ranges) / sizeof(*int_ranges); i++)
		if (!strcmp(f->key, int_ranges[i].key)) {
			*min = int_ranges[i].min;
			*max = int_ranges[i].max;
		}
	/* what the field gets without its key (repo: none) is in range */
	if (f->how == F_INT && f->num < *min)
		*min = f->num;
	return 0;
}

/* NULL, or why the number v of key is out of its range (into buf): a
 * number too large for 64 bits too, which would otherwise read as missing. */
static const char *number_out_of_range(const char *key, const struct jval *v, char *buf,
				       size_t size)
{
	int64_t x;
	uint64_t us;
	size_t i;
	int cut = v->raw_len > 24;

	for (i = 0; i < sizeof(int_ranges) / sizeof(*int_ranges); i++) {
		const struct int_range *ir = &int_ranges[i];
		int got;

		if (strcmp(key, ir->key))
			continue;
		got = jval_int(v, &x);
		if (got == -1 || (!got && x >= ir->min && x <= ir->max))
			return NULL;
		snprintf(buf, size, "\"%s\" %.*s%s is out of range (%lld to %lld)", key,
			 cut ? 24 : (int)v->raw_len, v->raw, cut ? "..." : "", (long long)ir->min,
			 (long long)ir->max);
		return buf;
	}
	for (i = 0; i < sizeof(seconds_keys) / sizeof(*seconds_keys); i++) {
		int got;

		if (strcmp(key, seconds_keys[i]))
			continue;
		got = jval_micros(v, &us);
		if (got == -1 || (!got && us / 1000000 <= T2_SECONDS_MAX))
			return NULL;
		snprintf(buf, size, "\"%s\" %.*s%s is out of range (0 to %u seconds)", key,
			 cut ? 24 : (int)v->raw_len, v->raw, cut ? "..." : "", T2_SECONDS_MAX);
		return buf;
	}
	return NULL;
}

/* NULL, or why a number of the line is out of its range (into buf).  One
 * pass over the members: a line has few numbers. */
static const char *out_of_range(const struct jobj *o, char *buf, size_t size)
{
	const char *why;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->m[i].v.type == J_NUMBER &&
		    (why = number_out_of_range(o->m[i].key, &o->m[i].v, buf, size)))
			return why;
	return NULL;
}

/*
 * A thread of a process that started before the input may be inside
 * regions entered before it: a record's nesting deeper than the level
 * seen says how many, and the level is raised to it.
 */
static size_t level_with_hidden(const struct t2_record *rec, int64_t n, size_t level)
{
	size_t want = 0;

	if (!rec->thread || !rec->thread->mid || n < 0)
		return level;
	switch (rec->ev.kind) {
	case TRACE2_EVENT_REGION_ENTER:
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		want = (size_t)n;
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		want = (size_t)n + 1;
		break;
	default:
		break;
	}
	return want > level ? want : level;
}

/* The record's nesting (n, -1: not given), and the thread's level after it. */
static void track_nesting(struct t2_record *rec, int64_t n)
{
	struct trace2_event *ev = &rec->ev;
	struct t2_thread *t = rec->thread;
	size_t level = level_with_hidden(rec, n, t ? t->level : 1);

	rec->level_before = level;
	if (t && ev->kind == TRACE2_EVENT_ATEXIT && !rec->repeat)
		t->exit_level = level; /* back if the process goes on */
	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
		ev->nesting = n >= 0 ? (size_t)n : level;
		level = ev->nesting + 1;
		break;
	case TRACE2_EVENT_REGION_LEAVE:
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		ev->nesting = n >= 0 ? (size_t)n : level;
		level = ev->nesting;
		break;
	case TRACE2_EVENT_THREAD_EXIT:
	case TRACE2_EVENT_TH_TIMER:
	case TRACE2_EVENT_TH_COUNTER:
	case TRACE2_EVENT_ATEXIT:
	case TRACE2_EVENT_TIMER:
	case TRACE2_EVENT_COUNTER:
		/* written after the thread's open regions were discarded */
		ev->nesting = 1;
		level = 1;
		break;
	default:
		ev->nesting = level;
		break;
	}
	if (t)
		t->level = level;
}

static uint64_t bytes_hash(uint64_t h, const void *bytes, size_t len)
{
	const unsigned char *b = bytes;

	while (len--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/*
 * What tells a record from the others of its time: a text line names its
 * thread and says all; a recording's record is a few bytes that two
 * threads (or one in a loop) write alike within a microsecond, so its
 * offset in the file counts too, the same when the file is read again.
 */
static uint64_t record_hash(const struct t2_record *rec, const void *bytes, size_t len)
{
	uint64_t h = bytes_hash(0xcbf29ce484222325ull, bytes, len);

	if (rec->binary)
		h = bytes_hash(h, &rec->lineno, sizeof(rec->lineno));
	return h | 1;
}

/* Whether the record, of time t, is one of p's anchors read again. */
static int is_anchor(const struct t2_process *p, const struct t2_record *rec, uint64_t t,
		     const void *bytes, size_t len)
{
	size_t i;
	uint64_t h = 0;

	for (i = 0; i < p->nanchors; i++)
		if (p->anchors[i].time_us == t) {
			if (!h)
				h = record_hash(rec, bytes, len);
			if (p->anchors[i].hash == h)
				return 1;
		}
	return 0;
}

/* p's first timed record of each input is an anchor (up to
 * T2_ANCHORS_MAX: a process in more inputs is not checked for them). */
static void take_anchor(struct t2_process *p, const struct t2_source *s,
			const struct t2_record *rec, uint64_t t, const void *bytes, size_t len)
{
	struct t2_anchor *a;

	if ((p->nanchors && p->anchor_source == s->seq) || p->nanchors == T2_ANCHORS_MAX)
		return;
	a = t2_realloc(p->anchors, (p->nanchors + 1) * sizeof(*a));
	p->anchors = a;
	a[p->nanchors].time_us = t;
	a[p->nanchors++].hash = record_hash(rec, bytes, len);
	p->anchor_source = s->seq;
}

/*
 * Whether the record repeats p's records read before: the same log
 * given twice (or a directory and a file in it) holds the same lines,
 * so a line equal to an anchor starts a repeat, which lasts while the
 * times do not go past those seen before it began.
 */
static int is_repeat(struct t2_process *p, const struct t2_record *rec, uint64_t t,
		     const void *bytes, size_t len)
{
	if (p->repeating) {
		if (!rec->has_time || t <= p->repeat_until)
			return 1;
		p->repeating = 0;
		return 0;
	}
	if (!rec->has_time || t > p->max_us || !is_anchor(p, rec, t, bytes, len))
		return 0;
	p->repeating = 1;
	p->repeat_until = p->max_us;
	return 1;
}

/* The process writes again after its atexit: a child that daemonized
 * (Git's maintenance --detach, gc --auto) goes on with what was open. */
static void resume(struct t2_process *p)
{
	struct t2_thread *t;

	p->exited = 0;
	p->detached++;
	for (t = p->threads; t; t = t->next)
		if (t->exit_level) {
			t->level = t->exit_level;
			t->exit_level = 0;
		}
}

/* The record's times; what it tells of its process's, unless a repeat. */
static void track_times(struct t2_record *rec, uint64_t *time_us, uint64_t *t_abs)
{
	struct t2_process *p = rec->proc;

	if (rec->has_time) {
		if (!rec->repeat) {
			p->last_us = *time_us;
			p->have_time = 1;
			if (*time_us > p->max_us)
				p->max_us = *time_us;
		}
	} else
		*time_us = p->last_us;
	if (rec->has_time && rec->has_t_abs && !p->have_start && *time_us >= *t_abs &&
	    !rec->repeat) {
		p->start_us = *time_us - *t_abs;
		p->have_start = 1;
	}
	if (!rec->has_t_abs) {
		rec->t_abs_estimated = 1;
		if (rec->has_time && p->have_start && *time_us >= p->start_us)
			*t_abs = *time_us - p->start_us;
		else
			*t_abs = p->last_abs_us;
	}
	if (rec->repeat)
		return;
	p->last_abs_us = *t_abs;
	p->records++;
}

void t2_reader_owner(struct t2_reader *r, struct t2_source *s, struct t2_record *rec,
		     const char *sid, size_t sid_len, const char *thread, size_t thread_len)
{
	struct t2_process *p = rec->proc = get_process(r, sid, sid_len, &rec->new_process);

	if (rec->new_process && rec->ev.kind != TRACE2_EVENT_VERSION) {
		if (!s->records)
			s->mid = rec->mid_start = 1;
		p->mid = (unsigned)s->mid;
	}
	if (thread_len)
		rec->thread = get_thread(p, thread, thread_len, &rec->new_thread);
}

/* The record's process (and whether it started before the input) and
 * thread. */
static void find_owner(struct t2_reader *r, struct t2_source *s, struct t2_record *rec)
{
	const struct jval *v = jobj_get(rec->obj, "sid");
	const struct jval *t = jobj_get(rec->obj, "thread");

	if (!v || v->type != J_STRING || !v->str_len)
		return;
	if (!t || t->type != J_STRING)
		t = NULL;
	t2_reader_owner(r, s, rec, v->str, v->str_len, t ? t->str : NULL, t ? t->str_len : 0);
}

void t2_reader_take(struct t2_reader *r, struct t2_source *s, struct t2_record *rec,
		    const void *bytes, size_t len, int64_t nesting)
{
	struct trace2_event *ev = &rec->ev;
	struct t2_process *p = rec->proc;
	size_t level = 0;

	if (!s->seq)
		s->seq = ++r->sources;
	if (p && !rec->new_process && r->find_repeats &&
	    is_repeat(p, rec, ev->time_us, bytes, len)) {
		rec->repeat = 1;
		rec->first_repeat = !s->repeats++;
	}
	if (p && !rec->repeat && r->find_repeats && rec->has_time)
		take_anchor(p, s, rec, ev->time_us, bytes, len);
	/* only records every subcommand takes (t2_record_usable()) end or
	 * resume a process, so that they all see the same */
	if (p && !rec->repeat && rec->known && rec->thread) {
		if (p->exited) {
			resume(p);
			rec->resumed = 1;
		}
		if (ev->kind == TRACE2_EVENT_ATEXIT)
			p->exited = 1;
	}
	if (p)
		track_times(rec, &ev->time_us, &ev->t_abs_us);
	ev->process = p ? &p->pub : NULL;
	ev->thread = rec->thread ? &rec->thread->pub : NULL;
	if (rec->thread)
		level = rec->thread->level;
	track_nesting(rec, nesting);
	if (ev->kind == TRACE2_EVENT_ERROR &&
	    (!ev->error.msg || !ev->error.fmt || !*ev->error.fmt))
		ev->error.msg = ev->error.fmt = NULL;
	if (rec->thread && rec->repeat)
		rec->thread->level = level; /* read before: it changes nothing */
	else if (rec->thread && ev->kind == TRACE2_EVENT_THREAD_START)
		rec->thread->started = 1;
	else if (rec->thread && ev->kind == TRACE2_EVENT_THREAD_EXIT)
		rec->thread->exited = 1;
	s->records++;
	r->records++;
	if (r->on_record)
		r->on_record(r->ctx, rec);
}

static void make_record(struct t2_reader *r, struct t2_source *s, struct t2_record *rec,
			const char *line, size_t len)
{
	const struct jobj *o = rec->obj;
	struct trace2_event *ev = &rec->ev;
	const struct jval *v;
	uint64_t time_us = 0, t_abs = 0;

	rec->event = str_or(o, "event", "");
	ev->kind = t2_event_kind(rec->event);
	rec->known = ev->kind != 0;
	find_owner(r, s, rec);
	v = jobj_get(o, "time");
	rec->has_time = v && v->type == J_STRING && !parse_utc_time(v->str, v->str_len, &time_us);
	rec->has_t_abs = !micros(o, "t_abs", &t_abs);
	ev->file = str_or(o, "file", NULL);
	ev->line = (int)int_or(o, "line", 0);
	ev->time_us = time_us;
	ev->t_abs_us = t_abs;
	ev->t_rel_us = 0;
	fill_payload(r, rec);
	t2_reader_take(r, s, rec, line, len, int_or(o, "nesting", -1));
}

/* One line of s (without its LF). */
static void source_line(struct t2_reader *r, struct t2_source *s, const char *line, size_t len,
			int no_newline)
{
	const char *src = s->name;
	unsigned long lineno = s->lineno;
	struct t2_record rec;
	char err[128];
	const char *range;
	size_t at = 0, i;

	if (r->stop)
		return;
	r->lines++;
	if (len && line[len - 1] == '\r')
		len--;
	for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
		;
	if (i == len)
		return; /* blank */
	if (line[i] != '{') {
		r->bad++;
		if (r->on_bad_line)
			r->on_bad_line(r->ctx, src, lineno,
				       line[i] == '#' ? "a comment line, not an event"
						      : "not an event line (no '{')",
				       1, no_newline);
		return;
	}
	if (jobj_parse(&r->obj, line, len, err, sizeof(err), &at)) {
		char reason[192];

		r->bad++;
		if (at >= len)
			snprintf(reason, sizeof(reason), "malformed JSON: %s (truncated line?)", err);
		else
			snprintf(reason, sizeof(reason), "malformed JSON: %s at column %zu", err,
				 at + 1);
		if (r->on_bad_line)
			r->on_bad_line(r->ctx, src, lineno, reason, 0, no_newline);
		return;
	}
	if ((range = out_of_range(&r->obj, err, sizeof(err)))) {
		r->bad++;
		if (r->on_bad_line)
			r->on_bad_line(r->ctx, src, lineno, range, 0, no_newline);
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.obj = &r->obj;
	rec.src = src;
	rec.lineno = lineno;
	rec.no_newline = no_newline;
	make_record(r, s, &rec, line, len);
}

/* ---------------------------------------------------------------- */
/* Streams.                                                            */

void t2_source_init(struct t2_source *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
}

static void append(struct t2_source *s, const char *data, size_t n)
{
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;

		while (cap < s->len + n)
			cap *= 2;
		s->buf = t2_realloc(s->buf, cap);
		s->cap = cap;
	}
	memcpy(s->buf + s->len, data, n);
	s->len += n;
}

/* The line read so far is over the limit: reported, its bytes let go,
 * the rest of it skipped. */
static void over_limit(struct t2_reader *r, struct t2_source *s)
{
	char reason[96];

	s->lineno++;
	r->bad++;
	snprintf(reason, sizeof(reason), "a line longer than %zu bytes (the line limit)",
		 r->max_line);
	if (r->on_bad_line)
		r->on_bad_line(r->ctx, s->name, s->lineno, reason, 0, 0);
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
	s->skipping = 1;
}

/* A line of the source, to the reader of its format, which its first
 * line that is not blank decides. */
static void format_line(struct t2_reader *r, struct t2_source *s, const char *line,
			size_t len, int no_newline)
{
	size_t i;

	if (!s->format_known && r->format_of) {
		for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'); i++)
			;
		if (i < len) {
			s->line = r->format_of(r->ctx, line, len);
			s->format_known = 1;
		}
	}
	if (s->line)
		s->line(r, s->name, s->lineno, line, len, no_newline);
	else
		source_line(r, s, line, len, no_newline);
}

int t2_source_feed(struct t2_reader *r, struct t2_source *s, const char *data, size_t n)
{
	int ret = 0;

	/* a recording starts with a byte no text does */
	if (!s->recording && n && !s->lineno && !s->len && !s->skipping &&
	    t2_is_recording(data, n))
		s->recording = t2_recording_begin(r, s);
	if (s->recording) {
		t2_recording_feed(s->recording, data, n);
		return 0;
	}
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;

		if (!s->skipping && s->len + k > r->max_line) {
			over_limit(r, s);
			ret = -1;
		}
		if (!nl) {
			if (!s->skipping)
				append(s, data, n);
			return ret;
		}
		if (s->skipping)
			s->skipping = 0; /* its end */
		else if (s->len) {
			append(s, data, k);
			s->lineno++;
			format_line(r, s, s->buf, s->len, 0);
			s->len = 0;
		} else {
			s->lineno++;
			format_line(r, s, data, k, 0);
		}
		data += k + 1;
		n -= k + 1;
	}
	return ret;
}

void t2_source_end(struct t2_reader *r, struct t2_source *s)
{
	if (s->recording) {
		t2_recording_end(s->recording);
		s->recording = NULL;
	}
	s->skipping = 0;
	if (s->len) {
		s->lineno++;
		format_line(r, s, s->buf, s->len, 1);
	}
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}

/*
 * Progress on standard error, when it is a terminal, for an input over
 * PROGRESS_MIN bytes (a regular file's size; standard input and pipes
 * once that much is read): "trace2: reading NAME: 45% (460 of 1024 MiB)"
 * redrawn at each percent, then ", done." on its own line.
 */
#define PROGRESS_MIN (100u << 20)

struct progress {
	const char *name;
	uint64_t size;  /* 0: unknown */
	uint64_t done;
	long shown;     /* percent (or MiB, size unknown) last shown; -1 none */
};

static int progress_wanted(void)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(2);
	return tty;
}

static void progress_show(const struct progress *p, const char *end)
{
	if (p->size)
		fprintf(stderr, "\rtrace2: reading %s: %ld%% (%llu of %llu MiB)%s", p->name,
			p->shown, (unsigned long long)(p->done >> 20),
			(unsigned long long)(p->size >> 20), end);
	else
		fprintf(stderr, "\rtrace2: reading %s: %llu MiB%s", p->name,
			(unsigned long long)(p->done >> 20), end);
}

static void progress_add(struct progress *p, size_t n)
{
	long now;

	p->done += n;
	if (p->done <= PROGRESS_MIN && p->size <= PROGRESS_MIN)
		return;
	now = p->size ? (long)(p->done * 100 / p->size) : (long)(p->done >> 20);
	if (now == p->shown || !progress_wanted())
		return;
	p->shown = now;
	progress_show(p, "");
}

static void progress_end(const struct progress *p)
{
	if (p->shown >= 0)
		progress_show(p, ", done.\n");
}

static int input_error(struct t2_reader *r, const char *name, const char *what)
{
	fprintf(stderr, "trace2: %s: %s\n", name, what);
	r->io_errors++;
	return -1;
}

/* Which of the command's outputs the file is, or NULL. */
static const char *output_named(const struct t2_reader *r, const struct t2_file_id *id)
{
	size_t i;

	for (i = 0; i < r->n_outputs; i++)
		if (r->outputs[i].id.dev == id->dev && r->outputs[i].id.ino == id->ino)
			return r->outputs[i].fd == 1 ? r->stdout_name : "standard error";
	return NULL;
}

static int read_fd(struct t2_reader *r, int fd, const char *name)
{
	static char chunk[READ_CHUNK];
	char why[96];
	const char *out;
	struct t2_source s;
	struct progress prog = { name, 0, 0, -1 };
	struct t2_file_id id;
	ssize_t n;
	int ret = 0;

	if (t2_sys_regular_fd(fd, &id)) {
		if ((out = output_named(r, &id))) {
			snprintf(why, sizeof(why), "also this command's %s; not read", out);
			return input_error(r, name, why);
		}
		prog.size = id.size;
	}
	if (r->check_only)
		return 0;
	t2_source_init(&s, name);
	while (!r->stop) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = input_error(r, name, strerror(errno));
			break;
		}
		if (!n)
			break;
		t2_source_feed(r, &s, chunk, (size_t)n);
		progress_add(&prog, (size_t)n);
	}
	t2_source_end(r, &s);
	progress_end(&prog);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's files to read, as paths under it (its dot files left out). */
struct dir_files {
	const char *dir;
	char **paths;
	size_t n, alloc;
};

static void add_dir_file(void *ctx, const char *name)
{
	struct dir_files *d = ctx;
	size_t size = strlen(d->dir) + strlen(name) + 2;

	if (name[0] == '.')
		return;
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 64;
		d->paths = t2_realloc(d->paths, d->alloc * sizeof(*d->paths));
	}
	d->paths[d->n] = t2_realloc(NULL, size);
	snprintf(d->paths[d->n], size, "%s/%s", d->dir, name);
	d->n++;
}

static void free_dir_files(struct dir_files *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->paths[i]);
	free(d->paths);
}

static int read_dir(struct t2_reader *r, const char *path)
{
	struct dir_files d = { path, NULL, 0, 0 };
	enum t2_path_kind kind;
	size_t i;
	int ret = 0;

	if (t2_sys_list_dir(path, add_dir_file, &d)) {
		ret = input_error(r, path, strerror(errno));
		free_dir_files(&d);
		return ret;
	}
	if (d.n)
		qsort(d.paths, d.n, sizeof(*d.paths), cmp_str);
	for (i = 0; i < d.n && !r->stop; i++)
		if (!t2_sys_path_kind(d.paths[i], &kind) && kind == T2_PATH_REGULAR &&
		    t2_reader_read_path(r, d.paths[i]))
			ret = -1;
	free_dir_files(&d);
	return ret;
}

int t2_reader_read_path(struct t2_reader *r, const char *path)
{
	enum t2_path_kind kind;
	int fd, ret;

	if (!strcmp(path, "-"))
		return read_fd(r, 0, "-");
	if (t2_sys_path_kind(path, &kind))
		return input_error(r, path, strerror(errno));
	if (kind == T2_PATH_DIR)
		return read_dir(r, path);
	/* a FIFO opened and closed by the check would lose its writer */
	if (r->check_only && kind == T2_PATH_OTHER)
		return 0;
	fd = t2_sys_open_read(path);
	if (fd < 0)
		return input_error(r, path, strerror(errno));
	ret = read_fd(r, fd, path);
	close(fd);
	return ret;
}

int t2_reader_check_paths(char *const *paths, int n, const char *stdout_name)
{
	struct t2_reader r;
	int i, ret = 0;

	t2_reader_init(&r, NULL, NULL, NULL);
	r.check_only = 1;
	r.stdout_name = stdout_name;
	for (i = 0; i < n; i++)
		if (t2_reader_read_path(&r, paths[i]))
			ret = -1;
	t2_reader_free(&r);
	return ret;
}
