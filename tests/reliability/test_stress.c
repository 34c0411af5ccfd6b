/*
 * Stress (docs/reliability.md "Stress"; docs/embedding.md "Threads"):
 * PROCS processes x THREADS threads, every thread emitting EVENTS events
 * (a fixed pattern of region_enter/leave, data and printf), all three
 * targets enabled, into
 *   (a) one shared file per target,
 *   (b) one directory (all targets),
 *   (c) one AF_UNIX stream listener and (d) one AF_UNIX datagram
 *       listener (all targets), run by this process in a thread with
 *       poll() and a deadline,
 *   (e) (a), (b) and (c) again with GIT_TRACE2_BUFFER=64k,
 *   (f) (a) and (b) in deferred mode (GIT_TRACE2_DEFERRED=1), and (a) and
 *       (c) with 4 KiB rings, where most records are dropped,
 *   (g) sampling by command tree (GIT_TRACE2_SAMPLE=0.25, docs/
 *       configuration.md "Sampling") under a root the rate keeps, (a):
 *       the same checks, plus one trace2/sample record per process on
 *       each target, its EVENT SID under the root; and under a root the
 *       rate drops, (a), (b), (b) deferred and (c): nothing written (no
 *       file, no connection), stderr empty, every exit code the one the
 *       writer gave.  The roots' hashes are tests/process/test_sample.sh's.
 *   (h) the flight recorder (GIT_TRACE2_FLIGHT=4k, docs/configuration.md
 *       "Flight recorder"), (a), (b) and (c): writers that exit 1 dump
 *       at exit, most records overwritten: the same checks as (f), the
 *       thread's "overwritten" counts in place of "dropped" (PERF and
 *       EVENT; NORMAL shows neither, its records still PERF's printf
 *       records), plus one trace2/flight record "exit" per process on
 *       PERF and EVENT; writers that exit 0: nothing written (no file, no
 *       byte), stderr empty, exit codes 0;
 *   (i) one FIFO every process opens (all targets), read by this
 *       process in a thread, direct, with GIT_TRACE2_BUFFER=64k and in
 *       deferred mode: one pipe shared by a process tree, as a shell
 *       pipeline gives it.
 * Every record carries "s<proc>w<thread>#<seq>", so each line is checked
 * for: a known layout (EVENT: strict JSON; PERF: the fixed columns), the
 * event the pattern prescribes at that sequence number, its nesting
 * (EVENT "nesting", PERF dots), agreement between the token and the
 * thread name / SID of the line (a line made of two records fails here
 * or in the parser), and exact counts: every (target, process, thread,
 * sequence number) seen exactly once, in order, plus the per-process and
 * per-thread records (version, start, cmd_name, exit, atexit,
 * thread_start, thread_exit).  In deferred mode a record may be missing
 * instead, when its thread's "dropped" reports count it: per (target,
 * process, thread) records seen + drops reported = records emitted,
 * exactly, no report before the records it counts, PERF and EVENT the
 * same records and reports, NORMAL exactly PERF's printf records.
 *
 * Size: 16 x 8 x 10,000 at T2_STRESS_SCALE=1 (make check-long); the
 * factor scales the events per thread, 0.05 by default (make check),
 * 0.02 in sanitizer builds.  Each test prints
 * one line of figures (lines, lost, duplicated, corrupted, interleaved,
 * times).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2rec.h"
#include "t2test.h"
#include "tjson.h"
#include "trace2.h"


#define PROCS 16
#define THREADS 8
#define FULL_EVENTS 10000
/* The default scale (make check); make check-long runs the full size. */
#define CHECK_SCALE 0.05
#define SANITIZER_SCALE 0.02
#define CATEGORY "stress"
/* Bounds: a writer is killed by SIGALRM, the parent stops waiting. */
#define WRITER_ALARM_S 900
#define RUN_DEADLINE_S 960
#define READ_CHUNK (1 << 20)
/* Sampling (T2_SAMPLE_RATE, T2_ROOT_KEPT, T2_ROOT_OUT): a sampled writer
 * exits with an exit code of its own, which must come out unchanged. */
#define SAMPLED_EXIT 9
/* The flight recorder: a ring per thread small enough that most records
 * are overwritten, and the exit code that triggers its dump at exit. */
#define FLIGHT_RING "4k"
#define FLIGHT_EXIT 1
#define FLIGHT_REASON "exit"

/* ------------------------------------------------------------------ */
/* The pattern every thread repeats.                                    */
/* ------------------------------------------------------------------ */

enum op { OP_ENTER, OP_LEAVE, OP_DATA, OP_PRINTF };
static const char *const OP_EVENT[] = { "region_enter", "region_leave", "data", "printf" };

struct step {
	enum op op;
	const char *label;	/* region label, data key */
	int nesting;		/* EVENT "nesting"; PERF dots = 2 * (nesting - 1) */
};

#define PATTERN_LEN 10
static const struct step PATTERN[PATTERN_LEN] = {
	{ OP_ENTER, "L1", 1 }, { OP_DATA, "k", 2 }, { OP_ENTER, "L2", 2 },
	{ OP_DATA, "k", 3 }, { OP_PRINTF, NULL, 3 }, { OP_LEAVE, "L2", 2 },
	{ OP_DATA, "k", 2 }, { OP_PRINTF, NULL, 2 }, { OP_LEAVE, "L1", 1 },
	{ OP_PRINTF, NULL, 1 },
};
#define PRINTFS_PER_PATTERN 3

