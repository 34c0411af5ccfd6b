/*
 * libtrace2 targets: the public interface every target is written on,
 * the built-in normal, perf, event, chrome and stats targets included.
 *
 * A target is a struct trace2_target registered with
 * trace2_register_target() before trace2_initialize().  For every traced
 * call the library builds one struct trace2_event and hands it to the
 * event callback of every target that is on.
 *
 * The contract:
 *
 * - Threads.  event() runs on the thread that made the trace2_*() call,
 *   so it runs concurrently on several threads and must be thread-safe.
 *   In deferred mode (GIT_TRACE2_DEFERRED) it runs instead on the
 *   library's writer thread, or on a thread that drains the queued
 *   records (child start, exec, exit, trace2_flush()), with ev->thread
 *   naming the thread that made the call.  Within one traced thread,
 *   events come in the order of the calls.  open() runs on the thread that calls
 *   trace2_initialize(), before any event; shutdown() runs once at process
 *   exit (the atexit handler), after the last event.  flush() may come
 *   from any thread.
 * - Signals.  A TRACE2_EVENT_SIGNAL record is delivered from inside a
 *   signal handler: for it, event() may do only async-signal-safe work
 *   (format into a stack buffer, trace2_output_write()).  A target that
 *   cannot must ignore that kind.
 * - Re-entry.  A trace2_*() call made from inside a callback is ignored:
 *   it emits nothing and changes no state (regions, timers).  Callbacks
 *   are never recursed into by their own calls.  (So is a call from a
 *   host's signal handler that interrupts a registered target's callback.)
 * - Lifetime.  The record and every string and array it points to live
 *   for the duration of the event() call only: copy what you keep.
 * - Output.  A target with a setting gets a write handle in open(): the
 *   library opens the destination named by GIT_TRACE2_<SETTING> or
 *   trace2.<setting>Target exactly as for the built-in targets (stderr,
 *   an fd, a file, a directory, an af_unix socket, buffered mode) and
 *   trace2_output_write() writes whole records to it, never interleaved
 *   with another thread's.  A failing destination is switched off with
 *   one warning (GIT_TRACE2_DST_DEBUG), and with it the target.
 */
#ifndef TRACE2_TARGET_H
#define TRACE2_TARGET_H

#include "../trace2.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif

/* The version of this interface; a target states the one it was built for. */
#define TRACE2_TARGET_ABI_VERSION 1

/* How many targets can be registered, the built-in ones included. */
#define TRACE2_TARGETS_MAX 32

/* ------------------------------------------------------------------ */
/* The event record.                                                    */
/* ------------------------------------------------------------------ */

/* One kind per event name of the event target (trace2_event_name()).
 * A new kind goes last, before TRACE2_EVENT_KIND_MAX, and raises
 * TRACE2_TARGET_ABI_VERSION. */
enum trace2_event_kind {
	TRACE2_EVENT_VERSION = 1,
	TRACE2_EVENT_TOO_MANY_FILES, /* only to a target whose directory is full */
	TRACE2_EVENT_START,
	TRACE2_EVENT_EXIT,
	TRACE2_EVENT_SIGNAL,         /* from a signal handler: see above */
	TRACE2_EVENT_ATEXIT,
	TRACE2_EVENT_ERROR,
	TRACE2_EVENT_CMD_PATH,
	TRACE2_EVENT_CMD_ANCESTRY,
	TRACE2_EVENT_CMD_NAME,
	TRACE2_EVENT_CMD_MODE,
	TRACE2_EVENT_ALIAS,
	TRACE2_EVENT_CHILD_START,
	TRACE2_EVENT_CHILD_EXIT,
	TRACE2_EVENT_CHILD_READY,
	TRACE2_EVENT_THREAD_START,
	TRACE2_EVENT_THREAD_EXIT,
	TRACE2_EVENT_EXEC,
	TRACE2_EVENT_EXEC_RESULT,
	TRACE2_EVENT_DEF_PARAM,
	TRACE2_EVENT_DEF_REPO,
	TRACE2_EVENT_REGION_ENTER,
	TRACE2_EVENT_REGION_LEAVE,
	TRACE2_EVENT_DATA,
	TRACE2_EVENT_DATA_JSON,
	TRACE2_EVENT_PRINTF,
	TRACE2_EVENT_TIMER,          /* process totals, at exit */
	TRACE2_EVENT_TH_TIMER,       /* one thread's, at its exit */
	TRACE2_EVENT_COUNTER,
	TRACE2_EVENT_TH_COUNTER,
	TRACE2_EVENT_KIND_MAX
};

