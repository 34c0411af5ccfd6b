#!/bin/sh
# Install the viewers the tests load traces in, Chrome DevTools' trace
# engine (npm @paulirish/trace_engine) and speedscope (npm speedscope),
# pinned with their dependencies by package-lock.json, into DIR with
# "npm ci", unless they are there already from the same lockfile, and copy
# the scripts that drive them (check_trace.mjs, check_speedscope.mjs and
# their helpers) beside them.  Exit 0 when both scripts can run; else 1 with the reason
# on stderr (no node, no npm, no registry).
# usage: tests/chrome/install.sh DIR
set -u
dir=$1
src=$(dirname "$0")
if ! command -v node >/dev/null 2>&1; then
	echo "tests/chrome/install.sh: node not found" >&2
	exit 1
fi
mkdir -p "$dir" && cp "$src"/*.mjs "$dir/" || exit 1
if [ -f "$dir/node_modules/@paulirish/trace_engine/package.json" ] &&
   [ -f "$dir/node_modules/speedscope/package.json" ] &&
   cmp -s "$src/package-lock.json" "$dir/package-lock.json"; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "tests/chrome/install.sh: npm not found" >&2
	exit 1
fi
cp "$src/package.json" "$src/package-lock.json" "$dir/" || exit 1
echo "tests/chrome/install.sh: npm ci in $dir (@paulirish/trace_engine 0.0.65, speedscope 1.25.0)" >&2
if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$dir/npm.log" 2>&1; then
	echo "tests/chrome/install.sh: npm ci failed (registry not reachable?): see $dir/npm.log" >&2
	rm -f "$dir/package-lock.json"
	exit 1
fi
