/*
 * fork() and exec() while other threads trace (docs/embedding.md
 * "fork() and exec()").
 *
 * A scenario process traces into three files (NORMAL, PERF, EVENT) with 4
 * threads busy in region enter/leave + data loops; its main thread forks
 * 100 times (make check; T2_FORKS=<n> overrides: make check-long runs
 * 1,000) and waits
 * for each child with a deadline.  The children, in
 * turn:
 *   _exit     a few trace2 calls, then _exit(0);
 *   reinit    trace2_initialize() again, a few calls, _exit(0);
 *   driver    exec "trace2-tool trace2 001return 0" (same files);
 *   fds       exec this test binary, which lists /proc/self/fd;
 *   exit      a few calls, then exit(0) (the misuse the docs warn about:
 *             the inherited atexit handler runs in the child).
 * Every child runs under alarm(), so a deadlock shows as SIGALRM.
 * Checked: no timeouts, every line of every file whole, the exec'd
 * children see only fds 0-2 plus the one the scenario deliberately left
 * inheritable (fd 3), the parent's records complete and unduplicated, the
 * children's records as expected.  Then the same with
 * GIT_TRACE2_BUFFER=64k: a forked child must not write its parent's
 * buffered records; and in deferred mode (GIT_TRACE2_DEFERRED=1, default
 * and 4 KiB rings): nor its parent's queued records, and every record of
 * the parent written once or reported dropped, the same in every target.
 * A smaller deferred scenario checks children that initialize again (a
 * writer thread and a SID of their own) and children that do not.
 * Then the storm with sampling by command tree (GIT_TRACE2_SAMPLE=0.25,
 * docs/configuration.md "Sampling"), the parent under a root the rate
 * keeps: the same checks (the reinitialised children kept, with SIDs
 * under their parent's), and every process that records its start (the
 * parent, the drivers) says so in one trace2/sample record; and under a
 * root the rate drops, also in deferred mode: every child as above (no
 * deadlock, fds as expected), and nothing written by anyone (under a
 * sanitizer these storms fork a tenth as often).  The roots' hashes are
 * tests/process/test_sample.sh's.  Then the storm with the flight
 * recorder (GIT_TRACE2_FLIGHT=16k, docs/configuration.md "Flight
 * recorder", as often as the sampled storms): the parent and every other
 * child that initializes again leave with exit code 1 and dump at exit,
 * the rest with 0: every child as above, the parent's dump its own
 * records only (written once or told overwritten), each triggering
 * child's its own (under its own SID, one trace2/flight record each),
 * nothing of the children that exit 0 or the drivers; and with every
 * process leaving with 0: nothing of the parent, the drivers or the
 * children that initialize again.  The figures are printed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2rec.h"
#include "t2test.h"
#include "tjson.h"
#include "trace2.h"


/* make check's size, in every build; make check-long: T2_FORKS=1000 */
#define CHECK_FORKS 100
#define MAX_FORKS 10000
#define BUSY 4
/* Busy threads: BURST iterations, then a pause (keeps the files sane). */
#define BURST 4
#define PAUSE_NS (UNDER_SANITIZER ? 5000000 : 1000000)
#define MAX_SEQ (4 << 20)
#define CHILD_ALARM_S 10
#define CHILD_WAIT_MS 15000
#define SCENARIO_TIMEOUT_S 600
#define LIST_FDS_ARG "--list-fds"
/* What an exec'd child must see: 0-2 and the fd left inheritable. */
#define EXPECTED_FDS "fds 0 1 2 3"
/* The flight recorder: a ring per thread small enough that the busy
 * threads' records are overwritten, and the exit code that triggers a
 * dump at exit. */
#define FLIGHT_RING "16k"
#define FLIGHT_EXIT 1
#define FLIGHT_REASON "exit"

enum variant { V_EXIT, V_REINIT, V_DRIVER, V_FDS, V_LIBC_EXIT, NVARIANTS };
/* The word of each variant's printf record ("" for the exec variants). */
static const char *const VARIANT_WORD[] = { "child", "reinit", "", "", "exiting" };
static const char *const VARIANT_NAME[] = {
	"_exit", "reinit+_exit", "exec driver", "exec fd lister", "exit()"
};

/* The storms with sampling or the flight recorder fork this many times
 * fewer under a sanitizer, whose forks are slow (about 0.2 s each under
 * ThreadSanitizer, the busy threads running): the storm's size. */
#define SANITIZER_SHARE 10
static int fork_share = 1;
/* The flight recorder's trigger: the exit code of the scenario and of
 * every other child that initializes again (0: none triggers). */
static int trigger_code;

/* The number of forks: a multiple of NVARIANTS. */
static int forks(void)
{
	const char *v = getenv("T2_FORKS");
	int n = v && *v ? atoi(v) : CHECK_FORKS;

	if (n < NVARIANTS || n > MAX_FORKS)
		n = CHECK_FORKS;
	n /= fork_share;
	if (n < NVARIANTS)
		n = NVARIANTS;
	return n - n % NVARIANTS;
}

/* ------------------------------------------------------------------ */
/* Listing descriptors (the exec'd child).                              */
/* ------------------------------------------------------------------ */

static int compare_ints(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The open descriptors of this process except skip, ascending; returns
 * their number (at most max). */
static int open_fds(int *fds, int max, int skip)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && n < max && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) &&
		    atoi(e->d_name) != skip)
			fds[n++] = atoi(e->d_name);
	if (d)
		closedir(d);
	qsort(fds, (size_t)n, sizeof(*fds), compare_ints);
	return n;
}

