#!/bin/sh
# trace2 summary: a hand-written event log with known region times (nested
# regions for self time, a region repeated 100 times with known durations
# for the quantiles, processes with parent/child SIDs, timers and
# counters) must summarize to exactly the numbers computed here by hand
# (median and p95 within the documented 1 %), as text and as --json.
# Real logs (the library's example program, Git with a local clone and
# its child processes) summarize without a complaint, children under
# their parent.
# usage: T2_BIN=build/bin tests/tools/test_summary.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

# --- the hand-written log ----------------------------------------------------
log=$tmp/hand.event
# ev SID THREAD EVENT [EXTRA JSON MEMBERS]
ev() {
	printf '{"event":"%s","sid":"%s","thread":"%s"%s}\n' "$3" "$1" "$2" "${4:+,$4}" >>"$log"
}
secs() { printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)); }
enter() { ev "$1" "$2" region_enter "\"category\":\"$3\",\"label\":\"$4\""; }
leave() { ev "$1" "$2" region_leave "\"t_rel\":$(secs "$5"),\"category\":\"$3\",\"label\":\"$4\""; }

: >"$log"
# A (root): clone, mode m1; nested regions on main, one on a thread.
ev A main version '"evt":"4","exe":"2.47.0"'
ev A main start '"t_abs":0.000100,"argv":["/usr/bin/git","clone","x"]'
ev A main cmd_name '"name":"clone","hierarchy":"clone"'
ev A main cmd_mode '"name":"m1"'
leave A main t lonely 5000              # a leave without its enter: skipped
enter A main t outer
enter A main t inner
enter A main t deep
leave A main t deep 100000
leave A main t inner 300000
# B, A's child, starts while A's regions are open
ev A/B main version '"evt":"4","exe":"2.47.0"'
ev A/B main start '"t_abs":0.000050,"argv":["/usr/bin/git","index-pack"]'
ev A/B main cmd_name '"name":"index-pack","hierarchy":"clone/index-pack"'
enter A main t inner
leave A main t inner 200000
leave A main t outer 1000000
ev A th01:w thread_start '"t_abs":1.0'
enter A th01:w t outer
leave A th01:w t outer 500000
ev A th01:w thread_exit '"t_abs":1.6,"t_rel":0.6'
# 100 regions rep/x of 1, 2, ... 100 ms in B
k=1
while [ $k -le 100 ]; do
	enter A/B main rep x
	leave A/B main rep x $((k * 1000))
	k=$((k + 1))
done
ev A/B main timer '"category":"tm","name":"t1","intervals":2,"t_total":0.250000,"t_min":0.050000,"t_max":0.200000'
ev A/B main counter '"category":"cn","name":"c1","count":5'
ev A/B main exit '"t_abs":0.700000,"code":3'
ev A/B main atexit '"t_abs":0.750000,"code":3'
# C, B's child, never exits; 100 regions rep/small of 1..100 us
ev A/B/C main version '"evt":"4","exe":"2.47.0"'
ev A/B/C main start '"t_abs":0.000010,"argv":["/usr/lib/git-core/grand","-v"]'
k=1
while [ $k -le 100 ]; do
	enter A/B/C main rep small
	leave A/B/C main rep small $k
	k=$((k + 1))
done
ev A/B/C main data '"t_abs":0.300000,"t_rel":0.3,"nesting":1,"category":"c","key":"k","value":"v"'
# X/Y: its parent is not in the input, so a root
ev X/Y main version '"evt":"4","exe":"2.47.0"'
ev X/Y main start '"t_abs":0.000010,"argv":["prog"]'
ev X/Y main atexit '"t_abs":0.125000,"code":0'
# A's end: process timers and counters, thread ones (not summed)
ev A main th_timer '"category":"tm","name":"t1","intervals":99,"t_total":9.0,"t_min":9.0,"t_max":9.0'
ev A main th_counter '"category":"cn","name":"c1","count":99'
ev A main timer '"category":"tm","name":"t1","intervals":3,"t_total":0.500000,"t_min":0.100000,"t_max":0.300000'
ev A main counter '"category":"cn","name":"c1","count":7'
ev A main counter '"category":"cn","name":"c2","count":1'
ev A main exit '"t_abs":2.500000,"code":0'
ev A main atexit '"t_abs":2.600000,"code":0'
# D (root) with a child killed by a signal, a region never left
ev D main version '"evt":"4","exe":"2.47.0"'
ev D main start '"t_abs":0.000010,"argv":["d"]'
enter D main t open
ev D/E main version '"evt":"4","exe":"2.47.0"'
ev D/E main start '"t_abs":0.000010,"argv":["e"]'
ev D/E main signal '"t_abs":0.400000,"signo":9'
ev D main atexit '"t_abs":1.000000,"code":1'

