/*
 * Fuzzer: sampling by command tree's verdict at startup
 * (docs/configuration.md "Sampling") under hostile inherited SIDs.
 *
 * The input is "<rate>\0<parent SID>" (without a NUL: the whole input is
 * the parent SID, at rate 0.5): GIT_TRACE2_SAMPLE and
 * GIT_TRACE2_PARENT_SID, answered from memory through tr2_sys.getenv
 * (the SID exported for children is caught through tr2_sys.setenv).  Any
 * bytes: empty, huge, no '/', many '/', control and non-ASCII bytes.
 * Checked, for each input:
 *   - a rate that is not one is ignored (no verdict);
 *   - the SID is the parent SID, '/', then a component of its own with no
 *     '/' (a parent that is empty, set or not: the SID is that component
 *     alone), and it is what is exported for children;
 *   - the verdict is the root's alone (the SID up to its first '/'): the
 *     root by itself and the root under other descendants decide alike;
 *     rate 1 keeps every tree;
 *   - a child that inherits the exported SID decides alike, with a SID
 *     under it.
 * The first input of a process whose tree is sampled out under a parent
 * SID also starts the library (trace2_initialize(), an event target in a private directory):
 * tracing stays off, the listener word 0, the calls do nothing, no file
 * is created, trace2_cmd_exit() returns the code given, and
 * trace2_session_id() is the SID exported.  (The replay on POSIX runs
 * every input in a process of its own; libFuzzer and the Windows replay
 * run all of them in one.)
 */
#include "fuzz.h"
#include "tr2_sample.h"
#include "tr2_sid.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"
#include "trace2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_RATE "0.5"

static char *(*real_getenv)(const char *name);
static const char *sample_value, *parent_value;
static char *event_path; /* the target of the library's start */
static char *exported;   /* the last GIT_TRACE2_PARENT_SID set */
static int started;      /* the library was started in this process */

static char *fake_getenv(const char *name)
{
	if (!strcmp(name, "GIT_TRACE2_SAMPLE"))
		return (char *)sample_value;
	if (!strcmp(name, "GIT_TRACE2_PARENT_SID"))
		return (char *)parent_value;
	if (!strcmp(name, "GIT_TRACE2_EVENT"))
		return event_path;
	/* no other setting of the library from outside */
	if (!strncmp(name, "GIT_TRACE2", 10))
		return NULL;
	return real_getenv(name);
}

static int fake_setenv(const char *name, const char *value, int overwrite)
{
	(void)overwrite;
	FZ_CHECK(!strcmp(name, "GIT_TRACE2_PARENT_SID"));
	free(exported);
	exported = strdup(value);
	FZ_CHECK(exported != NULL);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_setenv("GIT_CONFIG_NOSYSTEM", "1");
	fz_setenv("GIT_CONFIG_GLOBAL", FZ_NULL_DEVICE);
	real_getenv = tr2_sys.getenv;
	tr2_sys.getenv = fake_getenv;
	tr2_sys.setenv = fake_setenv;
	return 0;
}

/* The verdict under parent, computed afresh; *sid: the SID it gave
 * (caller frees). */
static enum tr2_sample_verdict decide_under(const char *parent, char **sid)
{
	enum tr2_sample_verdict v;

	parent_value = parent;
	tr2_sid_release();
	tr2_sysenv_release();
	v = tr2_sample_decide();
	*sid = strdup(tr2_sid_get());
	FZ_CHECK(*sid != NULL);
	return v;
}

/* The SID is the parent's (when not empty), '/', a component of its own. */
static void check_sid(const char *sid, const char *parent)
{
	size_t plen = parent ? strlen(parent) : 0;
	const char *own = sid + plen + (plen != 0);

	FZ_CHECK(strlen(sid) > plen + (plen != 0));
	FZ_CHECK(!plen || (!memcmp(sid, parent, plen) && sid[plen] == '/'));
	FZ_CHECK(!strchr(own, '/'));
	FZ_CHECK(exported && !strcmp(exported, sid));
}

/* The root of sid alone, and under other descendants, decides as sid. */
static void check_root_decides(const struct tr2_sample_rate *r, const char *sid, int kept)
{
	size_t n = strcspn(sid, "/");
	char *root = malloc(n + 8);

	FZ_CHECK(root != NULL);
	memcpy(root, sid, n);
	root[n] = '\0';
	FZ_CHECK(tr2_sample_keeps(r, root) == kept);
	memcpy(root + n, "/x//y", 6);
	FZ_CHECK(tr2_sample_keeps(r, root) == kept);
	free(root);
}

/* Sampled out: the library started stays off, writes nothing. */
static void check_sampled_out_start(const char *parent)
{
	const char *dir = fz_tempdir("sample");
	const char *argv[] = { "fuzz-sample", NULL };
	struct stat st;

	event_path = fz_path(dir, "event");
	parent_value = parent;
	tr2_sid_release();
	tr2_sysenv_release();
	trace2_initialize();
	trace2_cmd_start(argv);
	FZ_CHECK(!trace2_is_enabled());
	FZ_CHECK(!TRACE2_LOAD_RELAXED(&trace2_listener_mask));
	trace2_region_enter("fuzz", "sample", NULL);
	trace2_printf("%s", "sampled out");
	trace2_region_leave("fuzz", "sample", NULL);
	FZ_CHECK(trace2_cmd_exit(7) == 7);
	check_sid(trace2_session_id(), parent);
	FZ_CHECK(stat(event_path, &st) && !trace2_is_enabled());
	free(event_path);
	event_path = NULL;
	started = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size);
	size_t first = strlen(text);
	int has_rate = first < size;
	char *parent = has_rate ? fz_cstr(data + first + 1, size - first - 1) : text;
	struct tr2_sample_rate r;
	enum tr2_sample_verdict v, again;
	char *sid, *child;

	sample_value = has_rate ? text : DEFAULT_RATE;
	v = decide_under(parent, &sid);
	if (tr2_sample_parse(sample_value, &r)) {
		FZ_CHECK(v == TR2_SAMPLE_UNSET);
	} else {
		FZ_CHECK(v == TR2_SAMPLE_KEPT || v == TR2_SAMPLE_DROPPED);
		FZ_CHECK(!r.all || v == TR2_SAMPLE_KEPT);
		check_sid(sid, parent);
		check_root_decides(&r, sid, v == TR2_SAMPLE_KEPT);
		again = decide_under(sid, &child);
		FZ_CHECK(again == v);
		check_sid(child, sid);
		free(child);
		/* without a parent SID the root is the process's own SID,
		 * made anew at the start: its verdict is not known before */
		if (v == TR2_SAMPLE_DROPPED && *parent && !started)
			check_sampled_out_start(parent);
	}
	tr2_sid_release();
	tr2_sysenv_release();
	parent_value = sample_value = NULL;
	free(sid);
	if (has_rate)
		free(parent);
	free(text);
	return 0;
}
