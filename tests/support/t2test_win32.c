/*
 * t2test.h's processes, files and directories on Windows, which has no
 * fork().  A scenario runs in a new process of this same test program
 * (GetModuleFileNameW() + CreateProcessW()) that replays the test case
 * up to the scenario, then runs it: T2_REPLAY names the cmocka group,
 * the test case, the scenario's call number in it and the runner's
 * journal of that test case.  The journal holds what the runner got from
 * each call before: the temporary directories t2_tmpdir() made, the
 * files t2_read_file() read, the scenarios' results.  The replay gives
 * those back instead of running them again, so the test code before the
 * scenario takes the runner's path and builds the same arguments; the
 * scenario's environment and standard handles are the runner's from the
 * start (the replay's own output goes to NUL until the scenario).  A
 * replay that leaves the runner's path ends with exit code 71 and says
 * where on stderr.  Test programs link with
 * -Wl,--wrap=_cmocka_run_group_tests (tests/platforms/mingw64.mk).
 */
#ifdef _WIN32
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <direct.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wctype.h>
#include <windows.h>

#include "t2test.h"
#include "t2test_plat.h"
#include "trace2.h"

/* The exit code of a replay that left the runner's path. */
#define REPLAY_DIVERGED 71
/* A scenario run by t2_run() may take this long (t2_capture() says). */
#define RUN_TIMEOUT_MS (300 * 1000)

/* The kinds of journal entries: what the runner got from each call
 * (and the calls on files of t2test_plat.h). */
enum entry_kind {
	E_TMPDIR = 'D',	  /* t2_tmpdir(): the path */
	E_RUN = 'R',	  /* t2_run(), t2_run_noinit(): the status */
	E_CAPTURE = 'C',  /* t2_capture(): the status, stdout, stderr */
	E_SCENARIO = 'E', /* the scenario the journal's writer itself ran */
};

struct entry {
	int kind;
	int status;
	int nstr;
	char *str[2];
	size_t len[2];
};

static struct {
	/* The runner's view: the cmocka group and test case running (from
	 * 0; -1: the group's setup), their journal and the calls made in the
	 * test case so far; the journal of the group's setup. */
	int group, test;
	long calls;
	char *journal_dir;
	char *journal;
	char *setup_journal;
	HANDLE out;
	/* In a replay: the journal read and the call that is the scenario.
	 * The journals are Win32 handles, no C runtime descriptors: a
	 * scenario's descriptors are numbered as in a forked child. */
	int replaying;
	HANDLE in, test_in;
	uint64_t consumed;
	int replay_group, replay_test;
	long target;
	/* The scenario's stdout and stderr while the replay writes to NUL. */
	HANDLE saved_out, saved_err;
	/* Inside t2test itself: its reads are not the test's. */
	int internal;
	/* In a test case (not the group's setup): calls are journaled. */
	int active;
} rp = { .group = -1 };

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

/* UTF-8 to a new UTF-16 string. */
static wchar_t *wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	wchar_t *w = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*w));

	if (n <= 0 || !MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n))
		w[0] = 0;
	return w;
}

/* The standard error this process started with, kept from the
 * constructor on: what the harness says about itself goes there, not
 * into a stream a test case has redirected to check it. */
static HANDLE harness_err;

/* Write a message to h (NULL: nowhere). */
static void vsay(HANDLE h, const char *fmt, va_list ap)
{
	char msg[512];
	DWORD written;
	int n = vsnprintf(msg, sizeof(msg), fmt, ap);

	if (n > 0 && h)
		WriteFile(h, msg, (DWORD)strlen(msg), &written, NULL);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(harness_err, fmt, ap);
	va_end(ap);
}

