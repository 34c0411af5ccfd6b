/*
 * The dispatcher: the public trace2_*() entry points.  Each entry point
 * checks the enabled flag, builds one event record, updates the calling
 * thread's state and hands the record to every target that is on, in
 * registration order (the built-in normal, perf and event targets
 * first; the registry is tr2_registry.c).
 */
#include "tr2_dispatch.h"
#include "tr2_hot.h"
#include "tr2_sys.h"
#include "tr2_diag.h"
#include "tr2_category.h"
#include "tr2_config.h"
#include "tr2_defer.h"
#include "tr2_event.h"
#include "tr2_gitloc.h"
#include "tr2_json_writer.h"
#include "tr2_metrics.h"
#include "tr2_params.h"
#include "tr2_probe.h"
#include "tr2_redact.h"
#include "tr2_registry.h"
#include "tr2_sample.h"
#include "tr2_settings.h"
#include "tr2_sid.h"
#include "tr2_signal.h"
#include "tr2_sysenv.h"
#include "tr2_tls.h"
#include "tr2_traceparent.h"
#include "tr2_plat.h"
#include "trace2/flight.h"
#include "trace2/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bit 0: the targets.  Other listeners may use other bits of the low
 * half; the high half counts probe tracers (the word is in tr2_probe.c). */
#define TR2_LISTENER_TARGETS 1u

const char *trace2_empty_strvec[] = { NULL };

static char *version_string;
static trace2_bug_handler_fn *bug_handler;
static int fatal_exit_code;
static int exit_code;
static int atexit_registered;
static int forked_since_initialize;
/* The tree was sampled out at initialize: tracing stays off, as if no
 * target were set, until a forked child initializes again. */
static int sampled_out;
/* The tree was kept at this rate (docs/configuration.md, "Sampling"),
 * which a record after start says; NULL without sampling. */
static const char *sample_rate;
static int next_child_id, next_exec_id, next_repo_id;
static int config_listed, env_listed;
/* What every record shows of the process: its session id while tracing
 * is on, an empty one before and after (a thread still tracing while the
 * atexit handler runs must find something there). */
static const struct trace2_process no_process = { "", 0, "", 0, 0 };
static const struct trace2_process *process = &no_process;

/* ---------------------------------------------------------------- */
/* Targets (the registry: tr2_registry.c).                            */

static int registry_closed; /* trace2_initialize() was called */

int trace2_register_target(const struct trace2_target *target, void *ctx)
{
	int err;

	tr2_registry_add_builtins();
	if (registry_closed)
		err = EBUSY;
	else
		err = tr2_registry_add(target, ctx);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* Every record out now: the deferred ones first. */
static void flush_targets(void)
{
	if (__atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED))
		tr2_defer_drain(); /* flushes, with the consumer lock held */
	else
		tr2_registry_flush(0);
}

/* ---------------------------------------------------------------- */
/* Embedding: configuration and long-running hosts (beyond Git).      */

int trace2_config_set(const char *key, const char *value)
{
	int err;

	tr2_registry_add_builtins(); /* their keys, chrome's included */
	err = registry_closed ? EBUSY : tr2_settings_set(key, value);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void trace2_set_env_prefix(const char *prefix)
{
	if (!registry_closed)
		tr2_sysenv_set_prefix(prefix);
}

void trace2_set_config_files(const char *system_path, const char *global_path)
{
	if (!registry_closed)
		tr2_config_set_files(system_path, global_path);
}

void trace2_flush(void)
{
	if (tr2_enabled())
		flush_targets();
}

/* Async-signal-safe (tr2_dst_reopen()); the slots are fixed once tracing
 * is on. */
void trace2_reopen(void)
{
	if (tr2_enabled())
		tr2_registry_reopen();
}

/* ---------------------------------------------------------------- */
/* Building and dispatching records.                                  */

static TR2_HOT void ev_init(struct tr2_ev *ev, enum trace2_event_kind kind,
			    struct tr2_tls *tls, const char *file, int line)
{
	/* before initialize set up thread storage, Git reports t_abs 0 */
	uint64_t start = tr2_tls_main() ? tr2_start_us() : 0;
	uint64_t now = tr2_now_us();

	tr2_ev_start(ev, kind, file, line, now, start ? now - start : 0, &tls->times);
	ev->pub.nesting = tr2_tls_nesting(tls);
	ev->pub.thread = &tls->pub;
	ev->pub.process = process;
}

/*
 * Start a record of the calling thread: the calling thread's context, or
 * NULL when tracing is off, the call comes from inside a target's
 * callback (ignored, never recursed), or no context can be had (memory).
 */
static TR2_HOT struct tr2_tls *ev_begin(struct tr2_ev *ev, enum trace2_event_kind kind,
					const char *file, int line)
{
	struct tr2_tls *tls;

	if (!tr2_enabled() || !(tls = tr2_tls_get()) || tls->dispatching)
		return NULL;
	ev_init(ev, kind, tls, file, line);
	return tls;
}

/* A registered target's callback, with the calls it makes ignored. */
static void call_guarded(struct tr2_tls *tls, const struct tr2_slot *s,
			 const struct trace2_event *ev)
{
	int outer = tls->dispatching;

	tls->dispatching = 1;
	s->event(s->ctx, ev);
	tls->dispatching = outer;
}

/*
 * Hand the record to every target that is on.  Only registered targets'
 * callbacks are guarded: a host's signal handler that traces while a
 * built-in target writes must still be traced.
 */
static TR2_HOT inline __attribute__((always_inline)) void
call_targets(struct tr2_tls *tls, const struct tr2_ev *ev)
{
	int i, n = tr2_registry_nactive;

	for (i = 0; i < n; i++) {
		const struct tr2_slot *s = tr2_registry_active[i];

		if (!__atomic_load_n(&s->on, __ATOMIC_RELAXED))
			continue;
		if (s->guarded)
			call_guarded(tls, s, &ev->pub);
		else
			s->event(s->ctx, &ev->pub);
	}
}

/* The record to the targets, or in deferred mode to the thread's ring;
 * the probes fire on the calling thread either way. */
static TR2_HOT inline __attribute__((always_inline)) void
dispatch(struct tr2_tls *tls, const struct tr2_ev *ev)
{
	if (!__builtin_expect(__atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED), 0) ||
	    tr2_defer_push(tls, ev))
		call_targets(tls, ev);
	tr2_probe_event(&ev->pub);
}