/* "fds 0 1 2 ..." on stdout in one write. */
static int list_fds(void)
{
	int fds[256], n = open_fds(fds, 256, -1), i;
	char line[2048];
	size_t len = (size_t)snprintf(line, sizeof(line), "fds");

	for (i = 0; i < n && len < sizeof(line) - 16; i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %d", fds[i]);
	line[len++] = '\n';
	return write(1, line, len) == (ssize_t)len ? 0 : 1;
}

/* Close every descriptor from 3 up. */
static void close_fds_from_3(void)
{
	int fds[1024], n = open_fds(fds, 1024, -1), i;

	for (i = 0; i < n; i++)
		if (fds[i] > 2)
			close(fds[i]);
}

/* ------------------------------------------------------------------ */
/* The scenario process.                                                */
/* ------------------------------------------------------------------ */

struct busy {
	int *stop;
	long iterations;
};

static void *busy_main(void *arg)
{
	struct busy *b = arg;
	const struct timespec pause = { 0, PAUSE_NS };
	long k = 0;
	int i;

	trace2_thread_start("busy");
	while (!__atomic_load_n(b->stop, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < BURST; i++, k++) {
			trace2_region_enter("busy", "outer", NULL);
			trace2_data_intmax("busy", NULL, "seq", k);
			trace2_region_enter("busy", "inner", NULL);
			trace2_region_leave("busy", "inner", NULL);
			trace2_region_leave("busy", "outer", NULL);
		}
		nanosleep(&pause, NULL);
	}
	b->iterations = k;
	trace2_thread_exit();
	return NULL;
}

/* A few records of a forked child; the message names its SID. */
static void child_records(const char *word, int i)
{
	trace2_region_enter("child", word, NULL);
	trace2_printf("%s %d sid %s", word, i, trace2_session_id());
	trace2_data_intmax("child", NULL, word, i);
	trace2_region_leave("child", word, NULL);
}

/* The exit code of child i: the trigger's for every other child that
 * initializes again (the first, the third, ...), 0 for the rest. */
static int child_code(int i)
{
	return i % NVARIANTS == V_REINIT && i / NVARIANTS % 2 == 0 ? trigger_code : 0;
}

static _Noreturn void run_child(int i)
{
	static const char *const return0[] = { "trace2", "001return", "0", NULL };
	enum variant v = (enum variant)(i % NVARIANTS);

	alarm(CHILD_ALARM_S);
	switch (v) {
	case V_REINIT:
		trace2_initialize();
		if (trigger_code) {
			child_records(VARIANT_WORD[v], i);
			exit(trace2_cmd_exit(child_code(i)));
		}
		/* fall through */
	case V_EXIT:
		child_records(VARIANT_WORD[v], i);
		_exit(0);
	case V_DRIVER:
		t2_exec_tool(return0);
	case V_FDS:
		t2_exec_built(NULL, (char *[]){ "fdlist", LIST_FDS_ARG, NULL });
		_exit(127);
	case V_LIBC_EXIT:
	case NVARIANTS:
		break;
	}
	child_records(VARIANT_WORD[V_LIBC_EXIT], i);
	exit(0);
}

struct fork_result {
	int ok, timeouts, bad;
};

/* The fork record, then child(i) (which does not return) in a forked
 * child; its status, waited for with a deadline; -1 if fork() failed. */
static int fork_traced(int i, void (*child)(int))
{
	pid_t pid;

	trace2_data_intmax("fork", NULL, "fork", i);
	pid = fork();
	if (pid == 0)
		child(i);
	return pid < 0 ? -1 : t2_wait_timeout(pid, CHILD_WAIT_MS);
}

static void fork_one(int i, struct fork_result *res)
{
	int status = fork_traced(i, run_child);

	if (status == -1) {
		res->bad++;
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == child_code(i))
		res->ok++;
	else if (WIFSIGNALED(status) &&
		 (WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGKILL)) {
		res->timeouts++;
		dprintf(1, "child %d (%s) timed out: status 0x%x\n", i,
			VARIANT_NAME[i % NVARIANTS], status);
	}
	else {
		res->bad++;
		dprintf(1, "child %d status 0x%x\n", i, status);
	}
}

static void fork_scenario(void *arg)
{
	const char *argv[] = { "forker", NULL };
	pthread_t th[BUSY];
	struct busy b[BUSY];
	struct fork_result res = { 0, 0, 0 };
	int stop = 0, i, keep;

	trigger_code = *(const int *)arg;
	close_fds_from_3();
	keep = open("/dev/null", O_RDONLY);	/* inheritable on purpose: fd 3 */
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_cmd_name("forker");
	dprintf(1, "sid %s\nkeep %d\n", trace2_session_id(), keep);
	for (i = 0; i < BUSY; i++) {
		b[i] = (struct busy){ &stop, 0 };
		pthread_create(&th[i], NULL, busy_main, &b[i]);
	}
	for (i = 0; i < forks(); i++)
		fork_one(i, &res);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < BUSY; i++) {
		pthread_join(th[i], NULL);
		dprintf(1, "busy %d %ld\n", i + 1, b[i].iterations);
	}
	dprintf(1, "summary ok %d timeouts %d bad %d\n", res.ok, res.timeouts, res.bad);
	exit(trace2_cmd_exit(trigger_code));
}

/* ------------------------------------------------------------------ */
/* Reading the files.                                                   */
/* ------------------------------------------------------------------ */

/* What the scenario printed. */
struct summary {
	char sid[160];
	long busy[BUSY + 1];	/* iterations of each busy thread (1..BUSY, in
				 * creation order, which need not be the order
				 * of their trace2 thread ids) */
	int ok, timeouts, bad, keep;
	int fd_lines, fd_lines_ok;
	char bad_fds[256];
};

static void parse_stdout(const char *out, struct summary *s)
{
	char **lines = t2_lines(out, NULL);
	size_t i;

	memset(s, 0, sizeof(*s));
	s->ok = s->timeouts = s->bad = s->keep = -1;
	for (i = 0; lines[i]; i++) {
		int id;
		long n;

		if (sscanf(lines[i], "sid %159s", s->sid) == 1)
			continue;
		if (sscanf(lines[i], "keep %d", &s->keep) == 1)
			continue;
		if (sscanf(lines[i], "busy %d %ld", &id, &n) == 2 && id > 0 && id <= BUSY)
			s->busy[id] = n;
		else if (sscanf(lines[i], "summary ok %d timeouts %d bad %d",
				&s->ok, &s->timeouts, &s->bad) == 3)
			continue;
		else if (!strncmp(lines[i], "fds", 3)) {
			s->fd_lines++;
			if (!strcmp(lines[i], EXPECTED_FDS))
				s->fd_lines_ok++;
			else
				snprintf(s->bad_fds, sizeof(s->bad_fds), "%s", lines[i]);
		}
	}
	t2_strv_free(lines);
}

/* The library's own records a process writes once, on its main thread:
 * trace2/sample (sampled: the rate) and trace2/flight (the flight
 * recorder's trigger: the reason).  NORMAL shows "sample" but not
 * "flight" (nor the flight recorder's "overwritten" counts). */
enum mark { M_SAMPLE, M_FLIGHT, NMARKS };
static const char *const MARK_KEY[] = { "sample", "flight" };
static const char *const MARK_VALUE[] = { T2_SAMPLE_RATE, FLIGHT_REASON };

/* Per target: what the records say. */
struct seen {
	const struct summary *sum;
	int kind;
	unsigned char *busy[BUSY + 1];	/* [thread id][seq]: times seen */
	unsigned char fork[MAX_FORKS];
	unsigned char child[NVARIANTS][MAX_FORKS];
	unsigned same_sid[NVARIANTS];	/* child messages naming the parent's SID */
	unsigned versions_parent, versions_child, atexit_parent, exits_child;
	/* trace2/sample, trace2/flight records as set: all; EVENT: by SID */
	unsigned marks[NMARKS], marks_parent[NMARKS], marks_child[NMARKS];
	unsigned stray;			/* records that fit nowhere */
	unsigned foreign;		/* EVENT: the parent's records under a child's SID */
	/* deferred mode: records of the parent's threads (0: main, EVENT
	 * only: PERF shows the children's main threads as "main" too) and
	 * the drops reported on them; the drops reported on any thread */
	unsigned long records[BUSY + 1], drops[BUSY + 1], drops_total;
};

/* The parts of a record the checks need, whatever the target. */
struct item {
	struct t2_slice thread, event, sid, category, key, value, msg;
};

/* Saturating count. */
static void bump(unsigned char *c)
{
	if (*c < 255)
		(*c)++;
}

/* PERF payload "key:value". */
static void split_key_value(struct t2_slice payload, struct item *it)
{
	const char *colon = memchr(payload.p, ':', payload.len);

	if (!colon)
		return;
	it->key = (struct t2_slice){ payload.p, (size_t)(colon - payload.p) };
	it->value = (struct t2_slice){ colon + 1, payload.len - it->key.len - 1 };
}

/* The library's own data records (category trace2: "dropped", "sample")
 * on the NORMAL target: "data trace2/<key> value:<value>". */
#define NORMAL_TRACE2 "data trace2/"
#define NORMAL_VALUE " value:"

/* A NORMAL payload that is one of the library's own data records. */
static int normal_trace2_data(struct t2_slice payload, struct item *it)
{
	const char *p = payload.p + strlen(NORMAL_TRACE2), *end = payload.p + payload.len;
	const char *v;

	if (payload.len <= strlen(NORMAL_TRACE2) ||
	    memcmp(payload.p, NORMAL_TRACE2, strlen(NORMAL_TRACE2)))
		return 0;
	for (v = p; v < end && *v != ' '; v++)
		;
	if ((size_t)(end - v) < strlen(NORMAL_VALUE) ||
	    memcmp(v, NORMAL_VALUE, strlen(NORMAL_VALUE)))
		return 0;
	it->event = (struct t2_slice){ "data", 4 };
	it->category = (struct t2_slice){ "trace2", 6 };
	it->key = (struct t2_slice){ p, (size_t)(v - p) };
	it->value = (struct t2_slice){ v + strlen(NORMAL_VALUE),
				       (size_t)(end - v) - strlen(NORMAL_VALUE) };
	return 1;
}