/* The repository id of a record whose call named no repository. */
#define TRACE2_NO_REPO (-1)

/* The traced process. */
struct trace2_process {
	const char *sid;        /* "<parent sid>/<own>", or the own part */
	size_t sid_len;
	const char *sid_json;   /* the SID escaped as the inside of a JSON string */
	size_t sid_json_len;
	int depth;              /* traced ancestors: the '/' count of sid */
};

/* The thread that made the call. */
struct trace2_thread {
	const char *name;       /* "main", or "th<NN>:<base name>" */
	size_t name_len;
	const char *json_name;  /* name escaped as the inside of a JSON string */
	size_t json_name_len;
	int id;                 /* 0 for main, then in order of creation; not
				 * reused within a process */
};

/* Argument vectors are NULL-terminated; a NULL vector means none. */
struct trace2_ev_version { const char *exe; };       /* the version text */
struct trace2_ev_start { const char *const *argv; }; /* passwords redacted */
struct trace2_ev_exit { int code; };                 /* exit, atexit */
struct trace2_ev_signal { int signo; };
struct trace2_ev_error {
	const char *msg; /* the expanded message; NULL when fmt was NULL or "" */
	const char *fmt; /* the format; NULL exactly when msg is */
};
struct trace2_ev_cmd_path { const char *path; };    /* passwords redacted */
struct trace2_ev_cmd_ancestry { const char *const *names; }; /* nearest first */
struct trace2_ev_cmd_name {
	const char *name;
	const char *hierarchy; /* "<GIT_TRACE2_PARENT_NAME>/<name>" */
};
struct trace2_ev_cmd_mode { const char *name; };
struct trace2_ev_alias { const char *alias; const char *const *argv; }; /* argv: passwords redacted */
struct trace2_ev_child {      /* child_start, child_exit, child_ready */
	int id;
	long pid;                 /* exit, ready */
	const char *child_class;  /* NULL: unknown; start */
	const char *hook_name;    /* NULL unless a hook; start */
	const char *cd;           /* NULL: the current directory; start */
	const char *const *argv;  /* start; git_cmd: "git" is implied first */
	int git_cmd;              /* start */
	int use_shell;            /* start */
	int code;                 /* exit */
	const char *ready;        /* ready */
};
struct trace2_ev_exec {       /* exec, exec_result */
	int id;
	const char *exe;          /* exec; NULL: argv[0] is the program */
	const char *const *argv;  /* exec (exe and argv: passwords redacted) */
	int code;                 /* exec_result */
};
struct trace2_ev_def_param {
	const char *param;
	const char *value;        /* NULL for a valueless entry */
	const char *scope;        /* "system", "global", ... "unknown" */
};
struct trace2_ev_def_repo { int repo_id; const char *worktree; };
struct trace2_ev_region {     /* region_enter, region_leave */
	const char *category;     /* may be NULL */
	const char *label;        /* may be NULL */
	int repo_id;              /* or TRACE2_NO_REPO */
	const char *msg;          /* the expanded message, NULL for none */
};
struct trace2_ev_data {       /* data, data_json */
	const char *category;
	int repo_id;              /* or TRACE2_NO_REPO */
	const char *key;
	const char *value;        /* data (NULL is possible) */
	const char *json;         /* data_json: the writer's text, NULL if none */
	size_t json_len;
	int json_pretty;          /* the text is pretty-printed (has newlines) */
	int json_open;            /* '{' or '[': the writer was not terminated
				   * (the event target reports a BUG), else 0 */
};
struct trace2_ev_printf { const char *msg; }; /* NULL for an empty format */
struct trace2_ev_timer {      /* timer, th_timer */
	const char *category;
	const char *name;
	uint64_t intervals;
	uint64_t total_ns, min_ns, max_ns;
};
struct trace2_ev_counter {    /* counter, th_counter */
	const char *category;
	const char *name;
	uint64_t value;
};

