/*
 * The dispatcher: the public trace2_*() entry points.  Each one checks the
 * enabled flag, takes one clock reading, updates the calling thread's
 * state and offers the event to the targets.
 */
#include "tr2_dispatch.h"
#include "tr2_hot.h"
#include "tr2_sys.h"
#include "tr2_bug.h"
#include "tr2_config.h"
#include "tr2_sid.h"
#include "tr2_signal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bit 0: the built-in targets.  Other listeners may use other bits. */
#define TR2_LISTENER_TARGETS 1u

unsigned int trace2_listener_mask;
const char *trace2_empty_strvec[] = { NULL };

const struct tr2_tgt *const tr2_targets[TR2_NTARGETS] = {
	&tr2_tgt_normal, &tr2_tgt_perf, &tr2_tgt_event,
};

static char *version_string;
static trace2_bug_handler_fn *bug_handler;
static int exit_code;
static int fatal_exit_code;
static int atexit_registered;
static int forked_since_initialize;
static int next_child_id, next_exec_id, next_repo_id;

/* Git-compat locations of events Git raises from inside its own code. */
#define LOC_LIST_CONFIG "trace2.c", 439
#define LOC_LIST_ENV "trace2.c", 440
#define LOC_BUG "usage.c", 346
#define LOC_DIE "usage.c", 73
#define LOC_DIE_EXIT "usage.c", 87
#define LOC_WARNING "usage.c", 99
#define LOC_NO_REGION "trace2/tr2_tls.c", 120

const char *trace2_version(void)
{
	return TRACE2_VERSION_STRING;
}

void trace2_set_version_string(const char *version)
{
	char *copy = version ? tr2_strdup(version) : NULL;

	tr2_sys.free(version_string);
	version_string = copy;
}

void trace2_set_bug_handler(trace2_bug_handler_fn *fn)
{
	bug_handler = fn;
}

int trace2_is_enabled(void)
{
	return !!(TRACE2_LOAD_RELAXED(&trace2_listener_mask) & TR2_LISTENER_TARGETS);
}

static void set_enabled(int on)
{
	if (on)
		__atomic_or_fetch(&trace2_listener_mask, TR2_LISTENER_TARGETS, __ATOMIC_RELEASE);
	else
		__atomic_and_fetch(&trace2_listener_mask, ~TR2_LISTENER_TARGETS, __ATOMIC_RELEASE);
}

static TR2_HOT void ev_init(struct tr2_ev *ev, struct tr2_tls *tls, const char *file, int line)
{
	/* before initialize set up thread storage, Git reports t_abs 0 */
	uint64_t start = tr2_tls_main() ? tr2_start_us() : 0;

	ev->tls = tls;
	ev->file = file;
	ev->line = line;
	ev->us_now = tr2_now_us();
	ev->us_abs = start ? ev->us_now - start : 0;
	ev->us_rel = 0;
	ev->has_local_time = 0;
	ev->has_utc_time = 0;
}

TR2_HOT int tr2_ev_begin(struct tr2_ev *ev, const char *file, int line)
{
	struct tr2_tls *tls = tr2_tls_get();

	if (!tls)
		return 0;
	ev_init(ev, tls, file, line);
	return 1;
}

/* From a signal handler: nothing that allocates or takes a lock. */
void tr2_emit_signal(int signo, int fatal)
{
	struct tr2_tls *tls = tr2_tls_current();
	struct tr2_ev ev;

	if (!tls)
		tls = tr2_tls_main();
	if (!tr2_enabled() || !tls)
		return;
	tr2_clock_signal_context(1);
	tr2_dst_signal_context(1);
	tr2_dst_finish_interrupted();
	ev_init(&ev, tls, NULL, 0);
	tr2_dispatch(signal, &ev, signo);
	if (fatal)
		tr2_dst_flush_from_signal();
	tr2_dst_signal_context(0);
	tr2_clock_signal_context(0);
}

