#!/bin/sh
# The trace2 command's interface: --version prints the version
# include/trace2.h declares; -o FILE on every subcommand that writes
# gives the bytes standard output gets, and nothing on standard output;
# a missing input is reported before anything is written (no output, no
# -o FILE created, an existing one left as it was, status 1); an input
# that is also an output (standard output, standard error, -o's FILE,
# under another name or as a file of an input directory) is refused the
# same way and the command ends at once; inputs that only look alike
# (/dev/null with standard error there, a FIFO) are read.
# usage: T2_BIN=build/bin tests/tools/test_cli.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

# status NAME WANT GOT
status() { [ "$2" = "$3" ] && ok || bad "$1: exit status $3, want $2"; }
# empty NAME FILE: FILE exists and is empty
empty() { [ -f "$2" ] && [ ! -s "$2" ] && ok || bad "$1: $2 is not empty: $(head -c 200 "$2")"; }
# says NAME FILE TEXT: FILE holds TEXT
says() { grep -qF -- "$3" "$2" && ok || bad "$1: no '$3' in: $(head -c 300 "$2")"; }

# --- --version ----------------------------------------------------------------
h=$(dirname "$0")/../../include/trace2.h
v=$(sed -n 's/^#define TRACE2_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$h" | paste -sd.)
case $v in
*.*.*) ok ;;
*) bad "no version in $h: '$v'" ;;
esac
"$T2" --version >"$tmp/version" 2>"$tmp/version.err"
status "--version" 0 $?
echo "trace2 (libtrace2) $v" >"$tmp/version.want"
same "--version" "$tmp/version.want" "$tmp/version"
empty "--version stderr" "$tmp/version.err"
"$T2" --version >/dev/full 2>/dev/null
status "--version into a full disk" 1 $?

# --- a log -------------------------------------------------------------------
log=$tmp/log.json
GIT_TRACE2_EVENT=$log GIT_TRACE2_EVENT_NESTING=10 \
	"$TOOL" trace2 004child "$TOOL" trace2 006data cat k v >/dev/null 2>&1
[ -s "$log" ] && ok || bad "the test driver wrote no log"
# an event of a later version: skipped by all, a warning of validate's
sid=$(sed -n '1s/.*"sid":"\([^"]*\)".*/\1/p' "$log")
printf '{"event":"x-later","sid":"%s","thread":"main"}\n' "$sid" >>"$log"
cp "$log" "$tmp/log.copy"

# every subcommand that writes, as "NAME|OPTIONS" (split on spaces)
cmds='convert-perf|convert --to perf
convert-normal|convert --to normal
convert-chrome|convert --to chrome
convert-otlp|convert --to otlp
summary|summary
summary-json|summary --json
validate|validate --quiet'

# --- -o FILE -------------------------------------------------------------------
echo "$cmds" | while IFS='|' read -r name opts; do
	# shellcheck disable=SC2086
	"$T2" $opts "$log" >"$tmp/$name.want" 2>/dev/null
	rc=$?
	[ -s "$tmp/$name.want" ] || echo "FAIL $name: no output on standard output"
	for o in "-o" "--output"; do
		rm -f "$tmp/$name.o"
		# shellcheck disable=SC2086
		"$T2" $opts $o "$tmp/$name.o" "$log" >"$tmp/$name.stdout" 2>/dev/null
		[ $? = $rc ] || echo "FAIL $name $o: exit status differs"
		cmp -s "$tmp/$name.want" "$tmp/$name.o" || echo "FAIL $name $o: FILE differs"
		[ -s "$tmp/$name.stdout" ] && echo "FAIL $name $o: standard output not empty"
	done
	# an existing, longer FILE is replaced, not overwritten in place
	head -c 100000 /dev/zero | tr '\0' x >"$tmp/$name.o"
	# shellcheck disable=SC2086
	"$T2" $opts --output="$tmp/$name.o" "$log" >/dev/null 2>&1
	cmp -s "$tmp/$name.want" "$tmp/$name.o" || echo "FAIL $name --output=: an old FILE's end stays"
done >"$tmp/o.fails"
[ -s "$tmp/o.fails" ] && bad "-o: $(cat "$tmp/o.fails")" || ok
for sub in convert summary validate; do
	"$T2" $sub -o >/dev/null 2>"$tmp/noarg.err"
	status "$sub -o without FILE" 2 $?
	says "$sub -o without FILE" "$tmp/noarg.err" "-o needs a FILE"
