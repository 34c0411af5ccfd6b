/*
 * The inputs of the replay on Windows, which has no fork(): this program
 * starts itself again with the same command line, and that child
 * initializes the fuzzer and runs the inputs from the first one not yet
 * run, one after the other, as libFuzzer runs them in one process.
 * Before each input it tells the parent the input's index through a
 * pipe; when the child ends with an exit code other than 0 (a failed
 * check's abort(), an exception, REPLAY_TIMEOUT), the input it was
 * running failed, and the next child starts after it.  A child each
 * input would cost a process start each (~50 ms under Wine, 1,900
 * inputs); this costs one each failure.
 */
#ifdef _WIN32
#include "fuzz.h"
#include "replay.h"

#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

/* The child's environment variable: "FIRST PIPE" (the first input's
 * index, the pipe's inherited handle). */
#define CHILD_VAR "T2_REPLAY_CHILD"
/* A child's exit code when its input went over REPLAY_TIMEOUT. */
#define TIMEOUT_EXIT 124

/* What the child is running (the fuzzer's initialization, then each
 * input), and an event set as each input starts. */
static const char *volatile running = "LLVMFuzzerInitialize()";
static HANDLE started;

/* Ends the child when an input runs longer than REPLAY_TIMEOUT. */
static DWORD WINAPI watchdog(void *arg)
{
	(void)arg;
	while (WaitForSingleObject(started, REPLAY_TIMEOUT * 1000) == WAIT_OBJECT_0)
		;
	fprintf(stderr, "replay: %s: still running after %d s\n", running, REPLAY_TIMEOUT);
	fflush(stderr);
	TerminateProcess(GetCurrentProcess(), TIMEOUT_EXIT);
	return 0;
}

/* A crash ends the child with the exception's code, not in a debugger
 * (Wine starts one, whatever SetErrorMode() says). */
static LONG WINAPI crashed(EXCEPTION_POINTERS *e)
{
	(void)e;
	return EXCEPTION_EXECUTE_HANDLER;
}

static void tell_parent(HANDLE pipe, uint32_t index)
{
	DWORD done;

	FZ_CHECK(WriteFile(pipe, &index, sizeof(index), &done, NULL) && done == sizeof(index));
}

/* The child: names[first..nr) in this process. */
static void run_child(char *const *names, size_t nr, const char *var, int *argc, char ***argv)
{
	unsigned long long first, pipe;
	size_t i;

	FZ_CHECK(sscanf(var, "%llu %llu", &first, &pipe) == 2);
	FZ_CHECK(first < nr);
	/* a crash is a failed input, not a debugger's start */
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
	SetUnhandledExceptionFilter(crashed);
	SetEnvironmentVariableA(CHILD_VAR, NULL);
	_putenv(CHILD_VAR "=");
	started = CreateEventA(NULL, FALSE, FALSE, NULL);
	FZ_CHECK(started != NULL);
	FZ_CHECK(CreateThread(NULL, 0, watchdog, NULL, 0, NULL) != NULL);
	replay_initialize(argc, argv);
	for (i = (size_t)first; i < nr; i++) {
		running = names[i];
		SetEvent(started);
		tell_parent((HANDLE)(uintptr_t)pipe, (uint32_t)i);
		replay_one(names[i]);
	}
	fflush(NULL);
	exit(0);
}

/*
 * A child that runs names[first..): the index of the last input it
 * started (first - 1: none) and its exit code.
 */
static size_t start_child(size_t first, DWORD *code)
{
	SECURITY_ATTRIBUTES inherit = { sizeof(inherit), NULL, TRUE };
	STARTUPINFOW si;
	PROCESS_INFORMATION pi;
	WCHAR exe[MAX_PATH];
	HANDLE rd, wr;
	char var[64];
	uint32_t index;
	size_t last = first - 1;
	DWORD got, n;

	FZ_CHECK(CreatePipe(&rd, &wr, &inherit, 0));
	FZ_CHECK(SetHandleInformation(rd, HANDLE_FLAG_INHERIT, 0));
	snprintf(var, sizeof(var), "%zu %llu", first, (unsigned long long)(uintptr_t)wr);
	FZ_CHECK(SetEnvironmentVariableA(CHILD_VAR, var));
	n = GetModuleFileNameW(NULL, exe, MAX_PATH);
	FZ_CHECK(n > 0 && n < MAX_PATH);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	fflush(NULL);
	FZ_CHECK(CreateProcessW(exe, GetCommandLineW(), NULL, NULL, TRUE, 0, NULL, NULL,
				&si, &pi));
	SetEnvironmentVariableA(CHILD_VAR, NULL);
	CloseHandle(wr); /* the child's end only: reads end when it exits */
	CloseHandle(pi.hThread);
	for (;;) {
		for (got = 0; got < sizeof(index); got += n)
			if (!ReadFile(rd, (char *)&index + got, sizeof(index) - got, &n, NULL) || !n)
				break;
		if (got < sizeof(index))
			break;
		last = index;
	}
	CloseHandle(rd);
	WaitForSingleObject(pi.hProcess, INFINITE);
	FZ_CHECK(GetExitCodeProcess(pi.hProcess, code));
	CloseHandle(pi.hProcess);
	return last;
}

size_t replay_all(char *const *names, size_t nr, int *argc, char ***argv)
{
	const char *var = getenv(CHILD_VAR);
	size_t first = 0, last, ok = 0;
	DWORD code;

	/* bytes as they are: files, and the summary the Makefile reads */
	_fmode = _O_BINARY;
	_setmode(1, _O_BINARY);
	_setmode(2, _O_BINARY);
	if (var)
		run_child(names, nr, var, argc, argv);
	/* the children's scratch directories in one of this process's,
	 * removed at its exit even if they crash */
	fz_setenv("TMPDIR", fz_tempdir("replay"));
	while (first < nr) {
		last = start_child(first, &code);
		if (last == first - 1) {
			fprintf(stderr, "FAIL: the replay's child ended (exit code 0x%lx) "
				"before its first input, %s\n", (unsigned long)code, names[first]);
			return ok;
		}
		/* those before the last passed; the last did if the child exited 0 */
		ok += last - first + !code;
		if (code)
			fprintf(stderr, "FAIL %s: exit code 0x%lx\n", names[last], (unsigned long)code);
		first = last + 1;
	}
	return ok;
}
#endif
