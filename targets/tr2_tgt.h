/*
 * What the built-in targets share: their state (the ctx they are
 * registered with), handing a record to the destination, and the
 * vocabulary of JSON records.  Each target is one file in targets/ on the
 * public interface of include/trace2/target.h.
 */
#ifndef TR2_TGT_H
#define TR2_TGT_H

#include <stdint.h>
#include <string.h>

#include "trace2/target.h"
#include "tr2_buf.h"
#include "tr2_dst.h"
#include "tr2_event.h"
#include "tr2_json.h"

/* A built-in target's ctx. */
struct tr2_tgt_state {
	struct tr2_dst *dst;
	int brief;
	size_t max_nesting; /* the event target's nesting filter */
};

/* open() of the built-in targets: keep the destination and brief mode. */
int tr2_tgt_open(void *ctx, const struct trace2_target_config *config);

/* The write handle of a destination, and back. */
static inline struct trace2_output *tr2_output_of(struct tr2_dst *dst)
{
	return (struct trace2_output *)(void *)dst;
}
static inline struct tr2_dst *tr2_dst_of(struct trace2_output *out)
{
	return (struct tr2_dst *)(void *)out;
}

/* Hand a finished record of the event at us_now to the destination
 * (appends the LF if missing) and release the buffer. */
void tr2_tgt_emit(struct tr2_dst *dst, struct tr2_buf *b, uint64_t us_now);

/* Whether n bytes at a and b are the same, in overlapping 8- or 4-byte
 * loads, inline (n is short: a name, a label). */
static inline int tr2_same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;
	size_t i;

	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return 0;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		x = u ^ v;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return !(x | (u ^ v));
	}
	return !n || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/* The repository column's value of a record (TRACE2_NO_REPO: none). */
static inline int tr2_tgt_has_repo(int repo_id)
{
	return repo_id != TRACE2_NO_REPO;
}

/*
 * JSON records: ,"<key>":<value> with the key a trusted literal, so
 * "<,"key":>" is one literal of known length.
 */
#define TR2_JSON_KEY_LIT(k) ",\"" k "\":", sizeof(",\"" k "\":") - 1
#define TR2_JSON_KEY(b, k) tr2_buf_add((b), TR2_JSON_KEY_LIT(k))
void tr2_json_add_str(struct tr2_buf *b, const char *key, size_t key_len,
		      const char *value);
void tr2_json_add_int(struct tr2_buf *b, const char *key, size_t key_len, int64_t v);
void tr2_json_add_seconds(struct tr2_buf *b, const char *key, size_t key_len,
			  uint64_t us);
/* A string member only when value is not NULL (raw writer form). */
char *tr2_json_put_opt_str(char *p, const char *key, size_t key_len,
			   const char *value, size_t len);
#define TR2_JSON_STR(b, k, v) tr2_json_add_str((b), TR2_JSON_KEY_LIT(k), (v))
#define TR2_JSON_INT(b, k, v) tr2_json_add_int((b), TR2_JSON_KEY_LIT(k), (v))
#define TR2_JSON_SECS(b, k, us) tr2_json_add_seconds((b), TR2_JSON_KEY_LIT(k), (us))
#define TR2_JSON_OPT_STR(p, k, v, len) \
	tr2_json_put_opt_str((p), TR2_JSON_KEY_LIT(k), (v), (len))
/* A JSON array of the strings of argv, "git" first when git_cmd. */
void tr2_json_add_argv(struct tr2_buf *b, const char *const *argv, int git_cmd);
/* The JSON value of a data_json record on one line ("null" for none; a
 * pretty writer's text without its newlines and indentation). */
void tr2_json_add_data_value(struct tr2_buf *b, const struct trace2_ev_data *d);

#endif
