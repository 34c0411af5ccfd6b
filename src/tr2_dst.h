/*
 * Destinations: where a target's records go (stderr, an inherited fd, an
 * append-mode file, a per-process file in a directory, an AF_UNIX
 * socket, a named pipe on Windows).  Knows nothing of formats: it writes
 * whole records.
 */
#ifndef TR2_DST_H
#define TR2_DST_H

#include "tr2_plat.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tr2_sys.h"
#include "tr2_sysenv.h"

enum tr2_dst_kind {
	TR2_DST_FILE,   /* regular file: a plain write() */
	TR2_DST_STREAM, /* pipe, terminal, unknown: a write that never waits
			 * for room and raises no SIGPIPE */
	TR2_DST_SOCKET, /* send(TR2_MSG_NOSIGNAL) with signals held */
	TR2_DST_SINK,   /* no descriptor: each record to a function */
	TR2_DST_LATER,  /* a file or socket named but not made or connected
			 * yet: the first write does it
			 * (tr2_dst_create_at_first_write()) */
};

/* A sink's function: take one whole record; 0, or -1 with errno set,
 * which switches the destination off. */
typedef int tr2_dst_sink_fn(void *data, const void *record, size_t len);

/* The most bytes a target's head may have (TRACE2_OUTPUT_HEAD_MAX). */
#define TR2_DST_HEAD_MAX 64

struct tr2_dst {
	int setting;            /* the settings row naming this destination */
	int slot;               /* index of its per-thread buffer, once open */
	int unbatched;          /* each record its own write, never buffered
				 * with others: a datagram socket, or one its
				 * first write may connect as one */
	int fd;                 /* -1 while off */
	int open_fd;            /* what trace2 opened: closed at exit only, so
				 * a failure never closes it under a writer */
	int failed;             /* atomic: the first failure reports */
	unsigned initialized : 1;
	unsigned too_many_files : 1; /* writing into the discard sentinel */
	unsigned created : 1;        /* this process starts the stream (see
				      * struct trace2_target_config) */
	unsigned own_file : 1;       /* a new file of this process's own in a
				      * directory */
	unsigned datagram : 1;       /* a record is one datagram */
	unsigned fifo : 1;           /* a pipe or FIFO: a piece of at most
				      * PIPE_BUF bytes goes out whole or not */
	unsigned fd_closed : 1;      /* a number given not open at open: its
				      * first write fails (EBADF) without
				      * touching it, as Git's first write does */
	int has_identity;       /* dev and ino are known; not a bit: a file
				 * made at its first write (the flight
				 * recorder) sets it on whichever thread
				 * writes first, while others read the bits */
	dev_t dev;              /* what it writes to (an AF_UNIX target: the */
	ino_t ino;              /* socket's file), to find the targets that
				 * share a stalled destination */
	int taken;              /* directory mode: path is the base name and
				 * this the number of the name taken (0: the
				 * base itself, 1..9: <base>.<n>) */
	enum tr2_dst_kind kind;
	char *path;             /* the file trace2 opened (directory mode: its
				 * base name), for tr2_dst_reopen() */
	uint64_t max_size;      /* maxFileSize of a file trace2 opened; 0: none */
	char head[TR2_DST_HEAD_MAX]; /* what a new file starts with (reopen) */
	size_t head_len;
	unsigned file_gen;      /* atomic: bumped when a reopen puts another
				 * file in place */
	/* the target's own line for a full file (maxFileSize), or NULL */
	size_t (*full_line)(char *line, size_t size, const void *record, size_t len,
			    uint64_t max_size);
	uint64_t size;          /* atomic: the file's bytes, as this process
				 * counts them from its size when opened */
	int capped;             /* atomic: the sentinel line was written */
	int nonblocking;        /* a stream trace2 opened, O_NONBLOCK kept */
	int poll_first;         /* atomic: a stream the kernel cannot write
				 * without blocking (terminals): poll first */
	int hold_signals;       /* atomic: the kernel cannot keep a write to
				 * this FIFO from raising SIGPIPE */
	/* TR2_DST_LATER: how the first write makes the file, or connects */
	unsigned exclusive_first : 1; /* exclusively first, to learn whether
				       * it made it (then the head goes in) */
	unsigned nofollow : 1;        /* no symlink was there when named */
	unsigned later_socket : 1;    /* path is an AF_UNIX socket's */
	unsigned later_stream : 1;    /* its connection: a stream, */
	unsigned later_dgram : 1;     /* or a datagram one, as allowed */
	int later;              /* atomic: how far making it got (tr2_dst.c) */
	/* pipes and sockets: one thread's record at a time, so records of
	 * several pieces never interleave */
	tr2_mutex lock;
	/* TR2_DST_SINK: where its records go (last, so the hot path's
	 * members keep their offsets) */
	tr2_dst_sink_fn *sink;
	void *sink_data;
};

