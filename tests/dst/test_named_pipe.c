/*
 * Named-pipe destinations (Windows; docs/embedding.md "Windows"): the
 * driver's event records through //./pipe/NAME to a server of the
 * test's that has one instance and takes one client at a time, as a
 * slow collector does.  A writer that finds the instance busy waits for
 * it (within the destination's wait limit) instead of losing its
 * records; a pipe that never frees costs one warning and leaves the
 * host's exit code alone.  Elsewhere the tests skip: POSIX has no named
 * pipes of this kind (a FIFO path is a file target there).
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

#define WRITERS 8
#define RECORDS 500
#define SERVED_MAX 64

/* What the server read, one buffer per client connection. */
struct server {
	HANDLE pipe;
	char *got[SERVED_MAX];
	size_t len[SERVED_MAX];
	int clients;
	volatile LONG stop;
};

static void pipe_name(wchar_t *out, size_t n, const char *tag)
{
	_snwprintf(out, n, L"\\\\.\\pipe\\t2-%hs-%lu", tag, (unsigned long)GetCurrentProcessId());
}

static HANDLE make_one_instance(const wchar_t *name)
{
	HANDLE h = CreateNamedPipeW(name, PIPE_ACCESS_INBOUND,
				    PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, 1, 65536,
				    65536, 0, NULL);

	assert_true(h != INVALID_HANDLE_VALUE);
	return h;
}

/* Read one client to its end. */
static void read_client(struct server *s)
{
	char buf[65536];
	DWORD got;
	int i = s->clients;

	while (ReadFile(s->pipe, buf, sizeof(buf), &got, NULL) && got) {
		s->got[i] = realloc(s->got[i], s->len[i] + got);
		memcpy(s->got[i] + s->len[i], buf, got);
		s->len[i] += got;
	}
	if (s->len[i] && s->clients < SERVED_MAX - 1)
		s->clients++;
}

/* One client at a time until told to stop (then a last client, the
 * test itself, comes to end the wait for it). */
static DWORD WINAPI serve(void *p)
{
	struct server *s = p;

	while (!InterlockedCompareExchange(&s->stop, 0, 0)) {
		if (!ConnectNamedPipe(s->pipe, NULL) && GetLastError() != ERROR_PIPE_CONNECTED)
			break;
		read_client(s);
		DisconnectNamedPipe(s->pipe);
	}
	return 0;
}

/* The driver's path: T2_BIN, a Unix path under Wine ("Z:" is its root). */
static void driver_path(char *out, size_t n)
{
	const char *bin = getenv("T2_BIN");

	if (!bin || !*bin)
		bin = "build/mingw64/bin";
	snprintf(out, n, "%s%s/trace2-tool.exe", bin[0] == '/' ? "Z:" : "", bin);
}

/* Start the driver with the command line's arguments after its name;
 * stderr into err (or inherited). */
