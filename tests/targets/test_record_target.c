/*
 * The record target under load: threads whose rings wrap many times,
 * rings that fill while the writer is stalled (trace2.ringFull drop and
 * wait), a forked child, huge messages, a file that reaches its
 * maxFileSize, log rotation.  A small walker of docs/record-format.md
 * counts what each file holds; tests/targets/test_record.sh checks the
 * records' contents against the event target's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "tr2_plat.h"
#include "tr2_sys.h"
#include "trace2.h"
#include "trace2/target.h"

/* ---------------------------------------------------------------- */
/* A walker of recordings: counts, per process, of what they hold.    */

#define PROCS 4
#define THREADS 16

struct proc_count {
	uint64_t key;
	size_t regions[THREADS];   /* region_enter and region_leave records */
	size_t records[THREADS];
	size_t site_records[THREADS];
	uint64_t dropped[THREADS];
	size_t strings, threads, tz, ends, processes;
	uint64_t sites;            /* entries of its SITES blocks */
	unsigned char named[THREADS];  /* a THREAD block named it */
	int unnamed;               /* an EVENTS block of a thread not named */
	int last_kind;             /* of the last record read */
	int end_reason;
	uint64_t last_time[THREADS];
	int backwards;             /* a thread's times went back */
	uint64_t level[THREADS];   /* 1 + the regions open (0: not seen) */
	size_t unpaired;           /* records whose nesting does not fit */
};

#define WALK_STRINGS 256
#define WALK_LABELS 64
#define WALK_SITES 1024
#define HEAD_T_REL 0x40
#define HEAD_SITE 0x80

struct walk {
	struct proc_count p[PROCS];
	size_t nprocs;
	int bad;                   /* what the walker could not read */
	size_t big_msgs;           /* region messages over 64 KiB */
	/* the first process's string table (numbers from 2), and the labels
	 * of its first region_enter records */
	char strings[WALK_STRINGS][64];
	uint64_t site_labels[WALK_SITES]; /* its sites' label string numbers */
	char labels[WALK_LABELS][64];
	size_t nlabels;
};

struct cur {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t uv(struct cur *c)
{
	uint64_t v = 0;
	int shift;

