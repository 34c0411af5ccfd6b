#!/bin/sh
# The trace2 command against hostile input (issue 31): a crafted log, a
# misbehaving collector client, a log cut by a full disk or a kill.  One
# function per finding, named after it; each runs every subcommand the
# finding concerns.  Memory-safety findings show under the ASan build
# (T2_BIN=build/asan/bin); the plain build checks the same behaviour.
# usage: T2_BIN=build/bin tests/tools/test_tool_hostile.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

sid=20261124T100000.000000Z-H0a7c9cdf-P00001234
common="\"sid\":\"$sid\",\"thread\":\"main\",\"time\":\"2026-11-24T10:00:00.000000Z\""
version="{\"event\":\"version\",$common,\"evt\":\"4\",\"exe\":\"x\"}"
atexit="{\"event\":\"atexit\",$common,\"t_abs\":0.2,\"code\":0}"

# each_command NAME LOG: every subcommand on LOG; $tmp/NAME.CMD.err holds
# what each said on stderr, $tmp/NAME.CMD.rc its exit status
each_command() {
	for cmd in chrome perf normal otlp summary validate; do
		case $cmd in
		summary) "$T2" summary "$2" ;;
		validate) "$T2" validate --quiet "$2" 2>&1 ;;
		*) "$T2" convert --to $cmd "$2" ;;
		esac >"$tmp/$1.$cmd.out" 2>"$tmp/$1.$cmd.err"
		echo $? >"$tmp/$1.$cmd.rc"
	done
}

# rc_is NAME CMD WANT
rc_is() {
	got=$(cat "$tmp/$1.$2.rc")
	[ "$got" = "$3" ] && ok || { bad "$1: $2 exited $got, want $3"; head -5 "$tmp/$1.$2.err" >&2; }
}

# --- item 5: numbers read from a log that index, size or count ------------------
# A child_id below 0 wrote before the chrome target's children[] (heap
# corruption); every number out of its range is reported as FILE:LINE and
# the record skipped, by every subcommand.
negative_child_id() {
	log=$tmp/range.json
	long=$(printf '%0300d' 0)
	{
		echo "$version"
		for id in -1 -2 -64 -2147483648; do
			echo "{\"event\":\"child_start\",$common,\"child_id\":$id,\"child_class\":\"$long\",\"use_shell\":false,\"argv\":[\"$long\"]}"
		done
		echo "{\"event\":\"child_exit\",$common,\"child_id\":-1,\"pid\":5,\"code\":0,\"t_rel\":0.1}"
		echo "{\"event\":\"exec\",$common,\"exec_id\":-7,\"argv\":[\"x\"]}"
		echo "{\"event\":\"region_enter\",$common,\"nesting\":99999999999,\"label\":\"l\"}"
		echo "{\"event\":\"signal\",$common,\"t_abs\":0.1,\"signo\":2147483647}"
		echo "{\"event\":\"timer\",$common,\"category\":\"c\",\"name\":\"n\",\"intervals\":-1,\"t_total\":1,\"t_min\":1,\"t_max\":1}"
		echo "{\"event\":\"child_exit\",$common,\"child_id\":1,\"pid\":5,\"code\":0,\"t_rel\":9999999999}"
		echo "$atexit"
	} >"$log"
	each_command negative_child_id "$log"
	for cmd in chrome perf normal otlp summary; do
		rc_is negative_child_id $cmd 0
		for n in 2 3 4 5 6 7 8 9 10 11; do
			grep -q "^$log:$n: \".*\" .* is out of range (.*); skipped\$" "$tmp/negative_child_id.$cmd.err" && ok ||
				{ bad "negative_child_id: $cmd did not report line $n"; cat "$tmp/negative_child_id.$cmd.err" >&2; }
		done
		[ "$(wc -l <"$tmp/negative_child_id.$cmd.err")" -eq 10 ] && ok ||
			{ bad "negative_child_id: $cmd said more"; cat "$tmp/negative_child_id.$cmd.err" >&2; }
	done
	rc_is negative_child_id validate 1
	grep -q "^$log:2: error: \"child_id\" -1 is out of range (0 to 999999999)\$" \
		"$tmp/negative_child_id.validate.out" && ok ||
		{ bad "negative_child_id: validate did not report it"; cat "$tmp/negative_child_id.validate.out" >&2; }
	# the process is still there, from version to atexit
	grep -c '"name":"process","cat":"process","ph":"X"' "$tmp/negative_child_id.chrome.out" |
		grep -qx 1 && ok || bad "negative_child_id: chrome lost the process"
}

