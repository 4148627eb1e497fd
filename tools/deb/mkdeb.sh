#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# raidkm's Debian packages, built with Debian's tools (dpkg-buildpackage,
# debhelper, dh-dkms, quilt); "make deb" runs it.  See
# Documentation/packaging.rst.
#
# usage: mkdeb.sh raidkm TOP OUT
#            the source package raidkm (3.0 native): a copy of the tree
#            with tools/deb/raidkm/debian as debian/ -> raidkm-dkms, raidkmd
#        mkdeb.sh mdadm TOP DSC OUT
#            Debian's mdadm source package DSC with the km patch added to
#            debian/patches -> mdadm VERSION+raidkmN
#        mkdeb.sh lintian OUT
#            lintian on what the two built
# The .deb files go to OUT; everything else (source packages, .changes,
# build logs) stays in OUT/work/.
set -eu

# the next release; snapshots are 0.1~gitN.HASH (N commits to HEAD)
RAIDKM_RELEASE=0.1
MAINTAINER="raidkm maintainers <maintainers@users.noreply.a-seed-d53450b0.example>"

say() { printf 'raidkm deb: %s\n' "$*"; }
die() { printf 'raidkm deb: %s\n' "$*" >&2; exit 1; }

isgit() { git -C "$top" rev-parse --verify -q HEAD >/dev/null 2>&1; }

# the date of HEAD (RFC 2822, for changelogs: the build is reproducible)
commit_date() {
	if isgit; then git -C "$top" log -1 --format=%cD HEAD; else date -R; fi
}

# one changelog item, its words wrapped: bullet WORDS...
bullet() {
	echo "$*" | fold -s -w 72 | sed 's/ *$//; 1s/^/  * /; 2,$s/^/    /'
}

# run a build with its output in a log; the log's end when it fails
logged() {
	log=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		tail -n 60 "$log" >&2
		die "$* failed (whole log: $log)"
	fi
}

# ---- raidkm: raidkm-dkms and raidkmd -----------------------------------
build_raidkm() {
	ver=$RAIDKM_RELEASE
	if isgit; then
		ver=$ver~git$(git -C "$top" rev-list --count HEAD).$(git -C "$top" rev-parse --short=7 HEAD)
	fi
	work=$out/work/raidkm
	src=$work/raidkm-$ver
	say "raidkm $ver: raidkm-dkms, raidkmd${DEB_BUILD_PROFILES:+ (profiles: $DEB_BUILD_PROFILES)}"
	rm -rf "$work" "$out"/raidkm-dkms_*.deb "$out"/raidkmd_*.deb
	mkdir -p "$src"
	# the files git knows of (tracked, and new ones not ignored), or
	# everything but build/ in a tree without git
	if isgit; then
		(cd "$top" && git ls-files -z -c -o --exclude-standard |
			xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf -) | tar -xf - -C "$src"
	else
		(cd "$top" && tar --exclude=./build -cf - .) | tar -xf - -C "$src"
	fi
	cp -a "$top/tools/deb/raidkm/debian" "$src/debian"
	{
		echo "raidkm ($ver) bookworm; urgency=medium"
		echo
		if isgit; then
			bullet "Snapshot of raidkm at commit" \
				"$(git -C "$top" log -1 --format='%h: %s' HEAD)"
		else
			bullet "Snapshot of raidkm (a tree without git history)."
		fi
		echo
		echo " -- $MAINTAINER  $(commit_date)"
	} >"$src/debian/changelog"
	logged "$work/build.log" sh -c "cd '$src' && dpkg-buildpackage -us -uc -jauto"
	cp "$work"/raidkm-dkms_"$ver"_all.deb "$work"/raidkmd_"$ver"_*.deb "$out/"
	say "built $(cd "$work" && echo raidkm-dkms_"$ver"_all.deb raidkmd_"$ver"_*.deb)"
}

# ---- mdadm: Debian's source with the km patch --------------------------
# DEP-3 header of one of our patches: patch_header DESCRIPTION-LINES...
patch_header() {
	echo "Description: $1"
	shift
	for l in "$@"; do echo " $l"; done
	echo "Author: $MAINTAINER"
	echo "Forwarded: not-needed"
	echo "Last-Update: $(date -u -d "$(commit_date)" +%Y-%m-%d)"
	echo "---"
}

