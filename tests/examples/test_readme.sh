#!/bin/sh
# README.md's example program, as a user copies it: it builds the way
# README says (the static library, -lpthread; no -lpthread on Windows,
# where the library needs none) without a warning under
# -Wall -Wextra -Wcast-qual (with gcc, and clang where there is one), runs,
# and traces its command and its region.
# usage: T2_BIN=build/bin [T2_CC=cc] [T2_SAN="sanitizer flags"] tests/examples/test_readme.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
LIBDIR=$(cd "$BIN/.." && pwd)

# README's C code blocks, one after another.
sed -n '/^```c$/,/^```$/{/^```/d;p}' README.md >"$tmp/app.c"
grep -q 'int main' "$tmp/app.c" && ok || bad "no example program in README.md"

cat >"$tmp/want" <<'END'
d0 | main                     | cmd_name     |     |           |           |              | app (app)
d0 | main                     | region_enter |     |  0.000000 |           | app          | label:work
d0 | main                     | region_leave |     |  0.000000 |  0.000000 | app          | label:work
d0 | main                     | exit         |     |  0.000000 |           |              | code:0
END

# built CC: the example built with CC, run and its perf trace compared
built() {
	exe=$tmp/app-$(basename "$1")$app_exe
	# shellcheck disable=SC2086 # lists of flags
	if ! $1 -std=c11 -Wall -Wextra -Werror -Wcast-qual ${T2_SAN:-} -Iinclude "$tmp/app.c" \
		"$LIBDIR/libtrace2.a" $app_threads -o "$exe" 2>"$tmp/cc.err"; then
		bad "$1: the example does not build: $(cat "$tmp/cc.err")"
		return
	fi
	ok
	rm -f "$tmp/perf"
	GIT_TRACE2_PERF="$tmp/perf" GIT_TRACE2_PERF_BRIEF=1 ${T2_RUN:-} "$exe" ||
		bad "$1: the example exits $?"
	grep -E '\| (cmd_name|region_enter|region_leave|exit) ' "$tmp/perf" |
		sed 's/[0-9][0-9]*\.[0-9]\{6\}/0.000000/g' >"$tmp/got"
	same "$1: the example's perf trace" "$tmp/want" "$tmp/got"
}
built "${T2_CC:-cc}"
# The other compiler, for the plain host build.
if [ -z "${T2_CROSS:-}${T2_SAN:-}" ]; then
	case ${T2_CC:-cc} in
	*clang*) other=gcc ;;
	*) other=clang ;;
	esac
	if command -v $other >/dev/null; then built $other; else echo "$t2_test: skipped $other: not installed"; fi
fi
finish