"$T2" summary "$log" >"$tmp/hand.out" 2>"$tmp/hand.err"
rc=$?
[ $rc = 0 ] && ok || bad "hand: exit status $rc"
[ -s "$tmp/hand.err" ] && bad "hand: complained: $(head -3 "$tmp/hand.err")" || ok

# The process tree, exactly.
cat >"$tmp/tree.exp" <<'EOF'
processes: 6 (3 roots)
  clone  mode=m1  exit=0  elapsed=2.600000  sid=A
    index-pack  mode=-  exit=3  elapsed=0.750000  sid=A/B
      grand  mode=-  exit=-  elapsed=0.300000  sid=A/B/C
  prog  mode=-  exit=0  elapsed=0.125000  sid=X/Y
  d  mode=-  exit=1  elapsed=1.000000  sid=D
    e  mode=-  exit=-  signal=9  elapsed=0.400000  sid=D/E
EOF
sed -n '1,/^regions:/p' "$tmp/hand.out" | sed '$d' >"$tmp/tree.got"
same "hand: process tree" "$tmp/tree.exp" "$tmp/tree.got"

# Regions: exact rows but for the quantiles (Q) at or above 1.024 ms,
# sorted by total. outer: 1.0 + 0.5; self 1.0 - (0.3 + 0.2) + 0.5. inner:
# 0.3 + 0.2; self 0.3 - 0.1 + 0.2. rep/x: 1..100 ms, sum 5.05 s,
# nearest-rank median (50th) 50 ms, p95 (95th) 95 ms. rep/small: 1..100
# us, exact (below 1.024 ms). deep: one value, so min = max = quantiles.
# t/open was never left: not there.
cat >"$tmp/regions.exp" <<'EOF'
rep/x 100 5.050000 5.050000 0.001000 Q Q 0.100000
t/outer 2 1.500000 1.000000 0.500000 Q Q 1.000000
t/inner 2 0.500000 0.400000 0.200000 Q Q 0.300000
t/deep 1 0.100000 0.100000 0.100000 0.100000 0.100000 0.100000
rep/small 100 0.005050 0.005050 0.000001 0.000050 0.000095 0.000100
EOF
awk '/^regions:/ { on = 1; next } /^(timers|counters):/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ { q = $8 ~ /^(rep\/x|t\/outer|t\/inner)$/
		print $8, $1, $2, $3, $4, (q ? "Q Q" : $5 " " $6), $7 }' \
	"$tmp/hand.out" >"$tmp/regions.got"
same "hand: region rows" "$tmp/regions.exp" "$tmp/regions.got"
# within1 NAME GOT WANT: |GOT - WANT| <= 1 % of WANT
within1() {
	if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w / 100) }'; then
		ok
	else
		bad "$1: $2 is not within 1% of $3"
	fi
}
within1 "rep/x median" "$(awk '$8 == "rep/x" { print $5 }' "$tmp/hand.out")" 0.050
within1 "rep/x p95" "$(awk '$8 == "rep/x" { print $6 }' "$tmp/hand.out")" 0.095
# two values: the nearest-rank median is the smaller, p95 the larger
within1 "t/outer median" "$(awk '$8 == "t/outer" { print $5 }' "$tmp/hand.out")" 0.5
within1 "t/outer p95" "$(awk '$8 == "t/outer" { print $6 }' "$tmp/hand.out")" 1.0
within1 "t/inner median" "$(awk '$8 == "t/inner" { print $5 }' "$tmp/hand.out")" 0.2
within1 "t/inner p95" "$(awk '$8 == "t/inner" { print $6 }' "$tmp/hand.out")" 0.3
grep -q '^regions: 5 keys' "$tmp/hand.out" && ok || bad "hand: region key count"
grep -q '^regions: 1 never left' "$tmp/hand.out" && ok || bad "hand: the open region"
grep -q '^regions: 1 region_leave without region_enter' "$tmp/hand.out" && ok ||
	bad "hand: the lone leave"

