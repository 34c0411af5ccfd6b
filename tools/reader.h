/*
 * The event-format reader: event-format files (evt 3 and 4, from Git or
 * libtrace2, many processes interleaved, a directory target's files,
 * standard input) streamed line by line into public records (struct
 * trace2_event), one callback per line.  Memory grows with the distinct
 * processes and threads and with the longest line, not with the input.
 */
#ifndef T2_READER_H
#define T2_READER_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "map.h"
#include "sys.h"
#include "trace2/target.h"

/*
 * The ranges of the numbers a record's use depends on (docs/tools.md,
 * "Input"): a record with an integer or a number of seconds outside them
 * is reported as a bad line and skipped.
 */
#define T2_ID_MAX 999999999       /* child_id, exec_id: 0 to this */
#define T2_NESTING_MAX 100000     /* nesting: 0 to this */
#define T2_SIGNO_MAX 255          /* signo: 0 to this */
#define T2_SECONDS_MAX 4294967295u /* t_abs, t_rel, t_total...: 0 to this */

/* The longest line read (without its LF): a longer one is reported and
 * skipped (docs/tools.md, "Input"). */
#define T2_LINE_MAX (64u << 20)

struct t2_thread {
	struct trace2_thread pub;
	struct t2_thread *next;
	size_t level;       /* 1 + the regions open now, as the stream says */
	size_t exit_level;  /* its level when its process wrote atexit, 0: none */
	unsigned started : 1, exited : 1;
	unsigned mid : 1;   /* of a process that started before the input */
	void *user;         /* for the caller (the validator's state) */
};

/* A record a process's records are compared with to find them read a
 * second time: its first timed record in each input. */
struct t2_anchor {
	uint64_t time_us, hash;
};

#define T2_ANCHORS_MAX 64

struct t2_process {
	struct trace2_process pub;
	struct t2_process *next;      /* with the same hash of its SID */
	struct t2_process *next_made; /* the next one read */
	struct t2_thread *threads;
	int next_thread_id; /* for thread names without "thNN:" */
	unsigned have_start : 1, have_time : 1;
	/* it started before the input: its first record is not version, in
	 * an input that starts mid-process (a rotated file) */
	unsigned mid : 1;
	unsigned exited : 1;    /* atexit read, nothing since */
	unsigned repeating : 1; /* its records now repeat what was read */
	unsigned long detached; /* times it went on after an atexit */
	uint64_t max_us;        /* the latest time seen */
	uint64_t repeat_until;  /* the latest time seen when repeating began */
	struct t2_anchor *anchors;
	size_t nanchors;
	unsigned long anchor_source; /* the input of the last anchor */
	uint64_t start_us;  /* time - t_abs of its first record with both */
	uint64_t last_us;   /* the last time seen */
	uint64_t last_abs_us;
	unsigned long records;
	void *user;
};

/* One line made into a record. */
struct t2_record {
	struct trace2_event ev;
	const struct jobj *obj;
	const char *src;           /* the input's name */
	unsigned long lineno;
	const char *event;         /* the event name ("" when missing) */
	int known;                 /* event names a kind (ev.kind) */
	int no_newline;            /* the input's last line, without LF */
	struct t2_process *proc;   /* NULL: no "sid" string */
	struct t2_thread *thread;  /* NULL: no "thread" string (or no proc) */
	int new_process, new_thread;
	size_t level_before;       /* the thread's level before this record */
	unsigned has_time : 1, has_t_abs : 1, t_abs_estimated : 1;
	/* a record of its process read a second time (the same log given
	 * twice): it changes nothing in the reader; first_repeat: the first
	 * of its input */
	unsigned repeat : 1, first_repeat : 1;
	/* the first record after its process's atexit: the process went on
	 * (Git's daemonized child, same SID); the thread levels it had at
	 * atexit are back */
	unsigned resumed : 1;
	/* the input's first record, of a process without its version: the
	 * input starts mid-process (a rotated file, or one cut at its start) */
	unsigned mid_start : 1;
	/* of a recording (lineno: the record's byte offset), whose local
	 * time is UTC + utc_offset seconds (has_utc_offset) */
	unsigned binary : 1, has_utc_offset : 1;
	int32_t utc_offset;
};

struct t2_reader;

/* A line that is not a record (malformed JSON, not an object...).
 * ignored: a line collectors skip (blank, '#', not starting with '{');
 * no_newline: the input's last line without LF. */
typedef void (*t2_bad_line_fn)(void *ctx, const char *src, unsigned long lineno,
			       const char *reason, int ignored, int no_newline);
typedef void (*t2_record_fn)(void *ctx, struct t2_record *rec);

/* What reads one line (without its LF) of an input in a format other
 * than the event format. */
typedef void (*t2_line_fn)(struct t2_reader *r, const char *src, unsigned long lineno,
			   const char *line, size_t len, int no_newline);

struct t2_recording;

struct t2_source {
	const char *name;
	struct t2_recording *recording; /* a recording's reader (record.h) */
	t2_line_fn line;        /* its format's reader (NULL: the event format) */
	int format_known;       /* line is set: a line not blank was read */
	unsigned long lineno;
	unsigned long seq;      /* its number among the reader's inputs */
	unsigned long records;  /* read from it so far */
	int mid;                /* it starts mid-process */
	unsigned long repeats;  /* records of it that repeat others */
	char *buf;              /* the partial line so far */
	size_t len, cap;
	int skipping;           /* in a line over the limit, already reported */
};

