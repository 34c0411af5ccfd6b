#!/bin/sh
# USDT probes (docs/probes.md, include/trace2/probe.h).
#  1. Notes: libtrace2.so and a program linked with libtrace2.a carry the
#     library's probes, semaphore the listener word's high half, in
#     .probes; the program's own probes (tests/probes/probe_prog.c) carry
#     theirs.  The argument descriptions equal, probe for probe, those of
#     the same sources compiled with SystemTap's <sys/sdt.h> in place of
#     our notes (tests/probes/sdt_reference.h): for x86-64 and, cross
#     compiled, for aarch64; user probes in C++ (tests/probes/probe_cxx.cc,
#     g++ and clang++) have the same argument sizes.
#  2. bpftrace, as root, with the plain build: attached by path to the
#     test program and to the example with no target on, exact hit
#     counts and argument values, the semaphores set while attached and
#     clear after.
# As root, missing tools are installed (systemtap-sdt-dev,
# gcc-aarch64-linux-gnu, bpftrace); a part whose tool is missing is
# skipped with a message naming it.
# usage: T2_BIN=build/bin [T2_CC=cc T2_LIB_CFLAGS=... T2_APP_CFLAGS=...] tests/lib/test_probes.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
LIBDIR=$BIN/..
CC=${T2_CC:-cc}
LIB_CFLAGS=${T2_LIB_CFLAGS:--D_GNU_SOURCE -Iinclude -Isrc -Itargets -std=c11 -Wall -Wextra -Werror -O2 -g -fPIC -fvisibility=hidden}
APP_CFLAGS=${T2_APP_CFLAGS:--D_GNU_SOURCE -Iinclude -Isrc -Itargets -std=c11 -Wall -Wextra -Werror -O2 -g}
REF=tests/probes/sdt_reference.h
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

# The library's probes, in docs/probes.md's order.
LIB_PROBES="start exit atexit error thread_start thread_exit child_start child_exit
region_enter region_leave data data_intmax printf"

skip() { echo "$t2_test: SKIP: $*"; }

# need CHECK PACKAGES: true if CHECK succeeds, after installing PACKAGES
# with apt-get when it does not and we are root.
need() {
	sh -c "$1" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
	echo "$t2_test: installing $2" >&2
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $2; } \
		>"$tmp/apt.log" 2>&1 || tail -3 "$tmp/apt.log" >&2
	sh -c "$1" >/dev/null 2>&1
}

# notes FILE PROVIDER: "name semaphore arguments" per probe, in note order.
notes() {
	readelf -nW "$1" | awk -v want="$2" '
		/Provider:/ { p = $NF }
		/Name:/ { n = $2 }
		/Semaphore:/ { s = $NF }
		/Arguments:/ { sub(/^ *Arguments: */, ""); if (p == want) print n, s, $0 }'
}

# sizes FILE: each t2cxx probe's name and its arguments' sizes ("-4").
sizes() {
	notes "$1" t2cxx | awk '{ out = $1; for (i = 3; i <= NF; i++) { split($i, a, "@"); out = out " " a[1] } print out }'
}

# args_same WHAT OURS REFERENCE PROVIDER: the names and argument descriptions.
args_same() {
	notes "$2" "$4" | awk '{ $2 = ""; print }' >"$tmp/ours"
	notes "$3" "$4" | awk '{ $2 = ""; print }' >"$tmp/ref"
	if [ -s "$tmp/ours" ]; then ok; else bad "$1: no $4 probes in $2"; fi
	same "$1: argument descriptions as <sys/sdt.h>'s" "$tmp/ref" "$tmp/ours"
}

# addr FILE SYMBOL [OFFSET]: the symbol's address plus OFFSET, as readelf prints it.
addr() {
	a=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$a" ] && printf '0x%016x\n' $((0x$a + ${3:-0}))
}

# in_probes FILE ADDRESS: the address is inside FILE's .probes section.
in_probes() {
	set -- $(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *\.probes  *[A-Z]*  *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p') "$2"
	[ $# -eq 3 ] && [ $(($3)) -ge $((0x$1)) ] && [ $(($3)) -lt $((0x$1 + 0x$2)) ]
}

# semaphores_are WHAT FILE PROVIDER EXPECTED: every probe's semaphore field.
semaphores_are() {
	got=$(notes "$2" "$3" | awk '{ print $2 }' | sort -u)
	if [ "$got" = "$4" ]; then ok; else bad "$1: semaphores $got, not $4"; fi
}

case ${T2_CROSS:-} in
'' | aarch64 | musl) ;;
*)
	skip "no probes on $T2_CROSS (trace2/probe.h: x86-64 and little-endian aarch64 only)"
	finish
	exit
	;;