# Timers and counters: process totals summed over A and B; th_ ignored.
cat >"$tmp/metrics.exp" <<'EOF'
timers: 1 (process totals, summed over processes)
 intervals          total            min            max  category/name
         5       0.750000       0.050000       0.300000  tm/t1
counters: 2 (process totals, summed over processes)
               count  category/name
                  12  cn/c1
                   1  cn/c2
EOF
sed -n '/^timers:/,$p' "$tmp/hand.out" >"$tmp/metrics.got"
same "hand: timers and counters" "$tmp/metrics.exp" "$tmp/metrics.got"

# --top 2: the two largest totals only.
"$T2" summary --top 2 "$log" >"$tmp/top.out" 2>&1
awk '/^regions:/ { on = 1; next } /^(timers|counters):/ { on = 0 }
	on && $1 ~ /^[0-9]+$/ { print $8 }' "$tmp/top.out" | tr '\n' ' ' >"$tmp/top.got"
[ "$(cat "$tmp/top.got")" = "rep/x t/outer " ] && ok || bad "--top 2: got $(cat "$tmp/top.got")"
grep -q '^regions: 5 keys, top 2 by total' "$tmp/top.out" && ok || bad "--top 2: header"

# The same log from standard input, and as a directory target.
"$T2" summary - <"$log" >"$tmp/stdin.out" 2>&1
same "standard input" "$tmp/hand.out" "$tmp/stdin.out"

# Usage errors.
"$T2" summary >/dev/null 2>&1; [ $? = 2 ] && ok || bad "no input: not status 2"
"$T2" summary --top x "$log" >/dev/null 2>&1; [ $? = 2 ] && ok || bad "--top x: not status 2"
"$T2" summary "$tmp/missing" >/dev/null 2>&1; [ $? = 1 ] && ok || bad "missing file: not status 1"
"$T2" help summary | grep -q 'trace2 summary' && ok || bad "help summary"
if [ -w /dev/full ]; then
	"$T2" summary "$log" >/dev/full 2>"$tmp/full.err"
	[ $? = 1 ] && grep -q 'standard output' "$tmp/full.err" && ok || bad "/dev/full: not status 1"
fi

# A malformed line is reported and skipped; the numbers stay.
{ cat "$log"; echo '{"event":"region_leave",'; } >"$tmp/broken.event"
"$T2" summary "$tmp/broken.event" >"$tmp/broken.out" 2>"$tmp/broken.err"
grep -q 'broken.event:[0-9]*: malformed JSON' "$tmp/broken.err" && ok || bad "broken: not reported"
same "broken: the rest summarizes" "$tmp/hand.out" "$tmp/broken.out"

# The log's strings cannot write control characters to the terminal (an
# escape sequence, a newline that forges a line): they are escaped.
evil='x\u001b[2J\nregions: forged'
printf '{"event":"cmd_name","sid":"E","thread":"main","name":"%s"}\n' "$evil" >"$tmp/evil.event"
printf '{"event":"region_enter","sid":"E\\u0007","thread":"main","category":"%s"}\n' "$evil" >>"$tmp/evil.event"
printf '{"event":"region_leave","sid":"E\\u0007","thread":"main","t_rel":0.5,"category":"%s"}\n' "$evil" >>"$tmp/evil.event"
"$T2" summary "$tmp/evil.event" >"$tmp/evil.out" 2>&1
tr -d '\n' <"$tmp/evil.out" | LC_ALL=C grep -q '[[:cntrl:]]' &&
	bad "control characters: written raw" || ok
[ "$(grep -c 'x\\u001b\[2J\\nregions: forged' "$tmp/evil.out")" = 2 ] && ok ||
	bad "control characters: the name and the category not escaped: $(cat -A "$tmp/evil.out")"
grep -q 'sid=E\\u0007$' "$tmp/evil.out" && ok || bad "control characters: the SID not escaped"

