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
. "$(dirname "$0")/tool_test_lib.sh"

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
	same "$name" "$tmp/git.err" "$tmp/lib.err"
}

as=
homevar=HOME=$home
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 && nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	nobody=" "
fi

# section headers
check header-eol fails '[trace2\n\tperfTarget = 1\n'
check header-eof fails '[trace2'
check header-space-eol fails '\n\n[a \n'
check header-crlf fails '[a\r\n'
check header-empty fails '[]\n'
check header-underscore fails '[a_b]\n'
check header-bracket-eof fails '['
check header-bracket-eol fails '[\n'
check header-space fails '[tra ce2\n'
check subsection-eol fails '[a "b\n"]\n'
check subsection-escaped-eol fails '\n\n[a "b\\\n"]\n'
check subsection-eof fails '[a "b'
check subsection-escape-eof fails '[a "b\\'
check subsection-no-bracket fails '\n\n[a "b" \n'
check subsection-no-bracket-eof fails '\n\n[a "b"'
check subsection-then-text fails '[a "b"x]\n'
check subsection-entry-after passes '[a "b"]x\n'
# keys
check key-digit fails '[trace2]\n\t1key = x\n'
check key-bang fails '[trace2]\n\tkey! = x\n'
check key-dash-first fails '[a]\n\t-k\n'
check key-underscore fails '[a]\n\tk-1_\n'
check key-nul fails '[a]\n\tk\0 = v\n'
check key-two-words fails '[a]\n\tk x\n'
check key-two-words-eof fails '[a]\n\tk x'
check key-comment fails '[a]\n\tk #c\n'
check key-semicolon-eof fails '[a]\n\tk ;c'
check key-continued fails '[a]\n\tk\\\n'
check key-continued-space fails '[a]\n\tk \\\n = v\n'
check key-before-section passes 'key = x\n'
check key-after-header passes '[a]x = 1\n'
check missing-key fails '[trace2]\n\tnormalBrief = 1\n\t=value\n'
check missing-key-crlf fails '[a]\n\tk\r\n\t=\r\n'
check missing-key-eof fails '[a]\n\tk = v\n\t=v'
check not-a-key fails '[a]\n\tk =\n\n1\n'
# values
check quote-eol fails '[trace2]\n\tperfTarget = "abc\n'
check quote-eol-more fails '[trace2]\n\tperfTarget = "abc\n\n\n'
check quote-eof fails '[trace2]\n\tperfTarget = "abc'
check quote-crlf fails '[a]\r\n\tk = "a\r\n\r\n'
check quote-continued fails '[a]\n\tk = "a\\\n\n'
check quote-continued-eof fails '[a]\n\tk = "a\\\nb'
check quote-backslash-eof fails '[a]\n\tk = "a\\'
check quote-on-header-line fails '[a] k = "x\\\n\n'
check quote-after-continuations fails '[a]\n\tk = a\\\n\\\n"\n'
check escape fails '[trace2]\n\tnormalTarget = a\\qb\n'
check escape-eof fails '[a]\n\tk = a\\q'
check escape-continued fails '[a]\n\tk = a\\\n\\\n\\q\n'
check continuation-eof passes '[a]\n\tk = a\\'
# byte order mark
check bom-eol fails '\357\n'
check bom-two-eol fails '\357\273\n'
check bom-text fails '\357\273x\n'
check bom-eof fails '\357'
check bom-then-bad fails '\357\273\277\n\n['
check bom-key passes '\357\273\277key\n'
# the system file
check system-header fails '[trace2\n' GIT_CONFIG_SYSTEM
check system-quote fails '[a]\n\tk = "x\n' GIT_CONFIG_SYSTEM

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
check include-home fails '[include]\n\tpath = ~\n'
check include-continued fails '[include]\n\tpath = s\\\nub ; c\n\n'
check include-unknown-user fails '[include]\n\tpath = ~nosuchuser-t2/x\n'
check include-loop fails '[include]\n\tpath = loop1\n'
check include-missing passes '[include]\n\tpath = missing\n\tpath = dangling\n\tpath = cfg/x\n'
check include-if-valueless passes '[includeIf "gitdir:/"]\n\tpath\n[include "x"]\n\tpath\n'
homevar=
check include-no-home fails '[include]\n\tpath = ~/x\n'
homevar=HOME=$home
# the file itself
cfg=$home/sub
check file-directory passes ''
cfg=$home/loop1
check file-loop fails ''
cfg=$home/cfg
# the command line is not read at start
extra="GIT_CONFIG_PARAMETERS='a GIT_CONFIG_COUNT=1"
check command-line-unread passes '[a]\n\tk = v\n'
extra=

if [ -n "$nobody" ]; then
	as=$nobody
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
