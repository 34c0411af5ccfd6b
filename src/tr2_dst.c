#include "tr2_dst.h"
#include "tr2_hot.h"
#include "tr2_sys.h"
#include "tr2_diag.h"
#include "tr2_sid.h"
#include "tr2_buf.h"
#include "tr2_plat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DISCARD_SENTINEL "git-trace2-discard"
#define MAX_AUTO_ATTEMPTS 10

static int max_files;
static int wait_limit_ms = TR2_DST_TIMEOUT_DEFAULT_MS;
/* tr2_dst_create_at_first_write() */
static int create_later;

/* A TR2_DST_LATER destination's fd until its file is made: on, never a
 * descriptor (no process has INT_MAX of them). */
#define LATER_ON INT_MAX

/* A TR2_DST_LATER destination's progress (dst->later). */
enum {
	LATER_NONE,    /* made at open, as always */
	LATER_PENDING, /* named, not made */
	LATER_MAKING,  /* its first write makes it */
	LATER_DONE,    /* made, or given up */
};

void tr2_dst_create_at_first_write(int on)
{
	create_later = on;
}

int tr2_dst_wait_limit_ms(void)
{
	return wait_limit_ms;
}

static const char *name_of(const struct tr2_dst *dst)
{
	return tr2_sysenv_env_name(dst->setting);
}

void tr2_dst_init(struct tr2_dst *dst, int setting)
{
	memset(dst, 0, sizeof(*dst));
	dst->setting = setting;
	dst->slot = -1;
	dst->fd = -1;
	dst->open_fd = -1;
	dst->kind = TR2_DST_FILE;
	tr2_mutex_init(&dst->lock);
}

/* GIT_TRACE2_DST_DEBUG: print destination warnings. */
static int dst_debug(void)
{
	static int debug = -1;

	if (debug < 0)
		debug = tr2_sysenv_int(TR2_SYSENV_DST_DEBUG, 0) > 0;
	return debug;
}

static void set_identity(struct tr2_dst *dst, const struct stat *st)
{
	dst->dev = st->st_dev;
	dst->ino = st->st_ino;
	dst->has_identity = 1;
}

/* What an earlier open left, cleared: fd of the given kind, open_fd what
 * trace2 opened (-1: nothing). */
static void start_afresh(struct tr2_dst *dst, int fd, int open_fd, enum tr2_dst_kind kind)
{
	dst->fd = fd;
	dst->open_fd = open_fd;
	dst->failed = 0;
	dst->kind = kind;
	dst->nonblocking = 0;
	dst->poll_first = 0;
	dst->hold_signals = 0;
	dst->datagram = 0;
	dst->unbatched = 0;
	dst->own_file = 0;
	dst->max_size = 0;
	dst->fifo = 0;
	dst->fd_closed = 0;
	dst->has_identity = 0;
	dst->later_socket = 0;
}

static int set_fd(struct tr2_dst *dst, int fd, int need_close)
{
	struct stat st;

	start_afresh(dst, fd, need_close ? fd : -1, TR2_DST_STREAM);
	if (!tr2_sys.fstat(fd, &st)) {
		set_identity(dst, &st);
		dst->fifo = S_ISFIFO(st.st_mode);
		if (S_ISREG(st.st_mode))
			dst->kind = TR2_DST_FILE;
		else if (S_ISSOCK(st.st_mode)) {
			dst->kind = TR2_DST_SOCKET;
			dst->datagram = tr2_plat_is_datagram(fd);
			dst->unbatched = dst->datagram;
		}
	} else if (errno == EBADF) {
		/* a number the host may open a file of its own under later:
		 * never written to */
		dst->fd_closed = 1;
	}
	return 1;
}

/* A stream shared with the parent: the process without a traced parent
 * starts it. */
static int shared_stream(struct tr2_dst *dst, int fd, int need_close)
{
	set_fd(dst, fd, need_close);
	dst->created = tr2_sid_depth() == 0;
	return 1;
}

/*
 * A path may name a FIFO: opened without O_NONBLOCK that would wait for a
 * reader forever.  A regular file goes back to ordinary blocking writes;
 * a FIFO stays non-blocking (its writes wait a bounded time for room).
 */
#define FILE_STATUS_FLAGS (O_WRONLY | O_APPEND)
#define FILE_OPEN_FLAGS (FILE_STATUS_FLAGS | O_CREAT | O_CLOEXEC | O_NONBLOCK)

static void settle_blocking_mode(struct tr2_dst *dst)
{
	if (dst->kind == TR2_DST_FILE)
		tr2_plat_set_blocking(dst->fd);
	else
		dst->nonblocking = 1;
}

static int open_in_directory(struct tr2_dst *dst, const char *dir);

/* maxFileSize, bytes; 0 without a usable value. */
static uint64_t read_max_file_size(void)
{
	const char *v = tr2_sysenv_get(TR2_SYSENV_MAX_FILE_SIZE);
	size_t size = 0;

	return v && !tr2_parse_size(v, &size) ? size : 0;
}

/* A file's name for tr2_dst_reopen() (NULL: never reopened) and its
 * size limit. */
static void keep_name(struct tr2_dst *dst, const char *path)
{
	tr2_sys.free(dst->path);
	dst->path = path ? tr2_strdup(path) : NULL;
	dst->max_size = read_max_file_size();
	dst->capped = 0;
}

/* A file trace2 opened: its name, and its size limit counted from its
 * size now. */
static void keep_file(struct tr2_dst *dst, const char *path)
{
	struct stat st;

	keep_name(dst, path);
	/* only a size limit reads the size: one system call less at start-up */
	dst->size = dst->max_size && !tr2_sys.fstat(dst->fd, &st) ? (uint64_t)st.st_size : 0;
}

/*
 * A named pipe (Windows) whose instances are all busy (EBUSY): wait for
 * one to free, within the wait limit, instead of dropping the records as
 * Git for Windows does; another client may take a freed one first.
 */
