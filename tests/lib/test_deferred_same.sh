#!/bin/sh
# The deferred mode (GIT_TRACE2_DEFERRED=1) writes the same records as the
# default mode: each command of the test driver runs once in each mode,
# with the perf and event targets to files, and the two outputs must be
# byte-identical once the times, durations, session ids, child pids and
# Windows' memory figures are masked and the lines are sorted by process
# and thread (a stable sort: within a thread the order must not change).
# usage: tests/lib/test_deferred_same.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
unset GIT_TRACE2_DEFERRED GIT_TRACE2_DEFERRED_RING GIT_TRACE2_BUFFER

# perf_norm FILE: perf lines without the time of day and the numbers that
# are durations, sorted by nesting depth and thread
perf_norm() {
	sed -E 's/^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} //; s/[0-9]+\.[0-9]{6}/N/g; s/pid:[0-9]+/pid:N/' "$1" |
		mask_memory |
		sort -s -t'|' -k2,3
}

# mask_memory: the figures of Windows' windows/memory record masked: they
# are measured, as times are, and the deferred mode's writer thread adds
# to them
mask_memory() {
	sed -E 's/"(PageFaultCount|PeakWorkingSetSize|PeakPagefileUsage)":[0-9]+/"\1":N/g'
}

# event_norm FILE: the same for JSON lines; a session id becomes its depth
# (child sids add "/<sid>")
event_norm() {
	sed -E 's/"time":"[^"]*"/"time":"T"/; s/[0-9]+\.[0-9]{6}/N/g; s/"pid":[0-9]+/"pid":N/' "$1" | mask_memory |
		awk '{
			sid = $0; sub(/.*"sid":"/, "", sid); sub(/".*/, "", sid)
			depth = gsub("/", "/", sid)
			th = $0; sub(/.*"thread":"/, "", th); sub(/".*/, "", th)
			line = $0; sub(/"sid":"[^"]*"/, "\"sid\":\"S\"", line)
			print depth "\t" th "\t" line
		}' | sort -s -t"$(printf '\t')" -k1,2 | cut -f3-
}

# run_both NAME ARGS...: the driver with ARGS in both modes, compared
run_both() {
	name=$1
	shift
	for mode in default deferred; do
		rm -f "$tmp/$mode.perf" "$tmp/$mode.event"
		if [ $mode = deferred ]; then
			GIT_TRACE2_DEFERRED=1 GIT_TRACE2_PERF="$tmp/$mode.perf" \
				GIT_TRACE2_EVENT="$tmp/$mode.event" "$TOOL" "$@" >/dev/null 2>&1
		else
			GIT_TRACE2_PERF="$tmp/$mode.perf" GIT_TRACE2_EVENT="$tmp/$mode.event" \
				"$TOOL" "$@" >/dev/null 2>&1
		fi
		echo $? >"$tmp/$mode.rc"
		perf_norm "$tmp/$mode.perf" >"$tmp/$mode.perf.n"
		event_norm "$tmp/$mode.event" >"$tmp/$mode.event.n"
	done
	same "$name: exit status" "$tmp/default.rc" "$tmp/deferred.rc"
	if [ -s "$tmp/default.perf.n" ] && [ -s "$tmp/default.event.n" ]; then
		ok
	else
		bad "$name: the default run wrote no trace"
	fi
	same "$name: perf" "$tmp/default.perf.n" "$tmp/deferred.perf.n"
	same "$name: event" "$tmp/default.event.n" "$tmp/deferred.event.n"
}

run_both "return" trace2 001return 3
run_both "data" trace2 006data cat1 key1 value1 cat2 key2 value2
run_both "error" trace2 003error "an error" "another"
run_both "timers, 3 threads" trace2 101timer 4 0 3
run_both "counters, 4 threads" trace2 201counter 3 5 4
run_both "child" trace2 004child "$TOOL" trace2 001return 0
run_both "child with threads" trace2 004child "$TOOL" trace2 201counter 1 2 3
finish
