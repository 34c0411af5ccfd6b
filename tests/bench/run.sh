#!/usr/bin/env bash
# run.sh -- run libtrace2's benchmark (tests/bench/bench.c), print tables.
#
# usage: tests/bench/run.sh [--valgrind] [SCENARIO...]
#
#   (default)    BENCH_RUNS rounds (5); each round runs "floor" and then every
#                scenario once, each as a fresh process with a clean
#                environment.  Prints median/min/max ns per op, trace bytes
#                per op and the median's ratio to the floor measured in the
#                same run (x_floor; x_min = min / floor's min, steadier on a
#                busy machine); then one "rss" run (BENCH_RSS_EVENTS events).
#                The buffered scenarios are compared with the buffered floors
#                (floor_buffered[_threads], run right after them with as
#                many pairs, so both write the same bytes); perf_deferred
#                with floor_ring, record with floor_ring_mono (run right
#                after it).  record_rate runs for BENCH_RECORD_RATE_SECONDS
#                while a busy loop (a shell process) runs on the other
#                core.  Then BENCH_RUNS runs of the start-up
#                benchmark (build/bench/startup, STARTUP_RUNS spawns each)
#                and a "goals" table: every goal of the performance issues
#                as a same-run ratio (medians), PASS or MISS (or
#                withdrawn, shown for comparison).
#   --valgrind   every scenario under callgrind with N=BENCH_VG_N (20000)
#                and N=0, for user-space instructions per op, and natively
#                with malloc_count.so with N and 2N, for heap allocations
#                per op (what the first events allocate once, such as the
#                deferred writer's buffer, is in both; in the deferred
#                mode 2 such buffers may come in one run and not the
#                other, as its threads race), each as
#                (count(b) - count(a)) / (ops(b) - ops(a)).  The record
#                scenarios: instructions of the traced threads only,
#                inside their loops (callgrind --separate-threads=yes
#                --toggle-collect=do_ops and paced_pairs, summed over the
#                threads: the writer's are not counted, nor a flush that
#                writes the rings on the main thread), with
#                GIT_TRACE2_RECORD_RING=4m: valgrind runs one thread at a
#                time, so with a smaller ring the writer, seldom run, would
#                make the traced thread drop records (and count fewer
#                instructions); allocations of every thread, the writer's
#                too.
#
# Environment:
#   BENCH_BIN_DIR          where bench and malloc_count.so are (build/bench)
#   BENCH_RUNS             rounds (5)
#   T2BENCH_SECONDS        seconds per scenario run (1)
#   T2BENCH_FLOOR_SECONDS  seconds per floor item (0.3)
#   BENCH_RSS_EVENTS       events of the rss run (10000000; 0 skips it)
#   STARTUP_RUNS           spawns of each kind per start-up run (300; 0
#                          skips the start-up runs)
#   BENCH_TOOL             the start-up benchmark's command
#                          (build/bin/trace2-tool)
#   T2BENCH_RATE           pairs per second of perf_deferred_rate (2000000)
#                          and of record_rate (4000000)
#   BENCH_RECORD_RATE_SECONDS
#                          seconds of each record_rate run (10)
#   BENCH_VG_N             N of the --valgrind runs (20000)
#   T2BENCH_WARM_MB        MiB a buffered run touches and frees just before
#                          its timed loop, so its page cache reuses memory
#                          the host backs (4096; 0 = off; see warm.h)
#   BENCH_KEEP=1           keep the scratch directory (made in $TMPDIR or
#                          /tmp), e.g. for callgrind_annotate on its
#                          callgrind.out.* files
#
# Clean environment: env -i with PATH, an empty HOME, GIT_CONFIG_NOSYSTEM=1,
# LC_ALL=C, TZ if set, the T2BENCH_* knobs and the scenario's targets
# (n = GIT_TRACE2, p = GIT_TRACE2_PERF, e = GIT_TRACE2_EVENT, each a regular
# file in the scratch directory, deleted after every run; b adds
# GIT_TRACE2_BUFFER=64k, c GIT_TRACE2_CATEGORIES=bench,-noise, d
# GIT_TRACE2_DEFERRED=1, s GIT_TRACE2_STATS, its table at exit to a file,
# o GIT_TRACE2_SAMPLE=0.5 with GIT_TRACE2_PARENT_SID a root whose tree that
# rate samples out (its hash is 0.92 x 2^64: docs/configuration.md
# "Sampling"), f GIT_TRACE2_FLIGHT=1m, r GIT_TRACE2_RECORD, a file on disk: in the scratch directory, or in one
# under BENCH_BIN_DIR when that is a tmpfs); GIT_TRACE2_CLOCK,
# GIT_TRACE2_DEFERRED_RING, GIT_TRACE2_RECORD_RING and GIT_TRACE2_RING_FULL
# pass through when set (floor_ring follows GIT_TRACE2_CLOCK as the
# library does).
set -u

