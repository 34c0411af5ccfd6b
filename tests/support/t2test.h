/* Helpers shared by the tests: scenarios in child processes, files,
 * scrubbing of times and session ids. */
#ifndef T2TEST_H
#define T2TEST_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "tr2_features.h"

/* Whether the library writes cmd_ancestry: where it reads the parents'
 * names (TR2_HAVE_PROC_STAT; Windows, from a process snapshot); the POSIX
 * fallback writes no such record, as Git on platforms without procinfo.
 * T2_ANCESTRY(sep): the record's name followed by sep then, else nothing. */
#if TR2_HAVE_PROC_STAT || defined(_WIN32)
#define T2_HAVE_ANCESTRY 1
#define T2_ANCESTRY(sep) "cmd_ancestry" sep
#else
#define T2_HAVE_ANCESTRY 0
#define T2_ANCESTRY(sep) ""
#endif

/* A program's file name as cmd_ancestry names it: "name.exe" on Windows. */
#ifdef _WIN32
#define T2_PROGRAM(name) name ".exe"
#else
#define T2_PROGRAM(name) name
#endif

/* 1 in builds with AddressSanitizer or ThreadSanitizer (tests scale down). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

/* Sampling by command tree (docs/configuration.md, "Sampling"): a rate,
 * and roots whose hashes over 2^64 are 0.007 (a tree the rate keeps) and
 * 0.923 (one it drops), as tests/process/test_sample.sh computes them. */
#define T2_SAMPLE_RATE "0.25"
#define T2_ROOT_KEPT "20260101T000000.000000Z-H00000000-P00000009"
#define T2_ROOT_OUT "20260101T000000.000000Z-H00000000-P00000007"

/* 1 under ThreadSanitizer, which ends a forked child of a multi-threaded
 * process that starts a thread (as the deferred mode's children that
 * initialize again do: their writer thread). */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

/*
 * A check inside a forked child (a scenario), where a cmocka assertion
 * would not reach the test runner: on failure print "<file>:<line>: check failed: <cond>"
 * on stderr and end the child with _exit(70).
 */
#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: check failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
			_exit(70);                                           \
		}                                                            \
	} while (0)

/* printf into a new string (aborts when memory runs out); caller frees. */
char *t2_xfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A fresh empty directory under $TMPDIR (or /tmp); caller frees. */
char *t2_tmpdir(void);
/* Remove a directory tree made by t2_tmpdir(). */
void t2_rmtree(const char *dir);
/* The whole file, NUL-terminated (NULL if unreadable); caller frees. */
char *t2_read_file(const char *path, size_t *len);
/* "<dir>/<name>"; caller frees. */
char *t2_path(const char *dir, const char *name);

typedef void t2_scenario_fn(void *arg);

/*
 * Windows has no fork(): there a scenario (t2_run*(), t2_capture()) runs
 * in a new process of the test program that replays the test case up to
 * it, with the runner's results of the helpers' calls on files, and fn's
 * arg rebuilt by the test's own code (tests/support/t2test_win32.c).
 *
 * Run fn in a forked child: every GIT_TRACE2* and GIT_CONFIG* variable is
 * removed from its environment, HOME points at an empty directory and
 * GIT_CONFIG_NOSYSTEM=1, then the NULL-terminated "NAME=value" list env
 * is applied; the child calls trace2_initialize_clock() and
 * trace2_initialize(), then fn(arg), then exit(0).  Returns the wait
 * status.
 */
int t2_run(t2_scenario_fn *fn, void *arg, const char *const *env);

/*
 * Run fn with all three targets writing into files of a new temporary
 * directory (extra settings in env, e.g. brief flags), and return the
 * scrubbed contents of each (caller frees each).
 */
struct t2_out {
	char *normal;
	char *perf;
	char *event;
	int status;
};
void t2_run_all(t2_scenario_fn *fn, void *arg, const char *const *env,
		struct t2_out *out);
void t2_out_free(struct t2_out *out);

/*
 * Like t2_run() and t2_run_all(), except that the child does not call
 * trace2_initialize() (it still calls trace2_initialize_clock()): fn
 * decides when (or whether) to initialize, so calls made before it and
 * the location of the version record can be tested.
 */