struct trace2_event {
	enum trace2_event_kind kind;
	const char *file;         /* the caller's source location; NULL for */
	int line;                 /* records without one (signal, atexit,
				   * timers and counters) */
	uint64_t time_us;         /* wall clock, microseconds since the epoch */
	uint64_t t_abs_us;        /* since the process started */
	uint64_t t_rel_us;        /* region_leave: the region's time; data,
				   * data_json: since the innermost region
				   * began; child_exit/ready: since
				   * child_start; thread_exit: the thread's
				   * time; else 0 */
	size_t nesting;           /* 1 + the regions open around the record
				   * (a region's enter and leave: its own
				   * level) */
	const struct trace2_thread *thread;
	const struct trace2_process *process;
	union {                   /* the member named after the kind */
		struct trace2_ev_version version;
		struct trace2_ev_start start;
		struct trace2_ev_exit exit;
		struct trace2_ev_signal signal;
		struct trace2_ev_error error;
		struct trace2_ev_cmd_path cmd_path;
		struct trace2_ev_cmd_ancestry cmd_ancestry;
		struct trace2_ev_cmd_name cmd_name;
		struct trace2_ev_cmd_mode cmd_mode;
		struct trace2_ev_alias alias;
		struct trace2_ev_child child;
		struct trace2_ev_exec exec;
		struct trace2_ev_def_param def_param;
		struct trace2_ev_def_repo def_repo;
		struct trace2_ev_region region;
		struct trace2_ev_data data;
		struct trace2_ev_printf printf;
		struct trace2_ev_timer timer;
		struct trace2_ev_counter counter;
	};
};

/*
 * A target's own last line for a file that reached its maxFileSize
 * (trace2_output_set_full_line()): written into line (at most size
 * bytes) from the record that did not fit (record, len: whole records,
 * one or more), its length returned; 0 for the library's line.  Called
 * on any thread, inside a signal handler too: async-signal-safe work
 * only (no locks, no allocation, no stdio).
 */
typedef size_t trace2_output_full_line_fn(char *line, size_t size, const void *record,
					  size_t len, uint64_t max_size);

/* Compiled out (-DTRACE2_DISABLE, see trace2/disable.h): the functions
 * below are these no-ops; a target is accepted and never called, and the
 * JSON functions write nothing and return 0. */
#ifdef TRACE2_DISABLE
struct trace2_output;
struct trace2_target;
static inline const char *trace2_event_name(enum trace2_event_kind kind)
{
	(void)kind;
	return "";
}
static inline const char *trace2_event_local_time(const struct trace2_event *ev)
{
	(void)ev;
	return "";
}
static inline const char *trace2_event_utc_time(const struct trace2_event *ev)
{
	(void)ev;
	return "";
}
static inline int trace2_output_write(struct trace2_output *out, const void *record,
				      size_t len, const struct trace2_event *ev)
{
	(void)out; (void)record; (void)len; (void)ev;
	return -1;
}
static inline int trace2_output_set_head(struct trace2_output *out, const void *head,
					 size_t len)
{
	(void)out; (void)head; (void)len;
	return -1;
}
static inline int trace2_output_set_full_line(struct trace2_output *out,
					      trace2_output_full_line_fn *fn)
{
	(void)out; (void)fn;
	return -1;
}
static inline int trace2_register_target(const struct trace2_target *target, void *ctx)
{
	(void)target; (void)ctx;
	return 0;
}
static inline size_t trace2_json_escape(char *out, size_t size, const char *s, size_t len)
{
	(void)out; (void)size; (void)s; (void)len;
	return 0;
}
static inline size_t trace2_utf8_repair(char *out, size_t size, const char *s, size_t len)
{
	(void)out; (void)size; (void)s; (void)len;
	return 0;
}
#endif

