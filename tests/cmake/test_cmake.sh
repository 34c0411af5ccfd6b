#!/bin/sh
# The CMake package (CMakeLists.txt; docs/embedding.md, "CMake"):
#  1. Built and installed into a prefix: the static library, the shared
#     one with the Makefile's version, soname and links, the headers make
#     install installs, trace2.pc and the package config; built from the
#     Makefile's LIB_SRC, with the same feature header as the make build.
#  2. A program on it (tests/cmake/consumer) each way: find_package with
#     trace2::trace2_static, and with trace2::trace2 (the shared library,
#     run from the prefix); find_package of the next major version fails;
#     add_subdirectory and FetchContent of this tree, which then install
#     nothing of libtrace2.  Each program prints the library's version
#     and its event trace (fd 2) has its region.
#  3. With x86_64-w64-mingw32-gcc: the same for Windows with
#     cmake/mingw-w64-x86_64.cmake, the programs run under Wine when
#     wine64 is there.
# Runs once, with the host build: the cross and sanitizer flavours of
# make test skip it.
# usage: T2_BIN=build/bin tests/cmake/test_cmake.sh
set -u
. "$(dirname "$0")/../tool_test_lib.sh"
skip=
[ -z "${T2_CROSS:-}${T2_SAN:-}" ] || skip="runs with the host build only"
command -v cmake >/dev/null || skip="no cmake"
if [ -n "$skip" ]; then
	echo "$t2_test: skipped: $skip"
	exit 0
fi
# Its own cmake and make, whatever make runs this test with.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES CC CFLAGS CPPFLAGS LDFLAGS SAN BUILD CROSS CROSS_CC PLATFORM \
	CMAKE_GENERATOR CMAKE_BUILD_TYPE CMAKE_PREFIX_PATH CMAKE_TOOLCHAIN_FILE
root=$(pwd)
builddir=$(cd "$BIN/.." && pwd)
consumer=$root/tests/cmake/consumer
version=$(sed -n 's/^#define TRACE2_VERSION_STRING "\(.*\)"$/\1/p' include/trace2.h)
major=${version%%.*}

# built WHAT SRC DIR CMAKE_ARGS...: SRC configured into DIR and built
# with 2 jobs; WHAT fails with the log's errors (or its end) otherwise
built() {
	what=$1 src=$2 dir=$3
	shift 3
	if cmake -S "$src" -B "$dir" "$@" >"$dir.log" 2>&1 && cmake --build "$dir" -j2 >>"$dir.log" 2>&1; then
		ok
		return 0
	fi
	errors=$(grep -m 5 'error' "$dir.log")
	bad "$what: build failed: ${errors:-$(tail -15 "$dir.log")}"
	return 1
}
# installed WHAT DIR: cmake --install DIR (its configured prefix)
installed() {
	cmake --install "$2" >"$2.install.log" 2>&1 && ok && return 0
	bad "$1: install failed: $(tail -5 "$2.install.log")"
	return 1
}
# traced WHAT COMMAND...: exits 0, prints the header's version, and its
# event trace on fd 2 has the consumer's region_enter and region_leave,
# and ends with atexit (a DLL's C runtime runs its atexit() list late)
traced() {
	what=$1
	shift
	if ! GIT_TRACE2_EVENT=2 "$@" >"$tmp/out" 2>"$tmp/ev"; then
		bad "$what: the program failed: $(head -5 "$tmp/ev")"
		return
	fi
	got=$(tr -d '\r' <"$tmp/out")
	[ "$got" = "$version" ] && ok || bad "$what: prints '$got', want '$version'"
	for ev in region_enter region_leave; do
		grep -q "^{\"event\":\"$ev\",.*,\"nesting\":1,\"category\":\"consumer\",\"label\":\"work\"}" \
			"$tmp/ev" && ok || bad "$what: no $ev of consumer/work in: $(head -5 "$tmp/ev")"
	done
	tail -1 "$tmp/ev" | grep -q '^{"event":"atexit",.*"code":0}' && ok ||
		bad "$what: the trace does not end with atexit: $(tail -2 "$tmp/ev")"
}
# links WHAT EXE yes|no: EXE needs the shared library (libtrace2.dll for
# a .exe, else libtrace2's soname) or not
links() {
	case $2 in
	*.exe) x86_64-w64-mingw32-objdump -p "$2" | grep -q "DLL Name: libtrace2\.dll$" ;;
	*) readelf -d "$2" | grep -q "(NEEDED).*\[libtrace2\.so\.$major\]" ;;
	esac && needs=yes || needs=no
	[ "$needs" = "$3" ] && ok || bad "$1: needs the shared library: $needs, want $3"
}
# only_program WHAT PREFIX EXE: PREFIX holds EXE under bin/ and nothing else
only_program() {
	left=$(cd "$2" && find . ! -type d ! -path "./bin/$3")
	[ -z "$left" ] && ok || bad "$1: installed besides the program: $left"
}

