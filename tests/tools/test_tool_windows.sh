#!/bin/sh
# The trace2 command on Windows, run under Wine (skipped with a message
# when mingw-w64's gcc or Wine is missing):
#   - validate --listen's named-pipe listener (tools/listen_win32.c), in a
#     test host of its own (tests/tools/windows/listen_host.c, the reader
#     stubbed), with writer processes (pipe_writer.c): the addresses it
#     takes; 8 writers of 500 lines at once, every line arriving whole,
#     in order, on its own client; more writers than pipe instances; a
#     client with a line over the limit dropped alone; a second listener
#     on a name in use refused;
#   - with a Windows build of the command (make CROSS=mingw64, or
#     T2_WIN_BIN=DIR holding trace2.exe): validate, convert and summary
#     give the same bytes as the Linux build on the same inputs (files,
#     a directory, standard input, -o FILE; files, a directory and -o
#     FILE named in UTF-8 beyond ASCII, when the C.UTF-8 locale is there
#     for Wine), af_unix: is a usage error, and validate --listen
#     //./pipe/NAME reads 8 writers of a log at once.
# WINEPREFIX: the Wine prefix (default: BUILD/wine, BUILD from T2_BIN).
# usage: T2_BIN=build/bin tests/tools/test_tool_windows.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

CC_WIN=${CC_WIN:-x86_64-w64-mingw32-gcc}
WINE=${WINE:-$(command -v wine64 || command -v wine || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; })}
if ! command -v "$CC_WIN" >/dev/null; then
	echo "$t2_test: skipped: no $CC_WIN (apt-get install gcc-mingw-w64-x86-64)"
	exit 0
fi
if [ -z "$WINE" ]; then
	echo "$t2_test: skipped: no Wine (apt-get install wine64)"
	exit 0
fi
WINEPREFIX=${WINEPREFIX:-$(cd "$BIN/.." && pwd)/wine}
WINEDEBUG=-all
export WINEPREFIX WINEDEBUG
repo=$(pwd)

# win PROGRAM ARGS...: a Windows program under Wine, for a minute at most
win() { timeout 60 "$WINE" "$@"; }

build() {
	"$CC_WIN" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -Iinclude -Isrc -Itools "$@"
}
build tests/tools/windows/listen_host.c tools/listen_win32.c tools/alloc.c tools/sys_win32.c \
	-o "$tmp/listen_host.exe" -lshell32 || { bad "the listener's test host does not build"; finish; exit; }
build tests/tools/windows/pipe_writer.c -o "$tmp/pipe_writer.exe" ||
	{ bad "the pipe writer does not build"; finish; exit; }
cd "$tmp" || exit 1
# the prefix's first start (several seconds) before anything is timed
win ./listen_host.exe --check //./pipe/x >/dev/null 2>&1

# --- the addresses --listen takes ---------------------------------------------
win ./listen_host.exe --check '//./pipe/a' '\\.\pipe\b' '/\./PiPe\c' '//./pipe/d/e' \
	'//./pipe/' '//./pip/x' '//x/pipe/a' 'af_unix:/tmp/s' '\\.\pipes\a' '//.//pipe/a' >check.out
cat >check.want <<'EOF'
1 //./pipe/a
1 \\.\pipe\b
1 /\./PiPe\c
1 //./pipe/d/e
0 //./pipe/
0 //./pip/x
0 //x/pipe/a
0 af_unix:/tmp/s
0 \\.\pipes\a
0 //.//pipe/a
EOF
same "addresses (and LF, not CRLF, on standard output)" check.want check.out

# listen NAME COUNT MAX_LINE: the host in the background, into NAME.out/.err
listen() {
	win ./listen_host.exe "//./pipe/t2-$$-$1" "$2" "$3" >"$1.out" 2>"$1.err" &
}