	for (shift = 0; shift < 70 && c->p < c->end; shift += 7) {
		unsigned char b = *c->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static uint64_t u64(struct cur *c)
{
	uint64_t v = 0;
	int i;

	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	for (i = 7; i >= 0; i--)
		v = v << 8 | c->p[i];
	c->p += 8;
	return v;
}

static size_t skip_bytes(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	c->p += n;
	return (size_t)n;
}

/* str: its length (0 for absent) */
static size_t skip_str(struct cur *c)
{
	uint64_t n = uv(c);

	return n ? skip_bytes(c, n - 1) : 0;
}

static void skip_istr(struct cur *c)
{
	if (uv(c) == 1)
		skip_bytes(c, uv(c));
}

/* The first process's string n into out (64 bytes; empty when absent or
 * beyond the walker's table). */
static void table_string(const struct walk *w, uint64_t n, char *out)
{
	out[0] = '\0';
	if (n >= 2 && n < WALK_STRINGS)
		memcpy(out, w->strings[n], 64);
}

/* An istr's text into out (64 bytes): from the table or in place. */
static void read_istr(struct cur *c, const struct walk *w, char *out)
{
	uint64_t n = uv(c), len;

	table_string(w, n, out);
	if (n == 1) {
		len = uv(c);
		if (len < 64 && (uint64_t)(c->end - c->p) >= len) {
			memcpy(out, c->p, len);
			out[len] = '\0';
		}
		skip_bytes(c, len);
	}
}

static void skip_argv(struct cur *c)
{
	uint64_t n = uv(c);

	for (; n > 1 && !c->bad; n--)
		skip_bytes(c, uv(c));
}

static struct proc_count *proc_of(struct walk *w, uint64_t key)
{
	size_t i;

	for (i = 0; i < w->nprocs; i++)
		if (w->p[i].key == key)
			return &w->p[i];
	if (w->nprocs == PROCS)
		return NULL;
	w->p[w->nprocs].key = key;
	return &w->p[w->nprocs++];
}

/* A full record's location and fields: its label (a region's) into
 * label; returns the length of its last str (a region's msg). */
static size_t walk_fields(const struct walk *w, int kind, struct cur *c, char *label)
{
	size_t msg_len = 0, nistr = 0;
	char istr[4][64];

	skip_istr(c);
	uv(c);
	switch (kind) {
#define TR2_REC(fields) fields
#define TR2_NO_REC
#define TR2_R_STR(f) msg_len = skip_str(c);
#define TR2_R_ISTR(f) read_istr(c, w, istr[nistr++ & 3]);
#define TR2_R_SV(f) uv(c);
#define TR2_R_UV(f) uv(c);
#define TR2_R_ARGV(f) skip_argv(c);
#define TR2_R_JSON(m) skip_str(c), skip_bytes(c, 2);
#define TR2_KIND(kind, name, payload, strings, argv, rec, keys) \
	case TRACE2_EVENT_##kind:                               \
		rec break;
#include "tr2_kinds.def"
	default:
		c->bad = 1;
	}
	if (nistr >= 2)
		memcpy(label, istr[1], 64);
	return msg_len;
}

static int is_region(int kind)
{
	return kind == TRACE2_EVENT_REGION_ENTER || kind == TRACE2_EVENT_REGION_LEAVE;
}

/* A site record's site number: a site its process defined, its label
 * (the first process's sites) into label. */
static void walk_site(const struct walk *w, const struct proc_count *pc, int kind,
		      struct cur *c, char *label)
{
	uint64_t site = uv(c);

	if (!is_region(kind) || site >= pc->sites)
		c->bad = 1;
	else if (pc == &w->p[0] && site < WALK_SITES)
		table_string(w, w->site_labels[site], label);
}

/*
 * A record's nesting against its thread's level: an enter at the level,
 * a leave of an open region at the level below, a data record at the
 * level; a thread ends with its regions left.  What does not fit is
 * counted in pc->unpaired.
 */
static void walk_nesting(struct proc_count *pc, int tid, int kind, uint64_t nesting)
{
	uint64_t *level = &pc->level[tid];

	if (!*level)
		*level = 1;
	switch (kind) {
	case TRACE2_EVENT_REGION_ENTER:
		pc->unpaired += nesting != *level;
		*level = nesting + 1;
		break;
	case TRACE2_EVENT_REGION_LEAVE:
		pc->unpaired += *level <= 1 || nesting != *level - 1;
		*level = nesting;
		break;
	case TRACE2_EVENT_DATA:
	case TRACE2_EVENT_DATA_JSON:
		pc->unpaired += nesting != *level;
		break;
	case TRACE2_EVENT_THREAD_EXIT:
		pc->unpaired += *level != 1;
		break;
	default:
		break;
	}
}

/* One record of an EVENTS block of thread tid: a full record or a site
 * record (head bit 7). */
static void walk_record(struct walk *w, struct proc_count *pc, int tid, struct cur *c,
			uint64_t *time)
{
	int head = *c->p++, kind = head & 0x3f;
	uint64_t dtime = uv(c);
	size_t msg_len = 0;
	char label[64] = "";

	*time += (uint64_t)((int64_t)(dtime >> 1) ^ -(int64_t)(dtime & 1));
	if (!(head & HEAD_SITE))
		uv(c); /* dt_abs */
	walk_nesting(pc, tid, kind, uv(c));
	if (head & HEAD_T_REL)
		uv(c);
	if (head & HEAD_SITE) {
		walk_site(w, pc, kind, c, label);
		pc->site_records[tid]++;
	} else
		msg_len = walk_fields(w, kind, c, label);
	if (kind == TRACE2_EVENT_REGION_ENTER && pc == &w->p[0] && w->nlabels < WALK_LABELS)
		memcpy(w->labels[w->nlabels++], label, 64);
	if (is_region(kind)) {
		pc->regions[tid]++;
		if (msg_len > 65536)
			w->big_msgs++;
	}
	pc->records[tid]++;
	pc->last_kind = kind;
	if (*time < pc->last_time[tid])
		pc->backwards = 1;
	pc->last_time[tid] = *time;
}

/* A SITES block: its entries follow the process's last (the first
 * process's keep their label string numbers). */
static void walk_sites(struct walk *w, struct proc_count *pc, struct cur *b)
{
	uint64_t first = uv(b), count = uv(b), i, label;

	if (first != pc->sites) {
		b->bad = 1;
		return;
	}
	for (i = 0; i < count && !b->bad; i++) {
		uv(b); /* file */
		uv(b); /* line */
		uv(b); /* category */
		label = uv(b);
		uv(b); /* repo */
		if (pc == &w->p[0] && first + i < WALK_SITES)
			w->site_labels[first + i] = label;
	}
	pc->sites = first + i;
	if (b->p != b->end)
		b->bad = 1;
}

/* A STRINGS block into the walker's table. */
static void walk_strings(struct walk *w, struct cur *b)
{
	uint64_t first = uv(b), count = uv(b), i, len;

	for (i = 0; i < count && !b->bad; i++) {
		len = uv(b);
		if (first + i < WALK_STRINGS && len < 64 && (uint64_t)(b->end - b->p) >= len) {
			memcpy(w->strings[first + i], b->p, len);
			w->strings[first + i][len] = '\0';
		}
		skip_bytes(b, len);
	}
}

static void walk_file(struct walk *w, const char *path)
{
	size_t len;
	char *text = t2_read_file(path, &len);
	struct cur c;

	memset(w, 0, sizeof(*w));
	assert_non_null(text);
	assert_true(len >= 16);
	assert_memory_equal(text, "\x89T2R\r\n\x1a\n\2\0\0\0\0\0\0\0", 16);
	c.p = (const unsigned char *)text + 16;
	c.end = (const unsigned char *)text + len;
	c.bad = 0;
	while (c.p < c.end && !c.bad) {
		struct cur b;
		uint32_t blen;
		uint64_t key, time;
		struct proc_count *pc;
		int type, tid;

		if (c.end - c.p < 16) {
			c.bad = 1;
			break;
		}
		type = c.p[0];
		blen = (uint32_t)c.p[4] | (uint32_t)c.p[5] << 8 | (uint32_t)c.p[6] << 16 |
		       (uint32_t)c.p[7] << 24;
		c.p += 8;
		key = u64(&c);
		if ((size_t)(c.end - c.p) < blen || !(pc = proc_of(w, key))) {
			c.bad = 1;
			break;
		}
		b.p = c.p;
		b.end = c.p + blen;
		b.bad = 0;
		c.p += blen;
		switch (type) {
		case 1:
			pc->processes++;
			break;
		case 2:
			pc->strings++;
			if (pc == &w->p[0])
				walk_strings(w, &b);
			break;
		case 3:
			pc->threads++;
			tid = (int)uv(&b);
			if (tid < THREADS)
				pc->named[tid] = 1;
			break;
		case 4:
			tid = (int)uv(&b);
			if (tid >= THREADS) {
				b.bad = 1;
				break;
			}
			if (!pc->named[tid])
				pc->unnamed = 1;
			time = u64(&b);
			u64(&b);
			while (b.p < b.end && !b.bad)
				walk_record(w, pc, tid, &b, &time);
			break;
		case 5:
			pc->tz++;
			break;
		case 6:
			tid = (int)uv(&b);
			if (tid < THREADS)
				pc->dropped[tid] += uv(&b);
			break;
		case 7:
			pc->ends++;
			pc->end_reason = b.p < b.end ? *b.p : -1;
			break;
		case 8:
			walk_sites(w, pc, &b);
			break;
		}
		c.bad |= b.bad;
	}
	w->bad = c.bad;
	free(text);
}

/* ---------------------------------------------------------------- */
/* Scenarios.                                                         */

struct load {
	int threads;
	int pairs;
};

static void *region_loop(void *arg)
{
	const struct load *l = arg;
	int i;

	trace2_thread_start("loop");
	for (i = 0; i < l->pairs; i++) {
		trace2_region_enter("rec", "pair", NULL);
		trace2_region_leave("rec", "pair", NULL);
	}
	trace2_thread_exit();
	return NULL;
}

static void run_threads(void *arg)
{
	const struct load *l = arg;
	pthread_t th[THREADS];
	int i;

	for (i = 0; i < l->threads; i++)
		CHECK(!pthread_create(&th[i], NULL, region_loop, arg));
	for (i = 0; i < l->threads; i++)
		pthread_join(th[i], NULL);
}

static ssize_t (*real_write)(int, const void *, size_t);
static useconds_t stall_us = 20000;

/* The writer stalls: every write of the recording waits stall_us (20 ms
 * unless a test says). */
static ssize_t slow_write(int fd, const void *buf, size_t n)
{
	if (n > 64)
		usleep(stall_us);
	return real_write(fd, buf, n);
}

static void run_threads_stalled(void *arg)
{
	real_write = tr2_sys.write;
	tr2_sys.write = slow_write; /* before the writer thread starts */
	trace2_initialize();
	run_threads(arg);
}

struct fixture {
	char *dir, *path;
	char *env[8];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->dir = t2_tmpdir();
	f->path = t2_path(f->dir, "rec");
	f->env[0] = t2_xfmt("GIT_TRACE2_RECORD=%s", f->path);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int i;

	t2_rmtree(f->dir);
	for (i = 0; f->env[i]; i++)
		free(f->env[i]);
	free(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static int scale(int n)
{
	return UNDER_SANITIZER ? n / 10 : n;
}

/* fn with the smallest ring, its recording walked into w and readable. */
static void run_small_ring(struct fixture *f, t2_scenario_fn *fn, struct walk *w)
{
	f->env[1] = strdup("GIT_TRACE2_RECORD_RING=16k");
	assert_int_equal(t2_run(fn, NULL, (const char *const *)f->env), 0);
	walk_file(w, f->path);
	assert_false(w->bad);
}

/* Every region pair of every thread, through rings that wrap ~50 times. */
static void test_rings_wrap_nothing_lost(void **state)
{
	struct fixture *f = *state;
	struct load l = { 4, scale(20000) };
	struct walk w;
	int t;

	f->env[1] = strdup("GIT_TRACE2_RECORD_RING=16k");
	f->env[2] = strdup("GIT_TRACE2_RING_FULL=wait");
	assert_int_equal(t2_run(run_threads, &l, (const char *const *)f->env), 0);
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.nprocs, 1);
	assert_false(w.p[0].backwards);
	assert_int_equal(w.p[0].ends, 1);
	assert_int_equal(w.p[0].end_reason, 0);
	for (t = 1; t <= l.threads; t++) {
		assert_int_equal(w.p[0].regions[t], 2 * (size_t)l.pairs);
		assert_int_equal(w.p[0].dropped[t], 0);
		/* regions without a message: most are site records */
		assert_true(2 * w.p[0].site_records[t] > w.p[0].regions[t]);
	}
}

/* A stalled writer and trace2.ringFull=drop: what is not recorded is
 * counted, exactly. */
static void test_full_ring_drops_are_counted(void **state)
{
	struct fixture *f = *state;
	struct load l = { 2, scale(50000) };
	struct walk w;
	uint64_t dropped = 0;
	int t;

	f->env[1] = strdup("GIT_TRACE2_RECORD_RING=16k");
	assert_int_equal(t2_run_noinit(run_threads_stalled, &l, (const char *const *)f->env), 0);
	walk_file(&w, f->path);
	assert_false(w.bad);
	for (t = 1; t <= l.threads; t++) {
		/* thread_start, the pairs, thread_exit: each recorded or
		 * counted */
		assert_int_equal(w.p[0].records[t] + w.p[0].dropped[t], 2 * (size_t)l.pairs + 2);
		dropped += w.p[0].dropped[t];
	}
	assert_true(dropped > 0);
}

/* ---------------------------------------------------------------- */
/* Lost records never break the log.                                  */

static int nest_pairs(void)
{
	return scale(100000);
}

/*
 * Regions three deep, data and data_json inside them, the deepest with
 * messages (full records, not site records), a printf in the middle;
 * the records the calls make counted as they are made.
 */
static void *nested_loop(void *arg)
{
	uint64_t *made = arg;
	struct json_writer jw;
	int i;

	trace2_jw_init(&jw);
	t2_jw_api_example(&jw);
	trace2_thread_start("nest");
	*made = 1;
	for (i = 0; i < nest_pairs(); i++) {
		trace2_region_enter("rec", "outer", NULL);
		trace2_data_intmax("rec", NULL, "i", i);
		trace2_region_enter("rec", "inner", NULL);
		trace2_data_string("rec", NULL, "k", "v");
		trace2_region_enter_printf("rec", "deep", NULL, "at %d", i);
		trace2_data_json("rec", NULL, "j", &jw);
		trace2_region_leave_printf("rec", "deep", NULL, "left %d", i);
		trace2_region_leave("rec", "inner", NULL);
		trace2_printf("between %d", i);
		trace2_region_leave("rec", "outer", NULL);
		*made += 10;
	}
	trace2_thread_exit();
	*made += 1;
	trace2_jw_release(&jw);
	return NULL;
}

#define NEST_THREADS 4

/* Four threads at full speed, a writer slowed down (stall_us a write);
 * the records they made into the file "made" (a number a line). */
static void run_nested_stalled(void *arg)
{
	const struct fixture *f = arg;
	pthread_t th[NEST_THREADS];
	uint64_t made[NEST_THREADS];
	char *path = t2_path(f->dir, "made"), *text = NULL;
	int i;

	real_write = tr2_sys.write;
	tr2_sys.write = slow_write;
	trace2_initialize();
	for (i = 0; i < NEST_THREADS; i++)
		CHECK(!pthread_create(&th[i], NULL, nested_loop, &made[i]));
	for (i = 0; i < NEST_THREADS; i++) {
		pthread_join(th[i], NULL);
		t2_append(&text, "%llu\n", (unsigned long long)made[i]);
	}
	CHECK(!t2_write_file(path, text));
	free(text);
	free(path);
}

/* The trace2 command with args (NULL-terminated), into p; its status
 * asserted 0. */
static void trace2_ok(const char *const *args, struct t2_proc *p)
{
	static const char *const env[] = { "TZ=UTC", "GIT_TRACE2_EVENT_NESTING=10", NULL };

	t2_trace2(env, args, 120, p);
	if (p->status)
		print_message("trace2 %s: status %d\n%s%s", args[0], p->status, p->out, p->err);
	assert_int_equal(p->status, 0);
}

/* `trace2 validate --strict` of path: 0, and not a word of warning. */
static void validates_strictly(const char *path)
{
	const char *args[] = { "validate", "--strict", path, NULL };
	struct t2_proc p;

	trace2_ok(args, &p);
	assert_string_equal(p.out, "");
	assert_true(t2_matches(p.err, "^trace2 validate: [0-9]+ lines, [0-9]+ records, "
			       "0 errors, 0 warnings\n$"));
	t2_proc_free(&p);
}

/* `trace2 convert`: nothing but the output file. */
static void converts(const char *const *args)
{
	struct t2_proc p;

	trace2_ok(args, &p);
	assert_string_equal(p.out, "");
	assert_string_equal(p.err, "");
	t2_proc_free(&p);
}

/* The first needle in [p, end), or NULL (strstr() would measure the
 * rest of a large text at each call under the sanitizers). */
static const char *find_in(const char *p, const char *end, const char *needle)
{
	size_t len = strlen(needle);

	for (; (p = memchr(p, needle[0], (size_t)(end - p))) && (size_t)(end - p) >= len; p++)
		if (!memcmp(p, needle, len))
			return p;
	return NULL;
}

/* The sum of the values of the trace2/dropped data records of an event
 * log. */
static uint64_t dropped_in_event_log(const char *text)
{
	const char *key = "\"category\":\"trace2\",\"key\":\"dropped\",\"value\":\"";
	const char *p, *end = text + strlen(text);
	uint64_t sum = 0;

	for (p = find_in(text, end, key); p; p = find_in(p, end, key)) {
		p += strlen(key);
		sum += strtoull(p, NULL, 10);
	}
	return sum;
}

static size_t occurrences(const char *text, const char *needle)
{
	const char *end = text + strlen(text);
	size_t n = 0;

	for (text = find_in(text, end, needle); text; text = find_in(text + 1, end, needle))
		n++;
	return n;
}

/*
 * Overload: four threads at full speed, the smallest ring, a writer that
 * cannot keep up (200 us a write), trace2.ringFull=drop.  The recording and what it converts to
 * validate strictly (no region left whose enter was lost, none left
 * open, the drop records at the thread's level), and the drops told are
 * exactly the records made less the records written.
 */
static void test_overload_keeps_the_log_whole(void **state)
{
	struct fixture *f = *state;
	char *made_path = t2_path(f->dir, "made"), *ev_path = t2_path(f->dir, "ev.json");
	char *perf_path = t2_path(f->dir, "perf.txt"), *made_text, *ev, **lines;
	const char *to_event[] = { "convert", "--to", "event", "-o", ev_path, f->path, NULL };
	const char *to_perf[] = { "convert", "--to", "perf", "-o", perf_path, f->path, NULL };
	const char *summary[] = { "summary", f->path, NULL };
	uint64_t made = 0, written = 0, dropped = 0;
	struct t2_proc p;
	struct walk w;
	size_t n, i;
	int t;

	T2_SKIP_UNDER_EMULATOR("the trace2 command runs natively only");
	stall_us = 200;
	f->env[1] = strdup("GIT_TRACE2_RECORD_RING=16k");
	f->env[2] = strdup("GIT_TRACE2_RING_FULL=drop");
	assert_int_equal(t2_run_noinit(run_nested_stalled, f, (const char *const *)f->env), 0);
	stall_us = 20000;
	made_text = t2_read_file(made_path, NULL);
	assert_non_null(made_text);
	lines = t2_lines(made_text, &n);
	assert_int_equal(n, NEST_THREADS);
	for (i = 0; i < n; i++)
		made += strtoull(lines[i], NULL, 10);
	t2_strv_free(lines);
	free(made_text);

	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.p[0].dropped[0], 0); /* the main thread's ring kept up */
	for (t = 1; t <= NEST_THREADS; t++) {
		written += w.p[0].records[t];
		dropped += w.p[0].dropped[t];
	}
	print_message("made %llu, written %llu, dropped %llu\n", (unsigned long long)made,
		      (unsigned long long)written, (unsigned long long)dropped);
	assert_true(dropped > 0);
	assert_true(written > 0);
	assert_int_equal(dropped, made - written);
	assert_int_equal(w.p[0].unpaired, 0);

	validates_strictly(f->path);
	converts(to_event);
	validates_strictly(ev_path);
	ev = t2_read_file(ev_path, NULL);
	assert_non_null(ev);
	assert_int_equal(dropped_in_event_log(ev), dropped);
	free(ev);
	converts(to_perf);
	ev = t2_read_file(perf_path, NULL);
	assert_non_null(ev);
	assert_true(occurrences(ev, "| region_enter |") > 0);
	assert_int_equal(occurrences(ev, "| region_enter |"), occurrences(ev, "| region_leave |"));
	free(ev);
	trace2_ok(summary, &p);
	assert_string_equal(p.err, "");
	assert_null(strstr(p.out, "never left"));
	assert_null(strstr(p.out, "without region_enter"));
	t2_proc_free(&p);
	free(made_path);
	free(ev_path);
	free(perf_path);
}

static void *no_memory(void *p, size_t n)
{
	(void)p;
	(void)n;
	return NULL;
}

/* Records longer than a ring holds (4 KiB) while memory for them runs
 * out: see test_no_memory_keeps_the_log_whole. */
static void long_records_without_memory(void *arg)
{
	void *(*real_realloc)(void *, size_t) = tr2_sys.realloc;
	char msg[8192];

	(void)arg;
	memset(msg, 'm', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	tr2_sys.realloc = no_memory;
	trace2_region_enter_printf("rec", "lost", NULL, "%s", msg);
	trace2_data_string("rec", NULL, "in", "lost");
	trace2_region_enter("rec", "inside", NULL);
	trace2_region_leave("rec", "inside", NULL);
	trace2_region_leave("rec", "lost", NULL);
	trace2_region_enter("rec", "kept", NULL);
	trace2_region_leave_printf("rec", "kept", NULL, "%s", msg);
	tr2_sys.realloc = real_realloc;
}

/*
 * An enter that cannot be recorded (no memory for its long message) is
 * lost with its whole region: the data, the region inside it, its leave;
 * a leave whose enter was recorded is written all the same, without its
 * message.  The recording validates strictly.
 */
static void test_no_memory_keeps_the_log_whole(void **state)
{
	struct fixture *f = *state;
	struct walk w;

	T2_SKIP_UNDER_EMULATOR("the trace2 command runs natively only");
	run_small_ring(f, long_records_without_memory, &w);
	assert_int_equal(w.p[0].regions[0], 2);
	assert_int_equal(w.p[0].dropped[0], 5);
	assert_int_equal(w.p[0].unpaired, 0);
	assert_int_equal(w.nlabels, 1);
	assert_string_equal(w.labels[0], "kept");
	validates_strictly(f->path);
}

#define DEEP 300
/* Regions the smallest ring keeps the leaves of, from an empty ring:
 * (16 KiB - a record's 4 KiB and 2) / 64 bytes per leave. */
#define DEEP_KEPT 191

/* Regions DEEP deep, the ring emptied before each enter. */
static void deep_regions(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < DEEP; i++) {
		trace2_flush();
		trace2_region_enter("rec", "deep", NULL);
	}
	for (i = 0; i < DEEP; i++)
		trace2_region_leave("rec", "deep", NULL);
}

/*
 * A region nested deeper than the ring keeps leaves for is lost with
 * everything inside it, at once even with trace2.ringFull=wait (waiting
 * would never make that room); the regions around it are whole.
 */
static void test_deeper_than_the_ring_keeps_leaves_for(void **state)
{
	struct fixture *f = *state;
	struct walk w;
	double start = t2_now();

	f->env[1] = strdup("GIT_TRACE2_RECORD_RING=16k");
	f->env[2] = strdup("GIT_TRACE2_RING_FULL=wait");
	assert_int_equal(t2_run(deep_regions, NULL, (const char *const *)f->env), 0);
	/* not the destination timeout's 5 s for the lost enter */
	assert_true(t2_now() - start < 2.5);
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.p[0].regions[0], 2 * DEEP_KEPT);
	assert_int_equal(w.p[0].dropped[0], 2 * (DEEP - DEEP_KEPT));
	assert_int_equal(w.p[0].unpaired, 0);
}

/*
 * Data records whose strings run up to the encoder's limit: a file name
 * too long for the string table, written in place up to a few bytes
 * before the limit (its length tried over a range: the times before it
 * vary), then a long line number, a category and key whose numbers take
 * two bytes each, so the value starts past the limit.
 */
static void strings_up_to_the_limit(void *arg)
{
	static char file[4000], value[20000], names[200][8];
	int i, len;

	(void)arg;
	for (i = 0; i < 200; i++) {
		snprintf(names[i], sizeof(names[i]), "n%d", i);
		trace2_data_string("pad", NULL, names[i], "x");
	}
	memset(value, 'v', sizeof(value) - 1);
	for (len = 3780; len < 3840; len++) {
		memset(file, 'f', (size_t)len);
		file[len] = '\0';
		trace2_flush();
		trace2_data_string_fl(file, 0x7fffffff, names[150], NULL, names[199], value);
	}
}

/* A string that would start past the encoder's limit goes, with its
 * record, to the heap like any long one: nothing written past the ring. */
static void test_strings_up_to_the_limit(void **state)
{
	struct fixture *f = *state;
	struct walk w;

	run_small_ring(f, strings_up_to_the_limit, &w);
	assert_int_equal(w.p[0].dropped[0], 0);
}

/* The same stall with trace2.ringFull=wait loses nothing. */
static void test_full_ring_waits(void **state)
{
	struct fixture *f = *state;
	struct load l = { 2, scale(20000) };
	struct walk w;
	int t;

	f->env[1] = strdup("GIT_TRACE2_RECORD_RING=16k");
	f->env[2] = strdup("GIT_TRACE2_RING_FULL=wait");
	assert_int_equal(t2_run_noinit(run_threads_stalled, &l, (const char *const *)f->env), 0);
	walk_file(&w, f->path);
	assert_false(w.bad);
	for (t = 1; t <= l.threads; t++) {
		assert_int_equal(w.p[0].records[t], 2 * (size_t)l.pairs + 2);
		assert_int_equal(w.p[0].dropped[t], 0);
	}
}

static void fork_and_record(void *arg)
{
	pid_t pid;
	int i, status, pairs = *(const int *)arg;


	for (i = 0; i < 100; i++) {
		trace2_region_enter("rec", "parent", NULL);
		trace2_region_leave("rec", "parent", NULL);
	}
	trace2_flush(); /* the parent's thread named in the file before the fork */
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		for (i = 0; i < pairs; i++) {
			trace2_region_enter("rec", "child", NULL);
			trace2_region_leave("rec", "child", NULL);
		}
		exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && status == 0);
}

/* A forked child writes its own process's blocks (its thread named
 * again), none of its parent's records again; without a writer thread of
 * its own, a child whose ring fills writes it itself, nothing dropped. */
static void forked_child(struct fixture *f, int pairs)
{
	struct walk w;
	size_t total = 0, i;

	T2_SKIP_ON_WINDOWS("no fork()");
	assert_int_equal(t2_run(fork_and_record, &pairs, (const char *const *)f->env), 0);
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.nprocs, 2);
	for (i = 0; i < w.nprocs; i++) {
		assert_int_equal(w.p[i].ends, 1);
		assert_false(w.p[i].unnamed);
		assert_int_equal(w.p[i].dropped[0], 0);
		total += w.p[i].regions[0];
	}
	assert_int_equal(total, 2 * 100 + 2 * (size_t)pairs);
}

