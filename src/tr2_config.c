/*
 * A reader for gitconfig files: sections, subsections, quoting, escapes,
 * comments, valueless keys, continuation lines and include.path.  Conditional
 * includes (includeIf) are treated as false: no repository is known here.
 */
#include "tr2_config.h"
#include "tr2_clock.h"
#include "tr2_sys.h"
#include "tr2_diag.h"
#include "tr2_buf.h"
#include "tr2_sysenv.h"
#include "tr2_plat.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INCLUDE_DEPTH 10

static trace2_config_hook_fn *host_hook;

void trace2_set_config_hook(trace2_config_hook_fn *hook)
{
	host_hook = hook;
}

/* Bytes read from a config file at a time: a typical file in one read. */
#define READ_CHUNK 2048

struct parser {
	int fd;
	int pipe_like; /* a FIFO or socket: waited for, until deadline_ns */
	int stalled;   /* its deadline passed before its end */
	uint64_t deadline_ns;
	size_t pos, end;  /* the unread bytes are chunk[pos..end) */
	const char *path;
	enum trace2_config_scope scope;
	int line;    /* 1 + the line ends read */
	int last;    /* the last character read */
	int report;  /* print Git's messages for malformed files */
	int depth;   /* include nesting */
	int failed;  /* a fatal error was reported */
	tr2_config_fn *fn;
	void *ctx;
	struct tr2_buf section; /* "section" or "section.subsection" */
	struct tr2_buf key;
	struct tr2_buf value;
	unsigned char chunk[READ_CHUNK];
};

static int ms_until(uint64_t deadline_ns)
{
	uint64_t now = tr2_now_ns();

	return now >= deadline_ns ? 0 : (int)((deadline_ns - now + 999999) / 1000000);
}

/* Wait until a pipe-like file has bytes or its writer left: 0, or -1
 * once its deadline passed (a writer that never comes or never ends must
 * not hold the host). */
static int wait_readable(struct parser *p)
{
	struct pollfd pfd = { p->fd, POLLIN, 0 };
	int n;

	do
		n = tr2_plat_poll(&pfd, 1, ms_until(p->deadline_ns));
	while (n == 0 ? ms_until(p->deadline_ns) > 0 : n < 0 && errno == EINTR);
	if (n > 0)
		return 0;
	p->stalled = 1;
	return -1;
}

/* The next chunk of the file: its length, 0 at its end, -1 on an error. */
static ssize_t read_chunk(struct parser *p)
{
	for (;;) {
		ssize_t got;

		if (p->stalled || (p->pipe_like && wait_readable(p)))
			return -1;
		got = tr2_read(p->fd, p->chunk, sizeof(p->chunk));
		if (got >= 0 || !p->pipe_like || errno != EAGAIN)
			return got;
	}
}

/* The next byte of the file; EOF at its end or on a read error.  Plain
 * read()s rather than stdio: two system calls fewer per file. */
static int next_byte(struct parser *p)
{
	if (p->pos == p->end) {
		ssize_t got = read_chunk(p);

		if (got <= 0)
			return EOF;
		p->pos = 0;
		p->end = (size_t)got;
	}
	return p->chunk[p->pos++];
}

static int next_char(struct parser *p)
{
	int c = next_byte(p);

	if (c == '\r') {
		int n = next_byte(p);

		if (n == '\n')
			c = '\n';
		else if (n != EOF)
			p->pos--; /* still in the chunk: it was just read */
	}
	if (c == '\n' && p->line < INT_MAX - 1) /* a file of 2^31 lines ends the count */
		p->line++;
	p->last = c;
	return c;
}

static void skip_to_eol(struct parser *p, int c)
{
	while (c != '\n' && c != EOF)
		c = next_char(p);
}

static int fail(struct parser *p)
{
	/* a stalled file was cut, not malformed: it is skipped whole */
	if (p->report && !p->stalled)
		tr2_fatal("bad config line %d in file %s", p->line, p->path);
	p->failed = 1;
	return -1;
}

/*
 * An error found at c, on the line Git names: a line end belongs to the
 * line it ends, and the end of the file counts as one more line end,
 * except inside quotes and after a whole entry (eof_ends_line 0).
 */
