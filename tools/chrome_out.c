/*
 * trace2 convert --to chrome's output (chrome_out.h).
 *
 * Viewers read the array in its order: Chrome DevTools' trace engine
 * pairs an E with the last open B of the whole array, whatever its pid
 * and tid, and links a flow only when its "s" comes before its "f".  So
 * nothing is written until every input is read: each B is made an X
 * slice at its E (or at its process's last ts), and the events are
 * written metadata first, then by ts (at one ts the longer slice first,
 * then in the order read).  A child's "s" is at its slice's start, before
 * the child process's first record and so before its "f".
 *
 * Everything read from a Chrome file is checked: the object strict JSON
 * (bytes that are not UTF-8 replaced), no key twice, ph one letter, pid
 * 0 to PID_MAX, tid an int32, ts an integer 0 to TS_MAX and dur a
 * number (a fraction allowed, no exponent) that ends by TS_MAX.
 */
#include "chrome_out.h"
#include "alloc.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "map.h"
#include "strbuf.h"
#include "trace2/target.h"

/* ts and dur: integer microseconds that every JSON reader holds exactly */
#define TS_MAX (1ull << 53)
#define PID_MAX 0x7fffffffu
/* The first pid given to a process whose real pid an earlier process of
 * the output has: above every pid Linux hands out (its PID_MAX_LIMIT). */
#define FRESH_PID_BASE 4194304u
/* The longest event kept (a line of a Chrome file, its bytes that are
 * not UTF-8 made U+FFFD, is at most 3 * T2_LINE_MAX). */
#define TEXT_MAX UINT32_MAX

struct cev {
	uint64_t ts;
	uint64_t dur_ns;        /* X: dur in thousandths (dur may be 0.001) */
	uint64_t flow;          /* s, t, f: a hash of cat, name and id */
	char *text;             /* the object, strict JSON */
	uint32_t len, ph_at, pid_at, pid_len; /* TEXT_MAX at most */
	unsigned proc;
	int32_t tid;
	char ph;                /* as read: a B made an X keeps its 'B' */
	unsigned made_x : 1, process_name : 1;
};

struct proc {
	uint32_t pid;           /* as read */
	uint32_t out_pid;       /* as written */
	uint64_t last_ts;       /* where its open slices end */
};

/* The B events open on one track (a process's thread), innermost last. */
struct track {
	size_t *open;
	size_t n, cap;
};

static struct cev *evs;
static size_t n_evs, cap_evs;
static struct proc *procs;
static size_t n_procs, cap_procs;
static struct track *tracks;
static size_t n_tracks, cap_tracks;
static struct t2_map track_of;     /* proc << 32 | tid -> track + 1 */
static struct t2_map proc_of_pid;  /* Chrome files: pid -> proc + 1 */
static struct jobj obj;
static int obj_ready;
static char *fixed;             /* an input object made UTF-8 */
static size_t fixed_cap;
static char why[160];

/* Room for one more of n items of size each in *p (capacity *cap). */
static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 64;
	if (*cap > SIZE_MAX / size)
		t2_out_of_memory();
	return t2_realloc(p, *cap * size);
}

/* ---------------------------------------------------------------- */
/* Processes and tracks.                                               */

unsigned chrome_out_process(uint32_t pid)
{
	procs = grow(procs, n_procs, &cap_procs, sizeof(*procs));
	memset(&procs[n_procs], 0, sizeof(*procs));
	procs[n_procs].pid = pid;
	return (unsigned)n_procs++;
}

static unsigned process_of_pid(uint32_t pid)
{
	size_t *slot = &t2_map_at(&proc_of_pid, pid, 1)->n; /* proc + 1 */

	if (!*slot)
		*slot = (size_t)chrome_out_process(pid) + 1;
	return (unsigned)(*slot - 1);
}

static struct track *track(unsigned proc, int32_t tid)
{
	size_t *slot = &t2_map_at(&track_of, (uint64_t)proc << 32 | (uint32_t)tid, 1)->n;

	if (!*slot) {
		tracks = grow(tracks, n_tracks, &cap_tracks, sizeof(*tracks));
		memset(&tracks[n_tracks], 0, sizeof(*tracks));
		*slot = ++n_tracks;
	}
	return &tracks[*slot - 1];
}

