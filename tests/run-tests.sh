#!/bin/sh
# Run cmocka test binaries; print one closing summary line.
# usage: T2_BIN=build/bin tests/run-tests.sh TEST...
passed=0 failed=0
for t in "$@"; do
	if "$t"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAILED: $t" >&2
	fi
done
echo "test binaries: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
