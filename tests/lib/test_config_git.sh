#!/bin/sh
# Every message the library prints about a config file, compared with the
# installed git's: each case runs `git version` and the test driver on the
# same file (as GIT_CONFIG_GLOBAL or GIT_CONFIG_SYSTEM) and the same
# environment; their stderr must be the same bytes and their exit codes
# the same.  Each case also says whether git fails on it, so a git that
# did not read the file fails the test instead of agreeing by silence.
#
# Not compared here (git 2.39 differs from current Git; test_config.c
# holds current Git's text): a valueless trace2.* key (2.39 crashes) and
# an invalid GIT_CONFIG_NOSYSTEM (2.39 says "bad boolean config value").
set -u
. "$(dirname "$0")/../tool_test_lib.sh"

if ! command -v git >/dev/null 2>&1; then
	echo "$t2_test: skipped: no git installed"
	exit 0
fi

home=$tmp/home
mkdir "$home" "$home/sub" "$home/chain"
chmod 755 "$tmp" "$home"
cfg=$home/cfg

# run_both VAR: git and the driver with $cfg as config file VAR, the
# other file empty, HOME ($homevar) and the case's extra environment ($extra); their
# stderr into $tmp/git.err and $tmp/lib.err, exit codes into $gs and $ls
run_both() {
	if [ "$1" = GIT_CONFIG_GLOBAL ]; then
		files="GIT_CONFIG_GLOBAL=$cfg GIT_CONFIG_NOSYSTEM=1"
	else
		files="GIT_CONFIG_SYSTEM=$cfg GIT_CONFIG_GLOBAL=/dev/null"
	fi
	# shellcheck disable=SC2086 # the lists are words
	(cd "$tmp" && $as env -i PATH="$PATH" $homevar $files ${extra:-} \
		git version >/dev/null 2>"$tmp/git.err")
	gs=$?
	# shellcheck disable=SC2086
	(cd "$tmp" && $as env -i PATH="$PATH" $homevar $files ${extra:-} \
		"$TOOL" trace2 001return 0 >/dev/null 2>"$tmp/lib.err")
	ls=$?
}

# check NAME fails|passes TEXT [VAR]: TEXT (printf format; empty: $cfg
# as it is) as the file; git must fail (exit 128) or pass on it, the
# driver must say the same
check() {
	name=$1 want=$2
	# shellcheck disable=SC2059 # the case text is a format
	[ -z "$3" ] || printf "$3" >"$cfg"
	run_both "${4:-GIT_CONFIG_GLOBAL}"
	case $want in
	fails) [ "$gs" -eq 128 ] && [ -s "$tmp/git.err" ] ;;
	*) [ "$gs" -eq 0 ] ;;
	esac || { bad "$name: git exits $gs ($(head -1 "$tmp/git.err")), not as the case says"; return; }
	if [ "$gs" -ne "$ls" ]; then
		bad "$name: exit $ls, git's is $gs"
	fi
	[ -z "${git_home_as:-}" ] || sed -i "s|'$home'|'$git_home_as'|" "$tmp/git.err"
	[ -z "${git_loop_as:-}" ] || sed -i "s|: Too many levels of symbolic links\$|: $git_loop_as|" "$tmp/git.err"
	same "$name" "$tmp/git.err" "$tmp/lib.err"
}

# windows_skips NAME WHY: true, saying so, when NAME is skipped because
# the Windows build (run under Wine) cannot be given what it needs
windows_skips() {
	[ "${T2_CROSS:-}" = mingw64 ] || return 1
	echo "$t2_test: SKIP: $1 on Windows: $2"
}

as=
homevar=HOME=$home
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 && nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	nobody=" "
fi

# The syntax cases, one a line: NAME fails|passes global|system TEXT
while read -r name want scope text; do
	case $name in '#'*) continue ;; esac
	if [ "$scope" = system ]; then
		check "$name" "$want" "$text" GIT_CONFIG_SYSTEM
	else
		check "$name" "$want" "$text"
	fi
