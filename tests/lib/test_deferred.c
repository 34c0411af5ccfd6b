/*
 * Deferred mode (GIT_TRACE2_DEFERRED, docs/performance.md "Deferred
 * mode"): the same records as the default mode, thread by thread; every
 * record written or counted as dropped; the synchronous drains (child
 * start, exec, exit, trace2_flush(), a fatal signal) leave every earlier
 * record in the file; a forked child never writes its parent's records;
 * the writer thread blocks every signal and is gone after exit; no heap
 * allocation per event; a stalled destination never holds a drain
 * longer than its own write limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "trace2/target.h"
#include "tr2_sys.h"

static char *dir;

/* Region pairs of the big queues (sanitizers run ten times fewer). */
#define PAIRS (UNDER_SANITIZER ? 2000 : 20000)

static int setup(void **state)
{
	(void)state;
	dir = t2_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t2_rmtree(dir);
	free(dir);
	return 0;
}

static char *perf_path(void)
{
	return t2_path(dir, "perf");
}

static char *read_perf(void)
{
	char *p = perf_path(), *text = t2_read_file(p, NULL);

	free(p);
	return text ? text : strdup("");
}

static void remove_outputs(void)
{
	const char *names[] = { "perf", "event", "normal" };
	size_t i;

	for (i = 0; i < 3; i++) {
		char *p = t2_path(dir, names[i]);

		unlink(p);
		free(p);
	}
}

/* Lines of text that contain needle (one pass: the outputs are large,
 * and sanitizers make repeated scans slow). */
static size_t count_lines_with(const char *text, const char *needle)
{
	size_t n = 0, nl = strlen(needle);
	const char *line = text, *end;

	for (; *line; line = *end ? end + 1 : end) {
		const char *p;

		end = line + strcspn(line, "\n");
		for (p = line; p + nl <= end; p++)
			if (!memcmp(p, needle, nl)) {
				n++;
				break;
			}
	}
	return n;
}

