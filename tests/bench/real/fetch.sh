#!/usr/bin/env bash
# fetch.sh -- get Debian's source of lua5.4 into $REAL_DIR/src and apply
# lua5.4-wrap.patch to it (again when the patch changes).
#
# usage: tests/bench/real/fetch.sh     (REAL_DIR: build/real)
#
# Uses `apt-get source`; adds a deb-src entry for the release the host
# installs from when there is none (as root only).  Exits 2 with a message
# when the source cannot be had (no apt-get, no deb-src and not root, the
# archive unreachable): the runner then skips.
set -u
REAL_DIR=${REAL_DIR:-build/real}
PKG=lua5.4
PATCH=$(cd "$(dirname "$0")" && pwd)/lua5.4-wrap.patch
DEBSRC=/etc/apt/sources.list.d/libtrace2-deb-src.sources

skip() { echo "bench-real: skipped: $*" >&2; exit 2; }

cmp -s "$PATCH" "$REAL_DIR/src/wrap.patch" && exit 0
command -v apt-get >/dev/null || skip "no apt-get"
command -v dpkg-source >/dev/null || skip "no dpkg-source (dpkg-dev)"

have_deb_src() {
	grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/
}

add_deb_src() {
	[ "$(id -u)" = 0 ] || skip "no deb-src entry in /etc/apt and not root to add one"
	. /etc/os-release
	[ -n "${VERSION_CODENAME:-}" ] || skip "no VERSION_CODENAME in /etc/os-release"
	printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$VERSION_CODENAME" >"$DEBSRC"
	# An unrelated index failing (a mirror syncing) fails the update as a
	# whole: apt-get source below says whether the sources came.
	apt-get update -qq >/dev/null 2>&1 || true
}

have_deb_src || add_deb_src
mkdir -p "$REAL_DIR/fetch"
# What was built from another source or patch goes too.
rm -rf "$REAL_DIR/fetch"/* "$REAL_DIR/src" "$REAL_DIR"/core "$REAL_DIR"/plain "$REAL_DIR"/trace2 "$REAL_DIR"/lttng
(cd "$REAL_DIR/fetch" && apt-get source -qq "$PKG" >log 2>&1) ||
	{ tail -3 "$REAL_DIR/fetch/log" >&2; skip "apt-get source $PKG failed"; }
dir=$(find "$REAL_DIR/fetch" -mindepth 1 -maxdepth 1 -type d -name "$PKG-*" | head -1)
[ -n "$dir" ] && [ -f "$dir/src/ldo.c" ] || skip "no $PKG-*/src/ldo.c in what apt-get source unpacked"
patch -s -d "$dir" -p1 <"$PATCH" || skip "$PATCH does not apply to $(basename "$dir")"
# What debian/rules generates before building (luaconf.h includes it).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' \
	"$multiarch" >"$dir/src/lua5.4-deb-multiarch.h"
cp "$PATCH" "$dir/wrap.patch"
mv "$dir" "$REAL_DIR/src"
echo "bench-real: $(basename "$dir") from apt-get source in $REAL_DIR/src" >&2
