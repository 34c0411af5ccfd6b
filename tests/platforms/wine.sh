#!/bin/sh
# Run a Windows program under Wine with its arguments, its exit code
# passed through: Wine's own messages off, the Wine prefix $WINEPREFIX
# (tests/platforms/mingw64.mk: build/mingw64/wine) made at the first
# start, once even when tests start at the same time.  Absolute paths
# only: tests run programs with PATH emptied.
# usage: WINEPREFIX=DIR tests/platforms/wine.sh PROGRAM.exe [ARG]...
wine=/usr/lib/wine/wine64
[ -x $wine ] || { echo "wine.sh: no $wine: run make platform-deps (wine64)" >&2; exit 127; }
[ -n "${WINEPREFIX:-}" ] || { echo "wine.sh: WINEPREFIX not set" >&2; exit 127; }
export WINEPREFIX WINEDEBUG=-all
if [ ! -f "$WINEPREFIX/system.reg" ]; then
	/usr/bin/mkdir -p "$WINEPREFIX"
	/usr/bin/flock "$WINEPREFIX" /bin/sh -c \
		'[ -f "$WINEPREFIX/system.reg" ] || '$wine' wineboot --init >/dev/null 2>&1'
fi
# One Wine server for a whole test run, kept 30 s after its last
# program, rather than one started and stopped around each of the
# hundreds of programs a run starts; a second start while one runs does
# nothing.
/usr/lib/wine/wineserver -p30 >/dev/null 2>&1
exec $wine "$@"
