#!/bin/sh
# trace2 convert --to chrome: a data_json value whose strings hold bytes
# that are not UTF-8 (Git writes its strings' bytes as they are) still
# makes strict JSON, each such byte as U+FFFD; the perf format keeps the
# bytes, as it does for every other string.
# usage: T2_BIN=build/bin tests/tools/test_convert_json_utf8.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	echo "$t2_test: SKIP: python3 (the strict JSON check) is not installed"
	exit 0
fi
sid=20261127T190529.430889Z-H0a7c9cdf-P000028db
log=$tmp/raw.event
{
	printf '{"event":"version","sid":"%s","thread":"main","time":"2026-11-27T19:05:29.430958Z","evt":"3","exe":"2.55.0"}\n' $sid
	printf '{"event":"data_json","sid":"%s","thread":"main","time":"2026-11-27T19:05:29.5Z","t_abs":0.1,"t_rel":0.1,"nesting":1,"category":"c","key":"k","value":{"path":"a\377b\300\200c","ok":"\303\251"}}\n' $sid
} >"$log"
# strict: the whole output as UTF-8 and JSON; the value (not in --brief)
# with U+FFFD for each byte that is not UTF-8
strict='import json, sys
o = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
if sys.argv[2] == "full":
    v = [e for e in o["traceEvents"] if e.get("cat") == "c"][0]["args"]["value"]
    assert v == {"path": "a\ufffdb\ufffd\ufffdc", "ok": "\u00e9"}, v'
if converted chrome "$tmp/full.json" "$log"; then
	python3 -c "$strict" "$tmp/full.json" full && ok ||
		bad "chrome: not strict JSON, or the value not repaired"
fi
if converted chrome "$tmp/brief.json" --brief "$log"; then
	python3 -c "$strict" "$tmp/brief.json" brief && ok || bad "chrome --brief: not strict JSON"
fi
if converted perf "$tmp/out.perf" "$log"; then
	grep -q "$(printf 'a\377b\300\200c')" "$tmp/out.perf" && ok || bad "perf: the bytes not kept"
fi
finish