/* A B of the track: made an X ending at ts. */
static void end_slice(size_t i, uint64_t ts)
{
	evs[i].made_x = 1;
	/* one of no length lasts 0.001, as the chrome target writes it:
	 * speedscope would end it before it began */
	evs[i].dur_ns = ts > evs[i].ts ? (ts - evs[i].ts) * 1000 : 1;
}

/* An E: the innermost open B of its track, which ends (an E without one
 * is left out); -1 for none. */
static ptrdiff_t pair_end(const struct cev *e)
{
	struct track *t = track(e->proc, e->tid);

	if (!t->n)
		return -1;
	end_slice(t->open[--t->n], e->ts);
	return (ptrdiff_t)t->open[t->n];
}

static void push_begin(size_t i)
{
	struct track *t = track(evs[i].proc, evs[i].tid);

	t->open = grow(t->open, t->n, &t->cap, sizeof(*t->open));
	t->open[t->n++] = i;
}

/* ---------------------------------------------------------------- */
/* Reading one event.                                                  */

/* text made UTF-8 (into fixed) when it has a byte above 0x7f. */
static const char *utf8_text(const char *text, size_t *len)
{
	size_t i;

	for (i = 0; i < *len && !((unsigned char)text[i] & 0x80); i++)
		;
	if (i == *len)
		return text;
	if (fixed_cap < TRACE2_UTF8_REPAIRED_MAX(*len)) {
		fixed_cap = TRACE2_UTF8_REPAIRED_MAX(*len);
		free(fixed);
		fixed = t2_realloc(NULL, fixed_cap);
	}
	*len = trace2_utf8_repair(fixed, fixed_cap, text, *len);
	return fixed;
}

/* The members of the object parsed last (obj) that an event's use
 * depends on, NULL when absent: found in one pass, by parse(). */
static struct members {
	const struct jval *ph, *pid, *tid, *ts, *dur, *id, *cat, *name, *args;
} mem;

static const struct jval **member_slot(const char *k)
{
	switch (k[0]) {
	case 'a':
		return strcmp(k, "args") ? NULL : &mem.args;
	case 'c':
		return strcmp(k, "cat") ? NULL : &mem.cat;
	case 'd':
		return strcmp(k, "dur") ? NULL : &mem.dur;
	case 'i':
		return strcmp(k, "id") ? NULL : &mem.id;
	case 'n':
		return strcmp(k, "name") ? NULL : &mem.name;
	case 'p':
		return !strcmp(k, "ph") ? &mem.ph : !strcmp(k, "pid") ? &mem.pid : NULL;
	case 't':
		return !strcmp(k, "ts") ? &mem.ts : !strcmp(k, "tid") ? &mem.tid : NULL;
	default:
		return NULL;
	}
}

static void find_members(void)
{
	const struct jval **slot;
	size_t i;

	memset(&mem, 0, sizeof(mem));
	for (i = 0; i < obj.n; i++)
		if ((slot = member_slot(obj.m[i].key)))
			*slot = &obj.m[i].v;
}

/* An integer member v (named key) in [min, max]: 0, 1 when absent, -1
 * out of range (why says so). */
static int int_member(const struct jval *v, const char *key, int64_t min, int64_t max,
		      int64_t *out)
{
	if (!v)
		return 1;
	if (jval_int(v, out) || *out < min || *out > max) {
		snprintf(why, sizeof(why), "\"%s\" is not an integer from %lld to %lld", key,
			 (long long)min, (long long)max);
		return -1;
	}
	return 0;
}

static int read_ph(struct cev *e, const char *text)
{
	const struct jval *v = mem.ph;

	if (!v || v->type != J_STRING || v->raw_len != 3 || v->raw[1] < 'A' ||
	    (v->raw[1] > 'Z' && v->raw[1] < 'a') || v->raw[1] > 'z') {
		snprintf(why, sizeof(why), "no one-letter \"ph\": not a trace event");
		return -1;
	}
	e->ph = v->raw[1];
	e->ph_at = (uint32_t)(v->raw + 1 - text);
	return 0;
}

static int read_pid(struct cev *e, const char *text, int64_t *pid)
{
	int r = int_member(mem.pid, "pid", 0, PID_MAX, pid);

	if (r > 0)
		snprintf(why, sizeof(why), "no \"pid\"");
	if (r)
		return -1;
	e->pid_at = (uint32_t)(mem.pid->raw - text);
	e->pid_len = (uint32_t)mem.pid->raw_len;
	return 0;
}

