#!/bin/sh
# trace2 convert, summary and validate read recordings
# (docs/record-format.md), made here by tests/record/mkrec.py, an encoder
# written from that page alone:
# - every event kind (tests/record/kinds.desc: two processes, two threads,
#   string tables, drops, a block of a later version) converts to the
#   text the same records give as an event log written by hand
#   (tests/record/kinds.event), --to perf, normal, chrome and otlp, and
#   summarizes the same; some lines checked as docs/targets.md lays them
#   out;
# - site records (SITES blocks) convert to what the same events as full
#   records give, per process, and afresh in the next file of a process;
# - local times come from the recording's TZ blocks, whatever the
#   machine's time zone, a daylight-saving change included;
# - a thread's lost records come out as a count at the thread's level;
# - a recording cut anywhere reads its whole records and says it is cut;
# - every malformed block is reported as FILE: offset N: WHAT, skipped,
#   and the blocks after it read, with no crash;
# - recordings with event logs, in a directory, on standard input;
# - round trip: driver runs with the record target and the perf and event
#   targets in deferred mode at once: the recording converted equals the
#   live text, each sorted by process and thread.
# usage: T2_BIN=build/bin tests/tools/test_tool_record.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
rec_dir=$(cd "$(dirname "$0")/../record" && pwd)

if ! command -v python3 >/dev/null 2>&1; then
	echo "$t2_test: skipped: no python3 to run tests/record/mkrec.py"
	exit 0
fi

# mkrec NAME: the description on stdin to $tmp/NAME.rec
mkrec() {
	python3 "$rec_dir/mkrec.py" - "$tmp/$1.rec" || bad "$1: mkrec.py failed"
}

# --- every kind, against the same records as an event log ------------------
sed '/^#/d' "$rec_dir/kinds.desc" | mkrec kinds
for fmt in perf normal; do
	TZ=XXX-1 "$T2" convert --to $fmt "$rec_dir/kinds.event" >"$tmp/kinds.exp.$fmt"
	for zone in UTC XXX+5 XXX-9:30; do
		TZ=$zone converted $fmt "$tmp/kinds.$fmt" "$tmp/kinds.rec" &&
			same "kinds --to $fmt, TZ=$zone" "$tmp/kinds.exp.$fmt" "$tmp/kinds.$fmt"
	done
done
for fmt in chrome otlp; do
	"$T2" convert --to $fmt "$rec_dir/kinds.event" >"$tmp/kinds.exp.$fmt"
	converted $fmt "$tmp/kinds.$fmt" "$tmp/kinds.rec" &&
		same "kinds --to $fmt" "$tmp/kinds.exp.$fmt" "$tmp/kinds.$fmt"
done
# as docs/targets.md lays them out: the local time at UTC+1, file:line in
# 28 columns, depth, thread in 24, event in 12, repo, t_abs, t_rel, category
# in 12, two dots per open region
cat >"$tmp/lines.exp" <<'EOF'
23:13:20.000010 t.c:1                        | d0 | main                     | version      |     |           |           |              | 0.1.0
23:13:20.000200 t.c:20                       | d0 | main                     | region_enter | r1  |  0.000200 |           | cat          | label:outer m1
23:13:20.000255 u.c:30                       | d0 | main                     | data         |     |  0.000255 |  0.000055 | cat          | ..k2:v2
23:13:20.000530 w.c:3                        | d0 | th01:worker              | region_leave |     |  0.000530 |  0.000010 | w            | label:job
23:13:20.000540                              | d0 | th01:worker              | data         |     |  0.000540 |  0.000000 | trace2       | dropped:3
23:13:20.000506 c.c:2                        | d1 | main                     | start        |     |  0.000006 |           |              | child
23:13:20.001000 t.c:50                       | d0 | main                     | exit         |     |  0.001000 |           |              | code:0
EOF
grep -Fx -f "$tmp/lines.exp" "$tmp/kinds.perf" >"$tmp/lines.got"
same "kinds: lines as targets.md shows them" "$tmp/lines.exp" "$tmp/lines.got"
cat >"$tmp/normal.exp" <<'EOF'
23:13:20.000020 t.c:2                             start prog 'a b' 'it'\''s'
23:13:20.000050 t.c:5                             cmd_name prog (prog)
23:13:20.001010 trace2/tr2_tgt_normal.c:128       atexit elapsed:0.001010 code:0
EOF
grep -Fx -f "$tmp/normal.exp" "$tmp/kinds.normal" >"$tmp/normal.got"
same "kinds --to normal: lines as targets.md shows them" "$tmp/normal.exp" "$tmp/normal.got"
"$T2" summary "$rec_dir/kinds.event" >"$tmp/sum.exp" 2>&1
"$T2" summary "$tmp/kinds.rec" >"$tmp/sum.got" 2>&1
same "kinds: summary" "$tmp/sum.exp" "$tmp/sum.got"
grep -q 'cat/outer' "$tmp/sum.got" && ok || bad "kinds: summary without its region"
if "$T2" validate --strict "$tmp/kinds.rec" >"$tmp/val.out" 2>"$tmp/val.err"; then ok; else
	bad "kinds: validate failed: $(head -3 "$tmp/val.out")"