# A region without a category and one with an empty category are two
# keys that sort alike: with equal totals, the one seen later is listed
# first, whichever came first.
tie_region() { # CATEGORY-MEMBER
	printf '{"event":"region_enter","sid":"T","thread":"main"%s,"label":"x"}\n' "$1"
	printf '{"event":"region_leave","sid":"T","thread":"main","t_rel":0.1%s,"label":"x"}\n' "$1"
}
{ tie_region ''; tie_region ',"category":""'; } >"$tmp/tie1.event"
{ tie_region ',"category":""'; tie_region ''; } >"$tmp/tie2.event"
"$T2" summary --json "$tmp/tie1.event" 2>&1 | grep -q '"regions":\[{"category":"",.*{"category":null,' &&
	ok || bad "tie: the empty category, seen later, is not first"
"$T2" summary --json "$tmp/tie2.event" 2>&1 | grep -q '"regions":\[{"category":null,.*{"category":"",' &&
	ok || bad "tie: the missing category, seen later, is not first"

# --- --json ---------------------------------------------------------------
if command -v python3 >/dev/null 2>&1; then
	"$T2" summary --json --top 4 "$log" >"$tmp/hand.json" 2>&1
	if python3 - "$tmp/hand.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def proc(p):
    return (p["sid"], p["name"], p["mode"], p["exit"], p["signal"], p["complete"],
            p["elapsed"], [proc(c) for c in p["children"]])
tree = [proc(p) for p in d["processes"]]
want = [("A", "clone", "m1", 0, None, True, 2.6,
         [("A/B", "index-pack", None, 3, None, True, 0.75,
           [("A/B/C", "grand", None, None, None, False, 0.3, [])])]),
        ("X/Y", "prog", None, 0, None, True, 0.125, []),
        ("D", "d", None, 1, None, True, 1.0,
         [("D/E", "e", None, None, 9, False, 0.4, [])])]
assert tree == want, tree
r = d["regions"]
assert [(x["category"], x["label"]) for x in r] == \
    [("rep", "x"), ("t", "outer"), ("t", "inner"), ("t", "deep")], r
x = r[0]
assert (x["count"], x["total"], x["self"], x["min"], x["max"]) == (100, 5.05, 5.05, 0.001, 0.1), x
assert abs(x["median"] - 0.050) <= 0.0005 and abs(x["p95"] - 0.095) <= 0.00095, x
o = r[1]
assert (o["count"], o["total"], o["self"], o["min"], o["max"]) == (2, 1.5, 1.0, 0.5, 1.0), o
assert abs(o["median"] - 0.5) <= 0.005 and abs(o["p95"] - 1.0) <= 0.01, o
s = [x for x in r if x["label"] == "deep"][0]
assert (s["median"], s["p95"]) == (0.1, 0.1), s
assert (d["region_keys"], d["regions_open"], d["region_leaves_unmatched"]) == (5, 1, 1), d
assert d["timers"] == [{"category": "tm", "name": "t1", "intervals": 5, "total": 0.75,
                        "min": 0.05, "max": 0.3}], d["timers"]
assert d["counters"] == [{"category": "cn", "name": "c1", "count": 12},
                         {"category": "cn", "name": "c2", "count": 1}], d["counters"]
EOF
	then ok; else bad "--json: not the expected document"; fi
else
	echo "test_summary: python3 missing: --json checks skipped" >&2
fi

