#!/bin/sh
# Install what the cross builds and their tests need (make platform-deps):
# the cross compilers, musl-gcc, qemu-user and the foreign architectures'
# cmocka; for mingw64 (make check-windows) the mingw-w64 compiler, Wine,
# and cmake and dpkg-dev to build cmocka (tests/platforms/mingw-cmocka.sh).
# Quick when everything is already there; needs root otherwise.
# usage: tests/platforms/deps.sh [aarch64|s390x|i386|musl|mingw64]...
#   (default: the first four)
set -eu

# Print the Debian packages one platform needs that are not installed.
missing() {
	case $1 in
	aarch64) want="gcc-aarch64-linux-gnu libc6-dev-arm64-cross libcmocka-dev:arm64 libc6:arm64 qemu-user" ;;
	s390x) want="gcc-s390x-linux-gnu libc6-dev-s390x-cross libcmocka-dev:s390x libc6:s390x qemu-user" ;;
	i386) want="gcc-i686-linux-gnu libc6-dev-i386-cross libcmocka-dev:i386 libc6:i386" ;;
	musl) want="musl-tools linux-libc-dev" ;;
	mingw64) want="gcc-mingw-w64-x86-64-win32 wine64 cmake dpkg-dev lld" ;;
	*) echo "deps.sh: unknown platform '$1'" >&2; exit 2 ;;
	esac
	for p in $want; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			printf '%s\n' "$p"
	done
}

foreign_arch() {
	case $1 in aarch64) echo arm64 ;; s390x) echo s390x ;; i386) echo i386 ;; esac
}

[ $# -gt 0 ] || set -- aarch64 s390x i386 musl
need=
for plat in "$@"; do
	need="$need $(missing "$plat" | tr '\n' ' ')"
done
need=$(printf '%s\n' $need | sort -u | tr '\n' ' ')
[ -n "${need# }" ] || exit 0

echo "platform-deps: installing $need"
added=
for plat in "$@"; do
	a=$(foreign_arch "$plat")
	if [ -n "$a" ] && ! dpkg --print-foreign-architectures | grep -qx "$a"; then
		dpkg --add-architecture "$a"
		added=1
	fi
done
# A mirror half-synced for one index (seen for bookworm-security's i386)
# fails the update but leaves the others usable: try the install anyway.
[ -z "$added" ] && [ -n "$(find /var/lib/apt/lists -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ] ||
	apt-get update -qq || echo "platform-deps: apt-get update failed; trying the install anyway" >&2
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
