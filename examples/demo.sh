#!/bin/sh
# make demo: examples/hashsort.c (hash FILEs on two threads, then sort)
# traced three ways in one run: the perf target as Git writes it, with
# its columns explained; the Chrome timeline and the event log, which
# `trace2 summary` reads back.  Then again with the stats target's table
# (GIT_TRACE2_STATS), and with the example's own target (--slowest,
# examples/slowest_target.c).  Everything goes to standard output.
# usage: examples/demo.sh BIN_DIR OUT_DIR FILE...
set -eu
[ $# -ge 3 ] || { echo "usage: $0 BIN_DIR OUT_DIR FILE..." >&2; exit 2; }
bin=$1 out=$2
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
chrome=$out/hashsort.json events=$out/hashsort.event.json
# The targets append to a file: start from none.
rm -f "$chrome" "$events"
unset GIT_TRACE2 GIT_TRACE2_PERF GIT_TRACE2_EVENT GIT_TRACE2_CHROME GIT_TRACE2_PERF_BRIEF \
	GIT_TRACE2_EVENT_BRIEF GIT_TRACE2_CHROME_BRIEF GIT_TRACE2_STATS GIT_TRACE2_STATS_BRIEF \
	GIT_TRACE2_STATS_FORMAT

echo "== The perf target (GIT_TRACE2_PERF=2): every event, as Git writes it"
# The trace (stderr) to our output, the example's own output away.
# shellcheck disable=SC2069
GIT_TRACE2_PERF=2 GIT_TRACE2_CHROME=$chrome GIT_TRACE2_EVENT=$events \
	"$bin/example-hashsort" "$@" 2>&1 >/dev/null
cat <<'END'

The perf columns, left to right (docs/targets.md, "Perf"):
  22:30:20.324944         time of day
  examples/hashsort.c:109 the file and line of the call
  d0                      depth: how many traced ancestors this process has
  main, th01:hasher       thread: main, or thNN:<name given to trace2_thread_start()>
  region_enter            event
  (empty)                 repository, r<N>, when the event names one
  0.000312                t_abs: seconds since the process started
  0.000054                t_rel: seconds since the innermost region began; on
                          region_leave the region's time, on thread_exit the thread's
  hashsort                category
  ..label:hash-file FILE  the event's text, two dots per open region
END

[ -s "$chrome" ] || { echo "$0: the chrome target wrote no $chrome" >&2; exit 1; }
cat <<END

== Beyond Git: the same run as a timeline (GIT_TRACE2_CHROME, the Chrome trace format)
  $chrome
  Open it in https://ui.perfetto.dev ("Open trace file"), in Chrome at
  chrome://tracing ("Load"), or at https://www.speedscope.app: one track per
  thread, regions nested, counters and data on them.

== Beyond Git: trace2 summary of the same run's event log (GIT_TRACE2_EVENT)
  $events
END
"$bin/trace2" summary "$events"

echo
echo "== Beyond Git: the stats target (GIT_TRACE2_STATS=2): region times summed up at exit"
# shellcheck disable=SC2069 # the table (stderr) only
GIT_TRACE2_STATS=2 "$bin/example-hashsort" "$@" 2>&1 >/dev/null

echo
echo "== Beyond Git: a target of your own (examples/slowest_target.c, --slowest)"
# shellcheck disable=SC2069 # the list (stderr) only
"$bin/example-hashsort" --slowest "$@" 2>&1 >/dev/null