static void to_item(const struct t2_rec *r, struct item *it)
{
	memset(it, 0, sizeof(*it));
	it->thread = r->thread;
	it->event = r->event;
	if (r->kind == T2_REC_EVENT) {
		it->sid = r->sid;
		it->category = t2_rec_str(r, "category");
		it->key = t2_rec_str(r, "key");
		it->value = t2_rec_str(r, "value");
		it->msg = t2_rec_str(r, "msg");
	} else if (r->kind == T2_REC_PERF) {
		it->msg = r->payload;
		it->category = r->category;
		if (t2_slice_eq(r->event, "data"))
			split_key_value(r->payload, it);
	} else if (!normal_trace2_data(r->payload, it)) {
		it->msg = r->payload;
		it->event.p = "printf";	/* NORMAL: every other first word is an event name */
		it->event.len = 6;
	}
}

static long slice_long(struct t2_slice s)
{
	char buf[32];

	if (!s.p || !s.len || s.len >= sizeof(buf))
		return -1;
	memcpy(buf, s.p, s.len);
	buf[s.len] = '\0';
	return strspn(buf, "0123456789") == s.len ? atol(buf) : -1;
}

static int is_child_word(struct t2_slice key)
{
	int v;

	for (v = 0; v < NVARIANTS; v++)
		if (*VARIANT_WORD[v] && t2_slice_eq(key, VARIANT_WORD[v]))
			return 1;
	return 0;
}

/* "th<NN>:busy" with 1 <= NN <= BUSY, else -1. */
static int busy_id(struct t2_slice thread)
{
	char buf[32];
	int id, end = 0;

	if (!thread.p || thread.len >= sizeof(buf))
		return -1;
	memcpy(buf, thread.p, thread.len);
	buf[thread.len] = '\0';
	if (sscanf(buf, "th%d:busy%n", &id, &end) != 1 || buf[end] || id < 1 || id > BUSY)
		return -1;
	return id;
}

static int is_parent_sid(const struct seen *z, struct t2_slice sid)
{
	return t2_slice_eq(sid, z->sum->sid);
}

static int is_child_sid(const struct seen *z, struct t2_slice sid)
{
	size_t n = strlen(z->sum->sid);

	return sid.p && sid.len > n + 1 && !memcmp(sid.p, z->sum->sid, n) && sid.p[n] == '/';
}

static int count_data(struct seen *z, const struct item *it)
{
	long v = slice_long(it->value);
	int id;

	if (t2_slice_eq(it->key, "fork") && t2_slice_eq(it->thread, "main") &&
	    v >= 0 && v < forks()) {
		bump(&z->fork[v]);
		return 1;
	}
	if (t2_slice_eq(it->thread, "main") && is_child_word(it->key))
		return 1;	/* a forked child's own data record */
	if (!t2_slice_eq(it->key, "seq") || v < 0 || v >= MAX_SEQ ||
	    (id = busy_id(it->thread)) < 0)
		return 0;
	bump(&z->busy[id][v]);
	return 1;
}

/* "<word> <i> sid <sid>" of a forked child. */
static int count_message(struct seen *z, const struct item *it)
{
	char word[16], sid[200], text[256];
	int i, v;

	if (!it->msg.p || it->msg.len >= sizeof(text))
		return 0;
	memcpy(text, it->msg.p, it->msg.len);
	text[it->msg.len] = '\0';
	if (sscanf(text, "%15s %d sid %199s", word, &i, sid) != 3 || i < 0 || i >= forks())
		return 0;
	for (v = 0; v < NVARIANTS; v++) {
		if (!*VARIANT_WORD[v] || strcmp(word, VARIANT_WORD[v]))
			continue;
		bump(&z->child[v][i]);
		z->same_sid[v] += !strcmp(sid, z->sum->sid);
		return i % NVARIANTS == v;
	}
	return 0;
}

/* version / atexit / exit, by SID (EVENT only). */
static void count_lifecycle(struct seen *z, const struct item *it)
{
	if (t2_slice_eq(it->event, "version")) {
		z->versions_parent += is_parent_sid(z, it->sid);
		z->versions_child += is_child_sid(z, it->sid);
	} else if (t2_slice_eq(it->event, "atexit")) {
		z->atexit_parent += is_parent_sid(z, it->sid);
	} else if (t2_slice_eq(it->event, "exit")) {
		z->exits_child += is_child_sid(z, it->sid);
	}
}

/* The parent's thread of a record: 0 for main (EVENT only), the busy
 * thread's id; -1 for a child's record or one that cannot tell. */
static int parent_thread(const struct seen *z, const struct item *it)
{
	if (z->kind == T2_REC_EVENT && !is_parent_sid(z, it->sid))
		return -1;
	if (z->kind == T2_REC_EVENT && t2_slice_eq(it->thread, "main"))
		return 0;
	return z->kind == T2_REC_NORMAL ? -1 : busy_id(it->thread);
}

/* A record only the parent's main thread emits (the children that do
 * not initialize again keep its SID; atexit is theirs too). */
static int is_main_record(const struct item *it)
{
	static const char *const only_parent[] = { "version", "start", "cmd_name", "exit" };
	size_t i;

	for (i = 0; i < sizeof(only_parent) / sizeof(only_parent[0]); i++)
		if (t2_slice_eq(it->event, only_parent[i]))
			return 1;
	return t2_slice_eq(it->event, "data") && t2_slice_eq(it->key, "fork");
}

/* A data record of the library's own (category trace2) with this key. */
static int is_trace2_data(const struct item *it, const char *key)
{
	return t2_slice_eq(it->event, "data") && t2_slice_eq(it->category, "trace2") &&
	       t2_slice_eq(it->key, key);
}

/* Records lost and told: the deferred mode's "dropped", the flight
 * recorder's "overwritten". */
static int is_drop_report(const struct item *it)
{
	return is_trace2_data(it, "dropped") || is_trace2_data(it, "overwritten");
}

/* The mark a record is (-1: none). */
static int mark_of(const struct item *it)
{
	int m;

	for (m = 0; m < NMARKS; m++)
		if (is_trace2_data(it, MARK_KEY[m]))
			return m;
	return -1;
}

/* A process's mark m: its value as set, on its main thread (NORMAL names
 * none); else stray. */
static void count_mark(struct seen *z, const struct item *it, int m)
{
	if (!t2_slice_eq(it->value, MARK_VALUE[m]) ||
	    (z->kind != T2_REC_NORMAL && !t2_slice_eq(it->thread, "main"))) {
		z->stray++;
		return;
	}
	z->marks[m]++;
	z->marks_parent[m] += z->kind == T2_REC_EVENT && is_parent_sid(z, it->sid);
	z->marks_child[m] += z->kind == T2_REC_EVENT && is_child_sid(z, it->sid);
}

/* A record of the parent's threads (a busy thread's, a fork record) under
 * a child's SID: a child wrote what it inherited. */
static int is_foreign(const struct seen *z, const struct item *it)
{
	return z->kind == T2_REC_EVENT && is_child_sid(z, it->sid) &&
	       (busy_id(it->thread) > 0 ||
		(t2_slice_eq(it->event, "data") && t2_slice_eq(it->key, "fork")));
}

