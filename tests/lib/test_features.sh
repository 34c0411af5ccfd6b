#!/bin/sh
# The platform seam's feature probe (src/tr2_features.sh): --none turns
# every feature off; the answers follow the compiler, not the machine it
# runs on (cross compilers, only compiled: a foreign snippet never runs);
# the header of this build is what the probe says for it.
# usage: T2_BIN=build/bin [T2_CC=cc] tests/lib/test_features.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
CC=${T2_CC:-cc}
FLAGS="-D_GNU_SOURCE -std=c11 -Wall -Wextra -Werror"
ALL="LINUX_SYSCALLS PWRITEV2 FUTEX PROC_STAT DL_ITERATE_PHDR TSC_CLOCK PTHREAD_SETNAME_NP DUP3 SOCK_CLOEXEC MSG_NOSIGNAL POSIX_SPAWN"

# answers CC [FLAGS...]: "NAME=0|1 ..." in the header's order
answers() {
	src/tr2_features.sh "$@" | sed -n 's/^#define TR2_HAVE_\([A-Z0-9_]*\) \([01]\)$/\1=\2/p' | tr '\n' ' '
}
# expect WHAT WANT CC [FLAGS...]
expect() {
	what=$1 want=$2
	shift 2
	got=$(answers "$@")
	[ "$got" = "$want" ] && ok || bad "$what: '$got', want '$want'"
}
# every NAME=v for the names of $ALL, v 1 but for the names in $1 (0)
want_all_but() {
	for n in $ALL; do
		case " $1 " in *" $n "*) printf '%s=0 ' "$n" ;; *) printf '%s=1 ' "$n" ;; esac
	done
}

# shellcheck disable=SC2086 # lists of flags
expect "--none" "$(for n in $ALL; do printf '%s=0 ' "$n"; done)" --none $CC $FLAGS

# This build's header says what the probe says for its compiler, unless
# it is the POSIX build (every feature off).
hdr=$(cd "$BIN/.." && pwd)/gen/tr2_features.h
if [ -f "$hdr" ]; then
	got=$(sed -n 's/^#define TR2_HAVE_\([A-Z0-9_]*\) \([01]\)$/\1=\2/p' "$hdr" | tr '\n' ' ')
	none=$(for n in $ALL; do printf '%s=0 ' "$n"; done)
	# shellcheck disable=SC2086
	[ "$got" = "$none" ] || [ "$got" = "$(answers $CC $FLAGS ${T2_SAN:-})" ] && ok ||
		bad "$hdr: '$got'"
else
	bad "no $hdr"
fi

# Cross compilers: what each target has, whatever this machine has.
cross() {
	if ! command -v "$2" >/dev/null 2>&1; then
		echo "$t2_test: skipped $1: no $2"
		return
	fi
	shift
	cc=$1 want=$2
	shift 2
	# shellcheck disable=SC2086
	expect "$cc $*" "$want" "$cc" $FLAGS "$@"
}
cross aarch64 aarch64-linux-gnu-gcc "$(want_all_but TSC_CLOCK)"
cross s390x s390x-linux-gnu-gcc "$(want_all_but TSC_CLOCK)"
cross i386 i686-linux-gnu-gcc "$(want_all_but TSC_CLOCK)"
# a 64-bit time_t on i386: no raw calls that take the kernel's old timespec
cross i386-time64 i686-linux-gnu-gcc "$(want_all_but "LINUX_SYSCALLS FUTEX TSC_CLOCK")" \
	-D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
cross musl musl-gcc "$(want_all_but "")"
finish
