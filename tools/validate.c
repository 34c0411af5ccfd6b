/*
 * trace2 validate FILE... | --listen ADDRESS: every line checked
 * against the event format (docs/event-schema.md); problems printed as
 * "file:line: error|warning: reason".
 */
#include "validate.h"
#include "alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listen.h"
#include "output.h"
#include "reader.h"
#include "text.h"
#include "usage.h"

enum ktype { T_STR, T_INT, T_SECS, T_BOOL, T_ARGV, T_ANY, T_STR_OR_NUM };
/* REQ: collectors need it (error when missing); FMT: every writer writes
 * it but no collector needs it (warning); LEGAL: Trace2 omits it in a
 * legal case that a collector needing it loses (warning); OPT. */
enum need { OPT, REQ, FMT, LEGAL };

struct key { const char *name; enum ktype type; enum need need; };

#define MAX_KEYS 8
struct kind_schema { struct key keys[MAX_KEYS]; };

/* Each kind's keys from its row in tr2_kinds.def, NULL-terminated. */
#define TR2_KEY(key, type, need, field, dflt) { key, T_##type, need },
#define TR2_CHECK(key, type, need) { key, T_##type, need },
#define TR2_READ(key, type, field, dflt)
#define TR2_KIND(kind, name, payload, strings, argv, rec, keys) \
	[TRACE2_EVENT_##kind] = { { keys { NULL, 0, 0 } } },
static const struct kind_schema schema[TRACE2_EVENT_KIND_MAX] = {
#include "tr2_kinds.def"
};
#undef TR2_KIND
#undef TR2_READ
#undef TR2_CHECK
#undef TR2_KEY

/* What the validator keeps per process (t2_process.user). */
struct proc_state {
	int evt;              /* 3, 4, or 0 before version / unknown */
	unsigned seen_version : 1, started_child : 1;
};

struct validator {
	unsigned long errors, warnings;
	unsigned long cut;    /* of the warnings: last lines without newline */
	int quiet;
};

/* How bad a problem is: a note is what the log says of itself, no
 * problem (it counts for no exit status). */
enum severity { NOTE = -1, WARNING, ERROR };

static void report(struct validator *v, const char *src, unsigned long lineno, int error,
		   const char *fmt, ...) TRACE2_PRINTF(5, 6);

static void report(struct validator *v, const char *src, unsigned long lineno, int error,
		   const char *fmt, ...)
{
	va_list ap;

	if (error == ERROR)
		v->errors++;
	else if (error == WARNING)
		v->warnings++;
	text_put(stdout, src);
	if (lineno) /* else a recording's block, whose reason says where */
		printf(":%lu", lineno);
	printf(": %s: ", error == ERROR ? "error" : error == WARNING ? "warning" : "note");
	va_start(ap, fmt);
	text_vprintf(stdout, fmt, ap); /* it quotes the log's strings */
	va_end(ap);
	putchar('\n');
}

static void bad_line(void *ctx, const char *src, unsigned long lineno, const char *reason,
		     int ignored, int no_newline)
{
	struct validator *v = ctx;

	if (ignored)
		report(v, src, lineno, 0, "%s; collectors skip it", reason);
	else if (no_newline) {
		report(v, src, lineno, 0, lineno ? "%s, last line without newline (cut off?); "
		       "collectors discard it" : "%s", reason);
		v->cut++;
	} else
		report(v, src, lineno, 1, "%s", reason);
}

static const char *type_name(enum ktype t)
{
	switch (t) {
	case T_STR: return "a string";
	case T_INT: return "an integer";
	case T_SECS: return "a number of seconds";
	case T_BOOL: return "true or false";
	case T_ARGV: return "an array of strings";
	case T_STR_OR_NUM: return "a string or a number";
	default: return "a JSON value";
	}
}

static const char *jtype_name(enum jtype t)
{
	static const char *const names[] = { "null", "false", "true", "a number",
					     "a string", "an array", "an object" };

	return names[t];
}

/* One key's type; 0 when fine or already reported as a warning. */
static void check_type(struct validator *v, const struct t2_record *rec, const char *key,
		       const struct jval *j, enum ktype t)
{
	int64_t i;
	uint64_t us;
	int ok, numeric;

	if (j->type == J_NULL && (t == T_STR || t == T_STR_OR_NUM)) {
		report(v, rec->src, rec->lineno, 0,
		       "\"%s\" is null, not a string (Go collectors read it as \"\")", key);
		return;
	}
	switch (t) {
	case T_STR: ok = j->type == J_STRING; break;
	case T_INT: ok = !jval_int(j, &i); break;
	case T_SECS: ok = !jval_micros(j, &us); break;
	case T_BOOL: ok = j->type == J_TRUE || j->type == J_FALSE; break;
	case T_ARGV: ok = j->type == J_ARRAY && j->strs; break;
	case T_STR_OR_NUM: ok = j->type == J_STRING || j->type == J_NUMBER; break;
	default: ok = 1; break;
	}
	/* a number that is not the right one (a fraction for an integer):
	 * its type is right, its value not (numbers out of range are the
	 * reader's, reported as such) */
	numeric = j->type == J_NUMBER && (t == T_INT || t == T_SECS);
	if (!ok)
		report(v, rec->src, rec->lineno, 1, "\"%s\" must be %s%s%s: %.*s%s", key,
		       type_name(t), numeric ? "" : ", not ", numeric ? "" : jtype_name(j->type),
		       (int)(j->raw_len > 40 ? 40 : j->raw_len), j->raw,
		       j->raw_len > 40 ? "..." : "");
}

static int is_sid_part(const char *s, size_t n)
{
	/* YYYYMMDDTHHMMSS.ffffffZ-H<8 hex>-P<8 hex> */
	static const char form[] = "dddddddd" "Tdddddd.ddddddZ-Hxxxxxxxx-Pxxxxxxxx";
	size_t i;

	if (n != sizeof(form) - 1)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i], f = form[i];

		if (f == 'd' ? !(c >= '0' && c <= '9')
		    : f == 'x' ? !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
		    : c != f)
			return 0;
	}
	return 1;
}