static void test_forked_child_records_its_own(void **state)
{
	forked_child(*state, 10);
}

static void test_forked_child_fills_its_ring(void **state)
{
	struct fixture *f = *state;

	f->env[1] = strdup("GIT_TRACE2_RECORD_RING=16k");
	forked_child(f, 20000);
}

static void huge_messages(void *arg)
{
	size_t n = 200000;
	char *msg = malloc(n + 1);
	int i;

	(void)arg;
	CHECK(msg);
	memset(msg, 'm', n);
	msg[n] = '\0';
	for (i = 0; i < 3; i++) {
		trace2_region_enter_printf("rec", "big", NULL, "%s", msg);
		trace2_region_leave("rec", "big", NULL);
	}
	free(msg);
}

/* A message longer than a ring holds is written whole. */
static void test_huge_message_whole(void **state)
{
	struct fixture *f = *state;
	struct walk w;

	run_small_ring(f, huge_messages, &w);
	assert_int_equal(w.big_msgs, 3);
	assert_int_equal(w.p[0].regions[0], 6);
}

/* maxFileSize: the file ends with an END block that says so, and what
 * it holds reads. */
static void test_max_file_size_ends_the_file(void **state)
{
	struct fixture *f = *state;
	struct load l = { 1, 5000 };
	struct walk w;
	size_t len;
	char *text;

	f->env[1] = strdup("GIT_TRACE2_MAX_FILE_SIZE=8192");
	assert_int_equal(t2_run(run_threads, &l, (const char *const *)f->env), 0);
	text = t2_read_file(f->path, &len);
	assert_non_null(text);
	free(text);
	assert_true(len <= 8192);
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.p[0].ends, 1);
	assert_int_equal(w.p[0].end_reason, 1);
}