/* Say why the replay cannot go on, on the scenario's stderr, and end. */
static void diverged(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void diverged(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(rp.saved_err, fmt, ap);
	va_end(ap);
	_exit(REPLAY_DIVERGED);
}

/* ------------------------------------------------------------------ */
/* The journal.                                                        */
/* ------------------------------------------------------------------ */

static void put(const void *data, size_t len)
{
	DWORD done;

	if (len && (!WriteFile(rp.out, data, (DWORD)len, &done, NULL) || done != len))
		abort();
}

static void journal_add(const struct entry *e)
{
	uint32_t head[3] = { (uint32_t)e->kind, (uint32_t)e->status, (uint32_t)e->nstr };

	if (!rp.out)
		return;
	put(head, sizeof(head));
	for (int i = 0; i < e->nstr; i++) {
		uint32_t len = e->str[i] ? (uint32_t)e->len[i] : UINT32_MAX;

		put(&len, sizeof(len));
		if (e->str[i])
			put(e->str[i], e->len[i]);
	}
}

/* len bytes of the journal replayed, or the end of the replay. */
static void get(void *data, size_t len)
{
	DWORD done = 0;

	if (len && (!ReadFile(rp.in, data, (DWORD)len, &done, NULL) || done != len))
		diverged("t2test: replay of test %d: the journal ends before call %ld\n",
			 rp.replay_test, rp.target);
	rp.consumed += len;
}

static uint32_t get_u32(void)
{
	uint32_t v;

	get(&v, sizeof(v));
	return v;
}

/* The next entry of the journal replayed; its strings are the caller's. */
static void journal_next(struct entry *e)
{
	e->kind = (int)get_u32();
	e->status = (int)get_u32();
	e->nstr = (int)get_u32();
	if (e->nstr < 0 || e->nstr > 2)
		diverged("t2test: a damaged journal (%d strings)\n", e->nstr);
	for (int i = 0; i < e->nstr; i++) {
		uint32_t len = get_u32();

		e->str[i] = NULL;
		e->len[i] = 0;
		if (len == UINT32_MAX)
			continue;
		e->str[i] = xmalloc((size_t)len + 1);
		get(e->str[i], len);
		e->str[i][len] = '\0';
		e->len[i] = len;
	}
}

/* The next entry, which must be of this kind (or a scenario entry, when
 * scenario_ok): the replay has left the runner's path otherwise. */
static void journal_expect(struct entry *e, int kind, int scenario_ok)
{
	journal_next(e);
	if (e->kind != kind && !(scenario_ok && e->kind == E_SCENARIO))
		diverged("t2test: replay of test %d left the runner's path: '%c' where "
			 "the runner's journal has '%c'\n", rp.replay_test, kind, e->kind);
}

/* A fresh empty directory under $TMPDIR, or Windows' temporary directory
 * written with '/' (tests put paths in config files, where '\\' is an
 * escape). */
static char *make_tmpdir(const char *prefix)
{
	const char *base = getenv("TMPDIR");
	char tmp[MAX_PATH + 1];
	static unsigned seq;

	if (!base || !*base) {
		DWORD n = GetTempPathA(sizeof(tmp), tmp);

		if (!n || n >= sizeof(tmp))
			return NULL;
		if (tmp[n - 1] == '\\')
			tmp[n - 1] = '\0';
		for (char *p = tmp; (p = strchr(p, '\\')); p++)
			*p = '/';
		base = tmp;
	}
	for (int tries = 0; tries < 1000; tries++) {
		char *dir = t2_xfmt("%s/%s.%05lx%04x", base, prefix,
				    GetCurrentProcessId() & 0xfffffUL, (++seq * 7919u) & 0xffff);

		if (!_mkdir(dir))
			return dir;
		free(dir);
		if (errno != EEXIST)
			return NULL;
	}
	return NULL;
}

/* A journal file, not inherited by children; NULL if it cannot be opened. */
static HANDLE journal_open(const char *path, int write)
{
	wchar_t *w = wide(path);
	HANDLE h = CreateFileW(w, write ? GENERIC_WRITE : GENERIC_READ,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       write ? CREATE_ALWAYS : OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);

	free(w);
	return h == INVALID_HANDLE_VALUE ? NULL : h;
}

static void journal_close(void)
{
	if (rp.out)
		CloseHandle(rp.out);
	rp.out = NULL;
}

/* The runner: start the journal of the next test case. */
static void journal_begin_test(void)
{
	journal_close();
	free(rp.journal);
	rp.journal = NULL;
	rp.calls = 0;
	if (!rp.journal_dir && !(rp.journal_dir = make_tmpdir("t2journal")))
		return;
	rp.journal = t2_xfmt("%s/g%d-t%d", rp.journal_dir, rp.group, rp.test);
	rp.out = journal_open(rp.journal, 1);
}

/* ------------------------------------------------------------------ */
/* Which call is the scenario: run, replayed, or given back.           */
/* ------------------------------------------------------------------ */

enum call_mode {
	CALL_RUN,	/* the runner: start the scenario's process */
	CALL_REPLAYED,	/* a replay before the scenario: the entry is the result */
	CALL_SCENARIO,	/* this process's scenario: run fn here */
	CALL_ENTER,	/* the scenario of the replayed journal's writer: run fn
			 * here, still replaying */
};

/* This process becomes its scenario: the saved handles back, T2_REPLAY
 * gone, and a journal of its own (the replayed one so far and this
 * scenario) for the scenarios that fn runs in turn. */
/* Descriptor fd (1 or 2) back to the handle h kept for it. */
static void restore_std(HANDLE h, int fd)
{
	int tmp = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);

	if (tmp >= 0) {
		_dup2(tmp, fd);
		_close(tmp);
	}
}

