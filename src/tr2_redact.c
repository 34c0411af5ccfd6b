/*
 * URL password redaction: "http(s)://user:secret@host" is traced as
 * "http(s)://user:<REDACTED>@host" unless GIT_TRACE2_REDACT is false.
 */
#include "tr2_redact.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"
#include "tr2_diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REDACTED "<REDACTED>"

static int redact = 1;

void tr2_redact_init(void)
{
	const char *v = tr2_sysenv_get(TR2_SYSENV_REDACT);
	int b;

	redact = 1;
	if (!v)
		return;
	b = *v ? tr2_parse_maybe_bool(v) : 0;
	if (b < 0) {
		tr2_fatal("bad boolean environment value '%s' for '%s'", v,
			  tr2_sysenv_env_name(TR2_SYSENV_REDACT));
		return;
	}
	redact = b;
}

int tr2_redact_url(const char *s, char **out)
{
	const char *rest, *end, *colon;
	size_t head, tail;
	char *r;

	*out = NULL;
	if (!redact || !s)
		return 0;
	if (!strncmp(s, "https://", 8))
		rest = s + 8;
	else if (!strncmp(s, "http://", 7))
		rest = s + 7;
	else
		return 0;
	end = rest + strcspn(rest, "@/");
	if (*end != '@')
		return 0;
	colon = memchr(rest, ':', (size_t)(end - rest));
	if (!colon)
		return 0;
	head = (size_t)(colon - s) + 1;
	tail = strlen(end);
	r = tr2_sys.malloc(head + sizeof(REDACTED) - 1 + tail + 1);
	if (!r)
		return -1;
	memcpy(r, s, head);
	memcpy(r + head, REDACTED, sizeof(REDACTED) - 1);
	memcpy(r + head + sizeof(REDACTED) - 1, end, tail + 1);
	*out = r;
	return 0;
}

int tr2_redact_argv(const char **argv, const char ***out)
{
	const char **copy = NULL;
	size_t n, i;

	*out = NULL;
	if (!redact || !argv)
		return 0;
	for (n = 0; argv[n]; n++)
		;
	for (i = 0; i < n; i++) {
		char *r;

		if (tr2_redact_url(argv[i], &r))
			goto out_of_memory;
		if (!r)
			continue;
		if (!copy && !(copy = tr2_sys.calloc(n + 1, sizeof(*copy)))) {
			tr2_sys.free(r);
			return -1;
		}
		copy[i] = r;
	}
	/* Unchanged entries point into argv and are not owned by the copy. */
	for (i = 0; copy && i < n; i++)
		if (!copy[i])
			copy[i] = argv[i];
	*out = copy;
	return 0;
out_of_memory:
	for (n = i, i = 0; copy && i < n; i++)
		if (copy[i])
			tr2_sys.free((char *)copy[i]);
	tr2_sys.free(copy);
	return -1;
}

void tr2_redact_free_argv(const char **copy, const char **argv)
{
	size_t i;

	for (i = 0; copy && copy[i]; i++)
		if (copy[i] != argv[i])
			tr2_sys.free((char *)copy[i]);
	tr2_sys.free(copy);
}
