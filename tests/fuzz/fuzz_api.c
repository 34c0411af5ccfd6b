/*
 * Fuzzer: the whole API, with all three targets writing to files.
 *
 * LLVMFuzzerInitialize() points GIT_TRACE2, GIT_TRACE2_PERF and
 * GIT_TRACE2_EVENT at files of a private directory (non-brief) and calls
 * trace2_initialize() once.  Each input is then a program of trace2
 * calls (see step()): an opcode byte, then the operands it takes
 * (strings: a length byte and the bytes; LF becomes a space, since NORMAL
 * and PERF do not escape).  A thread opcode takes a length byte and runs
 * that many following bytes as the program of a new thread (at most
 * MAX_THREADS at once), between trace2_thread_start() and
 * trace2_thread_exit().
 *
 * Misuse is part of the program: region leaves beyond the open regions,
 * timer stops beyond the starts, invalid timer and counter ids, a
 * data_json writer that is not terminated.  A BUG handler counts the
 * reports per thread, and every step is checked to report exactly as many
 * as docs/api.md says.  After the program the main thread's regions and
 * timers are closed again (the process state carries over to the next
 * input), trace2_flush() (deferred mode: the records queued go out),
 * every new line of the three files is checked (t2_check_text() of
 * tests/support/t2rec.h) and the files are emptied.
 *
 * The settings not reset here come from the environment: the replay
 * runs the corpus again with GIT_TRACE2_DEFERRED=1 and a small ring, and
 * with the flight recorder (GIT_TRACE2_FLIGHT), whose rings each input
 * writes out with trace2_flight_dump() after trace2_flush(), and sampled
 * (GIT_TRACE2_SAMPLE, in a tree the rate keeps).  An
 * input that runs in a forked child (the replay) initializes again
 * there, so that a deferred mode has its rings and writer thread in that
 * process too.
 */
#include "fuzz.h"
#include "t2rec.h"
#include "t2va.h"
#include "trace2.h"
#include "trace2/flight.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 3
#define NREPOS 3
#define MAX_ARGS 4
#define STR_MAX 48

static char *files[3]; /* NORMAL, PERF, EVENT */
/* The main thread's base region entry: a leave with no open region pops
 * it, once per thread (docs/api.md, "Regions"); it never comes back. */
static int main_base = 1;
/* The process that initialized. */
static pid_t init_pid;

