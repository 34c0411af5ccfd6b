/* Helpers shared by the tests: scenarios in child processes, files,
 * scrubbing of times and session ids. */
#ifndef T2TEST_H
#define T2TEST_H

#include <stddef.h>

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
 * by "0.000000" (t_abs, t_rel, elapsed).  Caller frees.
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
 * Append one brief PERF line (targets.md §3.1) to *buf: thread and event
 * padded, no repo, t_abs/t_rel as the scrubbed " 0.000000" when abs/rel
 * are set (blank otherwise), category cut/padded to 12, then payload
 * and a LF unless the payload ends with one (targets.md §1.1).
 */
void t2_perf_brief(char **buf, const char *thread, const char *event, int abs,
		   int rel, const char *category, const char *payload);

#endif
