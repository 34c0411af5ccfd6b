#!/bin/sh
# The shared library exports exactly the functions and data declared in
# include/trace2.h and include/trace2/*.h (src/tr2_exports.sh): nothing
# internal leaks, nothing public is hidden, and every name starts with
# trace2_ (Git's jw_* names are macros of the header's compatibility
# layer).  An ELF library (nm -D) or a Windows DLL (its export table).
# usage: tests/check-exports.sh build/libtrace2.so|build/mingw64/libtrace2.dll
set -eu
lib=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src/tr2_exports.sh >"$tmp/declared"
case $lib in
*.dll)
	# objdump -p's export name table: "[ordinal] name" lines.
	x86_64-w64-mingw32-objdump -p "$lib" |
		sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/s/^\t\[ *[0-9]*\] \(.*\)/\1/p' ;;
*) nm -D --defined-only "$lib" | awk '{print $3}' ;;
esac | sort -u >"$tmp/exported"
if grep -v '^trace2_' "$tmp/exported"; then
	echo "check-exports: FAILED (exported without the trace2_ prefix, above)"
	exit 1
fi
if ! diff -u "$tmp/declared" "$tmp/exported"; then
	echo "check-exports: FAILED (- declared only, + exported only)"
	exit 1
fi
echo "check-exports: $(wc -l <"$tmp/declared") symbols: 1 passed, 0 failed"
