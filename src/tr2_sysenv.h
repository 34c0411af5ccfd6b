/*
 * The settings table: every GIT_TRACE2* environment variable and trace2.*
 * config key the library reads is a row {id, environment suffix, config
 * key, parser}.  The environment name is "GIT_TRACE2" + suffix.  Built-in
 * rows have fixed ids; a registered target's destination and brief
 * settings are added as rows at registration.  A value set through the
 * API wins over the environment, which wins over the config files.  The
 * environment prefix ("GIT" unless the host sets another) makes the
 * names: "<PREFIX>_TRACE2" + suffix.
 */
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
	TR2_SYSENV_REDACT,      /* environment only */
	TR2_SYSENV_PARENT_SID,  /* environment only, written by the library */
	TR2_SYSENV_PARENT_NAME, /* environment only, written by the library */
	TR2_SYSENV_MAX_FILE_SIZE,
	TR2_SYSENV_CATEGORIES,
	TR2_SYSENV_DEFERRED,
	TR2_SYSENV_DEFERRED_RING,
	TR2_SYSENV_CLOCK,
	TR2_SYSENV_DST_TIMEOUT,
	TR2_SYSENV_RECORD_RING,
	TR2_SYSENV_RING_FULL,
	TR2_SYSENV_STATS_FORMAT,
	TR2_SYSENV_SAMPLE,
	TR2_SYSENV_FLIGHT,
	TR2_SYSENV_FLIGHT_SLOW,
	TR2_SYSENV_BUILTIN_COUNT
};

/* Room for the built-in rows and two rows per registered target. */
#define TR2_SYSENV_MAX (TR2_SYSENV_BUILTIN_COUNT + 2 * 32)

/* How a row's value is read (docs/configuration.md, "Settings"). */
enum tr2_parser {
	TR2_PARSE_DESTINATION, /* a target value */
	TR2_PARSE_BOOL,        /* maybe-bool, invalid ignored */
	TR2_PARSE_ENV_BOOL,    /* Git's environment boolean, invalid fatal */
	TR2_PARSE_INT,         /* atoi() */
	TR2_PARSE_SIZE,        /* bytes with an optional k/m/g */
	TR2_PARSE_LIST,        /* a comma list */
	TR2_PARSE_TEXT,        /* as it is */
	TR2_PARSE_RATE,        /* a fraction in (0, 1] (tr2_sample.h) */
};

/*
 * Add the destination and brief rows of a target's setting: suffix
 * "_<SETTING>" and "_<SETTING>_BRIEF", keys "<setting>target" and
 * "<setting>brief".  A built-in target with Git's settings ("normal",
 * "perf", "event") names its fixed rows when builtin is set; a built-in
 * without fixed rows ("chrome") gets added rows like a registered
 * target.  0 and the ids, or -1 when the setting is taken (or builtin
 * names only one fixed row) or the table is full.
 */
int tr2_sysenv_add_target(const char *setting, int builtin, int *dst_id,
			  int *brief_id);
/* 1 if an existing row has the environment name GIT_TRACE2_<upper>. */
int tr2_sysenv_env_taken(const char *upper_suffix);

/* The value: the environment variable when set and non-empty (read once
 * and cached, but for the rows the library writes), else the config
 * files' value, else NULL. */
const char *tr2_sysenv_get(int id);
/* Set the environment variable of a row (for children); the parent SID
 * also as GIT_TRACE2_PARENT_SID under another prefix, so that git
 * children join the process tree. */
void tr2_sysenv_export(int id, const char *value);
/* The environment variable's name, used in messages. */
const char *tr2_sysenv_env_name(int id);
/* The row of trace2.<key> (lowercase), or -1. */
int tr2_sysenv_id_of_config_key(const char *key);
/* How many rows there are now (ids are 0 to count - 1). */
int tr2_sysenv_count(void);
/* Record the config files' value of a setting. */
void tr2_sysenv_set_config(int id, const char *value);
void tr2_sysenv_clear_config(void);
/* Re-initialise the lock in a forked child. */
void tr2_sysenv_after_fork(void);
/* Forget every cached value (atexit); the rows and the values set
 * through the API stay. */
void tr2_sysenv_release(void);

/* How the row's value is read. */
enum tr2_parser tr2_sysenv_parser(int id);
/* Set the API's value of a row (copied; it wins over the environment);
 * 0, or -1 when out of memory. */
int tr2_sysenv_set_api(int id, const char *value);
/* Use "<prefix>_TRACE2..." for every name from now on; 0, or -1 (and no
 * change) unless prefix is 1 to 31 letters, digits and underscores.  NULL
 * means "GIT". */
int tr2_sysenv_set_prefix(const char *prefix);
/* 1 while the prefix is "GIT". */
int tr2_sysenv_prefix_is_git(void);

/* Git's maybe-bool: 1 true, 0 false, -1 not a boolean (NULL: -1). */
int tr2_parse_maybe_bool(const char *v);
/* The setting as a maybe-bool, with dflt for unset or invalid values. */
int tr2_sysenv_bool(int id, int dflt);
/* A size in bytes with an optional k/m/g suffix; 0 on success. */
int tr2_parse_size(const char *v, size_t *out);
/* What atoi() reads (blanks, a sign, digits; the rest ignored), but
 * clamped to INT_MIN..INT_MAX where atoi() would overflow. */
int tr2_parse_atoi(const char *v);
/* tr2_parse_atoi() of the setting, or dflt when unset. */
int tr2_sysenv_int(int id, int dflt);

/* GIT_TRACE2_FLIGHT_SLOW / trace2.flightSlow: a run longer than this many
 * milliseconds dumps the flight recorder at exit; -1 (never) when unset
 * or not a whole number from 0 to INT_MAX. */
long tr2_sysenv_flight_slow_ms(void);

/* GIT_TRACE2_DST_TIMEOUT / trace2.destinationTimeout when unset or not a
 * whole number of milliseconds from 0 to TR2_DST_TIMEOUT_MAX_MS. */
#define TR2_DST_TIMEOUT_DEFAULT_MS 5000
#define TR2_DST_TIMEOUT_MAX_MS 3600000
/* How long, in milliseconds, one write or connect may wait on a
 * destination (and a config file that is a pipe may take to arrive):
 * the setting's value as known now, range-checked. */
int tr2_sysenv_dst_timeout_ms(void);
/* GIT_TRACE2_RING_FULL: 1 for "wait" (a thread whose ring is full waits
 * for room), 0 for "drop" (the default, and any other value). */
int tr2_sysenv_ring_full_waits(void);

#endif