fi
grep -q ' 0 lines, 36 records, 0 errors, 0 warnings' "$tmp/val.err" && ok ||
	bad "kinds: validate's count: $(cat "$tmp/val.err")"

# --- site records: as the same events in full records ----------------------
# Two processes with tables of their own; process 3's second EVENTS block
# starts at a t_abs of its own, which its site records move by dtime.
mkrec sites <<'EOF'
[("magic",),
 ("process", 3, {"sid": "S3", "start": 1700000000000000}),
 ("strings", 3, 2, ["r.c", "cat", "lbl", "inner"]),
 ("sites", 3, 0, [(2, 30, 3, 4, -1), (2, 32, 3, 4, -1)]),
 ("sites", 3, 2, [(None, 0, None, 5, 2)]),
 ("thread", 3, 0, "main"), ("tz", 3, 0, 0),
 ("process", 4, {"sid": "S4", "start": 1700000000000000}),
 ("strings", 4, 2, ["q.c", "c4"]),
 ("sites", 4, 0, [(2, 7, 3, None, -1)]),
 ("thread", 4, 0, "main"), ("tz", 4, 0, 0),
 ("events", 3, 0, 1700000000000000, 0, [
   ("version", {"time": 1700000000000000, "t_abs": 0, "file": 2, "line": 1, "exe": "1"}),
   ("region_enter", {"time": 1700000000000005, "site": 0}),
   ("region_enter", {"time": 1700000000000007, "site": 2, "nesting": 2}),
   ("region_leave", {"time": 1700000000000009, "site": 2, "nesting": 2, "t_rel": 2}),
   ("region_enter", {"time": 1700000000000010, "t_abs": 10, "file": 2, "line": 31,
                     "category": 3, "label": 4, "msg": "m", "nesting": 2}),
   ("region_leave", {"time": 1700000000000012, "t_abs": 12, "file": 2, "line": 31,
                     "category": 3, "label": 4, "msg": "m", "nesting": 2, "t_rel": 2}),
   ("region_leave", {"time": 1700000000000020, "site": 1, "t_rel": 15})]),
 ("events", 4, 0, 1700000000000000, 0, [
   ("region_enter", {"time": 1700000000000004, "site": 0})]),
 ("events", 3, 0, 1700000000000020, 25, [
   ("region_enter", {"time": 1700000000000023, "site": 0})])]
EOF
mkrec sites_full <<'EOF'
[("magic",),
 ("process", 3, {"sid": "S3", "start": 1700000000000000}),
 ("strings", 3, 2, ["r.c", "cat", "lbl", "inner"]),
 ("thread", 3, 0, "main"), ("tz", 3, 0, 0),
 ("process", 4, {"sid": "S4", "start": 1700000000000000}),
 ("thread", 4, 0, "main"), ("tz", 4, 0, 0),
 ("events", 3, 0, 1700000000000000, 0, [
   ("version", {"time": 1700000000000000, "t_abs": 0, "file": 2, "line": 1, "exe": "1"}),
   ("region_enter", {"time": 1700000000000005, "t_abs": 5, "file": "r.c", "line": 30,
                     "category": "cat", "label": "lbl"}),
   ("region_enter", {"time": 1700000000000007, "t_abs": 7, "label": "inner", "repo": 2,
                     "nesting": 2}),
   ("region_leave", {"time": 1700000000000009, "t_abs": 9, "label": "inner", "repo": 2,
                     "nesting": 2, "t_rel": 2}),
   ("region_enter", {"time": 1700000000000010, "t_abs": 10, "file": 2, "line": 31,
                     "category": 3, "label": 4, "msg": "m", "nesting": 2}),
   ("region_leave", {"time": 1700000000000012, "t_abs": 12, "file": 2, "line": 31,
                     "category": 3, "label": 4, "msg": "m", "nesting": 2, "t_rel": 2}),
   ("region_leave", {"time": 1700000000000020, "t_abs": 20, "file": 2, "line": 32,
                     "category": 3, "label": 4, "t_rel": 15})]),
 ("events", 4, 0, 1700000000000000, 0, [
   ("region_enter", {"time": 1700000000000004, "t_abs": 4, "file": "q.c", "line": 7,
                     "category": "c4"})]),
 ("events", 3, 0, 1700000000000020, 25, [
   ("region_enter", {"time": 1700000000000023, "t_abs": 28, "file": 2, "line": 30,
                     "category": 3, "label": 4})])]