static void check_common(struct validator *v, const struct t2_record *rec)
{
	const struct jobj *o = rec->obj;
	const struct jval *j;
	size_t i;
	const char *src = rec->src;
	unsigned long ln = rec->lineno;

	if (rec->no_newline) {
		report(v, src, ln, 0, "last line without newline (cut off?); collectors discard it");
		v->cut++;
	}
	if (o->duplicate)
		report(v, src, ln, 0, "key \"%s\" appears twice; readers keep the last", o->dup_key);
	j = jobj_get(o, "time");
	if (!j)
		report(v, src, ln, 0, "no \"time\" (brief mode); collectors that need a time "
		       "on every record (trace2receiver) lose it");
	else if (j->type != J_STRING)
		report(v, src, ln, 1, "\"time\" must be a string, not %s", jtype_name(j->type));
	else if (!rec->has_time)
		report(v, src, ln, 1, "\"time\" is not a UTC time YYYY-MM-DDTHH:MM:SS.ffffffZ: \"%s\"",
		       j->str);
	j = jobj_get(o, "file");
	if (j && j->type != J_STRING)
		report(v, src, ln, 1, "\"file\" must be a string, not %s", jtype_name(j->type));
	j = jobj_get(o, "line");
	if (j)
		check_type(v, rec, "line", j, T_INT);
	if (!!jobj_get(o, "file") != !!jobj_get(o, "line"))
		report(v, src, ln, 0, "\"file\" and \"line\" come together");
	j = jobj_get(o, "repo");
	if (j && rec->ev.kind != TRACE2_EVENT_DEF_REPO)
		check_type(v, rec, "repo", j, T_INT);
	for (i = 0; i < o->n; i++) {
		const struct jval *m = &o->m[i].v;

		if ((m->type == J_STRING && m->bad_utf8) ||
		    (m->type == J_ARRAY && m->strs && m->strs_bad_utf8)) {
			report(v, src, ln, 0, "\"%s\" has bytes that are not UTF-8 (Git writes "
			       "them raw; JSON readers reject the line or read U+FFFD)", o->m[i].key);
			break;
		}
	}
}