here=$(cd "$(dirname "$0")" && pwd)
bindir=${BENCH_BIN_DIR:-$here/../../build/bench}
bench=$bindir/bench
runs=${BENCH_RUNS:-5}
secs=${T2BENCH_SECONDS:-1}
fsecs=${T2BENCH_FLOOR_SECONDS:-0.3}
rss_events=${BENCH_RSS_EVENTS:-10000000}
vg_n=${BENCH_VG_N:-20000}
warm_mb=${T2BENCH_WARM_MB:-4096}
startup_runs=${STARTUP_RUNS:-300}
record_rate_secs=${BENCH_RECORD_RATE_SECONDS:-10}
tool=${BENCH_TOOL:-$here/../../build/bin/trace2-tool}
mode="time"

if [ "${1:-}" = --valgrind ]; then
	mode=valgrind
	warm_mb=0 # instructions do not depend on it
	shift
fi
if [ ! -x "$bench" ]; then
	echo "run.sh: $bench not built (make -C tests/bench build)" >&2
	exit 2
fi

fs_type() {
	df -PT "$1" | awk 'NR == 2 { print $2 }'
}

dir=$(mktemp -d "${TMPDIR:-/tmp}/libtrace2-bench.XXXXXX") || exit 1
mkdir -p "$dir/home"
# the recording goes to the machine's disk, as a user's would
rec_dir=$dir
busy=
# shellcheck disable=SC2317  # invoked by the trap
cleanup() {
	[ -n "$busy" ] && kill "$busy" 2>/dev/null
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		echo "# kept $dir $rec_dir" >&2
	else
		rm -rf "$dir" "$rec_dir"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "$(fs_type "$dir")" = tmpfs ]; then
	rec_dir=$(mktemp -d "$(cd "$bindir" && pwd)/scratch.XXXXXX") || exit 1
fi

# E: the command prefix running one scenario with targets $1 in a clean
# environment; removes the trace files of the previous run.
clean_env() {
	E=(env -i "PATH=$PATH" "HOME=$dir/home" "XDG_CONFIG_HOME=$dir/home/.config"
	   GIT_CONFIG_NOSYSTEM=1 LC_ALL=C "T2BENCH_SECONDS=$secs"
	   "T2BENCH_FLOOR_SECONDS=$fsecs" "T2BENCH_WARM_MB=$warm_mb"
	   "T2BENCH_TMPDIR=$dir")
	[ -n "${TZ+x}" ] && E+=("TZ=$TZ")
	local v
	for v in GIT_TRACE2_CLOCK GIT_TRACE2_DEFERRED_RING GIT_TRACE2_RECORD_RING \
		 GIT_TRACE2_RING_FULL T2BENCH_RATE; do
		[ -n "${!v+x}" ] && E+=("$v=${!v}")
	done
	case $1 in *n*) E+=("GIT_TRACE2=$dir/trace.normal") ;; esac
	case $1 in *p*) E+=("GIT_TRACE2_PERF=$dir/trace.perf") ;; esac
	case $1 in *e*) E+=("GIT_TRACE2_EVENT=$dir/trace.event") ;; esac
	case $1 in *b*) E+=("GIT_TRACE2_BUFFER=64k") ;; esac
	case $1 in *c*) E+=("GIT_TRACE2_CATEGORIES=bench,-noise") ;; esac
	case $1 in *d*) E+=("GIT_TRACE2_DEFERRED=1") ;; esac
	case $1 in *s*) E+=("GIT_TRACE2_STATS=$dir/trace.stats") ;; esac
	case $1 in *r*) E+=("GIT_TRACE2_RECORD=$rec_dir/trace.rec") ;; esac
	case $1 in *f*) E+=("GIT_TRACE2_FLIGHT=1m") ;; esac
	case $1 in *o*) E+=("GIT_TRACE2_SAMPLE=0.5"
			    "GIT_TRACE2_PARENT_SID=20260101T000000.000000Z-H00000000-P00000007") ;; esac
	rm -f "$dir"/trace.* "$rec_dir"/trace.*
}

