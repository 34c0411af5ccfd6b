#include "tr2_sample.h"
#include "tr2_diag.h"
#include "tr2_sid.h"
#include "tr2_sysenv.h"

#include <string.h>

/* More fraction digits than this would overflow 10^digits in 64 bits. */
#define MAX_FRACTION_DIGITS 18

#define FNV1A64_OFFSET 0xcbf29ce484222325ull
#define FNV1A64_PRIME 0x100000001b3ull

static struct tr2_sample_rate current;

/*
 * FNV-1a's last bytes reach its high bits only weakly (roots that differ
 * in a pid's last digit would decide alike), and the verdict reads the
 * high bits first: MurmurHash3's 64-bit finalizer mixes every bit into
 * every other.
 */
static uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

uint64_t tr2_sample_hash(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = FNV1A64_OFFSET;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= FNV1A64_PRIME;
	}
	return fmix64(h);
}

/*
 * ceil(num * 2^64 / den) for num < den <= 10^18, by long division (den
 * fits in 60 bits, so the remainder doubled never overflows): the
 * smallest hash that is not below rate * 2^64, exactly.
 */
static uint64_t threshold_of(uint64_t num, uint64_t den)
{
	uint64_t q = 0, r = num;
	int i;

	for (i = 0; i < 64; i++) {
		r <<= 1;
		q <<= 1;
		if (r >= den) {
			r -= den;
			q |= 1;
		}
	}
	return q + (r != 0); /* q <= 2^64 - 19 here: no overflow */
}

/* The fraction digits of v (after its optional 0 or 1 and its point)
 * without trailing zeros, as num / 10^digits; -1 if v is not a rate's
 * text. */
static int read_fraction(const char *v, int *one, uint64_t *num, int *digits)
{
	int n = 0, kept = 0, any = 0;

	*one = *v == '1';
	if (*v == '0' || *v == '1') {
		v++;
		any = 1;
	}
	*num = 0;
	if (*v == '.')
		for (v++; *v >= '0' && *v <= '9'; v++, any = 1) {
			if (++n > MAX_FRACTION_DIGITS)
				return -1;
			*num = *num * 10 + (uint64_t)(*v - '0');
			if (*v != '0')
				kept = n;
		}
	if (*v || !any)
		return -1;
	while (n > kept) {
		*num /= 10;
		n--;
	}
	*digits = n;
	return 0;
}

int tr2_sample_parse(const char *v, struct tr2_sample_rate *out)
{
	uint64_t num, den = 1;
	int one, digits, i;

	/* a 1 with a fraction that is not zero, or a 0 with one that is */
	if (!v || read_fraction(v, &one, &num, &digits) || one == !!num)
		return -1;
	memset(out, 0, sizeof(*out));
	if (one) {
		out->all = 1;
		memcpy(out->text, "1", 2);
		return 0;
	}
	out->text[0] = '0';
	out->text[1] = '.';
	for (i = digits; i > 0; i--) {
		out->text[1 + i] = (char)('0' + num / den % 10);
		den *= 10;
	}
	out->threshold = threshold_of(num, den);
	return 0;
}

int tr2_sample_keeps(const struct tr2_sample_rate *r, const char *sid)
{
	return r->all || tr2_sample_hash(sid, strcspn(sid, "/")) < r->threshold;
}

enum tr2_sample_verdict tr2_sample_decide(void)
{
	const char *v = tr2_sysenv_get(TR2_SYSENV_SAMPLE);

	if (!v)
		return TR2_SAMPLE_UNSET;
	if (tr2_sample_parse(v, &current)) {
		tr2_warning("trace2: unknown value for '%s': '%s'",
			    tr2_sysenv_env_name(TR2_SYSENV_SAMPLE), v);
		return TR2_SAMPLE_UNSET;
	}
	return tr2_sample_keeps(&current, tr2_sid_get()) ? TR2_SAMPLE_KEPT : TR2_SAMPLE_DROPPED;
}

const char *tr2_sample_rate_text(void)
{
	return current.text;
}
