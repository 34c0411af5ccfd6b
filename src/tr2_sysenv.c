#include "tr2_sysenv.h"
#include "tr2_sys.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const env_names[TR2_SYSENV_COUNT] = {
	[TR2_SYSENV_NORMAL] = "GIT_TRACE2",
	[TR2_SYSENV_NORMAL_BRIEF] = "GIT_TRACE2_BRIEF",
	[TR2_SYSENV_PERF] = "GIT_TRACE2_PERF",
	[TR2_SYSENV_PERF_BRIEF] = "GIT_TRACE2_PERF_BRIEF",
	[TR2_SYSENV_EVENT] = "GIT_TRACE2_EVENT",
	[TR2_SYSENV_EVENT_BRIEF] = "GIT_TRACE2_EVENT_BRIEF",
	[TR2_SYSENV_EVENT_NESTING] = "GIT_TRACE2_EVENT_NESTING",
	[TR2_SYSENV_CONFIG_PARAMS] = "GIT_TRACE2_CONFIG_PARAMS",
	[TR2_SYSENV_ENV_VARS] = "GIT_TRACE2_ENV_VARS",
	[TR2_SYSENV_DST_DEBUG] = "GIT_TRACE2_DST_DEBUG",
	[TR2_SYSENV_MAX_FILES] = "GIT_TRACE2_MAX_FILES",
	[TR2_SYSENV_BUFFER] = "GIT_TRACE2_BUFFER",
};

/* The trace2.<key> of each setting, lowercase as Git normalises it. */
static const char *const config_keys[TR2_SYSENV_COUNT] = {
	[TR2_SYSENV_NORMAL] = "normaltarget",
	[TR2_SYSENV_NORMAL_BRIEF] = "normalbrief",
	[TR2_SYSENV_PERF] = "perftarget",
	[TR2_SYSENV_PERF_BRIEF] = "perfbrief",
	[TR2_SYSENV_EVENT] = "eventtarget",
	[TR2_SYSENV_EVENT_BRIEF] = "eventbrief",
	[TR2_SYSENV_EVENT_NESTING] = "eventnesting",
	[TR2_SYSENV_CONFIG_PARAMS] = "configparams",
	[TR2_SYSENV_ENV_VARS] = "envvars",
	[TR2_SYSENV_DST_DEBUG] = "destinationdebug",
	[TR2_SYSENV_MAX_FILES] = "maxfiles",
	[TR2_SYSENV_BUFFER] = "buffer",
};

static pthread_mutex_t cache_mutex = PTHREAD_MUTEX_INITIALIZER;
static char *cached[TR2_SYSENV_COUNT];      /* environment, when non-empty */
static unsigned char looked_up[TR2_SYSENV_COUNT];
static char *from_config[TR2_SYSENV_COUNT]; /* config files */

void tr2_sysenv_after_fork(void)
{
	pthread_mutex_init(&cache_mutex, NULL);
}

int tr2_sysenv_id_of_config_key(const char *key)
{
	int i;

	for (i = 0; i < TR2_SYSENV_COUNT; i++)
		if (!strcmp(config_keys[i], key))
			return i;
	return -1;
}

void tr2_sysenv_set_config(enum tr2_sysenv id, const char *value)
{
	char *copy = tr2_strdup(value);

	pthread_mutex_lock(&cache_mutex);
	tr2_sys.free(from_config[id]);
	from_config[id] = copy;
	pthread_mutex_unlock(&cache_mutex);
}

void tr2_sysenv_clear_config(void)
{
	int i;

	pthread_mutex_lock(&cache_mutex);
	for (i = 0; i < TR2_SYSENV_COUNT; i++) {
		tr2_sys.free(from_config[i]);
		from_config[i] = NULL;
	}
	pthread_mutex_unlock(&cache_mutex);
}

const char *tr2_sysenv_env_name(enum tr2_sysenv id)
{
	return env_names[id];
}

const char *tr2_sysenv_get(enum tr2_sysenv id)
{
	const char *v;

	pthread_mutex_lock(&cache_mutex);
	if (!looked_up[id]) {
		v = tr2_sys.getenv(env_names[id]);
		cached[id] = v && *v ? tr2_strdup(v) : NULL;
		looked_up[id] = 1;
	}
	v = cached[id] ? cached[id] : from_config[id];
	pthread_mutex_unlock(&cache_mutex);
	return v;
}

void tr2_sysenv_release(void)
{
	int i;

	pthread_mutex_lock(&cache_mutex);
	for (i = 0; i < TR2_SYSENV_COUNT; i++) {
		tr2_sys.free(cached[i]);
		cached[i] = NULL;
		looked_up[i] = 0;
	}
	pthread_mutex_unlock(&cache_mutex);
	tr2_sysenv_clear_config();
}

/* Git's integer syntax: base 0, one optional k/m/g suffix, must fit int. */
static int parse_int_with_unit(const char *v, int *out)
{
	char *end;
	intmax_t n, factor = 1;

	errno = 0;
	n = strtoimax(v, &end, 0);
	if (errno || end == v)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 'k': factor = 1024; end++; break;
	case 'm': factor = 1024 * 1024; end++; break;
	case 'g': factor = 1024 * 1024 * 1024; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end || n > INT_MAX / factor || n < INT_MIN / factor)
		return -1;
	*out = (int)(n * factor);
	return 0;
}

int tr2_parse_maybe_bool(const char *v)
{
	int n;

	if (!v)
		return -1;
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		return 1;
	if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		return 0;
	if (!parse_int_with_unit(v, &n))
		return n != 0;
	return -1;
}

int tr2_sysenv_bool(enum tr2_sysenv id, int dflt)
{
	int b = tr2_parse_maybe_bool(tr2_sysenv_get(id));

	return b < 0 ? dflt : b;
}

int tr2_sysenv_int(enum tr2_sysenv id, int dflt)
{
	const char *v = tr2_sysenv_get(id);

	return v ? atoi(v) : dflt;
}

int tr2_parse_size(const char *v, size_t *out)
{
	char *end;
	unsigned long long n, factor = 1;

	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	n = strtoull(v, &end, 10);
	switch (tolower((unsigned char)*end)) {
	case 'k': factor = 1024; end++; break;
	case 'm': factor = 1024 * 1024; end++; break;
	case 'g': factor = 1024 * 1024 * 1024; end++; break;
	}
	if (errno || *end || n > SIZE_MAX / factor)
		return -1;
	*out = (size_t)(n * factor);
	return 0;
}
