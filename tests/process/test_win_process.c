/*
 * Process information and crashes on Windows (docs/embedding.md,
 * "Windows: process information" and "Windows: crashes and Ctrl-C"),
 * with this program started again as the traced processes: a chain of
 * three, each naming its parents' executables in windows/ancestry and
 * then cmd_ancestry, and windows/memory at exit; abort() and an access
 * violation, each ending with the exit code it has untraced, after a
 * signal record.  Elsewhere the tests skip (tests/process/test_signals.c
 * and test_ancestry_walk.c cover the rest everywhere).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace2.h"

#define CHAIN 3
#define LOG_MAX 65536
#define FIELD_MAX 1024

/* ------------------------------------------------------------------ */
/* The traced processes                                                */

static HANDLE start_self(const char *args)
{
	char exe[MAX_PATH], line[MAX_PATH + 64];
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;

	GetModuleFileNameA(NULL, exe, sizeof(exe));
	snprintf(line, sizeof(line), "\"%s\" %s", exe, args);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (!CreateProcessA(exe, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return NULL;
	CloseHandle(pi.hThread);
	return pi.hProcess;
}

static DWORD wait_exit(HANDLE process)
{
	DWORD code = 999;

	if (WaitForSingleObject(process, 60000) == WAIT_OBJECT_0)
		GetExitCodeProcess(process, &code);
	CloseHandle(process);
	return code;
}

/* "chain N": traced, starts "chain N-1" while N > 1. */
static int run_chain(int n)
{
	const char *argv[] = { "test_win_process", "chain", NULL };
	char args[32];
	HANDLE child;

	trace2_initialize();
	trace2_cmd_start(argv);
	trace2_collect_process_info(TRACE2_PROCESS_INFO_STARTUP);
	if (n > 1) {
		snprintf(args, sizeof(args), "chain %d", n - 1);
		if (!(child = start_self(args)) || wait_exit(child))
			return trace2_cmd_exit(1);
	}
	return trace2_cmd_exit(0);
}

/* "crash abort" or "crash av": dies so, traced if the environment says. */
static int run_crash(const char *how)
{
	int *volatile nowhere = (int *)(uintptr_t)8;

	SetErrorMode(SEM_NOGPFAULTERRORBOX); /* no dialog */
	trace2_initialize();
	if (!strcmp(how, "abort"))
		abort();
	*nowhere = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The tests                                                            */

static char log_path[MAX_PATH];

static void trace_to_log(void)
{
	char dir[MAX_PATH];

	GetTempPathA(sizeof(dir), dir);
	snprintf(log_path, sizeof(log_path), "%st2-winproc-%lu.log", dir,
		 (unsigned long)GetCurrentProcessId());
	DeleteFileA(log_path);
	SetEnvironmentVariableA("GIT_TRACE2_EVENT", log_path);
	SetEnvironmentVariableA("GIT_TRACE2_EVENT_BRIEF", "1");
}

static void untraced(void)
{
	SetEnvironmentVariableA("GIT_TRACE2_EVENT", NULL);
	SetEnvironmentVariableA("GIT_TRACE2_EVENT_BRIEF", NULL);
}

/* The log's lines, NUL-terminated each (a whole line ends in '\n'). */
static char *read_log(void)
{
	static char buf[LOG_MAX];
	FILE *f = fopen(log_path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	assert_true(n < sizeof(buf) - 1);
	buf[n] = '\0';
	assert_true(n && buf[n - 1] == '\n');
	return buf;
}

/* The text after "key": in line (to its end, less a closing '}' when
 * last), or after "key":" to the next '"' when quoted; "" if absent. */
static void field(const char *line, const char *key, int quoted, char *out)
{
	char pat[64];
	const char *p, *end = strchr(line, '\n');
	size_t len;

	snprintf(pat, sizeof(pat), quoted ? "\"%s\":\"" : "\"%s\":", key);
	out[0] = '\0';
	if (!(p = strstr(line, pat)) || p > end)
		return;
	p += strlen(pat);
	len = quoted ? (size_t)(strchr(p, '"') - p) : (size_t)(end - p) - (end[-1] == '}');
	assert_true(len < FIELD_MAX);
	memcpy(out, p, len);
	out[len] = '\0';
}

static int has(const char *line, const char *text)
{
	const char *p = strstr(line, text);

	return p && p < strchr(line, '\n');
}

/* This program's file name ("test_win_process.exe"). */
static const char *own_name(void)
{
	static char path[MAX_PATH];
	char *slash;

	GetModuleFileNameA(NULL, path, sizeof(path));
	slash = strrchr(path, '\\');
	return slash ? slash + 1 : path;
}

/* Whether the JSON array names starts with name n times. */
static int starts_with_names(const char *names, const char *name, int n)
{
	char want[FIELD_MAX];
	size_t len = 0;
	int i;

	want[len++] = '[';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%s\"%s\"", i ? "," : "",
					name);
	return !strncmp(names, want, len) && (names[len] == ',' || names[len] == ']');
}

/* Whether value is {"PageFaultCount":N,"PeakWorkingSetSize":N,"PeakPagefileUsage":N}. */
static int is_memory(const char *value)
{
	static const char *const keys[] = {
		"{\"PageFaultCount\":", ",\"PeakWorkingSetSize\":", ",\"PeakPagefileUsage\":",
	};
	size_t i, len;

	for (i = 0; i < 3; i++) {
		len = strlen(keys[i]);
		if (strncmp(value, keys[i], len))
			return 0;
		value += len;
		if (*value < '0' || *value > '9')
			return 0;
		while (*value >= '0' && *value <= '9')
			value++;
	}
	return !strcmp(value, "}");
}

/* Per process of the chain, by its depth: what its records said. */
struct proc {
	char sid[FIELD_MAX], ancestry_json[FIELD_MAX], ancestry[FIELD_MAX];
	int memory;
};

static void collect(const char *log, struct proc *procs)
{
	char sid[FIELD_MAX], value[FIELD_MAX];
	const char *line, *slash;
	struct proc *p;
	int depth;

	for (line = log; *line; line = strchr(line, '\n') + 1) {
		field(line, "sid", 1, sid);
		for (depth = 0, slash = sid; (slash = strchr(slash, '/')); slash++)
			depth++;
		assert_true(depth < CHAIN);
		p = &procs[depth];
		strcpy(p->sid, sid);
		if (has(line, "\"key\":\"windows/ancestry\"")) {
			assert_string_equal(p->ancestry, ""); /* before cmd_ancestry */
			field(line, "value", 0, p->ancestry_json);
		} else if (has(line, "\"event\":\"cmd_ancestry\"")) {
			field(line, "ancestry", 0, p->ancestry);
		} else if (has(line, "\"key\":\"windows/memory\"")) {
			field(line, "value", 0, value);
			p->memory = is_memory(value);
		}
	}
}

static void chain_of_three(void **state)
{
	struct proc procs[CHAIN];
	int depth;

	(void)state;
	memset(procs, 0, sizeof(procs));
	trace_to_log();
	assert_int_equal(wait_exit(start_self("chain 3")), 0);
	collect(read_log(), procs);
	for (depth = 0; depth < CHAIN; depth++) {
		struct proc *p = &procs[depth];

		print_message("depth %d: %s\n", depth, p->ancestry);
		/* its traced parents, then this runner */
		assert_true(starts_with_names(p->ancestry, own_name(), depth + 1));
		assert_string_equal(p->ancestry_json, p->ancestry);
		assert_true(p->memory);
	}
	DeleteFileA(log_path);
	untraced();
}

/* "crash how" untraced, then traced: the same exit code, want; the
 * traced one wrote the signal record of signo. */
static void expect_crash(const char *how, DWORD want, int signo)
{
	char args[32], rec[64];

	snprintf(args, sizeof(args), "crash %s", how);
	untraced();
	assert_int_equal(wait_exit(start_self(args)), want);
	trace_to_log();
	assert_int_equal(wait_exit(start_self(args)), want);
	snprintf(rec, sizeof(rec), "\"event\":\"signal\",");
	assert_non_null(strstr(read_log(), rec));
	snprintf(rec, sizeof(rec), "\"signo\":%d}", signo);
	assert_non_null(strstr(read_log(), rec));
	DeleteFileA(log_path);
	untraced();
}

static void abort_keeps_exit_code(void **state)
{
	(void)state;
	expect_crash("abort", 3, 22);
}

static void access_violation_keeps_exit_code(void **state)
{
	(void)state;
	expect_crash("av", 0xC0000005, 11);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(chain_of_three),
		cmocka_unit_test(abort_keeps_exit_code),
		cmocka_unit_test(access_violation_keeps_exit_code),
	};

	if (argc == 3 && !strcmp(argv[1], "chain"))
		return run_chain(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "crash"))
		return run_crash(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
static void process_information_is_windows(void **state)
{
	(void)state;
	print_message("Windows' process information and crashes: the Windows build runs this under Wine\n");
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(process_information_is_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
