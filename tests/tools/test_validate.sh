#!/bin/sh
# trace2 validate: every broken line of the corpus (tests/validate/*.json)
# reported exactly as its .expect file says, exit status 1 on an error
# (--strict: on a warning too); no problem at all in the logs the library
# writes (non-brief), only brief mode's warning in brief logs, no error in
# the logs the installed git writes; --listen as a stand-in collector.
# usage: T2_BIN=build/bin tests/tools/test_validate.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

# status NAME WANT GOT
status() { [ "$2" = "$3" ] && ok || bad "$1: exit status $3, want $2"; }

# --- the corpus ---------------------------------------------------------------
cd tests/validate || exit 1
for f in *.json; do
	name=${f%.json}
	"$T2" validate --quiet "$f" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	if cmp -s "$name.expect" "$tmp/$name.out"; then ok; else
		bad "$name: output differs"; diff "$name.expect" "$tmp/$name.out" >&2
	fi
	[ -s "$name.expect" ] || bad "$name: the case expects no problem"
	if grep -q ': error: ' "$name.expect"; then
		status "$name" 1 $rc
	else
		status "$name" 0 $rc
		# only a last line cut off (a full disk, a kill) and notes pass --strict
		if [ "$name" = no-newline ] || ! grep -q ': warning: ' "$name.expect"; then
			want=0
		else
			want=1
		fi
		"$T2" validate --quiet --strict "$f" >/dev/null 2>&1
		status "$name --strict" $want $?
	fi
done
# All at once: one input (the cases share a SID, so it is one process);
# every malformed line is still reported.
"$T2" validate --quiet *.json >"$tmp/all.out" 2>/dev/null
status "all files" 1 $?
for f in truncated bad-escape trailing-text; do
	grep -qF "$(cat $f.expect)" "$tmp/all.out" && ok || bad "all files: $f not reported"
done
cd - >/dev/null

# --- logs the library writes: not one problem ---------------------------------
# lib NAME [brief|allow REGEX] -- COMMAND...: no problem at all; brief:
# only brief mode's warning; allow: only warnings matching REGEX
lib() {
	name=$1; shift
	brief=0 allow=
	[ "$1" = brief ] && { brief=1; allow=': warning: no "time" \(brief mode\)'; shift; }
	[ "$1" = allow ] && { allow=$2; shift 2; }
	[ "$1" = -- ] && shift
	GIT_TRACE2_EVENT="$tmp/$name.event" GIT_TRACE2_EVENT_NESTING=${NESTING:-2} \
	GIT_TRACE2_EVENT_BRIEF=$brief "$@" >/dev/null 2>&1
	"$T2" validate --quiet --strict "$tmp/$name.event" >"$tmp/$name.out" 2>&1
	rc=$?
	if [ -z "$allow" ]; then
		status "$name" 0 $rc
		[ -s "$tmp/$name.out" ] && { bad "$name: problems reported"; head -5 "$tmp/$name.out" >&2; }
	else
		[ $brief = 1 ] && status "$name (brief, --strict)" 1 $rc
		grep -Ev "$allow" "$tmp/$name.out" >"$tmp/$name.other"
		[ -s "$tmp/$name.other" ] && { bad "$name: other problems"; head -5 "$tmp/$name.other" >&2; }
		"$T2" validate --quiet "$tmp/$name.event" >/dev/null 2>&1
		status "$name (no --strict)" 0 $?
	fi
	[ -s "$tmp/$name.event" ] && ok || bad "$name: no log"
}
lib return -- "$TOOL" trace2 001return 0
lib error -- "$TOOL" trace2 003error "hello world"
lib child -- "$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 006data c k v
lib data -- "$TOOL" trace2 006data cat1 k1 v1
lib bug -- "$TOOL" trace2 008bug
lib thtimer -- "$TOOL" trace2 101timer 2 1 3
lib thcounter -- "$TOOL" trace2 201counter 1 2 3
lib redact -- "$TOOL" trace2 302redact_exec git fetch https://u:pw@h/x
lib param -- "$TOOL" trace2 303redact_def_param url https://u:pw@h/x
lib hashsort -- "$BIN/example-hashsort" src/tr2_buf.c src/tr2_sid.c
NESTING=100 lib deep -- "$BIN/example-hashsort" src/tr2_buf.c
# Buffered mode: a worker thread's buffer may come before main's version.
GIT_TRACE2_BUFFER=4k lib buffered allow \
	': (warning: first record of SID .* is [a-z_]+, not version|note: the input starts mid-process)' -- \
	"$TOOL" trace2 101timer 3 1 4
