#!/bin/sh
# trace2 convert --to chrome: event logs written by the library, by Git
# 2.55 (tests/git-logs/) and by the installed git become strict JSON that
# real viewers load as written (nothing regrouped or reordered; viewers
# pinned in tests/chrome/): Chrome DevTools' trace engine (npm
# @paulirish/trace_engine 0.0.65) with every region as a slice of the
# right duration and depth on the right thread of the right process,
# every child linked to its parent by a flow, and no begin/end mismatch;
# speedscope 1.25 (npm speedscope) importing it without a warning.  What
# to expect is worked out from the event log alone
# (tests/chrome/expect_events.mjs; which children have their process in
# the log, with python3).  A library log converts to the events the
# chrome target itself wrote in the same run.  Converted files are
# strict JSON (python3's json, jq), metadata first, then in ts order,
# regions as X, every flow's "s" before its "f".  Chrome files (the
# target's, live, cut or whole) convert too; a pid that several processes
# had is given to the first only.
# usage: T2_BIN=build/bin tests/tools/test_convert_chrome.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
ENGINE=${T2_CHROME_DIR:-build/chrome}

if ! tests/chrome/install.sh "$ENGINE" 2>"$tmp/install.err"; then
	echo "$t2_test: SKIP: the viewers (DevTools' trace engine, speedscope) are not available:" \
		"$(cat "$tmp/install.err")"
	exit 0
fi

# strict_sorted FILE: FILE is strict JSON (python3's json, no NaN, no
# duplicate key), {"traceEvents":[objects]}, metadata first, then in ts
# order, no B or E, and every flow's "f" after its "s" at a later ts;
# prints "pids N" (the distinct pids of the process slices), "flows N"
strict_sorted() {
	python3 -c '
import json, sys
def strict(pairs):
	keys = [k for k, _ in pairs]
	if len(set(keys)) != len(keys): raise ValueError("a key twice")
	return dict(pairs)
def nan(c): raise ValueError("not JSON: " + c)
with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
	v = json.load(f, object_pairs_hook=strict, parse_constant=nan)
ev = v["traceEvents"]
assert isinstance(ev, list) and all(isinstance(e, dict) for e in ev), "not objects"
meta = [e["ph"] == "M" for e in ev]
assert meta == sorted(meta, reverse=True), "metadata not first"
ts = [e["ts"] for e in ev if e["ph"] != "M"]
assert ts == sorted(ts), "not in ts order"
assert not [e for e in ev if e["ph"] in "BE"], "a B or E event"
open_ = {}
flows = 0
for e in ev:
	k = (e.get("cat"), e.get("name"), e.get("id"))
	if e["ph"] == "s": open_[k] = e["ts"]
	if e["ph"] == "f":
		assert k in open_ and open_.pop(k) < e["ts"], "an f without an earlier s"
		flows += 1
print("pids", len({e["pid"] for e in ev if e.get("name") == "process" and e["ph"] == "X"}))
print("flows", flows)
' "$1"
}

# convert NAME INPUT...: $tmp/NAME.json, strict and sorted, nothing on
# stderr ($tmp/NAME.facts: strict_sorted's)
convert() {
	name=$1; shift
	converted chrome "$tmp/$name.json" "$@" || return
	if ! command -v python3 >/dev/null 2>&1; then
		node -e 'const o = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
			if (!Array.isArray(o.traceEvents)) process.exit(1);' "$tmp/$name.json" && ok ||
			bad "$name: not strict JSON with a traceEvents array"
	elif strict_sorted "$tmp/$name.json" >"$tmp/$name.facts" 2>"$tmp/$name.py"; then
		ok
	else
		bad "$name: $(tail -1 "$tmp/$name.py")"
	fi
	if command -v jq >/dev/null 2>&1; then
		jq -e '.traceEvents | length > 0' "$tmp/$name.json" >/dev/null && ok ||
			bad "$name: jq does not read it"
	fi
}

