/*
 * What the def_param listings report: trace2.envVars names environment
 * variables, trace2.configParams holds glob patterns of config keys.
 */
#include "tr2_params.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"

#include <fnmatch.h>
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

static int key_matches(const char *pattern, void *key)
{
	return *pattern && !fnmatch(pattern, key, FNM_CASEFOLD);
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
