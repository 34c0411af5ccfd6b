#!/bin/sh
# The trace2 command's progress on standard error: shown for an input over
# 100 MiB when standard error is a terminal (script(1) gives one), never
# for a smaller input or when standard error is not a terminal.
# usage: T2_BIN=build/bin tests/tools/test_progress.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

if ! command -v script >/dev/null 2>&1; then
	echo "$t2_test: SKIP: script(1) (bsdutils) not found: no terminal to test with"
	exit 0
fi
avail=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt 300 ]; then
	echo "$t2_test: SKIP: $tmp has $avail MiB free, 300 needed"
	exit 0
fi
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 tests/bench/gen_eventlog.c -o "$tmp/gen" || {
	bad "cannot build tests/bench/gen_eventlog.c"; finish; exit 1; }
"$tmp/gen" 101 "$tmp/big.event" >/dev/null
half=$(($(wc -l <"$tmp/big.event") / 2))
head -n "$half" "$tmp/big.event" >"$tmp/small.event"

# on_tty FILE OUT: trace2 summary FILE with standard error on a terminal;
# what the terminal showed, in OUT
on_tty() {
	script -qec "'$T2' summary '$1' >/dev/null" "$2" >/dev/null 2>&1
}

# shown TTY: the lines the terminal showed; text LINE: a line of it.  A
# Windows program under Wine writes to Wine's console, which draws the
# screen itself: escape sequences around the text, a space at times a
# cursor move, states between two draws never shown.  There the text
# without escape sequences and spaces, and no single intermediate line.
if [ "${T2_CROSS:-}" = mingw64 ]; then
	shown() { sed 's/\x1b\[[?0-9;]*[A-Za-z]//g' "$1" | tr -d ' ' | tr '\r' '\n'; }
	text() { printf '%s' "$1" | tr -d ' '; }
else
	shown() { tr '\r' '\n' <"$1"; }
	text() { printf '%s' "$1"; }
fi

on_tty "$tmp/big.event" "$tmp/big.tty"
shown "$tmp/big.tty" >"$tmp/big.lines"
size=$(($(wc -c <"$tmp/big.event") >> 20))
grep -qx "$(text "trace2: reading $tmp/big.event: 100% ($size of $size MiB), done.")" "$tmp/big.lines" &&
	ok || bad "big file: no final progress line: $(tail -c 300 "$tmp/big.tty")"
if [ "${T2_CROSS:-}" = mingw64 ]; then
	echo "$t2_test: SKIP: the 50% line (Wine's console may draw past it)"
else
	grep -qx "trace2: reading $tmp/big.event: 50% ([0-9]* of $size MiB)" "$tmp/big.lines" &&
		ok || bad "big file: no 50% line"
fi
[ "$(grep -c "^$(text 'trace2: reading')" "$tmp/big.lines")" -le 102 ] && ok || bad "big file: redrawn too often"

on_tty "$tmp/small.event" "$tmp/small.tty"
shown "$tmp/small.tty" | grep -q 'reading' && bad "a file under 100 MiB shows progress" || ok

"$T2" summary "$tmp/big.event" >/dev/null 2>"$tmp/big.err"
[ -s "$tmp/big.err" ] && bad "progress on a standard error that is not a terminal: $(head -c 200 "$tmp/big.err")" || ok

# A pipe (size unknown): MiB read, once past 100 MiB.
script -qec "cat '$tmp/big.event' | '$T2' summary - >/dev/null" "$tmp/stdin.tty" >/dev/null 2>&1
shown "$tmp/stdin.tty" | grep -qx "$(text "trace2: reading -: $size MiB, done.")" &&
	ok || bad "a pipe: no final progress line: $(tail -c 200 "$tmp/stdin.tty")"

finish
