/*
 * lua_tp.h -- the LTTng-UST tracepoints of the wrapped lua (lua_wrap.h):
 * the same two events, with the same two strings, as the trace2 region
 * pair they are compared with.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER lua_wrap

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "lua_tp.h"

#if !defined(LUA_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define LUA_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(lua_wrap, region_enter,
	LTTNG_UST_TP_ARGS(const char *, category, const char *, label),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(category, category)
		lttng_ust_field_string(label, label)))

LTTNG_UST_TRACEPOINT_EVENT(lua_wrap, region_leave,
	LTTNG_UST_TP_ARGS(const char *, category, const char *, label),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(category, category)
		lttng_ust_field_string(label, label)))

#endif

#include <lttng/tracepoint-event.h>