static void check_kind(struct validator *v, const struct t2_record *rec, struct proc_state *ps)
{
	const struct jobj *o = rec->obj;
	const struct kind_schema *ks;
	const struct jval *j;
	int k;

	if (rec->ev.kind == TRACE2_EVENT_CHILD_START || rec->ev.kind == TRACE2_EVENT_EXEC)
		ps->started_child = 1;
	/* a recording's record has no keys: its reader checked its fields */
	if (rec->binary || (unsigned)rec->ev.kind >= TRACE2_EVENT_KIND_MAX)
		return;
	ks = &schema[rec->ev.kind];
	for (k = 0; k < MAX_KEYS && ks->keys[k].name; k++) {
		const struct key *key = &ks->keys[k];

		j = jobj_get(o, key->name);
		if (j) {
			check_type(v, rec, key->name, j, key->type);
			continue;
		}
		switch (key->need) {
		case REQ:
			report(v, rec->src, rec->lineno, 1, "%s without \"%s\"", rec->event, key->name);
			break;
		case FMT:
			report(v, rec->src, rec->lineno, 0, "%s without \"%s\" (every writer "
			       "writes it)", rec->event, key->name);
			break;
		case LEGAL:
			if (rec->ev.kind == TRACE2_EVENT_ERROR && !strcmp(key->name, "fmt"))
				break; /* reported with msg */
			report(v, rec->src, rec->lineno, 0, "%s without \"%s\"%s", rec->event,
			       key->name,
			       rec->ev.kind == TRACE2_EVENT_DEF_PARAM ?
			       " (a valueless config entry); collectors that need it lose it" :
			       rec->ev.kind == TRACE2_EVENT_CMD_NAME ?
			       " (empty hierarchy); collectors that need it lose it" :
			       " (empty format); collectors that need it lose it");
			break;
		default:
			break;
		}
	}
	switch (rec->ev.kind) {
	case TRACE2_EVENT_VERSION:
		j = jobj_get(o, "evt");
		if (j && j->type == J_STRING) {
			if (!strcmp(j->str, "3") || !strcmp(j->str, "4"))
				ps->evt = j->str[0] - '0';
			else
				report(v, rec->src, rec->lineno, 0,
				       "evt \"%s\" is not a known format version (3, 4)", j->str);
		}
		break;
	case TRACE2_EVENT_START:
		j = jobj_get(o, "argv");
		if (j && j->type == J_ARRAY && !j->count)
			report(v, rec->src, rec->lineno, 1, "start with an empty \"argv\"");
		break;
	case TRACE2_EVENT_ERROR:
		if (!!jobj_get(o, "msg") != !!jobj_get(o, "fmt"))
			report(v, rec->src, rec->lineno, 1, "error has one of \"msg\" and \"fmt\" "
			       "without the other");
		break;
	case TRACE2_EVENT_CHILD_START:
		j = jobj_get(o, "child_class");
		if (j && j->type == J_STRING && !strcmp(j->str, "hook") && !jobj_get(o, "hook_name"))
			report(v, rec->src, rec->lineno, 1, "child_start of class hook without "
			       "\"hook_name\"");
		break;
	case TRACE2_EVENT_PRINTF:
		if (ps->evt == 3)
			report(v, rec->src, rec->lineno, 0, "printf in an evt \"3\" log "
			       "(evt 3 writers do not write it)");
		break;
	default:
		break;
	}
}

static void check_nesting(struct validator *v, const struct t2_record *rec)
{
	const struct trace2_event *ev = &rec->ev;
	size_t level = rec->level_before, n = ev->nesting;
	int64_t raw;
	const struct jval *j = rec->binary ? NULL : jobj_get(rec->obj, "nesting");

	if (!rec->binary && (!j || jval_int(j, &raw) || raw < 0))
		return; /* reported as a type problem */
	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
		if (n != level)
			report(v, rec->src, rec->lineno, 0, "region_enter with nesting %zu on a "
			       "thread at level %zu; collectors ignore it", n, level);
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		if (level <= 1)
			report(v, rec->src, rec->lineno, 0, "region_leave without a matching "
			       "region_enter (no region open on thread %s)", rec->thread->pub.name);
		else if (n != level - 1)
			report(v, rec->src, rec->lineno, 0, "region_leave with nesting %zu, but "
			       "the open region has %zu; collectors ignore it", n, level - 1);
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		if (n != level)
			report(v, rec->src, rec->lineno, 0, "%s with nesting %zu on a thread at "
			       "level %zu", rec->event, n, level);
		break;
	default:
		break;
	}
}

/* The last '/' of s[0..n), or NULL (memrchr() is GNU's). */
static const char *last_slash(const char *s, size_t n)
{
	while (n--)
		if (s[n] == '/')
			return s + n;
	return NULL;
}

