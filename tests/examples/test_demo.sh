#!/bin/sh
# make demo's script (examples/demo.sh): one run of the example traced by
# the perf, chrome and event targets; it explains the perf columns, names
# the Chrome file it wrote (which Chrome DevTools' trace engine and
# speedscope load as written, with no mismatch and no warning) and the
# viewers that open it, summarizes the event log of that same run, shows
# the stats target's table and ends with the example target's list.
# usage: T2_BIN=build/bin tests/examples/test_demo.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

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

# viewers_load FILE N: FILE as written in both viewers (tests/chrome/):
# in Chrome DevTools' trace engine N hash-file slices, each nested in a
# hasher thread's worker slice, no flow, no begin/end mismatch, no
# error; speedscope imports it without a warning.  Skipped with a
# message when the viewers cannot be installed.
viewers_load() {
	engine=${T2_CHROME_DIR:-build/chrome}
	if ! tests/chrome/install.sh "$engine" 2>"$tmp/install.err"; then
		echo "$t2_test: SKIP: $1 not loaded in the viewers: $(cat "$tmp/install.err")"
		return
	fi
	node "$engine/check_trace.mjs" "$1" >"$tmp/engine" 2>&1 ||
		bad "check_trace.mjs failed: $(head -3 "$tmp/engine")"
	grep -qx 'total [1-9][0-9]* slices 0 flows 0 mismatches 0 engine-errors' "$tmp/engine" && ok ||
		bad "$1 as written in the engine: $(tail -1 "$tmp/engine")"
	h=$(awk '$1 == "thread" && $4 ~ /:hasher$/ { hasher[$2 " " $3] = 1 }
		 $1 == "slice" && $NF == "hash-file" && $4 == 1 && hasher[$2 " " $3] { n++ }
		 END { print n + 0 }' "$tmp/engine")
	[ "$h" = "$2" ] && ok || bad "$1: the engine shows $h hash-file slices on hasher threads, want $2"
	node "$engine/check_speedscope.mjs" "$1" >"$tmp/speedscope" 2>&1 ||
		bad "check_speedscope.mjs failed: $(head -3 "$tmp/speedscope")"
	grep -qx 'total [1-9][0-9]* profiles 0 warnings' "$tmp/speedscope" && ok ||
		bad "$1 in speedscope: $(grep -m3 '^warning\|^total' "$tmp/speedscope")"
}

# The Chrome file: named with its absolute path, written by this run,
# loaded as written in both viewers.
chrome=$tmp/demo/hashsort.json
has "Chrome file's path" "^  $chrome\$"
for viewer in ui.perfetto.dev chrome://tracing speedscope.app; do has "viewer $viewer" "$viewer"; done
if [ -s "$chrome" ]; then
	[ "$(head -c 1 "$chrome")" = "[" ] && ok || bad "$chrome: not a Chrome trace array"
	n=$(grep -c '"name":"hash-file"' "$chrome")
	[ "$n" -ge 2 ] && ok || bad "$chrome: $n hash-file regions, want 2 or more"
	viewers_load "$chrome" "$n"
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

# The stats target's table: the total's hash-file row counts both files.
has "stats table" '^# trace2 stats, sid '
has "stats total of hash-file" '^total +hashsort +hash-file +2  '
# The slowest target's list, last: hash holds the rest, it comes first.
# The example prints it with stdio, whose text mode ends a line with
# \r\n on Windows (the library's own output has no \r there:
# docs/embedding.md "Windows", fd numbers).
eol='$'
[ "${T2_CROSS:-}" = mingw64 ] && eol="$(printf '\r')?\$"
has "slowest list" "^slowest: the 5 longest regions, in ms$eol"
has "slowest first" '^ +[0-9]+\.[0-9]{3}  main  hashsort/hash'"$eol"
tail -1 "$tmp/out" | grep -qE '  (main|th0[12]:hasher)  hashsort/(worker|hash-file|sort)'"$eol" && ok ||
	bad "the slowest list is not last"
finish