/* Set what a file put in place by tr2_dst_reopen() starts with: 0, or -1
 * if it is longer than TR2_DST_HEAD_MAX. */
int tr2_dst_set_head(struct tr2_dst *dst, const void *head, size_t len);
/* Set the target's own sentinel line for a full file (see
 * trace2_output_set_full_line()); NULL: the generic one. */
void tr2_dst_set_full_line(struct tr2_dst *dst,
			   size_t (*fn)(char *line, size_t size, const void *record,
					size_t len, uint64_t max_size));

/* How many destinations can be open at once (one per target). */
#define TR2_DST_MAX 32
/* A destination named by a settings row, not yet open. */
void tr2_dst_init(struct tr2_dst *dst, int setting);
/* In a signal handler, how long a pipe's interrupted record may wait
 * for room (at most the wait limit). */
#define TR2_DST_SIGNAL_WAIT_MS 500
/*
 * The wait limit (GIT_TRACE2_DST_TIMEOUT), read when a destination is
 * opened: how long a record may wait for room in a pipe or socket
 * (sockets: the send timeout) and a connect() for a collector's backlog
 * before the destination is given up, with every target writing to it.
 */
int tr2_dst_wait_limit_ms(void);

/*
 * What a target value asks for (docs/configuration.md, "Target values"),
 * without opening it.
 */
enum tr2_dst_form {
	TR2_DST_OFF,       /* unset, "", "0", "false" */
	TR2_DST_STDERR,    /* "1", "true" */
	TR2_DST_FD,        /* one digit */
	TR2_DST_PATH,      /* an absolute path: a file, or a new file in it
			    * if it is a directory (found when opened) */
	TR2_DST_AF_UNIX,   /* "af_unix:..." */
	TR2_DST_UNKNOWN,   /* anything else: warned about, off */
};
enum tr2_dst_form tr2_dst_classify(const char *value);

/*
 * From now on (on: 1), tr2_dst_open() names a file, a directory's new
 * file (maxFiles counted) or an AF_UNIX collector but leaves making the
 * file or connecting to the destination's first write, which may come
 * from a signal handler: a run that writes nothing (the flight recorder
 * untriggered) leaves no file behind and makes no connection.  Anything
 * else a value names (stderr, an fd, a FIFO, a device, a named pipe) is
 * opened at once, as always.
 */
void tr2_dst_create_at_first_write(int on);

/* Resolve the destination from its setting (once); 1 if usable.
 * want_created: learn dst->created for a file reliably (an exclusive
 * create first). */
int tr2_dst_open(struct tr2_dst *dst, int want_created);
/* Use an fd the caller opened (and keeps open) as the destination. */
void tr2_dst_attach_fd(struct tr2_dst *dst, int fd);
/*
 * A destination that hands each whole record to fn(data, ...) in the
 * writing thread, for a program that runs a built-in target on records
 * it has itself (the trace2 command's convert) or a test that reads what
 * a target writes.  It is on until fn fails; a failure is fn's to report
 * (none is announced).  No settings row, no buffering slot, no lock: one
 * thread writes to it.
 */