static int fail_at(struct parser *p, int c, int eof_ends_line)
{
	if (c == '\n')
		p->line--;
	else if (c == EOF && eof_ends_line)
		p->line++; /* below INT_MAX: next_char() stops counting before */
	return fail(p);
}

/* An error about the entry just read, on the line where it ended. */
static int fail_entry(struct parser *p)
{
	return fail_at(p, p->last, 0);
}

/* "[name]" or "[name "sub"]", after the '['. */
static int parse_section(struct parser *p)
{
	int c = next_char(p);

	tr2_buf_release(&p->section);
	while (isalnum(c) || c == '-' || c == '.') {
		tr2_buf_addc(&p->section, (char)tolower(c));
		c = next_char(p);
	}
	if (c == ']')
		return p->section.len ? 0 : fail(p);
	if (c != ' ' && c != '\t')
		return fail_at(p, c, 1);
	while (c == ' ' || c == '\t')
		c = next_char(p);
	if (c != '"' || !p->section.len)
		return fail_at(p, c, 1);
	tr2_buf_addc(&p->section, '.');
	for (c = next_char(p); c != '"'; c = next_char(p)) {
		if (c == '\n' || c == EOF)
			return fail_at(p, c, 0);
		if (c == '\\' && ((c = next_char(p)) == '\n' || c == EOF))
			return fail_at(p, c, 0);
		tr2_buf_addc(&p->section, (char)c);
	}
	c = next_char(p);
	return c == ']' ? 0 : fail_at(p, c, 1);
}

static int unescape(int c)
{
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'b': return '\b';
	case '\\': return '\\';
	case '"': return '"';
	default: return -1;
	}
}

/* The value after '=' up to the end of the line (continuations joined). */
static int parse_value(struct parser *p)
{
	size_t keep = 0; /* length without unquoted trailing space */
	int quoted = 0, c = next_char(p);

	tr2_buf_release(&p->value);
	while (c == ' ' || c == '\t')
		c = next_char(p);
	for (;; c = next_char(p)) {
		if (c == '\n' || c == EOF) {
			if (quoted)
				return fail_at(p, c, 0);
			break;
		}
		if (!quoted && (c == '#' || c == ';')) {
			skip_to_eol(p, c);
			break;
		}
		if (c == '"') {
			quoted = !quoted;
			keep = p->value.len;
			continue;
		}
		if (c == '\\') {
			c = next_char(p);
			if (c == '\n')
				continue;
			if (c == EOF) { /* Git's continuation onto a line after the end */
				p->line += p->line < INT_MAX - 1;
				continue;
			}
			if ((c = unescape(c)) < 0)
				return fail(p);
			tr2_buf_addc(&p->value, (char)c);
			keep = p->value.len;
			continue;
		}
		tr2_buf_addc(&p->value, (char)c);
		if (quoted || (c != ' ' && c != '\t'))
			keep = p->value.len;
	}
	p->value.len = keep;
	return 0;
}

/* What read_file() did with a file. */
enum read_result {
	READ_OK = 0,
	READ_SKIPPED = -1,	/* missing, unreadable or stalled */
	READ_STOPPED = -2,	/* malformed or unusable: reported */
	READ_REFUSED = -3,	/* an included directory: its includer reports */
};

static int read_file(const char *path, enum trace2_config_scope scope, int report,
		     int depth, tr2_config_fn *fn, void *ctx);

/* The home directory of "~" (tr2_plat_home()) or "~user" into out; -1 if
 * there is none. */
static int add_home(struct tr2_buf *out, const char *user, size_t len)
{
	char name[256], dir[4096];
	const char *home;

	if (!len) {
		if (!(home = tr2_plat_home(dir, sizeof(dir))))
			return -1;
		tr2_buf_adds(out, home);
		return 0;
	}
	if (len >= sizeof(name))
		return -1;
	memcpy(name, user, len);
	name[len] = '\0';
	if (tr2_plat_user_home(name, dir, sizeof(dir)))
		return -1;
	tr2_buf_adds(out, dir);
	return 0;
}

/* The length of s up to its first directory separator. */
static size_t up_to_dir_sep(const char *s)
{
	size_t len = 0;

	while (s[len] && !tr2_plat_is_dir_sep(s[len]))
		len++;
	return len;
}

