#!/bin/sh
# trace2 convert: library programs run with the event, perf and normal
# targets all on; the event log converted with --to perf and --to normal
# must be the perf and normal targets' own output of the same run, after
# scrubbing only what docs/tools.md says the event stream does not carry.
# Real Git logs (status, log, a local clone with its children) convert
# without a complaint.
# usage: T2_BIN=build/bin tests/tools/test_convert.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
# The converter's time zone is the programs' (docs: local time column).
TZ=UTC
export TZ

# run NAME [BRIEF] -- COMMAND...: all three targets into $tmp/NAME.*
run() {
	name=$1; shift
	brief=0
	[ "$1" = brief ] && { brief=1; shift; }
	[ "$1" = -- ] && shift
	rm -f "$tmp/$name".*
	GIT_TRACE2="$tmp/$name.normal" GIT_TRACE2_PERF="$tmp/$name.perf" \
	GIT_TRACE2_EVENT="$tmp/$name.event" GIT_TRACE2_EVENT_NESTING=${NESTING:-100} \
	GIT_TRACE2_BRIEF=$brief GIT_TRACE2_PERF_BRIEF=$brief GIT_TRACE2_EVENT_BRIEF=$brief \
		"$@" >/dev/null 2>&1
}

# convert NAME FORMAT [--brief]: the converted text; nothing on stderr
convert() {
	converted "$2" "$tmp/$1.conv.$2" ${3:-} "$tmp/$1.event" && ok
}

# check NAME [sort]: both formats, exact (sort: threads interleave their
# records differently in the two files, so compare the sorted lines)
check() {
	for f in perf normal; do
		convert "$1" $f
		if [ "${2:-}" = sort ]; then
			LC_ALL=C sort "$tmp/$1.$f" >"$tmp/$1.exp"
			LC_ALL=C sort "$tmp/$1.conv.$f" >"$tmp/$1.got"
			same "$1 --to $f (sorted)" "$tmp/$1.exp" "$tmp/$1.got"
		else
			same "$1 --to $f" "$tmp/$1.$f" "$tmp/$1.conv.$f"
		fi
		[ -s "$tmp/$1.$f" ] || bad "$1: the $f target wrote nothing"
	done
}

# --- the library's own programs, every scenario with records --------------
run return -- "$TOOL" trace2 001return 0;                     check return
run exit -- "$TOOL" trace2 002exit 5;                         check exit
run error -- "$TOOL" trace2 003error "hello world" "x'y!z";    check error
run child -- "$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 006data c k v
check child
run data -- "$TOOL" trace2 006data cat1 k1 v1 cat2 k2 "a b"; check data
run bug -- "$TOOL" trace2 008bug;                             check bug
run timer -- "$TOOL" trace2 100timer 3 1;                     check timer
run thtimer -- "$TOOL" trace2 101timer 2 1 3;                 check thtimer sort
run counter -- "$TOOL" trace2 200counter 1 2 3;               check counter
run thcounter -- "$TOOL" trace2 201counter 1 2 3;             check thcounter sort
run redact -- "$TOOL" trace2 300redact_start git clone https://u:pw@example.com/r
check redact
run redact_child -- "$TOOL" trace2 301redact_child_start git fetch https://u:pw@h/x
check redact_child
run redact_exec -- "$TOOL" trace2 302redact_exec git fetch https://u:pw@h/x
check redact_exec
run redact_param -- "$TOOL" trace2 303redact_def_param url https://u:pw@h/x
check redact_param
run hashsort -- "$BIN/example-hashsort" src/tr2_buf.c src/tr2_sid.c include/trace2.h
check hashsort sort

