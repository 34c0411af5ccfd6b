/*
 * URL password redaction: "<scheme>://user:secret@host" is traced as
 * "<scheme>://user:<REDACTED>@host" unless GIT_TRACE2_REDACT is false,
 * for any scheme and wherever the URL starts in the string.  Everything
 * Git redacts is redacted here too, with the same bytes around it.
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

/* A character of a URL scheme (letters, digits, '+', '-', '.'). */
static int is_scheme_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

/*
 * The '@' ending the user-info of the URL whose authority starts at
 * rest, or NULL.  The user-info ends at the last '@' of the authority
 * (a password may hold '@'), which ends at the first '/', '?' or '#'.
 * Without one there, Git's own rule: the first '@' before any '/' (Git
 * ends the authority at '/' alone, and what Git redacts we redact).
 */
static const char *userinfo_end(const char *rest)
{
	size_t len = strcspn(rest, "/?#");
	const char *at;

	while (len && rest[len - 1] != '@')
		len--;
	if (len)
		return rest + len - 1;
	at = rest + strcspn(rest, "@/");
	return *at == '@' ? at : NULL;
}

/*
 * The first password of a URL in s at or after from: [*start, *end),
 * where *end is the user-info's '@'.  0 when there is none.
 */
static int next_password(const char *s, const char *from, const char **start,
			 const char **end)
{
	const char *sep;

	for (; (sep = strstr(from, "://")); from = sep + 3) {
		const char *rest = sep + 3, *at, *colon;

		if (sep == s || !is_scheme_char(sep[-1]))
			continue;
		if (!(at = userinfo_end(rest)))
			continue;
		if (!(colon = memchr(rest, ':', (size_t)(at - rest))))
			continue;
		*start = colon + 1;
		*end = at;
		return 1;
	}
	return 0;
}

/* s with its passwords redacted, NUL-ended, appended to b. */
static void add_redacted(struct tr2_buf *b, const char *s)
{
	const char *from = s, *start, *end;

	while (next_password(s, from, &start, &end)) {
		tr2_buf_add(b, from, (size_t)(start - from));
		tr2_buf_addlit(b, REDACTED);
		from = end;
	}
	tr2_buf_add(b, from, strlen(from) + 1);
}

static int has_password(const char *s)
{
	const char *start, *end;

	return redact && s && next_password(s, s, &start, &end);
}

int tr2_redact_str(struct tr2_buf *room, const char *s, const char **out)
{
	*out = s;
	if (!has_password(s))
		return 0;
	add_redacted(room, s);
	if (room->failed)
		return -1;
	*out = room->p;
	return 0;
}

void tr2_redacted_argv_init(struct tr2_redacted_argv *r)
{
	tr2_buf_init(&r->text);
	r->argv = r->stack;
}

void tr2_redacted_argv_release(struct tr2_redacted_argv *r)
{
	tr2_buf_release(&r->text);
	if (r->argv != r->stack)
		tr2_sys.free(r->argv);
	r->argv = r->stack;
}

/* Point r->argv's n entries at argv's, or at their copies in r->text
 * (made in argv's order; the text moves while it grows, so only now). */
static int point_argv(struct tr2_redacted_argv *r, const char *const *argv, size_t n)
{
	const char *copy = r->text.p;
	size_t i;

	if (n >= TR2_REDACT_ARGV_STACK &&
	    !(r->argv = tr2_sys.calloc(n + 1, sizeof(*r->argv)))) {
		r->argv = r->stack;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (has_password(argv[i])) {
			r->argv[i] = copy;
			copy += strlen(copy) + 1;
		} else
			r->argv[i] = argv[i];
	}
	r->argv[n] = NULL;
	return 0;
}

int tr2_redact_argv(struct tr2_redacted_argv *r, const char *const *argv,
		    const char *const **out)
{
	size_t n;

	*out = argv;
	for (n = 0; argv && argv[n]; n++)
		if (has_password(argv[n]))
			add_redacted(&r->text, argv[n]);
	if (r->text.failed)
		return -1;
	if (!r->text.len)
		return 0;
	if (point_argv(r, argv, n))
		return -1;
	*out = r->argv;
	return 0;
}
