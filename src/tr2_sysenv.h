/* The GIT_TRACE2* settings: environment first, then the config files. */
#ifndef TR2_SYSENV_H
#define TR2_SYSENV_H

#include <stddef.h>

enum tr2_sysenv {
	TR2_SYSENV_NORMAL,
	TR2_SYSENV_NORMAL_BRIEF,
	TR2_SYSENV_PERF,
	TR2_SYSENV_PERF_BRIEF,
	TR2_SYSENV_EVENT,
	TR2_SYSENV_EVENT_BRIEF,
	TR2_SYSENV_EVENT_NESTING,
	TR2_SYSENV_CONFIG_PARAMS,
	TR2_SYSENV_ENV_VARS,
	TR2_SYSENV_DST_DEBUG,
	TR2_SYSENV_MAX_FILES,
	TR2_SYSENV_BUFFER,
	TR2_SYSENV_COUNT
};

/* The value: the environment variable when set and non-empty (read once
 * and cached), else the config files' value, else NULL. */
const char *tr2_sysenv_get(enum tr2_sysenv id);
/* The environment variable's name, used in messages. */
const char *tr2_sysenv_env_name(enum tr2_sysenv id);
/* The setting named by trace2.<key> (lowercase), or -1. */
int tr2_sysenv_id_of_config_key(const char *key);
/* Record the config files' value of a setting. */
void tr2_sysenv_set_config(enum tr2_sysenv id, const char *value);
void tr2_sysenv_clear_config(void);
/* Re-initialise the lock in a forked child. */
void tr2_sysenv_after_fork(void);
/* Forget every cached value (atexit). */
void tr2_sysenv_release(void);

/* Git's maybe-bool: 1 true, 0 false, -1 not a boolean (NULL: -1). */
int tr2_parse_maybe_bool(const char *v);
/* The setting as a maybe-bool, with dflt for unset or invalid values. */
int tr2_sysenv_bool(enum tr2_sysenv id, int dflt);
/* A size in bytes with an optional k/m/g suffix; 0 on success. */
int tr2_parse_size(const char *v, size_t *out);
/* atoi() of the setting, or dflt when unset. */
int tr2_sysenv_int(enum tr2_sysenv id, int dflt);

#endif