/* Deferred mode: a queued record comes back, on the writer thread or a
 * thread that drains; from a fatal signal's handler only to the targets
 * that are async-signal-safe for every kind. */
static void replay(struct tr2_tls *self, struct tr2_ev *ev, int from_signal)
{
	int i;

	ev->pub.process = process;
	if (!from_signal) {
		call_targets(self, ev);
		return;
	}
	for (i = 0; i < tr2_registry_nactive; i++)
		if ((tr2_registry_active[i]->target->flags & TRACE2_TARGET_SIGNAL_SAFE) &&
		    __atomic_load_n(&tr2_registry_active[i]->on, __ATOMIC_RELAXED))
			call_guarded(self, tr2_registry_active[i], &ev->pub);
}

static const struct tr2_defer_ops defer_ops = { replay, tr2_registry_flush };

/* Expand a caller's message once for all targets (NULL for no fmt). */
static TR2_HOT const char *expand(struct tr2_buf *b, const char *fmt, va_list ap)
{
	tr2_buf_init(b);
	if (!fmt || !*fmt)
		return NULL;
	tr2_buf_vaddf(b, fmt, ap);
	return tr2_buf_cstr(b);
}

/* An "error" record of the thread's context, also from inside a target's
 * callback: the library's own report of a BUG a target raised. */
static void emit_error(struct tr2_tls *tls, const char *file, int line,
		       const char *fmt, va_list ap)
{
	struct tr2_ev ev;
	struct tr2_buf msg;

	ev_init(&ev, TRACE2_EVENT_ERROR, tls, file, line);
	ev.pub.error.msg = expand(&msg, fmt, ap);
	ev.pub.error.fmt = ev.pub.error.msg ? fmt : NULL;
	dispatch(tls, &ev);
	tr2_buf_release(&msg);
}

/* An "error" record, if tracing is on and the thread has a context. */
static void report_error(const char *file, int line, const char *fmt, va_list ap)
{
	struct tr2_tls *tls;

	if (tr2_enabled() && (tls = tr2_tls_get()))
		emit_error(tls, file, line, fmt, ap);
}

/* From a signal handler: nothing that allocates or takes a lock. */
static void report_signal(int signo, int fatal)
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
	if (fatal && tr2_defer_flight())
		tr2_defer_dump("signal", 1);
	else if (fatal)
		tr2_defer_drain_from_signal();
	ev_init(&ev, TRACE2_EVENT_SIGNAL, tls, NULL, 0);
	ev.pub.signal.signo = signo;
	dispatch(tls, &ev);
	if (fatal)
		tr2_dst_flush_from_signal();
	tr2_dst_signal_context(0);
	tr2_clock_signal_context(0);
}

/* ---------------------------------------------------------------- */
/* Library settings and diagnostics.                                  */

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

/* The diagnostics hook: installed by the first call that can need it. */
static void on_diag(const struct tr2_diag *d, const char *fmt, va_list ap);

void trace2_set_bug_handler(trace2_bug_handler_fn *fn)
{
	bug_handler = fn;
	tr2_diag_set_hook(on_diag);
}

void trace2_set_fatal_exit_code(int code)
{
	fatal_exit_code = code;
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

/* Print d as Git does and report it as an "error" record at loc. */
static void print_and_report(const struct tr2_diag *d, const char *file, int line,
			     const char *fmt, va_list ap)
{
	va_list again;

	va_copy(again, ap);
	tr2_diag_print(d, fmt, ap);
	report_error(file, line, fmt, again);
	va_end(again);
}

/* What the modules below report. */
static void on_diag(const struct tr2_diag *d, const char *fmt, va_list ap)
{
	switch (d->kind) {
	case TR2_DIAG_BUG:
		if (bug_handler)
			bug_handler(d->file, d->line, fmt, ap);
		else
			print_and_report(d, TR2_GITLOC_BUG, fmt, ap);
		break;
	case TR2_DIAG_FATAL:
		print_and_report(d, TR2_GITLOC_DIE, fmt, ap);
		if (fatal_exit_code) {
			trace2_cmd_exit_fl(TR2_GITLOC_DIE_EXIT, fatal_exit_code);
			exit(fatal_exit_code);
		}
		break;
	case TR2_DIAG_DST_FAILED:
		tr2_registry_switch_off(d->source);
		if (d->announce)
			print_and_report(d, TR2_GITLOC_WARNING, fmt, ap);
		break;
	}
}

/* ---------------------------------------------------------------- */
/* Initialize and the atexit handler.                                 */

static void emit_version(const char *file, int line)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_VERSION, file, line);
	const struct tr2_slot *full[TRACE2_TARGETS_MAX];
	int i, n;

	if (!tls)
		return;
	ev.pub.version.exe = version_string ? version_string : TRACE2_VERSION_STRING;
	dispatch(tls, &ev);
	ev.pub.kind = TRACE2_EVENT_TOO_MANY_FILES;
	n = tr2_registry_too_many_files(full);
	for (i = 0; i < n; i++)
		call_guarded(tls, full[i], &ev.pub);
}

static void release_everything(void)
{
	tr2_registry_close();
	process = &no_process;
	tr2_metrics_release();
	tr2_tls_release();
	tr2_sid_release();
	tr2_sysenv_release();
}