# --- a long log: by command, and the filters --------------------------------
# 5,001 processes, generated here: the root R (fetch) and its children
# R/cK, K = 1..5000, each at second K of 2026-01-01 (every record's time;
# the root's atexit at second 5001), named by K % 10 (0-5 rev-list, 6-8
# index-pack, 9 gc), elapsed ((K * 7919) % 1000 + 1) * 100 us, exit code
# 1 when K % 13 == 0, killed by signal 9 (no exit) when K % 101 == 0, one
# region work in category a (K even) or b (K odd) of 1 ms, and a counter
# n/k of 1.  The expected rows are worked out from the same rules, with
# sort and awk, not by the command.
big=$tmp/big.event
awk 'function t(k) { return sprintf("2026-01-01T%02d:%02d:%02d.000000Z", int(k / 3600), int(k % 3600 / 60), k % 60) }
function ev(sid, k, e, rest) { printf "{\"event\":\"%s\",\"sid\":\"%s\",\"thread\":\"main\",\"time\":\"%s\"%s}\n", e, sid, t(k), rest }
BEGIN {
	ev("R", 0, "version", ",\"evt\":\"4\",\"exe\":\"2.47.0\"")
	ev("R", 0, "start", ",\"t_abs\":0.000010,\"argv\":[\"git\",\"fetch\"]")
	ev("R", 0, "cmd_name", ",\"name\":\"fetch\",\"hierarchy\":\"fetch\"")
	for (k = 1; k <= 5000; k++) {
		sid = sprintf("R/c%04d", k); m = k % 10
		name = m <= 5 ? "rev-list" : m <= 8 ? "index-pack" : "gc"
		el = sprintf("%.6f", ((k * 7919) % 1000 + 1) / 10000)
		cat = k % 2 ? "b" : "a"
		ev(sid, k, "version", ",\"evt\":\"4\",\"exe\":\"2.47.0\"")
		ev(sid, k, "start", ",\"t_abs\":0.000010,\"argv\":[\"git\",\"" name "\"]")
		ev(sid, k, "cmd_name", ",\"name\":\"" name "\",\"hierarchy\":\"fetch/" name "\"")
		ev(sid, k, "region_enter", ",\"nesting\":1,\"category\":\"" cat "\",\"label\":\"work\"")
		ev(sid, k, "region_leave", ",\"t_rel\":0.001000,\"nesting\":1,\"category\":\"" cat "\",\"label\":\"work\"")
		ev(sid, k, "counter", ",\"category\":\"n\",\"name\":\"k\",\"count\":1")
		if (k % 101 == 0) { ev(sid, k, "signal", ",\"t_abs\":" el ",\"signo\":9"); continue }
		code = k % 13 ? 0 : 1
		ev(sid, k, "exit", ",\"t_abs\":" el ",\"code\":" code)
		ev(sid, k, "atexit", ",\"t_abs\":" el ",\"code\":" code)
	}
	ev("R", 5001, "atexit", ",\"t_abs\":5001.000000,\"code\":0")
}' >"$big"
# expect_rows FIRST LAST: the rows of the children K = FIRST..LAST, as
# "count failed total min median max name", sorted by total (descending),
# the median the ceil(n/2)-th smallest; the root's row too when FIRST is 0
# or ROOT=1
expect_rows() {
	awk -v a="$1" -v b="$2" -v root="${ROOT:-0}" 'BEGIN {
		if (a == 0 || root) print "fetch", 5001000000, 0
		if (a == 0) a = 1
		for (k = a; k <= b; k++) { m = k % 10
			name = m <= 5 ? "rev-list" : m <= 8 ? "index-pack" : "gc"
			print name, ((k * 7919) % 1000 + 1) * 100, (k % 13 == 0 || k % 101 == 0) }
	}' | sort -k1,1 -k2,2n | awk '
		function flush() { if (!n) return
			printf "%d %d %.6f %.6f %.6f %.6f %s\n", n, f, tot / 1e6, v[1] / 1e6, v[int((n + 1) / 2)] / 1e6, v[n] / 1e6, name }
		$1 != name { flush(); name = $1; n = 0; f = 0; tot = 0 }
		{ v[++n] = $2; tot += $2; f += $3 }
		END { flush() }' | sort -k3,3nr -k7,7
}
# got_rows FILE: the rows under "commands:"
got_rows() {
	awk '/^commands:/ { on = 1; next } /^regions:/ { on = 0 }
		on && $1 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6, $7 }' "$1"
}
"$T2" summary "$big" >"$tmp/big.out" 2>"$tmp/big.err"
[ $? = 0 ] && [ ! -s "$tmp/big.err" ] && ok || bad "long log: summary failed: $(head -3 "$tmp/big.err")"
[ "$(sed -n 1p "$tmp/big.out")" = "processes: 5001 (1 root)" ] && ok ||
	bad "long log: first line $(sed -n 1p "$tmp/big.out")"