/* A number of microseconds from 0 to max, with a fraction or not (no
 * exponent), in thousandths: 0, or -1. */
static int read_dur_ns(const struct jval *v, uint64_t max, uint64_t *ns)
{
	const char *p = v->raw, *end = v->raw + v->raw_len;
	uint64_t us = 0, frac = 0;
	int digits = 0;

	if (v->type != J_NUMBER)
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		if ((us = us * 10 + (uint64_t)(*p - '0')) > max)
			return -1;
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++)
			if (digits < 3)
				frac = frac * 10 + (uint64_t)(*p - '0'), digits++;
	for (; digits < 3; digits++)
		frac *= 10;
	if (p != end)
		return -1; /* a sign or an exponent */
	*ns = us * 1000 + frac;
	return 0;
}

/* An X's dur, which must end by TS_MAX. */
static int read_dur(struct cev *e)
{
	const struct jval *v = mem.dur;

	if (!v) {
		snprintf(why, sizeof(why), "an X event without \"dur\"");
		return -1;
	}
	if (read_dur_ns(v, TS_MAX - e->ts, &e->dur_ns)) {
		snprintf(why, sizeof(why), "\"dur\" is not a number of microseconds from 0 to %llu",
			 (unsigned long long)(TS_MAX - e->ts));
		return -1;
	}
	return 0;
}

/* tid, ts and dur: a missing tid is 0, a missing ts is 0 for metadata. */
static int read_times(struct cev *e)
{
	int64_t tid = 0, ts = 0;
	int r;

	if (int_member(mem.tid, "tid", INT32_MIN, INT32_MAX, &tid) < 0 ||
	    (r = int_member(mem.ts, "ts", 0, (int64_t)TS_MAX, &ts)) < 0)
		return -1;
	if (r && e->ph != 'M') {
		snprintf(why, sizeof(why), "no \"ts\"");
		return -1;
	}
	if (e->ph == 'B' && mem.dur) {
		snprintf(why, sizeof(why), "a B event with \"dur\"");
		return -1; /* its X gets one */
	}
	e->tid = (int32_t)tid;
	e->ts = (uint64_t)ts;
	return e->ph == 'X' ? read_dur(e) : 0;
}

static uint64_t fnv(uint64_t h, const struct jval *v)
{
	size_t i;

	for (i = 0; v && i < v->raw_len; i++)
		h = (h ^ (unsigned char)v->raw[i]) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull; /* a separator */
}

/* A flow event's key: viewers group s, t and f by cat, name and id. */
static int read_flow(struct cev *e)
{
	if (!mem.id) {
		snprintf(why, sizeof(why), "a flow event without an \"id\"");
		return -1;
	}
	e->flow = fnv(fnv(fnv(0xcbf29ce484222325ull, mem.cat), mem.name), mem.id);
	return 0;
}

static int is_process_name(void)
{
	const struct jval *v = mem.name;

	return v && v->type == J_STRING && v->str_len == 12 &&
	       !memcmp(v->str, "process_name", 12);
}

static int parse(const char *text, size_t len)
{
	char err[96];
	size_t at = 0;

	if (!obj_ready) {
		jobj_init(&obj);
		obj_ready = 1;
	}
	if (jobj_parse(&obj, text, len, err, sizeof(err), &at)) {
		snprintf(why, sizeof(why), "malformed JSON: %s at column %zu", err, at + 1);
		return -1;
	}
	if (obj.duplicate) {
		snprintf(why, sizeof(why), "a key given twice");
		return -1;
	}
	find_members();
	return 0;
}

/* A growing string. */
/* ,"key": (the key a decoded string). */
static void text_add_key(struct t2_sb *t, const char *key, int first)
{
	if (!first)
		t2_sb_add(t, ",", 1);
	t2_sb_jstr(t, key);
	t2_sb_add(t, ":", 1);
}

/*
 * The B's text (args ba, the args value v of obj, which holds the B)
 * with the members of the E's args (ea) it lacks added.
 */
