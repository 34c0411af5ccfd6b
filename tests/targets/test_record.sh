#!/bin/sh
# The record target (docs/record-format.md): a recording of a run, read by
# tests/record/decode.py (a reader written from the format's document
# alone), holds exactly the records the event target writes in the same
# run, with the same times, locations and values; local times come back
# from its TZ blocks in any time zone.
# usage: T2_BIN=build/bin tests/targets/test_record.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
here=$(cd "$(dirname "$0")/../record" && pwd)
EXAMPLE=$(cd "$BIN" && pwd)/example-hashsort
if ! command -v python3 >/dev/null; then
	echo "$t2_test: skipped: no python3"
	exit 0
fi

# recorded NAME COMMAND...: COMMAND run with the record and event targets
# (every nesting level) into $tmp/NAME.rec and $tmp/NAME.event; the
# recording decoded must be the event log
recorded() {
	name=$1
	shift
	rm -f "$tmp/$name.rec" "$tmp/$name.event"
	GIT_TRACE2_RECORD=$tmp/$name.rec GIT_TRACE2_EVENT=$tmp/$name.event \
		GIT_TRACE2_EVENT_NESTING=1000 "$@" >/dev/null 2>&1
	if ! python3 "$here/decode.py" "$tmp/$name.rec" >"$tmp/$name.dec" 2>"$tmp/$name.err"; then
		bad "$name: decode: $(cat "$tmp/$name.err")"
	elif python3 "$here/same_as_event.py" "$tmp/$name.dec" "$tmp/$name.event" \
		>"$tmp/$name.cmp" 2>&1; then
		ok
	else
		bad "$name: $(cat "$tmp/$name.cmp")"
	fi
}

srcs=$(ls "$(dirname "$0")"/../../src/*.c)
recorded hashsort "$EXAMPLE" $srcs
GIT_TRACE2_DEFERRED=1 recorded hashsort_deferred "$EXAMPLE" $srcs
recorded child "$TOOL" trace2 004child "$TOOL" trace2 001return 3
recorded error "$TOOL" trace2 003error "hello world" "second"
recorded data "$TOOL" trace2 006data cat1 key1 value1 cat2 key2 value2
recorded timers "$TOOL" trace2 101timer 5 1 3
recorded counters "$TOOL" trace2 201counter 3 4 3
GIT_TRACE2_DEFERRED=1 recorded timers_deferred "$TOOL" trace2 101timer 5 1 3

# the local time of day of every perf line, from the recording's TZ
# blocks, in two time zones with daylight saving.  Windows' C runtime
# reads TZ in its own form (name, hours west of UTC, daylight saving's
# name, with the US rules for it), not the zone database's names: New
# York and Lord Howe's standard offset (half an hour) written so there.
zones="America/New_York Australia/Lord_Howe"
[ "${T2_CROSS:-}" != mingw64 ] || zones="EST5EDT LHS-10:30LHD"
for zone in $zones; do
	rm -f "$tmp/tz.rec" "$tmp/tz.perf"
	TZ=$zone GIT_TRACE2_RECORD=$tmp/tz.rec GIT_TRACE2_PERF=$tmp/tz.perf GIT_TRACE2_PERF_BRIEF=0 \
		"$EXAMPLE" $srcs >/dev/null 2>&1
	python3 "$here/decode.py" "$tmp/tz.rec" >"$tmp/tz.dec" 2>&1 || bad "$zone: decode"
	python3 - "$tmp/tz.dec" "$tmp/tz.perf" >"$tmp/tz.cmp" 2>&1 <<'PY'
import json, sys, datetime
recs = [json.loads(l) for l in open(sys.argv[1])]
lines = open(sys.argv[2]).read().splitlines()
local = []
for r in recs:
    t = r["time"] + r["tz"] * 1000000
    d = datetime.datetime.fromtimestamp(t // 1000000, datetime.timezone.utc)
    local.append("%s.%06d" % (d.strftime("%H:%M:%S"), t % 1000000))
times = [l[:15] for l in lines]
missing = [t for t in times if t not in local]
if not recs or any(r["tz"] == 0 for r in recs) or missing:
    sys.exit("offsets %s, perf times not in the recording: %s" % (
        sorted(set(r["tz"] for r in recs)), missing[:3]))
PY
	if [ $? -eq 0 ]; then ok; else bad "$zone: $(cat "$tmp/tz.cmp")"; fi
done

finish
