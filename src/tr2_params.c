/*
 * def_param events from settings: trace2.envVars names environment
 * variables to report, trace2.configParams holds glob patterns of config
 * keys to report.
 */
#include "tr2_dispatch.h"
#include "tr2_sys.h"
#include "tr2_config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int config_listed, env_listed;

void tr2_params_reset(void)
{
	config_listed = env_listed = 0;
}

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

static int key_matches(const char *pattern, void *key)
{
	return *pattern && !fnmatch(pattern, key, FNM_CASEFOLD);
}

static int wants_config_key(const char *key)
{
	const char *patterns = tr2_sysenv_get(TR2_SYSENV_CONFIG_PARAMS);

	return patterns && key && for_each_piece(patterns, key_matches, (void *)key);
}

struct env_listing {
	const char *file;
	int line;
};

static int report_env_var(const char *name, void *data)
{
	static const struct key_value_info command = {
		NULL, -1, CONFIG_ORIGIN_UNKNOWN, CONFIG_SCOPE_COMMAND
	};
	const struct env_listing *where = data;
	const char *v = *name ? tr2_sys.getenv(name) : NULL;

	if (v && *v)
		trace2_def_param_fl(where->file, where->line, name, v, &command);
	return 0;
}

void trace2_cmd_list_env_vars_fl(const char *file, int line)
{
	struct env_listing where = { file, line };
	const char *names;

	if (!tr2_enabled() || __atomic_exchange_n(&env_listed, 1, __ATOMIC_RELAXED))
		return;
	names = tr2_sysenv_get(TR2_SYSENV_ENV_VARS);
	if (names)
		for_each_piece(names, report_env_var, &where);
}

void trace2_cmd_set_config_fl(const char *file, int line, const char *key,
			      const char *value)
{
	if (tr2_enabled() && wants_config_key(key))
		trace2_def_param_fl(file, line, key, value, NULL);
}

struct config_listing {
	const char *file;
	int line;
};

static void report_config_entry(const char *key, const char *value,
				enum config_scope scope, void *ctx)
{
	const struct config_listing *where = ctx;
	struct key_value_info kvi = KVI_INIT;

	if (!wants_config_key(key))
		return;
	kvi.scope = scope;
	trace2_def_param_fl(where->file, where->line, key, value, &kvi);
}

void trace2_cmd_list_config_fl(const char *file, int line)
{
	struct config_listing where = { file, line };

	if (!tr2_enabled() || __atomic_exchange_n(&config_listed, 1, __ATOMIC_RELAXED))
		return;
	if (tr2_sysenv_get(TR2_SYSENV_CONFIG_PARAMS))
		tr2_config_for_each(report_config_entry, &where);
}
