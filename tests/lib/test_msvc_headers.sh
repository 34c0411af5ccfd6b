#!/bin/sh
# The public headers for MSVC users: trace2.h (also with
# -DTRACE2_DISABLE, which brings in trace2/disable.h), trace2/target.h
# and trace2/run.h, then tests/platforms/msvc_use.c (the region macros,
# the C++ RAII class, a child process; also with -DTRACE2_DLL, the data
# imported), compiled -fsyntax-only by clang for x86_64-pc-windows-msvc
# with -fms-compatibility, as C11, C++14 (MSVC's default) and C++20,
# -Wall -Wextra -pedantic -Werror.  No Windows SDK is here, so anything
# beyond clang's own headers fails to build.  Each is compiled twice: as
# clang-cl sees it, and with -U__clang__, which takes the headers'
# branches for a compiler that is neither GCC nor Clang (what MSVC's cl
# gets; clang still does the parsing, so this is no proof that cl
# accepts it).  In that second form the preprocessed headers and macro
# expansions must hold no GNU extension, and every header they include
# must be one of C11's freestanding ones.  On the host compiler ($T2_CC)
# outside Windows, &child_process.pid must be a pid_t * (the field's
# type is the platform's pid_t there).  With mingw-w64's gcc, every
# public struct has the same size and alignment there as for the MSVC
# target.
# run.h's -DTRACE2_DISABLE form uses posix_spawnp(): not compiled here.
# Without clang or its Windows target it skips.
# usage: tests/lib/test_msvc_headers.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
MSVC="--target=x86_64-pc-windows-msvc -fms-compatibility"
WARN="-Wall -Wextra -pedantic -Werror"
USE=tests/platforms/msvc_use.c

if ! command -v clang >/dev/null 2>&1; then
	echo "$t2_test: SKIP: clang is not installed"
	exit 0
fi
# shellcheck disable=SC2086 # MSVC is a list of flags
if ! echo 'int x;' | clang $MSVC -fsyntax-only -x c - 2>/dev/null; then
	echo "$t2_test: SKIP: this clang has no x86_64-pc-windows-msvc target"
	exit 0
fi

# syntax NAME FILE FLAGS...: compiles for the MSVC target, without a word
syntax() {
	name=$1 file=$2
	shift 2
	# shellcheck disable=SC2086 # MSVC and WARN are lists of flags
	if clang $MSVC -fsyntax-only $WARN -Iinclude "$@" "$file" >"$tmp/err" 2>&1; then
		ok
	else
		bad "$name: does not compile for MSVC"; head -20 "$tmp/err" >&2
	fi
}

for h in trace2.h trace2/target.h trace2/run.h; do
	echo "#include \"$h\"" >"$tmp/$(echo "$h" | tr / _).c"
done
echo '#define TRACE2_DISABLE
#include "trace2.h"' >"$tmp/disable.c"
for cl in "" -U__clang__; do
	for lang in "c -std=c11" "c++ -std=c++14" "c++ -std=c++20"; do
		for tu in "$tmp"/*.c; do
			# shellcheck disable=SC2086 # cl and lang are lists of flags
			syntax "$(basename "$tu") $lang $cl" "$tu" $cl -x $lang
		done
		for off in "" -DTRACE2_DISABLE -DTRACE2_DLL; do
			# shellcheck disable=SC2086 # cl, lang and off are lists of flags
			syntax "$USE $lang $cl $off" "$USE" $cl $off -x $lang
		done
	done
done

# What cl would see: the lines that come from include/ or the test's own
# file after preprocessing (clang's <stdarg.h> makes va_start() and
# va_end() __builtin_va_*: those are cl's own there), and the headers
# they include from clang's (not what those include in turn).
for lang in "c -std=c11" "c++ -std=c++14"; do
	for off in "" -DTRACE2_DISABLE; do
		name="$USE $lang $off"
		# shellcheck disable=SC2086 # MSVC, lang and off are lists of flags
		if ! clang $MSVC -U__clang__ $off -E -Iinclude -x $lang "$USE" >"$tmp/pp" 2>"$tmp/err"; then
			bad "$name: does not preprocess"; head -20 "$tmp/err" >&2; continue
		fi
		awk '/^# [0-9]+ "/ { file = $3; next } file !~ /\/clang\// { print }' \
			"$tmp/pp" >"$tmp/ours"
		gnu=$(sed 's/__builtin_va_\(start\|end\)(/va_\1(/g' "$tmp/ours" |
			grep -n -E '__attribute__|__builtin_|__atomic_|__typeof|_Thread_local|__extension__|#pragma GCC|_Pragma')
		[ -z "$gnu" ] && ok || bad "$name: GNU extensions left for cl: $gnu"
		awk '/^# [0-9]+ "/ {
			if ($4 == 1 && $3 ~ /\/clang\// && file !~ /\/clang\//)
				print $3
			file = $3
		}' "$tmp/pp" |
			sed 's|.*/include/||; s|"$||' | sort -u >"$tmp/sys"
		other=$(grep -v -x -E 'std(arg|def|int|bool|align|noreturn)\.h|limits\.h|float\.h|iso646\.h' "$tmp/sys")
		[ -z "$other" ] && ok || bad "$name: includes beyond standard C: $other"
	done
done

# A library built with mingw-w64 and a program built with MSVC must agree
# on every public struct: the same size and alignment under both.
if command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
	{
		echo '#include <stddef.h>'
		echo '#include "trace2/target.h"'
		echo 'const size_t layout[] = {'
		sed -n 's/^struct \(trace2_[a-z0-9_]*\) {.*/sizeof(struct \1), _Alignof(struct \1),/p' \
			include/trace2.h include/trace2/target.h
		echo '0 };'
	} >"$tmp/layout.c"
	x86_64-w64-mingw32-gcc -std=c11 -Iinclude -S -o "$tmp/mingw.s" "$tmp/layout.c" 2>"$tmp/err"
	# shellcheck disable=SC2086 # MSVC is a list of flags
	clang $MSVC -std=c11 -Iinclude -S -o "$tmp/msvc.s" "$tmp/layout.c" 2>>"$tmp/err"
	awk '$1 == ".quad" { print $2 }' "$tmp/mingw.s" >"$tmp/mingw"
	awk '$1 == ".quad" { print $2 }' "$tmp/msvc.s" >"$tmp/msvc"
	n=$(grep -c '^sizeof' "$tmp/layout.c")
	if [ "$n" -ge 20 ] && [ "$(wc -l <"$tmp/mingw")" -eq $((2 * n + 1)) ]; then
		same "struct sizes and alignments, mingw-w64 vs MSVC" "$tmp/mingw" "$tmp/msvc"
	else
		bad "struct layouts not measured ($n structs)"; head -5 "$tmp/err" >&2
	fi
else
	echo "$t2_test: skipped the mingw-w64 layout comparison: x86_64-w64-mingw32-gcc is not installed"
fi

echo '#include <sys/types.h>
#include "trace2.h"
#ifndef _WIN32
pid_t *child_pid(struct trace2_child_process *cp);
pid_t *child_pid(struct trace2_child_process *cp) { return &cp->pid; }
#endif' >"$tmp/pid.c"
# shellcheck disable=SC2086 # T2_CC may hold flags
if ${T2_CC:-cc} -std=c11 -Wall -Wextra -Werror -Iinclude -fsyntax-only "$tmp/pid.c" 2>"$tmp/err"; then
	ok
else
	bad "${T2_CC:-cc}: &cp->pid is no pid_t *"; head -5 "$tmp/err" >&2
fi
finish