# --- item 6: more than 16 clients at once ---------------------------------------
# Each connection's source named its client by a pointer into the array
# of connections, which grows (and moves) at the 17th.
sock=$tmp/t2.sock addr=af_unix:$tmp/t2.sock win=
# the Windows build: a named pipe (pipe_writer its client)
[ "${T2_CROSS:-}" = mingw64 ] && addr=//./pipe/t2-$$-hostile win=1
# watchdog PID: a collector whose clients failed is killed after 60 s,
# not waited for forever; called_off when it ended
watchdog() { (sleep 60; kill -KILL "$1" 2>/dev/null) & dog=$!; }
called_off() { kill "$dog" 2>/dev/null; }
wait_sock() { i=0; while [ ! -S "$sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done; }

# clients N LINE...: N clients connected at once, then each sends the
# lines and closes
clients() {
	perl -MIO::Socket::UNIX -e '
		my ($path, $n, @lines) = @ARGV;
		my @s = map { IO::Socket::UNIX->new(Peer => $path) or die "connect: $!" } 1 .. $n;
		for my $s (@s) { print $s "$_\n" for @lines; close $s; }' "$sock" "$@"
}

# held_clients N FIRST REST: N clients connect at once and send their
# FIRST line, make $tmp/ready, wait for $tmp/go, then send REST and close
held_clients() {
	rm -f "$tmp/ready" "$tmp/go"
	perl -MIO::Socket::UNIX -e '
		my ($path, $n, $ready, $go, $first, $rest) = @ARGV;
		my @s = map { IO::Socket::UNIX->new(Peer => $path) or die "connect: $!" } 1 .. $n;
		print $_ "$first\n" for @s;
		open(my $f, ">", $ready); close $f;
		select(undef, undef, undef, 0.05) until -e $go;
		for my $s (@s) { print $s "$rest\n"; close $s; }' \
		"$sock" "$1" "$tmp/ready" "$tmp/go" "$2" "$3" &
	client=$!
	i=0; while [ ! -e "$tmp/ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

# until_count N PATTERN FILE: wait (up to 10 s) until FILE has N lines
# matching PATTERN
until_count() {
	i=0
	while [ "$(grep -c "$2" "$3")" -lt "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}

listen_more_than_16_clients() {
	rm -f "$sock"
	"$T2" validate --quiet --listen "af_unix:$sock" --count 40 >"$tmp/many.out" 2>&1 &
	pid=$!
	watchdog $pid
	wait_sock
	held_clients 40 "$version" "{\"event\":\"exit\",$common,\"t_abs\":0.1,\"code\":\"x\"}"
	# all 40 connected at once: each one's version read (the second and
	# later of the one SID are reported)
	until_count 39 'a second version record' "$tmp/many.out"
	touch "$tmp/go"
	wait $client
	wait $pid
	rc=$?
	called_off
	[ $rc = 1 ] && ok || { bad "listen_more_than_16_clients: exit status $rc, want 1"; head -5 "$tmp/many.out" >&2; }
	n=1
	while [ $n -le 40 ]; do
		[ "$(grep -c "^af_unix:$sock#$n:2: error: \"code\" must be an integer" "$tmp/many.out")" = 1 ] ||
			break
		n=$((n + 1))
	done
	[ $n = 41 ] && ok || { bad "listen_more_than_16_clients: client #$n not reported as itself"
		head -5 "$tmp/many.out" >&2; }
}

# --- item 7: a collector client or a log that would take it all -------------------
# cpu_ticks PID: user + system clock ticks the process has used
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# At the fd limit accept() failed with EMFILE, the client stayed queued,
# and poll() woke at once for it again: the loop spun at full CPU.
listen_emfile_backoff() {
	rm -f "$sock"
	(ulimit -n 8; exec "$T2" validate --listen "af_unix:$sock" --count 10) \
		>"$tmp/emfile.out" 2>"$tmp/emfile.err" &
	pid=$!
	watchdog $pid
	wait_sock
	held_clients 10 "$version" "{\"event\":\"exit\",$common,\"t_abs\":0.1,\"code\":\"x\"}"
	until_count 1 'accepting paused' "$tmp/emfile.err"
	before=$(cpu_ticks $pid)
	sleep 1
	after=$(cpu_ticks $pid)
	touch "$tmp/go"
	wait $client
	wait $pid
	rc=$?
	called_off
	[ $((after - before)) -lt 20 ] && ok ||
		bad "listen_emfile_backoff: $((after - before)) ticks of CPU in 1 s at the fd limit"
	[ $rc = 1 ] && ok || bad "listen_emfile_backoff: exit status $rc, want 1"
	[ "$(grep -c ': error: "code" must be an integer' "$tmp/emfile.out")" = 10 ] && ok ||
		{ bad "listen_emfile_backoff: not every client served"; head -5 "$tmp/emfile.out" >&2; }
	[ "$(grep -c 'Too many open files; accepting paused while it lasts$' "$tmp/emfile.err")" = 1 ] &&
		ok || { bad "listen_emfile_backoff: not one warning"; cat "$tmp/emfile.err" >&2; }
}

# One client sending an endless line grew the validator's memory until it
# died, losing every other client's data: it is dropped at the 64 MiB line
# limit, alone.
listen_endless_line() {
	rm -f "$sock" "$tmp/connected"
	"$T2" validate --listen "$addr" --count 2 >"$tmp/endless.out" 2>"$tmp/endless.err" &
	pid=$!
	watchdog $pid
	if [ -n "$win" ]; then
		# a line of 65 MiB in one write, then the other client (no
		# endless writer: a Windows program's write is all or nothing)
		pipe_writer "$addr" 1 0 $((65 << 20)) 2>/dev/null
		printf '%s\n' "$version" "{\"event\":\"exit\",$common,\"t_abs\":0.1,\"code\":\"x\"}" >"$tmp/other.json"
		pipe_writer "$addr" "@$tmp/other.json"
		long_at=1
	else
		wait_sock
		perl -MIO::Socket::UNIX -e '
			$SIG{PIPE} = "IGN";
			my ($path, $ready, $first) = @ARGV;
			my $s = IO::Socket::UNIX->new(Peer => $path) or die "connect: $!";
			open(my $f, ">", $ready); close $f;
			my $mb = "x" x (1 << 20);
			my $sent = 0;
			print $s "$first\n{\"event\":\"";
			while ($sent < 300 && print $s $mb) { $sent++; }
			print "$sent\n";' "$sock" "$tmp/connected" "$version" >"$tmp/endless.sent" &
		endless=$!
		i=0; while [ ! -e "$tmp/connected" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		clients 1 "$version" "{\"event\":\"exit\",$common,\"t_abs\":0.1,\"code\":\"x\"}"
		wait $endless
		sent=$(cat "$tmp/endless.sent")
		[ "${sent:-300}" -lt 300 ] && ok || bad "listen_endless_line: the client sent ${sent:-?} MiB, not dropped"
		long_at=2
	fi
	wait $pid
	rc=$?
	called_off
	[ $rc = 1 ] && ok || bad "listen_endless_line: exit status $rc, want 1"
	grep -q "^$addr#1:$long_at: error: a line longer than 67108864 bytes (the line limit)\$" \
		"$tmp/endless.out" && ok || { bad "listen_endless_line: the line not reported"; cat "$tmp/endless.out" >&2; }
	grep -q "^trace2 validate: $addr#1: a line over the limit; client dropped\$" "$tmp/endless.err" && ok ||
		{ bad "listen_endless_line: no note of the drop"; cat "$tmp/endless.err" >&2; }
	grep -q "^$addr#2:2: error: \"code\" must be an integer" "$tmp/endless.out" && ok ||
		{ bad "listen_endless_line: the other client lost"; cat "$tmp/endless.out" >&2; }
}

# The same limit for a file: the line reported and skipped, the rest read.
file_line_over_64_mib() {
	log=$tmp/long.json
	{
		echo "$version"
		printf '{"event":"x",'
		head -c $((64 << 20)) /dev/zero | tr '\0' ' '
		echo '}'
		echo "$atexit"
	} >"$log"
	"$T2" convert --to perf "$log" >"$tmp/long.perf" 2>"$tmp/long.err"
	rc=$?
	[ $rc = 0 ] && ok || bad "file_line_over_64_mib: convert exited $rc"
	[ "$(cat "$tmp/long.err")" = "$log:2: a line longer than 67108864 bytes (the line limit); skipped" ] &&
		ok || { bad "file_line_over_64_mib: not reported once"; head -c 300 "$tmp/long.err" >&2; }
	grep -q ' atexit ' "$tmp/long.perf" && ok || bad "file_line_over_64_mib: the line after it lost"
	rm -f "$log"
}

# no_address_limit NAME: whether an address space limit means what it
# says here (not under a sanitizer, which reserves terabytes, nor under
# an emulator); says the skip if not
no_address_limit() {
	if [ -n "${T2_RUN:-}" ] || grep -q __asan_init "$T2" || grep -q __tsan_init "$T2"; then
		echo "$t2_test: SKIP: $1 (an address space limit under a sanitizer or emulator)"
		return 1
	fi
}

# minimal_processes N: a log of N processes, each a version and a start
minimal_processes() {
	perl -e 'for my $i (1 .. '"$1"') {
		my $c = sprintf(q("sid":"20261124T100000.000000Z-H0a7c9cdf-P%08x","thread":"main","time":"2026-11-24T10:00:00.000000Z"), $i);
		print qq({"event":"version",$c,"evt":"4","exe":"2.47.0"}\n);
		print qq({"event":"start",$c,"t_abs":0.000512,"argv":["git","status"]}\n);
	}'
}

# --- item 8: memory per process ------------------------------------------------
# Each process without atexit kept a 17 KB chrome target state (fixed
# tables of children and region slots): 200,000 processes took 3.4 GB.
# 20,000 minimal processes (version and start) must convert within a
# 64 MB address space (not for sanitizer builds, which reserve terabytes,
# nor under an emulator).
convert_many_processes_memory() {
	no_address_limit convert_many_processes_memory || return
	minimal_processes 20000 >"$tmp/many.json"
	(ulimit -v 65536; "$T2" convert --to chrome "$tmp/many.json") >"$tmp/many.trace" 2>"$tmp/many.err"
	rc=$?
	[ $rc = 0 ] && ok || { bad "convert_many_processes_memory: exit status $rc"; head -3 "$tmp/many.err" >&2; }
	[ "$(grep -c '"name":"process","cat":"process","ph":"X"' "$tmp/many.trace")" = 20000 ] && ok ||
		bad "convert_many_processes_memory: not every process closed"
}

# Out of memory, every subcommand stops with one message and one exit
# status (docs/tools.md, "Output"): neither 100,000 processes (what the
# reader keeps) nor 100,000 open regions of one process (what otlp and
# summary keep) fit in 32 MB.
out_of_memory() {
	no_address_limit out_of_memory || return
	minimal_processes 100000 >"$tmp/oom-procs.json"
	perl -e 'my $c = q("sid":"20261124T100000.000000Z-H0a7c9cdf-P00000001","thread":"main","time":"2026-11-24T10:00:00.000000Z");
		print qq({"event":"version",$c,"evt":"4","exe":"2.47.0"}\n);
		for my $i (1 .. 100000) {
			print qq({"event":"region_enter",$c,"t_abs":0.001,"nesting":1,"category":"c","label":"l$i","msg":"), "x" x 100, qq("}\n);
		}' >"$tmp/oom-regions.json"
	for run in "convert --to chrome:procs" "convert --to perf:procs" "validate:procs" \
		   "convert --to otlp:regions" "summary:regions"; do
		cmd=${run%:*}
		(ulimit -v 32768; exec "$T2" $cmd "$tmp/oom-${run#*:}.json") >/dev/null 2>"$tmp/oom.err"
		rc=$?
		[ $rc = 2 ] && [ "$(tail -1 "$tmp/oom.err")" = "trace2: out of memory" ] && ok ||
			bad "out_of_memory: $run: exit status $rc, $(tail -1 "$tmp/oom.err")"
	done
	rm -f "$tmp"/oom-*.json
}

# --- item 9: a last record cut by a full disk or a kill -----------------------------
# Every reader takes a last line without newline, cut mid-JSON or whole,
# with one warning and the exit status of the log without it; a cut line
# is skipped (the output is that of the lines before it), a whole one read.
cut_last_line() {
	exit_line="{\"event\":\"exit\",$common,\"t_abs\":0.1,\"code\":0}"
	printf '%s\n' "$version" "{\"event\":\"start\",$common,\"t_abs\":0.01,\"argv\":[\"x\"]}" \
		>"$tmp/clean.json"
	cp "$tmp/clean.json" "$tmp/cut.json"
	printf '%s' "$exit_line" | head -c 100 >>"$tmp/cut.json"
	cp "$tmp/clean.json" "$tmp/whole.json"
	printf '%s' "$exit_line" >>"$tmp/whole.json"
	{ cat "$tmp/clean.json"; echo "$exit_line"; } >"$tmp/whole_clean.json"
	for kind in cut whole; do
		# what to compare with: the lines before (cut) or all of them (whole)
		[ $kind = cut ] && ref=$tmp/clean.json || ref=$tmp/whole_clean.json
		for cmd in chrome perf normal otlp summary; do
			case $cmd in
			summary) set -- summary ;;
			*) set -- convert --to $cmd ;;
			esac
			"$T2" "$@" "$tmp/$kind.json" >"$tmp/$kind.$cmd.out" 2>"$tmp/$kind.$cmd.err"
			rc=$?
			"$T2" "$@" "$ref" >"$tmp/$kind.$cmd.ref" 2>/dev/null
			[ $rc = 0 ] && ok || bad "cut_last_line: $kind: $cmd exited $rc"
			[ "$(wc -l <"$tmp/$kind.$cmd.err")" = 1 ] &&
				grep -q "^$tmp/$kind.json:3: warning: last line, no newline (cut off?)" \
					"$tmp/$kind.$cmd.err" && ok ||
				{ bad "cut_last_line: $kind: $cmd did not warn once"; cat "$tmp/$kind.$cmd.err" >&2; }
			# summary names its input: compare from the same name
			if [ $cmd = summary ]; then
				sed -i "s|$ref|$tmp/$kind.json|" "$tmp/$kind.$cmd.ref"
			fi
			same "cut_last_line: $kind: $cmd output" "$tmp/$kind.$cmd.ref" "$tmp/$kind.$cmd.out"
		done
		"$T2" validate --strict --quiet "$tmp/$kind.json" >"$tmp/$kind.validate" 2>&1
		rc=$?
		[ $rc = 0 ] && ok || bad "cut_last_line: $kind: validate --strict exited $rc"
		[ "$(wc -l <"$tmp/$kind.validate")" = 1 ] &&
			grep -q "^$tmp/$kind.json:3: warning: .*last line without newline (cut off?)" \
				"$tmp/$kind.validate" && ok ||
			{ bad "cut_last_line: $kind: validate did not warn once"; cat "$tmp/$kind.validate" >&2; }
	done
	# a collector's client killed in the middle of a record
	rm -f "$sock"
	"$T2" validate --strict --quiet --listen "$addr" --count 1 >"$tmp/cut.listen" 2>&1 &
	pid=$!
	watchdog $pid
	if [ -n "$win" ]; then
		pipe_writer "$addr" "@$tmp/cut.json"
	else
		wait_sock
		perl -MIO::Socket::UNIX -e '
			my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!";
			open(my $f, "<", $ARGV[1]) or die; local $/; my $d = <$f>; print $s $d; close $s;' "$sock" "$tmp/cut.json"
	fi
	wait $pid
	rc=$?
	called_off
	[ $rc = 0 ] && ok || bad "cut_last_line: validate --listen --strict exited $rc"
	[ "$(wc -l <"$tmp/cut.listen")" = 1 ] &&
		grep -q "^$addr#1:3: warning: .*last line without newline (cut off?)" "$tmp/cut.listen" &&
		ok || { bad "cut_last_line: validate --listen did not warn once"; cat "$tmp/cut.listen" >&2; }
}

negative_child_id
if [ -n "$win" ]; then
	echo "$t2_test: SKIP: listen_more_than_16_clients (Unix socket clients held open at once; test_tool_windows.sh runs 40 writers on the named pipe's 32 instances)"
	echo "$t2_test: SKIP: listen_emfile_backoff (Linux's descriptor limit and /proc; a named pipe server calls no accept())"
else
	listen_more_than_16_clients
	listen_emfile_backoff
fi
listen_endless_line
file_line_over_64_mib
convert_many_processes_memory
out_of_memory
cut_last_line
finish