int t2_run_noinit(t2_scenario_fn *fn, void *arg, const char *const *env);
void t2_run_all_noinit(t2_scenario_fn *fn, void *arg, const char *const *env,
		       struct t2_out *out);
/* Like t2_run_all(), but the files' contents exactly as written. */
void t2_run_all_raw(t2_scenario_fn *fn, void *arg, const char *const *env,
		    struct t2_out *out);
/* Both: fn initializes, and the contents exactly as written (for a
 * scenario that swaps a tr2_sys function before the writer thread of
 * the deferred mode starts). */
void t2_run_all_raw_noinit(t2_scenario_fn *fn, void *arg, const char *const *env,
			   struct t2_out *out);

/*
 * s cut at every occurrence of sep (non-empty): k separators give k + 1
 * pieces.  NULL-terminated, *count (if non-NULL) set to the number of
 * pieces; free with t2_strv_free().
 */
char **t2_split(const char *s, const char *sep, size_t *count);
/* text cut into lines without their LF (no empty piece after a final LF). */
char **t2_lines(const char *text, size_t *count);
void t2_strv_free(char **v);

/*
 * Replace what changes between runs: session ids by "SID", UTC times by
 * "2000-01-01T00:00:00.000000Z", local times of day at the start of a
 * line by "00:00:00.000000", and every other "<digits>.<6 digits>" number
 * by "0.000000" (t_abs, t_rel, elapsed); the lines of Windows' own
 * records go (windows/ancestry, windows/debugger_present, windows/memory:
 * the parents, a debugger, the run's sizes).  Caller frees.
 */
char *t2_scrub(const char *text);