# 1. The library, installed: built as Release (-O3), warnings as errors.
prefix=$tmp/prefix
lib=$prefix/lib
if built "library" "$root" "$tmp/lib" -DCMAKE_INSTALL_PREFIX="$prefix" -DTRACE2_WERROR=ON \
	-DCMAKE_BUILD_TYPE=Release &&
	installed "library" "$tmp/lib"; then
	for f in trace2Config.cmake trace2ConfigVersion.cmake; do
		[ -f "$lib/cmake/trace2/$f" ] && ok || bad "install: no lib/cmake/trace2/$f"
	done
	# The names programs link with and load lead to the full version's file.
	for link in libtrace2.so libtrace2.so.$major; do
		[ -L "$lib/$link" ] && [ "$(readlink -f "$lib/$link")" = "$lib/libtrace2.so.$version" ] && ok ||
			bad "install: lib/$link is not a link to lib/libtrace2.so.$version"
	done
	soname=$(readelf -d "$lib/libtrace2.so.$version" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ "$soname" = "libtrace2.so.$major" ] && ok || bad "soname '$soname'"
	if command -v pkg-config >/dev/null; then
		got=$(PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --modversion trace2)/$(PKG_CONFIG_PATH=$lib/pkgconfig \
			pkg-config --cflags --libs trace2 | sed 's/ *$//')
		want="$version/-I$prefix/include -L$lib -ltrace2 -lpthread"
		[ "$got" = "$want" ] && ok || bad "pkg-config: '$got', want '$want'"
	else
		echo "$t2_test: skipped the pkg-config check: no pkg-config"
	fi
fi

# Both builds compile the same sources and install the same headers and
# libraries: make install's files (INSTALLED), but the trace2 command.
if command -v make >/dev/null; then
	make -s --no-print-directory print-LIB_SRC >"$tmp/make-sources"
	same "CMake's sources and make's LIB_SRC" "$tmp/make-sources" "$tmp/lib/trace2-sources.txt"
	make -s --no-print-directory print-INSTALLED | grep -v '^bin/' | sort >"$tmp/make-installed"
	(cd "$prefix" && find include lib ! -type d ! -path 'lib/cmake/*' | sort) >"$tmp/cmake-installed"
	same "CMake's installed files and make install's" "$tmp/make-installed" "$tmp/cmake-installed"
else
	echo "$t2_test: skipped comparing with the Makefile: no make"
fi
if [ -f "$builddir/gen/tr2_features.h" ]; then
	same "CMake's feature header and make's" "$builddir/gen/tr2_features.h" "$tmp/lib/gen/tr2_features.h"
else
	echo "$t2_test: skipped comparing the feature headers: no $builddir/gen/tr2_features.h"
fi

# 2. Programs on it.
if built "find_package, static" "$consumer" "$tmp/static" -DCMAKE_PREFIX_PATH="$prefix" \
	-DCONSUMER_VERSION="$version" -DCONSUMER_TARGET=trace2::trace2_static; then
	links "find_package, static" "$tmp/static/consumer" no
	traced "find_package, static" "$tmp/static/consumer"
