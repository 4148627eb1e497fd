# covers: mdadm: write journal (create, examine, detail, assemble, add-journal, refusals)
# mdadm's side of a km write journal, 4+2 on ramdisks with /dev/ram6 as
# the journal:
#   - refused before anything is written (no md device, no member or
#     journal written): two --write-journal devices, a device too many,
#     a journal smaller than one stripe, a bitmap with the journal,
#     --build, 0.90 metadata; the
#     refusals of other levels stay (raid1, a consistency policy other
#     than journal);
#   - --create --write-journal: every member's superblock has the journal
#     feature (Feature Map 0x200), the journal device the Journal role;
#     --detail shows "Consistency Policy : journal" and the journal line,
#     /proc/mdstat the journal with (J); --assemble takes the journal
#     with the members, refuses without it (and --force starts the array
#     read-only); --add-journal to an array that has one is refused, and
#     so is --grow --raid-devices (no reshape with a journal);
#   - --bitmap=internal with --write-journal: refused before anything is
#     written (md core's md_bitmap_create refuses to run such an array);
#   - --add-journal refused by mdadm, nothing written: on a writable
#     array, with a bitmap, with a journal smaller than one stripe.
# What the kernel does with the journal is not tested here.
# timeout: 300
. /lib/raidkm/lib.sh

N=6 M=2 CHUNK=512
ramdisks 9 16
load_raidkm
check modprobe dm-mod
S=/sys/block/md0/md
J=/dev/ram6		# the journal
J2=/dev/ram7		# a second journal device

# a 4 MiB journal: 2 MiB after its 2 MiB data offset, less than one
# stripe (6 x 512K + 4K)
dmsetup remove --noudevsync jsmall 2>/dev/null
echo "0 8192 linear /dev/ram8 0" >/tmp/table
check dmsetup create --noudevsync jsmall /tmp/table
check dmsetup mknodes jsmall
JS=/dev/mapper/jsmall

# zeros DEV: the first 1 MiB of DEV is all zeros (a 1.2 superblock
# would sit at 4 KiB)
zeros() {
	n=$(dd if="$1" bs=65536 count=16 2>/dev/null | tr -d '\000' | wc -c)
	[ "$n" -eq 0 ]
}

# untouched NAME DEV...: no md array exists and none of DEV was written
untouched() {
	local name=$1 d
	shift
	[ -e /sys/block/md0 ] && fail "$name: /sys/block/md0 exists: md was touched"
	grep -q '^md' /proc/mdstat && fail "$name: an md array exists: $(cat /proc/mdstat)"
	for d in "$@"; do
		zeros $d || fail "$name: $d was written"
	done
	true
}

# refused NAME RC "MESSAGE" MDADM-ARGS...: mdadm exits RC with MESSAGE
refused() {
	local name=$1 want_rc=$2 want=$3 out rc
	shift 3
	out=$(mdadm_km "$@" 2>&1)
	rc=$?
	echo "$name: rc=$rc: $out"
	[ $rc -eq $want_rc ] || fail "$name: exit status $rc, want $want_rc"
	echo "$out" | grep -qF -- "$want" || fail "$name: message lacks '$want'"
}

# refuse NAME RC "MESSAGE" MDADM-ARGS...: refused, and nothing was written
refuse() {
	refused "$@"
	untouched "$1" $(members $N) $J $J2 $JS
}

note "refusals at create"
refuse two-journals 2 "km: one --write-journal device per array, not $J and $J2" \
	--create /dev/md0 --run --level=km --layout=m$M --raid-devices=$N \
	--write-journal $J --write-journal $J2 $(members $N)
refuse device-too-many 1 "You have listed more devices (8) than are in the array(6)" \
	--create /dev/md0 --run --level=km --layout=m$M --raid-devices=$N \
	--write-journal $J $J2 $(members $N)
refuse small-journal 1 "a km journal of 6 raid-devices with 512K chunks needs at least 3076K" \
	--create /dev/md0 --run --level=km --layout=m$M --raid-devices=$N \
	--chunk=$CHUNK $(members $N) --write-journal $JS
refuse build 2 "Raid level km not permitted with --build" \
	--build /dev/md0 --level=km --raid-devices=$N --write-journal $J \
	$(members $N)
refuse metadata-090 2 "km: a write journal needs 1.x metadata" \
	--create /dev/md0 --run --level=km --metadata=0.90 --raid-devices=$N \
	--write-journal $J $(members $N)
refuse raid1 2 "--write-journal is only supported for RAID level 4/5/6 and km" \
	--create /dev/md0 --run --level=1 --raid-devices=2 --write-journal $J \
	$(members 2)
refuse policy-resync 2 "--write-journal is not supported with consistency policy: resync" \
	--create /dev/md0 --run --level=km --raid-devices=$N \
	--consistency-policy=resync --write-journal $J $(members $N)