static void become_scenario(void)
{
	const char *journal = getenv("T2_REPLAY_JOURNAL");
	char *own = t2_xfmt("%s.%lu", journal ? journal : "t2journal", GetCurrentProcessId());
	struct entry e = { .kind = E_SCENARIO };
	uint64_t left = rp.consumed;
	char buf[65536];

	fflush(NULL);
	restore_std(rp.saved_out, 1);
	restore_std(rp.saved_err, 2);
	SetStdHandle(STD_OUTPUT_HANDLE, (HANDLE)_get_osfhandle(1));
	SetStdHandle(STD_ERROR_HANDLE, (HANDLE)_get_osfhandle(2));
	rp.saved_err = NULL;
	_putenv("T2_REPLAY=");
	_putenv("T2_REPLAY_JOURNAL=");
	rp.out = journal_open(own, 1);
	SetFilePointer(rp.in, 0, NULL, FILE_BEGIN);
	while (rp.out && left > 0) {
		DWORD n = left < sizeof(buf) ? (DWORD)left : (DWORD)sizeof(buf), got;

		if (!ReadFile(rp.in, buf, n, &got, NULL) || got != n)
			abort();
		put(buf, n);
		left -= n;
	}
	CloseHandle(rp.in);
	rp.in = NULL;
	rp.replaying = 0;
	journal_add(&e);
	rp.journal = own;
}

/* The mode of the next scenario call of kind; *e is its entry when
 * CALL_REPLAYED. */
static enum call_mode next_call(int kind, struct entry *e)
{
	rp.calls++;
	if (!rp.replaying || !rp.active)
		return CALL_RUN;
	if (rp.calls == rp.target && rp.test == rp.replay_test) {
		become_scenario();
		return CALL_SCENARIO;
	}
	journal_expect(e, kind, 1);
	return e->kind == E_SCENARIO ? CALL_ENTER : CALL_REPLAYED;
}

/* ------------------------------------------------------------------ */
/* Child processes.                                                    */
/* ------------------------------------------------------------------ */

/* Append arg to the command line cmd, quoted as CommandLineToArgvW()
 * and the C runtime split it. */
static void quote_arg(char **cmd, const char *arg)
{
	size_t slashes = 0;

	t2_append(cmd, "%s\"", **cmd ? " " : "");
	for (const char *p = arg;; p++) {
		if (*p == '\\') {
			slashes++;
			continue;
		}
		/* Backslashes before a quote or the closing quote double. */
		for (size_t i = 0; i < slashes * (*p == '"' || !*p ? 2 : 1); i++)
			t2_append(cmd, "\\");
		slashes = 0;
		if (!*p)
			break;
		t2_append(cmd, "%s%c", *p == '"' ? "\\" : "", *p);
	}
	t2_append(cmd, "\"");
}

/* Whether the environment entry's name is name (case-insensitive, as
 * Windows compares them). */
static int env_named(const wchar_t *entry, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (towupper(entry[i]) != (wchar_t)toupper((unsigned char)name[i]))
			return 0;
	return entry[n] == L'=';
}

static int env_prefixed(const wchar_t *entry, const char *prefix)
{
	size_t n = strlen(prefix);

	for (size_t i = 0; i < n; i++)
		if (towupper(entry[i]) != (wchar_t)toupper((unsigned char)prefix[i]))
			return 0;
	return 1;
}

/* An environment block in the making: "NAME=value" entries. */
struct envb {
	wchar_t **v;
	size_t n;
};

static void envb_unset(struct envb *b, const char *name)
{
	size_t i = 0;

	while (i < b->n) {
		if (env_named(b->v[i], name)) {
			free(b->v[i]);
			b->v[i] = b->v[--b->n];
		} else {
			i++;
		}
	}
}

/* "NAME=value" sets NAME, a bare "NAME" unsets it. */
static void envb_apply(struct envb *b, const char *entry)
{
	size_t len = strcspn(entry, "=");
	char *name = t2_xfmt("%.*s", (int)len, entry);

	envb_unset(b, name);
	free(name);
	if (!entry[len])
		return;
	b->v = realloc(b->v, (b->n + 1) * sizeof(*b->v));
	if (!b->v)
		abort();
	b->v[b->n++] = wide(entry);
}

/* This process's environment less the variables starting with any of
 * the NULL-terminated prefixes. */
static void envb_from_self(struct envb *b, const char *const *drop)
{
	wchar_t *all = GetEnvironmentStringsW();

	b->v = NULL;
	b->n = 0;
	for (wchar_t *p = all; p && *p; p += wcslen(p) + 1) {
		const char *const *d;

		for (d = drop; *d && !env_prefixed(p, *d); d++)
			;
		if (*d || *p == L'=')
			continue;
		b->v = realloc(b->v, (b->n + 1) * sizeof(*b->v));
		if (!b->v)
			abort();
		b->v[b->n++] = _wcsdup(p);
	}
	FreeEnvironmentStringsW(all);
}

