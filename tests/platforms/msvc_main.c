/*
 * A Windows program as an MSVC toolchain builds it, linked against
 * libtrace2.dll's import library by tests/lib/test_msvc_link.sh (clang
 * for x86_64-pc-windows-msvc, lld-link).  No MSVC C runtime is here, so
 * it is its own entry point and ends with ExitProcess(); what it traces
 * is tests/platforms/msvc_use.c's.
 */
#include "trace2.h"

#ifdef __cplusplus
extern "C" {
#endif
__declspec(dllimport) void __stdcall ExitProcess(unsigned int code);
void msvc_main(void);
#ifdef __cplusplus
}
#endif

int msvc_use_regions(const char *label, struct trace2_repository *repo, int n);
int msvc_use_child(const char **argv);
#ifdef __cplusplus
int msvc_use_raii(int n);
#endif

void msvc_main(void)
{
	static const char *argv[] = { "msvc-main", "first", NULL };
	static const char *child[] = { "cmd.exe", "/c", "exit 0", NULL };
	int code = 0;

	trace2_initialize_clock();
	trace2_initialize();
	trace2_cmd_start(argv);
	if (msvc_use_regions("label", NULL, 2) != 2)
		code = 100;
#ifdef __cplusplus
	if (msvc_use_raii(7) != 7)
		code = 101;
#endif
	/* its trace2_cmd_exit(0) comes after the child, which must succeed */
	if (msvc_use_child(child))
		code = 102;
	ExitProcess(code ? (unsigned int)code : TRACE2_ACTIVE() ? 5u : 6u);
}