static HANDLE start_driver(const char *args, HANDLE err)
{
	static char line[32768];
	char exe[4096];
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;

	driver_path(exe, sizeof(exe));
	snprintf(line, sizeof(line), "\"%s\" %s", exe, args);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	if (err) {
		si.dwFlags = STARTF_USESTDHANDLES;
		si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
		si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
		si.hStdError = err;
	}
	assert_true(CreateProcessA(exe, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
	CloseHandle(pi.hThread);
	return pi.hProcess;
}

static DWORD wait_exit(HANDLE process)
{
	DWORD code = 999;

	assert_int_equal(WaitForSingleObject(process, 60000), WAIT_OBJECT_0);
	GetExitCodeProcess(process, &code);
	CloseHandle(process);
	return code;
}

/* Lines of one client: each whole (a JSON object), its data records. */
static int count_data_lines(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int data = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		assert_non_null(nl);
		assert_true(nl - p > 12 && !strncmp(p, "{\"event\":\"", 10) && nl[-1] == '}');
		data += !strncmp(p, "{\"event\":\"data\"", 15);
		p = nl + 1;
	}
	return data;
}

static void stop_server(struct server *s, const wchar_t *name, HANDLE thread)
{
	HANDLE last;

	InterlockedExchange(&s->stop, 1);
	WaitNamedPipeW(name, 5000);
	last = CreateFileW(name, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
	if (last != INVALID_HANDLE_VALUE)
		CloseHandle(last);
	assert_int_equal(WaitForSingleObject(thread, 10000), WAIT_OBJECT_0);
	CloseHandle(thread);
	CloseHandle(s->pipe);
}

static void eight_writers_one_instance(void **state)
{
	static struct server s;
	static char args[16384];
	wchar_t name[128];
	char value[160];
	HANDLE thread, writers[WRITERS];
	size_t at;
	int i;

	(void)state;
	pipe_name(name, 128, "eight");
	s.pipe = make_one_instance(name);
	thread = CreateThread(NULL, 0, serve, &s, 0, NULL);
	/* //./pipe/NAME, as users write it in a config file */
	snprintf(value, sizeof(value), "//./pipe/t2-eight-%lu", (unsigned long)GetCurrentProcessId());
	SetEnvironmentVariableA("GIT_TRACE2_EVENT", value);
	at = (size_t)snprintf(args, sizeof(args), "trace2 006data");
	for (i = 0; i < RECORDS; i++)
		at += (size_t)snprintf(args + at, sizeof(args) - at, " c k%d v", i);
	for (i = 0; i < WRITERS; i++)
		writers[i] = start_driver(args, NULL);
	for (i = 0; i < WRITERS; i++)
		assert_int_equal(wait_exit(writers[i]), 0);
	SetEnvironmentVariableA("GIT_TRACE2_EVENT", NULL);
	stop_server(&s, name, thread);
	print_message("%d clients served one at a time\n", s.clients);
	assert_int_equal(s.clients, WRITERS);
	for (i = 0; i < s.clients; i++) {
		assert_int_equal(count_data_lines(s.got[i], s.len[i]), RECORDS);
		free(s.got[i]);
	}
}

/* A temporary file for the driver's stderr, inheritable. */
static HANDLE scratch_file(char *path, size_t n)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	char dir[MAX_PATH];

	GetTempPathA(sizeof(dir), dir);
	snprintf(path, n, "%st2-pipe-err-%lu.txt", dir, (unsigned long)GetCurrentProcessId());
	return CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
			   &sa, CREATE_ALWAYS, FILE_ATTRIBUTE_TEMPORARY, NULL);
}

static void never_free_warns_once(void **state)
{
	wchar_t name[128];
	char value[160], path[MAX_PATH + 64], err[4096];
	HANDLE pipe, holder, out;
	DWORD got = 0, start;
	const char *p;
	int warnings = 0;

	(void)state;
	pipe_name(name, 128, "held");
	pipe = make_one_instance(name);
	/* the test holds the only instance for the whole run */
	holder = CreateFileW(name, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
	assert_true(holder != INVALID_HANDLE_VALUE);
	snprintf(value, sizeof(value), "\\\\.\\pipe\\t2-held-%lu", (unsigned long)GetCurrentProcessId());
	SetEnvironmentVariableA("GIT_TRACE2_EVENT", value);
	SetEnvironmentVariableA("GIT_TRACE2_DST_TIMEOUT", "300");
	out = scratch_file(path, sizeof(path));
	assert_true(out != INVALID_HANDLE_VALUE);
	start = GetTickCount();
	assert_int_equal(wait_exit(start_driver("trace2 001return 7", out)), 7);
	print_message("the run took %lu ms with a 300 ms limit\n", (unsigned long)(GetTickCount() - start));
	SetEnvironmentVariableA("GIT_TRACE2_EVENT", NULL);
	SetEnvironmentVariableA("GIT_TRACE2_DST_TIMEOUT", NULL);
	SetFilePointer(out, 0, NULL, FILE_BEGIN);
	ReadFile(out, err, sizeof(err) - 1, &got, NULL);
	err[got] = '\0';
	CloseHandle(out);
	DeleteFileA(path);
	for (p = err; (p = strstr(p, "stayed busy")); p++)
		warnings++;
	print_message("stderr: %s", err);
	assert_int_equal(warnings, 1);
	CloseHandle(holder);
	CloseHandle(pipe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eight_writers_one_instance),
		cmocka_unit_test(never_free_warns_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#else
static void named_pipes_are_windows(void **state)
{
	(void)state;
	print_message("named pipes are Windows': the Windows build runs this under Wine\n");
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(named_pipes_are_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