/* A forked child has only the thread that forked: locks other threads
 * held at fork time would never be released there. */
static void reset_locks_after_fork(void)
{
	tr2_registry_after_fork();
	tr2_tls_after_fork();
	tr2_metrics_after_fork();
	tr2_clock_after_fork();
	tr2_sid_after_fork();
	tr2_sysenv_after_fork();
	forked_since_initialize = 1;
}

/* A thread's record whose time the timer and counter records share. */
struct metric_report {
	struct tr2_tls *tls;
	struct tr2_ev *ev;
};

/* One timer or counter value of a thread or of the process. */
static void dispatch_metric(void *ctx, enum trace2_event_kind kind,
			    const struct trace2_ev_timer *timer,
			    const struct trace2_ev_counter *counter)
{
	const struct metric_report *r = ctx;
	struct tr2_ev *ev = r->ev;

	if (!tr2_category_pass(timer ? timer->category : counter->category))
		return;
	ev->pub.kind = kind;
	ev->pub.file = NULL;
	ev->pub.line = 0;
	ev->pub.t_rel_us = 0;
	if (timer)
		ev->pub.timer = *timer;
	else
		ev->pub.counter = *counter;
	dispatch(r->tls, ev);
}

/* The flight recorder at exit: dumped when the run failed or was slow;
 * 0 when it stays unwritten (nor is the end written then). */
static int flight_at_exit(void)
{
	long slow = tr2_sysenv_flight_slow_ms();
	uint64_t start = tr2_start_us();

	if (exit_code)
		return !tr2_defer_dump("exit", 0);
	if (slow >= 0 && start && tr2_now_us() - start > (uint64_t)slow * 1000)
		return !tr2_defer_dump("slow", 0);
	return 0;
}

/*
 * The end of the trace.  abrupt: the process is ending with its other
 * threads stopped (tr2_plat_atexit()), maybe holding a lock: from here
 * on, as in a signal handler, nothing waits on a lock without bound and
 * nothing is freed.
 */
static void tr2_atexit(int abrupt)
{
	struct tr2_ev ev;
	struct metric_report r = { NULL, &ev };
	int quiet;

	if (!tr2_enabled())
		return;
	if (abrupt) {
		tr2_clock_signal_context(1);
		tr2_dst_signal_context(1);
	}
	quiet = tr2_defer_flight() && !flight_at_exit();
	tr2_defer_stop(); /* from here on, records go out directly */
	if (!quiet && (r.tls = ev_begin(&ev, TRACE2_EVENT_ATEXIT, NULL, 0))) {
		tr2_tls_unwind(r.tls);
		ev.pub.nesting = tr2_tls_nesting(r.tls);
		tr2_metrics_report_thread(&r.tls->metrics, dispatch_metric, &r);
		tr2_metrics_merge_thread(&r.tls->metrics);
		tr2_metrics_report_totals(dispatch_metric, &r);
		ev.pub.kind = TRACE2_EVENT_ATEXIT;
		ev.pub.file = NULL;
		ev.pub.line = 0;
		ev.pub.exit.code = exit_code;
		dispatch(r.tls, &ev);
	}
	flush_targets();
	tr2_registry_shutdown();
	set_enabled(0);
	if (!abrupt)
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
	sampled_out = 0;
	exit_code = 0;
	next_child_id = next_exec_id = next_repo_id = 0;
	config_listed = env_listed = 0;
}

/* The flight recorder's ring size (GIT_TRACE2_FLIGHT), 0 when off. */
static size_t flight_size(void)
{
	const char *v = tr2_sysenv_get(TR2_SYSENV_FLIGHT);
	size_t size = 0;

	return v && !tr2_parse_size(v, &size) ? size : 0;
}

/* Buffered mode, and deferred mode on top of it (the writer thread
 * writes through a buffer of its own, 64 KiB unless set), or the flight
 * recorder (its dumps write through such a buffer). */
static void start_deferred_mode(void)
{
	int deferred = tr2_sysenv_bool(TR2_SYSENV_DEFERRED, 0);
	size_t ring = 0, flight = flight_size();
	const char *v = tr2_sysenv_get(TR2_SYSENV_DEFERRED_RING);

	tr2_dst_buffer_init(deferred || flight ? TR2_DEFER_BUFFER : 0);
	if (flight) {
		tr2_defer_start(&defer_ops, flight, 1);
		return;
	}
	if (!deferred)
		return;
	if (!v || tr2_parse_size(v, &ring) || !ring)
		ring = TR2_DEFER_RING;
	tr2_defer_start(&defer_ops, ring, 0);
}

/* A thread's context goes, and its timers and counters with it. */
static void free_thread_metrics(struct tr2_tls *tls)
{
	tr2_metrics_thread_free(&tls->metrics);
}

/* The atexit handler, and the fork handler that lets a forked child
 * start its own trace; once per process. */
static void install_process_handlers(void)
{
	if (atexit_registered)
		return;
	tr2_plat_atexit(tr2_atexit);
	tr2_plat_atfork(NULL, NULL, reset_locks_after_fork);
	atexit_registered = 1;
}

/*
 * Sampling's verdict: 1 when the tree is sampled out, and the process
 * must then stay as one without a target (its SID is exported all the
 * same, so that its children decide alike; and a forked child that
 * initializes decides again, with a SID of its own).
 */
static int sample_tree(void)
{
	enum tr2_sample_verdict v = tr2_sample_decide();

	sample_rate = v == TR2_SAMPLE_KEPT ? tr2_sample_rate_text() : NULL;
	if (v != TR2_SAMPLE_DROPPED)
		return 0;
	sampled_out = 1;
	forked_since_initialize = 0;
	install_process_handlers();
	return 1;
}

