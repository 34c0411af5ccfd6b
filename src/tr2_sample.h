/*
 * Sampling by command tree (GIT_TRACE2_SAMPLE / trace2.sample): whether
 * this process's tree is kept, a pure function of the tree's root SID
 * and the rate, so that every process of one tree decides alike
 * (docs/configuration.md, "Sampling").
 */
#ifndef TR2_SAMPLE_H
#define TR2_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* A rate in (0, 1], read exactly from its decimal text. */
struct tr2_sample_rate {
	uint64_t threshold; /* a root whose hash is below it is kept */
	int all;            /* the rate is 1: every tree is kept */
	char text[24];      /* "1" or "0.<digits>", no trailing zero */
};

/* A rate from "0.25", ".5", "1", "1.0" (an optional 0 or 1, then an
 * optional point and up to 18 digits) in (0, 1]; 0, or -1 for anything
 * else. */
int tr2_sample_parse(const char *v, struct tr2_sample_rate *out);
/* FNV-1a, 64 bits, of len bytes, then MurmurHash3's fmix64. */
uint64_t tr2_sample_hash(const void *data, size_t len);
/* Whether the tree whose chain of SIDs is sid (its root: up to the first
 * '/') is kept at rate r. */
int tr2_sample_keeps(const struct tr2_sample_rate *r, const char *sid);

enum tr2_sample_verdict {
	TR2_SAMPLE_UNSET,   /* no sampling: everything as without the setting */
	TR2_SAMPLE_KEPT,    /* the tree is kept: trace, and say at what rate */
	TR2_SAMPLE_DROPPED, /* the tree is sampled out: trace nothing */
};
/* The setting's verdict for this process (a bad value warns once per
 * call and counts as unset); the SID is computed, and exported for
 * children, unless the setting is unset. */
enum tr2_sample_verdict tr2_sample_decide(void);
/* The rate of the last verdict that was not unset, as text. */
const char *tr2_sample_rate_text(void);

#endif
