/*
 * The public headers in use, compiled (never linked or run) as C and as
 * C++ for an MSVC target by tests/platforms/test_msvc_headers.sh: only
 * what the headers and the compiler's own freestanding headers declare.
 */
#include "trace2.h"
#include "trace2/target.h"
#ifndef TRACE2_DISABLE /* run.h's compiled-out form is POSIX's posix_spawnp() */
#include "trace2/run.h"
#endif

int msvc_use_regions(const char *label, struct trace2_repository *repo, int n);
int msvc_use_child(const char **argv);

/* label and n are used only by the macros: no unused-parameter warning,
 * whichever form TRACE2_REGION takes. */
int msvc_use_regions(const char *label, struct trace2_repository *repo, int n)
{
	TRACE2_REGION("msvc", label, repo);
	int done = 0;

	for (int i = 0; i < 2; i++) {
		TRACE2_REGION_PRINTF("msvc", "pass", NULL, "pass %d of %d", i, n);
		trace2_region_enter("msvc", "by-hand", repo);
		trace2_data_intmax("msvc", repo, "i", i);
		trace2_region_leave("msvc", "by-hand", repo);
		done++;
	}
	trace2_printf("%d passes, scoped regions %d", done, TRACE2_HAVE_SCOPED_REGIONS);
	return done;
}

int msvc_use_child(const char **argv)
{
	struct trace2_child_process cmd = TRACE2_CHILD_PROCESS_INIT;
	trace2_pid_t *pid = &cmd.pid;

	cmd.args.v = argv;
	cmd.trace2_child_class = "msvc";
	trace2_child_start(&cmd);
	*pid = 4;
	trace2_child_exit(&cmd, 0);
#ifndef TRACE2_DISABLE
	if (trace2_run_command(argv, "msvc"))
		return 1;
#endif
	return trace2_cmd_exit(0);
}

#ifdef __cplusplus
/* The RAII class itself, with and without a message. */
int msvc_use_raii(int n);
int msvc_use_raii(int n)
{
	trace2::region r("msvc", "raii");
	trace2::region m({ __FILE__, __LINE__ }, "msvc", "raii-msg", nullptr, "n=%d", n);

	return n;
}
#endif
