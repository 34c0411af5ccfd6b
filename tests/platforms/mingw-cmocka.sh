#!/bin/sh
# Debian ships no cmocka for mingw-w64: build Debian's cmocka source
# (apt-get source, from the deb-src entry of the Debian mirror) as a
# static library with the mingw cross compiler, into DIR (cmocka.h and
# libcmocka.a side by side, as tests/platforms/cross.mk wants them).
# Quick when DIR already has both; installs cmake and dpkg-dev if missing.
# usage: tests/platforms/mingw-cmocka.sh DIR CC
set -eu
[ $# -eq 2 ] || { echo "usage: $0 DIR CC" >&2; exit 2; }
dir=$1 cc=$2
[ -f "$dir/cmocka.h" ] && [ -f "$dir/libcmocka.a" ] && exit 0
command -v "$cc" >/dev/null || { echo "mingw-cmocka: no $cc (apt-get install gcc-mingw-w64-x86-64)" >&2; exit 1; }
for tool in cmake dpkg-source; do
	command -v $tool >/dev/null && continue
	echo "mingw-cmocka: installing cmake and dpkg-dev"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cmake dpkg-dev
	break
done
# apt-get source needs a deb-src entry: add one for the same mirror and
# suites as the deb entries (deb822 or one-line), once.
if ! grep -rqs '^\(deb-src\|Types:.*deb-src\)' /etc/apt/sources.list /etc/apt/sources.list.d; then
	echo "mingw-cmocka: adding a deb-src entry (/etc/apt/sources.list.d/t2-deb-src.list)"
	sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list >/etc/apt/sources.list.d/t2-deb-src.list
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && sed 's/^Types: deb$/Types: deb-src/' "$f" >"${f%.sources}-src.sources"
	done
	apt-get update -qq
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source -qq cmocka >/dev/null 2>&1) || {
	echo "mingw-cmocka: apt-get source cmocka failed (no deb-src entry or mirror?)" >&2
	exit 1
}
src=$(find "$work" -maxdepth 1 -type d -name 'cmocka-*' | head -1)
[ -n "$src" ] || { echo "mingw-cmocka: apt-get source left no cmocka-* directory" >&2; exit 1; }
cat >"$work/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER $cc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
EOF
cmake -S "$src" -B "$work/build" -DCMAKE_TOOLCHAIN_FILE="$work/toolchain.cmake" \
	-DCMAKE_BUILD_TYPE=Release -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
	>"$work/cmake.log" 2>&1 &&
	cmake --build "$work/build" --target cmocka-static >>"$work/cmake.log" 2>&1 || {
	tail -20 "$work/cmake.log" >&2
	echo "mingw-cmocka: building cmocka with $cc failed" >&2
	exit 1
}
lib=$(find "$work/build" -name 'libcmocka*.a' ! -name '*.dll.a' | head -1)
[ -n "$lib" ] || { echo "mingw-cmocka: no static library built" >&2; exit 1; }
mkdir -p "$dir"
cp "$src/include/cmocka.h" "$dir/cmocka.h"
cp "$lib" "$dir/libcmocka.a"
echo "mingw-cmocka: $(basename "$src") built with $cc into $dir"