/* The block CreateProcessW() takes: the entries, then an empty one. */
static wchar_t *envb_block(struct envb *b)
{
	size_t total = 1, at = 0;
	wchar_t *block;

	for (size_t i = 0; i < b->n; i++)
		total += wcslen(b->v[i]) + 1;
	block = xmalloc(total * sizeof(*block));
	for (size_t i = 0; i < b->n; i++) {
		size_t n = wcslen(b->v[i]) + 1;

		memcpy(block + at, b->v[i], n * sizeof(*block));
		at += n;
		free(b->v[i]);
	}
	block[at] = 0;
	free(b->v);
	return block;
}

static HANDLE inheritable(HANDLE h)
{
	HANDLE dup = INVALID_HANDLE_VALUE;

	if (h && h != INVALID_HANDLE_VALUE)
		DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup, 0, TRUE,
				DUPLICATE_SAME_ACCESS);
	return dup;
}

/* A file for a child's standard handle: NULL is NUL; write: created or
 * truncated, else opened to read. */
static HANDLE open_std(const char *path, int write)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	wchar_t *w = wide(path ? path : "NUL");
	HANDLE h = CreateFileW(w, write ? GENERIC_WRITE : GENERIC_READ,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa,
			       write ? CREATE_ALWAYS : OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);

	free(w);
	return h;
}

/* A wait status as POSIX's wait() gives it: an exit code up to 255 as
 * such, an exception as the signal POSIX would have sent. */
static int wait_status(DWORD code)
{
	switch (code) {
	case EXCEPTION_ACCESS_VIOLATION:
	case EXCEPTION_STACK_OVERFLOW:
		return SIGSEGV;
	case EXCEPTION_ILLEGAL_INSTRUCTION:
		return SIGILL;
	case EXCEPTION_INT_DIVIDE_BY_ZERO:
		return SIGFPE;
	default:
		return code > 255 ? SIGABRT : (int)(code << 8);
	}
}

/*
 * The C runtime's descriptors from 3 up whose handles children inherit,
 * in the table a child's C runtime reads at its start (STARTUPINFO's
 * lpReserved2: the count, a flag byte per descriptor, then a handle per
 * descriptor), so that they stay open in the child as across POSIX's
 * fork() and exec().  0 to 2 are left to the standard handles.  Returns
 * the table's size.
 */
#define CRT_FDS 64
#define CRT_FOPEN 0x01
#define CRT_FPIPE 0x08
#define CRT_FDEV 0x40
#define CRT_TABLE_SIZE (sizeof(int) + CRT_FDS * (1 + sizeof(HANDLE)))

static WORD crt_fd_table(unsigned char *table)
{
	unsigned char *flags = table + sizeof(int);
	int count = 3;

	memset(flags, 0, CRT_FDS);
	for (int fd = 3; fd < CRT_FDS; fd++) {
		HANDLE h = (HANDLE)_get_osfhandle(fd);
		DWORD info, type;

		if (h == INVALID_HANDLE_VALUE || !GetHandleInformation(h, &info) ||
		    !(info & HANDLE_FLAG_INHERIT))
			continue;
		type = GetFileType(h);
		flags[fd] = CRT_FOPEN | (type == FILE_TYPE_PIPE ? CRT_FPIPE : 0) |
			    (type == FILE_TYPE_CHAR ? CRT_FDEV : 0);
		count = fd + 1;
	}
	memcpy(table, &count, sizeof(count));
	for (int fd = 0; fd < count; fd++) {
		HANDLE h = flags[fd] ? (HANDLE)_get_osfhandle(fd) : INVALID_HANDLE_VALUE;

		memcpy(flags + count + (size_t)fd * sizeof(h), &h, sizeof(h));
	}
	return (WORD)(sizeof(int) + (size_t)count * (1 + sizeof(HANDLE)));
}

/*
 * CreateProcessW() of app, suspended, with the handles si names.  A
 * failure other than a missing or foreign program is tried twice more,
 * saying so: under Wine a start has failed once in a CI run, with no
 * cause to see, and a scenario that never started tells nothing about
 * the library.
 */
static BOOL start_suspended(const wchar_t *app, wchar_t *wcmd, wchar_t *env, STARTUPINFOW *si,
			    PROCESS_INFORMATION *pi)
{
	for (int attempt = 1;; attempt++) {
		DWORD error;

		if (CreateProcessW(app, wcmd, NULL, NULL, TRUE,
				   CREATE_UNICODE_ENVIRONMENT | CREATE_SUSPENDED, env, NULL, si, pi))
			return TRUE;
		error = GetLastError();
		if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ||
		    error == ERROR_BAD_EXE_FORMAT)
			return FALSE;
		say("t2test: starting %ls failed (error %lu)%s\n", app, (unsigned long)error,
		    attempt < 3 ? "; trying again" : "");
		if (attempt == 3)
			return FALSE;
		Sleep(500);
	}
}