EOF
# the next file of process 3 (a rotation): its tables start afresh, the
# same numbers naming other strings and sites
mkrec sites_next <<'EOF'
[("magic",),
 ("process", 3, {"sid": "S3", "start": 1700000000000000}),
 ("strings", 3, 2, ["z.c", "c2", "l2"]),
 ("sites", 3, 0, [(2, 99, 3, 4, 1)]),
 ("thread", 3, 0, "main"), ("tz", 3, 0, 0),
 ("events", 3, 0, 1700000000000030, 30, [
   ("region_leave", {"time": 1700000000000031, "site": 0, "t_rel": 8})])]
EOF
mkrec sites_next_full <<'EOF'
[("magic",),
 ("process", 3, {"sid": "S3", "start": 1700000000000000}),
 ("thread", 3, 0, "main"), ("tz", 3, 0, 0),
 ("events", 3, 0, 1700000000000030, 30, [
   ("region_leave", {"time": 1700000000000031, "t_abs": 31, "file": "z.c", "line": 99,
                     "category": "c2", "label": "l2", "repo": 1, "t_rel": 8})])]
EOF
for fmt in perf event normal; do
	"$T2" convert --to $fmt "$tmp/sites_full.rec" "$tmp/sites_next_full.rec" \
		>"$tmp/sites.exp.$fmt" 2>&1
	converted $fmt "$tmp/sites.$fmt" "$tmp/sites.rec" "$tmp/sites_next.rec" &&
		same "site records --to $fmt: as full records" "$tmp/sites.exp.$fmt" \
			"$tmp/sites.$fmt"
done
grep -q 'r.c:30 .*| region_enter |.*| cat          | label:lbl$' "$tmp/sites.perf" &&
	grep -q 'z.c:99 .*| region_leave | r1  |  0.000031 |  0.000008 | c2 .*| label:l2$' \
		"$tmp/sites.perf" && ok || bad "site records: not the sites' fields"
"$T2" validate "$tmp/sites.rec" "$tmp/sites_next.rec" >"$tmp/sites.val" 2>&1 &&
	grep -q ' 10 records, 0 errors' "$tmp/sites.val" && ok ||
	bad "site records: validate failed: $(head -3 "$tmp/sites.val")"
# Records alike in their bytes and microsecond are not a log read twice:
# two threads entering at one site in one microsecond, and a loop that
# enters it again; the same file given twice still is.
mkrec alike <<'EOF'
[("magic",),
 ("process", 5, {"sid": "S5", "start": 1700000000000000}),
 ("strings", 5, 2, ["a.c", "cat", "lbl"]),
 ("sites", 5, 0, [(2, 3, 3, 4, -1)]),
 ("thread", 5, 0, "main"), ("thread", 5, 1, "th01:w"), ("tz", 5, 0, 0),
 ("events", 5, 0, 1700000000000000, 0, [
   ("region_enter", {"time": 1700000000000000, "site": 0}),
   ("region_leave", {"time": 1700000000000000, "site": 0, "t_rel": 0}),
   ("region_enter", {"time": 1700000000000000, "site": 0}),
   ("region_leave", {"time": 1700000000000000, "site": 0, "t_rel": 0})]),
 ("events", 5, 1, 1700000000000000, 0, [
   ("region_enter", {"time": 1700000000000000, "site": 0}),
   ("region_leave", {"time": 1700000000000000, "site": 0, "t_rel": 0})])]
EOF
converted perf "$tmp/alike.perf" "$tmp/alike.rec" &&
	[ "$(grep -c 'region_enter' "$tmp/alike.perf")" = 3 ] && ok ||
	bad "records alike in bytes and time: not all read: $(cat "$tmp/alike.perf.err")"
"$T2" convert --to perf "$tmp/alike.rec" "$tmp/alike.rec" >"$tmp/alike2.perf" \
	2>"$tmp/alike2.err"
if grep -q "^$tmp/alike.rec:[0-9]*: a record read before, again" "$tmp/alike2.err" &&
	[ "$(wc -l <"$tmp/alike2.err")" = 1 ] && cmp -s "$tmp/alike.perf" "$tmp/alike2.perf"; then
	ok
else
	bad "a recording given twice: not read once: $(head -3 "$tmp/alike2.err")"
fi
# the next file does not know the sites of the file before
mkrec sites_next_undef <<'EOF'
[("magic",),
 ("process", 3, {"sid": "S3", "start": 1700000000000000}),
 ("thread", 3, 0, "main"),
 ("events", 3, 0, 1700000000000030, 30, [("region_leave", {"time": 1700000000000031,
  "site": 1, "t_rel": 8})])]
EOF
"$T2" convert --to perf "$tmp/sites.rec" "$tmp/sites_next_undef.rec" >/dev/null \
	2>"$tmp/sites_next_undef.err"
grep -q "sites_next_undef.rec: offset [0-9]*: site number 1 is not defined" \
	"$tmp/sites_next_undef.err" && ok ||
	bad "a site of the file before: $(cat "$tmp/sites_next_undef.err")"

