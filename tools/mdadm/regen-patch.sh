#!/bin/sh
# Regenerate tools/mdadm/km.patch from the edited tree build/mdadm/mdadm-4.2
# (see Documentation/mdadm.rst): unpack the cached Debian source again
# (with Debian's patches) into a scratch directory and diff the C sources.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/build/mdadm/mdadm-4.2
dsc=$(ls "$top"/build/mdadm/dl/mdadm_4.2-*.dsc 2>/dev/null | tail -n 1)
[ -n "$dsc" ] && [ -d "$src" ] || {
	echo "regen-patch: run 'make mdadm' first" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-source -q -x "$dsc" "$tmp/orig" >/dev/null 2>&1
out=$top/tools/mdadm/km.patch
: >"$out.new"
for f in $(cd "$src" && ls *.c *.h Makefile); do
	diff -u --label "a/$f" --label "b/$f" "$tmp/orig/$f" "$src/$f" \
		>>"$out.new" || [ $? -eq 1 ]
done
mv "$out.new" "$out"
echo "regen-patch: wrote $out ($(grep -c '^+++ ' "$out") files)"