static int open_waiting(const char *path, int flags)
{
	int64_t deadline = tr2_plat_monotonic_ms() + wait_limit_ms, left;
	int fd = tr2_open(path, flags, 0666);

	while (fd < 0 && errno == EBUSY && (left = deadline - tr2_plat_monotonic_ms()) > 0) {
		if (tr2_plat_wait_pipe(path, (int)left)) {
			errno = EBUSY;
			break;
		}
		fd = tr2_open(path, flags, 0666);
	}
	return fd;
}

/* path opened with flags, exclusively first if asked (*created: whether
 * that made it).  Async-signal-safe where named pipes do not wait (POSIX). */
static int open_appending(const char *path, int flags, int exclusive_first, int *created)
{
	int fd = -1;

	if (exclusive_first)
		fd = open_waiting(path, flags | O_EXCL);
	*created = fd >= 0;
	if (fd < 0 && (!exclusive_first || errno == EEXIST))
		fd = open_waiting(path, flags);
	return fd;
}

/* An absolute path: the file, or a new file in it when it names a
 * directory.  Opening a directory for writing fails with EISDIR, so no
 * stat() comes first: one system call less for every traced process. */
static int open_file(struct tr2_dst *dst, const char *path, int want_created)
{
	int created, fd = open_appending(path, FILE_OPEN_FLAGS, want_created, &created);

	dst->created = created;

	if (fd < 0 && errno == EISDIR)
		return open_in_directory(dst, path);
	if (fd < 0 && errno == EBUSY) {
		/* said always: a collector is there, too slow to take us */
		tr2_warning("trace2: '%s' stayed busy for %d ms; no '%s' tracing", path,
			    wait_limit_ms, name_of(dst));
		return 0;
	}
	if (fd < 0) {
		if (dst_debug())
			tr2_warning("trace2: could not open '%s' for '%s' tracing: %s",
				    path, name_of(dst), strerror(errno));
		return 0;
	}
	set_fd(dst, fd, 1);
	settle_blocking_mode(dst);
	if (dst->kind == TR2_DST_FILE)
		keep_file(dst, path);
	return 1;
}

static char *join_path(const char *dir, const char *name)
{
	size_t dlen = strlen(dir), nlen = strlen(name);
	int slash = dlen && dir[dlen - 1] == '/';
	char *p = tr2_sys.malloc(dlen + !slash + nlen + 1);

	if (!p)
		return NULL;
	memcpy(p, dir, dlen);
	if (!slash)
		p[dlen++] = '/';
	memcpy(p + dlen, name, nlen + 1);
	return p;
}

/* Count directory entries ('.' and '..' included) up to limit. */
static int dir_reaches(const char *dir, int limit)
{
	tr2_dir *d = tr2_sys.opendir(dir);
	int n = 0;

	if (!d)
		return 0;
	while (n < limit && tr2_sys.readdir(d))
		n++;
	tr2_plat_closedir(d);
	return n >= limit;
}

