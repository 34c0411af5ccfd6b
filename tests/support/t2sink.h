/*
 * An AF_UNIX listener owned by a test and served by the test process
 * itself (no thread, no server process): a stream socket keeps the bytes
 * of each accepted connection apart, a datagram socket keeps each
 * datagram whole.  Every wait is bounded (poll() with short timeouts, an
 * overall deadline).  Failures are cmocka failures of the running test.
 */
#ifndef T2SINK_H
#define T2SINK_H

#include <stddef.h>

#define T2_SINK_MAX_CONNS 16
/* The deadline of t2_sink_collect(), and a poll round while waiting. */
#define T2_SINK_TIMEOUT_MS 10000
#define T2_SINK_POLL_MS 20

/* n bytes at p, NUL-terminated (p is NULL while nothing came). */
struct t2_buf {
	char *p;
	size_t n;
};

struct t2_sink {
	int fd;     /* listening stream socket or bound datagram socket */
	int type;   /* SOCK_STREAM or SOCK_DGRAM */
	char *dir, *path; /* the socket is <dir>/sock */
	int cfd[T2_SINK_MAX_CONNS]; /* accepted connections, -1 once closed */
	struct t2_buf conn[T2_SINK_MAX_CONNS];
	size_t nconn;
	struct t2_buf *dgram;
	size_t ndgram;
};

/* Whether AF_UNIX sockets of type can be bound here (for a skip). */
int t2_sink_available(int type);
/* A new listener of type (SOCK_STREAM or SOCK_DGRAM) at a new path. */
void t2_sink_open(struct t2_sink *s, int type);
/* Close it and every connection, remove its directory, free it all. */
void t2_sink_close(struct t2_sink *s);
/* One poll round of at most timeout_ms; returns whether anything
 * happened (connection, data, close). */
int t2_sink_pump(struct t2_sink *s, int timeout_ms);
/*
 * Serve s while pid runs, then take what is still queued (every writer
 * has exited by then) until every connection is closed.  Kills pid and
 * fails if it runs past T2_SINK_TIMEOUT_MS.  Returns its wait status.
 */
int t2_sink_collect(struct t2_sink *s, int pid);

#endif
