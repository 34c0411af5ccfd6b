#!/bin/sh
# trace2 convert --to otlp: logs written by the library's programs and by
# the installed Git (one file, a directory target, child processes),
# converted to OTLP/JSON and checked by tests/otlp/check_otlp.mjs against
# the schema of npm @opentelemetry/otlp-transformer 0.57.2 (installed on
# demand into the build directory from the committed lockfile) and against
# the logs themselves (span counts, parents, one trace per command tree,
# the ids of docs/tools.md recomputed), and that the output streams: spans
# are written before the input ends, whatever order the processes' files
# come in.  Without node, npm or the registry the schema checks are
# skipped with a message; the rest still runs.
# usage: T2_BIN=build/bin tests/tools/test_otlp.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
top=$(pwd)
npmdir=$(cd "$BIN/.." && pwd)/otlp-npm
skipped=0

# --- the schema: npm ci from the committed lockfile, once per build dir ----
schema=
install_schema() {
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "test_otlp: SKIP schema checks: node or npm not found (needs node >= 18 and npm" \
			"to install @opentelemetry/otlp-transformer 0.57.2)"
		return
	fi
	root_js=$npmdir/node_modules/@opentelemetry/otlp-transformer/build/src/generated/root.js
	if [ ! -f "$root_js" ] || ! cmp -s tests/otlp/package-lock.json "$npmdir/package-lock.json"; then
		rm -rf "$npmdir"
		mkdir -p "$npmdir"
		cp tests/otlp/package.json tests/otlp/package-lock.json "$npmdir/"
		if ! npm ci --prefix "$npmdir" --no-audit --no-fund --ignore-scripts \
			>"$tmp/npm.log" 2>&1; then
			echo "test_otlp: SKIP schema checks: npm ci of @opentelemetry/otlp-transformer" \
				"0.57.2 failed (registry unreachable?): $(tail -3 "$tmp/npm.log" | tr '\n' ' ')"
			rm -rf "$npmdir"
			return
		fi
	fi
	[ -f "$root_js" ] && schema=$root_js ||
		echo "test_otlp: SKIP schema checks: $root_js missing after npm ci"
}
install_schema

# spans OTLP...: one line per span, "<its line's resource and scope>
# <the span>", sorted: what must not change when only the grouping of
# spans into lines does.  (",{"traceId":"" only occurs between spans:
# inside a JSON string the quotes would be escaped.)
spans() {
	awk '{
		i = index($0, "\"spans\":[")
		head = substr($0, 1, i + 8)
		body = substr($0, i + 9)
		sub(/\]\}\]\}\]\}$/, "", body)
		n = split(body, part, /,\{"traceId":"/)
		for (k = 1; k <= n; k++)
			print head (k > 1 ? "{\"traceId\":\"" : "") part[k]
	}' "$@" | LC_ALL=C sort
}

# same_spans WHAT A.otlp B.otlp: the same spans in the same resources
same_spans() {
	spans "$2" >"$tmp/a.spans"
	spans "$3" >"$tmp/b.spans"
	if [ ! -s "$tmp/a.spans" ]; then
		bad "$1: no spans"
	elif cmp -s "$tmp/a.spans" "$tmp/b.spans"; then
		ok
	else
		bad "$1: the spans differ"
		diff "$tmp/a.spans" "$tmp/b.spans" | cut -c1-300 | head -6 >&2
	fi
}

# convert NAME LOG...: $tmp/NAME.otlp; exit 0 and nothing on stderr
convert() {
	name=$1; shift
	converted otlp "$tmp/$name.otlp" "$@" && ok
}

# check NAME [--traceparent TP] OTLP LOG...: the checker finds 0 problems
check() {
	name=$1; shift
	if [ -z "$schema" ]; then
		skipped=$((skipped + 1))
		return
	fi
	if node tests/otlp/check_otlp.mjs --schema "$schema" "$@" >"$tmp/check.out" 2>&1; then
		ok
	else
		bad "$name: check_otlp: $(head -10 "$tmp/check.out")"
	fi
}

