/*
 * Fuzzer: target values (GIT_TRACE2=<value>;
 * the table of docs/configuration.md "Target values").
 *
 * The input, up to its first NUL, is a value.  tr2_dst_classify() must
 * give the form that table names.  The expectation is the
 * fuzzer's own: spec_form() reads the table as properties of the value (its
 * ASCII-lowercased text is one of the words of rows 1 and 2, it is one
 * digit, it starts with '/', it starts with "af_unix:"), and a table of
 * values with the form the table gives them (its examples and their near
 * misses) is checked on its own at start-up.
 *
 * Then the value is opened with tr2_dst_open() as "af_unix:<value>",
 * "af_unix:stream:<value>" and "af_unix:dgram:<value>" (an absolute path
 * is moved under a directory that does not exist, so nothing is ever
 * connected to), and the value itself when it is one of the forms that
 * open nothing (off, stderr, an fd number, unknown).  What the opens do
 * is checked too: an off or unknown value leaves the target off, stderr
 * and an fd number switch it on, an unknown value always prints its
 * warning (the table's last row) and the others print nothing, and every
 * af_unix value here fails with a debug warning.  The debug switch is
 * on so every warning is formatted; stderr writes of the library are
 * collected instead of written.  The library reads the settings through
 * tr2_sys.getenv, which answers here from memory (setenv() would keep
 * every value ever set: glibc never frees them).
 *
 * On Windows the table has its Windows rows: af_unix values are unknown
 * values (opened as such), and an absolute path may also start with a
 * backslash or a drive letter.
 */
#include "fuzz.h"
#include "tr2_dst.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"

#include <stdlib.h>
#include <string.h>

#define NOWHERE "/t2fuzz-nonexistent"

static ssize_t (*real_write)(int fd, const void *buf, size_t n);
static char *(*real_getenv)(const char *name);
static const char *git_trace2; /* the value GIT_TRACE2 has now */
static struct fz_buf stderr_text; /* what the library wrote to fd 2 */

static ssize_t collect_write(int fd, const void *buf, size_t n)
{
	if (fd != 2)
		return real_write(fd, buf, n);
	fz_buf_add(&stderr_text, buf, n);
	return (ssize_t)n;
}

static char *fake_getenv(const char *name)
{
	if (!strcmp(name, "GIT_TRACE2"))
		return (char *)git_trace2;
	if (!strcmp(name, "GIT_TRACE2_DST_DEBUG"))
		return (char *)"1";
	return real_getenv(name);
}

/* ------------------------------------------------------------------ */
/* The expected form.                                                   */
/* ------------------------------------------------------------------ */

/*
 * The table of docs/configuration.md "Target values" read as properties
 * of the value.  Rows 1 and 2 are
 * words compared without letter case: the value lowered (ASCII letters
 * only, as strcasecmp() does in the C locale) must be one of them.
 */
