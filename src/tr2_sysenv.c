#include "tr2_sysenv.h"
#include "tr2_sys.h"
#include "tr2_plat.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct row {
	const char *suffix; /* after "GIT_TRACE2" */
	const char *key;    /* trace2.<key>, lowercase; NULL: environment only */
	enum tr2_parser parser;
	unsigned live : 1;  /* the library writes it: read it every time, raw */
	char env[96];       /* "<PREFIX>_TRACE2" + suffix, made when first asked */
};

#define ROW(id, suffix, key, parser) [id] = { suffix, key, parser, 0, "" }
#define LIVE_ROW(id, suffix, parser) [id] = { suffix, NULL, parser, 1, "" }

static struct row rows[TR2_SYSENV_MAX] = {
	ROW(TR2_SYSENV_NORMAL, "", "normaltarget", TR2_PARSE_DESTINATION),
	ROW(TR2_SYSENV_NORMAL_BRIEF, "_BRIEF", "normalbrief", TR2_PARSE_BOOL),
	ROW(TR2_SYSENV_PERF, "_PERF", "perftarget", TR2_PARSE_DESTINATION),
	ROW(TR2_SYSENV_PERF_BRIEF, "_PERF_BRIEF", "perfbrief", TR2_PARSE_BOOL),
	ROW(TR2_SYSENV_EVENT, "_EVENT", "eventtarget", TR2_PARSE_DESTINATION),
	ROW(TR2_SYSENV_EVENT_BRIEF, "_EVENT_BRIEF", "eventbrief", TR2_PARSE_BOOL),
	ROW(TR2_SYSENV_EVENT_NESTING, "_EVENT_NESTING", "eventnesting", TR2_PARSE_INT),
	ROW(TR2_SYSENV_CONFIG_PARAMS, "_CONFIG_PARAMS", "configparams", TR2_PARSE_LIST),
	ROW(TR2_SYSENV_ENV_VARS, "_ENV_VARS", "envvars", TR2_PARSE_LIST),
	ROW(TR2_SYSENV_DST_DEBUG, "_DST_DEBUG", "destinationdebug", TR2_PARSE_INT),
	ROW(TR2_SYSENV_MAX_FILES, "_MAX_FILES", "maxfiles", TR2_PARSE_INT),
	ROW(TR2_SYSENV_BUFFER, "_BUFFER", "buffer", TR2_PARSE_SIZE),
	LIVE_ROW(TR2_SYSENV_REDACT, "_REDACT", TR2_PARSE_ENV_BOOL),
	LIVE_ROW(TR2_SYSENV_PARENT_SID, "_PARENT_SID", TR2_PARSE_TEXT),
	LIVE_ROW(TR2_SYSENV_PARENT_NAME, "_PARENT_NAME", TR2_PARSE_TEXT),
	ROW(TR2_SYSENV_MAX_FILE_SIZE, "_MAX_FILE_SIZE", "maxfilesize", TR2_PARSE_SIZE),
	ROW(TR2_SYSENV_CATEGORIES, "_CATEGORIES", "categories", TR2_PARSE_LIST),
	ROW(TR2_SYSENV_DEFERRED, "_DEFERRED", "deferred", TR2_PARSE_BOOL),
	ROW(TR2_SYSENV_DEFERRED_RING, "_DEFERRED_RING", "deferredring", TR2_PARSE_SIZE),
	ROW(TR2_SYSENV_CLOCK, "_CLOCK", "clock", TR2_PARSE_TEXT),
	ROW(TR2_SYSENV_DST_TIMEOUT, "_DST_TIMEOUT", "destinationtimeout", TR2_PARSE_INT),
	ROW(TR2_SYSENV_RECORD_RING, "_RECORD_RING", "recordring", TR2_PARSE_SIZE),
	ROW(TR2_SYSENV_RING_FULL, "_RING_FULL", "ringfull", TR2_PARSE_TEXT),
	ROW(TR2_SYSENV_STATS_FORMAT, "_STATS_FORMAT", "statsformat", TR2_PARSE_TEXT),
	ROW(TR2_SYSENV_SAMPLE, "_SAMPLE", "sample", TR2_PARSE_RATE),
	ROW(TR2_SYSENV_FLIGHT, "_FLIGHT", "flight", TR2_PARSE_SIZE),
	ROW(TR2_SYSENV_FLIGHT_SLOW, "_FLIGHT_SLOW", "flightslow", TR2_PARSE_INT),
};
static int nrows = TR2_SYSENV_BUILTIN_COUNT;

/* The text of the rows registered targets add. */
struct added {
	char suffix[48];
	char key[48];
};
static struct added added[TR2_SYSENV_MAX - TR2_SYSENV_BUILTIN_COUNT];