/* The event target's name of a kind ("region_enter"); "" for no kind. */
const char *trace2_event_name(enum trace2_event_kind kind);

/*
 * The record's time as the normal and perf targets print it,
 * "HH:MM:SS.uuuuuu" (local time), and as the event target does,
 * "YYYY-MM-DDTHH:MM:SS.uuuuuuZ".  Formatted once per record for all
 * targets; valid during the event() call.  Only for records the library
 * passed to a callback.
 */
const char *trace2_event_local_time(const struct trace2_event *ev);
const char *trace2_event_utc_time(const struct trace2_event *ev);

/* ------------------------------------------------------------------ */
/* JSON strings, for targets that write JSON.                          */
/* ------------------------------------------------------------------ */

/* The most trace2_json_escape() writes for len input bytes (len up to
 * SIZE_MAX / 6), and trace2_utf8_repair() (len up to SIZE_MAX / 3). */
#define TRACE2_JSON_ESCAPED_MAX(len) ((len) * 6)
#define TRACE2_UTF8_REPAIRED_MAX(len) ((len) * 3)

/*
 * Write s[0..len) into out as the inside of a JSON string, as the event
 * target writes its strings: '"', '\\' and the control bytes escaped
 * (\n \r \t \f \b, others as \u00XX), valid UTF-8 copied unchanged and
 * U+FFFD (EF BF BD) for every byte that is not part of a valid UTF-8
 * sequence, so the result is always valid JSON.  No quotes and no
 * terminating NUL are written.
 *
 * Returns the length of the escaped text (SIZE_MAX if it does not fit in
 * a size_t).  When that is more than size, nothing at all is written
 * (out may be NULL with size 0, s with len 0): call again with a buffer
 * of the returned size.  A buffer of TRACE2_JSON_ESCAPED_MAX(len) bytes
 * always fits.  Pure: any thread, at any time, async-signal-safe; s and
 * out must not overlap.
 */
size_t trace2_json_escape(char *out, size_t size, const char *s, size_t len);

/*
 * Copy s[0..len) into out with U+FFFD for every byte that is not part of
 * a valid UTF-8 sequence, as trace2_json_escape() does, and nothing
 * escaped: raw JSON text made strict.  Returns and writes as
 * trace2_json_escape(), with TRACE2_UTF8_REPAIRED_MAX(len) bytes always
 * enough.
 */
size_t trace2_utf8_repair(char *out, size_t size, const char *s, size_t len);

/* ------------------------------------------------------------------ */
/* Output.                                                              */
/* ------------------------------------------------------------------ */

/* A destination the library opened for a target (see open()). */
struct trace2_output;

/*
 * Write one whole record (the bytes as given: add your own newline) of
 * the event ev (NULL: of no event) in one piece, never interleaved with
 * another record.  In buffered mode it may wait in the calling thread's
 * buffer.  Returns 0, or -1 when the destination is off (it failed).
 */
int trace2_output_write(struct trace2_output *out, const void *record,
			size_t len, const struct trace2_event *ev);

/*
 * The bytes that start the output's file, for files the library puts in
 * its place later: trace2_reopen() (log rotation) writes them at the
 * start of a new, empty file, as open() wrote them at the start of the
 * first (when config->created).  With the flight recorder a file or a
 * directory's new file is made by its first write, which starts it with
 * them (config->created is 0 then: open() writes nothing).  A format with an opening, such as the
 * "[" of a JSON array, sets it in open().  At most TRACE2_OUTPUT_HEAD_MAX
 * bytes, copied.  Returns 0, or -1 (no output, too long).
 */
