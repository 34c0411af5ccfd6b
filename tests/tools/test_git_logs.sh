#!/bin/sh
# Every log Git writes, read as it is: Git 2.55's logs (tests/git-logs/:
# status, log, gc, clone, and a fetch whose detached maintenance writes
# after its atexit under the same SID) and the installed git's (status,
# log, clone, fetch, and a gc --auto that daemonizes itself).
# validate --strict finds nothing in them, summary and every converter
# read them without a word, the detached part's region counts, and the
# same log given twice reads as once.
# usage: T2_BIN=build/bin tests/tools/test_git_logs.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
logs=tests/git-logs

# strict_clean NAME LOG...: validate --strict passes, saying nothing
strict_clean() {
	name=$1
	shift
	if "$T2" validate --strict --quiet "$@" >"$tmp/$name.validate" 2>&1 &&
		[ ! -s "$tmp/$name.validate" ]; then
		ok
	else
		bad "$name: validate --strict: $(head -3 "$tmp/$name.validate")"
	fi
}

# reads_cleanly NAME LOG: summary and convert to every format: exit 0,
# nothing on stderr
reads_cleanly() {
	for fmt in perf normal chrome otlp; do
		converted $fmt "$tmp/$1.$fmt" "$2" && ok
	done
	if "$T2" summary "$2" >"$tmp/$1.summary" 2>"$tmp/$1.summary.err" &&
		[ ! -s "$tmp/$1.summary.err" ]; then
		ok
	else
		bad "$1: summary: $(head -3 "$tmp/$1.summary.err")"
	fi
}

for f in "$logs"/*.event; do
	name=$(basename "$f" .event)
	strict_clean "$name" "$f"
	reads_cleanly "$name" "$f"
done
strict_clean all-git-2.55 "$logs"/*.event

# --- the fetch's detached maintenance ----------------------------------------
# Its maintenance child enters maintenance/detach, forks: the parent
# writes exit and atexit, the child region_leave (t_rel 0.000557), exit
# and atexit.  The region counts once, none is open or unmatched.
fetch=$logs/git-2.55-fetch.event
[ "$(grep -c '"event":"atexit","sid":"[^"]*-P000028e3"' "$fetch")" = 2 ] && ok ||
	bad "fetch log: not the detached maintenance"
"$T2" summary --json "$fetch" >"$tmp/fetch.json" 2>&1
grep -q '{"category":"maintenance","label":"detach","count":1,"total":0.000557,' "$tmp/fetch.json" &&
	ok || bad "fetch: the detached region is not counted: $(cat "$tmp/fetch.json")"
grep -q '"regions_open":0,"region_leaves_unmatched":0' "$tmp/fetch.json" && ok ||
	bad "fetch: regions open or unmatched: $(cat "$tmp/fetch.json")"
TZ=UTC "$T2" convert --to perf "$fetch" >"$tmp/fetch.perf" 2>&1
grep -q '^19:05:29.457539 builtin/gc.c:1442 .* region_leave .* 0.000557 | maintenance  | label:detach$' \
	"$tmp/fetch.perf" && ok || bad "fetch: perf lacks the detached region_leave"
grep -q '"trace2.detached","value":{"boolValue":true}' "$tmp/git-2.55-fetch.otlp" && ok ||
	bad "fetch: no detached span in OTLP"

# --- the same log twice --------------------------------------------------------
"$T2" summary --json "$fetch" "$fetch" >"$tmp/twice.json" 2>"$tmp/twice.err"
same "fetch twice: the summary of once" "$tmp/fetch.json" "$tmp/twice.json"
[ "$(cat "$tmp/twice.err")" = "$fetch:1: a record read before, again (the same log given twice?); skipped, as are the later ones of this input that repeat" ] &&
	ok || bad "fetch twice: $(cat "$tmp/twice.err")"
"$T2" validate --quiet "$fetch" "$fetch" >"$tmp/twice.validate" 2>&1
[ "$(cat "$tmp/twice.validate")" = "$fetch:1: warning: a record read before, again (the same log given twice?); this input's records that repeat others are not checked" ] &&
	ok || bad "fetch twice: validate: $(head -3 "$tmp/twice.validate")"

# --- the installed git ---------------------------------------------------------
if ! command -v git >/dev/null 2>&1; then
	echo "$t2_test: SKIP the installed git's logs: git not found"
	finish
	exit
fi
g=$tmp/git
mkdir "$g"
export GIT_CONFIG_NOSYSTEM=1 HOME="$g" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
(cd "$g" && git init -q src && cd src && git commit -q --allow-empty -m one &&
 git clone -q "$g/src" "$g/clone" && git commit -q --allow-empty -m two) >/dev/null 2>&1
GIT_TRACE2_EVENT=$tmp/installed.event GIT_TRACE2_EVENT_NESTING=10
export GIT_TRACE2_EVENT GIT_TRACE2_EVENT_NESTING
git -C "$g/src" status >/dev/null 2>&1
git -C "$g/src" log --oneline >/dev/null 2>&1
git -C "$g/clone" fetch -q >/dev/null 2>&1
git clone -q "$g/src" "$g/clone2" >/dev/null 2>&1
unset GIT_TRACE2_EVENT
strict_clean installed "$tmp/installed.event"
reads_cleanly installed "$tmp/installed.event"

# gc --auto daemonizes when there is work: gc.auto=1 and loose objects
# (Git counts those of one objects/ subdirectory: 1000 blobs put more
# than one there).  The daemon writes after the command's atexit, under
# its SID; wait for its own atexit (20 s at most).
mkdir "$tmp/blobs"
i=0
while [ $i -lt 1000 ]; do echo $i >"$tmp/blobs/$i"; i=$((i + 1)); done
git -C "$g/src" hash-object -w "$tmp/blobs"/* >/dev/null
GIT_TRACE2_EVENT=$tmp/gc.event git -C "$g/src" -c gc.auto=1 -c gc.autoDetach=true gc --auto \
	>/dev/null 2>&1
root=$(head -1 "$tmp/gc.event" | sed 's/.*"sid":"\([^"]*\)".*/\1/')
n=0
while [ "$(grep -c "\"event\":\"atexit\",\"sid\":\"$root\"" "$tmp/gc.event")" -lt 2 ] &&
	[ $n -lt 200 ]; do
	sleep 0.1
	n=$((n + 1))
done
# the daemon may still be writing its last line; it holds gc.pid until done
n=0
while [ -e "$g/src/.git/gc.pid" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
if [ "$(grep -c "\"event\":\"atexit\",\"sid\":\"$root\"" "$tmp/gc.event")" -lt 2 ]; then
	echo "$t2_test: SKIP the installed git's detached gc: git gc --auto did not daemonize" \
		"($(git --version))"
else
	strict_clean gc-auto "$tmp/gc.event"
	reads_cleanly gc-auto "$tmp/gc.event"
	# the daemon's children are in the tree under the command; its part
	# is a span of its own
	grep -q '"trace2.detached","value":{"boolValue":true}' "$tmp/gc-auto.otlp" && ok ||
		bad "gc --auto: no detached span in OTLP"
	[ "$(grep -c "^    [a-z]" "$tmp/gc-auto.summary")" -ge 2 ] && ok ||
		bad "gc --auto: the daemon's children are missing: $(head -5 "$tmp/gc-auto.summary")"
fi
finish