/* A "dropped" report: n records of its thread never reached a target. */
static void count_drops(struct seen *z, const struct item *it)
{
	long n = slice_long(it->value);
	int k = parent_thread(z, it);

	if (n <= 0) {
		z->stray++;
		return;
	}
	z->drops_total += (unsigned long)n;
	if (k >= 0)
		z->drops[k] += (unsigned long)n;
}

/* A record of the scenario's own (not the library's trace2 data). */
static void count_item(struct seen *z, const struct item *it)
{
	int k;

	if ((k = parent_thread(z, it)) > 0 || (!k && is_main_record(it)))
		z->records[k]++;
	z->foreign += is_foreign(z, it);
	if (t2_slice_eq(it->event, "data"))
		z->stray += !count_data(z, it);
	else if (t2_slice_eq(it->event, "printf"))
		count_message(z, it);
	count_lifecycle(z, it);
}

static void seen_line(void *ctx, const char *line, size_t len)
{
	struct seen *z = ctx;
	struct t2_rec r;
	struct item it;
	int m;

	if (t2_rec_parse(line, len, &r) == (enum t2_rec_kind)z->kind) {
		to_item(&r, &it);
		if (is_drop_report(&it))
			count_drops(z, &it);
		else if ((m = mark_of(&it)) >= 0)
			count_mark(z, &it, m);
		else
			count_item(z, &it);
	}
	t2_rec_free(&r);
}

static void seen_init(struct seen *z, const struct summary *sum, int kind)
{
	int i;

	memset(z, 0, sizeof(*z));
	z->sum = sum;
	z->kind = kind;
	for (i = 1; i <= BUSY; i++)
		z->busy[i] = calloc(MAX_SEQ, 1);
}

static void seen_free(struct seen *z)
{
	int i;

	for (i = 1; i <= BUSY; i++)
		free(z->busy[i]);
}

/* Records 0..n-1 should be there exactly once: add the deviations. */
static void exactly_once(const unsigned char *c, long n, unsigned *lost, unsigned *dup)
{
	long i;

	for (i = 0; i < n; i++) {
		*lost += !c[i];
		*dup += c[i] > 1 ? c[i] - 1u : 0;
	}
}

/* Records of variant v (the children numbered v, v + NVARIANTS, ...). */
static unsigned variant_total(const struct seen *z, int v, unsigned *dup)
{
	unsigned total = 0;
	int i;

	for (i = v; i < forks(); i += NVARIANTS) {
		total += z->child[v][i] ? 1 : 0;
		*dup += z->child[v][i] > 1 ? z->child[v][i] - 1 : 0;
	}
	return total;
}

/* ------------------------------------------------------------------ */
/* The test.                                                            */
/* ------------------------------------------------------------------ */

static const char *const KIND_NAME[] = { "", "normal", "perf", "event" };

/* Sampling off, or on under a root the rate keeps or drops. */
enum sampling { S_OFF, S_KEPT, S_OUT };
static const char *const SAMPLE_ROOT[] = { NULL, T2_ROOT_KEPT, T2_ROOT_OUT };
/* The flight recorder off, or on (FLIGHT_RING) with the scenario and its
 * children that initialize again leaving with FLIGHT_EXIT (each dumps at
 * exit) or everyone with 0 (nothing written). */
enum flight { F_OFF, F_TRIGGERED, F_QUIET };

/* How the scenario traces. */
struct mode {
	const char *label;
	const char *buffer;	/* GIT_TRACE2_BUFFER, or NULL */
	const char *ring;	/* deferred mode: GIT_TRACE2_DEFERRED_RING ("":
				 * the default), or NULL */
	enum sampling sample;
	enum flight flight;
};

/* Records of the parent may be lost (and told): deferred mode, the flight
 * recorder. */
static int loses_records(const struct mode *m)
{
	return m->ring || m->flight;
}

struct verdict {
	unsigned parent_lost, parent_dup, child_dup;
	unsigned child_count[NVARIANTS];
	unsigned long parent_excess;	/* drops reported beyond the records missing */
};

/* One past the highest sequence number seen (0 if none). */
static long seen_extent(const unsigned char *c)
{
	long n = MAX_SEQ;

	while (n > 0 && !c[n - 1])
		n--;
	return n;
}

static int compare_longs(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/*
 * The parent's own records: every fork record once, and for every busy
 * thread the sequence numbers 0..n-1 once each, where the n of the four
 * threads (sorted) are the iteration counts the scenario reported.  In
 * deferred mode a record may be dropped instead (judge_accounting()):
 * only duplicates count here.
 */
static void judge_parent(const struct seen *z, int deferred, struct verdict *v)
{
	long want[BUSY], got[BUSY];
	unsigned ignored = 0, *lost = deferred ? &ignored : &v->parent_lost;
	int i;

	if (z->kind == T2_REC_NORMAL)
		return;	/* NORMAL has no data records */
	for (i = 0; i < BUSY; i++) {
		want[i] = z->sum->busy[i + 1];
		got[i] = seen_extent(z->busy[i + 1]);
		exactly_once(z->busy[i + 1], got[i], lost, &v->parent_dup);
	}
	qsort(want, BUSY, sizeof(long), compare_longs);
	qsort(got, BUSY, sizeof(long), compare_longs);
	for (i = 0; i < BUSY && !deferred; i++) {
		v->parent_lost += want[i] > got[i] ? (unsigned)(want[i] - got[i]) : 0;
		v->parent_dup += got[i] > want[i] ? (unsigned)(got[i] - want[i]) : 0;
	}
	exactly_once(z->fork, forks(), lost, &v->parent_dup);
}

/* Records a busy iteration emits (region_enter, data, region_enter,
 * region_leave, region_leave); a busy thread adds thread_start and
 * thread_exit, the main thread version, start, cmd_name and exit to its
 * one data record per fork (is_main_record()). */
#define BUSY_RECORDS 5
#define THREAD_RECORDS 2
#define MAIN_RECORDS 4

/* want records were emitted, got written or reported dropped. */
static void settle(struct verdict *v, long want, long got)
{
	if (want > got)
		v->parent_lost += (unsigned)(want - got);
	else
		v->parent_excess += (unsigned long)(got - want);
}

/*
 * Every record of the parent's threads written or reported dropped,
 * exactly: records + drops of each of its nbusy busy threads (sorted)
 * against the iteration counts (sorted); EVENT also the main thread's,
 * which forked nforks times.
 */
static void judge_accounting(const struct seen *z, int nbusy, int nforks, struct verdict *v)
{
	long want[BUSY], got[BUSY];
	int i;

	if (z->kind == T2_REC_NORMAL)
		return;
	for (i = 0; i < nbusy; i++) {
		want[i] = BUSY_RECORDS * z->sum->busy[i + 1] + THREAD_RECORDS;
		got[i] = (long)(z->records[i + 1] + z->drops[i + 1]);
	}
	qsort(want, (size_t)nbusy, sizeof(long), compare_longs);
	qsort(got, (size_t)nbusy, sizeof(long), compare_longs);
	for (i = 0; i < nbusy; i++)
		settle(v, want[i], got[i]);
	if (z->kind == T2_REC_EVENT)
		settle(v, nforks + MAIN_RECORDS, (long)(z->records[0] + z->drops[0]));
}

static void judge(const struct seen *z, const struct mode *m, struct verdict *v)
{
	int k;

	memset(v, 0, sizeof(*v));
	judge_parent(z, loses_records(m), v);
	judge_accounting(z, BUSY, forks(), v);
	for (k = 0; k < NVARIANTS; k++)
		if (*VARIANT_WORD[k])
			v->child_count[k] = variant_total(z, k, &v->child_dup);
	printf("[fork] %-6s %-8s parent records lost %u, duplicated %u; child records "
	       "_exit %u, reinit %u, exit() %u (of %d each), duplicated %u, naming the "
	       "parent's SID: _exit %u, reinit %u, exit() %u; stray %u",
	       m->label, KIND_NAME[z->kind], v->parent_lost, v->parent_dup,
	       v->child_count[V_EXIT], v->child_count[V_REINIT], v->child_count[V_LIBC_EXIT],
	       forks() / NVARIANTS, v->child_dup, z->same_sid[V_EXIT], z->same_sid[V_REINIT],
	       z->same_sid[V_LIBC_EXIT], z->stray);
	if (loses_records(m))
		printf("; %s %lu (parent's busy threads %lu %lu %lu %lu, main %lu), "
		       "over-reported %lu", m->flight ? "overwritten" : "dropped",
		       z->drops_total, z->drops[1], z->drops[2],
		       z->drops[3], z->drops[4], z->drops[0], v->parent_excess);
	if (z->kind == T2_REC_EVENT)
		printf("; versions parent %u, child SIDs %u; atexit under the parent's SID %u; "
		       "exit of child SIDs %u; the parent's records under a child's SID %u",
		       z->versions_parent, z->versions_child, z->atexit_parent, z->exits_child,
		       z->foreign);
	for (k = 0; k < NMARKS; k++) {
		printf("; trace2/%s records %u", MARK_KEY[k], z->marks[k]);
		if (z->kind == T2_REC_EVENT)
			printf(" (parent %u, child SIDs %u)", z->marks_parent[k],
			       z->marks_child[k]);
	}
	printf("\n");
}

/* Records of the parent written: its threads', its fork records. */
static unsigned long parent_records_written(const struct seen *z)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i <= BUSY; i++)
		n += z->records[i];
	for (i = 0; i < forks(); i++)
		n += z->fork[i];
	return n;
}

