/*
 * Sampling by command tree (docs/configuration.md "Sampling") across
 * trace2_run_command() and fork(): a process whose tree is sampled out is
 * off as one without a target (trace2_is_enabled() 0, the listener word
 * 0, nothing in its event directory), yet exports its SID, which a child
 * of trace2_run_command() sees; a forked child that initializes again
 * gets a SID of its own under its parent's, decides alike and exports its
 * own.  A kept tree's forked child is kept, and writes its log.  The
 * roots' hashes are those tests/process/test_sample.sh states.
 * Also: trace2_config_set() takes a rate and refuses what is not one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2test.h"
#include "trace2.h"
#include "trace2/run.h"

/* FNV-1a 64 then fmix64 over 2^64: 0.923 and 0.007. */
#define ROOT_OUT "20260101T000000.000000Z-H00000000-P00000007"
#define ROOT_KEPT "20260101T000000.000000Z-H00000000-P00000009"
#define SID_RE "[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-(H[0-9a-f]{8}|Localhost)-P[0-9a-f]{8}"

/* What a process of the scenario saw, into dir/name. */
static void report(const char *dir, const char *name)
{
	char *path = t2_path(dir, name);
	FILE *f = fopen(path, "w");
	const char *env = getenv("GIT_TRACE2_PARENT_SID");

	if (f) {
		fprintf(f, "enabled=%d mask=%u\nsid=%s\nenv=%s\n", trace2_is_enabled(),
			(unsigned)TRACE2_LOAD_RELAXED(&trace2_listener_mask),
			trace2_session_id(), env ? env : "(unset)");
		fclose(f);
	}
	free(path);
}

/* Initialize, report, run a command that writes the SID it inherits,
 * then fork a child that initializes again and reports. */
static void fork_scenario(void *arg)
{
	const char *dir = arg;
	char *cmd = t2_xfmt("printf '%%s' \"$GIT_TRACE2_PARENT_SID\" >'%s/run'", dir);
	const char *argv[] = { "sh", "-c", cmd, NULL };
	int status;
	pid_t pid;

	trace2_initialize();
	trace2_cmd_start(argv);
	report(dir, "parent");
	trace2_run_command(argv, "sample");
	pid = fork();
	if (!pid) {
		trace2_initialize();
		trace2_cmd_start(argv);
		report(dir, "child");
		exit(0);
	}
	waitpid(pid, &status, 0);
	free(cmd);
}

/* line "key=..." of dir/name's report, its value; caller frees. */
static char *value_of(const char *dir, const char *name, const char *key)
{
	char *path = t2_path(dir, name);
	char *text = t2_read_file(path, NULL);
	char *at, *end, *v;
	size_t klen = strlen(key);

	assert_non_null(text);
	at = strstr(text, key);
	assert_non_null(at);
	at += klen + 1;
	end = at + strcspn(at, " \n");
	v = t2_xfmt("%.*s", (int)(end - at), at);
	free(text);
	free(path);
	return v;
}

static void assert_value(const char *dir, const char *name, const char *key,
			 const char *want)
{
	char *v = value_of(dir, name, key);

	assert_string_equal(v, want);
	free(v);
}

/* The scenario under root at rate 0.25, its event target a directory;
 * what the directory holds afterwards (caller frees). */
static char *run_under(const char *root, const char *dir)
{
	char *events = t2_path(dir, "events");
	char *sid = t2_xfmt("GIT_TRACE2_PARENT_SID=%s", root);
	char *ev = t2_xfmt("GIT_TRACE2_EVENT=%s", events);
	const char *env[] = { "GIT_TRACE2_SAMPLE=0.25", sid, ev, NULL };
	char *listing;
	int status;

	assert_int_equal(t2_mkdirs(events), 0);
	status = t2_run_noinit(fork_scenario, (void *)dir, env);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	listing = t2_listdir(events);
	free(events);
	free(sid);
	free(ev);
	return listing;
}

static void sampled_out_tree(void **state)
{
	char *dir = t2_tmpdir();
	char *listing = run_under(ROOT_OUT, dir);
	char *parent = value_of(dir, "parent", "sid");
	char *child = value_of(dir, "child", "sid");
	char *run_path = t2_path(dir, "run");
	char *run = t2_read_file(run_path, NULL);
	char *want_child = t2_xfmt("^%s/" SID_RE "$", parent);

	(void)state;
	assert_string_equal(listing, "");
	assert_value(dir, "parent", "enabled", "0");
	assert_value(dir, "parent", "mask", "0");
	assert_true(t2_matches(parent, "^" ROOT_OUT "/" SID_RE "$"));
	assert_value(dir, "parent", "env", parent);
	assert_non_null(run);
	assert_string_equal(run, parent);
	assert_value(dir, "child", "enabled", "0");
	assert_value(dir, "child", "mask", "0");
	assert_true(t2_matches(child, want_child));
	assert_value(dir, "child", "env", child);
	free(want_child);
	free(run);
	free(run_path);
	free(child);
	free(parent);
	free(listing);
	t2_rmtree(dir);
	free(dir);
}

static void kept_tree(void **state)
{
	char *dir = t2_tmpdir();
	char *listing = run_under(ROOT_KEPT, dir);
	char *parent = value_of(dir, "parent", "sid");
	char *child = value_of(dir, "child", "sid");
	char *want_child = t2_xfmt("^%s/" SID_RE "$", parent);
	char **files;
	size_t n, i;

	(void)state;
	assert_value(dir, "parent", "enabled", "1");
	assert_value(dir, "child", "enabled", "1");
	assert_true(t2_matches(child, want_child));
	files = t2_split(listing, " ", &n);
	assert_int_equal(n, 2); /* the parent's log and the child's */
	for (i = 0; i < n; i++) {
		char *path = t2_xfmt("%s/events/%s", dir, files[i]);
		char *log = t2_read_file(path, NULL);

		assert_non_null(log);
		assert_true(t2_matches(log, "\"category\":\"trace2\",\"key\":\"sample\",\"value\":\"0.25\""));
		free(log);
		free(path);
	}
	t2_strv_free(files);
	free(want_child);
	free(child);
	free(parent);
	free(listing);
	t2_rmtree(dir);
	free(dir);
}

/* In a child of its own (what the API sets stays for the process): exits
 * with the number of values trace2_config_set() judged wrongly. */
static void config_set_scenario(void *arg)
{
	static const char *const good[] = { "0.25", ".5", "1", "1.0", "0.000000000000000001" };
	static const char *const bad[] = { "0", "0.", "1.5", "2", "-0.5", "x", "", " 0.5",
					   "0.1234567890123456789", "1e-1" };
	size_t i;
	int wrong = 0;

	(void)arg;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		wrong += trace2_config_set("trace2.sample", good[i]) != 0;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		wrong += trace2_config_set("trace2.sample", bad[i]) != -1 || errno != EINVAL;
	}
	exit(wrong);
}

static void config_set_checks_the_rate(void **state)
{
	int status = t2_run_noinit(config_set_scenario, NULL, NULL);

	(void)state;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sampled_out_tree),
		cmocka_unit_test(kept_tree),
		cmocka_unit_test(config_set_checks_the_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
