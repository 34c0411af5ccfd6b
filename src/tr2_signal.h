/* Signal handling (tr2_signal.c). */
#ifndef TR2_SIGNAL_H
#define TR2_SIGNAL_H

#include <signal.h>

/* Take over SIGPIPE and the default-disposition terminating signals. */
void tr2_signals_install(void);
/* Block the asynchronous signals tracing handles; old gets the mask to
 * restore with pthread_sigmask(SIG_SETMASK, old, NULL). */
void tr2_signals_block_async(sigset_t *old);
/* Emit the "signal" event from a handler (async-signal-safe); fatal: the
 * process dies next, so buffered records must go out now. */
void tr2_emit_signal(int signo, int fatal);

#endif
