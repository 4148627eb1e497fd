#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# covers: packaging: DKMS
#
# The raidkm-dkms package builds raidkm.ko with DKMS for every supported
# kernel installed (6.1 and 6.12: those with headers in /lib/modules),
# but Debian 12's 6.1: tests/deb/installed-boot.sh, beside this test in
# DEB_TESTS, has apt install the package into a Debian 12 root, where
# DKMS builds it for that root's 6.1 kernel, and checks the same there
# (a 6.1 kernel is built here when no 6.12 one is installed, or when
# named).  The package is unpacked into a scratch directory and DKMS
# works in a scratch tree (--sourcetree, --dkmstree; its signing key
# too), so nothing is installed on the system.  For each kernel: "dkms
# build" succeeds, the module's vermagic names the kernel, it carries
# md's aliases for km, and the build extracted md's headers and ran the
# interface checks.  A kernel outside BUILD_EXCLUSIVE_KERNEL is skipped
# (status 77), not failed.
#
# usage: dkms-build.sh [DEB_DIR [KVER...]]
#   DEB_DIR  where raidkm-dkms_*.deb is (default: build/deb, "make deb")
#   KVER     the kernels to build for (default: as above)
top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=${1:-$top/build/deb}
[ $# -gt 0 ] && shift
kvers=$*

fail() { echo "FAIL $*"; failed=1; }
failed=0

deb=$(ls "$debdir"/raidkm-dkms_*_all.deb 2>/dev/null | sort -V | tail -n 1)
if [ -z "$deb" ]; then
	echo "FAIL dkms-build: no raidkm-dkms package in $debdir (run make deb)"
	exit 1
fi
if ! command -v dkms >/dev/null; then
	echo "FAIL dkms-build: dkms is not installed (run tools/install-deps.sh)"
	exit 1
fi
# every supported kernel with its build tree installed (as the Makefile's
# KVERS_ALL: Debian amd64 kernels of 6.1 and 6.12), 6.1 only where there
# is no 6.12 (installed-boot.sh builds for 6.1, above)
if [ -z "$kvers" ]; then
	k61=""
	for d in /lib/modules/6.*; do
		k=${d##*/}
		echo "$k" | grep -qE '^6\.(1|12)\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$' &&
			[ -d "$d/build" ] || continue
		case $k in
		6.1.*) k61="$k61 $k" ;;
		*) kvers="$kvers $k" ;;
		esac
	done
	if [ -n "$kvers" ]; then
		[ -n "$k61" ] && echo "note: 6.1 ($(echo $k61)) is built by DKMS in tests/deb/installed-boot.sh's root"
	else
		kvers=$k61
	fi
fi
if [ -z "$kvers" ]; then
	echo "FAIL dkms-build: no 6.1 or 6.12 kernel headers installed"
	exit 1
fi

