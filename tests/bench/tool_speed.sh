#!/bin/sh
# tool_speed.sh -- how fast the trace2 command reads event logs, and that
# its memory stays flat as the log grows.
#
# usage: tests/bench/tool_speed.sh [SIZE_MB...]     (default: 100 1024)
#
# For each size, gen_eventlog.c writes a synthetic event log of about
# SIZE_MB MiB (many processes, children among them, 4 threads each,
# nested regions, data, timers, counters; not timed), then
#     trace2 convert --to perf LOG >/dev/null
#     trace2 convert --to chrome LOG >/dev/null
#     trace2 convert --to otlp LOG >/dev/null
#     trace2 summary LOG >/dev/null
# run TOOL_BENCH_RUNS times each (best wall time kept) under /usr/bin/time:
# events (lines) per second of wall and of CPU time, and the maximum RSS.
# The log is deleted afterwards.  The goal: >= 1 million events per second
# on one core, and the same RSS for every size.
#
# Environment:
#   BUILD            the build directory (build): $BUILD/bin/trace2
#   TOOL_BENCH_DIR   where the logs are written (${TMPDIR:-/tmp})
#   TOOL_BENCH_RUNS  runs per command and size (2)
#   CC               the generator's compiler (cc)
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
T2=$BUILD/bin/trace2
DIR=${TOOL_BENCH_DIR:-${TMPDIR:-/tmp}}
RUNS=${TOOL_BENCH_RUNS:-2}
GEN=$BUILD/bench/gen_eventlog
[ $# -gt 0 ] || set -- 100 1024

[ -x "$T2" ] || { echo "tool_speed: $T2 missing: run make first" >&2; exit 1; }
mkdir -p "$BUILD/bench"
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 tests/bench/gen_eventlog.c -o "$GEN"
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "tool_speed: $TIME missing: no RSS figures" >&2; TIME=; }

log=$DIR/tool_speed.$$.event
out=$DIR/tool_speed.$$.time
trap 'rm -f "$log" "$out"' EXIT INT TERM

printf '%-8s %10s  %-18s %8s %8s %12s %12s %10s\n' size events command wall_s cpu_s \
	ev/s_wall ev/s_cpu maxrss_KiB
for mb in "$@"; do
	need=$((mb + mb / 10 + 64))
	avail=$(df -Pm "$DIR" | awk 'NR == 2 { print $4 }')
	if [ "$avail" -lt "$need" ]; then
		echo "tool_speed: $DIR has $avail MiB free, $need needed for $mb MiB: skipped" >&2
		continue
	fi
	events=$("$GEN" "$mb" "$log")
	for cmd in "convert --to perf" "convert --to chrome" "convert --to otlp" summary; do
		best_wall= best_cpu= best_rss=
		r=0
		while [ $r -lt "$RUNS" ]; do
			r=$((r + 1))
			if [ -n "$TIME" ]; then
				# shellcheck disable=SC2086
				"$TIME" -f '%e %U %S %M' -o "$out" "$T2" $cmd "$log" >/dev/null
				read -r wall usr sys rss <"$out"
			else
				s=$(date +%s.%N)
				# shellcheck disable=SC2086
				"$T2" $cmd "$log" >/dev/null
				e=$(date +%s.%N)
				wall=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }')
				usr=$wall sys=0 rss=-
			fi
			cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
			if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
				best_wall=$wall best_cpu=$cpu best_rss=$rss
			fi
		done
		awk -v mb="$mb" -v ev="$events" -v c="$cmd" -v w="$best_wall" -v u="$best_cpu" \
			-v rss="$best_rss" 'BEGIN {
			printf "%-8s %10d  %-18s %8.2f %8.2f %12.0f %12.0f %10s\n", mb "MiB", ev, c,
				w, u, (w > 0 ? ev / w : 0), (u > 0 ? ev / u : 0), rss }'
	done
	rm -f "$log"
done
