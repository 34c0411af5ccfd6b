/*
 * Fuzzer: the gitconfig reader, through trace2_config_read_file().
 *
 * The input is written to <tmp>/in.cfg and read back.  Every entry
 * reported must have a key of the form "<section>[.<subsection>].<name>"
 * (or "<name>" before any section)
 * with the section and the name lowercase ASCII, and the scope and
 * context given.  include.path entries are followed by the reader itself
 * (never reported): a relative path, or "~/" with HOME = <tmp>, may name
 * in.cfg itself, so the include depth limit must stop the recursion.
 *
 * The library opens files through tr2_sys.open; here that refuses every
 * path outside <tmp> (an include must not read /dev/stdin or a FIFO),
 * allows a bounded number of opens per input (k includes per file would
 * otherwise read it k^10 times) and measures how deep the nesting of
 * open files gets.
 */
#include "fuzz.h"
#include "trace2.h"
#include "tr2_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Git's limit: the top file plus 10 levels of includes. */
#define MAX_NESTED_FILES 11
#define OPEN_BUDGET 64

static const char *dir;
static char *cfg_path;
static int (*real_open)(const char *path, int flags, mode_t mode);
static unsigned opens;
static int nest[OPEN_BUDGET + 1]; /* fds of the files open right now */
static size_t nested, deepest;

static int inside_dir(const char *path)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/' && !strstr(path + n, "/..");
}

/* The reader keeps a file open while it reads the files it includes and
 * closes it (fclose) when done, so the stack of still-open fds is the
 * chain of includes. */
static void track_open(int fd)
{
	while (nested && (nest[nested - 1] == fd ||
			  fcntl(nest[nested - 1], F_GETFD) < 0))
		nested--;
	nest[nested++] = fd;
	if (nested > deepest)
		deepest = nested;
}

static int guarded_open(const char *path, int flags, mode_t mode)
{
	int fd;

	FZ_CHECK(path != NULL);
	if (!inside_dir(path) || opens >= OPEN_BUDGET) {
		errno = ENOENT;
		return -1;
	}
	opens++;
	fd = real_open(path, flags, mode);
	if (fd >= 0)
		track_open(fd);
	return fd;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = fz_tempdir("config");
	cfg_path = fz_path(dir, "in.cfg");
	fz_setenv("HOME", dir);
	real_open = tr2_sys.open;
	tr2_sys.open = guarded_open;
	return 0;
}

struct seen {
	unsigned entries;
	enum config_scope scope;
	/* A NUL in a subsection ends the key string early (as in Git), so
	 * the name can be checked only when the input holds no NUL. */
	int check_name;
};

static int key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

static void check_entry(const char *key, const char *value,
			enum config_scope scope, void *ctx)
{
	struct seen *seen = ctx;
	const char *first, *last, *p;

	(void)value;
	FZ_CHECK(key != NULL);
	FZ_CHECK(scope == seen->scope);
	first = strchr(key, '.');
	last = strrchr(key, '.');
	/* a key before any section is its name alone, as in Git */
	if (!first)
		first = last = key - 1;
	/* the section: lowercase; the old "[a.b]" form keeps its dots */
	for (p = key; p < first; p++)
		FZ_CHECK(key_char(*p));
	/* the name: a letter, then letters, digits and '-' */
	if (seen->check_name) {
		FZ_CHECK(last[1] >= 'a' && last[1] <= 'z');
		for (p = last + 1; *p; p++)
			FZ_CHECK(key_char(*p));
	}
	FZ_CHECK(strcmp(key, "include.path") != 0);
	seen->entries++;
}

static void write_input(const uint8_t *data, size_t size)
{
	int fd = open(cfg_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n;

	FZ_CHECK(fd >= 0);
	while (size) {
		n = write(fd, data, size);
		FZ_CHECK(n > 0);
		data += n;
		size -= (size_t)n;
	}
	FZ_CHECK(!close(fd));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen seen = { 0, (enum config_scope)(size % 7), !memchr(data, 0, size) };
	int rc;

	write_input(data, size);
	opens = 0;
	nested = deepest = 0;
	rc = trace2_config_read_file(cfg_path, seen.scope, check_entry, &seen);
	FZ_CHECK(rc == 0 || rc == -1);
	FZ_CHECK(opens >= 1 && deepest >= 1);
	FZ_CHECK(deepest <= MAX_NESTED_FILES);

	opens = 0;
	FZ_CHECK(trace2_config_read_file("/t2fuzz-nonexistent/in.cfg", seen.scope,
					 check_entry, &seen) == -1);
	return 0;
}
