#include "tr2_tgt.h"
#include "tr2_hot.h"

int tr2_tgt_open(void *ctx, const struct trace2_target_config *config)
{
	struct tr2_tgt_state *st = ctx;

	st->dst = tr2_dst_of(config->output);
	st->brief = config->brief;
	return 0;
}

TR2_HOT void tr2_tgt_emit(struct tr2_dst *dst, struct tr2_buf *b, uint64_t us_now)
{
	if (b->len && b->p[b->len - 1] != '\n')
		tr2_buf_addc(b, '\n');
	if (!b->failed && tr2_dst_is_on(dst))
		tr2_dst_write(dst, b->p, b->len, us_now);
	tr2_buf_release(b);
}

int trace2_output_write(struct trace2_output *out, const void *record,
			size_t len, const struct trace2_event *ev)
{
	struct tr2_dst *dst = tr2_dst_of(out);

	if (!dst || !tr2_dst_is_on(dst))
		return -1;
	tr2_dst_write(dst, record, len, ev ? ev->time_us : tr2_now_us());
	return tr2_dst_is_on(dst) ? 0 : -1;
}

int trace2_output_set_head(struct trace2_output *out, const void *head, size_t len)
{
	struct tr2_dst *dst = tr2_dst_of(out);

	return dst ? tr2_dst_set_head(dst, head, len) : -1;
}

TR2_HOT void tr2_json_add_str(struct tr2_buf *b, const char *key, size_t key_len,
			      const char *value)
{
	tr2_buf_add(b, key, key_len);
	tr2_buf_add_json_str(b, value);
}

TR2_HOT void tr2_json_add_int(struct tr2_buf *b, const char *key, size_t key_len,
			      int64_t v)
{
	tr2_buf_add(b, key, key_len);
	tr2_buf_add_i64(b, v);
}

TR2_HOT void tr2_json_add_seconds(struct tr2_buf *b, const char *key, size_t key_len,
				  uint64_t us)
{
	tr2_buf_add(b, key, key_len);
	tr2_buf_add_seconds(b, us, 0);
}

TR2_HOT char *tr2_json_put_opt_str(char *p, const char *key, size_t key_len,
				   const char *value, size_t len)
{
	if (!value)
		return p;
	p = tr2_put(p, key, key_len);
	return tr2_put_json_str(p, value, len);
}

void tr2_json_add_argv(struct tr2_buf *b, const char *const *argv, int git_cmd)
{
	size_t i;

	tr2_buf_addc(b, '[');
	if (git_cmd)
		tr2_buf_addlit(b, "\"git\"");
	for (i = 0; argv && argv[i]; i++) {
		if (i || git_cmd)
			tr2_buf_addc(b, ',');
		tr2_buf_add_json_str(b, argv[i]);
	}
	tr2_buf_addc(b, ']');
}

/* A pretty writer's text with each newline and the indentation after it
 * removed. */
static void add_compacted(struct tr2_buf *b, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (s[i] == '\n') {
			for (i++; i < len && s[i] == ' '; i++)
				;
			continue;
		}
		tr2_buf_addc(b, s[i++]);
	}
}

void tr2_json_add_data_value(struct tr2_buf *b, const struct trace2_ev_data *d)
{
	if (!d->json_len)
		tr2_buf_addlit(b, "null");
	else if (d->json_pretty)
		add_compacted(b, d->json, d->json_len);
	else
		tr2_buf_add(b, d->json, d->json_len);
}

TR2_HOT void tr2_tmpl_region_key(struct tr2_tmpl_key *key, const struct trace2_event *ev,
				 int brief, size_t cat_max)
{
	const struct trace2_ev_region *r = &ev->region;

	tr2_tmpl_key_init(key);
	tr2_tmpl_key_num(key, 0, ev->kind);
	tr2_tmpl_key_num(key, 1, ev->line);
	tr2_tmpl_key_num(key, 2, ev->thread->id);
	tr2_tmpl_key_num(key, 3, (int64_t)ev->nesting);
	tr2_tmpl_key_num(key, 4, r->repo_id);
	tr2_tmpl_key_num(key, 5, brief);
	tr2_tmpl_key_str(key, 0, ev->file, ev->file ? tr2_strlen(ev->file) : 0);
	tr2_tmpl_key_str(key, 1, r->category,
			 r->category ? tr2_strnlen(r->category, cat_max) : 0);
	tr2_tmpl_key_str(key, 2, r->label, r->label ? tr2_strlen(r->label) : 0);
}

