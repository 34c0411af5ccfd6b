/*
 * Fuzzer: the values of the GIT_TRACE2_* settings.
 *
 * The input, up to its first NUL, is a value.  It goes through Git's
 * maybe-bool (tr2_parse_maybe_bool), the size parser of GIT_TRACE2_BUFFER
 * (tr2_parse_size), the atoi()-style (saturating) and boolean settings read from the
 * environment and from the config files (tr2_sysenv_*), the rate of
 * GIT_TRACE2_SAMPLE (tr2_sample_parse), the config key lookup and the
 * target classifier; each result is checked against what
 * docs/configuration.md says it must be.  The library reads the environment through
 * tr2_sys.getenv, which answers here from memory (setenv() would keep
 * every value ever set: glibc never frees them).
 */
#include "fuzz.h"
#include "tr2_dst.h"
#include "tr2_sample.h"
#include "tr2_sys.h"
#include "tr2_sysenv.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *(*real_getenv)(const char *name);
static const char *env_value; /* GIT_TRACE2_MAX_FILES and _DST_DEBUG */

static char *fake_getenv(const char *name)
{
	if (!strcmp(name, "GIT_TRACE2_MAX_FILES") || !strcmp(name, "GIT_TRACE2_DST_DEBUG"))
		return (char *)env_value;
	if (!strcmp(name, "GIT_TRACE2_BUFFER"))
		return NULL; /* read through the config below */
	return real_getenv(name);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	real_getenv = tr2_sys.getenv;
	tr2_sys.getenv = fake_getenv;
	return 0;
}

static int is_word(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (!strcasecmp(v, *words))
			return 1;
	return 0;
}

/* A plain integer (base 0, no unit) that fits an int: Git's value. */
static int plain_int(const char *v, int *out)
{
	char *end;
	intmax_t n;

	errno = 0;
	n = strtoimax(v, &end, 0);
	if (errno || end == v || *end || n < INT_MIN || n > INT_MAX)
		return 0;
	*out = (int)n;
	return 1;
}

static void check_maybe_bool(const char *v)
{
	static const char *const yes[] = { "true", "yes", "on", NULL };
	static const char *const no[] = { "false", "no", "off", NULL };
	int b = tr2_parse_maybe_bool(v), n;

	FZ_CHECK(b >= -1 && b <= 1);
	if (is_word(v, yes))
		FZ_CHECK(b == 1);
	else if (is_word(v, no))
		FZ_CHECK(b == 0);
	else if (plain_int(v, &n))
		FZ_CHECK(b == (n != 0));
	else if (!*v)
		FZ_CHECK(b == -1);
}

/* Digits, then at most one of k/m/g (any case), and nothing else. */
static void check_size(const char *v)
{
	size_t got = 0, factor = 1;
	unsigned long long n;
	char *end;
	int rc = tr2_parse_size(v, &got);

	FZ_CHECK(rc == 0 || rc == -1);
	if (!isdigit((unsigned char)v[0])) {
		FZ_CHECK(rc == -1);
		return;
	}
	errno = 0;
	n = strtoull(v, &end, 10);
	switch (*end) {
	case 'k': case 'K': factor = (size_t)1 << 10; end++; break;
	case 'm': case 'M': factor = (size_t)1 << 20; end++; break;
	case 'g': case 'G': factor = (size_t)1 << 30; end++; break;
	}
	if (errno || *end || n > SIZE_MAX / factor) {
		FZ_CHECK(rc == -1);
		return;
	}
	FZ_CHECK(rc == 0);
	FZ_CHECK(got == (size_t)n * factor);
}

/* atoi()'s reading, digit by digit, stopped at the int range's ends
 * instead of overflowing (the model of the integer settings). */
static int saturating_atoi(const char *v)
{
	long long n = 0;
	int neg = 0;

	while (isspace((unsigned char)*v))
		v++;
	if (*v == '+' || *v == '-')
		neg = *v++ == '-';
	for (; isdigit((unsigned char)*v) && n <= (long long)INT_MAX + 1; v++)
		n = n * 10 + (*v - '0');
	if (neg)
		return n > (long long)INT_MAX + 1 ? INT_MIN : (int)-n;
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* Environment first (when non-empty), then config, then the default. */
static void check_settings(const char *v)
{
	int b = tr2_parse_maybe_bool(v);
	const char *got;

	env_value = v;
	tr2_sysenv_release();
	FZ_CHECK(tr2_sysenv_int(TR2_SYSENV_MAX_FILES, -77) == (*v ? saturating_atoi(v) : -77));
	FZ_CHECK(tr2_sysenv_bool(TR2_SYSENV_DST_DEBUG, 5) == (*v && b >= 0 ? b : 5));
	env_value = NULL;
	tr2_sysenv_release();

	tr2_sysenv_set_config(TR2_SYSENV_BUFFER, v);
	got = tr2_sysenv_get(TR2_SYSENV_BUFFER);
	FZ_CHECK(got && !strcmp(got, v));
	FZ_CHECK(tr2_sysenv_int(TR2_SYSENV_BUFFER, -77) == saturating_atoi(v));
	tr2_sysenv_clear_config();
	FZ_CHECK(tr2_sysenv_get(TR2_SYSENV_BUFFER) == NULL);
	FZ_CHECK(tr2_sysenv_int(TR2_SYSENV_BUFFER, -77) == -77);
}

/* A rate: an optional 0 or 1, an optional point and up to 18 digits, a
 * digit at least, in (0, 1]; said as "1", or "0." and its digits without
 * the trailing zeros; its threshold rate x 2^64. */
static void check_rate(const char *v)
{
	struct tr2_sample_rate r;
	int rc = tr2_sample_parse(v, &r), lead = -1, ok;
	const char *p = v, *frac = p;
	size_t n = 0, last = 0, i;
	char said[24];

	if (*p == '0' || *p == '1')
		lead = *p++ - '0';
	if (*p == '.') {
		frac = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		n = (size_t)(p - frac);
	}
	for (i = 0; i < n; i++)
		if (frac[i] != '0')
			last = i + 1;
	ok = !*p && (lead >= 0 || n) && n <= 18 && (lead == 1 ? !last : last > 0);
	FZ_CHECK(rc == (ok ? 0 : -1));
	if (!ok)
		return;
	FZ_CHECK(r.all == (lead == 1));
	if (lead == 1) {
		FZ_CHECK(!strcmp(r.text, "1"));
		return;
	}
	snprintf(said, sizeof(said), "0.%.*s", (int)last, frac);
	FZ_CHECK(!strcmp(r.text, said));
	FZ_CHECK(fabs(ldexp((double)r.threshold, -64) - strtod(said, NULL)) <= ldexp(1, -52));
}

static void check_names(const char *v)
{
	int id = tr2_sysenv_id_of_config_key(v);
	enum tr2_dst_form form = tr2_dst_classify(v);

	FZ_CHECK(id >= -1 && id < tr2_sysenv_count());
	FZ_CHECK(form >= TR2_DST_OFF && form <= TR2_DST_UNKNOWN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *v = fz_cstr(data, size);

	check_maybe_bool(v);
	check_size(v);
	check_settings(v);
	check_rate(v);
	check_names(v);
	free(v);
	return 0;
}
