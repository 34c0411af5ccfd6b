/*
 * The target interface.  A target is one file in targets/ that fills one
 * struct tr2_tgt; the dispatcher (trace2.c) offers every event to every
 * target whose destination is on, in the order normal, perf, event.  A
 * NULL member means the target ignores that event.
 */
#ifndef TR2_TGT_H
#define TR2_TGT_H

#include <stdint.h>

#include "trace2.h"
#include "tr2_buf.h"
#include "tr2_clock.h"
#include "tr2_dst.h"
#include "tr2_tls.h"

/*
 * What every record of one API call shares: read once by the dispatcher
 * (one clock reading for all targets), and the formatted wall-clock
 * times, made by the first target that needs them.
 */
struct tr2_ev {
	const char *file;
	int line;
	uint64_t us_now;  /* wall clock, microseconds since the epoch */
	uint64_t us_abs;  /* t_abs */
	uint64_t us_rel;  /* t_rel, where the event has one */
	struct tr2_tls *tls;
	char local_time[TR2_LOCAL_TIME_LEN]; /* valid if has_local_time */
	char utc_time[TR2_UTC_TIME_LEN];     /* valid if has_utc_time */
	unsigned has_local_time : 1, has_utc_time : 1;
};

const char *tr2_ev_local_time(struct tr2_ev *ev);
const char *tr2_ev_utc_time(struct tr2_ev *ev);

/* Static description of a timer or counter id. */
struct tr2_metric {
	const char *category;
	const char *name;
	int per_thread; /* also reported per thread (th_timer/th_counter) */
};

struct tr2_tgt {
	struct tr2_dst *dst;
	/* Read the target's own settings after its destination opened. */
	void (*init)(void);

	void (*version)(struct tr2_ev *ev, const char *version);
	void (*too_many_files)(struct tr2_ev *ev);
	void (*start)(struct tr2_ev *ev, const char **argv);
	void (*exit)(struct tr2_ev *ev, int code);
	void (*signal)(struct tr2_ev *ev, int signo);
	void (*atexit)(struct tr2_ev *ev, int code);
	/* msg and fmt are both NULL when fmt was NULL or empty. */
	void (*error)(struct tr2_ev *ev, const char *msg, const char *fmt);
	void (*cmd_path)(struct tr2_ev *ev, const char *path);
	void (*cmd_ancestry)(struct tr2_ev *ev, const char **names);
	void (*cmd_name)(struct tr2_ev *ev, const char *name, const char *hierarchy);
	void (*cmd_mode)(struct tr2_ev *ev, const char *mode);
	void (*alias)(struct tr2_ev *ev, const char *alias, const char **argv);
	void (*child_start)(struct tr2_ev *ev, const struct child_process *cmd);
	void (*child_exit)(struct tr2_ev *ev, const struct child_process *cmd, int code);
	void (*child_ready)(struct tr2_ev *ev, const struct child_process *cmd,
			    const char *ready);
	void (*thread_start)(struct tr2_ev *ev);
	void (*thread_exit)(struct tr2_ev *ev);
	void (*exec)(struct tr2_ev *ev, int exec_id, const char *exe, const char **argv);
	void (*exec_result)(struct tr2_ev *ev, int exec_id, int code);
	void (*param)(struct tr2_ev *ev, const char *param, const char *value,
		      const char *scope);
	void (*repo)(struct tr2_ev *ev, const struct repository *repo);
	/* msg is NULL when fmt was NULL or empty. */
	void (*region_enter)(struct tr2_ev *ev, const char *category,
			     const char *label, const struct repository *repo,
			     const char *msg);
	void (*region_leave)(struct tr2_ev *ev, const char *category,
			     const char *label, const struct repository *repo,
			     const char *msg);
	void (*data)(struct tr2_ev *ev, const char *category,
		     const struct repository *repo, const char *key, const char *value);
	void (*data_json)(struct tr2_ev *ev, const char *category,
			  const struct repository *repo, const char *key,
			  const struct json_writer *jw);
	/* msg is NULL when fmt was NULL or empty. */
	void (*printf)(struct tr2_ev *ev, const char *msg);
	void (*timer)(struct tr2_ev *ev, const struct tr2_metric *m,
		      const struct tr2_timer *t, int per_thread);
	void (*counter)(struct tr2_ev *ev, const struct tr2_metric *m,
			uint64_t value, int per_thread);
};

extern const struct tr2_tgt tr2_tgt_normal;
extern const struct tr2_tgt tr2_tgt_perf;
extern const struct tr2_tgt tr2_tgt_event;

/* Hand a finished record of the event at us_now to the destination
 * (appends the LF if missing) and release the buffer. */
void tr2_tgt_emit(struct tr2_dst *dst, struct tr2_buf *b, uint64_t us_now);

#endif