static void check_sid(struct validator *v, struct t2_reader *r, const struct t2_record *rec)
{
	const char *sid = rec->proc->pub.sid, *part = sid, *slash;
	size_t len = rec->proc->pub.sid_len;

	for (;;) {
		slash = memchr(part, '/', len - (size_t)(part - sid));
		if (!is_sid_part(part, slash ? (size_t)(slash - part) : len - (size_t)(part - sid))) {
			report(v, rec->src, rec->lineno, 0, "SID component \"%.*s\" is not of the "
			       "form YYYYMMDDTHHMMSS.ffffffZ-H<8 hex>-P<8 hex>",
			       (int)(slash ? slash - part : (long)(len - (size_t)(part - sid))), part);
			break;
		}
		if (!slash)
			break;
		part = slash + 1;
	}
	slash = last_slash(sid, len);
	if (slash) {
		/* a traced parent in the input must have started a child first
		 * (unless it started before the input, where its child_start
		 * may have been) */
		size_t plen = (size_t)(slash - sid);
		struct t2_process *p = t2_reader_find(r, sid, plen);
		struct proc_state *pp = p ? p->user : NULL;

		if (pp && !pp->started_child && !p->mid)
			report(v, rec->src, rec->lineno, 0, "child process "
			       "before its parent %.*s started a child", (int)plen, sid);
	}
}

struct vctx {
	struct validator v;
	struct t2_reader *r;
};

/* Whether an event line has the keys that make it a record of a thread
 * (else reported). */
static int keys_usable(struct validator *v, const struct t2_record *rec)
{
	const struct jval *j = jobj_get(rec->obj, "event");

	if (!j || j->type != J_STRING) {
		report(v, rec->src, rec->lineno, 1, j ? "\"event\" must be a string"
						   : "no \"event\" key");
		return 0;
	}
	j = jobj_get(rec->obj, "sid");
	if (!j || j->type != J_STRING || !j->str_len) {
		report(v, rec->src, rec->lineno, 1, !j ? "no \"sid\" key" :
		       j->type != J_STRING ? "\"sid\" must be a string" : "\"sid\" is empty");
		return 0;
	}
	j = jobj_get(rec->obj, "thread");
	if (!j || j->type != J_STRING || !j->str_len) {
		report(v, rec->src, rec->lineno, 1, !j ? "no \"thread\" key" :
		       j->type != J_STRING ? "\"thread\" must be a string" : "\"thread\" is empty");
		return 0;
	}
	return 1;
}

static void record(void *ctx, struct t2_record *rec)
{
	struct vctx *c = ctx;
	struct validator *v = &c->v;
	struct proc_state *ps;
	struct t2_thread *t = rec->thread;

	if (!rec->binary && !keys_usable(v, rec))
		return;
	if (rec->first_repeat)
		report(v, rec->src, rec->lineno, WARNING, "a record read before, again (the "
		       "same log given twice?); this input's records that repeat others are "
		       "not checked");
	if (rec->repeat)
		return;
	if (rec->mid_start)
		report(v, rec->src, rec->lineno, NOTE, "the input starts mid-process (a rotated "
		       "file; or in buffered mode a thread's records written before main's "
		       "version): what its processes did before is not here");
	if (!rec->proc->user)
		rec->proc->user = t2_calloc(1, sizeof(struct proc_state));
	ps = rec->proc->user;
	if (!rec->binary)
		check_common(v, rec);
	if (rec->new_process) {
		check_sid(v, c->r, rec);
		if (rec->ev.kind != TRACE2_EVENT_VERSION && !rec->proc->mid)
			report(v, rec->src, rec->lineno, 0, "first record of SID %s is %s, not "
			       "version (a cut log, or another thread's buffer written first "
			       "in buffered mode)", rec->proc->pub.sid,
			       *rec->event ? rec->event : "\"\"");
	} else if (rec->ev.kind == TRACE2_EVENT_VERSION && ps->seen_version)
		report(v, rec->src, rec->lineno, 0, "a second version record for SID %s",
		       rec->proc->pub.sid);
	if (rec->ev.kind == TRACE2_EVENT_VERSION) {
		ps->seen_version = 1;
		if (strcmp(t->pub.name, "main"))
			report(v, rec->src, rec->lineno, 0, "version on thread \"%s\": the main "
			       "thread is named main (collectors ignore others)", t->pub.name);
	}
	if (!rec->known) {
		report(v, rec->src, rec->lineno, 0, "unknown event \"%s\"; collectors ignore it",
		       rec->event);
		return;
	}
	if (strcmp(t->pub.name, "main")) {
		if (rec->new_thread && rec->ev.kind != TRACE2_EVENT_THREAD_START && !t->mid)
			report(v, rec->src, rec->lineno, 0, "%s on thread %s before its "
			       "thread_start; collectors ignore it", rec->event, t->pub.name);
		else if (t->exited && rec->ev.kind != TRACE2_EVENT_THREAD_EXIT)
			report(v, rec->src, rec->lineno, 0, "%s on thread %s after its thread_exit",
			       rec->event, t->pub.name);
	} else if (rec->ev.kind == TRACE2_EVENT_THREAD_START ||
		   rec->ev.kind == TRACE2_EVENT_THREAD_EXIT)
		report(v, rec->src, rec->lineno, 0, "%s on the main thread", rec->event);
	check_kind(v, rec, ps);
	check_nesting(v, rec);
}