void tr2_dst_init_sink(struct tr2_dst *dst, tr2_dst_sink_fn *fn, void *data);
static inline int tr2_dst_is_on(const struct tr2_dst *dst)
{
	return dst->fd >= 0;
}
/*
 * The first write() of a record that did not take it whole (written is
 * what it returned, errno is its error), or of a record for a pipe or a
 * socket (written is 0): completes it, or switches the destination off
 * and reports it (tr2_diag_dst_failed()).
 */
void tr2_dst_write_rest(struct tr2_dst *dst, const char *buf, size_t len,
			ssize_t written);

/*
 * A file with a maxFileSize: whether len more bytes keep it within the
 * size.  The write that would pass it writes the sentinel line instead
 * (the target's own, if it set one), once; no write after it does.
 */
int tr2_dst_room_for(struct tr2_dst *dst, const char *record, size_t len);

/*
 * Write a record (or a buffer of whole records) now, in one write().
 * EINTR is retried and short writes completed; any other failure switches
 * the destination off.  Inline, like tr2_dst_write(): every frame between
 * the write() and the host's call costs a mispredicted return after the
 * system call (docs/internals.md, "Few frames after the write()").
 */
static inline void tr2_dst_write_now(struct tr2_dst *dst, const char *buf, size_t len)
{
	int fd = dst->fd;
	ssize_t w;

	if (dst->kind != TR2_DST_FILE) {
		tr2_dst_write_rest(dst, buf, len, 0);
		return;
	}
	if (fd < 0 || (dst->max_size && !tr2_dst_room_for(dst, buf, len)))
		return;
	w = tr2_sys.write(fd, buf, len);
	if (w != (ssize_t)len)
		tr2_dst_write_rest(dst, buf, len, w);
}

#include "tr2_dst_buffer.h"

/*
 * Write one whole record of an event at us_now.  In buffered mode the
 * record may wait in the calling thread's buffer (see tr2_dst_flush_*()).
 */
static inline void tr2_dst_write(struct tr2_dst *dst, const char *buf, size_t len,
				 uint64_t us_now)
{
	if (tr2_dst_buffered)
		tr2_dst_write_buffered(dst, buf, len, us_now);
	else
		tr2_dst_write_now(dst, buf, len);
}

/* While on, writes wait only briefly and failures are not reported (the
 * reporting is not async-signal-safe). */
void tr2_dst_signal_context(int on);
/* Whether the calling thread is inside tr2_dst_signal_context(1). */
int tr2_dst_in_signal_context(void);
/* From a signal handler: complete the record the interrupted code of this
 * thread was writing, so the handler's own record does not land inside. */
void tr2_dst_finish_interrupted(void);

/* Close what trace2 opened; the destination is off afterwards. */
void tr2_dst_close(struct tr2_dst *dst);
/* In a forked child: the lock may be held by a thread that is gone. */
void tr2_dst_after_fork(struct tr2_dst *dst);
/*
 * Close a file trace2 opened by its name and open that name again, for
 * log rotation: the records after it go to the file the name now
 * denotes (created if missing), opened as at the first open.  Directory
 * mode: the process's own file stays while its name still denotes it;
 * otherwise a new file is created exclusively under the first free of
 * the names the first open tries (never through a symlink, never a file
 * someone else made).  The descriptor number stays (dup3()), so a write
 * racing with it goes whole to the old or the new file.  Not reopened:
 * the maxFiles sentinel, a failed destination, a name that no longer
 * denotes a regular file.  Async-signal-safe.  1 if reopened.
 */
int tr2_dst_reopen(struct tr2_dst *dst);
/* Let tr2_dst_open() resolve the setting again (after tr2_dst_close()). */
void tr2_dst_forget(struct tr2_dst *dst);

#endif
