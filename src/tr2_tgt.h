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

/*
 * Call-site templates.  Between two records of the same call site, thread
 * and nesting most of a perf or event line is the same bytes: location,
 * thread, event name, category, label and the constant keys around them.
 * A target keeps those bytes once, as a template of up to three segments
 * with the varying parts (times) in the holes between them, and a record
 * that hits copies the segments and formats only the holes and what
 * follows (the message).
 *
 * A template is found by a key: the numbers the text depends on and the
 * strings it was made from.  The API's strings have no lifetime
 * guarantee, so every string is compared by content (its length and
 * bytes, against a copy in the slot), never trusted by pointer; the
 * pointers only choose the set.  The key names the record's thread, not
 * the calling OS thread, so a thread formatting other threads' records
 * (a writer thread, the converter) gets their own templates.
 *
 * Each target has a cache per OS thread in thread-local storage: a small
 * 2-way set-associative array (TR2_TMPL_SETS x TR2_TMPL_WAYS slots of
 * ~380 bytes), the least recently used way replaced; nothing allocated,
 * no growth with the number of call sites.  Only region records use it,
 * never a signal handler's record, so a handler never finds a slot
 * half-written.
 */
#define TR2_TMPL_NUMS 8  /* numbers of a key; unused ones 0 */
#define TR2_TMPL_STRS 5  /* strings of a key */
#define TR2_TMPL_SEGS 3
#define TR2_TMPL_BYTES 320 /* a slot's key strings and text together */
#define TR2_TMPL_SETS 4
#define TR2_TMPL_WAYS 2

/* What a key and its slot compare as one block: the numbers, which
 * strings are NULL, and the lengths of the others. */
struct tr2_tmpl_fixed {
	int32_t num[TR2_TMPL_NUMS];
	uint32_t nulls;                 /* bit i: string i is NULL; bit 31 set */
	uint16_t len[TR2_TMPL_STRS];    /* 0 for NULL */
	uint16_t unused;
};

struct tr2_tmpl_key {
	struct tr2_tmpl_fixed fixed;
	const char *str[TR2_TMPL_STRS];
};

struct tr2_tmpl {
	struct tr2_tmpl_fixed fixed;    /* all 0: an empty slot */
	uint16_t seg_len[TR2_TMPL_SEGS];
	uint16_t strs_len;              /* where the text starts in bytes */
	char bytes[TR2_TMPL_BYTES];     /* the strings, then the segments */
};

struct tr2_tmpl_cache {
	struct tr2_tmpl slot[TR2_TMPL_SETS][TR2_TMPL_WAYS];
	unsigned char recent[TR2_TMPL_SETS]; /* the way used last */
};

/* A key with no numbers and no strings yet. */
static inline void tr2_tmpl_key_init(struct tr2_tmpl_key *key)
{
	memset(&key->fixed, 0, sizeof(key->fixed));
	key->fixed.nulls = 1u << 31;
}

/* Number i of a key; one that does not fit leaves the key unusable. */
static inline void tr2_tmpl_key_num(struct tr2_tmpl_key *key, int i, int64_t v)
{
	key->fixed.num[i] = (int32_t)v;
	if (v != key->fixed.num[i])
		key->fixed.nulls = 0;
}

/* String i of a key and its length (ignored for NULL); a string longer
 * than any slot leaves the key unusable (it never matches nor is kept). */
static inline void tr2_tmpl_key_str(struct tr2_tmpl_key *key, int i, const char *s,
				    size_t len)
{
	key->str[i] = s;
	if (!s)
		key->fixed.nulls |= 1u << i;
	else if (len > TR2_TMPL_BYTES)
		key->fixed.nulls = 0;
	else
		key->fixed.len[i] = (uint16_t)len;
}

/* The key of a region record: numbers 0-5 (kind, line, thread id,
 * nesting, repo, brief) and strings 0-2 (file, the first cat_max bytes of
 * the category, label); the target adds what else its text shows. */
void tr2_tmpl_region_key(struct tr2_tmpl_key *key, const struct trace2_event *ev,
			 int brief, size_t cat_max);

/* A template's segment i. */
static inline const char *tr2_tmpl_seg(const struct tr2_tmpl *t, int i)
{
	const char *p = t->bytes + t->strs_len;

	while (i--)
		p += t->seg_len[i];
	return p;
}

/* The template of key in cache, or NULL. */
const struct tr2_tmpl *tr2_tmpl_find(struct tr2_tmpl_cache *cache,
				     const struct tr2_tmpl_key *key);
/* Keep the segments seg[i] (seg_len[i] bytes) as key's template, in place
 * of the set's least recently used one; nothing if they do not fit. */
void tr2_tmpl_keep(struct tr2_tmpl_cache *cache, const struct tr2_tmpl_key *key,
		   const char *const seg[TR2_TMPL_SEGS],
		   const size_t seg_len[TR2_TMPL_SEGS]);

#endif