#define TRACE2_OUTPUT_HEAD_MAX 64
int trace2_output_set_head(struct trace2_output *out, const void *head, size_t len);

/*
 * The line that ends a file the library stops writing because it reached
 * its maxFileSize: the library writes a line of its own (a JSON object
 * for a file of JSON records, text otherwise) unless the target's format
 * needs its own, such as a record of its format that says so; fn makes
 * it (see trace2_output_full_line_fn), NULL goes back to the library's.
 * Set it in open().  Returns 0, or -1 (no output).
 */
int trace2_output_set_full_line(struct trace2_output *out, trace2_output_full_line_fn *fn);

/* ------------------------------------------------------------------ */
/* Targets.                                                             */
/* ------------------------------------------------------------------ */

/* What open() learns. */
struct trace2_target_config {
	struct trace2_output *output; /* NULL for a target without a setting */
	int brief;    /* GIT_TRACE2_<SETTING>_BRIEF / trace2.<setting>Brief */
	/*
	 * This process starts the destination's stream: it created the file
	 * (with TRACE2_TARGET_WANTS_CREATED), got its own file in a
	 * directory, or, writing to stderr, an fd or a socket, has no traced
	 * parent (no GIT_TRACE2_PARENT_SID).  A target may write a header
	 * then.  Always 1 for a target without a setting.
	 */
	int created;
	/*
	 * Deferred mode is on (GIT_TRACE2_DEFERRED): records come from the
	 * library's writer thread or a thread that drains, one thread handing
	 * in the records of many; per-thread state must follow ev->thread,
	 * not the calling thread.
	 */
	int deferred;
};

/* flags: tell `created` reliably for a file that may already exist (an
 * exclusive create first: one more open() when it does). */
#define TRACE2_TARGET_WANTS_CREATED 0x1
/* flags: event() is async-signal-safe for every kind, not only
 * TRACE2_EVENT_SIGNAL: in deferred mode, the records still queued when a
 * fatal signal arrives are written from its handler to such targets only. */
#define TRACE2_TARGET_SIGNAL_SAFE 0x2

struct trace2_target {
	int abi_version;      /* TRACE2_TARGET_ABI_VERSION */
	const char *name;     /* [a-z][a-z0-9]*, at most 31 characters */
	/*
	 * NULL: the target is on from trace2_initialize() on, without a
	 * destination, and turns tracing on by itself (an in-memory
	 * statistics target, say).  Else the setting's name, same rules as
	 * name: GIT_TRACE2_<SETTING> (upper case), GIT_TRACE2_<SETTING>_BRIEF,
	 * trace2.<setting>Target and trace2.<setting>Brief are read for it,
	 * and the target is on only while its destination is.
	 */
	const char *setting;
	unsigned flags;       /* TRACE2_TARGET_* */
	/* Once, at trace2_initialize(); 0 turns the target on, anything else
	 * leaves it off.  NULL: always on (only without a setting). */
	int (*open)(void *ctx, const struct trace2_target_config *config);
	/* Every record, while on.  Required. */
	void (*event)(void *ctx, const struct trace2_event *ev);
	/* Write out what the target holds back: before a child is started or
	 * an exec, at trace2_flush(), and at exit.  May be NULL. */
	void (*flush)(void *ctx);
	/* At process exit, after the last record.  May be NULL. */
	void (*shutdown)(void *ctx);
};

/*
 * Add a target; ctx is passed to its callbacks.  Before
 * trace2_initialize() only, from one thread.  Returns 0, or -1 with errno:
 * EBUSY after trace2_initialize(); EINVAL for a NULL target, another ABI
 * version, a NULL event callback (or open, with a setting), a name or
 * setting that breaks the rules above or is taken (by a built-in target,
 * a registered one, or a GIT_TRACE2_* setting); ENOSPC past
 * TRACE2_TARGETS_MAX.  The target struct must stay valid for the life of
 * the process.
 */
int trace2_register_target(const struct trace2_target *target, void *ctx);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* TRACE2_TARGET_H */