static tr2_mutex cache_mutex = TR2_MUTEX_INIT;
static char *cached[TR2_SYSENV_MAX];      /* environment, when non-empty */
static unsigned char looked_up[TR2_SYSENV_MAX];
static char *from_config[TR2_SYSENV_MAX]; /* config files */
/* The host's own settings: kept for the life of the process (a forked
 * child that initializes again still has them). */
static char *from_api[TR2_SYSENV_MAX];
static char env_prefix[32] = "GIT";

void tr2_sysenv_after_fork(void)
{
	tr2_mutex_init(&cache_mutex);
}

int tr2_sysenv_count(void)
{
	return nrows;
}

int tr2_sysenv_id_of_config_key(const char *key)
{
	int i;

	for (i = 0; i < nrows; i++)
		if (rows[i].key && !strcmp(rows[i].key, key))
			return i;
	return -1;
}

/* "<prefix>_TRACE2<suffix>" without the printf family: initialize names
 * every setting it reads, and each snprintf() costs ~900 instructions. */
static void make_env_name(char *out, size_t size, const char *suffix)
{
	size_t p = strlen(env_prefix), s = strlen(suffix);

	if (p + sizeof("_TRACE2") + s > size) /* not with the limits above */
		s = size - p - sizeof("_TRACE2");
	memcpy(out, env_prefix, p);
	memcpy(out + p, "_TRACE2", sizeof("_TRACE2") - 1);
	memcpy(out + p + sizeof("_TRACE2") - 1, suffix, s);
	out[p + sizeof("_TRACE2") - 1 + s] = '\0';
}

const char *tr2_sysenv_env_name(int id)
{
	struct row *r = &rows[id];

	if (!r->env[0])
		make_env_name(r->env, sizeof(r->env), r->suffix);
	return r->env;
}

int tr2_sysenv_env_taken(const char *upper_suffix)
{
	int i;

	for (i = 0; i < nrows; i++)
		if (rows[i].suffix[0] == '_' && !strcmp(rows[i].suffix + 1, upper_suffix))
			return 1;
	return 0;
}

/* a then b into out, cut to fit (the callers' never need cutting);
 * not snprintf(), for make_env_name()'s reason. */
static void join(char *out, size_t size, const char *a, const char *b)
{
	size_t na = strnlen(a, size - 1), nb = strnlen(b, size - 1 - na);

	memcpy(out, a, na);
	memcpy(out + na, b, nb);
	out[na + nb] = '\0';
}

static int add_row(const char *suffix, const char *key, enum tr2_parser parser)
{
	struct added *a;

	if (nrows == TR2_SYSENV_MAX)
		return -1;
	a = &added[nrows - TR2_SYSENV_BUILTIN_COUNT];
	join(a->suffix, sizeof(a->suffix), suffix, "");
	join(a->key, sizeof(a->key), key, "");
	rows[nrows].suffix = a->suffix;
	rows[nrows].key = a->key;
	rows[nrows].parser = parser;
	return nrows++;
}

int tr2_sysenv_add_target(const char *setting, int builtin, int *dst_id,
			  int *brief_id)
{
	char key[48], brief_key[48], suffix[48], brief_suffix[48];
	size_t i, len = strlen(setting);

	if (len > 32)
		return -1;
	join(key, sizeof(key), setting, "target");
	join(brief_key, sizeof(brief_key), setting, "brief");
	*dst_id = tr2_sysenv_id_of_config_key(key);
	*brief_id = tr2_sysenv_id_of_config_key(brief_key);
	if (builtin && (*dst_id >= 0 || *brief_id >= 0))
		return *dst_id >= 0 && *brief_id >= 0 ? 0 : -1;
	suffix[0] = '_';
	for (i = 0; i <= len; i++)
		suffix[i + 1] = (char)toupper((unsigned char)setting[i]);
	memcpy(brief_suffix, suffix, len + 1);
	memcpy(brief_suffix + len + 1, "_BRIEF", sizeof("_BRIEF"));
	if (*dst_id >= 0 || *brief_id >= 0 || nrows + 2 > TR2_SYSENV_MAX ||
	    tr2_sysenv_env_taken(suffix + 1) || tr2_sysenv_env_taken(brief_suffix + 1))
		return -1;
	*dst_id = add_row(suffix, key, TR2_PARSE_DESTINATION);
	*brief_id = add_row(brief_suffix, brief_key, TR2_PARSE_BOOL);
	return 0;
}

void tr2_sysenv_set_config(int id, const char *value)
{
	char *copy = tr2_strdup(value);

	tr2_mutex_lock(&cache_mutex);
	tr2_sys.free(from_config[id]);
	from_config[id] = copy;
	tr2_mutex_unlock(&cache_mutex);
}

