#!/bin/sh
# What the tests link with on Windows and Debian ships no mingw build of:
# cmocka, and a POSIX regex library (TRE: t2test's scrubbing and the
# tests' patterns), each built from Debian's source (apt-get source, from
# the deb-src entry of the Debian mirror) as a static library with the
# mingw cross compiler, with C99's printf (__USE_MINGW_ANSI_STDIO, as the
# tests are built).  Into DIR: cmocka.h, regex.h (TRE's, with tre.h
# and tre-config.h), libcmocka.a and libtre.a, as tests/platforms/mingw64.mk
# wants them.  Quick when DIR has them; installs cmake and dpkg-dev if missing.
# usage: tests/platforms/mingw-testlibs.sh DIR CC
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DIR CC" >&2; exit 2; }
dir=$1 cc=$2
[ -f "$dir/libcmocka.a" ] && [ -f "$dir/libtre.a" ] && exit 0
command -v "$cc" >/dev/null || { echo "mingw-testlibs: no $cc: run make platform-deps mingw64" >&2; exit 1; }
command -v cmake >/dev/null && command -v dpkg-source >/dev/null || tests/platforms/deps.sh mingw64
# apt-get source needs a deb-src entry: one for the mirror and suites of
# the deb entries (deb822 .sources or one-line sources.list), added once.
if ! grep -rqs '^\(deb-src\|Types:.*deb-src\)' /etc/apt/sources.list /etc/apt/sources.list.d; then
	echo "mingw-testlibs: adding deb-src entries for the Debian mirror"
	[ -f /etc/apt/sources.list ] &&
		sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >/etc/apt/sources.list.d/t2-deb-src.list
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" >"${f%.sources}-src.sources"
	done
	apt-get update -qq
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/build.log

# fetch PACKAGE: Debian's source of PACKAGE unpacked; prints its directory.
fetch() {
	mkdir "$work/$1"
	(cd "$work/$1" && apt-get source -qq "$1" >>"$log" 2>&1) || {
		echo "mingw-testlibs: apt-get source $1 failed (no deb-src entry or mirror?)" >&2
		exit 1
	}
	find "$work/$1" -mindepth 1 -maxdepth 1 -type d -name "$1-*" | head -1
}

failed() {
	tail -20 "$log" >&2
	echo "mingw-testlibs: building $1 with $cc failed" >&2
	exit 1
}

src=$(fetch cmocka)
cat >"$work/toolchain.cmake" <<TC
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER $cc)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
TC
cmake -S "$src" -B "$work/cmocka-build" -DCMAKE_TOOLCHAIN_FILE="$work/toolchain.cmake" \
	-DCMAKE_C_FLAGS=-D__USE_MINGW_ANSI_STDIO=1 -DCMAKE_BUILD_TYPE=Release -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
	>>"$log" 2>&1 && cmake --build "$work/cmocka-build" --target cmocka-static >>"$log" 2>&1 ||
	failed cmocka
mkdir -p "$dir"
cp "$src/include/cmocka.h" "$dir/cmocka.h"
cp "$(find "$work/cmocka-build" -name 'libcmocka*.a' ! -name '*.dll.a' | head -1)" "$dir/libcmocka.a"

# TRE: byte strings only (the tests match ASCII and UTF-8 bytes).
src=$(fetch tre)
mkdir "$work/tre-build"
(cd "$work/tre-build" && "$src/configure" --host="${cc%-gcc*}" CC="$cc" --enable-static \
	--disable-shared --disable-agrep --disable-approx --disable-nls --disable-multibyte \
	--disable-wchar && make -C lib) >>"$log" 2>&1 || failed TRE
cp "$src/lib/regex.h" "$src/lib/tre.h" "$work/tre-build/lib/tre-config.h" "$dir/"
cp "$work/tre-build/lib/.libs/libtre.a" "$dir/libtre.a"
echo "mingw-testlibs: cmocka and TRE built with $cc into $dir"