/* Whether n bytes at a and b are the same, in overlapping 8- or 4-byte
 * loads (n is short: a name, a label). */
static TR2_HOT int same_bytes(const char *a, const char *b, size_t n)
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

/* The set of a key: its call site (file address, line), kind, thread
 * and nesting, mixed. */
static TR2_HOT struct tr2_tmpl *set_of(struct tr2_tmpl_cache *cache,
				       const struct tr2_tmpl_key *key, size_t *set)
{
	const int32_t *num = key->fixed.num;
	uint64_t h = (uint64_t)(uintptr_t)key->str[0] ^ ((uint64_t)(uint32_t)num[0] << 32) ^
		     ((uint64_t)(uint32_t)num[1] << 40) ^ ((uint64_t)(uint32_t)num[2] << 48) ^
		     (uint32_t)num[3];

	*set = (size_t)((h * 0x9e3779b97f4a7c15ull) >> 40) % TR2_TMPL_SETS;
	return cache->slot[*set];
}

/* The fixed parts compared a word at a time, the first word (the kind
 * and the line) telling most other call sites apart. */
static TR2_HOT int same_fixed(const struct tr2_tmpl_fixed *a, const struct tr2_tmpl_fixed *b)
{
	uint64_t x, y;
	size_t i;

#pragma GCC unroll 8
	for (i = 0; i < sizeof(*a); i += 8) {
		memcpy(&x, (const char *)a + i, 8);
		memcpy(&y, (const char *)b + i, 8);
		if (x != y)
			return 0;
	}
	return 1;
}

static TR2_HOT int matches(const struct tr2_tmpl *t, const struct tr2_tmpl_key *key)
{
	const char *s = t->bytes;
	int i;

	if (!same_fixed(&t->fixed, &key->fixed))
		return 0;
#pragma GCC unroll 8
	for (i = 0; i < TR2_TMPL_STRS; i++) {
		if (!same_bytes(s, key->str[i], key->fixed.len[i]))
			return 0;
		s += key->fixed.len[i];
	}
	return 1;
}

TR2_HOT const struct tr2_tmpl *tr2_tmpl_find(struct tr2_tmpl_cache *cache,
					     const struct tr2_tmpl_key *key)
{
	size_t set;
	struct tr2_tmpl *way = set_of(cache, key, &set);
	int i;

	if (!key->fixed.nulls)
		return NULL;
	/* the way used last first: a loop's next record is often its */
	i = cache->recent[set];
	if (matches(&way[i], key))
		return &way[i];
	i = (i + 1) % TR2_TMPL_WAYS;
	if (matches(&way[i], key)) {
		cache->recent[set] = (unsigned char)i;
		return &way[i];
	}
	return NULL;
}

void tr2_tmpl_keep(struct tr2_tmpl_cache *cache, const struct tr2_tmpl_key *key,
		   const char *const seg[TR2_TMPL_SEGS],
		   const size_t seg_len[TR2_TMPL_SEGS])
{
	size_t set, need = 0, n = 0;
	struct tr2_tmpl *way = set_of(cache, key, &set);
	unsigned char victim = (unsigned char)(cache->recent[set] + 1) % TR2_TMPL_WAYS;
	struct tr2_tmpl *t = &way[victim];
	int i;

	for (i = 0; i < TR2_TMPL_STRS; i++)
		need += key->fixed.len[i];
	for (i = 0; i < TR2_TMPL_SEGS; i++)
		need += seg_len[i];
	if (!key->fixed.nulls || need > TR2_TMPL_BYTES)
		return;
	for (i = 0; i < TR2_TMPL_STRS; i++) {
		if (key->fixed.len[i])
			memcpy(t->bytes + n, key->str[i], key->fixed.len[i]);
		n += key->fixed.len[i];
	}
	t->strs_len = (uint16_t)n;
	for (i = 0; i < TR2_TMPL_SEGS; i++) {
		t->seg_len[i] = (uint16_t)seg_len[i];
		memcpy(t->bytes + n, seg[i], seg_len[i]);
		n += seg_len[i];
	}
	t->fixed = key->fixed;
	cache->recent[set] = victim;
}