# busy_start, busy_stop: a CPU-bound process, on the other core while
# record_rate runs
busy_start() {
	(while :; do :; done) &
	busy=$!
}
busy_stop() {
	[ -n "$busy" ] || return 0
	kill "$busy" 2>/dev/null
	wait "$busy" 2>/dev/null
	busy=
}

# field KEY LINE: the value of KEY=value in LINE
field() {
	local tok
	for tok in $2; do
		case $tok in "$1"=*) echo "${tok#*=}"; return ;; esac
	done
}

# stats FILE: "median min max" of the numbers in FILE, one per line
stats() {
	sort -g "$1" | awk '{ v[NR] = $1 }
		END {
			if (!NR) { print "nan nan nan"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.2f %.2f %.2f\n", m, v[1], v[NR]
		}'
}

# the scenarios and their targets, as the binary declares them
declare -A targets
floor_items=()
order=()
while read -r name tg; do
	targets[$name]=${tg/#-/}
	[ "$name" = floor ] || order+=("$name")
done < <(clean_env ""; "${E[@]}" "$bench" list)
if [ $# -gt 0 ]; then
	order=("$@")
fi
for s in "${order[@]}"; do
	if [ -z "${targets[$s]+x}" ]; then
		echo "run.sh: unknown scenario '$s' (see: $bench list)" >&2
		exit 2
	fi
done

echo "# libtrace2 bench: $bench ($(git -C "$here" describe --always --dirty 2>/dev/null || echo '?'))"
echo "# host: $(uname -srm), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); scratch: $dir ($(fs_type "$dir")); recording: $rec_dir ($(fs_type "$rec_dir"))"

if [ "$mode" = valgrind ]; then
	if ! command -v valgrind >/dev/null; then
		echo "run.sh: valgrind is not installed" >&2
		exit 2
	fi
	echo "# valgrind: N=$vg_n vs N=0; instructions = callgrind Ir (user space); allocations = malloc_count.so"
	printf '%-20s %10s %12s %12s %10s %10s  %s\n' scenario ops Ir_N0 Ir_N instr/op allocs/op goal
	status=0
	for s in "${order[@]}"; do
		[ "$s" = floor ] && continue
		ok=1
		# record scenarios: the loops' instructions, one file a thread
		vg_opts=() vg_env=()
		case ${targets[$s]} in *r*)
			vg_opts=(--separate-threads=yes --toggle-collect=do_ops
				 --toggle-collect=paced_pairs) vg_env=(GIT_TRACE2_RECORD_RING=4m) ;;
		esac
		dropped=0
		for n in 0 "$vg_n"; do
			cg=$dir/callgrind.out.$s.$n
			clean_env "${targets[$s]}"
			out=$("${E[@]}" "${vg_env[@]}" valgrind --tool=callgrind "${vg_opts[@]}" \
				--callgrind-out-file="$cg" "$bench" "$s" "$n" 2>"$dir/vg.err") || ok=0
			ops[n]=$(field ops "$(grep '^t2bench scenario=' <<<"$out")")
			ir[n]=$(for f in "$cg" "$cg"-[0-9]*; do
					[ -f "$f" ] && awk '$1 == "summary:" || $1 == "totals:" { print $2; exit }' "$f"
				done | awk '{ s += $1 } END { if (NR) print s }')
			d=$(field dropped "$(grep '^t2bench recording ' <<<"$out")")
			dropped=$((dropped + ${d:-0}))
			# allocations at N and 2N: what the first events allocate
			# once (a writer's buffer) is in both
			clean_env "${targets[$s]}"
			rm -f "$dir/mc.txt"
			out=$("${E[@]}" "${vg_env[@]}" "LD_PRELOAD=$bindir/malloc_count.so" \
				"MALLOC_COUNT_OUT=$dir/mc.txt" "$bench" "$s" $((n ? 2 * n : vg_n))) || ok=0
			aops[n]=$(field ops "$(grep '^t2bench scenario=' <<<"$out")")
			al[n]=$(field allocs "$(cat "$dir/mc.txt" 2>/dev/null)")
			d=$(field dropped "$(grep '^t2bench recording ' <<<"$out")")
			dropped=$((dropped + ${d:-0}))
			[ -n "${ops[$n]}" ] && [ -n "${ir[$n]}" ] && [ -n "${al[$n]}" ] &&
				[ -n "${aops[$n]}" ] || ok=0
		done
		if [ $ok = 0 ]; then
			echo "run.sh: $s failed under valgrind or malloc_count (see $dir/vg.err)" >&2
			printf '%-20s FAILED\n' "$s"
			status=1
			continue
		fi
		awk -v s="$s" -v o0="${ops[0]}" -v o="${ops[$vg_n]}" -v i0="${ir[0]}" \
		    -v i="${ir[$vg_n]}" -v a0="${al[0]}" -v a="${al[$vg_n]}" \
		    -v ao0="${aops[0]}" -v ao="${aops[$vg_n]}" -v dropped="$dropped" 'BEGIN {
			d = o - o0; if (d <= 0) d = 1
			ad = ao - ao0; if (ad <= 0) ad = 1
			ipo = (i - i0) / d; apo = (a - a0) / ad; goal = ""
			if (s == "disabled")
				goal = (ipo <= 8 ? "ok" : "MISS") " (<= 8 instr)"
			if (s == "perf" || s == "event")
				goal = (ipo <= 2500 && apo == 0 ? "ok" : "MISS") " (<= 2500 instr, 0 allocs)"
			# the first buffers of the writer and of the thread
			# that drains come once each, in either run
			if (s == "perf_deferred")
				goal = (a - a0 <= 2 ? "ok" : "MISS") " (0 allocs per op)"
			# record: instructions of the traced thread, allocations
			# of every thread, with every record written (none dropped)
			if (s ~ /^record/)
				goal = sprintf("%s (0 allocs per op; instr: traced threads; %d dropped)",
					       a == a0 && dropped == 0 ? "ok" : "MISS", dropped)
			printf "%-20s %10d %12d %12d %10.1f %10.3f  %s\n", s, o, i0, i, ipo, apo, goal
		}'
	done
	exit $status
fi

# ---- timing: rounds of floor + every scenario --------------------------
echo "# runs=$runs seconds/run=$secs floor_seconds/item=$fsecs; $(date -u +%Y-%m-%dT%H:%M:%SZ)"
status=0
for ((r = 1; r <= runs; r++)); do
	printf 'round %d/%d:' "$r" "$runs" >&2
	declare -A ops_of=()
	for s in floor "${order[@]}"; do
		printf ' %s' "$s" >&2
		clean_env "${targets[$s]}"
		# a buffered floor writes as many pairs (bytes) as the library
		# scenario before it in this round: on a VM the kernel's cost
		# per byte depends on how much fresh memory a run touches
		n=()
		case $s in
		floor_buffered)
			[ -n "${ops_of[perf_buffered]:-}" ] && n=("${ops_of[perf_buffered]}") ;;
		floor_buffered_threads)
			[ -n "${ops_of[perf_buffered_threads]:-}" ] &&
				n=($((ops_of[perf_buffered_threads] / 2))) ;;
		esac
		if [ "$s" = record_rate ]; then
			E+=("T2BENCH_SECONDS=$record_rate_secs")
			busy_start
		fi
		out=$("${E[@]}" "$bench" "$s" "${n[@]}")
		rc=$?
		busy_stop
		if [ "$s" = floor ]; then
			while read -r line; do
				it=$(field item "$line")
				field ns_per_op "$line" >>"$dir/floor.$it"
				[ $r = 1 ] && floor_items+=("$it")
			done < <(grep '^t2bench floor ' <<<"$out")
			continue
		fi
		line=$(grep '^t2bench scenario=' <<<"$out" | tail -n 1)
		rl=$(grep '^t2bench rate ' <<<"$out")
		if [ -n "$rl" ]; then
			field pairs_per_s "$rl" >>"$dir/rate.$s"
			echo "$(field drops "$rl") $(field ok "$rl")" >>"$dir/drops.$s"
			field target_per_s "$rl" >"$dir/target.$s"
		fi
		rec=$(grep '^t2bench recording ' <<<"$out")
		if [ -n "$rec" ]; then
			field bytes_per_region_event "$rec" >>"$dir/bpe.$s"
			awk -v d="$(field dropped "$rec")" -v r="$(field records "$rec")" \
				'BEGIN { printf "%.2f\n", (d + r > 0 ? 100 * d / (d + r) : 0) }' >>"$dir/droppct.$s"
		fi
		if [ $rc != 0 ] || [ -z "$line" ]; then
			echo "run.sh: $s failed (exit $rc)" >&2
			status=1
			continue
		fi
		ops_of[$s]=$(field ops "$line")
		field ns_per_op "$line" >>"$dir/ns.$s"
		field loop_bytes_per_op "$line" >>"$dir/bytes.$s"
		cpu=$(field cpu_ns_per_op "$line")
		[ -n "$cpu" ] && echo "$cpu" >>"$dir/cpu.$s"
		cl=$(grep '^t2bench floor_ring ' <<<"$out")
		[ -n "$cl" ] && field clock "$cl" >"$dir/clock"
		cl=$(grep '^t2bench floor_ring_mono ' <<<"$out")
		[ -n "$cl" ] && field library_clock "$cl" >"$dir/library_clock"
		# which floor it is compared with: none while disabled, three
		# writes per event for three targets, else per pair or per call
		floor=floor_pair
		[ "$(field calls "$line")" = "$(field ops "$line")" ] && floor=clock_plus_write
		[ "$floor" = floor_pair ] && [ "${targets[$s]}" = e ] && floor=floor_pair_event
		[ ${#targets[$s]} = 3 ] && floor=floor_pair_3targets
		[ -z "${targets[$s]}" ] && floor=-
		case $s in
		perf_buffered) floor=floor_buffered ;;
		perf_buffered_threads) floor=floor_buffered_threads ;;
		perf_deferred) floor=floor_ring ;;
		record | flight) floor=floor_ring_mono ;;
		*) case ${targets[$s]} in *b* | *c* | *d* | *o* | *r* | *s*) floor=- ;; esac ;;
		esac
		echo "$floor" >"$dir/floorof.$s"
		want_on=1
		case ${targets[$s]} in '' | *o*) want_on=0 ;; esac
		if [ "$(field enabled "$line")" != "$want_on" ]; then
			echo "run.sh: $s: enabled=$(field enabled "$line") with targets '${targets[$s]}'" >&2
			status=1
		fi
	done
	echo >&2
