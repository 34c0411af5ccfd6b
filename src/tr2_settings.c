/*
 * The host's own settings (trace2_config_set()): the key is matched as a
 * config file's "trace2.<name>" (section and name in any case), and the
 * value must be one the setting's parser can read, so a mistake shows at
 * the call instead of as a target that silently stays off.
 */
#include "tr2_settings.h"
#include "tr2_dst.h"
#include "tr2_sample.h"
#include "tr2_sysenv.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <strings.h>

/* The row of "trace2.<name>", or -1. */
static int row_of_key(const char *key)
{
	char name[64];
	size_t i;

	if (!key || strncasecmp(key, "trace2.", 7))
		return -1;
	key += 7;
	for (i = 0; key[i]; i++) {
		if (i + 1 == sizeof(name) ||
		    !(isalnum((unsigned char)key[i]) || key[i] == '-'))
			return -1;
		name[i] = (char)tolower((unsigned char)key[i]);
	}
	name[i] = '\0';
	return tr2_sysenv_id_of_config_key(name);
}

/* What atoi() reads: optional blanks and sign, then at least one digit. */
static int reads_as_int(const char *v)
{
	while (isspace((unsigned char)*v))
		v++;
	if (*v == '+' || *v == '-')
		v++;
	return isdigit((unsigned char)*v);
}

static int value_ok(enum tr2_parser parser, const char *v)
{
	struct tr2_sample_rate rate;
	size_t size;

	switch (parser) {
	case TR2_PARSE_DESTINATION:
		return tr2_dst_classify(v) != TR2_DST_UNKNOWN;
	case TR2_PARSE_BOOL:
	case TR2_PARSE_ENV_BOOL:
		return tr2_parse_maybe_bool(v) >= 0;
	case TR2_PARSE_INT:
		return reads_as_int(v);
	case TR2_PARSE_SIZE:
		return !tr2_parse_size(v, &size);
	case TR2_PARSE_RATE:
		return !tr2_sample_parse(v, &rate);
	default:
		return 1;
	}
}

int tr2_settings_set(const char *key, const char *value)
{
	int id = row_of_key(key);

	if (id < 0 || !value || !value_ok(tr2_sysenv_parser(id), value))
		return EINVAL;
	return tr2_sysenv_set_api(id, value) ? ENOMEM : 0;
}
