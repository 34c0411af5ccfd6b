#!/bin/sh
# TRACE2_NO_GIT_NAMES: tests/names/own_names.c, with its own struct
# strbuf, struct repository, struct json_writer, enum config_scope and
# jw_object_begin(), builds with -Wall -Wextra -Werror against the static
# and the shared library, runs, and traces what it should, atexit last; its own
# jw_object_begin is its own symbol.  On Windows the shared library is
# libtrace2.dll, found beside the program.
# usage: T2_BIN=build/bin [T2_SAN="sanitizer flags"] tests/lib/test_names.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
LIBDIR=$(cd "$BIN/.." && pwd)
CC=${T2_CC:-cc}

cat >"$tmp/want" <<'END'
d0 | main                     | def_repo     | r1  |           |           |              | worktree:/w
d0 | main                     | def_param    |     |           |           | scope:global | own.names:yes
d0 | main                     | data_json    | r1  |  0.000000 |  0.000000 | names        | result:{"own":4,"url":"https://example.org/r"}
d0 | main                     | data         |     |  0.000000 |  0.000000 | names        | scope:2
END

for link in static shared; do
	exe="$tmp/own_names-$link$app_exe"
	if [ $link = static ]; then
		lib="$LIBDIR/libtrace2.a"
	elif [ -n "$app_exe" ]; then
		lib="-L$LIBDIR -ltrace2" && cp "$LIBDIR/libtrace2.dll" "$tmp/"
	else
		lib="-L$LIBDIR -Wl,-rpath,$LIBDIR -ltrace2"
	fi
	# shellcheck disable=SC2086 # lists of flags
	if ! $CC -std=c11 -Wall -Wextra -Werror ${T2_SAN:-} -Iinclude tests/names/own_names.c \
		$lib $app_threads -o "$exe" 2>"$tmp/cc.err"; then
		bad "$link: does not build"; cat "$tmp/cc.err" >&2; continue
	fi
	ok
	# its printf's line ends in \r\n on Windows (stdout's text mode)
	out=$(GIT_TRACE2_PERF="$tmp/perf-$link" GIT_TRACE2_PERF_BRIEF=1 ${T2_RUN:-} "$exe" |
		if [ -n "$app_exe" ]; then tr -d '\r'; else cat; fi)
	[ "$out" = "4 mine" ] && ok || bad "$link: output '$out'"
	# without Windows' own process records (windows/memory at exit)
	grep -E '\| (def_repo|def_param|data_json|data) ' "$tmp/perf-$link" |
		grep -v '| process  *| windows/' | sed 's/[0-9][0-9]*\.[0-9]\{6\}/0.000000/g' >"$tmp/got"
	same "$link: perf log" "$tmp/want" "$tmp/got"
	# the end of the trace, also from a DLL (whose C runtime runs its
	# atexit() list after freeing the thread-local storage)
	tail -1 "$tmp/perf-$link" | grep -q '| atexit ' && ok ||
		bad "$link: the perf log does not end with atexit: $(tail -1 "$tmp/perf-$link")"
	# The program defines jw_object_begin and uses the library's
	# trace2_jw_object_begin (undefined in the shared build; imported
	# from the DLL on Windows).
	nm "$exe" | grep -q ' T jw_object_begin$' && ok || bad "$link: no own jw_object_begin"
	if [ $link = shared ]; then
		nm "$exe" | grep -qE ' (U trace2|I __imp_trace2)_jw_object_begin$' && ok ||
			bad "$link: trace2_jw_object_begin not from the library"
	fi
done
finish