void trace2_initialize_fl(const char *file, int line)
{
	if (trace2_is_enabled() || sampled_out) {
		if (!forked_since_initialize)
			return;
		restart_in_forked_child();
	}
	tr2_registry_add_builtins();
	registry_closed = 1;
	tr2_diag_set_hook(on_diag);
	tr2_tls_set_free_hook(free_thread_metrics);
	tr2_config_load_settings();
	/* the flight recorder writes only when triggered: a run it never
	 * triggers leaves no file behind */
	tr2_dst_create_at_first_write(flight_size() > 0);
	if (sample_tree() || !tr2_registry_open())
		return;
	tr2_clock_init(tr2_sysenv_get(TR2_SYSENV_CLOCK));
	tr2_category_init(tr2_sysenv_get(TR2_SYSENV_CATEGORIES));
	tr2_sid_get();
	process = tr2_sid_process();
	set_enabled(1);
	forked_since_initialize = 0;
	tr2_redact_init();
	install_process_handlers();
	start_deferred_mode();
	tr2_signals_install(report_signal);
	tr2_tls_init();
	emit_version(file, line);
}

/* ---------------------------------------------------------------- */
/* Process events.                                                    */

static TR2_HOT struct tr2_tls *data_ev_begin(struct tr2_ev *ev, enum trace2_event_kind kind,
					     const char *file, int line,
					     const char *category,
					     const struct repository *repo,
					     const char *key);

/*
 * Dispatch ev with *str_field = s (a path, a value) and *argv_field =
 * argv (a NULL field: none), their URL passwords redacted; nothing when
 * memory for that ran out: redaction fails closed.  The copies live on
 * this stack for the dispatch.  0 when dispatched.
 */
static int dispatch_redacted(struct tr2_tls *tls, struct tr2_ev *ev,
			     const char *s, const char **str_field,
			     const char *const *argv, const char *const **argv_field)
{
	struct tr2_buf str_room;
	struct tr2_redacted_argv argv_room;
	int rc = 0;

	tr2_buf_init(&str_room);
	tr2_redacted_argv_init(&argv_room);
	if (str_field)
		rc = tr2_redact_str(&str_room, s, str_field);
	if (!rc && argv_field)
		rc = tr2_redact_argv(&argv_room, argv, argv_field);
	if (!rc)
		dispatch(tls, ev);
	tr2_redacted_argv_release(&argv_room);
	tr2_buf_release(&str_room);
	return rc;
}

/* A data record of category "trace2" that the library adds for
 * collectors: no category filter holds it back. */
static void record_trace2_data(const char *file, int line, const char *key,
			       const char *value)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = data_ev_begin(&ev, TRACE2_EVENT_DATA, file, line, "trace2",
					    NULL, key);

	if (!tls)
		return;
	ev.pub.data.value = value;
	dispatch(tls, &ev);
}

/* What a collector needs to know at once of the process: the trace it
 * was started in (a TRACEPARENT in its environment, as OpenTelemetry
 * carries it to processes), so that a converter can join that trace; the
 * rate its tree was sampled at, so that it can weigh the tree (the
 * library's own record: no source location). */
static void record_process_context(const char *file, int line)
{
	const char *tp = tr2_sys.getenv("TRACEPARENT");

	if (tr2_traceparent_valid(tp))
		record_trace2_data(file, line, "traceparent", tp);
	if (sample_rate)
		record_trace2_data(NULL, 0, "sample", sample_rate);
}

void trace2_cmd_start_fl(const char *file, int line, const char **argv)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_START, file, line);

	if (tls && !dispatch_redacted(tls, &ev, NULL, NULL, argv, &ev.pub.start.argv))
		record_process_context(file, line);
}

int trace2_cmd_exit_fl(const char *file, int line, int code)
{
	struct tr2_ev ev;
	struct tr2_tls *tls;

	if (!tr2_enabled())
		return code;
	trace2_collect_process_info(TRACE2_PROCESS_INFO_EXIT);
	if (!(tls = ev_begin(&ev, TRACE2_EVENT_EXIT, file, line)))
		return code;
	exit_code = code;
	ev.pub.exit.code = code;
	dispatch(tls, &ev);
	tr2_defer_drain();
	return code;
}

void trace2_cmd_error_va_fl(const char *file, int line, const char *fmt, va_list ap)
{
	struct tr2_tls *tls;

	if (tr2_enabled() && (tls = tr2_tls_get()) && !tls->dispatching)
		emit_error(tls, file, line, fmt, ap);
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
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_CMD_PATH, file, line);

	if (tls)
		dispatch_redacted(tls, &ev, pathname, &ev.pub.cmd_path.path, NULL, NULL);
}

void trace2_cmd_ancestry_fl(const char *file, int line, const char **parent_names)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_CMD_ANCESTRY, file, line);

	if (tls) {
		ev.pub.cmd_ancestry.names = parent_names;
		dispatch(tls, &ev);
	}
}

/* "<GIT_TRACE2_PARENT_NAME>/<name>", exported for children. */
static char *update_hierarchy(const char *name)
{
	const char *parent = tr2_sysenv_get(TR2_SYSENV_PARENT_NAME);
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
		tr2_sysenv_export(TR2_SYSENV_PARENT_NAME, h);
	return h;
}

void trace2_cmd_name_fl(const char *file, int line, const char *name)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_CMD_NAME, file, line);
	char *hierarchy;

	if (!tls)
		return;
	hierarchy = update_hierarchy(name);
	ev.pub.cmd_name.name = name;
	ev.pub.cmd_name.hierarchy = hierarchy;
	dispatch(tls, &ev);
	tr2_sys.free(hierarchy);
	trace2_cmd_list_config_fl(TR2_GITLOC_LIST_CONFIG);
	trace2_cmd_list_env_vars_fl(TR2_GITLOC_LIST_ENV);
}

