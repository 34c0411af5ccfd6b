/*
 * The chrome target (GIT_TRACE2_CHROME, docs/targets.md "Chrome").
 *
 * golden_*: a small scenario's lines, byte for byte after scrubbing pid,
 *   ts, dur, the flow id and the SID; every line (without its ',') is a
 *   JSON object, and the file, its last ',' replaced by the closing ']',
 *   is strict JSON.  config_key_and_shared_file: trace2.chromeTarget and
 *   chromeBrief, and a second process appending to the file without a
 *   "[".  stderr_one_bracket: on stderr only the top process writes "[".
 * engine_*: traces the chrome target wrote, loaded as written (nothing
 *   regrouped or reordered) by two real viewers: Chrome DevTools' trace
 *   engine (npm @paulirish/trace_engine) and speedscope's importer (npm
 *   speedscope), pinned by tests/chrome/package-lock.json, installed
 *   into build/chrome by tests/chrome/install.sh on first use; skipped
 *   with a message when node, npm or the registry is missing.
 *   tests/chrome/check_trace.mjs prints the slices, threads, flows and
 *   begin/end mismatches the engine found, check_speedscope.mjs the
 *   profiles and warnings of speedscope.  The slices and flows must be
 *   what the event target, which writes the same run beside it, says:
 *   every region (region_enter/region_leave), each thread's open
 *   regions closed at its thread_exit, everything closed at a signal or
 *   atexit, the process slice from version to the end, each child as a
 *   slice from child_start to child_exit on its own track, linked by a
 *   flow to the child's process slice; regions deeper than 32 levels get
 *   none.  The engine must report no error and no begin/end mismatch
 *   and find exactly those slices and flows (every child linked, every
 *   flow ending at a child's process slice); speedscope must import
 *   every file without a warning.
 *   Scenarios: one process with 4 threads; a parent and two children;
 *   8 children x 4 threads into one file, and into one directory (each
 *   file there strict JSON; also in buffered mode);
 *   children killed by SIGSEGV and SIGTERM, and one exiting with regions
 *   open on two threads (after a leave without an enter); regions 40
 *   deep; 8 children x 2 threads x 300 regions into one file.
 * full_own_file, engine_full_file: maxFileSize ends a file of its own
 *   and a shared file with trace events.
 * engine_rotated_file: each file of a trace2_reopen() inside open
 *   regions loads alone, the new one with its names and those regions.
 * engine_driver_children: the test driver's chain of children, linked
 *   as written.
 *
 * The scenario processes are this binary again ("--child <role>").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t2test.h"
#include "tjson.h"
#include "trace2.h"

#define CHILD_TID_BASE 1000000 /* docs/targets.md: the children's tracks */

static char self_exe[PATH_MAX];

/* ------------------------------------------------------------------ */
/* Scenario processes (this binary with --child).                      */
/* ------------------------------------------------------------------ */

struct worker_arg {
	int regions;
	pthread_mutex_t *lock;
	pthread_cond_t *cond;
	int *ready;
	int stay; /* leave the region open and block */
};

static void *worker(void *p)
{
	struct worker_arg *a = p;
	int r;

	trace2_thread_start("worker");
	for (r = 0; r < a->regions; r++) {
		trace2_region_enter("work", "outer", NULL);
		trace2_region_enter_printf("work", "inner", NULL, "round %d", r);
		trace2_data_intmax("work", NULL, "round", r);
		trace2_region_leave("work", "inner", NULL);
		trace2_region_leave("work", "outer", NULL);
	}
	if (a->stay) {
		trace2_region_enter("work", "stuck", NULL);
		pthread_mutex_lock(a->lock);
		(*a->ready)++;
		pthread_cond_broadcast(a->cond);
		for (;;)
			pthread_cond_wait(a->cond, a->lock);
	}
	trace2_thread_exit();
	return NULL;
}

/* "worker <threads> <regions>": threads with nested regions, joined.
 * "crash <signo>", "openexit": a thread left in a region, the main
 * thread in two, then a signal with the default disposition, or exit(). */
static int child_main(int argc, char **argv)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	const char *role = argv[2];
	int threads = 1, regions = 2, ready = 0, stay, i;
	struct worker_arg a;
	pthread_t th[16];

	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start((const char **)argv);
	trace2_cmd_name(role);
	if (!strcmp(role, "worker") && argc >= 5) {
		threads = atoi(argv[3]);
		regions = atoi(argv[4]);
	}
	if (!strcmp(role, "deep")) {
		/* deeper than the 32 levels a thread keeps */
		for (i = 0; i < 40; i++)
			trace2_region_enter_printf("deep", "level", NULL, "%d", i);
		trace2_data_intmax("deep", NULL, "bottom", 40);
		for (i = 0; i < 40; i++)
			trace2_region_leave("deep", "level", NULL);
		return trace2_cmd_exit(0);
	}
	stay = strcmp(role, "worker") != 0;
	if (!strcmp(role, "openexit"))
		trace2_region_leave("main", "unbalanced", NULL); /* a BUG, no slice */
	a = (struct worker_arg){ regions, &lock, &cond, &ready, stay };
	trace2_region_enter("main", "run", NULL);
	for (i = 0; i < threads && i < 16; i++)
		pthread_create(&th[i], NULL, worker, &a);
	if (stay) {
		pthread_mutex_lock(&lock);
		while (ready < threads)
			pthread_cond_wait(&cond, &lock);
		pthread_mutex_unlock(&lock);
		trace2_region_enter("main", "deeper", NULL);
		if (!strcmp(role, "crash"))
			raise(atoi(argv[3]));
		exit(3); /* openexit, or a signal that did not kill */
	}
	for (i = 0; i < threads && i < 16; i++)
		pthread_join(th[i], NULL);
	trace2_region_leave("main", "run", NULL);
	return trace2_cmd_exit(0);
}

/* ------------------------------------------------------------------ */
/* Parents: children started and waited for the way Git does.          */
/* ------------------------------------------------------------------ */

struct kids {
	int n;
	const char *args[8];
};

/* Each child's command line ends with its number: children of one
 * parent with the same command line cannot be linked to it (targets.md). */