done <<'CASES'
# section headers
header-eol fails global [trace2\n\tperfTarget = 1\n
header-eof fails global [trace2
header-space-eol fails global \n\n[a \n
header-crlf fails global [a\r\n
header-empty fails global []\n
header-underscore fails global [a_b]\n
header-bracket-eof fails global [
header-bracket-eol fails global [\n
header-space fails global [tra ce2\n
subsection-eol fails global [a "b\n"]\n
subsection-escaped-eol fails global \n\n[a "b\\\n"]\n
subsection-eof fails global [a "b
subsection-escape-eof fails global [a "b\\
subsection-no-bracket fails global \n\n[a "b" \n
subsection-no-bracket-eof fails global \n\n[a "b"
subsection-then-text fails global [a "b"x]\n
subsection-entry-after passes global [a "b"]x\n
# keys
key-digit fails global [trace2]\n\t1key = x\n
key-bang fails global [trace2]\n\tkey! = x\n
key-dash-first fails global [a]\n\t-k\n
key-underscore fails global [a]\n\tk-1_\n
key-nul fails global [a]\n\tk\0 = v\n
key-two-words fails global [a]\n\tk x\n
key-two-words-eof fails global [a]\n\tk x
key-comment fails global [a]\n\tk #c\n
key-semicolon-eof fails global [a]\n\tk ;c
key-continued fails global [a]\n\tk\\\n
key-continued-space fails global [a]\n\tk \\\n = v\n
key-before-section passes global key = x\n
key-after-header passes global [a]x = 1\n
missing-key fails global [trace2]\n\tnormalBrief = 1\n\t=value\n
missing-key-crlf fails global [a]\n\tk\r\n\t=\r\n
missing-key-eof fails global [a]\n\tk = v\n\t=v
not-a-key fails global [a]\n\tk =\n\n1\n
# values
quote-eol fails global [trace2]\n\tperfTarget = "abc\n
quote-eol-more fails global [trace2]\n\tperfTarget = "abc\n\n\n
quote-eof fails global [trace2]\n\tperfTarget = "abc
quote-crlf fails global [a]\r\n\tk = "a\r\n\r\n
quote-continued fails global [a]\n\tk = "a\\\n\n
quote-continued-eof fails global [a]\n\tk = "a\\\nb
quote-backslash-eof fails global [a]\n\tk = "a\\
quote-on-header-line fails global [a] k = "x\\\n\n
quote-after-continuations fails global [a]\n\tk = a\\\n\\\n"\n
escape fails global [trace2]\n\tnormalTarget = a\\qb\n
escape-eof fails global [a]\n\tk = a\\q
escape-continued fails global [a]\n\tk = a\\\n\\\n\\q\n
continuation-eof passes global [a]\n\tk = a\\
# byte order mark
bom-eol fails global \357\n
bom-two-eol fails global \357\273\n
bom-text fails global \357\273x\n
bom-eof fails global \357
bom-then-bad fails global \357\273\277\n\n[
bom-key passes global \357\273\277key\n
# the system file
system-header fails system [trace2\n
system-quote fails system [a]\n\tk = "x\n
CASES
# includes
printf '[include]\n\tpath = ../cfg\n' >"$home/sub/back"
i=0
while [ $i -le 11 ]; do
	printf '[include]\n\tpath = f%d\n' $((i + 1)) >"$home/chain/f$i"
	i=$((i + 1))
done
ln -s loop1 "$home/loop2"
ln -s loop2 "$home/loop1"
ln -s missing "$home/dangling"
check include-self fails '[include]\n\tpath = cfg\n'
check include-circular fails '[include]\n\tpath = sub/back\n'
check include-too-deep fails '[include]\n\tpath = chain/f0\n'
check include-valueless fails '[include]\n\tpath\n'
check include-valueless-eof fails '[INCLUDE]\n\tPATH'
check include-directory fails '[include]\n\tpath = sub\n'
check include-empty fails '[include]\n\tpath =\n'
# A Windows program under Wine does not see HOME (Wine keeps it as
# WINEHOMEDIR): its home is USERPROFILE, C:\users\<user> in the Wine
# prefix (docs/configuration.md "On Windows"), in git's message there.
if [ "${T2_CROSS:-}" = mingw64 ]; then
	git_home_as=$(${T2_RUN:-} cmd /c 'echo %USERPROFILE%' | tr -d '\r' | sed 's/[\\&|]/\\&/g')
fi
check include-home fails '[include]\n\tpath = ~\n'
git_home_as=
check include-continued fails '[include]\n\tpath = s\\\nub ; c\n\n'
check include-unknown-user fails '[include]\n\tpath = ~nosuchuser-t2/x\n'
# A loop of symbolic links is ELOOP on Windows too (Win32 error 1921),
# which the C runtime there names "Unknown error".
[ "${T2_CROSS:-}" = mingw64 ] && git_loop_as="Unknown error"
check include-loop fails '[include]\n\tpath = loop1\n'
check include-missing passes '[include]\n\tpath = missing\n\tpath = dangling\n\tpath = cfg/x\n'
check include-if-valueless passes '[includeIf "gitdir:/"]\n\tpath\n[include "x"]\n\tpath\n'
homevar=
windows_skips include-no-home "Wine always gives a Windows program a home (USERPROFILE)" ||
	check include-no-home fails '[include]\n\tpath = ~/x\n'
homevar=HOME=$home
# the file itself
cfg=$home/sub
check file-directory passes ''
check system-directory passes '' GIT_CONFIG_SYSTEM
cfg=$home/loop1
check file-loop fails ''
cfg=$home/cfg
# the command line is not read at start
extra="GIT_CONFIG_PARAMETERS='a GIT_CONFIG_COUNT=1"
check command-line-unread passes '[a]\n\tk = v\n'
extra=

if [ "${T2_CROSS:-}" = mingw64 ]; then
	windows_skips "the unreadable-file cases" "no POSIX modes, and Wine runs as its prefix's owner only"
elif [ -n "$nobody" ]; then
	as=$nobody
	# the build may sit where that user cannot reach it (a 0700 checkout)
	if ! $as test -x "$TOOL"; then
		mkdir "$tmp/bin" && cp "$TOOL" "$tmp/bin/" && chmod 755 "$tmp/bin" &&
			TOOL=$tmp/bin/$(basename "$TOOL")
	fi
	printf '[a]\n\tk = 1\n' >"$home/secret"
	chmod 000 "$home/secret"
	cfg=$home/secret
	check file-unreadable passes ''
	cfg=$home/cfg
	check include-unreadable fails '[include]\n\tpath = secret\n'
	as=
else
	echo "$t2_test: skipped the unreadable-file cases: root without setpriv"
fi
finish