void trace2_cmd_mode_fl(const char *file, int line, const char *mode)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_CMD_MODE, file, line);

	if (tls) {
		ev.pub.cmd_mode.name = mode;
		dispatch(tls, &ev);
	}
}

void trace2_cmd_alias_fl(const char *file, int line, const char *alias,
			 const char **argv)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_ALIAS, file, line);

	if (tls) {
		ev.pub.alias.alias = alias;
		dispatch_redacted(tls, &ev, NULL, NULL, argv, &ev.pub.alias.argv);
	}
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
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_DEF_PARAM, file, line);

	if (!tls)
		return;
	ev.pub.def_param.param = param;
	ev.pub.def_param.scope = scope_name(kvi);
	dispatch_redacted(tls, &ev, value, &ev.pub.def_param.value, NULL, NULL);
}

void trace2_def_repo_fl(const char *file, int line, struct repository *repo)
{
	struct tr2_ev ev;
	struct tr2_tls *tls;

	if (!tr2_enabled() || !repo || repo->trace2_repo_id)
		return;
	if (!(tls = ev_begin(&ev, TRACE2_EVENT_DEF_REPO, file, line)))
		return;
	repo->trace2_repo_id = __atomic_add_fetch(&next_repo_id, 1, __ATOMIC_RELAXED);
	ev.pub.def_repo.repo_id = repo->trace2_repo_id;
	ev.pub.def_repo.worktree = repo->worktree;
	dispatch(tls, &ev);
}

/* ---------------------------------------------------------------- */
/* Listings of the config and the environment (def_param records).    */

struct listing {
	const char *file;
	int line;
};

static void list_config_entry(const char *key, const char *value,
			      enum config_scope scope, void *ctx)
{
	const struct listing *where = ctx;
	struct key_value_info kvi = KVI_INIT;

	if (!tr2_params_wants_config_key(key))
		return;
	kvi.scope = scope;
	trace2_def_param_fl(where->file, where->line, key, value, &kvi);
}

void trace2_cmd_list_config_fl(const char *file, int line)
{
	struct listing where = { file, line };

	if (!tr2_enabled() || __atomic_exchange_n(&config_listed, 1, __ATOMIC_RELAXED))
		return;
	if (tr2_params_config_wanted())
		tr2_config_for_each(list_config_entry, &where);
}

static void list_env_var(const char *name, const char *value, void *ctx)
{
	static const struct key_value_info command = {
		NULL, -1, CONFIG_ORIGIN_UNKNOWN, CONFIG_SCOPE_COMMAND
	};
	const struct listing *where = ctx;

	trace2_def_param_fl(where->file, where->line, name, value, &command);
}

void trace2_cmd_list_env_vars_fl(const char *file, int line)
{
	struct listing where = { file, line };

	if (!tr2_enabled() || __atomic_exchange_n(&env_listed, 1, __ATOMIC_RELAXED))
		return;
	tr2_params_for_each_env_var(list_env_var, &where);
}

void trace2_cmd_set_config_fl(const char *file, int line, const char *key,
			      const char *value)
{
	if (tr2_enabled() && tr2_params_wants_config_key(key))
		trace2_def_param_fl(file, line, key, value, NULL);
}

/* What the platform knows of the process, as records of category
 * "process" (tr2_plat_process_info()). */
#define PROCESS_CATEGORY "process"

static void info_ancestry(const char *file, int line, const char **names, void *ctx)
{
	(void)ctx;
	trace2_cmd_ancestry_fl(file, line, names);
}

static void info_data_int(const char *file, int line, const char *key, int64_t value,
			  void *ctx)
{
	(void)ctx;
	trace2_data_intmax_fl(file, line, PROCESS_CATEGORY, NULL, key, value);
}

/* data_json with jw's value, which its caller began; jw is released. */
static void info_data_json(const char *file, int line, const char *key,
			   struct json_writer *jw)
{
	trace2_jw_end(jw);
	trace2_data_json_fl(file, line, PROCESS_CATEGORY, NULL, key, jw);
	trace2_jw_release(jw);
}

static void info_data_json_strings(const char *file, int line, const char *key,
				   const char **names, void *ctx)
{
	struct json_writer jw;

	(void)ctx;
	trace2_jw_init(&jw);
	trace2_jw_array_begin(&jw, 0);
	trace2_jw_array_argv(&jw, names);
	info_data_json(file, line, key, &jw);
}

static void info_data_json_ints(const char *file, int line, const char *key,
				const char *const *keys, const int64_t *values, size_t n,
				void *ctx)
{
	struct json_writer jw;
	size_t i;

	(void)ctx;
	trace2_jw_init(&jw);
	trace2_jw_object_begin(&jw, 0);
	for (i = 0; i < n; i++)
		trace2_jw_object_intmax(&jw, keys[i], values[i]);
	info_data_json(file, line, key, &jw);
}

static const struct tr2_plat_info_sink process_info_sink = {
	.ancestry = info_ancestry,
	.data_int = info_data_int,
	.data_json_strings = info_data_json_strings,
	.data_json_ints = info_data_json_ints,
};

void trace2_collect_process_info(enum trace2_process_info_reason reason)
{
	if (tr2_enabled() && (reason == TRACE2_PROCESS_INFO_STARTUP ||
			      reason == TRACE2_PROCESS_INFO_EXIT))
		tr2_plat_process_info(reason == TRACE2_PROCESS_INFO_EXIT, &process_info_sink);
}

/* ---------------------------------------------------------------- */
/* Children and exec.                                                  */

