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

int trace2_output_set_full_line(struct trace2_output *out, trace2_output_full_line_fn *fn)
{
	struct tr2_dst *dst = tr2_dst_of(out);

	if (!dst)
		return -1;
	tr2_dst_set_full_line(dst, fn);
	return 0;
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
