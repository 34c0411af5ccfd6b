/*
 * The serving loop of validate --listen on Windows: a named pipe, as
 * trace2receiver listens there (see listen.h).  T2_LISTEN_PIPES
 * instances of the pipe wait for clients at once, each with an
 * overlapped connect or read whose event one wait covers, so that one
 * thread serves them all, as poll() does on POSIX: a writer finds a free
 * instance while others are busy (Git for Windows gives up when none
 * is).
 */
#ifdef _WIN32
#include "listen.h"
#include "alloc.h"

#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#define READ_SIZE 65536
/* "//./pipe/": separators as either slash */
#define PIPE_PREFIX_LEN 9

const char t2_listen_form[] = "//./pipe/NAME";

/* What an instance's overlapped structure is doing. */
enum inst_state {
	WAITING,      /* a connect pending */
	ARRIVED,      /* a client connected before the connect was asked */
	READING,      /* a read pending, or done and not yet taken */
	IDLE,         /* nothing pending: the connect failed */
};

struct inst {
	HANDLE h;
	OVERLAPPED ov;          /* its hEvent is set when the connect or read is done */
	enum inst_state state;
	struct t2_source src;   /* names the client by name[] */
	char name[160];
	char buf[READ_SIZE];
};

struct server {
	const struct t2_listen *l;
	struct inst *in;
	size_t n;
	long accepted, closed;
	HANDLE events[T2_LISTEN_PIPES + 1]; /* [0]: stop, then the instances' */
};

/* Set by Ctrl-C, Ctrl-Break or the console's closing. */
static HANDLE stop_event;

static int is_sep(char c)
{
	return c == '/' || c == '\\';
}

int t2_listen_address(const char *address)
{
	const char *a = address;

	return is_sep(a[0]) && is_sep(a[1]) && a[2] == '.' && is_sep(a[3]) &&
	       !_strnicmp(a + 4, "pipe", 4) && is_sep(a[8]) && a[PIPE_PREFIX_LEN];
}

static void report_error(const struct t2_listen *l, const char *what, DWORD err)
{
	char msg[256];
	size_t n;

	n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, err, 0,
			   msg, sizeof(msg), NULL);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' '))
		n--;
	if (!n)
		n = (size_t)snprintf(msg, sizeof(msg), "error %lu", (unsigned long)err);
	fprintf(stderr, "trace2 validate: %s: %s: %.*s\n", l->name, what, (int)n, msg);
}

/* \\.\pipe\ and the name after the address's prefix, in UTF-16; NULL
 * when the name is not UTF-8, which the command's arguments are in
 * (sys.h). */
static wchar_t *pipe_path(const char *address)
{
	static const wchar_t prefix[] = L"\\\\.\\pipe\\";
	const char *name = address + PIPE_PREFIX_LEN;
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	w = t2_realloc(NULL, (PIPE_PREFIX_LEN + (size_t)n) * sizeof(*w));
	memcpy(w, prefix, PIPE_PREFIX_LEN * sizeof(*w));
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, w + PIPE_PREFIX_LEN, n);
	return w;
}

/* The instance waits for its next client. */
static void await_client(struct inst *in)
{
	ResetEvent(in->ov.hEvent);
	in->state = WAITING;
	if (ConnectNamedPipe(in->h, &in->ov))
		return; /* done at once: the event is set */
	switch (GetLastError()) {
	case ERROR_IO_PENDING:
		return;
	case ERROR_PIPE_CONNECTED: /* connected between create or disconnect and now */
	case ERROR_NO_DATA:        /* the same, and closed already: its bytes wait */
		in->state = ARRIVED;
		SetEvent(in->ov.hEvent);
		return;
	default:
		in->state = IDLE; /* its event stays unset: the others go on */
		return;
	}
}

/* The client is done: its last line read, and the instance free for the
 * next. */
static void end_client(struct server *sv, struct inst *in)
{
	t2_source_end(sv->l->r, &in->src);
	sv->closed++;
	DisconnectNamedPipe(in->h);
	await_client(in);
}

/* The next read of the client; the event says when it is done. */
static void read_next(struct server *sv, struct inst *in)
{
	in->state = READING;
	if (ReadFile(in->h, in->buf, READ_SIZE, NULL, &in->ov) || GetLastError() == ERROR_IO_PENDING)
		return;
	end_client(sv, in); /* the client closed, or the read failed */
}

static void start_client(struct server *sv, struct inst *in)
{
	snprintf(in->name, sizeof(in->name), "%s#%ld", sv->l->name, ++sv->accepted);
	t2_source_init(&in->src, in->name);
	read_next(sv, in);
}

/* Bytes of the client: 0, or -1 when it is dropped for a line over the
 * reader's limit. */
static int take_bytes(struct server *sv, struct inst *in, DWORD got)
{
	if (!got || !t2_source_feed(sv->l->r, &in->src, in->buf, got))
		return 0;
	/* an endless line must not take the memory the others need */
	if (!sv->l->quiet)
		fprintf(stderr, "trace2 validate: %s: a line over the limit; client dropped\n",
			in->name);
	return -1;
}

