/*
 * trace2 convert --to otlp FILE...: the records of event-format logs as
 * OpenTelemetry traces in OTLP/JSON (the protobuf JSON mapping of
 * opentelemetry.proto.trace.v1.TracesData, ids in lowercase hex), one
 * TracesData object per process and line: the JSON Lines file the
 * collector's otlpjsonfile receiver reads.
 *
 * Spans: one per process, one per region (parent: the enclosing region
 * on the same thread, else the process), one per child_start..child_exit
 * (parent: the innermost region of its thread, else the process).  A
 * child process's span is parented on that child span.  Ids are hashes
 * of the SIDs (FNV-1a), so the files of one command tree, converted
 * together or apart, join into one trace; docs/tools.md gives the exact
 * inputs.  Spans are kept until the end of the input, where the children
 * are matched to their parents' child spans and every process is written.
 */
#include "otlp.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "tr2_json.h"
#include "trace2.h"

/* ------------------------------------------------------------------ */
/* Hashes                                                              */
/* ------------------------------------------------------------------ */

uint64_t otlp_fnv1a64(const void *s, size_t len)
{
	const unsigned char *p = s;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* h *= 2^88 + 0x13b (mod 2^128), h = hi:lo */
static void mul_fnv128(uint64_t *hi, uint64_t *lo)
{
	uint64_t a = *lo >> 32, b = *lo & 0xffffffffULL;
	uint64_t carry = (a * 0x13b + ((b * 0x13b) >> 32)) >> 32;

	*hi = *hi * 0x13b + carry + (*lo << 24);
	*lo = *lo * 0x13b;
}

void otlp_fnv1a128(const void *s, size_t len, uint64_t *hi, uint64_t *lo)
{
	const unsigned char *p = s;
	size_t i;

	*hi = 0x6c62272e07bb0142ULL;
	*lo = 0x62b821756295c58dULL;
	for (i = 0; i < len; i++) {
		*lo ^= p[i];
		mul_fnv128(hi, lo);
	}
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

struct sb {
	char *s;
	size_t len, cap;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("trace2 convert: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* n zeroed bytes. */
static void *xzalloc(size_t n)
{
	return memset(xrealloc(NULL, n), 0, n);
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

static void sb_grow(struct sb *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
}

static void sb_add(struct sb *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void sb_puts(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void sb_printf(struct sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* A JSON string: always valid UTF-8 (U+FFFD for bad bytes). */
static void sb_jstr(struct sb *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	sb_grow(b, TR2_JSON_ESCAPED_MAX(n) + 2);
	b->s[b->len++] = '"';
	if (n)
		b->len += tr2_json_escape(b->s + b->len, s, n);
	b->s[b->len++] = '"';
	b->s[b->len] = 0;
}

static void sb_free(struct sb *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ------------------------------------------------------------------ */
/* Attributes: KeyValue lists, a key set again replaces its value      */
/* ------------------------------------------------------------------ */

struct kvl {
	char **key;
	char **val;   /* the AnyValue's JSON text */
	size_t n, cap;
};

static void kv_set_raw(struct kvl *l, const char *key, char *val)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->key[i], key)) {
			free(l->val[i]);
			l->val[i] = val;
			return;
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->key = xrealloc(l->key, l->cap * sizeof(*l->key));
		l->val = xrealloc(l->val, l->cap * sizeof(*l->val));
	}
	l->key[l->n] = xstrdup(key);
	l->val[l->n++] = val;
}

static void kv_str(struct kvl *l, const char *key, const char *v)
{
	struct sb b = { 0 };

	sb_puts(&b, "{\"stringValue\":");
	sb_jstr(&b, v ? v : "");
	sb_puts(&b, "}");
	kv_set_raw(l, key, b.s);
}

static void kv_int(struct kvl *l, const char *key, int64_t v)
{
	struct sb b = { 0 };

	sb_printf(&b, "{\"intValue\":\"%lld\"}", (long long)v);
	kv_set_raw(l, key, b.s);
}

static void kv_bool(struct kvl *l, const char *key, int v)
{
	struct sb b = { 0 };

	sb_puts(&b, v ? "{\"boolValue\":true}" : "{\"boolValue\":false}");
	kv_set_raw(l, key, b.s);
}

/* Seconds with microseconds, as the event format writes them. */
static void kv_seconds(struct kvl *l, const char *key, uint64_t ns)
{
	struct sb b = { 0 };

	sb_printf(&b, "{\"doubleValue\":%llu.%06llu}", (unsigned long long)(ns / 1000000000),
		  (unsigned long long)(ns / 1000 % 1000000));
	kv_set_raw(l, key, b.s);
}

static void kv_argv(struct kvl *l, const char *key, const char *const *argv, int git_cmd)
{
	struct sb b = { 0 };
	int first = 1;

	sb_puts(&b, "{\"arrayValue\":{\"values\":[");
	if (git_cmd) {
		sb_puts(&b, "{\"stringValue\":\"git\"}");
		first = 0;
	}
	for (; argv && *argv; argv++) {
		if (!first)
			sb_puts(&b, ",");
		first = 0;
		sb_puts(&b, "{\"stringValue\":");
		sb_jstr(&b, *argv);
		sb_puts(&b, "}");
	}
	sb_puts(&b, "]}}");
	kv_set_raw(l, key, b.s);
}

static void kv_write(struct sb *b, const struct kvl *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (i)
			sb_puts(b, ",");
		sb_puts(b, "{\"key\":");
		sb_jstr(b, l->key[i]);
		sb_puts(b, ",\"value\":");
		sb_puts(b, l->val[i]);
		sb_puts(b, "}");
	}
}

static void kv_free(struct kvl *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->key[i]);
		free(l->val[i]);
	}
	free(l->key);
	free(l->val);
	memset(l, 0, sizeof(*l));
}

/* ------------------------------------------------------------------ */
/* Spans                                                               */
/* ------------------------------------------------------------------ */

struct span {
	uint64_t id, parent;
	int has_parent;
	char *name;
	uint64_t start_ns, end_ns;
	struct kvl attrs;
	struct sb events;        /* Span.Event objects, comma-separated */
	int error;               /* status ERROR, with status_msg */
	char *status_msg;
	struct span *up;         /* the enclosing span on the thread's stack */
	int child_id;            /* child spans */
	struct span *next_child;
};

static struct span *span_new(uint64_t start_ns, const char *name)
{
	struct span *s = xzalloc(sizeof(*s));

	s->start_ns = s->end_ns = start_ns;
	s->name = xstrdup(name && *name ? name : "?");
	return s;
}

static void span_free(struct span *s)
{
	if (!s)
		return;
	free(s->name);
	kv_free(&s->attrs);
	sb_free(&s->events);
	free(s->status_msg);
	free(s);
}

/* A Span.Event with its attributes (they are freed). */
static void span_event(struct span *s, uint64_t ns, const char *name, struct kvl *attrs)
{
	if (s->events.len)
		sb_puts(&s->events, ",");
	sb_printf(&s->events, "{\"timeUnixNano\":\"%llu\",\"name\":", (unsigned long long)ns);
	sb_jstr(&s->events, name);
	if (attrs && attrs->n) {
		sb_puts(&s->events, ",\"attributes\":[");
		kv_write(&s->events, attrs);
		sb_puts(&s->events, "]");
	}
	sb_puts(&s->events, "}");
	if (attrs)
		kv_free(attrs);
}

static void hex64(char out[17], uint64_t v)
{
	snprintf(out, 17, "%016llx", (unsigned long long)v);
}

/* The span's JSON after its traceId member: "spanId":...} */
static void span_body(struct sb *b, const struct span *s)
{
	char id[17];

	hex64(id, s->id);
	sb_printf(b, "\"spanId\":\"%s\"", id);
	if (s->has_parent) {
		hex64(id, s->parent);
		sb_printf(b, ",\"parentSpanId\":\"%s\"", id);
	}
	sb_puts(b, ",\"name\":");
	sb_jstr(b, s->name);
	sb_printf(b, ",\"kind\":1,\"startTimeUnixNano\":\"%llu\",\"endTimeUnixNano\":\"%llu\"",
		  (unsigned long long)s->start_ns,
		  (unsigned long long)(s->end_ns < s->start_ns ? s->start_ns : s->end_ns));
	if (s->attrs.n) {
		sb_puts(b, ",\"attributes\":[");
		kv_write(b, &s->attrs);
		sb_puts(b, "]");
	}
	if (s->events.len) {
		sb_puts(b, ",\"events\":[");
		sb_add(b, s->events.s, s->events.len);
		sb_puts(b, "]");
	}
	if (s->error) {
		sb_puts(b, ",\"status\":{");
		if (s->status_msg) {
			sb_puts(b, "\"message\":");
			sb_jstr(b, s->status_msg);
			sb_puts(b, ",");
		}
		sb_puts(b, "\"code\":2}");
	}
	sb_puts(b, "}");
}

/* ------------------------------------------------------------------ */
/* State                                                               */
/* ------------------------------------------------------------------ */

struct othread {
	struct t2_thread *t;
	struct othread *next;
	struct span *top;        /* the innermost open region */
	unsigned long seq;       /* region_enter records so far */
};

/* A child span that ended: for matching the child processes. */
struct cdone {
	uint32_t pid;
	int has_pid;             /* 0: no child_exit (ended with the process) */
	uint64_t id, start_ns, end_ns;
	struct cdone *next;
};

struct otree {
	char *root;              /* the root SID (up to the first '/') */
	int has_tp;
	char tp_trace[33], tp_span[17];
	struct otree *next;
};

struct oproc {
	struct t2_process *p;
	struct oproc *next;
	struct otree *tree;
	struct span *sp;         /* the process span */
	int named;               /* cmd_name gave the name */
	char *service;           /* basename of argv[0] */
	char *version;
	uint32_t pid;            /* from the SID's own part */
	int has_pid;
	struct sb spans;         /* finished spans after "traceId":"…",  */
	struct othread *threads;
	struct span *children;   /* open child spans */
	struct cdone *done;
};

struct otlp {
	struct oproc *procs, **tail;
	struct otree *trees;
	unsigned long skipped;
	FILE *out;
};

/* Nanoseconds, at most INT64_MAX (OTLP's fixed64 is read as a signed
 * 64-bit integer by some; that is the year 2262). */
static uint64_t ns_of(const struct t2_record *rec)
{
	uint64_t us = rec->ev.pub.time_us;

	return us > INT64_MAX / 1000 ? INT64_MAX / 1000 * 1000 : us * 1000;
}

static struct otree *get_tree(struct otlp *o, const char *sid)
{
	size_t n = strcspn(sid, "/");
	struct otree *t;

	for (t = o->trees; t; t = t->next)
		if (strlen(t->root) == n && !memcmp(t->root, sid, n))
			return t;
	t = xzalloc(sizeof(*t));
	t->root = xrealloc(NULL, n + 1);
	memcpy(t->root, sid, n);
	t->root[n] = 0;
	t->next = o->trees;
	o->trees = t;
	return t;
}

/* The pid in the SID's own part: "...-P<hex>" after the last '/'. */
static int pid_of_sid(const char *sid, uint32_t *pid)
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

/* Span ids: FNV-1a 64 of a text made from the SID (docs/tools.md). */
static uint64_t id_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static uint64_t id_of(const char *fmt, ...)
{
	struct sb b = { 0 };
	va_list ap;
	uint64_t h;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	sb_grow(&b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b.s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	h = otlp_fnv1a64(b.s, (size_t)n);
	sb_free(&b);
	return h ? h : 1; /* an all-zero span id is invalid */
}

static uint64_t child_span_id(const char *parent_sid, size_t parent_len, uint32_t pid)
{
	return id_of("%.*s\nchild\n%08lx", (int)parent_len, parent_sid, (unsigned long)pid);
}

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

static struct oproc *get_proc(struct otlp *o, struct t2_record *rec)
{
	struct t2_process *p = rec->proc;
	struct oproc *op = p->user;

	if (op)
		return op;
	op = xzalloc(sizeof(*op));
	op->p = p;
	p->user = op;
	op->tree = get_tree(o, p->pub.sid);
	op->sp = span_new(ns_of(rec), "");
	op->sp->id = id_of("%s", p->pub.sid);
	op->has_pid = !pid_of_sid(p->pub.sid, &op->pid);
	kv_str(&op->sp->attrs, "trace2.span", "process");
	kv_str(&op->sp->attrs, "trace2.sid", p->pub.sid);
	if (op->has_pid)
		kv_int(&op->sp->attrs, "process.pid", op->pid);
	*o->tail = op;
	o->tail = &op->next;
	return op;
}

static struct othread *get_thread(struct oproc *op, struct t2_thread *t)
{
	struct othread *ot = t->user;

	if (ot)
		return ot;
	ot = xzalloc(sizeof(*ot));
	ot->t = t;
	t->user = ot;
	ot->next = op->threads;
	op->threads = ot;
	return ot;
}

/* The span a thread's record belongs to: its innermost region, else the
 * process. */
static struct span *innermost(struct oproc *op, struct othread *ot)
{
	return ot->top ? ot->top : op->sp;
}

static void store_span(struct oproc *op, struct span *s)
{
	span_body(&op->spans, s);
	sb_add(&op->spans, "", 1); /* spans are NUL-separated */
}

static void region_enter(struct oproc *op, struct othread *ot, const struct t2_record *rec)
{
	const struct trace2_ev_region *r = &rec->ev.pub.region;
	struct sb name = { 0 };
	struct span *s, *up = innermost(op, ot);

	if (r->category && *r->category) {
		sb_puts(&name, r->category);
		sb_puts(&name, ":");
	}
	sb_puts(&name, r->label ? r->label : "");
	s = span_new(ns_of(rec), name.s);
	sb_free(&name);
	ot->seq++;
	s->id = id_of("%s\n%s\n%lu", op->p->pub.sid, ot->t->pub.name, ot->seq);
	s->parent = up->id;
	s->has_parent = 1;
	kv_str(&s->attrs, "trace2.span", "region");
	kv_str(&s->attrs, "trace2.sid", op->p->pub.sid);
	kv_str(&s->attrs, "trace2.thread", ot->t->pub.name);
	kv_int(&s->attrs, "trace2.nesting", (int64_t)rec->ev.pub.nesting);
	if (r->category)
		kv_str(&s->attrs, "trace2.category", r->category);
	if (r->label)
		kv_str(&s->attrs, "trace2.label", r->label);
	if (r->msg)
		kv_str(&s->attrs, "trace2.msg", r->msg);
	if (r->repo_id != TRACE2_NO_REPO)
		kv_int(&s->attrs, "trace2.repo", r->repo_id);
	s->up = ot->top;
	ot->top = s;
}

static void region_close(struct oproc *op, struct othread *ot, uint64_t ns)
{
	struct span *s = ot->top;

	ot->top = s->up;
	s->end_ns = ns;
	store_span(op, s);
	span_free(s);
}

static void child_start(struct oproc *op, struct othread *ot, const struct t2_record *rec)
{
	const struct trace2_ev_child *c = &rec->ev.pub.child;
	struct sb name = { 0 };
	struct span *s, *up = innermost(op, ot);

	sb_puts(&name, "child:");
	sb_puts(&name, c->child_class ? c->child_class : "?");
	if (c->hook_name) {
		sb_puts(&name, ":");
		sb_puts(&name, c->hook_name);
	}
	s = span_new(ns_of(rec), name.s);
	sb_free(&name);
	s->child_id = c->id;
	s->parent = up->id;
	s->has_parent = 1;
	kv_str(&s->attrs, "trace2.span", "child");
	kv_str(&s->attrs, "trace2.sid", op->p->pub.sid);
	kv_str(&s->attrs, "trace2.thread", ot->t->pub.name);
	kv_int(&s->attrs, "trace2.child_id", c->id);
	kv_str(&s->attrs, "trace2.child_class", c->child_class ? c->child_class : "?");
	if (c->hook_name)
		kv_str(&s->attrs, "trace2.hook_name", c->hook_name);
	if (c->cd)
		kv_str(&s->attrs, "trace2.cd", c->cd);
	kv_bool(&s->attrs, "trace2.use_shell", c->use_shell);
	kv_argv(&s->attrs, "process.command_args", c->argv, c->git_cmd);
	s->next_child = op->children;
	op->children = s;
}

static struct span *find_child(struct oproc *op, int id, int unlink)
{
	struct span **pp;

	for (pp = &op->children; *pp; pp = &(*pp)->next_child)
		if ((*pp)->child_id == id) {
			struct span *s = *pp;

			if (unlink)
				*pp = s->next_child;
			return s;
		}
	return NULL;
}

static void child_exit(struct oproc *op, const struct t2_record *rec)
{
	const struct trace2_ev_child *c = &rec->ev.pub.child;
	struct span *s = find_child(op, c->id, 1);
	struct cdone *d;

	if (!s)
		return; /* no child_start: nothing to end */
	s->end_ns = ns_of(rec);
	s->id = child_span_id(op->p->pub.sid, op->p->pub.sid_len, (uint32_t)c->pid);
	kv_int(&s->attrs, "process.pid", c->pid);
	kv_int(&s->attrs, "process.exit.code", c->code);
	d = xrealloc(NULL, sizeof(*d));
	d->pid = (uint32_t)c->pid;
	d->has_pid = 1;
	d->id = s->id;
	d->start_ns = s->start_ns;
	d->end_ns = s->end_ns;
	d->next = op->done;
	op->done = d;
	store_span(op, s);
	span_free(s);
}

static int is_lower_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int all_zero(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != '0')
			return 0;
	return 1;
}

/* W3C Trace Context: "00-<32 hex>-<16 hex>-<2 hex>", lowercase, ids not
 * all zero; a later version's value may be longer ("-..." after). */
static void traceparent(struct oproc *op, const char *v)
{
	struct otree *t = op->tree;

	if (!v || strlen(v) < 55 || v[2] != '-' || v[35] != '-' || v[52] != '-' ||
	    !is_lower_hex(v, 2) || !is_lower_hex(v + 3, 32) || !is_lower_hex(v + 36, 16) ||
	    !is_lower_hex(v + 53, 2) || !strncmp(v, "ff", 2) || all_zero(v + 3, 32) ||
	    all_zero(v + 36, 16) || (!strncmp(v, "00", 2) && v[55]) ||
	    (v[55] && v[55] != '-'))
		return;
	if (t->has_tp)
		return; /* the first one counts */
	t->has_tp = 1;
	memcpy(t->tp_trace, v + 3, 32);
	t->tp_trace[32] = 0;
	memcpy(t->tp_span, v + 36, 16);
	t->tp_span[16] = 0;
}

static void set_exit(struct oproc *op, int code)
{
	kv_int(&op->sp->attrs, "process.exit.code", code);
	free(op->sp->status_msg);
	op->sp->status_msg = NULL;
	op->sp->error = code != 0;
	if (code) {
		struct sb b = { 0 };

		sb_printf(&b, "exit code %d", code);
		op->sp->status_msg = b.s;
	}
}

static void on_record(void *ctx, struct t2_record *rec)
{
	struct otlp *o = ctx;
	const struct trace2_event *ev = &rec->ev.pub;
	struct oproc *op;
	struct othread *ot;
	struct span *s;
	struct kvl a = { 0 };
	struct sb b = { 0 };
	uint64_t ns = ns_of(rec);

	if (!rec->known)
		return;
	if (!rec->proc || !rec->thread) {
		o->skipped++;
		fprintf(stderr, "%s:%lu: no %s string; skipped\n", rec->src, rec->lineno,
			rec->proc ? "\"thread\"" : "\"sid\"");
		return;
	}
	op = get_proc(o, rec);
	ot = get_thread(op, rec->thread);
	if (ns < op->sp->start_ns)
		op->sp->start_ns = ns;
	if (ns > op->sp->end_ns)
		op->sp->end_ns = ns;

	switch (ev->kind) {
	case TRACE2_EVENT_VERSION:
		free(op->version);
		op->version = xstrdup(ev->version.exe ? ev->version.exe : "");
		kv_str(&op->sp->attrs, "trace2.version", op->version);
		break;
	case TRACE2_EVENT_START:
		kv_argv(&op->sp->attrs, "process.command_args", ev->start.argv, 0);
		if (ev->start.argv && ev->start.argv[0]) {
			free(op->service);
			op->service = xstrdup(base_name(ev->start.argv[0]));
			if (!op->named) {
				free(op->sp->name);
				op->sp->name = xstrdup(*op->service ? op->service : "?");
			}
		}
		break;
	case TRACE2_EVENT_EXIT:
	case TRACE2_EVENT_ATEXIT:
		set_exit(op, ev->exit.code);
		break;
	case TRACE2_EVENT_SIGNAL:
		kv_int(&op->sp->attrs, "trace2.signal", ev->signal.signo);
		set_exit(op, 128 + ev->signal.signo);
		break;
	case TRACE2_EVENT_ERROR:
		kv_str(&a, "exception.message", ev->error.msg);
		if (ev->error.fmt)
			kv_str(&a, "trace2.fmt", ev->error.fmt);
		kv_str(&a, "trace2.thread", ot->t->pub.name);
		span_event(innermost(op, ot), ns, "error", &a);
		break;
	case TRACE2_EVENT_CMD_PATH:
		kv_str(&op->sp->attrs, "process.executable.path", ev->cmd_path.path);
		break;
	case TRACE2_EVENT_CMD_ANCESTRY:
		kv_argv(&op->sp->attrs, "trace2.cmd_ancestry", ev->cmd_ancestry.names, 0);
		break;
	case TRACE2_EVENT_CMD_NAME:
		op->named = 1;
		free(op->sp->name);
		op->sp->name = xstrdup(ev->cmd_name.name && *ev->cmd_name.name ?
				       ev->cmd_name.name : "?");
		kv_str(&op->sp->attrs, "trace2.cmd_name", ev->cmd_name.name);
		kv_str(&op->sp->attrs, "trace2.cmd_hierarchy", ev->cmd_name.hierarchy);
		break;
	case TRACE2_EVENT_CMD_MODE:
		kv_str(&op->sp->attrs, "trace2.cmd_mode", ev->cmd_mode.name);
		break;
	case TRACE2_EVENT_ALIAS:
		kv_str(&op->sp->attrs, "trace2.alias", ev->alias.alias);
		kv_argv(&op->sp->attrs, "trace2.alias_argv", ev->alias.argv, 0);
		break;
	case TRACE2_EVENT_CHILD_START:
		if (find_child(op, ev->child.id, 0))
			break; /* a child_id twice: keep the first */
		child_start(op, ot, rec);
		break;
	case TRACE2_EVENT_CHILD_EXIT:
		child_exit(op, rec);
		break;
	case TRACE2_EVENT_CHILD_READY:
		s = find_child(op, ev->child.id, 0);
		kv_int(&a, "trace2.child_id", ev->child.id);
		kv_int(&a, "process.pid", ev->child.pid);
		kv_str(&a, "trace2.ready", ev->child.ready);
		span_event(s ? s : op->sp, ns, "child_ready", &a);
		break;
	case TRACE2_EVENT_EXEC:
		kv_int(&a, "trace2.exec_id", ev->exec.id);
		if (ev->exec.exe)
			kv_str(&a, "process.executable.path", ev->exec.exe);
		kv_argv(&a, "process.command_args", ev->exec.argv, 0);
		span_event(innermost(op, ot), ns, "exec", &a);
		break;
	case TRACE2_EVENT_EXEC_RESULT:
		kv_int(&a, "trace2.exec_id", ev->exec.id);
		kv_int(&a, "process.exit.code", ev->exec.code);
		span_event(innermost(op, ot), ns, "exec_result", &a);
		break;
	case TRACE2_EVENT_DEF_PARAM:
		sb_printf(&b, "trace2.param.%s", ev->def_param.param ? ev->def_param.param : "");
		kv_str(&op->sp->attrs, b.s, ev->def_param.value);
		break;
	case TRACE2_EVENT_DEF_REPO:
		sb_printf(&b, "trace2.repo.%d.worktree", ev->def_repo.repo_id);
		kv_str(&op->sp->attrs, b.s, ev->def_repo.worktree);
		break;
	case TRACE2_EVENT_REGION_ENTER:
		region_enter(op, ot, rec);
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		if (ot->top)
			region_close(op, ot, ns);
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		if (ev->kind == TRACE2_EVENT_DATA && ev->data.category && ev->data.key &&
		    !strcmp(ev->data.category, "trace2") && !strcmp(ev->data.key, "traceparent"))
			traceparent(op, ev->data.value);
		sb_printf(&b, "trace2.%s.%s.%s", ev->kind == TRACE2_EVENT_DATA ? "data" : "data_json",
			  ev->data.category ? ev->data.category : "",
			  ev->data.key ? ev->data.key : "");
		if (ev->kind == TRACE2_EVENT_DATA)
			kv_str(&innermost(op, ot)->attrs, b.s, ev->data.value);
		else {
			struct sb j = { 0 };

			if (ev->data.json)
				sb_add(&j, ev->data.json, ev->data.json_len);
			kv_str(&innermost(op, ot)->attrs, b.s, j.s ? j.s : "");
			sb_free(&j);
		}
		break;
	case TRACE2_EVENT_PRINTF:
		kv_str(&a, "trace2.msg", ev->printf.msg);
		kv_str(&a, "trace2.thread", ot->t->pub.name);
		span_event(innermost(op, ot), ns, "printf", &a);
		break;
	case TRACE2_EVENT_TIMER:
	case TRACE2_EVENT_TH_TIMER:
		kv_str(&a, "trace2.category", ev->timer.category);
		kv_str(&a, "trace2.name", ev->timer.name);
		if (ev->kind == TRACE2_EVENT_TH_TIMER)
			kv_str(&a, "trace2.thread", ot->t->pub.name);
		kv_int(&a, "trace2.intervals", (int64_t)ev->timer.intervals);
		kv_seconds(&a, "trace2.t_total", ev->timer.total_ns);
		kv_seconds(&a, "trace2.t_min", ev->timer.min_ns);
		kv_seconds(&a, "trace2.t_max", ev->timer.max_ns);
		span_event(op->sp, ns, trace2_event_name(ev->kind), &a);
		break;
	case TRACE2_EVENT_COUNTER:
	case TRACE2_EVENT_TH_COUNTER:
		kv_str(&a, "trace2.category", ev->counter.category);
		kv_str(&a, "trace2.name", ev->counter.name);
		if (ev->kind == TRACE2_EVENT_TH_COUNTER)
			kv_str(&a, "trace2.thread", ot->t->pub.name);
		kv_int(&a, "trace2.count", (int64_t)ev->counter.value);
		span_event(op->sp, ns, trace2_event_name(ev->kind), &a);
		break;
	case TRACE2_EVENT_TOO_MANY_FILES:
		span_event(op->sp, ns, "too_many_files", NULL);
		break;
	default:
		break; /* thread_start, thread_exit: no span of their own */
	}
	sb_free(&b);
	kv_free(&a);
}

static void bad_line(void *ctx, const char *src, unsigned long lineno, const char *reason,
		     int ignored, int no_newline)
{
	struct otlp *o = ctx;

	(void)ignored;
	o->skipped++;
	fprintf(stderr, "%s:%lu: %s%s; skipped\n", src, lineno, reason,
		no_newline ? " (last line, no newline)" : "");
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static struct oproc *find_proc(struct otlp *o, const char *sid, size_t len)
{
	struct oproc *op;

	for (op = o->procs; op; op = op->next)
		if (op->p->pub.sid_len == len && !memcmp(op->p->pub.sid, sid, len))
			return op;
	return NULL;
}

/*
 * The process span's parent.  A root: the tree's traceparent span, if
 * any.  A child: its parent's child span of its pid (the id is computed
 * from the parent's SID and the pid in the child's own SID, whether or
 * not the parent is in the input).  When the parent is in the input but
 * ran no child of that pid: a program it exec'd (same pid) goes under
 * the parent's process span; else (a shell in between) under the
 * parent's child span open when the child started (the latest started),
 * else the parent's process span.
 */
static void resolve_parent(struct otlp *o, struct oproc *op)
{
	const char *sid = op->p->pub.sid, *slash = strrchr(sid, '/');
	struct oproc *parent;
	const struct cdone *d, *best = NULL;
	size_t plen;

	if (!slash) {
		if (op->tree->has_tp) {
			op->sp->has_parent = 1;
			op->sp->parent = strtoull(op->tree->tp_span, NULL, 16);
		}
		return;
	}
	plen = (size_t)(slash - sid);
	op->sp->has_parent = 1;
	parent = find_proc(o, sid, plen);
	if (op->has_pid)
		op->sp->parent = child_span_id(sid, plen, op->pid);
	if (!parent) {
		if (!op->has_pid)
			op->sp->parent = id_of("%.*s", (int)plen, sid);
		return;
	}
	for (d = parent->done; d; d = d->next)
		if (op->has_pid && d->has_pid && d->pid == op->pid)
			return;
	if (op->has_pid && parent->has_pid && op->pid == parent->pid) {
		op->sp->parent = parent->sp->id; /* exec'd by its parent */
		return;
	}
	for (d = parent->done; d; d = d->next)
		if (d->start_ns <= op->sp->start_ns && op->sp->start_ns <= d->end_ns &&
		    (!best || d->start_ns > best->start_ns))
			best = d;
	op->sp->parent = best ? best->id : parent->sp->id;
}

/* What is still open at the end of the input ends with its process. */
static void finish_proc(struct oproc *op)
{
	struct othread *ot;
	struct span *s;
	struct cdone *d;

	for (ot = op->threads; ot; ot = ot->next)
		while (ot->top) {
			kv_bool(&ot->top->attrs, "trace2.unfinished", 1);
			region_close(op, ot, op->sp->end_ns);
		}
	while ((s = op->children)) {
		op->children = s->next_child;
		s->end_ns = op->sp->end_ns;
		s->id = id_of("%s\nchild_id\n%d", op->p->pub.sid, s->child_id);
		kv_bool(&s->attrs, "trace2.unfinished", 1);
		d = xzalloc(sizeof(*d));
		d->id = s->id;
		d->start_ns = s->start_ns;
		d->end_ns = s->end_ns;
		d->next = op->done;
		op->done = d;
		store_span(op, s);
		span_free(s);
	}
}

static void write_proc(struct otlp *o, struct oproc *op)
{
	struct sb b = { 0 }, pre = { 0 };
	struct kvl res = { 0 };
	char trace[33];
	size_t i;

	resolve_parent(o, op);
	if (op->tree->has_tp)
		memcpy(trace, op->tree->tp_trace, 33);
	else {
		uint64_t hi, lo;

		otlp_fnv1a128(op->tree->root, strlen(op->tree->root), &hi, &lo);
		snprintf(trace, sizeof(trace), "%016llx%016llx", (unsigned long long)hi,
			 (unsigned long long)lo);
	}

	kv_str(&res, "service.name", op->service ? op->service : "unknown_service");
	if (op->version)
		kv_str(&res, "service.version", op->version);
	if (op->has_pid)
		kv_int(&res, "process.pid", op->pid);
	kv_str(&res, "trace2.sid", op->p->pub.sid);
	sb_puts(&b, "{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
	kv_write(&b, &res);
	kv_free(&res);
	sb_puts(&b, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"libtrace2\",\"version\":\""
		TRACE2_VERSION_STRING "\"},\"spans\":[");
	sb_printf(&pre, "{\"traceId\":\"%s\",", trace);
	sb_add(&b, pre.s, pre.len);
	span_body(&b, op->sp);
	for (i = 0; i < op->spans.len; i += strlen(op->spans.s + i) + 1) {
		sb_puts(&b, ",");
		sb_add(&b, pre.s, pre.len);
		sb_puts(&b, op->spans.s + i);
	}
	sb_puts(&b, "]}]}]}\n");
	fwrite(b.s, 1, b.len, o->out);
	sb_free(&b);
	sb_free(&pre);
}

static void free_proc(struct oproc *op)
{
	struct othread *ot;
	struct span *s;
	struct cdone *d;

	while ((ot = op->threads)) {
		op->threads = ot->next;
		while ((s = ot->top)) {
			ot->top = s->up;
			span_free(s);
		}
		ot->t->user = NULL;
		free(ot);
	}
	while ((s = op->children)) {
		op->children = s->next_child;
		span_free(s);
	}
	while ((d = op->done)) {
		op->done = d->next;
		free(d);
	}
	span_free(op->sp);
	sb_free(&op->spans);
	free(op->service);
	free(op->version);
	op->p->user = NULL;
	free(op);
}

struct otlp *otlp_new(FILE *out)
{
	struct otlp *o = xzalloc(sizeof(*o));

	o->tail = &o->procs;
	o->out = out;
	return o;
}

void otlp_record(void *ctx, struct t2_record *rec)
{
	on_record(ctx, rec);
}

int otlp_finish(struct otlp *o)
{
	struct oproc *op;
	struct otree *t;

	for (op = o->procs; op; op = op->next)
		finish_proc(op);
	for (op = o->procs; op; op = op->next)
		write_proc(o, op);
	while ((op = o->procs)) {
		o->procs = op->next;
		free_proc(op);
	}
	while ((t = o->trees)) {
		o->trees = t->next;
		free(t->root);
		free(t);
	}
	free(o);
	return 0;
}

int otlp_convert(char **paths, int npaths, FILE *out)
{
	struct otlp *o = otlp_new(out);
	struct t2_reader r;
	int i, ret = 0;

	t2_reader_init(&r, on_record, bad_line, o);
	for (i = 0; i < npaths; i++)
		if (t2_reader_read_path(&r, paths[i]))
			ret = 1;
	otlp_finish(o);
	t2_reader_free(&r);
	if (fflush(out) || ferror(out))
		ret = 1;
	return ret;
}
