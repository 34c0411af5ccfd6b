/* Signal handling (tr2_signal.c; on Windows tr2_plat_win32_proc.c). */
#ifndef TR2_SIGNAL_H
#define TR2_SIGNAL_H

/* What the handler reports a signal to before the process meets it
 * (async-signal-safe); fatal: the process dies next. */
typedef void tr2_signal_fn(int signo, int fatal);
/* Take over SIGPIPE and the default-disposition terminating signals. */
void tr2_signals_install(tr2_signal_fn *fn);

#endif