/*
 * The flight recorder: only the processes that exit 1 write, each its own
 * records.  Triggered: the parent (its records written once or told
 * overwritten, which the small rings make some of) and every other child
 * that initializes again (under its own SID, all of its records); the
 * children that initialize again and exit 0 and the drivers nothing.
 * Not triggered: nothing of any of them, nor of the forked children
 * that do not initialize again (they go on recording in their copy of
 * the flight recorder, and none triggers): the file has no line.
 */
static void assert_flight(const struct seen *z, const struct verdict *v, const struct mode *m)
{
	const unsigned triggered = m->flight == F_TRIGGERED;
	const unsigned kids = triggered * (((unsigned)forks() / NVARIANTS + 1) / 2);

	assert_int_equal(v->child_count[V_REINIT], kids);
	assert_int_equal(z->same_sid[V_REINIT], 0);
	if (triggered) {
		assert_int_equal(v->parent_excess, 0);
		assert_int_equal(v->parent_lost, 0);
		assert_int_equal(v->parent_dup, 0);
	} else {
		assert_int_equal(parent_records_written(z), 0);
	}
	assert_int_equal(z->drops_total > 0, triggered);
	if (z->kind != T2_REC_EVENT)
		return;
	assert_int_equal(z->versions_parent, triggered);
	assert_int_equal(z->versions_child, kids);
	assert_int_equal(z->exits_child, kids);
}

static void assert_judgement(const struct seen *z, const struct verdict *v,
			     const struct mode *m)
{
	/* a child's records in a buffer at _exit are lost: GIT_TRACE2_BUFFER;
	 * deferred, the writer's buffer (no initialize again) or the child's
	 * own rings and writer */
	int buffered = m->buffer != NULL || m->ring != NULL;
	const unsigned each = (unsigned)forks() / NVARIANTS;

	assert_int_equal(v->child_dup, 0);
	assert_int_equal(z->stray, 0);
	assert_int_equal(z->foreign, 0);
	if (m->flight) {
		assert_flight(z, v, m);
		return;
	}
	assert_int_equal(v->parent_excess, 0);
	assert_int_equal(v->parent_lost, 0);
	assert_int_equal(v->parent_dup, 0);
	/* exit() flushes; a _exit child loses what it buffered */
	assert_int_equal(v->child_count[V_LIBC_EXIT], each);
	if (!buffered) {
		assert_int_equal(v->child_count[V_EXIT], each);
		assert_int_equal(v->child_count[V_REINIT], each);
	}
	if (z->kind != T2_REC_EVENT)
		return;
	assert_int_equal(z->versions_parent, 1);
	/* the drivers, plus the reinitialised children whose version record
	 * got out (all of them unbuffered; buffered, only those whose first
	 * record found the inherited buffer older than the flush interval) */
	if (buffered)
		assert_in_range(z->versions_child, each, 2 * each);
	else
		assert_int_equal(z->versions_child, 2 * each);
	assert_int_equal(z->exits_child, each);
	/* the parent, plus every child that left with exit() */
	assert_int_equal(z->atexit_parent, 1 + each);
}

/* Mark m's records: expected of the parent (0 or 1) and of each child of
 * a variant (each variant's share of the forks, or none). */
static void assert_mark(const struct seen *z, int m, unsigned parent, unsigned children)
{
	assert_int_equal(z->marks[m], parent + children);
	if (z->kind != T2_REC_EVENT)
		return;
	assert_int_equal(z->marks_parent[m], parent);
	assert_int_equal(z->marks_child[m], children);
}

/* Sampled, kept: one trace2/sample record per process that records its
 * start (it follows the start record: the parent, the drivers), none by
 * the children that do not (the reinitialised ones) or do not initialize
 * again; not sampled, none.  Triggered: one trace2/flight record per
 * process that exits 1 (the parent, every other reinitialised child) on
 * every target; none otherwise. */
static void assert_marks(const struct seen *z, const struct mode *m)
{
	const unsigned each = (unsigned)forks() / NVARIANTS;
	const unsigned kept = m->sample == S_KEPT;
	const unsigned dumped = m->flight == F_TRIGGERED;

	assert_mark(z, M_SAMPLE, kept, kept * each);
	assert_mark(z, M_FLIGHT, dumped, dumped * ((each + 1) / 2));
}

/* One target's file: checked, its records counted into z (the caller
 * frees it). */
static void check_target(const char *dir, const struct summary *sum, int kind,
			 const struct mode *m, struct seen *z)
{
	char *path = t2_path(dir, KIND_NAME[kind]);
	struct t2_whole w = { 0 };
	struct verdict v;

	t2_whole_file(path, &w);
	printf("[fork] %-6s %-8s %zu lines, %zu bad, %zu interleaved, partial last line %zu\n",
	       m->label, KIND_NAME[kind], w.lines, w.bad, w.mixed, w.partial);
	if (w.bad)
		printf("[fork]   first bad line: %s\n", w.first_bad);
	seen_init(z, sum, kind);
	t2_foreach_line(path, seen_line, z);
	judge(z, m, &v);
	fflush(stdout);
	assert_int_equal(w.bad, 0);
	assert_int_equal(w.partial, 0);
	assert_int_equal(w.kinds[kind], w.lines);
	if (m->flight == F_QUIET)
		assert_int_equal(w.lines, 0);
	assert_judgement(z, &v, m);
	assert_marks(z, m);
	free(path);
}

/* The same records reach every target (a drop happens before them):
 * PERF and EVENT have the same busy and fork records and drop reports,
 * NORMAL the same drop total.  Returns the differences. */
