/*
 * The serving loop of `trace2 validate --listen`: stream clients, those a
 * listening socket accepts and connections already open (a socket pair's
 * ends, for tests and the fuzzer), read at once, each a source of one
 * reader, until enough of them have closed.
 */
#ifndef T2_LISTEN_H
#define T2_LISTEN_H

#include <signal.h>
#include <stddef.h>

#include "reader.h"

/* Accepting pauses this long when accept() fails for want of a file
 * descriptor or memory (docs/tools.md). */
#define T2_LISTEN_BACKOFF_MS 100

struct t2_listen {
	struct t2_reader *r;
	int lfd;                     /* the listening socket; -1: none */
	const char *name;            /* clients are "NAME#1", "NAME#2"... */
	long count;                  /* return once this many closed; 0: no limit */
	volatile sig_atomic_t *stop; /* set (by a signal handler): return */
	int quiet;                   /* no notes on stderr */
};

/*
 * Read the clients of l->lfd and the connected fds until l->count of them
 * have closed, *l->stop is set, or (no listener) all have closed.  A
 * client whose line goes over the reader's limit is dropped alone.  Every
 * client's fd is closed on return, l->lfd is not.
 */
void t2_listen_serve(const struct t2_listen *l, const int *fds, size_t nfds);

#endif
