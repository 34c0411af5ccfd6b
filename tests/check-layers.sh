#!/bin/sh
# Layers call down, never up (docs/internals.md), checked on the object
# files' undefined symbols:
#   - nothing but the dispatcher (src/trace2.o) references a symbol the
#     dispatcher defines;
#   - destinations (src/tr2_dst*.o) reference nothing defined by the
#     targets (targets/*.o);
#   - a target references nothing another target defines but what they
#     share (targets/tr2_tgt.o);
#   - the platform seam (src/tr2_plat*.o) references nothing of the library
#     but the tr2_sys table and tr2_buf's formatting.
# usage: tests/check-layers.sh BUILD_DIR
set -eu
obj=$1/obj
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

defined() { nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u; }
undefined() { nm -u "$1" | awk '{print $NF}' | sort -u; }

# rule NAME OBJECT FORBIDDEN_DEFS_FILE
rule() {
	bad=$(undefined "$2" | comm -12 - "$3")
	if [ -n "$bad" ]; then
		echo "check-layers: $1: ${2#$obj/} references: $(echo $bad)"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
}

defined "$obj/src/trace2.o" >"$tmp/dispatcher"
defined "$obj"/targets/*.o >"$tmp/targets"
for o in "$obj"/src/*.o "$obj"/targets/*.o; do
	[ "$o" = "$obj/src/trace2.o" ] || rule "calls up into the dispatcher" "$o" "$tmp/dispatcher"
done
for o in "$obj"/src/tr2_dst*.o; do
	rule "a destination calls a target" "$o" "$tmp/targets"
done
for o in "$obj"/targets/*.o; do
	for other in "$obj"/targets/*.o; do
		[ "$o" = "$other" ] || [ "$other" = "$obj/targets/tr2_tgt.o" ] && continue
		defined "$other" >"$tmp/other"
		rule "a target calls another target" "$o" "$tmp/other"
	done
done
for o in "$obj"/src/*.o "$obj"/targets/*.o; do
	case $o in */tr2_plat*.o | */tr2_sys.o | */tr2_buf.o) ;; *) echo "$o" ;; esac
done >"$tmp/above_seam.list"
defined $(cat "$tmp/above_seam.list") >"$tmp/above_seam"
for o in "$obj"/src/tr2_plat*.o; do
	rule "the platform seam calls up" "$o" "$tmp/above_seam"
done
echo "check-layers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
