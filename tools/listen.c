/* The serving loop of validate --listen on POSIX: a Unix stream socket
 * (see listen.h). */
#ifndef _WIN32
#include "listen.h"
#include "alloc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "af_unix:"

const char t2_listen_form[] = PREFIX "PATH";

static volatile sig_atomic_t stop;

struct conn {
	int fd;
	struct t2_source src;   /* names the client by name[] */
	char name[160];
};

struct server {
	const struct t2_listen *l;
	int lfd;                /* the listening socket; -1: none */
	struct conn **conns;    /* each in place: its source points into it */
	struct pollfd *pfd;     /* [0]: the listener, then the clients' */
	size_t n, alloc;
	long accepted, closed;
	uint64_t paused_until;  /* ms (monotonic) accepting is paused until; 0: not */
	int warned;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Room for one more client (and its pollfd after the listener's). */
static void make_room(struct server *sv)
{
	if (sv->n < sv->alloc)
		return;
	sv->alloc = sv->alloc ? 2 * sv->alloc : 16;
	sv->conns = t2_realloc(sv->conns, sv->alloc * sizeof(*sv->conns));
	sv->pfd = t2_realloc(sv->pfd, (sv->alloc + 1) * sizeof(*sv->pfd));
}

static void add_client(struct server *sv, int fd)
{
	struct conn *cn = t2_realloc(NULL, sizeof(*cn));

	make_room(sv);
	cn->fd = fd;
	snprintf(cn->name, sizeof(cn->name), "%s#%ld", sv->l->name, ++sv->accepted);
	t2_source_init(&cn->src, cn->name);
	sv->conns[sv->n++] = cn;
}

/* Client i is done: its last line read, its fd closed (and one free for
 * accepting again). */
static void end_client(struct server *sv, size_t i)
{
	struct conn *cn = sv->conns[i];

	t2_source_end(sv->l->r, &cn->src);
	close(cn->fd);
	free(cn);
	sv->conns[i] = sv->conns[--sv->n];
	sv->closed++;
	sv->paused_until = 0;
}

static void read_client(struct server *sv, size_t i)
{
	static char buf[65536];
	struct conn *cn = sv->conns[i];
	ssize_t got = read(cn->fd, buf, sizeof(buf));

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got > 0) {
		if (!t2_source_feed(sv->l->r, &cn->src, buf, (size_t)got))
			return;
		/* an endless line must not take the memory the others need */
		if (!sv->l->quiet)
			fprintf(stderr, "trace2 validate: %s: a line over the limit; client dropped\n",
				cn->name);
	}
	end_client(sv, i);
}

static void accept_client(struct server *sv)
{
	int fd = accept4(sv->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd >= 0) {
		add_client(sv, fd);
		return;
	}
	if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED)
		return;
	/* out of fds (EMFILE) or memory: the client stays queued and poll()
	 * would wake at once for it, so accepting pauses for a while, or
	 * until a client closes */
	sv->paused_until = now_ms() + T2_LISTEN_BACKOFF_MS;
	if (!sv->warned && !sv->l->quiet)
		fprintf(stderr, "trace2 validate: %s: %s; accepting paused while it lasts\n",
			sv->l->name, strerror(errno));
	sv->warned = 1;
}

/* Whether to poll the listener now; *timeout: how long poll() may wait. */
static int listening(struct server *sv, int *timeout)
{
	uint64_t now;

	*timeout = -1;
	if (sv->lfd < 0)
		return 0;
	if (!sv->paused_until)
		return 1;
	now = now_ms();
	if (now >= sv->paused_until) {
		sv->paused_until = 0;
		return 1;
	}
	*timeout = (int)(sv->paused_until - now);
	return 0;
}

static int serving(const struct server *sv)
{
	const struct t2_listen *l = sv->l;

	if (sv->lfd >= 0 && stop)
		return 0;
	if (l->count > 0 && sv->closed >= l->count)
		return 0;
	return sv->lfd >= 0 || sv->n;
}

/* Read the clients of lfd (-1: none) and the connected fds. */
static void serve(const struct t2_listen *l, int lfd, const int *fds, size_t nfds)
{
	struct server sv;
	size_t i;

	memset(&sv, 0, sizeof(sv));
	sv.l = l;
	sv.lfd = lfd;
	make_room(&sv);
	for (i = 0; i < nfds; i++)
		add_client(&sv, fds[i]);
	while (serving(&sv)) {
		int timeout, accepting = listening(&sv, &timeout);

		sv.pfd[0].fd = accepting ? lfd : -1;
		sv.pfd[0].events = POLLIN;
		sv.pfd[0].revents = 0;
		for (i = 0; i < sv.n; i++) {
			sv.pfd[i + 1].fd = sv.conns[i]->fd;
			sv.pfd[i + 1].events = POLLIN;
		}
		fflush(stdout);
		if (poll(sv.pfd, sv.n + 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = sv.n; i-- > 0;)
			if (sv.pfd[i + 1].revents)
				read_client(&sv, i);
		if (sv.pfd[0].revents & POLLIN)
			accept_client(&sv);
	}
	while (sv.n)
		end_client(&sv, sv.n - 1);
	free(sv.conns);
	free(sv.pfd);
}

void t2_listen_serve(const struct t2_listen *l, const int *fds, size_t nfds)
{
	serve(l, -1, fds, nfds);
}

int t2_listen_address(const char *address)
{
	return !strncmp(address, PREFIX, strlen(PREFIX));
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The socket at path (a stale socket there replaced), listening. */
static int listen_at(const char *path)
{
	struct sockaddr_un addr;
	struct stat st;
	int lfd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "trace2 validate: socket path too long: %s\n", path);
		return -1;
	}
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	strcpy(addr.sun_path, path);
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode))
		unlink(path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) || listen(lfd, 64)) {
		fprintf(stderr, "trace2 validate: %s: %s\n", path, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	return lfd;
}

int t2_listen_run(struct t2_listen *l, const char *address)
{
	static char name[128];
	const char *path = address + strlen(PREFIX);
	struct sigaction sa;
	int lfd;

	if (!strncmp(path, "stream:", 7))
		path += 7;
	lfd = listen_at(path);
	if (lfd < 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!l->quiet)
		fprintf(stderr, "trace2 validate: listening on " PREFIX "%s\n", path);
	snprintf(name, sizeof(name), PREFIX "%s", path);
	l->name = name;
	serve(l, lfd, NULL, 0);
	close(lfd);
	unlink(path);
	return 0;
}
#endif