esac

# --- 1. the notes ---------------------------------------------------------
so=$LIBDIR/libtrace2.so
prog=$tmp/probe_prog
$CC $APP_CFLAGS tests/probes/probe_prog.c "$LIBDIR/libtrace2.a" -lpthread -o "$prog" ||
	bad "building tests/probes/probe_prog.c"

for f in "$so" "$prog"; do
	names=$(notes "$f" trace2 | awk '{ print $1 }' | sort | tr '\n' ' ')
	want=$(echo $LIB_PROBES | tr ' ' '\n' | sort | tr '\n' ' ')
	if [ "$names" = "$want" ]; then ok; else bad "$f: library probes [$names], not [$want]"; fi
	sema=$(addr "$f" trace2_listener_mask 2)
	semaphores_are "$f: library probes" "$f" trace2 "$sema"
	if in_probes "$f" "$sema"; then ok; else bad "$f: semaphore $sema not in .probes"; fi
done
gated=$(addr "$prog" trace2_probe_semaphore_t2test_gated)
notes "$prog" t2test | awk -v g="$gated" '
	($1 == "gated") != ($2 == g) || ($1 != "gated" && $2 != "0x0000000000000000") { bad = 1 }
	END { exit bad }' && ok || bad "program: user probes' semaphores (gated: $gated)"
if in_probes "$prog" "$gated"; then ok; else bad "program: user semaphore not in .probes"; fi

# a64_objects: tests/probes' sources compiled for aarch64 with our notes
# (ours) and with <sys/sdt.h>'s (ref) into $tmp/a64_{lib,prog}_{ours,ref}.o.
# sys/sdt.h is the same for every architecture; only it is taken from the
# host's include directory.
a64_objects() {
	X=aarch64-linux-gnu-gcc
	if ! need "echo 'int main(void){return 0;}' | $X -x c - -o $tmp/a64" \
		"gcc-aarch64-linux-gnu libc6-dev-arm64-cross"; then
		skip "no $X (gcc-aarch64-linux-gnu; installed only as root)"
		return 1
	fi
	if ! need "echo '#include <sys/sdt.h>' | cc -E -x c - " systemtap-sdt-dev; then
		skip "no <sys/sdt.h> (systemtap-sdt-dev; installed only as root)"
		return 1
	fi
	mkdir -p "$tmp/sdt/sys"
	sdt=$(echo '#include <sys/sdt.h>' | cc -M -x c - | tr ' ' '\n' | grep 'sys/sdt.h$')
	cp "$sdt" "$(dirname "$sdt")/sdt-config.h" "$tmp/sdt/sys/"
	xflags="-I$tmp/sdt -I$tmp/a64gen -D_GNU_SOURCE -Iinclude -Isrc -Itargets -std=c11 -Wall -Wextra -Werror -O2 -g"
	mkdir -p "$tmp/a64gen"
	src/tr2_features.sh $X $xflags >"$tmp/a64gen/tr2_features.h" || bad "aarch64: the feature probe"
	for v in ours ref; do
		inc=; [ $v = ref ] && inc="-include $REF"
		$X $xflags -fPIC -fvisibility=hidden $inc -c src/tr2_probe.c -o "$tmp/a64_lib_$v.o" &&
			$X $xflags $inc -c tests/probes/probe_prog.c -o "$tmp/a64_prog_$v.o" ||
			bad "aarch64: building ($v)"
	done
}

# has_probe WHAT FILE PROVIDER NAME: FILE has that probe.
has_probe() {
	if notes "$2" "$3" | grep -q "^$4 "; then ok; else bad "$1: no $3:$4 probe"; fi
}

