/*
 * t2rec: trace records parsed line by line, for the tests that check the
 * integrity of large or hostile outputs (stress, fork, hostile, faults)
 * and for the fuzzers' checks of what the targets wrote (fuzz_api).  It
 * needs tjson.c only (no cmocka, no t2test.c).
 *
 * Layouts understood (docs/targets.md): NORMAL non-brief, PERF
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
	/* NORMAL, non-brief PERF: the local time; EVENT: "time" (absent in
	 * the brief layouts) */
	struct t2_slice time;
	/* PERF: the t_abs and t_rel numbers without their padding (empty
	 * when the column is blank) */
	struct t2_slice t_abs, t_rel;
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
/* ------------------------------------------------------------------ */
/* Whole texts of one target.                                           */
/* ------------------------------------------------------------------ */

struct t2_text_error {
	const char *why;	/* static text */
	const char *line;	/* the first bad line (not NUL-terminated) */
	size_t len;
	unsigned nr;		/* its number, from 1 */
};

/*
 * Check everything one target wrote in the non-brief layout (want: the
 * target's kind), as the fuzzers' API programs make it (docs/targets.md):
 * the text ends with a LF and every line is a record of want's
 * layout (t2_rec_parse()), except the later lines of a pretty PERF
 * data_json record.  Beyond the layout:
 *   PERF   the time prefix is there, the event is one t2rec.c's table
 *          of PERF events names and t_abs and t_rel are filled exactly for
 *          the events that have them; a data_json payload is "json:" (the
 *          rest of the record, all its lines, must be JSON: the writer was
 *          terminated) or "partial:" (anything);
 *   EVENT  the object also has a string "time".
 * Returns 0, or -1 with the first problem in *err.
 */
int t2_check_text(enum t2_rec_kind want, const char *text, size_t len,
		  struct t2_text_error *err);

#endif