done
rm -f "$dir"/trace.*

declare -A fmed fmin
echo
printf '%-22s %10s %10s %10s\n' floor_item median_ns min max
for it in "${floor_items[@]}"; do
	read -r med min max < <(stats "$dir/floor.$it")
	fmed[$it]=$med
	fmin[$it]=$min
	printf '%-22s %10s %10s %10s\n' "$it" "$med" "$min" "$max"
done

echo
printf '%-22s %10s %10s %10s %9s  %-20s %7s %7s  %s\n' \
	scenario median_ns min max bytes/op floor x_floor x_min goal
# the buffered floors are scenarios: their medians serve as floors too
for f in floor_buffered floor_buffered_threads floor_ring floor_ring_mono; do
	[ -f "$dir/ns.$f" ] && read -r "fmed[$f]" "fmin[$f]" _ < <(stats "$dir/ns.$f")
done
bsingle=
[ -f "$dir/ns.perf_buffered" ] && read -r bsingle _ _ < <(stats "$dir/ns.perf_buffered")
for s in "${order[@]}"; do
	[ -f "$dir/ns.$s" ] || { printf '%-20s FAILED\n' "$s"; continue; }
	read -r med min max < <(stats "$dir/ns.$s")
	read -r bpo _ _ < <(stats "$dir/bytes.$s")
	fl=$(cat "$dir/floorof.$s")
	dp=
	[ -s "$dir/droppct.$s" ] && read -r dp _ _ < <(stats "$dir/droppct.$s")
	awk -v s="$s" -v dp="$dp" -v med="$med" -v min="$min" -v max="$max" -v bpo="$bpo" \
	    -v fl="$fl" -v fm="${fmed[$fl]:-}" -v fn="${fmin[$fl]:-}" -v bsingle="$bsingle" -v fsingle="${fmed[floor_buffered]:-}" 'BEGIN {
		ratio = rmin = "-"; goal = ""
		if (fl != "-" && fm > 0)
			ratio = sprintf("%.3f", med / fm)
		if (fl != "-" && fn > 0)
			rmin = sprintf("%.3f", min / fn)
		if (s == "disabled")
			goal = (med <= 1 ? "ok" : "MISS") " (<= 1 ns)"
		if ((s == "perf" || s == "event" || s == "all") && ratio != "-")
			goal = (ratio <= 1.15 ? "ok" : "MISS") " (<= 1.15 x floor)"
		if (s == "perf_buffered" && ratio != "-")
			goal = (ratio <= 1.25 ? "ok" : "MISS") " (<= 1.25 x floor)"
		if (s == "perf_deferred" && ratio != "-")
			goal = (ratio <= 2 ? "ok" : "MISS") " (<= 2 x floor_ring)"
		if (s == "category_enabled")
			goal = (med <= 5 ? "ok" : "MISS") " (<= 5 ns)"
		if (s == "perf_buffered_threads" && bsingle > 0)
			goal = sprintf("%s (%.2f x single-thread throughput; >= 1.7)",
				       bsingle / med >= 1.7 ? "ok" : "MISS", bsingle / med)
		if (dp != "")
			goal = sprintf("(records dropped: %s %%, median)", dp)
		if (s == "floor_buffered_threads" && fsingle > 0)
			goal = sprintf("(the floor itself: %.2f x its single thread)", fsingle / med)
		printf "%-22s %10s %10s %10s %9s  %-20s %7s %7s  %s\n", s, med, min, max, bpo, fl, ratio, rmin, goal
	}'