/* Lines of text that end with suffix. */
static size_t count_lines_ending(const char *text, const char *suffix)
{
	size_t n = 0, sl = strlen(suffix);
	const char *line = text, *end;

	for (; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		n += (size_t)(end - line) >= sl && !memcmp(end - sl, suffix, sl);
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Workers.                                                             */

struct work {
	int threads;    /* workers besides main */
	int pairs;      /* region pairs per thread, each with a data record */
	int main_too;   /* main does the same work after the workers */
	int nested;     /* each pair two regions deep in another */
};

/* Worker i's records: a region pair around a data record and, every
 * 16th time, a printf; labels from a reused buffer. */
static void do_work(int who, int pairs)
{
	char label[32];
	int k;

	for (k = 0; k < pairs; k++) {
		snprintf(label, sizeof(label), "w%d-%d", who, k);
		trace2_region_enter("dfr", label, NULL);
		trace2_data_intmax("dfr", NULL, "k", k);
		if (k % 16 == 0)
			trace2_printf("p %s", label);
		trace2_region_leave("dfr", label, NULL);
	}
}

/* Worker i's records, nested: an outer region around a middle one around
 * an inner one, a data record in the outer and in the middle one. */
static void do_nested_work(int who, int pairs)
{
	char label[32];
	int k;

	for (k = 0; k < pairs; k++) {
		snprintf(label, sizeof(label), "w%d-%d", who, k);
		trace2_region_enter("dfr", label, NULL);
		trace2_region_enter("dfr", "middle", NULL);
		trace2_data_intmax("dfr", NULL, "k", k);
		trace2_region_enter_printf("dfr", "inner", NULL, "at %d", k);
		trace2_region_leave("dfr", "inner", NULL);
		trace2_region_leave_printf("dfr", "middle", NULL, "left %d", k);
		trace2_data_intmax("dfr", NULL, "k", k);
		trace2_region_leave("dfr", label, NULL);
	}
}

struct worker_arg {
	const struct work *w;
	int i;
	sem_t *named; /* posted once the worker has its name (and id) */
};

static void *worker_main(void *arg)
{
	const struct worker_arg *a = arg;
	char name[16];

	snprintf(name, sizeof(name), "w%d", a->i);
	trace2_thread_start(name);
	sem_post(a->named);
	if (a->w->nested)
		do_nested_work(a->i, a->w->pairs);
	else
		do_work(a->i, a->w->pairs);
	trace2_thread_exit();
	return NULL;
}

static void run_workers(const struct work *w)
{
	pthread_t t[16];
	struct worker_arg a[16];
	sem_t named;
	int i;

	/* ids in creation order, as in every run */
	sem_init(&named, 0, 0);
	for (i = 0; i < w->threads; i++) {
		a[i] = (struct worker_arg){ w, i, &named };
		CHECK(!pthread_create(&t[i], NULL, worker_main, &a[i]));
		while (sem_wait(&named))
			;
	}
	for (i = 0; i < w->threads; i++)
		pthread_join(t[i], NULL);
	sem_destroy(&named);
	if (w->main_too)
		do_work(99, w->pairs);
}

static void work_scenario(void *arg)
{
	run_workers(arg);
}

/* Records a worker emits: thread_start, 3 per pair, a printf every 16
 * pairs, thread_exit. */
static uint64_t records_of_worker(int pairs)
{
	return 2 + 3 * (uint64_t)pairs + (uint64_t)(pairs + 15) / 16;
}

/* ------------------------------------------------------------------ */
/* The same records as the default mode, thread by thread.             */

/* The thread a perf or event line belongs to ("" for none). */
static void thread_of(const char *line, char *out, size_t size)
{
	const char *p = strstr(line, "\"thread\":\""), *end;

	if (p) {
		p += 10;
		end = strchr(p, '"');
	} else if ((p = strstr(line, "\"tid\":"))) {
		p += 6;
		end = strchr(p, ',');
	} else if ((p = strchr(line, '|')) && (p = strchr(p + 1, '|'))) {
		p++;
		while (*p == ' ')
			p++;
		end = strchr(p, '|');
		while (end && end > p && end[-1] == ' ')
			end--;
	} else
		p = end = line;
	if (!end || (size_t)(end - p) >= size)
		end = p;
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
}

struct keyed {
	char thread[64];
	size_t at;
	const char *line;
};

static int by_thread(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->thread, y->thread);

	return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The lines stably sorted by thread, joined again (in one buffer:
 * t2_append() per line would reread the text so far each time). */
static char *sorted_by_thread(const char *text)
{
	size_t count, i, len;
	char **lines = t2_lines(text, &count), *out, *p;
	struct keyed *k = calloc(count + 1, sizeof(*k));

	assert_non_null(k);
	for (i = 0; i < count; i++) {
		thread_of(lines[i], k[i].thread, sizeof(k[i].thread));
		k[i].at = i;
		k[i].line = lines[i];
	}
	qsort(k, count, sizeof(*k), by_thread);
	out = p = malloc(strlen(text) + count + 1);
	assert_non_null(out);
	for (i = 0; i < count; i++) {
		len = strlen(k[i].line);
		memcpy(p, k[i].line, len);
		p[len] = '\n';
		p += len + 1;
	}
	*p = '\0';
	free(k);
	t2_strv_free(lines);
	return out;
}

static void assert_same_by_thread(const char *what, const char *a, const char *b)
{
	char *sa = sorted_by_thread(a), *sb = sorted_by_thread(b);
	size_t i = 0, line = 1;

	if (strcmp(sa, sb)) {
		for (; sa[i] && sa[i] == sb[i]; i++)
			line += sa[i] == '\n';
		print_error("%s: line %zu differs:\n%.200s\n--- deferred:\n%.200s\n", what,
			    line, sa + i - (i > 100 ? 100 : i), sb + i - (i > 100 ? 100 : i));
		fail();
	}
	free(sa);
	free(sb);
}

static int by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void assert_same_lines(const char *what, const char *a, const char *b)
{
	size_t na, nb, i;
	char **la = t2_lines(a, &na), **lb = t2_lines(b, &nb);

	assert_int_equal(na, nb);
	qsort(la, na, sizeof(*la), by_line);
	qsort(lb, nb, sizeof(*lb), by_line);
	for (i = 0; i < na; i++)
		if (strcmp(la[i], lb[i])) {
			print_error("%s: %s\n--- deferred:\n%s\n", what, la[i], lb[i]);
			fail();
		}
	t2_strv_free(la);
	t2_strv_free(lb);
}

static void same_records_as_default_mode(void **state)
{
	static const struct work w = { 3, 300, 1, 0 };
	static const char *const deferred[] = { "GIT_TRACE2_DEFERRED=1",
						"GIT_TRACE2_DEFERRED_RING=64m", NULL };
	struct t2_out plain, dfr;

	(void)state;
	t2_run_all(work_scenario, (void *)&w, NULL, &plain);
	t2_run_all(work_scenario, (void *)&w, deferred, &dfr);
	assert_int_equal(plain.status, 0);
	assert_int_equal(dfr.status, 0);
	assert_int_equal(count_lines_with(dfr.perf, "region_enter"), 4 * 300);
	assert_int_equal(count_lines_with(dfr.perf, "dropped"), 0);
	assert_same_by_thread("perf", plain.perf, dfr.perf);
	assert_same_by_thread("event", plain.event, dfr.event);
	/* no thread column: the same lines in any order */
	assert_same_lines("normal", plain.normal, dfr.normal);
	t2_out_free(&plain);
	t2_out_free(&dfr);
}

/* A chrome trace without its times, durations and pid (the SID is
 * scrubbed). */
static char *chrome_of(const char *path)
{
	char *text = t2_read_file(path, NULL), *out, *p, *q;

	assert_non_null(text);
	for (p = q = text; *p;) {
		if (!strncmp(p, "\"ts\":", 5) || !strncmp(p, "\"pid\":", 6) ||
		    !strncmp(p, "\"dur\":", 6)) {
			while (*p && *p != ',')
				p++;
			p += *p == ',';
			continue;
		}
		*q++ = *p++;
	}
	*q = '\0';
	out = t2_scrub(text);
	free(text);
	return out;
}

static void chrome_scenario(void *arg)
{
	run_workers(arg);
}

/* The chrome target keeps each thread's slices apart when one thread
 * writes them all. */
static void same_chrome_trace_as_default_mode(void **state)
{
	static const struct work w = { 3, 100, 1, 0 };
	char *path = t2_path(dir, "chrome"), *cv = t2_xfmt("GIT_TRACE2_CHROME=%s", path);
	const char *plain_env[] = { cv, NULL };
	const char *dfr_env[] = { cv, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=64m", NULL };
	char *plain, *dfr;

	(void)state;
	unlink(path);
	assert_int_equal(t2_run(chrome_scenario, (void *)&w, plain_env), 0);
	plain = chrome_of(path);
	unlink(path);
	assert_int_equal(t2_run(chrome_scenario, (void *)&w, dfr_env), 0);
	dfr = chrome_of(path);
	assert_int_equal(count_lines_with(dfr, "\"ph\":\"X\""), 4 * 100 + 1);
	assert_same_by_thread("chrome", plain, dfr);
	free(plain);
	free(dfr);
	free(cv);
	free(path);
}

/* ------------------------------------------------------------------ */
/* Every record written or counted.                                     */

struct per_thread {
	char name[64];
	uint64_t lines, dropped;
};

/* Per worker thread of a perf file: lines and the dropped counts. */
static size_t tally(const char *text, struct per_thread *t, size_t max)
{
	size_t count, i, n = 0, j;
	char **lines = t2_lines(text, &count);

	for (i = 0; i < count; i++) {
		char name[64];
		const char *d = strstr(lines[i], "| trace2 ") ? strstr(lines[i], "dropped:") : NULL;
		const char *e = strstr(lines[i], "\"key\":\"dropped\",\"value\":\"");

		thread_of(lines[i], name, sizeof(name));
		if (strncmp(name, "th", 2))
			continue;
		for (j = 0; j < n && strcmp(t[j].name, name); j++)
			;
		if (j == n) {
			assert_true(n < max);
			snprintf(t[n++].name, sizeof(t[0].name), "%s", name);
		}
		if (d)
			t[j].dropped += strtoull(d + 8, NULL, 10);
		else if (e)
			t[j].dropped += strtoull(e + 25, NULL, 10);
		else
			t[j].lines++;
	}
	t2_strv_free(lines);
	return n;
}

static void drops_are_counted_exactly(void **state)
{
	static const struct work w = { 4, 4000, 0, 0 };
	static const char *const env[] = { "GIT_TRACE2_DEFERRED=1",
					   "GIT_TRACE2_DEFERRED_RING=4k", NULL };
	struct per_thread perf[8] = { 0 }, event[8] = { 0 };
	struct t2_out out;
	uint64_t dropped = 0;
	size_t n, i;

	(void)state;
	t2_run_all(work_scenario, (void *)&w, env, &out);
	assert_int_equal(out.status, 0);
	n = tally(out.perf, perf, 8);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		print_message("%s: %llu lines, %llu dropped\n", perf[i].name,
			      (unsigned long long)perf[i].lines,
			      (unsigned long long)perf[i].dropped);
		assert_int_equal(perf[i].lines + perf[i].dropped, records_of_worker(w.pairs));
		dropped += perf[i].dropped;
	}
	assert_true(dropped > 0); /* a 4 KiB ring cannot hold 12,000 records */
	/* the event target saw the very same records */
	assert_int_equal(tally(out.event, event, 8), n);
	for (i = 0; i < n; i++) {
		assert_string_equal(event[i].name, perf[i].name);
		assert_int_equal(event[i].lines, perf[i].lines);
		assert_int_equal(event[i].dropped, perf[i].dropped);
	}
	t2_out_free(&out);
}

/*
 * Under overload (4 KiB rings, 4 threads at full speed, regions three
 * deep, all of them in the event log) what is lost leaves no orphan: the
 * event log as written passes validate --strict with no warning, no
 * region is left without its leave or its enter, and the drops told
 * equal the records made minus those written, thread by thread.
 */
static void overload_leaves_a_well_formed_log(void **state)
{
	static const struct work w = { 4, 4000, 0, 1 };
	static const char *const env[] = { "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=4k",
					   "GIT_TRACE2_EVENT_NESTING=3", NULL };
	struct per_thread event[8] = { 0 };
	char *path = t2_path(dir, "overload.event");
	uint64_t dropped = 0;
	struct t2_out o;
	size_t n, i;

	(void)state;
	t2_run_all_raw(work_scenario, (void *)&w, env, &o);
	assert_int_equal(o.status, 0);
	assert_int_equal(t2_write_file(path, o.event), 0);
	assert_true(t2_log_whole(path, 0));
	n = tally(o.event, event, 8);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		print_message("%s: %llu written, %llu dropped\n", event[i].name,
			      (unsigned long long)event[i].lines,
			      (unsigned long long)event[i].dropped);
		assert_int_equal(event[i].lines + event[i].dropped, 2 + 8 * (uint64_t)w.pairs);
		dropped += event[i].dropped;
	}
	assert_true(dropped > 0);
	t2_out_free(&o);
	free(path);
}

/* The writer held off: while writer_held, tr2_sys.write waits (at most
 * 3 s), so the writer drains nothing more once it is in a write. */
static int writer_held, writer_in_write;
static ssize_t (*real_write)(int fd, const void *buf, size_t n);

static ssize_t held_write(int fd, const void *buf, size_t n)
{
	int ms;

	for (ms = 0; ms < 3000 && __atomic_load_n(&writer_held, __ATOMIC_ACQUIRE); ms++) {
		__atomic_store_n(&writer_in_write, 1, __ATOMIC_RELEASE);
		usleep(1000);
	}
	return real_write(fd, buf, n);
}

/* How held_writer_scenario() records: labels literals (the ring lane)
 * or in a buffer (the long way); regions nested 60 deep, more than the
 * ring holds, or 3 deep with 300 data records inside. */
struct held_run {
	int long_way;
	int data_inside;
	const char *name;
};

/* Regions in a 4 KiB ring while the writer is held off in a write, as
 * *arg says. */
static void held_writer_scenario(void *arg)
{
	const struct held_run *run = arg;
	char buf[8] = "deep";
	const char *label = run->long_way ? buf : "deep";
	int depth = run->data_inside ? 3 : 60, i;

	real_write = tr2_sys.write;
	tr2_sys.write = held_write;
	trace2_initialize(); /* after the swap: the writer thread sees it */
	__atomic_store_n(&writer_held, 1, __ATOMIC_RELEASE);
	trace2_printf("held");
	for (i = 0; i < 2000 && !__atomic_load_n(&writer_in_write, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	CHECK(__atomic_load_n(&writer_in_write, __ATOMIC_ACQUIRE));
	for (i = 0; i < depth; i++)
		trace2_region_enter("dfr", label, NULL);
	for (i = 0; run->data_inside && i < 300; i++)
		trace2_data_string("dfr", NULL, "inside", "value");
	for (i = 0; i < depth; i++)
		trace2_region_leave("dfr", label, NULL);
	__atomic_store_n(&writer_held, 0, __ATOMIC_RELEASE);
	exit(trace2_cmd_exit(0));
}

/*
 * A leave whose enter was queued never waits for the writer: each queued
 * enter reserved its leave's room, and records other than leaves leave
 * the reservations free.  With the writer held off in a write for longer
 * than the wait limit (200 ms), a 4 KiB ring still leaves a whole log:
 * regions nested deeper than it holds (the enters that found no room are
 * lost with their leaves, every enter written has its leave), and data
 * records that fill it inside open regions (lost, and counted).  The
 * ring lane (literal labels) and the long way.  Each of these, set to 0
 * bytes, fails it: the lane's or the long way's reservations (the deep
 * regions), the data records' or the "dropped" record's keep (the data).
 */
static void queued_enters_keep_room_for_their_leaves(void **state)
{
	static const char *const env[] = { "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=4k",
					   "GIT_TRACE2_DST_TIMEOUT=200",
					   "GIT_TRACE2_EVENT_NESTING=100", NULL };
	static const struct held_run runs[] = { { 0, 0, "the ring lane" },
						{ 1, 0, "the long way" },
						{ 0, 1, "the ring lane, data inside" },
						{ 1, 1, "the long way, data inside" } };
	char *path = t2_path(dir, "held.event");
	struct t2_out o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		t2_run_all_raw_noinit(held_writer_scenario, (void *)&runs[i], env, &o);
		assert_int_equal(o.status, 0);
		assert_non_null(strstr(o.event, "\"key\":\"dropped\""));
		assert_int_equal(t2_write_file(path, o.event), 0);
		if (!t2_log_whole(path, 0))
			fail_msg("%s: the log is not whole", runs[i].name);
		t2_out_free(&o);
	}
	free(path);
}

/* trace2.ringFull=wait: the same 4 KiB rings lose nothing, the threads
 * wait for the writer instead. */
static void full_rings_wait_with_ring_full_wait(void **state)
{
	static const struct work w = { 4, 4000, 0, 0 };
	static const char *const env[] = { "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=4k",
					   "GIT_TRACE2_RING_FULL=wait", NULL };
	struct per_thread perf[8] = { 0 };
	struct t2_out out;
	size_t n, i;

	(void)state;
	t2_run_all_raw(work_scenario, (void *)&w, env, &out); /* nothing to scrub */
	assert_int_equal(out.status, 0);
	n = tally(out.perf, perf, 8);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_int_equal(perf[i].dropped, 0);
		assert_int_equal(perf[i].lines, records_of_worker(w.pairs));
	}
	t2_out_free(&out);
}

/* ------------------------------------------------------------------ */
/* Synchronous drains.                                                  */

enum drain_kind { AT_CHILD_START, AT_EXEC, AT_FLUSH, AT_EXIT };

/*
 * A target that holds the writer thread (the one thread the scenario did
 * not mark as its own) inside its first record while `hold` is set, so
 * that records pile up in the rings; the scenario then lets it go and
 * asks for a drain at once, before the writer could write them.
 */
static _Thread_local int scenario_thread;
static int hold; /* atomic */

static void holding_event(void *ctx, const struct trace2_event *ev)
{
	(void)ctx;
	(void)ev;
	while (!scenario_thread && __atomic_load_n(&hold, __ATOMIC_ACQUIRE))
		usleep(1000);
}

static const struct trace2_target holder = {
	TRACE2_TARGET_ABI_VERSION, "holder", NULL, 0, NULL, holding_event, NULL, NULL
};

/* Initialize with the writer held; 20,000 region pairs of a worker. */
static void queue_with_writer_held(void)
{
	static const struct work w = { 1, PAIRS, 0, 0 };

	scenario_thread = 1;
	__atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
	CHECK(!trace2_register_target(&holder, NULL));
	trace2_initialize();
	run_workers(&w);
	__atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
}

/* Right after the drain point, the file holds every queued record. */
static void drain_scenario(void *arg)
{
	enum drain_kind kind = *(const enum drain_kind *)arg;
	const char *argv[] = { "true", NULL };
	struct child_process cmd = CHILD_PROCESS_INIT;
	char *text;

	queue_with_writer_held();
	switch (kind) {
	case AT_CHILD_START:
		cmd.args.v = argv;
		cmd.args.nr = 1;
		trace2_child_start(&cmd);
		break;
	case AT_EXEC:
		trace2_exec("true", argv);
		break;
	case AT_FLUSH:
		trace2_flush();
		break;
	case AT_EXIT:
		trace2_cmd_exit(0);
		break;
	}
	text = read_perf();
	CHECK(count_lines_with(text, "region_leave") == PAIRS);
	CHECK(count_lines_with(text, "thread_exit") == 1);
	CHECK(count_lines_with(text, "dropped") == 0);
	free(text);
}

static void run_drain(enum drain_kind kind)
{
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf);
	const char *env[] = { pv, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=64m", NULL };

	remove_outputs();
	assert_int_equal(t2_run_noinit(drain_scenario, &kind, env), 0);
	free(pv);
	free(perf);
}

static void child_start_drains(void **state) { (void)state; run_drain(AT_CHILD_START); }
static void exec_drains(void **state) { (void)state; run_drain(AT_EXEC); }
static void flush_drains(void **state) { (void)state; run_drain(AT_FLUSH); }
static void exit_drains(void **state) { (void)state; run_drain(AT_EXIT); }

/* A fatal signal: its handler writes what is still queued, then the
 * signal record. */
static void signal_scenario(void *arg)
{
	(void)arg;
	queue_with_writer_held();
	raise(SIGSEGV);
}

static void fatal_signal_drains(void **state)
{
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf), *text;
	const char *env[] = { pv, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=64m", NULL };
	struct t2_proc p;

	(void)state;
	remove_outputs();
	/* default dispositions: the test runner's own handlers are gone */
	t2_capture(signal_scenario, NULL, env, 60, &p);
	assert_true(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGSEGV);
	t2_proc_free(&p);
	text = read_perf();
	assert_int_equal(count_lines_with(text, "region_leave"), PAIRS);
	assert_int_equal(count_lines_with(text, "| signal "), 1);
	assert_true(strstr(text, "thread_exit") < strstr(text, "| signal "));
	free(text);
	free(pv);
	free(perf);
}

/* A thread that goes quiet after its ring overflowed: the next drain
 * (here trace2_flush()) tells its drops. */
static void idle_drops_scenario(void *arg)
{
	int k;

	(void)arg;
	scenario_thread = 1;
	__atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
	CHECK(!trace2_register_target(&holder, NULL));
	trace2_initialize();
	for (k = 0; k < 200; k++)
		trace2_printf("x%d", k);
	__atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
	trace2_flush();
	_exit(0); /* nothing at exit: what the file has, flush wrote */
}

static void flush_tells_a_quiet_threads_drops(void **state)
{
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf), *text;
	const char *env[] = { pv, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=4k", NULL };
	const char *d;
	uint64_t dropped = 0;

	(void)state;
	remove_outputs();
	assert_int_equal(t2_run_noinit(idle_drops_scenario, NULL, env), 0);
	text = read_perf();
	for (d = text; (d = strstr(d, "dropped:")); d++)
		dropped += strtoull(d + 8, NULL, 10);
	assert_true(dropped > 0);
	assert_int_equal(count_lines_with(text, "| printf ") + dropped, 200);
	free(text);
	free(pv);
	free(perf);
}

/* A record larger than a quarter ring goes out directly, after the
 * thread's queued records and before its later ones. */
static void huge_scenario(void *arg)
{
	char big[3000];

	(void)arg;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	trace2_printf("first");
	trace2_printf("%s", big);
	trace2_printf("last");
}

static void huge_record_keeps_its_place(void **state)
{
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf), *text;
	const char *env[] = { pv, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=4k", NULL };
	const char *first, *huge, *last;

	(void)state;
	remove_outputs();
	assert_int_equal(t2_run(huge_scenario, NULL, env), 0);
	text = read_perf();
	first = strstr(text, "| first");
	huge = strstr(text, "| xxxxxxxxxx");
	last = strstr(text, "| last");
	assert_non_null(first);
	assert_non_null(huge);
	assert_non_null(last);
	assert_true(first < huge && huge < last);
	free(text);
	free(pv);
	free(perf);
}

/* ------------------------------------------------------------------ */
/* Fork.                                                                */

/* The parent queues records, forks at once; the child traces a little
 * (re-initialized or not) and exits.  Every parent record is in the file
 * once. */
static void fork_scenario(void *arg)
{
	int reinit = *(const int *)arg;
	static const struct work w = { 1, 5000, 0, 0 };
	int status;
	pid_t pid;

	run_workers(&w);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		if (reinit)
			trace2_initialize();
		trace2_printf("child-%s", reinit ? "reinit" : "plain");
		if (!reinit)
			_exit(0); /* no writer, no buffer: the record is out already */
		exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status));
}