void tr2_sysenv_clear_config(void)
{
	int i;

	tr2_mutex_lock(&cache_mutex);
	for (i = 0; i < TR2_SYSENV_MAX; i++) {
		tr2_sys.free(from_config[i]);
		from_config[i] = NULL;
	}
	tr2_mutex_unlock(&cache_mutex);
}

const char *tr2_sysenv_get(int id)
{
	const char *v;

	if (rows[id].live)
		return tr2_sys.getenv(tr2_sysenv_env_name(id));
	tr2_mutex_lock(&cache_mutex);
	if (!looked_up[id]) {
		v = tr2_sys.getenv(tr2_sysenv_env_name(id));
		cached[id] = v && *v ? tr2_strdup(v) : NULL;
		looked_up[id] = 1;
	}
	v = from_api[id] ? from_api[id] : cached[id] ? cached[id] : from_config[id];
	tr2_mutex_unlock(&cache_mutex);
	return v;
}

void tr2_sysenv_export(int id, const char *value)
{
	tr2_sys.setenv(tr2_sysenv_env_name(id), value, 1);
	if (id == TR2_SYSENV_PARENT_SID && !tr2_sysenv_prefix_is_git())
		tr2_sys.setenv("GIT_TRACE2_PARENT_SID", value, 1);
}

enum tr2_parser tr2_sysenv_parser(int id)
{
	return rows[id].parser;
}

int tr2_sysenv_set_api(int id, const char *value)
{
	char *copy = tr2_strdup(value);

	if (!copy)
		return -1;
	tr2_mutex_lock(&cache_mutex);
	tr2_sys.free(from_api[id]);
	from_api[id] = copy;
	tr2_mutex_unlock(&cache_mutex);
	return 0;
}

static int valid_prefix(const char *p)
{
	size_t i;

	for (i = 0; p[i]; i++)
		if (!isalnum((unsigned char)p[i]) && p[i] != '_')
			return 0;
	return i > 0 && i < sizeof(env_prefix);
}

/* Every name is made again, and every environment value read again,
 * under the new prefix. */
int tr2_sysenv_set_prefix(const char *prefix)
{
	int i;

	if (!prefix)
		prefix = "GIT";
	if (!valid_prefix(prefix))
		return -1;
	tr2_mutex_lock(&cache_mutex);
	join(env_prefix, sizeof(env_prefix), prefix, "");
	for (i = 0; i < TR2_SYSENV_MAX; i++) {
		rows[i].env[0] = '\0';
		tr2_sys.free(cached[i]);
		cached[i] = NULL;
		looked_up[i] = 0;
	}
	tr2_mutex_unlock(&cache_mutex);
	return 0;
}

int tr2_sysenv_prefix_is_git(void)
{
	return !strcmp(env_prefix, "GIT");
}

void tr2_sysenv_release(void)
{
	int i;

	tr2_mutex_lock(&cache_mutex);
	for (i = 0; i < TR2_SYSENV_MAX; i++) {
		tr2_sys.free(cached[i]);
		cached[i] = NULL;
		looked_up[i] = 0;
	}
	tr2_mutex_unlock(&cache_mutex);
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

int tr2_sysenv_bool(int id, int dflt)
{
	int b = tr2_parse_maybe_bool(tr2_sysenv_get(id));

	return b < 0 ? dflt : b;
}

int tr2_parse_atoi(const char *v)
{
	long long n = strtoll(v, NULL, 10); /* saturates where atoi() overflows */

	return n > INT_MAX ? INT_MAX : n < INT_MIN ? INT_MIN : (int)n;
}

int tr2_sysenv_int(int id, int dflt)
{
	const char *v = tr2_sysenv_get(id);

	return v ? tr2_parse_atoi(v) : dflt;
}

/* The setting as a whole number of milliseconds from 0 to max, or dflt
 * when unset or anything else. */
static long whole_ms(int id, long dflt, long max)
{
	const char *v = tr2_sysenv_get(id);
	char *end;
	long n;

	if (!v || !isdigit((unsigned char)*v))
		return dflt;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || n > max)
		return dflt;
	return n;
}

int tr2_sysenv_dst_timeout_ms(void)
{
	return (int)whole_ms(TR2_SYSENV_DST_TIMEOUT, TR2_DST_TIMEOUT_DEFAULT_MS,
			     TR2_DST_TIMEOUT_MAX_MS);
}

long tr2_sysenv_flight_slow_ms(void)
{
	return whole_ms(TR2_SYSENV_FLIGHT_SLOW, -1, INT_MAX);
}

int tr2_sysenv_ring_full_waits(void)
{
	const char *v = tr2_sysenv_get(TR2_SYSENV_RING_FULL);

	return v && !strcasecmp(v, "wait");
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