sed -n 2p "$tmp/big.out" | grep -q '^commands: 4 ' && ok || bad "long log: no commands line second"
[ "$(grep -c ' sid=' "$tmp/big.out")" = 0 ] && ok || bad "long log: process lines without --tree"
expect_rows 0 5000 >"$tmp/big.exp"
got_rows "$tmp/big.out" >"$tmp/big.got"
same "long log: one row per command" "$tmp/big.exp" "$tmp/big.got"
# --tree: every process, the children under the root
"$T2" summary --tree "$big" >"$tmp/tree.out" 2>&1
[ "$(grep -c '^  fetch  .* sid=R$' "$tmp/tree.out")" = 1 ] && ok || bad "--tree: no root line"
[ "$(grep -c '^    [a-z-]*  mode=.* sid=R/c[0-9]*$' "$tmp/tree.out")" = 5000 ] && ok ||
	bad "--tree: not 5000 children under the root"
grep -q '^commands:' "$tmp/tree.out" && bad "--tree: grouped all the same" || ok
# --command (repeated: either): only its processes, their regions and counters
"$T2" summary --command gc --command=fetch "$big" >"$tmp/cmd.out" 2>&1
[ "$(sed -n 1p "$tmp/cmd.out")" = "processes: 501 (1 root), 4500 filtered out" ] && ok ||
	bad "--command: $(sed -n 1p "$tmp/cmd.out")"
expect_rows 0 5000 | awk '$7 == "gc" || $7 == "fetch"' >"$tmp/cmd.exp"
got_rows "$tmp/cmd.out" >"$tmp/cmd.got"
same "--command: rows" "$tmp/cmd.exp" "$tmp/cmd.got"
# gc is K % 10 == 9, all odd: 500 regions b/work, none a/work; 500 counts
awk '$8 == "b/work" { print $1 } $8 == "a/work" { print "a", $1 }' "$tmp/cmd.out" |
	tr '\n' ' ' >"$tmp/cmd.regions"
[ "$(cat "$tmp/cmd.regions")" = "500 " ] && ok || bad "--command: regions $(cat "$tmp/cmd.regions")"
grep -q '^ *500  n/k$' "$tmp/cmd.out" && ok || bad "--command: counter"
# --sid: a prefix; 9 processes (R/c0001..9), a tree, 9 roots (R is out)
"$T2" summary --sid R/c000 "$big" >"$tmp/sid.out" 2>&1
[ "$(sed -n 1p "$tmp/sid.out")" = "processes: 9 (9 roots), 4992 filtered out" ] && ok ||
	bad "--sid: $(sed -n 1p "$tmp/sid.out")"
[ "$(grep -c '^  [a-z-]*  mode=-  exit=[0-9]  elapsed=[0-9.]*  sid=R/c000[1-9]$' "$tmp/sid.out")" = 9 ] &&
	ok || bad "--sid: not the 9 process lines"
grep -q '^ *9  n/k$' "$tmp/sid.out" && ok || bad "--sid: counter"
# --sid repeated: either prefix; 50 processes (R/c0010..59) are a tree, 51
# are grouped
"$T2" summary --sid R/c001 --sid R/c002 --sid R/c003 --sid R/c004 --sid R/c005 "$big" \
	>"$tmp/sid50.out" 2>&1
[ "$(grep -c ' sid=R/c00[1-5][0-9]$' "$tmp/sid50.out")" = 50 ] && ok || bad "50 processes: not a tree"
"$T2" summary --sid R/c001 --sid R/c002 --sid R/c003 --sid R/c004 --sid R/c005 --sid R/c0060 \
	"$big" >"$tmp/sid51.out" 2>&1
sed -n 2p "$tmp/sid51.out" | grep -q '^commands: ' && ok || bad "51 processes: not grouped"
# --since/--until: seconds 1000 to 1999 of the day (the fraction and the Z
# may be left out): those children and the root, which runs all along;
# the regions and counters of those children
"$T2" summary --since 2026-01-01T00:16:40Z --until 2026-01-01T00:33:19.5 "$big" \
	>"$tmp/win.out" 2>&1
[ "$(sed -n 1p "$tmp/win.out")" = "processes: 1001 (1 root), 4000 filtered out" ] && ok ||
	bad "--since/--until: $(sed -n 1p "$tmp/win.out")"