/* Expand a caller's message once for all targets (NULL for no fmt). */
static TR2_HOT const char *expand(struct tr2_buf *b, const char *fmt, va_list ap)
{
	tr2_buf_init(b);
	if (!fmt || !*fmt)
		return NULL;
	tr2_buf_vaddf(b, fmt, ap);
	return tr2_buf_cstr(b);
}

/* ---------------------------------------------------------------- */
/* BUG and warnings.                                                  */

static void default_bug(const char *file, int line, const char *fmt, va_list ap)
{
	char prefix[4096];
	va_list again;

	va_copy(again, ap);
	snprintf(prefix, sizeof(prefix), "BUG: %s:%d: ", file, line);
	tr2_vreport(prefix, fmt, ap);
	if (tr2_enabled())
		trace2_cmd_error_va_fl(LOC_BUG, fmt, again);
	va_end(again);
}

void tr2_bug_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (bug_handler)
		bug_handler(file, line, fmt, ap);
	else
		default_bug(file, line, fmt, ap);
	va_end(ap);
}

void trace2_set_fatal_exit_code(int code)
{
	fatal_exit_code = code;
}

void tr2_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tr2_vreport("fatal: ", fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	if (tr2_enabled())
		trace2_cmd_error_va_fl(LOC_DIE, fmt, ap);
	va_end(ap);
	if (fatal_exit_code) {
		trace2_cmd_exit_fl(LOC_DIE_EXIT, fatal_exit_code);
		exit(fatal_exit_code);
	}
}

void tr2_dst_write_failed(const struct tr2_dst *dst, int err)
{
	if (!tr2_dst_debug())
		return;
	tr2_warning("unable to write trace to '%s': %s",
		    tr2_sysenv_env_name(dst->sysenv), strerror(err));
	trace2_cmd_error_fl(LOC_WARNING, "unable to write trace to '%s': %s",
			    tr2_sysenv_env_name(dst->sysenv), strerror(err));
}

/* ---------------------------------------------------------------- */
/* Initialize and the atexit handler.                                 */

static int open_targets(void)
{
	size_t i;
	int usable = 0;

	for (i = 0; i < TR2_NTARGETS; i++) {
		if (tr2_dst_open(tr2_targets[i]->dst)) {
			tr2_targets[i]->init();
			usable++;
		}
	}
	return usable;
}

static void close_targets(void)
{
	size_t i;

	for (i = 0; i < TR2_NTARGETS; i++)
		tr2_dst_close(tr2_targets[i]->dst);
}

static void emit_version(const char *file, int line)
{
	struct tr2_ev ev;
	const char *v = version_string ? version_string : TRACE2_VERSION_STRING;
	size_t i;

	if (!tr2_ev_begin(&ev, file, line))
		return;
	tr2_dispatch(version, &ev, v);
	for (i = 0; i < TR2_NTARGETS; i++) {
		const struct tr2_tgt *t = tr2_targets[i];

		if (t->too_many_files && t->dst->too_many_files && tr2_dst_is_on(t->dst))
			t->too_many_files(&ev);
	}
}

static void release_everything(void)
{
	size_t i;

	close_targets();
	for (i = 0; i < TR2_NTARGETS; i++)
		tr2_dst_forget(tr2_targets[i]->dst);
	tr2_metrics_release();
	tr2_tls_release();
	tr2_sid_release();
	tr2_sysenv_release();
}

/* A forked child has only the thread that forked: locks other threads
 * held at fork time would never be released there. */
static void reset_locks_after_fork(void)
{
	size_t i;

	for (i = 0; i < TR2_NTARGETS; i++)
		tr2_dst_after_fork(tr2_targets[i]->dst);
	tr2_tls_after_fork();
	tr2_clock_after_fork();
	tr2_sid_after_fork();
	tr2_sysenv_after_fork();
	forked_since_initialize = 1;
}

static void tr2_atexit(void)
{
	struct tr2_ev ev;

	if (!tr2_enabled())
		return;
	if (tr2_ev_begin(&ev, NULL, 0)) {
		tr2_tls_unwind(ev.tls);
		tr2_metrics_report_thread(&ev);
		tr2_metrics_merge_thread(ev.tls);
		tr2_metrics_report_totals(&ev);
		tr2_dispatch(atexit, &ev, exit_code);
	}
	tr2_dst_flush_all();
	set_enabled(0);
	release_everything();
}

