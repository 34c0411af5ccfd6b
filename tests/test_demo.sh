#!/bin/sh
# make demo's script (examples/demo.sh): one run of the example traced by
# the perf, chrome and event targets; it explains the perf columns, names
# the Chrome file it wrote and the viewers that open it, summarizes the
# event log of that same run, and ends with the stats target's table.
# usage: T2_BIN=build/bin tests/test_demo.sh
set -u
. "$(dirname "$0")/tool_test_lib.sh"

if ! examples/demo.sh "$BIN" "$tmp/demo" src/tr2_buf.c include/trace2.h >"$tmp/out" 2>"$tmp/err"; then
	bad "demo.sh failed: $(cat "$tmp/err")"
fi
[ -s "$tmp/err" ] && bad "demo.sh wrote on stderr: $(cat "$tmp/err")" || ok
# has WHAT PATTERN: the demo's output has a line matching PATTERN (grep -E)
has() { grep -qE -- "$2" "$tmp/out" && ok || bad "no $1 in the output"; }

# The perf trace of both files, and what its columns are.
has "perf line hashing src/tr2_buf.c" '^[0-9:.]+ examples/hashsort\.c:[0-9]+ +\| d0 \| th0[12]:hasher +\| region_enter .*label:hash-file src/tr2_buf\.c$'
has "perf line hashing include/trace2.h" '\| region_leave .*label:hash-file include/trace2\.h$'
for col in "time of day" "file and line" "depth" "thread" "event" "repository" "t_abs" "t_rel" "category"; do
	has "legend for '$col'" "^  [^ ].* +.*$col"
done

# The Chrome file: named with its absolute path, written by this run.
chrome=$tmp/demo/hashsort.json
has "Chrome file's path" "^  $chrome\$"
for viewer in ui.perfetto.dev chrome://tracing speedscope.app; do has "viewer $viewer" "$viewer"; done
if [ -s "$chrome" ]; then
	[ "$(head -c 1 "$chrome")" = "[" ] && ok || bad "$chrome: not a Chrome trace array"
	n=$(grep -c '"name":"hash-file"' "$chrome")
	[ "$n" -ge 2 ] && ok || bad "$chrome: $n hash-file regions, want 2 or more"
else
	bad "no $chrome"
fi

# The summary of that run: the SID of the Chrome file's process, the
# regions of both files.
sid=$(sed -n 's/.*"sid":"\([^"]*\)".*/\1/p' "$chrome" | head -1)
if [ -n "$sid" ]; then
	has "summary of the same run (sid $sid)" "^  hashsort .* sid=$sid\$"
else
	bad "$chrome: no sid"
fi
has "summary's hash-file regions" '^ +2 +[0-9. ]+ hashsort/hash-file$'

# The stats target's table, last.
has "stats table" '^stats: [0-9]+ regions of 4 keys'
tail -1 "$tmp/out" | grep -qE 'hashsort/(hash|worker|hash-file|sort)$' && ok || bad "the stats table is not last"
finish
