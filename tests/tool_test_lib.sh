# Sourced by the shell tests (tests/*/test_*.sh) after `set -u`:
#   . "$(dirname "$0")/../tool_test_lib.sh"
# A clean Git trace2 environment, the pass/fail counters, and ok, bad,
# same, converted and finish for every such test; $t2_test is the test's
# name, $BIN the build's bin directory (T2_BIN), $T2 the trace2 command,
# $TOOL the test driver, $tmp a directory removed at exit (kept with KEEP=1),
# $app_threads and $app_exe what a test building a program on the static
# library links besides it and ends the program's name with.
t2_test=$(basename "$0" .sh)
passed=0 failed=0
BIN=${T2_BIN:-build/bin}
T2=$(cd "$BIN" && pwd)/trace2
TOOL=$(cd "$BIN" && pwd)/trace2-tool
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
# README links pthreads; on Windows the library needs none, and
# mingw-w64's -lpthread ties the program to winpthreads' DLL, which Wine
# does not have.  mingw's gcc adds .exe to a name without it.
app_threads=-lpthread app_exe=
[ "${T2_CROSS:-}" != mingw64 ] || app_threads= app_exe=.exe
unset GIT_TRACE2 GIT_TRACE2_PERF GIT_TRACE2_EVENT GIT_TRACE2_BRIEF GIT_TRACE2_PERF_BRIEF \
	GIT_TRACE2_EVENT_BRIEF GIT_TRACE2_EVENT_NESTING GIT_TRACE2_PARENT_SID \
	GIT_TRACE2_PARENT_NAME GIT_TRACE2_CONFIG_PARAMS GIT_TRACE2_ENV_VARS

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "$t2_test: FAIL: $*" >&2; }

# same NAME EXPECTED GOT: byte for byte
same() {
	if cmp -s "$2" "$3"; then ok; else bad "$1"; diff "$2" "$3" | head -20 >&2; fi
}

# converted FORMAT OUT INPUT...: trace2 convert --to FORMAT into OUT;
# fails (with the reason said) unless it exits 0, says nothing on stderr
# and writes something
converted() {
	fmt=$1 out=$2
	shift 2
	if ! "$T2" convert --to "$fmt" "$@" >"$out" 2>"$out.err"; then
		bad "$out: convert --to $fmt failed: $(head -3 "$out.err")"
	elif [ -s "$out.err" ]; then
		bad "$out: convert --to $fmt complained: $(head -3 "$out.err")"
	elif [ ! -s "$out" ]; then
		bad "$out: convert --to $fmt wrote nothing"
	else
		return 0
	fi
	return 1
}

# pipe_writer PIPE @FILE | PIPE ID N [LONG]: (the Windows build,
# T2_CROSS=mingw64, whose --listen takes a named pipe) one client of the
# pipe PIPE, a Windows program writing FILE's bytes, or N lines after a
# line of LONG bytes (tests/tools/windows/pipe_writer.c, built with T2_CC
# at the first call; it waits up to 10 s for the pipe)
pipe_writer() {
	[ -f "$tmp/pipe_writer.exe" ] ||
		"$T2_CC" -std=c11 -O2 tests/tools/windows/pipe_writer.c -o "$tmp/pipe_writer.exe" || return 1
	$T2_RUN "$tmp/pipe_writer.exe" "$@"
}

# finish: the summary line; the exit status is 1 when a check failed
finish() {
	echo "$t2_test: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