/* path holds s (a file of at most 64 KiB). */
static int file_has(const char *path, const char *s)
{
	static char text[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	FZ_CHECK(fd >= 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	FZ_CHECK(n >= 0);
	text[n] = '\0';
	return strstr(text, s) != NULL;
}

/*
 * Until every file shows the cmd_name record.  In deferred mode only the
 * writer thread writes it, so the writer has then started and allocated
 * its buffers: under AddressSanitizer (clang 14), a child forked while
 * another thread is inside the allocator (a new thread allocates as it
 * starts) hangs in its first malloc of that size, and the replay forks
 * right after this.  trace2_flush() would write the records from this
 * thread and prove nothing about the writer.
 */
#define WRITER_WAIT_MS 30000

static void wait_for_writer(void)
{
	const struct timespec one_ms = { 0, 1000000 };
	int i, ms;

	trace2_flight_dump("fuzz-start"); /* with the flight recorder: out now */
	for (i = 0; i < 3; i++) {
		for (ms = 0; !file_has(files[i], "fuzz-api") && ms < WRITER_WAIT_MS; ms++)
			nanosleep(&one_ms, NULL);
		if (ms == WRITER_WAIT_MS)
			fz_fail(__FILE__, __LINE__, "no cmd_name record in %s after %d ms",
				files[i], WRITER_WAIT_MS);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const unset[] = {
		"GIT_TRACE2_BRIEF", "GIT_TRACE2_PERF_BRIEF", "GIT_TRACE2_EVENT_BRIEF",
		"GIT_TRACE2_EVENT_NESTING", "GIT_TRACE2_CONFIG_PARAMS",
		"GIT_TRACE2_ENV_VARS", "GIT_TRACE2_DST_DEBUG", "GIT_TRACE2_MAX_FILES",
		"GIT_TRACE2_BUFFER", "GIT_TRACE2_REDACT", "GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_COUNT", NULL,
	};
	static const char *const names[3] = { "normal", "perf", "event" };
	static const char *const vars[3] = { "GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT" };
	const char *dir = fz_tempdir("api");
	int i;

	(void)argc;
	(void)argv;
	for (i = 0; unset[i]; i++)
		fz_setenv(unset[i], NULL);
	fz_setenv("GIT_CONFIG_NOSYSTEM", "1");
	fz_setenv("GIT_CONFIG_GLOBAL", FZ_NULL_DEVICE);
	for (i = 0; i < 3; i++) {
		files[i] = fz_path(dir, names[i]);
		fz_setenv(vars[i], files[i]);
	}
	trace2_set_bug_handler(fz_count_bug);
	trace2_initialize_clock();
	trace2_initialize();
	FZ_CHECK(trace2_is_enabled());
	trace2_cmd_name("fuzz-api");
	wait_for_writer();
	init_pid = getpid();
	return 0;
}

/* ------------------------------------------------------------------ */
/* Programs.                                                            */
/* ------------------------------------------------------------------ */

struct prog;

struct worker {
	pthread_t id;
	struct prog *prog;
	const char *name;
};

struct prog {
	struct fz_in in;
	struct fz_pool pool;
	int is_main;
	int regions;  /* open regions this program entered */
	int *base;    /* the thread's base region entry is still there */
	int timers[TRACE2_NUMBER_OF_TIMERS];
	struct repository repos[NREPOS];
	struct worker workers[MAX_THREADS];
	unsigned next_worker;
};

static const char *str(struct prog *p)
{
	return fz_str(&p->in, &p->pool, STR_MAX, 1);
}

/* A string, or NULL one time in 16 (every NULL the API allows). */
static const char *str_or_null(struct prog *p)
{
	return fz_pick(&p->in, 16) ? str(p) : NULL;
}

/* NULL or one of this input's repositories (none in other threads:
 * def_repo writes the id the others read). */
static const struct repository *repo(struct prog *p)
{
	unsigned k = fz_pick(&p->in, NREPOS + 1);

	return p->is_main && k < NREPOS ? &p->repos[k] : NULL;
}

/* A NULL-terminated argv of up to MAX_ARGS strings, in pool storage. */
static const char **argv_of(struct prog *p)
{
	unsigned n = fz_pick(&p->in, MAX_ARGS + 1), i;
	const char **v = fz_pool_keep(&p->pool, malloc((n + 1) * sizeof(*v)));

	FZ_CHECK(v != NULL);
	for (i = 0; i < n; i++)
		v[i] = str(p);
	v[n] = NULL;
	return v;
}

/* A small writer; *key says whether it was terminated. */
static void build_json(struct prog *p, struct json_writer *jw, const char **key)
{
	unsigned n = fz_pick(&p->in, 5), i;
	int arrays = (int)fz_pick(&p->in, 2);

	jw_init(jw);
	if (arrays)
		jw_array_begin(jw, (int)fz_pick(&p->in, 2));
	else
		jw_object_begin(jw, (int)fz_pick(&p->in, 2));
	for (i = 0; i < n; i++) {
		const char *s = str(p);

		if (arrays)
			jw_array_string(jw, s);
		else if (fz_pick(&p->in, 2))
			jw_object_intmax(jw, s, (intmax_t)fz_u64(&p->in));
		else {
			jw_object_inline_begin_array(jw, s);
			jw_array_argv(jw, argv_of(p));
			jw_end(jw);
		}
	}
	*key = fz_pick(&p->in, 8) ? "json" : "partial";
	if (**key == 'j')
		jw_end(jw);
}

/* A leave: pops an open region, else the base entry, else is a BUG. */
static int leave(struct prog *p)
{
	if (p->regions > 0)
		p->regions--;
	else if (*p->base)
		*p->base = 0;
	else
		return 1;
	return 0;
}

static void child(struct prog *p)
{
	struct child_process ch = CHILD_PROCESS_INIT;
	const char **args = argv_of(p);

	for (ch.args.nr = 0; args[ch.args.nr]; ch.args.nr++)
		;
	ch.args.v = args;
	ch.dir = fz_pick(&p->in, 4) ? NULL : str(p);
	ch.trace2_child_class = fz_pick(&p->in, 2) ? NULL : str(p);
	ch.trace2_hook_name = fz_pick(&p->in, 4) ? NULL : str(p);
	ch.git_cmd = fz_pick(&p->in, 2);
	ch.use_shell = fz_pick(&p->in, 2);
	trace2_child_start(&ch);
	ch.pid = (trace2_pid_t)fz_u32(&p->in);
	if (fz_pick(&p->in, 2))
		trace2_child_ready(&ch, str_or_null(p));
	trace2_child_exit(&ch, (int)fz_u32(&p->in));
}

static void start_thread(struct prog *p);

enum op {
	OP_REGION_ENTER, OP_REGION_LEAVE, OP_REGION_ENTER_PRINTF,
	OP_REGION_LEAVE_PRINTF, OP_DATA_STRING, OP_DATA_INTMAX, OP_DATA_JSON,
	OP_PRINTF, OP_ERROR, OP_TIMER_START, OP_TIMER_STOP, OP_COUNTER,
	OP_DEF_PARAM, OP_DEF_REPO, OP_CMD_MODE, OP_CHILD, OP_EXEC, OP_ALIAS,
	OP_THREAD, OP_THREAD_PROC_MAIN,
	OP_COUNT
};

/* A region enter or leave, with or without a message; returns the number
 * of BUG reports it must cause. */
static int region(struct prog *p, enum op op)
{
	const char *cat, *label, *msg;
	const struct repository *r;

	cat = str_or_null(p);
	label = str_or_null(p);
	r = repo(p);
	msg = str(p);
	switch (op) {
	case OP_REGION_ENTER:
		trace2_region_enter(cat, label, r);
		break;
	case OP_REGION_ENTER_PRINTF:
		trace2_region_enter_printf(cat, label, r, "%s", msg);
		break;
	case OP_REGION_LEAVE:
		trace2_region_leave(cat, label, r);
		return leave(p);
	default:
		trace2_region_leave_printf(cat, label, r, "%s", msg);
		return leave(p);
	}
	p->regions++;
	return 0;
}

/* One call; returns the number of BUG reports it must cause (-1: any). */
static int step(struct prog *p)
{
	enum op op = (enum op)fz_pick(&p->in, OP_COUNT);
	struct key_value_info kvi = KVI_INIT;
	struct json_writer jw;
	const struct repository *r;
	const char *cat, *key, *msg;
	unsigned id;
	int rc;

	switch (op) {
	case OP_REGION_ENTER:
	case OP_REGION_ENTER_PRINTF:
	case OP_REGION_LEAVE:
	case OP_REGION_LEAVE_PRINTF:
		return region(p, op);
	case OP_DATA_STRING:
		cat = str_or_null(p);
		key = str_or_null(p);
		r = repo(p);
		msg = str_or_null(p);
		trace2_data_string(cat, r, key, msg);
		return 0;
	case OP_DATA_INTMAX:
		cat = str_or_null(p);
		key = str_or_null(p);
		r = repo(p);
		trace2_data_intmax(cat, r, key, (intmax_t)fz_u64(&p->in));
		return 0;
	case OP_DATA_JSON:
		cat = str_or_null(p);
		r = repo(p);
		build_json(p, &jw, &key);
		trace2_data_json(cat, r, key, &jw);
		jw_release(&jw);
		return *key == 'j' ? 0 : -1; /* EVENT reports a partial one */
	case OP_PRINTF:
		if (fz_pick(&p->in, 8)) {
			msg = str(p);
			trace2_printf("%s %d", msg, (int)fz_u32(&p->in));
		} else
			t2_printf_va(NULL);
		return 0;
	case OP_ERROR:
		if (fz_pick(&p->in, 8))
			trace2_cmd_error("%s", str(p));
		else
			t2_error_va(NULL);
		return 0;
	case OP_TIMER_START:
	case OP_TIMER_STOP:
		id = fz_pick(&p->in, TRACE2_NUMBER_OF_TIMERS + 1);
		if (op == OP_TIMER_START)
			trace2_timer_start((enum trace2_timer_id)id);
		else
			trace2_timer_stop((enum trace2_timer_id)id);
		if (id >= TRACE2_NUMBER_OF_TIMERS)
			return 1;
		if (op == OP_TIMER_START)
			return p->timers[id]++, 0;
		return p->timers[id] ? (p->timers[id]--, 0) : 1;
	case OP_COUNTER:
		id = fz_pick(&p->in, TRACE2_NUMBER_OF_COUNTERS + 1);
		trace2_counter_add((enum trace2_counter_id)id, fz_u64(&p->in));
		return id >= TRACE2_NUMBER_OF_COUNTERS;
	case OP_DEF_PARAM:
		kvi.scope = (enum config_scope)fz_pick(&p->in, 9);
		key = str_or_null(p);
		msg = str_or_null(p);
		trace2_def_param(key, msg, fz_pick(&p->in, 4) ? &kvi : NULL);
		return 0;
	case OP_DEF_REPO:
		if (p->is_main) {
			struct repository *r = &p->repos[fz_pick(&p->in, NREPOS)];

			r->worktree = (char *)str_or_null(p);
			trace2_def_repo(r);
		}
		return 0;
	case OP_CMD_MODE:
		trace2_cmd_mode(str_or_null(p));
		return 0;
	case OP_CHILD:
		child(p);
		return 0;
	case OP_EXEC:
		key = str_or_null(p);
		rc = trace2_exec(key, argv_of(p));
		trace2_exec_result(rc, (int)fz_pick(&p->in, 160) - 20);
		return 0;
	case OP_ALIAS:
		key = str_or_null(p);
		trace2_cmd_alias(key, argv_of(p));
		return 0;
	case OP_THREAD:
		if (p->is_main)
			start_thread(p);
		return 0;
	case OP_THREAD_PROC_MAIN:
		if (!p->is_main)
			return 0;
		if (fz_pick(&p->in, 2)) {
			trace2_thread_start(str(p));
			p->regions++;
			return 0;
		}
		trace2_thread_exit();
		return leave(p);
	default:
		return 0;
	}
}

static void run(struct prog *p)
{
	while (p->in.n) {
		unsigned before = fz_bugs;
		int want = step(p);

		if (want >= 0 && fz_bugs - before != (unsigned)want)
			fz_fail(__FILE__, __LINE__, "%u BUG reports, expected %d",
				fz_bugs - before, want);
	}
}

/* ------------------------------------------------------------------ */
/* Threads.                                                             */
/* ------------------------------------------------------------------ */

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	int base = 1;

	w->prog->base = &base;
	trace2_thread_start(w->name);
	run(w->prog);
	trace2_thread_exit();
	return NULL;
}

static void join_worker(struct worker *w)
{
	FZ_CHECK(!pthread_join(w->id, NULL));
	fz_pool_free(&w->prog->pool);
	free(w->prog);
	w->prog = NULL;
}

static void start_thread(struct prog *p)
{
	struct worker *w = &p->workers[p->next_worker];
	size_t len = fz_byte(&p->in);

	if (w->prog)
		join_worker(w);
	p->next_worker = (p->next_worker + 1) % MAX_THREADS;
	w->name = str(p);
	if (len > p->in.n)
		len = p->in.n;
	w->prog = calloc(1, sizeof(*w->prog));
	FZ_CHECK(w->prog != NULL);
	w->prog->in.p = p->in.p;
	w->prog->in.n = len;
	p->in.p += len;
	p->in.n -= len;
	FZ_CHECK(!pthread_create(&w->id, NULL, thread_main, w));
}

/* ------------------------------------------------------------------ */
/* The files.                                                           */
/* ------------------------------------------------------------------ */

/* Everything written since the last call, then empty the file (the
 * targets append, so they carry on at the new end). */
static void take_new_text(const char *path, struct fz_buf *out)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	FZ_CHECK(fd >= 0);
	fz_buf_add(out, "", 0);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		fz_buf_add(out, chunk, (size_t)n);
	FZ_CHECK(n == 0);
	close(fd);
	FZ_CHECK(!truncate(path, 0));
}

/* T2FUZZ_SHOW=1 in the environment prints what was checked. */
static void check_files(void)
{
	static const enum t2_rec_kind kinds[3] = {
		T2_REC_NORMAL, T2_REC_PERF, T2_REC_EVENT,
	};
	const char *show = getenv("T2FUZZ_SHOW");
	int i;

	for (i = 0; i < 3; i++) {
		struct fz_buf text = FZ_BUF_INIT;
		struct t2_text_error err;

		take_new_text(files[i], &text);
		if (show && *show == '1')
			fprintf(stderr, "---- %s\n%s", files[i], text.p);
		if (t2_check_text(kinds[i], text.p, text.len, &err))
			fz_fail(__FILE__, __LINE__, "%s line %u (%s): %.*s", files[i],
				err.nr, err.why, (int)err.len, err.line);
		fz_buf_free(&text);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog p;
	unsigned i;

	if (getpid() != init_pid) {
		trace2_initialize();
		FZ_CHECK(trace2_is_enabled());
		init_pid = getpid();
	}
	memset(&p, 0, sizeof(p));
	p.in.p = data;
	p.in.n = size;
	p.is_main = 1;
	p.base = &main_base;
	run(&p);
	for (i = 0; i < MAX_THREADS; i++)
		if (p.workers[i].prog)
			join_worker(&p.workers[i]);
	while (p.regions) {
		unsigned before = fz_bugs;

		trace2_region_leave("fuzz", "cleanup", NULL);
		FZ_CHECK(fz_bugs == before);
		p.regions--;
	}
	for (i = 0; i < TRACE2_NUMBER_OF_TIMERS; i++)
		for (; p.timers[i]; p.timers[i]--)
			trace2_timer_stop((enum trace2_timer_id)i);
	trace2_flush();
	trace2_flight_dump("fuzz");
	check_files();
	fz_pool_free(&p.pool);
	return 0;
}