static void run_children(void *p)
{
	const struct kids *k = p;
	struct child_process cmd[16];
	const char *argv[16][12];
	char nr[16][8];
	int i, j, status, bad = 0;

	trace2_region_enter("parent", "spawn", NULL);
	for (i = 0; i < k->n; i++) {
		argv[i][0] = self_exe;
		argv[i][1] = "--child";
		for (j = 0; k->args[j]; j++)
			argv[i][2 + j] = k->args[j];
		snprintf(nr[i], sizeof(nr[i]), "#%d", i);
		argv[i][2 + j] = nr[i];
		argv[i][3 + j] = NULL;
		cmd[i] = (struct child_process)CHILD_PROCESS_INIT;
		cmd[i].args.v = argv[i];
		cmd[i].args.nr = (size_t)(3 + j);
		cmd[i].trace2_child_class = "test";
		trace2_child_start(&cmd[i]);
		cmd[i].pid = fork();
		if (cmd[i].pid == 0) {
			t2_exec_built(self_exe, (char **)argv[i]);
			_exit(127);
		}
	}
	for (i = 0; i < k->n; i++) {
		waitpid(cmd[i].pid, &status, 0);
		trace2_child_exit(&cmd[i], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		/* each role ends as it should (a sanitizer's report does not) */
		if (!strcmp(k->args[0], "crash") ?
			    !(WIFSIGNALED(status) && WTERMSIG(status) == atoi(k->args[1])) :
		    !strcmp(k->args[0], "openexit") ?
			    !(WIFEXITED(status) && WEXITSTATUS(status) == 3) :
			    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			bad++;
	}
	trace2_region_leave("parent", "spawn", NULL);
	trace2_cmd_exit(bad ? 10 : 0);
	if (bad)
		exit(10);
}

/* ------------------------------------------------------------------ */
/* The golden scenario.                                                 */
/* ------------------------------------------------------------------ */

static void *golden_thread(void *p)
{
	(void)p;
	trace2_thread_start("helper");
	trace2_region_enter("th", "job", NULL);
	trace2_region_leave("th", "job", NULL);
	trace2_thread_exit();
	return NULL;
}

static void golden_scenario(void *p)
{
	static const char *argv[] = { "/usr/bin/prog", "golden", NULL };
	static const char *child_argv[] = { "echo", "hi", NULL };
	struct child_process cmd = CHILD_PROCESS_INIT;
	struct repository repo = { (char *)"/wt", 0 };
	struct json_writer jw = JSON_WRITER_INIT;
	pthread_t th;

	(void)p;
	trace2_set_version_string("golden-1");
	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_cmd_name("golden");
	trace2_cmd_mode("fast");
	trace2_def_repo(&repo);
	trace2_region_enter("cat1", "outer", NULL);
	trace2_region_enter_printf("cat2", "inner", &repo, "msg %d", 7);
	trace2_data_string("cat2", NULL, "key", "va\"lue");
	trace2_data_intmax("cat2", &repo, "count", 42);
	jw_object_begin(&jw, 0);
	jw_object_intmax(&jw, "n", 1);
	jw_end(&jw);
	trace2_data_json("cat2", NULL, "obj", &jw);
	jw_release(&jw);
	trace2_region_leave("cat2", "inner", &repo);
	trace2_printf("hello %s", "x");
	pthread_create(&th, NULL, golden_thread, NULL);
	pthread_join(th, NULL);
	cmd.args.v = child_argv;
	cmd.args.nr = 2;
	trace2_child_start(&cmd);
	cmd.pid = 4242;
	trace2_child_exit(&cmd, 0);
	trace2_cmd_error("oops %d", 1);
	trace2_counter_add(TRACE2_COUNTER_ID_TEST1, 5);
	trace2_region_enter("cat1", NULL, NULL);
	trace2_region_leave("cat1", NULL, NULL);
	trace2_region_leave("cat1", "outer", NULL);
	trace2_cmd_exit(0);
}

/* The file's lines, scrubbed; each line (but "[") a JSON object with
 * its ',', and the whole file strict JSON once its last ',' becomes
 * the closing ']'. */
static char *scrubbed_checked(const char *path)
{
	char *text = t2_read_file(path, NULL), *a, *b, *c, *d, *closed;
	char **lines;
	size_t n, i, len;
	struct tjson *v;
	const char *err;

	assert_non_null(text);
	len = strlen(text);
	assert_true(len > 4 && !strncmp(text, "[\n", 2));
	assert_true(!strcmp(text + len - 2, ",\n"));
	lines = t2_lines(text, &n);
	for (i = 1; i < n; i++) {
		size_t l = strlen(lines[i]);

		assert_true(l > 2 && lines[i][l - 1] == ',');
		v = tjson_parse(lines[i], l - 1, &err);
		if (!v)
			fail_msg("line %zu is no JSON (%s): %s", i + 1, err, lines[i]);
		assert_int_equal(v->type, TJSON_OBJECT);
		assert_non_null(tjson_get_str(v, "ph"));
		assert_non_null(tjson_get_str(v, "name"));
		tjson_free(v);
	}
	t2_strv_free(lines);
	closed = t2_xfmt("%.*s\n]", (int)(len - 2), text);
	v = tjson_parse(closed, strlen(closed), &err);
	if (!v)
		fail_msg("the closed array is no strict JSON: %s", err);
	assert_int_equal(v->type, TJSON_ARRAY);
	tjson_free(v);
	free(closed);

	a = t2_drop_lines(text, "\"cmd_ancestry\"");
	b = t2_regsub(a, "\"ts\":[0-9]+,\"pid\":[0-9]+", "\"ts\":0,\"pid\":0");
	c = t2_regsub(b, "\"dur\":[0-9.]+", "\"dur\":0");
	d = t2_regsub(c, "\"id\":\"0x[0-9a-f]{16}\"", "\"id\":\"0xID\"");
	free(a);
	free(b);
	free(c);
	a = t2_scrub(d);
	free(d);
	free(text);
	return a;
}

#define TS "\"ts\":0,\"pid\":0"
static const char golden_full[] =
	"[\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\"," TS ",\"tid\":1,\"args\":{\"name\":\"main\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\"," TS ",\"tid\":1,\"args\":{\"name\":\"prog\"}},\n"
	"{\"name\":\"start\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\","
	"\"args\":{\"argv\":[\"/usr/bin/prog\",\"golden\"]}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\"," TS ",\"tid\":1,"
	"\"args\":{\"name\":\"prog golden\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\"," TS ",\"tid\":1,"
	"\"args\":{\"name\":\"prog golden (fast)\"}},\n"
	"{\"name\":\"def_repo\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\","
	"\"args\":{\"repo\":1,\"worktree\":\"/wt\"}},\n"
	"{\"name\":\"key\",\"cat\":\"cat2\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\","
	"\"args\":{\"value\":\"va\\\"lue\"}},\n"
	"{\"name\":\"count\",\"cat\":\"cat2\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\","
	"\"args\":{\"value\":\"42\",\"repo\":1}},\n"
	"{\"name\":\"count\",\"cat\":\"cat2\",\"ph\":\"C\"," TS ",\"tid\":1,"
	"\"args\":{\"value\":42}},\n"
	"{\"name\":\"obj\",\"cat\":\"cat2\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\","
	"\"args\":{\"value\":{\"n\":1}}},\n"
	"{\"name\":\"inner\",\"cat\":\"cat2\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0,"
	"\"args\":{\"msg\":\"msg 7\",\"repo\":1}},\n"
	"{\"name\":\"printf\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\","
	"\"args\":{\"msg\":\"hello x\"}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\"," TS ",\"tid\":2,"
	"\"args\":{\"name\":\"th01:helper\"}},\n"
	"{\"name\":\"job\",\"cat\":\"th\",\"ph\":\"X\"," TS ",\"tid\":2,\"dur\":0,\"args\":{}},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\"," TS ",\"tid\":1000000,"
	"\"args\":{\"name\":\"child #0\"}},\n"
	"{\"name\":\"child\",\"cat\":\"process\",\"ph\":\"s\"," TS ",\"tid\":1000000,\"id\":\"0xID\"},\n"
	"{\"name\":\"echo hi\",\"cat\":\"process\",\"ph\":\"X\"," TS ",\"tid\":1000000,\"dur\":0,"
	"\"args\":{\"child_id\":0,\"child_class\":\"?\",\"pid\":4242,\"code\":0}},\n"
	"{\"name\":\"error\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\","
	"\"args\":{\"msg\":\"oops 1\"}},\n"
	"{\"name\":\"region\",\"cat\":\"cat1\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0,"
	"\"args\":{}},\n"
	"{\"name\":\"outer\",\"cat\":\"cat1\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0,"
	"\"args\":{}},\n"
	"{\"name\":\"exit\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\",\"args\":{\"code\":0}},\n"
	"{\"name\":\"test1\",\"cat\":\"test\",\"ph\":\"C\"," TS ",\"tid\":1,"
	"\"args\":{\"count\":5}},\n"
	"{\"name\":\"process\",\"cat\":\"process\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0,"
	"\"args\":{\"sid\":\"SID\",\"version\":\"golden-1\",\"code\":0}},\n";

/* Brief: no args but the metadata's names and the counters' values; no
 * descriptive instant events. */
static const char golden_brief[] =
	"[\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\"," TS ",\"tid\":1,\"args\":{\"name\":\"main\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\"," TS ",\"tid\":1,\"args\":{\"name\":\"prog\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\"," TS ",\"tid\":1,"
	"\"args\":{\"name\":\"prog golden\"}},\n"
	"{\"name\":\"process_name\",\"ph\":\"M\"," TS ",\"tid\":1,"
	"\"args\":{\"name\":\"prog golden (fast)\"}},\n"
	"{\"name\":\"key\",\"cat\":\"cat2\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\"},\n"
	"{\"name\":\"count\",\"cat\":\"cat2\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\"},\n"
	"{\"name\":\"count\",\"cat\":\"cat2\",\"ph\":\"C\"," TS ",\"tid\":1,"
	"\"args\":{\"value\":42}},\n"
	"{\"name\":\"obj\",\"cat\":\"cat2\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\"},\n"
	"{\"name\":\"inner\",\"cat\":\"cat2\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\"," TS ",\"tid\":2,"
	"\"args\":{\"name\":\"th01:helper\"}},\n"
	"{\"name\":\"job\",\"cat\":\"th\",\"ph\":\"X\"," TS ",\"tid\":2,\"dur\":0},\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\"," TS ",\"tid\":1000000,"
	"\"args\":{\"name\":\"child #0\"}},\n"
	"{\"name\":\"child\",\"cat\":\"process\",\"ph\":\"s\"," TS ",\"tid\":1000000,\"id\":\"0xID\"},\n"
	"{\"name\":\"echo hi\",\"cat\":\"process\",\"ph\":\"X\"," TS ",\"tid\":1000000,\"dur\":0},\n"
	"{\"name\":\"error\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\"},\n"
	"{\"name\":\"region\",\"cat\":\"cat1\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0},\n"
	"{\"name\":\"outer\",\"cat\":\"cat1\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0},\n"
	"{\"name\":\"exit\",\"ph\":\"i\"," TS ",\"tid\":1,\"s\":\"t\"},\n"
	"{\"name\":\"test1\",\"cat\":\"test\",\"ph\":\"C\"," TS ",\"tid\":1,"
	"\"args\":{\"count\":5}},\n"
	"{\"name\":\"process\",\"cat\":\"process\",\"ph\":\"X\"," TS ",\"tid\":1,\"dur\":0},\n";

static void golden(int brief, const char *want)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "trace.json"), *got;
	struct t2_env env = { 0 };
	int status;

	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", path);
	if (brief)
		t2_env_add(&env, "GIT_TRACE2_CHROME_BRIEF=1");
	status = t2_run_noinit(golden_scenario, NULL, t2_env_list(&env));
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	got = scrubbed_checked(path);
	if (strcmp(got, want) && getenv("T2_KEEP"))
		t2_write_file(brief ? "/tmp/t2-chrome-golden-brief.txt"
				    : "/tmp/t2-chrome-golden.txt", got);
	if (strcmp(got, want))
		fail_msg("got:\n%s\nwant:\n%s", got, want);
	free(got);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(path);
	free(dir);
}