/*
 * trace2_initialize() in a forked child starts the child's own trace: a
 * new SID (a child of the parent's), its own files and connections, its
 * own ids and exit code.
 */
static void restart_in_forked_child(void)
{
	set_enabled(0);
	release_everything();
	exit_code = 0;
	next_child_id = next_exec_id = next_repo_id = 0;
	tr2_params_reset();
}

void trace2_initialize_fl(const char *file, int line)
{
	if (tr2_enabled()) {
		if (!forked_since_initialize)
			return;
		restart_in_forked_child();
	}
	tr2_config_load_settings();
	if (!open_targets())
		return;
	set_enabled(1);
	forked_since_initialize = 0;
	tr2_redact_init();
	tr2_sid_get();
	if (!atexit_registered) {
		atexit(tr2_atexit);
		pthread_atfork(NULL, NULL, reset_locks_after_fork);
		atexit_registered = 1;
	}
	tr2_dst_buffer_init();
	tr2_signals_install();
	tr2_tls_init();
	emit_version(file, line);
}

/* ---------------------------------------------------------------- */
/* Process events.                                                    */

void trace2_cmd_start_fl(const char *file, int line, const char **argv)
{
	const char **redacted;
	struct tr2_ev ev;

	if (!tr2_enabled() || !tr2_ev_begin(&ev, file, line) ||
	    tr2_redact_argv(argv, &redacted))
		return;
	tr2_dispatch(start, &ev, redacted ? redacted : argv);
	tr2_redact_free_argv(redacted, argv);
}

int trace2_cmd_exit_fl(const char *file, int line, int code)
{
	struct tr2_ev ev;

	if (!tr2_enabled())
		return code;
	trace2_collect_process_info(TRACE2_PROCESS_INFO_EXIT);
	exit_code = code;
	if (tr2_ev_begin(&ev, file, line))
		tr2_dispatch(exit, &ev, code);
	return code;
}

void trace2_cmd_error_va_fl(const char *file, int line, const char *fmt, va_list ap)
{
	struct tr2_ev ev;
	struct tr2_buf msg;
	const char *m;

	if (!tr2_enabled() || !tr2_ev_begin(&ev, file, line))
		return;
	m = expand(&msg, fmt, ap);
	tr2_dispatch(error, &ev, m, m ? fmt : NULL);
	tr2_buf_release(&msg);
}

void trace2_cmd_error_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_cmd_error_va_fl(file, line, fmt, ap);
	va_end(ap);
}

void trace2_cmd_path_fl(const char *file, int line, const char *pathname)
{
	struct tr2_ev ev;

	if (tr2_enabled() && tr2_ev_begin(&ev, file, line))
		tr2_dispatch(cmd_path, &ev, pathname);
}

void trace2_cmd_ancestry_fl(const char *file, int line, const char **parent_names)
{
	struct tr2_ev ev;

	if (tr2_enabled() && tr2_ev_begin(&ev, file, line))
		tr2_dispatch(cmd_ancestry, &ev, parent_names);
}

/* "<GIT_TRACE2_PARENT_NAME>/<name>", exported for children. */
static char *update_hierarchy(const char *name)
{
	const char *parent = tr2_sys.getenv("GIT_TRACE2_PARENT_NAME");
	struct tr2_buf b;
	char *h;

	tr2_buf_init(&b);
	if (parent && *parent) {
		tr2_buf_adds(&b, parent);
		tr2_buf_addc(&b, '/');
	}
	tr2_buf_add_str(&b, name);
	h = b.failed ? NULL : tr2_strdup(tr2_buf_cstr(&b));
	tr2_buf_release(&b);
	if (h)
		tr2_sys.setenv("GIT_TRACE2_PARENT_NAME", h, 1);
	return h;
}

