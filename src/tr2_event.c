#include "tr2_event.h"
#include "tr2_hot.h"

static const char *const names[TRACE2_EVENT_KIND_MAX] = {
	[TRACE2_EVENT_VERSION] = "version",
	[TRACE2_EVENT_TOO_MANY_FILES] = "too_many_files",
	[TRACE2_EVENT_START] = "start",
	[TRACE2_EVENT_EXIT] = "exit",
	[TRACE2_EVENT_SIGNAL] = "signal",
	[TRACE2_EVENT_ATEXIT] = "atexit",
	[TRACE2_EVENT_ERROR] = "error",
	[TRACE2_EVENT_CMD_PATH] = "cmd_path",
	[TRACE2_EVENT_CMD_ANCESTRY] = "cmd_ancestry",
	[TRACE2_EVENT_CMD_NAME] = "cmd_name",
	[TRACE2_EVENT_CMD_MODE] = "cmd_mode",
	[TRACE2_EVENT_ALIAS] = "alias",
	[TRACE2_EVENT_CHILD_START] = "child_start",
	[TRACE2_EVENT_CHILD_EXIT] = "child_exit",
	[TRACE2_EVENT_CHILD_READY] = "child_ready",
	[TRACE2_EVENT_THREAD_START] = "thread_start",
	[TRACE2_EVENT_THREAD_EXIT] = "thread_exit",
	[TRACE2_EVENT_EXEC] = "exec",
	[TRACE2_EVENT_EXEC_RESULT] = "exec_result",
	[TRACE2_EVENT_DEF_PARAM] = "def_param",
	[TRACE2_EVENT_DEF_REPO] = "def_repo",
	[TRACE2_EVENT_REGION_ENTER] = "region_enter",
	[TRACE2_EVENT_REGION_LEAVE] = "region_leave",
	[TRACE2_EVENT_DATA] = "data",
	[TRACE2_EVENT_DATA_JSON] = "data_json",
	[TRACE2_EVENT_PRINTF] = "printf",
	[TRACE2_EVENT_TIMER] = "timer",
	[TRACE2_EVENT_TH_TIMER] = "th_timer",
	[TRACE2_EVENT_COUNTER] = "counter",
	[TRACE2_EVENT_TH_COUNTER] = "th_counter",
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