# case NAME [ENV=VALUE...] -- COMMAND...: event log of COMMAND, converted, checked
case_() {
	name=$1; shift
	vars=
	while [ "$1" != -- ]; do vars="$vars $1"; shift; done
	shift
	rm -f "$tmp/$name.event"
	# shellcheck disable=SC2086
	env GIT_TRACE2_EVENT="$tmp/$name.event" GIT_TRACE2_EVENT_NESTING=100 $vars "$@" \
		>/dev/null 2>&1 </dev/null
	[ -s "$tmp/$name.event" ] || { bad "$name: no event log"; return; }
	convert "$name" "$tmp/$name.event"
	check "$name" "$tmp/$name.otlp" "$tmp/$name.event"
	# TracesData lines of one process each (check: its spans only), and
	# lines for every process
	nsid=$(grep -o '"sid":"[^"]*"' "$tmp/$name.event" | sort -u | wc -l)
	[ "$(grep -o '"key":"trace2.sid","value":{"stringValue":"[^"]*"}}]},"scopeSpans"' \
		"$tmp/$name.otlp" | sort -u | wc -l)" -eq "$nsid" ] && ok ||
		bad "$name: not every process has its own lines"
}

# --- the library's programs -------------------------------------------------
case_ hashsort -- "$BIN/example-hashsort" src/tr2_buf.c src/tr2_sid.c include/trace2.h
case_ return -- "$TOOL" trace2 001return 0
case_ exit -- "$TOOL" trace2 002exit 5
case_ error -- "$TOOL" trace2 003error "hello world" "x'y!z"
case_ child -- "$TOOL" trace2 004child "$TOOL" trace2 004child "$TOOL" trace2 006data c k v
case_ data -- "$TOOL" trace2 006data cat1 k1 v1 cat2 k2 "a b"
case_ bug -- "$TOOL" trace2 008bug
case_ timer -- "$TOOL" trace2 100timer 3 1
case_ thtimer -- "$TOOL" trace2 101timer 2 1 3
case_ thcounter -- "$TOOL" trace2 201counter 1 2 3
case_ redact -- "$TOOL" trace2 300redact_start git clone https://u:pw@example.com/r
case_ brief GIT_TRACE2_EVENT_BRIEF=1 -- "$TOOL" trace2 004child "$TOOL" trace2 003error oops
# a byte that is not UTF-8 (a Windows program gets the ANSI code page's
# "caf\351-" for the UTF-8 "café-", test_convert.sh says why)
utf8_arg=$(printf 'caf\303\251-\377') utf8_want='"stringValue":"caf\\u00e9-\\ufffd"\|"stringValue":"café-�"'
[ "${T2_CROSS:-}" = mingw64 ] && utf8_arg=$(printf 'caf\303\251-') utf8_want='"stringValue":"caf\\ufffd-"\|"stringValue":"caf�-"'
case_ utf8 -- "$TOOL" trace2 300redact_start "$utf8_arg"
command -v git >/dev/null 2>&1 && case_ exec -- "$TOOL" trace2 005exec version

# What the spans say (grep: the converter's own output, not the checker's).
grep -q '"status":{"message":"exit code 5","code":2}' "$tmp/exit.otlp" && ok ||
	bad "exit 5: no ERROR status on the process span"
grep -q '"status"' "$tmp/return.otlp" && bad "exit 0: a status" || ok
grep -q '"events":\[{"timeUnixNano":"[0-9]*","name":"error","attributes":\[{"key":"exception.message","value":{"stringValue":"hello world"}}' \
	"$tmp/error.otlp" && ok || bad "error: no error event on the process span"
grep -q '"key":"trace2.data.cat2.k2","value":{"stringValue":"a b"}' "$tmp/data.otlp" && ok ||
	bad "data: no attribute"
grep -q '"name":"trace2","kind":1,' "$tmp/return.otlp" && ok || bad "return: the span is not named after cmd_name"
grep -q '"name":"hashsort:hash-file"' "$tmp/hashsort.otlp" && ok || bad "hashsort: no region span name"
# exactly one root (no parentSpanId) per command tree without traceparent
for n in child hashsort; do
	[ "$(grep -o '"traceId":"[0-9a-f]*","spanId":"[0-9a-f]*","name"' "$tmp/$n.otlp" | wc -l)" -eq 1 ] &&
		ok || bad "$n: not exactly one span without a parent"
