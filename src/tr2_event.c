#include "tr2_event.h"
#include "tr2_hot.h"

/* Every public kind has exactly one row in tr2_kinds.def, in the enum's
 * order: a second row repeats an enumerator here, a missing or an
 * extra one fails the count, a row out of place its own assertion. */
enum {
#define TR2_KIND(kind, ...) ROW_##kind,
#include "tr2_kinds.def"
#undef TR2_KIND
	ROWS
};
#define TR2_KIND(kind, ...)                                                        \
	_Static_assert(TRACE2_EVENT_##kind == ROW_##kind + 1,                       \
		       "tr2_kinds.def: the row of TRACE2_EVENT_" #kind " is out of order");
#include "tr2_kinds.def"
#undef TR2_KIND
_Static_assert(ROWS == TRACE2_EVENT_KIND_MAX - 1,
	       "tr2_kinds.def: not one row for every TRACE2_EVENT_* kind");

static const char *const names[TRACE2_EVENT_KIND_MAX] = {
#define TR2_KIND(kind, name, ...) [TRACE2_EVENT_##kind] = name,
#include "tr2_kinds.def"
#undef TR2_KIND
};

const char *trace2_event_name(enum trace2_event_kind kind)
{
	unsigned k = (unsigned)kind;

	return k < TRACE2_EVENT_KIND_MAX && names[k] ? names[k] : "";
}

TR2_HOT const char *trace2_event_local_time(const struct trace2_event *pub)
{
	struct tr2_ev *ev = tr2_ev_of(pub);

	if (!ev->has_local_time) {
		tr2_fmt_local_time(ev->times, pub->time_us, ev->local_time);
		ev->local_time[TR2_LOCAL_TIME_LEN] = '\0';
		ev->has_local_time = 1;
	}
	return ev->local_time;
}

TR2_HOT const char *trace2_event_utc_time(const struct trace2_event *pub)
{
	struct tr2_ev *ev = tr2_ev_of(pub);

	if (!ev->has_utc_time) {
		tr2_fmt_utc_time(ev->times, pub->time_us, ev->utc_time);
		ev->utc_time[TR2_UTC_TIME_LEN] = '\0';
		ev->has_utc_time = 1;
	}
	return ev->utc_time;
}
