#include "tr2_tgt.h"
#include "tr2_hot.h"

TR2_HOT const char *tr2_ev_local_time(struct tr2_ev *ev)
{
	if (!ev->has_local_time) {
		tr2_fmt_local_time(&ev->tls->times, ev->us_now, ev->local_time);
		ev->has_local_time = 1;
	}
	return ev->local_time;
}

TR2_HOT const char *tr2_ev_utc_time(struct tr2_ev *ev)
{
	if (!ev->has_utc_time) {
		tr2_fmt_utc_time(&ev->tls->times, ev->us_now, ev->utc_time);
		ev->has_utc_time = 1;
	}
	return ev->utc_time;
}

TR2_HOT void tr2_tgt_emit(struct tr2_dst *dst, struct tr2_buf *b, uint64_t us_now)
{
	if (b->len && b->p[b->len - 1] != '\n')
		tr2_buf_addc(b, '\n');
	if (!b->failed && tr2_dst_is_on(dst))
		tr2_dst_write(dst, b->p, b->len, us_now);
	tr2_buf_release(b);
}