# engine_facts NAME: what the engine made of $tmp/NAME.json, with thread
# names for tids (the form expect_events.mjs prints)
engine_facts() {
	node "$ENGINE/check_trace.mjs" "$tmp/$1.json" >"$tmp/$1.engine" 2>&1 ||
		bad "$1: check_trace.mjs failed: $(head -3 "$tmp/$1.engine")"
	awk '$1 == "thread" { n = $4; for (i = 5; i <= NF; i++) n = n " " $i; name[$2 " " $3] = n; next }
	     $1 == "slice" { s = "slice " $2 " " name[$2 " " $3] " " $4 " " $5 " " $6
			     for (i = 7; i <= NF; i++) s = s " " $i; print s; next }
	     $1 == "flow" { print "flow " $2 " " name[$2 " " $3] " " $4 " -> " $6 " " \
			    name[$6 " " $7] " " $8; next }
	     $1 == "mismatch" || $1 == "engine-error" { print }' "$tmp/$1.engine" |
		LC_ALL=C sort
}

# as_written NAME FLOWS: the engine, given $tmp/NAME.json as written,
# links FLOWS flows and finds no begin/end mismatch and no error
as_written() {
	engine_facts "$1" >"$tmp/$1.got"
	got="$(grep -c '^flow' "$tmp/$1.got") flows, $(grep -c '^mismatch\|^engine-error' "$tmp/$1.got") errors"
	[ "$got" = "$2 flows, 0 errors" ] && ok || bad "$1: as written: $got, expected $2 flows, 0 errors"
}

# speedscope NAME: $tmp/NAME.json imports into speedscope without a warning; sets $profiles and $warnings
speedscope() {
	node "$ENGINE/check_speedscope.mjs" "$tmp/$1.json" >"$tmp/$1.speedscope" 2>&1 ||
		bad "$1: check_speedscope.mjs failed: $(head -3 "$tmp/$1.speedscope")"
	set -- "$1" $(sed -n 's/^total \([0-9]*\) profiles \([0-9]*\) warnings$/\1 \2/p' "$tmp/$1.speedscope")
	profiles=${2:-0} warnings=${3:-?}
	if [ "$profiles" -ge 1 ] && ! grep -q '^warning speedscope imported nothing' "$tmp/$1.speedscope"; then
		ok
	else
		bad "$1: speedscope did not import it: $(head -3 "$tmp/$1.speedscope")"
	fi
	[ "$warnings" = 0 ] && ok || bad "$1: speedscope warned: $(grep -m3 '^warning' "$tmp/$1.speedscope")"
}

# timeline NAME LOG...: convert, load in both viewers, compare with what
# the log says; sets $slices and $flows to the expected counts
timeline() {
	name=$1; shift
	convert "$name" "$@"
	node "$ENGINE/expect_events.mjs" "$@" | LC_ALL=C sort >"$tmp/$name.exp"
	engine_facts "$name" >"$tmp/$name.got"
	slices=$(grep -c '^slice' "$tmp/$name.exp")
	flows=$(grep -c '^flow' "$tmp/$name.exp")
	grep -q '^engine-error' "$tmp/$name.got" && bad "$name: $(grep -m1 '^engine-error' "$tmp/$name.got")"
	grep -v '^flow' "$tmp/$name.exp" >"$tmp/$name.exp.slices"
	grep -v '^flow' "$tmp/$name.got" >"$tmp/$name.got.slices"
	same "$name: the engine's slices, no mismatch" "$tmp/$name.exp.slices" "$tmp/$name.got.slices"
	grep '^flow' "$tmp/$name.exp" >"$tmp/$name.exp.flows"
	grep '^flow' "$tmp/$name.got" >"$tmp/$name.got.flows"
	same "$name: the engine's flows" "$tmp/$name.exp.flows" "$tmp/$name.got.flows"
	speedscope "$name"
	echo "$t2_test: $name as written: $(grep -c '^slice' "$tmp/$name.got") of $slices slices," \
		"$(grep -c '^flow' "$tmp/$name.got") of $flows flows, $(grep -c '^mismatch' "$tmp/$name.got")" \
		"mismatches; speedscope: $profiles profiles, $warnings warnings"
}

# --- the library's own programs ----------------------------------------------
# Threads: the example hashes on two worker threads; the chrome target on
# in the same run.
GIT_TRACE2_EVENT="$tmp/hs.event" GIT_TRACE2_EVENT_NESTING=100 GIT_TRACE2_CHROME="$tmp/hs.chrome" \
	"$BIN/example-hashsort" src/tr2_buf.c src/tr2_sid.c src/tr2_json.c include/trace2.h >/dev/null