lib brief brief -- "$TOOL" trace2 004child "$TOOL" trace2 006data c k v
# Every line of a real log cut short at every fifth byte: each cut line
# one error (no crash, no line missed); the whole lines still check.
awk '{ for (i = 1; i < length($0); i += 5) print substr($0, 1, i); print }' \
	"$tmp/child.event" >"$tmp/cut.event"
"$T2" validate --quiet "$tmp/cut.event" >"$tmp/cut.out" 2>&1
status "cut lines" 1 $?
want=$(($(wc -l <"$tmp/cut.event") - $(wc -l <"$tmp/child.event")))
[ "$(grep -c ': error: malformed JSON' "$tmp/cut.out")" = "$want" ] && [ "$want" -gt 100 ] &&
	[ "$(wc -l <"$tmp/cut.out")" = "$want" ] && ok ||
	{ bad "cut lines: want $want errors"; head -3 "$tmp/cut.out" >&2; }
# A valueless config entry: legal, a warning.
GIT_CONFIG_PARAMETERS="'foo.true'" GIT_TRACE2_CONFIG_PARAMS='foo.*' \
	GIT_TRACE2_EVENT="$tmp/valueless.event" "$TOOL" trace2 001return 0 >/dev/null 2>&1
"$T2" validate --quiet "$tmp/valueless.event" >"$tmp/valueless.out" 2>&1
status "valueless def_param" 0 $?
# the record's line: 5, or 4 without cmd_ancestry (no /proc)
line=$(grep -n '"event":"def_param"' "$tmp/valueless.event" | cut -d: -f1)
[ "$(wc -l <"$tmp/valueless.out")" = 1 ] && [ "$line" -ge 4 ] &&
	grep -q ":$line: warning: def_param without \"value\"" "$tmp/valueless.out" && ok ||
	{ bad "valueless def_param: not the one warning"; cat "$tmp/valueless.out" >&2; }

# --- logs the installed git writes: no error ------------------------------------
if command -v git >/dev/null 2>&1; then
	g="$tmp/git"
	mkdir "$g"
	(cd "$g" && git init -q src && cd src &&
	 git -c user.name=t -c user.email=t@t commit -q --allow-empty -m one) >/dev/null 2>&1
	export GIT_TRACE2_EVENT="$tmp/git.event"
	git -C "$g/src" status >/dev/null 2>&1
	git -C "$g/src" log --oneline >/dev/null 2>&1
	git clone -q "$g/src" "$g/clone" >/dev/null 2>&1
	GIT_TRACE2_EVENT_BRIEF=1 git -C "$g/src" status >/dev/null 2>&1
	unset GIT_TRACE2_EVENT
	"$T2" validate --quiet "$tmp/git.event" >"$tmp/git.out" 2>&1
	status "git logs" 0 $?
	grep -v ': warning: no "time" (brief mode)' "$tmp/git.out" >"$tmp/git.other"
	[ -s "$tmp/git.other" ] && { bad "git logs: problems"; head -5 "$tmp/git.other" >&2; }
	grep -q 'warning: no "time"' "$tmp/git.out" && ok || bad "git brief log: no warning"
	# Git copies bytes that are not UTF-8 into the JSON as they are: a
	# warning; convert keeps the byte.
	GIT_TRACE2_EVENT="$tmp/git8.event" git -C "$g/src" log "--grep=$(printf 'x\377')" \
		>/dev/null 2>&1
	"$T2" validate --quiet "$tmp/git8.event" >"$tmp/git8.out" 2>&1
	status "git raw invalid UTF-8" 0 $?
	grep -q ':2: warning: "argv" has bytes that are not UTF-8' "$tmp/git8.out" && ok ||
		{ bad "git raw invalid UTF-8: no warning"; cat "$tmp/git8.out" >&2; }
	"$T2" convert --to normal "$tmp/git8.event" 2>/dev/null |
		LC_ALL=C grep -q "start git -C .* '--grep=x$(printf '\377')'\$" && ok ||
		bad "git raw invalid UTF-8: convert lost the byte"
fi