void trace2_child_start_fl(const char *file, int line, struct child_process *cmd)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_CHILD_START, file, line);

	if (!tls)
		return;
	cmd->trace2_child_id = __atomic_fetch_add(&next_child_id, 1, __ATOMIC_RELAXED);
	cmd->trace2_child_us_start = ev.pub.time_us;
	ev.pub.child = (struct trace2_ev_child){
		.id = cmd->trace2_child_id,
		.child_class = cmd->trace2_child_class,
		.hook_name = cmd->trace2_hook_name,
		.cd = cmd->dir,
		.git_cmd = cmd->git_cmd,
		.use_shell = cmd->use_shell,
	};
	if (!dispatch_redacted(tls, &ev, NULL, NULL, cmd->args.v, &ev.pub.child.argv))
		flush_targets();
}

/* A child_exit or child_ready record, its time since child_start. */
static struct tr2_tls *child_ev_begin(struct tr2_ev *ev, enum trace2_event_kind kind,
				      const char *file, int line,
				      const struct child_process *cmd)
{
	struct tr2_tls *tls = ev_begin(ev, kind, file, line);

	if (!tls)
		return NULL;
	if (cmd->trace2_child_us_start)
		ev->pub.t_rel_us = ev->pub.time_us - cmd->trace2_child_us_start;
	ev->pub.child = (struct trace2_ev_child){ .id = cmd->trace2_child_id, .pid = cmd->pid };
	return tls;
}

void trace2_child_exit_fl(const char *file, int line, struct child_process *cmd,
			  int child_exit_code)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = child_ev_begin(&ev, TRACE2_EVENT_CHILD_EXIT, file, line, cmd);

	if (tls) {
		ev.pub.child.code = child_exit_code;
		dispatch(tls, &ev);
		if (child_exit_code && tr2_defer_flight())
			tr2_defer_dump("child", 0);
	}
}

/* Maybe inside a signal handler: the clock and the destinations keep to
 * what is async-signal-safe (no localtime_r(), bounded waits), and a
 * record the signal cut short is finished first. */
int trace2_flight_dump(const char *reason)
{
	int rc;

	if (!tr2_enabled())
		return -1;
	tr2_clock_signal_context(1);
	tr2_dst_signal_context(1);
	tr2_dst_finish_interrupted();
	rc = tr2_defer_dump(reason, 1);
	tr2_dst_signal_context(0);
	tr2_clock_signal_context(0);
	return rc;
}

void trace2_child_ready_fl(const char *file, int line, struct child_process *cmd,
			   const char *ready)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = child_ev_begin(&ev, TRACE2_EVENT_CHILD_READY, file, line, cmd);

	if (tls) {
		ev.pub.child.ready = ready;
		dispatch(tls, &ev);
	}
}

int trace2_run_command(const char **argv, const char *child_class)
{
	struct child_process cmd = TRACE2_CHILD_PROCESS_INIT;
	pid_t pid; /* wider than cmd.pid where pid_t is 64-bit (mingw-w64) */
	int err, code;

	if (!argv || !argv[0]) {
		errno = EINVAL;
		return -1;
	}
	cmd.args.v = argv;
	while (argv[cmd.args.nr])
		cmd.args.nr++;
	cmd.trace2_child_class = child_class;
	trace2_child_start(&cmd);
	err = tr2_plat_spawn(argv, &pid);
	if (err) {
		cmd.pid = -1;
		code = -1;
	} else {
		cmd.pid = (trace2_pid_t)pid;
		code = tr2_plat_wait_child(pid);
		err = code < 0 ? errno : 0;
	}
	trace2_child_exit(&cmd, code);
	errno = err;
	return code;
}

int trace2_exec_fl(const char *file, int line, const char *exe, const char **argv)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_EXEC, file, line);
	int id;

	if (!tls)
		return -1;
	id = __atomic_fetch_add(&next_exec_id, 1, __ATOMIC_RELAXED);
	ev.pub.exec = (struct trace2_ev_exec){ .id = id };
	if (!dispatch_redacted(tls, &ev, exe, &ev.pub.exec.exe, argv, &ev.pub.exec.argv))
		flush_targets();
	return id;
}

void trace2_exec_result_fl(const char *file, int line, int exec_id, int code)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_EXEC_RESULT, file, line);

	if (tls) {
		ev.pub.exec = (struct trace2_ev_exec){ .id = exec_id, .code = code };
		dispatch(tls, &ev);
	}
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
	if (tls && tls->dispatching)
		return;
	if (tls && tr2_tls_is_main(tls)) {
		trace2_region_enter_printf_fl(file, line, NULL, NULL, NULL,
					      "thread-proc on main: %s", thread_base_name);
		return;
	}
	now = tr2_now_us();
	if (!(tls = tr2_tls_create(thread_base_name, now)))
		return;
	ev_init(&ev, TRACE2_EVENT_THREAD_START, tls, file, line);
	ev.pub.time_us = now;
	ev.pub.t_abs_us = now - tr2_start_us();
	dispatch(tls, &ev);
}

void trace2_thread_exit_fl(const char *file, int line)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_THREAD_EXIT, file, line);
	struct metric_report r = { tls, &ev };

	if (!tls)
		return;
	if (tr2_tls_is_main(tls)) {
		trace2_region_leave_printf_fl(file, line, NULL, NULL, NULL,
					      "thread-proc on main");
		return;
	}
	tr2_tls_unwind(tls);
	ev.pub.nesting = tr2_tls_nesting(tls);
	tr2_metrics_report_thread(&tls->metrics, dispatch_metric, &r);
	tr2_metrics_merge_thread(&tls->metrics);
	ev.pub.kind = TRACE2_EVENT_THREAD_EXIT;
	ev.pub.file = file;
	ev.pub.line = line;
	ev.pub.t_rel_us = ev.pub.time_us - tls->thread_start_us;
	dispatch(tls, &ev);
	tr2_dst_release_thread();
	tr2_tls_destroy();
}

/* ---------------------------------------------------------------- */
/* Regions.                                                            */

/* A region whose category is filtered: on the stack, so that its leave
 * pairs with it, but not written, nor counted in what is. */