static int create_exclusive(const char *path)
{
	return tr2_open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

enum dir_state { DIR_OPEN, DIR_HAS_SENTINEL, DIR_FULL };

/*
 * The maxFiles check.  A full directory gets the discard sentinel, made
 * exclusively by the first process to notice (its fd in *fd, else -1).
 */
static enum dir_state check_max_files(struct tr2_dst *dst, const char *dir, int *fd)
{
	enum dir_state state = DIR_OPEN;
	char *sentinel;
	struct stat st;

	if (max_files <= 0 || !(sentinel = join_path(dir, DISCARD_SENTINEL)))
		return DIR_OPEN;
	if (!tr2_sys.stat(sentinel, &st)) {
		if (dst_debug())
			tr2_warning("trace2: not opening %s trace file due to too "
				    "many files in target directory %s",
				    name_of(dst), dir);
		state = DIR_HAS_SENTINEL;
	} else if (dir_reaches(dir, max_files)) {
		*fd = create_exclusive(sentinel);
		state = DIR_FULL;
	}
	tr2_sys.free(sentinel);
	return state;
}

static void read_max_files(void)
{
	int n = tr2_sysenv_int(TR2_SYSENV_MAX_FILES, 0);

	if (n >= 0)
		max_files = n;
}

/* The size of a buffer for a name of directory mode. */
#define NUMBERED_MAX (PATH_MAX + 16)

/* <base> (attempt 0) or <base>.<attempt> into name; -1 if too long.
 * Async-signal-safe (tr2_dst_reopen()). */
static int numbered_name(char name[NUMBERED_MAX], const char *base, int attempt)
{
	size_t n = strlen(base);

	if (n + 3 > NUMBERED_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(name, base, n);
	if (attempt) {
		name[n++] = '.';
		name[n++] = (char)('0' + attempt);
	}
	name[n] = '\0';
	return 0;
}

/* <base>, then <base>.1 ... <base>.9, each created exclusively; the
 * number of the name taken in *taken.  Async-signal-safe. */
static int create_numbered(const char *base, int *taken)
{
	char name[NUMBERED_MAX];
	int attempt, fd = -1;

	for (attempt = 0; fd < 0 && attempt < MAX_AUTO_ATTEMPTS; attempt++) {
		if (numbered_name(name, base, attempt))
			return -1;
		fd = create_exclusive(name);
		*taken = attempt;
	}
	return fd;
}

/* A file named now, made by the first write (make_file()): path, or a
 * directory's own file by its base name; 0 without memory for the name. */
static int name_for_later(struct tr2_dst *dst, const char *path)
{
	start_afresh(dst, LATER_ON, -1, TR2_DST_LATER);
	dst->created = 0; /* its head goes in when it is made */
	keep_name(dst, path);
	dst->later = LATER_PENDING;
	return dst->path != NULL;
}

/* create_later: the directory's own file, by its base name (freed). */
static int name_own_file(struct tr2_dst *dst, char *base)
{
	int named = name_for_later(dst, base);

	dst->own_file = named;
	tr2_sys.free(base);
	return named;
}

static int open_in_directory(struct tr2_dst *dst, const char *dir)
{
	const char *sid = tr2_sid_get(), *last = strrchr(sid, '/');
	char *base = join_path(dir, last ? last + 1 : sid);
	enum dir_state state;
	int fd = -1, taken = 0;

	if (!base)
		return 0;
	read_max_files();
	state = check_max_files(dst, dir, &fd);
	if (state == DIR_OPEN && create_later)
		return name_own_file(dst, base);
	if (state == DIR_OPEN)
		fd = create_numbered(base, &taken);
	if (fd < 0 && state != DIR_HAS_SENTINEL && dst_debug())
		tr2_warning("trace2: could not open '%s' for '%s' tracing: %s",
			    base, name_of(dst), strerror(errno));
	if (fd >= 0) {
		dst->too_many_files = state == DIR_FULL;
		dst->created = 1;
		set_fd(dst, fd, 1);
		dst->own_file = 1;
		/* a reopen tries the names again, from the base on */
		keep_file(dst, state == DIR_OPEN ? base : NULL);
		dst->taken = taken;
	}
	tr2_sys.free(base);
	return fd >= 0;
}

/*
 * Destinations a write or connect waited the full limit on (device and
 * inode): the targets writing to one are switched off together, and a
 * target opened later does not connect to it.  Async-signal-safe.
 */
static struct stall {
	dev_t dev;
	ino_t ino;
} stalled[TR2_DST_MAX];
static int nstalled; /* atomic */

static void remember_stall(dev_t dev, ino_t ino)
{
	int i = __atomic_fetch_add(&nstalled, 1, __ATOMIC_ACQ_REL);

	if (i >= TR2_DST_MAX) {
		__atomic_store_n(&nstalled, TR2_DST_MAX, __ATOMIC_RELEASE);
		return;
	}
	stalled[i].dev = dev;
	stalled[i].ino = ino;
}

static int has_stalled(dev_t dev, ino_t ino)
{
	int i, n = __atomic_load_n(&nstalled, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < TR2_DST_MAX; i++)
		if (stalled[i].dev == dev && stalled[i].ino == ino)
			return 1;
	return 0;
}

/* A stream, then a datagram connection as value allows, within limit_ms;
 * the fd, or -1 with the error in *err.  A collector that stalled once
 * is not tried; one that makes a connect() wait the full limit is
 * remembered so.  Async-signal-safe. */
static int connect_collector(const char *path, int stream, int dgram,
			     const struct stat *st, int *err, int limit_ms)
{
	int fd = -1;

	if (st && has_stalled(st->st_dev, st->st_ino)) {
		*err = EAGAIN;
		return -1;
	}
	if (stream) {
		fd = tr2_plat_connect_unix(path, SOCK_STREAM, limit_ms, err);
		if (fd < 0 && *err != EPROTOTYPE)
			dgram = 0;
	}
	if (fd < 0 && dgram)
		fd = tr2_plat_connect_unix(path, SOCK_DGRAM, limit_ms, err);
	if (fd < 0 && *err == EAGAIN && st)
		remember_stall(st->st_dev, st->st_ino);
	return fd;
}

/* create_later: a collector's socket named now, connected by the first
 * write (connect_later()), so that a run that never writes never
 * connects. */
static int name_socket_for_later(struct tr2_dst *dst, const char *path, int stream, int dgram)
{
	if (!name_for_later(dst, path))
		return 0;
	dst->max_size = 0; /* a file's limit */
	dst->later_socket = 1;
	dst->later_stream = stream;
	dst->later_dgram = dgram;
	dst->unbatched = dgram;
	dst->created = tr2_sid_depth() == 0; /* as shared_stream() */
	return 1;
}

static int open_af_unix(struct tr2_dst *dst, const char *value)
{
	int stream = 1, dgram = 1, fd, err = 0, known;
	const char *path;
	struct stat st;

	if (!strncmp(value, "af_unix:stream:", 15)) {
		path = value + 15;
		dgram = 0;
	} else if (!strncmp(value, "af_unix:dgram:", 14)) {
		path = value + 14;
		stream = 0;
	} else
		path = value + 8;

	if (!*path) {
		if (dst_debug())
			tr2_warning("trace2: invalid AF_UNIX value '%s' for '%s' tracing",
				    value, name_of(dst));
		return 0;
	}
	if (path[0] != '/' || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		if (dst_debug())
			tr2_warning("trace2: invalid AF_UNIX path '%s' for '%s' tracing",
				    path, name_of(dst));
		return 0;
	}
	if (create_later)
		return name_socket_for_later(dst, path, stream, dgram);
	known = !tr2_sys.stat(path, &st);
	fd = connect_collector(path, stream, dgram, known ? &st : NULL, &err, wait_limit_ms);
	if (fd < 0) {
		if (dst_debug())
			tr2_warning("trace2: could not connect to socket '%s' for '%s' tracing: %s",
				    path, name_of(dst), strerror(err));
		return 0;
	}
	shared_stream(dst, fd, 1);
	/* each connection is a socket of its own: the collector is its file */
	if (known)
		set_identity(dst, &st);
	else
		dst->has_identity = 0;
	return 1;
}

enum tr2_dst_form tr2_dst_classify(const char *v)
{
	if (!v || !*v || !strcmp(v, "0") || !strcasecmp(v, "false"))
		return TR2_DST_OFF;
	if (!strcmp(v, "1") || !strcasecmp(v, "true"))
		return TR2_DST_STDERR;
	if (v[0] >= '0' && v[0] <= '9' && !v[1])
		return TR2_DST_FD;
	if (tr2_plat_is_absolute(v))
		return TR2_DST_PATH;
	/* Windows builds have none (as Git for Windows): an unknown value */
	if (TR2_HAVE_AF_UNIX && !strncmp(v, "af_unix:", 8))
		return TR2_DST_AF_UNIX;
	return TR2_DST_UNKNOWN;
}

/*
 * An absolute path.  create_later: one that names a regular file, a
 * directory or nothing yet is named now and made by the first write
 * (a symlink there now is the user's, followed as always; one planted
 * later is not); whatever else it names is opened now.
 */
static int open_path(struct tr2_dst *dst, const char *path, int want_created)
{
	struct stat st;
	int exists;

	if (!create_later || tr2_plat_is_pipe_name(path))
		return open_file(dst, path, want_created);
	exists = !tr2_sys.stat(path, &st);
	if (exists && S_ISDIR(st.st_mode))
		return open_in_directory(dst, path);
	if (exists ? !S_ISREG(st.st_mode) : errno != ENOENT)
		return open_file(dst, path, want_created);
	dst->exclusive_first = want_created;
	dst->nofollow = !tr2_plat_is_symlink(path);
	return name_for_later(dst, path);
}

static int resolve(struct tr2_dst *dst, const char *v, int want_created)
{
	switch (tr2_dst_classify(v)) {
	case TR2_DST_OFF:
		return 0;
	case TR2_DST_STDERR:
		return shared_stream(dst, 2, 0);
	case TR2_DST_FD:
		return shared_stream(dst, v[0] - '0', 0);
	case TR2_DST_PATH:
		return open_path(dst, v, want_created);
	case TR2_DST_AF_UNIX:
		return open_af_unix(dst, v);
	case TR2_DST_UNKNOWN:
		break;
	}
	tr2_warning("trace2: unknown value for '%s': '%s'", name_of(dst), v);
	return 0;
}

/* Every destination that was ever open, by slot (a stall switches off
 * those writing to the same place). */
static struct tr2_dst *by_slot[TR2_DST_MAX];

/* Each open destination gets the index of its per-thread buffer.  A
 * closed fd gets none: its records fail at once, unbuffered. */
static void take_buffer_slot(struct tr2_dst *dst)
{
	static int next_slot;

	if (dst->slot < 0 && next_slot < TR2_DST_MAX && !dst->fd_closed) {
		dst->slot = next_slot++;
		__atomic_store_n(&by_slot[dst->slot], dst, __ATOMIC_RELEASE);
	}
}

int tr2_dst_open(struct tr2_dst *dst, int want_created)
{
	if (!dst->initialized) {
		dst->initialized = 1;
		dst->later = LATER_NONE;
		wait_limit_ms = tr2_sysenv_dst_timeout_ms();
		if (!resolve(dst, tr2_sysenv_get(dst->setting), want_created))
			dst->fd = -1;
		else
			take_buffer_slot(dst);
	}
	return tr2_dst_is_on(dst);
}

void tr2_dst_attach_fd(struct tr2_dst *dst, int fd)
{
	dst->initialized = 1;
	set_fd(dst, fd, 0);
	take_buffer_slot(dst);
}

/* A sink has no descriptor: fd only says it is on, and is never written
 * to (a sink's records leave tr2_dst_write_now() for its function). */
#define SINK_ON INT_MAX

void tr2_dst_init_sink(struct tr2_dst *dst, tr2_dst_sink_fn *fn, void *data)
{
	tr2_dst_init(dst, 0);
	dst->initialized = 1;
	dst->kind = TR2_DST_SINK;
	dst->sink = fn;
	dst->sink_data = data;
	dst->fd = SINK_ON;
}

void tr2_dst_forget(struct tr2_dst *dst)
{
	dst->initialized = 0;
	dst->too_many_files = 0;
}

/* open_fd while tr2_dst_reopen() works on it. */
#define REOPENING (-2)

void tr2_dst_close(struct tr2_dst *dst)
{
	int fd = __atomic_exchange_n(&dst->open_fd, -1, __ATOMIC_ACQ_REL);
	int pending = LATER_PENDING;

	/* a file not made yet never will be */
	__atomic_compare_exchange_n(&dst->later, &pending, LATER_DONE, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	if (fd >= 0)
		tr2_sys.close(fd);
	/* REOPENING: the reopen closes it when done, and the name stays
	 * (the reopen reads it) until the next open replaces it; so does
	 * the name of a file being made.  A file to be made at the first
	 * write that never was: nothing reads its name any more. */
	if (fd >= 0 ||
	    (fd == -1 && __atomic_load_n(&dst->later, __ATOMIC_ACQUIRE) == LATER_DONE)) {
		tr2_sys.free(dst->path);
		dst->path = NULL;
	}
	__atomic_store_n(&dst->fd, -1, __ATOMIC_RELEASE);
}

int tr2_dst_set_head(struct tr2_dst *dst, const void *head, size_t len)
{
	if (len > sizeof(dst->head))
		return -1;
	memcpy(dst->head, head, len);
	dst->head_len = len;
	return 0;
}

void tr2_dst_set_full_line(struct tr2_dst *dst,
			   size_t (*fn)(char *line, size_t size, const void *record,
					size_t len, uint64_t max_size))
{
	dst->full_line = fn;
}

/* The regular file fd (of size bytes) onto the descriptor number old,
 * fd closed; 1 if done. */
static int put_in_place(struct tr2_dst *dst, int fd, int old, off_t size)
{
	int another = !tr2_plat_same_file(fd, old);
	int done = tr2_plat_dup_cloexec(fd, old) >= 0;

	if (done) {
		/* a target that gives each file its own context sees it */
		if (another)
			__atomic_add_fetch(&dst->file_gen, 1, __ATOMIC_ACQ_REL);
		/* a new file starts as the first did (a JSON array's "[") */
		if (!size && dst->head_len &&
		    tr2_sys.write(old, dst->head, dst->head_len) == (ssize_t)dst->head_len)
			size = (off_t)dst->head_len;
		__atomic_store_n(&dst->size, (uint64_t)size, __ATOMIC_RELAXED);
		__atomic_store_n(&dst->capped, 0, __ATOMIC_RELEASE);
	}
	tr2_sys.close(fd);
	return done;
}

/* A file target: its name opened as at the first open, onto old. */
static int replace_file(struct tr2_dst *dst, int old)
{
	int fd = tr2_open(dst->path, FILE_OPEN_FLAGS, 0666);
	struct stat st;

	if (fd < 0)
		return 0;
	/* O_NONBLOCK: a FIFO put in the file's place must not stall us */
	if (!tr2_sys.fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    !tr2_plat_set_blocking(fd))
		return put_in_place(dst, fd, old, st.st_size);
	tr2_sys.close(fd);
	return 0;
}

/*
 * Directory mode: the process's own file stays while its name still
 * denotes it; else a new file, made as at the first open, goes onto old.
 * In a shared directory another user may have put anything under the
 * name since a rotation moved the file away: a symlink, a file of theirs.
 */
static int replace_own_file(struct tr2_dst *dst, int old)
{
	char name[NUMBERED_MAX];
	int fd, taken = 0;

	if (!numbered_name(name, dst->path, dst->taken) && tr2_plat_names_file(name, old))
		return 1;
	fd = create_numbered(dst->path, &taken);
	if (fd < 0 || !put_in_place(dst, fd, old, 0))
		return 0;
	dst->taken = taken;
	return 1;
}

/* The descriptor is claimed (REOPENING) while its file is replaced, so
 * that tr2_dst_close() never closes it in between and a number the host
 * reuses is never written over. */
int tr2_dst_reopen(struct tr2_dst *dst)
{
	int old = __atomic_load_n(&dst->open_fd, __ATOMIC_ACQUIRE), done, claimed;

	if (old < 0 || !dst->path || dst->kind != TR2_DST_FILE || !tr2_dst_is_on(dst) ||
	    !__atomic_compare_exchange_n(&dst->open_fd, &old, REOPENING, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	done = dst->own_file ? replace_own_file(dst, old) : replace_file(dst, old);
	claimed = REOPENING;
	if (!__atomic_compare_exchange_n(&dst->open_fd, &claimed, old, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		tr2_sys.close(old); /* tr2_dst_close() came meanwhile */
	return done;
}

/* The value of the string member key ("\"thread\":\"") in the first
 * line of a JSON record, escapes kept; NULL if there is none. */
static const char *json_member(const char *record, size_t len, const char *key,
			       int *n)
{
	const char *eol = memchr(record, '\n', len), *at, *p, *end;
	size_t klen = strlen(key);

	end = eol ? eol : record + len;
	at = tr2_find(record, (size_t)(end - record), key, klen);
	if (!at)
		return NULL;
	for (p = at + klen; p < end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	if (p >= end || p - at > 256)
		return NULL;
	*n = (int)(p - (at + klen));
	return at + klen;
}

/* ,"<name>":"<value>" when value is not NULL. */
static size_t put_member(char *line, size_t size, const char *name, const char *value,
			 int n)
{
	int w = value ? snprintf(line, size, ",\"%s\":\"%.*s\"", name, n, value) : 0;

	return w > 0 && (size_t)w < size ? (size_t)w : 0;
}

/*
 * One line that says the file reached its size, ending as the records
 * do.  In a file of JSON records a JSON object with the session id and,
 * taken from the record that did not fit, the thread and time, so that
 * it passes for a record of an unknown event (which collectors skip);
 * text otherwise.
 */
static size_t size_sentinel(char *line, size_t size, const char *record, size_t len,
			    uint64_t max)
{
	const struct trace2_process *p = tr2_sid_process();
	const char *end = len >= 2 && record[len - 2] == ',' ? ",\n" : "\n", *thread, *time;
	int sid_len = p->sid_json_len < size / 2 ? (int)p->sid_json_len : 0, tn = 0, n;
	size_t at;

	if (!len || record[0] != '{') {
		n = snprintf(line, size, "max_file_size %" PRIu64 " reached: "
			     "no more records written to this file\n", max);
		return n > 0 && (size_t)n < size ? (size_t)n : 0;
	}
	n = snprintf(line, size, "{\"event\":\"max_file_size\",\"sid\":\"%.*s\"",
		     sid_len, p->sid_json);
	if (n <= 0 || (size_t)n >= size)
		return 0;
	at = (size_t)n;
	thread = json_member(record, len, "\"thread\":\"", &tn);
	at += put_member(line + at, size - at, "thread", thread, tn);
	time = json_member(record, len, "\"time\":\"", &tn);
	at += put_member(line + at, size - at, "time", time, tn);
	n = snprintf(line + at, size - at, ",\"max_file_size\":%" PRIu64 "}%s", max, end);
	return n > 0 && (size_t)n < size - at ? at + (size_t)n : 0;
}

int tr2_dst_room_for(struct tr2_dst *dst, const char *record, size_t len)
{
	uint64_t max = dst->max_size;
	uint64_t before = __atomic_fetch_add(&dst->size, len, __ATOMIC_RELAXED);
	char line[1200];

	if (before + len <= max)
		return 1;
	if (!__atomic_exchange_n(&dst->capped, 1, __ATOMIC_ACQ_REL) && dst->fd >= 0) {
		size_t n = dst->full_line ?
			   dst->full_line(line, sizeof(line), record, len, max) : 0;
		ssize_t w;

		if (!n || n > sizeof(line))
			n = size_sentinel(line, sizeof(line), record, len, max);
		w = tr2_sys.write(dst->fd, line, n);
		(void)w; /* the file's last line: nothing to do if it fails */
	}
	return 0;
}

void tr2_dst_after_fork(struct tr2_dst *dst)
{
	int making = LATER_MAKING;

	tr2_mutex_init(&dst->lock);
	/* the thread making the file is not in the child: its first write
	 * makes it */
	__atomic_compare_exchange_n(&dst->later, &making, LATER_PENDING, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
}

/* Turn the destination off; 1 if this was its first failure. */
static int take_down(struct tr2_dst *dst)
{
	if (__atomic_exchange_n(&dst->failed, 1, __ATOMIC_ACQ_REL))
		return 0;
	__atomic_store_n(&dst->fd, -1, __ATOMIC_RELEASE);
	return 1;
}

/* The first failure reports, announced only when asked for and not from
 * a signal handler (announcing formats text and emits events). */
static void report_failure(struct tr2_dst *dst, int err, int report)
{
	if (report && dst_debug())
		tr2_diag_dst_failed(dst, 1, "unable to write trace to '%s': %s",
				    name_of(dst), strerror(err));
	else
		tr2_diag_dst_failed(dst, 0, "%s", "");
}

static void fail(struct tr2_dst *dst, int err, int report)
{
	if (take_down(dst))
		report_failure(dst, err, report);
}

static int same_place(const struct tr2_dst *a, const struct tr2_dst *b)
{
	return a->has_identity && b->has_identity && a->dev == b->dev && a->ino == b->ino;
}

/*
 * A write waited the full limit (EAGAIN): every destination writing to
 * the same place goes off with it, all before any is reported (a report
 * writes "error" records to the targets still on), so a stalled reader
 * costs the host one limit, not one per target.
 */
static void fail_stalled(struct tr2_dst *dst, int report)
{
	struct tr2_dst *down[TR2_DST_MAX + 1];
	int n = 0, i;

	if (dst->has_identity)
		remember_stall(dst->dev, dst->ino);
	if (take_down(dst))
		down[n++] = dst;
	for (i = 0; i < TR2_DST_MAX; i++) {
		struct tr2_dst *other = __atomic_load_n(&by_slot[i], __ATOMIC_ACQUIRE);

		if (other && other != dst && tr2_dst_is_on(other) && same_place(other, dst) &&
		    take_down(other))
			down[n++] = other;
	}
	for (i = 0; i < n; i++)
		report_failure(down[i], EAGAIN, report);
}

/* A write that failed with err: EAGAIN is a wait that reached the limit. */
static void fail_write(struct tr2_dst *dst, int err, int report)
{
	if (err == EAGAIN)
		fail_stalled(dst, report);
	else
		fail(dst, err, report);
}

/*
 * The record this thread is writing, so that a signal handler that
 * interrupts it can finish it before writing its own (records never
 * interleave) and the interrupted loop then knows it is done.
 */
struct inflight {
	struct tr2_dst *dst;
	const char *buf;
	size_t len;
	size_t done; /* exact whenever a handler can look at it... */
	int unsure;  /* ...except while write_whole() runs */
};

static _Thread_local struct inflight inflight;
/* Set while this thread runs the signal handler. */
static _Thread_local int in_signal_handler;

void tr2_dst_signal_context(int on)
{
	in_signal_handler = on;
}

int tr2_dst_in_signal_context(void)
{
	return in_signal_handler;
}

/*
 * Wait, with signals deliverable, until the destination takes more bytes
 * or the deadline passes (then EAGAIN): a reader that stopped reading
 * never blocks the host for longer, and Ctrl-C still works meanwhile.
 * The deadline is set by the record's first wait that is not over at
 * once, so a stream with room costs no clock reading.
 */
static int wait_for_room(const struct tr2_dst *dst, int64_t *deadline_ms,
			 int64_t wait_ms)
{
	struct pollfd pfd = { dst->fd, POLLOUT, 0 };

	if (pfd.fd < 0) { /* switched off meanwhile: a stall elsewhere */
		errno = EBADF;
		return -1;
	}
	if (!*deadline_ms) {
		if (tr2_plat_poll(&pfd, 1, 0) > 0)
			return 0;
		*deadline_ms = tr2_plat_monotonic_ms() + wait_ms;
	}
	for (;;) {
		int64_t left = *deadline_ms - tr2_plat_monotonic_ms();
		int n;

		if (left <= 0)
			break;
		n = tr2_plat_poll(&pfd, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			break;
	}
	errno = EAGAIN;
	return -1;
}

static int polls_first(const struct tr2_dst *dst)
{
	return __atomic_load_n(&dst->poll_first, __ATOMIC_RELAXED);
}

/*
 * The kernel refused a stream write's flags.  A refused TR2_WRITE_NOWAIT
 * (terminals, FIFOs on some kernels) turns the stream to polling before
 * each write.  A refused TR2_WRITE_NOSIGNAL (kernels before 6.18) turns
 * it to holding signals around each write; as that flag is first tried
 * together with TR2_WRITE_NOWAIT, which then took the blame, the stream
 * gives TR2_WRITE_NOWAIT another try.
 */
static void learn_refusal(struct tr2_dst *dst, int flags)
{
	if (flags & TR2_WRITE_NOWAIT)
		__atomic_store_n(&dst->poll_first, 1, __ATOMIC_RELAXED);
	else if (flags & TR2_WRITE_NOSIGNAL) {
		__atomic_store_n(&dst->hold_signals, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&dst->poll_first, 0, __ATOMIC_RELAXED);
	}
}

/*
 * A stream write that never waits for room.  A descriptor trace2 opened
 * is non-blocking; an inherited one is shared with others, so its mode
 * is not ours to change: its write asks the kernel not to wait.  flags
 * may ask for TR2_WRITE_NOSIGNAL as well.  A refusal is learnt and
 * reported as EAGAIN, so the caller polls and tries again.
 */
static ssize_t write_stream(struct tr2_dst *dst, const char *buf, size_t n, int flags)
{
	ssize_t w;

	if (!dst->nonblocking && !polls_first(dst))
		flags |= TR2_WRITE_NOWAIT;
	if (!flags)
		return tr2_sys.write(dst->fd, buf, n);
	w = tr2_sys.write_flags(dst->fd, buf, n, flags);
	if (w < 0 && (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS)) {
		learn_refusal(dst, flags);
		errno = EAGAIN;
	}
	return w;
}

/*
 * The next piece of at most PIPE_BUF bytes for a pipe: up to the last
 * end of line in it, so that a buffer of several records goes out in
 * whole records, each piece one write no other process's comes into
 * (they share the pipe); a record longer than PIPE_BUF is cut at it.
 */
static size_t pipe_piece(const char *p, size_t n)
{
	size_t i;

	if (n <= PIPE_BUF)
		return n;
	for (i = PIPE_BUF; i > 0; i--)
		if (p[i - 1] == '\n')
			return i;
	return PIPE_BUF;
}

/*
 * One write or send of the next piece of f's record with the handled
 * signals held, so no handler runs between the write and the progress
 * update; a SIGPIPE we caused is consumed, so the host never sees it.
 * Pieces to pipes are at most PIPE_BUF bytes (pipe_piece()), so they are
 * never cut; a socket takes the rest at once, its kernel wait bounded by
 * the send timeout, and a datagram is always one whole record.
 */
static ssize_t write_held(struct inflight *f)
{
	struct tr2_dst *dst = f->dst;
	size_t n = f->len - f->done;
	tr2_held old;
	int was_pending, err;
	ssize_t w;

	if (dst->kind == TR2_DST_STREAM)
		n = pipe_piece(f->buf + f->done, n);
	tr2_plat_hold_signals(&old);
	was_pending = tr2_plat_host_sigpipe_pending(&old);
	if (dst->kind == TR2_DST_SOCKET)
		w = tr2_sys.send(dst->fd, f->buf + f->done, n, TR2_MSG_NOSIGNAL);
	else
		w = write_stream(dst, f->buf + f->done, n, 0);
	err = errno;
	if (w > 0)
		f->done += (size_t)w;
	if (w < 0 && err == EPIPE && !was_pending)
		tr2_plat_take_sigpipe();
	tr2_plat_release_signals(&old);
	errno = err;
	return w;
}

/*
 * A whole record of at most PIPE_BUF bytes to a pipe or FIFO goes out in
 * one piece or not at all, and TR2_WRITE_NOSIGNAL keeps a reader that is
 * gone from raising SIGPIPE: no signals need holding.  A handler that
 * interrupts this write cannot tell whether the record went out, so it
 * leaves the record to this code (f->unsure) rather than write it twice.
 */
static ssize_t write_whole(struct inflight *f)
{
	ssize_t w;

	f->unsure = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w = write_stream(f->dst, f->buf, f->len, TR2_WRITE_NOSIGNAL);
	if (w > 0)
		f->done += (size_t)w;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f->unsure = 0;
	return w;
}

static ssize_t write_piece(struct inflight *f)
{
	if (f->dst->fifo && !f->done && f->len <= PIPE_BUF &&
	    !__atomic_load_n(&f->dst->hold_signals, __ATOMIC_RELAXED))
		return write_whole(f);
	return write_held(f);
}

/* A regular file: a plain write() (the hot path: no extra system calls). */
static ssize_t write_file(struct inflight *f)
{
	ssize_t w = tr2_sys.write(f->dst->fd, f->buf + f->done, f->len - f->done);

	if (w > 0)
		f->done += (size_t)w;
	return w;
}

/* Write the rest of f; 0, or -1 with errno when the destination failed. */
static int write_rest(struct inflight *f, int64_t wait_ms)
{
	int pipe_like = f->dst->kind == TR2_DST_STREAM;
	int64_t deadline = 0; /* set by wait_for_room() */
	int full = 0;         /* the last write found no room */

	do {
		ssize_t w;

		if (pipe_like && (full || polls_first(f->dst)) &&
		    wait_for_room(f->dst, &deadline, wait_ms))
			return -1;
		w = f->dst->kind == TR2_DST_FILE ? write_file(f) : write_piece(f);
		full = w < 0 && errno == EAGAIN;
		if (w == 0 && f->len)
			errno = EIO;
		else if (w >= 0 || errno == EINTR || (full && pipe_like))
			continue; /* EAGAIN: wait_for_room() bounds the retries */
		return -1;
	} while (f->done < f->len);
	return 0;
}

/* A signal handler's wait: short, and never past the limit. */
static int signal_wait_ms(void)
{
	return wait_limit_ms < TR2_DST_SIGNAL_WAIT_MS ? wait_limit_ms : TR2_DST_SIGNAL_WAIT_MS;
}

/* The destination this thread holds the lock of (signal handlers). */
static _Thread_local struct tr2_dst *locked_here;

/* Take dst's lock for one record (not needed for regular files: one
 * O_APPEND write is whole).  A signal handler never waits on a lock its
 * own thread holds, and only briefly on another thread's. */
static int lock_record(struct tr2_dst *dst)
{
	int spins;

	if (dst->kind == TR2_DST_FILE || locked_here == dst)
		return 0;
	if (!in_signal_handler) {
		tr2_mutex_lock(&dst->lock);
		locked_here = dst;
		return 1;
	}
	for (spins = 0; spins < 1000000; spins++) {
		if (!tr2_mutex_trylock(&dst->lock)) {
			locked_here = dst;
			return 1;
		}
	}
	return -1;
}

static void unlock_record(struct tr2_dst *dst, int locked)
{
	if (locked > 0) {
		locked_here = NULL;
		tr2_mutex_unlock(&dst->lock);
	}
}

/* The destination whose file this thread is making (signal handlers). */
static _Thread_local struct tr2_dst *making_here;

/* An open descriptor of a regular file, turned to blocking writes. */
static int regular_and_blocking(int fd, struct stat *st)
{
	if (tr2_sys.fstat(fd, st))
		return 0;
	if (!S_ISREG(st->st_mode)) {
		errno = EINVAL; /* something else put in its place */
		return 0;
	}
	return !tr2_plat_set_blocking(fd);
}

/* The made file's or connected socket's fd in place of LATER_ON, unless
 * the destination was closed meanwhile (at exit): then fd is closed. */
static void put_made(struct tr2_dst *dst, int fd, enum tr2_dst_kind kind)
{
	int on = LATER_ON;

	__atomic_store_n(&dst->open_fd, fd, __ATOMIC_RELEASE);
	if (__atomic_compare_exchange_n(&dst->fd, &on, fd, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		__atomic_store_n(&dst->kind, kind, __ATOMIC_RELEASE);
	else if (__atomic_exchange_n(&dst->open_fd, -1, __ATOMIC_ACQ_REL) == fd)
		tr2_sys.close(fd);
}

/*
 * Make the file of a TR2_DST_LATER destination with what tr2_dst_open()
 * would have used: the flags, exclusively and never through a symlink in
 * a directory, never through a symlink put at a file's name since it was
 * named; a new file starts with the head.  A failure switches it off as
 * a failed write does.  Async-signal-safe: no allocation, no lock.
 */
static void make_file(struct tr2_dst *dst)
{
	int fd, created = 1, taken = 0, err;
	struct stat st;

	if (dst->own_file)
		fd = create_numbered(dst->path, &taken);
	else
		fd = open_appending(dst->path, FILE_OPEN_FLAGS | (dst->nofollow ? O_NOFOLLOW : 0),
				    dst->exclusive_first, &created);
	if (fd >= 0 && !regular_and_blocking(fd, &st)) {
		err = errno;
		tr2_sys.close(fd);
		errno = err;
		fd = -1;
	}
	if (fd < 0) {
		fail(dst, errno, !in_signal_handler);
		return;
	}
	if (created && dst->head_len &&
	    tr2_sys.write(fd, dst->head, dst->head_len) == (ssize_t)dst->head_len)
		st.st_size += (off_t)dst->head_len;
	set_identity(dst, &st);
	dst->size = (uint64_t)st.st_size;
	dst->taken = taken;
	put_made(dst, fd, TR2_DST_FILE);
}

/*
 * Connect a TR2_DST_LATER socket as open_af_unix() would have, within
 * the wait limit (a signal handler's shorter one inside a handler).  A
 * failure switches it off as a failed write does.  Async-signal-safe.
 */
static void connect_later(struct tr2_dst *dst)
{
	struct stat st;
	int known = !tr2_sys.stat(dst->path, &st), err = 0;
	int fd = connect_collector(dst->path, dst->later_stream, dst->later_dgram,
				   known ? &st : NULL, &err,
				   in_signal_handler ? signal_wait_ms() : wait_limit_ms);

	if (fd < 0) {
		fail(dst, err, !in_signal_handler);
		return;
	}
	dst->datagram = tr2_plat_is_datagram(fd);
	if (known)
		set_identity(dst, &st);
	put_made(dst, fd, TR2_DST_SOCKET);
}

static int made_elsewhere(void *arg)
{
	return __atomic_load_n(&((struct tr2_dst *)arg)->later, __ATOMIC_ACQUIRE) != LATER_MAKING;
}

/*
 * The first write of a TR2_DST_LATER destination makes its file; a
 * write of another thread meanwhile waits for it (briefly).  A signal
 * handler that interrupted its own thread's making cannot: its record
 * is lost.  1 if the file is there to write to.
 */
static int made_at_first_write(struct tr2_dst *dst)
{
	int state = LATER_PENDING;

	if (__atomic_compare_exchange_n(&dst->later, &state, LATER_MAKING, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		making_here = dst;
		if (dst->later_socket)
			connect_later(dst);
		else
			make_file(dst);
		making_here = NULL;
		__atomic_store_n(&dst->later, LATER_DONE, __ATOMIC_RELEASE);
	} else if (state == LATER_MAKING &&
		   (making_here == dst ||
		    !tr2_nap_until(made_elsewhere, dst,
				   in_signal_handler ? signal_wait_ms() : wait_limit_ms)))
		return 0;
	return __atomic_load_n(&dst->kind, __ATOMIC_ACQUIRE) != TR2_DST_LATER &&
	       tr2_dst_is_on(dst);
}

/* Write what is left of a record after its first done bytes: as one
 * in-flight record that a signal handler can finish. */
static void write_record(struct tr2_dst *dst, const char *buf, size_t len,
			 size_t done)
{
	struct inflight outer = inflight;
	int locked = lock_record(dst);

	if (locked < 0 || !tr2_dst_is_on(dst)) {
		unlock_record(dst, locked);
		return;
	}
	inflight.dst = dst;
	inflight.buf = buf;
	inflight.len = len;
	inflight.done = done;
	inflight.unsure = 0;
	if (write_rest(&inflight, in_signal_handler ? signal_wait_ms() : wait_limit_ms))
		fail_write(dst, errno, !in_signal_handler);
	inflight = outer;
	unlock_record(dst, locked);
}

/* Whether a write() failed with EBADF as one that raced the making of
 * the file (its fd read as LATER_ON): then the file takes it. */
static int raced_making(const struct tr2_dst *dst, ssize_t written)
{
	return written < 0 && errno == EBADF &&
	       __atomic_load_n(&dst->later, __ATOMIC_ACQUIRE) == LATER_DONE;
}

void tr2_dst_write_rest(struct tr2_dst *dst, const char *buf, size_t len,
			ssize_t written)
{
	size_t done = 0;

	if (dst->kind == TR2_DST_SINK) {
		if (dst->sink(dst->sink_data, buf, len))
			fail(dst, errno, 0);
		return;
	}
	if (__atomic_load_n(&dst->kind, __ATOMIC_ACQUIRE) == TR2_DST_LATER) {
		if (made_at_first_write(dst))
			tr2_dst_write_now(dst, buf, len);
		return;
	}
	if (dst->fd_closed) {
		fail(dst, EBADF, !in_signal_handler);
		return;
	}
	if (dst->kind == TR2_DST_FILE) {
		if (written < 0 && errno != EINTR && !raced_making(dst, written)) {
			fail(dst, errno, !in_signal_handler);
			return;
		}
		if (written > 0)
			done = (size_t)written;
	}
	write_record(dst, buf, len, done);
}

void tr2_dst_finish_interrupted(void)
{
	struct inflight *f = &inflight;

	/* a regular file's write() is never cut short by a signal, and
	 * write_whole()'s record goes out whole or not at all */
	if (!f->dst || f->unsure || f->dst->kind == TR2_DST_FILE ||
	    f->done >= f->len || !tr2_dst_is_on(f->dst))
		return;
	if (write_rest(f, signal_wait_ms()))
		fail_write(f->dst, errno, 0); /* a half record: nothing may follow it */
	f->done = f->len;
}