fi
if built "find_package, shared" "$consumer" "$tmp/shared" -DCMAKE_PREFIX_PATH="$prefix"; then
	links "find_package, shared" "$tmp/shared/consumer" yes
	traced "find_package, shared" env LD_LIBRARY_PATH="$lib" "$tmp/shared/consumer"
fi
if cmake -S "$consumer" -B "$tmp/next" -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_VERSION=$((major + 1)) \
	>"$tmp/next.log" 2>&1; then
	bad "find_package(trace2 $((major + 1))) found version $version"
else
	grep -q "trace2Config.cmake, version: $version" "$tmp/next.log" && ok ||
		bad "find_package(trace2 $((major + 1))): $(tail -10 "$tmp/next.log")"
fi
for way in subdir fetch; do
	case $way in
	subdir) target=trace2::trace2 shared=yes ;;
	fetch) target=trace2::trace2_static shared=no ;;
	esac
	if built "$way" "$consumer" "$tmp/$way" -DCONSUMER_WAY=$way -DTRACE2_SOURCE="$root" \
		-DCONSUMER_TARGET="$target" -DCMAKE_INSTALL_PREFIX="$tmp/$way-prefix"; then
		links "$way" "$tmp/$way/consumer" "$shared"
		traced "$way" "$tmp/$way/consumer"
		installed "$way" "$tmp/$way" && only_program "$way" "$tmp/$way-prefix" consumer
	fi
done

# 3. Windows, cross-built; run under Wine in a prefix of its own in the
# build directory (made on first use, which takes some seconds; bounded
# by 2 minutes a run).
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	echo "$t2_test: skipped Windows: no x86_64-w64-mingw32-gcc (gcc-mingw-w64-x86-64)"
	finish
	exit
fi
toolchain=$root/cmake/mingw-w64-x86_64.cmake
wprefix=$tmp/wprefix
# Unoptimized, to keep the test quick (the host build above has -O3).
if built "mingw library" "$root" "$tmp/wlib" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
	-DCMAKE_INSTALL_PREFIX="$wprefix" -DCMAKE_BUILD_TYPE=Debug -DTRACE2_WERROR=ON &&
	installed "mingw library" "$tmp/wlib"; then
	for f in lib/libtrace2.a lib/libtrace2.dll.a bin/libtrace2.dll; do
		[ -f "$wprefix/$f" ] && ok || bad "mingw install: no $f"
	done
	# the DLL exports the public interface and nothing else, as make's
	(cd "$root" && tests/check-exports.sh "$wprefix/bin/libtrace2.dll") >"$tmp/exports" 2>&1 &&
		ok || bad "mingw DLL exports: $(tail -3 "$tmp/exports")"
	wine=
	if [ -x /usr/lib/wine/wine64 ]; then
		wine=/usr/lib/wine/wine64
	else
		echo "$t2_test: skipped running the Windows programs: no /usr/lib/wine/wine64 (wine64)"
	fi
	for way in static shared; do
		case $way in
		static) target=trace2::trace2_static shared=no ;;
		shared) target=trace2::trace2 shared=yes ;;
		esac
		dir=$tmp/w-$way
		built "mingw find_package, $way" "$consumer" "$dir" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
			-DCMAKE_FIND_ROOT_PATH="$wprefix" -DCONSUMER_TARGET="$target" || continue
		links "mingw find_package, $way" "$dir/consumer.exe" "$shared"
		# Where Windows looks for a program's DLLs first: beside it.
		cp "$wprefix/bin/libtrace2.dll" "$dir/"
		[ -z "$wine" ] || traced "mingw find_package, $way, under Wine" \
			env WINEPREFIX="$builddir/wine-cmake" WINEDEBUG=-all timeout 120 "$wine" "$dir/consumer.exe"
	done
fi
finish