static void enter_filtered_region(void)
{
	struct tr2_tls *tls = tr2_tls_get();

	if (!tls || tls->dispatching)
		return;
	if (tls->unpushed || tr2_tls_push_filtered(tls))
		tls->unpushed++;
}

static int repo_id(const struct repository *repo)
{
	return repo ? repo->trace2_repo_id : TRACE2_NO_REPO;
}

/* Whether no tracer is attached to a probe (nor a listener). */
static TR2_HOT inline int no_probe(void)
{
	return !((__atomic_load_n(&tr2_probe_word, __ATOMIC_RELAXED) |
		  TRACE2_LOAD_RELAXED(&trace2_listener_mask)) &
		 TR2_PROBE_SEMAPHORE_BITS);
}

/* Whether a record needs no more than the targets: no deferred mode, no
 * probe and no listener. */
static TR2_HOT inline int targets_alone(void)
{
	return !__atomic_load_n(&tr2_defer_on, __ATOMIC_RELAXED) && no_probe();
}

/*
 * The lanes: a region event of the common case goes straight to the one
 * target open (tr2_registry_lane) when targets_alone(), or in deferred
 * mode and with the flight recorder to the thread's ring in its compact
 * form (tr2_defer_region(), when the event has no message and no probe
 * listens), in fewer steps than dispatch() takes.  What they share,
 * lane_record(): the category passes, and the thread has its context, is
 * not in a callback, and has no region open that is filtered or not
 * pushed, and room on its stack (an enter) or a region to leave; then the
 * clock is read, the stack moved and the record filled.  0 or NULL when a
 * lane did not take the event: the long way then, which handles every
 * case.
 */
static TR2_HOT inline __attribute__((always_inline)) struct tr2_tls *
lane_record(struct tr2_ev *ev, enum trace2_event_kind kind, const char *file, int line,
	    const char *category, const char *label, const struct repository *repo,
	    const char *msg)
{
	struct tr2_tls *tls;
	uint64_t now, start;

	if (!(tls = tr2_tls_current()) || tls->dispatching || tls->unpushed || tls->filtered ||
	    (kind == TRACE2_EVENT_REGION_ENTER ? tls->nr == tls->alloc : tls->nr < 2) ||
	    !tr2_category_pass(category))
		return NULL;
	now = tr2_now_us();
	start = tr2_tls_main() ? tr2_start_us() : 0;
	tr2_ev_start(ev, kind, file, line, now, start ? now - start : 0, &tls->times);
	if (kind == TRACE2_EVENT_REGION_ENTER) {
		ev->pub.nesting = tls->nr;
		tls->stack[tls->nr++] = now;
	} else {
		ev->pub.t_rel_us = now - tls->stack[--tls->nr];
		ev->pub.nesting = tls->nr;
	}
	ev->pub.thread = &tls->pub;
	ev->pub.process = process;
	ev->pub.region = (struct trace2_ev_region){ category, label, repo_id(repo), msg };
	return tls;
}

static TR2_HOT inline __attribute__((always_inline)) int
lane(enum trace2_event_kind kind, const char *file, int line, const char *category,
     const char *label, const struct repository *repo, const char *msg)
{
	const struct tr2_slot *s = tr2_registry_lane;
	struct tr2_ev ev;

	if (!s || !targets_alone() || !__atomic_load_n(&s->on, __ATOMIC_RELAXED) ||
	    !lane_record(&ev, kind, file, line, category, label, repo, msg))
		return 0;
	s->event(s->ctx, &ev.pub);
	return 1;
}

static TR2_HOT inline __attribute__((always_inline)) int
ring_lane(enum trace2_event_kind kind, const char *file, int line, const char *category,
	  const char *label, const struct repository *repo, const char *msg)
{
	struct tr2_tls *tls;
	struct tr2_ev ev;

	if (msg || !no_probe() ||
	    !(tls = lane_record(&ev, kind, file, line, category, label, repo, msg)))
		return 0;
	if (tr2_defer_region(tls, &ev.pub))
		dispatch(tls, &ev); /* the long way from here */
	return 1;
}

/* Whether a lane took the event. */
static TR2_HOT inline __attribute__((always_inline)) int
lanes(enum trace2_event_kind kind, const char *file, int line, const char *category,
      const char *label, const struct repository *repo, const char *msg)
{
	return lane(kind, file, line, category, label, repo, msg) ||
	       (__atomic_load_n(&tr2_defer_lane, __ATOMIC_RELAXED) &&
		ring_lane(kind, file, line, category, label, repo, msg));
}

/*
 * The region events, the message expanded (or NULL): the entry points
 * without a message call these directly, with no va_list to set up.  A
 * region the stack cannot hold (memory ran out) is not traced, nor is any
 * region inside it, nor their leaves: what is written stays balanced.
 */
static TR2_HOT __attribute__((noinline)) void
enter_region_long(const char *file, int line, const char *category, const char *label,
		  const struct repository *repo, const char *msg)
{
	struct tr2_ev ev;
	struct tr2_tls *tls;

	if (!tr2_category_pass(category)) {
		enter_filtered_region();
		return;
	}
	if (!(tls = ev_begin(&ev, TRACE2_EVENT_REGION_ENTER, file, line)))
		return;
	if (tls->unpushed || tr2_tls_push(tls, ev.pub.time_us)) {
		tls->unpushed++;
		return;
	}
	ev.pub.region = (struct trace2_ev_region){ category, label, repo_id(repo), msg };
	dispatch(tls, &ev);
}

