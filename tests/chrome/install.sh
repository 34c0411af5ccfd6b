#!/bin/sh
# Install Chrome DevTools' trace engine (npm @paulirish/trace_engine,
# pinned with its dependencies by package-lock.json) into DIR with
# "npm ci", unless it is there already from the same lockfile, and copy
# check_trace.mjs beside it.  Exit 0 when "node DIR/check_trace.mjs" can
# run; else 1 with the reason on stderr (no node, no npm, no registry).
# usage: tests/chrome/install.sh DIR
set -u
dir=$1
src=$(dirname "$0")
if ! command -v node >/dev/null 2>&1; then
	echo "tests/chrome/install.sh: node not found" >&2
	exit 1
fi
mkdir -p "$dir" && cp "$src/check_trace.mjs" "$dir/" || exit 1
if [ -f "$dir/node_modules/@paulirish/trace_engine/package.json" ] &&
   cmp -s "$src/package-lock.json" "$dir/package-lock.json"; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "tests/chrome/install.sh: npm not found" >&2
	exit 1
fi
cp "$src/package.json" "$src/package-lock.json" "$dir/" || exit 1
echo "tests/chrome/install.sh: npm ci in $dir (@paulirish/trace_engine 0.0.65)" >&2
if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$dir/npm.log" 2>&1; then
	echo "tests/chrome/install.sh: npm ci failed (registry not reachable?): see $dir/npm.log" >&2
	rm -f "$dir/package-lock.json"
	exit 1
fi