ROOT=1 expect_rows 1000 1999 >"$tmp/win.exp"
got_rows "$tmp/win.out" >"$tmp/win.got"
same "--since/--until: rows" "$tmp/win.exp" "$tmp/win.got"
awk '$8 ~ /^[ab]\/work$/ { print $8, $1 }' "$tmp/win.out" | sort | tr '\n' ' ' >"$tmp/win.regions"
[ "$(cat "$tmp/win.regions")" = "a/work 500 b/work 500 " ] && ok ||
	bad "--since/--until: regions $(cat "$tmp/win.regions")"
grep -q '^ *1000  n/k$' "$tmp/win.out" && ok || bad "--since/--until: counter"
# --category: every process, only the regions and counters of the category
"$T2" summary --category a "$big" >"$tmp/cat.out" 2>&1
[ "$(sed -n 1p "$tmp/cat.out")" = "processes: 5001 (1 root)" ] && ok ||
	bad "--category: $(sed -n 1p "$tmp/cat.out")"
grep -q '^regions: 1 key ' "$tmp/cat.out" && grep -q '^ *2500 .* a/work$' "$tmp/cat.out" && ok ||
	bad "--category: regions"
grep -q '^counters: 0 ' "$tmp/cat.out" && ok || bad "--category: counters of n"
# filters together: rev-list (K % 10 <= 5) and category a (K even): 1500
"$T2" summary --command rev-list --category a "$big" >"$tmp/both.out" 2>&1
grep -q '^ *1500 .* a/work$' "$tmp/both.out" && ok || bad "--command --category: regions"
# a small log is a tree still
grep -q '^commands:' "$tmp/hand.out" && bad "hand: grouped" || ok
# --json: the tree and the rows, whatever the number of processes
if command -v python3 >/dev/null 2>&1; then
	"$T2" summary --json "$big" >"$tmp/big.json" 2>&1
	if python3 - "$tmp/big.json" "$tmp/big.exp" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
got = ["%d %d %.6f %.6f %.6f %.6f %s" % (c["count"], c["failed"], c["total"], c["min"],
       c["median"], c["max"], c["name"]) for c in d["commands"]]
want = open(sys.argv[2]).read().split("\n")[:-1]
assert got == want, (got, want)
assert len(d["processes"]) == 1 and len(d["processes"][0]["children"]) == 5000
assert d["processes_filtered_out"] == 0
EOF
	then ok; else bad "long log: --json"; fi
fi
# usage errors
for opt in "--since yesterday" "--until 2026-13-01T00:00:00Z" "--command" "--sid="; do
	# shellcheck disable=SC2086
	"$T2" summary $opt "$big" >/dev/null 2>&1
	[ $? = 2 ] && ok || bad "$opt: not status 2"
done

# --- odd logs ---------------------------------------------------------------
# The validator's corpus and the reader fuzzer's seeds (broken SIDs, bad
# UTF-8, missing keys, cut lines...): status 0, and --json stays JSON.
# Their --json outputs are parsed at the end, by one python3.
n=0
mkdir "$tmp/odd"
for f in tests/validate/*.json tests/fuzz/corpus/event_reader/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	"$T2" summary "$f" >/dev/null 2>&1; rc=$?
	[ $rc = 0 ] || bad "$f: status $rc"
	"$T2" summary --json "$f" >"$tmp/odd/$n.json" 2>/dev/null; rc=$?
	[ $rc = 0 ] || bad "$f: --json status $rc"
	printf '%s\t%s\n' "$tmp/odd/$n.json" "$f" >>"$tmp/odd.list"
done
[ $n -gt 20 ] && ok || bad "odd logs: only $n found"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/odd.list" <<'EOF' && ok || bad "odd logs: --json is not JSON"
import json, sys
failed = 0
for line in open(sys.argv[1]):
    out, log = line.rstrip("\n").split("\t")
    try:
        json.load(open(out))
    except ValueError as e:
        print("%s: --json is not JSON: %s" % (log, e))
        failed = 1
sys.exit(failed)
EOF
fi

# --- real logs ------------------------------------------------------------
# nested_ok FILE: every process line below a root is indented under a
# process whose SID is its SID's parent part; prints how many are nested.
nested() {
	awk '/^regions:/ { exit } / sid=/ {
		match($0, /^ */); d = RLENGTH / 2; sid = $NF; sub(/^sid=/, "", sid)
		if (d > 1) { p = sid; sub(/\/[^\/]*$/, "", p); if (p != s[d - 1]) bad++; n++ }
		s[d] = sid }
		END { print bad ? -1 : n + 0 }' "$1"
}
rm -f "$tmp/hs.event"
GIT_TRACE2_EVENT="$tmp/hs.event" GIT_TRACE2_EVENT_NESTING=100 \
	"$BIN/example-hashsort" src/tr2_buf.c src/tr2_sid.c include/trace2.h >/dev/null 2>&1
