/*
 * URL password redaction: "http(s)://user:secret@host" is traced as
 * "http(s)://user:<REDACTED>@host" unless GIT_TRACE2_REDACT is false.
 */
#include "tr2_dispatch.h"
#include "tr2_sys.h"
#include "tr2_bug.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDACTED "<REDACTED>"

static int redact = 1;

void tr2_redact_init(void)
{
	const char *v = tr2_sys.getenv("GIT_TRACE2_REDACT");
	int b;

	redact = 1;
	if (!v)
		return;
	b = *v ? tr2_parse_maybe_bool(v) : 0;
	if (b < 0) {
		tr2_fatal("bad boolean environment value '%s' for '%s'", v,
			  "GIT_TRACE2_REDACT");
		return;
	}
	redact = b;
}

char *tr2_redact_url(const char *s)
{
	const char *rest, *end, *colon;
	size_t head, tail;
	char *out;

	if (!redact)
		return NULL;
	if (!strncmp(s, "https://", 8))
		rest = s + 8;
	else if (!strncmp(s, "http://", 7))
		rest = s + 7;
	else
		return NULL;
	end = rest + strcspn(rest, "@/");
	if (*end != '@')
		return NULL;
	colon = memchr(rest, ':', (size_t)(end - rest));
	if (!colon)
		return NULL;
	head = (size_t)(colon - s) + 1;
	tail = strlen(end);
	out = tr2_sys.malloc(head + sizeof(REDACTED) - 1 + tail + 1);
	if (!out)
		return NULL;
	memcpy(out, s, head);
	memcpy(out + head, REDACTED, sizeof(REDACTED) - 1);
	memcpy(out + head + sizeof(REDACTED) - 1, end, tail + 1);
	return out;
}

const char **tr2_redact_argv(const char **argv)
{
	const char **copy = NULL;
	size_t n, i;

	if (!redact || !argv)
		return NULL;
	for (n = 0; argv[n]; n++)
		;
	for (i = 0; i < n; i++) {
		char *r = tr2_redact_url(argv[i]);

		if (!r)
			continue;
		if (!copy && !(copy = tr2_sys.calloc(n + 1, sizeof(*copy)))) {
			tr2_sys.free(r);
			return NULL;
		}
		copy[i] = r;
	}
	/* Unchanged entries point into argv and are not owned by the copy. */
	for (i = 0; copy && i < n; i++)
		if (!copy[i])
			copy[i] = argv[i];
	return copy;
}

void tr2_redact_free_argv(const char **copy, const char **argv)
{
	size_t i;

	for (i = 0; copy && copy[i]; i++)
		if (copy[i] != argv[i])
			tr2_sys.free((char *)copy[i]);
	tr2_sys.free(copy);
}