static void run_fork(int reinit)
{
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf), *text;
	const char *env[] = { pv, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=64m", NULL };
	char needle[32];
	int k;

	remove_outputs();
	assert_int_equal(t2_run(fork_scenario, &reinit, env), 0);
	text = read_perf();
	for (k = 0; k < 5000; k += 97) {
		snprintf(needle, sizeof(needle), "| label:w0-%d", k);
		/* enter and leave, once each */
		assert_int_equal(count_lines_ending(text, needle), 2);
	}
	assert_int_equal(count_lines_with(text, "region_leave"), 5000);
	assert_int_equal(count_lines_with(text, reinit ? "child-reinit" : "child-plain"), 1);
	free(text);
	free(pv);
	free(perf);
}

static void forked_child_without_initialize(void **state) { (void)state; run_fork(0); }
static void forked_child_that_initializes(void **state)
{
	(void)state;
	T2_SKIP_UNDER_EMULATOR("qemu-user 7.2 aborts (cpu_exec assertion) in a child forked while other threads run");
	if (UNDER_TSAN) {
		print_message("skipped: ThreadSanitizer ends a forked child that starts a thread\n");
		skip();
	}
	run_fork(1);
}

/* ------------------------------------------------------------------ */
/* The writer thread.                                                   */

/* The task named "trace2-writer" (0 if none); where threads get no names
 * (TR2_HAVE_PTHREAD_SETNAME_NP 0), the task other than the main thread,
 * which has the process's name. */
