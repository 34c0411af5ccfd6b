#!/bin/sh
# Run test binaries and scripts, T2_JOBS at a time (default: one per
# CPU); each test's output is printed whole when it ends, then one
# closing summary line.
# usage: T2_BIN=build/bin [T2_RUN=qemu-aarch64] [T2_JOBS=N] tests/run-tests.sh TEST...
# T2_RUN: the emulator that runs a cross-built binary (not the .sh tests).
jobs=${T2_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0) echo "run-tests: T2_JOBS must be a positive number" >&2; exit 2 ;;
esac

# run_one TEST: its output into its own log, "pass" or "FAILED" into
# results, then the log printed, one test's at a time.
run_one() {
	case $1 in
	*.sh) run= ;;
	*) run=${T2_RUN:-} ;;
	esac
	log=$logs/$(printf '%s' "$1" | tr / _)
	if $run "$1" >"$log" 2>&1; then
		verdict=pass
	else
		verdict=FAILED
	fi
	{
		flock 9
		cat "$log"
		[ $verdict = pass ] || echo "FAILED: $1" >&2
		echo "$verdict" >>"$logs/results"
	} 9>"$logs/lock"
}

# The one test of a worker xargs started, logging into the run's
# directory.
if [ "${1:-}" = --one ]; then
	logs=$2
	run_one "$3"
	exit 0
fi

logs=$(mktemp -d) || exit 2
trap 'rm -rf "$logs"' EXIT
: >"$logs/results"
printf '%s\n' "$@" | xargs -P "$jobs" -I{} "$0" --one "$logs" {}
passed=$(grep -c '^pass$' "$logs/results")
failed=$(($# - passed))
echo "test binaries: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
