/* The recording reader (see record.h; the format: docs/record-format.md). */
#include "record.h"
#include "alloc.h"
#include "map.h"
#include "reader.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char magic_sig[8] = { 0x89, 'T', '2', 'R', 0x0d, 0x0a, 0x1a, 0x0a };
#define MAGIC_LEN 16
#define HEAD_LEN 16
#define FORMAT_VERSION 2
/* TZ blocks, strings, region call sites and threads kept per process and
 * file (a daylight-saving change adds a TZ block; a program has some
 * thousands of strings and sites): a bound on what a small block can make
 * the reader allocate */
#define TZ_MAX 1024
#define STRINGS_MAX (1u << 20)
#define SITES_MAX (1u << 20)
/* the fewest bytes a SITES entry takes: five varints */
#define SITE_MIN_LEN 5
#define THREADS_MAX (1u << 20)
/* 9999-12-31T23:59:59.999999Z, the last time the event format writes */
#define TIME_MAX 253402300799999999ull
/* t_abs and t_rel, as the event reader takes them (docs/tools.md, "Input") */
#define SPAN_MAX ((uint64_t)T2_SECONDS_MAX * 1000000 + 999999)
/* a UTC offset, in seconds (the real ones are within -12 and +14 hours) */
#define OFFSET_MAX (26 * 3600)
#define HEAD_KIND 0x3f
#define HEAD_T_REL 0x40
#define HEAD_SITE 0x80 /* a site record */

enum block_type { B_PROCESS = 1, B_STRINGS, B_THREAD, B_EVENTS, B_TZ, B_DROPPED, B_END, B_SITES };
static const char *const block_names[] = { "", "PROCESS", "STRINGS", "THREAD", "EVENTS",
					   "TZ", "DROPPED", "END", "SITES" };

/* How a field of a record is read (the rec column of tr2_kinds.def). */
enum rf { RF_END, RF_STR, RF_ISTR, RF_SV, RF_UV, RF_ARGV, RF_JSON };

struct rfield {
	enum rf how;
	size_t off, size; /* in struct trace2_event */
	const char *name;
};

#define FIELDS_MAX 12
#define FIELD(how, f)                                                              \
	{ how, offsetof(struct trace2_event, f), sizeof(((struct trace2_event *)0)->f), #f },
#define TR2_R_STR(f) FIELD(RF_STR, f)
#define TR2_R_ISTR(f) FIELD(RF_ISTR, f)
#define TR2_R_SV(f) FIELD(RF_SV, f)
#define TR2_R_UV(f) FIELD(RF_UV, f)
#define TR2_R_ARGV(f) FIELD(RF_ARGV, f)
#define TR2_R_JSON(m) FIELD(RF_JSON, m)
#define TR2_REC(fields) fields
#define TR2_NO_REC
#define TR2_KIND(kind, name, payload, strings, argv, rec, keys) \
	[TRACE2_EVENT_##kind] = { rec { RF_END, 0, 0, NULL } },
/* Each kind's fields after the record's head, in order. */
static const struct rfield fields[TRACE2_EVENT_KIND_MAX][FIELDS_MAX] = {
#include "tr2_kinds.def"
};
#undef TR2_KIND
#undef TR2_REC
#undef TR2_NO_REC
#undef TR2_R_STR
#undef TR2_R_ISTR
#undef TR2_R_SV
#undef TR2_R_UV
#undef TR2_R_ARGV
#undef TR2_R_JSON
#undef FIELD

/* A string of the input: p[0..n), or absent; kept: p is NUL-terminated
 * and outlives the record (a string table's entry). */
struct slice {
	const char *p;
	size_t n;
	unsigned absent : 1, kept : 1;
};

/* A string or vector field of the record being read, its pointer set
 * once all its bytes are known: slices first to first + count. */
struct pending {
	size_t off;
	size_t first, count;
	unsigned argv : 1, absent : 1;
};

struct rstr {
	char *s;
	size_t n;
};

struct rthread {
	char *name;
	size_t len;
	uint64_t drops; /* records lost before its next EVENTS block */
};

/* A region call site: its strings by their numbers (0: absent). */
struct rsite {
	uint32_t file, category, label;
	int line, repo;
};

struct rtz {
	uint64_t time;
	int32_t offset;
};

/* A process of the file: its tables, by its key. */
struct rproc {
	char *sid;
	size_t sid_len;
	struct rstr *strs;  /* string n is strs[n - 2] */
	size_t nstrs, cap;
	struct rsite *sites; /* site n is sites[n] */
	size_t nsites, capsites;
	struct t2_map threads; /* id to struct rthread */
	struct rtz *tz;     /* in order of time */
	size_t ntz;
	uint64_t last_time, last_t_abs;
	struct rproc *next;
};

/* The times of a block's last record. */
struct delta {
	uint64_t time, t_abs;
};

/* Bytes being read, and why they could not be. */
struct cur {
	const unsigned char *p, *end;
	const char *err;
	int short_; /* the bytes ran out */
};

struct t2_recording {
	struct t2_reader *r;
	struct t2_source *s;
	unsigned char *buf;  /* a block (or the magic) not whole yet */
	size_t len, cap;
	uint64_t offset;     /* of buf[0], or of the next byte, in the input */
	uint64_t skip;       /* bytes of a block over the limit left to skip */
	unsigned have_magic : 1, dead : 1;
	struct t2_map procs; /* key to struct rproc */
	struct rproc *list;
	char why[192];
	/* the record being read */
	struct slice *sl;
	size_t nsl, capsl;
	struct pending pend[FIELDS_MAX + 1];
	size_t npend;
	char *chars;
	size_t capchars;
	const char **ptrs;
	size_t capptrs;
};

int t2_is_recording(const char *data, size_t n)
{
	return !memcmp(data, magic_sig, n < sizeof(magic_sig) ? n : sizeof(magic_sig));
}

struct t2_recording *t2_recording_begin(struct t2_reader *r, struct t2_source *s)
{
	struct t2_recording *rc = t2_calloc(1, sizeof(*rc));

	rc->r = r;
	rc->s = s;
	return rc;
}

/* ---------------------------------------------------------------- */
/* Reports.                                                            */

static void report(struct t2_recording *rc, uint64_t off, int cut, const char *fmt, ...)
	TRACE2_PRINTF(4, 5);

static void report(struct t2_recording *rc, uint64_t off, int cut, const char *fmt, ...)
{
	char reason[320];
	int n = snprintf(reason, sizeof(reason), "offset %llu: ", (unsigned long long)off);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason + n, sizeof(reason) - (size_t)n, fmt, ap);
	va_end(ap);
	rc->r->bad++;
	if (rc->r->on_bad_line)
		rc->r->on_bad_line(rc->r->ctx, rc->s->name, 0, reason, 0, cut);
}

static void report_cut(struct t2_recording *rc, uint64_t off)
{
	report(rc, off, 1, "the recording ends inside a block (cut: a crash, or a copy taken "
	       "while it was written); its whole records read");
}

/* ---------------------------------------------------------------- */
/* Fields.                                                             */

static int fail(struct cur *c, const char *why)
{
	c->err = why;
	return -1;
}

static int need(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) >= n)
		return 0;
	c->short_ = 1;
	return fail(c, "a field runs past the end of its block");
}

