/*
 * trace2 convert --to chrome|perf|normal|event [--brief] FILE...: every
 * record read from the event-format files and recordings is handed to the
 * library's own chrome, perf, normal or event target, writing to standard
 * output.  --to chrome also
 * reads Chrome files (chrome_out.c).  --to otlp: OpenTelemetry traces
 * (otlp.c).
 */
#include "convert.h"
#include "alloc.h"
#include "chrome_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otlp.h"
#include "output.h"
#include "reader.h"
#include "tr2_replay.h"
#include "trace2/target.h"
#include "usage.h"

/*
 * Standard output, buffered: the targets hand over one record at a time
 * (a sink destination); the converter is one thread that owns its
 * output, so it collects records and writes them 64 KiB at a time,
 * without the care a traced program's write() needs (signals held, a
 * bounded wait).
 */
static char out_buf[65536];
static size_t out_len;
static int out_errno; /* the first failure */

static int out_write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(1, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			if (!out_errno)
				out_errno = errno;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int out_flush(void)
{
	int r = out_write_all(out_buf, out_len);

	out_len = 0;
	return r;
}

static int out_put(const char *p, size_t n)
{
	if (out_len + n > sizeof(out_buf) && out_flush())
		return -1;
	if (n > sizeof(out_buf))
		return out_write_all(p, n);
	memcpy(out_buf + out_len, p, n);
	out_len += n;
	return 0;
}

/*
 * Chrome: the chrome target's records ("{...},\n") and the lines of
 * Chrome files go to chrome_out.c, which writes them all at the end; a
 * record is of the process whose target state is writing.
 */
static int chrome;
static unsigned chrome_writer;

static void chrome_put(const char *p, size_t n)
{
	const char *why = chrome_out_line(chrome_writer, p, n);

	if (why)
		fprintf(stderr, "trace2: an event of the chrome target left out: %s\n", why);
}

/* The destination's sink: a record of the target. */
static int out_record(void *data, const void *record, size_t n)
{
	(void)data;
	if (!chrome)
		return out_put(record, n);
	chrome_put(record, n);
	return 0;
}

struct convert {
	struct tr2_dst dst;                   /* standard output */
	struct tr2_replay *target;            /* perf, normal, event */
	int brief;
	struct t2_reader *reader;
	long next_pid;                        /* chrome: for SIDs without one */
	char *json;                           /* chrome: a data_json value repaired */
	size_t json_cap;
};

/* Perf, normal or event: one target for the whole input. */
static struct tr2_replay *open_target(const char *name, struct tr2_dst *dst, int brief)
{
	struct tr2_replay_options opt;

	memset(&opt, 0, sizeof(opt));
	opt.brief = brief;
	opt.created = 1;
	return tr2_replay_open_builtin(name, dst, &opt);
}

/* A record to a target, with its local time's offset when it has one (a
 * recording's). */
static void replay(struct tr2_replay *target, struct t2_record *rec)
{
	tr2_replay_utc_offset(target, rec->has_utc_offset, rec->utc_offset);
	tr2_replay_event(target, &rec->ev);
}

static void record(void *ctx, struct t2_record *rec)
{
	struct convert *c = ctx;

	if (!t2_record_usable(rec, 0))
		return;
	replay(c->target, rec);
	if (!tr2_dst_is_on(&c->dst))
		c->reader->stop = 1; /* standard output failed: nothing more to do */
}

/*
 * Chrome: one chrome target state per process, as if each process had
 * written its own trace, with the pid from the SID, where the child's
 * side of a flow takes it.  The state is freed when its trace ends
 * (atexit, signal); what stays per process (t2_process.user, which the
 * reader frees) is a struct chrome_proc.
 *
 * A child run through a shell (use_shell) is the shell: the pid its
 * child_exit gives is not the traced process's, whose cmd_ancestry
 * starts with the shell.  At that child_exit the record's pid becomes the
 * traced process's, when exactly one unlinked such child of the process
 * started within the child's time, so that the flow links them.
 */
#define CHROME_SHELL_KIDS 8

/* The last children started by a shell and the last shell children of a
 * process, allocated with the first of either. */
struct shell_track {
	struct chrome_proc *kids[CHROME_SHELL_KIDS];
	int ids[CHROME_SHELL_KIDS];
	unsigned n_kids, n_ids;
};

struct chrome_proc {
	struct tr2_replay *st;           /* NULL: the trace has ended */
	unsigned out;                    /* its number in chrome_out.c */
	struct chrome_proc *parent;      /* NULL: not in this input */
	struct shell_track *shell;       /* NULL: no shell child yet */
	uint32_t pid;
	uint64_t start_us;
	unsigned under_shell : 1, linked : 1;
	/* Its last atexit, handed to the target at the end of the input: a
	 * process may write more after it (Git's maintenance run --detach
	 * daemonizes, and its daemon goes on under the same SID). */
	const struct trace2_thread *atexit_thread; /* NULL: none yet */
	uint64_t atexit_us;
	int atexit_code;
};

static struct chrome_proc *parent_of(struct convert *c, const struct t2_process *p)
{
	const char *slash = strrchr(p->pub.sid, '/');
	struct t2_process *pp;

	if (!slash)
		return NULL;
	pp = t2_reader_find(c->reader, p->pub.sid, (size_t)(slash - p->pub.sid));
	return pp ? pp->user : NULL;
}

/* cp's trace (re)starts: a chrome target state of its own. */
static void chrome_state(struct convert *c, struct chrome_proc *cp)
{
	struct tr2_replay_options opt;

	memset(&opt, 0, sizeof(opt));
	opt.brief = c->brief;
	opt.created = 0;      /* the framing is chrome_out.c's */
	opt.link_by_pid = 1;  /* child_exit gives the child's pid */
	opt.pid = (long)cp->pid;
	if (!(cp->st = tr2_replay_open_builtin("chrome", &c->dst, &opt)))
		t2_out_of_memory();
}

static struct chrome_proc *chrome_open(struct convert *c, struct t2_process *p,
				       uint64_t time_us)
{
	struct chrome_proc *cp = t2_calloc(1, sizeof(*cp));

	/* a SID without one (not Git's form), or with one above the range
	 * of pids in a Chrome trace: a pid no system hands out */
	if (t2_pid_of_sid(p->pub.sid, &cp->pid) || cp->pid > 0x7fffffffu)
		cp->pid = 0x7f000000u + (uint32_t)c->next_pid++;
	chrome_state(c, cp);
	cp->out = chrome_out_process(cp->pid);
	cp->start_us = time_us;
	cp->parent = parent_of(c, p);
	p->user = cp;
	return cp;
}

static struct shell_track *shell_track(struct chrome_proc *cp)
{
	if (!cp->shell)
		cp->shell = t2_calloc(1, sizeof(*cp->shell));
	return cp->shell;
}

static int is_shell(const char *name)
{
	static const char *const shells[] = { "sh", "dash", "bash", "zsh", "ksh", "mksh", "ash" };
	size_t i;

	for (i = 0; name && i < sizeof(shells) / sizeof(*shells); i++)
		if (!strcmp(name, shells[i]))
			return 1;
	return 0;
}

static void note_under_shell(struct chrome_proc *cp, const struct trace2_event *ev)
{
	struct chrome_proc *pp = cp->parent;
	struct shell_track *sh;

	if (!pp || cp->under_shell || !ev->cmd_ancestry.names || !is_shell(ev->cmd_ancestry.names[0]))
		return;
	cp->under_shell = 1;
	sh = shell_track(pp);
	sh->kids[sh->n_kids++ % CHROME_SHELL_KIDS] = cp;
}

static int started_by_shell(const struct shell_track *sh, int child_id)
{
	unsigned i;

	for (i = 0; i < sh->n_ids && i < CHROME_SHELL_KIDS; i++)
		if (sh->ids[i] == child_id)
			return 1;
	return 0;
}

/* child_exit of a shell child: the pid of the one process it ran. */
static void link_shell_child(struct chrome_proc *cp, struct trace2_event *ev)
{
	const struct shell_track *sh = cp->shell;
	struct chrome_proc *found = NULL;
	uint64_t begin = ev->time_us - ev->t_rel_us;
	unsigned i;

	if (!sh || !started_by_shell(sh, ev->child.id))
		return;
	for (i = 0; i < sh->n_kids && i < CHROME_SHELL_KIDS; i++) {
		struct chrome_proc *k = sh->kids[i];

		if (k->linked || k->pid == (uint32_t)ev->child.pid || k->start_us < begin ||
		    k->start_us > ev->time_us)
			continue;
		if (found)
			return; /* two candidates: no guess */
		found = k;
	}
	if (found) {
		found->linked = 1;
		ev->child.pid = (pid_t)found->pid;
	}
}

/* The trace of the process ends at ts (if it has not ended itself). */
static void chrome_end(struct chrome_proc *cp, uint64_t ts)
{
	chrome_writer = cp->out;
	tr2_replay_end(cp->st, ts);
	cp->st = NULL;
}

/* Chrome: a data_json value made strict JSON (Git writes the bytes of its
 * strings as they are, which need not be UTF-8). */
static void repair_data_json(struct convert *c, struct trace2_ev_data *d)
{
	size_t need = TRACE2_UTF8_REPAIRED_MAX(d->json_len);

	if (!d->json_len)
		return;
	if (c->json_cap < need) {
		free(c->json);
		c->json = t2_realloc(NULL, need);
		c->json_cap = need;
	}
	d->json_len = trace2_utf8_repair(c->json, c->json_cap, d->json, d->json_len);
	d->json = c->json;
}

static void chrome_record(void *ctx, struct t2_record *rec)
{
	struct convert *c = ctx;
	struct trace2_event *ev = &rec->ev;
	struct chrome_proc *cp;

	if (!t2_record_usable(rec, 0))
		return;
	cp = rec->proc->user ? rec->proc->user : chrome_open(c, rec->proc, ev->time_us);
	if (!cp->st && rec->resumed)
		chrome_state(c, cp); /* it went on after its atexit: Git's daemonized child */
	if (!cp->st)
		return;
	if (ev->kind == TRACE2_EVENT_CMD_ANCESTRY)
		note_under_shell(cp, ev);
	else if (ev->kind == TRACE2_EVENT_CHILD_START && ev->child.use_shell) {
		struct shell_track *sh = shell_track(cp);

		sh->ids[sh->n_ids++ % CHROME_SHELL_KIDS] = ev->child.id;
	}
	else if (ev->kind == TRACE2_EVENT_CHILD_EXIT)
		link_shell_child(cp, ev);
	else if (ev->kind == TRACE2_EVENT_DATA_JSON)
		repair_data_json(c, &ev->data);
	else if (ev->kind == TRACE2_EVENT_ATEXIT) {
		cp->atexit_thread = ev->thread;
		cp->atexit_us = ev->time_us;
		cp->atexit_code = ev->exit.code;
		return;
	}
	chrome_writer = cp->out;
	replay(cp->st, rec);
	if (tr2_replay_ended(cp->st))
		chrome_end(cp, 0);
}

/* A line of a Chrome file. */
static void chrome_file_line(struct t2_reader *r, const char *src, unsigned long lineno,
			     const char *line, size_t len, int no_newline)
{
	const char *why;

	if (r->stop || !(why = chrome_out_line(CHROME_OUT_BY_PID, line, len)))
		return;
	r->bad++;
	if (r->on_bad_line)
		r->on_bad_line(r->ctx, src, lineno, why, 0, no_newline);
}

static t2_line_fn chrome_format_of(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	return chrome_out_is_chrome(line, len) ? chrome_file_line : NULL;
}

/* The process's last atexit, to its target. */
static void replay_atexit(struct chrome_proc *cp, const struct t2_process *p)
{
	struct trace2_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = TRACE2_EVENT_ATEXIT;
	ev.time_us = cp->atexit_us;
	ev.exit.code = cp->atexit_code;
	ev.thread = cp->atexit_thread;
	ev.process = &p->pub;
	chrome_writer = cp->out;
	tr2_replay_event(cp->st, &ev);
}

/* At the end of the input: a process's trace ends at its last atexit; a
 * process whose log ends without one is closed at its last time.  The
 * reader frees the rest. */
static void chrome_close(void *ctx, struct t2_process *p)
{
	struct chrome_proc *cp = p->user;

	(void)ctx;
	if (!cp)
		return;
	if (cp->st && cp->atexit_thread)
		replay_atexit(cp, p);
	if (cp->st)
		chrome_end(cp, p->last_us);
	free(cp->shell);
	cp->shell = NULL;
}

int cmd_convert(int argc, char **argv)
{
	struct convert c;
	struct t2_reader r;
	const char *to = NULL, *out = NULL;
	int brief = 0, i, nfiles = 0, ret = 0, o;

	memset(&c, 0, sizeof(c));
	chrome = 0;
	for (i = 1; i < argc; i++) {
		if ((o = t2_output_option("convert", argc, argv, &i, &out))) {
			if (o == 2)
				return 2;
		} else if (!strcmp(argv[i], "--to") && i + 1 < argc)
			to = argv[++i];
		else if (!strncmp(argv[i], "--to=", 5))
			to = argv[i] + 5;
		else if (!strcmp(argv[i], "--brief"))
			brief = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return usage_show("convert", 0);
		else if (!strcmp(argv[i], "--"))
			{ i++; break; }
		else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("convert", "unknown option '%s'", argv[i]);
		else
			break;
	}
	nfiles = argc - i;
	if (!to)
		return usage_error("convert", "--to chrome|perf|normal|event|otlp is required");
	if (!strcmp(to, "otlp")) {
		if (brief)
			return usage_error("convert", "--brief is for chrome, perf, normal and event");
		if (!nfiles)
			return usage_error("convert", "no input (give FILE, DIR or -)");
		if (t2_output_begin("convert", out, argv + i, nfiles))
			return 1;
		return otlp_convert(argv + i, nfiles, stdout);
	}
	if (!strcmp(to, "chrome"))
		chrome = 1;
	else if (strcmp(to, "perf") && strcmp(to, "normal") && strcmp(to, "event"))
		return usage_error("convert", "unknown format '%s' (chrome, perf, normal, event "
				   "or otlp)",
				   to);
	if (!nfiles)
		return usage_error("convert", "no input (give FILE, DIR or -)");
	if (t2_output_begin("convert", out, argv + i, nfiles))
		return 1;

	tr2_dst_init_sink(&c.dst, out_record, NULL);
	c.brief = brief;
	if (!chrome && !(c.target = open_target(to, &c.dst, brief)))
		return 2;
	t2_reader_init(&r, chrome ? chrome_record : record, t2_report_bad_line, &c);
	c.reader = &r;
	if (chrome)
		r.format_of = chrome_format_of;
	for (; i < argc && !r.stop; i++)
		if (t2_reader_read_path(&r, argv[i]))
			ret = 1;
	if (chrome) {
		t2_reader_each_process(&r, chrome_close, &c);
		chrome_out_write(out_put);
	}
	t2_reader_free(&r);
	if (c.target)
		tr2_replay_end(c.target, 0);
	free(c.json);
	if (tr2_dst_is_on(&c.dst))
		out_flush();
	if (out_errno) {
		fprintf(stderr, "trace2: standard output: %s\n", strerror(out_errno));
		ret = 1;
	}
	if (!tr2_dst_is_on(&c.dst))
		ret = 1;
	return ret;
}