done
grep -q "$utf8_want" "$tmp/utf8.otlp" && ok ||
	bad "utf8: an invalid byte is not U+FFFD"

# The checker is not blind: a field the schema lacks, an id in upper case,
# a number where the mapping wants a string are each reported.
if [ -n "$schema" ]; then
	for s in 's/"kind":1,/"kind":1,"flags":1,/' 's/"spanId":"\([0-9a-f]\)/"spanId":"A/' \
		's/"startTimeUnixNano":"\([0-9]*\)"/"startTimeUnixNano":\1/' 's/"kind":1/"kind":"SPAN_KIND_INTERNAL"/' \
		's/"parentSpanId":"[0-9a-f]*"/"parentSpanId":"0123456789abcdef"/'; do
		sed "$s" "$tmp/child.otlp" >"$tmp/broken.otlp"
		if node tests/otlp/check_otlp.mjs --schema "$schema" "$tmp/broken.otlp" "$tmp/child.event" \
			>/dev/null 2>&1; then
			bad "check_otlp accepts a broken file ($s)"
		else
			ok
		fi
	done
	# a span too many or too few
	head -2 "$tmp/child.otlp" >"$tmp/broken.otlp"
	node tests/otlp/check_otlp.mjs --schema "$schema" "$tmp/broken.otlp" "$tmp/child.event" \
		>/dev/null 2>&1 && bad "check_otlp accepts a missing process" || ok
fi

# --- a directory target: files of one tree, converted together or apart -----
mkdir "$tmp/dir"
GIT_TRACE2_EVENT="$tmp/dir" "$TOOL" trace2 004child "$TOOL" trace2 004child \
	"$TOOL" trace2 006data c k v >/dev/null 2>&1
