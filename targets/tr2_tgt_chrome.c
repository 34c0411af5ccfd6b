/*
 * The CHROME target (GIT_TRACE2_CHROME): the Chrome Trace Event Format
 * in its JSON array form, one event per line ending in ','.  Perfetto's
 * UI, chrome://tracing and DevTools load it (docs/targets.md, "Chrome").
 *
 * - Regions are complete (X) slices on their thread (tid: the thread id
 *   + 1), written when they end: viewers pair B and E events across the
 *   whole array, whatever their pid and tid, so processes appending to
 *   one file would mis-pair them.  What a slice needs (name, category,
 *   message, repository, start) is kept per thread in fixed slots while
 *   the region is open, so that whatever is still open at thread exit, at
 *   exit and at a fatal signal is closed as well.
 * - The process is one X slice on its main thread from version to its
 *   end; each child is an X slice on a track of its own, linked by a flow
 *   (s at the child's slice, f at the child's process slice) whose id
 *   both sides derive from what they know (struct tr2_tgt_chrome,
 *   link_by_pid).
 * - A file put in place by trace2_reopen() gets the process's and its
 *   threads' names again, at the first record after it.
 * - Data are instant events (integers also counters), timers and
 *   counters are counter events.
 *
 * Records of a signal (from a handler) are formatted into the stack
 * buffer of a struct tr2_buf, which they never outgrow: names and
 * categories come from the fixed slots.
 */
#include "tr2_tgt_chrome.h"
#include "tr2_hot.h"
#include "tr2_sys.h"
#include "tr2_buf.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct tr2_tgt_chrome state;
typedef const struct trace2_event event_t;

#define CAT_PROCESS "process"
#define FLOW_NAME "child"

/* ---------------------------------------------------------------- */
/* Strings kept in fixed slots.                                        */

/* The length of s cut to fit cap - 1 bytes, never inside a UTF-8
 * sequence. */
