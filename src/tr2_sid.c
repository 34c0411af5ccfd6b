#include "trace2/target.h"
#include "tr2_sysenv.h"
#include "tr2_sys.h"
#include "tr2_sid.h"
#include "tr2_clock.h"
#include "tr2_json.h"
#include "tr2_buf.h"
#include "tr2_hot.h"

#include "tr2_plat.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Published once with release semantics, so readers need no lock. */
struct sid {
	struct trace2_process pub;
	char *text;
	char *json;
};

static tr2_mutex sid_mutex = TR2_MUTEX_INIT;
static struct sid *current_sid;

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
	*tr2_put_hex32(out, h[0]) = '\0';
}

/* "H<8 hex>" of the host name, or "Localhost". */
static void host_component(char out[10])
{
	char host[256];

	if (tr2_plat_hostname(host, sizeof(host))) {
		memcpy(out, "Localhost", 10);
		return;
	}
	host[sizeof(host) - 1] = '\0';
	out[0] = 'H';
	tr2_sha1_hex8(host, strlen(host), out + 1);
	out[9] = '\0';
}

static struct sid *compute_sid(void)
{
	const char *parent = tr2_sysenv_get(TR2_SYSENV_PARENT_SID);
	char own[64], host[10], *p;
	size_t plen = parent ? strlen(parent) : 0, olen, len;
	struct sid *sid = tr2_sys.calloc(1, sizeof(*sid));

	tr2_fmt_sid_time(tr2_now_us(), own);
	host_component(host);
	p = own + 23;
	*p++ = '-';
	p = tr2_put(p, host, strlen(host));
	p = tr2_put_lit(p, "-P");
	p = tr2_put_hex32(p, (uint32_t)tr2_plat_pid());
	*p = '\0';
	olen = (size_t)(p - own);
	len = plen + !!plen + olen;
	if (!sid || !(sid->text = tr2_sys.malloc(len + 1)) ||
	    !(sid->json = tr2_sys.malloc(TR2_JSON_ESCAPED_MAX(len) + 1))) {
		if (sid)
			tr2_sys.free(sid->text);
		tr2_sys.free(sid);
		return NULL;
	}
	if (plen) {
		const char *s;

		memcpy(sid->text, parent, plen);
		sid->text[plen] = '/';
		for (s = parent, sid->pub.depth = 1; *s; s++)
			sid->pub.depth += *s == '/';
	}
	memcpy(sid->text + plen + !!plen, own, olen + 1);
	sid->pub.sid = sid->text;
	sid->pub.sid_len = len;
	sid->pub.sid_json = sid->json;
	sid->pub.sid_json_len = tr2_json_escape(sid->json, sid->text, len);
	tr2_sysenv_export(TR2_SYSENV_PARENT_SID, sid->text);
	return sid;
}

void tr2_sid_after_fork(void)
{
	tr2_mutex_init(&sid_mutex);
}

static const struct sid *get_sid(void)
{
	struct sid *sid = __atomic_load_n(&current_sid, __ATOMIC_ACQUIRE);

	if (sid)
		return sid;
	tr2_mutex_lock(&sid_mutex);
	sid = current_sid;
	if (!sid) {
		sid = compute_sid();
		__atomic_store_n(&current_sid, sid, __ATOMIC_RELEASE);
	}
	tr2_mutex_unlock(&sid_mutex);
	return sid;
}

const char *tr2_sid_get(void)
{
	const struct sid *sid = get_sid();

	return sid ? sid->text : "";
}

TR2_HOT const struct trace2_process *tr2_sid_process(void)
{
	static const struct trace2_process none = { "", 0, "", 0, 0 };
	const struct sid *sid = get_sid();

	return sid ? &sid->pub : &none;
}

int tr2_sid_depth(void)
{
	return tr2_sid_process()->depth;
}

/* Only the atexit handler calls this, when no other thread traces. */
void tr2_sid_release(void)
{
	struct sid *sid;

	tr2_mutex_lock(&sid_mutex);
	sid = current_sid;
	__atomic_store_n(&current_sid, NULL, __ATOMIC_RELEASE);
	tr2_mutex_unlock(&sid_mutex);
	if (sid) {
		tr2_sys.free(sid->text);
		tr2_sys.free(sid->json);
		tr2_sys.free(sid);
	}
}

const char *trace2_session_id(void)
{
	return tr2_sid_get();
}
