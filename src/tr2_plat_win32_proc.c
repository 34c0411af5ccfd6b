/*
 * What Windows tells of the process, as Git for Windows records it: at
 * start whether a debugger is attached and the parents' executable
 * names from a process snapshot; at exit the memory counters.  And the
 * signal records: the C runtime's signals, unhandled exceptions and the
 * console's Ctrl-C (docs/embedding.md, "Windows: crashes and Ctrl-C").
 */
#ifdef _WIN32
#include "tr2_plat.h"
#include "tr2_plat_ancestry.h"
#include "tr2_gitloc.h"
#include "tr2_signal.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <psapi.h>
#include <signal.h>
#include <stdlib.h>
#include <tlhelp32.h>

/* An executable's name (MAX_PATH UTF-16 units) in UTF-8. */
#define NAME_SIZE (MAX_PATH * 3 + 1)

/* The ids of the snapshot's processes into a new array of *n (NULL when
 * memory runs out: a partial snapshot would end the walk early). */
static struct tr2_plat_proc *snapshot_ids(HANDLE snap, size_t *n)
{
	struct tr2_plat_proc *procs = NULL, *grown;
	PROCESSENTRY32W pe;
	size_t room = 0;

	*n = 0;
	pe.dwSize = sizeof(pe);
	if (!Process32FirstW(snap, &pe))
		return NULL;
	do {
		if (*n == room) {
			room = room ? 2 * room : 256;
			if (!(grown = realloc(procs, room * sizeof(*procs)))) {
				free(procs);
				return NULL;
			}
			procs = grown;
		}
		procs[*n].pid = pe.th32ProcessID;
		procs[*n].ppid = pe.th32ParentProcessID;
		(*n)++;
	} while (Process32NextW(snap, &pe));
	return procs;
}

/* list[0..len) from the walk's out: the names of the snapshot's entries
 * it names (read again, in the same order), or its marker. */
static void name_entries(HANDLE snap, const size_t *out, size_t len,
			 char (*names)[NAME_SIZE], const char **list)
{
	PROCESSENTRY32W pe;
	size_t i = 0, j;

	for (j = 0; j < len; j++)
		list[j] = out[j] == TR2_ANCESTRY_CYCLE ? TR2_ANCESTRY_CYCLE_NAME :
			  out[j] == TR2_ANCESTRY_TRUNCATED ? TR2_ANCESTRY_TRUNCATED_NAME : "";
	list[len] = NULL;
	pe.dwSize = sizeof(pe);
	if (!Process32FirstW(snap, &pe))
		return;
	do {
		for (j = 0; j < len; j++) {
			if (out[j] != i)
				continue;
			if (!WideCharToMultiByte(CP_UTF8, 0, pe.szExeFile, -1, names[j],
						 NAME_SIZE, NULL, NULL))
				names[j][0] = '\0';
			list[j] = names[j];
		}
		i++;
	} while (Process32NextW(snap, &pe));
}

static void report_ancestry(const struct tr2_plat_info_sink *sink)
{
	char names[TR2_ANCESTRY_MAX][NAME_SIZE];
	const char *list[TR2_ANCESTRY_MAX + 1];
	size_t out[TR2_ANCESTRY_MAX], n, len = 0;
	struct tr2_plat_proc *procs;
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);

	if (snap == INVALID_HANDLE_VALUE)
		return;
	if ((procs = snapshot_ids(snap, &n))) {
		len = tr2_plat_ancestry_walk(procs, n, GetCurrentProcessId(), out);
		free(procs);
	}
	if (len)
		name_entries(snap, out, len, names, list);
	CloseHandle(snap);
	if (!len)
		return;
	sink->data_json_strings(TR2_GITLOC_WIN32_ANCESTRY_JSON, "windows/ancestry", list,
				sink->ctx);
	sink->ancestry(TR2_GITLOC_WIN32_ANCESTRY, list, sink->ctx);
}

static void report_memory(const struct tr2_plat_info_sink *sink)
{
	static const char *const keys[] = {
		"PageFaultCount", "PeakWorkingSetSize", "PeakPagefileUsage",
	};
	PROCESS_MEMORY_COUNTERS pmc;
	int64_t values[3];

	if (!K32GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof(pmc)))
		return;
	values[0] = pmc.PageFaultCount;
	values[1] = (int64_t)pmc.PeakWorkingSetSize;
	values[2] = (int64_t)pmc.PeakPagefileUsage;
	sink->data_json_ints(TR2_GITLOC_WIN32_MEMORY, "windows/memory", keys, values, 3,
			     sink->ctx);
}

