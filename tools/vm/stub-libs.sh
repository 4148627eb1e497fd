#!/bin/bash
# Stand-ins for shared libraries that a guest program links to but never
# calls in the tests: fio's I/O engines for Ceph (librados, librbd),
# GlusterFS, NBD, RDMA and PMEM.  Their real libraries and what they
# pull in (libceph-common, ICU, GnuTLS, libstdc++, ...: about 60 of the
# image's 100 MB) cost every boot their unpacking, and every fio start
# about 2,000 page faults and their relocations, a second or more in the
# emulated guest (fio --version: 1.6 s, mdadm --version: 0.2 s).
#
# For each library named, OUTDIR gets a library of the same soname that
# defines what PROG takes from it, with the same symbol versions: each
# function prints its name and aborts the program, each data object is
# zeroes of its size.  An engine that a test would use fails loudly; the
# engines the tests use (libaio, psync, sync) are fio's own code.
#
# usage: stub-libs.sh PROG OUTDIR SONAME...
#        then LD_LIBRARY_PATH=OUTDIR ldd PROG lists the stand-ins
set -euo pipefail

prog=$1 out=$2
shift 2
mkdir -p "$out"
die() { echo "stub-libs: $*" >&2; exit 1; }

# PROG's undefined dynamic symbols: "NAME VERSION" (VERSION "Base" when
# it has none)
undef=$(objdump -T "$prog" | awk '$0 ~ /\*UND\*/ { v = $(NF - 1); gsub(/[()]/, "", v); print $NF, v }')
# the versions PROG needs, "VERSION FILE"
needs=$(readelf -V -W "$prog" | awk '/Version needs/ { on = 1 } on && / File: / { f = $5 } on && / Name: / { print $3, f }')

for so in "$@"; do
	real=$(ldd "$prog" | awk -v so="$so" '$1 == so { print $3 }')
	[ -f "$real" ] || die "$prog does not link to $so"
	vers=$(echo "$needs" | awk -v so="$so" '$2 == so { print $1 }')
	# the real library's definitions: "NAME TYPE SIZE" (TYPE DF, DO)
	defs=$(objdump -T "$real" | awk '$0 !~ /\*UND\*/ && ($3 == "DF" || $3 == "DO") { print $NF, $3, $5 }')
	src=$out/$so.c map=$out/$so.map
	rm -f "$map"
	printf '#include <stdio.h>\n#include <stdlib.h>\n' >"$src"
	printf 'static void stub(const char *f) { fprintf(stderr, "%s: %%s called (a stand-in, tools/vm/stub-libs.sh)\\n", f); abort(); }\n' "$so" >>"$src"
	# the symbols PROG takes from this library (those of its versions,
	# and unversioned ones that the real library defines): "NAME VERSION"
	# in $map, a function or an array of the real object's size in $src
	{ echo "$vers" | sed 's/^/V /'; echo "$defs" | sed 's/^/D /'; echo "$undef" | sed 's/^/U /'; } |
		awk -v src="$src" -v map="$map" '
		$1 == "V" { ver[$2] = 1; next }
		$1 == "D" { if (!($2 in type)) { type[$2] = $3; size[$2] = $4 }; next }
		$1 == "U" && $2 != "" {
			if ($3 == "Base" ? !($2 in type) : !($3 in ver)) next
			if (type[$2] == "DO") printf "char %s[0x%s];\n", $2, size[$2] >>src
			else printf "void %s(void) { stub(\"%s\"); }\n", $2, $2 >>src
			print $2, $3 >>map
		}'
	[ -s "$map" ] || die "$prog takes nothing from $so"
	# a version script: each version node with its symbols (unversioned
	# symbols stay global without a node)
	{
		for v in $vers; do
			echo "$v { global: $(awk -v v="$v" '$2 == v { printf "%s; ", $1 }' "$map") };"
		done
	} >"$map.ld"
	cc -shared -fPIC -O1 -o "$out/$so" -Wl,-soname,"$so" \
		${vers:+-Wl,--version-script,"$map.ld"} "$src" ||
		die "cannot build the stand-in for $so"
done