static long writer_task(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	long found = 0;

	while (d && (e = readdir(d))) {
		char *path = t2_xfmt("/proc/self/task/%s/comm", e->d_name);
		char *comm = e->d_name[0] != '.' ? t2_read_file(path, NULL) : NULL;

		if (comm && (TR2_HAVE_PTHREAD_SETNAME_NP ? !strcmp(comm, "trace2-writer\n")
						       : atol(e->d_name) != (long)getpid()))
			found = atol(e->d_name);
		free(comm);
		free(path);
	}
	if (d)
		closedir(d);
	return found;
}

static unsigned long long sigblk_of(long tid)
{
	char *path = t2_xfmt("/proc/self/task/%ld/status", tid);
	char *status = t2_read_file(path, NULL), *p;
	unsigned long long mask = 0;

	if (status && (p = strstr(status, "SigBlk:")))
		mask = strtoull(p + 7, NULL, 16);
	free(status);
	free(path);
	return mask;
}

static void tasks_at_exit(void)
{
	int waited;

	/* runs after the library's atexit handler (registered later); a
	 * joined thread may stay listed for a moment */
	for (waited = 0; writer_task(); waited++) {
		if (waited == 2000)
			_exit(71);
		usleep(1000);
	}
}

static void writer_scenario(void *arg)
{
	int deferred = *(const int *)arg;
	unsigned long long blk;
	long writer;
	int sig;

	CHECK(!writer_task());
	atexit(tasks_at_exit);
	if (deferred == 2)
		CHECK(!trace2_config_set("trace2.deferred", "true"));
	trace2_initialize();
	trace2_printf("hello");
	writer = writer_task();
	CHECK(deferred ? writer > 0 : writer == 0);
	if (!deferred)
		return;
	blk = sigblk_of(writer);
	for (sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			CHECK(blk & (1ull << (sig - 1)));
}

static void run_writer(int deferred)
{
	if (deferred)
		T2_SKIP_UNDER_EMULATOR("a thread's SigBlk in /proc is the mask qemu gives its host thread");
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf), *text;
	const char *env[] = { pv, deferred == 1 ? "GIT_TRACE2_DEFERRED=1" : "GIT_TRACE2_DEFERRED=0",
			      NULL };

	remove_outputs();
	assert_int_equal(t2_run_noinit(writer_scenario, &deferred, env), 0);
	text = read_perf();
	assert_int_equal(count_lines_with(text, "| hello"), 1);
	free(text);
	free(pv);
	free(perf);
}

