/*
 * Signals.  Like Git, a SIGPIPE is reported with a "signal" event, then
 * the previous disposition is restored and the signal raised again.
 * Beyond Git, the terminating signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * and the crash signals get the same treatment, but only where their
 * disposition was the default when tracing started: a signal the host
 * handles or ignores is left alone.  The process dies exactly as it
 * would have without tracing.  POSIX; Windows' are in
 * tr2_plat_win32_proc.c.
 */
#ifndef _WIN32
#include "tr2_signal.h"
#include "tr2_plat.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

/* The ones a write holds, then the crash signals, which it cannot. */
static const int handled[] = {
	TR2_HELD_SIGNALS,
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
};
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))

static struct sigaction previous[NHANDLED];
static tr2_signal_fn *report;
static unsigned char installed[NHANDLED];

static int slot_of(int signo)
{
	size_t i;

	for (i = 0; i < NHANDLED; i++)
		if (handled[i] == signo)
			return (int)i;
	return -1;
}

static void on_signal(int signo)
{
	int saved_errno = errno, slot = slot_of(signo);

	report(signo, slot >= 0 && previous[slot].sa_handler == SIG_DFL &&
			       !(previous[slot].sa_flags & SA_SIGINFO));
	if (slot >= 0) {
		sigaction(signo, &previous[slot], NULL);
		installed[slot] = 0;
	}
	raise(signo);
	errno = saved_errno;
}

/* Whether tracing may take over signo, given its current disposition. */
static int may_take(int signo, const struct sigaction *old)
{
	if (old->sa_flags & SA_SIGINFO)
		return signo == SIGPIPE;
	if (old->sa_handler == SIG_IGN)
		return 0; /* exec'd children inherit SIG_IGN; keep it */
	return old->sa_handler == SIG_DFL || signo == SIGPIPE;
}

void tr2_signals_install(tr2_signal_fn *fn)
{
	struct sigaction sa;
	size_t i;

	report = fn;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	/* Install and learn the old disposition in one call; the rare one
	 * tracing must not take is put back at once. */
	for (i = 0; i < NHANDLED; i++) {
		if (installed[i] || sigaction(handled[i], &sa, &previous[i]))
			continue;
		if (may_take(handled[i], &previous[i]))
			installed[i] = 1;
		else
			sigaction(handled[i], &previous[i], NULL);
	}
}
#endif