static void regions_then_signal(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 1000; i++) {
		trace2_region_enter("rec", "before", NULL);
		trace2_region_leave("rec", "before", NULL);
	}
	trace2_region_enter("rec", "open", NULL);
	raise(SIGTERM);
}

/* A fatal signal: the handler writes what the rings hold, the signal
 * record last; the process still dies of the signal (on Windows, where
 * a raised SIGTERM ends the process with exit code 3: docs/embedding.md,
 * "Windows: crashes and Ctrl-C", with that code). */
static void test_fatal_signal_writes_the_rings(void **state)
{
	struct fixture *f = *state;
	struct walk w;
	int status;

	status = t2_run(regions_then_signal, NULL, (const char *const *)f->env);
#ifdef _WIN32
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
#else
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
#endif
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.p[0].regions[0], 2 * 1000 + 1);
	assert_int_equal(w.p[0].last_kind, TRACE2_EVENT_SIGNAL);
}

static void records_around_rotation(void *arg)
{
	const struct fixture *f = arg;
	char *old = t2_xfmt("%s.1", f->path);
	int i;

	for (i = 0; i < 500; i++) {
		trace2_region_enter("rec", "first", NULL);
		trace2_region_leave("rec", "first", NULL);
	}
	trace2_flush();
	CHECK(!rename(f->path, old));
	trace2_reopen();
	for (i = 0; i < 300; i++) {
		trace2_region_enter("rec", "second", NULL);
		trace2_region_leave("rec", "second", NULL);
	}
	free(old);
}