static void emit(const struct step *s, const char *token)
{
	switch (s->op) {
	case OP_ENTER:
		trace2_region_enter_printf(CATEGORY, s->label, NULL, "%s", token);
		break;
	case OP_LEAVE:
		trace2_region_leave_printf(CATEGORY, s->label, NULL, "%s", token);
		break;
	case OP_DATA:
		trace2_data_string(CATEGORY, NULL, s->label, token);
		break;
	case OP_PRINTF:
		trace2_printf("%s", token);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Size.                                                                */
/* ------------------------------------------------------------------ */

struct cfg {
	int procs, threads, events;
};

static struct cfg stress_cfg(void)
{
	const char *v = getenv("T2_STRESS_SCALE");
	double dflt = UNDER_SANITIZER ? SANITIZER_SCALE : CHECK_SCALE;
	double scale = v && *v ? atof(v) : dflt;
	struct cfg c = { PROCS, THREADS, 0 };

	if (scale <= 0 || scale > 10)
		scale = dflt;
	c.events = (int)(FULL_EVENTS * scale) / PATTERN_LEN * PATTERN_LEN;
	if (c.events < PATTERN_LEN)
		c.events = PATTERN_LEN;
	return c;
}

/* ------------------------------------------------------------------ */
/* The writer processes.                                                */
/* ------------------------------------------------------------------ */

struct writer {
	const struct cfg *cfg;
	int proc;
	int gate[2];	/* readable end hits EOF when the parent says "go" */
	int code;	/* its exit code */
};

struct worker {
	const struct writer *w;
	int thread;
	pthread_barrier_t *barrier;
};

static void *worker_main(void *arg)
{
	const struct worker *k = arg;
	char base[32], token[48];
	int seq;

	snprintf(base, sizeof(base), "s%02dw%d", k->w->proc, k->thread);
	trace2_thread_start(base);
	pthread_barrier_wait(k->barrier);
	for (seq = 0; seq < k->w->cfg->events; seq++) {
		snprintf(token, sizeof(token), "s%02dw%d#%d", k->w->proc, k->thread, seq);
		emit(&PATTERN[seq % PATTERN_LEN], token);
	}
	trace2_thread_exit();
	return NULL;
}

static void wait_gate(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

static void writer_main(void *arg)
{
	struct writer *w = arg;
	pthread_t th[THREADS];
	struct worker k[THREADS];
	pthread_barrier_t barrier;
	char name[16];
	const char *argv[] = { "stress", name, NULL };
	int i;

	close(w->gate[1]);
	alarm(WRITER_ALARM_S);
	snprintf(name, sizeof(name), "p%d", w->proc);
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_cmd_name("stress");
	wait_gate(w->gate[0]);
	pthread_barrier_init(&barrier, NULL, (unsigned)w->cfg->threads);
	for (i = 0; i < w->cfg->threads; i++) {
		k[i] = (struct worker){ w, i, &barrier };
		if (pthread_create(&th[i], NULL, worker_main, &k[i]))
			_exit(3);
	}
	for (i = 0; i < w->cfg->threads; i++)
		pthread_join(th[i], NULL);
	exit(trace2_cmd_exit(w->code));
}

/* ------------------------------------------------------------------ */
/* Accounting.                                                          */
/* ------------------------------------------------------------------ */

#define NTARGETS 3
/* Indexes of the targets (T2_REC_* - T2_REC_NORMAL). */
#define T_NORMAL 0
#define T_PERF 1
#define T_EVENT 2
#define UNKNOWN_TARGET NTARGETS
static const char *const TARGET_NAME[] = { "normal", "perf", "event", "?" };
static const char *const PROC_EVENTS[] = { "version", "start", "cmd_name", "exit", "atexit" };
#define N_PROC_EVENTS 5

struct counts {
	uint64_t lines, corrupt, mixed, wrong, unexpected, lost, dup, disorder;
	/* deferred mode: the sum of the "dropped" reports and their lines;
	 * reported beyond what is missing; reported before the records they
	 * count; disagreement with the perf target (the same records reach
	 * every target) */
	uint64_t dropped, drop_lines, excess, early, mismatch;
};

/* The library's own records a process writes once, on its main thread:
 * trace2/sample (sampled: the rate) and trace2/flight (the flight
 * recorder's trigger: the reason).  NORMAL, which has no data records,
 * shows the library's own all the same. */
enum mark { M_SAMPLE, M_FLIGHT, NMARKS };
static const char *const MARK_KEY[] = { "sample", "flight" };
static const char *const MARK_VALUE[] = { T2_SAMPLE_RATE, FLIGHT_REASON };

struct sid_entry {
	char leaf[96];		/* last component of the SID */
	int proc;		/* -1 until a worker record names it */
	unsigned events[N_PROC_EVENTS];
	unsigned marks[NMARKS];	/* trace2/sample, trace2/flight records */
	uint64_t drops;		/* reported on the main thread */
};

struct tally {
	struct cfg cfg;
	const char *root;	/* sampling: the tree's root, or NULL */
	int flight;		/* the flight recorder triggered at exit */
	int want[NMARKS];	/* marks expected per process (0 or 1) */
	unsigned char *seen;	/* [target][proc][thread][seq]: times seen */
	int *last;		/* [target][proc][thread]: last seq seen */
	unsigned *starts, *exits;	/* [target][proc][thread] */
	unsigned *got;		/* [target][proc][thread]: records seen once */
	uint64_t *drops;	/* [target][proc][thread]: reported dropped */
	uint64_t proc_events[NTARGETS][N_PROC_EVENTS];
	uint64_t main_drops[NTARGETS];	/* reported on the main threads */
	uint64_t marks[NMARKS][NTARGETS];	/* trace2/sample, trace2/flight */
	struct counts c[NTARGETS + 1];
	struct sid_entry sids[PROCS * 2];
	int nsids, sid_overflow;
	char problem[256];	/* the first problem, for the failure message */
};

static struct tally *tally_new(const struct cfg *cfg, const char *root, int flight)
{
	struct tally *t = calloc(1, sizeof(*t));
	size_t slots = (size_t)NTARGETS * (size_t)cfg->procs * (size_t)cfg->threads;
	size_t i;

	t->cfg = *cfg;
	t->root = root;
	t->flight = flight;
	t->want[M_SAMPLE] = root != NULL;
	t->want[M_FLIGHT] = flight;
	t->seen = calloc(slots * (size_t)cfg->events, 1);
	t->last = malloc(slots * sizeof(*t->last));
	t->starts = calloc(slots, sizeof(*t->starts));
	t->exits = calloc(slots, sizeof(*t->exits));
	t->got = calloc(slots, sizeof(*t->got));
	t->drops = calloc(slots, sizeof(*t->drops));
	for (i = 0; i < slots; i++)
		t->last[i] = -1;
	return t;
}

static void tally_free(struct tally *t)
{
	free(t->seen);
	free(t->last);
	free(t->starts);
	free(t->exits);
	free(t->got);
	free(t->drops);
	free(t);
}

static size_t slot(const struct tally *t, int target, int proc, int thread)
{
	return ((size_t)target * (size_t)t->cfg.procs + (size_t)proc) *
	       (size_t)t->cfg.threads + (size_t)thread;
}

static void note(struct tally *t, const char *what, const char *line, size_t len)
{
	if (!t->problem[0])
		snprintf(t->problem, sizeof(t->problem), "%s: %.*s", what,
			 (int)(len < 180 ? len : 180), line);
}

/* "<...>s<PP>w<T>#<seq>" at the end of s, after a space or colon (or at
 * its start).  Returns the offset of the token, or -1. */
static long parse_token(struct t2_slice s, const struct cfg *cfg, int *proc,
			int *thread, int *seq)
{
	size_t start = s.len;
	char buf[48], tail;

	while (start && s.p[start - 1] != ' ' && s.p[start - 1] != ':')
		start--;
	if (!s.p || s.len - start >= sizeof(buf))
		return -1;
	memcpy(buf, s.p + start, s.len - start);
	buf[s.len - start] = '\0';
	if (sscanf(buf, "s%2dw%d#%d%c", proc, thread, seq, &tail) != 3 ||
	    *proc < 0 || *proc >= cfg->procs || *thread < 0 ||
	    *thread >= cfg->threads || *seq < 0 || *seq >= cfg->events)
		return -1;
	return (long)start;
}

/* "th<NN>:s<PP>w<T>" */
static int parse_thread(struct t2_slice s, const struct cfg *cfg, int *proc, int *thread)
{
	char buf[32], tail;
	int id;

	if (!s.p || s.len >= sizeof(buf))
		return 0;
	memcpy(buf, s.p, s.len);
	buf[s.len] = '\0';
	return sscanf(buf, "th%d:s%2dw%d%c", &id, proc, thread, &tail) == 3 &&
	       *proc >= 0 && *proc < cfg->procs && *thread >= 0 &&
	       *thread < cfg->threads;
}

static int proc_event_index(struct t2_slice event)
{
	int i;

	for (i = 0; i < N_PROC_EVENTS; i++)
		if (t2_slice_eq(event, PROC_EVENTS[i]))
			return i;
	return -1;
}

static struct sid_entry *sid_entry(struct tally *t, struct t2_slice sid)
{
	const char *slash = memrchr(sid.p, '/', sid.len);
	struct t2_slice leaf = sid;
	int i;

	if (slash) {
		leaf.p = slash + 1;
		leaf.len = sid.len - (size_t)(leaf.p - sid.p);
	}
	for (i = 0; i < t->nsids; i++)
		if (t2_slice_eq(leaf, t->sids[i].leaf))
			return &t->sids[i];
	if (t->nsids == PROCS * 2 || leaf.len >= sizeof(t->sids[0].leaf)) {
		t->sid_overflow++;
		return NULL;
	}
	memcpy(t->sids[t->nsids].leaf, leaf.p, leaf.len);
	t->sids[t->nsids].proc = -1;
	return &t->sids[t->nsids++];
}

/* version, start, ... of a process's main thread. */
static int count_proc_event(struct tally *t, int target, const struct t2_rec *r)
{
	int k = proc_event_index(r->event);
	struct sid_entry *e;

	if (k < 0)
		return 0;
	t->proc_events[target][k]++;
	if (target == T2_REC_EVENT - T2_REC_NORMAL) {
		if (!(e = sid_entry(t, r->sid)))
			return 0;
		e->events[k]++;
	}
	return 1;
}

/* The EVENT record of process proc must always carry the same SID. */
static int sid_matches(struct tally *t, const struct t2_rec *r, int proc)
{
	struct sid_entry *e = sid_entry(t, r->sid);

	if (!e)
		return 0;
	if (e->proc < 0)
		e->proc = proc;
	return e->proc == proc;
}

static int thread_matches(const struct tally *t, const struct t2_rec *r, int proc, int thread)
{
	int p, th;

	return parse_thread(r->thread, &t->cfg, &p, &th) && p == proc && th == thread;
}

/* The PERF payload the pattern prescribes. */
static int perf_payload_ok(const struct t2_rec *r, const struct step *s, const char *token)
{
	char want[96];

	if (s->op == OP_ENTER || s->op == OP_LEAVE)
		snprintf(want, sizeof(want), "label:%s %s", s->label, token);
	else if (s->op == OP_DATA)
		snprintf(want, sizeof(want), "%s:%s", s->label, token);
	else
		snprintf(want, sizeof(want), "%s", token);
	return t2_slice_eq(r->payload, want) && r->dots == 2 * (s->nesting - 1) &&
	       t2_slice_eq(r->category, s->op == OP_PRINTF ? "" : CATEGORY);
}

static int event_fields_ok(const struct t2_rec *r, const struct step *s)
{
	struct t2_slice label = t2_rec_str(r, s->op == OP_DATA ? "key" : "label");

	if (s->op == OP_PRINTF)
		return r->nesting == -1;
	return r->nesting == s->nesting && t2_slice_eq(label, s->label) &&
	       t2_slice_eq(t2_rec_str(r, "category"), CATEGORY);
}

/* The text of an EVENT record that carries the token. */
static struct t2_slice event_token_text(const struct t2_rec *r)
{
	struct t2_slice v = t2_rec_str(r, "value");

	return v.p ? v : t2_rec_str(r, "msg");
}

/*
 * A record of a worker reached the target, after `before` records of its
 * thread (thread_start, then the pattern's): the drops reported so far
 * may not exceed the records missing before it (a report follows the
 * records it counts).
 */
static void arrived(struct tally *t, int target, size_t i, uint64_t before, int first)
{
	uint64_t missing = before > t->got[i] ? before - t->got[i] : 0;

	if (t->drops[i] > missing)
		t->c[target].early++;
	t->got[i] += (unsigned)first;
}

/* A record of the pattern: check it against its sequence number. */
static int count_pattern(struct tally *t, int target, const struct t2_rec *r)
{
	struct t2_slice text = target == T2_REC_EVENT - T2_REC_NORMAL ?
		event_token_text(r) : r->payload;
	int proc, thread, seq, ok;
	long at = parse_token(text, &t->cfg, &proc, &thread, &seq);
	const struct step *s;
	char token[48];
	size_t i;

	if (at < 0)
		return 0;
	s = &PATTERN[seq % PATTERN_LEN];
	snprintf(token, sizeof(token), "s%02dw%d#%d", proc, thread, seq);
	if (target == T2_REC_NORMAL - T2_REC_NORMAL)
		ok = at == 0 && t2_slice_eq(text, token);
	else if (target == T2_REC_PERF - T2_REC_NORMAL)
		ok = perf_payload_ok(r, s, token) && thread_matches(t, r, proc, thread);
	else
		ok = t2_slice_eq(text, token) && event_fields_ok(r, s) &&
		     thread_matches(t, r, proc, thread) && sid_matches(t, r, proc);
	ok = ok && t2_slice_eq(r->event, target ? OP_EVENT[s->op] : token);
	if (!ok)
		return 0;
	i = slot(t, target, proc, thread);
	arrived(t, target, i, 1 + (uint64_t)seq, !t->seen[i * (size_t)t->cfg.events + (size_t)seq]);
	if (t->seen[i * (size_t)t->cfg.events + (size_t)seq] < 255)
		t->seen[i * (size_t)t->cfg.events + (size_t)seq]++;
	if (seq < t->last[i])
		t->c[target].disorder++;
	t->last[i] = seq;
	return 1;
}

/* thread_start / thread_exit of a worker. */
static int count_thread_event(struct tally *t, int target, const struct t2_rec *r)
{
	int proc, thread;
	int start = t2_slice_eq(r->event, "thread_start");
	unsigned *count;
	size_t i;

	if (!start && !t2_slice_eq(r->event, "thread_exit"))
		return -1;
	if (!parse_thread(r->thread, &t->cfg, &proc, &thread) ||
	    (target == T2_REC_EVENT - T2_REC_NORMAL && !sid_matches(t, r, proc)))
		return 0;
	i = slot(t, target, proc, thread);
	count = &(start ? t->starts : t->exits)[i];
	arrived(t, target, i, start ? 0 : 1 + (uint64_t)t->cfg.events, !*count);
	(*count)++;
	return 1;
}

/* The value of a data record of category trace2 and this key (the
 * library's own: "dropped", "sample") as the target writes it; no text
 * (p NULL) if the record is something else. */
static struct t2_slice trace2_value(int target, const struct t2_rec *r, const char *key)
{
	const struct t2_slice none = { NULL, 0 };
	char prefix[48];
	size_t n;

	if (target == T2_REC_EVENT - T2_REC_NORMAL)
		return t2_slice_eq(r->event, "data") &&
		       t2_slice_eq(t2_rec_str(r, "category"), "trace2") &&
		       t2_slice_eq(t2_rec_str(r, "key"), key) ? t2_rec_str(r, "value") : none;
	if (target == T2_REC_PERF - T2_REC_NORMAL) {
		if (!t2_slice_eq(r->event, "data") || !t2_slice_eq(r->category, "trace2"))
			return none;
		n = (size_t)snprintf(prefix, sizeof(prefix), "%s:", key);
	} else {
		n = (size_t)snprintf(prefix, sizeof(prefix), "data trace2/%s value:", key);
	}
	if (r->payload.len <= n || memcmp(r->payload.p, prefix, n))
		return none;
	return (struct t2_slice){ r->payload.p + n, r->payload.len - n };
}

/* The count of a report of records lost (category trace2, key dropped:
 * the deferred mode's; key overwritten: the flight recorder's), 0 if
 * malformed or not of the mode; -1 if the record is something else. */
static long long dropped_value(const struct tally *t, int target, const struct t2_rec *r)
{
	struct t2_slice v = trace2_value(target, r, "dropped");
	char buf[24];

	if (!v.p && (v = trace2_value(target, r, "overwritten")).p && !t->flight)
		return 0;
	if (!v.p)
		return -1;
	if (!v.len || v.len >= sizeof(buf) || v.p[0] == '0')
		return 0;
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	return strspn(buf, "0123456789") == v.len ? atoll(buf) : 0;
}

/* A "dropped" report: to its thread (NORMAL names no thread). */
static int count_dropped(struct tally *t, int target, const struct t2_rec *r)
{
	long long n = dropped_value(t, target, r);
	struct sid_entry *e;
	int proc, thread;

	if (n <= 0)
		return (int)n;
	t->c[target].dropped += (uint64_t)n;
	t->c[target].drop_lines++;
	if (target == T2_REC_NORMAL - T2_REC_NORMAL)
		return 1;
	if (t2_slice_eq(r->thread, "main")) {
		t->main_drops[target] += (uint64_t)n;
		if (target == T2_REC_EVENT - T2_REC_NORMAL && (e = sid_entry(t, r->sid)))
			e->drops += (uint64_t)n;
		return 1;
	}
	if (!parse_thread(r->thread, &t->cfg, &proc, &thread) ||
	    (target == T2_REC_EVENT - T2_REC_NORMAL && !sid_matches(t, r, proc)))
		return 0;
	t->drops[slot(t, target, proc, thread)] += (uint64_t)n;
	return 1;
}

/* Whether the EVENT record's SID is under the sampled tree's root. */
static int under_root(const struct tally *t, const struct t2_rec *r)
{
	size_t n = strlen(t->root);

	return r->sid.len > n + 1 && !memcmp(r->sid.p, t->root, n) && r->sid.p[n] == '/';
}

/* A process's mark m (trace2/sample, trace2/flight): expected only when
 * sampling or triggered, on the main thread (NORMAL names none), its
 * value as set, under the root when sampling; -1 if the record is
 * something else. */
static int count_mark(struct tally *t, int target, const struct t2_rec *r, enum mark m)
{
	struct t2_slice v = trace2_value(target, r, MARK_KEY[m]);
	struct sid_entry *e;

	if (!v.p)
		return -1;
	if (!t->want[m] || !t2_slice_eq(v, MARK_VALUE[m]) ||
	    (target != T_NORMAL && !t2_slice_eq(r->thread, "main")))
		return 0;
	if (target == T_EVENT) {
		if ((t->root && !under_root(t, r)) || !(e = sid_entry(t, r->sid)))
			return 0;
		e->marks[m]++;
	}
	t->marks[m][target]++;
	return 1;
}

/* One well-formed record of the given target. */
static int count_record(struct tally *t, int target, const struct t2_rec *r)
{
	int thread_event, dropped = count_dropped(t, target, r);
	int m, mark;

	if (dropped >= 0)
		return dropped;
	for (m = 0; m < NMARKS; m++)
		if ((mark = count_mark(t, target, r, (enum mark)m)) >= 0)
			return mark;
	if (target == T2_REC_NORMAL - T2_REC_NORMAL)
		return count_proc_event(t, target, r) || count_pattern(t, target, r);
	if (t2_slice_eq(r->thread, "main"))
		return count_proc_event(t, target, r);
	thread_event = count_thread_event(t, target, r);
	return thread_event >= 0 ? thread_event : count_pattern(t, target, r);
}

/*
 * One line.  want: the kind its destination holds (T2_REC_BAD: any);
 * leaf: the SID leaf an EVENT line must carry (directory mode), or NULL.
 */
static enum t2_rec_kind tally_line(struct tally *t, const char *line, size_t len,
				   enum t2_rec_kind want, const char *leaf)
{
	struct t2_rec r;
	enum t2_rec_kind kind = t2_rec_parse(line, len, &r);
	int target = want != T2_REC_BAD ? (int)want - T2_REC_NORMAL :
		     kind != T2_REC_BAD ? (int)kind - T2_REC_NORMAL : UNKNOWN_TARGET;
	struct counts *c = &t->c[target];

	c->lines++;
	if (kind == T2_REC_BAD || (want != T2_REC_BAD && kind != want)) {
		c->corrupt++;
		if (t2_rec_mixed(line, len))
			c->mixed++;
		note(t, "corrupt line", line, len);
	} else if (leaf && kind == T2_REC_EVENT &&
		   !(r.sid.len >= strlen(leaf) &&
		     !strcmp(r.sid.p + r.sid.len - strlen(leaf), leaf))) {
		c->wrong++;
		note(t, "SID does not match the file name", line, len);
	} else if (!count_record(t, target, &r)) {
		c->wrong++;
		note(t, "unexpected record", line, len);
	}
	t2_rec_free(&r);
	return kind;
}

/* Add the difference between got and want to lost or dup. */
static void expect_count(struct counts *c, uint64_t got, uint64_t want)
{
	if (got < want)
		c->lost += want - got;
	else
		c->dup += got - want;
}

/* Records missing (want - got of them) and drops reported: the
 * difference goes to lost or excess. */
static void account_drops(struct counts *c, uint64_t missing, uint64_t reported)
{
	if (missing > reported)
		c->lost += missing - reported;
	else
		c->excess += reported - missing;
}

/* PERF, EVENT: each record of a worker seen once or reported dropped. */
static void finish_worker(struct tally *t, int target, int p, int th)
{
	struct counts *c = &t->c[target];
	size_t i = slot(t, target, p, th);
	const unsigned char *seen = t->seen + i * (size_t)t->cfg.events;
	const unsigned char *perf = t->seen + slot(t, T_PERF, p, th) * (size_t)t->cfg.events;
	uint64_t missing = !t->starts[i] + !t->exits[i];
	int seq;

	for (seq = 0; seq < t->cfg.events; seq++) {
		missing += !seen[seq];
		c->dup += seen[seq] > 1 ? seen[seq] - 1u : 0;
		c->mismatch += target == T_EVENT && seen[seq] != perf[seq];
	}
	c->dup += (t->starts[i] > 1 ? t->starts[i] - 1u : 0) +
		  (t->exits[i] > 1 ? t->exits[i] - 1u : 0);
	account_drops(c, missing, t->drops[i]);
	c->mismatch += target == T_EVENT && t->drops[i] != t->drops[slot(t, T_PERF, p, th)];
}

/* NORMAL: exactly the printf records PERF has (drops happen before the
 * targets), nothing else of the pattern. */
static void finish_normal_worker(struct tally *t, int p, int th)
{
	struct counts *c = &t->c[T_NORMAL];
	size_t i = slot(t, T_NORMAL, p, th);
	const unsigned char *seen = t->seen + i * (size_t)t->cfg.events;
	const unsigned char *perf = t->seen + slot(t, T_PERF, p, th) * (size_t)t->cfg.events;
	int seq;

	for (seq = 0; seq < t->cfg.events; seq++) {
		if (PATTERN[seq % PATTERN_LEN].op != OP_PRINTF)
			c->unexpected += seen[seq];
		else
			expect_count(c, seen[seq], perf[seq] ? 1 : 0);
	}
	expect_count(c, t->starts[i], 0);
	expect_count(c, t->exits[i], 0);
}

/* version, start, ... of n processes: each kind at most n times, the
 * ones missing reported dropped. */
static void finish_proc_events(struct counts *c, const unsigned *events, uint64_t n,
			       uint64_t drops)
{
	uint64_t present = 0;
	int k;

	for (k = 0; k < N_PROC_EVENTS; k++) {
		present += events[k] < n ? events[k] : n;
		c->dup += events[k] > n ? events[k] - n : 0;
	}
	account_drops(c, N_PROC_EVENTS * n - present, drops);
}

static void finish_sids(struct tally *t)
{
	struct counts *c = &t->c[T2_REC_EVENT - T2_REC_NORMAL];
	int i, m;

	c->unexpected += (uint64_t)t->sid_overflow;
	expect_count(c, (uint64_t)t->nsids, (uint64_t)t->cfg.procs);
	for (i = 0; i < t->nsids; i++) {
		finish_proc_events(c, t->sids[i].events, 1, t->sids[i].drops);
		for (m = 0; m < NMARKS; m++)
			expect_count(c, t->sids[i].marks[m], (uint64_t)t->want[m]);
	}
}

static void tally_finish(struct tally *t)
{
	unsigned events[N_PROC_EVENTS];
	int target, k, p, th;

	for (p = 0; p < t->cfg.procs; p++) {
		for (th = 0; th < t->cfg.threads; th++) {
			finish_normal_worker(t, p, th);
			finish_worker(t, T_PERF, p, th);
			finish_worker(t, T_EVENT, p, th);
		}
	}
	for (target = T_PERF; target < NTARGETS; target++) {
		for (k = 0; k < N_PROC_EVENTS; k++)
			events[k] = (unsigned)t->proc_events[target][k];
		finish_proc_events(&t->c[target], events, (uint64_t)t->cfg.procs,
				   t->main_drops[target]);
	}
	for (k = 0; k < N_PROC_EVENTS; k++) {
		expect_count(&t->c[T_NORMAL], t->proc_events[T_NORMAL][k], t->proc_events[T_PERF][k]);
		t->c[T_EVENT].mismatch += t->proc_events[T_EVENT][k] != t->proc_events[T_PERF][k];
	}
	t->c[T_EVENT].mismatch += t->main_drops[T_EVENT] != t->main_drops[T_PERF];
	for (target = T_NORMAL; target < NTARGETS; target += 2)
		t->c[target].mismatch += t->c[target].dropped != t->c[T_PERF].dropped;
	/* one per process, on every target, when sampled / triggered */
	for (k = 0; k < NMARKS; k++)
		for (target = T_NORMAL; target < NTARGETS; target++)
			expect_count(&t->c[target], t->marks[k][target],
				     (uint64_t)(t->want[k] * t->cfg.procs));
	finish_sids(t);
}

/* Lines each target must hold (sampled, triggered: a trace2/sample,
 * trace2/flight record more per process). */
static uint64_t expected_lines(const struct tally *t, int target)
{
	const struct cfg *cfg = &t->cfg;
	uint64_t per_thread = target ? (uint64_t)cfg->events + 2 :
			      (uint64_t)cfg->events / PATTERN_LEN * PRINTFS_PER_PATTERN;
	uint64_t per_proc = N_PROC_EVENTS;
	int m;

	for (m = 0; m < NMARKS; m++)
		per_proc += (uint64_t)t->want[m];
	return (uint64_t)cfg->procs * (per_proc + (uint64_t)cfg->threads * per_thread);
}

/* ------------------------------------------------------------------ */
/* AF_UNIX listener.                                                    */
/* ------------------------------------------------------------------ */

#define MAX_CONNS 128

/* A listener's type when it reads a FIFO, not a socket. */
#define FIFO (-1)

struct listener {
	int fd, type;
	struct tally *tally;
	int done;		/* atomic: every writer has been reaped */
	double deadline;
	int timed_out;
	uint64_t bytes, packets, bad_packets, conns, partial;
	/* datagrams as received ([uint32 length][bytes]...), checked after
	 * the run so that the receiving thread does nothing but receive */
	char *store;
	size_t store_len, store_cap;
	pthread_t th;
};

struct conn {
	int fd;
	struct t2_lsplit split;
};

static void listener_line(void *ctx, const char *line, size_t len)
{
	tally_line(ctx, line, len, T2_REC_BAD, NULL);
}

static int listener_done(struct listener *l)
{
	return __atomic_load_n(&l->done, __ATOMIC_ACQUIRE);
}

static int past_deadline(struct listener *l)
{
	if (t2_now() < l->deadline)
		return 0;
	l->timed_out = 1;
	return 1;
}

/* n bytes read from a stream, into its lines. */
static void stream_bytes(struct listener *l, struct t2_lsplit *split, const char *buf, size_t n)
{
	l->bytes += n;
	t2_lsplit_feed(split, buf, n, listener_line, l->tally);
}

/* A stream's end: a line left unfinished is a corrupt record. */
static void stream_end(struct listener *l, struct t2_lsplit *split)
{
	if (t2_lsplit_end(split)) {
		l->partial++;
		l->tally->c[UNKNOWN_TARGET].corrupt++;
	}
}

/* Accept every pending connection (the listening socket is non-blocking). */
static void accept_all(struct listener *l, struct conn *c, size_t *n)
{
	int fd;

	while (*n < MAX_CONNS && (fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		c[*n].fd = fd;
		memset(&c[*n].split, 0, sizeof(c[*n].split));
		(*n)++;
		l->conns++;
	}
}

/* Read what connection i has; returns 0 once it is closed (and removed). */
static int read_conn(struct listener *l, struct conn *c, size_t *n, size_t i, char *buf)
{
	ssize_t got = read(c[i].fd, buf, READ_CHUNK);

	if (got > 0) {
		stream_bytes(l, &c[i].split, buf, (size_t)got);
		return 1;
	}
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	stream_end(l, &c[i].split);
	close(c[i].fd);
	c[i] = c[--*n];
	return 0;
}

static void serve_stream(struct listener *l)
{
	struct conn *c = calloc(MAX_CONNS, sizeof(*c));
	struct pollfd pfd[MAX_CONNS + 1];
	char *buf = malloc(READ_CHUNK);
	size_t n = 0, i;

	while (!past_deadline(l)) {
		int done = listener_done(l), ready;

		pfd[0] = (struct pollfd){ l->fd, POLLIN, 0 };
		for (i = 0; i < n; i++)
			pfd[i + 1] = (struct pollfd){ c[i].fd, POLLIN, 0 };
		ready = poll(pfd, n + 1, 100);
		/* downwards: a closed connection is replaced by the last one */
		for (i = n; ready > 0 && i-- > 0;)
			if (pfd[i + 1].revents)
				read_conn(l, c, &n, i, buf);
		accept_all(l, c, &n);
		if (done && ready == 0 && n == 0)
			break;
	}
	for (i = 0; i < n; i++)
		close(c[i].fd);
	free(c);
	free(buf);
}

/* One datagram must be exactly one record: one LF, at its end. */
static void take_packet(struct listener *l, const char *buf, size_t len)
{
	l->packets++;
	l->bytes += len;
	if (!len || buf[len - 1] != '\n' || memchr(buf, '\n', len - 1)) {
		l->bad_packets++;
		l->tally->c[UNKNOWN_TARGET].corrupt++;
		note(l->tally, "datagram not one record", buf, len);
		return;
	}
	tally_line(l->tally, buf, len - 1, T2_REC_BAD, NULL);
}

/* Room for one more datagram of up to READ_CHUNK bytes. */
static char *store_room(struct listener *l)
{
	if (l->store_cap - l->store_len < READ_CHUNK + sizeof(uint32_t)) {
		l->store_cap = l->store_cap * 2 + 2 * READ_CHUNK;
		l->store = realloc(l->store, l->store_cap);
		if (!l->store)
			abort();
	}
	return l->store + l->store_len;
}

static void serve_dgram(struct listener *l)
{
	while (!past_deadline(l)) {
		int done = listener_done(l);
		struct pollfd pfd = { l->fd, POLLIN, 0 };
		char *room;
		ssize_t got;

		poll(&pfd, 1, 100);
		while ((got = recv(l->fd, (room = store_room(l)) + sizeof(uint32_t),
				   READ_CHUNK, MSG_DONTWAIT)) >= 0) {
			uint32_t len = (uint32_t)got;

			memcpy(room, &len, sizeof(len));
			l->store_len += sizeof(len) + len;
		}
		if (done && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
	}
}

/* Check the stored datagrams. */
static void replay_packets(struct listener *l)
{
	size_t at = 0;

	while (at < l->store_len) {
		uint32_t len;

		memcpy(&len, l->store + at, sizeof(len));
		take_packet(l, l->store + at + sizeof(len), len);
		at += sizeof(len) + len;
	}
	free(l->store);
	l->store = NULL;
	l->store_len = l->store_cap = 0;
}

/* The FIFO every writer opens: one stream of everybody's records.  Open
 * for writing here too, it never reads as ended between writers. */
static void serve_fifo(struct listener *l)
{
	struct t2_lsplit split;
	char *buf = malloc(READ_CHUNK);

	memset(&split, 0, sizeof(split));
	while (!past_deadline(l)) {
		int done = listener_done(l);
		struct pollfd pfd = { l->fd, POLLIN, 0 };
		ssize_t got;

		poll(&pfd, 1, 100);
		while ((got = read(l->fd, buf, READ_CHUNK)) > 0)
			stream_bytes(l, &split, buf, (size_t)got);
		if (done && got < 0 && errno == EAGAIN)
			break;
	}
	stream_end(l, &split);
	free(buf);
}

static void *listener_main(void *arg)
{
	struct listener *l = arg;

	if (l->type == FIFO)
		serve_fifo(l);
	else if (l->type == SOCK_STREAM)
		serve_stream(l);
	else
		serve_dgram(l);
	return NULL;
}

/* A FIFO at path, open here for reading and writing, its pipe as large
 * as this user may make it; -1 on failure. */
static int fifo_open(struct listener *l, const char *path)
{
	l->type = FIFO;
	if (mkfifo(path, 0600))
		return -1;
	l->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
#ifdef F_SETPIPE_SZ /* Linux */
	if (l->fd >= 0)
		fcntl(l->fd, F_SETPIPE_SZ, 1 << 20);
#endif
	return l->fd < 0 ? -1 : 0;
}

/* A bound socket at path (listening for streams); -1 on failure. */
static int listener_open(struct listener *l, int type, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int big = 64 << 20;

	l->type = type;
	l->fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->fd < 0 || strlen(path) >= sizeof(sa.sun_path))
		return -1;
	/* SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is capped by rmem_max */
	if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	return type == SOCK_STREAM ? listen(l->fd, 512) : 0;
}

/* ------------------------------------------------------------------ */
/* One destination kind.                                                */
/* ------------------------------------------------------------------ */

enum dest_kind { D_FILES, D_DIR, D_STREAM, D_DGRAM, D_FIFO };
/* Sampling off, or on under a root the rate keeps or drops. */
enum sampling { S_OFF, S_KEPT, S_OUT };
static const char *const SAMPLE_ROOT[] = { NULL, T2_ROOT_KEPT, T2_ROOT_OUT };
/* The flight recorder off, or on (FLIGHT_RING) with writers that exit
 * with FLIGHT_EXIT (a dump at exit) or 0 (nothing written). */
enum flight { F_OFF, F_TRIGGERED, F_QUIET };

struct dest {
	const char *name;
	enum dest_kind kind;
	const char *buffer;	/* GIT_TRACE2_BUFFER, or NULL */
	/* deferred mode: GIT_TRACE2_DEFERRED_RING ("" for the default), or
	 * NULL for the direct mode */
	const char *ring;
	enum sampling sample;
	enum flight flight;
};

static const char *const TARGET_VARS[] = { "GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT" };

struct run {
	const struct dest *d;
	struct cfg cfg;
	const char *dir;
	struct tally *tally;
	struct listener l;
	struct t2_env env;
	pid_t pids[PROCS];
	int code;		/* the writers' exit code */
	int failed_writers;	/* writers not exited with it */
	char *stderr_text;	/* what the writers wrote to stderr */
	double t_write, t_check;
};

/* Records may be lost (and reported): deferred mode, the flight recorder. */
static int loses_records(const struct dest *d)
{
	return d->ring || d->flight;
}

/* Nothing may be written: a tree sampled out, a flight never triggered. */
static int writes_nothing(const struct dest *d)
{
	return d->sample == S_OUT || d->flight == F_QUIET;
}

static void set_env(struct run *r)
{
	int i;

	for (i = 0; i < NTARGETS; i++) {
		switch (r->d->kind) {
		case D_FILES:
			t2_env_add(&r->env, "%s=%s/%s", TARGET_VARS[i], r->dir, TARGET_NAME[i]);
			break;
		case D_DIR:
			t2_env_add(&r->env, "%s=%s/traces", TARGET_VARS[i], r->dir);
			break;
		case D_STREAM:
		case D_DGRAM:
			t2_env_add(&r->env, "%s=af_unix:%s:%s/sock", TARGET_VARS[i],
				   r->d->kind == D_STREAM ? "stream" : "dgram", r->dir);
			break;
		case D_FIFO:
			t2_env_add(&r->env, "%s=%s/fifo", TARGET_VARS[i], r->dir);
			break;
		}
	}
	t2_env_add(&r->env, "GIT_TRACE2_EVENT_NESTING=10");
	/* a failed write then says why on stderr (which must stay empty) */
	t2_env_add(&r->env, "GIT_TRACE2_DST_DEBUG=1");
	if (r->d->buffer)
		t2_env_add(&r->env, "GIT_TRACE2_BUFFER=%s", r->d->buffer);
	if (r->d->ring)
		t2_env_add(&r->env, "GIT_TRACE2_DEFERRED=1");
	if (r->d->ring && *r->d->ring)
		t2_env_add(&r->env, "GIT_TRACE2_DEFERRED_RING=%s", r->d->ring);
	if (r->d->flight)
		t2_env_add(&r->env, "GIT_TRACE2_FLIGHT=" FLIGHT_RING);
	if (r->d->sample) {
		t2_env_add(&r->env, "GIT_TRACE2_SAMPLE=" T2_SAMPLE_RATE);
		t2_env_add(&r->env, "GIT_TRACE2_PARENT_SID=%s", SAMPLE_ROOT[r->d->sample]);
	}
}

static void spawn_writers(struct run *r, struct writer *w)
{
	int gate[2], i;

	assert_int_equal(pipe2(gate, O_CLOEXEC), 0);
	for (i = 0; i < r->cfg.procs; i++) {
		char err[64];
		char *path;

		snprintf(err, sizeof(err), "stderr.%d", i);
		path = t2_path(r->dir, err);
		w[i] = (struct writer){ &r->cfg, i, { gate[0], gate[1] }, r->code };
		r->pids[i] = t2_spawn(writer_main, &w[i], t2_env_list(&r->env), NULL, path);
		free(path);
	}
	close(gate[0]);
	close(gate[1]);	/* go */
}

static void wait_writers(struct run *r, double deadline)
{
	int i;

	for (i = 0; i < r->cfg.procs; i++) {
		double left = deadline - t2_now();
		int status = t2_wait_timeout(r->pids[i], left > 0 ? (int)(left * 1000) : 0);

		if (!WIFEXITED(status) || WEXITSTATUS(status) != r->code) {
			r->failed_writers++;
			fprintf(stderr, "writer %d: status 0x%x\n", i, status);
		}
	}
}

static void collect_stderr(struct run *r)
{
	int i;

	r->stderr_text = strdup("");
	for (i = 0; i < r->cfg.procs; i++) {
		char name[64], *path, *text;

		snprintf(name, sizeof(name), "stderr.%d", i);
		path = t2_path(r->dir, name);
		text = t2_read_file(path, NULL);
		if (text && *text)
			t2_append(&r->stderr_text, "[%d] %s", i, text);
		free(text);
		free(path);
	}
}

struct file_ctx {
	struct tally *t;
	enum t2_rec_kind want;	/* T2_REC_BAD: decided by the first good line */
	const char *leaf;	/* directory mode: the file's SID leaf */
};

static void file_line(void *ctx, const char *line, size_t len)
{
	struct file_ctx *f = ctx;
	enum t2_rec_kind kind = tally_line(f->t, line, len, f->want, f->leaf);

	if (f->want == T2_REC_BAD)
		f->want = kind;
}

static void check_file(struct run *r, const char *path, enum t2_rec_kind want,
		       const char *leaf)
{
	struct file_ctx f = { r->tally, want, leaf };
	long long rest = t2_foreach_line(path, file_line, &f);
	int target = f.want != T2_REC_BAD ? (int)f.want - T2_REC_NORMAL : UNKNOWN_TARGET;

	if (rest != 0) {
		r->tally->c[target].corrupt++;
		note(r->tally, rest < 0 ? "unreadable file" : "partial last line",
		     path, strlen(path));
	}
}

static void check_files(struct run *r)
{
	int i;

	for (i = 0; i < NTARGETS; i++) {
		char *path = t2_path(r->dir, TARGET_NAME[i]);

		check_file(r, path, (enum t2_rec_kind)(T2_REC_NORMAL + i), NULL);
		free(path);
	}
}

/* The SID leaf of a directory-mode file: its name without ".<k>". */
static void name_to_leaf(const char *name, char *leaf, size_t size)
{
	const char *dot = strrchr(name, '.');
	size_t n = strlen(name);

	/* a SID has one '.' (in its time); a suffix adds a second */
	if (dot && strchr(name, '.') != dot)
		n = (size_t)(dot - name);
	snprintf(leaf, size, "%.*s", (int)n, name);
}

/* Returns the number of files. */
static int check_dir(struct run *r)
{
	char *traces = t2_path(r->dir, "traces");
	char *names = t2_listdir(traces);
	char **v = t2_split(names, " ", NULL);
	int n = 0, i;

	for (i = 0; v[i] && *v[i]; i++, n++) {
		char *path = t2_path(traces, v[i]), leaf[128];

		name_to_leaf(v[i], leaf, sizeof(leaf));
		check_file(r, path, T2_REC_BAD, leaf);
		free(path);
	}
	t2_strv_free(v);
	free(names);
	free(traces);
	return n;
}

static void report(const struct run *r, int files)
{
	struct counts sum = { 0 };
	int i;

	for (i = 0; i <= NTARGETS; i++) {
		const struct counts *c = &r->tally->c[i];

		sum.lines += c->lines;
		sum.lost += c->lost;
		sum.dup += c->dup;
		sum.corrupt += c->corrupt;
		sum.mixed += c->mixed;
		sum.wrong += c->wrong;
		sum.unexpected += c->unexpected;
		sum.disorder += c->disorder;
		sum.excess += c->excess;
		sum.early += c->early;
		sum.mismatch += c->mismatch;
	}
	printf("[stress] %-13s %dx%dx%d: lines %llu (normal %llu, perf %llu, event %llu), "
	       "lost %llu, duplicated %llu, corrupted %llu, interleaved %llu, "
	       "wrong %llu, unexpected %llu, out-of-order %llu",
	       r->d->name, r->cfg.procs, r->cfg.threads, r->cfg.events,
	       (unsigned long long)sum.lines, (unsigned long long)r->tally->c[0].lines,
	       (unsigned long long)r->tally->c[1].lines,
	       (unsigned long long)r->tally->c[2].lines,
	       (unsigned long long)sum.lost, (unsigned long long)sum.dup,
	       (unsigned long long)sum.corrupt, (unsigned long long)sum.mixed,
	       (unsigned long long)sum.wrong, (unsigned long long)sum.unexpected,
	       (unsigned long long)sum.disorder);
	if (loses_records(r->d))
		printf(", %s %llu (perf: %llu reports, normal %llu, event %llu), "
		       "over-reported %llu, reported early %llu, target mismatch %llu",
		       r->d->flight ? "overwritten" : "dropped",
		       (unsigned long long)r->tally->c[T_PERF].dropped,
		       (unsigned long long)r->tally->c[T_PERF].drop_lines,
		       (unsigned long long)r->tally->c[T_NORMAL].dropped,
		       (unsigned long long)r->tally->c[T_EVENT].dropped,
		       (unsigned long long)sum.excess, (unsigned long long)sum.early,
		       (unsigned long long)sum.mismatch);
	if (files)
		printf(", files %d", files);
	if (r->d->kind == D_STREAM || r->d->kind == D_DGRAM)
		printf(", %s %llu, bytes %llu",
		       r->d->kind == D_STREAM ? "connections" : "datagrams",
		       (unsigned long long)(r->d->kind == D_STREAM ? r->l.conns : r->l.packets),
		       (unsigned long long)r->l.bytes);
	if (r->d->kind == D_FIFO)
		printf(", bytes %llu", (unsigned long long)r->l.bytes);
	printf("; writers %.2f s, check %.2f s\n", r->t_write, r->t_check);
	if (r->tally->problem[0])
		printf("[stress]   first problem: %s\n", r->tally->problem);
	if (r->stderr_text && *r->stderr_text)
		printf("[stress]   writers' stderr: %.3000s\n", r->stderr_text);
	fflush(stdout);
}

static void assert_clean(const struct run *r)
{
	int i;

	assert_int_equal(r->failed_writers, 0);
	assert_string_equal(r->stderr_text, "");
	assert_int_equal(r->l.timed_out, 0);
	for (i = 0; i <= NTARGETS; i++) {
		const struct counts *c = &r->tally->c[i];

		/* PERF and EVENT: every record, or a drop and its report;
		 * NORMAL's share of the drops is unknown, but its records
		 * are PERF's (mismatch, lost, dup) */
		if (i == T_PERF || i == T_EVENT || (i == T_NORMAL && !r->tally->c[T_PERF].dropped))
			assert_int_equal(c->lines, expected_lines(r->tally, i) - c->dropped +
						   c->drop_lines);
		else if (i == UNKNOWN_TARGET)
			assert_int_equal(c->lines, 0);
		assert_int_equal(c->excess, 0);
		assert_int_equal(c->early, 0);
		assert_int_equal(c->mismatch, 0);
		if (!loses_records(r->d))
			assert_int_equal(c->drop_lines, 0);
		assert_int_equal(c->corrupt, 0);
		assert_int_equal(c->mixed, 0);
		assert_int_equal(c->wrong, 0);
		assert_int_equal(c->unexpected, 0);
		assert_int_equal(c->lost, 0);
		assert_int_equal(c->dup, 0);
		assert_int_equal(c->disorder, 0);
	}
	/* the flight rings are small: records were overwritten, and told */
	if (r->d->flight)
		assert_true(r->tally->c[T_PERF].dropped > 0);
}

static void start_listener(struct run *r)
{
	char *path = t2_path(r->dir, r->d->kind == D_FIFO ? "fifo" : "sock");

	r->l.tally = r->tally;
	r->l.deadline = t2_now() + RUN_DEADLINE_S + 30;
	if (r->d->kind == D_FIFO)
		assert_int_equal(fifo_open(&r->l, path), 0);
	else
		assert_int_equal(listener_open(&r->l, r->d->kind == D_STREAM ? SOCK_STREAM
									 : SOCK_DGRAM,
					       path),
				 0);
	free(path);
}

/* Fork the writers, serve the sockets or the FIFO, wait (bounded). */
static void run_writers(struct run *r)
{
	struct writer w[PROCS];
	int sockets = r->d->kind == D_STREAM || r->d->kind == D_DGRAM || r->d->kind == D_FIFO;
	double t0;

	if (sockets)
		start_listener(r);
	t0 = t2_now();
	/* the writers are forked before the listener thread exists */
	spawn_writers(r, w);
	if (sockets)
		assert_int_equal(pthread_create(&r->l.th, NULL, listener_main, &r->l), 0);
	wait_writers(r, t0 + RUN_DEADLINE_S);
	if (sockets) {
		__atomic_store_n(&r->l.done, 1, __ATOMIC_RELEASE);
		pthread_join(r->l.th, NULL);
		close(r->l.fd);
	}
	r->t_write = t2_now() - t0;
}

/* Check what arrived; returns the number of files (directory mode). */
static int check_output(struct run *r)
{
	double t0 = t2_now();
	int files = 0;

	if (r->d->kind == D_DGRAM)
		replay_packets(&r->l);
	if (r->d->kind == D_FILES)
		check_files(r);
	else if (r->d->kind == D_DIR)
		files = check_dir(r);
	tally_finish(r->tally);
	r->t_check = t2_now() - t0;
	return files;
}

/* Every record where it belongs. */
static void check_all_written(struct run *r)
{
	int files = check_output(r);

	report(r, files);
	if (r->d->kind == D_DIR)
		assert_int_equal(files, r->cfg.procs * NTARGETS);
	assert_clean(r);
}

/* The names in the run's directory (and in traces/) other than the
 * writers' stderr files, the socket and the traces directory itself: a
 * target's file; caller frees. */
static char *files_written(const struct run *r)
{
	char *names = t2_listdir(r->dir), *traces = t2_path(r->dir, "traces");
	char **v = t2_split(names, " ", NULL);
	char *found = strdup("");
	int i;

	for (i = 0; v[i] && *v[i]; i++)
		if (strncmp(v[i], "stderr.", 7) && strcmp(v[i], "sock") && strcmp(v[i], "traces"))
			t2_append(&found, " %s", v[i]);
	free(names);
	if (r->d->kind == D_DIR) {
		names = t2_listdir(traces);
		if (*names)
			t2_append(&found, " traces/{%s}", names);
		free(names);
	}
	t2_strv_free(v);
	free(traces);
	return found;
}

/* A tree sampled out, a flight never triggered: no file, no datagram, no
 * byte on a stream (a flight recorder connects at start all the same, a
 * process sampled out does not); the writers' exit codes and stderr as
 * without tracing. */
static void check_nothing_written(struct run *r)
{
	char *files = files_written(r);

	printf("[stress] %-13s %dx%dx%d: %s: files written:%s%.300s, connections %llu, "
	       "datagrams %llu, bytes %llu; writers not exited with %d: %d; writers %.2f s\n",
	       r->d->name, r->cfg.procs, r->cfg.threads, r->cfg.events,
	       r->d->sample == S_OUT ? "sampled out" : "not triggered", *files ? "" : " none",
	       files, (unsigned long long)r->l.conns, (unsigned long long)r->l.packets,
	       (unsigned long long)r->l.bytes, r->code, r->failed_writers, r->t_write);
	if (*r->stderr_text)
		printf("[stress]   writers' stderr: %.3000s\n", r->stderr_text);
	fflush(stdout);
	assert_string_equal(files, "");
	assert_int_equal(r->l.packets + r->l.bytes, 0);
	if (r->d->sample == S_OUT)
		assert_int_equal(r->l.conns, 0);
	assert_int_equal(r->l.timed_out, 0);
	assert_int_equal(r->failed_writers, 0);
	assert_string_equal(r->stderr_text, "");
	free(files);
}

static void run_destination(const struct dest *d)
{
	struct run r = { .d = d, .cfg = stress_cfg() };

	r.code = d->sample ? SAMPLED_EXIT : d->flight == F_TRIGGERED ? FLIGHT_EXIT : 0;
	r.dir = t2_scratch_dir();
	r.tally = tally_new(&r.cfg, d->sample == S_KEPT ? T2_ROOT_KEPT : NULL,
			    d->flight == F_TRIGGERED);
	set_env(&r);
	if (d->kind == D_DIR) {
		char *traces = t2_path(r.dir, "traces");

		assert_int_equal(mkdir(traces, 0777), 0);
		free(traces);
	}
	run_writers(&r);
	collect_stderr(&r);
	if (writes_nothing(d))
		check_nothing_written(&r);
	else
		check_all_written(&r);
	free(r.stderr_text);
	t2_env_free(&r.env);
	tally_free(r.tally);
}

/* ------------------------------------------------------------------ */
/* The checker must be able to fail.                                    */
/* ------------------------------------------------------------------ */

/* A non-brief PERF line of a thread of process 0. */
static char *perf_line_on(const char *thread, const char *category, const char *event,
			  const char *rel, const char *payload)
{
	char *s = NULL;

	t2_append(&s, "12:00:00.000000 %-28s | d0 | %-24s | %-12s |     |  0.000100 | "
		  "%9s | %-12s | %s", "test_stress.c:1", thread, event, rel,
		  category, payload);
	return s;
}

/* The same of worker s00w0. */
static char *perf_line_in(const char *category, const char *event, const char *rel,
			  const char *payload)
{
	return perf_line_on("th01:s00w0", category, event, rel, payload);
}

static char *perf_line(const char *event, const char *rel, const char *payload)
{
	return perf_line_in(CATEGORY, event, rel, payload);
}

static void checker_catches_damage(void **state)
{
	struct cfg cfg = { 1, 1, PATTERN_LEN };
	struct tally *t = tally_new(&cfg, NULL, 0);
	char *good = perf_line("region_enter", "", "label:L1 s00w0#0");
	char *data = perf_line("data", "0.000001", "..k:s00w0#1");
	char *flat = perf_line("data", "0.000001", "k:s00w0#3"); /* needs 4 dots */
	char *glued = NULL;
	const char *lines[] = {
		good, good, data, flat, NULL,
		"{\"event\":\"printf\",\"sid\":\"S\",\"thread\":\"th01:s00w0\",\"msg\":\"s00w0#4\"}",
		"{\"event\":\"printf\",\"sid\":\"S\",\"thread\":\"th01:s00w0\",\"msg\":\"s00w0#7\"",
		"{\"event\":\"printf\",\"sid\":\"S\",\"thr{\"event\":\"data\",\"sid\":\"S\"}",
	};
	size_t i;

	(void)state;
	t2_append(&glued, "%.100s%s", good, data);
	lines[4] = glued;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		tally_line(t, lines[i], strlen(lines[i]), T2_REC_BAD, NULL);
	/* a torn line: the start of a good one */
	tally_line(t, good, 60, T2_REC_BAD, NULL);
	tally_finish(t);
	assert_int_equal(t->c[1].lines, 4);
	assert_int_equal(t->c[1].dup, 1);
	assert_int_equal(t->c[1].wrong, 1);
	assert_true(t->c[1].lost > 0);
	assert_int_equal(t->c[2].lines, 1);
	assert_int_equal(t->c[2].wrong, 0);
	assert_int_equal(t->c[UNKNOWN_TARGET].corrupt, 4);
	assert_int_equal(t->c[UNKNOWN_TARGET].mixed, 2);
	free(good);
	free(data);
	free(flat);
	free(glued);
	tally_free(t);
}

/* The drop accounting must be able to fail too. */
static void checker_catches_bad_drop_reports(void **state)
{
	struct cfg cfg = { 1, 1, PATTERN_LEN };
	struct tally *t = tally_new(&cfg, NULL, 0);
	char *lines[] = {
		perf_line("thread_start", "", ""),
		/* reported before the records it counts */
		perf_line_in("trace2", "data", "0.000000", "dropped:2"),
		perf_line("region_enter", "", "label:L1 s00w0#0"),
		perf_line("data", "0.000001", "....k:s00w0#3"),
		perf_line_in("trace2", "data", "0.000000", "dropped:0"),
		/* 7 missing: #4..#9 and thread_exit; 2 + 9 reported */
		perf_line_in("trace2", "data", "0.000000", "dropped:9"),
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		tally_line(t, lines[i], strlen(lines[i]), T2_REC_PERF, NULL);
		free(lines[i]);
	}
	tally_finish(t);
	assert_int_equal(t->c[T_PERF].dropped, 11);
	assert_int_equal(t->c[T_PERF].drop_lines, 2);
	assert_int_equal(t->c[T_PERF].wrong, 1);
	assert_int_equal(t->c[T_PERF].early, 1);
	assert_int_equal(t->c[T_PERF].excess, 2);
	/* EVENT saw none of PERF's records (#0, #3, the thread's and the
	 * total drops), NORMAL none of its reports */
	assert_int_equal(t->c[T_EVENT].mismatch, 4);
	assert_int_equal(t->c[T_NORMAL].mismatch, 1);
	tally_free(t);
}

/* So must the trace2/sample accounting. */
static void checker_catches_bad_sample_records(void **state)
{
	struct cfg cfg = { 2, 1, PATTERN_LEN };
	struct tally *kept = tally_new(&cfg, T2_ROOT_KEPT, 0), *off = tally_new(&cfg, NULL, 0);
	char *perf_ok = perf_line_on("main", "trace2", "data", "0.000000", "sample:" T2_SAMPLE_RATE);
	char *perf_rate = perf_line_on("main", "trace2", "data", "0.000000", "sample:0.5");
	char *perf_worker = perf_line_in("trace2", "data", "0.000000", "sample:" T2_SAMPLE_RATE);
	const char *event_ok = "{\"event\":\"data\",\"sid\":\"" T2_ROOT_KEPT "/S1\",\"thread\":"
		"\"main\",\"nesting\":1,\"category\":\"trace2\",\"key\":\"sample\","
		"\"value\":\"" T2_SAMPLE_RATE "\"}";
	const char *event_root = "{\"event\":\"data\",\"sid\":\"" T2_ROOT_OUT "/S2\",\"thread\":"
		"\"main\",\"nesting\":1,\"category\":\"trace2\",\"key\":\"sample\","
		"\"value\":\"" T2_SAMPLE_RATE "\"}";
	const char *normal_ok = "12:00:00.000000 test_stress.c:1                   "
		"data trace2/sample value:" T2_SAMPLE_RATE;

	(void)state;
	/* kept: PERF one record of two, plus one at a wrong rate and one
	 * not on main; EVENT one under the root and one not; NORMAL none */
	tally_line(kept, perf_ok, strlen(perf_ok), T2_REC_PERF, NULL);
	tally_line(kept, perf_rate, strlen(perf_rate), T2_REC_PERF, NULL);
	tally_line(kept, perf_worker, strlen(perf_worker), T2_REC_PERF, NULL);
	tally_line(kept, event_ok, strlen(event_ok), T2_REC_EVENT, NULL);
	tally_line(kept, event_root, strlen(event_root), T2_REC_EVENT, NULL);
	tally_finish(kept);
	assert_int_equal(kept->marks[M_SAMPLE][T_PERF], 1);
	assert_int_equal(kept->c[T_PERF].wrong, 2);
	assert_int_equal(kept->marks[M_SAMPLE][T_EVENT], 1);
	assert_int_equal(kept->c[T_EVENT].wrong, 1);
	assert_int_equal(kept->marks[M_SAMPLE][T_NORMAL], 0);
	assert_true(kept->c[T_NORMAL].lost >= 2);
	/* not sampled: any sample record is wrong */
	tally_line(off, normal_ok, strlen(normal_ok), T2_REC_NORMAL, NULL);
	tally_line(off, perf_ok, strlen(perf_ok), T2_REC_PERF, NULL);
	tally_line(off, event_ok, strlen(event_ok), T2_REC_EVENT, NULL);
	assert_int_equal(off->c[T_NORMAL].wrong + off->c[T_PERF].wrong + off->c[T_EVENT].wrong, 3);
	free(perf_ok);
	free(perf_rate);
	free(perf_worker);
	tally_free(kept);
	tally_free(off);
}

/* And the flight recorder's: its trigger's record once per process, on
 * main, with the reason, on every target; its overwritten counts only in
 * flight mode, never beyond what is missing. */
static void checker_catches_bad_flight_records(void **state)
{
	struct cfg cfg = { 1, 1, PATTERN_LEN };
	struct tally *t = tally_new(&cfg, NULL, 1), *off = tally_new(&cfg, NULL, 0);
	char *lines[] = {
		perf_line_on("main", "trace2", "data", "0.000000", "flight:exit"),
		perf_line_on("main", "trace2", "data", "0.000000", "flight:signal"),
		perf_line_in("trace2", "data", "0.000000", "flight:exit"),
		/* 12 records of the thread made, none written */
		perf_line_in("trace2", "data", "0.000000", "overwritten:20"),
	};
	const char *normal = "12:00:00.000000 test_stress.c:1                   "
		"data trace2/flight value:" FLIGHT_REASON,
		   *normal_bad = "12:00:00.000000 test_stress.c:1                   "
		"data trace2/flight value:signal";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		tally_line(t, lines[i], strlen(lines[i]), T2_REC_PERF, NULL);
	tally_line(t, normal, strlen(normal), T2_REC_NORMAL, NULL);
	tally_line(t, normal_bad, strlen(normal_bad), T2_REC_NORMAL, NULL);
	tally_finish(t);
	assert_int_equal(t->marks[M_FLIGHT][T_NORMAL], 1);
	assert_int_equal(t->marks[M_FLIGHT][T_PERF], 1);
	assert_int_equal(t->c[T_PERF].wrong, 2);
	assert_int_equal(t->c[T_PERF].excess, 8);
	assert_int_equal(t->c[T_NORMAL].wrong, 1);
	assert_true(t->c[T_EVENT].lost > 0);
	/* not in flight mode: no trigger, no overwritten count */
	tally_line(off, lines[0], strlen(lines[0]), T2_REC_PERF, NULL);
	tally_line(off, lines[3], strlen(lines[3]), T2_REC_PERF, NULL);
	assert_int_equal(off->c[T_PERF].wrong, 2);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		free(lines[i]);
	tally_free(t);
	tally_free(off);
}

/* ------------------------------------------------------------------ */

static const struct dest DEST_FILES = { "files", D_FILES, NULL, NULL, S_OFF, F_OFF };
static const struct dest DEST_DIR = { "directory", D_DIR, NULL, NULL, S_OFF, F_OFF };
static const struct dest DEST_STREAM = { "af_unix-stream", D_STREAM, NULL, NULL, S_OFF, F_OFF };
static const struct dest DEST_DGRAM = { "af_unix-dgram", D_DGRAM, NULL, NULL, S_OFF, F_OFF };
static const struct dest DEST_FILES_BUF = { "files+64k", D_FILES, "64k", NULL, S_OFF, F_OFF };
static const struct dest DEST_DIR_BUF = { "directory+64k", D_DIR, "64k", NULL, S_OFF, F_OFF };
static const struct dest DEST_STREAM_BUF = { "stream+64k", D_STREAM, "64k", NULL, S_OFF, F_OFF };
static const struct dest DEST_FIFO = { "fifo", D_FIFO, NULL, NULL, S_OFF, F_OFF };
static const struct dest DEST_FIFO_BUF = { "fifo+64k", D_FIFO, "64k", NULL, S_OFF, F_OFF };
static const struct dest DEST_FIFO_DEFER = { "fifo+defer", D_FIFO, NULL, "", S_OFF, F_OFF };
static const struct dest DEST_FILES_DEFER = { "files+defer", D_FILES, NULL, "", S_OFF, F_OFF };
static const struct dest DEST_FILES_DEFER_4K = { "files+defer4k", D_FILES, NULL, "4k", S_OFF, F_OFF };
static const struct dest DEST_DIR_DEFER = { "dir+defer", D_DIR, NULL, "", S_OFF, F_OFF };
static const struct dest DEST_STREAM_DEFER_4K = { "stream+defer4k", D_STREAM, NULL, "4k", S_OFF, F_OFF };
static const struct dest DEST_FILES_KEPT = { "files+kept", D_FILES, NULL, NULL, S_KEPT, F_OFF };
static const struct dest DEST_FILES_OUT = { "files+out", D_FILES, NULL, NULL, S_OUT, F_OFF };
static const struct dest DEST_DIR_OUT = { "dir+out", D_DIR, NULL, NULL, S_OUT, F_OFF };
static const struct dest DEST_DIR_DEFER_OUT = { "dir+defer+out", D_DIR, NULL, "", S_OUT, F_OFF };
static const struct dest DEST_STREAM_OUT = { "stream+out", D_STREAM, NULL, NULL, S_OUT, F_OFF };
static const struct dest DEST_FILES_FLIGHT = { "files+flight", D_FILES, NULL, NULL, S_OFF, F_TRIGGERED };
static const struct dest DEST_DIR_FLIGHT = { "dir+flight", D_DIR, NULL, NULL, S_OFF, F_TRIGGERED };
static const struct dest DEST_STREAM_FLIGHT = { "stream+flight", D_STREAM, NULL, NULL, S_OFF, F_TRIGGERED };
static const struct dest DEST_FILES_QUIET = { "files+quiet", D_FILES, NULL, NULL, S_OFF, F_QUIET };
static const struct dest DEST_DIR_QUIET = { "dir+quiet", D_DIR, NULL, NULL, S_OFF, F_QUIET };
static const struct dest DEST_STREAM_QUIET = { "stream+quiet", D_STREAM, NULL, NULL, S_OFF, F_QUIET };

static void stress_files(void **state) { (void)state; run_destination(&DEST_FILES); }
static void stress_directory(void **state) { (void)state; run_destination(&DEST_DIR); }
static void stress_af_unix_stream(void **state) { (void)state; run_destination(&DEST_STREAM); }
static void stress_af_unix_dgram(void **state) { (void)state; run_destination(&DEST_DGRAM); }
static void stress_files_buffered(void **state) { (void)state; run_destination(&DEST_FILES_BUF); }
static void stress_directory_buffered(void **state) { (void)state; run_destination(&DEST_DIR_BUF); }
static void stress_stream_buffered(void **state) { (void)state; run_destination(&DEST_STREAM_BUF); }
static void stress_fifo(void **state) { (void)state; run_destination(&DEST_FIFO); }
static void stress_fifo_buffered(void **state) { (void)state; run_destination(&DEST_FIFO_BUF); }
static void stress_fifo_deferred(void **state) { (void)state; run_destination(&DEST_FIFO_DEFER); }
static void stress_files_deferred(void **state) { (void)state; run_destination(&DEST_FILES_DEFER); }
static void stress_files_deferred_4k(void **state) { (void)state; run_destination(&DEST_FILES_DEFER_4K); }
static void stress_directory_deferred(void **state) { (void)state; run_destination(&DEST_DIR_DEFER); }
static void stress_stream_deferred_4k(void **state) { (void)state; run_destination(&DEST_STREAM_DEFER_4K); }
static void stress_files_sampled_kept(void **state) { (void)state; run_destination(&DEST_FILES_KEPT); }
static void stress_files_sampled_out(void **state) { (void)state; run_destination(&DEST_FILES_OUT); }
static void stress_directory_sampled_out(void **state) { (void)state; run_destination(&DEST_DIR_OUT); }
static void stress_directory_deferred_sampled_out(void **state) { (void)state; run_destination(&DEST_DIR_DEFER_OUT); }
static void stress_stream_sampled_out(void **state) { (void)state; run_destination(&DEST_STREAM_OUT); }
static void stress_files_flight(void **state) { (void)state; run_destination(&DEST_FILES_FLIGHT); }
static void stress_directory_flight(void **state) { (void)state; run_destination(&DEST_DIR_FLIGHT); }
static void stress_stream_flight(void **state) { (void)state; run_destination(&DEST_STREAM_FLIGHT); }
static void stress_files_flight_quiet(void **state) { (void)state; run_destination(&DEST_FILES_QUIET); }
static void stress_directory_flight_quiet(void **state) { (void)state; run_destination(&DEST_DIR_QUIET); }
static void stress_stream_flight_quiet(void **state) { (void)state; run_destination(&DEST_STREAM_QUIET); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(checker_catches_damage, t2_scratch_cleanup),
		cmocka_unit_test_teardown(checker_catches_bad_drop_reports, t2_scratch_cleanup),
		cmocka_unit_test_teardown(checker_catches_bad_sample_records, t2_scratch_cleanup),
		cmocka_unit_test_teardown(checker_catches_bad_flight_records, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_directory, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_af_unix_stream, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_af_unix_dgram, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files_buffered, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_directory_buffered, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_stream_buffered, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_fifo, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_fifo_buffered, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_fifo_deferred, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files_deferred, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files_deferred_4k, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_directory_deferred, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_stream_deferred_4k, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files_sampled_kept, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files_sampled_out, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_directory_sampled_out, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_directory_deferred_sampled_out, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_stream_sampled_out, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files_flight, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_directory_flight, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_stream_flight, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_files_flight_quiet, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_directory_flight_quiet, t2_scratch_cleanup),
		cmocka_unit_test_teardown(stress_stream_flight_quiet, t2_scratch_cleanup),
	};

	t2_leak_check_runner_only();
	if (getenv("T2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("T2_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
