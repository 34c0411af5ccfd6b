#!/bin/sh
# valgrind memcheck over the driver's scenarios (all four targets on), the
# hashsort example with --slowest (threads, its own target) and with the
# stats target, the trace2 command and the tests that do not fork: 0
# errors and 0 definitely lost bytes.
# usage: tests/check-valgrind.sh BUILD_DIR
set -u
build=$1
vg="valgrind -q --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

run() {
	if "$@" >"$tmp/out" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "check-valgrind: FAILED: $*" >&2
		cat "$tmp/out" >&2
	fi
}

# A driver run exits with the scenario's own code; only valgrind's 97 fails.
scenario() {
	env GIT_TRACE2="$tmp/n" GIT_TRACE2_PERF="$tmp/p" GIT_TRACE2_EVENT="$tmp/e" GIT_TRACE2_CHROME="$tmp/c" \
		$vg "$build/bin/trace2-tool" trace2 "$@" >"$tmp/out" 2>&1
	if [ $? -eq 97 ]; then
		failed=$((failed + 1))
		echo "check-valgrind: FAILED: trace2-tool trace2 $*" >&2
		cat "$tmp/out" >&2
	else
		passed=$((passed + 1))
	fi
}

scenario 001return 0
scenario 003error "hello world" "second"
scenario 004child "$build/bin/trace2-tool" trace2 001return 3
scenario 006data cat k v cat2 k2 v2
scenario 007bug
scenario 101timer 3 1 4
scenario 201counter 7 13 4
scenario 300redact_start git clone https://u:p@example.com/
scenario 301redact_child_start git clone https://u:p@example.com/
scenario 302redact_exec git clone https://u:p@example.com/
scenario 303redact_def_param url https://u:p@example.com/
GIT_TRACE2_BUFFER=4k scenario 101timer 3 1 4
run $vg "$build/bin/example-hashsort" --slowest src/*.c targets/*.c
GIT_TRACE2_STATS=/dev/null run $vg "$build/bin/example-hashsort" src/*.c targets/*.c
# The record target (its call sites' strings checked word by word), and
# the command reading the recording.
GIT_TRACE2_RECORD=$tmp/r run $vg "$build/bin/example-hashsort" src/*.c targets/*.c
run $vg "$build/bin/trace2" convert --to event "$tmp/r"
# The trace2 command on the last scenario's event log, and its reader's test.
run $vg "$build/bin/trace2" convert --to perf "$tmp/e"
run $vg "$build/bin/trace2" convert --to normal "$tmp/e"
run $vg "$build/bin/trace2" validate --quiet "$tmp/e" tests/validate/bad-utf8.json
for t in test_json_writer test_format test_tjson test_tool_reader; do
	run $vg "$build/tests/$t"
done
echo "check-valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
