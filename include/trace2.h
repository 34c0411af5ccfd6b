/*
 * libtrace2 -- a drop-in, MIT-licensed implementation of Git's Trace2 API.
 *
 * Link libtrace2, wrap interesting code in trace2_region_enter()/leave(),
 * and set GIT_TRACE2, GIT_TRACE2_PERF or GIT_TRACE2_EVENT to get the same
 * normal, perf or event (JSON lines) output Git itself writes.
 *
 * Every trace2_xxx() macro is gated by an inline test of one global word:
 * while tracing is off a call costs one load and one untaken branch, and
 * the macro's arguments are NOT evaluated (trace2_cmd_exit() is the one
 * exception: its code is evaluated exactly once, always).  The *_fl
 * functions behind the macros can be called directly; they check the
 * same flag and do nothing while tracing is off.
 *
 * Thread rules: every function may be called from any thread.  A thread
 * should call trace2_thread_start() first and trace2_thread_exit() last.
 *
 * See docs/api.md for the full reference.
 */
#ifndef TRACE2_H
#define TRACE2_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the library's exported interface; the
 * library itself is built with -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif

#define TRACE2_VERSION_MAJOR 0
#define TRACE2_VERSION_MINOR 1
#define TRACE2_VERSION_PATCH 0
#define TRACE2_VERSION_STRING "0.1.0"
#define TRACE2_VERSION_NUMBER \
	(TRACE2_VERSION_MAJOR * 10000 + TRACE2_VERSION_MINOR * 100 + \
	 TRACE2_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
#if defined(__MINGW32__) && !defined(__clang__)
/* the library formats with mingw-w64's C99 printf, not msvcrt's */
#define TRACE2_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define TRACE2_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
#define TRACE2_LIKELY_OFF(x) __builtin_expect(!!(x), 0)
#define TRACE2_LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#else
#define TRACE2_PRINTF(f, a)
#define TRACE2_LIKELY_OFF(x) (x)
#define TRACE2_LOAD_RELAXED(p) (*(volatile const unsigned int *)(p))
#endif

/* The library's data that the header's macros read.  A program that
 * links libtrace2.dll with an MSVC linker (link.exe, lld-link) defines
 * TRACE2_DLL so that the data is imported (CMake's trace2::trace2_shared
 * does so on Windows); mingw-w64's linker and ELF need nothing. */
#if defined(_WIN32) && defined(TRACE2_DLL)
#define TRACE2_DATA extern __declspec(dllimport)
#else
#define TRACE2_DATA extern
#endif

/* ------------------------------------------------------------------ */
/* Names: trace2_ and TRACE2_ ones, and Git's (the compatibility layer). */
/* ------------------------------------------------------------------ */

/*
 * Every type, constant and function of this header has a trace2_ or
 * TRACE2_ name.  Git's names are a compatibility layer on top, on by
 * default so that Git-style code compiles unchanged; define
 * TRACE2_NO_GIT_NAMES before including trace2.h to get only the prefixed
 * names (a program with its own struct strbuf or jw_object_begin()).
 *
 * How: in the default mode the types' tags are Git's (struct strbuf,
 * enum config_scope) and the prefixed tags below are macros that expand
 * to them.  Only our own prefixed words are macros, so a host identifier
 * that happens to be "repository" or "strbuf" (a variable, a C++ member
 * function) is never rewritten; a "#define strbuf trace2_strbuf" would
 * rewrite every one of them.  With TRACE2_NO_GIT_NAMES the tags are the
 * prefixed names.  Tags play no part in C linkage, so both modes use the
 * same library.  (A C++ function of your own that takes one of these
 * types is mangled with the tag: declare and define it in translation
 * units of the same mode.)  Git's constants, initializers and jw_*
 * functions are macros for the prefixed ones; the library exports only
 * trace2_* names.
 */
#ifndef TRACE2_NO_GIT_NAMES
#define trace2_strbuf strbuf
#define trace2_strvec strvec
#define trace2_child_process child_process
#define trace2_repository repository
#define trace2_key_value_info key_value_info
#define trace2_json_writer json_writer
#define trace2_config_scope config_scope
#define trace2_config_origin_type config_origin_type
#define STRVEC_INIT TRACE2_STRVEC_INIT
#define CHILD_PROCESS_INIT TRACE2_CHILD_PROCESS_INIT
#define KVI_INIT TRACE2_KVI_INIT
#define JSON_WRITER_INIT TRACE2_JSON_WRITER_INIT
#define CONFIG_SCOPE_UNKNOWN TRACE2_CONFIG_SCOPE_UNKNOWN
#define CONFIG_SCOPE_SYSTEM TRACE2_CONFIG_SCOPE_SYSTEM
#define CONFIG_SCOPE_GLOBAL TRACE2_CONFIG_SCOPE_GLOBAL
#define CONFIG_SCOPE_LOCAL TRACE2_CONFIG_SCOPE_LOCAL
#define CONFIG_SCOPE_WORKTREE TRACE2_CONFIG_SCOPE_WORKTREE
#define CONFIG_SCOPE_COMMAND TRACE2_CONFIG_SCOPE_COMMAND
#define CONFIG_SCOPE_SUBMODULE TRACE2_CONFIG_SCOPE_SUBMODULE
#define CONFIG_ORIGIN_UNKNOWN TRACE2_CONFIG_ORIGIN_UNKNOWN
#define CONFIG_ORIGIN_BLOB TRACE2_CONFIG_ORIGIN_BLOB
#define CONFIG_ORIGIN_FILE TRACE2_CONFIG_ORIGIN_FILE
#define CONFIG_ORIGIN_STDIN TRACE2_CONFIG_ORIGIN_STDIN
#define CONFIG_ORIGIN_SUBMODULE_BLOB TRACE2_CONFIG_ORIGIN_SUBMODULE_BLOB
#define CONFIG_ORIGIN_CMDLINE TRACE2_CONFIG_ORIGIN_CMDLINE
#define jw_init trace2_jw_init
#define jw_release trace2_jw_release
#define jw_object_begin trace2_jw_object_begin
#define jw_array_begin trace2_jw_array_begin
#define jw_object_string trace2_jw_object_string
#define jw_object_intmax trace2_jw_object_intmax
#define jw_object_double trace2_jw_object_double
#define jw_object_true trace2_jw_object_true
#define jw_object_false trace2_jw_object_false
#define jw_object_bool trace2_jw_object_bool
#define jw_object_null trace2_jw_object_null
#define jw_object_sub_jw trace2_jw_object_sub_jw
#define jw_object_inline_begin_object trace2_jw_object_inline_begin_object
#define jw_object_inline_begin_array trace2_jw_object_inline_begin_array
#define jw_array_string trace2_jw_array_string
#define jw_array_intmax trace2_jw_array_intmax
#define jw_array_double trace2_jw_array_double
#define jw_array_true trace2_jw_array_true
#define jw_array_false trace2_jw_array_false
#define jw_array_bool trace2_jw_array_bool
#define jw_array_null trace2_jw_array_null
#define jw_array_sub_jw trace2_jw_array_sub_jw
#define jw_array_argc_argv trace2_jw_array_argc_argv
#define jw_array_argv trace2_jw_array_argv
#define jw_array_inline_begin_object trace2_jw_array_inline_begin_object
#define jw_array_inline_begin_array trace2_jw_array_inline_begin_array
#define jw_is_terminated trace2_jw_is_terminated
#define jw_end trace2_jw_end
#endif /* !TRACE2_NO_GIT_NAMES */

/* ------------------------------------------------------------------ */
/* Git's types that the API takes (minimal stand-ins, Git's members).  */
/* The library is built against exactly these layouts.                  */
/* ------------------------------------------------------------------ */

/* A growable string; json_writer holds two of them. */
struct trace2_strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

/* A NULL-terminated string array; v is never NULL (see TRACE2_STRVEC_INIT). */
struct trace2_strvec {
	const char **v;
	size_t nr;
	size_t alloc;
};

/* The shared empty array an initialised strvec points at. */
TRACE2_DATA const char *trace2_empty_strvec[];
#define TRACE2_STRVEC_INIT { trace2_empty_strvec, 0, 0 }

/* A process id: pid_t itself on Linux (glibc and musl), where it is int,
 * without <sys/types.h>, which MSVC lacks; int on Windows too, whose
 * process ids are 32-bit (mingw-w64's own pid_t is 64-bit there). */
typedef int trace2_pid_t;

/* A child process as trace2_child_*() see it. Initialise with
 * TRACE2_CHILD_PROCESS_INIT: args.v must never be NULL. */
struct trace2_child_process {
	struct trace2_strvec args;
	struct trace2_strvec env;
	trace2_pid_t pid;
	int trace2_child_id;
	uint64_t trace2_child_us_start;
	const char *trace2_child_class;
	const char *trace2_hook_name;
	const char *dir;
	unsigned git_cmd : 1;
	unsigned use_shell : 1;
};
/* Every member in order, no designator: C++ before C++20 (MSVC's) has none. */
#define TRACE2_CHILD_PROCESS_INIT \
	{ TRACE2_STRVEC_INIT, TRACE2_STRVEC_INIT, 0, 0, 0, NULL, NULL, NULL, 0, 0 }

/* A repository: trace2 reads worktree (def_repo) and owns trace2_repo_id. */
struct trace2_repository {
	char *worktree;
	int trace2_repo_id;
};

enum trace2_config_scope {
	TRACE2_CONFIG_SCOPE_UNKNOWN = 0,
	TRACE2_CONFIG_SCOPE_SYSTEM,
	TRACE2_CONFIG_SCOPE_GLOBAL,
	TRACE2_CONFIG_SCOPE_LOCAL,
	TRACE2_CONFIG_SCOPE_WORKTREE,
	TRACE2_CONFIG_SCOPE_COMMAND,
	TRACE2_CONFIG_SCOPE_SUBMODULE,
};

enum trace2_config_origin_type {
	TRACE2_CONFIG_ORIGIN_UNKNOWN = 0,
	TRACE2_CONFIG_ORIGIN_BLOB,
	TRACE2_CONFIG_ORIGIN_FILE,
	TRACE2_CONFIG_ORIGIN_STDIN,
	TRACE2_CONFIG_ORIGIN_SUBMODULE_BLOB,
	TRACE2_CONFIG_ORIGIN_CMDLINE,
};

/* Where a config value came from; trace2 reads only scope. */
struct trace2_key_value_info {
	const char *filename;
	int linenr;
	enum trace2_config_origin_type origin_type;
	enum trace2_config_scope scope;
};
#define TRACE2_KVI_INIT { NULL, -1, TRACE2_CONFIG_ORIGIN_UNKNOWN, TRACE2_CONFIG_SCOPE_UNKNOWN }

/* A JSON builder (see the trace2_jw_*() functions below). */
struct trace2_json_writer {
	struct trace2_strbuf json;       /* the JSON text so far */
	struct trace2_strbuf open_stack; /* one '{' or '[' per open container */
	unsigned int need_comma : 1;
	unsigned int pretty : 1;
};
#define TRACE2_JSON_WRITER_INIT { { 0, 0, NULL }, { 0, 0, NULL }, 0, 0 }

enum trace2_timer_id {
	TRACE2_TIMER_ID_TEST1 = 0, /* "test"/"test1", totals only */
	TRACE2_TIMER_ID_TEST2,     /* "test"/"test2", per thread and totals */
	TRACE2_NUMBER_OF_TIMERS,
	/* trace2_timer_define()'s ids follow; these two make the type hold
	 * any of them and its negative error value, in C++ too. */
	TRACE2_TIMER_ID_ERROR = -1,
	TRACE2_TIMER_ID_LIMIT = 0x7fffffff
};

enum trace2_counter_id {
	TRACE2_COUNTER_ID_TEST1 = 0,            /* "test"/"test1" */
	TRACE2_COUNTER_ID_TEST2,                /* "test"/"test2", per thread */
	TRACE2_COUNTER_ID_PACKED_REFS_JUMPS,    /* "packed-refs"/"jumps_made" */
	TRACE2_COUNTER_ID_REFTABLE_RESEEKS,     /* "reftable"/"reseeks_made" */
	TRACE2_COUNTER_ID_FSYNC_WRITEOUT_ONLY,  /* "fsync"/"writeout-only" */
	TRACE2_COUNTER_ID_FSYNC_HARDWARE_FLUSH, /* "fsync"/"hardware-flush" */
	TRACE2_NUMBER_OF_COUNTERS,
	/* trace2_counter_define()'s ids follow (see trace2_timer_id). */
	TRACE2_COUNTER_ID_ERROR = -1,
	TRACE2_COUNTER_ID_LIMIT = 0x7fffffff
};

enum trace2_process_info_reason {
	TRACE2_PROCESS_INFO_STARTUP,
	TRACE2_PROCESS_INFO_EXIT,
};

/* ------------------------------------------------------------------ */
/* The enabled test.                                                    */
/* ------------------------------------------------------------------ */

/*
 * Non-zero while any listener (the normal, perf or event target, or a
 * future one) wants events.  Internal: read it only through
 * TRACE2_ACTIVE(); use trace2_is_enabled() in application code.
 */
TRACE2_DATA unsigned int trace2_listener_mask;
#define TRACE2_ACTIVE() TRACE2_LIKELY_OFF(TRACE2_LOAD_RELAXED(&trace2_listener_mask))

/* ------------------------------------------------------------------ */
/* Compiled out: with -DTRACE2_DISABLE every function below is a static  */
/* inline no-op (trace2/disable.h) and the program needs no library.    */
/* ------------------------------------------------------------------ */
#ifdef TRACE2_DISABLE
#include "trace2/disable.h"
#endif

/* ------------------------------------------------------------------ */
/* Library identity and host settings (call before trace2_initialize). */
/* ------------------------------------------------------------------ */

/* The library version, TRACE2_VERSION_STRING of the built library. */
const char *trace2_version(void);

/*
 * Set the version text printed by the "version" event ("exe" in the event
 * target).  Default: the library version.  The string is copied.  Call it
 * before trace2_initialize().
 */
void trace2_set_version_string(const char *version);

/*
 * Handler for library-internal errors that Git reports with BUG() (a
 * region_leave with no open region, an invalid timer or counter id).
 * The default prints "BUG: <file>:<line>: <message>" to stderr, emits an
 * "error" event and returns; the offending call then does nothing and the
 * host keeps running.  A handler replaces the default entirely and may
 * end the process (Git's test helper exits 99).  NULL restores the
 * default.  Any thread; call before trace2_initialize().
 */
/*
 * Where Git ends the process because of a bad setting (an unparsable
 * GIT_TRACE2_REDACT, a malformed config file), libtrace2 prints Git's
 * "fatal: ..." line, emits Git's "error" event and carries on, ignoring
 * the setting.  A non-zero code makes it exit with that code instead
 * (Git uses 128).  Call before trace2_initialize().
 */
void trace2_set_fatal_exit_code(int code);

typedef void trace2_bug_handler_fn(const char *file, int line,
				   const char *fmt, va_list ap);
void trace2_set_bug_handler(trace2_bug_handler_fn *fn);

/*
 * Configuration for trace2_cmd_list_config().  The library itself reads
 * the system and global gitconfig files and the command-line settings of
 * the environment (GIT_CONFIG_COUNT/KEY_n/VALUE_n, GIT_CONFIG_PARAMETERS).
 * A host that has more configuration (a repository's config file, say)
 * installs a hook; it is called after the global files and before the
 * command-line settings, and reports each entry through entry(), with a
 * key normalised as Git does ("section.Subsection.name") and NULL for a
 * valueless entry.  Call trace2_set_config_hook() before trace2_cmd_name().
 */
typedef void trace2_config_entry_fn(const char *key, const char *value,
				    enum trace2_config_scope scope, void *ctx);
typedef void trace2_config_hook_fn(trace2_config_entry_fn *entry, void *ctx);
void trace2_set_config_hook(trace2_config_hook_fn *hook);
/* Parse one gitconfig file (with its includes) and report every entry;
 * 0 on success, -1 if it is missing, unreadable or malformed, or a FIFO
 * or socket that did not end within GIT_TRACE2_DST_TIMEOUT (the entries
 * before the stall were reported; after the first such file, with its
 * warning, later ones are skipped at once). */
int trace2_config_read_file(const char *path, enum trace2_config_scope scope,
			    trace2_config_entry_fn *entry, void *ctx);

/* ---- Embedding: configuration and long-running hosts (beyond Git) ---- */

/*
 * Set a trace2.* setting from the program, before trace2_initialize():
 * any key a config file may hold ("trace2.perfTarget",
 * "trace2.eventNesting", a registered target's "trace2.<setting>Target";
 * key in any case), value read as the config file's would be.  The value
 * wins over the environment, which wins over the config files; a later
 * call for the same key replaces it.  Returns 0, or -1 with errno EINVAL
 * (unknown key, NULL or unreadable value), EBUSY (trace2_initialize()
 * was called) or ENOMEM.  Register a target before setting its keys.
 * Not thread-safe: call it from one thread during start-up.
 */
int trace2_config_set(const char *key, const char *value);

/*
 * Read and write "<prefix>_TRACE2..." instead of every "GIT_TRACE2..."
 * environment variable (targets, brief, nesting, parent SID and name,
 * buffer, maxFiles, maxFileSize, dst debug, configParams, envVars, every
 * other setting, registered targets' settings), so a user's Git settings
 * do not switch this program's tracing on.  The parent SID is exported
 * as GIT_TRACE2_PARENT_SID too, so git children join the process tree.
 * With a prefix other than "GIT", no git config file is read, only the
 * files of trace2_set_config_files().  prefix: 1 to 31 letters, digits
 * or '_' (anything else is ignored); NULL means "GIT".  Call before
 * trace2_initialize() (ignored after), from one thread.
 */
void trace2_set_env_prefix(const char *prefix);

/*
 * Read the trace2.* settings (and trace2_cmd_list_config()'s entries)
 * from these files, in gitconfig syntax, instead of Git's system and
 * global files: system_path first (scope system), then global_path
 * (scope global); NULL means no file.  The paths are copied.  Call
 * before trace2_initialize() (ignored after), from one thread.
 */
void trace2_set_config_files(const char *system_path, const char *global_path);

/*
 * Write out the records buffered mode holds (every thread's) and what
 * targets hold back (their flush()), now.  Any thread; does nothing
 * while tracing is off.  Not from a signal handler.
 */
void trace2_flush(void);

/*
 * For log rotation: close every file destination that trace2 opened by
 * its name (a target file, or a process's own file in a directory) and
 * open the name again, creating it if it was renamed away; the next
 * records go to the new file, none lost or written twice.  Records still
 * in buffered mode's buffers go to the new file when written: call
 * trace2_flush() first to have them in the old one.  Streams, sockets,
 * inherited fds and the maxFiles sentinel are left as they are.  A new,
 * empty file starts with the target's head (the chrome target's "[").
 * Async-signal-safe (open, write, fstat, fcntl, dup3, close and atomics),
 * so a SIGHUP handler may call it; any thread.
 */
void trace2_reopen(void);

/* ------------------------------------------------------------------ */
/* Process life-cycle.                                                  */
/* ------------------------------------------------------------------ */

/*
 * Capture the process start time (t_abs 0).  First statement of main();
 * works whether or not tracing is ever enabled; later calls do nothing.
 */
void trace2_initialize_clock(void);

/*
 * Read the GIT_TRACE2* settings, open the destinations and, if any target
 * is usable, enable tracing: compute the session id, register the atexit
 * handler and emit "version".  Call once from the main thread, early.
 */
void trace2_initialize_fl(const char *file, int line);
#define trace2_initialize() trace2_initialize_fl(__FILE__, __LINE__)

/* 1 while tracing is enabled, else 0. */
int trace2_is_enabled(void);

/* Emit "start" with the command line (URL passwords redacted). */
void trace2_cmd_start_fl(const char *file, int line, const char **argv);
#define trace2_cmd_start(argv) \
	(TRACE2_ACTIVE() ? trace2_cmd_start_fl(__FILE__, __LINE__, (argv)) : (void)0)

/*
 * Emit "exit" and remember code for the final "atexit" event.  Does not
 * end the process.  Returns code, so "return trace2_cmd_exit(rc);" works.
 */
int trace2_cmd_exit_fl(const char *file, int line, int code);
static inline int trace2_cmd_exit_gated(const char *file, int line, int code)
{
	return TRACE2_ACTIVE() ? trace2_cmd_exit_fl(file, line, code) : code;
}
#define trace2_cmd_exit(code) trace2_cmd_exit_gated(__FILE__, __LINE__, (code))

/* Emit "error" with the expanded message (and, in the event target, fmt). */
void trace2_cmd_error_va_fl(const char *file, int line, const char *fmt,
			    va_list ap);
#define trace2_cmd_error_va(fmt, ap) \
	(TRACE2_ACTIVE() ? trace2_cmd_error_va_fl(__FILE__, __LINE__, (fmt), ap) : (void)0)
/* Variadic convenience form of trace2_cmd_error_va() (not in Git). */
void trace2_cmd_error_fl(const char *file, int line, const char *fmt, ...)
	TRACE2_PRINTF(3, 4);
#define trace2_cmd_error(...) \
	(TRACE2_ACTIVE() ? trace2_cmd_error_fl(__FILE__, __LINE__, __VA_ARGS__) : (void)0)

/* Emit "cmd_path" with the full path of the running executable. */
void trace2_cmd_path_fl(const char *file, int line, const char *pathname);
#define trace2_cmd_path(p) \
	(TRACE2_ACTIVE() ? trace2_cmd_path_fl(__FILE__, __LINE__, (p)) : (void)0)

/* Emit "cmd_ancestry" with the parent process names, nearest first. */
void trace2_cmd_ancestry_fl(const char *file, int line, const char **parent_names);
#define trace2_cmd_ancestry(v) \
	(TRACE2_ACTIVE() ? trace2_cmd_ancestry_fl(__FILE__, __LINE__, (v)) : (void)0)

/*
 * Emit "cmd_name" with name and the hierarchy (GIT_TRACE2_PARENT_NAME +
 * "/" + name, exported for children), then list the configured config
 * and environment parameters once per process.
 */
void trace2_cmd_name_fl(const char *file, int line, const char *name);
#define trace2_cmd_name(v) \
	(TRACE2_ACTIVE() ? trace2_cmd_name_fl(__FILE__, __LINE__, (v)) : (void)0)

/* Emit "cmd_mode", a sub-mode of the command (e.g. "branch"). */
void trace2_cmd_mode_fl(const char *file, int line, const char *mode);
#define trace2_cmd_mode(sv) \
	(TRACE2_ACTIVE() ? trace2_cmd_mode_fl(__FILE__, __LINE__, (sv)) : (void)0)

/* Emit "alias" with the alias name and its expansion. */
void trace2_cmd_alias_fl(const char *file, int line, const char *alias,
			 const char **argv);
#define trace2_cmd_alias(alias, argv) \
	(TRACE2_ACTIVE() ? trace2_cmd_alias_fl(__FILE__, __LINE__, (alias), (argv)) : (void)0)

/* Emit one "def_param" per config entry matching trace2.configParams
 * (first call in the process only). */
void trace2_cmd_list_config_fl(const char *file, int line);
#define trace2_cmd_list_config() \
	(TRACE2_ACTIVE() ? trace2_cmd_list_config_fl(__FILE__, __LINE__) : (void)0)

/* Emit one "def_param" per variable of trace2.envVars that is set
 * (first call in the process only). */
void trace2_cmd_list_env_vars_fl(const char *file, int line);
#define trace2_cmd_list_env_vars() \
	(TRACE2_ACTIVE() ? trace2_cmd_list_env_vars_fl(__FILE__, __LINE__) : (void)0)

/* Emit "def_param" (scope unknown) if key matches trace2.configParams. */
void trace2_cmd_set_config_fl(const char *file, int line, const char *key,
			      const char *value);
#define trace2_cmd_set_config(k, v) \
	(TRACE2_ACTIVE() ? trace2_cmd_set_config_fl(__FILE__, __LINE__, (k), (v)) : (void)0)

/* Emit "def_param" with the scope of kvi (NULL kvi: scope unknown). */
void trace2_def_param_fl(const char *file, int line, const char *param,
			 const char *value, const struct trace2_key_value_info *kvi);
#define trace2_def_param(param, value, kvi) \
	(TRACE2_ACTIVE() ? trace2_def_param_fl(__FILE__, __LINE__, (param), (value), (kvi)) : (void)0)

/* Give repo the next repository id and emit "def_repo" (once per repo). */
void trace2_def_repo_fl(const char *file, int line, struct trace2_repository *repo);
#define trace2_def_repo(repo) \
	(TRACE2_ACTIVE() ? trace2_def_repo_fl(__FILE__, __LINE__, (repo)) : (void)0)

/*
 * Emit what the platform knows of the process, as Git does: at STARTUP
 * the parent processes' names ("cmd_ancestry"; on Windows also the
 * debugger and "windows/ancestry"), at EXIT Windows' "windows/memory"
 * (nothing on Linux).  Git's main() calls it after cmd_start.
 */
void trace2_collect_process_info(enum trace2_process_info_reason reason);

/*
 * The session id of this process ("<parent sid>/<own>").  Computed on
 * first use, even while tracing is off, and exported to children as
 * GIT_TRACE2_PARENT_SID.
 */
const char *trace2_session_id(void);

/* ------------------------------------------------------------------ */
/* Child processes and exec.                                            */
/* ------------------------------------------------------------------ */

/* Assign cmd its child id and start time; emit "child_start".  Call
 * before spawning. */
void trace2_child_start_fl(const char *file, int line, struct trace2_child_process *cmd);
#define trace2_child_start(cmd) \
	(TRACE2_ACTIVE() ? trace2_child_start_fl(__FILE__, __LINE__, (cmd)) : (void)0)

/* Emit "child_exit" with the child's pid, exit code and run time. */
void trace2_child_exit_fl(const char *file, int line, struct trace2_child_process *cmd,
			  int child_exit_code);
#define trace2_child_exit(cmd, code) \
	(TRACE2_ACTIVE() ? trace2_child_exit_fl(__FILE__, __LINE__, (cmd), (code)) : (void)0)

/* Emit "child_ready" ("ready", "timeout", "error") for a background child. */
void trace2_child_ready_fl(const char *file, int line, struct trace2_child_process *cmd,
			   const char *ready);
#define trace2_child_ready(cmd, ready) \
	(TRACE2_ACTIVE() ? trace2_child_ready_fl(__FILE__, __LINE__, (cmd), (ready)) : (void)0)

/* Emit "exec" before an exec(); returns its exec id, or -1 while off. */
int trace2_exec_fl(const char *file, int line, const char *exe, const char **argv);
#define trace2_exec(exe, argv) \
	(TRACE2_ACTIVE() ? trace2_exec_fl(__FILE__, __LINE__, (exe), (argv)) : -1)

/* Emit "exec_result" when an exec() failed (code = errno). */
void trace2_exec_result_fl(const char *file, int line, int exec_id, int code);
#define trace2_exec_result(id, code) \
	(TRACE2_ACTIVE() ? trace2_exec_result_fl(__FILE__, __LINE__, (id), (code)) : (void)0)

/* ------------------------------------------------------------------ */
/* Threads.                                                             */
/* ------------------------------------------------------------------ */

/*
 * First call of a new thread: names it "thNN:<base>" and emits
 * "thread_start".  On the main thread it opens the region
 * "thread-proc on main: <base>" instead.
 */
void trace2_thread_start_fl(const char *file, int line, const char *thread_base_name);
#define trace2_thread_start(name) \
	(TRACE2_ACTIVE() ? trace2_thread_start_fl(__FILE__, __LINE__, (name)) : (void)0)

/*
 * Last call of a thread: emits its th_timer/th_counter records and
 * "thread_exit", adds its timers and counters to the process totals and
 * frees its context.  On the main thread it closes the region instead.
 */
void trace2_thread_exit_fl(const char *file, int line);
#define trace2_thread_exit() \
	(TRACE2_ACTIVE() ? trace2_thread_exit_fl(__FILE__, __LINE__) : (void)0)

/* ------------------------------------------------------------------ */
/* Regions: nested, timed intervals of the calling thread.              */
/* ------------------------------------------------------------------ */

/* Emit "region_enter" and push a region on this thread's stack. Any
 * argument may be NULL; the trailing arguments are ignored. */
void trace2_region_enter_fl(const char *file, int line, const char *category,
			    const char *label, const struct trace2_repository *repo, ...);
void trace2_region_enter_printf_va_fl(const char *file, int line,
				      const char *category, const char *label,
				      const struct trace2_repository *repo,
				      const char *fmt, va_list ap);
void trace2_region_enter_printf_fl(const char *file, int line, const char *category,
				   const char *label, const struct trace2_repository *repo,
				   const char *fmt, ...) TRACE2_PRINTF(6, 7);
#define trace2_region_enter(category, label, repo) \
	(TRACE2_ACTIVE() ? trace2_region_enter_fl(__FILE__, __LINE__, (category), (label), (repo)) : (void)0)
#define trace2_region_enter_printf_va(category, label, repo, fmt, ap) \
	(TRACE2_ACTIVE() ? trace2_region_enter_printf_va_fl(__FILE__, __LINE__, (category), (label), (repo), (fmt), ap) : (void)0)
#define trace2_region_enter_printf(category, label, repo, ...) \
	(TRACE2_ACTIVE() ? trace2_region_enter_printf_fl(__FILE__, __LINE__, (category), (label), (repo), __VA_ARGS__) : (void)0)

/* Pop this thread's innermost region and emit "region_leave" with its
 * elapsed time. */
void trace2_region_leave_fl(const char *file, int line, const char *category,
			    const char *label, const struct trace2_repository *repo, ...);
void trace2_region_leave_printf_va_fl(const char *file, int line,
				      const char *category, const char *label,
				      const struct trace2_repository *repo,
				      const char *fmt, va_list ap);
void trace2_region_leave_printf_fl(const char *file, int line, const char *category,
				   const char *label, const struct trace2_repository *repo,
				   const char *fmt, ...) TRACE2_PRINTF(6, 7);
#define trace2_region_leave(category, label, repo) \
	(TRACE2_ACTIVE() ? trace2_region_leave_fl(__FILE__, __LINE__, (category), (label), (repo)) : (void)0)
#define trace2_region_leave_printf_va(category, label, repo, fmt, ap) \
	(TRACE2_ACTIVE() ? trace2_region_leave_printf_va_fl(__FILE__, __LINE__, (category), (label), (repo), (fmt), ap) : (void)0)
#define trace2_region_leave_printf(category, label, repo, ...) \
	(TRACE2_ACTIVE() ? trace2_region_leave_printf_fl(__FILE__, __LINE__, (category), (label), (repo), __VA_ARGS__) : (void)0)

/* ------------------------------------------------------------------ */
/* Data and messages.                                                   */
/* ------------------------------------------------------------------ */

/* Emit "data" with a string value (repo may be NULL). */
void trace2_data_string_fl(const char *file, int line, const char *category,
			   const struct trace2_repository *repo, const char *key,
			   const char *value);
#define trace2_data_string(category, repo, key, value) \
	(TRACE2_ACTIVE() ? trace2_data_string_fl(__FILE__, __LINE__, (category), (repo), (key), (value)) : (void)0)

/* Emit "data" with an integer value (printed as a decimal string). */
void trace2_data_intmax_fl(const char *file, int line, const char *category,
			   const struct trace2_repository *repo, const char *key,
			   intmax_t value);
#define trace2_data_intmax(category, repo, key, value) \
	(TRACE2_ACTIVE() ? trace2_data_intmax_fl(__FILE__, __LINE__, (category), (repo), (key), (value)) : (void)0)

/* Emit "data_json" with a finished json_writer as the value. */
void trace2_data_json_fl(const char *file, int line, const char *category,
			 const struct trace2_repository *repo, const char *key,
			 const struct trace2_json_writer *jw);
#define trace2_data_json(category, repo, key, value) \
	(TRACE2_ACTIVE() ? trace2_data_json_fl(__FILE__, __LINE__, (category), (repo), (key), (value)) : (void)0)

/* Emit "printf" with a free-form message. */
void trace2_printf_va_fl(const char *file, int line, const char *fmt, va_list ap);
void trace2_printf_fl(const char *file, int line, const char *fmt, ...)
	TRACE2_PRINTF(3, 4);
#define trace2_printf_va(fmt, ap) \
	(TRACE2_ACTIVE() ? trace2_printf_va_fl(__FILE__, __LINE__, (fmt), ap) : (void)0)
#define trace2_printf(...) \
	(TRACE2_ACTIVE() ? trace2_printf_fl(__FILE__, __LINE__, __VA_ARGS__) : (void)0)

/* ------------------------------------------------------------------ */
/* Category filters (a libtrace2 extra; docs/embedding.md).             */
/* ------------------------------------------------------------------ */

/*
 * 1 if tracing is on and events of this category (NULL counts as "") are
 * written: the patterns of GIT_TRACE2_CATEGORIES / trace2.categories let
 * it pass (any category does when none is set); 0 otherwise.  Use it to
 * skip building an expensive payload for a region, data, timer or counter
 * that would not be written.  Any thread, any time; a few nanoseconds
 * for a category string seen before; never allocates.
 */
int trace2_category_enabled(const char *category);

/* ------------------------------------------------------------------ */
/* Stopwatch timers and counters (reported at thread and process exit). */
/* ------------------------------------------------------------------ */

/* Start the calling thread's stopwatch tid (nested starts are counted). */
void trace2_timer_start(enum trace2_timer_id tid);
/* Stop it; the outermost stop completes one interval. */
void trace2_timer_stop(enum trace2_timer_id tid);
/* Add value to the calling thread's counter cid. */
void trace2_counter_add(enum trace2_counter_id cid, uint64_t value);
#define trace2_timer_start(tid) \
	(TRACE2_ACTIVE() ? (trace2_timer_start)(tid) : (void)0)
#define trace2_timer_stop(tid) \
	(TRACE2_ACTIVE() ? (trace2_timer_stop)(tid) : (void)0)
#define trace2_counter_add(cid, value) \
	(TRACE2_ACTIVE() ? (trace2_counter_add)((cid), (value)) : (void)0)

/* ------------------------------------------------------------------ */
/* Own timers and counters (not in Git).                                */
/* ------------------------------------------------------------------ */

/*
 * A timer or counter of your own, for trace2_timer_start()/stop() or
 * trace2_counter_add(), reported exactly like the built-in ones on every
 * target: "timer"/"counter" at exit under category and name (copied),
 * and with per_thread_events also "th_timer"/"th_counter" when a thread
 * exits.  At least 256 of each.  Defining the same category and name
 * again returns the same id.  Returns a negative id on error, with errno
 * EINVAL (a NULL string, or the name defined before with another
 * per_thread_events), ENOSPC (too many) or ENOMEM.  Any thread, before or
 * after trace2_initialize(); tracing need not be on.
 */
enum trace2_timer_id trace2_timer_define(const char *category, const char *name,
					 int per_thread_events);
enum trace2_counter_id trace2_counter_define(const char *category, const char *name,
					     int per_thread_events);

/* ------------------------------------------------------------------ */
/* Scoped regions (not in Git).                                         */
/* ------------------------------------------------------------------ */

/*
 * TRACE2_REGION(category, label, repo);
 * TRACE2_REGION_PRINTF(category, label, repo, fmt, ...);
 *
 * A declaration: enter the region here (as trace2_region_enter() or
 * trace2_region_enter_printf() would) and leave it when the enclosing
 * block is left, however that happens: its end, return, break, continue
 * or goto (and, in C++, an exception).  The leave names the same
 * category, label and repo, without a message, and the location of the
 * declaration.  A region entered while tracing was off is not left.  The
 * category, label and repo are evaluated once, on or off, and must stay
 * valid until the block ends; the message's arguments are evaluated only
 * while tracing is on (in C++: always, as for any call).  Two statements
 * in C: write it where a declaration may go, not as the body of an if.
 *
 * C needs GCC's or Clang's cleanup attribute; elsewhere (C only, MSVC's
 * cl among them) the two macros trace nothing (the category, label and
 * repo are still evaluated once), TRACE2_HAVE_SCOPED_REGIONS is 0, and
 * the program pairs trace2_region_enter()/leave() by hand.  C++ uses trace2::region
 * (below), the same in every compiler.
 */
#if defined(__cplusplus) || defined(__GNUC__) || defined(__clang__)
#define TRACE2_HAVE_SCOPED_REGIONS 1
#else
#define TRACE2_HAVE_SCOPED_REGIONS 0
#endif

#define TRACE2_CONCAT_(a, b) a##b
#define TRACE2_CONCAT(a, b) TRACE2_CONCAT_(a, b)
#ifdef __COUNTER__
#define TRACE2_SCOPE_NAME TRACE2_CONCAT(trace2_scope_, __COUNTER__)
#else
#define TRACE2_SCOPE_NAME TRACE2_CONCAT(trace2_scope_, __LINE__)
#endif

#if !defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
/* What a scoped region's leave needs (internal). */
struct trace2_region_scope {
	const char *file;
	int line;
	int entered;
	const char *category;
	const char *label;
	const struct trace2_repository *repo;
};

static inline void trace2_region_scope_leave(struct trace2_region_scope *s)
{
	if (s->entered)
		trace2_region_leave_fl(s->file, s->line, s->category, s->label, s->repo);
}

/* A declaration and, while tracing is on, the enter; the category, label
 * and repo are evaluated once, the message's arguments only while on. */
#define TRACE2_REGION_SCOPE_(name, cat_, label_, repo_) \
	__attribute__((cleanup(trace2_region_scope_leave))) \
	struct trace2_region_scope name = { __FILE__, __LINE__, 0, (cat_), (label_), (repo_) }
#define TRACE2_REGION_(name, cat_, label_, repo_) \
	TRACE2_REGION_SCOPE_(name, cat_, label_, repo_); \
	(void)(TRACE2_ACTIVE() && \
	       ((name).entered = 1, \
		trace2_region_enter_fl((name).file, (name).line, (name).category, \
				       (name).label, (name).repo), 1))
#define TRACE2_REGION_PRINTF_(name, cat_, label_, repo_, ...) \
	TRACE2_REGION_SCOPE_(name, cat_, label_, repo_); \
	(void)(TRACE2_ACTIVE() && \
	       ((name).entered = 1, \
		trace2_region_enter_printf_fl((name).file, (name).line, (name).category, \
					      (name).label, (name).repo, __VA_ARGS__), 1))
#define TRACE2_REGION(category, label, repo) \
	TRACE2_REGION_(TRACE2_SCOPE_NAME, category, label, repo)
#define TRACE2_REGION_PRINTF(category, label, repo, ...) \
	TRACE2_REGION_PRINTF_(TRACE2_SCOPE_NAME, category, label, repo, __VA_ARGS__)
#elif !defined(__cplusplus)
/* No cleanup attribute (MSVC's cl): an expression that traces nothing but
 * evaluates the category, label and repo once as the real one does, and
 * names the message without evaluating it, so that a variable used only
 * there is still used (no unused-variable warning under /W4 /WX). */
#define TRACE2_REGION(category, label, repo) \
	((void)(category), (void)(label), (void)(repo))
#define TRACE2_REGION_PRINTF(category, label, repo, ...) \
	(TRACE2_REGION(category, label, repo), \
	 (void)(0 && (trace2_region_enter_printf_fl(__FILE__, __LINE__, NULL, NULL, NULL, \
						    __VA_ARGS__), 1)))
#endif

/* ------------------------------------------------------------------ */
/* JSON writer (Git's jw_* API as trace2_jw_*), for trace2_data_json(). */
/* ------------------------------------------------------------------ */

void trace2_jw_init(struct trace2_json_writer *jw);
void trace2_jw_release(struct trace2_json_writer *jw);
void trace2_jw_object_begin(struct trace2_json_writer *jw, int pretty);
void trace2_jw_array_begin(struct trace2_json_writer *jw, int pretty);
void trace2_jw_object_string(struct trace2_json_writer *jw, const char *key, const char *value);
void trace2_jw_object_intmax(struct trace2_json_writer *jw, const char *key, intmax_t value);
void trace2_jw_object_double(struct trace2_json_writer *jw, const char *key, int precision,
		      double value);
void trace2_jw_object_true(struct trace2_json_writer *jw, const char *key);
void trace2_jw_object_false(struct trace2_json_writer *jw, const char *key);
void trace2_jw_object_bool(struct trace2_json_writer *jw, const char *key, int value);
void trace2_jw_object_null(struct trace2_json_writer *jw, const char *key);
void trace2_jw_object_sub_jw(struct trace2_json_writer *jw, const char *key,
		      const struct trace2_json_writer *value);
void trace2_jw_object_inline_begin_object(struct trace2_json_writer *jw, const char *key);
void trace2_jw_object_inline_begin_array(struct trace2_json_writer *jw, const char *key);
void trace2_jw_array_string(struct trace2_json_writer *jw, const char *value);
void trace2_jw_array_intmax(struct trace2_json_writer *jw, intmax_t value);
void trace2_jw_array_double(struct trace2_json_writer *jw, int precision, double value);
void trace2_jw_array_true(struct trace2_json_writer *jw);
void trace2_jw_array_false(struct trace2_json_writer *jw);
void trace2_jw_array_bool(struct trace2_json_writer *jw, int value);
void trace2_jw_array_null(struct trace2_json_writer *jw);
void trace2_jw_array_sub_jw(struct trace2_json_writer *jw, const struct trace2_json_writer *value);
void trace2_jw_array_argc_argv(struct trace2_json_writer *jw, int argc, const char **argv);
void trace2_jw_array_argv(struct trace2_json_writer *jw, const char **argv);
void trace2_jw_array_inline_begin_object(struct trace2_json_writer *jw);
void trace2_jw_array_inline_begin_array(struct trace2_json_writer *jw);
int trace2_jw_is_terminated(const struct trace2_json_writer *jw);
void trace2_jw_end(struct trace2_json_writer *jw);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* ------------------------------------------------------------------ */
/* C++: the scoped region as a class (not in Git).                     */
/* ------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#define TRACE2_CALLER_FILE __builtin_FILE()
#define TRACE2_CALLER_LINE __builtin_LINE()
#else
#define TRACE2_CALLER_FILE nullptr
#define TRACE2_CALLER_LINE 0
#endif

namespace trace2 {

/*
 * RAII: the constructor enters the region, the destructor leaves it (as
 * TRACE2_REGION does), so it is left on every way out of the scope,
 * exceptions included.  Neither throws.  Not copyable or movable.
 *
 *   trace2::region r("app", "load", nullptr);
 *   trace2::region r2({__FILE__, __LINE__}, "app", "file", nullptr, "%s", path);
 */
class region {
public:
	struct location {
		const char *file;
		int line;
	};

	region(const char *category, const char *label,
	       const struct trace2_repository *repo = nullptr,
	       const char *file = TRACE2_CALLER_FILE,
	       int line = TRACE2_CALLER_LINE) noexcept
		: at_{ file, line }, category_(category), label_(label), repo_(repo),
		  entered_(TRACE2_ACTIVE())
	{
		if (entered_)
			trace2_region_enter_fl(file, line, category, label, repo);
	}

	/* With a printf-style message on the enter. */
	region(location at, const char *category, const char *label,
	       const struct trace2_repository *repo, const char *fmt, ...) noexcept
		TRACE2_PRINTF(6, 7)
		: at_(at), category_(category), label_(label), repo_(repo),
		  entered_(TRACE2_ACTIVE())
	{
		if (entered_) {
			va_list ap;

			va_start(ap, fmt);
			trace2_region_enter_printf_va_fl(at.file, at.line, category, label,
							 repo, fmt, ap);
			va_end(ap);
		}
	}

	~region()
	{
		if (entered_)
			trace2_region_leave_fl(at_.file, at_.line, category_, label_, repo_);
	}

	region(const region &) = delete;
	region &operator=(const region &) = delete;

private:
	location at_;
	const char *category_;
	const char *label_;
	const struct trace2_repository *repo_;
	bool entered_;
};

} /* namespace trace2 */

#define TRACE2_REGION(category, label, repo) \
	trace2::region TRACE2_SCOPE_NAME((category), (label), (repo), __FILE__, __LINE__)
#define TRACE2_REGION_PRINTF(category, label, repo, ...) \
	trace2::region TRACE2_SCOPE_NAME(trace2::region::location{ __FILE__, __LINE__ }, \
					 (category), (label), (repo), __VA_ARGS__)
#endif /* __cplusplus */

#endif /* TRACE2_H */