/* The last directory separator in path, or NULL. */
static const char *last_dir_sep(const char *path)
{
	const char *last = NULL;

	for (; *path; path++)
		if (tr2_plat_is_dir_sep(*path))
			last = path;
	return last;
}

/* include.path as Git finds it: "~" or "~user" expanded, a relative path
 * from the including file's directory; -1 if it cannot be expanded. */
static int include_path(const struct parser *p, const char *target, struct tr2_buf *path)
{
	const char *slash;

	if (target[0] == '~') {
		size_t len = up_to_dir_sep(target + 1);

		if (add_home(path, target + 1, len))
			return -1;
		tr2_buf_adds(path, target + 1 + len);
	} else if (!tr2_plat_is_absolute(target) && (slash = last_dir_sep(p->path))) {
		tr2_buf_add(path, p->path, (size_t)(slash - p->path) + 1);
		tr2_buf_adds(path, target);
	} else
		tr2_buf_adds(path, target);
	return 0;
}

static void follow_include(struct parser *p, const char *target)
{
	struct tr2_buf path;
	int rc;

	tr2_buf_init(&path);
	if (include_path(p, target, &path)) {
		if (p->report)
			tr2_error("could not expand include path '%s'", target);
		fail_entry(p);
	} else if (p->depth >= MAX_INCLUDE_DEPTH) {
		if (p->report)
			tr2_fatal("exceeded maximum include depth (%d) while including\n"
				  "\t%s\nfrom\n\t%s\n"
				  "This might be due to circular includes.", MAX_INCLUDE_DEPTH,
				  tr2_buf_cstr(&path), p->path);
		p->failed = 1;
	} else {
		rc = read_file(tr2_buf_cstr(&path), p->scope, p->report, p->depth + 1,
			       p->fn, p->ctx);
		if (rc == READ_REFUSED)
			fail_entry(p);
		else if (rc == READ_STOPPED)
			p->failed = 1;
	}
	tr2_buf_release(&path);
}

/* "trace2.<setting>", for which a missing value is an error. */
static int is_setting(const char *key)
{
	return !strncmp(key, "trace2.", 7) && tr2_sysenv_id_of_config_key(key + 7) >= 0;
}

static int deliver(struct parser *p, int has_value)
{
	const char *key = tr2_buf_cstr(&p->key);
	const char *value = has_value ? tr2_buf_cstr(&p->value) : NULL;

	if (p->stalled) /* the entry may be cut */
		return -1;
	if (!value && p->report && (is_setting(key) || !strcmp(key, "include.path"))) {
		tr2_error("missing value for '%s'", key);
		return fail_entry(p);
	}
	if (!strcmp(key, "include.path")) {
		if (value)
			follow_include(p, value);
		return p->failed ? -1 : 0;
	}
	p->fn(key, value, p->scope, p->ctx);
	return 0;
}

/* An entry starting with c, inside the current section. */
static int parse_entry(struct parser *p, int c)
{
	tr2_buf_release(&p->key);
	if (p->section.len) { /* Git takes a key before any section as it is */
		tr2_buf_add(&p->key, p->section.p, p->section.len);
		tr2_buf_addc(&p->key, '.');
	}
	while (isalnum(c) || c == '-') {
		tr2_buf_addc(&p->key, (char)tolower(c));
		c = next_char(p);
	}
	while (c == ' ' || c == '\t')
		c = next_char(p);
	if (c == '=')
		return parse_value(p) ? -1 : deliver(p, 1);
	if (c == '\n' || c == EOF)
		return deliver(p, 0);
	return fail(p);
}

static int parse(struct parser *p)
{
	int c = next_char(p);

	/* a UTF-8 byte order mark */
	if (c == 0xEF) {
		/* a line end read while looking for the mark counts as read */
		if ((c = next_char(p)) != 0xBB || (c = next_char(p)) != 0xBF)
			return c == '\n' ? fail(p) : fail_at(p, c, 1);
		c = next_char(p);
	}
	for (; c != EOF; c = next_char(p)) {
		if (c == '\n' || isspace(c))
			continue;
		if (c == '#' || c == ';') {
			skip_to_eol(p, c);
			continue;
		}
		if (c == '[') {
			if (parse_section(p))
				return -1;
			continue;
		}
		if (!isalpha(c) || parse_entry(p, c))
			return p->failed ? -1 : fail(p);
	}
	return 0;
}