# examine_all FEATURES: every member and the journal: a km superblock
# with FEATURES, each member in its slot, the journal in the journal role
examine_all() {
	local i=0 d e
	for d in $(members $N) $J; do
		e=$(mdadm_km --examine $d 2>&1) || fail "--examine $d: $e"
		[ $d = /dev/ram0 ] || [ $d = $J ] && echo "$e"
		for f in "Raid Level : km" "Raid Devices : $N" "Layout : m$M" \
			 "Feature Map : $1"; do
			echo "$e" | grep -qF "$f" || fail "$d: --examine lacks '$f'"
		done
		if [ $d = $J ]; then
			echo "$e" | grep -qF "Device Role : Journal" ||
				fail "$d: not in the journal role"
		else
			echo "$e" | grep -qF "Device Role : Active device $i" ||
				fail "$d: not active device $i"
		fi
		i=$((i + 1))
	done
}

# running_with_journal: md0 runs as km with the journal
running_with_journal() {
	local d
	grep -A1 '^md0 ' /proc/mdstat
	grep '^md0 : ' /proc/mdstat | grep -q " ${J#/dev/}\[[0-9]*\](J)" ||
		fail "/proc/mdstat does not show $J as the journal (J)"
	d=$(mdadm_km --detail /dev/md0)
	echo "$d"
	for f in "Raid Level : km" "Raid Devices : $N" \
		 "Consistency Policy : journal"; do
		echo "$d" | grep -q "^ *$f\$" || fail "--detail lacks '$f'"
	done
	echo "$d" | grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +- +journal +$J\$" ||
		fail "--detail has no journal line for $J"
	[ "$(cat $S/consistency_policy)" = journal ] ||
		fail "consistency_policy: $(cat $S/consistency_policy)"
}

note "create with a journal"
check mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --assume-clean --write-journal $J $(members $N)
examine_all 0x200
running_with_journal

note "add-journal and reshape refused while it has a journal"
check mdadm_km --readonly /dev/md0
refuse_md() {	# refuse_md NAME RC "MESSAGE" MDADM-ARGS...: md0 stays
	refused "$@"
	zeros $J2 || fail "$1: $J2 was written"
	zeros $JS || fail "$1: $JS was written"
}
refuse_md second-journal 1 "/dev/md0 already has a journal ($J): md keeps one per array" \
	/dev/md0 --add-journal $J2
check mdadm_km --readwrite /dev/md0
refuse_md reshape 1 "/dev/md0 has a write journal: a km array with a journal cannot be reshaped" \
	--grow /dev/md0 --raid-devices=$((N + 1))
[ "$(cat $S/raid_disks)" = $N ] || fail "raid_disks changed: $(cat $S/raid_disks)"
check mdadm_km --stop /dev/md0
wait_md_gone md0

note "assemble with the journal"
out=$(mdadm_km --assemble /dev/md0 $(members $N) $J 2>&1)
echo "$out"
echo "$out" | grep -qF "has been started with $N drives and 1 journal" ||
	fail "assemble: $out"
running_with_journal
check mdadm_km --stop /dev/md0
wait_md_gone md0

note "assemble without the journal"
out=$(mdadm_km --assemble /dev/md0 $(members $N) 2>&1) &&
	fail "assembled without its journal: $out"
echo "$out"
echo "$out" | grep -qF "Not safe to assemble with missing or stale journal device" ||
	fail "assemble without the journal: $out"
mdadm_km --stop /dev/md0 2>/dev/null
wait_md_gone md0
out=$(mdadm_km --assemble --force /dev/md0 $(members $N) 2>&1) ||
	fail "assemble --force without the journal: $out"
echo "$out"
echo "$out" | grep -qF "Journal is missing or stale, starting array read only" ||
	fail "assemble --force without the journal: $out"
[ "$(cat $S/array_state)" = readonly ] ||
	fail "array_state $(cat $S/array_state), want readonly"
check mdadm_km --stop /dev/md0
wait_md_gone md0
for d in $(members $N) $J; do check mdadm_km --zero-superblock $d; done

note "a bitmap and a journal: md runs neither pair, mdadm refuses first"
refuse bitmap-journal 1 "km: an array with a write journal cannot have a write-intent bitmap" \
	--create /dev/md0 --run --level=km --layout=m$M --raid-devices=$N \
	--assume-clean --bitmap=internal --write-journal $J $(members $N)

note "add-journal refusals"
check mdadm_km --create /dev/md0 --run --level=km --layout=m$M \
	--raid-devices=$N --chunk=$CHUNK --assume-clean --bitmap=internal \
	$(members $N)
check mdadm_km --readonly /dev/md0
refuse_md bitmap 1 "/dev/md0 has a write-intent bitmap: md adds no journal to an array with a bitmap" \
	/dev/md0 --add-journal $J2
check mdadm_km --readwrite /dev/md0
check mdadm_km --grow /dev/md0 --bitmap=none
refuse_md writable 1 "/dev/md0 is not readonly, cannot add journal" \
	/dev/md0 --add-journal $J2
check mdadm_km --readonly /dev/md0
refuse_md small 1 "a km journal of 6 raid-devices with 512K chunks needs at least 3076K" \
	/dev/md0 --add-journal $JS
mdadm_km --detail /dev/md0 | grep -q journal &&
	fail "a refused journal is in the array: $(mdadm_km --detail /dev/md0)"
check mdadm_km --stop /dev/md0
wait_md_gone md0
check dmsetup remove --noudevsync jsmall
echo "mdadm-journal: ok"