[ "$(ls "$tmp/dir" | wc -l)" -eq 3 ] && ok || bad "dir: expected three files"
convert dir "$tmp/dir"
check dir "$tmp/dir.otlp" "$tmp/dir"
: >"$tmp/apart.otlp"
for f in "$tmp/dir"/*; do
	"$T2" convert --to otlp "$f" >>"$tmp/apart.otlp" 2>/dev/null || bad "dir: $f failed"
done
same_spans "dir: the files converted apart and the directory at once" "$tmp/dir.otlp" "$tmp/apart.otlp"
check apart "$tmp/apart.otlp" "$tmp/dir"
# The same files in the reverse order (a clock that went back, a child on
# another host): each child's file read before its parent's.
# reversed DIR NEW: NEW holds DIR's files, renamed to sort the other way
reversed() {
	mkdir "$2"
	n=0
	for f in $(ls "$1" | sort -r); do
		n=$((n + 1))
		cp "$1/$f" "$2/$n-$f"
	done
}
reversed "$tmp/dir" "$tmp/rdir"
convert rdir "$tmp/rdir"
check rdir "$tmp/rdir.otlp" "$tmp/rdir"
same_spans "dir: children's files first" "$tmp/dir.otlp" "$tmp/rdir.otlp"
"$T2" convert --to otlp - <"$tmp/child.event" >"$tmp/stdin.otlp" 2>/dev/null
cmp -s "$tmp/child.otlp" "$tmp/stdin.otlp" && ok || bad "standard input differs"

# --- W3C traceparent: a hand-written log --------------------------------------
TP=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
R=20260101T000000.000000Z-H00000000-P00000100
C=$R/20260101T000000.200000Z-H00000000-P00000101
ev() { # SID THREAD TIME EVENT [JSON-MEMBERS]
	printf '{"event":"%s","sid":"%s","thread":"%s","time":"2026-01-01T00:00:%sZ"%s}\n' \
		"$4" "$1" "$2" "$3" "${5:+,$5}"
}
{
	ev $R main 00.000010 version '"evt":"4","exe":"2.47.0"'
	ev $R main 00.000020 start '"t_abs":0.000020,"argv":["git","fetch"]'
	ev $R main 00.000030 data "\"t_abs\":0.000030,\"t_rel\":0.000030,\"nesting\":1,\"category\":\"trace2\",\"key\":\"traceparent\",\"value\":\"$TP\""
	ev $R main 00.000040 cmd_name '"name":"fetch","hierarchy":"fetch"'
	ev $R main 00.000050 region_enter '"nesting":1,"category":"fetch","label":"remote"'
	ev $R main 00.100000 child_start '"child_id":0,"child_class":"transport/ssh","use_shell":false,"argv":["ssh","host","git-upload-pack"]'
	ev $C main 00.200010 version '"evt":"4","exe":"2.47.0"'
	ev $C main 00.200020 start '"t_abs":0.000010,"argv":["git","upload-pack","."]'
	ev $C main 00.200030 data "\"t_abs\":0.000020,\"t_rel\":0.000020,\"nesting\":1,\"category\":\"trace2\",\"key\":\"traceparent\",\"value\":\"$TP\""
	ev $C main 00.200040 region_enter '"nesting":1,"category":"pack","label":"write"'
	ev $C main 00.300000 region_leave '"t_rel":0.099960,"nesting":1,"category":"pack","label":"write"'
	ev $C main 00.300010 exit '"t_abs":0.100000,"code":0'
	ev $C main 00.300020 atexit '"t_abs":0.100010,"code":0'
	ev $R main 00.400000 child_exit '"child_id":0,"pid":257,"code":0,"t_rel":0.300000'
	ev $R main 00.400010 region_leave '"t_rel":0.399960,"nesting":1,"category":"fetch","label":"remote"'
	ev $R main 00.400020 exit '"t_abs":0.400020,"code":0'
	ev $R main 00.400030 atexit '"t_abs":0.400030,"code":0'
} >"$tmp/tp.event"
# joins NAME WHAT PATTERN SPAN: $tmp/NAME.event converted and checked with
# --traceparent $TP; every span in the caller's trace, and SPAN (the line
# matching PATTERN) under the caller's span.  WHAT: the case, for failures.
joins() {
	convert "$1" "$tmp/$1.event"
	check "$1" --traceparent "$TP" "$tmp/$1.otlp" "$tmp/$1.event"
	[ "$(grep -o '"traceId":"[0-9a-f]*"' "$tmp/$1.otlp" | sort -u)" = '"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"' ] &&
		ok || bad "$2: not every span in the caller's trace"
	grep -q "$3" "$tmp/$1.otlp" && ok || bad "$2: $4 is not under the caller's span"
}
joins tp traceparent '"spanId":"[0-9a-f]*","parentSpanId":"00f067aa0ba902b7","name":"fetch"' "the root process span"
# The ids of docs/tools.md, computed by hand here: FNV-1a 64 of the SID;
# the child's parent, of "<parent SID>\nchild\n00000101".
grep -q "\"spanId\":\"$(printf '%s' "$R" | python3 -c 'import sys
h=0xcbf29ce484222325
for b in sys.stdin.buffer.read(): h=((h^b)*0x100000001b3)%2**64
print("%016x"%h)' 2>/dev/null)\",\"parentSpanId\":\"00f067aa0ba902b7\"" "$tmp/tp.otlp" && ok ||
	{ command -v python3 >/dev/null && bad "traceparent: root span id is not FNV-1a 64 of its SID"; }
# The child converted alone still joins the caller's trace and its parent.
grep "\"sid\":\"$C\"" "$tmp/tp.event" >"$tmp/tpchild.event"
grep -v "\"sid\":\"$C\"" "$tmp/tp.event" >"$tmp/tproot.event"
convert tpchild "$tmp/tpchild.event"
grep "\"stringValue\":\"$C\"}}]},\"scopeSpans\"" "$tmp/tp.otlp" >"$tmp/tpchild.exp"
same_spans "traceparent: the child converted alone" "$tmp/tpchild.exp" "$tmp/tpchild.otlp"
# A directory of the two, the child's file first: its spans wait for the
# root's traceparent; also when the child records none (Git does not).
mkdir "$tmp/tpdir" "$tmp/tpdir2"
cp "$tmp/tpchild.event" "$tmp/tpdir/1-child"
cp "$tmp/tproot.event" "$tmp/tpdir/2-root"
convert tpdir "$tmp/tpdir"
check tpdir --traceparent "$TP" "$tmp/tpdir.otlp" "$tmp/tpdir"
same_spans "traceparent: the child's file first" "$tmp/tp.otlp" "$tmp/tpdir.otlp"
grep -v '"key":"traceparent"' "$tmp/tpchild.event" >"$tmp/tpdir2/1-child"
cp "$tmp/tproot.event" "$tmp/tpdir2/2-root"
convert tpdir2 "$tmp/tpdir2"
check tpdir2 --traceparent "$TP" "$tmp/tpdir2.otlp" "$tmp/tpdir2"
[ "$(grep -o '"traceId":"[0-9a-f]*"' "$tmp/tpdir2.otlp" | sort -u)" = '"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"' ] &&
	ok || bad "traceparent: a child without one, read first, is not in the caller's trace"
# Not a valid traceparent (upper case, version ff, zero ids): ignored.
for v in 00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01 \
	ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 \
	00-00000000000000000000000000000000-00f067aa0ba902b7-01 00-4bf92f35-00f067aa0ba902b7-01; do
	sed "s/$TP/$v/" "$tmp/tp.event" >"$tmp/tpbad.event"
	convert tpbad "$tmp/tpbad.event"
	check "tpbad $v" "$tmp/tpbad.otlp" "$tmp/tpbad.event"
	grep -q '"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"' "$tmp/tpbad.otlp" && bad "traceparent $v was used" || ok
done

# The library records TRACEPARENT from the environment; that run joins
# the caller's trace, its process span under the caller's span.
TRACEPARENT=$TP GIT_TRACE2_EVENT="$tmp/tplib.event" "$BIN/example-hashsort" src/tr2_buf.c >/dev/null
joins tplib "library traceparent" '"parentSpanId":"00f067aa0ba902b7","name":"hashsort"' "the process span"

# --- streaming ---------------------------------------------------------------
# regions SID N: N region_enter/region_leave pairs of SID's main thread
regions() {
	awk -v sid="$1" -v n="$2" 'BEGIN {
		for (i = 1; i <= n; i++) {
			t = sprintf("2026-01-01T00:00:01.%06dZ", i % 1000000)
			printf "{\"event\":\"region_enter\",\"sid\":\"%s\",\"thread\":\"main\",\"time\":\"%s\",\"nesting\":1,\"category\":\"c\",\"label\":\"l%d\"}\n", sid, t, i
			printf "{\"event\":\"region_leave\",\"sid\":\"%s\",\"thread\":\"main\",\"time\":\"%s\",\"t_rel\":0,\"nesting\":1,\"category\":\"c\",\"label\":\"l%d\"}\n", sid, t, i
		}
	}'
}
# stream NAME: convert standard input (a FIFO) to $tmp/NAME.otlp in the
# background; write to fd 3, then stream_end NAME
stream() {
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	"$T2" convert --to otlp - <"$tmp/fifo" >"$tmp/$1.otlp" 2>"$tmp/$1.err" &
	stream_pid=$!
	exec 3>"$tmp/fifo"
}
# written NAME WHAT: lines in $tmp/NAME.otlp within 10 s (the input still open)
written() {
	i=0
	while [ ! -s "$tmp/$1.otlp" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$tmp/$1.otlp" ] && ok || bad "$1: nothing written before the end of the input ($2)"
}
stream_end() {
	exec 3>&-
	wait "$stream_pid" && [ ! -s "$tmp/$1.err" ] && ok || bad "$1: convert failed: $(head -3 "$tmp/$1.err")"
}
# A process's finished regions are written while it runs (in lines of
# about 16 KiB), before its own span.
S=20260101T000000.000000Z-H00000000-P00000200
{
	ev $S main 00.000010 version '"evt":"4","exe":"2.47.0"'
	ev $S main 00.000020 start '"t_abs":0.000020,"argv":["git","gc"]'
	ev $S main 00.000030 cmd_name '"name":"gc","hierarchy":"gc"'
	regions $S 3000
} >"$tmp/long.head"
ev $S main 02.000000 atexit '"t_abs":2.0,"code":0' >"$tmp/long.tail"
stream long
cat "$tmp/long.head" >&3
written long "a running process's regions"
cat "$tmp/long.tail" >&3
stream_end long
cat "$tmp/long.head" "$tmp/long.tail" >"$tmp/long.event"
check long "$tmp/long.otlp" "$tmp/long.event"
[ "$(wc -l <"$tmp/long.otlp")" -gt 10 ] && ok || bad "long: the spans of 3000 regions in less than 11 lines"
[ "$(awk 'length($0) > 32768' "$tmp/long.otlp" | wc -l)" -eq 0 ] && ok || bad "long: a line over 32 KiB"
"$T2" convert --to otlp "$tmp/long.event" >"$tmp/longfile.otlp" 2>&1
same_spans "long: a file and a stream" "$tmp/longfile.otlp" "$tmp/long.otlp"
# A child whose tree's root is not (yet) in the input: its spans wait for
# the trace id, 16 MiB of them at most; then the tree takes its root
# SID's trace id and they are written.
O=$R/20260101T000000.300000Z-H00000000-P00000300
stream orphan
{
	ev $O main 00.300010 version '"evt":"4","exe":"2.47.0"'
	ev $O main 00.300020 start '"t_abs":0.000010,"argv":["git","status"]'
	regions $O 20000
} >&3
sleep 1
[ ! -s "$tmp/orphan.otlp" ] && ok || bad "orphan: spans written before their trace id is known"
regions $O 30000 >&3
written orphan "past 16 MiB of spans waiting"
ev $O main 02.000000 atexit '"t_abs":2.0,"code":0' >&3
stream_end orphan
# its trace id: FNV-1a 128 of the root SID, computed here
if command -v python3 >/dev/null 2>&1; then
	grep -q "\"traceId\":\"$(printf '%s' "$R" | python3 -c 'import sys
h=0x6c62272e07bb014262b821756295c58d
for b in sys.stdin.buffer.read(): h=((h^b)*0x1000000000000000000013b)%2**128
print("%032x"%h)')\"" "$tmp/orphan.otlp" && ok || bad "orphan: trace id is not FNV-1a 128 of the root SID"
else
	echo "test_otlp: SKIP orphan trace id check: python3 not found"
fi
# Records after the process's atexit: Git's daemonized child (maintenance
# --detach) goes on under the same SID.  A span of its own under the
# process span, named as the process, with the region open at the fork
# whole (from the region_leave's t_rel).
{
	ev $S main 00.000010 version '"evt":"4","exe":"2.47.0"'
	ev $S main 00.000012 cmd_name '"name":"maintenance","hierarchy":"maintenance"'
	ev $S main 00.000020 region_enter '"nesting":1,"category":"maintenance","label":"detach"'
	ev $S main 00.000030 atexit '"t_abs":0.000020,"code":0'
	ev $S main 00.000050 region_leave '"t_rel":0.000030,"nesting":1,"category":"maintenance","label":"detach"'
	ev $S main 00.000060 region_enter '"nesting":1,"category":"c","label":"late"'
	ev $S main 00.000070 region_leave '"t_rel":0.000010,"nesting":1,"category":"c","label":"late"'
	ev $S main 00.000080 atexit '"t_abs":0.000070,"code":0'
} >"$tmp/late.event"
convert late "$tmp/late.event"
check late "$tmp/late.otlp" "$tmp/late.event"
spans "$tmp/late.otlp" >"$tmp/late.spans"
P=$(printf '%s' "$S" | python3 -c 'import sys
h=0xcbf29ce484222325
for b in sys.stdin.buffer.read(): h=((h^b)*0x100000001b3)%2**64
print("%016x"%h)' 2>/dev/null)
[ -z "$P" ] && echo "test_otlp: SKIP detached ids: python3 not found"
[ -z "$P" ] || { grep -q "\"parentSpanId\":\"$P\",\"name\":\"maintenance\",.*\"trace2.detached\",\"value\":{\"boolValue\":true}" \
	"$tmp/late.spans" && ok || bad "late: no detached span under the process span"; }
grep -q '"name":"maintenance:detach","kind":1,"startTimeUnixNano":"[0-9]*000020000","endTimeUnixNano":"[0-9]*000050000"' \
	"$tmp/late.spans" && ok || bad "late: the region open at the fork is not whole in the detached part"
grep -q '"name":"c:late"' "$tmp/late.spans" && ok || bad "late: the detached part's own region is missing"
# The same log given twice: the second copy is reported once and skipped.
"$T2" convert --to otlp "$tmp/late.event" "$tmp/late.event" >"$tmp/twice.otlp" 2>"$tmp/twice.err"
[ "$(cat "$tmp/twice.err")" = "$tmp/late.event:1: a record read before, again (the same log given twice?); skipped, as are the later ones of this input that repeat" ] &&
	ok || bad "twice: $(cat "$tmp/twice.err")"
same_spans "twice: the same spans as once" "$tmp/late.otlp" "$tmp/twice.otlp"
# Git 2.55's fetch, with its detached maintenance: as the checker derives.
convert git-fetch tests/git-logs/git-2.55-fetch.event
check git-fetch "$tmp/git-fetch.otlp" tests/git-logs/git-2.55-fetch.event

# Times past 2262 do not fit OTLP's signed 64-bit nanoseconds: clamped.
F=99991231T235959.999999Z-H00000000-P00000001
{
	printf '{"event":"version","sid":"%s","thread":"main","time":"9999-12-31T23:59:59.999999Z","evt":"4","exe":"x"}\n' $F
	printf '{"event":"atexit","sid":"%s","thread":"main","time":"9999-12-31T23:59:59.999999Z","t_abs":0.1,"code":0}\n' $F
} >"$tmp/future.event"
convert future "$tmp/future.event"
check future "$tmp/future.otlp" "$tmp/future.event"
grep -q '"startTimeUnixNano":"9223372036854775000"' "$tmp/future.otlp" && ok ||
	bad "future: time not clamped to INT64_MAX"

# --- usage ------------------------------------------------------------------
"$T2" convert --to otlp --brief "$tmp/tp.event" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--brief with otlp is not a usage error"
"$T2" convert --to otlp >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "no input is not a usage error"
"$T2" convert --to otlp "$tmp/nonexistent" >/dev/null 2>&1
[ $? -eq 1 ] && ok || bad "a missing input is not exit status 1"

# --- the installed Git --------------------------------------------------------
if command -v git >/dev/null 2>&1; then
	g=$tmp/git
	mkdir "$g"
	(
		cd "$g" && git init -q src && cd src && echo a >a && git add a &&
		git -c user.name=t -c user.email=t@t commit -q -m one &&
		git -c user.name=t -c user.email=t@t commit -q --allow-empty -m two
	) >/dev/null 2>&1
	case_ gitstatus -- git -C "$g/src" status
	# a local clone: children (upload-pack through a shell), all in one file
	case_ gitclone -- git clone -q "$g/src" "$g/clone"
	grep -q '"sid":"[^"]*/' "$tmp/gitclone.event" && ok || bad "git clone: no child process"
	# status, log and a clone in one file: three trees, three traces
	rm -rf "$g/clone"
	rm -f "$tmp/git3.event"
	for c in "-C $g/src status" "-C $g/src log --oneline" "clone -q $g/src $g/clone"; do
		# shellcheck disable=SC2086
		GIT_TRACE2_EVENT="$tmp/git3.event" git $c >/dev/null 2>&1
	done
	convert git3 "$tmp/git3.event"
	check git3 "$tmp/git3.otlp" "$tmp/git3.event"
	# a directory target: one file per process of the clone
	rm -rf "$g/clone"
	mkdir "$tmp/gitdir"
	GIT_TRACE2_EVENT="$tmp/gitdir" git clone -q "$g/src" "$g/clone" >/dev/null 2>&1
	[ "$(ls "$tmp/gitdir" | wc -l)" -ge 2 ] && ok || bad "git dir: expected several files"
	convert gitdir "$tmp/gitdir"
	check gitdir "$tmp/gitdir.otlp" "$tmp/gitdir"
	# the same, upload-pack's file (a child run through a shell) first
	reversed "$tmp/gitdir" "$tmp/rgitdir"
	convert rgitdir "$tmp/rgitdir"
	check rgitdir "$tmp/rgitdir.otlp" "$tmp/rgitdir"
	same_spans "git dir: children's files first" "$tmp/gitdir.otlp" "$tmp/rgitdir.otlp"
else
	echo "test_otlp: SKIP Git logs: git not found"
fi

[ "$skipped" -gt 0 ] && echo "test_otlp: $skipped schema checks skipped"
finish