/* Log rotation: the new file starts with the format's head, the
 * process, its strings and threads again, so it reads on its own. */
static void test_rotated_file_reads_on_its_own(void **state)
{
	struct fixture *f = *state;
	char *old = t2_xfmt("%s.1", f->path);
	struct walk w;

	assert_int_equal(t2_run(records_around_rotation, f, (const char *const *)f->env), 0);
	walk_file(&w, old);
	assert_false(w.bad);
	assert_int_equal(w.p[0].regions[0], 2 * 500);
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.nprocs, 1);
	assert_int_equal(w.p[0].processes, 1);
	assert_true(w.p[0].strings >= 1);
	assert_int_equal(w.p[0].regions[0], 2 * 300);
	assert_int_equal(w.p[0].ends, 1);
	free(old);
}

/* Texts one buffer holds in turn: shorter, longer (over 32 bytes with
 * the buffer's offset: the copy compared), one byte changed, empty. */
static const char *const reused_texts[] = { "alpha", "al", "alphabet-soup-of-words",
					    "alphx", "", "alpha-beta", "alpha-bets", "alpha" };
#define REUSED_TEXTS (sizeof(reused_texts) / sizeof(reused_texts[0]))
#define REUSED_OFFSETS 7

static void *records_after_exit(void *arg)
{
	int i;

	(void)arg;
	trace2_thread_start("late");
	for (i = 0; i < 100; i++) {
		trace2_region_enter("rec", "before", NULL);
		trace2_region_leave("rec", "before", NULL);
	}
	trace2_thread_exit();
	trace2_flush(); /* its stream written out: free for another thread */
	for (i = 0; i < 100; i++) {
		trace2_region_enter("rec", "after", NULL);
		trace2_region_leave("rec", "after", NULL);
	}
	return NULL;
}