/* Run cmd (the program app) with the environment block env (NULL: this
 * one's) and the standard handles given, in a job that ends with it;
 * wait up to timeout_ms (< 0: without end), then end the job.  Returns
 * 0 with its exit code in *code, 1 if it was ended, -1 if it did not
 * start. */
static int run_process(const wchar_t *app, const char *cmd, wchar_t *env, HANDLE in, HANDLE out,
		       HANDLE err, int timeout_ms, DWORD *code)
{
	STARTUPINFOW si = { .cb = sizeof(si), .dwFlags = STARTF_USESTDHANDLES };
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION limit = { 0 };
	PROCESS_INFORMATION pi;
	wchar_t *wcmd = wide(cmd);
	HANDLE job = CreateJobObjectW(NULL, NULL);
	unsigned char fds[CRT_TABLE_SIZE];
	int rc = -1;

	si.hStdInput = inheritable(in);
	si.hStdOutput = inheritable(out);
	si.hStdError = inheritable(err);
	si.cbReserved2 = crt_fd_table(fds);
	si.lpReserved2 = fds;
	limit.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (job)
		SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limit, sizeof(limit));
	fflush(NULL);
	if (start_suspended(app, wcmd, env, &si, &pi)) {
		if (job)
			AssignProcessToJobObject(job, pi.hProcess);
		ResumeThread(pi.hThread);
		rc = 0;
		if (WaitForSingleObject(pi.hProcess, timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms) !=
		    WAIT_OBJECT_0) {
			if (!job || !TerminateJobObject(job, 137))
				TerminateProcess(pi.hProcess, 137);
			WaitForSingleObject(pi.hProcess, INFINITE);
			rc = 1;
		}
		if (!GetExitCodeProcess(pi.hProcess, code))
			*code = 127;
		CloseHandle(pi.hThread);
		CloseHandle(pi.hProcess);
	}
	for (HANDLE *h = &si.hStdInput; h <= &si.hStdError; h++)
		if (*h != INVALID_HANDLE_VALUE)
			CloseHandle(*h);
	if (job)
		CloseHandle(job);
	free(wcmd);
	free(env);
	return rc;
}

/* The C runtime's standard handle fd (tests redirect them with dup2()). */
static HANDLE std_handle(int fd)
{
	return (HANDLE)_get_osfhandle(fd);
}

/* This program's path. */
static wchar_t *self_path(void)
{
	static wchar_t self[32768];

	if (!self[0] && !GetModuleFileNameW(NULL, self, sizeof(self) / sizeof(self[0])))
		abort();
	return self;
}

/* The runner: the scenario of call rp.calls in a new process of this
 * program with the environment env and the standard handles given. */
static int run_scenario(struct envb *env, HANDLE in, HANDLE out, HANDLE err, int timeout_ms)
{
	char *replay = t2_xfmt("T2_REPLAY=%d %d %ld", rp.group, rp.test, rp.calls);
	char *journal = t2_xfmt("T2_REPLAY_JOURNAL=%s", rp.journal ? rp.journal : "");
	char *setup = t2_xfmt("T2_REPLAY_SETUP=%s", rp.setup_journal ? rp.setup_journal : "");
	/* absolute, for a scenario that changes directory first */
	char *bin = t2_xfmt("T2_BIN=%s", t2_bin_dir());
	DWORD code;
	int rc;

	envb_apply(env, replay);
	envb_apply(env, journal);
	envb_apply(env, setup);
	envb_apply(env, bin);
	free(replay);
	free(journal);
	free(setup);
	free(bin);
	rc = run_process(self_path(), "t2test-scenario", envb_block(env), in, out, err, timeout_ms,
			 &code);
	return rc < 0 ? -1 : rc ? 9 /* SIGKILL's */ : wait_status(code);
}

/* t2_run()'s environment: no GIT_TRACE2* or GIT_CONFIG*, HOME empty,
 * GIT_CONFIG_NOSYSTEM=1, then env's entries. */
static void run_environment(struct envb *b, const char *const *env, const char *home)
{
	static const char *const drop[] = { "GIT_TRACE2", "GIT_CONFIG", NULL };
	char *h = t2_xfmt("HOME=%s", home ? home : "/nonexistent");

	envb_from_self(b, drop);
	envb_apply(b, h);
	envb_unset(b, "XDG_CONFIG_HOME");
	envb_unset(b, "TRACEPARENT");
	envb_apply(b, "GIT_CONFIG_NOSYSTEM=1");
	free(h);
	for (; env && *env; env++)
		envb_apply(b, *env);
}

