#!/bin/sh
# Run cmocka test binaries; print one closing summary line.
# usage: T2_BIN=build/bin [T2_RUN=qemu-aarch64] tests/run-tests.sh TEST...
# T2_RUN: the emulator that runs a cross-built binary (not the .sh tests).
passed=0 failed=0
for t in "$@"; do
	case $t in
	*.sh) run= ;;
	*) run=${T2_RUN:-} ;;
	esac
	if $run "$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED: $t" >&2
	fi
done
echo "test binaries: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
