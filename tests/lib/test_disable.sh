#!/bin/sh
# -DTRACE2_DISABLE: tests/disable/every_entry.c (every public entry point
# of trace2.h and trace2/target.h) and the C++ test program
# tests/cxx/regions.cc build with -Wall -Wextra -Werror WITHOUT the
# library (gcc and clang, -O0 and -O2; g++ and clang++), run, return what
# the API returns while tracing is off, and refer to no trace2_ symbol
# (nm -u); at -O2 no trace2_ symbol is left at all.
# usage: tests/lib/test_disable.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

# check NAME EXE OPT: runs, exits 0, no reference (no symbol at -O2)
check() {
	out=$("$2" 2>&1)
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$1: exit status $rc: $out"
	refs=$(nm -u "$2" | grep trace2_)
	[ -z "$refs" ] && ok || bad "$1: refers to $refs"
	if [ "$3" = -O2 ]; then
		left=$(nm "$2" | grep trace2_)
		[ -z "$left" ] && ok || bad "$1: symbols left: $left"
	fi
}

for cc in gcc clang; do
	if ! command -v $cc >/dev/null 2>&1; then
		echo "$t2_test: skipped $cc: not installed"; continue
	fi
	for opt in -O0 -O2; do
		exe="$tmp/every-$cc$opt"
		if $cc -std=c11 $opt -Wall -Wextra -Werror -DTRACE2_DISABLE -Iinclude \
			tests/disable/every_entry.c -o "$exe" 2>"$tmp/err"; then
			check "$cc $opt" "$exe" $opt
		else
			bad "$cc $opt: does not build"; cat "$tmp/err" >&2
		fi
	done
done
for cxx in g++ clang++; do
	if ! command -v $cxx >/dev/null 2>&1; then
		echo "$t2_test: skipped $cxx: not installed"; continue
	fi
	exe="$tmp/regions-$cxx"
	if $cxx -std=c++11 -O2 -Wall -Wextra -Werror -DTRACE2_DISABLE -Iinclude \
		tests/cxx/regions.cc -o "$exe" 2>"$tmp/err"; then
		check "$cxx" "$exe" -O2
	else
		bad "$cxx: does not build"; cat "$tmp/err" >&2
	fi
done
finish