static void writer_only_while_on(void **state) { (void)state; run_writer(0); }
static void writer_blocks_signals_and_is_joined(void **state) { (void)state; run_writer(1); }
static void writer_from_config_api(void **state) { (void)state; run_writer(2); }

/* ------------------------------------------------------------------ */
/* No allocation per event.                                             */

static long allocations;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);

static void *counting_malloc(size_t n)
{
	__atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
	return real_malloc(n);
}

static void *counting_calloc(size_t n, size_t size)
{
	__atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
	return real_calloc(n, size);
}

static void *counting_realloc(void *p, size_t n)
{
	__atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
	return real_realloc(p, n);
}

static void allocation_scenario(void *arg)
{
	long before;

	(void)arg;
	real_malloc = tr2_sys.malloc;
	real_calloc = tr2_sys.calloc;
	real_realloc = tr2_sys.realloc;
	tr2_sys.malloc = counting_malloc;
	tr2_sys.calloc = counting_calloc;
	tr2_sys.realloc = counting_realloc;
	trace2_initialize(); /* after the swap: the writer thread sees it */
	/* once per thread: the ring, the writer's buffer (records it
	 * drains during the pause), this thread's for what its own drain
	 * finds still queued (15,000 records written at once: some are) */
	do_work(1, 5000);
	usleep(20000);
	do_work(1, 5000);
	trace2_flush();
	before = __atomic_load_n(&allocations, __ATOMIC_RELAXED);
	do_work(2, PAIRS);
	trace2_flush();
	/* 60,000 events: at most the two buffers a thread gets the first
	 * time it writes (the writer, this thread's drain), if the warm-up
	 * did not give them already */
	CHECK(__atomic_load_n(&allocations, __ATOMIC_RELAXED) - before <= 2);
}

