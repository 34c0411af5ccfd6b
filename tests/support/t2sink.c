/* A Unix-socket sink (af_unix: targets), POSIX only: Windows builds
 * have no af_unix: target (tests/support/win32/t2posix.h). */
#ifndef _WIN32
/* An AF_UNIX listener served by the test process (see t2sink.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t2sink.h"
#include "t2test.h"

#define DGRAM_MAX 65536

static void buf_add(struct t2_buf *b, const char *data, size_t len)
{
	b->p = realloc(b->p, b->n + len + 1);
	assert_non_null(b->p);
	memcpy(b->p + b->n, data, len);
	b->n += len;
	b->p[b->n] = '\0';
}

void t2_sink_open(struct t2_sink *s, int type)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	memset(s, 0, sizeof(*s));
	s->type = type;
	s->dir = t2_tmpdir();
	assert_non_null(s->dir);
	s->path = t2_path(s->dir, "sock");
	assert_true(strlen(s->path) < sizeof(addr.sun_path));
	strcpy(addr.sun_path, s->path);
	s->fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(s->fd >= 0);
	assert_int_equal(bind(s->fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(s->fd, T2_SINK_MAX_CONNS), 0);
}

void t2_sink_close(struct t2_sink *s)
{
	for (size_t i = 0; i < s->nconn; i++) {
		if (s->cfd[i] >= 0)
			close(s->cfd[i]);
		free(s->conn[i].p);
	}
	for (size_t i = 0; i < s->ndgram; i++)
		free(s->dgram[i].p);
	free(s->dgram);
	close(s->fd);
	t2_rmtree(s->dir);
	free(s->dir);
	free(s->path);
}

int t2_sink_available(int type)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char *dir = t2_tmpdir(), *path = t2_path(dir, "sock");
	int fd = -1, ok = 0;

	if (strlen(path) < sizeof(addr.sun_path)) {
		strcpy(addr.sun_path, path);
		fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	}
	if (fd >= 0) {
		ok = !bind(fd, (struct sockaddr *)&addr, sizeof(addr)) &&
		     (type != SOCK_STREAM || !listen(fd, 1));
		close(fd);
	}
	t2_rmtree(dir);
	free(dir);
	free(path);
	return ok;
}

/* Accept every pending connection; returns how many. */
static int sink_accept(struct t2_sink *s)
{
	int got = 0, fd;

	while ((fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		assert_true(s->nconn < T2_SINK_MAX_CONNS);
		s->cfd[s->nconn] = fd;
		s->conn[s->nconn++] = (struct t2_buf){ NULL, 0 };
		got++;
	}
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	return got;
}

/* Receive every queued datagram (each kept whole); returns how many. */
static int sink_recv_dgrams(struct t2_sink *s)
{
	static char data[DGRAM_MAX];
	int got = 0;
	ssize_t n;

	while ((n = recv(s->fd, data, sizeof(data), MSG_TRUNC)) >= 0) {
		assert_true((size_t)n <= sizeof(data));
		s->dgram = realloc(s->dgram, (s->ndgram + 1) * sizeof(*s->dgram));
		s->dgram[s->ndgram] = (struct t2_buf){ NULL, 0 };
		buf_add(&s->dgram[s->ndgram++], data, (size_t)n);
		got++;
	}
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	return got;
}

/* Read what connection i has; closes it at EOF.  Returns bytes read. */
static size_t sink_read_conn(struct t2_sink *s, size_t i)
{
	char data[4096];
	size_t total = 0;
	ssize_t n;

	while (s->cfd[i] >= 0 && (n = read(s->cfd[i], data, sizeof(data))) != 0) {
		if (n < 0) {
			assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
			break;
		}
		buf_add(&s->conn[i], data, (size_t)n);
		total += (size_t)n;
	}
	if (s->cfd[i] >= 0 && n == 0) {
		close(s->cfd[i]);
		s->cfd[i] = -1;
		total++; /* progress: a close */
	}
	return total;
}

int t2_sink_pump(struct t2_sink *s, int timeout_ms)
{
	struct pollfd pfd[T2_SINK_MAX_CONNS + 1];
	size_t n = 0, progress = 0;

	pfd[n++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	for (size_t i = 0; i < s->nconn; i++)
		if (s->cfd[i] >= 0)
			pfd[n++] = (struct pollfd){ .fd = s->cfd[i], .events = POLLIN };
	if (poll(pfd, n, timeout_ms) < 0)
		assert_int_equal(errno, EINTR);
	if (s->type == SOCK_DGRAM)
		return sink_recv_dgrams(s) > 0;
	progress += (size_t)sink_accept(s);
	for (size_t i = 0; i < s->nconn; i++)
		progress += sink_read_conn(s, i);
	return progress > 0;
}

static int sink_all_closed(const struct t2_sink *s)
{
	for (size_t i = 0; i < s->nconn; i++)
		if (s->cfd[i] >= 0)
			return 0;
	return 1;
}

int t2_sink_collect(struct t2_sink *s, int pid)
{
	double deadline = t2_now() + T2_SINK_TIMEOUT_MS / 1000.0;
	int status = -1;

	assert_true(pid > 0);
	while (waitpid(pid, &status, WNOHANG) != pid) {
		if (t2_now() > deadline) {
			t2_wait_timeout(pid, 0);
			fail_msg("writer still running after %d ms", T2_SINK_TIMEOUT_MS);
		}
		t2_sink_pump(s, T2_SINK_POLL_MS);
	}
	while (t2_sink_pump(s, sink_all_closed(s) ? 0 : T2_SINK_POLL_MS) || !sink_all_closed(s))
		if (t2_now() > deadline)
			fail_msg("a connection is still open after %d ms", T2_SINK_TIMEOUT_MS);
	return status;
}
#endif
