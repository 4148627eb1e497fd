#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# covers: packaging: Debian packages
#
# What "make deb" built holds what Documentation/packaging.rst says, and
# the packaged programs run (unpacked into a scratch directory; nothing
# is installed):
#   raidkmd      the programs, their man pages, the unit and its options
#                file (a conffile); raidkmd runs
#   raidkm-dkms  dkms.conf, Kbuild, every kernel source and the build
#                scripts (executable), the initramfs hook and its trigger
#   mdadm        Debian's version + raidkmN, Provides mdadm-km, Debian's
#                udev rules, units and initramfs hooks still there; the km
#                option checks (tests/unit/mdadm_geometry.sh) pass with
#                the packaged binary
#
# usage: contents.sh [DEB_DIR]   (default: build/deb)
top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=${1:-$top/build/deb}
failed=0
pass() { echo "PASS deb-contents/$1"; }
fail() { echo "FAIL deb-contents/$1"; failed=1; }

newest() { ls "$debdir"/"$1"_*.deb 2>/dev/null | sort -V | tail -n 1; }
dkms=$(newest raidkm-dkms)
daemon=$(newest raidkmd)
mdadm=$(newest mdadm)
for p in "$dkms" "$daemon" "$mdadm"; do
	[ -n "$p" ] && continue
	echo "FAIL deb-contents: raidkm-dkms, raidkmd and mdadm packages expected in $debdir (run make deb)"
	exit 1
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# has ROOT NAME PATH...: every PATH is in the unpacked package
has() {
	root=$1 name=$2
	shift 2
	missing=""
	for f in "$@"; do
		[ -e "$root/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then pass "$name"; else fail "$name: missing$missing"; fi
}

# ---- raidkmd -------------------------------------------------------------
r=$tmp/raidkmd
dpkg-deb -x "$daemon" "$r"
has "$r" "raidkmd/files" usr/sbin/raidkmd usr/sbin/raidkmctl \
	usr/sbin/raidkm-relay lib/systemd/system/raidkmd.service \
	etc/default/raidkmd usr/share/man/man8/raidkmd.8.gz \
	usr/share/man/man8/raidkmctl.8.gz usr/share/man/man8/raidkm-relay.8.gz \
	usr/share/doc/raidkmd/copyright
dpkg-deb --ctrl-tarfile "$daemon" | tar -xOf - ./conffiles >"$tmp/conffiles" 2>/dev/null
if grep -qx /etc/default/raidkmd "$tmp/conffiles"; then
	pass "raidkmd/conffile: /etc/default/raidkmd"
else
	fail "raidkmd/conffile: /etc/default/raidkmd is not a conffile"
fi
unit=$r/lib/systemd/system/raidkmd.service
if grep -q '^EnvironmentFile=-/etc/default/raidkmd$' "$unit" &&
   grep -q '^ExecStart=/usr/sbin/raidkmd .*\$RAIDKMD_OPTS$' "$unit" &&
   grep -q '^Restart=on-failure$' "$unit" &&
   grep -q '^ExecStartPre=.*modprobe raidkm$' "$unit" &&
   grep -q '^RAIDKMD_OPTS=' "$r/etc/default/raidkmd"; then
	pass "raidkmd/unit: options from /etc/default/raidkmd, modprobe, restart"
else
	fail "raidkmd/unit: $(grep -E '^(Exec|Env|Restart)' "$unit" | tr '\n' ' ')"
fi
if "$r/usr/sbin/raidkmd" --help >"$tmp/help" 2>&1 && grep -q -- '--backend' "$tmp/help" &&
   "$r/usr/sbin/raidkmctl" --help >/dev/null 2>&1 &&
   "$r/usr/sbin/raidkm-relay" --help >/dev/null 2>&1; then
	pass "raidkmd/runs: raidkmd, raidkmctl, raidkm-relay --help"
else
	fail "raidkmd/runs: $(head -n 3 "$tmp/help")"
fi

# ---- raidkm-dkms ------------------------------------------------------------
d=$tmp/dkms
dpkg-deb -x "$dkms" "$d"
ver=$(dpkg-deb -f "$dkms" Version)
s=$d/usr/src/raidkm-$ver
has "$d" "raidkm-dkms/files" "usr/src/raidkm-$ver/dkms.conf" \
	"usr/src/raidkm-$ver/Kbuild" "usr/src/raidkm-$ver/kernel/kbuild-module.sh" \
	"usr/src/raidkm-$ver/kernel/raidkm/compat/conftest.sh"
want=$(cd "$top" && find kernel -type f \( -name '*.[ch]' -o -name '*.kbuild' \) | sort)
got=$(cd "$s" 2>/dev/null && find kernel -type f \( -name '*.[ch]' -o -name '*.kbuild' \) | sort)
if [ "$want" = "$got" ]; then
	pass "raidkm-dkms/sources: the $(echo "$want" | wc -l) kernel sources of the tree"
else
	fail "raidkm-dkms/sources: differ from the tree's: $(echo "$want" "$got" | tr ' ' '\n' | sort | uniq -u | tr '\n' ' ')"
fi
if [ -x "$s/kernel/kbuild-module.sh" ] && [ -x "$s/kernel/raidkm/compat/conftest.sh" ]; then
	pass "raidkm-dkms/scripts: executable"
else
	fail "raidkm-dkms/scripts: kbuild-module.sh or conftest.sh not executable"
fi
# the initramfs hook: mdadm's first, adds raidkm.ko; the package asks
# for update-initramfs (a dpkg trigger)
h=$d/usr/share/initramfs-tools/hooks/raidkm-dkms
if [ -x "$h" ] && [ "$(sh "$h" prereqs)" = mdadm ] &&
	sed 's|^\. /usr/share/initramfs-tools/hook-functions$|manual_add_modules() { echo "added: $*"; }|' \
		"$h" >"$tmp/hook" && [ "$(sh "$tmp/hook")" = "added: raidkm" ]; then
	pass "raidkm-dkms/initramfs-hook: after mdadm's, adds raidkm"
else
	fail "raidkm-dkms/initramfs-hook: missing, not executable or wrong ($h)"
fi
dpkg-deb -e "$dkms" "$tmp/dkms-control"
if grep -qs 'update-initramfs' "$tmp/dkms-control/triggers"; then
	pass "raidkm-dkms/initramfs-trigger"
else
	fail "raidkm-dkms/initramfs-trigger: no update-initramfs trigger"
fi

# ---- mdadm -----------------------------------------------------------------
m=$tmp/mdadm
dpkg-deb -x "$mdadm" "$m"
mver=$(dpkg-deb -f "$mdadm" Version)
dsc=$(ls "$top"/build/mdadm/dl/mdadm_*.dsc 2>/dev/null | sort -V | tail -n 1)
dver=$(sed -n 's/^Version: //p' "$dsc" 2>/dev/null)
case $mver in
"$dver"+raidkm[0-9]*) pass "mdadm/version: $mver (Debian's $dver)" ;;
*) fail "mdadm/version: $mver is not Debian's ${dver:-?}+raidkmN" ;;
esac
if dpkg-deb -f "$mdadm" Provides | grep -qw mdadm-km; then
	pass "mdadm/provides: mdadm-km"
