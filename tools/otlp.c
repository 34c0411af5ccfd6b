/*
 * trace2 convert --to otlp FILE...: the records of event-format logs as
 * OpenTelemetry traces in OTLP/JSON (the protobuf JSON mapping of
 * opentelemetry.proto.trace.v1.TracesData, ids in lowercase hex), one
 * TracesData object per line, each with spans of one process: the JSON
 * Lines file the collector's otlpjsonfile receiver reads.
 *
 * Spans: one per process, one per region (parent: the enclosing region
 * on the same thread, else the process), one per child_start..child_exit
 * (parent: the innermost region of its thread, else the process).  A
 * child process's span is parented on that child span.  Ids are hashes
 * of the SIDs (FNV-1a), so the files of one command tree, converted
 * together or apart, join into one trace; docs/tools.md gives the exact
 * inputs.
 *
 * The output streams: a span is written, in a line of its process's
 * (BATCH_BYTES of spans at most), once it has ended and its ids are
 * known.  Its span and parent ids are known when it ends, except a child
 * process's parent: that waits for the parent's child_exit of its pid or
 * the parent's end (a shell or an exec in between changes it), or for
 * the end of the input when the parent has not been read.  Its trace id
 * is its tree's, which is settled by the tree's first valid traceparent,
 * by the root process's first record past the one the library writes it
 * in (right after start), or at the end of the input; the finished spans
 * of a tree not yet settled wait, PENDING_MAX bytes of them at most over
 * all trees (past that, the trees that have waited longest take their
 * root SID's trace id).  So memory holds the open spans, per process a
 * small record (with its finished child runs: a child process read later
 * looks its parent span up there) and a batch of finished spans, and
 * what waits as above: not the input.
 */
#include "otlp.h"
#include "alloc.h"
#include "map.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "tr2_traceparent.h"
#include "trace2.h"

#define BATCH_BYTES (16 * 1024)          /* spans per line: about this much */
#define PENDING_MAX (16 * 1024 * 1024)   /* spans waiting for a trace id */

/* ------------------------------------------------------------------ */
/* Hashes                                                              */
/* ------------------------------------------------------------------ */

#define FNV64_BASIS 0xcbf29ce484222325ULL