static void threads_after_exit(void *arg)
{
	pthread_t th[4];
	int i;

	(void)arg;
	for (i = 0; i < 4; i++)
		CHECK(!pthread_create(&th[i], NULL, records_after_exit, NULL));
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
}

/* Threads that keep tracing after trace2_thread_exit() while their
 * streams go to other threads: every region recorded, nothing mixed. */
static void test_records_after_thread_exit(void **state)
{
	struct fixture *f = *state;
	struct walk w;
	size_t total = 0, t;

	assert_int_equal(t2_run(threads_after_exit, NULL, (const char *const *)f->env), 0);
	walk_file(&w, f->path);
	assert_false(w.bad);
	for (t = 0; t < THREADS; t++)
		total += w.p[0].regions[t];
	assert_int_equal(total, 4 * 2 * 200);
	assert_false(w.p[0].backwards);
}

static void one_buffer_many_labels(void *arg)
{
	_Alignas(8) char buf[48];
	size_t off, i;

	(void)arg;
	for (off = 0; off < REUSED_OFFSETS; off++)
		for (i = 0; i < REUSED_TEXTS; i++) {
			strcpy(buf + off, reused_texts[i]);
			trace2_region_enter("rec", buf + off, NULL);
			trace2_region_leave("rec", buf + off, NULL);
		}
}

