/*
 * The serving loop of `trace2 validate --listen`: stream clients, those a
 * listener accepts and connections already open (a socket pair's ends,
 * for tests and the fuzzer), read at once, each a source of one reader,
 * until enough of them have closed.  The listener is a Unix stream
 * socket on POSIX (listen.c), a named pipe on Windows (listen_win32.c).
 */
#ifndef T2_LISTEN_H
#define T2_LISTEN_H

#include <stddef.h>

#include "reader.h"

/* Accepting pauses this long when accept() fails for want of a file
 * descriptor or memory (docs/tools.md). */
#define T2_LISTEN_BACKOFF_MS 100

/* The named pipe's instances waiting for or serving a client at once
 * (Windows; at most 63: one wait covers them and the stop event). */
#define T2_LISTEN_PIPES 32

/* The address --listen takes here, for messages: "af_unix:PATH". */
extern const char t2_listen_form[];

struct t2_listen {
	struct t2_reader *r;
	const char *name;            /* clients are "NAME#1", "NAME#2"... */
	long count;                  /* return once this many closed; 0: no limit */
	int quiet;                   /* no notes on stderr */
};

/* Whether --listen takes address here. */
int t2_listen_address(const char *address);

/*
 * Listen at address and read its clients until l->count of them have
 * closed or the command is interrupted (SIGINT, SIGTERM; Windows: Ctrl-C,
 * Ctrl-Break), then stop listening.  l->name is set to the address.  0,
 * or 2 after a report on stderr when it cannot listen.
 */
int t2_listen_run(struct t2_listen *l, const char *address);

/*
 * Read the connected fds until all have closed (or l->count of them).  A
 * client whose line goes over the reader's limit is dropped alone.  Every
 * fd is closed on return.
 */
void t2_listen_serve(const struct t2_listen *l, const int *fds, size_t nfds);

#endif