# ends NAME CLIENTS LINES: every client of NAME's listener ended with LINES
# lines, each a writer's, in the writer's order, and no writer twice
ends() {
	n=$(grep -c "^end //./pipe/t2-$$-$1#[0-9]* $3\$" "$1.out")
	[ "$n" = "$2" ] && ok || { bad "$1: $n of $2 clients ended with $3 lines"; grep -v '	' "$1.out" | head -5 >&2; }
	awk -F'\t' -v lines="$3" 'NF == 2 {
		if (!match($2, /^\{"writer":[0-9]+,"line":[0-9]+\}$/)) { print "not whole: " $0; next }
		split($2, f, /[:,}]/); w = f[2]; k = f[4]
		if (!($1 in of)) { if (w in seen) print "writer " w " on two clients"; seen[w] = 1; of[$1] = w; next_k[$1] = 0 }
		if (of[$1] != w) print $1 ": writers " of[$1] " and " w
		if (k != next_k[$1]) print $1 ": line " k ", want " next_k[$1]
		next_k[$1] = k + 1
	}' "$1.out" >"$1.bad"
	[ -s "$1.bad" ] && { bad "$1: lines out of place"; head -5 "$1.bad" >&2; } || ok
}

# --- 8 writers of 500 lines at once -------------------------------------------
listen eight 8 1000
for i in 1 2 3 4 5 6 7 8; do
	win ./pipe_writer.exe "\\\\.\\pipe\\t2-$$-eight" $i 500 &
done
wait
ends eight 8 500
grep -q "listening on //./pipe/t2-$$-eight" eight.err && ok || bad "eight: no note on stderr"

# --- more writers than instances; a line over the limit -----------------------
listen many 41 1000
sleep 1 # the listener up: the second listener below must find the name taken
win ./listen_host.exe "//./pipe/t2-$$-many" 1 1000 >second.out 2>second.err
[ $? = 2 ] && grep -q "another server listens there" second.err && ok ||
	{ bad "a second listener on the name not refused"; cat second.err >&2; }
i=0
while [ $i -lt 40 ]; do
	i=$((i + 1))
	win ./pipe_writer.exe "//./pipe/t2-$$-many" $i 20 &
done
win ./pipe_writer.exe "//./pipe/t2-$$-many" 99 3 2000 2>/dev/null
wait
ends many 40 20
grep -q "^end //./pipe/t2-$$-many#[0-9]* 0\$" many.out && grep -q "a line over the limit; client dropped" many.err &&
	ok || bad "many: the client over the limit not dropped"

# --- the Windows build of the command -----------------------------------------
WIN_BIN=${T2_WIN_BIN:-$repo/build/mingw64/bin}
if [ ! -f "$WIN_BIN/trace2.exe" ]; then
	echo "$t2_test: no $WIN_BIN/trace2.exe (make CROSS=mingw64): the command's own runs skipped"
	finish
	exit