# --- what the stream does not carry ----------------------------------------
# Bytes that are not UTF-8: the event target writes U+FFFD for each.  A
# Windows program gets its arguments in the ANSI code page (Wine's here:
# 1252), where the UTF-8 "\303\251" arrives as the one byte "\351" and
# no other byte passes: there the é is the byte that is not UTF-8.
bad_arg=$(printf 'caf\303\251-\377') bad_byte='\377'
[ "${T2_CROSS:-}" = mingw64 ] && bad_arg=$(printf 'caf\303\251-') bad_byte='\351'
run utf8 -- "$TOOL" trace2 300redact_start "$bad_arg"
convert utf8 perf
LC_ALL=C sed "s/$(printf "$bad_byte")/$(printf '\357\277\275')/" "$tmp/utf8.perf" >"$tmp/utf8.exp"
same "invalid UTF-8 becomes U+FFFD" "$tmp/utf8.exp" "$tmp/utf8.conv.perf"
cmp -s "$tmp/utf8.perf" "$tmp/utf8.conv.perf" && bad "utf8: the scrub changed nothing"

# The nesting filter (default 2): data inside two regions is not in the
# stream; the rest of the perf text is.
NESTING=2 run nested -- "$BIN/example-hashsort" src/tr2_buf.c
convert nested perf
grep -v '| \.\.\.\.[^.]' "$tmp/nested.perf" | LC_ALL=C sort >"$tmp/nested.exp"
LC_ALL=C sort "$tmp/nested.conv.perf" >"$tmp/nested.got"
same "nesting filter drops deep records" "$tmp/nested.exp" "$tmp/nested.got"
cmp -s "$tmp/nested.perf" "$tmp/nested.conv.perf" && bad "nested: nothing was filtered"

# Brief event logs have no time and no file/line: --brief output. The
# normal target needs nothing else, so it is exact.
run brief brief -- "$TOOL" trace2 004child "$TOOL" trace2 003error oops
convert brief normal --brief
same "brief log --to normal --brief" "$tmp/brief.normal" "$tmp/brief.conv.normal"
# The perf target also prints t_abs for records whose event form has none;
# without "time" the converter cannot compute it: blank that column there.
convert brief perf --brief
no_abs() {
	awk -F'|' 'BEGIN { OFS = "|" }
		$3 ~ /^ (region_enter|region_leave|thread_start|thread_exit|child_start|child_exit|child_ready|exec|exec_result) *$/ { $5 = "" }
		{ print }' "$1"
}
no_abs "$tmp/brief.perf" >"$tmp/brief.exp"
no_abs "$tmp/brief.conv.perf" >"$tmp/brief.got"
same "brief log --to perf --brief (t_abs of those records aside)" "$tmp/brief.exp" "$tmp/brief.got"
grep -q child_start "$tmp/brief.exp" && ok || bad "brief: no child_start"

# A directory target: every file in it; - reads standard input.
mkdir "$tmp/dir"
GIT_TRACE2_EVENT="$tmp/dir" GIT_TRACE2_EVENT_NESTING=100 GIT_TRACE2_PERF="$tmp/dir.perf" \
	"$TOOL" trace2 004child "$TOOL" trace2 006data c k v >/dev/null 2>&1
[ "$(ls "$tmp/dir" | wc -l)" = 2 ] && ok || bad "dir: expected two files"
"$T2" convert --to perf "$tmp/dir" >"$tmp/dir.got" 2>"$tmp/dir.err" && [ ! -s "$tmp/dir.err" ] &&
	ok || bad "dir: convert failed"
LC_ALL=C sort "$tmp/dir.perf" >"$tmp/dir.exp"
LC_ALL=C sort -o "$tmp/dir.got" "$tmp/dir.got"
same "directory target" "$tmp/dir.exp" "$tmp/dir.got"
"$T2" convert --to perf - <"$tmp/child.event" >"$tmp/stdin.got" 2>/dev/null
same "standard input" "$tmp/child.perf" "$tmp/stdin.got"

# Malformed lines are reported with file:line and skipped.
{ head -2 "$tmp/return.event"; echo '{"event":"exit","sid":'; echo 'garbage';
  tail -n +3 "$tmp/return.event"; printf '{"event":"atexit"'; } >"$tmp/broken.event"