timeline hs "$tmp/hs.event"
grep -q '^slice [0-9]* th01:hasher 1 ' "$tmp/hs.exp" && ok || bad "hs: no nested region on a worker"

# The converted events are the target's own (sorted, one per line, as JSON
# writes them), a B and its E (the last B open on its pid and tid) as one
# X from the B's ts to the E's, with the E's args the B lacks; the event
# log carries timers to the microsecond only, so their arguments are left
# out.
events() {
	node -e 'const fs = require("fs");
		let t = fs.readFileSync(process.argv[1], "utf8"), v;
		try { v = JSON.parse(t); } catch { v = JSON.parse(t.replace(/,\s*$/, "") + "]"); }
		const open = new Map(), all = [];
		for (const e of Array.isArray(v) ? v : v.traceEvents) {
			const k = e.pid + " " + e.tid, o = open.get(k) ?? [];
			open.set(k, o);
			if (e.ph === "B") { o.push(e); all.push(e); }
			else if (e.ph === "E") {
				const b = o.pop();
				b.ph = "X";
				if (e.args && Object.keys(e.args).length)
					b.args = {...b.args, ...Object.fromEntries(Object.entries(e.args)
						.filter(([k]) => !(b.args && k in b.args)))};
				b.dur = e.ts - b.ts;
			}
			else all.push(e);
		}
		for (const e of all) {
			if (e.args && "intervals" in e.args) e.args = {intervals: e.args.intervals};
			console.log(JSON.stringify(e));
		}' "$1" | LC_ALL=C sort
}
events "$tmp/hs.chrome" >"$tmp/hs.target"
events "$tmp/hs.json" >"$tmp/hs.converted"
same "hs: converted = the chrome target's own events" "$tmp/hs.target" "$tmp/hs.converted"
grep -q '"intervals"' "$tmp/hs.target" && ok || bad "hs: no timer in the chrome trace"

# Children (three processes, one file), and the same as a directory target.
GIT_TRACE2_EVENT="$tmp/ch.event" GIT_TRACE2_EVENT_NESTING=100 \
	"$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 006data c k 7 >/dev/null
timeline ch "$tmp/ch.event"
[ "$flows" = 2 ] && ok || bad "ch: $flows flows, expected 2"
# Pids wrap around: a child's may be lower than its parent's.  The same
# log with the first process's pid above every other.
top=$(grep -m1 -o '"sid":"[^"/]*-P[0-9a-f]*"' "$tmp/ch.event" | sed 's/.*-P\([0-9a-f]*\)"$/\1/')
sed "s/-P$top\([\"/]\)/-P7fffffff\1/g" "$tmp/ch.event" >"$tmp/wrap.event"
timeline wrap "$tmp/wrap.event"
[ "$flows" = 2 ] && ok || bad "wrap: $flows flows, expected 2"
grep -q '^flow 2147483647 ' "$tmp/wrap.exp" && ok || bad "wrap: the first process's pid was not raised"
# A SID's pid above the range of a Chrome trace's pids (2^31 - 1): the
# process gets one from 0x7f000000, quietly.
sed "s/-P$top\([\"/]\)/-Pfffffff0\1/g" "$tmp/ch.event" >"$tmp/huge.event"
convert huge "$tmp/huge.event"
grep -q '"pid":2130706432,' "$tmp/huge.json" && ok || bad "huge: no pid 0x7f000000"
mkdir "$tmp/chdir"
GIT_TRACE2_EVENT="$tmp/chdir" GIT_TRACE2_EVENT_NESTING=100 \
	"$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 006data c k 7 >/dev/null
timeline chdir "$tmp/chdir"
[ "$flows" = 2 ] && ok || bad "chdir: $flows flows, expected 2"

# A log cut short (a crashed process): what is open is closed at the last
# time seen, and the file still loads.
head -n "$(($(wc -l <"$tmp/hs.event") / 2))" "$tmp/hs.event" >"$tmp/cut.event"
convert cut "$tmp/cut.event"
engine_facts cut >"$tmp/cut.got"
grep -q '^slice .* process$' "$tmp/cut.got" && ok || bad "cut: no process slice"
grep -q '^engine-error' "$tmp/cut.got" && bad "cut: $(grep -m1 '^engine-error' "$tmp/cut.got")" || ok
grep -q '^mismatch' "$tmp/cut.got" && bad "cut: $(grep -m1 '^mismatch' "$tmp/cut.got")" || ok
speedscope cut

