#!/bin/sh
# Paths and environment values that are not ASCII (docs/configuration.md,
# "Target values"): they are UTF-8, on Windows too, where the library
# gives them to the system as UTF-16.  Through the driver's 001return 0:
#   - a file target named with letters from outside ASCII and outside
#     the Basic Multilingual Plane;
#   - a directory target, with maxFiles (the directory is listed) and
#     its discard sentinel (looked up by name);
#   - the flight recorder's file target (looked up by name at start,
#     made at the first write), triggered by exit code 1;
#   - the global config file that names the target, in a directory
#     whose name is not ASCII;
#   - the command name's hierarchy read, exported to a child and read
#     back there.
# The same checks run on Linux and, with T2_CROSS=mingw64, on the
# Windows build under Wine (the environment given in UTF-8).
# usage: T2_BIN=build/bin tests/dst/test_utf8_paths.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

# Wine reads the environment and file names in the locale's encoding.
if ! locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
	echo "$t2_test: SKIP: no C.UTF-8 locale here"
	exit 0
fi
export LC_ALL=C.UTF-8
unset GIT_TRACE2_MAX_FILES GIT_TRACE2_FLIGHT GIT_TRACE2_DST_DEBUG GIT_CONFIG_GLOBAL \
	GIT_CONFIG_SYSTEM GIT_CONFIG_NOSYSTEM XDG_CONFIG_HOME GIT_TRACE2_DEFERRED
NAME='été-日本-🦊'

# words FILE: the event names of an event log, one line
words() {
	sed -n 's/^{"event":"\([a-z_]*\)".*/\1/p' "$1" | tr '\n' ' '
}

# wrote WHAT FILE: FILE holds an event log that starts with version and
# ends with atexit
wrote() {
	w=$(words "$2")
	case "$w" in
	"version start "*" atexit ") ok ;;
	*) bad "$1: '$2' holds '$w'" ;;
	esac
}

# run EXPECTED_CODE ARGS...: the driver, its stderr in $tmp/err, which
# must stay empty
run() {
	want=$1
	shift
	"$TOOL" trace2 "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] && ok || bad "trace2 $*: exit code $rc, want $want"
	[ -s "$tmp/err" ] && bad "trace2 $*: stderr: $(head -3 "$tmp/err")"
}

# A file target.
GIT_TRACE2_EVENT="$tmp/$NAME.event" run 0 001return 0
wrote file "$tmp/$NAME.event"

# A directory target: one file, named by the SID.
dir="$tmp/$NAME-dir"
mkdir "$dir"
GIT_TRACE2_EVENT="$dir" run 0 001return 0
set -- "$dir"/*
[ $# = 1 ] && [ -f "$1" ] && ok || bad "directory: $(ls "$dir")"
wrote directory "$1"

# maxFiles 4: with '.' and '..' the directory now has 3 entries, so this
# process writes its file, the next one finds the directory full and
# makes the sentinel and writes its records there, and the one after
# sees the sentinel and writes nothing.
for i in 1 2 3; do
	GIT_TRACE2_EVENT="$dir" GIT_TRACE2_MAX_FILES=4 run 0 001return 0
done
n=$(ls "$dir" | wc -l)
[ "$n" = 3 ] && ok || bad "maxFiles 4: $n files: $(ls "$dir")"
[ -f "$dir/git-trace2-discard" ] && ok || bad "maxFiles 4: no sentinel: $(ls "$dir")"
case "$(words "$dir/git-trace2-discard")" in
"version too_many_files start "*" atexit ") ok ;;
*) bad "sentinel holds '$(words "$dir/git-trace2-discard")'" ;;
esac

# The flight recorder: the file is looked up at start and made when the
# exit code 1 triggers the dump.
GIT_TRACE2_FLIGHT=64k GIT_TRACE2_EVENT="$tmp/$NAME.flight" run 0 001return 0
[ -e "$tmp/$NAME.flight" ] && bad "flight, exit 0: a file was made" || ok
GIT_TRACE2_FLIGHT=64k GIT_TRACE2_EVENT="$tmp/$NAME.flight" run 1 001return 1
wrote flight "$tmp/$NAME.flight"
grep -q '"key":"flight"' "$tmp/$NAME.flight" && ok || bad "flight: no trace2/flight record"

# The flight recorder into the directory: a file of its own there.
fdir="$tmp/$NAME-flight-dir"
mkdir "$fdir"
GIT_TRACE2_FLIGHT=64k GIT_TRACE2_EVENT="$fdir" run 1 001return 1
set -- "$fdir"/*
[ $# = 1 ] && [ -f "$1" ] && ok || bad "flight directory: $(ls "$fdir")"
wrote "flight directory" "$1"

# The global config file in a directory named so, naming the target:
# named by GIT_CONFIG_GLOBAL, and (not under Wine, which sets the home
# directory of its own) found in HOME.
home="$tmp/home-$NAME"
mkdir "$home"
printf '[trace2]\n\teventTarget = %s\n' "$tmp/$NAME.config-event" >"$home/.gitconfig"
GIT_CONFIG_GLOBAL="$home/.gitconfig" run 0 001return 0
wrote "GIT_CONFIG_GLOBAL" "$tmp/$NAME.config-event"
if [ "${T2_CROSS:-}" != mingw64 ]; then
	rm "$tmp/$NAME.config-event"
	HOME="$home" run 0 001return 0
	wrote "HOME" "$tmp/$NAME.config-event"
fi

# The command name's hierarchy comes from the environment, goes on to a
# child through it, and comes back whole in each cmd_name record.
GIT_TRACE2_PARENT_NAME="$NAME" GIT_TRACE2_EVENT="$tmp/$NAME.hier" \
	run 0 004child "$TOOL" trace2 001return 0
for h in "$NAME/trace2" "$NAME/trace2/trace2"; do
	grep -q "\"hierarchy\":\"$h\"" "$tmp/$NAME.hier" && ok ||
		bad "hierarchy $h: $(grep cmd_name "$tmp/$NAME.hier")"
done

finish