void tr2_plat_process_info(int at_exit, const struct tr2_plat_info_sink *sink)
{
	if (at_exit) {
		report_memory(sink);
		return;
	}
	if (IsDebuggerPresent())
		sink->data_int(TR2_GITLOC_WIN32_DEBUGGER, "windows/debugger_present", 1, sink->ctx);
	report_ancestry(sink);
}

/* ---------------------------------------------------------------- */
/* Signals: what the C runtime raises, crashes, Ctrl-C.               */

static tr2_signal_fn *report;

/* The C runtime's signals a handler is called for in the thread that
 * raises them (abort(), raise()).  SIGINT and SIGBREAK come from the
 * console: on_console_event(). */
static const int crt_signals[] = { SIGABRT, SIGTERM };

/* Whether the C runtime's disposition of signo is the default (a
 * disposition cannot be read without setting it). */
static int crt_default(int signo)
{
	void (*handler)(int) = signal(signo, SIG_DFL);

	if (handler == SIG_ERR)
		return 0;
	signal(signo, handler);
	return handler == SIG_DFL;
}

/* The runtime has put signo's disposition back to the default before
 * calling; raised again, it ends the process as it would have. */
static void on_crt_signal(int signo)
{
	report(signo, 1);
	signal(signo, SIG_DFL);
	raise(signo);
}

static void take_crt_signals(void)
{
	void (*old)(int);
	size_t i;

	for (i = 0; i < sizeof(crt_signals) / sizeof(crt_signals[0]); i++) {
		old = signal(crt_signals[i], on_crt_signal);
		if (old != SIG_DFL && old != SIG_ERR && old != on_crt_signal)
			signal(crt_signals[i], old); /* the host's: left alone */
	}
}

/* The signal of the C runtime an exception stands for, or 0 (a stack
 * overflow too: too little stack is left to write a record). */
static int exception_signal(DWORD code)
{
	switch (code) {
	case EXCEPTION_ACCESS_VIOLATION:
	case EXCEPTION_IN_PAGE_ERROR:
	case EXCEPTION_ARRAY_BOUNDS_EXCEEDED:
	case EXCEPTION_DATATYPE_MISALIGNMENT:
		return SIGSEGV;
	case EXCEPTION_ILLEGAL_INSTRUCTION:
	case EXCEPTION_PRIV_INSTRUCTION:
		return SIGILL;
	case EXCEPTION_FLT_DENORMAL_OPERAND:
	case EXCEPTION_FLT_DIVIDE_BY_ZERO:
	case EXCEPTION_FLT_INEXACT_RESULT:
	case EXCEPTION_FLT_INVALID_OPERATION:
	case EXCEPTION_FLT_OVERFLOW:
	case EXCEPTION_FLT_STACK_CHECK:
	case EXCEPTION_FLT_UNDERFLOW:
	case EXCEPTION_INT_DIVIDE_BY_ZERO:
	case EXCEPTION_INT_OVERFLOW:
		return SIGFPE;
	default:
		return 0;
	}
}

static LPTOP_LEVEL_EXCEPTION_FILTER previous_filter;

/* An exception nothing caught: recorded unless the host has a handler
 * for its signal (mingw-w64's filter, next in line, calls that), then
 * passed on, so the process ends (or not) as it would have. */
static LONG WINAPI on_exception(EXCEPTION_POINTERS *info)
{
	int signo = exception_signal(info->ExceptionRecord->ExceptionCode);

	if (signo && crt_default(signo))
		report(signo, 1);
	return previous_filter ? previous_filter(info) : EXCEPTION_CONTINUE_SEARCH;
}

/* Ctrl-C and Ctrl-Break, on a thread of their own: recorded unless the
 * host takes them through the C runtime's SIGINT or SIGBREAK; then the
 * next handler (the default ends the process) goes on. */
static BOOL WINAPI on_console_event(DWORD event)
{
	int signo = event == CTRL_C_EVENT ? SIGINT : event == CTRL_BREAK_EVENT ? SIGBREAK : 0;

	if (signo && crt_default(signo))
		report(signo, 1);
	return FALSE;
}

void tr2_signals_install(tr2_signal_fn *fn)
{
	static int installed;

	report = fn;
	if (installed)
		return;
	installed = 1;
	take_crt_signals();
	previous_filter = SetUnhandledExceptionFilter(on_exception);
	SetConsoleCtrlHandler(on_console_event, TRUE);
}
#endif