# --- Git 2.55's logs (tests/git-logs/, as Git wrote them) ---------------------
# children LOG: a line per child_start whose child process is in the log,
# "<child_start us> <child_exit us> <the child's version us>".  The child
# is the process whose SID is the parent's and one more part and whose pid
# (the SID's "-P<hex>") is child_exit's; for a child started through a
# shell (use_shell: that pid is the shell's), the one such process no pid
# matched that started between child_start and child_exit.
children() {
	python3 - "$1" <<-'EOF'
	import calendar, json, sys
	def us(t):
	    day, frac = t.rstrip('Z').split('.')
	    return calendar.timegm(tuple(int(x) for x in day.replace('T', '-').replace(':', '-').split('-'))
	                           + (0, 0, 0)) * 1000000 + int(frac)
	recs = [json.loads(line) for line in open(sys.argv[1])]
	version = {r['sid']: us(r['time']) for r in recs if r['event'] == 'version'}
	starts = {(r['sid'], r['child_id']): r for r in recs if r['event'] == 'child_start'}
	exits = {(r['sid'], r['child_id']): r for r in recs if r['event'] == 'child_exit'}
	kids = lambda sid: [k for k in version if k.rsplit('/', 1)[0] == sid and '/' in k]
	pid = lambda sid: int(sid.rsplit('-P', 1)[1], 16)
	by_pid = {}
	for key, e in exits.items():
	    by_pid.update({k: key for k in kids(key[0]) if pid(k) == e['pid']})
	for key, s in starts.items():
	    e = exits.get(key)
	    if not e:
	        continue
	    begin, end = us(s['time']), us(e['time'])
	    mine = [k for k, v in by_pid.items() if v == key]
	    if not mine and s.get('use_shell'):
	        mine = [k for k in kids(key[0]) if k not in by_pid and begin <= version[k] <= end]
	    if len(mine) == 1:
	        print(begin, end, version[mine[0]])
	EOF
}

# linked_children NAME LOG: the engine's flows in
# $tmp/NAME.json are the log's children: one per child, from the parent
# between the child's start and exit to the child at its version time
linked_children() {
	children "$2" >"$tmp/$1.children"
	echo "$t2_test: $1: $(wc -l <"$tmp/$1.children") children with their process in the log"
	if awk 'FILENAME == ARGV[1] { want[++n] = $0; next }
		$1 == "flow" { got++; for (i = 1; i <= n; i++) { split(want[i], w, " ")
			if ($8 == w[3] && $4 >= w[1] && $4 <= w[2]) { found[i] = 1; break } } }
		END { for (i = 1; i <= n; i++) if (!found[i]) exit 1; exit got != n }' \
		"$tmp/$1.children" "$tmp/$1.engine"; then
		ok
	else
		bad "$1: the engine's flows are not the log's $(wc -l <"$tmp/$1.children") children"
	fi
}

for cmd in status log gc clone fetch; do
	log=tests/git-logs/git-2.55-$cmd.event
	timeline "git255-$cmd" "$log"
	[ "$slices" -ge 1 ] && ok || bad "git255-$cmd: no slice"
	# every child process linked, each process a pid of its own
	kids=$(grep -o '"sid":"[^"]*/[^"]*"' "$log" | sort -u | wc -l)
	sids=$(grep -o '"sid":"[^"]*"' "$log" | sort -u | wc -l)
	if [ -s "$tmp/git255-$cmd.facts" ]; then
		grep -qx "flows $kids" "$tmp/git255-$cmd.facts" && ok ||
			bad "git255-$cmd: $(grep flows "$tmp/git255-$cmd.facts") for $kids children"
		grep -qx "pids $sids" "$tmp/git255-$cmd.facts" && ok ||
			bad "git255-$cmd: $(grep pids "$tmp/git255-$cmd.facts") for $sids processes"
	fi
	if command -v python3 >/dev/null 2>&1; then
		linked_children "git255-$cmd" "$log"
	else
		echo "$t2_test: python3 not found: Git 2.55's children are not counted"
	fi
done

if ! command -v python3 >/dev/null 2>&1; then
	echo "$t2_test: python3 not found: Chrome files and reused pids are not checked"
	finish
	exit