done

# ---- start-up: what tracing adds to a whole process --------------------
if [ "$startup_runs" != 0 ]; then
	echo
	for ((r = 1; r <= runs; r++)); do
		out=$("$bindir/startup" "$startup_runs" "$tool" trace2 001return 0) || {
			echo "run.sh: startup failed" >&2
			status=1
			break
		}
		sl=$(grep '^startup runs=' <<<"$out")
		fl=$(grep '^startup floor:' <<<"$out")
		field added_us "$sl" >>"$dir/startup.added"
		field x_floor "$fl" >>"$dir/startup.ratio"
		awk '{ for (i = 1; i <= NF; i++) if ($i == "add") print $(i + 1) }' <<<"$fl" \
			>>"$dir/startup.floor"
		echo "startup $r/$runs: $sl; floor adds $(tail -n 1 "$dir/startup.floor") us; x_floor=$(field x_floor "$fl")"
	done
fi

# ---- goals: each a ratio measured in this run (medians) ---------------
# med FILE: the median of the numbers in FILE, or empty
med() {
	[ -s "$1" ] && stats "$1" | cut -d' ' -f1
}
# goal TEXT MEASURED VALUE LIMIT: PASS when VALUE <= LIMIT; LIMIT "-": a
# goal withdrawn, shown for comparison
goal() {
	awk -v g="$1" -v m="$2" -v v="$3" -v l="$4" 'BEGIN {
		verdict = (v == "" || v == "nan") ? "n/a" : (v + 0 <= l + 0 ? "PASS" : "MISS")
		if (l == "-")
			verdict = "withdrawn"
		printf "%-56s %22s %8s  %s\n", g, m, v == "" ? "-" : v, verdict
	}'
}
# rate_goal SCENARIO RATE TEXT: PASS when no run dropped a record, every
# record was accounted for and every run reached the rate (RATE when it
# did not run)
rate_goal() {
	local drops bad want slow v

	if [ ! -s "$dir/drops.$1" ]; then
		goal "no drops at $2 pairs/s$3" "?" "" 0
		return
	fi
	read -r drops bad < <(awk '{ d += $1; if ($2 != 1) b++ } END { print d + 0, b + 0 }' \
		"$dir/drops.$1")
	want=$(cat "$dir/target.$1")
	slow=$(sort -g "$dir/rate.$1" | head -n 1)
	v=$(awk -v d="$drops" -v b="$bad" -v s="$slow" -v w="$want" \
		'BEGIN { print (d == 0 && b == 0 && s >= 0.99 * w) ? 0 : 1 }')
	goal "no drops at $want pairs/s$3" "$drops drops, min $(printf '%.0f' "$slow")/s" "$v" 0
}
# ratio A B: A / B to 3 decimals, or empty
ratio() {
	[ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b }'
}
echo
echo "goals (floor_ring clock: $(cat "$dir/clock" 2>/dev/null || echo '?'); the library's: $(cat "$dir/library_clock" 2>/dev/null || echo '?'))"
printf '%-56s %22s %8s  %s\n' goal measured ratio verdict
m=$(med "$dir/ns.perf_deferred")
goal "deferred pair (traced thread) <= 2 x floor_ring" "${m:-?} ns" "$(ratio "$m" "$(med "$dir/ns.floor_ring")")" 2
m=$(med "$dir/cpu.perf_deferred")
goal "deferred CPU per pair <= 1.35 x floor_buffered" "${m:-?} ns" "$(ratio "$m" "${fmed[floor_buffered]:-}")" -
rate_goal perf_deferred_rate 2000000 " (one thread)"
m=$(med "$dir/ns.perf_buffered")
goal "buffered perf pair <= 1.25 x floor_buffered" "${m:-?} ns" "$(ratio "$m" "${fmed[floor_buffered]:-}")" -
m=$(med "$dir/startup.added")
goal "start-up (event target) <= 1.25 x startup_floor" "${m:-?} us" "$(med "$dir/startup.ratio")" -
m=$(med "$dir/ns.perf")
goal "default perf pair <= 1.15 x floor_pair" "${m:-?} ns" "$(ratio "$m" "${fmed[floor_pair]:-}")" 1.15
m=$(med "$dir/ns.event")
goal "default event pair <= 1.15 x floor_pair_event" "${m:-?} ns" "$(ratio "$m" "${fmed[floor_pair_event]:-}")" 1.15
m=$(med "$dir/ns.disabled")
goal "disabled pair <= 1 ns" "${m:-?} ns" "$m" 1
d=$m
m=$(med "$dir/ns.sampled_out")
goal "sampled-out pair <= disabled pair + 1 ns (ratio: the ns more)" "${m:-?} ns" \
	"$([ -n "$m" ] && [ -n "$d" ] && awk -v m="$m" -v d="$d" 'BEGIN { printf "%.3f", m - d }')" 1