/* t2_capture()'s: no GIT_* at all, HOME=/nonexistent. */
static void capture_environment(struct envb *b, const char *const *env)
{
	static const char *const drop[] = { "GIT_", NULL };

	envb_from_self(b, drop);
	envb_unset(b, "XDG_CONFIG_HOME");
	envb_unset(b, "TRACEPARENT");
	envb_apply(b, "HOME=/nonexistent");
	envb_apply(b, "GIT_CONFIG_NOSYSTEM=1");
	for (; env && *env; env++)
		envb_apply(b, *env);
}

static int run_child(t2_scenario_fn *fn, void *arg, const char *const *env, int init)
{
	struct entry e = { .kind = E_RUN };
	struct envb b;
	char *home;

	switch (next_call(E_RUN, &e)) {
	case CALL_REPLAYED:
		return e.status;
	case CALL_SCENARIO:
	case CALL_ENTER:
		trace2_initialize_clock();
		if (init)
			trace2_initialize();
		fn(arg);
		exit(0);
	case CALL_RUN:
		break;
	}
	home = make_tmpdir("t2home");
	run_environment(&b, env, home);
	e.status = run_scenario(&b, std_handle(0), std_handle(1), std_handle(2), RUN_TIMEOUT_MS);
	if (home)
		t2_rmtree(home);
	free(home);
	journal_add(&e);
	return e.status;
}

int t2_run(t2_scenario_fn *fn, void *arg, const char *const *env)
{
	return run_child(fn, arg, env, 1);
}

int t2_run_noinit(t2_scenario_fn *fn, void *arg, const char *const *env)
{
	return run_child(fn, arg, env, 0);
}

/* What a captured file holds, read by t2test itself. */
static char *read_captured(const char *path)
{
	char *text;

	rp.internal++;
	text = t2_read_file(path, NULL);
	rp.internal--;
	return text ? text : strdup("");
}

void t2_capture(t2_scenario_fn *fn, void *arg, const char *const *env,
		int timeout_s, struct t2_proc *p)
{
	struct entry e = { .kind = E_CAPTURE, .nstr = 2 };
	char *dir, *out, *err;
	HANDLE hin, hout, herr;
	struct envb b;

	switch (next_call(E_CAPTURE, &e)) {
	case CALL_REPLAYED:
		p->status = e.status;
		p->out = e.str[0] ? e.str[0] : strdup("");
		p->err = e.str[1] ? e.str[1] : strdup("");
		return;
	case CALL_SCENARIO:
	case CALL_ENTER:
		fn(arg);
		exit(0);
	case CALL_RUN:
		break;
	}
	dir = make_tmpdir("t2capture");
	out = t2_path(dir ? dir : ".", "stdout");
	err = t2_path(dir ? dir : ".", "stderr");
	hin = open_std(NULL, 0);
	hout = open_std(out, 1);
	herr = open_std(err, 1);
	capture_environment(&b, env);
	p->status = run_scenario(&b, hin, hout, herr, timeout_s * 1000);
	CloseHandle(hin);
	CloseHandle(hout);
	CloseHandle(herr);
	p->out = read_captured(out);
	p->err = read_captured(err);
	if (dir)
		t2_rmtree(dir);
	free(dir);
	free(out);
	free(err);
	e.status = p->status;
	e.str[0] = p->out;
	e.len[0] = strlen(p->out);
	e.str[1] = p->err;
	e.len[1] = strlen(p->err);
	journal_add(&e);
}

/* ------------------------------------------------------------------ */
/* Files, directories and programs.                                    */
/* ------------------------------------------------------------------ */

/* The runner's directories a replay made again (the runner had removed
 * them; the test's own calls may still open files there), removed when
 * the scenario's process ends. */
#define REMADE_MAX 64
static char *remade[REMADE_MAX];
static int nremade;

static void remove_remade(void)
{
	rp.replaying = 0;
	while (nremade > 0)
		t2_rmtree(remade[--nremade]);
}

static void remake_dir(const char *dir)
{
	if (nremade < REMADE_MAX && !_mkdir(dir)) {
		if (!nremade)
			atexit(remove_remade);
		remade[nremade++] = strdup(dir);
	}
}

char *t2_tmpdir(void)
{
	struct entry e = { .kind = E_TMPDIR, .nstr = 1 };

	if (rp.replaying && rp.active) {
		journal_expect(&e, E_TMPDIR, 0);
		remake_dir(e.str[0]);
		return e.str[0];
	}
	e.str[0] = make_tmpdir("t2test");
	if (e.str[0]) {
		e.len[0] = strlen(e.str[0]);
		journal_add(&e);
	}
	return e.str[0];
}