fi

# --- Chrome files ---------------------------------------------------------------
# The chrome target's own file, three processes sharing it, live (no
# closing bracket): converted, strict, sorted, both children linked.
GIT_TRACE2_CHROME="$tmp/live.chrome" GIT_TRACE2_EVENT="$tmp/live.event" GIT_TRACE2_EVENT_NESTING=100 \
	"$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 006data c k 7 >/dev/null
head -c 1 "$tmp/live.chrome" | grep -q '\[' && ok || bad "live: not the array form"
convert live "$tmp/live.chrome"
as_written live 2
grep -qx 'flows 2' "$tmp/live.facts" && ok || bad "live: $(grep flows "$tmp/live.facts"), expected 2"
# the same events as the event log of the same run converts to, but for
# the flows' ids (the live target derives them from the child's command
# line, the converter from its pid)
events "$tmp/live.json" | sed 's/,"id":"[^"]*"//' >"$tmp/live.from-chrome"
convert live-ev "$tmp/live.event"
events "$tmp/live-ev.json" | sed 's/,"id":"[^"]*"//' >"$tmp/live.from-event"
same "live: the Chrome file converts as the event log does" "$tmp/live.from-event" "$tmp/live.from-chrome"
# converting the output again changes nothing
"$T2" convert --to chrome "$tmp/live.json" >"$tmp/again.json" 2>"$tmp/again.err"
same "live: converted twice" "$tmp/live.json" "$tmp/again.json"
# read from standard input
"$T2" convert --to chrome - <"$tmp/live.chrome" >"$tmp/stdin.json" 2>"$tmp/stdin.err"
same "live: from standard input" "$tmp/live.json" "$tmp/stdin.json"

# A directory target: one file per process, each closed with "]"; the
# directory converts to one file (the recipe in targets.md).
mkdir "$tmp/cdir"
GIT_TRACE2_CHROME="$tmp/cdir" "$TOOL" trace2 004child "$TOOL" trace2 004child \
	"$TOOL" trace2 006data c k 7 >/dev/null
[ "$(ls "$tmp/cdir" | wc -l)" = 3 ] && ok || bad "cdir: $(ls "$tmp/cdir" | wc -l) files, expected 3"
convert cdir "$tmp/cdir"
as_written cdir 2
# (Windows: and the memory use of each process, docs/embedding.md)
shape='s/"ts":[0-9]*//; s/"dur":[0-9]*//; s/"pid":[0-9]*//g; s/"sid":"[^"]*"//; s/"id":"[^"]*"//
	s/\("name":"windows\/memory",.*"args":\).*/\1/'
events "$tmp/cdir.json" | sed "$shape" | sort >"$tmp/cdir.shape"
events "$tmp/live.json" | sed "$shape" | sort >"$tmp/live.shape"
same "cdir: the same events as the shared file (times and ids aside)" "$tmp/live.shape" "$tmp/cdir.shape"

# A file cut short (maxFileSize, a crash): the last line cut in the
# middle is reported, the rest converts and loads.
size=$(wc -c <"$tmp/live.chrome")
cut=$((size * 2 / 3))
# in the middle of a line: one byte more where two thirds end one
[ "$(head -c "$cut" "$tmp/live.chrome" | tail -c 1 | od -An -c | tr -d ' ')" = '\n' ] &&
	cut=$((cut + 1))
head -c "$cut" "$tmp/live.chrome" >"$tmp/cutc.chrome"
"$T2" convert --to chrome "$tmp/cutc.chrome" >"$tmp/cutc.json" 2>"$tmp/cutc.err" && ok ||
	bad "cutc: exit $?"
grep -q "cutc.chrome:[0-9]*: warning: last line, no newline" "$tmp/cutc.err" && ok || bad "cutc: the cut line not reported: $(cat "$tmp/cutc.err")"
strict_sorted "$tmp/cutc.json" >"$tmp/cutc.facts" 2>&1 && ok || bad "cutc: $(tail -1 "$tmp/cutc.facts")"
engine_facts cutc >"$tmp/cutc.got"
grep -q '^mismatch\|^engine-error' "$tmp/cutc.got" && bad "cutc: $(grep -m1 '^mismatch\|^engine-error' "$tmp/cutc.got")" || ok
GIT_TRACE2_MAX_FILE_SIZE=3000 GIT_TRACE2_CHROME="$tmp/max.chrome" \
	"$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 006data c k 7 >/dev/null