else
	fail "mdadm/provides: no mdadm-km"
fi
has "$m" "mdadm/debian-integration" sbin/mdadm sbin/mdmon \
	lib/udev/rules.d/63-md-raid-arrays.rules \
	lib/udev/rules.d/64-md-raid-assembly.rules \
	lib/systemd/system/mdmonitor.service \
	usr/share/initramfs-tools/hooks/mdadm \
	usr/share/initramfs-tools/scripts/local-block/mdadm \
	usr/share/mdadm/mkconf
if "$m/sbin/mdadm" --version 2>&1 | grep -q "raidkm"; then
	pass "mdadm/runs: $("$m/sbin/mdadm" --version 2>&1)"
else
	fail "mdadm/runs: $("$m/sbin/mdadm" --version 2>&1 | head -n 1)"
fi
# the km option checks, with the packaged binary
"$top/tests/unit/mdadm_geometry.sh" "$m/sbin/mdadm" >"$tmp/geometry" 2>&1
rc=$?
np=$(grep -c '^PASS ' "$tmp/geometry")
nf=$(grep -c '^FAIL ' "$tmp/geometry")
if [ $rc = 0 ] && [ "$nf" = 0 ] && [ "$np" -gt 0 ]; then
	pass "mdadm/km-geometry: tests/unit/mdadm_geometry.sh, $np checks"
else
	grep '^FAIL ' "$tmp/geometry" | head -n 10
	fail "mdadm/km-geometry: $nf of $((np + nf)) checks failed (status $rc)"
fi
exit $failed