static unsigned long compare_targets(const struct seen *normal, const struct seen *perf,
				     const struct seen *event)
{
	unsigned long diff = normal->drops_total != perf->drops_total;
	long seq;
	int i;

	diff += event->drops_total != perf->drops_total;
	for (i = 1; i <= BUSY; i++) {
		diff += event->drops[i] != perf->drops[i];
		for (seq = 0; seq < MAX_SEQ; seq++)
			diff += event->busy[i][seq] != perf->busy[i][seq];
	}
	for (seq = 0; seq < forks(); seq++)
		diff += event->fork[seq] != perf->fork[seq];
	return diff;
}

/*
 * The deferred-mode fork tests have children of a multi-threaded process
 * start threads (a writer after trace2_initialize()), which the
 * sanitizers' runtimes do not survive: ThreadSanitizer ends such a
 * child, AddressSanitizer's allocator lock can be left held in it (seen
 * here: 1 child in about 30 runs hung).  Say so and skip.
 */
static void skip_deferred_under_sanitizer(const char *what)
{
	if (!UNDER_SANITIZER)
		return;
	printf("[fork] %s skipped under a sanitizer: a child of a multi-threaded process "
	       "that starts threads (ThreadSanitizer ends it, AddressSanitizer's allocator "
	       "lock may be held in it)\n", what);
	fflush(stdout);
	skip();
}

/* The storm's process ended cleanly with this exit code, its stderr
 * empty; what it said about children that failed is shown first. */
static void assert_storm_ended_well(const struct t2_proc *p, int code)
{
	if (*p->err)
		printf("[fork] stderr: %.500s\n", p->err);
	if (strstr(p->out, "child "))
		printf("[fork] %.500s\n", strstr(p->out, "child "));
	fflush(stdout);
	assert_true(WIFEXITED(p->status) && WEXITSTATUS(p->status) == code);
	assert_string_equal(p->err, "");
}

/* Every target's file checked, and the records the targets share. */
static void check_targets(const char *dir, const struct summary *sum, const struct mode *m)
{
	struct seen z[T2_REC_EVENT + 1];
	unsigned long diff;
	int kind;

	for (kind = T2_REC_NORMAL; kind <= T2_REC_EVENT; kind++)
		check_target(dir, sum, kind, m, &z[kind]);
	diff = compare_targets(&z[T2_REC_NORMAL], &z[T2_REC_PERF], &z[T2_REC_EVENT]);
	printf("[fork] %-6s records or drop reports that differ between the targets: %lu\n",
	       m->label, diff);
	fflush(stdout);
	assert_int_equal(diff, 0);
	for (kind = T2_REC_NORMAL; kind <= T2_REC_EVENT; kind++)
		seen_free(&z[kind]);
}

/* A tree sampled out: no file of any target, by the parent or a child. */
static void check_nothing_written(const char *dir, const struct mode *m)
{
	char *files = t2_listdir(dir);

	printf("[fork] %-6s sampled out: files written: %.300s\n", m->label,
	       *files ? files : "none");
	fflush(stdout);
	assert_string_equal(files, "");
	free(files);
}

/* The scenario's SID: under the root when sampled. */
static void assert_sid_under_root(const struct summary *sum, const struct mode *m)
{
	const char *root = SAMPLE_ROOT[m->sample];

	if (!root)
		return;
	assert_true(strlen(sum->sid) > strlen(root) + 1);
	assert_memory_equal(sum->sid, root, strlen(root));
	assert_int_equal(sum->sid[strlen(root)], '/');
}

static void run_fork_storm(const struct mode *m)
{
	const char *dir;
	struct t2_env env = { 0 };

	T2_SKIP_UNDER_EMULATOR("qemu-user 7.2 aborts (cpu_exec assertion) in a child forked while other threads run");
	dir = t2_scratch_dir();
	struct t2_proc p;
	struct summary sum;
	double t0 = t2_now();
	int code = m->flight == F_TRIGGERED ? FLIGHT_EXIT : 0;

	/* sampled out, no process starts a thread of the library's */
	if (m->ring && m->sample != S_OUT)
		skip_deferred_under_sanitizer(m->label);
	fork_share = (m->sample || m->flight) && UNDER_SANITIZER ? SANITIZER_SHARE : 1;

	t2_env_add(&env, "GIT_TRACE2=%s/normal", dir);
	t2_env_add(&env, "GIT_TRACE2_PERF=%s/perf", dir);
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s/event", dir);
	if (m->buffer)
		t2_env_add(&env, "GIT_TRACE2_BUFFER=%s", m->buffer);
	if (m->ring)
		t2_env_add(&env, "GIT_TRACE2_DEFERRED=1");
	if (m->ring && *m->ring)
		t2_env_add(&env, "GIT_TRACE2_DEFERRED_RING=%s", m->ring);
	if (m->sample) {
		t2_env_add(&env, "GIT_TRACE2_SAMPLE=" T2_SAMPLE_RATE);
		t2_env_add(&env, "GIT_TRACE2_PARENT_SID=%s", SAMPLE_ROOT[m->sample]);
	}
	if (m->flight)
		t2_env_add(&env, "GIT_TRACE2_FLIGHT=" FLIGHT_RING);
	t2_capture(fork_scenario, &code, t2_env_list(&env), SCENARIO_TIMEOUT_S, &p);
	parse_stdout(p.out, &sum);
	printf("[fork] %-6s %d forks (%d per variant: %s, %s, %s, %s, %s) in %.2f s: ok %d, "
	       "deadlocks/timeouts %d, other failures %d; exec'd fd listings %d, as expected "
	       "(\"%s\") %d%s%s; busy iterations %ld %ld %ld %ld\n",
	       m->label, forks(), forks() / NVARIANTS, VARIANT_NAME[0],
	       VARIANT_NAME[1], VARIANT_NAME[2], VARIANT_NAME[3], VARIANT_NAME[4],
	       t2_now() - t0, sum.ok, sum.timeouts, sum.bad, sum.fd_lines, EXPECTED_FDS,
	       sum.fd_lines_ok, sum.bad_fds[0] ? "; unexpected: " : "", sum.bad_fds,
	       sum.busy[1], sum.busy[2], sum.busy[3], sum.busy[4]);
	assert_storm_ended_well(&p, code);
	assert_int_equal(sum.keep, 3);
	assert_int_equal(sum.timeouts, 0);
	assert_int_equal(sum.bad, 0);
	assert_int_equal(sum.ok, forks());
	assert_int_equal(sum.fd_lines, forks() / NVARIANTS);
	assert_int_equal(sum.fd_lines_ok, forks() / NVARIANTS);
	assert_sid_under_root(&sum, m);
	if (m->sample == S_OUT)
		check_nothing_written(dir, m);
	else
		check_targets(dir, &sum, m);
	t2_proc_free(&p);
	t2_env_free(&env);
}

static const struct mode PLAIN = { "plain", NULL, NULL, S_OFF, F_OFF };
static const struct mode BUFFERED = { "64k", "64k", NULL, S_OFF, F_OFF };
static const struct mode DEFERRED = { "defer", NULL, "", S_OFF, F_OFF };
static const struct mode DEFERRED_4K = { "defer4k", NULL, "4k", S_OFF, F_OFF };
static const struct mode SAMPLED_KEPT = { "kept", NULL, NULL, S_KEPT, F_OFF };
static const struct mode SAMPLED_OUT = { "out", NULL, NULL, S_OUT, F_OFF };
static const struct mode SAMPLED_OUT_DEFERRED = { "out+defer", NULL, "", S_OUT, F_OFF };
static const struct mode FLIGHT = { "flight", NULL, NULL, S_OFF, F_TRIGGERED };
static const struct mode FLIGHT_QUIET = { "quiet", NULL, NULL, S_OFF, F_QUIET };