# --- --listen: a stand-in collector -------------------------------------------
# The Windows build listens on a named pipe, there once it says so on
# standard error (not --quiet); Ctrl-C, not SIGTERM, stops it there.
# wait_sock: until the listener listens (10 s at most)
if [ "${T2_CROSS:-}" = mingw64 ]; then
	sock= addr=//./pipe/t2-$$-validate quiet=
	wait_sock() {
		i=0
		while ! grep -q "listening on $addr" "$tmp/listen.err" 2>/dev/null && [ $i -lt 200 ]; do
			sleep 0.05; i=$((i + 1))
		done
	}
else
	sock=$tmp/t2.sock addr=af_unix:$tmp/t2.sock quiet=--quiet
	wait_sock() { i=0; while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done; }
fi
timeout 60 "$T2" validate $quiet --listen "$addr" --count 3 >"$tmp/listen.out" 2>"$tmp/listen.err" &
pid=$!
wait_sock
GIT_TRACE2_EVENT="$addr" \
	"$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 001return 0 >/dev/null 2>&1
wait $pid
status "listen: three processes" 0 $?
if [ -s "$tmp/listen.out" ] || { [ -n "$quiet" ] && [ -s "$tmp/listen.err" ]; }; then
	bad "listen: problems"; head -5 "$tmp/listen.out" "$tmp/listen.err" >&2
fi
[ -n "$sock" ] && [ -S "$sock" ] && bad "listen: socket left behind"

timeout 60 "$T2" validate --quiet --listen "$addr" --count 1 >"$tmp/listen2.out" 2>&1 &
pid=$!
if [ -n "$sock" ]; then
	wait_sock
	perl -MIO::Socket::UNIX -e '
		my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!";
		open(my $f, "<", $ARGV[1]) or die; print $s $_ while <$f>; close $s;' \
		"$sock" tests/validate/wrong-type.json
else
	pipe_writer "$addr" @tests/validate/wrong-type.json
fi
wait $pid
status "listen: a broken stream" 1 $?
grep -q "^$addr#1:3: error: \"code\" must be an integer" "$tmp/listen2.out" && ok ||
	{ bad "listen: the broken line not reported"; cat "$tmp/listen2.out" >&2; }

if [ -n "$sock" ]; then
	"$T2" validate --quiet --listen "$addr" >/dev/null 2>&1 &
	pid=$!
	wait_sock
	kill -TERM $pid
	wait $pid
	status "listen: SIGTERM" 0 $?
else
	echo "$t2_test: SKIP: listen: stopped by SIGTERM (Windows has none; Ctrl-C cannot be sent into Wine from here)"
fi

# --- memory: bounded by processes, threads and open regions, not by input --
# 400000 lines (about 70 MB) through standard input under a 64 MB limit on
# the address space (not for sanitizer builds, which reserve terabytes,
# nor under qemu, whose translation buffer alone is 128 MB).
if [ -n "${T2_RUN:-}" ]; then
	echo "$t2_test: SKIP: the 64 MB address space limit under $T2_RUN (its own buffers are larger)"
elif ! grep -q __asan_init "$T2" && ! grep -q __tsan_init "$T2"; then
	sid=20261124T100000.000000Z-H0a7c9cdf-P00001234
	common="\"sid\":\"$sid\",\"thread\":\"main\",\"time\":\"2026-11-24T10:00:00.000000Z\""
	enter="{\"event\":\"region_enter\",$common,\"nesting\":1,\"category\":\"c\",\"label\":\"l\"}"
	leave="{\"event\":\"region_leave\",$common,\"t_rel\":0.1,\"nesting\":1,\"category\":\"c\",\"label\":\"l\"}"
	{
		echo "{\"event\":\"version\",$common,\"evt\":\"4\",\"exe\":\"x\"}"
		yes "$enter
$leave" | head -n 400000
	} | (ulimit -v 65536; "$T2" validate --quiet --strict -) >"$tmp/big.out" 2>&1
	status "400000 lines in 64 MB" 0 $?
	[ -s "$tmp/big.out" ] && { bad "400000 lines: problems"; head -3 "$tmp/big.out" >&2; }
fi

# --- usage --------------------------------------------------------------------
"$T2" validate >/dev/null 2>&1
status "no input" 2 $?
"$T2" validate --count 2 x >/dev/null 2>&1
status "--count without --listen" 2 $?
"$T2" validate "$tmp/missing.json" >/dev/null 2>&1
status "unreadable input" 1 $?

finish
