#!/bin/sh
# Sampling by command tree (GIT_TRACE2_SAMPLE / trace2.sample,
# docs/configuration.md "Sampling"), through the driver:
#   - the verdict for fixed roots (GIT_TRACE2_PARENT_SID=$ROOT_x), whose
#     hashes this file states (FNV-1a 64 then MurmurHash3's fmix64,
#     worked out apart from the library), at rates on either side of
#     them, to the 18th digit;
#   - a sampled-out process writes nothing anywhere (no file created, no
#     thread started, nothing on stderr), keeps its exit code, and
#     exports a SID of its own for its children;
#   - a kept process's trace2/sample data record, right after start, in
#     normal, perf, event and chrome output; the event log passes
#     validate --strict; the rate as written (.5, 0.250, 1.0) said in
#     one form; a bad value warns and keeps everything, without a record;
#   - rates set differently in a child (a lower one drops out of a kept
#     tree, a higher one is kept under a parent sampled out);
#   - T2_SAMPLE_TREES trees (default 4000; 40 on Windows, 500 with a
#     sanitizer) of three
#     processes at rate 0.25, each with a fresh root: every tree whole or
#     absent, the kept fraction within 3 standard deviations of 0.25, and
#     (with python3) every kept root's hash below 2^62.
# What needs a POSIX sh, env or strace (the SID a child inherits, the
# system calls, rates set in a child) skips under Wine.
# usage: T2_BIN=build/bin tests/process/test_sample.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

unset GIT_TRACE2_SAMPLE GIT_TRACE2_CHROME GIT_TRACE2_DEFERRED
win=
[ "${T2_CROSS:-}" = mingw64 ] && win=1
# (a sanitizer's build starts its processes ~10 times slower: 500)
TREES=${T2_SAMPLE_TREES:-$([ -n "$win" ] && echo 40 || { [ -n "${T2_SAN:-}" ] && echo 500; } || echo 4000)}
# Fixed roots and their hashes: ROOT_<hash over 2^64, to 2 digits> (ROOT_23
# is 4212187107698377257 / 2^64 = 0.2283431206541007035...).
ROOT=20260101T000000.000000Z-H00000000-P
ROOT_92=${ROOT}00000007 ROOT_16=${ROOT}00000000 ROOT_23=${ROOT}00000022 ROOT_01=${ROOT}00000009
SID_RE='[0-9]\{8\}T[0-9]\{6\}\.[0-9]\{6\}Z-\(H[0-9a-f]\{8\}\|Localhost\)-P[0-9a-f]\{8\}'