/* One buffer passed again and again with other text in it, at every
 * offset from an 8-byte boundary: each record has the text of its call,
 * whatever the pointer held before. */
static void test_reused_pointer_new_text(void **state)
{
	struct fixture *f = *state;
	struct walk w;
	size_t i;

	assert_int_equal(t2_run(one_buffer_many_labels, NULL, (const char *const *)f->env), 0);
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.nlabels, REUSED_OFFSETS * REUSED_TEXTS);
	for (i = 0; i < w.nlabels; i++)
		assert_string_equal(w.labels[i], reused_texts[i % REUSED_TEXTS]);
}

/* A label in the program's writable data, changed between regions. */
static char writable_label[16] = "before";

static void writable_global_labels(void *arg)
{
	(void)arg;
	trace2_region_enter("rec", writable_label, NULL);
	trace2_region_leave("rec", writable_label, NULL);
	strcpy(writable_label, "after");
	trace2_region_enter("rec", writable_label, NULL);
	trace2_region_leave("rec", writable_label, NULL);
}

/* A string in the program's writable data is checked by content like
 * any other: only read-only segments are taken as unchanging. */
static void test_writable_global_new_text(void **state)
{
	struct fixture *f = *state;
	struct walk w;

	assert_int_equal(t2_run(writable_global_labels, NULL, (const char *const *)f->env), 0);
	walk_file(&w, f->path);
	assert_false(w.bad);
	assert_int_equal(w.nlabels, 2); /* the enters' */
	assert_string_equal(w.labels[0], "before");
	assert_string_equal(w.labels[1], "after");
}

