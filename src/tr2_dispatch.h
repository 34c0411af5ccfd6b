/* The dispatcher's internal interface for the other library modules. */
#ifndef TR2_DISPATCH_H
#define TR2_DISPATCH_H

#include "tr2_tgt.h"

#define TR2_NTARGETS 3
extern const struct tr2_tgt *const tr2_targets[TR2_NTARGETS];

/* Offer one event to every target that takes it and whose destination
 * is on, in the order normal, perf, event. */
#define tr2_dispatch(fn, ...) \
	do { \
		size_t i_; \
		for (i_ = 0; i_ < TR2_NTARGETS; i_++) { \
			const struct tr2_tgt *t_ = tr2_targets[i_]; \
			if (t_->fn && tr2_dst_is_on(t_->dst)) \
				t_->fn(__VA_ARGS__); \
		} \
	} while (0)

static inline int tr2_enabled(void)
{
	return TRACE2_ACTIVE();
}

/*
 * Start an event of the calling thread: one clock reading, t_abs, and the
 * thread's context.  0 if there is no context to be had (out of memory).
 */
int tr2_ev_begin(struct tr2_ev *ev, const char *file, int line);

/* Timers and counters (tr2_metrics.c). */
void tr2_metrics_report_thread(struct tr2_ev *ev);
void tr2_metrics_merge_thread(const struct tr2_tls *tls);
void tr2_metrics_report_totals(struct tr2_ev *ev);
void tr2_metrics_release(void);

/* A JSON writer whose allocation failed (json_writer.c): never traced. */
int tr2_jw_failed(const struct json_writer *jw);

/* Let the config and env listings run again (a restarted child). */
void tr2_params_reset(void);

/* URL password redaction (tr2_redact.c). */
void tr2_redact_init(void);
/*
 * *out = a redacted copy of s, or NULL when s has nothing to hide.
 * -1 when memory ran out: the caller must then not trace s at all
 * (redaction fails closed).
 */
int tr2_redact_url(const char *s, char **out);
/* The same for argv; free the copy with tr2_redact_free_argv(copy, argv). */
int tr2_redact_argv(const char **argv, const char ***out);
void tr2_redact_free_argv(const char **copy, const char **argv);

#endif