static void golden_full_mode(void **state)
{
	(void)state;
	golden(0, golden_full);
}

static void golden_brief_mode(void **state)
{
	(void)state;
	golden(1, golden_brief);
}

/* trace.chromeTarget from a config file, and the "[" only from the
 * process that created the file: a second run appends without one. */
static void config_key_and_shared_file(void **state)
{
	char *dir = t2_tmpdir(), *home = t2_path(dir, "home"), *cfg, *path, *text;
	struct t2_env env = { 0 };
	int status, i;

	(void)state;
	path = t2_path(dir, "trace.json");
	assert_int_equal(t2_mkdirs(home), 0);
	cfg = t2_path(home, ".gitconfig");
	text = t2_xfmt("[trace2]\n\tchromeTarget = %s\n\tchromeBrief = true\n", path);
	assert_int_equal(t2_write_file(cfg, text), 0);
	free(text);
	t2_env_add(&env, "HOME=%s", home);
	for (i = 0; i < 2; i++) {
		status = t2_run_noinit(golden_scenario, NULL, t2_env_list(&env));
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	text = scrubbed_checked(path);
	/* the second run's lines: the brief golden without its "[" */
	{
		char *want = t2_xfmt("%s%s", golden_brief, golden_brief + 2);

		if (strcmp(text, want))
			fail_msg("got:\n%s\nwant:\n%s", text, want);
		free(want);
	}
	free(text);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(cfg);
	free(path);
	free(home);
	free(dir);
}

static void init_and_run_children(void *p)
{
	trace2_initialize_clock();
	trace2_initialize();
	run_children(p);
}

/* On stderr (and so on an fd or a socket), only the process without a
 * traced parent writes the "[": one for the parent and its children. */
static void stderr_one_bracket(void **state)
{
	static const char *const env[] = { "GIT_TRACE2_CHROME=1", NULL };
	struct kids k = { 2, { "worker", "1", "1", NULL } };
	struct t2_proc p;
	char **lines;
	size_t n, i, brackets = 0, processes = 0;

	(void)state;
	t2_capture(init_and_run_children, &k, env, 60, &p);
	assert_true(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0);
	lines = t2_lines(p.err, &n);
	assert_true(n > 0);
	assert_string_equal(lines[0], "[");
	for (i = 0; i < n; i++) {
		brackets += !strcmp(lines[i], "[");
		processes += strstr(lines[i], "\"name\":\"process\",\"cat\":\"process\","
					      "\"ph\":\"X\"") != NULL;
	}
	assert_int_equal(brackets, 1);
	assert_int_equal(processes, 3);
	t2_strv_free(lines);
	t2_proc_free(&p);
}

/* ------------------------------------------------------------------ */
/* The consumer.                                                        */
/* ------------------------------------------------------------------ */

/* One more setting for engine_run(), e.g. GIT_TRACE2_BUFFER=64k. */
static const char *engine_extra_env;

static const char *engine_dir(void)
{
	const char *d = getenv("T2_CHROME_DIR");

	return d && *d ? d : "build/chrome";
}

/* The engine installed (once per run); else the reason, for the skip. */
static int engine_ready(const char **why)
{
	static int state; /* 0 unknown, 1 ready, -1 not */
	char *cmd;

	if (!state) {
		cmd = t2_xfmt("tests/chrome/install.sh '%s'", engine_dir());
		state = system(cmd) == 0 ? 1 : -1;
		free(cmd);
	}
	*why = "node, npm or the npm registry is not reachable: Chrome DevTools' trace "
	       "engine (@paulirish/trace_engine) and speedscope could not be installed "
	       "(tests/chrome/install.sh)";
	return state > 0;
}

#define SKIP_WITHOUT_ENGINE(name)                                              \
	do {                                                                   \
		const char *why_;                                              \
		engine_extra_env = NULL;                                       \
		if (!engine_ready(&why_)) {                                    \
			print_message("%s: skipped: %s\n", (name), why_);      \
			skip();                                                \
		}                                                              \
	} while (0)

/* The lines a viewer's script (check_trace.mjs, check_speedscope.mjs)
 * prints for the traces at path (file or directory). */
static char *viewer_report(const char *script, const char *path)
{
	char *cmd = t2_xfmt("node '%s/%s' '%s' 2>&1", engine_dir(), script, path);
	char buf[4096], *out = NULL;
	size_t n;
	FILE *f = popen(cmd, "r");
	int status;

	assert_non_null(f);
	t2_append(&out, "%s", "");
	while ((n = fread(buf, 1, sizeof(buf) - 1, f)) > 0) {
		buf[n] = '\0';
		t2_append(&out, "%s", buf);
	}
	status = pclose(f);
	if (status)
		fail_msg("%s failed (%d):\n%s", script, status, out);
	free(cmd);
	return out;
}

/* ------------------------------------------------------------------ */
/* What the engine must show, from the event target's records.          */
/* ------------------------------------------------------------------ */

struct open_region {
	char name[96];
	uint64_t start;
	int level; /* the region's nesting level; 0 for the process */
};

struct thread_model {
	long pid;
	char name[32];
	struct open_region open[64];
	int depth;
};

struct model {
	struct thread_model th[512];
	int nth;
	char *slices; /* "slice <pid> <thread name> <depth> <ts> <dur> <name>\n"... */
	char *flows;  /* "flow <ppid> <child #id> <ts> -> <pid> <ts>\n"... */
	struct {
		long pid;
		int id;
		uint64_t start;
		char argv[256];
	} child[256];
	int nchild;
	struct {
		long pid;
		uint64_t ts;
	} version[256];
	int nversion;
	int nsignal;
};

/* "2000-01-01T00:00:00.000000Z" in microseconds since the epoch. */
static uint64_t utc_us(const char *s)
{
	struct tm tm;
	unsigned us = 0;

	memset(&tm, 0, sizeof(tm));
	assert_int_equal(sscanf(s, "%d-%d-%dT%d:%d:%d.%uZ", &tm.tm_year, &tm.tm_mon,
				&tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &us), 7);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (uint64_t)timegm(&tm) * 1000000 + us;
}

/* The pid in a SID's own part ("...-P<8 hex digits>"). */
static long sid_pid(const char *sid)
{
	const char *p = strrchr(sid, 'P');

	assert_non_null(p);
	return strtol(p + 1, NULL, 16);
}

static struct thread_model *model_thread(struct model *m, long pid, const char *name)
{
	int i;

	for (i = 0; i < m->nth; i++)
		if (m->th[i].pid == pid && !strcmp(m->th[i].name, name))
			return &m->th[i];
	assert_true(m->nth < 512);
	m->th[m->nth].pid = pid;
	snprintf(m->th[m->nth].name, sizeof(m->th[m->nth].name), "%s", name);
	return &m->th[m->nth++];
}

/* A slice's dur as the target writes it: one of less than a microsecond
 * is 0.001 (docs/targets.md). */
static const char *dur_text(char *buf, size_t size, uint64_t us)
{
	snprintf(buf, size, us ? "%llu" : "0.001", (unsigned long long)us);
	return buf;
}

/* The slice of an open region, closed at end. */
static void model_close(struct model *m, struct thread_model *t, uint64_t end)
{
	char dur[24];
	struct open_region *r = &t->open[--t->depth];
	int depth = t->depth; /* main: the process slice is at depth 0 */

	if (r->level > 32)
		return; /* docs/targets.md: 32 levels per thread */

	t2_append(&m->slices, "slice %ld %s %d %llu %s %s\n", t->pid, t->name, depth,
		  (unsigned long long)r->start, dur_text(dur, sizeof(dur), end - r->start),
		  r->name);
}

/* A region (or, with level 0, the process slice) opened. */
static void model_open(struct thread_model *t, const char *name, uint64_t ts, int process)
{
	assert_true(t->depth < 64);
	snprintf(t->open[t->depth].name, sizeof(t->open[t->depth].name), "%s", name);
	t->open[t->depth].start = ts;
	t->open[t->depth].level = process ? 0 : t->depth + (strcmp(t->name, "main") ? 1 : 0);
	t->depth++;
}

/* Regions open on the thread (the main thread's process slice aside). */
static int model_regions(const struct thread_model *t)
{
	return t->depth - (strcmp(t->name, "main") ? 0 : 1);
}

static void model_record(struct model *m, const struct tjson *v)
{
	const char *ev = tjson_get_str(v, "event"), *sid = tjson_get_str(v, "sid");
	const char *thread = tjson_get_str(v, "thread"), *time = tjson_get_str(v, "time");
	long pid = sid_pid(sid);
	struct thread_model *t = model_thread(m, pid, thread);
	uint64_t ts = time ? utc_us(time) : 0;
	int i;

	if (!strcmp(ev, "version")) {
		model_open(t, "process", ts, 1);
		m->version[m->nversion].pid = pid;
		m->version[m->nversion++].ts = ts;
	} else if (!strcmp(ev, "region_enter")) {
		const char *label = tjson_get_str(v, "label");

		model_open(t, label ? label : "region", ts, 0);
	} else if (!strcmp(ev, "region_leave")) {
		/* docs/targets.md: a leave with no region open writes nothing */
		if (model_regions(t) > 0)
			model_close(m, t, ts);
	} else if (!strcmp(ev, "thread_exit")) {
		while (t->depth)
			model_close(m, t, ts);
	} else if (!strcmp(ev, "signal") || !strcmp(ev, "atexit")) {
		m->nsignal += ev[0] == 's';
		/* every thread of the process, main last (its process slice) */
		for (i = 0; i < m->nth; i++)
			if (m->th[i].pid == pid && strcmp(m->th[i].name, "main"))
				while (m->th[i].depth)
					model_close(m, &m->th[i], ts);
		t = model_thread(m, pid, "main");
		while (t->depth)
			model_close(m, t, ts);
	} else if (!strcmp(ev, "child_start")) {
		const struct tjson *argv = tjson_get(v, "argv");
		char *joined = NULL;
		size_t k;

		t2_append(&joined, "%s", "");
		for (k = 0; k < argv->n; k++)
			t2_append(&joined, "%s%s", k ? " " : "", argv->items[k]->text);
		m->child[m->nchild].pid = pid;
		m->child[m->nchild].id = (int)tjson_get(v, "child_id")->number;
		m->child[m->nchild].start = ts;
		snprintf(m->child[m->nchild].argv, sizeof(m->child[0].argv), "%s", joined);
		m->nchild++;
		free(joined);
	} else if (!strcmp(ev, "child_exit")) {
		int id = (int)tjson_get(v, "child_id")->number;
		long cpid = (long)tjson_get(v, "pid")->number;
		uint64_t t_rel = (uint64_t)(tjson_get(v, "t_rel")->number * 1e6 + 0.5);
		char dur[24];

		for (i = 0; i < m->nchild; i++)
			if (m->child[i].pid == pid && m->child[i].id == id)
				break;
		assert_true(i < m->nchild);
		t2_append(&m->slices, "slice %ld child #%d 0 %llu %s %s\n", pid, id,
			  (unsigned long long)(ts - t_rel), dur_text(dur, sizeof(dur), t_rel),
			  m->child[i].argv);
		t2_append(&m->flows, "flow %ld child #%d %llu -> %ld\n", pid, id,
			  (unsigned long long)(ts - t_rel), cpid);
	}
}

/* The event target's records in a file, or in every file of a dir. */
static void model_read(struct model *m, const char *path)
{
	struct stat st;
	char *text, **lines;
	size_t n, i;

	assert_int_equal(stat(path, &st), 0);
	if (S_ISDIR(st.st_mode)) {
		char *names = t2_listdir(path), **v = t2_split(names, " ", &n);

		for (i = 0; i < n; i++) {
			char *p = t2_path(path, v[i]);

			model_read(m, p);
			free(p);
		}
		t2_strv_free(v);
		free(names);
		return;
	}
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	lines = t2_lines(text, &n);
	for (i = 0; i < n; i++) {
		const char *err;
		struct tjson *v = tjson_parse(lines[i], strlen(lines[i]), &err);

		if (!v)
			fail_msg("event target line is no JSON (%s): %s", err, lines[i]);
		model_record(m, v);
		tjson_free(v);
	}
	t2_strv_free(lines);
	free(text);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text, sorted, joined again. */
static char *sorted_lines(const char *text)
{
	size_t n, i;
	char **v = t2_lines(text, &n), *out = NULL;

	qsort(v, n, sizeof(*v), cmp_str);
	t2_append(&out, "%s", "");
	for (i = 0; i < n; i++)
		t2_append(&out, "%s\n", v[i]);
	t2_strv_free(v);
	return out;
}

/*
 * Slices whose interval on a thread equals another's, and slices of no
 * duration (regions entered and left within the same microsecond): no
 * consumer can tell which one is inside the other, or whether an empty
 * one at a slice's start is inside it, so their depth becomes "*" before
 * comparing.  Lines:
 * "slice <pid> <thread name> <depth> <ts> <dur> <name>" (the thread name
 * has no digits-only words, the depth is the first number after it).
 */
static char *ambiguous_depths(const char *text)
{
	size_t n, i, j;
	char **v = t2_lines(text, &n), *out = NULL;
	char **keys = calloc(n + 1, sizeof(*keys));
	char **depth_at = calloc(n + 1, sizeof(*depth_at));

	assert_true(keys && depth_at);
	for (i = 0; i < n; i++) {
		/* key: everything but the depth and the name */
		char *p = v[i] + strlen("slice "), *d, *ts, *name;
		long pid = strtol(p, &p, 10);

		/* the depth: the first space-separated number after the thread
		 * name whose next two words are numbers too */
		for (d = p + 1; *d; d++)
			if (d[-1] == ' ' && d[0] >= '0' && d[0] <= '9') {
				char *e;
				unsigned long long a, b;

				strtol(d, &e, 10);
				if (*e == ' ' && sscanf(e, " %llu %llu", &a, &b) == 2)
					break;
			}
		assert_true(*d);
		depth_at[i] = d;
		ts = strchr(d, ' ') + 1;
		name = strchr(strchr(ts, ' ') + 1, ' ');
		keys[i] = t2_xfmt("%ld %.*s %.*s", pid, (int)(d - p), p, (int)(name - ts), ts);
	}
	t2_append(&out, "%s", "");
	for (i = 0; i < n; i++) {
		const char *dur = strchr(strchr(depth_at[i], ' ') + 1, ' ');
		int dup = !strncmp(dur, " 0 ", 3) || !strncmp(dur, " 0.001 ", 7);

		for (j = 0; j < n && !dup; j++)
			dup = j != i && !strcmp(keys[i], keys[j]);
		if (dup)
			t2_append(&out, "%.*s*%s\n", (int)(depth_at[i] - v[i]), v[i],
				  strchr(depth_at[i], ' '));
		else
			t2_append(&out, "%s\n", v[i]);
	}
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(depth_at);
	t2_strv_free(v);
	return out;
}

/* The engine's thread name of pid/tid, from its "thread" lines. */
static const char *report_thread_name(char **lines, size_t n, long pid, long tid)
{
	static char name[64];
	char want[64];
	size_t i;
	int len = snprintf(want, sizeof(want), "thread %ld %ld ", pid, tid);

	for (i = 0; i < n; i++)
		if (!strncmp(lines[i], want, (size_t)len)) {
			snprintf(name, sizeof(name), "%s", lines[i] + len);
			return name;
		}
	return "?";
}

/*
 * Compare the engine's report with the model: no engine error and no
 * begin/end mismatch, the same slices (thread named, not numbered), and
 * a flow for every child, each from a track of the parent to the child's
 * main thread at its version time.  Returns the number of slices.
 */
static size_t compare_report(const char *report, struct model *m)
{
	size_t n, i, slices = 0;
	char **lines = t2_lines(report, &n), *got = NULL, *want, *got_sorted;
	char *flows = NULL, *want_flows;

	t2_append(&got, "%s", "");
	t2_append(&flows, "%s", "");
	for (i = 0; i < n; i++) {
		long pid, tid, pid2, tid2;
		int depth, off = 0;
		unsigned long long ts, ts2;
		char dur[24];

		if (!strncmp(lines[i], "engine-error ", 13) || !strncmp(lines[i], "mismatch ", 9))
			fail_msg("the engine reported: %s", lines[i]);
		if (sscanf(lines[i], "slice %ld %ld %d %llu %23s %n", &pid, &tid, &depth, &ts,
			   dur, &off) == 5 && off) {
			t2_append(&got, "slice %ld %s %d %llu %s %s\n", pid,
				  report_thread_name(lines, n, pid, tid), depth, ts, dur,
				  lines[i] + off);
			slices++;
		} else if (sscanf(lines[i], "flow %ld %ld %llu -> %ld %ld %llu", &pid, &tid, &ts,
				  &pid2, &tid2, &ts2) == 6) {
			int k, found = 0;

			/* the child's end: its main thread, at its version */
			for (k = 0; k < m->nversion; k++)
				if (m->version[k].pid == pid2 && m->version[k].ts == ts2)
					found = 1;
			if (!found || strcmp(report_thread_name(lines, n, pid2, tid2), "main"))
				fail_msg("flow to no child's process slice: %s", lines[i]);
			t2_append(&flows, "flow %ld %s %llu -> %ld\n", pid,
				  report_thread_name(lines, n, pid, tid), ts, pid2);
		}
	}
	{
		char *a = ambiguous_depths(m->slices ? m->slices : ""), *b = ambiguous_depths(got);

		want = sorted_lines(a);
		got_sorted = sorted_lines(b);
		free(a);
		free(b);
	}
	if (strcmp(want, got_sorted) && getenv("T2_KEEP")) {
		t2_write_file("/tmp/t2-chrome-got.txt", got_sorted);
		t2_write_file("/tmp/t2-chrome-want.txt", want);
	}
	if (strcmp(want, got_sorted))
		fail_msg("the engine's slices:\n%s\nthe event target's regions:\n%s", got_sorted,
			 want);
	want_flows = sorted_lines(m->flows ? m->flows : "");
	free(got);
	got = sorted_lines(flows);
	if (strcmp(want_flows, got))
		fail_msg("the engine's flows:\n%s\nthe children:\n%s", got, want_flows);
	free(got);
	free(got_sorted);
	free(want);
	free(want_flows);
	free(flows);
	t2_strv_free(lines);
	return slices;
}

/*
 * speedscope's import of the traces at path (a file, or each file of a
 * directory on its own): every file imported into at least one profile,
 * nothing thrown, no warning.  Says what it found.
 */
static void speedscope_check(const char *path, const char *label)
{
	char *report = viewer_report("check_speedscope.mjs", path);
	const char *total = strstr(report, "\ntotal ");
	long profiles = -1, warnings = -1;

	if (total)
		sscanf(total, "\ntotal %ld profiles %ld warnings", &profiles, &warnings);
	if (profiles < 1 || strstr(report, "\nwarning speedscope imported nothing") ||
	    strstr(report, "\nwarning the importer threw"))
		fail_msg("%s: speedscope did not import the trace:\n%s", label, report);
	if (warnings)
		fail_msg("%s: speedscope warned:\n%s", label, report);
	print_message("%s: speedscope made %ld profiles, with %ld warnings\n", label, profiles,
		      warnings);
	free(report);
}

/*
 * Run fn with the chrome and event targets both writing into one file
 * each, shared by every process (dir_mode: a directory each), load the
 * chrome trace as written in the engine and compare, and in speedscope;
 * expect_signal: some process must have been killed by a signal; the
 * engine must find want_slices slices.
 */
static void engine_run(t2_scenario_fn *fn, void *arg, int dir_mode, int expect_signal,
		       const char *label, size_t want_slices)
{
	char *dir = t2_tmpdir(), *chrome = t2_path(dir, "chrome"), *event = t2_path(dir, "event");
	struct t2_env env = { 0 };
	struct model *m = calloc(1, sizeof(*m));
	char *report;
	const char *total;
	size_t slices;
	long flows = -1, mismatches = -1;
	int status;

	assert_non_null(m);
	if (dir_mode) {
		assert_int_equal(t2_mkdirs(chrome), 0);
		assert_int_equal(t2_mkdirs(event), 0);
	}
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", chrome);
	t2_env_add(&env, "GIT_TRACE2_EVENT=%s", event);
	t2_env_add(&env, "GIT_TRACE2_EVENT_NESTING=100");
	if (engine_extra_env)
		t2_env_add(&env, "%s", engine_extra_env);
	/* a sanitizer's own SIGSEGV handler would keep the signal's
	 * disposition from being the default one */
	if (UNDER_SANITIZER) {
		t2_env_add(&env, "ASAN_OPTIONS=%s%shandle_segv=0",
			   getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
			   getenv("ASAN_OPTIONS") ? ":" : "");
		t2_env_add(&env, "TSAN_OPTIONS=%s%shandle_segv=0",
			   getenv("TSAN_OPTIONS") ? getenv("TSAN_OPTIONS") : "",
			   getenv("TSAN_OPTIONS") ? ":" : "");
	}
	status = t2_run(fn, arg, t2_env_list(&env));
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (dir_mode) {
		/* each process's own file is a complete JSON array */
		char *names = t2_listdir(chrome), **v;
		size_t n, i;

		v = t2_split(names, " ", &n);
		for (i = 0; i < n; i++) {
			char *p = t2_path(chrome, v[i]), *text = t2_read_file(p, NULL);
			const char *err;
			struct tjson *j = tjson_parse(text, strlen(text), &err);

			if (!j)
				fail_msg("%s is no strict JSON (%s)", v[i], err);
			tjson_free(j);
			free(text);
			free(p);
		}
		t2_strv_free(v);
		free(names);
	}
	model_read(m, event);
	if (getenv("T2_KEEP"))
		print_message("%s: in %s\n", label, dir);
	report = viewer_report("check_trace.mjs", chrome);
	slices = compare_report(report, m);
	if (expect_signal && !m->nsignal)
		fail_msg("%s: no process was killed by a signal", label);
	if (slices != want_slices)
		fail_msg("%s: %zu slices, want %zu", label, slices, want_slices);
	total = strstr(report, "\ntotal ");
	if (total)
		sscanf(total, "\ntotal %*d slices %ld flows %ld mismatches", &flows, &mismatches);
	print_message("%s: as written, the engine found %zu slices, %ld flows for %d children, "
		      "%ld begin/end mismatches\n", label, slices, flows, m->nchild, mismatches);
	free(report);
	speedscope_check(chrome, label);
	free(m->slices);
	free(m->flows);
	free(m);
	t2_env_free(&env);
	if (getenv("T2_KEEP"))
		print_message("%s: kept %s\n", label, dir);
	else
		t2_rmtree(dir);
	free(chrome);
	free(event);
	free(dir);
}

/* One process, 4 threads with nested regions, into one file. */
static void threads_in_one_process(void *p)
{
	struct worker_arg a = { 25, NULL, NULL, NULL, 0 };
	pthread_t th[4];
	int i;

	(void)p;
	trace2_region_enter("main", "run", NULL);
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, worker, &a);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	trace2_region_leave("main", "run", NULL);
	trace2_cmd_exit(0);
}

static void engine_one_process(void **state)
{
	(void)state;
	SKIP_WITHOUT_ENGINE("engine_one_process");
	/* process, run, 4 x 25 x (outer, inner) */
	engine_run(threads_in_one_process, NULL, 0, 0, "engine_one_process", 2 + 4 * 25 * 2);
}

/* A parent, two children with a thread each: regions, nesting, threads,
 * processes and flows. */
static void engine_small(void **state)
{
	struct kids k = { 2, { "worker", "1", "2", NULL } };

	(void)state;
	SKIP_WITHOUT_ENGINE("engine_small");
	/* parent: process, spawn; each child: process, run, 2 x (outer,
	 * inner); plus a slice per child in the parent */
	engine_run(run_children, &k, 0, 0, "engine_small", 2 + 2 + 2 * (2 + 2 * 2));
}

/* n children of threads worker threads with rounds rounds each: the
 * parent's process, spawn and a slice per child; each child's process,
 * run and 2 regions a round. */
static void engine_workers(int n, int threads, int rounds, int dir_mode, const char *label)
{
	char t[12], r[12];
	struct kids k = { n, { "worker", t, r, NULL } };

	SKIP_WITHOUT_ENGINE(label);
	snprintf(t, sizeof(t), "%d", threads);
	snprintf(r, sizeof(r), "%d", rounds);
	engine_run(run_children, &k, dir_mode, 0, label, 2 + n + n * (2 + threads * rounds * 2));
}

static void engine_8x4_file(void **state)
{
	(void)state;
	engine_workers(8, 4, 25, 0, "engine_8x4_file");
}

static void engine_8x4_dir(void **state)
{
	(void)state;
	engine_workers(8, 4, 25, 1, "engine_8x4_dir");
}

/* The same in buffered mode: each file still ends with its "]". */
static void engine_8x4_dir_buffered(void **state)
{
	struct kids k = { 8, { "worker", "4", "25", NULL } };

	(void)state;
	SKIP_WITHOUT_ENGINE("engine_8x4_dir_buffered");
	engine_extra_env = "GIT_TRACE2_BUFFER=64k";
	engine_run(run_children, &k, 1, 0, "engine_8x4_dir_buffered",
		   2 + 8 + 8 * (2 + 4 * 25 * 2));
	engine_extra_env = NULL;
}

/* A child killed by SIGSEGV, one by SIGTERM (default dispositions), one
 * that exits with regions open on two threads: all balanced. */
static void engine_crash_and_open_exit(void **state)
{
	static struct kids segv = { 1, { "crash", "11", NULL } };
	static struct kids term = { 1, { "crash", "15", NULL } };
	static struct kids open_exit = { 1, { "openexit", NULL } };
	struct kids *all[] = { &segv, &term, &open_exit };
	int i, dir_mode;

	(void)state;
	SKIP_WITHOUT_ENGINE("engine_crash_and_open_exit");
	assert_int_equal(SIGSEGV, 11);
	assert_int_equal(SIGTERM, 15);
	for (i = 0; i < 3; i++)
		for (dir_mode = 0; dir_mode < 2; dir_mode++)
			/* parent: process, spawn, child slice; child: process,
			 * run, deeper, the worker's 2 x 2 and stuck */
			engine_run(run_children, all[i], dir_mode, i < 2, all[i]->args[0],
				   3 + 3 + 4 + 1);
}

/* 8 processes x 2 threads x 300 regions into one shared file: as
 * written, every slice where it belongs and every child linked. */
static void engine_8x2x300_shared_file(void **state)
{
	(void)state;
	engine_workers(8, 2, 150, 0, "engine_8x2x300_shared_file");
}

/* Regions nested 40 deep: the 32 outer ones, balanced. */
static void engine_deep_regions(void **state)
{
	struct kids k = { 1, { "deep", NULL } };

	(void)state;
	SKIP_WITHOUT_ENGINE("engine_deep_regions");
	engine_run(run_children, &k, 0, 0, "engine_deep_regions", 3 + 1 + 32);
}

/* A count of "<what> " lines of check_trace.mjs's report. */
static int report_count(const char *report, const char *what)
{
	size_t n, i, len = strlen(what);
	char **lines = t2_lines(report, &n);
	int count = 0;

	for (i = 0; i < n; i++)
		count += !strncmp(lines[i], what, len);
	t2_strv_free(lines);
	return count;
}

/* The engine's report on the trace at path, as written: at least one
 * slice, no engine error, no mismatch and flows flows (caller frees);
 * speedscope imports it without a warning. */
static char *expect_loaded(const char *path, int flows, const char *label)
{
	char *report = viewer_report("check_trace.mjs", path);
	const char *total = strstr(report, "\ntotal ");
	int s = -1, f = -1, m = -1, e = -1;

	if (report_count(report, "engine-error ") || report_count(report, "mismatch "))
		fail_msg("the engine reported:\n%s", report);
	assert_non_null(total);
	assert_int_equal(sscanf(total, "\ntotal %d slices %d flows %d mismatches %d engine-errors",
				&s, &f, &m, &e), 4);
	assert_true(s >= 1);
	assert_int_equal(m, 0);
	assert_int_equal(e, 0);
	if (flows >= 0)
		assert_int_equal(f, flows);
	speedscope_check(path, label);
	return report;
}

/*
 * maxFileSize in a shared file: each process ends its part with an
 * instant event that says so (a trace event like the others), and the
 * file loads.
 */
static void engine_full_file(void **state)
{
	struct kids k = { 2, { "worker", "2", "50", NULL } };
	char *dir = t2_tmpdir(), *path = t2_path(dir, "trace.json"), *text, *report;
	struct t2_env env = { 0 };
	char **lines;
	size_t n, i, sentinels = 0;

	(void)state;
	SKIP_WITHOUT_ENGINE("engine_full_file");
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", path);
	t2_env_add(&env, "GIT_TRACE2_MAX_FILE_SIZE=8k");
	assert_int_equal(t2_run(run_children, &k, t2_env_list(&env)), 0);
	text = t2_read_file(path, NULL);
	assert_non_null(text);
	lines = t2_lines(text, &n);
	for (i = 1; i < n; i++) {
		size_t l = strlen(lines[i]);
		const char *err;
		struct tjson *v = tjson_parse(lines[i], l - 1, &err);

		if (!v)
			fail_msg("line %zu is no trace event (%s): %s", i + 1, err, lines[i]);
		if (!strcmp(tjson_get_str(v, "name"), "max_file_size")) {
			const struct tjson *args = tjson_get(v, "args");

			sentinels++;
			assert_string_equal(tjson_get_str(v, "ph"), "i");
			assert_non_null(tjson_get(v, "ts"));
			assert_non_null(tjson_get(v, "pid"));
			assert_non_null(tjson_get(v, "tid"));
			assert_non_null(args);
			assert_int_equal((int)tjson_get(args, "max_file_size")->number, 8192);
		}
		tjson_free(v);
	}
	assert_true(sentinels >= 1);
	report = expect_loaded(path, -1, "engine_full_file");
	print_message("engine_full_file: %zu lines, %zu sentinels, loaded\n", n, sentinels);
	free(report);
	t2_strv_free(lines);
	free(text);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(path);
	free(dir);
}

/* The file of a directory target, from the driver's 006data; its size
 * and the length of its last line. */
static char *own_file(const char *dir, const char *max_size, size_t *size, size_t *last)
{
	char *names, *path, *text;
	struct t2_env env = { 0 };
	struct t2_proc p;
	size_t n;

	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", dir);
	if (max_size)
		t2_env_add(&env, "GIT_TRACE2_MAX_FILE_SIZE=%s", max_size);
	t2_tool(t2_env_list(&env), &p, "trace2", "006data", "c", "k", "7", NULL);
	assert_true(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0);
	names = t2_listdir(dir);
	assert_null(strchr(names, ' '));
	path = t2_path(dir, names);
	text = t2_read_file(path, size);
	assert_non_null(text);
	for (n = *size - 1; n > 0 && text[n - 1] != '\n'; n--)
		;
	*last = *size - n;
	t2_proc_free(&p);
	t2_env_free(&env);
	free(path);
	free(names);
	return text;
}

/* The record that closes a file of its own does not fit: the instant
 * event takes its "]", and the file is still strict JSON. */
static void full_own_file(void **state)
{
	char *dir = t2_tmpdir(), *a = t2_path(dir, "a"), *b = t2_path(dir, "b"), *text, *max;
	size_t size, last;
	struct tjson *v;
	const char *err;

	(void)state;
	assert_int_equal(t2_mkdirs(a), 0);
	assert_int_equal(t2_mkdirs(b), 0);
	free(own_file(a, NULL, &size, &last));
	max = t2_xfmt("%zu", size - last / 2);
	text = own_file(b, max, &size, &last);
	v = tjson_parse(text, size, &err);
	if (!v)
		fail_msg("not strict JSON (%s):\n%s", err, text);
	tjson_free(v);
	assert_true(t2_matches(text, "\n\\{\"name\":\"max_file_size\",\"ph\":\"i\",[^\n]*\"args\":"
				     "\\{\"max_file_size\":[0-9]+\\}\\}\\]\n$"));
	free(text);
	free(max);
	t2_rmtree(dir);
	free(a);
	free(b);
	free(dir);
}

/* The rotation scenario: a region left on main, then a region open on
 * main and on a worker while the file is renamed away and
 * trace2_reopen() opens a new one. */
struct rotation {
	const char *path;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int step; /* 1: the worker is in its region; 2: it may leave it */
};

static void *rotation_worker(void *p)
{
	struct rotation *r = p;

	trace2_thread_start("worker");
	trace2_region_enter("rot", "work", NULL);
	pthread_mutex_lock(&r->lock);
	r->step = 1;
	pthread_cond_broadcast(&r->cond);
	while (r->step < 2)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	trace2_region_leave("rot", "work", NULL);
	trace2_thread_exit();
	return NULL;
}

static void rotation_scenario(void *p)
{
	static const char *argv[] = { "/usr/bin/rot", "rotate", NULL };
	struct rotation *r = p;
	char *old = t2_xfmt("%s.1", r->path);
	pthread_t th;

	trace2_cmd_start(argv);
	trace2_cmd_name("rotate");
	trace2_region_enter("rot", "before", NULL);
	trace2_region_leave("rot", "before", NULL);
	trace2_region_enter("rot", "outer", NULL);
	pthread_create(&th, NULL, rotation_worker, r);
	pthread_mutex_lock(&r->lock);
	while (r->step < 1)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	if (rename(r->path, old))
		exit(5);
	trace2_reopen();
	trace2_region_enter("rot", "inner", NULL);
	trace2_region_leave("rot", "inner", NULL);
	pthread_mutex_lock(&r->lock);
	r->step = 2;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(th, NULL);
	trace2_region_leave("rot", "outer", NULL);
	trace2_cmd_exit(0);
	free(old);
}

/* Each file of a rotation inside open regions loads alone: the old one
 * with the region left before it, the new one with the process's and
 * threads' names and the regions that were open. */
static void engine_rotated_file(void **state)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "trace.json"), *report;
	char *old = t2_xfmt("%s.1", path);
	struct rotation r = { path, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	struct t2_env env = { 0 };

	(void)state;
	SKIP_WITHOUT_ENGINE("engine_rotated_file");
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", path);
	assert_int_equal(t2_run(rotation_scenario, &r, t2_env_list(&env)), 0);
	report = expect_loaded(old, 0, "engine_rotated_file (the old file)");
	assert_true(t2_matches(report, "(^|\n)process [0-9]+ rot rotate\n"));
	assert_true(t2_matches(report, "\nslice [0-9]+ 1 0 [0-9]+ [0-9]+ before\n"));
	free(report);
	report = expect_loaded(path, 0, "engine_rotated_file (the new file)");
	/* the names, and the slices at their depths (main: the process's
	 * at 0, outer, inner; the worker: work) */
	assert_true(t2_matches(report, "(^|\n)process [0-9]+ rot rotate\n"));
	assert_true(t2_matches(report, "\nthread [0-9]+ 1 main\n"));
	assert_true(t2_matches(report, "\nthread [0-9]+ 2 th01:worker\n"));
	assert_true(t2_matches(report, "\nslice [0-9]+ 1 0 [0-9]+ [0-9]+ process\n"));
	assert_true(t2_matches(report, "\nslice [0-9]+ 1 1 [0-9]+ [0-9]+ outer\n"));
	assert_true(t2_matches(report, "\nslice [0-9]+ 1 2 [0-9]+ [0-9]+ inner\n"));
	assert_true(t2_matches(report, "\nslice [0-9]+ 2 0 [0-9]+ [0-9]+ work\n"));
	assert_false(t2_matches(report, " before\n"));
	free(report);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(old);
	free(path);
	free(dir);
}

