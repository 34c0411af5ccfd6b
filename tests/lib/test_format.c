/*
 * The hand-written formatters of the hot path against libc as the oracle:
 * integers and "%9.6f" against snprintf, UTC and local times against
 * gmtime_r/localtime_r, JSON escaping against a byte-by-byte reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tr2_buf.h"
#include "tr2_clock.h"
#include "tr2_json.h"
#include "tutf8.h"

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void integers_match_printf(void **state)
{
	uint64_t seed = 88172645463325252ull, i;
	char got[64], want[64], *end;

	(void)state;
	for (i = 0; i < 200000; i++) {
		uint64_t v = next_random(&seed) >> (i % 64);

		end = tr2_put_u64(got, v);
		*end = '\0';
		snprintf(want, sizeof(want), "%" PRIu64, v);
		assert_string_equal(got, want);
		end = tr2_put_i64(got, (int64_t)v);
		*end = '\0';
		snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
		assert_string_equal(got, want);
	}
	end = tr2_put_i64(got, INT64_MIN);
	*end = '\0';
	assert_string_equal(got, "-9223372036854775808");
}

static void hex32_matches_printf(void **state)
{
	uint64_t seed = 7654321;
	char got[16], want[16];
	int i;

	(void)state;
	for (i = 0; i < 200000; i++) {
		uint32_t v = (uint32_t)(next_random(&seed) >> (i % 32));

		*tr2_put_hex32(got, v) = '\0';
		snprintf(want, sizeof(want), "%08x", v);
		assert_string_equal(got, want);
	}
}

static void seconds_match_printf(void **state)
{
	static const size_t widths[] = { 0, 9 };
	uint64_t seed = 1234567, i;
	char got[64], want[64], *end;
	size_t w;

	(void)state;
	for (i = 0; i < 200000; i++) {
		/* below 2^32 seconds a double still resolves microseconds, so
		 * printf's rounding gives the exact decimal */
		uint64_t us = (next_random(&seed) >> (12 + i % 40)) % (4294967296ull * 1000000);

		for (w = 0; w < 2; w++) {
			end = tr2_put_seconds(got, us, widths[w]);
			*end = '\0';
			snprintf(want, sizeof(want), "%*.6f", (int)widths[w], (double)us / 1e6);
			assert_string_equal(got, want);
		}
	}
}

static void utc_time_matches_gmtime(void **state)
{
	struct tr2_time_cache c;
	char got[TR2_UTC_TIME_LEN + 1], want[64];
	int64_t s;

	(void)state;
	/* Past a 32-bit time_t's end (2^31 s), which gmtime_r() cannot
	 * check there: the formatter's arithmetic is 64-bit everywhere. */
	tr2_time_cache_init(&c);
	tr2_fmt_utc_time(&c, 2147483648ULL * 1000000 + 4321, got);
	got[TR2_UTC_TIME_LEN] = '\0';
	assert_string_equal(got, "2038-01-19T03:14:08.004321Z");
	tr2_fmt_utc_time(&c, 4102444800ULL * 1000000 + 4321, got);
	assert_string_equal(got, "2100-01-01T00:00:00.004321Z");
	for (s = 0; s < 4102444800LL; s += 86400 / 3 + 7919) {
		time_t t = (time_t)s;
		struct tm tm;

		if ((int64_t)t != s)
			break; /* 32-bit time_t: checked above */
		tr2_time_cache_init(&c);
		tr2_fmt_utc_time(&c, (uint64_t)s * 1000000 + 4321, got);
		got[TR2_UTC_TIME_LEN] = '\0';
		gmtime_r(&t, &tm);
		snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.004321Z",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
			 tm.tm_min, tm.tm_sec);
		assert_string_equal(got, want);
	}
}

static void local_time_matches_localtime(void **state)
{
	struct tr2_time_cache c;
	char got[TR2_LOCAL_TIME_LEN + 1], want[64];
	int64_t s;

	(void)state;
	tr2_time_cache_init(&c);
	for (s = 1700000000; s < 1700000000 + 3 * 86400; s += 997) {
		time_t t = (time_t)s;
		struct tm tm;

		tr2_fmt_local_time(&c, (uint64_t)s * 1000000 + 999999, got);
		got[TR2_LOCAL_TIME_LEN] = '\0';
		localtime_r(&t, &tm);
		snprintf(want, sizeof(want), "%02d:%02d:%02d.999999", tm.tm_hour,
			 tm.tm_min, tm.tm_sec);
		assert_string_equal(got, want);
	}
}

/* The obvious byte-at-a-time escaper, for comparison. */
static size_t reference_escape(char *out, const unsigned char *s, size_t len)
{
	static const char *const named[32] = {
		['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n", ['\f'] = "\\f", ['\r'] = "\\r",
	};
	char *p = out;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
			i++;
		} else if (c < 0x20) {
			p += named[c] ? (size_t)sprintf(p, "%s", named[c])
				      : (size_t)sprintf(p, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			*p++ = (char)c;
			i++;
		} else {
			/* valid UTF-8 as it is, any other byte as U+FFFD */
			size_t n = tutf8_seq(s + i, len - i);

			if (n) {
				memcpy(p, s + i, n);
				p += n;
				i += n;
			} else {
				memcpy(p, "\xEF\xBF\xBD", 3);
				p += 3;
				i++;
			}
		}
	}
	return (size_t)(p - out);
}

static void json_escape_matches_reference(void **state)
{
	static const unsigned char alphabet[] = "ab\"\\\n\x01\x1f\x7f\xc3\xa9\xe2\x82\xac"
						"\xf0\x9f\x98\x80\xed\xa0\x80\xc0\xff";
	unsigned char in[40];
	char got[TR2_JSON_ESCAPED_MAX(40)], want[TR2_JSON_ESCAPED_MAX(40)];
	uint64_t seed = 42, i;

	(void)state;
	for (i = 0; i < 300000; i++) {
		size_t len = next_random(&seed) % sizeof(in), k, n, m;

		for (k = 0; k < len; k++) {
			uint64_t r = next_random(&seed);
			/* mostly plain text, so the 8-byte fast path is exercised */
			in[k] = r % 4 ? (unsigned char)('a' + r % 26)
				      : alphabet[r % (sizeof(alphabet) - 1)];
		}
		n = tr2_json_escape(got, (const char *)in, len);
		m = reference_escape(want, in, len);
		assert_int_equal(n, m);
		assert_memory_equal(got, want, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers_match_printf),
		cmocka_unit_test(hex32_matches_printf),
		cmocka_unit_test(seconds_match_printf),
		cmocka_unit_test(utc_time_matches_gmtime),
		cmocka_unit_test(local_time_matches_localtime),
		cmocka_unit_test(json_escape_matches_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
