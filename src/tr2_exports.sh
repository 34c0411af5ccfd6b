#!/bin/sh
# The library's exported interface: the functions and data declared in
# include/trace2.h and include/trace2/*.h (the names the ELF build's
# visibility pragmas there make default), one per line, sorted.  The
# Windows DLL's export table (--def: a module-definition file, data
# marked DATA) and tests/check-exports.sh both come from this list.
# usage: src/tr2_exports.sh [--def]   (from the top directory)
set -eu
# "name(" at a declaration start is a function, "TRACE2_DATA ... name;"
# (or "extern ... name;") data;
# the *_gated helpers are static inline (trace2_cmd_exit's).
declared() {
	sed -n '/^typedef/d; /^static/d
		s/^[a-z][a-z_ *0-9]*[ *]\(trace2_[a-z0-9_]*\)(.*/\1/p
		s/^\(extern\|TRACE2_DATA\) [^(]* \*\{0,1\}\(trace2_[a-z_]*\)\(\[\]\)\{0,1\};/\2 DATA/p' \
		include/trace2.h include/trace2/*.h | grep -v '_gated' | sort -u
}
if [ "${1:-}" = --def ]; then
	echo "EXPORTS"
	declared
else
	declared | cut -d' ' -f1
fi