"$T2" convert --to chrome "$tmp/max.chrome" >"$tmp/max.json" 2>"$tmp/max.err"
strict_sorted "$tmp/max.json" >"$tmp/max.facts" 2>&1 && ok || bad "max: $(tail -1 "$tmp/max.facts")"

# Hostile lines: each reported with its line number and left out, the
# good ones kept; an E's args that its B lacks are added to the X.
{
	echo '['
	echo '{"name":"a","ph":"i","ts":10,"pid":1,"tid":1,"s":"t"},'
	echo '{"name":"b","ph":"i","ts":10,"pid":-1,"tid":1},'
	echo '{"name":"c","ph":"i","ts":10,"pid":2147483648,"tid":1},'
	echo '{"name":"d","ph":"i","ts":1.5,"pid":1,"tid":1},'
	echo '{"name":"e","ph":"i","ts":9007199254740993,"pid":1,"tid":1},'
	echo '{"name":"f","ph":"i","ts":10,"pid":1,"tid":4294967296},'
	echo '{"name":"g","ph":"X","ts":10,"pid":1,"tid":1},'
	echo '{"name":"h","ph":"ii","ts":10,"pid":1,"tid":1},'
	echo '{"name":"i","ph":"i","ph":"i","ts":10,"pid":1,"tid":1},'
	echo '{"name":"j","ph":"s","ts":10,"pid":1,"tid":1},'
	echo '{"name":"k","ph":"i","ts":10,"pid":1,"tid":1,"args":{"v":"caf\xff"}},' | sed 's/\\xff/'"$(printf '\377')"'/'
	echo 'nonsense'
	echo '{"name":"l","ph":"B","ts":20,"pid":1,"tid":1},'
	echo '{"name":"l","ph":"E","ts":30,"pid":1,"tid":1},'
	echo '{"name":"m","ph":"E","ts":40,"pid":1,"tid":1},'
	echo '{"name":"n","ph":"B","ts":50,"pid":1,"tid":1,"dur":5},'
	echo '{"name":"o","ph":"B","ts":60,"pid":1,"tid":1,"args":{"a":1}},'
	echo '{"name":"o","ph":"E","ts":70,"pid":1,"tid":1,"args":{"a":2,"b":"\u00e9"}},'
	echo '{"name":"p","ph":"X","ts":80,"dur":0.001,"pid":1,"tid":1},'
	echo '{"name":"q","ph":"X","ts":80,"dur":1e3,"pid":1,"tid":1},'
	echo '{"name":"r","ph":"X","ts":80,"dur":9007199254740913,"pid":1,"tid":1},'
} >"$tmp/hostile.chrome"
"$T2" convert --to chrome "$tmp/hostile.chrome" >"$tmp/hostile.json" 2>"$tmp/hostile.err"
[ $? = 0 ] && ok || bad "hostile: exit status"
for n in 3 4 5 6 7 8 9 10 11 13 17 21 22; do
	grep -q "^$tmp/hostile.chrome:$n: " "$tmp/hostile.err" && ok || bad "hostile: line $n not reported"
done
[ "$(wc -l <"$tmp/hostile.err")" = 13 ] && ok || bad "hostile: $(wc -l <"$tmp/hostile.err") reports, expected 13"
python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(" ".join(e["name"] + e["ph"] + str(e.get("dur", "")) for e in ev))
print(ev[1]["args"]["v"])
print(json.dumps(ev[3]["args"]))' "$tmp/hostile.json" >"$tmp/hostile.got"
printf 'ai ki lX10 oX10 pX0.001\ncaf\357\277\275\n{"a": 1, "b": "\\u00e9"}\n' >"$tmp/hostile.exp"
same "hostile: the good events" "$tmp/hostile.exp" "$tmp/hostile.got"