static void no_allocation_per_event(void **state)
{
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf), *text;
	const char *env[] = { pv, "GIT_TRACE2_DEFERRED=1", "GIT_TRACE2_DEFERRED_RING=64m", NULL };

	(void)state;
	remove_outputs();
	assert_int_equal(t2_run_noinit(allocation_scenario, NULL, env), 0);
	text = read_perf();
	assert_int_equal(count_lines_with(text, "region_leave"), 10000 + PAIRS);
	free(text);
	free(pv);
	free(perf);
}

/* ------------------------------------------------------------------ */
/* Memory: a ring the writer keeps up with stays small.                 */

/* 100,000 pairs of do_work(): 300,000 records, ~30 MB in a ring. */
#define STEADY_PAIRS 100000

/* The process's resident anonymous memory in KiB, or -1. */
static long rss_anon_kib(void)
{
	char *status = t2_read_file("/proc/self/status", NULL), *p;
	long kib = -1;

	if (status && (p = strstr(status, "\nRssAnon:")))
		kib = strtol(p + 9, NULL, 10);
	free(status);
	return kib;
}

/* Records in batches that trace2_flush() drains, so the ring is never
 * more than one batch behind: the default 16 MiB ring starts again at
 * its front rather than going round, and only its first 4 MiB or so
 * become resident (going round, all but its last quarter would). */
