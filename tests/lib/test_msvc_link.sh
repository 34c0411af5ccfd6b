#!/bin/sh
# A program built as MSVC builds one, linking libtrace2.dll: compiled by
# clang for x86_64-pc-windows-msvc (the MSVC ABI, name mangling and
# import rules) with -DTRACE2_DLL, linked by lld-link (MSVC's linker
# rules: no data imported unless declared so) against the import library
# make CROSS=mingw64 builds, then run under Wine.  As C and as C++
# (tests/platforms/msvc_main.c and msvc_use.c: regions, the RAII class,
# a child): it links, exits with its own code, and its perf output holds
# its records.  Without -DTRACE2_DLL it must not link (the header's data,
# trace2_listener_mask, needs dllimport there: docs/embedding.md "MSVC").
# No MSVC C runtime is here: the program is its own entry point.
# Runs with the Windows build (T2_CROSS=mingw64, make check-windows-some);
# elsewhere, or without clang's Windows target or lld-link, it skips.
# usage: T2_CROSS=mingw64 T2_BIN=build/mingw64/bin tests/lib/test_msvc_link.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
MSVC="--target=x86_64-pc-windows-msvc -fms-compatibility -ffreestanding -fno-exceptions -fno-rtti"
WARN="-Wall -Wextra -Werror"
lib=$(cd "$BIN/.." && pwd)
kernel32=$(x86_64-w64-mingw32-gcc -print-file-name=libkernel32.a 2>/dev/null)

if [ "${T2_CROSS:-}" != mingw64 ]; then
	echo "$t2_test: SKIP: needs the Windows build (T2_CROSS=mingw64: make check-windows-some)"
	exit 0
fi
for tool in clang lld-link; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "$t2_test: SKIP: $tool is not installed"
		exit 0
	fi
done
if [ ! -f "$lib/libtrace2.dll.a" ] || [ ! -f "$kernel32" ]; then
	echo "$t2_test: SKIP: no $lib/libtrace2.dll.a or mingw-w64's libkernel32.a"
	exit 0
fi
cp "$lib/libtrace2.dll" "$tmp/"

# build NAME LANG FLAGS...: $tmp/NAME.exe from msvc_main.c and
# msvc_use.c compiled as LANG ("c -std=c11", "c++ -std=c++17") with FLAGS;
# 1 if it does not link
build() {
	name=$1 lang=$2
	shift 2
	for f in msvc_main msvc_use; do
		# shellcheck disable=SC2086 # MSVC, WARN and lang are lists of flags
		clang $MSVC $WARN -Iinclude "$@" -x $lang -c "tests/platforms/$f.c" \
			-o "$tmp/$name-$f.obj" 2>"$tmp/$name.err" || return 2
	done
	lld-link /nologo /entry:msvc_main /subsystem:console "/out:$tmp/$name.exe" \
		"$tmp/$name-msvc_main.obj" "$tmp/$name-msvc_use.obj" "$lib/libtrace2.dll.a" \
		"$kernel32" >>"$tmp/$name.err" 2>&1 || return 1
}

# check NAME LANG: built, run: exit code 5, its records in the perf log
check() {
	name=$1 lang=$2
	if ! build "$name" "$lang" -DTRACE2_DLL; then
		bad "$name: does not build"; head -10 "$tmp/$name.err" >&2; return
	fi
	GIT_TRACE2_PERF="$tmp/$name.perf" GIT_TRACE2_PERF_BRIEF=1 \
		$T2_RUN "$tmp/$name.exe" >/dev/null 2>"$tmp/$name.err"
	rc=$?
	[ $rc = 5 ] && ok || bad "$name: exit code $rc, want 5: $(head -3 "$tmp/$name.err")"
	# "event message" per line (brief perf: the 3rd and last fields)
	awk -F'|' '{ gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $NF); print $3 " " $NF }' \
		"$tmp/$name.perf" >"$tmp/$name.words"
	for want in "version 0.1.0" "start msvc-main first" "region_enter label:label" \
		"region_leave label:label" "child_start [ch1] class:msvc argv:[cmd.exe /c 'exit 0']" \
		"child_exit [ch1] pid:" "exit code:0" "atexit code:0"; do
		grep -q -F "$want" "$tmp/$name.words" && ok ||
			{ bad "$name: no '$want' in its perf log:"; cat "$tmp/$name.perf" >&2; }
	done
}

check c-program "c -std=c11"
check cxx-program "c++ -std=c++17"
grep -q -F "region_enter label:raii" "$tmp/cxx-program.words" && ok ||
	bad "cxx-program: no region of the RAII class"

build no-dll "c -std=c11"
case $? in
1) grep -q "trace2_listener_mask" "$tmp/no-dll.err" && ok ||
	bad "no-dll: the link failed for another reason: $(head -3 "$tmp/no-dll.err")" ;;
0) bad "no-dll: linked without -DTRACE2_DLL: then the docs' MSVC rule is wrong" ;;
*) bad "no-dll: does not compile: $(head -3 "$tmp/no-dll.err")" ;;
esac
finish
