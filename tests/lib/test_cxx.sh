#!/bin/sh
# trace2.h in C++: tests/cxx/regions.cc built with g++ and clang++ in
# C++11 and C++20 (-Wall -Wextra -Werror) against the library, run with
# the event target on; its log must be exactly the expected one (the
# regions left by an exception and an early return, in order).  A missing
# compiler is reported as skipped.
# usage: T2_BIN=build/bin [T2_SAN="sanitizer flags"] tests/lib/test_cxx.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
LIB=$BIN/../libtrace2.a

cat >"$tmp/want" <<'END'
{"event":"version","sid":"SID","thread":"main","time":"TIME","evt":"4","exe":"0.1.0"}
{"event":"region_enter","sid":"SID","thread":"main","nesting":1,"category":"cxx","label":"outer"}
{"event":"region_enter","sid":"SID","thread":"main","nesting":2,"category":"cxx","label":"thrower"}
{"event":"region_enter","sid":"SID","thread":"main","nesting":3,"category":"cxx","label":"message","msg":"n=7"}
{"event":"region_leave","sid":"SID","thread":"main","t_rel":0.000000,"nesting":3,"category":"cxx","label":"message"}
{"event":"region_leave","sid":"SID","thread":"main","t_rel":0.000000,"nesting":2,"category":"cxx","label":"thrower"}
{"event":"region_leave","sid":"SID","thread":"main","t_rel":0.000000,"nesting":1,"category":"cxx","label":"outer"}
{"event":"printf","sid":"SID","thread":"main","t_abs":0.000000,"msg":"caught boom"}
{"event":"region_enter","sid":"SID","thread":"main","nesting":1,"category":"cxx","label":"early"}
{"event":"region_leave","sid":"SID","thread":"main","t_rel":0.000000,"nesting":1,"category":"cxx","label":"early"}
{"event":"data_json","sid":"SID","thread":"main","t_abs":0.000000,"t_rel":0.000000,"nesting":1,"category":"cxx","key":"result","value":{"caught":1}}
{"event":"exit","sid":"SID","thread":"main","t_abs":0.000000,"code":0}
{"event":"th_counter","sid":"SID","thread":"main","category":"cxx","name":"counter","count":2}
{"event":"timer","sid":"SID","thread":"main","category":"cxx","name":"timer","intervals":1,"t_total":0.000000,"t_min":0.000000,"t_max":0.000000}
{"event":"counter","sid":"SID","thread":"main","category":"cxx","name":"counter","count":2}
{"event":"atexit","sid":"SID","thread":"main","time":"TIME","t_abs":0.000000,"code":0}
END
sed -i "s/\"exe\":\"0.1.0\"/\"exe\":\"$(sed -n 's/^#define TRACE2_VERSION_STRING "\(.*\)"/\1/p' include/trace2.h)\"/" "$tmp/want"

if [ -n "${T2_CROSS:-}" ]; then
	echo "$t2_test: SKIP: no C++ compiler for $T2_CROSS (the host's g++ and clang++ build x86-64 with glibc only)"
	finish
	exit
fi
for cxx in g++ clang++; do
	if ! command -v "$cxx" >/dev/null 2>&1; then
		echo "$t2_test: skipped $cxx: not installed"
		continue
	fi
	for std in c++11 c++20; do
		name="$cxx -std=$std"
		exe="$tmp/regions-$cxx-$std"
		# shellcheck disable=SC2086 # T2_SAN is a list of flags
		if ! "$cxx" -std=$std -Wall -Wextra -Werror ${T2_SAN:-} -Iinclude \
			tests/cxx/regions.cc "$LIB" -lpthread -o "$exe" 2>"$tmp/cc.err"; then
			bad "$name: does not build"; cat "$tmp/cc.err" >&2; continue
		fi
		rm -f "$tmp/event"
		GIT_TRACE2_EVENT="$tmp/event" GIT_TRACE2_EVENT_BRIEF=1 GIT_TRACE2_EVENT_NESTING=9 "$exe"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "$name: exit status $rc"
		sed -e 's/"sid":"[^"]*"/"sid":"SID"/' -e 's/"time":"[^"]*"/"time":"TIME"/' -e 's/[0-9][0-9]*\.[0-9]\{6\}/0.000000/g' \
			"$tmp/event" >"$tmp/got" 2>/dev/null
		same "$name: event log" "$tmp/want" "$tmp/got"
	done
done
finish