# --- local time: the TZ blocks, a daylight-saving change -------------------
# +1 h, then +2 h from T0 + 3600 s; a thread's block written after the
# change holds a record from before it.
mkrec tz <<'EOF'
[("magic",),
 ("process", 1, {"sid": "S1", "start": 1700000000000000}),
 ("thread", 1, 0, "main"),
 ("thread", 1, 1, "th01:late"),
 ("tz", 1, 1700000000000000, 3600),
 ("events", 1, 0, 1700000000000000, 0, [
   ("version", {"time": 1700000000000000, "t_abs": 0, "file": "a.c", "line": 1, "exe": "1"}),
   ("cmd_mode", {"time": 1700003599000000, "t_abs": 3599000000, "file": "a.c", "line": 2,
                 "name": "before"})]),
 ("tz", 1, 1700003600000000, 7200),
 ("events", 1, 0, 1700003599000000, 3599000000, [
   ("cmd_mode", {"time": 1700003600000000, "t_abs": 3600000000, "file": "a.c", "line": 3,
                 "name": "after"})]),
 ("events", 1, 1, 1700003500000000, 3500000000, [
   ("printf", {"time": 1700003500000001, "t_abs": 3500000001, "file": "b.c", "line": 1,
               "msg": "late"})])]
EOF
cat >"$tmp/tz.exp" <<'EOF'
23:13:20.000000 a.c:1                             version 1
00:13:19.000000 a.c:2                             cmd_mode before
01:13:20.000000 a.c:3                             cmd_mode after
00:11:40.000001 b.c:1                             late
EOF
for zone in UTC XXX+5 XXX-9:30; do
	TZ=$zone converted normal "$tmp/tz.normal" "$tmp/tz.rec" &&
		same "TZ blocks, TZ=$zone" "$tmp/tz.exp" "$tmp/tz.normal"
done

# --- several threads: each in order, blocks in file order ------------------
mkrec threads <<'EOF'
[("magic",),
 ("process", 5, {"sid": "S5", "start": 1700000000000000}),
 ("thread", 5, 0, "main"), ("thread", 5, 1, "th01:a"), ("thread", 5, 2, "th02:b"),
 ("tz", 5, 0, 0),
 ("events", 5, 1, 1700000000000000, 0, [
   ("printf", {"time": 1700000000000003, "t_abs": 3, "file": "x.c", "line": 1, "msg": "a1"}),
   ("printf", {"time": 1700000000000004, "t_abs": 4, "file": "x.c", "line": 1,
               "msg": "a2"})]),
 ("events", 5, 2, 1700000000000000, 0, [
   ("printf", {"time": 1700000000000001, "t_abs": 1, "file": "y.c", "line": 2, "msg": "b1"})]),
 ("events", 5, 1, 1700000000000004, 4, [
   ("printf", {"time": 1700000000000002, "t_abs": 9, "file": "x.c", "line": 3, "msg": "a3"})]),
 ("events", 5, 0, 1700000000000000, 0, [
   ("printf", {"time": 1700000000000000, "t_abs": 0, "file": "m.c", "line": 4, "msg": "m1"})])]
EOF
cat >"$tmp/threads.exp" <<'EOF'
22:13:20.000003 x.c:1                        | d0 | th01:a                   | printf       |     |  0.000003 |           |              | a1
22:13:20.000004 x.c:1                        | d0 | th01:a                   | printf       |     |  0.000004 |           |              | a2
22:13:20.000001 y.c:2                        | d0 | th02:b                   | printf       |     |  0.000001 |           |              | b1
22:13:20.000002 x.c:3                        | d0 | th01:a                   | printf       |     |  0.000009 |           |              | a3
22:13:20.000000 m.c:4                        | d0 | main                     | printf       |     |  0.000000 |           |              | m1
EOF
TZ=XXX-3 converted perf "$tmp/threads.perf" "$tmp/threads.rec" &&
	same "threads: blocks in file order, deltas per block" "$tmp/threads.exp" "$tmp/threads.perf"

# --- drops: the count at the level of where it comes -----------------------
# Lost before the inner region's leave, before the outer one's, before the
# END: each count a data record at the thread's level there (3, 2, then 1
# after atexit), as validate --strict wants it.
mkrec drops <<'EOF'
[("magic",),
 ("process", 6, {"sid": "20231114T221320.000000Z-H00000001-P00000006", "pid": 6,
                 "start": 1700000000000000, "version": "0.1.0"}),
 ("thread", 6, 0, "main"),
 ("tz", 6, 0, 0),
 ("events", 6, 0, 1700000000000000, 0, [
   ("version", {"time": 1700000000000001, "t_abs": 1, "exe": "0.1.0"}),
   ("start", {"time": 1700000000000002, "t_abs": 2, "argv": ["prog"]}),
   ("region_enter", {"time": 1700000000000003, "t_abs": 3, "category": "c",
                     "label": "outer"}),
   ("region_enter", {"time": 1700000000000004, "t_abs": 4, "nesting": 2, "category": "c",
                     "label": "inner"})]),
 ("dropped", 6, 0, 3),
 ("events", 6, 0, 1700000000000004, 4, [
   ("region_leave", {"time": 1700000000000005, "t_abs": 5, "t_rel": 1, "nesting": 2,
                     "category": "c", "label": "inner"})]),
 ("dropped", 6, 0, 2),
 ("events", 6, 0, 1700000000000005, 5, [
   ("region_leave", {"time": 1700000000000006, "t_abs": 6, "t_rel": 3, "category": "c",
                     "label": "outer"}),
   ("exit", {"time": 1700000000000007, "t_abs": 7}),
   ("atexit", {"time": 1700000000000008, "t_abs": 8})]),
 ("dropped", 6, 0, 4),
 ("end", 6, 0)]