if [ "${T2_CROSS:-}" = aarch64 ]; then
	# The aarch64 build (make CROSS=aarch64): its libtrace2.so and a
	# program linked with its libtrace2.a carry the probes <sys/sdt.h>
	# would write, and the program runs under qemu-user.
	has_probe "aarch64 libtrace2.so" "$so" trace2 region_enter
	has_probe "aarch64 program" "$prog" t2test gated
	if a64_objects; then
		args_same "aarch64 build's libtrace2.so" "$so" "$tmp/a64_lib_ref.o" trace2
		args_same "aarch64 build: library probes in a program" "$prog" "$tmp/a64_lib_ref.o" trace2
		args_same "aarch64 build: user probes in a program" "$prog" "$tmp/a64_prog_ref.o" t2test
	fi
	printf 'go\ngo\n' | GIT_TRACE2_EVENT="$tmp/a64.event" ${T2_RUN:-} "$prog" run 5 >"$tmp/a64.out" 2>&1
	printf '%s\n' "before gated=0 library=0 targets=1" "while gated=0 library=0 targets=1" \
		"evaluated=0" "after gated=0 library=0 targets=1" >"$tmp/a64.want"
	same "aarch64 program under ${T2_RUN:-qemu}: its output" "$tmp/a64.want" "$tmp/a64.out"
	n=$(grep -c '"event":"region_enter".*"label":"loop"' "$tmp/a64.event")
	[ "$n" = 5 ] && ok || bad "aarch64 program under ${T2_RUN:-qemu}: $n region_enter records, not 5"
	skip "bpftrace part: bpftrace cannot attach to a program that runs under qemu-user"
	finish
	exit
fi

if [ "$(uname -m)" != x86_64 ]; then
	skip "the <sys/sdt.h> comparisons are written for an x86-64 host, not $(uname -m)"
elif ! need "echo '#include <sys/sdt.h>' | $CC -E -x c - " systemtap-sdt-dev; then
	skip "no <sys/sdt.h> (systemtap-sdt-dev; installed only as root)"
else
	$CC $LIB_CFLAGS -include $REF -c src/tr2_probe.c -o "$tmp/ref_lib.o" &&
		$CC $APP_CFLAGS -include $REF -c tests/probes/probe_prog.c -o "$tmp/ref_prog.o" ||
		bad "building the <sys/sdt.h> reference"
	args_same "x86-64 libtrace2.so" "$so" "$tmp/ref_lib.o" trace2
	args_same "x86-64 library probes in a program" "$prog" "$tmp/ref_lib.o" trace2
	args_same "x86-64 user probes" "$prog" "$tmp/ref_prog.o" t2test

	# C++ (g++ and clang++, C++11 and C++20): the registers each build
	# picks differ with the templates around the asm, so only the sizes
	# and signedness ("-4@") are compared.
	for cxx in g++ clang++; do
		if ! command -v $cxx >/dev/null 2>&1; then
			skip "no $cxx: C++ user probes not built with it"
			continue
		fi
		for std in c++11 c++20; do
			what="C++ user probes ($cxx -std=$std)"
			if $cxx -std=$std -Wall -Wextra -Werror -O2 -Iinclude tests/probes/probe_cxx.cc \
				-o "$tmp/cxx" &&
			   $cxx -std=$std -O2 -Iinclude -include $REF tests/probes/probe_cxx.cc \
				-o "$tmp/cxx_ref"; then
				sizes "$tmp/cxx" >"$tmp/ours"
				sizes "$tmp/cxx_ref" >"$tmp/ref"
				[ "$(wc -l <"$tmp/ours")" = 6 ] && ok || bad "$what: $(wc -l <"$tmp/ours") probes, not 6"
				same "$what: argument sizes as <sys/sdt.h>'s" "$tmp/ref" "$tmp/ours"
				[ "$("$tmp/cxx")" = evaluated=0 ] && ok ||
					bad "$what: the gated probe's arguments were evaluated with nothing attached"
			else
				bad "$what: build failed"
			fi
		done
	done

	if a64_objects; then
		args_same "aarch64 library probes" "$tmp/a64_lib_ours.o" "$tmp/a64_lib_ref.o" trace2
		args_same "aarch64 user probes" "$tmp/a64_prog_ours.o" "$tmp/a64_prog_ref.o" t2test
	fi
fi

# --- 2. bpftrace ------------------------------------------------------------
# wait_for FILE PATTERN [SECONDS]: up to SECONDS, 60 by default.
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $((${3:-60} * 10)) ] && return 1
		sleep 0.1
	done
}

# has WHAT FILE LINE: FILE has exactly the line LINE.
has() {
	if grep -qxF "$3" "$2"; then ok; else bad "$1: no line '$3' in:"; cat "$2" >&2; fi
}

