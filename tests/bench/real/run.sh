#!/usr/bin/env bash
# run.sh -- the "real program" benchmark: Debian's lua5.4 running
# workload.lua, every call of a C function (ldo.c precallC) wrapped in a
# trace2 region pair, against the unwrapped program, in the same runs.
#
# usage: tests/bench/real/run.sh          (make bench, make bench-real)
#
# 1. fetch.sh: `apt-get source lua5.4` into $BUILD/real/src, patched with
#    lua5.4-wrap.patch; skips (exit 0) when the source cannot be had.
# 2. Makefile: the unwrapped, the trace2 and (when LTTng-UST is there or
#    apt-get installs it, as root) the LTTng-UST programs.
# 3. Checks a recording (GIT_TRACE2_RING_FULL=wait) holds as many region
#    pairs as the program made, read with tests/record/decode.py (and
#    with `trace2 convert --to perf` when it reads recordings).
# 4. bench.py: REAL_RUNS rounds of every variant: unwrapped, wrapped with
#    no target, perf target, perf deferred, record target (dropping what
#    a full ring cannot take, the default, and waiting instead), stats target
#    (when the library has it), LTTng-UST session recording to disk (when
#    a session daemon runs here); medians, ratios and the issue's goals.
#
# Environment: BUILD (build), REAL_RUNS (5), REAL_ROUNDS (workload rounds
# per run: 100), REAL_CHECK_ROUNDS (20, for step 3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
BUILD=${BUILD:-$repo/build}
real=$BUILD/real
runs=${REAL_RUNS:-5}
rounds=${REAL_ROUNDS:-100}
check_rounds=${REAL_CHECK_ROUNDS:-20}
workload=$here/workload.lua
say() { echo "bench-real: $*" >&2; }

REAL_DIR=$real "$here/fetch.sh"
case $? in 0) ;; 2) exit 0 ;; *) exit 1 ;; esac
make -s -C "$here" BUILD="$BUILD" all >/dev/null || exit 1

# The session daemon run.sh started, if any: stopped, by its pid, at exit.
started_sessiond=
stop_sessiond() {
	[ -n "$started_sessiond" ] && kill "$started_sessiond" 2>/dev/null || return 0
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$started_sessiond" 2>/dev/null || return 0
		sleep 0.5
	done
}
trap stop_sessiond EXIT

have_lttng_tools() {
	echo '#include <lttng/tracepoint.h>' | ${CC:-cc} -E - >/dev/null 2>&1 &&
		command -v lttng >/dev/null &&
		command -v lttng-sessiond >/dev/null
}

install_lttng() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
	say "installing liblttng-ust-dev lttng-tools with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		liblttng-ust-dev lttng-tools >"$real/apt-lttng.log" 2>&1
}

start_sessiond() {
	lttng list >/dev/null 2>&1 && return 0
	lttng-sessiond --daemonize --no-kernel >"$real/sessiond.log" 2>&1 || return 1
	local pidfile=$LTTNG_HOME/.lttng/lttng-sessiond.pid
	[ "$(id -u)" = 0 ] && pidfile=/var/run/lttng/lttng-sessiond.pid
	started_sessiond=$(cat "$pidfile" 2>/dev/null)
	lttng list >/dev/null 2>&1
}

# A short session of the LTTng program must record something.
lttng_records() {
	local trace=$real/lttng-probe
	rm -rf "$trace"
	lttng create libtrace2-real-probe --output="$trace" >/dev/null 2>&1 || return 1
	lttng enable-event -u 'lua_wrap:*' >/dev/null 2>&1 &&
		lttng start >/dev/null 2>&1 &&
		"$real/lttng/lua" -e 'local x = math.abs(-1)' &&
		lttng stop >/dev/null 2>&1
	local ok=$?
	lttng destroy >/dev/null 2>&1
	[ $ok = 0 ] && [ -n "$(find "$trace" -type f -name 'channel*' -size +0 2>/dev/null)" ]
}

lttng_ready() {
	export LTTNG_HOME=$real/lttng-home
	mkdir -p "$LTTNG_HOME"
	have_lttng_tools || install_lttng || { say "skipped lttng: LTTng-UST not installed and apt-get cannot install it here"; return 1; }
	make -s -C "$here" BUILD="$BUILD" lttng >"$real/lttng-build.log" 2>&1 ||
		{ say "skipped lttng: the LTTng program does not build (see $real/lttng-build.log)"; return 1; }
	start_sessiond || { say "skipped lttng: no session daemon runs here (see $real/sessiond.log)"; return 1; }
	lttng_records || { say "skipped lttng: a session records nothing here"; return 1; }
}

has_stats_target() {
	local out=$real/stats-probe
	rm -f "$out"
	env -i PATH="$PATH" HOME="$real" GIT_CONFIG_NOSYSTEM=1 GIT_TRACE2_STATS="$out" \
		"$real/trace2/lua" -e 'local x = math.abs(-1)' >/dev/null 2>&1
	[ -s "$out" ]
}

# Step 3: pairs recorded == pairs made, nothing dropped.  Prints the
# counts of region_enter, region_leave and drop blocks in decode.py's lines.
count_records() {
	awk '/"event": "region_enter"/ { e++ } /"event": "region_leave"/ { l++ }
	     /"dropped"/ { d++ } END { print e + 0, l + 0, d + 0 }'
}

check_recording() {
	local rec=$real/check.t2r made counts enters leaves dropped
	rm -f "$rec" "$real/check.pairs"
	env -i PATH="$PATH" HOME="$real" GIT_CONFIG_NOSYSTEM=1 GIT_TRACE2_RECORD="$rec" \
		GIT_TRACE2_RING_FULL=wait LUA_WRAP_PAIRS="$real/check.pairs" \
		"$real/trace2/lua" "$workload" "$check_rounds" >/dev/null || return 1
	made=$(cat "$real/check.pairs")
	counts=$(set -o pipefail; python3 "$repo/tests/record/decode.py" "$rec" | count_records) ||
		{ say "FAIL: decode.py cannot read $rec"; return 1; }
	read -r enters leaves dropped <<<"$counts"
	echo "recording check ($check_rounds rounds, ringFull=wait): $made pairs made," \
		"$enters region_enter and $leaves region_leave recorded, $dropped drop blocks"
	[ "$enters" = "$made" ] && [ "$leaves" = "$made" ] && [ "$dropped" = 0 ] ||
		{ say "FAIL: the recording does not hold every pair"; return 1; }
	check_convert "$rec" "$made"
}

check_convert() {
	local n
	n=$("$BUILD/bin/trace2" convert --to perf "$1" 2>/dev/null | grep -c '| region_enter |')
	if [ "${n:-0}" = 0 ]; then
		echo "trace2 convert --to perf: does not read recordings yet; not checked"
	elif [ "$n" = "$2" ]; then
		echo "trace2 convert --to perf: $n region_enter lines, as many as pairs made"
	else
		say "FAIL: trace2 convert --to perf wrote $n region_enter lines for $2 pairs"
		return 1
	fi
}

variants=(plain wrapped perf deferred record record_wait)
if has_stats_target; then
	variants+=(stats)
else
	say "skipped stats: this libtrace2 has no statistics target (GIT_TRACE2_STATS wrote nothing)"
fi
lttng_ready && variants+=(lttng)
check_recording || exit 1
echo "load average before the rounds: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
python3 "$here/bench.py" "$real" "$workload" "$rounds" "$runs" "${variants[@]}" || exit 1
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
