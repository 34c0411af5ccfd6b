#!/bin/sh
# Layers call down, never up: the table of docs/internals.md, "Layers",
# checked on the object files' undefined symbols.
#   - Every source file of src/ and targets/ is in exactly one row of the
#     table, and every file a row names is there.
#   - An object references nothing defined by a row above its own; the
#     platform seam (the bottom row) may use, of the library, only
#     tr2_sys.c's table and tr2_buf.c's formatting.
#   - A target references nothing another target defines but what they
#     share (targets/tr2_tgt.c).
#   - The trace2 command (tools/) includes only its own headers, the public
#     ones, the kinds table (tr2_kinds.def), the platform seam (tr2_plat.h),
#     its own seam into the targets (tr2_replay.h: a built-in target on a
#     sink destination) and the traceparent check it shares with the
#     dispatcher (tr2_traceparent.h), and references of the library only
#     public names and those headers' functions.
#   - Only the command's own seam names _WIN32: sys.c and listen.c (POSIX)
#     and sys_win32.c and listen_win32.c (Windows), each in the one
#     directive that guards the whole file.
# usage: tests/check-layers.sh BUILD_DIR
set -eu
obj=$(cd "$1" && pwd)/obj
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

# What the platform seam may use above it.
SEAM_USES="src/tr2_sys.c src/tr2_buf.c"

defined() { nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u; }
undefined() { nm -u "$1" | awk '{print $NF}' | sort -u; }
obj_of() { echo "$obj/${1%.c}.o"; }
fail() {
	echo "check-layers: $*"
	failed=$((failed + 1))
}

# rule NAME OBJECT FORBIDDEN_DEFS_FILE
rule() {
	bad=$(undefined "$2" | comm -12 - "$3")
	if [ -n "$bad" ]; then
		fail "$1: ${2#$obj/} references: $(echo $bad)"
	else
		passed=$((passed + 1))
	fi
}

# The table's rows, top down: "NAME<TAB>FILE FILE ..."; a row's files
# are the .c files its second column names outside parentheses (a bare
# name is in src/ or targets/).
awk -F'|' '/^## Layers/ {on = 1; next} on && /^## / {exit}
	on && /^\| / && !/^\| layer \|/ && !/^\|---/ {
		name = $2; gsub(/^ +| +$/, "", name)
		files = ""; rest = ""; depth = 0
		for (i = 1; i <= length($3); i++) {
			c = substr($3, i, 1)
			if (c == "(")
				depth++
			else if (c == ")")
				depth--
			else if (depth == 0)
				rest = rest c
		}
		while (match(rest, /`[a-z0-9_\/]*\.c`/)) {
			files = files " " substr(rest, RSTART + 1, RLENGTH - 2)
			rest = substr(rest, RSTART + RLENGTH)
		}
		print name "\t" files
	}' docs/internals.md >"$tmp/rows"
[ -s "$tmp/rows" ] || { echo "check-layers: no layer table in docs/internals.md"; exit 1; }

: >"$tmp/placed"
n=0
while IFS='	' read -r name files; do
	n=$((n + 1))
	: >"$tmp/row$n"
	for f in $files; do
		case $f in */*) ;; *) [ -f "src/$f" ] && f=src/$f || f=targets/$f ;; esac
		if [ -f "$f" ]; then
			echo "$f" >>"$tmp/row$n"
			echo "$f" >>"$tmp/placed"
		else
			fail "row \"$name\" names $f, which is not in the tree"
		fi
	done
	echo "$name" >"$tmp/name$n"
done <"$tmp/rows"
rows=$n
for f in src/*.c targets/*.c; do
	case $(grep -cx "$f" "$tmp/placed") in
	1) passed=$((passed + 1)) ;;
	0) fail "$f is in no row of docs/internals.md's layer table" ;;
	*) fail "$f is in more than one row of docs/internals.md's layer table" ;;
	esac
done

# Each row against the definitions of every row above it.
: >"$tmp/above"
i=1
while [ "$i" -le "$rows" ]; do
	if [ "$i" -eq "$rows" ]; then
		defined $(for f in $SEAM_USES; do obj_of "$f"; done) >"$tmp/seam_uses"
		comm -23 "$tmp/above" "$tmp/seam_uses" >"$tmp/forbidden"
	else
		cp "$tmp/above" "$tmp/forbidden"
	fi
	for f in $(cat "$tmp/row$i"); do
		rule "$(cat "$tmp/name$i") calls up" "$(obj_of "$f")" "$tmp/forbidden"
	done
	defined $(for f in $(cat "$tmp/row$i"); do obj_of "$f"; done) |
		sort -u - "$tmp/above" >"$tmp/above.new"
	mv "$tmp/above.new" "$tmp/above"
	i=$((i + 1))
done

for o in "$obj"/targets/*.o; do
	for other in "$obj"/targets/*.o; do
		[ "$o" = "$other" ] || [ "$other" = "$obj/targets/tr2_tgt.o" ] && continue
		defined "$other" >"$tmp/other"
		rule "a target calls another target" "$o" "$tmp/other"
	done
done

# tools/: what it includes and what of the library it references.
allowed_header() {
	case $1 in
	trace2.h | trace2/*.h | tr2_kinds.def | tr2_plat.h | tr2_replay.h | tr2_traceparent.h) return 0 ;;
	esac
	[ -f "tools/$1" ]
}
for f in tools/*.c tools/*.h; do
	for h in $(sed -n 's/^#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f"); do
		if allowed_header "$h"; then
			passed=$((passed + 1))
		else
			fail "the trace2 command: $f includes $h"
		fi
	done
done
defined $(for f in src/*.c targets/*.c; do obj_of "$f"; done) | grep -v '^trace2_' >"$tmp/internal" || true
{ defined "$obj"/src/tr2_plat*.o; echo tr2_replay_open; echo tr2_replay_open_builtin; echo tr2_replay_event;
  echo tr2_replay_ended; echo tr2_replay_end; echo tr2_replay_utc_offset; echo tr2_dst_init_sink; echo tr2_traceparent_valid; } | sort -u >"$tmp/seam"
for o in "$obj"/tools/*.o; do
	f=tools/${o##*/}
	for s in $(undefined "$o" | comm -12 - "$tmp/internal" | comm -23 - "$tmp/seam"); do
		fail "the trace2 command: $f references $s"
	done
	passed=$((passed + 1))
done
# whole_file_guard FILE DIRECTIVE: FILE's first directive is DIRECTIVE,
# its last line #endif, and _WIN32 in no other line
whole_file_guard() {
	if [ "$(grep -m1 '^#' "$1")" = "$2" ] && [ "$(tail -n1 "$1")" = "#endif" ] &&
	   [ "$(grep -c _WIN32 "$1")" = 1 ]; then
		passed=$((passed + 1))
	else
		fail "the trace2 command: $1 is not all in one $2"
	fi
}
for f in tools/*.c tools/*.h; do
	case $f in
	tools/sys.c | tools/listen.c) whole_file_guard "$f" "#ifndef _WIN32" ;;
	tools/sys_win32.c | tools/listen_win32.c) whole_file_guard "$f" "#ifdef _WIN32" ;;
	*)
		if grep -q _WIN32 "$f"; then
			fail "the trace2 command: $f names _WIN32 (only its seam, sys*.c and listen*.c, does)"
		else
			passed=$((passed + 1))
		fi ;;
	esac
done
echo "check-layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
