/*
 * Fuzzer: target values (GIT_TRACE2=<value>, destinations.md §1 and §5).
 *
 * The input, up to its first NUL, is a value.  tr2_dst_classify() must
 * give the form the table of §1 names.  Then the value is opened with
 * tr2_dst_open() as "af_unix:<value>", "af_unix:stream:<value>" and
 * "af_unix:dgram:<value>" (an absolute path is moved under a directory
 * that does not exist, so nothing is ever connected to), and the value
 * itself when it is one of the forms that open nothing (off, stderr, an
 * fd number, unknown).  The debug switch is on so every warning is
 * formatted; stderr writes of the library are swallowed.  The library
 * reads the settings through tr2_sys.getenv, which answers here from
 * memory (setenv() would keep every value ever set: glibc never frees
 * them).
 */
#include "fuzz.h"
#include "tr2_dst.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NOWHERE "/t2fuzz-nonexistent"

static ssize_t (*real_write)(int fd, const void *buf, size_t n);
static char *(*real_getenv)(const char *name);
static const char *git_trace2; /* the value GIT_TRACE2 has now */

static ssize_t quiet_write(int fd, const void *buf, size_t n)
{
	return fd == 2 ? (ssize_t)n : real_write(fd, buf, n);
}

static char *fake_getenv(const char *name)
{
	if (!strcmp(name, "GIT_TRACE2"))
		return (char *)git_trace2;
	if (!strcmp(name, "GIT_TRACE2_DST_DEBUG"))
		return (char *)"1";
	return real_getenv(name);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	real_write = tr2_sys.write;
	tr2_sys.write = quiet_write;
	real_getenv = tr2_sys.getenv;
	tr2_sys.getenv = fake_getenv;
	return 0;
}

/* destinations.md §1, rule by rule. */
static enum tr2_dst_form expected_form(const char *v)
{
	if (!*v || !strcmp(v, "0") || !strcasecmp(v, "false"))
		return TR2_DST_OFF;
	if (!strcmp(v, "1") || !strcasecmp(v, "true"))
		return TR2_DST_STDERR;
	if (v[0] >= '0' && v[0] <= '9' && !v[1])
		return TR2_DST_FD;
	if (v[0] == '/')
		return TR2_DST_PATH;
	if (!strncmp(v, "af_unix:", 8))
		return TR2_DST_AF_UNIX;
	return TR2_DST_UNKNOWN;
}

/* Resolve value as the NORMAL target would, then close it again. */
static void open_value(const char *value)
{
	struct tr2_dst dst;

	tr2_dst_init(&dst, TR2_SYSENV_NORMAL);
	git_trace2 = value;
	tr2_sysenv_release();
	tr2_dst_open(&dst, 0);
	FZ_CHECK(dst.initialized);
	tr2_dst_close(&dst);
	FZ_CHECK(!tr2_dst_is_on(&dst));
	git_trace2 = NULL;
}

/* The length of the af_unix prefix of v, matched in the order of §5. */
static size_t af_unix_prefix_len(const char *v)
{
	if (!strncmp(v, "af_unix:stream:", 15))
		return 15;
	if (!strncmp(v, "af_unix:dgram:", 14))
		return 14;
	return 8;
}

/* Open prefix + rest, with its path (if absolute) moved under NOWHERE. */
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
	FZ_CHECK(tr2_dst_classify(v) == TR2_DST_AF_UNIX);
	open_value(v);
	free(joined);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *v = fz_cstr(data, size);
	enum tr2_dst_form form = tr2_dst_classify(v);

	FZ_CHECK(form == expected_form(v));
	FZ_CHECK(tr2_dst_classify(NULL) == TR2_DST_OFF);
	if (form != TR2_DST_PATH) {
		if (form == TR2_DST_AF_UNIX)
			open_af_unix("", v);
		else
			open_value(v);
	}
	open_af_unix("af_unix:", v);
	open_af_unix("af_unix:stream:", v);
	open_af_unix("af_unix:dgram:", v);
	tr2_sysenv_release();
	free(v);
	return 0;
}