static size_t cut_len(const char *s, size_t cap)
{
	size_t n = tr2_strnlen(s, cap);

	if (n < cap)
		return n;
	n = cap - 1;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

static void keep(char *dst, size_t cap, const char *s)
{
	size_t n = s ? cut_len(s, cap) : 0;

	memcpy(dst, s ? s : "", n);
	dst[n] = '\0';
}

/* ---------------------------------------------------------------- */
/* Records.                                                            */

/* {"name":...,"cat":...,"ph":"X","ts":...,"pid":...,"tid":... (cat left
 * out when NULL or empty). */
static void head(const state *st, struct tr2_buf *b, const char *name, const char *cat,
		 char ph, uint64_t ts, int tid)
{
	tr2_buf_init(b);
	tr2_buf_addlit(b, "{\"name\":");
	tr2_buf_add_json_str(b, name);
	if (cat && *cat)
		TR2_JSON_STR(b, "cat", cat);
	tr2_buf_addlit(b, ",\"ph\":\"");
	tr2_buf_addc(b, ph);
	tr2_buf_addc(b, '"');
	TR2_JSON_KEY(b, "ts");
	tr2_buf_add_u64(b, ts);
	TR2_JSON_INT(b, "pid", st->pid);
	TR2_JSON_INT(b, "tid", tid);
}

/* ,"args":{ ... }: members are added with their leading comma, which
 * args_end() removes from the first. */
static size_t args_begin(struct tr2_buf *b)
{
	tr2_buf_addlit(b, ",\"args\":{");
	return b->len;
}

static void args_end(struct tr2_buf *b, size_t at)
{
	if (!b->failed && b->len > at && b->p[at] == ',') {
		memmove(b->p + at, b->p + at + 1, b->len - at - 1);
		b->len--;
	}
	tr2_buf_addc(b, '}');
}

/* The record out, with its ",": or, as the last record of a file of its
 * own, with the closing "]". */
static void finish_as(const state *st, struct tr2_buf *b, uint64_t ts, int last)
{
	if (last)
		tr2_buf_addlit(b, "}]\n");
	else
		tr2_buf_addlit(b, "},\n");
	tr2_tgt_emit(st->base.dst, b, ts);
}

static void finish(const state *st, struct tr2_buf *b, uint64_t ts)
{
	finish_as(st, b, ts, 0);
}

/* From a signal handler a record must stay in its stack buffer: whether
 * a string of len bytes still fits, escaped, with room for the end. */
static int fits(const struct tr2_buf *b, size_t len)
{
	return b->len + TR2_JSON_ESCAPED_MAX(len) + 64 <= TR2_BUF_STACK;
}

/*
 * The head of a complete slice from start to end.  One that begins and
 * ends within the same microsecond lasts 0.001: speedscope turns each
 * slice into a begin and an end and, at one time, takes ends before
 * begins, so a slice of no length at its parent's start would end before
 * it began.
 */
static void complete_head(const state *st, struct tr2_buf *b, const char *name,
			  const char *cat, uint64_t start, uint64_t end, int tid)
{
	head(st, b, name, cat, 'X', start, tid);
	if (end > start) {
		TR2_JSON_KEY(b, "dur");
		tr2_buf_add_u64(b, end - start);
	} else {
		tr2_buf_addlit(b, ",\"dur\":0.001");
	}
}

static int tid_of(event_t *ev)
{
	return ev->thread->id + 1;
}

/* A metadata record: process_name or thread_name. */
static void meta(const state *st, const char *what, uint64_t ts, int tid,
		 const char *json_name, size_t len)
{
	struct tr2_buf b;
	size_t at;

	tr2_buf_init(&b);
	tr2_buf_addlit(&b, "{\"name\":\"");
	tr2_buf_adds(&b, what);
	tr2_buf_addlit(&b, "\",\"ph\":\"M\"");
	TR2_JSON_KEY(&b, "ts");
	tr2_buf_add_u64(&b, ts);
	TR2_JSON_INT(&b, "pid", st->pid);
	TR2_JSON_INT(&b, "tid", tid);
	at = args_begin(&b);
	tr2_buf_addlit(&b, ",\"name\":\"");
	tr2_buf_add(&b, json_name, len);
	tr2_buf_addc(&b, '"');
	args_end(&b, at);
	finish(st, &b, ts);
}

/* An instant event of the calling thread; the caller adds args. */
static void instant(const state *st, struct tr2_buf *b, event_t *ev, const char *name,
		    const char *cat)
{
	head(st, b, name, cat, 'i', ev->time_us, tid_of(ev));
	tr2_buf_addlit(b, ",\"s\":\"t\"");
}

static void add_repo(struct tr2_buf *b, int repo_id)
{
	if (tr2_tgt_has_repo(repo_id))
		TR2_JSON_INT(b, "repo", repo_id);
}

/* ---------------------------------------------------------------- */
/* Threads and their open slices.                                       */

static _Thread_local struct tr2_chrome_thread *mine;

static void thread_name(const state *st, event_t *ev)
{
	meta(st, "thread_name", ev->time_us, tid_of(ev), ev->thread->json_name,
	     ev->thread->json_name_len);
}

/* The thread's name, for a file put in place later (a longer one than the
 * slot holds is left out there). */
static void keep_thread_name(struct tr2_chrome_thread *t, event_t *ev)
{
	size_t n = ev->thread->json_name_len;

	t->json_name_len = n < sizeof(t->json_name) ? n : 0;
	memcpy(t->json_name, ev->thread->json_name, t->json_name_len);
}

/* Replayed records: the slots of the record's thread, if it has some. */
static struct tr2_chrome_thread *replayed_thread(const state *st, int tid)
{
	struct tr2_chrome_thread *t;

	for (t = st->threads; t; t = t->next)
		if (t->in_use && t->tid == tid)
			return t;
	return NULL;
}

/* The calling thread's slots, taken at its first event (which names the
 * thread); NULL if memory ran out: its regions then get no slices. */
static struct tr2_chrome_thread *thread_of(state *st, event_t *ev)
{
	struct tr2_chrome_thread *t = mine;
	int tid = tid_of(ev);

	if (t && t->owner == st && t->gen == st->gen && t->tid == tid)
		return t;
	if (st->replay && (t = replayed_thread(st, tid)))
		return mine = t;
	for (t = __atomic_load_n(&st->threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		int free_slot = 0;

		if (__atomic_compare_exchange_n(&t->in_use, &free_slot, 1, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (!t) {
		t = tr2_sys.calloc(1, sizeof(*t));
		if (!t) {
			mine = NULL;
			return NULL;
		}
		t->in_use = 1;
		t->next = __atomic_load_n(&st->threads, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&st->threads, &t->next, t, 1,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
	}
	t->owner = st;
	t->gen = st->gen;
	t->tid = tid;
	keep_thread_name(t, ev);
	__atomic_store_n(&t->depth, 0, __ATOMIC_RELEASE);
	mine = t;
	thread_name(st, ev);
	return t;
}

/*
 * The slot of the slice at level (1 to TR2_CHROME_DEPTH), NULL when its
 * chunk is not there.  Only a region entering the first level of a chunk
 * allocates it (alloc), so every level of a chunk has a slot if its first
 * level got one, and a leave finds a slot exactly where its enter did.
 */
static struct tr2_chrome_slice *slot_at(struct tr2_chrome_thread *t, size_t level, int alloc)
{
	size_t k = (level - 1) / TR2_CHROME_CHUNK, i = (level - 1) % TR2_CHROME_CHUNK;

	if (!t->chunks[k] && alloc && !i)
		t->chunks[k] = tr2_sys.calloc(TR2_CHROME_CHUNK, sizeof(*t->chunks[k]));
	return t->chunks[k] ? &t->chunks[k][i] : NULL;
}

/*
 * The slice of the region at level (1-based, within the slots), if it
 * has one, ended at ts: its enter's message and repository, and the
 * leave's message when it has another one.  From a signal handler an
 * argument that might not fit the stack buffer is left out.
 */
static void end_slice(const state *st, struct tr2_chrome_thread *t, size_t level,
		      uint64_t ts, const char *leave_msg, int from_signal)
{
	const struct tr2_chrome_slice *s = slot_at(t, level, 0);
	struct tr2_buf b;
	size_t at;

	if (!s)
		return;
	complete_head(st, &b, s->name, s->cat, s->start_us, ts, t->tid);
	if (!st->base.brief) {
		at = args_begin(&b);
		if (s->has_msg && (!from_signal || fits(&b, strlen(s->msg))))
			TR2_JSON_STR(&b, "msg", s->msg);
		add_repo(&b, s->repo_id);
		if (leave_msg && (!s->has_msg || strcmp(leave_msg, s->msg)))
			TR2_JSON_STR(&b, "leave_msg", leave_msg);
		args_end(&b, at);
	}
	finish(st, &b, ts);
}

/* Close the thread's slices above level (innermost first). */
static void close_above(const state *st, struct tr2_chrome_thread *t, size_t level,
			uint64_t ts, int from_signal)
{
	size_t d = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE);

	for (; d > level; d--) {
		__atomic_store_n(&t->depth, d - 1, __ATOMIC_RELEASE);
		if (d <= TR2_CHROME_DEPTH)
			end_slice(st, t, d, ts, NULL, from_signal);
	}
}

/* A region's slice name: its label, else its message, else "region". */
static const char *slice_name(const struct trace2_ev_region *r)
{
	if (r->label && *r->label)
		return r->label;
	if (r->msg && *r->msg)
		return r->msg;
	return "region";
}

static void region_enter(state *st, event_t *ev)
{
	const struct trace2_ev_region *r = &ev->region;
	struct tr2_chrome_thread *t = thread_of(st, ev);
	struct tr2_chrome_slice *s;
	size_t level;

	if (!t)
		return;
	level = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE) + 1;
	if (level > TR2_CHROME_DEPTH) {
		__atomic_store_n(&t->depth, level, __ATOMIC_RELEASE);
		return;
	}
	s = slot_at(t, level, 1);
	if (s) { /* else memory ran out: no slice */
		keep(s->name, sizeof(s->name), slice_name(r));
		keep(s->cat, sizeof(s->cat), r->category);
		keep(s->msg, sizeof(s->msg), r->msg);
		s->has_msg = r->msg != NULL;
		s->repo_id = r->repo_id;
		s->start_us = ev->time_us;
	}
	__atomic_store_n(&t->depth, level, __ATOMIC_RELEASE);
}

/*
 * The thread's own count of open regions decides, not the record's
 * nesting: a leave without an enter (which the library reports as a BUG)
 * pops the thread's base entry and shifts the nesting of what follows.
 */
static void region_leave(state *st, event_t *ev)
{
	struct tr2_chrome_thread *t = thread_of(st, ev);
	size_t level;

	if (!t || !(level = __atomic_load_n(&t->depth, __ATOMIC_ACQUIRE)))
		return; /* nothing open here */
	__atomic_store_n(&t->depth, level - 1, __ATOMIC_RELEASE);
	if (level <= TR2_CHROME_DEPTH)
		end_slice(st, t, level, ev->time_us, ev->region.msg, 0);
}

static void thread_exit(state *st, event_t *ev)
{
	struct tr2_chrome_thread *t = thread_of(st, ev);

	if (!t)
		return;
	close_above(st, t, 0, ev->time_us, 0);
	mine = NULL;
	__atomic_store_n(&t->in_use, 0, __ATOMIC_RELEASE);
}

/* ---------------------------------------------------------------- */
/* The process, its name and its end.                                  */

/*
 * Flow ids: "0x" and 16 hex digits of an FNV-1a hash of what both ends
 * know.  The parent's SID is the part of the child's before its last
 * '/'.  By pid: the child's pid (child_exit's, its own).  By command
 * line: the base name of argv[0] (the path to it may differ: a search
 * of PATH) and the other arguments, Git's implied "git" included.
 */
#define FNV_BASIS 0xcbf29ce484222325ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t pid_flow_id(const char *sid, size_t sid_len, long pid)
{
	unsigned char v[8];
	size_t i;

	for (i = 0; i < sizeof(v); i++)
		v[i] = (unsigned char)((uint64_t)pid >> (8 * i));
	return fnv(fnv(FNV_BASIS, sid, sid_len), v, sizeof(v));
}

static uint64_t argv_flow_id(const char *sid, size_t sid_len, const char *argv0,
			     const char *const *args)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;
	uint64_t h = fnv(FNV_BASIS, sid, sid_len);

	base = base ? base + 1 : argv0 ? argv0 : "";
	h = fnv(h, base, strlen(base) + 1);
	for (; args && *args; args++)
		h = fnv(h, *args, strlen(*args) + 1);
	return h;
}

/* One end of a child's flow; tid and ts are those of the slice it binds
 * to (the child's slice in the parent, the child's process slice). */
static void flow(const state *st, char ph, uint64_t ts, int tid, uint64_t id)
{
	struct tr2_buf b;
	char *p;

	head(st, &b, FLOW_NAME, CAT_PROCESS, ph, ts, tid);
	if (ph == 'f')
		tr2_buf_addlit(&b, ",\"bp\":\"e\"");
	p = tr2_buf_reserve(&b, 32);
	if (p) {
		p = tr2_put_lit(p, ",\"id\":\"0x");
		p = tr2_put_hex32(p, (uint32_t)(id >> 32));
		p = tr2_put_hex32(p, (uint32_t)id);
		*p++ = '"';
		tr2_buf_commit(&b, p);
	}
	finish(st, &b, ts);
}

/* The length of the parent's part of a SID; 0 for a process without a
 * traced parent. */
static size_t parent_sid_len(const struct trace2_process *proc)
{
	size_t i, n = 0;

	for (i = 0; i < proc->sid_len; i++)
		if (proc->sid[i] == '/')
			n = i;
	return n;
}

/* The child's end of its flow, at its process slice (argv: the start's,
 * for a link by command line). */
static void flow_end(state *st, const struct trace2_process *proc, const char *const *argv)
{
	size_t n = parent_sid_len(proc);
	uint64_t id;

	if (!n || st->linked || !__atomic_load_n(&st->process_open, __ATOMIC_ACQUIRE))
		return;
	if (st->link_by_pid)
		id = pid_flow_id(proc->sid, n, st->pid);
	else if (argv && argv[0])
		id = argv_flow_id(proc->sid, n, argv[0], argv + 1);
	else
		return;
	st->linked = 1;
	flow(st, 'f', st->process_us, st->main_tid, id);
}

static void version(state *st, event_t *ev)
{
	thread_of(st, ev);
	st->main_tid = tid_of(ev);
	st->process_us = ev->time_us;
	keep(st->sid, sizeof(st->sid), ev->process->sid);
	keep(st->version, sizeof(st->version), ev->version.exe);
	__atomic_store_n(&st->process_open, 1, __ATOMIC_RELEASE);
	if (st->link_by_pid)
		flow_end(st, ev->process, NULL);
}

/* process_name: "<argv[0]'s base name> <command> (<mode>)", the parts
 * known so far.  Called with the lock held. */
static void process_name(state *st, event_t *ev)
{
	char name[3 * TR2_CHROME_PART_MAX + 8];
	char json[TR2_JSON_ESCAPED_MAX(sizeof(name))];
	size_t n = 0, len;

	if (*st->argv0)
		n += (size_t)snprintf(name + n, sizeof(name) - n, "%s", st->argv0);
	if (*st->cmd)
		n += (size_t)snprintf(name + n, sizeof(name) - n, "%s%s", n ? " " : "", st->cmd);
	if (*st->mode)
		n += (size_t)snprintf(name + n, sizeof(name) - n, "%s(%s)", n ? " " : "", st->mode);
	len = tr2_json_escape(json, name, n);
	meta(st, "process_name", ev->time_us, tid_of(ev), json, len);
}

static void set_name_part(state *st, event_t *ev, char *part, const char *value)
{
	tr2_mutex_lock(&st->lock);
	keep(part, TR2_CHROME_PART_MAX, value);
	process_name(st, ev);
	tr2_mutex_unlock(&st->lock);
}

/* ,"<key>": for a key known only at run time. */
static void add_key(struct tr2_buf *b, const char *key)
{
	tr2_buf_addlit(b, ",\"");
	tr2_buf_adds(b, key);
	tr2_buf_addlit(b, "\":");
}

/* An instant event that only describes the process, left out in brief
 * mode (0 then): the caller adds its args, then calls described_end(). */
static int described_begin(state *st, struct tr2_buf *b, event_t *ev, const char *name,
			   size_t *at)
{
	if (st->base.brief)
		return 0;
	thread_of(st, ev);
	instant(st, b, ev, name, NULL);
	*at = args_begin(b);
	return 1;
}

static void described_end(const state *st, struct tr2_buf *b, size_t at, event_t *ev)
{
	args_end(b, at);
	finish(st, b, ev->time_us);
}

/* An instant event with an argv member (and an optional string). */
static void with_argv(state *st, event_t *ev, const char *name, const char *skey,
		      const char *sval, const char *const *argv, int id)
{
	struct tr2_buf b;
	size_t at;

	if (!described_begin(st, &b, ev, name, &at))
		return;
	if (id >= 0)
		TR2_JSON_INT(&b, "exec_id", id);
	if (sval) {
		add_key(&b, skey);
		tr2_buf_add_json_str(&b, sval);
	}
	TR2_JSON_KEY(&b, "argv");
	tr2_json_add_argv(&b, argv, 0);
	described_end(st, &b, at, ev);
}

static void start(state *st, event_t *ev)
{
	const char *argv0 = ev->start.argv ? ev->start.argv[0] : NULL;
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;

	thread_of(st, ev);
	if (argv0)
		set_name_part(st, ev, st->argv0, base ? base + 1 : argv0);
	with_argv(st, ev, "start", NULL, NULL, ev->start.argv, -1);
	if (!st->link_by_pid)
		flow_end(st, ev->process, ev->start.argv);
}

/*
 * The end of the trace (atexit, or a signal): every thread's open slices,
 * then the process slice, closed at ts; a file of its own gets its "]".
 * (replay_end() comes without an exit code: from_signal then.)
 * Nothing is written after it.  From a signal handler: no locks, no
 * allocation (the records fit their stack buffers).
 */
static void close_all(state *st, uint64_t ts, int from_signal, int code)
{
	struct tr2_chrome_thread *t;
	struct tr2_buf b;
	size_t at;

	if (__atomic_exchange_n(&st->closed, 1, __ATOMIC_ACQ_REL))
		return;
	for (t = __atomic_load_n(&st->threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) && t->owner == st &&
		    t->gen == st->gen)
			close_above(st, t, 0, ts, from_signal);
	if (!__atomic_load_n(&st->process_open, __ATOMIC_ACQUIRE))
		return;
	if (st->own_file && tr2_dst_buffered && !from_signal)
		tr2_dst_flush_all(); /* so that "]" comes last */
	complete_head(st, &b, "process", CAT_PROCESS, st->process_us, ts, st->main_tid);
	if (!st->base.brief) {
		at = args_begin(&b);
		if (!from_signal || fits(&b, strlen(st->sid) + strlen(st->version)))
			TR2_JSON_STR(&b, "sid", st->sid);
		if (!from_signal || fits(&b, strlen(st->version)))
			TR2_JSON_STR(&b, "version", st->version);
		if (!from_signal)
			TR2_JSON_INT(&b, "code", code);
		args_end(&b, at);
	}
	/* buffered, a signal's records may be written out before another
	 * thread's: no "]" then (viewers do without it) */
	finish_as(st, &b, ts, st->own_file && !(from_signal && tr2_dst_buffered));
}

static void signal_(state *st, event_t *ev)
{
	struct tr2_buf b;
	size_t at;

	if (__atomic_load_n(&st->closed, __ATOMIC_ACQUIRE))
		return;
	instant(st, &b, ev, "signal", NULL);
	if (!st->base.brief) {
		at = args_begin(&b);
		TR2_JSON_INT(&b, "signo", ev->signal.signo);
		args_end(&b, at);
	}
	finish(st, &b, ev->time_us);
	close_all(st, ev->time_us, 1, 0);
}

/* ---------------------------------------------------------------- */
/* Children.                                                           */

static int child_tid(int id)
{
	return TR2_CHROME_CHILD_TID + id;
}

/* The thread_name of the track of child id. */
static void child_track_name(const state *st, uint64_t ts, int id)
{
	char track[48], json[TR2_JSON_ESCAPED_MAX(48)];
	int n = snprintf(track, sizeof(track), "child #%d", id);

	meta(st, "thread_name", ts, child_tid(id), json, tr2_json_escape(json, track, (size_t)n));
}

/* s appended to out (holding n bytes, room for cap), cut to fit. */
static size_t append(char *out, size_t n, size_t cap, const char *s)
{
	size_t len = strlen(s);

	if (n + len >= cap)
		len = cut_len(s, cap - n);
	memcpy(out + n, s, len);
	out[n + len] = '\0';
	return n + len;
}

/* The command line as one string: "git" first for a Git command. */
static void join_argv(char *out, size_t cap, const struct trace2_ev_child *ch)
{
	size_t n = 0, i;

	out[0] = '\0';
	if (ch->git_cmd)
		n = append(out, n, cap, "git");
	for (i = 0; ch->argv && ch->argv[i]; i++) {
		if (n)
			n = append(out, n, cap, " ");
		n = append(out, n, cap, ch->argv[i]);
	}
	if (!n)
		append(out, 0, cap, "child");
}

/* A free slot for a child, the table grown (up to TR2_CHROME_CHILDREN)
 * when full; NULL if none.  Called with the lock held. */
static struct tr2_chrome_child *free_child(state *st)
{
	struct tr2_chrome_child *c;
	size_t i, n;

	for (i = 0; i < st->n_children; i++)
		if (!st->children[i].used)
			return &st->children[i];
	if (st->n_children == TR2_CHROME_CHILDREN)
		return NULL;
	n = st->n_children ? 2 * st->n_children : 2;
	c = tr2_sys.calloc(n, sizeof(*c));
	if (!c)
		return NULL;
	if (st->n_children)
		memcpy(c, st->children, st->n_children * sizeof(*c));
	tr2_sys.free(st->children);
	st->children = c;
	st->n_children = n;
	return &c[i];
}

static void child_start(state *st, event_t *ev)
{
	const struct trace2_ev_child *ch = &ev->child;
	struct tr2_chrome_child *c;

	tr2_mutex_lock(&st->lock);
	c = free_child(st);
	if (c) {
		c->used = 1;
		c->id = ch->id;
		join_argv(c->argv, sizeof(c->argv), ch);
		keep(c->child_class, sizeof(c->child_class),
		     ch->hook_name ? "hook" : ch->child_class ? ch->child_class : "?");
	}
	tr2_mutex_unlock(&st->lock);
	child_track_name(st, ev->time_us, ch->id);
	/* before the child exists, so before its end in a shared file */
	if (!st->link_by_pid && ch->argv)
		flow(st, 's', ev->time_us, child_tid(ch->id),
		     argv_flow_id(ev->process->sid, ev->process->sid_len,
				  ch->git_cmd ? "git" : ch->argv[0],
				  ch->git_cmd || !ch->argv[0] ? ch->argv : ch->argv + 1));
}

/* child_exit or child_ready: the child's slice from child_start to now
 * (and, linking by pid, the flow's start). */
static void child_end(state *st, event_t *ev)
{
	const struct trace2_ev_child *ch = &ev->child;
	char argv[TR2_CHROME_ARGV_MAX] = "child", cls[TR2_CHROME_CAT_MAX] = "?";
	/* a replayed log's t_rel may exceed its time */
	uint64_t begin = ev->t_rel_us < ev->time_us ? ev->time_us - ev->t_rel_us : 0;
	int tid = child_tid(ch->id);
	size_t i;
	struct tr2_buf b;
	size_t at;

	tr2_mutex_lock(&st->lock);
	for (i = 0; i < st->n_children; i++) {
		struct tr2_chrome_child *c = &st->children[i];

		if (c->used && c->id == ch->id) {
			memcpy(argv, c->argv, sizeof(argv));
			memcpy(cls, c->child_class, sizeof(cls));
			c->used = 0;
			break;
		}
	}
	tr2_mutex_unlock(&st->lock);
	complete_head(st, &b, argv, CAT_PROCESS, begin, begin + ev->t_rel_us, tid);
	if (!st->base.brief) {
		at = args_begin(&b);
		TR2_JSON_INT(&b, "child_id", ch->id);
		TR2_JSON_STR(&b, "child_class", cls);
		TR2_JSON_INT(&b, "pid", ch->pid);
		if (ev->kind == TRACE2_EVENT_CHILD_EXIT)
			TR2_JSON_INT(&b, "code", ch->code);
		else
			TR2_JSON_STR(&b, "ready", ch->ready);
		args_end(&b, at);
	}
	finish(st, &b, ev->time_us);
	if (st->link_by_pid && ch->pid > 0)
		flow(st, 's', begin, tid,
		     pid_flow_id(ev->process->sid, ev->process->sid_len, ch->pid));
}

/* ---------------------------------------------------------------- */
/* Data, timers, counters and the other records.                       */

/* A decimal integer as JSON writes it (what trace2_data_intmax() gives). */
static int is_json_int(const char *s)
{
	size_t i = s && *s == '-';

	if (!s || !s[i] || (s[i] == '0' && s[i + 1]))
		return 0;
	for (; s[i]; i++)
		if (s[i] < '0' || s[i] > '9' || i > 19)
			return 0;
	return 1;
}

static void data(state *st, event_t *ev)
{
	const struct trace2_ev_data *d = &ev->data;
	int json = ev->kind == TRACE2_EVENT_DATA_JSON;
	struct tr2_buf b;
	size_t at;

	if (json && d->json_open)
		return; /* not JSON (the event target reports the BUG) */
	thread_of(st, ev);
	instant(st, &b, ev, d->key, d->category);
	if (!st->base.brief) {
		at = args_begin(&b);
		TR2_JSON_KEY(&b, "value");
		if (json)
			tr2_json_add_data_value(&b, d);
		else
			tr2_buf_add_json_str(&b, d->value);
		add_repo(&b, d->repo_id);
		args_end(&b, at);
	}
	finish(st, &b, ev->time_us);
	if (json || !is_json_int(d->value))
		return;
	head(st, &b, d->key, d->category, 'C', ev->time_us, tid_of(ev));
	at = args_begin(&b);
	TR2_JSON_KEY(&b, "value");
	tr2_buf_adds(&b, d->value);
	args_end(&b, at);
	finish(st, &b, ev->time_us);
}

/* A counter event's name: the metric's, with the thread's for a
 * thread's own values ("name [th01:worker]"). */
static void metric_head(state *st, struct tr2_buf *b, event_t *ev, const char *category,
			const char *name)
{
	struct tr2_buf n;

	tr2_buf_init(&n);
	tr2_buf_adds(&n, name ? name : "");
	if (ev->kind == TRACE2_EVENT_TH_TIMER || ev->kind == TRACE2_EVENT_TH_COUNTER) {
		tr2_buf_addlit(&n, " [");
		tr2_buf_add(&n, ev->thread->name, ev->thread->name_len);
		tr2_buf_addc(&n, ']');
	}
	head(st, b, tr2_buf_cstr(&n), category, 'C', ev->time_us, tid_of(ev));
	tr2_buf_release(&n);
}

static void timer(state *st, event_t *ev)
{
	const struct trace2_ev_timer *t = &ev->timer;
	struct tr2_buf b;
	size_t at;

	metric_head(st, &b, ev, t->category, t->name);
	at = args_begin(&b);
	TR2_JSON_INT(&b, "intervals", (int64_t)t->intervals);
	tr2_buf_addf(&b, ",\"total_us\":%.3f,\"min_us\":%.3f,\"max_us\":%.3f",
		     (double)t->total_ns / 1e3, (double)t->min_ns / 1e3,
		     (double)t->max_ns / 1e3);
	args_end(&b, at);
	finish(st, &b, ev->time_us);
}

static void counter(state *st, event_t *ev)
{
	struct tr2_buf b;
	size_t at;

	metric_head(st, &b, ev, ev->counter.category, ev->counter.name);
	at = args_begin(&b);
	TR2_JSON_INT(&b, "count", (int64_t)ev->counter.value);
	args_end(&b, at);
	finish(st, &b, ev->time_us);
}

/* An instant event with at most one string and one integer member (none
 * in brief mode, where only the kinds marked keep are written). */
static void simple(state *st, event_t *ev, const char *name, int keep_in_brief,
		   const char *skey, const char *sval, const char *ikey, int64_t ival)
{
	struct tr2_buf b;
	size_t at;

	if (st->base.brief && !keep_in_brief)
		return;
	thread_of(st, ev);
	instant(st, &b, ev, name, NULL);
	if (!st->base.brief) {
		at = args_begin(&b);
		if (skey && sval) {
			add_key(&b, skey);
			tr2_buf_add_json_str(&b, sval);
		}
		if (ikey) {
			add_key(&b, ikey);
			tr2_buf_add_i64(&b, ival);
		}
		args_end(&b, at);
	}
	finish(st, &b, ev->time_us);
}

static void def_param(state *st, event_t *ev)
{
	struct tr2_buf b;
	size_t at;

	if (!described_begin(st, &b, ev, "def_param", &at))
		return;
	TR2_JSON_STR(&b, "scope", ev->def_param.scope);
	TR2_JSON_STR(&b, "param", ev->def_param.param);
	if (ev->def_param.value)
		TR2_JSON_STR(&b, "value", ev->def_param.value);
	described_end(st, &b, at, ev);
}

static void def_repo(state *st, event_t *ev)
{
	struct tr2_buf b;
	size_t at;

	if (!described_begin(st, &b, ev, "def_repo", &at))
		return;
	add_repo(&b, ev->def_repo.repo_id);
	TR2_JSON_STR(&b, "worktree", ev->def_repo.worktree);
	described_end(st, &b, at, ev);
}

/* ---------------------------------------------------------------- */
/* A file's context and end.                                           */

/*
 * A file put in place by trace2_reopen() (log rotation) stands on its
 * own: the first record after it brings the names of the process, of
 * its threads and of its children's tracks again (regions open across
 * the rotation come out whole in the new file, at their end).
 */
static void rewrite_context(state *st, event_t *ev)
{
	struct tr2_dst *dst = st->base.dst;
	unsigned now = dst ? __atomic_load_n(&dst->file_gen, __ATOMIC_ACQUIRE) : 0;
	unsigned seen = __atomic_load_n(&st->file_gen, __ATOMIC_ACQUIRE);
	struct tr2_chrome_thread *t;
	size_t i;

	if (now == seen || !__atomic_compare_exchange_n(&st->file_gen, &seen, now, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	for (t = __atomic_load_n(&st->threads, __ATOMIC_ACQUIRE); t; t = t->next)
		if (__atomic_load_n(&t->in_use, __ATOMIC_ACQUIRE) && t->owner == st &&
		    t->gen == st->gen && t->json_name_len)
			meta(st, "thread_name", ev->time_us, t->tid, t->json_name,
			     t->json_name_len);
	tr2_mutex_lock(&st->lock);
	if (*st->argv0 || *st->cmd || *st->mode)
		process_name(st, ev);
	for (i = 0; i < st->n_children; i++)
		if (st->children[i].used)
			child_track_name(st, ev->time_us, st->children[i].id);
	tr2_mutex_unlock(&st->lock);
}

/* The first n bytes at p up to the end of their first line. */
static size_t first_line(const char *p, size_t n)
{
	const char *eol = memchr(p, '\n', n);

	return eol ? (size_t)(eol - p) : n;
}

/* The digits of the number member key ("\"ts\":") in the n bytes at p
 * (a record of ours: the first such text is the member); 0 if none. */
static size_t number_at(const char *p, size_t n, const char *key, const char **digits)
{
	size_t klen = strlen(key), len = 0;
	const char *at = tr2_find(p, n, key, klen);

	if (!at)
		return 0;
	*digits = at + klen;
	while (*digits + len < p + n && len < 20 && (*digits)[len] >= '0' && (*digits)[len] <= '9')
		len++;
	return len;
}

/*
 * A file that reached its maxFileSize ends with an instant event that
 * says so, at the time and on the thread of the record that did not fit
 * (and with its "]" if that record closed the file).  From any thread,
 * from a signal handler too: no locks, no allocation.
 */
static size_t full_line(char *line, size_t size, const void *record, size_t len,
			uint64_t max_size)
{
	static const char *const keys[] = { "\"ts\":", "\"pid\":", "\"tid\":" };
	const char *rec = record, *digits[3];
	size_t n = first_line(rec, len), lens[3], i;
	int last = len >= 2 && rec[len - 2] == ']';
	char *p = line;

	if (size < 256)
		return 0;
	for (i = 0; i < 3; i++)
		if (!(lens[i] = number_at(rec, n, keys[i], &digits[i])))
			return 0;
	p = tr2_put_lit(p, "{\"name\":\"max_file_size\",\"ph\":\"i\"");
	for (i = 0; i < 3; i++) {
		*p++ = ',';
		p = tr2_put(p, keys[i], strlen(keys[i]));
		p = tr2_put(p, digits[i], lens[i]);
	}
	p = tr2_put_lit(p, ",\"s\":\"t\",\"args\":{\"max_file_size\":");
	p = tr2_put_u64(p, max_size);
	p = last ? tr2_put_lit(p, "}}]\n") : tr2_put_lit(p, "}},\n");
	return (size_t)(p - line);
}

/* ---------------------------------------------------------------- */
/* The target.                                                         */

static int open_(void *ctx, const struct trace2_target_config *config)
{
	state *st = ctx;
	struct tr2_chrome_thread *t;

	tr2_tgt_open(&st->base, config);
	st->own_file = st->base.dst && st->base.dst->own_file;
	st->pid = tr2_plat_pid();
	st->gen++;
	st->main_tid = 1;
	st->process_open = 0;
	st->closed = 0;
	st->link_by_pid = 0;
	st->linked = 0;
	st->file_gen = st->base.dst ? st->base.dst->file_gen : 0;
	st->replay = config->deferred;
	for (t = st->threads; t; t = t->next) {
		t->in_use = 0;
		t->depth = 0;
	}
	tr2_mutex_init(&st->lock);
	st->argv0[0] = st->cmd[0] = st->mode[0] = '\0';
	if (st->children)
		memset(st->children, 0, st->n_children * sizeof(*st->children));
	if (config->output) {
		trace2_output_set_head(config->output, "[\n", 2); /* for reopen */
		trace2_output_set_full_line(config->output, full_line);
	}
	if (config->created && config->output)
		trace2_output_write(config->output, "[\n", 2, NULL);
	return 0;
}

static void event(void *ctx, const struct trace2_event *ev)
{
	state *st = ctx;

	if (__atomic_load_n(&st->closed, __ATOMIC_ACQUIRE))
		return;
	if (ev->kind != TRACE2_EVENT_SIGNAL)
		rewrite_context(st, ev);
	switch (ev->kind) {
	case TRACE2_EVENT_REGION_ENTER:
		region_enter(st, ev);
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		region_leave(st, ev);
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		data(st, ev);
		break;
	case TRACE2_EVENT_PRINTF:
		simple(st, ev, "printf", 0, "msg", ev->printf.msg, NULL, 0);
		break;
	case TRACE2_EVENT_VERSION:
		version(st, ev);
		break;
	case TRACE2_EVENT_START:
		start(st, ev);
		break;
	case TRACE2_EVENT_EXIT:
		simple(st, ev, "exit", 1, NULL, NULL, "code", ev->exit.code);
		break;
	case TRACE2_EVENT_SIGNAL:
		signal_(st, ev);
		break;
	case TRACE2_EVENT_ATEXIT:
		close_all(st, ev->time_us, 0, ev->exit.code);
		break;
	case TRACE2_EVENT_ERROR:
		simple(st, ev, "error", 1, "msg", ev->error.msg, NULL, 0);
		break;
	case TRACE2_EVENT_CMD_PATH:
		simple(st, ev, "cmd_path", 0, "path", ev->cmd_path.path, NULL, 0);
		break;
	case TRACE2_EVENT_CMD_ANCESTRY:
		with_argv(st, ev, "cmd_ancestry", NULL, NULL, ev->cmd_ancestry.names, -1);
		break;
	case TRACE2_EVENT_CMD_NAME:
		set_name_part(st, ev, st->cmd, ev->cmd_name.name);
		break;
	case TRACE2_EVENT_CMD_MODE:
		set_name_part(st, ev, st->mode, ev->cmd_mode.name);
		break;
	case TRACE2_EVENT_ALIAS:
		with_argv(st, ev, "alias", "alias", ev->alias.alias, ev->alias.argv, -1);
		break;
	case TRACE2_EVENT_CHILD_START:
		child_start(st, ev);
		break;
	case TRACE2_EVENT_CHILD_EXIT:
	case TRACE2_EVENT_CHILD_READY:
		child_end(st, ev);
		break;
	case TRACE2_EVENT_THREAD_START:
		thread_of(st, ev);
		break;
	case TRACE2_EVENT_THREAD_EXIT:
		thread_exit(st, ev);
		break;
	case TRACE2_EVENT_EXEC:
		with_argv(st, ev, "exec", "exe", ev->exec.exe, ev->exec.argv, ev->exec.id);
		break;
	case TRACE2_EVENT_EXEC_RESULT:
		if (!st->base.brief)
			simple(st, ev, "exec_result", 0, NULL, NULL, "code", ev->exec.code);
		break;
	case TRACE2_EVENT_DEF_PARAM:
		def_param(st, ev);
		break;
	case TRACE2_EVENT_DEF_REPO:
		def_repo(st, ev);
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

/* The end of a trace that had no atexit (a converted log cut short):
 * close every open slice and the process at ts, without an exit code,
 * and free the state's thread slots and children.  Single-threaded use
 * only. */
static void replay_end(void *ctx, uint64_t ts)
{
	state *st = ctx;
	struct tr2_chrome_thread *t;
	size_t k;

	close_all(st, ts, 1, 0);
	while ((t = st->threads)) {
		st->threads = t->next;
		if (mine == t)
			mine = NULL;
		for (k = 0; k < TR2_CHROME_DEPTH / TR2_CHROME_CHUNK; k++)
			tr2_sys.free(t->chunks[k]);
		tr2_sys.free(t);
	}
	tr2_sys.free(st->children);
	st->children = NULL;
	st->n_children = 0;
}

const struct trace2_target tr2_tgt_chrome = {
	.abi_version = TRACE2_TARGET_ABI_VERSION,
	.name = "chrome",
	.setting = "chrome",
	.flags = TRACE2_TARGET_WANTS_CREATED,
	.open = open_,
	.event = event,
};

/* One thread hands in the records of many: slots go by the record's
 * thread. */
static void replay_setup(void *ctx, const struct tr2_replay_options *opt)
{
	state *st = ctx;

	st->replay = 1;
	st->link_by_pid = opt->link_by_pid;
	st->pid = opt->pid;
}

static int replay_ended(void *ctx)
{
	state *st = ctx;

	return __atomic_load_n(&st->closed, __ATOMIC_RELAXED);
}

const struct tr2_replay_ops tr2_tgt_chrome_replay = {
	.target = &tr2_tgt_chrome,
	.state_size = sizeof(state),
	.setup = replay_setup,
	.ended = replay_ended,
	.end = replay_end,
};
