#!/bin/sh
# The driver's scenarios (tests/driver/trace2-tool.c, "trace2-tool trace2
# <subcommand>") with the normal, perf and event targets on, in every
# build given, compared byte for byte with the first build's output after
# scrubbing what differs between runs and machines: clock times, elapsed
# seconds, the SIDs' times and pids (their host name hashes, SHA-1 of the
# same host name, stay), pids, the driver's path (argv[0] and paths under the
# build directories) and the names in the cmd_ancestry records (under qemu
# a parent may be the emulator): whether a build writes the record is
# compared.  Exit codes are compared too.  A Windows build (BIN_DIR has
# trace2-tool.exe beside its launcher, tests/platforms/mingw64.mk) runs
# its own .exe as the traced child; its paths are Windows' (Z:\...\
# under Wine, backslashes doubled in JSON) and it writes the windows/*
# records Git for Windows writes (ancestry, debugger_present, memory),
# which are left out; with a Windows build in the comparison the
# cmd_ancestry records are left out too (a program Wine starts from Linux
# has no Windows parent: none).
# usage: tests/platforms/same_output.sh NAME=BIN_DIR...  (the first is the reference)
#   e.g. tests/platforms/same_output.sh host=build/bin aarch64=build/aarch64/qbin
#        tests/platforms/same_output.sh linux=build/bin windows=build/mingw64/bin
set -u
[ $# -ge 2 ] || { echo "usage: $0 NAME=BIN_DIR NAME=BIN_DIR..." >&2; exit 2; }
root=$(pwd)
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# One scenario per line: the subcommand and its arguments; @TOOL@ is the
# build's own driver (a traced child).  The threads of 101timer and
# 201counter write in no fixed order: their lines are compared sorted.
# (get_i() in tests/driver/trace2-tool.c is strtol() into an int: a value
# beyond 32 bits is an error where long has 32.)
cat >"$tmp/scenarios" <<'END'
001return 0
001return 3
002exit 5
003error hello world
004child @TOOL@ trace2 001return 7
004child @TOOL@ trace2 004child @TOOL@ trace2 006data cat key value
005exec status --short
006data cat0 k0 v0 cat1 k1 "value with spaces"
007bug
008bug
009bug_BUG
010bug_BUG
100timer 3 1
101timer 2 1 3
200counter 1 2 3 -4 2147483647
201counter 5 -7 3
300redact_start git clone https://user:password@example.com/repo.git
301redact_child_start git fetch https://user:pass@example.com/a
302redact_exec git git push https://u:p@example.com/b
303redact_def_param remote.origin.url https://u:p@example.com/c
END

# A Windows build among those compared (see above)?
no_ancestry=
for b in "$@"; do
	[ -f "${b#*=}/trace2-tool.exe" ] && no_ancestry='/[ "]cmd_ancestry[ "]/d'
done

# scrub FILE: the comparable text of a target's output.
scrub() {
	sed -E -e '/"?windows\/(ancestry|debugger_present|memory)"?/d' -e "$no_ancestry" \
		-e "s#$root/build(/[a-z0-9]+)?/q?bin/#BIN/#g" \
		-e 's#[A-Z]:[^ "]*[/\\]build([/\\]+[a-z0-9]+)?[/\\]+q?bin[/\\]+#BIN/#g' \
		-e "s#'?BIN/(trace2-tool)\\.exe'?#BIN/\\1#g" \
		-e 's/^([^ ]+ [^ ]+ +cmd_ancestry ).*$/\1NAMES/' \
		-e 's/(\| ancestry:\[).*\]$/\1NAMES]/' \
		-e 's/("ancestry":\[).*\]\}$/\1"NAMES"]}/' \
		-e 's/^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} /TIME /' \
		-e 's/"time":"[^"]*"/"time":"TIME"/' \
		-e 's/[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-(H[0-9a-f]{8}|Localhost)-P[0-9a-f]{8}/SID-\1/g' \
		-e 's/ *-?[0-9]+\.[0-9]{6}/ N/g' \
		-e 's/pid:[0-9]+/pid:N/g; s/"pid":[0-9]+/"pid":N/g' \
		-e 's/^d[0-9]+ \| [^|]*\|/dN | THREAD |/' "$1"
}

# run NAME BIN: every scenario into $tmp/NAME/<n>.{normal,perf,event,code}.
run() {
	name=$1 bin=$(cd "$2" && pwd)
	child=$bin/trace2-tool
	[ -f "$child.exe" ] && child=$child.exe
	mkdir -p "$tmp/$name/cwd"
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		out=$tmp/$name/$n
		eval "set -- $(echo "$line" | sed "s#@TOOL@#$child#g")"
		(cd "$tmp/$name/cwd" &&
			env -i PATH=/nonexistent HOME=/nonexistent GIT_CONFIG_NOSYSTEM=1 \
				GIT_TRACE2="$out.normal" GIT_TRACE2_PERF="$out.perf" \
				GIT_TRACE2_EVENT="$out.event" GIT_TRACE2_EVENT_NESTING=10 \
				"$bin/trace2-tool" trace2 "$@" >/dev/null 2>"$out.stderr")
		echo $? >"$out.code"
		for t in normal perf event; do
			[ -f "$out.$t" ] && scrub "$out.$t" >"$out.$t.s" || : >"$out.$t.s"
			case $1 in 101timer | 201counter) sort -o "$out.$t.s" "$out.$t.s" ;; esac
		done
	done <"$tmp/scenarios"
}

first=
for b in "$@"; do
	name=${b%%=*} dir=${b#*=}
	if [ ! -x "$dir/trace2-tool" ]; then
		echo "same_output: FAIL: no $dir/trace2-tool ($name)" >&2
		failed=$((failed + 1))
		continue
	fi
	run "$name" "$dir"
	if [ -z "$first" ]; then
		first=$name
		continue
	fi
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		for f in code normal.s perf.s event.s; do
			if cmp -s "$tmp/$first/$n.$f" "$tmp/$name/$n.$f"; then
				passed=$((passed + 1))
			else
				failed=$((failed + 1))
				echo "same_output: FAIL: $name differs from $first: trace2 $line (${f%.s}):" >&2
				diff "$tmp/$first/$n.$f" "$tmp/$name/$n.$f" | head -10 >&2
			fi
		done
	done <"$tmp/scenarios"
done
# The reference must have said something: every scenario wrote every target.
for f in "$tmp/$first"/*.event.s; do
	[ -s "$f" ] || { failed=$((failed + 1)); echo "same_output: FAIL: $first wrote no event output ($f)" >&2; }
done
echo "same_output: $passed passed, $failed failed ($*)"
[ "$failed" -eq 0 ]
