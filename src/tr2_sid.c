#include "tr2_sid.h"
#include "tr2_clock.h"
#include "tr2_json.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t sid_mutex = PTHREAD_MUTEX_INITIALIZER;
static char *sid;
static char *sid_json;
static size_t sid_json_len;
static int sid_depth;

/* SHA-1 as specified in FIPS 180-4, just enough for a host name. */
static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(uint32_t h[5], const unsigned char *blk)
{
	uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
		       (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
	for (; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5A827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ED9EBA1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8F1BBCDC;
		} else {
			f = b ^ c ^ d;
			k = 0xCA62C1D6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
}

void tr2_sha1_hex8(const void *data, size_t len, char out[8])
{
	uint32_t h[5] = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0 };
	const unsigned char *p = data;
	unsigned char blk[64];
	uint64_t bits = (uint64_t)len * 8;
	size_t rest, i;

	for (; len >= 64; p += 64, len -= 64)
		sha1_block(h, p);
	memset(blk, 0, sizeof(blk));
	memcpy(blk, p, len);
	blk[len] = 0x80;
	rest = len + 1;
	if (rest > 56) {
		sha1_block(h, blk);
		memset(blk, 0, sizeof(blk));
	}
	for (i = 0; i < 8; i++)
		blk[63 - i] = (unsigned char)(bits >> (8 * i));
	sha1_block(h, blk);
	snprintf(out, 9, "%08x", h[0]);
}

/* "H<8 hex>" of the host name, or "Localhost". */
static void host_component(char out[10])
{
	char host[256];

	if (gethostname(host, sizeof(host))) {
		memcpy(out, "Localhost", 10);
		return;
	}
	host[sizeof(host) - 1] = '\0';
	out[0] = 'H';
	tr2_sha1_hex8(host, strlen(host), out + 1);
	out[9] = '\0';
}

static void compute_sid(void)
{
	const char *parent = getenv("GIT_TRACE2_PARENT_SID");
	char own[64], host[10], *full, *json;
	size_t plen = parent ? strlen(parent) : 0, olen, jlen;
	int depth = 0;

	tr2_fmt_sid_time(tr2_now_us(), own);
	host_component(host);
	snprintf(own + 23, sizeof(own) - 23, "-%s-P%08x", host,
		 (uint32_t)getpid());
	olen = strlen(own);
	full = malloc(plen + 1 + olen + 1);
	if (!full)
		return;
	if (plen) {
		const char *s;

		memcpy(full, parent, plen);
		full[plen] = '/';
		memcpy(full + plen + 1, own, olen + 1);
		for (s = parent, depth = 1; *s; s++)
			depth += *s == '/';
	} else
		memcpy(full, own, olen + 1);
	jlen = strlen(full);
	json = malloc(TR2_JSON_ESCAPED_MAX(jlen) + 1);
	if (!json) {
		free(full);
		return;
	}
	sid_json_len = tr2_json_escape(json, full, jlen);
	sid = full;
	sid_json = json;
	sid_depth = depth;
	setenv("GIT_TRACE2_PARENT_SID", sid, 1);
}

static void ensure_sid(void)
{
	pthread_mutex_lock(&sid_mutex);
	if (!sid)
		compute_sid();
	pthread_mutex_unlock(&sid_mutex);
}

const char *tr2_sid_get(void)
{
	ensure_sid();
	return sid ? sid : "";
}

const char *tr2_sid_json(size_t *len)
{
	ensure_sid();
	*len = sid ? sid_json_len : 0;
	return sid ? sid_json : "";
}

int tr2_sid_depth(void)
{
	ensure_sid();
	return sid_depth;
}

void tr2_sid_release(void)
{
	pthread_mutex_lock(&sid_mutex);
	free(sid);
	free(sid_json);
	sid = sid_json = NULL;
	sid_json_len = 0;
	sid_depth = 0;
	pthread_mutex_unlock(&sid_mutex);
}

const char *trace2_session_id(void)
{
	return tr2_sid_get();
}