static uint64_t le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static int get_fixed(struct cur *c, int n, uint64_t *v)
{
	if (need(c, (uint64_t)n))
		return -1;
	*v = le(c->p, n);
	c->p += n;
	return 0;
}

static int get_uv(struct cur *c, uint64_t *v)
{
	uint64_t x = 0;
	unsigned i, b;

	for (i = 0; i < 10; i++) {
		if (need(c, 1))
			return -1;
		b = *c->p++;
		if (i == 9 && (b & 0x80))
			return fail(c, "a varint longer than 10 bytes");
		if (i == 9 && b > 1)
			return fail(c, "a varint over 64 bits");
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*v = x;
	return 0;
}

static int get_sv(struct cur *c, int64_t *v)
{
	uint64_t u;

	if (get_uv(c, &u))
		return -1;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}

/* A uv that is at most max. */
static int get_uv_max(struct cur *c, uint64_t max, const char *why, uint64_t *v)
{
	if (get_uv(c, v))
		return -1;
	return *v > max ? fail(c, why) : 0;
}

static int get_bytes(struct cur *c, struct slice *s)
{
	uint64_t n;

	if (get_uv(c, &n) || need(c, n))
		return -1;
	s->p = (const char *)c->p;
	s->n = (size_t)n;
	s->absent = s->kept = 0;
	c->p += n;
	return 0;
}

/* A str: absent, or length + 1 and the bytes. */
static int get_str(struct cur *c, struct slice *s)
{
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (get_uv(c, &v))
		return -1;
	if (!v) {
		s->absent = 1;
		return 0;
	}
	if (need(c, v - 1))
		return -1;
	s->p = (const char *)c->p;
	s->n = (size_t)(v - 1);
	c->p += v - 1;
	return 0;
}

/* An istr: absent, in place, or a number of the process's table. */
static int get_istr(struct t2_recording *rc, struct cur *c, const struct rproc *p,
		    struct slice *s)
{
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (get_uv(c, &v))
		return -1;
	if (v == 1)
		return get_bytes(c, s);
	s->absent = !v;
	if (v < 2)
		return 0;
	if (v - 2 >= p->nstrs) {
		snprintf(rc->why, sizeof(rc->why), "string number %llu is not defined",
			 (unsigned long long)v);
		return fail(c, rc->why);
	}
	s->p = p->strs[v - 2].s;
	s->n = p->strs[v - 2].n;
	s->kept = 1;
	return 0;
}

static struct slice *new_slice(struct t2_recording *rc)
{
	if (rc->nsl == rc->capsl) {
		rc->capsl = rc->capsl ? 2 * rc->capsl : 16;
		rc->sl = t2_realloc(rc->sl, rc->capsl * sizeof(*rc->sl));
	}
	return &rc->sl[rc->nsl++];
}

static struct pending *pend(struct t2_recording *rc, size_t off, int argv)
{
	struct pending *pd = &rc->pend[rc->npend++];

	memset(pd, 0, sizeof(*pd));
	pd->off = off;
	pd->argv = (unsigned)argv;
	pd->first = rc->nsl;
	return pd;
}

static void pend_string(struct t2_recording *rc, size_t off, const struct slice *s)
{
	struct pending *pd = pend(rc, off, 0);

	pd->count = 1;
	pd->absent = s->absent;
	*new_slice(rc) = *s;
}

/* An argv: absent, or count + 1 and each string as bytes. */
static int get_argv(struct t2_recording *rc, struct cur *c, size_t off)
{
	struct pending *pd = pend(rc, off, 1);
	uint64_t v, i;

	if (get_uv(c, &v))
		return -1;
	pd->absent = !v;
	if (v && v - 1 > (uint64_t)(c->end - c->p)) /* each string takes a byte */
		return fail(c, "an argv of more strings than its block has bytes");
	for (i = 0; v && i < v - 1; i++, pd->count++)
		if (get_bytes(c, new_slice(rc)))
			return -1;
	return 0;
}

static void put_ptr(struct trace2_event *ev, size_t off, const void *p)
{
	memcpy((char *)ev + off, &p, sizeof(p));
}

/* n into an integer field of size bytes (an int, a long, 64 bits) */
static void put_num(struct trace2_event *ev, size_t off, size_t size, int64_t n)
{
	int i = (int)n;
	long l = (long)n;

	if (size == sizeof(i))
		memcpy((char *)ev + off, &i, sizeof(i));
	else if (size == sizeof(l))
		memcpy((char *)ev + off, &l, sizeof(l));
	else
		memcpy((char *)ev + off, &n, sizeof(n));
}

/* A number in the range of its field (its key's, and its C type's). */
static int put_number(struct t2_recording *rc, struct cur *c, struct trace2_event *ev,
		      const struct rfield *f, int64_t v, int is_signed)
{
	int64_t min = is_signed ? INT64_MIN : 0, max = INT64_MAX;

	t2_field_range(ev->kind, f->off, &min, &max);
	if (f->size == sizeof(int) && min < INT_MIN)
		min = INT_MIN;
	if (f->size == sizeof(int) && max > INT_MAX)
		max = INT_MAX;
	if (f->size == sizeof(long) && min < LONG_MIN)
		min = LONG_MIN;
	if (f->size == sizeof(long) && max > LONG_MAX)
		max = LONG_MAX;
	if (v < min || v > max) {
		snprintf(rc->why, sizeof(rc->why), "%s %lld is out of range (%lld to %lld)",
			 f->name, (long long)v, (long long)min, (long long)max);
		return fail(c, rc->why);
	}
	put_num(ev, f->off, f->size, v);
	return 0;
}

/* data_json's text, and its pretty and open flags. */
static int get_json(struct t2_recording *rc, struct cur *c, struct trace2_ev_data *d,
		    size_t off)
{
	struct slice s;
	uint64_t pretty, open;

	if (get_str(c, &s) || get_fixed(c, 1, &pretty) || get_fixed(c, 1, &open))
		return -1;
	if (pretty > 1 || (open && open != '{' && open != '['))
		return fail(c, "data_json's pretty or open flag is not 0, 1, '{' or '['");
	pend_string(rc, off + offsetof(struct trace2_ev_data, json), &s);
	d->json_len = s.n;
	d->json_pretty = (int)pretty;
	d->json_open = (int)open;
	return 0;
}

static int get_field(struct t2_recording *rc, struct cur *c, const struct rproc *p,
		     struct trace2_event *ev, const struct rfield *f)
{
	struct slice s;
	uint64_t u;
	int64_t v;

	switch (f->how) {
	case RF_STR:
	case RF_ISTR:
		if (f->how == RF_STR ? get_str(c, &s) : get_istr(rc, c, p, &s))
			return -1;
		pend_string(rc, f->off, &s);
		return 0;
	case RF_SV:
		return get_sv(c, &v) || put_number(rc, c, ev, f, v, 1);
	case RF_UV:
		if (get_uv(c, &u))
			return -1;
		if (u > INT64_MAX)
			return fail(c, "an unsigned field over 2^63 - 1");
		return put_number(rc, c, ev, f, (int64_t)u, 0);
	case RF_ARGV:
		return get_argv(rc, c, f->off);
	case RF_JSON:
		return get_json(rc, c, (struct trace2_ev_data *)((char *)ev + f->off), f->off);
	default:
		return 0;
	}
}

/* Room for n more bytes in the record's strings (and their NULs), for n
 * more vector entries: made before any pointer into them is taken. */
static void make_room(struct t2_recording *rc, size_t nchars, size_t nptrs)
{
	if (nchars > rc->capchars) {
		free(rc->chars);
		rc->chars = t2_realloc(NULL, nchars);
		rc->capchars = nchars;
	}
	if (nptrs > rc->capptrs) {
		free(rc->ptrs);
		rc->ptrs = t2_realloc(NULL, nptrs * sizeof(*rc->ptrs));
		rc->capptrs = nptrs;
	}
}

static const char *string_of(struct t2_recording *rc, const struct slice *s, size_t *used)
{
	char *p;

	if (s->kept)
		return s->p;
	p = rc->chars + *used;
	memcpy(p, s->p, s->n);
	p[s->n] = '\0';
	*used += s->n + 1;
	return p;
}

/* The record's strings, NUL-terminated, and vectors into its fields. */
static void set_pointers(struct t2_recording *rc, struct trace2_event *ev)
{
	size_t nchars = 0, nptrs = 0, used = 0, i, k;

	for (i = 0; i < rc->nsl; i++)
		nchars += rc->sl[i].n + 1;
	for (i = 0; i < rc->npend; i++)
		nptrs += rc->pend[i].argv ? rc->pend[i].count + 1 : 0;
	make_room(rc, nchars, nptrs);
	for (i = nptrs = 0; i < rc->npend; i++) {
		const struct pending *pd = &rc->pend[i];
		const char **vec;

		if (pd->absent)
			put_ptr(ev, pd->off, NULL);
		else if (!pd->argv)
			put_ptr(ev, pd->off, string_of(rc, &rc->sl[pd->first], &used));
		else {
			vec = rc->ptrs + nptrs;
			for (k = 0; k < pd->count; k++)
				vec[k] = string_of(rc, &rc->sl[pd->first + k], &used);
			vec[k] = NULL;
			nptrs += k + 1;
			put_ptr(ev, pd->off, vec);
		}
	}
}

/* ---------------------------------------------------------------- */
/* Records.                                                            */

/* time and t_abs moved by their deltas, within their ranges; t_abs by
 * dtime alone without dt_abs (a site record). */
static int get_times(struct cur *c, struct delta *d, int with_dt_abs)
{
	int64_t dtime, dt_abs = 0, t_abs;

	if (get_sv(c, &dtime) || (with_dt_abs && get_sv(c, &dt_abs)))
		return -1;
	if (dtime < 0 ? (uint64_t)-(dtime + 1) + 1 > d->time
		      : (uint64_t)dtime > TIME_MAX - d->time)
		return fail(c, "a time out of range");
	d->time += (uint64_t)dtime;
	/* t_abs <= SPAN_MAX and |dtime| <= TIME_MAX: no overflow before dt_abs */
	if (__builtin_add_overflow((int64_t)d->t_abs + dtime, dt_abs, &t_abs) || t_abs < 0 ||
	    (uint64_t)t_abs > SPAN_MAX)
		return fail(c, "a t_abs out of range");
	d->t_abs = (uint64_t)t_abs;
	return 0;
}

/* The times, nesting and t_rel that start every record. */
static int get_record_start(struct cur *c, struct delta *d, uint64_t head,
			    struct trace2_event *ev, uint64_t *nesting)
{
	uint64_t t_rel = 0;

	if (get_times(c, d, !(head & HEAD_SITE)) ||
	    get_uv_max(c, T2_NESTING_MAX, "a nesting out of range", nesting) ||
	    ((head & HEAD_T_REL) && get_uv_max(c, SPAN_MAX, "a t_rel out of range", &t_rel)))
		return -1;
	ev->time_us = d->time;
	ev->t_abs_us = d->t_abs;
	ev->t_rel_us = t_rel;
	return 0;
}

/* String n of p's table (n >= 2), or NULL for 0: a number read before and
 * checked then. */
static const char *string_at(const struct rproc *p, uint32_t n)
{
	return n ? p->strs[n - 2].s : NULL;
}

/* A site record's fields after its head: the region's from its site. */
static int read_site_record(struct t2_recording *rc, struct cur *c, const struct rproc *p,
			    struct delta *d, uint64_t head, struct trace2_event *ev,
			    uint64_t *nesting)
{
	const struct rsite *site;
	uint64_t n;

	if (ev->kind != TRACE2_EVENT_REGION_ENTER && ev->kind != TRACE2_EVENT_REGION_LEAVE) {
		snprintf(rc->why, sizeof(rc->why), "a site record (head bit 7) of kind %u, "
			 "not region_enter or region_leave", (unsigned)ev->kind);
		return fail(c, rc->why);
	}
	if (get_record_start(c, d, head, ev, nesting) || get_uv(c, &n))
		return -1;
	if (n >= p->nsites) {
		snprintf(rc->why, sizeof(rc->why), "site number %llu is not defined",
			 (unsigned long long)n);
		return fail(c, rc->why);
	}
	site = &p->sites[n];
	ev->file = string_at(p, site->file);
	ev->line = site->line;
	ev->region.category = string_at(p, site->category);
	ev->region.label = string_at(p, site->label);
	ev->region.repo_id = site->repo;
	ev->region.msg = NULL;
	return 0;
}

/* A full record's fields after its head. */
static int read_full_record(struct t2_recording *rc, struct cur *c, const struct rproc *p,
			    struct delta *d, uint64_t head, struct trace2_event *ev,
			    uint64_t *nesting)
{
	const struct rfield *f;
	struct slice file;
	uint64_t line;

	if (get_record_start(c, d, head, ev, nesting) || get_istr(rc, c, p, &file) ||
	    get_uv_max(c, INT_MAX, "a line number out of range", &line))
		return -1;
	pend_string(rc, offsetof(struct trace2_event, file), &file);
	for (f = fields[ev->kind]; f->how != RF_END; f++)
		if (get_field(rc, c, p, ev, f))
			return -1;
	set_pointers(rc, ev);
	ev->line = (int)line;
	return 0;
}

/* One record of p's EVENTS block into rec (its strings in rc or p's
 * table until the next); its nesting into *nesting. */
static int read_record(struct t2_recording *rc, struct cur *c, const struct rproc *p,
		       struct delta *d, struct t2_record *rec, uint64_t *nesting)
{
	uint64_t head;
	unsigned kind;

	rc->nsl = rc->npend = 0;
	if (get_fixed(c, 1, &head))
		return -1;
	kind = (unsigned)head & HEAD_KIND;
	if (!kind || kind >= TRACE2_EVENT_KIND_MAX) {
		snprintf(rc->why, sizeof(rc->why), "event kind %u is not of format version 2",
			 kind);
		return fail(c, rc->why);
	}
	rec->ev.kind = (enum trace2_event_kind)kind;
	if (head & HEAD_SITE)
		return read_site_record(rc, c, p, d, head, &rec->ev, nesting);
	return read_full_record(rc, c, p, d, head, &rec->ev, nesting);
}

/* The local time's offset at time: of the last TZ block at or before it
 * (before them all: the first). */
static int offset_at(const struct rproc *p, uint64_t time, int32_t *offset)
{
	size_t i = p->ntz;

	if (!i)
		return 0;
	while (i > 1 && p->tz[i - 1].time > time)
		i--;
	*offset = p->tz[i - 1].offset;
	return 1;
}

/* rec, of thread t of p, to the reader (nesting -1: at the thread's
 * level). */
static void deliver(struct t2_recording *rc, struct rproc *p, const struct rthread *t,
		    struct t2_record *rec, uint64_t off, const void *bytes, size_t len,
		    int64_t nesting)
{
	struct trace2_event *ev = &rec->ev;

	rec->src = rc->s->name;
	rec->lineno = (unsigned long)off;
	rec->binary = 1;
	rec->known = 1;
	rec->event = trace2_event_name(ev->kind);
	rec->has_time = rec->has_t_abs = 1;
	rec->has_utc_offset = (unsigned)offset_at(p, ev->time_us, &rec->utc_offset);
	t2_event_defaults(ev);
	t2_reader_owner(rc->r, rc->s, rec, p->sid, p->sid_len, t->name, t->len);
	p->last_time = ev->time_us;
	p->last_t_abs = ev->t_abs_us;
	t2_reader_take(rc->r, rc->s, rec, bytes, len, nesting);
}

/* The "dropped" data record (as deferred mode writes it) of t's lost
 * records, at the time given, at the level the thread's records so far
 * leave it (the level of where it is written: the records lost are not
 * in the output, nor any region whose enter was among them). */
static void deliver_drops(struct t2_recording *rc, struct rproc *p, struct rthread *t,
			  uint64_t off, uint64_t time, uint64_t t_abs)
{
	struct t2_record rec;
	char digits[24];

	memset(&rec, 0, sizeof(rec));
	snprintf(digits, sizeof(digits), "%llu", (unsigned long long)t->drops);
	t->drops = 0;
	rec.ev.kind = TRACE2_EVENT_DATA;
	rec.ev.time_us = time;
	rec.ev.t_abs_us = t_abs;
	rec.ev.data.category = "trace2";
	rec.ev.data.repo_id = TRACE2_NO_REPO;
	rec.ev.data.key = "dropped";
	rec.ev.data.value = digits;
	deliver(rc, p, t, &rec, off, digits, strlen(digits), -1);
}

/* Drops not told yet of p's threads: at its END, or the input's end. */
static void deliver_all_drops(struct t2_recording *rc, struct rproc *p, uint64_t off)
{
	size_t i;

	for (i = 0; i < p->threads.size && !rc->r->stop; i++) {
		struct rthread *t = p->threads.slot[i].used ? p->threads.slot[i].val.p : NULL;

		if (t && t->drops)
			deliver_drops(rc, p, t, off, p->last_time, p->last_t_abs);
	}
}

/* ---------------------------------------------------------------- */
/* Blocks.                                                             */

static struct rthread *thread_of(struct t2_recording *rc, struct cur *c, struct rproc *p)
{
	union t2_map_val *v;
	uint64_t id;

	if (get_uv(c, &id))
		return NULL;
	if (!(v = t2_map_at(&p->threads, id, 0))) {
		snprintf(rc->why, sizeof(rc->why), "thread %llu has no THREAD block before",
			 (unsigned long long)id);
		fail(c, rc->why);
		return NULL;
	}
	return v->p;
}

/* EVENTS, whose payload is at base of the input: records until the
 * block's end; one that cannot be read ends the block (the records before
 * it are read), quietly if the block is cut there. */
static int read_events(struct t2_recording *rc, struct cur *c, struct rproc *p,
		       uint64_t base, int cut)
{
	const unsigned char *payload = c->p, *start;
	struct rthread *t = thread_of(rc, c, p);
	uint64_t base_time, base_t_abs, nesting, at;
	struct t2_record rec;
	struct delta d;

	if (!t || get_fixed(c, 8, &base_time) || get_fixed(c, 8, &base_t_abs))
		return -1;
	if (base_time > TIME_MAX || base_t_abs > SPAN_MAX)
		return fail(c, "a base time out of range");
	d.time = base_time;
	d.t_abs = base_t_abs;
	while (c->p < c->end && !rc->r->stop) {
		start = c->p;
		at = base + (uint64_t)(start - payload);
		memset(&rec, 0, sizeof(rec));
		if (read_record(rc, c, p, &d, &rec, &nesting)) {
			c->p = start;
			return cut && c->short_ ? 0 : -1;
		}
		if (t->drops)
			deliver_drops(rc, p, t, at, rec.ev.time_us, rec.ev.t_abs_us);
		deliver(rc, p, t, &rec, at, start, (size_t)(c->p - start), (int64_t)nesting);
	}
	return 0;
}

static struct rproc *new_process(struct t2_recording *rc, uint64_t key, const struct slice *sid)
{
	struct rproc *p = t2_calloc(1, sizeof(*p));

	p->sid = t2_memdup(sid->p, sid->n);
	p->sid_len = sid->n;
	p->next = rc->list;
	rc->list = p;
	t2_map_at(&rc->procs, key, 1)->p = p;
	return p;
}

static int read_process(struct t2_recording *rc, struct cur *c, uint64_t key)
{
	struct slice sid, version;
	uint64_t pid, start, unit;

	if (get_str(c, &sid) || get_uv(c, &pid) || get_fixed(c, 8, &start) ||
	    get_str(c, &version) || get_uv(c, &unit))
		return -1;
	if (sid.absent || !sid.n)
		return fail(c, "a PROCESS block without a session id");
	if (unit != 1)
		return fail(c, "a time unit other than 1 microsecond (format version 2)");
	if (t2_map_at(&rc->procs, key, 0))
		return fail(c, "a second PROCESS block of its process in the file");
	new_process(rc, key, &sid);
	return 0;
}

static void free_strings(struct rproc *p, size_t from)
{
	while (p->nstrs > from)
		free(p->strs[--p->nstrs].s);
}

/* A table block's first number and count of entries: the next numbers
 * of a table that has n entries (numbered from base), at most max in
 * all, each entry taking at least min_len bytes of the block. */
static int get_table_span(struct t2_recording *rc, struct cur *c, const char *what, size_t n,
			  size_t base, size_t max, size_t min_len, uint64_t *count)
{
	uint64_t first;

	if (get_uv(c, &first) || get_uv(c, count))
		return -1;
	if (first != n + base) {
		snprintf(rc->why, sizeof(rc->why), "%s numbered from %llu, the next is %zu "
			 "(numbers skipped or defined again)", what, (unsigned long long)first,
			 n + base);
		return fail(c, rc->why);
	}
	if (*count > (uint64_t)(c->end - c->p) / min_len) {
		snprintf(rc->why, sizeof(rc->why), "more %s than the block has bytes", what);
		return fail(c, rc->why);
	}
	if (*count > max - n) {
		snprintf(rc->why, sizeof(rc->why), "more %s in a process's table than the "
			 "reader keeps", what);
		return fail(c, rc->why);
	}
	return 0;
}

/* Room in table a of *cap entries of size bytes for need entries. */
static void *table_room(void *a, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return a;
	*cap = need + *cap / 2;
	return t2_realloc(a, *cap * size);
}

/* STRINGS: the next numbers of the table, all or none. */
static int read_strings(struct t2_recording *rc, struct cur *c, struct rproc *p)
{
	uint64_t count, i;
	size_t had = p->nstrs;
	struct slice s;

	/* each string takes a byte */
	if (get_table_span(rc, c, "strings", p->nstrs, 2, STRINGS_MAX, 1, &count))
		return -1;
	p->strs = table_room(p->strs, &p->cap, p->nstrs + (size_t)count, sizeof(*p->strs));
	for (i = 0; i < count; i++) {
		if (get_bytes(c, &s)) {
			free_strings(p, had);
			return -1;
		}
		p->strs[p->nstrs].s = t2_memdup(s.p, s.n);
		p->strs[p->nstrs++].n = s.n;
	}
	return 0;
}

/* A string number of a site: 0 (absent) or one p's table defines. */
static int get_site_string(struct t2_recording *rc, struct cur *c, const struct rproc *p,
			   uint32_t *n)
{
	uint64_t v;

	if (get_uv(c, &v))
		return -1;
	if (v && (v == 1 || v - 2 >= p->nstrs)) {
		snprintf(rc->why, sizeof(rc->why), "a site names string number %llu, "
			 "which is not defined", (unsigned long long)v);
		return fail(c, rc->why);
	}
	*n = (uint32_t)v; /* < STRINGS_MAX + 2 */
	return 0;
}

/* A site's repo, in the range a region's repo_id has. */
static int get_site_repo(struct t2_recording *rc, struct cur *c, int *repo)
{
	const struct rfield *f = fields[TRACE2_EVENT_REGION_ENTER];
	struct trace2_event ev;
	int64_t v;

	memset(&ev, 0, sizeof(ev));
	ev.kind = TRACE2_EVENT_REGION_ENTER;
	while (f->off != offsetof(struct trace2_event, region.repo_id))
		f++;
	if (get_sv(c, &v) || put_number(rc, c, &ev, f, v, 1))
		return -1;
	*repo = ev.region.repo_id;
	return 0;
}

static int get_site(struct t2_recording *rc, struct cur *c, const struct rproc *p,
		    struct rsite *site)
{
	uint64_t line;

	if (get_site_string(rc, c, p, &site->file) ||
	    get_uv_max(c, INT_MAX, "a line number out of range", &line) ||
	    get_site_string(rc, c, p, &site->category) ||
	    get_site_string(rc, c, p, &site->label) || get_site_repo(rc, c, &site->repo))
		return -1;
	site->line = (int)line;
	return 0;
}

/* SITES: the next numbers of the table, all or none. */
static int read_sites(struct t2_recording *rc, struct cur *c, struct rproc *p)
{
	uint64_t count, i;
	size_t had = p->nsites;

	if (get_table_span(rc, c, "sites", p->nsites, 0, SITES_MAX, SITE_MIN_LEN, &count))
		return -1;
	p->sites = table_room(p->sites, &p->capsites, p->nsites + (size_t)count,
			      sizeof(*p->sites));
	for (i = 0; i < count; i++, p->nsites++)
		if (get_site(rc, c, p, &p->sites[p->nsites])) {
			p->nsites = had;
			return -1;
		}
	return 0;
}

static int read_thread(struct cur *c, struct rproc *p)
{
	union t2_map_val *v;
	struct rthread *t;
	struct slice name;
	uint64_t id;

	if (get_uv_max(c, INT_MAX, "a thread id out of range", &id) || get_bytes(c, &name))
		return -1;
	if (!name.n)
		return fail(c, "a thread without a name");
	if (p->threads.n == THREADS_MAX && !t2_map_at(&p->threads, id, 0))
		return fail(c, "more threads in a process than the reader keeps");
	v = t2_map_at(&p->threads, id, 1);
	if ((t = v->p))
		return t->len == name.n && !memcmp(t->name, name.p, name.n)
			       ? 0 : fail(c, "a thread id named again, differently");
	t = v->p = t2_calloc(1, sizeof(*t));
	t->name = t2_memdup(name.p, name.n);
	t->len = name.n;
	return 0;
}

static int read_tz(struct cur *c, struct rproc *p)
{
	uint64_t time, u;
	int32_t offset;
	size_t i;

	if (get_fixed(c, 8, &time) || get_fixed(c, 4, &u))
		return -1;
	offset = (int32_t)(uint32_t)u;
	if (time > TIME_MAX || offset < -OFFSET_MAX || offset > OFFSET_MAX)
		return fail(c, "a TZ block's time or offset out of range");
	if (p->ntz == TZ_MAX)
		return fail(c, "more TZ blocks of a process than the reader keeps");
	if (!(p->ntz & (p->ntz - 1))) /* 0, 1, 2, 4...: full */
		p->tz = t2_realloc(p->tz, (p->ntz ? 2 * p->ntz : 1) * sizeof(*p->tz));
	for (i = p->ntz++; i && p->tz[i - 1].time > time; i--)
		p->tz[i] = p->tz[i - 1];
	p->tz[i].time = time;
	p->tz[i].offset = offset;
	return 0;
}

static int read_dropped(struct t2_recording *rc, struct cur *c, struct rproc *p)
{
	struct rthread *t = thread_of(rc, c, p);
	uint64_t n;

	if (!t || get_uv(c, &n))
		return -1;
	t->drops = n > UINT64_MAX - t->drops ? UINT64_MAX : t->drops + n;
	return 0;
}

static int read_end(struct t2_recording *rc, struct cur *c, struct rproc *p, uint64_t off)
{
	uint64_t reason;

	if (get_fixed(c, 1, &reason))
		return -1;
	if (reason > 1)
		return fail(c, "an END block's reason is not 0 or 1");
	deliver_all_drops(rc, p, off);
	return 0;
}

/* A block of a process after its PROCESS block. */
static int read_block_of(struct t2_recording *rc, struct cur *c, unsigned type,
			 struct rproc *p, uint64_t off, int cut)
{
	switch (type) {
	case B_STRINGS:
		return read_strings(rc, c, p);
	case B_SITES:
		return read_sites(rc, c, p);
	case B_THREAD:
		return read_thread(c, p);
	case B_EVENTS:
		return read_events(rc, c, p, off, cut);
	case B_TZ:
		return read_tz(c, p);
	case B_DROPPED:
		return read_dropped(rc, c, p);
	default:
		return read_end(rc, c, p, off);
	}
}

/* The block b[0..n), at off of the input; cut: the input ended inside it
 * (n is less than its length says). */
static void read_block(struct t2_recording *rc, const unsigned char *b, size_t n, uint64_t off,
		       int cut)
{
	unsigned type = b[0];
	uint64_t key = le(b + 8, 8);
	struct cur c = { b + HEAD_LEN, b + n, NULL, 0 };
	union t2_map_val *v;
	int res;

	if (type < B_PROCESS || type > B_SITES)
		return; /* a later version's: skipped */
	if (b[1] || b[2] || b[3]) {
		report(rc, off, 0, "a %s block whose reserved bytes are not 0; skipped",
		       block_names[type]);
		return;
	}
	if (type == B_PROCESS)
		res = read_process(rc, &c, key);
	else if (!(v = t2_map_at(&rc->procs, key, 0))) {
		report(rc, off, 0, "a %s block of process %016llx, which has no PROCESS "
		       "block before it", block_names[type], (unsigned long long)key);
		return;
	} else
		res = read_block_of(rc, &c, type, v->p, off + HEAD_LEN, cut);
	if (res)
		report(rc, off + (uint64_t)(c.p - b), 0, "%s; %s block skipped%s", c.err,
		       block_names[type], type == B_EVENTS ? " from there" : "");
	else if (c.p != c.end && type != B_EVENTS)
		report(rc, off + (uint64_t)(c.p - b), 0, "bytes after the fields of a %s block; "
		       "those bytes skipped", block_names[type]);
}

static void read_magic(struct t2_recording *rc, const unsigned char *m)
{
	uint64_t version = le(m + 8, 2), flags = le(m + 10, 2);

	if (memcmp(m, magic_sig, sizeof(magic_sig)))
		report(rc, 0, 0, "not a recording (its magic is wrong)");
	else if (version != FORMAT_VERSION)
		report(rc, 8, 0, "a recording of format version %llu (this reader reads 2)",
		       (unsigned long long)version);
	else if (flags || le(m + 12, 4))
		report(rc, 10, 0, "a recording with flags this reader does not know");
	else {
		rc->have_magic = 1;
		return;
	}
	rc->dead = 1;
}

/* The bytes the next whole unit (the magic, a block) has; 0 when a
 * block over the limit was reported, its bytes to skip.  *head_only: only
 * the block's head is known to be needed (its length not read yet). */
static size_t wanted(struct t2_recording *rc, const unsigned char *p, size_t n,
		     int *head_only)
{
	const unsigned char *head = rc->len >= HEAD_LEN ? rc->buf : !rc->len && n >= HEAD_LEN ? p : NULL;
	uint64_t length;

	*head_only = 0;
	if (!rc->have_magic)
		return MAGIC_LEN;
	if (!head) {
		*head_only = 1;
		return HEAD_LEN;
	}
	length = le(head + 4, 4);
	if (length <= rc->r->max_line)
		return HEAD_LEN + (size_t)length;
	report(rc, rc->offset, 0, "a block of %llu bytes, over the limit (%zu); skipped",
	       (unsigned long long)length, rc->r->max_line);
	rc->skip = HEAD_LEN + length - rc->len;
	rc->offset += rc->len;
	rc->len = 0;
	return 0;
}

static void take(struct t2_recording *rc, const unsigned char *p, size_t n)
{
	if (rc->have_magic)
		read_block(rc, p, n, rc->offset, 0);
	else
		read_magic(rc, p);
	rc->offset += n;
}

void t2_recording_feed(struct t2_recording *rc, const char *data, size_t n)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t want, k;
	int head_only;

	while (n && !rc->dead && !rc->r->stop) {
		if (rc->skip) {
			k = rc->skip < n ? (size_t)rc->skip : n;
			rc->skip -= k;
			rc->offset += k;
			p += k;
			n -= k;
			continue;
		}
		if (!(want = wanted(rc, p, n, &head_only)))
			continue;
		if (!rc->len && n >= want && !head_only) { /* whole in the input: read in place */
			take(rc, p, want);
			p += want;
			n -= want;
			continue;
		}
		if (want > rc->cap) {
			rc->buf = t2_realloc(rc->buf, want);
			rc->cap = want;
		}
		k = want - rc->len < n ? want - rc->len : n;
		memcpy(rc->buf + rc->len, p, k);
		rc->len += k;
		p += k;
		n -= k;
		if (rc->len == want && !head_only) {
			take(rc, rc->buf, want);
			rc->len = 0;
		}
	}
}

static void free_process(struct rproc *p)
{
	size_t i;

	free_strings(p, 0);
	free(p->strs);
	free(p->sites);
	for (i = 0; i < p->threads.size; i++)
		if (p->threads.slot[i].used) {
			struct rthread *t = p->threads.slot[i].val.p;

			free(t->name);
			free(t);
		}
	t2_map_free(&p->threads);
	free(p->tz);
	free(p->sid);
	free(p);
}

void t2_recording_end(struct t2_recording *rc)
{
	struct rproc *p, *next;

	if (rc->len && !rc->dead && !rc->r->stop) {
		if (rc->have_magic && rc->len >= HEAD_LEN && rc->buf[0] == B_EVENTS)
			read_block(rc, rc->buf, rc->len, rc->offset, 1);
		report_cut(rc, rc->offset);
	}
	for (p = rc->list; p; p = next) {
		next = p->next;
		if (!rc->dead && !rc->r->stop)
			deliver_all_drops(rc, p, rc->offset + rc->len);
		free_process(p);
	}
	t2_map_free(&rc->procs);
	free(rc->buf);
	free(rc->sl);
	free(rc->chars);
	free(rc->ptrs);
	free(rc);
}