/* Set once a pipe-like config file stalled: later ones of this process
 * are skipped without a wait, so a stalled writer costs one limit. */
static int pipe_stalled;

/*
 * A FIFO or socket (or a file fstat() cannot tell) is read against a
 * deadline, the destination limit from now: its writer may never come.
 * 0 to read p's file, -1 to skip it.
 */
static int set_deadline(struct parser *p)
{
	struct stat st;

	if (!tr2_sys.fstat(p->fd, &st) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return 0;
	if (__atomic_load_n(&pipe_stalled, __ATOMIC_RELAXED))
		return -1;
	p->pipe_like = 1;
	p->deadline_ns = tr2_now_ns() + (uint64_t)tr2_sysenv_dst_timeout_ms() * 1000000;
	return 0;
}

static void warn_stalled(const struct parser *p)
{
	__atomic_store_n(&pipe_stalled, 1, __ATOMIC_RELAXED);
	tr2_warning("config file '%s' is a pipe that did not reach its end within %d ms: skipped",
		    p->path, tr2_sysenv_dst_timeout_ms());
}

/*
 * A file that cannot be opened, err saying why: what Git makes of it.
 * Git stops at a path it may not read, except a file of the system or
 * global scope the user may not read (skipped like a missing one).  A
 * lack of resources (descriptors, memory) says nothing of the file: it
 * is skipped, so that it cannot end the host.
 */
static int unreadable(const char *path, int err, int report, int depth)
{
	if (err == EISDIR) {
		if (report)
			tr2_warning("unable to access '%s': %s", path, strerror(err));
		return depth ? READ_REFUSED : READ_SKIPPED;
	}
	if (!(err == ELOOP || err == ENAMETOOLONG || (err == EACCES && depth)))
		return READ_SKIPPED;
	if (report)
		tr2_fatal("unable to access '%s': %s", path, strerror(err));
	return READ_STOPPED;
}

static int is_directory(int fd)
{
	struct stat st;

	return !tr2_sys.fstat(fd, &st) && S_ISDIR(st.st_mode);
}

/* A read_result. */
static int read_file(const char *path, enum trace2_config_scope scope, int report,
		     int depth, tr2_config_fn *fn, void *ctx)
{
	struct parser p;
	int rc, fd;

	memset(&p, 0, sizeof(p));
	/* O_NONBLOCK: opening a FIFO must not wait for its writer */
	fd = tr2_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
	if (fd < 0)
		return unreadable(path, errno, report, depth);
	if (is_directory(fd)) {
		tr2_sys.close(fd);
		return unreadable(path, EISDIR, report, depth);
	}
	p.fd = fd;
	if (set_deadline(&p)) {
		tr2_sys.close(fd);
		return READ_SKIPPED;
	}
	p.path = path;
	p.scope = scope;
	p.line = 1;
	p.report = report;
	p.depth = depth;
	p.fn = fn;
	p.ctx = ctx;
	tr2_buf_init(&p.section);
	tr2_buf_init(&p.key);
	tr2_buf_init(&p.value);
	rc = parse(&p) ? READ_STOPPED : READ_OK;
	if (p.stalled) {
		warn_stalled(&p);
		rc = READ_SKIPPED;
	}
	tr2_sys.close(fd);
	tr2_buf_release(&p.section);
	tr2_buf_release(&p.key);
	tr2_buf_release(&p.value);
	return rc;
}

int trace2_config_read_file(const char *path, enum trace2_config_scope scope,
			    trace2_config_entry_fn *fn, void *ctx)
{
	return read_file(path, scope, 0, 0, fn, ctx) == READ_OK ? 0 : -1;
}

/* Git's environment booleans: unset = dflt, empty = false, bad = fatal. */
static int env_bool(const char *name, int dflt)
{
	const char *v = tr2_sys.getenv(name);
	int b;

	if (!v)
		return dflt;
	b = *v ? tr2_parse_maybe_bool(v) : 0;
	if (b < 0) {
		tr2_fatal("bad boolean environment value '%s' for '%s'", v, name);
		return dflt;
	}
	return b;
}

typedef void file_fn(const char *path, enum trace2_config_scope scope, void *ctx);

/* a then b into out, cut to size - 1 bytes. */
static void join(char *out, size_t size, const char *a, const char *b)
{
	size_t alen = strnlen(a, size - 1), blen = strnlen(b, size - 1 - alen);

	memcpy(out, a, alen);
	memcpy(out + alen, b, blen);
	out[alen + blen] = '\0';
}

/* GIT_CONFIG_NOSYSTEM, judged (and complained about) once per load. */
static int skip_system;

/* The host's own files (trace2_set_config_files()): used once named. */
static int own_files;
static char *own_system, *own_global;

void tr2_config_set_files(const char *system_path, const char *global_path)
{
	tr2_sys.free(own_system);
	tr2_sys.free(own_global);
	own_system = system_path ? tr2_strdup(system_path) : NULL;
	own_global = global_path ? tr2_strdup(global_path) : NULL;
	own_files = 1;
}

/* Git's files belong to git's own settings: a host with its own prefix
 * reads only the files it names. */
static int reads_git_files(void)
{
	return !own_files && tr2_sysenv_prefix_is_git();
}

static void for_each_own_file(file_fn *fn, void *ctx)
{
	if (own_system)
		fn(own_system, CONFIG_SCOPE_SYSTEM, ctx);
	if (own_global)
		fn(own_global, CONFIG_SCOPE_GLOBAL, ctx);
}

/* The system file, then the global files, in the order Git reads them. */
static void for_each_file(file_fn *fn, void *ctx)
{
	const char *system = tr2_sys.getenv("GIT_CONFIG_SYSTEM");
	const char *global = tr2_sys.getenv("GIT_CONFIG_GLOBAL");
	const char *xdg = tr2_sys.getenv("XDG_CONFIG_HOME"), *home;
	char path[4096], home_buf[4096], system_buf[4096];

	if (!reads_git_files()) {
		for_each_own_file(fn, ctx);
		return;
	}
	if (!skip_system && (system || (system = tr2_plat_system_config(system_buf,
									 sizeof(system_buf)))))
		fn(system, TRACE2_CONFIG_SCOPE_SYSTEM, ctx);
	home = tr2_plat_home(home_buf, sizeof(home_buf));
	if (global) {
		if (*global)
			fn(global, TRACE2_CONFIG_SCOPE_GLOBAL, ctx);
		return;
	}
	if (xdg && *xdg) {
		join(path, sizeof(path), xdg, "/git/config");
		fn(path, TRACE2_CONFIG_SCOPE_GLOBAL, ctx);
	} else if (home) {
		join(path, sizeof(path), home, "/.config/git/config");
		fn(path, TRACE2_CONFIG_SCOPE_GLOBAL, ctx);
	}
	if (home) {
		join(path, sizeof(path), home, "/.gitconfig");
		fn(path, TRACE2_CONFIG_SCOPE_GLOBAL, ctx);
	}
}

/* Settings of one file; applied only if the whole file parsed. */
struct settings {
	char *value[TR2_SYSENV_MAX];
};

static void collect_setting(const char *key, const char *value,
			    enum trace2_config_scope scope, void *ctx)
{
	struct settings *s = ctx;
	int id;

	(void)scope;
	if (!value || !is_setting(key))
		return;
	id = tr2_sysenv_id_of_config_key(key + 7);
	tr2_sys.free(s->value[id]);
	s->value[id] = tr2_strdup(value);
}

static void load_file_settings(const char *path, enum trace2_config_scope scope, void *ctx)
{
	struct settings file;
	int i, ok;

	(void)ctx;
	memset(&file, 0, sizeof(file));
	ok = read_file(path, scope, 1, 0, collect_setting, &file) == READ_OK;
	for (i = 0; i < tr2_sysenv_count(); i++) {
		if (ok && file.value[i])
			tr2_sysenv_set_config(i, file.value[i]);
		tr2_sys.free(file.value[i]);
	}
}

void tr2_config_load_settings(void)
{
	tr2_sysenv_clear_config();
	skip_system = reads_git_files() && env_bool("GIT_CONFIG_NOSYSTEM", 0);
	for_each_file(load_file_settings, NULL);
}

/* "Section.Sub.Name" as Git stores it: "section.Sub.name". */
static void normalize_key(char *key)
{
	char *last = strrchr(key, '.'), *p;

	for (p = key; *p && *p != '.'; p++)
		*p = (char)tolower((unsigned char)*p);
	for (p = last; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

static void emit_command_entry(const char *key, const char *value,
			       tr2_config_fn *fn, void *ctx)
{
	char *k = tr2_strdup(key);

	if (!k)
		return;
	normalize_key(k);
	fn(k, value, TRACE2_CONFIG_SCOPE_COMMAND, ctx);
	tr2_sys.free(k);
}

/*
 * GIT_CONFIG_KEY_<n> = GIT_CONFIG_VALUE_<n> for n < GIT_CONFIG_COUNT,
 * up to the first pair that is missing (where Git stops with a fatal
 * error), so a huge count costs no more than the pairs that are set.
 */
static void for_each_count_entry(tr2_config_fn *fn, void *ctx)
{
	const char *count = tr2_sys.getenv("GIT_CONFIG_COUNT");
	int n = count ? tr2_parse_atoi(count) : 0, i;

	for (i = 0; i < n; i++) {
		char name[64];
		const char *key, *value;

		snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%d", i);
		key = tr2_sys.getenv(name);
		snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%d", i);
		value = tr2_sys.getenv(name);
		if (!key || !value)
			return;
		if (*key)
			emit_command_entry(key, value, fn, ctx);
	}
}

/*
 * One shell-quoted word of GIT_CONFIG_PARAMETERS ('text', with \' and
 * \! between quoted parts) into out; returns the rest or NULL.
 */
static const char *unquote_word(const char *s, struct tr2_buf *out)
{
	tr2_buf_release(out);
	if (*s != '\'')
		return NULL;
	while (*s == '\'') {
		const char *end = strchr(s + 1, '\'');

		if (!end)
			return NULL;
		tr2_buf_add(out, s + 1, (size_t)(end - s - 1));
		s = end + 1;
		if (*s == '\\' && s[1]) {
			tr2_buf_addc(out, s[1]);
			s += 2;
		}
	}
	tr2_buf_cstr(out);
	return s;
}

/* 'key'='value' (or 'key'= without value, or old-style 'key=value'). */
static void for_each_parameter(tr2_config_fn *fn, void *ctx)
{
	const char *s = tr2_sys.getenv("GIT_CONFIG_PARAMETERS");
	struct tr2_buf key, value;

	tr2_buf_init(&key);
	tr2_buf_init(&value);
	while (s && *(s += strspn(s, " \t\n"))) {
		const char *v = NULL;

		if (!(s = unquote_word(s, &key)))
			break;
		if (*s == '=') {
			s++;
			if (*s == '\'') {
				if (!(s = unquote_word(s, &value)))
					break;
				v = tr2_buf_cstr(&value);
			}
		} else {
			char *eq = strchr(key.p, '=');

			if (eq) {
				*eq = '\0';
				v = eq + 1;
			}
		}
		emit_command_entry(tr2_buf_cstr(&key), v, fn, ctx);
	}
	tr2_buf_release(&key);
	tr2_buf_release(&value);
}

struct listing {
	tr2_config_fn *fn;
	void *ctx;
};

static void list_file(const char *path, enum trace2_config_scope scope, void *ctx)
{
	struct listing *l = ctx;

	read_file(path, scope, 0, 0, l->fn, l->ctx);
}

static void hook_entry(const char *key, const char *value, enum trace2_config_scope scope,
		       void *ctx)
{
	struct listing *l = ctx;

	l->fn(key, value, scope, l->ctx);
}

void tr2_config_for_each(tr2_config_fn *fn, void *ctx)
{
	struct listing l = { fn, ctx };

	for_each_file(list_file, &l);
	if (host_hook)
		host_hook(hook_entry, &l);
	for_each_count_entry(fn, ctx);
	for_each_parameter(fn, ctx);
}