static void add_end_args(struct t2_sb *t, const struct cev *x, const struct jval *v,
			 const struct jobj *ba, const struct jobj *ea)
{
	size_t close = (size_t)(v->raw + v->raw_len - 1 - x->text), i;
	int first = !ba->n;

	t2_sb_add(t, x->text, close);
	for (i = 0; i < ea->n; i++) {
		const struct jmember *m = &ea->m[i];

		if (jobj_get(ba, m->key) || jobj_get(ea, m->key) != &m->v)
			continue; /* the B's, or not the last of its key */
		text_add_key(t, m->key, first);
		t2_sb_add(t, m->v.raw, m->v.raw_len);
		first = 0;
	}
	t2_sb_add(t, x->text + close, x->len - close);
}

/*
 * The args of an E (obj holds it) merged into its B's, as the Trace Event
 * Format has it: the members of the E's that the B's lacks are added.
 */
static void merge_end_args(size_t b)
{
	const struct jval *v = mem.args;
	struct cev *x = &evs[b];
	struct jobj ea, ba;
	struct t2_sb t = { NULL, 0, 0 };
	char *eargs, err[96];
	size_t elen, at;
	int64_t pid;

	if (!v || v->type != J_OBJECT)
		return;
	elen = v->raw_len;
	eargs = t2_realloc(NULL, elen);
	memcpy(eargs, v->raw, elen);
	jobj_init(&ea);
	jobj_init(&ba);
	if (jobj_parse(&ea, eargs, elen, err, sizeof(err), &at) || !ea.n ||
	    parse(x->text, x->len))
		goto out;
	v = mem.args;
	if (!v) {
		t2_sb_add(&t, x->text, x->len - 1);
		t2_sb_add(&t, ",\"args\":", 8);
		t2_sb_add(&t, eargs, elen);
		t2_sb_add(&t, "}", 1);
	} else if (v->type == J_OBJECT && !jobj_parse(&ba, v->raw, v->raw_len, err, sizeof(err), &at)) {
		add_end_args(&t, x, v, &ba, &ea);
	}
	/* the B's offsets, in its new text */
	if (t.len && (uint64_t)t.len <= TEXT_MAX && !parse(t.s, t.len) && !read_ph(x, t.s) &&
	    !read_pid(x, t.s, &pid)) {
		free(x->text);
		x->text = t.s;
		x->len = (uint32_t)t.len;
		t.s = NULL;
	}
out:
	t2_sb_free(&t);
	free(eargs);
	jobj_free(&ea);
	jobj_free(&ba);
}

static void keep(struct cev *e, const char *text)
{
	struct proc *p = &procs[e->proc];
	ptrdiff_t b;

	if (p->last_ts < e->ts + e->dur_ns / 1000)
		p->last_ts = e->ts + e->dur_ns / 1000;
	if (e->ph == 'E') {
		if ((b = pair_end(e)) >= 0)
			merge_end_args((size_t)b);
		return;
	}
	e->text = t2_realloc(NULL, e->len);
	memcpy(e->text, text, e->len);
	evs = grow(evs, n_evs, &cap_evs, sizeof(*evs));
	evs[n_evs] = *e;
	if (e->ph == 'B')
		push_begin(n_evs);
	n_evs++;
}