static void fork_storm(void **state) { (void)state; run_fork_storm(&PLAIN); }
static void fork_storm_buffered(void **state) { (void)state; run_fork_storm(&BUFFERED); }
static void fork_storm_deferred(void **state) { (void)state; run_fork_storm(&DEFERRED); }
static void fork_storm_deferred_4k(void **state) { (void)state; run_fork_storm(&DEFERRED_4K); }
static void fork_storm_sampled_kept(void **state) { (void)state; run_fork_storm(&SAMPLED_KEPT); }
static void fork_storm_sampled_out(void **state) { (void)state; run_fork_storm(&SAMPLED_OUT); }
static void fork_storm_sampled_out_deferred(void **state) { (void)state; run_fork_storm(&SAMPLED_OUT_DEFERRED); }
static void fork_storm_flight(void **state) { (void)state; run_fork_storm(&FLIGHT); }
static void fork_storm_flight_quiet(void **state) { (void)state; run_fork_storm(&FLIGHT_QUIET); }

/* ------------------------------------------------------------------ */
/* Deferred mode: children with and without their own writer.          */
/* ------------------------------------------------------------------ */

#define KIDS 40
#define KID_RECORDS 50
#define KID_BUSY 2

/* Threads of this process. */
static int task_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void *kid_thread(void *arg)
{
	const int *i = arg;
	int seq;

	trace2_thread_start("kid");
	for (seq = 0; seq < KID_RECORDS; seq++)
		trace2_printf("kid %d %d", *i, seq);
	trace2_thread_exit();
	return NULL;
}

/*
 * Even children initialize again (their own writer thread starts: two
 * threads then) and leave with exit(), whose handler drains; odd ones do
 * not (one thread: the records go out directly) and leave with
 * trace2_flush() and _exit().  Each traces KID_RECORDS printf records
 * from a thread of its own.
 */
static _Noreturn void run_kid(int i)
{
	pthread_t th;

	alarm(CHILD_ALARM_S);
	if (i % 2 == 0)
		trace2_initialize();
	dprintf(1, "kid %d threads %d\n", i, task_count());
	if (pthread_create(&th, NULL, kid_thread, &i) || pthread_join(th, NULL))
		_exit(3);
	if (i % 2 == 0)
		exit(0);
	trace2_flush();
	_exit(0);
}

static void kids_scenario(void *arg)
{
	const char *argv[] = { "kids", NULL };
	pthread_t th[KID_BUSY];
	struct busy b[KID_BUSY];
	int stop = 0, i, ok = 0;

	(void)arg;
	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_cmd_name("kids");
	dprintf(1, "sid %s\n", trace2_session_id());
	for (i = 0; i < KID_BUSY; i++) {
		b[i] = (struct busy){ &stop, 0 };
		pthread_create(&th[i], NULL, busy_main, &b[i]);
	}
	for (i = 0; i < KIDS; i++) {
		int status = fork_traced(i, run_kid);

		if (status != -1 && WIFEXITED(status) && !WEXITSTATUS(status))
			ok++;
		else
			dprintf(1, "child %d status 0x%x\n", i, status);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < KID_BUSY; i++) {
		pthread_join(th[i], NULL);
		dprintf(1, "busy %d %ld\n", i + 1, b[i].iterations);
	}
	dprintf(1, "summary ok %d timeouts 0 bad %d\n", ok, KIDS - ok);
	exit(trace2_cmd_exit(0));
}

/* What the EVENT file says of the children and the parent's threads. */
struct kids_seen {
	const struct summary *sum;
	unsigned char seen[KIDS][KID_RECORDS];
	char sid[KIDS][200];		/* of each child's first record */
	unsigned wrong_sid, wrong_thread, stray;
	/* the parent's busy threads: data records by sequence number,
	 * records and drops reported */
	struct seen parent;
	/* drops reported on "kid" threads, by SID (matched at the end) */
	struct { char sid[200]; long n; } kid_drops[KIDS];
	int nkid_drops;
};

static int ends_with(struct t2_slice s, const char *tail)
{
	size_t n = strlen(tail);

	return s.len >= n && !memcmp(s.p + s.len - n, tail, n);
}

/* "kid <i> <seq>" on a thread "th<NN>:kid", one SID per child. */
static void kid_record(struct kids_seen *k, const struct item *it)
{
	char text[64];
	int i, seq, end = 0;

	if (!it->msg.p || it->msg.len >= sizeof(text))
		goto stray;
	memcpy(text, it->msg.p, it->msg.len);
	text[it->msg.len] = '\0';
	if (sscanf(text, "kid %d %d%n", &i, &seq, &end) != 2 || text[end] || i < 0 ||
	    i >= KIDS || seq < 0 || seq >= KID_RECORDS)
		goto stray;
	bump(&k->seen[i][seq]);
	k->wrong_thread += !ends_with(it->thread, ":kid");
	if (!k->sid[i][0] && it->sid.len < sizeof(k->sid[i]))
		memcpy(k->sid[i], it->sid.p, it->sid.len);
	k->wrong_sid += !t2_slice_eq(it->sid, k->sid[i]);
	return;
stray:
	k->stray++;
}

static void kids_line(void *ctx, const char *line, size_t len)
{
	struct kids_seen *k = ctx;
	struct t2_rec r;
	struct item it;

	if (t2_rec_parse(line, len, &r) != T2_REC_EVENT) {
		k->stray++;
		t2_rec_free(&r);
		return;
	}
	to_item(&r, &it);
	if (t2_slice_eq(it.event, "printf"))
		kid_record(k, &it);
	else if (is_drop_report(&it) && ends_with(it.thread, ":kid") &&
		 k->nkid_drops < KIDS && it.sid.len < sizeof(k->kid_drops[0].sid)) {
		memcpy(k->kid_drops[k->nkid_drops].sid, it.sid.p, it.sid.len);
		k->kid_drops[k->nkid_drops++].n = slice_long(it.value);
	} else {
		seen_line(&k->parent, line, len);
	}
	t2_rec_free(&r);
}

/* Records of child i written or reported dropped. */
static long kid_total(const struct kids_seen *k, int i, unsigned *dup)
{
	long total = 0;
	int seq, d;

	for (seq = 0; seq < KID_RECORDS; seq++) {
		total += k->seen[i][seq] ? 1 : 0;
		*dup += k->seen[i][seq] > 1 ? k->seen[i][seq] - 1u : 0;
	}
	for (d = 0; d < k->nkid_drops; d++)
		if (!strcmp(k->kid_drops[d].sid, k->sid[i]))
			total += k->kid_drops[d].n;
	return total;
}

/* "kid <i> threads <n>" lines: how many children had 2 threads after
 * initializing again (even) and 1 without (odd). */
static int kid_threads_as_expected(const char *out)
{
	char **lines = t2_lines(out, NULL);
	int good = 0, i, n;
	size_t l;

	for (l = 0; lines[l]; l++)
		if (sscanf(lines[l], "kid %d threads %d", &i, &n) == 2)
			good += n == (i % 2 == 0 ? 2 : 1);
	t2_strv_free(lines);
	return good;
}

/*
 * A forked child of a deferred-mode process never writes its parent's
 * records; one that initializes again gets a writer thread of its own and
 * a SID of its own, one that does not writes directly (after
 * trace2_flush()), under the parent's SID.  Exact: every child record
 * written once (or reported dropped), every record of the parent's busy
 * threads written once or reported dropped.
 */