# --- Pids reused -----------------------------------------------------------------
# 5,000 processes, each a version, a start and an atexit, their pids from
# 300 numbers; the first with a pid keeps it, each other gets one no
# process had, and its process_name says the real one.
python3 -c '
import random
random.seed(7)
for i in range(5000):
	pid = 1000 + random.randrange(300)
	sid = "20260101T000000.%06dZ-H0a7c9cdf-P%08x" % (i, pid)
	t = "2026-01-01T00:00:%02d.%06dZ" % (i // 1000, i % 1000 * 1000)
	u = "2026-01-01T00:00:%02d.%06dZ" % (i // 1000, i % 1000 * 1000 + 500)
	print("{\"event\":\"version\",\"sid\":\"%s\",\"thread\":\"main\",\"time\":\"%s\",\"evt\":\"4\",\"exe\":\"2.55.0\"}" % (sid, t))
	print("{\"event\":\"start\",\"sid\":\"%s\",\"thread\":\"main\",\"time\":\"%s\",\"t_abs\":0.000001,\"argv\":[\"git\",\"p%d\"]}" % (sid, t, i))
	print("{\"event\":\"atexit\",\"sid\":\"%s\",\"thread\":\"main\",\"time\":\"%s\",\"t_abs\":0.000500,\"code\":0}" % (sid, u))
' >"$tmp/reuse.event"
convert reuse "$tmp/reuse.event"
grep -qx 'pids 5000' "$tmp/reuse.facts" && ok || bad "reuse: $(grep pids "$tmp/reuse.facts"), expected 5000"
python3 -c '
import json, re, sys
real = {}
for line in open(sys.argv[1]):
	e = json.loads(line)
	if e["event"] == "start":
		real[e["argv"][1]] = int(e["sid"][-8:], 16)
ev = json.load(open(sys.argv[2]))["traceEvents"]
seen, bad = set(), 0
names = {e["pid"]: e["args"]["name"] for e in ev if e["name"] == "process_name"}
for e in ev:
	if e["name"] != "start": continue
	p, r = e["pid"], real[e["args"]["argv"][1]]
	if r not in seen:
		seen.add(r)
		bad += p != r or "[pid" in names[p]
	else:
		bad += p in real.values() or not names[p].endswith("[pid %d]" % r)
print(bad)' "$tmp/reuse.event" "$tmp/reuse.json" >"$tmp/reuse.bad"
[ "$(cat "$tmp/reuse.bad")" = 0 ] && ok || bad "reuse: $(cat "$tmp/reuse.bad") processes with the wrong pid or name"

# --- the installed git ---------------------------------------------------------
if command -v git >/dev/null 2>&1; then
	g="$tmp/git"
	(
		mkdir -p "$g" && cd "$g" && git init -q src && cd src &&
		for i in 1 2 3; do echo "$i" >"f$i"; git add "f$i";
			git -c user.name=t -c user.email=t@t commit -q -m "c$i"; done
	) >/dev/null 2>&1
	export GIT_TRACE2_EVENT_NESTING=100
	GIT_TRACE2_EVENT="$tmp/status.event" git -C "$g/src" status >/dev/null 2>&1
	GIT_TRACE2_EVENT="$tmp/log.event" git -C "$g/src" log --oneline >/dev/null 2>&1
	GIT_TRACE2_EVENT="$tmp/gc.event" git -C "$g/src" gc -q >/dev/null 2>&1
	GIT_TRACE2_EVENT="$tmp/clone.event" git clone -q --no-local "$g/src" "$g/clone" >/dev/null 2>&1
	unset GIT_TRACE2_EVENT_NESTING
	for cmd in status log gc clone; do
		timeline "git-$cmd" "$tmp/$cmd.event"
		[ "$slices" -ge 1 ] && ok || bad "git-$cmd: no slice"
		# every child process linked to its parent (clone's upload-pack
		# through a shell too)
		kids=$(grep -o '"sid":"[^"]*/[^"]*"' "$tmp/$cmd.event" | sort -u | wc -l)
		[ "$flows" = "$kids" ] && ok || bad "git-$cmd: $flows flows for $kids child processes"
	done
	grep -q '^slice [0-9]* main 1 .* refresh$' "$tmp/git-status.exp" && ok ||
		bad "git status: no refresh region"
	timeline git-all "$tmp/status.event" "$tmp/log.event" "$tmp/gc.event" "$tmp/clone.event"
	[ "$flows" -ge 10 ] && ok || bad "git: $flows flows, expected gc's and clone's children"
else
	echo "$t2_test: git not found: the Git logs are not checked"
fi

finish