EOF
if GIT_TRACE2_EVENT_NESTING=10 converted event "$tmp/drops.event" "$tmp/drops.rec"; then
	key='"category":"trace2","key":"dropped","value"'
	sed -n "s/.*\"nesting\":\([0-9]*\),$key:\"\([0-9]*\)\".*/\1 \2/p" "$tmp/drops.event" |
		tr '\n' ' ' >"$tmp/drops.got"
	printf '3 3 2 2 1 4 ' >"$tmp/drops.exp"
	same "drops: each at its thread's level" "$tmp/drops.exp" "$tmp/drops.got"
fi
for f in drops.rec drops.event; do
	"$T2" validate --strict "$tmp/$f" >"$tmp/drops.val" 2>&1 && ok ||
		bad "validate --strict $f: $(head -3 "$tmp/drops.val")"
done

# the tests' other reader of recordings, decode.py, reads mkrec.py's too
# (kinds.rec: with a block of a later version, skipped)
python3 "$rec_dir/decode.py" "$tmp/kinds.rec" "$tmp/tz.rec" "$tmp/threads.rec" >"$tmp/dec" 2>&1 && ok ||
	bad "decode.py: $(tail -1 "$tmp/dec")"

# --- inputs: with an event log, a directory, standard input ---------------
mkdir "$tmp/dir"
cp "$tmp/threads.rec" "$tmp/dir/1.rec"
sed 's/P00000042/P00000099/g' "$rec_dir/kinds.event" >"$tmp/dir/2.event"
TZ=XXX-1 "$T2" convert --to perf "$tmp/dir/2.event" >"$tmp/dir2.perf"
cat "$tmp/threads.exp" "$tmp/dir2.perf" >"$tmp/mixed.exp"
TZ=XXX-1 converted perf "$tmp/mixed.perf" "$tmp/dir" &&
	same "a directory of a recording and an event log" "$tmp/mixed.exp" "$tmp/mixed.perf"
"$T2" convert --to perf - <"$tmp/threads.rec" >"$tmp/stdin.perf" 2>"$tmp/stdin.err"
same "a recording on standard input" "$tmp/threads.exp" "$tmp/stdin.perf"

# --- cut recordings ------------------------------------------------------------
# Cut after every 5th byte: no crash, the records read are the first ones
# of the whole file's (drops aside: told at the end when the cut leaves
# their thread no next record), and the cut is said unless the cut falls
# between blocks (their offsets from the blocks' lengths, u32 at 4).
size=$(wc -c <"$tmp/kinds.rec")
grep -v dropped "$tmp/kinds.perf" >"$tmp/kinds.nodrop"
bounds=" $(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
o = 16
while o < len(b):
    print(o, end=" ")
    o += 16 + struct.unpack_from("<I", b, o + 4)[0]
' "$tmp/kinds.rec") "
n=1 cut_bad=0
while [ $n -lt "$size" ]; do
	head -c $n "$tmp/kinds.rec" >"$tmp/cut.rec"
	"$T2" convert --to perf "$tmp/cut.rec" >"$tmp/cut.perf" 2>"$tmp/cut.err"
	st=$?
	lines=$(grep -vc dropped "$tmp/cut.perf")
	head -n "$lines" "$tmp/kinds.nodrop" >"$tmp/cut.exp"
	said=0
	grep -q "^$tmp/cut.rec: warning: offset [0-9]*: the recording ends inside a block" \
		"$tmp/cut.err" && said=1
	case $bounds in *" $n "*) [ ! -s "$tmp/cut.err" ] && said=1 ;; esac
	if [ $st -ne 0 ] || ! grep -v dropped "$tmp/cut.perf" | cmp -s - "$tmp/cut.exp" ||
		[ $said = 0 ]; then
		cut_bad=$((cut_bad + 1))
		[ $cut_bad -gt 1 ] || bad "cut at $n bytes (status $st): $(head -2 "$tmp/cut.err")"
	fi
	n=$((n + 5))
