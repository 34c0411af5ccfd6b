#!/bin/sh
# The build itself, in a copy of the tree (symlinks, its own build/):
#  1. A compiler that is missing or cannot compile stops the build with a
#     message that says what to do, and leaves no feature header behind
#     (make CROSS=<platform> without its compiler: "run make platform-deps").
#  2. The feature header is probed again when the compiler or the flags
#     change, and only then.
#  3. make install with DESTDIR and PREFIX: the headers, the trace2 command,
#     libtrace2.a and the shared library with its full version behind the
#     links programs use (a program built on them runs and reports that
#     version); make uninstall leaves the tree as it was before.
# Runs once, with the host build: the cross and sanitizer flavours of
# make test skip it.
# usage: T2_BIN=build/bin tests/lib/test_build.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
if [ -n "${T2_CROSS:-}${T2_SAN:-}" ]; then
	echo "$t2_test: skipped: runs with the host build only"
	exit 0
fi
command -v make >/dev/null || { echo "$t2_test: skipped: no make"; exit 0; }
# A make of its own, whatever make runs this test with.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES CC CFLAGS CPPFLAGS SAN BUILD CROSS CROSS_CC \
	PLATFORM DESTDIR PREFIX
root=$(pwd)
tree=$tmp/tree
mkdir "$tree"
for f in "$root"/*; do
	[ "$(basename "$f")" = build ] || ln -s "$f" "$tree/"
done
mk() { make -C "$tree" --no-print-directory "$@"; }

# no_header WHAT HEADER: neither the header nor its temporary file exists
no_header() {
	if [ -e "$2" ] || [ -e "$2.tmp" ]; then bad "$1: left $(ls "$2"*)"; else ok; fi
}
# fails WHAT MESSAGE MAKE_ARGS...: make fails and says MESSAGE on stderr
fails() {
	what=$1 msg=$2
	shift 2
	if mk "$@" >"$tmp/out" 2>"$tmp/err"; then
		bad "$what: make succeeded"
	elif grep -qF "$msg" "$tmp/err"; then
		ok
	else
		bad "$what: no '$msg' in: $(cat "$tmp/err")"
	fi
}
# feature NAME HEADER: the header's value of TR2_HAVE_NAME
feature() {
	sed -n "s/^#define TR2_HAVE_$1 \([01]\)$/\1/p" "$2"
}
# probed WHAT 0|1 MAKE_ARGS...: make succeeds, and ran the probe (1) or not (0)
probed() {
	what=$1 want=$2
	shift 2
	if ! mk "$@" >"$tmp/out" 2>&1; then
		bad "$what: make failed: $(tail -5 "$tmp/out")"
		return
	fi
	got=$(grep -c 'tr2_features\.sh' "$tmp/out")
	[ "$got" = "$want" ] && ok || bad "$what: probe ran $got times, want $want"
}

# 1. Host: a missing compiler; one that runs but cannot compile.
hdr=$tree/build/gen/tr2_features.h
fails "missing CC" "check CC and CFLAGS" CC="$tmp/no-such-cc" build/gen/tr2_features.h
grep -qF "no-such-cc" "$tmp/err" && ok || bad "missing CC: compiler not named: $(cat "$tmp/err")"
no_header "missing CC" "$hdr"
fails "CC=false" "check CC and CFLAGS" CC=false build/gen/tr2_features.h
no_header "CC=false" "$hdr"

# make CROSS=aarch64 (the whole build) before its compiler is installed:
# nothing built, the fix said.
xhdr=$tree/build/aarch64/gen/tr2_features.h
fails "CROSS without its compiler" "run make platform-deps" CROSS=aarch64 CROSS_CC=no-such-aarch64-gcc
no_header "CROSS without its compiler" "$xhdr"
[ -z "$(find "$tree/build/aarch64" -name '*.o' 2>/dev/null)" ] && ok ||
	bad "CROSS without its compiler: objects built"
# A compiler that runs without its C library (the probes' headers).
fails "CROSS without its C library" "run make platform-deps" CROSS=aarch64 \
	CROSS_CC="cc -nostdinc" build/aarch64/gen/tr2_features.h
no_header "CROSS without its C library" "$xhdr"

# Then with the compiler installed: its features, not a header of zeros.
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	probed "CROSS=aarch64 installed" 1 CROSS=aarch64 build/aarch64/gen/tr2_features.h
	[ "$(feature PROC_STAT "$xhdr")$(feature FUTEX "$xhdr")$(feature PWRITEV2 "$xhdr")" = 111 ] && ok ||
		bad "CROSS=aarch64: $(grep define "$xhdr" | tr '\n' ' ')"
else
	echo "$t2_test: skipped the aarch64 compiler's header: no aarch64-linux-gnu-gcc"
fi

# 2. The host's header, made again only when the compiler or flags change.
probed "first build" 1 build/gen/tr2_features.h
if [ "$(uname -s)" = Linux ]; then
	[ "$(feature PROC_STAT "$hdr")" = 1 ] && ok || bad "host header: $(grep define "$hdr" | tr '\n' ' ')"
fi
probed "same flags" 0 build/gen/tr2_features.h
probed "CFLAGS changed" 1 CFLAGS="-O1" build/gen/tr2_features.h
probed "CFLAGS kept" 0 CFLAGS="-O1" build/gen/tr2_features.h
probed "CFLAGS back" 1 build/gen/tr2_features.h
# A compiler upgraded in place: same name, another version.
cat >"$tmp/cc" <<END
#!/bin/sh
[ "\$1" = --version ] && exec cat "$tmp/cc-version"
exec cc "\$@"
END
chmod +x "$tmp/cc"
echo "cc 1.0" >"$tmp/cc-version"
probed "another compiler" 1 CC="$tmp/cc" build/gen/tr2_features.h
probed "same compiler" 0 CC="$tmp/cc" build/gen/tr2_features.h
echo "cc 1.1" >"$tmp/cc-version"
probed "compiler upgraded" 1 CC="$tmp/cc" build/gen/tr2_features.h

# 3. Into a tree that has the usual directories and other software's files.
dest=$tmp/dest prefix=/opt/t2
lib=$dest$prefix/lib
mkdir -p "$dest$prefix/bin" "$dest$prefix/include" "$lib/pkgconfig"
echo other >"$dest$prefix/include/other.h"
echo other >"$lib/libother.so.1"
ln -s libother.so.1 "$lib/libother.so"
listing() { (cd "$dest" && find . -exec ls -ld {} + | awk '{ print $1, $NF }' | sort); }
listing >"$tmp/before"
if ! mk -j2 install DESTDIR="$dest" PREFIX="$prefix" >"$tmp/out" 2>&1; then
	bad "make install: $(tail -5 "$tmp/out")"
fi
version=$(sed -n 's/^#define TRACE2_VERSION_STRING "\(.*\)"$/\1/p' include/trace2.h)
major=${version%%.*}
for f in bin/trace2 include/trace2.h include/trace2/target.h lib/libtrace2.a lib/pkgconfig/trace2.pc; do
	[ -f "$dest$prefix/$f" ] && ok || bad "make install: no $f"
done
[ -f "$lib/libtrace2.so.$version" ] && [ ! -L "$lib/libtrace2.so.$version" ] && ok ||
	bad "make install: no file lib/libtrace2.so.$version"
[ "$(readlink "$lib/libtrace2.so.$major")" = "libtrace2.so.$version" ] && ok ||
	bad "lib/libtrace2.so.$major -> '$(readlink "$lib/libtrace2.so.$major")'"
[ "$(readlink "$lib/libtrace2.so")" = "libtrace2.so.$major" ] && ok ||
	bad "lib/libtrace2.so -> '$(readlink "$lib/libtrace2.so")'"
soname=$(readelf -d "$lib/libtrace2.so.$version" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libtrace2.so.$major" ] && ok || bad "soname '$soname'"
grep -qx "Version: $version" "$lib/pkgconfig/trace2.pc" && ok || bad "trace2.pc: $(grep Version "$lib/pkgconfig/trace2.pc")"
grep -qx "prefix=$prefix" "$lib/pkgconfig/trace2.pc" && ok || bad "trace2.pc: $(grep prefix= "$lib/pkgconfig/trace2.pc")"
# A program on the installed shared library: the loader finds it by its
# soname, and it is the version the file name says.
cat >"$tmp/ver.c" <<'END'
#include <stdio.h>
#include "trace2.h"
int main(void) { puts(trace2_version()); return 0; }
END
if cc -std=c11 -Wall -Wextra -Werror -I"$dest$prefix/include" "$tmp/ver.c" -L"$lib" -ltrace2 -lpthread \
	-o "$tmp/ver" 2>"$tmp/cc.err"; then
	got=$(LD_LIBRARY_PATH=$lib "$tmp/ver")
	[ "$got" = "$version" ] && ok || bad "installed library says '$got', want '$version'"
else
	bad "a program on the installed library does not build: $(cat "$tmp/cc.err")"
fi
if ! mk uninstall DESTDIR="$dest" PREFIX="$prefix" >"$tmp/out" 2>&1; then
	bad "make uninstall: $(tail -5 "$tmp/out")"
fi
listing >"$tmp/after"
same "make uninstall: the tree as before make install" "$tmp/before" "$tmp/after"
# Into an empty DESTDIR: no file and no link stays, nor include/trace2.
rm -rf "$dest"
mk install DESTDIR="$dest" PREFIX="$prefix" >"$tmp/out" 2>&1 && mk uninstall DESTDIR="$dest" \
	PREFIX="$prefix" >>"$tmp/out" 2>&1 || bad "make install, uninstall: $(tail -5 "$tmp/out")"
left=$(find "$dest" \( ! -type d -o -name trace2 \) -print)
[ -z "$left" ] && ok || bad "make uninstall left: $left"
finish