"$T2" convert --to normal "$tmp/broken.event" >"$tmp/broken.got" 2>"$tmp/broken.err"
rc=$?
[ $rc = 0 ] && ok || bad "broken: exit status $rc"
same "broken: the good lines still convert" "$tmp/return.normal" "$tmp/broken.got"
grep -q "broken.event:3: malformed JSON" "$tmp/broken.err" && ok || bad "broken: line 3 not reported"
grep -q "broken.event:4: not an event line" "$tmp/broken.err" && ok || bad "broken: line 4 not reported"
n=$(wc -l <"$tmp/broken.event")
grep -q "broken.event:$((n + 1)): .*no newline" "$tmp/broken.err" && ok ||
	bad "broken: the cut last line not reported"

# A failing standard output: status 1, said once. Output is written in
# 64 KiB pieces: a small log fails at the end, a long one on the way.
if [ -w /dev/full ]; then
	for f in return hashsort; do
		"$T2" convert --to perf "$tmp/$f.event" >/dev/full 2>"$tmp/full.err"
		rc=$?
		[ $rc = 1 ] && [ "$(grep -c 'standard output' "$tmp/full.err")" = 1 ] && ok ||
			bad "$f to /dev/full: status $rc, $(cat "$tmp/full.err")"
	done
	i=0
	while [ $i -lt 40 ]; do cat "$tmp/hashsort.event"; i=$((i + 1)); done >"$tmp/long.event"
	"$T2" convert --to perf "$tmp/long.event" >/dev/full 2>"$tmp/full.err"
	rc=$?
	[ $rc = 1 ] && [ "$(grep -c 'standard output' "$tmp/full.err")" = 1 ] && ok ||
		bad "long log to /dev/full: status $rc, $(cat "$tmp/full.err")"
fi

# --- real Git logs ----------------------------------------------------------
if command -v git >/dev/null 2>&1; then
	g="$tmp/git"
	mkdir "$g"
	(
		cd "$g" && git init -q src && cd src &&
		git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one &&
		git -c user.name=t -c user.email=t@t commit -q --allow-empty -m two
	) >/dev/null 2>&1
	for nest in 2 100; do
		rm -f "$tmp/git$nest.event"
		export GIT_TRACE2_EVENT="$tmp/git$nest.event" GIT_TRACE2_EVENT_NESTING=$nest
		git -C "$g/src" status >/dev/null 2>&1
		git -C "$g/src" log --oneline >/dev/null 2>&1
		rm -rf "$g/clone"
		git clone -q "$g/src" "$g/clone" >/dev/null 2>&1
		unset GIT_TRACE2_EVENT GIT_TRACE2_EVENT_NESTING
		grep -q '"sid":"[^"]*/' "$tmp/git$nest.event" && ok || bad "git: no child process in the log"
		for f in perf normal; do
			convert "git$nest" $f
			[ -s "$tmp/git$nest.conv.$f" ] && ok || bad "git: empty $f"
		done
	done
	# Same run, perf target on too: equal but for what Git itself does
	# differently (it reads the clock once per target and record; 2.39's
	# pseudo-locations): compare the columns that do not hold times.
	rm -rf "$g/clone"
	GIT_TRACE2_EVENT="$tmp/gitp.event" GIT_TRACE2_PERF="$tmp/gitp.perf" GIT_TRACE2_PERF_BRIEF=1 \
		GIT_TRACE2_EVENT_NESTING=100 git clone -q "$g/src" "$g/clone" >/dev/null 2>&1
	convert gitp perf --brief
	cols() { awk -F'|' '{ $5 = ""; $6 = ""; print }' "$1"; }
	cols "$tmp/gitp.perf" >"$tmp/gitp.exp"
	cols "$tmp/gitp.conv.perf" >"$tmp/gitp.got"
	same "git clone --to perf --brief (time columns aside)" "$tmp/gitp.exp" "$tmp/gitp.got"
fi

finish
