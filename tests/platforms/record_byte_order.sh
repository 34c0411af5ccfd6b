#!/bin/sh
# A recording reads the same on either byte order (docs/record-format.md:
# fixed little-endian fields): one made by the host's build and one made
# by a big-endian build (s390x, under qemu-user), each converted by both
# builds' trace2 command, give the same text byte for byte.
# usage: tests/platforms/record_byte_order.sh HOST_BIN_DIR FOREIGN_BIN_DIR
#   e.g. tests/platforms/record_byte_order.sh build/bin build/s390x/qbin
set -u
[ $# -eq 2 ] || { echo "usage: $0 HOST_BIN_DIR FOREIGN_BIN_DIR" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
unset GIT_TRACE2 GIT_TRACE2_PERF GIT_TRACE2_EVENT GIT_TRACE2_PARENT_SID GIT_TRACE2_PARENT_NAME

for maker in host=$1 foreign=$2; do
	name=${maker%%=*} bin=${maker#*=}
	GIT_TRACE2_RECORD=$tmp/$name.rec "$bin/example-hashsort" src/tr2_buf.c include/trace2.h \
		>/dev/null 2>&1
	for reader in host=$1 foreign=$2; do
		"${reader#*=}/trace2" convert --to event "$tmp/$name.rec" \
			>"$tmp/$name.by.${reader%%=*}" 2>&1
	done
	if grep -q '"event":"region_leave"' "$tmp/$name.by.host" &&
		cmp -s "$tmp/$name.by.host" "$tmp/$name.by.foreign"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "record_byte_order: the $name build's recording reads differently:" >&2
		diff "$tmp/$name.by.host" "$tmp/$name.by.foreign" | head -5 >&2
	fi
done
echo "record_byte_order: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