static void steady_scenario(void *arg)
{
	long before, after;
	int k;

	(void)arg;
#ifdef __GLIBC__
	/* the ring gets pages not yet resident, not free heap memory this
	 * forked child inherited resident */
	malloc_trim(0);
#endif
	trace2_initialize(); /* its first record makes the ring */
	do_work(1, 100);
	trace2_flush();
	before = rss_anon_kib();
	for (k = 0; k < STEADY_PAIRS / 100; k++) {
		do_work(1, 100);
		trace2_flush();
	}
	after = rss_anon_kib();
	fprintf(stderr, "resident anonymous memory: %ld KiB, then %ld KiB\n", before, after);
	/* ThreadSanitizer's shadow of the bytes written is resident too:
	 * ~3 times as much */
	CHECK(before >= 0 && after - before < (UNDER_TSAN ? 3 : 1) * 8 * 1024);
}

static void ring_stays_small_while_the_writer_keeps_up(void **state)
{
	char *perf = perf_path(), *pv = t2_xfmt("GIT_TRACE2_PERF=%s", perf), *text;
	const char *env[] = { pv, "GIT_TRACE2_DEFERRED=1", NULL };

	(void)state;
	remove_outputs();
	assert_int_equal(t2_run_noinit(steady_scenario, NULL, env), 0);
	text = read_perf();
	assert_int_equal(count_lines_with(text, "region_leave"), 100 + STEADY_PAIRS);
	assert_null(strstr(text, "dropped:"));
	free(text);
	free(pv);
	free(perf);
}