static enum tr2_dst_form spec_form(const char *v)
{
	static const struct {
		const char *word;
		enum tr2_dst_form form;
	} words[] = {
		{ "", TR2_DST_OFF }, { "0", TR2_DST_OFF }, { "false", TR2_DST_OFF },
		{ "1", TR2_DST_STDERR }, { "true", TR2_DST_STDERR },
	};
	static const char af_unix[] = "af_unix:";
	size_t len = strlen(v), i;
	int drive = len >= 3 && ((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z')) &&
		    v[1] == ':' && (v[2] == '/' || v[2] == '\\');
	char lowered[sizeof("false")];

	if (len < sizeof(lowered)) {
		for (i = 0; i <= len; i++)
			lowered[i] = v[i] >= 'A' && v[i] <= 'Z' ? (char)(v[i] - 'A' + 'a') : v[i];
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (!strcmp(lowered, words[i].word))
				return words[i].form;
	}
	if (len == 1 && memchr("0123456789", v[0], 10))
		return TR2_DST_FD; /* rows 1-2 took "0" and "1" */
	if (len && v[0] == '/')
		return TR2_DST_PATH; /* rows 4 and 5: a directory or a file */
	/* Windows: "\\.\pipe\NAME", "C:\dir", "C:/dir" too */
	if (FZ_WINDOWS && ((len && v[0] == '\\') || drive))
		return TR2_DST_PATH;
	/* Windows: unknown, as in Git for Windows */
	if (!FZ_WINDOWS && len >= sizeof(af_unix) - 1 &&
	    !memcmp(v, af_unix, sizeof(af_unix) - 1))
		return TR2_DST_AF_UNIX;
	return TR2_DST_UNKNOWN;
}

/* Values whose form that table states, and near misses.  On Windows
 * af_unix values are unknown and a path may start with '\\' or a drive. */
#define AF_UNIX_FORM (FZ_WINDOWS ? TR2_DST_UNKNOWN : TR2_DST_AF_UNIX)
#define WINDOWS_PATH_FORM (FZ_WINDOWS ? TR2_DST_PATH : TR2_DST_UNKNOWN)
static const struct known_value {
	const char *value;
	enum tr2_dst_form form;
} known_values[] = {
	{ "", TR2_DST_OFF }, { "0", TR2_DST_OFF }, { "false", TR2_DST_OFF },
	{ "FALSE", TR2_DST_OFF }, { "False", TR2_DST_OFF }, { "fAlSe", TR2_DST_OFF },
	{ "1", TR2_DST_STDERR }, { "true", TR2_DST_STDERR }, { "TRUE", TR2_DST_STDERR },
	{ "True", TR2_DST_STDERR }, { "tRuE", TR2_DST_STDERR },
	{ "2", TR2_DST_FD }, { "3", TR2_DST_FD }, { "4", TR2_DST_FD },
	{ "5", TR2_DST_FD }, { "6", TR2_DST_FD }, { "7", TR2_DST_FD },
	{ "8", TR2_DST_FD }, { "9", TR2_DST_FD },
	{ "/", TR2_DST_PATH }, { "/tmp", TR2_DST_PATH },
	{ "/nonexist/dir/file", TR2_DST_PATH }, { "/path/to/dir", TR2_DST_PATH },
	{ "//x", TR2_DST_PATH }, { "/af_unix:/x", TR2_DST_PATH }, { "/1", TR2_DST_PATH },
	{ "af_unix:", AF_UNIX_FORM }, { "af_unix:/path/sock", AF_UNIX_FORM },
	{ "af_unix:stream:", AF_UNIX_FORM }, { "af_unix:stream:/x", AF_UNIX_FORM },
	{ "af_unix:dgram:", AF_UNIX_FORM }, { "af_unix:dgram:/x", AF_UNIX_FORM },
	{ "af_unix:rel/path", AF_UNIX_FORM }, { "af_unix:af_unix:", AF_UNIX_FORM },
	/* the examples of row 7 */
	{ "yes", TR2_DST_UNKNOWN }, { "on", TR2_DST_UNKNOWN }, { "10", TR2_DST_UNKNOWN },
	{ " 1", TR2_DST_UNKNOWN }, { "~/log", TR2_DST_UNKNOWN },
	{ "relative/path", TR2_DST_UNKNOWN },
	/* near misses of rows 1-3 and 6 */
	{ "00", TR2_DST_UNKNOWN }, { "01", TR2_DST_UNKNOWN }, { "1 ", TR2_DST_UNKNOWN },
	{ "0 ", TR2_DST_UNKNOWN }, { "\t0", TR2_DST_UNKNOWN }, { "-1", TR2_DST_UNKNOWN },
	{ "+1", TR2_DST_UNKNOWN }, { "22", TR2_DST_UNKNOWN }, { "a", TR2_DST_UNKNOWN },
	{ "fals", TR2_DST_UNKNOWN }, { "falsey", TR2_DST_UNKNOWN },
	{ "false ", TR2_DST_UNKNOWN }, { "tru", TR2_DST_UNKNOWN },
	{ "truee", TR2_DST_UNKNOWN }, { "no", TR2_DST_UNKNOWN }, { "off", TR2_DST_UNKNOWN },
	{ "\xEF\xBC\x91", TR2_DST_UNKNOWN } /* fullwidth 1 */,
	{ "\xC4\xB1", TR2_DST_UNKNOWN } /* dotless i: no "true" */,
	{ "af_unix", TR2_DST_UNKNOWN }, { "AF_UNIX:/x", TR2_DST_UNKNOWN },
	{ "Af_unix:/x", TR2_DST_UNKNOWN }, { "af-unix:/x", TR2_DST_UNKNOWN },
	{ " /x", TR2_DST_UNKNOWN }, { " af_unix:/x", TR2_DST_UNKNOWN },
	{ "./x", TR2_DST_UNKNOWN }, { "file:///x", TR2_DST_UNKNOWN },
	{ "C:\\x", WINDOWS_PATH_FORM }, { "c:/x", WINDOWS_PATH_FORM },
	{ "\\\\.\\pipe\\x", WINDOWS_PATH_FORM }, { "\\x", WINDOWS_PATH_FORM },
	{ "C:", TR2_DST_UNKNOWN }, { "C:x", TR2_DST_UNKNOWN }, { "1:/x", TR2_DST_UNKNOWN },
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	real_write = tr2_sys.write;
	tr2_sys.write = collect_write;
	real_getenv = tr2_sys.getenv;
	tr2_sys.getenv = fake_getenv;
	for (i = 0; i < sizeof(known_values) / sizeof(known_values[0]); i++) {
		const struct known_value *k = &known_values[i];

		if (tr2_dst_classify(k->value) != k->form || spec_form(k->value) != k->form)
			fz_fail(__FILE__, __LINE__, "'%s': library %d, spec_form %d, want %d",
				k->value, (int)tr2_dst_classify(k->value),
				(int)spec_form(k->value), (int)k->form);
	}
	FZ_CHECK(tr2_dst_classify(NULL) == TR2_DST_OFF);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Opening.                                                             */
/* ------------------------------------------------------------------ */

static int starts_with(const struct fz_buf *b, const char *prefix)
{
	size_t n = strlen(prefix);

	return b->len >= n && !memcmp(b->p, prefix, n);
}

/*
 * Resolve value as the NORMAL target would, then close it again; returns
 * whether it was on.  What the library wrote to stderr meanwhile is left
 * in stderr_text.
 */
static int open_value(const char *value)
{
	struct tr2_dst dst;
	int on;

	tr2_dst_init(&dst, TR2_SYSENV_NORMAL);
	git_trace2 = value;
	stderr_text.len = 0;
	tr2_sysenv_release();
	tr2_dst_open(&dst, 0);
	FZ_CHECK(dst.initialized);
	on = tr2_dst_is_on(&dst);
	tr2_dst_close(&dst);
	FZ_CHECK(!tr2_dst_is_on(&dst));
	git_trace2 = NULL;
	return on;
}

/* A value that opens nothing: check what the open did. */
static void open_plain(const char *v, enum tr2_dst_form form)
{
	static const char unknown[] = "warning: trace2: unknown value for 'GIT_TRACE2': '";
	int on = open_value(v);
	size_t want_len = sizeof(unknown) - 1 + strlen(v) + 2;

	switch (form) {
	case TR2_DST_OFF:
		FZ_CHECK(!on && !stderr_text.len);
		break;
	case TR2_DST_STDERR:
	case TR2_DST_FD:
		FZ_CHECK(on && !stderr_text.len);
		break;
	case TR2_DST_UNKNOWN:
		FZ_CHECK(!on);
		/* always, one line; control characters may become '?' */
		FZ_CHECK(starts_with(&stderr_text, unknown));
		FZ_CHECK(stderr_text.len >= 3 &&
			 !memcmp(stderr_text.p + stderr_text.len - 2, "'\n", 2));
		FZ_CHECK(strlen(v) > 1000 || stderr_text.len == want_len);
		break;
	default:
		FZ_CHECK(!"a form that opens something");
	}
}

/* The length of the af_unix prefix of v, matched as the table orders them:
 * "af_unix:stream:", "af_unix:dgram:", then "af_unix:". */
static size_t af_unix_prefix_len(const char *v)
{
	if (!strncmp(v, "af_unix:stream:", 15))
		return 15;
	if (!strncmp(v, "af_unix:dgram:", 14))
		return 14;
	return 8;
}

/*
 * Open prefix + rest, with its path (if absolute) moved under NOWHERE:
 * the path is empty, relative, too long or absent, so the target stays
 * off and, with the debug switch, says why.
 */
static void open_af_unix(const char *prefix, const char *rest)
{
	size_t plen = strlen(prefix), rlen = strlen(rest), cut;
	char *joined = malloc(plen + rlen + 1), *v = malloc(plen + rlen + sizeof(NOWHERE));

	FZ_CHECK(joined && v);
	memcpy(joined, prefix, plen);
	memcpy(joined + plen, rest, rlen + 1);
	cut = af_unix_prefix_len(joined);
	memcpy(v, joined, cut);
	v[cut] = '\0';
	if (joined[cut] == '/')
		strcat(v, NOWHERE);
	strcat(v, joined + cut);
	FZ_CHECK(spec_form(v) == AF_UNIX_FORM);
	FZ_CHECK(tr2_dst_classify(v) == AF_UNIX_FORM);
	if (FZ_WINDOWS) {
		open_plain(v, TR2_DST_UNKNOWN);
	} else {
		FZ_CHECK(!open_value(v));
		FZ_CHECK(starts_with(&stderr_text, "warning: trace2: "));
		FZ_CHECK(stderr_text.p[stderr_text.len - 1] == '\n');
	}
	free(joined);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *v = fz_cstr(data, size);
	enum tr2_dst_form form = tr2_dst_classify(v);

	if (form != spec_form(v))
		fz_fail(__FILE__, __LINE__, "'%s': library %d, spec_form %d", v,
			(int)form, (int)spec_form(v));
	if (form == TR2_DST_AF_UNIX)
		open_af_unix("", v);
	else if (form != TR2_DST_PATH)
		open_plain(v, form);
	open_af_unix("af_unix:", v);
	open_af_unix("af_unix:stream:", v);
	open_af_unix("af_unix:dgram:", v);
	tr2_sysenv_release();
	free(v);
	return 0;
}