int t2_plat_replay(enum t2_file_call call, int *rc, char **data, size_t *len)
{
	struct entry e = { .kind = (int)call };

	if (!rp.replaying || !rp.active || rp.internal)
		return 0;
	journal_expect(&e, (int)call, 0);
	*rc = e.status;
	*data = e.nstr ? e.str[0] : NULL;
	*len = e.nstr ? e.len[0] : 0;
	return 1;
}

void t2_plat_record(enum t2_file_call call, int rc, const char *data, size_t len)
{
	struct entry e = { .kind = (int)call, .status = rc, .nstr = 1 };

	if (rp.replaying || !rp.active || rp.internal)
		return;
	e.str[0] = (char *)data;
	e.len[0] = data ? len : 0;
	journal_add(&e);
}
void t2_rmtree(const char *dir)
{
	char *pattern;
	struct _finddata_t fd;
	intptr_t h;

	if (rp.replaying && rp.active)
		return; /* the runner has */
	pattern = t2_path(dir, "*");
	h = _findfirst(pattern, &fd);
	free(pattern);
	while (h != -1) {
		if (strcmp(fd.name, ".") && strcmp(fd.name, "..")) {
			char *p = t2_path(dir, fd.name);

			if (fd.attrib & _A_SUBDIR) {
				t2_rmtree(p);
			} else {
				_chmod(p, _S_IREAD | _S_IWRITE);
				_unlink(p);
			}
			free(p);
		}
		if (_findnext(h, &fd))
			break;
	}
	if (h != -1)
		_findclose(h);
	_rmdir(dir);
}

int t2_mkdirs(const char *path)
{
	char *copy, *none;
	size_t n;
	int rc = 0;

	if (t2_plat_replay(T2_CALL_MKDIRS, &rc, &none, &n)) {
		free(none);
		return rc;
	}
	copy = strdup(path);
	for (char *p = copy + 1; rc == 0 && *p; p++) {
		if (*p != '/' && *p != '\\')
			continue;
		*p = '\0';
		if (p[-1] != ':' && _mkdir(copy) && errno != EEXIST)
			rc = -1;
		*p = '/';
	}
	if (rc == 0 && _mkdir(copy) && errno != EEXIST)
		rc = -1;
	free(copy);
	t2_plat_record(T2_CALL_MKDIRS, rc, NULL, 0);
	return rc;
}

const char *t2_bin_dir(void)
{
	static char abs[MAX_PATH];
	const char *dir = getenv("T2_BIN");

	if (!dir || !*dir)
		dir = "build/bin";
	if (!abs[0] && !_fullpath(abs, dir, sizeof(abs)))
		snprintf(abs, sizeof(abs), "%s", dir);
	return abs;
}

/* A Windows program runs natively, whatever runs it (Wine included). */
const char *t2_emulator(void)
{
	return NULL;
}

/* Windows has no exec(): run the program with this process's
 * environment and standard handles, then end with its exit code. */
void t2_exec_built(const char *path, char *const argv[])
{
	char *cmd = strdup(""), *exe = NULL;
	wchar_t *app;
	DWORD code;
	int rc;

	for (size_t i = 0; argv[i]; i++)
		quote_arg(&cmd, argv[i]);
	if (path && !strstr(path, ".exe"))
		path = exe = t2_xfmt("%s.exe", path);
	app = path ? wide(path) : self_path();
	rc = run_process(app, cmd, NULL, std_handle(0), std_handle(1), std_handle(2), -1, &code);
	if (path)
		free(app);
	free(exe);
	free(cmd);
	if (rc < 0)
		return;
	fflush(NULL);
	ExitProcess(code);
}

double t2_now(void)
{
	LARGE_INTEGER f, c;

	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&c);
	return (double)c.QuadPart / (double)f.QuadPart;
}

char *t2_unprivileged_dir(const char **why)
{
	*why = "Windows: a test does not switch to another user";
	return NULL;
}

void t2_drop_privileges(const char *dir)
{
	(void)dir;
	_exit(125);
}

/* ------------------------------------------------------------------ */
/* cmocka's runner: which test case, and the replay's start.           */
/* ------------------------------------------------------------------ */

int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
				   const size_t num_tests, CMFixtureFunction group_setup,
				   CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
				   const size_t num_tests, CMFixtureFunction group_setup,
				   CMFixtureFunction group_teardown);

/* The test cases' own setups, called after the journal's start. */
static CMFixtureFunction *own_setup;

static int setup_test(void **state)
{
	CMFixtureFunction setup;

	rp.active = 1;
	if (rp.replaying) {
		/* the group's setup replayed: now the test case's journal */
		CloseHandle(rp.in);
		rp.in = rp.test_in;
		rp.consumed = 0;
		rp.test = rp.replay_test;
		rp.calls = 0;
	} else {
		rp.test++;
		journal_begin_test();
	}
	setup = own_setup[rp.test];
	return setup ? setup(state) : 0;
}