static void fork_deferred_children(void **state)
{
	const char *dir;
	struct t2_env env = { 0 };
	struct kids_seen *k;
	struct summary sum;
	struct verdict v;
	struct t2_proc p;
	unsigned lost = 0, dup = 0, own_sids = 0, parent_sids = 0;
	char *path;
	int i, threads_ok;

	(void)state;
	T2_SKIP_UNDER_EMULATOR("qemu-user 7.2 aborts (cpu_exec assertion) in a child forked while other threads run");
	dir = t2_scratch_dir();
	skip_deferred_under_sanitizer("deferred children");
	k = calloc(1, sizeof(*k));
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s/event", dir);
	t2_env_add(&env, "GIT_TRACE2_DEFERRED=1");
	t2_capture(kids_scenario, NULL, t2_env_list(&env), SCENARIO_TIMEOUT_S, &p);
	parse_stdout(p.out, &sum);
	threads_ok = kid_threads_as_expected(p.out);
	k->sum = &sum;
	seen_init(&k->parent, &sum, T2_REC_EVENT);
	path = t2_path(dir, "event");
	t2_foreach_line(path, kids_line, k);
	for (i = 0; i < KIDS; i++) {
		long total = kid_total(k, i, &dup);

		lost += total < KID_RECORDS ? (unsigned)(KID_RECORDS - total) : 0;
		dup += total > KID_RECORDS ? (unsigned)(total - KID_RECORDS) : 0;
		if (i % 2)
			parent_sids += !strcmp(k->sid[i], sum.sid);
		else
			own_sids += !strncmp(k->sid[i], sum.sid, strlen(sum.sid)) &&
				    k->sid[i][strlen(sum.sid)] == '/';
	}
	memset(&v, 0, sizeof(v));
	judge_parent(&k->parent, 1, &v);
	judge_accounting(&k->parent, KID_BUSY, KIDS, &v);
	printf("[fork] deferred children: %d forks, ok %d, as many threads as expected %d; "
	       "child records lost %u, duplicated %u, on a wrong thread %u, under a second SID "
	       "%u, stray %u; own SID (initialized again) %u of %d, parent's SID %u of %d; "
	       "parent records lost %u, duplicated %u, dropped %lu, over-reported %lu\n",
	       KIDS, sum.ok, threads_ok, lost, dup, k->wrong_thread, k->wrong_sid,
	       k->stray + k->parent.stray, own_sids, KIDS / 2, parent_sids, KIDS / 2,
	       v.parent_lost, v.parent_dup, k->parent.drops_total, v.parent_excess);
	assert_storm_ended_well(&p, 0);
	assert_int_equal(sum.ok, KIDS);
	assert_int_equal(threads_ok, KIDS);
	assert_int_equal(lost, 0);
	assert_int_equal(dup, 0);
	assert_int_equal(k->wrong_thread, 0);
	assert_int_equal(k->wrong_sid, 0);
	assert_int_equal(k->stray + k->parent.stray, 0);
	assert_int_equal(own_sids, KIDS / 2);
	assert_int_equal(parent_sids, KIDS / 2);
	assert_int_equal(v.parent_lost, 0);
	assert_int_equal(v.parent_dup, 0);
	assert_int_equal(v.parent_excess, 0);
	seen_free(&k->parent);
	free(k);
	free(path);
	t2_proc_free(&p);
	t2_env_free(&env);
}

/* ------------------------------------------------------------------ */
/* libc's time zone lock held by another thread at the fork.           */
/* ------------------------------------------------------------------ */

static int holder_tid;

/* localtime() re-reads TZ, here a FIFO: opening it blocks, with the
 * time zone lock held, until someone opens the FIFO for writing. */
static void *hold_tz_lock(void *arg)
{
	time_t t = time(NULL);

	(void)arg;
	__atomic_store_n(&holder_tid, (int)gettid(), __ATOMIC_RELEASE);
	localtime(&t);
	return NULL;
}

/*
 * Traces once (perf target: the UTC offset becomes known), then forks
 * while another thread holds the time zone lock.  The child waits for the
 * next second, so its records need a new time of day, and traces.
 */
static void tz_lock_scenario(void *arg)
{
	const char *fifo = arg;
	char tz[PATH_MAX + 2];
	pthread_t th;
	pid_t pid;
	int status, fd;

	trace2_initialize_clock();
	trace2_initialize();
	trace2_region_enter("fork", "before", NULL);
	trace2_region_leave("fork", "before", NULL);
	snprintf(tz, sizeof(tz), ":%s", fifo);
	setenv("TZ", tz, 1);
	pthread_create(&th, NULL, hold_tz_lock, NULL);
	dprintf(1, "holder in open %d\n", t2_wait_thread_in_open(&holder_tid, fifo, 5000));
	pid = fork();
	if (pid == 0) {
		time_t t0 = time(NULL);

		alarm(CHILD_ALARM_S);
		while (time(NULL) == t0)
			usleep(10000);
		trace2_region_enter("fork", "child", NULL);
		trace2_region_leave("fork", "child", NULL);
		_exit(0);
	}
	status = t2_wait_timeout(pid, CHILD_WAIT_MS);
	dprintf(1, "child status 0x%x\n", status);
	fd = open(fifo, O_WRONLY);	/* lets the holder read an empty zone */
	if (fd >= 0)
		close(fd);
	pthread_join(th, NULL);
	_exit(0);
}

/* A forked child makes its time of day without libc's time zone lock. */
static void fork_while_tz_lock_held(void **state)
{
	const char *dir;
	char fifo[PATH_MAX], path[PATH_MAX], *perf;
	struct t2_env env = { 0 };
	struct t2_proc p;

	(void)state;
	T2_SKIP_UNDER_EMULATOR("/proc/<pid>/task/<tid>/syscall shows the emulator's own system calls");
	dir = t2_scratch_dir();
	snprintf(fifo, sizeof(fifo), "%s/tz.fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	t2_env_add(&env, "GIT_TRACE2_PERF=%s/perf", dir);
	t2_capture(tz_lock_scenario, fifo, t2_env_list(&env), 60, &p);
	assert_string_equal(p.out, "holder in open 1\nchild status 0x0\n");
	snprintf(path, sizeof(path), "%s/perf", dir);
	perf = t2_read_file(path, NULL);
	assert_non_null(perf);
	assert_non_null(strstr(perf, "| region_leave |"));
	assert_non_null(strstr(perf, "label:child\n"));
	free(perf);
	t2_proc_free(&p);
	t2_env_free(&env);
}

/* Exec the lister with fds 3 and 5 inheritable and fd 4 close-on-exec. */
static void exec_lister(void *arg)
{
	int a, b, c;

	(void)arg;
	close_fds_from_3();
	a = open("/dev/null", O_RDONLY);
	b = open("/dev/null", O_RDONLY | O_CLOEXEC);
	c = open("/dev/null", O_RDONLY);
	if (a != 3 || b != 4 || c != 5)
		_exit(2);
	t2_exec_built(NULL, (char *[]){ "fdlist", LIST_FDS_ARG, NULL });
	_exit(127);
}

/* The fd check must be able to fail: inheritable descriptors show. */
static void fd_listing_sees_inherited_fds(void **state)
{
	struct t2_proc p;

	(void)state;
	t2_capture(exec_lister, NULL, NULL, 10, &p);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "fds 0 1 2 3 5\n");
	t2_proc_free(&p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(fd_listing_sees_inherited_fds, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_buffered, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_deferred, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_deferred_4k, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_sampled_kept, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_sampled_out, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_sampled_out_deferred, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_flight, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_storm_flight_quiet, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_deferred_children, t2_scratch_cleanup),
		cmocka_unit_test_teardown(fork_while_tz_lock_held, t2_scratch_cleanup),
	};

	if (argc == 2 && !strcmp(argv[1], LIST_FDS_ARG))
		return list_fds();
	/* the children leaving with exit() would check a copy of a
	 * multi-threaded process: no leak checks in children */
	t2_leak_check_runner_only();
	if (getenv("T2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("T2_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
