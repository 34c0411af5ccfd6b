#!/bin/sh
# The shared library exports exactly the functions and data declared in
# include/trace2.h and include/trace2/*.h: nothing internal leaks,
# nothing public is hidden, and every name starts with trace2_ (Git's
# jw_* names are macros of the header's compatibility layer).
# usage: tests/check-exports.sh build/libtrace2.so
set -eu
lib=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Declared names: "name(" at a declaration start, plus exported data.
sed -n '/^typedef/d; /^static/d; s/^[a-z][a-z_ *0-9]*[ *]\(trace2_[a-z0-9_]*\)(.*/\1/p; s/^extern [^(]* \*\{0,1\}\(trace2_[a-z_]*\)\(\[\]\)\{0,1\};/\1/p' \
	include/trace2.h include/trace2/*.h | grep -v '_gated$' | sort -u >"$tmp/declared"
nm -D --defined-only "$lib" | awk '{print $3}' | sort -u >"$tmp/exported"
if grep -v '^trace2_' "$tmp/exported"; then
	echo "check-exports: FAILED (exported without the trace2_ prefix, above)"
	exit 1
fi
if ! diff -u "$tmp/declared" "$tmp/exported"; then
	echo "check-exports: FAILED (- declared only, + exported only)"
	exit 1
fi
echo "check-exports: $(wc -l <"$tmp/declared") symbols: 1 passed, 0 failed"