sysdkms=$(ls -A /var/lib/dkms 2>/dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ver=$(dpkg-deb -f "$deb" Version)
echo "package $(basename "$deb"), kernels: $(echo $kvers)"
dpkg-deb -x "$deb" "$tmp/root"
srctree=$tmp/root/usr/src
dkmstree=$tmp/dkms
mkdir -p "$dkmstree"
# dkms signs what it builds when the kernel's sign-file exists, making a
# key on first use: keep that key in the scratch directory too
export mok_signing_key="$tmp/mok.key" mok_certificate="$tmp/mok.pub"
dk() { dkms "$@" --dkmstree "$dkmstree" --sourcetree "$srctree"; }

if [ -f "$srctree/raidkm-$ver/dkms.conf" ] &&
   grep -q "^PACKAGE_VERSION=\"$ver\"" "$srctree/raidkm-$ver/dkms.conf"; then
	echo "PASS dkms-build/dkms.conf: /usr/src/raidkm-$ver/dkms.conf, version $ver"
else
	fail "dkms-build/dkms.conf: no /usr/src/raidkm-$ver/dkms.conf of version $ver"
fi
if ! dk add -m raidkm -v "$ver" >"$tmp/add.log" 2>&1; then
	cat "$tmp/add.log"
	fail "dkms-build/add: dkms add failed"
	exit 1
fi

for k in $kvers; do
	name=dkms-build/$k
	start=$(date +%s)
	if ! dk build -m raidkm -v "$ver" -k "$k" >"$tmp/build-$k.log" 2>&1; then
		cat "$tmp/build-$k.log"
		log=$dkmstree/raidkm/$ver/build/make.log
		[ -f "$log" ] && tail -n 40 "$log"
		fail "$name: dkms build failed"
		continue
	fi
	took=$(($(date +%s) - start))
	ko=$(ls "$dkmstree/raidkm/$ver/$k"/*/module/raidkm.ko* 2>/dev/null | head -n 1)
	if [ -z "$ko" ]; then
		fail "$name: no raidkm.ko in $dkmstree/raidkm/$ver/$k"
		continue
	fi
	vermagic=$(modinfo -F vermagic "$ko")
	aliases=$(modinfo -F alias "$ko" | tr '\n' ' ')
	mlog=$(ls "$dkmstree/raidkm/$ver/$k"/*/log/make.log 2>/dev/null | head -n 1)
	case $vermagic in
	"$k "*) ;;
	*) fail "$name: vermagic '$vermagic' is not kernel $k"; continue ;;
	esac
	case " $aliases" in
	*" md-km "*) ;;
	*) fail "$name: aliases '$aliases' lack md-km"; continue ;;
	esac
	case " $aliases" in
	*" md-level-12 "*) ;;
	*) fail "$name: aliases '$aliases' lack md-level-12"; continue ;;
	esac
	if [ -z "$mlog" ] || ! grep -q 'EXTRACT md.h' "$mlog" ||
	   ! grep -q "CONFTEST $k" "$mlog"; then
		fail "$name: make.log shows no md header extraction or interface checks"
		continue
	fi
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	echo "PASS $name: $(basename "$ko") ($(stat -c %s "$ko") bytes, ${took} s," \
		"$(grep -c 'HAVE ' "$mlog") interfaces found, ${signer:+signed by }${signer:-unsigned})"
done

# a kernel the package does not support is skipped with status 77 (what
# dkms's postinst treats as "Skipped."), not failed
dk build -m raidkm -v "$ver" -k 5.10.0-99-amd64 >"$tmp/skip.log" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "PASS dkms-build/unsupported-kernel: 5.10 skipped (status 77)"
else
	cat "$tmp/skip.log"
	fail "dkms-build/unsupported-kernel: status $rc, not 77"
fi

# Without the kernel series' linux-source, dkms's output names the
# package to install (PRE_BUILD), and the build fails.  /usr/src without
# the tarball is a private mount (unshare -m: root only).
k=${kvers##* }
series=$(echo "$k" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
cat >"$tmp/nosource.sh" <<EOF
set -e
mount --make-rprivate /
mkdir -p "$tmp/usrsrc"
mount --bind /usr/src "$tmp/usrsrc"
mount -t tmpfs none /usr/src
for e in "$tmp"/usrsrc/*; do
	n=\${e##*/}
	case \$n in linux-source-$series.tar.*|linux-source-$series) continue ;; esac
	if [ -L "\$e" ]; then cp -P "\$e" /usr/src/; continue; fi
	if [ -d "\$e" ]; then mkdir "/usr/src/\$n"; else : >"/usr/src/\$n"; fi
	mount --bind "\$e" "/usr/src/\$n"
done
set +e
dkms remove -m raidkm -v "$ver" -k "$k" --dkmstree "$dkmstree" --sourcetree "$srctree" >/dev/null 2>&1
dkms build -m raidkm -v "$ver" -k "$k" --dkmstree "$dkmstree" --sourcetree "$srctree"
EOF
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	unshare -m sh "$tmp/nosource.sh" >"$tmp/nosource.log" 2>&1
	rc=$?
	if [ $rc != 0 ] && grep -q "apt install linux-source-$series" "$tmp/nosource.log"; then
		echo "PASS dkms-build/no-linux-source: $k fails (status $rc) naming linux-source-$series"
	else
		cat "$tmp/nosource.log"
		fail "dkms-build/no-linux-source: status $rc, or no message naming linux-source-$series"
	fi
else
	echo "note: dkms-build/no-linux-source not checked (needs root and unshare -m)"
fi

# nothing outside the scratch tree: dkms's system-wide tree (modules,
# signing key) as before
if [ "$(ls -A /var/lib/dkms 2>/dev/null)" != "$sysdkms" ]; then
	fail "dkms-build/scratch: /var/lib/dkms changed: $(ls -A /var/lib/dkms | tr '\n' ' ')"
else
	echo "PASS dkms-build/scratch: nothing written outside the scratch tree"
fi
exit $failed
