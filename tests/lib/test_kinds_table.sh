#!/bin/sh
# src/tr2_kinds.def has exactly one row per public event kind, in the
# enum's order: src/tr2_event.c builds from a copy of the sources as
# they are, and fails to build, naming the table, from a copy with a
# public kind that has no row (an enum value added before
# TRACE2_EVENT_KIND_MAX), a row missing, a row twice, or two rows swapped.
# usage: T2_BIN=build/bin [T2_CC=cc T2_LIB_CFLAGS=...] tests/lib/test_kinds_table.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
CC=${T2_CC:-cc}
GEN=$(cd "$BIN/.." && pwd)/gen
LIB_CFLAGS=${T2_LIB_CFLAGS:--D_GNU_SOURCE -Iinclude -Isrc -Itargets -I$GEN -std=c11 -Wall -Wextra -Werror}

# copy: fresh copies of include/ and src/ in $tmp/NAME
copy() {
	rm -rf "${tmp:?}/$1"
	mkdir -p "$tmp/$1"
	cp -R include src "$tmp/$1/"
}

# builds NAME: tr2_event.c of the copy compiles (its headers first)
builds() {
	# shellcheck disable=SC2086 # a list of flags
	$CC -I"$tmp/$1/include" -I"$tmp/$1/src" $LIB_CFLAGS -c "$tmp/$1/src/tr2_event.c" \
		-o "$tmp/$1.o" 2>"$tmp/$1.err"
}

# refused NAME: the copy does not build, and the compiler names the table
refused() {
	if builds "$1"; then
		bad "$1: builds"
	elif ! grep -q 'tr2_kinds.def' "$tmp/$1.err"; then
		bad "$1: fails for another reason: $(head -3 "$tmp/$1.err")"
	else
		ok
	fi
}

copy as_is
if builds as_is; then ok; else bad "as_is: does not build: $(head -3 "$tmp/as_is.err")"; fi

copy no_row
awk '/^[ \t]*TRACE2_EVENT_KIND_MAX/ { print "\tTRACE2_EVENT_NO_ROW," } { print }' \
	include/trace2/target.h >"$tmp/no_row/include/trace2/target.h"
grep -q 'TRACE2_EVENT_NO_ROW,' "$tmp/no_row/include/trace2/target.h" || bad "no_row: enum not changed"
refused no_row

def=src/tr2_kinds.def
copy missing
awk '/^TR2_KIND\(PRINTF,/ { skip = 1; next } skip && /^\t/ { next } { skip = 0; print }' \
	"$def" >"$tmp/missing/$def"
grep -q 'PRINTF' "$tmp/missing/$def" && bad "missing: row still there"
refused missing

copy twice
awk '{ print } /^TR2_KIND\(THREAD_START,/ { print }' "$def" >"$tmp/twice/$def"
refused twice

copy swapped
# THREAD_START's one-line row moved after TOO_MANY_FILES's
awk '/^TR2_KIND\(THREAD_START,/ { next } { print } /^TR2_KIND\(TOO_MANY_FILES,/ {
	print "TR2_KIND(THREAD_START, \"thread_start\", TR2_NO_P, TR2_STR0, TR2_NO_ARGV, TR2_NO_REC, )" }' \
	"$def" >"$tmp/swapped/$def"
refused swapped

finish