if "$T2" summary "$tmp/hs.event" >"$tmp/hs.out" 2>"$tmp/hs.err" && [ ! -s "$tmp/hs.err" ]; then
	ok
else
	bad "hashsort: summary failed: $(head -3 "$tmp/hs.err")"
fi
grep -q '^  hashsort  .* exit=0 ' "$tmp/hs.out" && ok || bad "hashsort: no process line"
grep -q ' hashsort/hash-file$' "$tmp/hs.out" && ok || bad "hashsort: no hash-file regions"

# Numbers past what their key holds, 64 bits included: reported, their
# record skipped, never read as 0.
: >"$log"
ev N main version '"evt":"4","exe":"2.47.0"'
ev N main cmd_name '"name":"big","hierarchy":"big"'
ev N main exit '"t_abs":0.5,"code":99999999999999999999999'
ev N main atexit '"t_abs":1e999,"code":0'
ev N main region_enter '"category":"r","label":"x"'
ev N main region_leave '"t_rel":18446744073709.551616,"category":"r","label":"x"'
"$T2" summary "$log" >"$tmp/big.out" 2>"$tmp/big.err"
cat >"$tmp/big.want" <<EOF
$log:3: "code" 99999999999999999999999 is out of range (-2147483648 to 2147483647); skipped
$log:4: "t_abs" 1e999 is out of range (0 to 4294967295 seconds); skipped
$log:6: "t_rel" 18446744073709.551616 is out of range (0 to 4294967295 seconds); skipped
EOF
same "numbers out of range: reported" "$tmp/big.want" "$tmp/big.err"
grep -q '^  big  mode=-  exit=-  elapsed=' "$tmp/big.out" && ok ||
	bad "numbers out of range: read as something: $(head -3 "$tmp/big.out")"
grep -q '^regions: 1 never left' "$tmp/big.out" && ok ||
	bad "numbers out of range: the region was counted"

if command -v git >/dev/null 2>&1; then
	g="$tmp/git"
	mkdir "$g"
	(
		cd "$g" && git init -q src && cd src && echo a >a && git add a &&
		git -c user.name=t -c user.email=t@t commit -q -m one
	) >/dev/null 2>&1
	GIT_TRACE2_EVENT="$tmp/git.event" git -C "$g/src" status >/dev/null 2>&1
	GIT_TRACE2_EVENT="$tmp/git.event" git clone -q --no-local "$g/src" "$g/clone" >/dev/null 2>&1
	if "$T2" summary "$tmp/git.event" >"$tmp/git.out" 2>"$tmp/git.err" &&
		[ ! -s "$tmp/git.err" ]; then
		ok
	else
		bad "git: summary failed: $(head -3 "$tmp/git.err")"
	fi
	grep -q '^  status  ' "$tmp/git.out" && ok || bad "git: no status process"
	grep -q '^  clone  ' "$tmp/git.out" && ok || bad "git: no clone process"
	n=$(nested "$tmp/git.out")
	[ "$n" -gt 0 ] && ok || bad "git: no child under its parent (nested=$n)"
	"$T2" summary --json "$tmp/git.event" >"$tmp/git.json" 2>&1
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = [p for p in d["processes"] if p["name"] == "clone"][0]
assert c["children"] and all(k["sid"].startswith(c["sid"] + "/") for k in c["children"])' \
			"$tmp/git.json" && ok || bad "git: --json has no clone child"
	fi
fi

finish