const char *chrome_out_event(unsigned proc, const char *text, size_t len)
{
	struct cev e;
	int64_t pid;

	memset(&e, 0, sizeof(e));
	text = utf8_text(text, &len);
	if ((uint64_t)len > TEXT_MAX)
		return "an event longer than 4 GiB";
	if (parse(text, len) || read_ph(&e, text) || read_pid(&e, text, &pid) ||
	    read_times(&e) || (strchr("stf", e.ph) && read_flow(&e)))
		return why;
	e.proc = proc == CHROME_OUT_BY_PID ? process_of_pid((uint32_t)pid) : proc;
	e.process_name = e.ph == 'M' && is_process_name();
	e.len = (uint32_t)len;
	keep(&e, text);
	return NULL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* line[*b..*e) without the blanks at either end. */
static void trim(const char *line, size_t *b, size_t *e)
{
	while (*b < *e && is_space(line[*b]))
		(*b)++;
	while (*e > *b && is_space(line[*e - 1]))
		(*e)--;
}

/* Whether line[*b..*e) ends with c, then cut it off. */
static int cut_end(const char *line, size_t *b, size_t *e, char c)
{
	if (*e == *b || line[*e - 1] != c)
		return 0;
	(*e)--;
	trim(line, b, e);
	return 1;
}

static const char object_head[] = "{\"traceEvents\":[";

/* Whether line[b..e) starts with the object form's head. */
static int is_object_head(const char *line, size_t b, size_t e)
{
	return e - b >= sizeof(object_head) - 1 &&
	       !memcmp(line + b, object_head, sizeof(object_head) - 1);
}

int chrome_out_is_chrome(const char *line, size_t len)
{
	size_t b = 0, e = len;

	trim(line, &b, &e);
	return (b < e && line[b] == '[') || is_object_head(line, b, e);
}

const char *chrome_out_line(unsigned proc, const char *line, size_t len)
{
	size_t b = 0, e = len;

	trim(line, &b, &e);
	if (is_object_head(line, b, e))
		b += sizeof(object_head) - 1;
	else if (b < e && line[b] == '[')
		b++;
	trim(line, &b, &e);
	if (e - b == 2 && !memcmp(line + b, "]}", 2))
		return NULL; /* the object form's end */
	if (!cut_end(line, &b, &e, ']'))
		cut_end(line, &b, &e, ',');
	if (b == e)
		return NULL;
	if (line[b] != '{')
		return "not a trace event (no '{')";
	return chrome_out_event(proc, line + b, e - b);
}

/* ---------------------------------------------------------------- */
/* Writing.                                                            */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The real pids, sorted, unique: *n of them. */
static uint32_t *real_pids(size_t *n)
{
	uint32_t *pids = t2_realloc(NULL, n_procs * sizeof(*pids));
	size_t i, k = 0;

	for (i = 0; i < n_procs; i++)
		pids[i] = procs[i].pid;
	qsort(pids, n_procs, sizeof(*pids), cmp_u32);
	for (i = 0; i < n_procs; i++)
		if (!k || pids[i] != pids[k - 1])
			pids[k++] = pids[i];
	*n = k;
	return pids;
}

/*
 * Each process its own pid (a pid is reused, the SIDs differ): the first
 * process with a pid keeps it; a later one gets the next number from
 * FRESH_PID_BASE up that no process of the output has.
 */
static void assign_pids(void)
{
	size_t n, i;
	uint32_t *pids = real_pids(&n), fresh = FRESH_PID_BASE;
	unsigned char *taken = t2_calloc(n, 1);

	for (i = 0; i < n_procs; i++) {
		uint32_t *at = bsearch(&procs[i].pid, pids, n, sizeof(*pids), cmp_u32);
		size_t k = (size_t)(at - pids);

		procs[i].out_pid = procs[i].pid;
		if (!taken[k]) {
			taken[k] = 1;
			continue;
		}
		while (fresh < PID_MAX && bsearch(&fresh, pids, n, sizeof(*pids), cmp_u32))
			fresh++;
		procs[i].out_pid = fresh < PID_MAX ? fresh++ : procs[i].pid;
	}
	free(taken);
	free(pids);
}

/* Slices still open (a process cut short) end at their process's last
 * ts. */
static void close_open_slices(void)
{
	size_t i;

	for (i = 0; i < n_tracks; i++)
		while (tracks[i].n) {
			size_t b = tracks[i].open[--tracks[i].n];

			end_slice(b, procs[evs[b].proc].last_ts);
		}
}

static int order(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct cev *x = &evs[a], *y = &evs[b];
	int xm = x->ph == 'M', ym = y->ph == 'M';

	if (xm != ym)
		return ym - xm;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int (*out)(const char *p, size_t n);
static int out_failed;

static void put(const char *p, size_t n)
{
	if (!out_failed && n && out(p, n))
		out_failed = 1;
}

/* A part of an event's text replaced. */
struct splice {
	size_t at, cut;
	const char *with;
	size_t len;
};

static void put_spliced(const struct cev *e, struct splice *s, size_t n)
{
	size_t i, j, from = 0;

	for (i = 1; i < n; i++)
		for (j = i; j > 0 && s[j].at < s[j - 1].at; j--) {
			struct splice t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		put(e->text + from, s[i].at - from);
		put(s[i].with, s[i].len);
		from = s[i].at + s[i].cut;
	}
	put(e->text + from, e->len - from);
}

/* A renumbered process's process_name: the name with its real pid. */
static int put_renamed(const struct cev *e, uint32_t pid)
{
	const struct jval *args, *name;
	struct jobj a;
	char head[160], *json;
	size_t n;
	int ok = 0;

	if (parse(e->text, e->len) || !(args = mem.args) ||
	    args->type != J_OBJECT)
		return 0;
	jobj_init(&a);
	if (!jobj_parse(&a, args->raw, args->raw_len, why, sizeof(why), &n) &&
	    (name = jobj_get(&a, "name")) && name->type == J_STRING) {
		n = (size_t)snprintf(head, sizeof(head),
				     "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":%llu,"
				     "\"pid\":%lu,\"tid\":%ld,\"args\":{\"name\":\"",
				     (unsigned long long)e->ts,
				     (unsigned long)procs[e->proc].out_pid, (long)e->tid);
		put(head, n);
		json = t2_realloc(NULL, TRACE2_JSON_ESCAPED_MAX(name->str_len));
		put(json, trace2_json_escape(json, TRACE2_JSON_ESCAPED_MAX(name->str_len),
					       name->str, name->str_len));
		free(json);
		n = (size_t)snprintf(head, sizeof(head), " [pid %lu]\"}}", (unsigned long)pid);
		put(head, n);
		ok = 1;
	}
	jobj_free(&a);
	return ok;
}

/* ,"dur":<microseconds> of a B made an X: whole, or 0.001. */
static size_t format_dur(char *buf, size_t size, uint64_t ns)
{
	if (ns % 1000)
		return (size_t)snprintf(buf, size, ",\"dur\":%llu.%03u",
					(unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
	return (size_t)snprintf(buf, size, ",\"dur\":%llu", (unsigned long long)(ns / 1000));
}

static void put_event(const struct cev *e)
{
	const struct proc *p = &procs[e->proc];
	char pid[16], dur[40];
	struct splice s[3];
	size_t n = 0;

	if (e->process_name && p->out_pid != p->pid && put_renamed(e, p->pid))
		return;
	s[n++] = (struct splice){ e->pid_at, e->pid_len, pid,
				  (size_t)snprintf(pid, sizeof(pid), "%lu",
						   (unsigned long)p->out_pid) };
	if (e->made_x) {
		s[n++] = (struct splice){ e->ph_at, 1, "X", 1 };
		s[n++] = (struct splice){ e->len - 1, 0, dur, format_dur(dur, sizeof(dur), e->dur_ns) };
	}
	put_spliced(e, s, n);
}

/*
 * Whether e is an "f" that no earlier "s" of its flow opened (its
 * parent's side was not read: a file cut short), which viewers link to
 * nothing: it is left out.  open counts the flows open (plus one).
 */
static int unlinked_end(struct t2_map *open, const struct cev *e)
{
	size_t *n;

	if (e->ph != 's' && e->ph != 'f')
		return 0;
	n = &t2_map_at(open, e->flow, 1)->n;
	if (!*n)
		*n = 1;
	if (e->ph == 's')
		(*n)++;
	else if (*n > 1)
		(*n)--;
	else
		return 1;
	return 0;
}

int chrome_out_write(int (*put_fn)(const char *p, size_t n))
{
	struct t2_map open = { NULL, 0, 0 };
	size_t *idx, i, written = 0;

	out = put_fn;
	out_failed = 0;
	close_open_slices();
	assign_pids();
	idx = t2_realloc(NULL, n_evs * sizeof(*idx));
	for (i = 0; i < n_evs; i++)
		idx[i] = i;
	qsort(idx, n_evs, sizeof(*idx), order);
	put("{\"traceEvents\":[\n", 17);
	for (i = 0; i < n_evs; i++) {
		if (unlinked_end(&open, &evs[idx[i]]))
			continue;
		if (written++)
			put(",\n", 2);
		put_event(&evs[idx[i]]);
	}
	put(written ? "\n]}\n" : "]}\n", written ? 4 : 3);
	t2_map_free(&open);
	free(idx);
	chrome_out_reset();
	return out_failed ? -1 : 0;
}

void chrome_out_reset(void)
{
	size_t i;

	for (i = 0; i < n_evs; i++)
		free(evs[i].text);
	for (i = 0; i < n_tracks; i++)
		free(tracks[i].open);
	free(evs);
	free(procs);
	free(tracks);
	free(fixed);
	evs = NULL;
	procs = NULL;
	tracks = NULL;
	fixed = NULL;
	n_evs = cap_evs = n_procs = cap_procs = n_tracks = cap_tracks = fixed_cap = 0;
	t2_map_free(&track_of);
	t2_map_free(&proc_of_pid);
	if (obj_ready)
		jobj_free(&obj);
	obj_ready = 0;
}
