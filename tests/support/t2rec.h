/*
 * t2rec: trace records parsed line by line, for the tests that check the
 * integrity of large or hostile outputs (stress, fork, hostile, security).
 *
 * Layouts understood (targets.md §2.1, §3.1, §4): NORMAL non-brief, PERF
 * non-brief and brief, EVENT (strict JSON through tjson).  A line is
 * classified by its shape: "{" starts an EVENT record, a local time plus
 * a 28-column location plus " | d" (or a leading "d<depth> | ") a PERF
 * record, a local time otherwise a NORMAL record.
 */
#ifndef T2REC_H
#define T2REC_H

#include <stddef.h>
#include <stdint.h>

struct tjson;

enum t2_rec_kind { T2_REC_BAD, T2_REC_NORMAL, T2_REC_PERF, T2_REC_EVENT };

/* A piece of a line (not NUL-terminated). */
struct t2_slice {
	const char *p;
	size_t len;
};

struct t2_rec {
	enum t2_rec_kind kind;
	/* PERF, EVENT: the event name; NORMAL: first word of the payload */
	struct t2_slice event;
	struct t2_slice thread;		/* PERF, EVENT */
	struct t2_slice sid;		/* EVENT */
	struct t2_slice category;	/* PERF (trailing blanks cut) */
	/* NORMAL: the payload; PERF: the payload after the dots */
	struct t2_slice payload;
	int nesting;			/* EVENT: "nesting", -1 if absent */
	int dots;			/* PERF: leading dots of the payload */
	struct tjson *json;		/* EVENT: the whole object */
};

/*
 * Parse one line (without its LF).  Returns r->kind: T2_REC_BAD when the
 * line has none of the layouts.  Slices point into line or into r->json;
 * release with t2_rec_free().
 */
enum t2_rec_kind t2_rec_parse(const char *line, size_t len, struct t2_rec *r);
void t2_rec_free(struct t2_rec *r);
/* Whether a line holds the start of a record after its first byte (two
 * records mixed into one line). */
int t2_rec_mixed(const char *line, size_t len);
/* Whether s equals the NUL-terminated text. */
int t2_slice_eq(struct t2_slice s, const char *text);
/* EVENT: the string member key, as a slice ({NULL, 0} if absent). */
struct t2_slice t2_rec_str(const struct t2_rec *r, const char *key);

/* ------------------------------------------------------------------ */
/* Lines of a byte stream.                                             */
/* ------------------------------------------------------------------ */

typedef void t2_line_fn(void *ctx, const char *line, size_t len);

/* Joins the chunks of a stream and hands out whole lines (without LF). */
struct t2_lsplit {
	char *buf;
	size_t len, cap;
};
void t2_lsplit_feed(struct t2_lsplit *s, const char *data, size_t n,
		    t2_line_fn *fn, void *ctx);
/* End of the stream: returns the length of an unterminated last piece
 * (0 if the stream ended with a LF) and frees the splitter. */
size_t t2_lsplit_end(struct t2_lsplit *s);
/* Every line of a file, read in chunks; returns the length of an
 * unterminated last piece, or -1 if the file cannot be opened. */
long long t2_foreach_line(const char *path, t2_line_fn *fn, void *ctx);

/* ------------------------------------------------------------------ */
/* Whole-line checks.                                                   */
/* ------------------------------------------------------------------ */

struct t2_whole {
	size_t files;		/* files looked at */
	size_t lines;		/* LF-terminated lines */
	size_t bad;		/* lines of no known layout */
	size_t mixed;		/* of those, lines holding two record starts */
	size_t partial;		/* files ending without LF */
	size_t kinds[4];	/* lines per enum t2_rec_kind */
	char first_bad[160];	/* start of the first bad line */
};

/* Check one line (a t2_lsplit callback; ctx is a struct t2_whole). */
void t2_whole_line(void *ctx, const char *line, size_t len);
/* Check one file; adds to w (zero it first). */
void t2_whole_file(const char *path, struct t2_whole *w);
/* Check every regular file directly in dir. */
void t2_whole_dir(const char *dir, struct t2_whole *w);
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

#endif
