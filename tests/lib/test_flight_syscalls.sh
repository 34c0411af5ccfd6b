#!/bin/sh
# The flight recorder (GIT_TRACE2_FLIGHT) makes no system call per event
# and writes nothing until a trigger: the driver's region pairs, a
# hundred thousand and a million of them, under strace -f -c, make the
# same number of system calls (both runs are long enough for the TSC
# clock's one-time calibration), give or take SLACK: the start-up's
# reads (each parent process named in cmd_ancestry is a file of /proc)
# were seen to differ by 8 under a loaded make test, while a call per
# event would add 900,000, and one per lap of the 1 MiB ring over 100;
# and the perf target's file stays empty;
# with exit code 1 the same run writes its last records, a log
# validate --strict accepts.
# usage: T2_BIN=build/bin tests/lib/test_flight_syscalls.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

if [ -n "${T2_CROSS:-}" ]; then
	echo "$t2_test: skipped: strace counts Linux system calls ($T2_CROSS build)"
	exit 0
fi
if [ -n "${T2_SAN:-}" ]; then
	echo "$t2_test: skipped: a sanitizer's runtime makes system calls of its own (and LeakSanitizer does not run under ptrace)"
	exit 0
fi
if ! command -v strace >/dev/null 2>&1 || ! strace -o /dev/null true 2>/dev/null; then
	echo "$t2_test: skipped: no strace that can trace here"
	exit 0
fi

# calls N: the system calls of a run of N region pairs, exit code 0
calls() {
	rm -f "$tmp/perf"
	GIT_TRACE2_PERF="$tmp/perf" GIT_TRACE2_FLIGHT=1m \
		strace -f -c -o "$tmp/strace.$1" "$TOOL" trace2 500regions "$1" 0 ||
		bad "500regions $1 exited $?"
	[ -s "$tmp/perf" ] && bad "$1 pairs, nothing triggered: the perf file has $(wc -l <"$tmp/perf") lines"
	# the total line: % time, seconds, usecs/call, calls, [errors,] total
	awk '$NF == "total" { print $4 }' "$tmp/strace.$1"
}

SLACK=16
few=$(calls 100000) many=$(calls 1000000)
echo "$t2_test: system calls: $few for 100,000 pairs, $many for 1,000,000"
if [ -n "$few" ] && [ -n "$many" ] && [ "$many" -le $((few + SLACK)) ]; then
	ok
else
	bad "system calls grow with the events: $few for 100,000 pairs, $many for 1,000,000"
	cat "$tmp/strace.1000000" >&2
fi
[ -s "$tmp/perf" ] || ok

# triggered: the last records, well-formed
GIT_TRACE2_EVENT="$tmp/event" GIT_TRACE2_FLIGHT=64k "$TOOL" trace2 500regions 100000 1
[ $? -eq 1 ] && ok || bad "500regions with exit code 1: exit code changed"
if "$T2" validate --strict "$tmp/event" >"$tmp/validate" 2>&1 &&
	grep -q '"key":"flight","value":"exit"' "$tmp/event" &&
	grep -q '"key":"overwritten"' "$tmp/event"; then
	ok
else
	bad "exit code 1: $(tail -3 "$tmp/validate")"
fi
finish