void trace2_cmd_name_fl(const char *file, int line, const char *name)
{
	struct tr2_ev ev;
	char *hierarchy;

	if (!tr2_enabled() || !tr2_ev_begin(&ev, file, line))
		return;
	hierarchy = update_hierarchy(name);
	tr2_dispatch(cmd_name, &ev, name, hierarchy);
	tr2_sys.free(hierarchy);
	trace2_cmd_list_config_fl(LOC_LIST_CONFIG);
	trace2_cmd_list_env_vars_fl(LOC_LIST_ENV);
}

void trace2_cmd_mode_fl(const char *file, int line, const char *mode)
{
	struct tr2_ev ev;

	if (tr2_enabled() && tr2_ev_begin(&ev, file, line))
		tr2_dispatch(cmd_mode, &ev, mode);
}

void trace2_cmd_alias_fl(const char *file, int line, const char *alias,
			 const char **argv)
{
	struct tr2_ev ev;

	if (tr2_enabled() && tr2_ev_begin(&ev, file, line))
		tr2_dispatch(alias, &ev, alias, argv);
}

static const char *scope_name(const struct key_value_info *kvi)
{
	static const char *const names[] = {
		[CONFIG_SCOPE_UNKNOWN] = "unknown",
		[CONFIG_SCOPE_SYSTEM] = "system",
		[CONFIG_SCOPE_GLOBAL] = "global",
		[CONFIG_SCOPE_LOCAL] = "local",
		[CONFIG_SCOPE_WORKTREE] = "worktree",
		[CONFIG_SCOPE_COMMAND] = "command",
		[CONFIG_SCOPE_SUBMODULE] = "submodule",
	};
	unsigned s = kvi ? (unsigned)kvi->scope : 0;

	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

void trace2_def_param_fl(const char *file, int line, const char *param,
			 const char *value, const struct key_value_info *kvi)
{
	struct tr2_ev ev;
	char *redacted;

	if (!tr2_enabled() || !tr2_ev_begin(&ev, file, line) ||
	    tr2_redact_url(value, &redacted))
		return;
	tr2_dispatch(param, &ev, param, redacted ? redacted : value, scope_name(kvi));
	tr2_sys.free(redacted);
}

void trace2_def_repo_fl(const char *file, int line, struct repository *repo)
{
	struct tr2_ev ev;

	if (!tr2_enabled() || !repo || repo->trace2_repo_id)
		return;
	repo->trace2_repo_id = __atomic_add_fetch(&next_repo_id, 1, __ATOMIC_RELAXED);
	if (tr2_ev_begin(&ev, file, line))
		tr2_dispatch(repo, &ev, repo);
}

/* ---------------------------------------------------------------- */
/* Children and exec.                                                  */

void trace2_child_start_fl(const char *file, int line, struct child_process *cmd)
{
	const char **original, **redacted;
	struct tr2_ev ev;

	if (!tr2_enabled() || !tr2_ev_begin(&ev, file, line))
		return;
	cmd->trace2_child_id = __atomic_fetch_add(&next_child_id, 1, __ATOMIC_RELAXED);
	cmd->trace2_child_us_start = ev.us_now;
	original = cmd->args.v;
	if (tr2_redact_argv(original, &redacted))
		return;
	if (redacted)
		cmd->args.v = redacted;
	tr2_dispatch(child_start, &ev, cmd);
	tr2_dst_flush_all();
	cmd->args.v = original;
	tr2_redact_free_argv(redacted, original);
}

static int child_ev_begin(struct tr2_ev *ev, const char *file, int line,
			  const struct child_process *cmd)
{
	if (!tr2_enabled() || !tr2_ev_begin(ev, file, line))
		return 0;
	if (cmd->trace2_child_us_start)
		ev->us_rel = ev->us_now - cmd->trace2_child_us_start;
	return 1;
}

void trace2_child_exit_fl(const char *file, int line, struct child_process *cmd,
			  int child_exit_code)
{
	struct tr2_ev ev;

	if (child_ev_begin(&ev, file, line, cmd))
		tr2_dispatch(child_exit, &ev, cmd, child_exit_code);
}

void trace2_child_ready_fl(const char *file, int line, struct child_process *cmd,
			   const char *ready)
{
	struct tr2_ev ev;

	if (child_ev_begin(&ev, file, line, cmd))
		tr2_dispatch(child_ready, &ev, cmd, ready);
}

int trace2_exec_fl(const char *file, int line, const char *exe, const char **argv)
{
	const char **redacted;
	struct tr2_ev ev;
	int id;

	if (!tr2_enabled())
		return -1;
	id = __atomic_fetch_add(&next_exec_id, 1, __ATOMIC_RELAXED);
	if (!tr2_ev_begin(&ev, file, line) || tr2_redact_argv(argv, &redacted))
		return id;
	tr2_dispatch(exec, &ev, id, exe, redacted ? redacted : argv);
	tr2_dst_flush_all();
	tr2_redact_free_argv(redacted, argv);
	return id;
}

void trace2_exec_result_fl(const char *file, int line, int exec_id, int code)
{
	struct tr2_ev ev;

	if (tr2_enabled() && tr2_ev_begin(&ev, file, line))
		tr2_dispatch(exec_result, &ev, exec_id, code);
}

/* ---------------------------------------------------------------- */
/* Threads.                                                            */

void trace2_thread_start_fl(const char *file, int line, const char *thread_base_name)
{
	struct tr2_ev ev;
	struct tr2_tls *tls;
	uint64_t now;

	if (!tr2_enabled())
		return;
	tls = tr2_tls_current();
	if (tls && tr2_tls_is_main(tls)) {
		trace2_region_enter_printf_fl(file, line, NULL, NULL, NULL,
					      "thread-proc on main: %s", thread_base_name);
		return;
	}
	now = tr2_now_us();
	if (!tr2_tls_create(thread_base_name, now) || !tr2_ev_begin(&ev, file, line))
		return;
	ev.us_now = now;
	ev.us_abs = now - tr2_start_us();
	tr2_dispatch(thread_start, &ev);
}

void trace2_thread_exit_fl(const char *file, int line)
{
	struct tr2_ev ev;

	if (!tr2_enabled() || !tr2_ev_begin(&ev, file, line))
		return;
	if (tr2_tls_is_main(ev.tls)) {
		trace2_region_leave_printf_fl(file, line, NULL, NULL, NULL,
					      "thread-proc on main");
		return;
	}
	tr2_tls_unwind(ev.tls);
	ev.us_rel = ev.us_now - ev.tls->thread_start_us;
	tr2_metrics_report_thread(&ev);
	tr2_metrics_merge_thread(ev.tls);
	tr2_dispatch(thread_exit, &ev);
	tr2_dst_release_thread();
	tr2_tls_destroy();
}

/* ---------------------------------------------------------------- */
/* Regions.                                                            */

/*
 * The region events, the message expanded (or NULL): the entry points
 * without a message call these directly, with no va_list to set up.
 */
static TR2_HOT void enter_region(const char *file, int line, const char *category,
				 const char *label, const struct repository *repo,
				 const char *msg)
{
	struct tr2_ev ev;

	if (!tr2_ev_begin(&ev, file, line))
		return;
	tr2_dispatch(region_enter, &ev, category, label, repo, msg);
	tr2_tls_push(ev.tls, ev.us_now);
}

static TR2_HOT void leave_region(const char *file, int line, const char *category,
				 const char *label, const struct repository *repo,
				 const char *msg)
{
	struct tr2_ev ev;

	if (!tr2_ev_begin(&ev, file, line))
		return;
	if (!ev.tls->nr) {
		tr2_bug_fl(LOC_NO_REGION, "no open regions in thread '%s'", ev.tls->name);
		return;
	}
	ev.us_rel = tr2_tls_pop(ev.tls, ev.us_now);
	tr2_dispatch(region_leave, &ev, category, label, repo, msg);
}

/*
 * A region event with a message, expanded once for all targets.  Its
 * buffer lives in this frame, so that region events without a message
 * (the hot case) keep a small stack.
 */
static __attribute__((noinline)) void
region_with_msg(int leave, const char *file, int line, const char *category,
		const char *label, const struct repository *repo,
		const char *fmt, va_list ap)
{
	struct tr2_buf msg;
	const char *m = expand(&msg, fmt, ap);

	if (leave)
		leave_region(file, line, category, label, repo, m);
	else
		enter_region(file, line, category, label, repo, m);
	tr2_buf_release(&msg);
}

TR2_HOT void trace2_region_enter_printf_va_fl(const char *file, int line,
				      const char *category, const char *label,
				      const struct repository *repo,
				      const char *fmt, va_list ap)
{
	if (!tr2_enabled())
		return;
	if (fmt && *fmt)
		region_with_msg(0, file, line, category, label, repo, fmt, ap);
	else
		enter_region(file, line, category, label, repo, NULL);
}

TR2_HOT void trace2_region_enter_fl(const char *file, int line, const char *category,
			    const char *label, const struct repository *repo, ...)
{
	if (tr2_enabled())
		enter_region(file, line, category, label, repo, NULL);
}

TR2_HOT void trace2_region_enter_printf_fl(const char *file, int line, const char *category,
				   const char *label, const struct repository *repo,
				   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_region_enter_printf_va_fl(file, line, category, label, repo, fmt, ap);
	va_end(ap);
}

TR2_HOT void trace2_region_leave_printf_va_fl(const char *file, int line,
				      const char *category, const char *label,
				      const struct repository *repo,
				      const char *fmt, va_list ap)
{
	if (!tr2_enabled())
		return;
	if (fmt && *fmt)
		region_with_msg(1, file, line, category, label, repo, fmt, ap);
	else
		leave_region(file, line, category, label, repo, NULL);
}

TR2_HOT void trace2_region_leave_fl(const char *file, int line, const char *category,
			    const char *label, const struct repository *repo, ...)
{
	if (tr2_enabled())
		leave_region(file, line, category, label, repo, NULL);
}

TR2_HOT void trace2_region_leave_printf_fl(const char *file, int line, const char *category,
				   const char *label, const struct repository *repo,
				   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_region_leave_printf_va_fl(file, line, category, label, repo, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- */
/* Data and printf.                                                    */

static int data_ev_begin(struct tr2_ev *ev, const char *file, int line)
{
	if (!tr2_enabled() || !tr2_ev_begin(ev, file, line))
		return 0;
	ev->us_rel = tr2_tls_region_elapsed(ev->tls, ev->us_now);
	return 1;
}

TR2_HOT void trace2_data_string_fl(const char *file, int line, const char *category,
			   const struct repository *repo, const char *key,
			   const char *value)
{
	struct tr2_ev ev;

	if (data_ev_begin(&ev, file, line))
		tr2_dispatch(data, &ev, category, repo, key, value);
}

TR2_HOT void trace2_data_intmax_fl(const char *file, int line, const char *category,
			   const struct repository *repo, const char *key,
			   intmax_t value)
{
	char text[TR2_NUM_MAX];

	if (!tr2_enabled())
		return;
	*tr2_put_i64(text, value) = '\0';
	trace2_data_string_fl(file, line, category, repo, key, text);
}

void trace2_data_json_fl(const char *file, int line, const char *category,
			 const struct repository *repo, const char *key,
			 const struct json_writer *jw)
{
	struct tr2_ev ev;

	if (jw && !tr2_jw_failed(jw) && data_ev_begin(&ev, file, line))
		tr2_dispatch(data_json, &ev, category, repo, key, jw);
}

TR2_HOT void trace2_printf_va_fl(const char *file, int line, const char *fmt, va_list ap)
{
	struct tr2_ev ev;
	struct tr2_buf msg;
	const char *m;

	if (!tr2_enabled() || !tr2_ev_begin(&ev, file, line))
		return;
	m = expand(&msg, fmt, ap);
	tr2_dispatch(printf, &ev, m);
	tr2_buf_release(&msg);
}

TR2_HOT void trace2_printf_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_printf_va_fl(file, line, fmt, ap);
	va_end(ap);
}