/* ------------------------------------------------------------------ */
/* A stalled destination.                                               */

#define STALL_FD 7

/* The perf target writes to a pipe nobody reads: the writer blocks in a
 * write until the destination's limit (GIT_TRACE2_DST_TIMEOUT, 500 ms
 * here) gives it up; child_start's drain waits no longer than that. */
static void stall_scenario(void *arg)
{
	static const struct work w = { 1, PAIRS, 0, 0 };
	const char *argv[] = { "true", NULL };
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct timespec t0, t1;
	int p[2];
	double s;

	(void)arg;
	CHECK(!pipe(p));
	CHECK(dup2(p[1], STALL_FD) == STALL_FD);
	trace2_initialize();
	run_workers(&w); /* 60,000 records: far more than a pipe holds */
	cmd.args.v = argv;
	cmd.args.nr = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	trace2_child_start(&cmd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr, "child_start on a stalled pipe: %.2f s\n", s);
	CHECK(s < 0.5 + 2.0);
}

static void stalled_destination_bounds_the_drain(void **state)
{
	static const char *const env[] = { "GIT_TRACE2_PERF=7", "GIT_TRACE2_DEFERRED=1",
					   "GIT_TRACE2_DEFERRED_RING=64m",
					   "GIT_TRACE2_DST_TIMEOUT=500", NULL };

	(void)state;
	assert_int_equal(t2_run_noinit(stall_scenario, NULL, env), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_records_as_default_mode),
		cmocka_unit_test(same_chrome_trace_as_default_mode),
		cmocka_unit_test(drops_are_counted_exactly),
		cmocka_unit_test(full_rings_wait_with_ring_full_wait),
		cmocka_unit_test(overload_leaves_a_well_formed_log),
		cmocka_unit_test(queued_enters_keep_room_for_their_leaves),
		cmocka_unit_test(child_start_drains),
		cmocka_unit_test(exec_drains),
		cmocka_unit_test(flush_drains),
		cmocka_unit_test(exit_drains),
		cmocka_unit_test(fatal_signal_drains),
		cmocka_unit_test(flush_tells_a_quiet_threads_drops),
		cmocka_unit_test(huge_record_keeps_its_place),
		cmocka_unit_test(forked_child_without_initialize),
		cmocka_unit_test(forked_child_that_initializes),
		cmocka_unit_test(writer_only_while_on),
		cmocka_unit_test(writer_blocks_signals_and_is_joined),
		cmocka_unit_test(writer_from_config_api),
		cmocka_unit_test(no_allocation_per_event),
		cmocka_unit_test(ring_stays_small_while_the_writer_keeps_up),
		cmocka_unit_test(stalled_destination_bounds_the_drain),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