done
[ $cut_bad -eq 0 ] && ok
# cut inside the last record (atexit, 7 bytes) of the last EVENTS block
# (the END block, 17 bytes, follows): the block's records before it
head -c $((size - 17 - 3)) "$tmp/kinds.rec" >"$tmp/cut.rec"
"$T2" convert --to perf "$tmp/cut.rec" >"$tmp/cut.perf" 2>/dev/null
head -n -1 "$tmp/kinds.perf" >"$tmp/cut.exp"
same "cut in the last record: the records before it" "$tmp/cut.exp" "$tmp/cut.perf"
"$T2" validate "$tmp/cut.rec" >"$tmp/cut.val" 2>/dev/null
grep -q ': warning: offset [0-9]*: the recording ends inside a block' "$tmp/cut.val" && ok ||
	bad "validate: no warning for a cut recording"
"$T2" validate --strict "$tmp/cut.rec" >/dev/null 2>&1 && ok ||
	bad "validate --strict: a cut recording fails it (a cut event log does not)"

# --- round trip: the record target and the text targets in one run -------
# Deferred mode writes each thread's records in order, threads' batches
# as they come: sorted (stably) by process and thread, the live perf and
# event text equals the recording converted.  Nothing may be dropped.
by_thread_perf() { sort -s -t'|' -k2,3 "$1"; }
by_thread_event() {
	awk '{ match($0, /"sid":"[^"]*","thread":"[^"]*"/)
	       print substr($0, RSTART, RLENGTH) "\t" $0 }' "$1" |
		sort -s -t"$(printf '\t')" -k1,1 | cut -f2-
}
# round NAME COMMAND...
round() {
	name=$1
	shift
	rm -f "$tmp/$name".*
	GIT_TRACE2_DEFERRED=1 GIT_TRACE2_RECORD=$tmp/$name.rec GIT_TRACE2_PERF=$tmp/$name.perf \
		GIT_TRACE2_EVENT=$tmp/$name.event GIT_TRACE2_EVENT_NESTING=100 \
		"$@" >/dev/null 2>&1
	if ! grep -q . "$tmp/$name.perf" || grep -q dropped "$tmp/$name.perf"; then
		bad "$name: no perf text, or drops"
		return
	fi
	for fmt in perf event; do
		GIT_TRACE2_EVENT_NESTING=100 converted $fmt "$tmp/$name.conv.$fmt" "$tmp/$name.rec" ||
			continue
		by_thread_$fmt "$tmp/$name.$fmt" >"$tmp/$name.live.sorted"
		by_thread_$fmt "$tmp/$name.conv.$fmt" >"$tmp/$name.conv.sorted"
		same "round trip $name --to $fmt" "$tmp/$name.live.sorted" "$tmp/$name.conv.sorted"
	done
}
round return "$TOOL" trace2 001return 3
round error "$TOOL" trace2 003error oops "second one"
round child "$TOOL" trace2 004child "$TOOL" trace2 006data c k v
round data "$TOOL" trace2 006data cat1 key1 value1 cat2 key2 value2
round timers "$TOOL" trace2 101timer 5 1 3
round counters "$TOOL" trace2 201counter 3 4 3
round redact "$TOOL" trace2 301redact_child_start git fetch https://u:pw@h/x
round exit "$TOOL" trace2 002exit 4
round bug7 "$TOOL" trace2 007bug
round bug8 "$TOOL" trace2 008bug
round bug9 "$TOOL" trace2 009bug_BUG
round bug10 "$TOOL" trace2 010bug_BUG
round timer "$TOOL" trace2 100timer 3 1
round counter "$TOOL" trace2 200counter 1 2 3
round redact_start "$TOOL" trace2 300redact_start git clone https://u:pw@h/x
round redact_exec "$TOOL" trace2 302redact_exec git clone https://u:pw@h/x
round redact_param "$TOOL" trace2 303redact_def_param remote.o.url https://u:pw@h/x
# (400ancestry is left out: it sends its child's text to a file of its own)
round hashsort_all "$BIN/example-hashsort" "$rec_dir"/../../src/*.c "$rec_dir"/../../targets/*.c
round hashsort "$BIN/example-hashsort" "$rec_dir/../../src/tr2_buf.c" \
	"$rec_dir/../../src/tr2_sid.c" "$rec_dir/../../include/trace2.h"
TZ=Australia/Lord_Howe round tz "$TOOL" trace2 006data c k v
for zone in UTC America/New_York; do
	TZ=$zone "$T2" convert --to perf "$tmp/tz.rec" >"$tmp/tz.zone.perf" 2>/dev/null
	same "a recording made at UTC+10:30 or +11, converted with TZ=$zone" \
		"$tmp/tz.perf" "$tmp/tz.zone.perf"
done

# --- malformed ---------------------------------------------------------------
# malformed NAME 'WHAT' STEPS [last]: a recording of the steps between
# good blocks and a good closing block (none with last); convert reports
# FILE: offset N: ...WHAT, still converts the closing block, and validate
# fails.
head_steps='("magic",), ("process", 1, {"sid": "S1", "start": 1000}),
 ("strings", 1, 2, ["f.c"]), ("thread", 1, 0, "main"), ("tz", 1, 0, 0),'
good='("events", 1, 0, 1000, 0, [("printf", {"time": 2000, "t_abs": 1000, "file": 2,
 "line": 9, "msg": "after"})])'
malformed() {
	name=$1 what=$2
	printf '[%s\n%s,\n%s]\n' "$head_steps" "$3" "${4:-$good}" | mkrec "$name"
	"$T2" convert --to perf "$tmp/$name.rec" >"$tmp/$name.out" 2>"$tmp/$name.err"
	st=$?
	if [ $st -ne 0 ]; then
		bad "$name: convert exited $st: $(head -3 "$tmp/$name.err")"
	elif ! grep -q "^$tmp/$name.rec: offset [0-9]*: .*$what" "$tmp/$name.err"; then
		bad "$name: not reported as '$what': $(head -3 "$tmp/$name.err")"
	elif [ -z "${4:-}" ] && ! grep -q 'printf .*| after$' "$tmp/$name.out"; then
		bad "$name: the next block was not read"
	elif "$T2" validate "$tmp/$name.rec" >/dev/null 2>&1; then
		bad "$name: validate passed"
	else
		ok
	fi
}
rec() { # rec KIND 'FIELDS': an EVENTS block of one record at t_abs 10
	printf '("events", 1, 0, 1000, 0, [("%s", {"time": 1010, "t_abs": 10, %s})])' "$1" "$2"
}
raw_events() { # raw_events HEX: an EVENTS block of main, base times 1000 and 0, then HEX
	printf '("block", 4, 1, "00e803000000000000%s%s")' 0000000000000000 "$1"
}
malformed varint11 'a varint longer than 10 bytes' "$(raw_events 18ffffffffffffffffffff01)"
malformed varint65 'a varint over 64 bits' "$(raw_events 18ffffffffffffffffff02)"
malformed istr 'string number 9 is not defined' "$(rec printf '"file": 9, "line": 1')"
malformed str_past 'runs past the end of its block' "$(raw_events 1a0000010000050461)"
malformed argv_count 'more strings than its block has bytes' "$(raw_events 030000010000ff01)"
malformed kind0 'event kind 0 is not of format version 2' "$(rec printf '"head": 0')"
malformed kind31 'event kind 31 is not' "$(rec printf '"head": 31')"
malformed kind63 'event kind 63 is not' "$(rec printf '"head": 255')"
malformed head_bit7 'a site record (head bit 7) of kind 26, not region_enter or region_leave' \
	"$(rec printf '"head": 154')"
site0='("sites", 1, 0, [(2, 1, None, None, -1)])'
malformed site_kind 'a site record (head bit 7) of kind 24, not region_enter' \
	"$site0, $(rec data '"site": 0')"
malformed site_none 'site number 0 is not defined' "$(rec region_enter '"site": 0')"
malformed site_undef 'site number 1 is not defined' "$site0, $(rec region_leave '"site": 1')"
malformed site_huge 'site number 18446744073709551615 is not defined' \
	"$site0, $(rec region_enter '"site": 18446744073709551615')"
malformed site_file 'a site names string number 3, which is not defined' \
	'("sites", 1, 0, [(3, 1, None, None, -1)])'
malformed site_file1 'a site names string number 1, which is not defined' \
	'("sites", 1, 0, [(1, 1, None, None, -1)])'
malformed site_label 'a site names string number 18446744073709551615, which' \
	'("sites", 1, 0, [(2, 1, 2, 18446744073709551615, -1)])'
malformed site_line 'a line number out of range' '("sites", 1, 0, [(2, 2147483648, 2, 2, -1)])'
malformed site_repo 'region.repo_id -2 is out of range' '("sites", 1, 0, [(2, 1, 2, 2, -2)])'
malformed sites_skip 'sites numbered from 1, the next is 0' '("sites", 1, 1, [(2, 1, 2, 2, 0)])'
malformed sites_again 'sites numbered from 0, the next is 1' "$site0, $site0"
malformed sites_first 'sites numbered from 18446744073709551615, the next is 0' \
	'("block", 8, 1, "ffffffffffffffffff01 00")'
malformed sites_count 'more sites than the block has bytes' '("block", 8, 1, "00 ff01 0000000000")'
malformed sites_varint 'a varint longer than 10 bytes' \
	'("block", 8, 1, "00 01 ffffffffffffffffffff01")'
malformed sites_past 'runs past the end of its block' '("block", 8, 1, "00 02 0000000000 0000000080")'
malformed sites_max "more sites in a process's table than the reader keeps" \
	"(\"block\", 8, 1, \"00$(python3 -c 'print("818040" + "00" * 5 * 1048577)')\")"
malformed nesting 'a nesting out of range' "$(rec printf '"nesting": 100001')"
malformed line 'a line number out of range' "$(rec printf '"file": 2, "line": 2147483648')"
malformed signo 'signal.signo 256 is out of range' "$(rec signal '"signo": 256')"
malformed child_id 'child.id -1 is out of range' "$(rec child_exit '"id": -1')"
malformed code 'exit.code 2147483648 is out of range' "$(rec exit '"code": 2147483648')"
malformed repo 'region.repo_id -2 is out of range' "$(rec region_enter '"repo": -2')"
malformed uv63 'an unsigned field over 2^63 - 1' "$(rec counter '"value": 9223372036854775808')"
malformed t_total 'timer.total_ns .* is out of range' \
	"$(rec timer '"total_ns": 4294967296000000000')"
malformed time_neg 'a time out of range' \
	'("events", 1, 0, 1000, 0, [("printf", {"time": -1, "t_abs": 0})])'
malformed t_abs 'a t_abs out of range' \
	'("events", 1, 0, 1000, 0, [("printf", {"time": 1000, "t_abs": -5})])'
malformed t_rel 'a t_rel out of range' "$(rec region_leave '"t_rel": 4294967296000000')"
malformed json_open "pretty or open flag" "$(rec data_json '"open": "x"')"
malformed thread_undef 'thread 7 has no THREAD block before' \
	'("events", 1, 7, 1000, 0, [("printf", {"time": 1010, "t_abs": 10})])'
malformed dropped_undef 'thread 3 has no THREAD block before' '("dropped", 1, 3, 1)'
malformed strings_skip 'strings numbered from 4, the next is 3' '("strings", 1, 4, ["x"])'
malformed strings_again 'strings numbered from 2, the next is 3' '("strings", 1, 2, ["x"])'
malformed strings_count 'more strings than the block has bytes' '("block", 2, 1, "03ff01")'
malformed strings_max "more strings in a process's table than the reader keeps" \
	"(\"block\", 2, 1, \"03$(python3 -c 'print("808040" + "00" * 1048576)')\")"
malformed no_process 'which has no PROCESS block before it' '("thread", 9, 0, "main")'
malformed process_again 'a second PROCESS block' '("process", 1, {"sid": "S1"})'
malformed process_unit 'a time unit other than 1' '("process", 2, {"sid": "S2", "unit": 2})'
malformed process_sid 'without a session id' '("process", 2, {"sid": ""})'
malformed thread_rename 'a thread id named again' '("thread", 1, 0, "other")'
malformed thread_noname 'a thread without a name' '("thread", 1, 4, "")'
malformed tz_offset "TZ block's time or offset out of range" '("tz", 1, 0, 100000)'
malformed end_reason "END block's reason is not 0 or 1" '("end", 1, 5)'
malformed reserved 'reserved bytes are not 0' '("raw", "03010000020000000100000000000000 0001")'
malformed trailing 'bytes after the fields of a THREAD block' '("block", 3, 1, "0401610000")'
malformed too_long 'a block of 4294967295 bytes, over the limit' \
	'("raw", "0300 0000 ffffffff 0100000000000000")' '("raw", "00")'
# the bad records' block: the records before the bad one are read
printf '[%s\n("events", 1, 0, 1000, 0, [("printf", {"time": 1010, "t_abs": 10, "msg": "ok1"}),
 ("printf", {"time": 1020, "t_abs": 20, "head": 0})])]\n' "$head_steps" | mkrec partial
"$T2" convert --to perf "$tmp/partial.rec" >"$tmp/partial.out" 2>"$tmp/partial.err"
grep -q '| ok1$' "$tmp/partial.out" && ok || bad "partial: the record before the bad one"
grep -q "offset [0-9]*: event kind 0 .*EVENTS block skipped from there" "$tmp/partial.err" &&
	ok || bad "partial: $(cat "$tmp/partial.err")"
# the file itself
for v in 1 3; do
	printf '[("magic", {"version": %s}), ("raw", "00")]' $v | mkrec version$v
	"$T2" convert --to perf "$tmp/version$v.rec" >/dev/null 2>"$tmp/version$v.err"
	grep -q "offset 8: a recording of format version $v (this reader reads 2)" \
		"$tmp/version$v.err" && ok || bad "version $v: $(cat "$tmp/version$v.err")"
done
printf '[("magic", {"flags": 1})]' | mkrec flags
"$T2" convert --to perf "$tmp/flags.rec" >/dev/null 2>"$tmp/flags.err"
grep -q "offset 10: a recording with flags this reader does not know" "$tmp/flags.err" &&
	ok || bad "flags: $(cat "$tmp/flags.err")"
printf '\211T2R' >"$tmp/magic.rec"
"$T2" convert --to perf "$tmp/magic.rec" >/dev/null 2>"$tmp/magic.err"
grep -q "offset 0: the recording ends inside a block" "$tmp/magic.err" && ok ||
	bad "a magic cut: $(cat "$tmp/magic.err")"

finish