static int listen_loop(struct vctx *c, const char *address, long count)
{
	struct t2_listen l;

	memset(&l, 0, sizeof(l));
	l.r = c->r;
	l.r->find_repeats = 0; /* each client is a stream of its own */
	l.count = count;
	l.quiet = c->v.quiet;
	return t2_listen_run(&l, address);
}

unsigned long validate_streams(const int *fds, size_t nfds, size_t max_line)
{
	struct vctx c;
	struct t2_reader r;
	struct t2_listen l;

	memset(&c, 0, sizeof(c));
	memset(&l, 0, sizeof(l));
	c.v.quiet = 1;
	t2_reader_init(&r, record, bad_line, &c);
	if (max_line)
		r.max_line = max_line;
	r.find_repeats = 0;
	c.r = &r;
	l.r = &r;
	l.name = "stream";
	l.quiet = 1;
	t2_listen_serve(&l, fds, nfds);
	t2_reader_free(&r);
	return c.v.errors;
}

int cmd_validate(int argc, char **argv)
{
	struct vctx c;
	struct t2_reader r;
	const char *listen_on = NULL, *out = NULL;
	long count = 0;
	int strict = 0, i, ret = 0, o;
	char *end;

	memset(&c, 0, sizeof(c));
	for (i = 1; i < argc; i++) {
		if ((o = t2_output_option("validate", argc, argv, &i, &out))) {
			if (o == 2)
				return 2;
		} else if (!strcmp(argv[i], "--strict"))
			strict = 1;
		else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
			c.v.quiet = 1;
		else if (!strcmp(argv[i], "--listen") && i + 1 < argc)
			listen_on = argv[++i];
		else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			count = strtol(argv[++i], &end, 10);
			if (*end || count <= 0)
				return usage_error("validate", "--count needs a positive number");
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage_show("validate", 0);
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("validate", "unknown option '%s'", argv[i]);
		else
			break;
	}
	if (listen_on && !t2_listen_address(listen_on))
		return usage_error("validate", "--listen takes %s", t2_listen_form);
	if (listen_on && i < argc)
		return usage_error("validate", "--listen takes no FILE");
	if (!listen_on && count)
		return usage_error("validate", "--count goes with --listen");
	if (!listen_on && i == argc)
		return usage_error("validate", "no input (give FILE, DIR or -)");
	if (t2_output_begin("validate", out, argv + i, argc - i))
		return 1;
	t2_reader_init(&r, record, bad_line, &c);
	c.r = &r;
	if (listen_on)
		ret = listen_loop(&c, listen_on, count);
	else
		for (; i < argc; i++)
			if (t2_reader_read_path(&r, argv[i]))
				ret = 1;
	if (!c.v.quiet)
		fprintf(stderr, "trace2 validate: %lu lines, %lu records, %lu errors, %lu warnings\n",
			r.lines, r.records, c.v.errors, c.v.warnings);
	t2_reader_free(&r);
	fflush(stdout);
	if (ret)
		return ret;
	/* a log cut by a full disk or a kill passes --strict */
	return c.v.errors || (strict && c.v.warnings > c.v.cut) ? 1 : 0;
}