/* Whether the platform seam can tell the program's read-only segments:
 * from the ELF program headers, or Windows' section table (.rdata). */
#if TR2_HAVE_DL_ITERATE_PHDR || defined(_WIN32)
#define KNOWS_IMMUTABLE 1
#else
#define KNOWS_IMMUTABLE 0
#endif

/* The platform seam's read-only segments: a string literal of this
 * program lies in one (where the platform can tell); the heap, the
 * stack, writable data and a range running past a segment do not. */
static void test_immutable_segments(void **state)
{
	static const char literal[] = "a literal of the program";
	char on_stack[8] = "stack";
	char *on_heap = strdup("heap");
	uintptr_t a = (uintptr_t)literal;

	(void)state;
	assert_non_null(on_heap);
	tr2_plat_find_immutable();
	assert_int_equal(tr2_plat_immutable(literal, sizeof(literal)), KNOWS_IMMUTABLE);
	assert_false(tr2_plat_immutable(on_stack, sizeof(on_stack)));
	assert_false(tr2_plat_immutable(on_heap, 5));
	assert_false(tr2_plat_immutable(writable_label, sizeof(writable_label)));
	assert_false(tr2_plat_immutable(literal, (size_t)-1 - a));
	free(on_heap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rings_wrap_nothing_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_ring_drops_are_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_ring_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strings_up_to_the_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overload_keeps_the_log_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_memory_keeps_the_log_whole, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_deeper_than_the_ring_keeps_leaves_for, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forked_child_records_its_own, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forked_child_fills_its_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_huge_message_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_file_size_ends_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fatal_signal_writes_the_rings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rotated_file_reads_on_its_own, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reused_pointer_new_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_records_after_thread_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writable_global_new_text, setup, teardown),
		cmocka_unit_test(test_immutable_segments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