/* Run a command line with the given extra environment; returns status. */
int t2_system_env(const char *const *env, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Run fn(arg) in a forked child, then exit(0) (fn may also exit or exec
 * itself).  Unlike t2_run(), the child removes EVERY GIT_* variable and
 * XDG_CONFIG_HOME, sets HOME=/nonexistent and GIT_CONFIG_NOSYSTEM=1,
 * then applies the NULL-terminated "NAME=value" list env (which should
 * set HOME to an empty directory the caller owns); it neither makes a
 * temporary directory nor calls any trace2 function itself.  Returns the
 * wait status.
 */
int t2_run_clean(t2_scenario_fn *fn, void *arg, const char *const *env);

/* text with every occurrence of from (non-empty) replaced by to; caller
 * frees. */
char *t2_replace(const char *text, const char *from, const char *to);

/*
 * Append the printf-style text to the malloc'd string *buf (NULL starts
 * an empty one); *buf stays NUL-terminated.
 */
void t2_append(char **buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Append one brief PERF line (docs/targets.md, "Perf") to *buf: thread and
 * event padded, no repo, t_abs/t_rel as the scrubbed " 0.000000" when abs/rel
 * are set (blank otherwise), category cut/padded to 12, then payload and a LF
 * unless the payload ends with one.
 */
void t2_perf_brief(char **buf, const char *thread, const char *event, int abs,
		   int rel, const char *category, const char *payload);

/* ------------------------------------------------------------------ */
/* Processes with captured output (destinations, config, signals).     */
/* ------------------------------------------------------------------ */

/* The driver directory, absolute: $T2_BIN if set and non-empty, else
 * "build/bin" (resolved at the first call). */
const char *t2_bin_dir(void);
/* The emulator this test binary runs under ($T2_RUN, set by make CROSS=
 * for aarch64 and s390x: "qemu-aarch64"), or NULL when it runs natively. */
const char *t2_emulator(void);
/* execv(path, argv) of a program built like this one: under the emulator
 * through it (the kernel runs no foreign binary by itself); returns only
 * on failure.  path NULL: this very program (/proc/self/exe). */
void t2_exec_built(const char *path, char *const argv[]);
/* In a test: skip it, saying why, when it runs under an emulator. */
#define T2_SKIP_UNDER_EMULATOR(why)                                          \
	do {                                                                 \
		if (t2_emulator()) {                                         \
			print_message("skipped under %s: %s\n", t2_emulator(), \
				      why);                                  \
			skip();                                              \
		}                                                            \
	} while (0)

/* In a test: skip it on Windows, saying why (what it needs that Windows
 * has not: fork(), POSIX signals, Unix sockets...). */
#ifdef _WIN32
#define T2_SKIP_ON_WINDOWS(why)                                              \
	do {                                                                 \
		print_message("skipped on Windows: %s\n", why);              \
		skip();                                                      \
	} while (0)
#else
#define T2_SKIP_ON_WINDOWS(why) ((void)0)
#endif

struct t2_proc {
	char *out;	/* everything the child wrote to stdout */
	char *err;	/* everything the child wrote to stderr */
	int status;	/* its wait status */
};

/*
 * Run fn(arg) in a forked child with stdin from /dev/null, stdout and
 * stderr captured into p, every signal disposition reset to the default
 * and an empty signal mask.  The environment: every GIT_* variable and
 * XDG_CONFIG_HOME removed, HOME=/nonexistent, GIT_CONFIG_NOSYSTEM=1, then
 * the NULL-terminated list env applied in order ("NAME=value" sets NAME,
 * a bare "NAME" unsets it).  fn may exec; if it returns, the child exits
 * with 0.  A child still running after timeout_s seconds is killed
 * (SIGKILL, so p->status says so).
 */
void t2_capture(t2_scenario_fn *fn, void *arg, const char *const *env,
		int timeout_s, struct t2_proc *p);
/*
 * t2_capture() of "<t2_bin_dir()>/trace2-tool" with the arguments that
 * follow (NULL-terminated), e.g. t2_tool(env, &p, "trace2", "001return",
 * "0", NULL); timeout 20 s.
 */
void t2_tool(const char *const *env, struct t2_proc *p, ...)
	__attribute__((sentinel));
/* t2_capture() of "<t2_bin_dir()>/trace2" (the trace2 command) with the
 * NULL-terminated args, env as t2_capture() takes it. */
void t2_trace2(const char *const *env, const char *const *args, int timeout_s,
	       struct t2_proc *p);
/*
 * Whether the log at path (an event log or a recording) is whole as
 * trace2 reads it: validate --strict says 0 errors and 0 warnings, and
 * summary finds no region_leave without its region_enter, and no region
 * never left unless open_at_end (a process that ended inside them).
 * What validate said goes to stderr, and what is wrong.
 */
int t2_log_whole(const char *path, int open_at_end);
/* In a child: exec the driver with the NULL-terminated args (args[0] is
 * its first argument); _exit(127) if that fails. */
void t2_exec_tool(const char *const *args) __attribute__((noreturn));
/* The same with the driver of another directory (t2_unprivileged_dir()). */
/* In a child: exec bin_dir/name, a program built like this one (see
 * t2_exec_built()), with the NULL-terminated args (up to 62); _exit(127)
 * if that fails. */
void t2_exec_program(const char *bin_dir, const char *name, const char *const *args)
	__attribute__((noreturn));
void t2_exec_tool_in(const char *bin_dir, const char *const *args)
	__attribute__((noreturn));
void t2_proc_free(struct t2_proc *p);

/* Wait for pid at most timeout_ms, then SIGKILL it; returns the status. */
int t2_wait_timeout(int pid, int timeout_ms);

/* Create or truncate path with text; 0 on success. */
int t2_write_file(const char *path, const char *text);
/* mkdir -p of path (mode 0777 before the umask); 0 on success. */
int t2_mkdirs(const char *path);
/* The names in dir, sorted, joined by single spaces ("" when empty);
 * "." and ".." left out; caller frees. */
char *t2_listdir(const char *dir);
/* The same joined by sep, for names that may hold spaces ("/" is in
 * none); caller frees. */
char *t2_listdir_sep(const char *dir, const char *sep);
/* Whether thread *tid of this process (0 while unknown) is blocked in
 * open() of path (not of another file first), waiting up to timeout_ms
 * for it. */
int t2_wait_thread_in_open(const int *tid, const char *path, int timeout_ms);
/* Whether the file contains needle, waiting up to timeout_ms for it. */
int t2_wait_for_text(const char *path, const char *needle, int timeout_ms);

/*
 * Like t2_capture(), but returns at once with the child's pid (-1 if fork
 * failed): same environment and signal set-up, stdout and stderr go to the
 * files out_path and err_path (created or truncated; NULL: /dev/null).
 * Reap it with t2_wait_timeout().
 */
int t2_spawn(t2_scenario_fn *fn, void *arg, const char *const *env,
	     const char *out_path, const char *err_path);
/* text with every match of the extended regular expression re (REG_NEWLINE
 * semantics) replaced by with (no back-references); caller frees.  re
 * must not match the empty string (abort()s). */
char *t2_regsub(const char *text, const char *re, const char *with);
/* Whether text contains a match of the extended regular expression re
 * (abort()s if re does not compile). */
int t2_matches(const char *text, const char *re);
/* text without its lines that contain needle (a last line without LF
 * counts as a line); caller frees. */
char *t2_drop_lines(const char *text, const char *needle);

/* A NULL-terminated environment list of printf-formatted entries; start
 * with { 0 }. */
struct t2_env {
	char *v[32];
	size_t n;
};
void t2_env_add(struct t2_env *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *const *t2_env_list(const struct t2_env *e);
void t2_env_free(struct t2_env *e);

struct json_writer;
/* A pretty writer holding {"a": "b", "o": {"n": 1}}, terminated
 * (docs/api.md, "JSON writer"). */
void t2_jw_api_example(struct json_writer *jw);

/* The first word of every line of text, joined by single spaces; caller
 * frees. */
char *t2_first_words(const char *text);
/* The "event" of every line of JSON-lines text, joined by single spaces,
 * "INVALID" for a line that is no JSON object with a string "event";
 * Windows' own records (see t2_scrub()) left out; caller frees. */
char *t2_event_names(const char *text);

/* ------------------------------------------------------------------ */
/* Scratch directories, time, leak checks (stress, fork, hostile, ...). */
/* ------------------------------------------------------------------ */

/* Whether any regular file below dir (recursively) contains needle; the
 * first such path in *which (caller frees) if which is non-NULL. */
int t2_tree_contains(const char *dir, const char *needle, char **which);

/* Monotonic clock in seconds. */
double t2_now(void);

/*
 * A new t2_tmpdir() that t2_scratch_cleanup() removes with everything in
 * it.  Use the cleanup as the cmocka teardown of the test
 * (cmocka_unit_test_teardown): it also runs after a failed assertion, so
 * a failing test does not leave hundreds of MB behind.  The path belongs
 * to the registry (do not free it).  With T2_KEEP set in the environment
 * the directories are kept and their paths printed.
 */
const char *t2_scratch_dir(void);
int t2_scratch_cleanup(void **state);

/*
 * LeakSanitizer in forked scenario children.  A test that fails leaves its
 * allocations behind in the runner, and every child forked later would
 * report them as its own leaks, so one failure would fail every later
 * scenario.  After t2_leak_check_runner_only() (from main()), only the
 * runner process checks for leaks at exit, plus the children forked while
 * t2_leak_check_children(1) is in force.  Without the call nothing
 * changes.  (Exec'd programs are not affected either way.)
 */
void t2_leak_check_runner_only(void);
void t2_leak_check_children(int on);

/* ------------------------------------------------------------------ */
/* Children without root's rights.                                      */
/* ------------------------------------------------------------------ */

/*
 * A test run as root that needs an ordinary user's rights in a child
 * (root ignores file modes) drops them to user and group 65534 (nobody).
 * That child cannot count on reaching the build tree, the current
 * directory or $TMPDIR: a clone in root's home (mode 0700) is closed to
 * it.  t2_unprivileged_dir() makes a fresh directory under /tmp, mode
 * 0755, holding a copy of the driver (trace2-tool, mode 0755), and as
 * root checks in a child that user nobody can enter it and execute the
 * copy.  Returns the directory (t2_rmtree() it, then free it), or NULL
 * with the reason in *why (static text): the test must then skip, saying
 * why.  Not root: the same directory, without the check.
 */
char *t2_unprivileged_dir(const char **why);
/* In a child: as root, give up root's rights for user and group 65534;
 * then chdir(dir) (a t2_unprivileged_dir()).  _exit(125) if either
 * fails. */
void t2_drop_privileges(const char *dir);

#endif
