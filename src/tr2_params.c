/*
 * What the def_param listings report: trace2.envVars names environment
 * variables, trace2.configParams holds glob patterns of config keys.
 */
#include "tr2_params.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each piece of a comma list, trimmed of spaces, TABs, CRs and LFs. */
typedef int piece_fn(const char *piece, void *data);

static int for_each_piece(const char *list, piece_fn *fn, void *data)
{
	static const char ws[] = " \t\r\n";
	char piece[1024];

	while (list) {
		const char *comma = strchr(list, ','), *end = comma ? comma : list + strlen(list);
		size_t len;

		list += strspn(list, ws);
		while (end > list && strchr(ws, end[-1]))
			end--;
		len = end > list ? (size_t)(end - list) : 0;
		if (len < sizeof(piece)) {
			memcpy(piece, list, len);
			piece[len] = '\0';
			if (fn(piece, data))
				return 1;
		}
		list = comma ? comma + 1 : NULL;
	}
	return 0;
}

int tr2_params_for_each_item(const char *list, tr2_params_item_fn *fn, void *data)
{
	return for_each_piece(list, fn, data);
}

static int same_letter(unsigned char a, unsigned char b)
{
	return tolower(a) == tolower(b);
}

/* Whether c is in the class [...] at *pp (just past the '['), moving *pp
 * past its ']'; -1 (and *pp kept) if the class is not closed. */
static int in_class(const char **pp, unsigned char c)
{
	const char *p = *pp;
	int negate = *p == '!' || *p == '^', found = 0;

	p += negate;
	do {
		unsigned char lo = (unsigned char)*p, hi;

		if (!lo)
			return -1;
		if (lo == '\\' && p[1])
			lo = (unsigned char)*++p;
		hi = lo;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = (unsigned char)p[2];
			p += 2;
		}
		if ((c >= lo && c <= hi) || (tolower(c) >= lo && tolower(c) <= hi) ||
		    (toupper(c) >= lo && toupper(c) <= hi))
			found = 1;
		p++;
	} while (*p != ']');
	*pp = p + 1;
	return found != negate;
}

/* Whether the one character at the start of pattern *pp matches c; *pp
 * moves past it. */
static int char_matches(const char **pp, unsigned char c)
{
	const char *p = *pp;
	int r;

	if (*p == '?') {
		*pp = p + 1;
		return 1;
	}
	if (*p == '[') {
		*pp = p + 1;
		if ((r = in_class(pp, c)) >= 0)
			return r;
		*pp = p + 1; /* an unclosed '[' is itself */
		return c == '[';
	}
	if (*p == '\\' && p[1])
		p++;
	*pp = p + 1;
	return same_letter((unsigned char)*p, c);
}

/*
 * A shell pattern over the whole of s, letters in either case: '*' any
 * run (a '/' or '.' included), '?' one character, [...] a class ("!" or
 * "^" first negates it), '\\' quotes the next one.  Backtracking is to the
 * last '*' only, so time is bounded by pattern length times key length.
 */
static int glob_matches(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		const char *next = p;

		if (*p == '*') {
			while (*p == '*')
				p++;
			star = p;
			resume = s;
			continue;
		}
		if (*p && char_matches(&next, (unsigned char)*s)) {
			p = next;
			s++;
			continue;
		}
		if (!star)
			return 0;
		p = star;
		s = ++resume;
	}
	while (*p == '*')
		p++;
	return !*p;
}

static int key_matches(const char *pattern, void *key)
{
	return *pattern && glob_matches(pattern, key);
}

int tr2_params_wants_config_key(const char *key)
{
	const char *patterns = tr2_sysenv_get(TR2_SYSENV_CONFIG_PARAMS);

	return patterns && key && for_each_piece(patterns, key_matches, (void *)key);
}

int tr2_params_config_wanted(void)
{
	return tr2_sysenv_get(TR2_SYSENV_CONFIG_PARAMS) != NULL;
}

struct env_listing {
	tr2_params_env_fn *fn;
	void *ctx;
};

static int report_env_var(const char *name, void *data)
{
	const struct env_listing *l = data;
	const char *v = *name ? tr2_sys.getenv(name) : NULL;

	if (v && *v)
		l->fn(name, v, l->ctx);
	return 0;
}

void tr2_params_for_each_env_var(tr2_params_env_fn *fn, void *ctx)
{
	struct env_listing l = { fn, ctx };
	const char *names = tr2_sysenv_get(TR2_SYSENV_ENV_VARS);

	if (names)
		for_each_piece(names, report_env_var, &l);
}