fi
W2="$WIN_BIN/trace2.exe"
cp "$repo"/tests/validate/*.json "$repo"/tests/git-logs/*.event .
# both NAME ARGS...: trace2 ARGS on Linux and on Windows, stdout, stderr
# and exit status the same
both() {
	name=$1
	shift
	"$T2" "$@" >"$name.lin" 2>"$name.lin.err"
	echo $? >>"$name.lin.err"
	win "$W2" "$@" >"$name.win" 2>"$name.win.err"
	echo $? >>"$name.win.err"
	same "$name: standard output" "$name.lin" "$name.win"
	same "$name: standard error and status" "$name.lin.err" "$name.win.err"
	[ -s "$name.lin" ] || [ "$(wc -l <"$name.lin.err")" -gt 1 ] || bad "$name: nothing to compare"
}
for f in *.json; do
	both "validate-${f%.json}" validate "$f"
done
for f in *.event; do
	for to in perf normal event chrome otlp; do
		both "convert-$to-${f%.event}" convert --to "$to" "$f"
	done
	both "summary-${f%.event}" summary "$f"
done
mkdir logs && cp *.event logs/
both "summary of a directory" summary --json logs
"$T2" convert --to perf git-2.55-status.event >want.perf
win "$W2" convert --to perf -o out.perf git-2.55-status.event && ok || bad "convert -o: failed"
same "convert -o: the file" want.perf out.perf
# NUL, Windows' /dev/null: a device, read as one (it has no attributes)
"$T2" summary /dev/null >null.linux 2>&1
win "$W2" summary NUL >null.win 2>&1
same "summary NUL as summary /dev/null" null.linux null.win
win "$W2" convert --to perf - <git-2.55-status.event >stdin.perf 2>stdin.err
rc=$?
cmp -s want.perf stdin.perf && ok ||
	bad "convert from standard input: exit code $rc, $(wc -l <stdin.perf) lines, stderr: $(head -3 stdin.err)"
# --- paths not in ASCII: é, 日本, an emoji outside the BMP --------------------
# Wine hands a program its Unix arguments and file names in UTF-16 as
# the locale decodes them: a UTF-8 one for these.
if ! locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
	echo "$t2_test: no C.UTF-8 locale: the runs on non-ASCII paths skipped"
else
	export LC_ALL=C.UTF-8
	u='é日本😀'
	set -- *.event
	mkdir 日本 out
	cp "$1" 日本/é.event
	cp "$2" 日本/日本.event
	cp "$3" "日本/😀.event"
	cp "$4" "$u.event"
	both "non-ASCII file: validate" validate "$u.event"
	both "non-ASCII file: convert" convert --to event "$u.event"
	both "non-ASCII file: summary" summary "$u.event"
	both "non-ASCII directory: summary" summary --json 日本
	both "non-ASCII directory: validate" validate 日本/
	both "non-ASCII directory: convert" convert --to perf 日本
	both "a missing non-ASCII file named" validate "nö-$u.event"
	"$T2" convert --to perf "$u.event" >"want-$u.perf"
	win "$W2" convert --to perf -o "out/$u.perf" "$u.event" && ok || bad "convert -o $u.perf: failed"
	same "convert -o $u.perf: the file" "want-$u.perf" "out/$u.perf"
	# a FILE -o made is removed when an input is missing
	both "convert -o non-ASCII, an input missing" convert --to perf -o "out/日本-$u.perf" "nö-$u.event"
	[ "$(ls out)" = "$u.perf" ] && ok || bad "convert -o: out/ holds $(ls out | tr '\n' ' '), not $u.perf alone"
	# a pipe named beyond ASCII: the writer, a plain C program, names it
	# in the ANSI code page, where Wine's 1252 has é
	win "$W2" validate --listen "//./pipe/t2-$$-é" --count 1 >pipe-é.out 2>pipe-é.err &
	win ./pipe_writer.exe "//./pipe/t2-$$-é" @git-2.55-status.event
	wait
	grep -q "trace2 validate: $(wc -l <git-2.55-status.event) lines, " pipe-é.err && ok ||
		{ bad "validate --listen //./pipe/t2-$$-é: the log not read"; cat pipe-é.err >&2; }
	unset LC_ALL
fi

win "$W2" validate --listen af_unix:/tmp/t2.sock >/dev/null 2>af_unix.err
[ $? = 2 ] && grep -q -- "--listen takes //./pipe/NAME" af_unix.err && ok ||
	{ bad "validate --listen af_unix: not a usage error"; cat af_unix.err >&2; }

# validate --listen on a named pipe: 8 writers of a log at once
win "$W2" validate --listen "//./pipe/t2-$$-cmd" --count 8 >cmd.out 2>cmd.err &
for i in 1 2 3 4 5 6 7 8; do
	win ./pipe_writer.exe "//./pipe/t2-$$-cmd" @git-2.55-status.event &
done
wait
lines=$(wc -l <git-2.55-status.event)
grep -q "trace2 validate: $((8 * lines)) lines, " cmd.err && ok ||
	{ bad "validate --listen: not every line read"; cat cmd.err >&2; }
finish