# the record target: against floor_ring_mono where the library reads the
# TSC as it does, else with the slack of its slower clock
lim=1.3
[ "$(cat "$dir/library_clock" 2>/dev/null)" = tsc ] && lim=1.0
m=$(med "$dir/ns.record")
goal "record pair (traced thread) <= $lim x floor_ring_mono" "${m:-?} ns" \
	"$(ratio "$m" "$(med "$dir/ns.floor_ring_mono")")" "$lim"
m=$(med "$dir/ns.flight")
goal "flight pair, not triggered (traced thread) <= 1.0 x floor_ring_mono" "${m:-?} ns" \
	"$(ratio "$m" "$(med "$dir/ns.floor_ring_mono")")" 1.0
m=$(med "$dir/cpu.record")
goal "record CPU per pair <= 0.5 x floor_buffered CPU" "${m:-?} ns" \
	"$(ratio "$m" "$(med "$dir/cpu.floor_buffered")")" 0.5
rate_goal record_rate 4000000 ", ${record_rate_secs} s, busy core (record)"
m=$(med "$dir/bpe.record_rate")
goal "record_rate: on disk <= 16 bytes per region event" "${m:-?} B" "$m" 16
echo "(disabled pair <= 8 instructions: run.sh --valgrind disabled, make bench-valgrind)"
echo "(the 'no drops' row's ratio column: 0 = every run kept up without a drop)"

# ---- memory -----------------------------------------------------------
if [ "$rss_events" != 0 ]; then
	echo
	clean_env p # "bench rss" is not listed; it wants the perf target
	out=$("${E[@]}" "$bench" rss "$rss_events") || status=1
	rm -f "$dir"/trace.*
	grep '^t2bench rss ' <<<"$out"
	line=$(grep growth_kib <<<"$out")
	growth=$(field growth_kib "$line")
	if [ -n "$growth" ]; then
		[ "$growth" -le 64 ] && g=ok || g=MISS
		echo "rss growth: $growth KiB: $g (<= 64 KiB); anonymous: $(field anon_growth_kib "$line") KiB"
	else
		echo "run.sh: rss run failed" >&2
		status=1
	fi
fi
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