# bpftrace_check: why uprobes cannot be used here, or nothing.  Not in a
# sanitizer build: its tests run while the ASan ones load the machine,
# where bpftrace has taken minutes, and the probes are the plain build's.
bpftrace_check() {
	[ -z "${T2_SAN:-}" ] || { echo "run with the plain build only"; return; }
	[ "$(id -u)" = 0 ] || { echo "not root"; return; }
	need "command -v bpftrace" bpftrace || { echo "no bpftrace"; return; }
	mountpoint -q /sys/kernel/tracing ||
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		{ echo "tracefs cannot be mounted at /sys/kernel/tracing"; return; }
	timeout -s INT -k 300 600 bpftrace -e "uprobe:$prog:main { @main = count(); }" -c "$prog bench 1" \
		>"$tmp/pre" 2>&1
	grep -qxF '@main: 1' "$tmp/pre" ||
		echo "a uprobe on main does not fire: $(grep -v '^$' "$tmp/pre" | tail -2 | tr '\n' ' ')"
}

why=$(bpftrace_check)
if [ -n "$why" ]; then
	skip "bpftrace part: $why"
	finish
	exit
fi

N=200
# trace_once PROGRAM LIBRARY_FILE FIRST: bpftrace attached by path (the
# library's probes in LIBRARY_FILE, the user probes in PROGRAM) while
# PROGRAM runs its loop with no target on, into $tmp/bt.out and
# $tmp/prog.out.  FIRST: "program" starts before the tracer attaches,
# "tracer" after (the semaphores are then set from the start).  Returns
# bpftrace's exit status.
trace_once() {
	p=$1 lib=$2 first=$3
	cat >"$tmp/prog.bt" <<EOF
BEGIN { printf("attached\n"); }
usdt:$lib:trace2:region_enter { @enter[str(arg0), str(arg1), arg2] = count(); }
usdt:$lib:trace2:data_intmax { @intmax[str(arg0)] = sum(arg2); @keys[str(arg1)] = count(); }
usdt:$p:t2test:gated { @gated = count(); @gated_sum = sum(arg1); }
usdt:$p:t2test:eight { @eight_u8 = sum(arg5); @eight_shifted = sum(arg4 >> 33); }
usdt:$lib:trace2:region_leave {
	@leave[str(arg1)] = count(); @leave_ns_over_0[str(arg1)] = sum(arg2 > 0);
	@left++;
	if (@left == $N) {
		print(@enter); print(@leave); print(@leave_ns_over_0); print(@intmax); print(@keys);
		print(@gated); print(@gated_sum); print(@eight_u8); print(@eight_shifted);
		printf("counted\n");
	}
}
EOF
	rm -f "$tmp/in" "$tmp/bt.out" "$tmp/prog.out"
	mkfifo "$tmp/in"
	[ "$first" = program ] && start_program "$p"
	# a bound only: on a busy machine, taking the uprobes away has taken
	# bpftrace over 120 s; the maps are printed at the loop's last leave,
	# not at its exit, which comes after that
	timeout -s INT -k 300 600 bpftrace "$tmp/prog.bt" >"$tmp/bt.out" 2>&1 &
	bt=$!
	pids="$pids $bt"
	wait_for "$tmp/bt.out" '^attached' 240 ||
		{ bad "$what: bpftrace did not attach in 240 s:"; cat "$tmp/bt.out" >&2; }
	[ "$first" = tracer ] && start_program "$p"
	echo go >&3
	wait_for "$tmp/prog.out" '^evaluated' || bad "$what: the test program did not run its loop"
	wait_for "$tmp/bt.out" '^counted'
	t0=$(date +%s)
	kill -INT $bt
	wait $bt
	btrc=$?
	[ $(($(date +%s) - t0)) -lt 10 ] ||
		echo "$t2_test: $what: bpftrace took $(($(date +%s) - t0)) s to end after SIGINT" >&2
	echo go >&3
	exec 3>&-
	wait
	pids= # reaped: their numbers may be another process's by the exit trap
	return $btrc
}