static uint64_t fnv64_add(uint64_t h, const void *s, size_t len)
{
	const unsigned char *p = s;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t otlp_fnv1a64(const void *s, size_t len)
{
	return fnv64_add(FNV64_BASIS, s, len);
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

/* A span id from a hash: all zero is invalid in OTLP. */
static uint64_t span_id(uint64_t h)
{
	return h ? h : 1;
}

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

/* v in decimal at the end of d[20]; returns where it starts. */
static const char *dec(char d[20], uint64_t v)
{
	char *p = d + 20;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

static void sb_u64(struct t2_sb *b, uint64_t v)
{
	char d[20];
	const char *p = dec(d, v);

	t2_sb_add(b, p, (size_t)(d + 20 - p));
}

static void sb_i64(struct t2_sb *b, int64_t v)
{
	if (v < 0)
		t2_sb_add(b, "-", 1);
	sb_u64(b, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* The low 4 * digits bits of v in lowercase hex. */
static void hex(char *out, uint64_t v, int digits)
{
	int i;

	for (i = digits - 1; i >= 0; i--) {
		out[i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	}
}

static void sb_hex(struct t2_sb *b, uint64_t v, int digits)
{
	char d[16];

	hex(d, v, digits);
	t2_sb_add(b, d, (size_t)digits);
}

/* ------------------------------------------------------------------ */
/* Attributes                                                          */
/* ------------------------------------------------------------------ */

/*
 * put_*(b, NULL, v) writes an AnyValue; put_*(b, KEY, v) a KeyValue,
 * {"key":KEY,"value":...}, into a list's text, with a comma first unless
 * the list starts there (the text is empty or ends in its '[').
 */
static void kv_open(struct t2_sb *b, const char *key)
{
	if (!key)
		return;
	if (b->len && b->s[b->len - 1] != '[')
		t2_sb_add(b, ",", 1);
	t2_sb_puts(b, "{\"key\":");
	t2_sb_jstr(b, key);
	t2_sb_puts(b, ",\"value\":");
}

static void kv_close(struct t2_sb *b, const char *key)
{
	if (key)
		t2_sb_add(b, "}", 1);
}

static void put_str(struct t2_sb *b, const char *key, const char *v)
{
	kv_open(b, key);
	t2_sb_puts(b, "{\"stringValue\":");
	t2_sb_jstr(b, v ? v : "");
	t2_sb_puts(b, "}");
	kv_close(b, key);
}

static void put_int(struct t2_sb *b, const char *key, int64_t v)
{
	kv_open(b, key);
	t2_sb_puts(b, "{\"intValue\":\"");
	sb_i64(b, v);
	t2_sb_puts(b, "\"}");
	kv_close(b, key);
}

static void put_bool(struct t2_sb *b, const char *key, int v)
{
	kv_open(b, key);
	t2_sb_puts(b, v ? "{\"boolValue\":true}" : "{\"boolValue\":false}");
	kv_close(b, key);
}

/* Seconds with microseconds, as the event format writes them. */
static void put_seconds(struct t2_sb *b, const char *key, uint64_t ns)
{
	char v[64]; /* 20 digits, a point and 6 more in the literal */

	kv_open(b, key);
	snprintf(v, sizeof(v), "{\"doubleValue\":%llu.%06llu}",
		 (unsigned long long)(ns / 1000000000), (unsigned long long)(ns / 1000 % 1000000));
	t2_sb_puts(b, v);
	kv_close(b, key);
}

static void put_argv(struct t2_sb *b, const char *key, const char *const *argv, int git_cmd)
{
	int first = 1;

	kv_open(b, key);
	t2_sb_puts(b, "{\"arrayValue\":{\"values\":[");
	if (git_cmd) {
		t2_sb_puts(b, "{\"stringValue\":\"git\"}");
		first = 0;
	}
	for (; argv && *argv; argv++) {
		if (!first)
			t2_sb_puts(b, ",");
		first = 0;
		put_str(b, NULL, *argv);
	}
	t2_sb_puts(b, "]}}");
	kv_close(b, key);
}

/* KeyValue lists whose keys can be set again (the value is replaced in
 * place): the process span's, and data records'. */
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
		l->key = t2_realloc(l->key, l->cap * sizeof(*l->key));
		l->val = t2_realloc(l->val, l->cap * sizeof(*l->val));
	}
	l->key[l->n] = t2_strdup(key);
	l->val[l->n++] = val;
}

static void kv_str(struct kvl *l, const char *key, const char *v)
{
	struct t2_sb b = { 0 };

	put_str(&b, NULL, v);
	kv_set_raw(l, key, b.s);
}

static void kv_int(struct kvl *l, const char *key, int64_t v)
{
	struct t2_sb b = { 0 };

	put_int(&b, NULL, v);
	kv_set_raw(l, key, b.s);
}

static void kv_bool(struct kvl *l, const char *key, int v)
{
	struct t2_sb b = { 0 };

	put_bool(&b, NULL, v);
	kv_set_raw(l, key, b.s);
}

static void kv_argv(struct kvl *l, const char *key, const char *const *argv, int git_cmd)
{
	struct t2_sb b = { 0 };

	put_argv(&b, NULL, argv, git_cmd);
	kv_set_raw(l, key, b.s);
}

static void kv_write(struct t2_sb *b, const struct kvl *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		kv_open(b, l->key[i]);
		t2_sb_puts(b, l->val[i]);
		kv_close(b, l->key[i]);
	}
}

/* Empty again, keeping the arrays. */
static void kv_clear(struct kvl *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->key[i]);
		free(l->val[i]);
	}
	l->n = 0;
}

static void kv_free(struct kvl *l)
{
	kv_clear(l);
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
	struct t2_sb name;
	uint64_t start_ns, end_ns;
	struct t2_sb fixed;         /* attributes never set again, KeyValue text */
	struct kvl attrs;        /* the others, after them */
	struct t2_sb events;        /* Span.Event objects, comma-separated */
	int error;               /* status ERROR, with status_msg */
	char *status_msg;
	struct span *up;         /* the enclosing span on the thread's stack */
	int child_id;            /* child spans */
	struct span *next_child;
};

static void span_name(struct span *s, const char *name)
{
	t2_sb_reset(&s->name);
	t2_sb_puts(&s->name, name && *name ? name : "?");
}

static void span_free(struct span *s)
{
	t2_sb_free(&s->name);
	t2_sb_free(&s->fixed);
	kv_free(&s->attrs);
	t2_sb_free(&s->events);
	free(s->status_msg);
	free(s);
}

/* A Span.Event's start: {"timeUnixNano":...,"name":... */
static struct t2_sb *ev_open(struct span *s, uint64_t ns, const char *name)
{
	struct t2_sb *b = &s->events;

	if (b->len)
		t2_sb_add(b, ",", 1);
	t2_sb_puts(b, "{\"timeUnixNano\":\"");
	sb_u64(b, ns);
	t2_sb_puts(b, "\",\"name\":");
	t2_sb_jstr(b, name);
	return b;
}

/* A Span.Event with attributes: they follow (put_*), then ev_end(). */
static struct t2_sb *ev_begin(struct span *s, uint64_t ns, const char *name)
{
	struct t2_sb *b = ev_open(s, ns, name);

	t2_sb_puts(b, ",\"attributes\":[");
	return b;
}

static void ev_end(struct t2_sb *b)
{
	t2_sb_puts(b, "]}");
}

static void span_ids(struct t2_sb *b, uint64_t id, int has_parent, uint64_t parent)
{
	t2_sb_puts(b, "\"spanId\":\"");
	sb_hex(b, id, 16);
	if (has_parent) {
		t2_sb_puts(b, "\",\"parentSpanId\":\"");
		sb_hex(b, parent, 16);
	}
	t2_sb_add(b, "\"", 1);
}

/* The span's JSON after its ids: ,"name":...} */
static void span_rest(struct t2_sb *b, const struct span *s)
{
	t2_sb_puts(b, ",\"name\":");
	t2_sb_jstr_n(b, s->name.s, s->name.len);
	t2_sb_puts(b, ",\"kind\":1,\"startTimeUnixNano\":\"");
	sb_u64(b, s->start_ns);
	t2_sb_puts(b, "\",\"endTimeUnixNano\":\"");
	sb_u64(b, s->end_ns < s->start_ns ? s->start_ns : s->end_ns);
	t2_sb_add(b, "\"", 1);
	if (s->fixed.len || s->attrs.n) {
		t2_sb_puts(b, ",\"attributes\":[");
		t2_sb_add(b, s->fixed.s, s->fixed.len);
		kv_write(b, &s->attrs);
		t2_sb_puts(b, "]");
	}
	if (s->events.len) {
		t2_sb_puts(b, ",\"events\":[");
		t2_sb_add(b, s->events.s, s->events.len);
		t2_sb_puts(b, "]");
	}
	if (s->error) {
		t2_sb_puts(b, ",\"status\":{");
		if (s->status_msg) {
			t2_sb_puts(b, "\"message\":");
			t2_sb_jstr(b, s->status_msg);
			t2_sb_puts(b, ",");
		}
		t2_sb_puts(b, "\"code\":2}");
	}
	t2_sb_puts(b, "}");
}

/* ------------------------------------------------------------------ */
/* State                                                               */
/* ------------------------------------------------------------------ */

struct othread {
	struct t2_thread *t;
	struct othread *next;
	struct span *top;        /* the innermost open region */
	unsigned long seq;       /* region_enter records so far */
	uint64_t h;              /* FNV-1a of "<SID>\n<thread name>\n" */
	struct t2_sb attr;          /* its trace2.thread KeyValue */
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
	size_t root_len;
	struct otree *hnext;     /* the same hash */
	struct otree *qnext;     /* the queue of trees with spans waiting */
	struct oproc *procs;     /* its processes (oproc.tnext) */
	int settled;             /* the trace id is known */
	int has_tp;
	char trace[33];
	uint64_t tp_span;
	size_t pending;          /* bytes of spans waiting for the trace id */
};

struct oproc {
	struct t2_process *p;
	struct otree *tree;
	struct oproc *next;      /* every process, in order of appearance */
	struct oproc *hnext;     /* the same hash of the SID */
	struct oproc *tnext;     /* the same tree */
	struct oproc *wnext;     /* waiting for the same parent */
	uint64_t h;              /* FNV-1a of the SID */
	uint64_t idh;            /* what its span ids hash from: h, or for a
				  * process gone on after its atexit h of
				  * "<SID>\ndetached\n<N>" */
	uint64_t id, parent;     /* the process span's */
	uint64_t start_ns;
	uint32_t pid;            /* from the SID's own part */
	unsigned has_pid : 1, has_parent : 1, parent_known : 1;
	unsigned ended : 1;      /* atexit (or the end of the input) */
	unsigned written : 1;    /* everything of it is out */
	unsigned in_window : 1;  /* a root that may still record a traceparent */
	unsigned detached : 1;   /* it went on after its atexit (same SID) */
	char *name;              /* its span's name, once ended */
	struct cdone *done;
	/* until it ends */
	struct span *sp;         /* the process span */
	int named;               /* cmd_name gave the name */
	struct othread *threads;
	struct span *children;   /* open child spans */
	struct t2_sb sid_attr;      /* its trace2.sid KeyValue */
	/* until written */
	char *service;           /* basename of argv[0] */
	char *version;
	struct t2_sb batch;         /* finished spans after "traceId":"…", NUL-separated */
	struct t2_sb psp;           /* the ended process span after its ids */
};

struct otlp {
	struct oproc *procs, **tail;
	struct t2_map by_sid;      /* oproc.hnext */
	struct t2_map trees;       /* otree.hnext, by root SID */
	struct t2_map waiting;     /* oproc.wnext, by the parent's SID */
	struct otree *queue, **qtail;
	size_t pending;          /* the trees' pending bytes */
	struct span *spare;      /* spans for reuse (span.up) */
	struct t2_sb line;
	FILE *out;
};

static struct span *span_new(struct otlp *o, uint64_t start_ns, const char *name)
{
	struct span *s = o->spare;

	if (s) {
		o->spare = s->up;
		s->id = s->parent = 0;
		s->has_parent = s->error = s->child_id = 0;
		t2_sb_reset(&s->fixed);
		kv_clear(&s->attrs);
		t2_sb_reset(&s->events);
		s->up = s->next_child = NULL;
	} else
		s = t2_calloc(1, sizeof(*s));
	s->start_ns = s->end_ns = start_ns;
	span_name(s, name);
	return s;
}

static void span_recycle(struct otlp *o, struct span *s)
{
	free(s->status_msg);
	s->status_msg = NULL;
	s->up = o->spare;
	o->spare = s;
}

/* Nanoseconds, at most INT64_MAX (OTLP's fixed64 is read as a signed
 * 64-bit integer by some; that is the year 2262). */
static uint64_t ns_of(const struct t2_record *rec)
{
	uint64_t us = rec->ev.time_us;

	return us > INT64_MAX / 1000 ? INT64_MAX / 1000 * 1000 : us * 1000;
}

/* FNV-1a 64 of "<parent SID>\nchild\n<pid as %08x>" */
static uint64_t child_span_id(const char *parent_sid, size_t parent_len, uint32_t pid)
{
	char t[15] = "\nchild\n";

	hex(t + 7, pid, 8);
	return span_id(fnv64_add(otlp_fnv1a64(parent_sid, parent_len), t, sizeof(t)));
}

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

/* One TracesData line: op's resource and the spans of its batch. */
static void write_line(struct otlp *o, struct oproc *op)
{
	struct t2_sb *b = &o->line;
	size_t i;

	t2_sb_reset(b);
	t2_sb_puts(b, "{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
	put_str(b, "service.name", op->service ? op->service : "unknown_service");
	if (op->version)
		put_str(b, "service.version", op->version);
	if (op->has_pid)
		put_int(b, "process.pid", op->pid);
	put_str(b, "trace2.sid", op->p->pub.sid);
	t2_sb_puts(b, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"libtrace2\",\"version\":\""
		TRACE2_VERSION_STRING "\"},\"spans\":[");
	for (i = 0; i < op->batch.len; i += strlen(op->batch.s + i) + 1) {
		if (i)
			t2_sb_add(b, ",", 1);
		t2_sb_puts(b, "{\"traceId\":\"");
		t2_sb_add(b, op->tree->trace, 32);
		t2_sb_puts(b, "\",");
		t2_sb_puts(b, op->batch.s + i);
	}
	t2_sb_puts(b, "]}]}]}\n");
	fwrite(b->s, 1, b->len, o->out);
	t2_sb_reset(&op->batch);
}

/* Write what of op can be: its finished spans once its tree's trace id
 * is known, its process span once it has also ended and has its parent. */
static void flush_proc(struct otlp *o, struct oproc *op)
{
	if (!op->tree->settled || op->written)
		return;
	if (op->ended && op->parent_known) {
		if (!op->detached && (!op->p->pub.sid_len || !strchr(op->p->pub.sid, '/'))) {
			op->has_parent = op->tree->has_tp;
			op->parent = op->tree->tp_span;
		}
		span_ids(&op->batch, op->id, op->has_parent, op->parent);
		t2_sb_add(&op->batch, op->psp.s, op->psp.len);
		t2_sb_add(&op->batch, "", 1);
		op->written = 1;
	}
	if (op->batch.len)
		write_line(o, op);
	if (op->written) {
		/* its service and version stay for a detached part (few bytes) */
		t2_sb_free(&op->batch);
		t2_sb_free(&op->psp);
	}
}

/* The tree's trace id: tp's ("00-<trace>-<span>-..."), else the root
 * SID's hash; then what waited for it is written. */
static void settle(struct otlp *o, struct otree *t, const char *tp)
{
	struct oproc *op;

	if (t->settled)
		return;
	t->settled = 1;
	if (tp) {
		t->has_tp = 1;
		memcpy(t->trace, tp + 3, 32);
		t->tp_span = strtoull(tp + 36, NULL, 16);
	} else {
		uint64_t hi, lo;

		otlp_fnv1a128(t->root, t->root_len, &hi, &lo);
		snprintf(t->trace, sizeof(t->trace), "%016llx%016llx", (unsigned long long)hi,
			 (unsigned long long)lo);
	}
	o->pending -= t->pending;
	t->pending = 0;
	for (op = t->procs; op; op = op->tnext)
		flush_proc(o, op);
}

/* A finished span into op's batch; written when the batch is full and
 * the trace id known, else counted as waiting. */
static void store_span(struct otlp *o, struct oproc *op, struct span *s)
{
	struct otree *t = op->tree;
	size_t before = op->batch.len;

	span_ids(&op->batch, s->id, s->has_parent, s->parent);
	span_rest(&op->batch, s);
	t2_sb_add(&op->batch, "", 1); /* spans are NUL-separated */
	if (t->settled) {
		if (op->batch.len >= BATCH_BYTES)
			flush_proc(o, op);
		return;
	}
	if (!t->pending) {
		t->qnext = NULL;
		*o->qtail = t;
		o->qtail = &t->qnext;
	}
	t->pending += op->batch.len - before;
	o->pending += op->batch.len - before;
	while (o->pending > PENDING_MAX && (t = o->queue)) {
		o->queue = t->qnext;
		if (!o->queue)
			o->qtail = &o->queue;
		settle(o, t, NULL);
	}
}

/* ------------------------------------------------------------------ */
/* Processes and threads                                               */
/* ------------------------------------------------------------------ */

static struct oproc *find_proc(struct otlp *o, const char *sid, size_t len)
{
	union t2_map_val *head = t2_map_at(&o->by_sid, otlp_fnv1a64(sid, len), 0);
	struct oproc *op;

	for (op = head ? head->p : NULL; op; op = op->hnext)
		if (op->p->pub.sid_len == len && !memcmp(op->p->pub.sid, sid, len))
			return op;
	return NULL;
}

static struct otree *get_tree(struct otlp *o, const char *sid)
{
	size_t n = strcspn(sid, "/");
	union t2_map_val *head = t2_map_at(&o->trees, otlp_fnv1a64(sid, n), 1);
	struct otree *t;

	for (t = head->p; t; t = t->hnext)
		if (t->root_len == n && !memcmp(t->root, sid, n))
			return t;
	t = t2_calloc(1, sizeof(*t));
	t->root = t2_realloc(NULL, n + 1);
	memcpy(t->root, sid, n);
	t->root[n] = 0;
	t->root_len = n;
	t->hnext = head->p;
	head->p = t;
	return t;
}

/* A process span for the records of p from rec on. */
static struct oproc *proc_new(struct otlp *o, struct t2_record *rec)
{
	struct t2_process *p = rec->proc;
	struct oproc *op;
	union t2_map_val *head;
	char unnamed[T2_UNNAMED_MAX];

	op = t2_calloc(1, sizeof(*op));
	op->p = p;
	p->user = op;
	op->tree = get_tree(o, p->pub.sid);
	op->tnext = op->tree->procs;
	op->tree->procs = op;
	op->h = otlp_fnv1a64(p->pub.sid, strlen(p->pub.sid));
	head = t2_map_at(&o->by_sid, op->h, 1);
	op->hnext = head->p;
	head->p = op;
	*o->tail = op;
	o->tail = &op->next;
	op->in_window = !strchr(p->pub.sid, '/');
	op->idh = op->h;
	op->id = span_id(op->h);
	op->has_pid = !t2_pid_of_sid(p->pub.sid, &op->pid);
	put_str(&op->sid_attr, "trace2.sid", p->pub.sid);
	/* named by its cmd_name or argv[0] when they come */
	op->sp = span_new(o, ns_of(rec), t2_unnamed(p, unnamed));
	op->sp->id = op->id;
	put_str(&op->sp->fixed, "trace2.span", "process");
	t2_sb_add(&op->sp->fixed, ",", 1);
	t2_sb_add(&op->sp->fixed, op->sid_attr.s, op->sid_attr.len);
	if (op->has_pid)
		put_int(&op->sp->fixed, "process.pid", op->pid);
	return op;
}

/*
 * The process writes again after its atexit: Git's daemonized child
 * (maintenance --detach, gc --auto), the same SID in another process.
 * Its span is a child of the process span, named as it, and the regions
 * it leaves that were open at the fork come out whole (their
 * region_leave has their time).
 */
static struct oproc *proc_detached(struct otlp *o, struct oproc *old, struct t2_record *rec)
{
	struct oproc *op = proc_new(o, rec);
	struct t2_sb b = { 0 };

	t2_sb_puts(&b, "\ndetached\n");
	sb_i64(&b, (int64_t)rec->proc->detached);
	op->idh = fnv64_add(op->h, b.s, b.len);
	t2_sb_free(&b);
	op->id = op->sp->id = span_id(op->idh);
	op->detached = op->has_parent = op->parent_known = 1;
	op->parent = old->id;
	op->in_window = 0;
	op->named = 1;
	span_name(op->sp, old->name);
	op->service = old->service ? t2_strdup(old->service) : NULL;
	op->version = old->version ? t2_strdup(old->version) : NULL;
	kv_bool(&op->sp->attrs, "trace2.detached", 1);
	return op;
}

static struct oproc *get_proc(struct otlp *o, struct t2_record *rec)
{
	struct oproc *op = rec->proc->user;

	if (!op)
		return proc_new(o, rec);
	if (op->ended) /* the reader says rec->resumed */
		return proc_detached(o, op, rec);
	return op;
}

static struct othread *get_thread(struct oproc *op, struct t2_thread *t)
{
	struct othread *ot = t->user;
	const char *name = t->pub.name;

	if (ot)
		return ot;
	ot = t2_calloc(1, sizeof(*ot));
	ot->t = t;
	t->user = ot;
	ot->next = op->threads;
	op->threads = ot;
	ot->h = fnv64_add(fnv64_add(op->idh, "\n", 1), name, strlen(name));
	ot->h = fnv64_add(ot->h, "\n", 1);
	put_str(&ot->attr, "trace2.thread", name);
	return ot;
}

/* The span a thread's record belongs to: its innermost region, else the
 * process. */
static struct span *innermost(struct oproc *op, struct othread *ot)
{
	return ot->top ? ot->top : op->sp;
}

/* The fixed attributes every region and child span starts with. */
static void span_head(struct span *s, const char *kind, struct oproc *op, struct othread *ot)
{
	put_str(&s->fixed, "trace2.span", kind);
	t2_sb_add(&s->fixed, ",", 1);
	t2_sb_add(&s->fixed, op->sid_attr.s, op->sid_attr.len);
	t2_sb_add(&s->fixed, ",", 1);
	t2_sb_add(&s->fixed, ot->attr.s, ot->attr.len);
}

static void region_enter(struct otlp *o, struct oproc *op, struct othread *ot,
			 const struct t2_record *rec)
{
	const struct trace2_ev_region *r = &rec->ev.region;
	struct span *s, *up = innermost(op, ot);
	char d[20];
	const char *seq;

	s = span_new(o, ns_of(rec), NULL);
	t2_sb_reset(&s->name);
	if (r->category && *r->category) {
		t2_sb_puts(&s->name, r->category);
		t2_sb_add(&s->name, ":", 1);
	}
	t2_sb_puts(&s->name, r->label ? r->label : "");
	if (!s->name.len)
		span_name(s, NULL);
	ot->seq++;
	seq = dec(d, ot->seq);
	s->id = span_id(fnv64_add(ot->h, seq, (size_t)(d + 20 - seq)));
	s->parent = up->id;
	s->has_parent = 1;
	span_head(s, "region", op, ot);
	put_int(&s->fixed, "trace2.nesting", (int64_t)rec->ev.nesting);
	if (r->category)
		put_str(&s->fixed, "trace2.category", r->category);
	if (r->label)
		put_str(&s->fixed, "trace2.label", r->label);
	if (r->msg)
		put_str(&s->fixed, "trace2.msg", r->msg);
	if (r->repo_id != TRACE2_NO_REPO)
		put_int(&s->fixed, "trace2.repo", r->repo_id);
	s->up = ot->top;
	ot->top = s;
}

static void region_close(struct otlp *o, struct oproc *op, struct othread *ot, uint64_t ns)
{
	struct span *s = ot->top;

	ot->top = s->up;
	s->end_ns = ns;
	store_span(o, op, s);
	span_recycle(o, s);
}

/* A region_leave of a region entered before what the input has of its
 * thread (before a detached process's fork, or before the input began):
 * the region whole, from its t_rel. */
static void region_whole(struct otlp *o, struct oproc *op, struct othread *ot,
			 const struct t2_record *rec)
{
	uint64_t ns = ns_of(rec), took = rec->ev.t_rel_us * 1000;

	region_enter(o, op, ot, rec);
	ot->top->start_ns = took < ns ? ns - took : 0;
	region_close(o, op, ot, ns);
}

static void child_start(struct otlp *o, struct oproc *op, struct othread *ot,
			const struct t2_record *rec)
{
	const struct trace2_ev_child *c = &rec->ev.child;
	struct span *s, *up = innermost(op, ot);

	s = span_new(o, ns_of(rec), NULL);
	t2_sb_reset(&s->name);
	t2_sb_puts(&s->name, "child:");
	t2_sb_puts(&s->name, c->child_class ? c->child_class : "?");
	if (c->hook_name) {
		t2_sb_add(&s->name, ":", 1);
		t2_sb_puts(&s->name, c->hook_name);
	}
	s->child_id = c->id;
	s->parent = up->id;
	s->has_parent = 1;
	span_head(s, "child", op, ot);
	put_int(&s->fixed, "trace2.child_id", c->id);
	put_str(&s->fixed, "trace2.child_class", c->child_class ? c->child_class : "?");
	if (c->hook_name)
		put_str(&s->fixed, "trace2.hook_name", c->hook_name);
	if (c->cd)
		put_str(&s->fixed, "trace2.cd", c->cd);
	put_bool(&s->fixed, "trace2.use_shell", c->use_shell);
	put_argv(&s->fixed, "process.command_args", c->argv, c->git_cmd);
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

/* A child span ended: stored, and remembered for the child processes. */
static void child_done(struct otlp *o, struct oproc *op, struct span *s, int has_pid, uint32_t pid)
{
	struct cdone *d = t2_calloc(1, sizeof(*d));

	d->pid = pid;
	d->has_pid = has_pid;
	d->id = s->id;
	d->start_ns = s->start_ns;
	d->end_ns = s->end_ns;
	d->next = op->done;
	op->done = d;
	store_span(o, op, s);
	span_recycle(o, s);
}

/*
 * The process span's parent; 0 while it cannot be known yet.  A root:
 * the tree's traceparent span, if any (taken when written).  A child: its
 * parent's child span of its pid (the id is computed from the parent's
 * SID and the pid in the child's own SID, whether or not the parent is in
 * the input).  When the parent is in the input but ran no child of that
 * pid: a program it exec'd (same pid) goes under the parent's process
 * span; else (a shell in between) under the parent's child span open when
 * the child started (the latest started), else the parent's process span.
 * Known once the parent has a child_exit of the pid or has ended, or at
 * the end of the input (final).
 */
static int resolve_parent(struct otlp *o, struct oproc *op, int final)
{
	const char *sid = op->p->pub.sid, *slash = strrchr(sid, '/');
	struct oproc *parent;
	const struct cdone *d, *best = NULL;
	size_t plen;
	uint64_t dflt;

	if (!slash)
		return 1;
	plen = (size_t)(slash - sid);
	dflt = op->has_pid ? child_span_id(sid, plen, op->pid) : span_id(otlp_fnv1a64(sid, plen));
	op->has_parent = 1;
	op->parent = dflt;
	parent = find_proc(o, sid, plen);
	if (!parent)
		return final;
	for (d = parent->done; d; d = d->next)
		if (op->has_pid && d->has_pid && d->pid == op->pid)
			return 1;
	if (!parent->ended && !final)
		return 0;
	if (op->has_pid && parent->has_pid && op->pid == parent->pid) {
		op->parent = parent->id; /* exec'd by its parent */
		return 1;
	}
	for (d = parent->done; d; d = d->next)
		if (d->start_ns <= op->start_ns && op->start_ns <= d->end_ns &&
		    (!best || d->start_ns > best->start_ns))
			best = d;
	op->parent = best ? best->id : parent->id;
	return 1;
}

/* op's parent has a child_exit of pid (has_pid) or has ended: the
 * children waiting for it get their parent span and are written. */
static void wake_children(struct otlp *o, struct oproc *parent, int has_pid, uint32_t pid)
{
	union t2_map_val *head = t2_map_at(&o->waiting, parent->h, 0);
	struct oproc **pp, *op;
	size_t plen = parent->p->pub.sid_len;

	if (!head)
		return;
	for (pp = (struct oproc **)&head->p; (op = *pp);) {
		if (op->p->pub.sid_len > plen && op->p->pub.sid[plen] == '/' &&
		    !memcmp(op->p->pub.sid, parent->p->pub.sid, plen) &&
		    !strchr(op->p->pub.sid + plen + 1, '/') && (!has_pid || (op->has_pid && op->pid == pid)) &&
		    resolve_parent(o, op, 0)) {
			*pp = op->wnext;
			op->parent_known = 1;
			flush_proc(o, op);
		} else
			pp = &op->wnext;
	}
}

/* The process ended (atexit, or the end of the input): what is still open
 * ends with it, its span waits for its parent and trace id if need be. */
static void proc_end(struct otlp *o, struct oproc *op)
{
	struct othread *ot;
	struct span *s;

	for (ot = op->threads; ot; ot = ot->next)
		while (ot->top) {
			kv_bool(&ot->top->attrs, "trace2.unfinished", 1);
			region_close(o, op, ot, op->sp->end_ns);
		}
	while ((s = op->children)) {
		struct t2_sb b = { 0 };

		op->children = s->next_child;
		s->end_ns = op->sp->end_ns;
		t2_sb_puts(&b, "\nchild_id\n");
		sb_i64(&b, s->child_id);
		s->id = span_id(fnv64_add(op->idh, b.s, b.len));
		t2_sb_free(&b);
		kv_bool(&s->attrs, "trace2.unfinished", 1);
		child_done(o, op, s, 0, 0);
	}
	while ((ot = op->threads)) {
		op->threads = ot->next;
		ot->t->user = NULL;
		t2_sb_free(&ot->attr);
		free(ot);
	}
	op->start_ns = op->sp->start_ns;
	op->name = t2_strdup(op->sp->name.s);
	span_rest(&op->psp, op->sp);
	span_recycle(o, op->sp);
	op->sp = NULL;
	t2_sb_free(&op->sid_attr);
	op->ended = 1;
	if (op->detached || resolve_parent(o, op, 0)) {
		op->parent_known = 1;
	} else {
		union t2_map_val *head = t2_map_at(&o->waiting,
						   otlp_fnv1a64(op->p->pub.sid,
								(size_t)(strrchr(op->p->pub.sid, '/') -
									 op->p->pub.sid)), 1);

		op->wnext = head->p;
		head->p = op;
	}
	flush_proc(o, op);
	wake_children(o, op, 0, 0);
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

/* The first valid traceparent settles its tree, unless something settled
 * it before. */
static void traceparent(struct otlp *o, struct oproc *op, const char *v)
{
	if (tr2_traceparent_valid(v))
		settle(o, op->tree, v);
}

static int is_traceparent_record(const struct trace2_event *ev)
{
	return ev->kind == TRACE2_EVENT_DATA && ev->data.category && ev->data.key &&
	       !strcmp(ev->data.category, "trace2") && !strcmp(ev->data.key, "traceparent");
}

static void set_exit(struct oproc *op, int code)
{
	kv_int(&op->sp->attrs, "process.exit.code", code);
	free(op->sp->status_msg);
	op->sp->status_msg = NULL;
	op->sp->error = code != 0;
	if (code) {
		char msg[32];

		snprintf(msg, sizeof(msg), "exit code %d", code);
		op->sp->status_msg = t2_strdup(msg);
	}
}

static void on_data(struct oproc *op, struct othread *ot, const struct trace2_event *ev)
{
	struct t2_sb key = { 0 }, v = { 0 };

	t2_sb_puts(&key, ev->kind == TRACE2_EVENT_DATA ? "trace2.data." : "trace2.data_json.");
	t2_sb_puts(&key, ev->data.category ? ev->data.category : "");
	t2_sb_add(&key, ".", 1);
	t2_sb_puts(&key, ev->data.key ? ev->data.key : "");
	if (ev->kind == TRACE2_EVENT_DATA)
		put_str(&v, NULL, ev->data.value);
	else {
		struct t2_sb j = { 0 };

		if (ev->data.json)
			t2_sb_add(&j, ev->data.json, ev->data.json_len);
		put_str(&v, NULL, j.s ? j.s : "");
		t2_sb_free(&j);
	}
	kv_set_raw(&innermost(op, ot)->attrs, key.s, v.s);
	t2_sb_free(&key);
}

/* A record of a process on a thread, as each kind's function takes it. */
struct orec {
	struct otlp *o;
	struct oproc *op;
	struct othread *ot;
	struct t2_record *rec;
	const struct trace2_event *ev;
	uint64_t ns;
};

static void on_version(const struct orec *r)
{
	struct oproc *op = r->op;

	free(op->version);
	op->version = t2_strdup(r->ev->version.exe ? r->ev->version.exe : "");
	kv_str(&op->sp->attrs, "trace2.version", op->version);
}

static void on_start(const struct orec *r)
{
	struct oproc *op = r->op;
	const char *const *argv = r->ev->start.argv;

	kv_argv(&op->sp->attrs, "process.command_args", argv, 0);
	if (argv && argv[0]) {
		free(op->service);
		op->service = t2_strdup(base_name(argv[0]));
		if (!op->named)
			span_name(op->sp, op->service);
	}
}

static void on_signal(const struct orec *r)
{
	kv_int(&r->op->sp->attrs, "trace2.signal", r->ev->signal.signo);
	set_exit(r->op, 128 + r->ev->signal.signo);
}

static void on_error(const struct orec *r)
{
	struct t2_sb *a = ev_begin(innermost(r->op, r->ot), r->ns, "error");

	put_str(a, "exception.message", r->ev->error.msg);
	if (r->ev->error.fmt)
		put_str(a, "trace2.fmt", r->ev->error.fmt);
	put_str(a, "trace2.thread", r->ot->t->pub.name);
	ev_end(a);
}

static void on_cmd_name(const struct orec *r)
{
	struct oproc *op = r->op;

	op->named = 1;
	span_name(op->sp, r->ev->cmd_name.name);
	kv_str(&op->sp->attrs, "trace2.cmd_name", r->ev->cmd_name.name);
	kv_str(&op->sp->attrs, "trace2.cmd_hierarchy", r->ev->cmd_name.hierarchy);
}

static void on_alias(const struct orec *r)
{
	kv_str(&r->op->sp->attrs, "trace2.alias", r->ev->alias.alias);
	kv_argv(&r->op->sp->attrs, "trace2.alias_argv", r->ev->alias.argv, 0);
}

static void on_child_start(const struct orec *r)
{
	if (!find_child(r->op, r->ev->child.id, 0)) /* a child_id twice: keep the first */
		child_start(r->o, r->op, r->ot, r->rec);
}

static void on_child_exit(const struct orec *r)
{
	struct oproc *op = r->op;
	const struct trace2_ev_child *c = &r->ev->child;
	struct span *s = find_child(op, c->id, 1);

	if (!s)
		return; /* no child_start: nothing to end */
	s->end_ns = r->ns;
	s->id = child_span_id(op->p->pub.sid, op->p->pub.sid_len, (uint32_t)c->pid);
	put_int(&s->fixed, "process.pid", c->pid);
	put_int(&s->fixed, "process.exit.code", c->code);
	child_done(r->o, op, s, 1, (uint32_t)c->pid);
	wake_children(r->o, op, 1, (uint32_t)c->pid);
}

static void on_child_ready(const struct orec *r)
{
	struct span *s = find_child(r->op, r->ev->child.id, 0);
	struct t2_sb *a = ev_begin(s ? s : r->op->sp, r->ns, "child_ready");

	put_int(a, "trace2.child_id", r->ev->child.id);
	put_int(a, "process.pid", r->ev->child.pid);
	put_str(a, "trace2.ready", r->ev->child.ready);
	ev_end(a);
}

static void on_exec(const struct orec *r)
{
	struct t2_sb *a = ev_begin(innermost(r->op, r->ot), r->ns, "exec");

	put_int(a, "trace2.exec_id", r->ev->exec.id);
	if (r->ev->exec.exe)
		put_str(a, "process.executable.path", r->ev->exec.exe);
	put_argv(a, "process.command_args", r->ev->exec.argv, 0);
	ev_end(a);
}

static void on_exec_result(const struct orec *r)
{
	struct t2_sb *a = ev_begin(innermost(r->op, r->ot), r->ns, "exec_result");

	put_int(a, "trace2.exec_id", r->ev->exec.id);
	put_int(a, "process.exit.code", r->ev->exec.code);
	ev_end(a);
}

static void on_def_param(const struct orec *r)
{
	struct t2_sb k = { 0 };

	t2_sb_puts(&k, "trace2.param.");
	t2_sb_puts(&k, r->ev->def_param.param ? r->ev->def_param.param : "");
	kv_str(&r->op->sp->attrs, k.s, r->ev->def_param.value);
	t2_sb_free(&k);
}

static void on_def_repo(const struct orec *r)
{
	struct t2_sb k = { 0 };

	t2_sb_puts(&k, "trace2.repo.");
	sb_i64(&k, r->ev->def_repo.repo_id);
	t2_sb_puts(&k, ".worktree");
	kv_str(&r->op->sp->attrs, k.s, r->ev->def_repo.worktree);
	t2_sb_free(&k);
}

static void on_region_leave(const struct orec *r)
{
	if (r->ot->top)
		region_close(r->o, r->op, r->ot, r->ns);
	else if (r->op->detached || r->rec->thread->mid)
		region_whole(r->o, r->op, r->ot, r->rec);
}

static void on_data_record(const struct orec *r)
{
	if (is_traceparent_record(r->ev))
		traceparent(r->o, r->op, r->ev->data.value);
	on_data(r->op, r->ot, r->ev);
}

static void on_printf(const struct orec *r)
{
	struct t2_sb *a = ev_begin(innermost(r->op, r->ot), r->ns, "printf");

	put_str(a, "trace2.msg", r->ev->printf.msg);
	put_str(a, "trace2.thread", r->ot->t->pub.name);
	ev_end(a);
}

/* A timer's or counter's span event, begun: its category, its name and,
 * for a thread's own, the thread. */
static struct t2_sb *metric_begin(const struct orec *r, const char *category, const char *name,
				  int per_thread)
{
	struct t2_sb *a = ev_begin(r->op->sp, r->ns, trace2_event_name(r->ev->kind));

	put_str(a, "trace2.category", category);
	put_str(a, "trace2.name", name);
	if (per_thread)
		put_str(a, "trace2.thread", r->ot->t->pub.name);
	return a;
}

/* timer, th_timer */
static void on_timer(const struct orec *r)
{
	const struct trace2_ev_timer *t = &r->ev->timer;
	struct t2_sb *a = metric_begin(r, t->category, t->name,
				       r->ev->kind == TRACE2_EVENT_TH_TIMER);

	put_int(a, "trace2.intervals", (int64_t)t->intervals);
	put_seconds(a, "trace2.t_total", t->total_ns);
	put_seconds(a, "trace2.t_min", t->min_ns);
	put_seconds(a, "trace2.t_max", t->max_ns);
	ev_end(a);
}

/* counter, th_counter */
static void on_counter(const struct orec *r)
{
	const struct trace2_ev_counter *c = &r->ev->counter;
	struct t2_sb *a = metric_begin(r, c->category, c->name,
				       r->ev->kind == TRACE2_EVENT_TH_COUNTER);

	put_int(a, "trace2.count", (int64_t)c->value);
	ev_end(a);
}

/* The record to its kind's function. */
static void dispatch_kind(const struct orec *r)
{
	struct oproc *op = r->op;
	const struct trace2_event *ev = r->ev;

	switch (ev->kind) {
	case TRACE2_EVENT_VERSION:
		on_version(r);
		break;
	case TRACE2_EVENT_START:
		on_start(r);
		break;
	case TRACE2_EVENT_EXIT:
	case TRACE2_EVENT_ATEXIT:
		set_exit(op, ev->exit.code);
		break;
	case TRACE2_EVENT_SIGNAL:
		on_signal(r);
		break;
	case TRACE2_EVENT_ERROR:
		on_error(r);
		break;
	case TRACE2_EVENT_CMD_PATH:
		kv_str(&op->sp->attrs, "process.executable.path", ev->cmd_path.path);
		break;
	case TRACE2_EVENT_CMD_ANCESTRY:
		kv_argv(&op->sp->attrs, "trace2.cmd_ancestry", ev->cmd_ancestry.names, 0);
		break;
	case TRACE2_EVENT_CMD_NAME:
		on_cmd_name(r);
		break;
	case TRACE2_EVENT_CMD_MODE:
		kv_str(&op->sp->attrs, "trace2.cmd_mode", ev->cmd_mode.name);
		break;
	case TRACE2_EVENT_ALIAS:
		on_alias(r);
		break;
	case TRACE2_EVENT_CHILD_START:
		on_child_start(r);
		break;
	case TRACE2_EVENT_CHILD_EXIT:
		on_child_exit(r);
		break;
	case TRACE2_EVENT_CHILD_READY:
		on_child_ready(r);
		break;
	case TRACE2_EVENT_EXEC:
		on_exec(r);
		break;
	case TRACE2_EVENT_EXEC_RESULT:
		on_exec_result(r);
		break;
	case TRACE2_EVENT_DEF_PARAM:
		on_def_param(r);
		break;
	case TRACE2_EVENT_DEF_REPO:
		on_def_repo(r);
		break;
	case TRACE2_EVENT_REGION_ENTER:
		region_enter(r->o, op, r->ot, r->rec);
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		on_region_leave(r);
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		on_data_record(r);
		break;
	case TRACE2_EVENT_PRINTF:
		on_printf(r);
		break;
	case TRACE2_EVENT_TIMER:
	case TRACE2_EVENT_TH_TIMER:
		on_timer(r);
		break;
	case TRACE2_EVENT_COUNTER:
	case TRACE2_EVENT_TH_COUNTER:
		on_counter(r);
		break;
	case TRACE2_EVENT_TOO_MANY_FILES:
		t2_sb_puts(ev_open(op->sp, r->ns, "too_many_files"), "}");
		break;
	default:
		break; /* thread_start, thread_exit: no span of their own */
	}
}

static void on_record(void *ctx, struct t2_record *rec)
{
	struct orec r;

	if (!t2_record_usable(rec, 0))
		return;
	r.o = ctx;
	r.rec = rec;
	r.ev = &rec->ev;
	r.ns = ns_of(rec);
	r.op = get_proc(r.o, rec);
	if (r.op->in_window && r.ev->kind != TRACE2_EVENT_VERSION &&
	    r.ev->kind != TRACE2_EVENT_START && !is_traceparent_record(r.ev)) {
		r.op->in_window = 0; /* the root recorded no traceparent */
		settle(r.o, r.op->tree, NULL);
	}
	r.ot = get_thread(r.op, rec->thread);
	if (r.ns < r.op->sp->start_ns)
		r.op->sp->start_ns = r.ns;
	if (r.ns > r.op->sp->end_ns)
		r.op->sp->end_ns = r.ns;
	dispatch_kind(&r);
	if (r.ev->kind == TRACE2_EVENT_ATEXIT)
		proc_end(r.o, r.op);
}

/* ------------------------------------------------------------------ */
/* Setup and the end                                                   */
/* ------------------------------------------------------------------ */

static void free_proc(struct oproc *op)
{
	struct cdone *d;

	while ((d = op->done)) {
		op->done = d->next;
		free(d);
	}
	t2_sb_free(&op->batch);
	t2_sb_free(&op->psp);
	free(op->service);
	free(op->version);
	free(op->name);
	op->p->user = NULL;
	free(op);
}

struct otlp *otlp_new(FILE *out)
{
	struct otlp *o = t2_calloc(1, sizeof(*o));

	o->tail = &o->procs;
	o->qtail = &o->queue;
	o->out = out;
	return o;
}

void otlp_record(void *ctx, struct t2_record *rec)
{
	on_record(ctx, rec);
}

/* The end of the input: processes that did not exit end, children whose
 * parent is not in the input take the computed parent span, trees with
 * no traceparent their root SID's trace id; everything is written. */
int otlp_finish(struct otlp *o)
{
	struct oproc *op;
	struct span *s;
	size_t i;

	for (op = o->procs; op; op = op->next)
		if (!op->ended)
			proc_end(o, op);
	for (op = o->procs; op; op = op->next)
		if (!op->parent_known) {
			resolve_parent(o, op, 1);
			op->parent_known = 1;
			flush_proc(o, op);
		}
	for (op = o->procs; op; op = op->next)
		settle(o, op->tree, NULL);
	while ((op = o->procs)) {
		o->procs = op->next;
		free_proc(op);
	}
	for (i = 0; i < o->trees.size; i++) {
		struct otree *t = o->trees.slot[i].val.p, *next;

		for (; t; t = next) {
			next = t->hnext;
			free(t->root);
			free(t);
		}
	}
	while ((s = o->spare)) {
		o->spare = s->up;
		span_free(s);
	}
	t2_map_free(&o->trees);
	t2_map_free(&o->by_sid);
	t2_map_free(&o->waiting);
	t2_sb_free(&o->line);
	free(o);
	return 0;
}

int otlp_convert(char **paths, int npaths, FILE *out)
{
	struct otlp *o = otlp_new(out);
	struct t2_reader r;
	int i, ret = 0;

	t2_reader_init(&r, on_record, t2_report_bad_line, o);
	for (i = 0; i < npaths; i++)
		if (t2_reader_read_path(&r, paths[i]))
			ret = 1;
	otlp_finish(o);
	t2_reader_free(&r);
	if (fflush(out) || ferror(out))
		ret = 1;
	return ret;
}