/* A file the command writes into: its standard output or error, when a
 * regular file.  The reader does not read it: it would read the
 * command's own output, growing as it reads. */
struct t2_output_id {
	struct t2_file_id id;
	int fd;                 /* 1 or 2 */
};

struct t2_reader {
	t2_record_fn on_record;
	t2_bad_line_fn on_bad_line;
	void *ctx;
	struct t2_map procs;              /* by a hash of the SID */
	struct t2_process *made, **made_end; /* in the order read */
	struct jobj obj;
	char *scratch;
	size_t scratch_cap;
	unsigned long lines, records, bad;
	unsigned long sources;  /* inputs begun */
	int io_errors;
	int stop;               /* set by a callback: read no further */
	size_t max_line;        /* T2_LINE_MAX (tests set less) */
	struct t2_output_id outputs[2];
	size_t n_outputs;
	const char *stdout_name; /* for messages: "standard output" */
	int check_only;         /* open each input, read none */
	/* look for records read a second time (default); off for streams
	 * that cannot repeat each other (a collector's clients) */
	int find_repeats;
	/* Set by a caller that reads other formats too: given an input's
	 * first line that is not blank, what reads its lines (NULL: the
	 * event format). */
	t2_line_fn (*format_of)(void *ctx, const char *line, size_t len);
};

void t2_reader_init(struct t2_reader *r, t2_record_fn on_record,
		    t2_bad_line_fn on_bad_line, void *ctx);
void t2_reader_free(struct t2_reader *r);

/* Read a file, every file of a directory (in name order), or "-" for
 * standard input.  Returns 0, or -1 when it cannot be read (reported on
 * stderr). */
int t2_reader_read_path(struct t2_reader *r, const char *path);

/*
 * Whether every path can be read, without reading it: a file can be
 * opened, a directory listed and each of its files opened, and none is
 * the command's standard output or error (same device and inode;
 * stdout_name names standard output in the message).  Returns 0, or -1
 * when one cannot (each reported on stderr).
 */
int t2_reader_check_paths(char *const *paths, int n, const char *stdout_name);

/* Feed bytes of a stream (a socket connection); t2_source_end() at its
 * end handles a last line without LF.  t2_source_feed() returns -1 when
 * a line went over r->max_line (reported as a bad line, and the rest of
 * it skipped), else 0. */
void t2_source_init(struct t2_source *s, const char *name);
int t2_source_feed(struct t2_reader *r, struct t2_source *s, const char *data, size_t n);
void t2_source_end(struct t2_reader *r, struct t2_source *s);

/* A t2_bad_line_fn that reports "SRC:LINE: REASON; skipped" on stderr (a
 * last line without newline, cut off: as a warning); for lineno 0 (a
 * recording's block, whose reason says where) "SRC: REASON; skipped", or
 * with no_newline (a cut recording) "SRC: warning: REASON". */
void t2_report_bad_line(void *ctx, const char *src, unsigned long lineno, const char *reason,
			int ignored, int no_newline);
/* Whether a record is one a converter can take: a known event of a
 * process and thread (else, unless quiet, the missing string is reported
 * on stderr), not read before (the first record of a repeat is reported
 * on stderr unless quiet).  Unless quiet, a record read from a last line without
 * newline is noted on stderr as a warning: the line may have been cut
 * just before its newline. */
int t2_record_usable(const struct t2_record *rec, int quiet);

/*
 * For the reader of another format (a recording, record.c), which makes
 * its records itself: rec's process (created, by its SID) and thread (by
 * its name, none if thread_len is 0), and whether the input starts
 * mid-process, as for a line.
 */
void t2_reader_owner(struct t2_reader *r, struct t2_source *s, struct t2_record *rec,
		     const char *sid, size_t sid_len, const char *thread, size_t thread_len);
/* The record, its kind, owner, times and payload filled, kept track of
 * as a line's (repeats, processes going on after atexit, thread levels
 * from nesting, -1: none given) and handed to the callback; bytes: what
 * tells it from another record of its time, to find inputs read twice. */
void t2_reader_take(struct t2_reader *r, struct t2_source *s, struct t2_record *rec,
		    const void *bytes, size_t len, int64_t nesting);
/* The strings and vectors a record of that kind left NULL given what an
 * event line without their keys gets (tr2_kinds.def). */
void t2_event_defaults(struct trace2_event *ev);
/* The range of the number at offset off of struct trace2_event in a
 * record of that kind, as its key's in an event line: 0, or -1 when no
 * key fills that field. */
int t2_field_range(enum trace2_event_kind kind, size_t off, int64_t *min, int64_t *max);

/* The kind of an event name, 0 for an unknown name. */
enum trace2_event_kind t2_event_kind(const char *name);

/* The pid in a SID's own part ("...-P<hex>" after the last '/'):
 * 0, or -1 if it has none. */
int t2_pid_of_sid(const char *sid, uint32_t *pid);

/* What names a process whose input has neither its cmd_name nor its
 * start (it started before the input: a rotated file): "(pid N)" from
 * its SID, else "?"; into buf of T2_UNNAMED_MAX bytes. */
#define T2_UNNAMED_MAX 24
const char *t2_unnamed(const struct t2_process *p, char *buf);

/* The process with that SID, if read so far. */
struct t2_process *t2_reader_find(struct t2_reader *r, const char *sid, size_t len);

/* Every process read so far, in the order read (for summaries). */
void t2_reader_each_process(struct t2_reader *r,
			    void (*fn)(void *ctx, struct t2_process *p), void *ctx);

#endif