build_mdadm() {
	[ -f "$dsc" ] || die "no mdadm source package at $dsc (make mdadm fetches it)"
	debver=$(sed -n 's/^Version: //p' "$dsc")
	upver=${debver%-*}
	# +raidkmN: N counts the commits that changed what goes into the
	# package, so a changed patch always gets a higher version
	rev=0
	if isgit; then
		rev=$(git -C "$top" rev-list --count HEAD -- tools/mdadm/km.patch \
			kernel/raidkm/uapi/raidkm_md.h tools/deb/mkdeb.sh)
	fi
	ver=$debver+raidkm$rev
	work=$out/work/mdadm
	src=$work/mdadm-$upver
	say "mdadm $ver: Debian's mdadm $debver + tools/mdadm/km.patch"
	rm -rf "$work" "$out"/mdadm_*.deb
	mkdir -p "$work"
	# unpacks and applies Debian's patches (quilt's .pc records them)
	logged "$work/unpack.log" dpkg-source -x "$dsc" "$src"
	cp "$(dirname "$dsc")/mdadm_$upver.orig.tar".* "$work/"

	tmp=$work/patches
	mkdir -p "$tmp"
	{
		patch_header "raidkm's md level number and limits (raidkm_md.h)" \
			"kernel/raidkm/uapi/raidkm_md.h of the raidkm tree, which the km" \
			"level patch includes: km's level number, layout word and limits," \
			"shared with the raidkm kernel module."
		diff -u --label /dev/null --label b/raidkm_md.h /dev/null \
			"$top/kernel/raidkm/uapi/raidkm_md.h" || [ $? -eq 1 ]
	} >"$tmp/raidkm-md-header.patch"
	{
		patch_header "md level km (raidkm): k data and m parity members" \
			"mdadm --create --level=km --layout=mM, km in --detail, --examine," \
			"assembly and Grow's refusals (Documentation/mdadm.rst of the" \
			"raidkm tree, where this is tools/mdadm/km.patch)."
		cat "$top/tools/mdadm/km.patch"
	} >"$tmp/raidkm-km-level.patch"
	# quilt applies them after Debian's own and refreshes them, so that
	# dpkg-source (which allows no fuzz) applies them as they are
	(
		cd "$src"
		export QUILT_PATCHES=debian/patches
		for p in raidkm-md-header.patch raidkm-km-level.patch; do
			quilt --quiltrc=- import -P "$p" "$tmp/$p"
			quilt --quiltrc=- push
			quilt --quiltrc=- refresh -p ab --no-timestamps --no-index
		done
	) >"$work/quilt.log" 2>&1 || { cat "$work/quilt.log" >&2; die "the km patch does not apply to mdadm $debver"; }
	rm -rf "$tmp"

	# our build of Debian's package: its maintainer scripts, udev rules,
	# mdmonitor and initramfs hooks are kept.  control: our Maintainer;
	# mdadm-km names the km level; lsb-base, a transitional package in
	# bookworm (sysvinit-utils, which is essential, has init-functions),
	# dropped (the one error bookworm's lintian finds in mdadm 4.2-5)
	orig=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
	sed -i -e "s|^Maintainer: .*|Maintainer: $MAINTAINER|" \
		-e '/^ lsb-base,$/d' \
		-e '/^Package: mdadm$/,/^$/s/^Depends:/Provides:\n mdadm-km,\nDepends:/' \
		"$src/debian/control"
	{
		echo "mdadm ($ver) bookworm; urgency=medium"
		echo
		bullet "Debian's mdadm $debver with raidkm's md level km (raidkm's" \
			"tools/mdadm/km.patch): debian/patches/raidkm-md-header.patch" \
			"and debian/patches/raidkm-km-level.patch."
		bullet "debian/control: Maintainer is raidkm's (Debian's maintainer:" \
			"$orig); Provides: mdadm-km; no Depends on lsb-base" \
			"(transitional in bookworm: sysvinit-utils has" \
			"/lib/lsb/init-functions)."
		echo
		echo " -- $MAINTAINER  $(commit_date)"
		echo
		cat "$src/debian/changelog"
	} >"$work/changelog"
	mv "$work/changelog" "$src/debian/changelog"

	logged "$work/build.log" sh -c "cd '$src' && dpkg-buildpackage -us -uc -jauto"
	cp "$work/mdadm_${ver}_"*.deb "$out/"
	say "built $(cd "$work" && echo mdadm_"$ver"_*.deb)"
}

# ---- lintian -------------------------------------------------------------
# raidkm: source and binaries (.changes); mdadm: the binary package (its
# source is Debian's, tags of Debian's own packaging are Debian's)
run_lintian() {
	changes=$(ls "$out"/work/raidkm/raidkm_*.changes 2>/dev/null | tail -n 1)
	mdadm=$(ls "$out"/mdadm_*.deb 2>/dev/null | tail -n 1)
	[ -n "$changes" ] && [ -n "$mdadm" ] || die "run make deb first"
	rc=0
	lintian --allow-root --fail-on error --display-info \
		"$changes" "$mdadm" >"$out/lintian.txt" 2>&1 || rc=$?
	if [ -s "$out/lintian.txt" ]; then
		sed 's/^/  /' "$out/lintian.txt"
	fi
	say "lintian: $(grep -c '^E: ' "$out/lintian.txt") errors," \
		"$(grep -c '^W: ' "$out/lintian.txt") warnings," \
		"$(grep -c '^I: ' "$out/lintian.txt") info (build/deb/lintian.txt)"
	[ $rc = 0 ] || die "lintian failed (status $rc)"
}

what=${1:-}
case $what in
raidkm) [ $# = 3 ] || die "usage: mkdeb.sh raidkm TOP OUT"
	top=$2 out=$(mkdir -p "$3" && cd "$3" && pwd); build_raidkm ;;
mdadm) [ $# = 4 ] || die "usage: mkdeb.sh mdadm TOP DSC OUT"
	top=$2 dsc=$3 out=$(mkdir -p "$4" && cd "$4" && pwd); build_mdadm ;;
lintian) [ $# = 2 ] || die "usage: mkdeb.sh lintian OUT"
	out=$2; run_lintian ;;
*) die "usage: mkdeb.sh raidkm|mdadm|lintian ..." ;;
esac