/* A process started for a scenario: its journal, the call, and the
 * standard handles kept for the scenario while the replay writes to NUL. */
static void start_replay(void)
{
	const char *spec = getenv("T2_REPLAY"), *journal = getenv("T2_REPLAY_JOURNAL");
	HANDLE self = GetCurrentProcess();
	int nul;

	if (!spec || sscanf(spec, "%d %d %ld", &rp.replay_group, &rp.replay_test, &rp.target) != 3)
		return;
	rp.replaying = 1;
	fflush(NULL);
	DuplicateHandle(self, (HANDLE)_get_osfhandle(1), self, &rp.saved_out, 0, FALSE,
			DUPLICATE_SAME_ACCESS);
	DuplicateHandle(self, (HANDLE)_get_osfhandle(2), self, &rp.saved_err, 0, FALSE,
			DUPLICATE_SAME_ACCESS);
	nul = _open("NUL", _O_WRONLY);
	_dup2(nul, 1);
	_dup2(nul, 2);
	_close(nul);
	rp.in = journal ? journal_open(journal, 0) : NULL;
	if (!rp.in)
		diverged("t2test: scenario process without its journal (%s)\n",
			 journal ? journal : "T2_REPLAY_JOURNAL unset");
	if (getenv("T2_REPLAY_SETUP"))
		rp.setup_journal = strdup(getenv("T2_REPLAY_SETUP"));
	_putenv("T2_REPLAY_SETUP=");
}

/* A replay of the group's setup (test -1): the scenario is there, or it
 * is in a test case, after the setup replayed from its own journal. */
static void replay_group_setup(CMFixtureFunction group_setup)
{
	void *state = NULL;

	rp.active = 1;
	rp.test = -1;
	rp.calls = 0;
	if (rp.replay_test < 0) {
		if (group_setup)
			group_setup(&state);
		diverged("t2test: replay of the group's setup ended before its call %ld\n",
			 rp.target);
	}
	rp.test_in = rp.in;
	rp.in = rp.setup_journal ? journal_open(rp.setup_journal, 0) : NULL;
	if (!rp.in)
		diverged("t2test: scenario process without its group's journal (%s)\n",
			 rp.setup_journal ? rp.setup_journal : "T2_REPLAY_SETUP unset");
}

/* Before main(): files and standard streams in binary mode, as on POSIX
 * (what a test or its scenario writes is what it reads back, "\n" and
 * not "\r\n"); in a scenario's process, the replay set up before the
 * test program prints anything. */
__attribute__((constructor)) static void t2test_startup(void)
{
	_fmode = _O_BINARY;
	for (int fd = 0; fd <= 2; fd++)
		_setmode(fd, _O_BINARY);
	t2_posix_harness.replay = t2_plat_replay;
	t2_posix_harness.record = t2_plat_record;
	t2_posix_harness.exec = t2_exec_built;
	DuplicateHandle(GetCurrentProcess(), (HANDLE)_get_osfhandle(2), GetCurrentProcess(),
			&harness_err, 0, FALSE, DUPLICATE_SAME_ACCESS);
	start_replay();
}

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
				   const size_t num_tests, CMFixtureFunction group_setup,
				   CMFixtureFunction group_teardown)
{
	struct CMUnitTest *mine = xmalloc(num_tests * sizeof(*mine));
	size_t first = 0, count = num_tests;
	int rc;

	rp.group++;
	rp.test = -1;
	if (rp.replaying) {
		/* Only the scenario's test case, in the scenario's group. */
		if (rp.group != rp.replay_group || (size_t)(rp.replay_test + 1) > num_tests) {
			free(mine);
			return 0;
		}
		replay_group_setup(group_setup);
		first = (size_t)rp.replay_test;
		count = 1;
	} else {
		journal_begin_test();
		free(rp.setup_journal);
		rp.setup_journal = rp.journal ? strdup(rp.journal) : NULL;
		rp.active = 1;
	}
	own_setup = xmalloc(num_tests * sizeof(*own_setup));
	for (size_t i = 0; i < num_tests; i++) {
		mine[i] = tests[i];
		own_setup[i] = tests[i].setup_func;
		mine[i].setup_func = setup_test;
	}
	rc = __real__cmocka_run_group_tests(group_name, mine + first, count, group_setup,
					    group_teardown);
	if (rp.replaying)
		diverged("t2test: replay of test %d ended before its call %ld\n", rp.replay_test,
			 rp.target);
	free(mine);
	free(own_setup);
	journal_close();
	if (rp.journal_dir)
		t2_rmtree(rp.journal_dir);
	free(rp.journal_dir);
	rp.journal_dir = NULL;
	return rc;
}
#endif