static TR2_HOT __attribute__((noinline)) void
leave_region_long(const char *file, int line, const char *category, const char *label,
		  const struct repository *repo, const char *msg)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_REGION_LEAVE, file, line);

	if (!tls)
		return;
	if (tls->unpushed) {
		tls->unpushed--;
		return;
	}
	if (!tls->nr) {
		tr2_bug_fl(TR2_GITLOC_NO_REGION, "no open regions in thread '%s'", tls->name);
		return;
	}
	if (tr2_tls_top_filtered(tls)) {
		tr2_tls_pop(tls, ev.pub.time_us);
		return;
	}
	ev.pub.t_rel_us = tr2_tls_pop(tls, ev.pub.time_us);
	ev.pub.nesting = tr2_tls_nesting(tls);
	ev.pub.region = (struct trace2_ev_region){ category, label, repo_id(repo), msg };
	dispatch(tls, &ev);
}

/* A region event: a lane, else the long way. */
static TR2_HOT inline __attribute__((always_inline)) void
enter_region(const char *file, int line, const char *category, const char *label,
	     const struct repository *repo, const char *msg)
{
	if (!lanes(TRACE2_EVENT_REGION_ENTER, file, line, category, label, repo, msg))
		enter_region_long(file, line, category, label, repo, msg);
}

static TR2_HOT inline __attribute__((always_inline)) void
leave_region(const char *file, int line, const char *category, const char *label,
	     const struct repository *repo, const char *msg)
{
	if (!lanes(TRACE2_EVENT_REGION_LEAVE, file, line, category, label, repo, msg))
		leave_region_long(file, line, category, label, repo, msg);
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
	if (fmt && *fmt && tr2_category_pass(category))
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

/* A data or data_json record, its time since the innermost region began. */
static TR2_HOT struct tr2_tls *data_ev_begin(struct tr2_ev *ev, enum trace2_event_kind kind,
					     const char *file, int line,
					     const char *category,
					     const struct repository *repo,
					     const char *key)
{
	struct tr2_tls *tls = ev_begin(ev, kind, file, line);

	if (!tls)
		return NULL;
	ev->pub.t_rel_us = tr2_tls_region_elapsed(tls, ev->pub.time_us);
	ev->pub.data = (struct trace2_ev_data){ .category = category,
						.repo_id = repo_id(repo), .key = key };
	return tls;
}

TR2_HOT void trace2_data_string_fl(const char *file, int line, const char *category,
			   const struct repository *repo, const char *key,
			   const char *value)
{
	struct tr2_ev ev;
	struct tr2_tls *tls = !tr2_category_pass(category) ? NULL :
		data_ev_begin(&ev, TRACE2_EVENT_DATA, file, line, category, repo, key);

	if (tls) {
		ev.pub.data.value = value;
		dispatch(tls, &ev);
	}
}

TR2_HOT void trace2_data_intmax_fl(const char *file, int line, const char *category,
			   const struct repository *repo, const char *key,
			   intmax_t value)
{
	char text[TR2_NUM_MAX];

	if (!tr2_enabled())
		return;
	tr2_probe_data_intmax(category, key, value);
	*tr2_put_i64(text, value) = '\0';
	trace2_data_string_fl(file, line, category, repo, key, text);
}

void trace2_data_json_fl(const char *file, int line, const char *category,
			 const struct repository *repo, const char *key,
			 const struct json_writer *jw)
{
	struct tr2_ev ev;
	struct tr2_tls *tls;

	if (!jw || tr2_jw_failed(jw) || !tr2_category_pass(category))
		return;
	tls = data_ev_begin(&ev, TRACE2_EVENT_DATA_JSON, file, line, category, repo, key);
	if (!tls)
		return;
	ev.pub.data.json = jw->json.buf;
	ev.pub.data.json_len = jw->json.buf ? jw->json.len : 0;
	ev.pub.data.json_pretty = jw->pretty;
	ev.pub.data.json_open = jw->open_stack.len ? jw->open_stack.buf[0] : 0;
	dispatch(tls, &ev);
}

TR2_HOT void trace2_printf_va_fl(const char *file, int line, const char *fmt, va_list ap)
{
	struct tr2_ev ev;
	struct tr2_buf msg;
	struct tr2_tls *tls = ev_begin(&ev, TRACE2_EVENT_PRINTF, file, line);

	if (!tls)
		return;
	ev.pub.printf.msg = expand(&msg, fmt, ap);
	dispatch(tls, &ev);
	tr2_buf_release(&msg);
}

TR2_HOT void trace2_printf_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace2_printf_va_fl(file, line, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- */
/* Timers and counters.                                                */

/* The calling thread's timers and counters, unless calls are ignored. */
static struct tr2_thread_metrics *metrics_of_caller(void)
{
	struct tr2_tls *tls;

	if (!tr2_enabled() || !(tls = tr2_tls_get()) || tls->dispatching)
		return NULL;
	return &tls->metrics;
}

enum trace2_timer_id trace2_timer_define(const char *category, const char *name,
					 int per_thread_events)
{
	return (enum trace2_timer_id)tr2_metrics_timer_define(category, name,
							      per_thread_events);
}

enum trace2_counter_id trace2_counter_define(const char *category, const char *name,
					     int per_thread_events)
{
	return (enum trace2_counter_id)tr2_metrics_counter_define(category, name,
								  per_thread_events);
}

void(trace2_timer_start)(enum trace2_timer_id tid)
{
	struct tr2_thread_metrics *m = metrics_of_caller();

	if (m)
		tr2_metrics_timer_start(m, (int)tid);
}

void(trace2_timer_stop)(enum trace2_timer_id tid)
{
	struct tr2_thread_metrics *m = metrics_of_caller();

	if (m)
		tr2_metrics_timer_stop(m, (int)tid);
}

void(trace2_counter_add)(enum trace2_counter_id cid, uint64_t value)
{
	struct tr2_thread_metrics *m = metrics_of_caller();

	if (m)
		tr2_metrics_counter_add(m, (int)cid, value);
}

/* ---------------------------------------------------------------- */
/* Category filters.                                                  */

int trace2_category_enabled(const char *category)
{
	return tr2_enabled() && tr2_category_pass(category);
}