# one ROOT RATE NAME [ARGS...]: the driver's 001return 5 (or ARGS) in a
# tree under ROOT at RATE, its event log in $tmp/NAME.event, its stderr
# in $tmp/NAME.err; $rc its exit code
one() {
	root=$1 rate=$2 name=$3
	shift 3
	[ $# -gt 0 ] || set -- 001return 5
	GIT_TRACE2_PARENT_SID=$root GIT_TRACE2_SAMPLE=$rate GIT_TRACE2_EVENT="$tmp/$name.event" \
		"$TOOL" trace2 "$@" >/dev/null 2>"$tmp/$name.err"
	rc=$?
}

# verdict ROOT RATE kept|dropped
verdict() {
	name=v-${1#$ROOT}-$2
	one "$1" "$2" "$name"
	[ $rc = 5 ] || bad "$name: exit code $rc, want 5"
	if [ -s "$tmp/$name.event" ]; then got=kept; else got=dropped; fi
	[ $got = "$3" ] && ok || bad "$1 at $2: $got, want $3"
	[ -s "$tmp/$name.err" ] && bad "$name: stderr: $(head -2 "$tmp/$name.err")"
}

# --- the verdict: hash < rate * 2^64, exactly ----------------------------------
verdict "$ROOT_23" 0.22 dropped
verdict "$ROOT_23" 0.25 kept
verdict "$ROOT_23" 0.228343120654100703 dropped
verdict "$ROOT_23" 0.228343120654100704 kept
verdict "$ROOT_01" 0.25 kept
verdict "$ROOT_01" .007 dropped
verdict "$ROOT_01" 0.000000000000000001 dropped
verdict "$ROOT_16" .17 kept
verdict "$ROOT_16" 0.16 dropped
verdict "$ROOT_92" 0.9 dropped
verdict "$ROOT_92" 1 kept
verdict "$ROOT_92" 1.000 kept

# --- a sampled-out process: nothing written, its SID exported -------------------
# its child: a shell writing the SID it inherits (the driver's 001return
# 7 on Windows, where the trees below show the SID passed on)
d=$tmp/out
mkdir -p "$d/events"
run_out() {
	if [ -n "$win" ]; then
		set -- "$TOOL" trace2 001return 7
	else
		set -- "$@" "$TOOL" trace2 004child \
			sh -c 'printf "%s\n" "$GIT_TRACE2_PARENT_SID" >"$0"; exit 7' "$d/sid"
	fi
	GIT_TRACE2_PARENT_SID=$ROOT_92 GIT_TRACE2_SAMPLE=0.25 GIT_TRACE2="$d/normal" \
	GIT_TRACE2_PERF="$d/perf" GIT_TRACE2_EVENT="$d/events" GIT_TRACE2_CHROME="$d/chrome" \
	GIT_TRACE2_DEFERRED=1 "$@" 2>"$d/err"
}
run_out
rc=$?
[ $rc = 7 ] && ok || bad "sampled out: exit code $rc, want 7"
[ -s "$d/err" ] && bad "sampled out: stderr: $(head -2 "$d/err")"
for f in normal perf chrome; do
	[ -e "$d/$f" ] && bad "sampled out: $f created" || ok
done
[ -z "$(ls -A "$d/events")" ] && ok || bad "sampled out: a file in the event directory"
if [ -z "$win" ]; then
	grep -qx "$ROOT_92/$SID_RE" "$d/sid" && ok ||
		bad "sampled out: the child's GIT_TRACE2_PARENT_SID is '$(cat "$d/sid")'"
fi
# what it asks of the system: none of the destinations, no thread
if [ -z "$win" ] && command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	run_out strace -f -o "$d/strace" -e trace=open,openat,creat,connect,clone,clone3
	grep -F "$d/" "$d/strace" | grep -v "$d/sid" >"$d/touched"
	[ -s "$d/touched" ] && bad "sampled out: opened $(head -2 "$d/touched")" || ok
	grep -q CLONE_THREAD "$d/strace" && bad "sampled out: a thread started" || ok
else
	echo "$t2_test: SKIP: the system calls of a sampled-out process (no strace, or Windows)"
fi
GIT_TRACE2_PARENT_SID=$ROOT_92 GIT_TRACE2_SAMPLE=0.25 GIT_TRACE2="$d/normal" \
	"$TOOL" trace2 002exit 9 2>/dev/null
rc=$?
[ $rc = 9 ] && [ ! -e "$d/normal" ] && ok || bad "sampled out: exit(9) gave $rc"

# --- the data record on every target --------------------------------------------
k=$tmp/kept
GIT_TRACE2_PARENT_SID=$ROOT_01 GIT_TRACE2_SAMPLE=0.25 GIT_TRACE2="$k.normal" \
	GIT_TRACE2_PERF="$k.perf" GIT_TRACE2_EVENT="$k.event" GIT_TRACE2_CHROME="$k.chrome" \
	"$TOOL" trace2 001return 0 >/dev/null 2>&1
# line LINE FILE PATTERN: line LINE of FILE matches PATTERN (grep -E)
line() {
	sed -n "$1p" "$2" | tr -d '\r' | grep -Eq "$3" && ok ||
		bad "$2, line $1: '$(sed -n "$1p" "$2")' does not match $3"
}
line 2 "$k.normal" ' start '
line 3 "$k.normal" '^[0-9:.]+ +data trace2/sample value:0\.25$'
line 2 "$k.perf" '\| start +\|'
line 3 "$k.perf" '\| data +\|.*\| trace2 +\| sample:0\.25$'
line 2 "$k.event" '"event":"start"'
line 3 "$k.event" '^\{"event":"data","sid":"'"$ROOT_01"'/[^"]*",.*"nesting":1,"category":"trace2","key":"sample","value":"0\.25"\}$'
grep -q '"name":"sample","cat":"trace2",.*"args":{"value":"0.25"}' "$k.chrome" && ok ||
	bad "chrome: no sample event"
"$T2" validate --strict "$k.event" >"$k.validate" 2>&1 && grep -q ' 0 errors, 0 warnings' "$k.validate" &&
	ok || bad "validate --strict: $(cat "$k.validate")"

# form RATE SAID: a kept tree's record says SAID
form() {
	name=form-$1
	one "$ROOT_01" "$1" "$name"
	grep -q "\"key\":\"sample\",\"value\":\"$2\"}" "$tmp/$name.event" && ok ||
		bad "rate $1: the record is not '$2': $(grep sample "$tmp/$name.event")"
}
form .5 0.5
form 0.250 0.25
form 1.0 1
form 1 1

# a bad value: one warning, the setting ignored (all kept, no record)
for v in 0 0.0 . 1.5 2 -0.5 +0.5 abc 0.25x ' 0.25' 1e-1 0,25 01 0.1234567890123456789; do
	one "$ROOT_92" "$v" bad
	want="warning: trace2: unknown value for 'GIT_TRACE2_SAMPLE': '$v'"
	if [ "$(tr -d '\r' <"$tmp/bad.err")" = "$want" ] && [ -s "$tmp/bad.event" ] &&
		! grep -q '"key":"sample"' "$tmp/bad.event"; then
		ok
	else
		bad "bad value '$v': $(head -2 "$tmp/bad.err")"
	fi
	rm -f "$tmp/bad.event"
done
# unset and empty: Git's output, no record, no warning
for v in unset empty; do
	if [ $v = unset ]; then
		GIT_TRACE2_PARENT_SID=$ROOT_92 GIT_TRACE2_EVENT="$tmp/$v.event" GIT_TRACE2_PERF="$tmp/$v.perf" \
			"$TOOL" trace2 001return 0 >/dev/null 2>"$tmp/$v.err"
	else
		GIT_TRACE2_SAMPLE= GIT_TRACE2_PARENT_SID=$ROOT_92 GIT_TRACE2_EVENT="$tmp/$v.event" \
			GIT_TRACE2_PERF="$tmp/$v.perf" "$TOOL" trace2 001return 0 >/dev/null 2>"$tmp/$v.err"
	fi
	[ -s "$tmp/$v.event" ] && ! grep -q 'trace2 *| sample:\|"key":"sample"' "$tmp/$v.event" "$tmp/$v.perf" &&
		[ ! -s "$tmp/$v.err" ] && ok || bad "$v: not Git's output"
done
# from a config file
printf '[trace2]\n\tsample = 0.25\n' >"$tmp/global.cfg"
for r in 01:kept 92:dropped; do
	eval root=\$ROOT_${r%:*}
	GIT_CONFIG_GLOBAL=$tmp/global.cfg GIT_TRACE2_PARENT_SID=$root GIT_TRACE2_EVENT="$tmp/config-${r%:*}.event" \
		"$TOOL" trace2 001return 0 >/dev/null 2>&1
	if [ -s "$tmp/config-${r%:*}.event" ]; then got=kept; else got=dropped; fi
	[ "$got" = "${r#*:}" ] && ok || bad "trace2.sample in a config file: ROOT_$r, got $got"
done

# --- rates that differ in a child -------------------------------------------------
# compose NAME ROOT PARENT_RATE CHILD_RATE: a parent at PARENT_RATE whose
# child (and grandchild) run at CHILD_RATE; "$tmp/NAME" holds the depths
# (1, 2, 3 under ROOT) of the processes kept
compose() {
	mkdir -p "$tmp/$1"
	GIT_TRACE2_PARENT_SID=$2 GIT_TRACE2_SAMPLE=$3 GIT_TRACE2_EVENT="$tmp/$1" \
		"$TOOL" trace2 004child env GIT_TRACE2_SAMPLE="$4" \
		"$TOOL" trace2 004child "$TOOL" trace2 001return 0 >/dev/null 2>&1
	rc=$?
	[ $rc = 0 ] || bad "$1: exit code $rc"
	got=$(cat "$tmp/$1"/* 2>/dev/null | sed -n 's/^{"event":"version","sid":"\([^"]*\)".*/\1/p' |
		awk -F/ '{ print NF - 1 }' | sort | tr '\n' ' ')
}
if [ -n "$win" ]; then
	echo "$t2_test: SKIP: rates set in a child (env as a child, Windows build)"
else
	# ROOT_16: kept at 0.25, not at 0.125
	compose lower-in-kept "$ROOT_16" 0.25 0.125
	[ "$got" = "1 " ] && ok || bad "a lower rate in the child of a kept parent: depths $got, want 1"
	grep -qh '"key":"sample","value":"0.25"' "$tmp/lower-in-kept"/* && ok || bad "lower: the record"
	compose higher-under-out "$ROOT_16" 0.125 0.25
	[ "$got" = "2 3 " ] && ok ||
		bad "a higher rate under a parent sampled out: depths $got, want 2 3 (and the parent's SID in theirs)"
	# ROOT_01: kept at both; ROOT_92: at neither
	compose both "$ROOT_01" 0.25 0.125
	[ "$got" = "1 2 3 " ] && ok || bad "kept at both rates: depths $got"
	compose neither "$ROOT_92" 0.25 0.5
	[ -z "$got" ] && ok || bad "kept at neither rate: depths $got"
fi

# --- many trees: whole or absent, the fraction kept -------------------------------
trees=$tmp/trees
mkdir -p "$trees"
start=$(date +%s)
# each tree's root is its first process's own SID: nothing inherited
seq "$TREES" | GIT_TRACE2_SAMPLE=0.25 GIT_TRACE2_EVENT="$trees" xargs -P2 -n100 sh -c '
	for i; do
		"$0" trace2 004child "$0" trace2 004child "$0" trace2 001return 0 >/dev/null 2>&1 ||
			echo "tree $i: exit code $?"
	done' "$TOOL" >"$tmp/trees.err" 2>&1
took=$(($(date +%s) - start))
[ -s "$tmp/trees.err" ] && bad "trees: $(head -3 "$tmp/trees.err")"
# per root: the depths of the processes kept; a tree is whole with 0 1 2
find "$trees" -type f -exec awk 'FNR == 1' {} + | tr -d '\r' |
	sed -n 's/^{"event":"version","sid":"\([^"]*\)".*/\1/p' >"$tmp/sids"
awk -F/ '{ print $1, NF - 1 }' "$tmp/sids" | sort -k1,1 -k2,2n |
	awk '{ depth[$1] = depth[$1] " " $2 } END { for (r in depth) print r depth[r] }' |
	sort >"$tmp/roots"
files=$(find "$trees" -type f | wc -l)
kept=$(awk '$2 == 0 && $3 == 1 && $4 == 2 && NF == 4' "$tmp/roots" | wc -l)
partial=$(awk '!($2 == 0 && $3 == 1 && $4 == 2 && NF == 4)' "$tmp/roots" | wc -l)
[ "$partial" -eq 0 ] && ok || { bad "trees: $partial partial"; head -3 "$tmp/roots" >&2; }
[ "$files" -eq $((3 * kept)) ] && [ "$(wc -l <"$tmp/sids")" -eq "$files" ] && ok ||
	bad "trees: $files files, $kept trees kept"
records=$(grep -l '"category":"trace2","key":"sample","value":"0.25"' -r "$trees" | wc -l)
[ "$records" -eq "$files" ] && ok || bad "trees: $records of $files logs say their rate"
awk -v k="$kept" -v n="$TREES" 'BEGIN {
	f = k / n; s = sqrt(0.25 * 0.75 / n); d = f - 0.25
	exit !(d <= 3 * s && -d <= 3 * s) }' && ok ||
	bad "trees: $kept of $TREES kept, not within 3 sigma of 0.25"
"$T2" validate --strict "$trees" >"$tmp/trees.validate" 2>&1 &&
	grep -q ' 0 errors, 0 warnings' "$tmp/trees.validate" && ok ||
	bad "trees: validate --strict: $(tail -3 "$tmp/trees.validate")"
echo "$t2_test: $TREES trees of 3 at rate 0.25: $kept kept, $partial partial, ${took}s"
if command -v python3 >/dev/null; then
	awk '{ print $1 }' "$tmp/roots" | python3 -c '
import sys
M = 2 ** 64
def h(b):
	x = 0xcbf29ce484222325
	for c in b:
		x = ((x ^ c) * 0x100000001b3) % M
	for m in (0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53):
		x = ((x ^ (x >> 33)) * m) % M
	return x ^ (x >> 33)
bad = [r for r in sys.stdin.read().split() if h(r.encode()) >= M // 4]
if bad:
	print(" ".join(bad[:3]))' >"$tmp/hash.bad"
	[ -s "$tmp/hash.bad" ] && bad "trees kept whose root hashes to 2^62 or more: $(cat "$tmp/hash.bad")" || ok
else
	echo "$t2_test: SKIP: the kept roots' hashes (no python3)"
fi
finish