# traced WHAT PROGRAM LIBRARY_FILE FIRST: trace_once, and what it
# recorded checked.  A run where bpftrace printed no maps at the last
# leave ("counted"), nor at its end, failed in bpftrace or the kernel, not
# in the library (a leave not seen is a count the checks below find
# wrong): it is run once more, saying so.
traced() {
	what=$1
	trace_once "$2" "$3" "$4"
	btrc=$?
	if ! grep -q '^@' "$tmp/bt.out"; then
		echo "$t2_test: $what: bpftrace ended with status $btrc and printed no maps:" >&2
		cat "$tmp/bt.out" "$tmp/prog.out" >&2
		echo "$t2_test: $what: once more" >&2
		trace_once "$2" "$3" "$4"
		btrc=$?
		grep -q '^@' "$tmp/bt.out" ||
			bad "$what: bpftrace ended with status $btrc and printed no maps again"
	fi
	if [ "$4" = program ]; then
		has "$what: before attaching" "$tmp/prog.out" "before gated=0 library=0 targets=0"
	else
		matches "$what: attached from the start" "$tmp/prog.out" \
			'^before gated=1 library=[1-9][0-9]* targets=0$'
	fi
	matches "$what: semaphores set while attached" "$tmp/prog.out" \
		'^while gated=1 library=[1-9][0-9]* targets=0$'
	has "$what: arguments evaluated while attached only" "$tmp/prog.out" "evaluated=$N"
	has "$what: after detaching" "$tmp/prog.out" "after gated=0 library=0 targets=0"
	# the maps as printed at the last leave (or, if that never came, at
	# bpftrace's end): counts seen after that leave must not pass for it
	sed '/^counted$/q' "$tmp/bt.out" >"$tmp/bt.counted"
	has "$what: region_enter hits" "$tmp/bt.counted" "@enter[t2test, loop, 1]: $N"
	has "$what: region_leave hits" "$tmp/bt.counted" "@leave[loop]: $N"
	has "$what: region_leave elapsed" "$tmp/bt.counted" "@leave_ns_over_0[loop]: $N"
	has "$what: data_intmax values" "$tmp/bt.counted" "@intmax[t2test]: $((1000 * N * (N - 1) / 2))"
	has "$what: data_intmax keys" "$tmp/bt.counted" "@keys[item-7]: 1"
	has "$what: user probe hits" "$tmp/bt.counted" "@gated: $N"
	has "$what: user probe integer" "$tmp/bt.counted" "@gated_sum: $((N * (N - 1) / 2))"
	has "$what: user probe uint8_t" "$tmp/bt.counted" "@eight_u8: $((N * (N - 1) / 2))"
	has "$what: user probe int64" "$tmp/bt.counted" "@eight_shifted: $((N * (N - 1) / 2))"
}

# start_program PROGRAM: in the background, reading the fifo (fd 3).
start_program() {
	timeout 900 "$1" run $N <"$tmp/in" >"$tmp/prog.out" 2>&1 &
	pids="$pids $!"
	exec 3>"$tmp/in"
	wait_for "$tmp/prog.out" '^before' || bad "the test program did not start"
}

# matches WHAT FILE REGEX: a line of FILE matches.
matches() {
	if grep -q "$3" "$2"; then ok; else bad "$1: no line like '$3' in:"; cat "$2" >&2; fi
}

traced "libtrace2.a" "$prog" "$prog" program

# libtrace2.so: a program that reads a copy of the word (copy relocation,
# gcc's default) sees only the semaphore the library's word had when it
# started (docs/probes.md); one that reads the library's sees attaching.
shprog=$tmp/probe_prog_shared
libso=$(cd "$LIBDIR" && pwd)/libtrace2.so
$CC $APP_CFLAGS tests/probes/probe_prog.c -L"$LIBDIR" -ltrace2 -Wl,-rpath,"$(dirname "$libso")" \
	-lpthread -o "$shprog" || bad "building the program on libtrace2.so"
if readelf -rW "$shprog" | grep -q 'R_[A-Z0-9_]*_COPY .* trace2_listener_mask'; then
	traced "libtrace2.so, word copied" "$shprog" "$libso" tracer
else
	traced "libtrace2.so" "$shprog" "$libso" program
fi

# The example, by path, no target on: the same regions as its perf trace.
ex=$BIN/example-hashsort
set -- src/trace2.c src/tr2_tls.c src/tr2_buf.c
GIT_TRACE2_PERF=$tmp/perf "$ex" "$@" >/dev/null
awk -F'|' '$4 ~ /region_enter/ { gsub(/ /, "", $8); sub(/^ *\.*label:/, "", $9); sub(/ .*/, "", $9)
	print "@[" $8 ", " $9 "]" }' \
	"$tmp/perf" | sort | uniq -c | awk '{ print $2 " " $3 ": " $1 }' >"$tmp/ex.want"
timeout -s INT -k 300 600 bpftrace -e "usdt:$ex:trace2:region_enter { @[str(arg0), str(arg1)] = count(); }" \
	-c "$ex $*" 2>&1 | grep '^@' | sort >"$tmp/ex.got"
if [ -s "$tmp/ex.want" ]; then ok; else bad "no regions in the example's perf trace"; fi
same "the example's regions by label" "$tmp/ex.want" "$tmp/ex.got"
finish