/* The instance's connect or read is done. */
static void on_done(struct server *sv, struct inst *in)
{
	DWORD got = 0;
	BOOL ok = in->state == ARRIVED || GetOverlappedResult(in->h, &in->ov, &got, FALSE);

	switch (in->state) {
	case WAITING:
		if (!ok) { /* the client went before it was connected */
			DisconnectNamedPipe(in->h);
			await_client(in);
			return;
		}
		/* fall through */
	case ARRIVED:
		start_client(sv, in);
		return;
	case READING:
		if (ok && !take_bytes(sv, in, got))
			read_next(sv, in);
		else
			end_client(sv, in);
		return;
	case IDLE:
		return;
	}
}

static BOOL WINAPI on_console(DWORD type)
{
	(void)type;
	SetEvent(stop_event);
	return TRUE;
}

/* Instance i of the pipe at path, waiting for a client; the first fails
 * when another server has the name, and any when it took instances. */
static int open_instance(struct server *sv, const wchar_t *path, size_t i)
{
	struct inst *in = &sv->in[i];
	DWORD first = i ? 0 : FILE_FLAG_FIRST_PIPE_INSTANCE;

	in->ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!in->ov.hEvent) {
		report_error(sv->l, "event", GetLastError());
		return -1;
	}
	in->h = CreateNamedPipeW(path, PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED | first,
				 PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT |
				 PIPE_REJECT_REMOTE_CLIENTS,
				 T2_LISTEN_PIPES, 0, READ_SIZE, 0, NULL);
	if (in->h == INVALID_HANDLE_VALUE) {
		DWORD err = GetLastError();

		/* the first instance's flag: another server has the name */
		report_error(sv->l, err == ERROR_ACCESS_DENIED || err == ERROR_PIPE_BUSY ?
			     "another server listens there" : "cannot create the pipe", err);
		CloseHandle(in->ov.hEvent);
		return -1;
	}
	sv->events[++sv->n] = in->ov.hEvent;
	await_client(in);
	return 0;
}

/* Every instance closed; the clients still connected end (their last
 * lines read) after what their pending reads got. */
static void close_instances(struct server *sv)
{
	DWORD got;
	size_t i;

	for (i = 0; i < sv->n; i++) {
		struct inst *in = &sv->in[i];

		if (in->state == WAITING || in->state == READING) {
			CancelIo(in->h);
			got = 0;
			if (GetOverlappedResult(in->h, &in->ov, &got, TRUE) && in->state == READING)
				take_bytes(sv, in, got);
		}
		if (in->state == READING)
			t2_source_end(sv->l->r, &in->src);
		CloseHandle(in->h);
		CloseHandle(in->ov.hEvent);
	}
}

static int serving(const struct server *sv)
{
	return !(sv->l->count > 0 && sv->closed >= sv->l->count);
}

static void serve(struct server *sv)
{
	DWORD w;
	size_t i;

	while (serving(sv)) {
		fflush(stdout);
		w = WaitForMultipleObjects((DWORD)sv->n + 1, sv->events, FALSE, INFINITE);
		if (w == WAIT_OBJECT_0 || w == WAIT_FAILED)
			break;
		/* every instance that is done, not only the first: none waits
		 * behind a busy one */
		for (i = 0; i < sv->n; i++)
			if (WaitForSingleObject(sv->in[i].ov.hEvent, 0) == WAIT_OBJECT_0)
				on_done(sv, &sv->in[i]);
	}
}

int t2_listen_run(struct t2_listen *l, const char *address)
{
	struct server sv;
	wchar_t *path;
	int ret = 0;

	memset(&sv, 0, sizeof(sv));
	sv.l = l;
	l->name = address;
	if (!(path = pipe_path(address))) {
		fprintf(stderr, "trace2 validate: %s: the name is not UTF-8\n", address);
		return 2;
	}
	stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!stop_event) {
		report_error(l, "event", GetLastError());
		free(path);
		return 2;
	}
	sv.events[0] = stop_event;
	sv.in = t2_calloc(T2_LISTEN_PIPES, sizeof(*sv.in));
	while (sv.n < T2_LISTEN_PIPES && !open_instance(&sv, path, sv.n))
		;
	if (sv.n == T2_LISTEN_PIPES) {
		SetConsoleCtrlHandler(on_console, TRUE);
		if (!l->quiet)
			fprintf(stderr, "trace2 validate: listening on %s\n", address);
		serve(&sv);
		SetConsoleCtrlHandler(on_console, FALSE);
	} else
		ret = 2;
	close_instances(&sv);
	free(sv.in);
	free(path);
	CloseHandle(stop_event);
	return ret;
}

/*
 * The connected descriptors one after the other, each to its end: no
 * wait covers descriptors of any kind on Windows (the fuzzer, which
 * serves them at once, runs on POSIX).
 */
void t2_listen_serve(const struct t2_listen *l, const int *fds, size_t nfds)
{
	static char buf[READ_SIZE];
	char name[160];
	struct t2_source src;
	size_t i;
	int got;

	for (i = 0; i < nfds; i++) {
		if (l->count > 0 && (long)i >= l->count) {
			_close(fds[i]);
			continue;
		}
		snprintf(name, sizeof(name), "%s#%zu", l->name, i + 1);
		t2_source_init(&src, name);
		while ((got = _read(fds[i], buf, sizeof(buf))) > 0)
			if (t2_source_feed(l->r, &src, buf, (size_t)got)) {
				if (!l->quiet)
					fprintf(stderr, "trace2 validate: %s: a line over the limit; "
						"client dropped\n", name);
				break;
			}
		t2_source_end(l->r, &src);
		_close(fds[i]);
	}
}
#endif