done
# validate --listen writes its problems to -o's FILE too
if command -v timeout >/dev/null; then
	sock=af_unix:$tmp/v.sock
	[ "${T2_CROSS:-}" = mingw64 ] && sock=//./pipe/t2-$$-cli # Windows: a named pipe
	timeout 20 "$T2" validate --quiet -o "$tmp/listen.o" --listen "$sock" --count 1 \
		>"$tmp/listen.stdout" 2>/dev/null &
	pid=$!
	printf '{"event":"nonsense"}\n' >"$tmp/nonsense.json"
	if [ "${T2_CROSS:-}" = mingw64 ]; then
		pipe_writer "$sock" "@$tmp/nonsense.json"
	else
		n=0
		while [ ! -S "${sock#af_unix:}" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(open(sys.argv[2], "rb").read()); s.close()' \
			"${sock#af_unix:}" "$tmp/nonsense.json" 2>/dev/null
	fi
	wait $pid
	status "validate --listen -o" 1 $?
	says "validate --listen -o" "$tmp/listen.o" "$sock#1:1: error:"
	empty "validate --listen -o: standard output" "$tmp/listen.stdout"
else
	echo "test_cli: timeout missing: validate --listen -o skipped" >&2
fi

# --- a missing or unreadable input: nothing written -----------------------------------
echo "$cmds" | while IFS='|' read -r name opts; do
	# shellcheck disable=SC2086
	"$T2" $opts "$log" "$tmp/missing" "$log" >"$tmp/$name.out" 2>"$tmp/$name.err"
	[ $? = 1 ] || echo "FAIL $name: a missing input is not status 1"
	[ -s "$tmp/$name.out" ] && echo "FAIL $name: wrote $(head -c 100 "$tmp/$name.out")"
	grep -qF "trace2: $tmp/missing: No such file or directory" "$tmp/$name.err" ||
		echo "FAIL $name: the missing input is not named: $(cat "$tmp/$name.err")"
	# -o: not created, or left as it was
	rm -f "$tmp/new.o"
	# shellcheck disable=SC2086
	"$T2" $opts -o "$tmp/new.o" "$tmp/missing" "$log" >/dev/null 2>&1
	[ $? = 1 ] || echo "FAIL $name -o: a missing input is not status 1"
	[ -e "$tmp/new.o" ] && echo "FAIL $name -o: FILE created"
	echo keep >"$tmp/old.o"
	# shellcheck disable=SC2086
	"$T2" $opts -o "$tmp/old.o" "$log" "$tmp/missing" >/dev/null 2>&1
	[ "$(cat "$tmp/old.o")" = keep ] || echo "FAIL $name -o: an existing FILE changed"
done >"$tmp/missing.fails"
[ -s "$tmp/missing.fails" ] && bad "missing input: $(cat "$tmp/missing.fails")" || ok
# a directory input: a missing directory, and (not as root, which reads
# anything) a file of it that cannot be read
"$T2" convert --to chrome "$tmp/nodir/" >"$tmp/nodir.out" 2>/dev/null
status "missing directory" 1 $?
empty "missing directory" "$tmp/nodir.out"
if [ "$(id -u)" != 0 ]; then
	mkdir "$tmp/locked"
	cp "$log" "$tmp/locked/a.json"
	cp "$log" "$tmp/locked/b.json"
	chmod 000 "$tmp/locked/b.json"
	"$T2" convert --to chrome "$tmp/locked" >"$tmp/locked.out" 2>"$tmp/locked.err"
	status "unreadable file in a directory" 1 $?
	empty "unreadable file in a directory" "$tmp/locked.out"
	says "unreadable file in a directory" "$tmp/locked.err" "$tmp/locked/b.json: Permission denied"
	chmod 600 "$tmp/locked/b.json"
else
	echo "test_cli: running as root: the unreadable-file case skipped" >&2
fi

# --- an input that is also an output ---------------------------------------------------
# refused NAME OUTFILE COMMAND...: status 1 within 10 s, the input named
refused() {
	name=$1 errf=$2
	shift 2
	if command -v timeout >/dev/null; then
		timeout 10 "$@"
		rc=$?
		[ $rc = 124 ] && { bad "$name: still running after 10 s"; return; }
	else
		"$@"
		rc=$?
	fi
	status "$name" 1 $rc
	says "$name" "$errf" "; not read"
}
dir=$tmp/dir
mkdir "$dir"
cp "$log" "$dir/a.json"
# Wine cannot say which file a standard stream the Linux shell opened is
# (GetFileInformationByHandle fails on it: the volume is unknown), so a
# Windows build under Wine cannot tell it is an input; on Windows it can.
if [ -f "$T2.exe" ]; then
	echo "$t2_test: SKIP: standard output, error or input that is an input or output (Wine cannot identify a file the Linux shell opened)"
else
	# standard error into a file of the input directory (it would grow as read)
	refused "stderr in the input directory" "$dir/err.txt" \
		sh -c '"$1" summary "$2" >"$3" 2>"$2/err.txt"' - "$T2" "$dir" "$tmp/dir.out"
	says "stderr in the input directory" "$dir/err.txt" \
		"trace2: $dir/err.txt: also this command's standard error; not read"
	[ "$(wc -l <"$dir/err.txt")" -eq 1 ] && ok || bad "stderr in the input directory: $(head -c 300 "$dir/err.txt")"
	empty "stderr in the input directory: standard output" "$tmp/dir.out"
	rm -f "$dir/err.txt"
	# standard output appended to an input
	refused "stdout appended to its input" "$tmp/app.err" \
		sh -c '"$1" convert --to perf "$2" >>"$2" 2>"$3"' - "$T2" "$log" "$tmp/app.err"
	says "stdout appended to its input" "$tmp/app.err" "also this command's standard output"
	same "stdout appended to its input: the log" "$tmp/log.copy" "$log"
fi
# -o naming an input, a hard link to it, a symbolic link to it
ln "$log" "$tmp/hard.json"
ln -s "$log" "$tmp/soft.json"
for o in "$log" "$tmp/hard.json" "$tmp/soft.json"; do
	refused "-o $o" "$tmp/o.err" sh -c '"$1" summary -o "$2" "$3" 2>"$4"' - "$T2" "$o" "$log" "$tmp/o.err"
	says "-o $o" "$tmp/o.err" "trace2: $log: also this command's output (-o); not read"
	same "-o $o: the log" "$tmp/log.copy" "$log"
done
# -o creating a file in an input directory: refused, and removed again
refused "-o in the input directory" "$tmp/od.err" \
	sh -c '"$1" convert --to normal -o "$2/out.txt" "$2" 2>"$3"' - "$T2" "$dir" "$tmp/od.err"
[ -e "$dir/out.txt" ] && bad "-o in the input directory: FILE left" || ok
# standard input that is the file standard output appends to (Wine
# cannot identify either, as above)
if [ ! -f "$T2.exe" ]; then
	refused "stdin is stdout" "$tmp/in.err" \
		sh -c '"$1" summary - <"$2" >>"$2" 2>"$3"' - "$T2" "$log" "$tmp/in.err"
	same "stdin is stdout: the log" "$tmp/log.copy" "$log"
fi

# --- inputs that are not outputs ---------------------------------------------------------
if [ -f "$T2.exe" ]; then
	echo "$t2_test: SKIP: /dev/null as an input (Windows has none; Wine does not show the Linux device)"
else
	"$T2" summary /dev/null >"$tmp/null.out" 2>/dev/null
	status "/dev/null in, stderr to /dev/null" 0 $?
	says "/dev/null in" "$tmp/null.out" "processes: 0 (0 roots)"
fi
# a FIFO: the check must not open it (its writer would lose its reader);
# a Windows build (trace2.exe beside its launcher) under Wine cannot open
# a Linux FIFO at all, and its writer would wait forever
if [ -f "$T2.exe" ]; then
	echo "$t2_test: SKIP: a FIFO input (no Linux FIFOs for a Windows program)"
else
	mkfifo "$tmp/fifo"
	cat "$log" >"$tmp/fifo" &
	"$T2" summary "$tmp/fifo" >"$tmp/fifo.out" 2>"$tmp/fifo.err"
	status "a FIFO input" 0 $?
	wait
	"$T2" summary "$log" >"$tmp/fifo.want" 2>/dev/null
	same "a FIFO input" "$tmp/fifo.want" "$tmp/fifo.out"
fi
# -o naming standard error's file is two outputs, no input
"$T2" summary -o "$tmp/both" "$log" 2>>"$tmp/both"
status "-o is standard error's file" 0 $?

finish