/* The test driver starting a child that starts a child, all writing to
 * one file: each child linked to its parent as written. */
static void engine_driver_children(void **state)
{
	char *dir = t2_tmpdir(), *path = t2_path(dir, "trace.json"), *report, **lines;
	char *tool = t2_path(t2_bin_dir(), "trace2-tool");
	struct t2_env env = { 0 };
	struct t2_proc p;
	size_t n, i;
	long from[2], to[2];
	int flows = 0;

	(void)state;
	SKIP_WITHOUT_ENGINE("engine_driver_children");
	t2_env_add(&env, "GIT_TRACE2_CHROME=%s", path);
	t2_tool(t2_env_list(&env), &p, "trace2", "004child", tool, "trace2", "004child", tool,
		"trace2", "006data", "c", "k", "7", NULL);
	assert_true(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0);
	report = expect_loaded(path, 2, "engine_driver_children");
	/* flow <parent> <child #0's track> <ts> -> <child> <its main> <ts>:
	 * the parent of the first link is the child of the second */
	lines = t2_lines(report, &n);
	for (i = 0; i < n; i++) {
		long pid, tid, pid2, tid2;
		unsigned long long ts, ts2;

		if (sscanf(lines[i], "flow %ld %ld %llu -> %ld %ld %llu", &pid, &tid, &ts, &pid2,
			   &tid2, &ts2) != 6)
			continue;
		assert_int_equal(tid, CHILD_TID_BASE);
		assert_int_equal(tid2, 1);
		assert_true(flows < 2 && pid != pid2);
		from[flows] = pid;
		to[flows++] = pid2;
	}
	assert_int_equal(flows, 2);
	assert_true(to[0] == from[1] || to[1] == from[0]);
	assert_true(from[0] != from[1] && to[0] != to[1]);
	t2_strv_free(lines);
	free(report);
	t2_proc_free(&p);
	t2_env_free(&env);
	t2_rmtree(dir);
	free(tool);
	free(path);
	free(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(golden_full_mode),
		cmocka_unit_test(golden_brief_mode),
		cmocka_unit_test(config_key_and_shared_file),
		cmocka_unit_test(stderr_one_bracket),
		cmocka_unit_test(engine_one_process),
		cmocka_unit_test(engine_small),
		cmocka_unit_test(engine_8x4_file),
		cmocka_unit_test(engine_8x4_dir),
		cmocka_unit_test(engine_8x4_dir_buffered),
		cmocka_unit_test(engine_crash_and_open_exit),
		cmocka_unit_test(engine_deep_regions),
		cmocka_unit_test(engine_8x2x300_shared_file),
		cmocka_unit_test(full_own_file),
		cmocka_unit_test(engine_full_file),
		cmocka_unit_test(engine_rotated_file),
		cmocka_unit_test(engine_driver_children),
	};
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (n > 0)
		self_exe[n] = '\0';
	if (argc >= 3 && !strcmp(argv[1], "--child"))
		return child_main(argc, argv);
	t2_leak_check_runner_only();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
