# covers: mdadm: 0.90 metadata
# km arrays on 0.90 metadata, as raid6 has them.  What 0.90
# cannot describe is refused by mdadm with a message naming the limit, and
# the refusal changes nothing (no member written, md not asked, a running
# array as it was): 28 members (also with 0.90 from mdadm.conf), 26 + 2
# spares, --size=4T (create and grow), members of 4 TiB or more, a member
# added to an array with no 0.90 descriptor left (27 raid-devices).
# Within the limits: the 27-member maximum runs and a member comes back
# with --re-add; a 4+2 array with a spare and an internal bitmap lives
# as a raid6 would (initial resync, --examine/--detail, fio --verify data
# across stop/assemble and --assemble --scan, --readonly and -o, fail
# onto the spare, m members missing, degraded assembly, --re-add and
# --add rebuilds, --grow --size=max, --update=metadata to 1.0); members
# of 3 TiB (sparse ramdisks) grow to just below 4 TiB and no further.
# timeout: 600
. /lib/raidkm/lib.sh
# a previous scenario of the same boot may have left ramdisks behind
rmmod brd 2>/dev/null

ramdisks 29 16
load_raidkm
S=/sys/block/md0/md

# untouched DEV: no md superblock, and zeros where 1.x (first 1 MiB) and
# 0.90 (last 64 KiB) keep theirs
untouched() {
	mdadm_km --examine "$1" >/dev/null 2>&1 && return 1
	n=$(dd if="$1" bs=65536 count=16 2>/dev/null | tr -d '\000' | wc -c)
	[ "$n" -eq 0 ] || return 1
	last=$(($(blockdev --getsize64 "$1") / 65536 - 1))
	n=$(dd if="$1" bs=65536 skip=$last count=1 2>/dev/null | tr -d '\000' | wc -c)
	[ "$n" -eq 0 ]
}

# refuse NAME RC "MESSAGE" N-MEMBERS MDADM-ARGS...: --create of a km
# array on the first N ramdisks exits RC naming the limit; no md device
# appears and no member is written
refuse() {
	name=$1 want_rc=$2 want=$3 n=$4
	shift 4
	out=$(mdadm_km --create /dev/md0 --run --level=km "$@" \
		--raid-devices=$n $(members $n) 2>&1)
	rc=$?
	echo "$name: rc=$rc: $out"
	[ $rc -eq $want_rc ] || fail "$name: exit status $rc, want $want_rc"
	echo "$out" | grep -qF "$want" || fail "$name: message lacks '$want'"
	[ -e /sys/block/md0 ] && fail "$name: /sys/block/md0 exists: md was touched"
	grep -q '^md' /proc/mdstat && fail "$name: an array exists: $(cat /proc/mdstat)"
	true
}

# all_untouched N: ramdisks 0..N-1 were never written
all_untouched() {
	for d in $(members $1); do
		untouched $d || fail "$1: $d was written"
	done
}

note "beyond 0.90: refused before anything is written"
refuse members-28 2 \
	"0.90 metadata holds at most 27 members, not 28 raid-devices; use --metadata=1.2" \
	28 --metadata=0.90 --layout=m3
refuse members-26+2 2 \
	"0.90 metadata holds at most 27 members, not 28 (26 raid-devices + 2 spares); use --metadata=1.2" \
	26 --metadata=0.90 --layout=m3 --spare-devices=2 /dev/ram26 /dev/ram27
refuse size-4T 2 \
	"0.90 metadata holds members of less than 4 TiB, not --size=4294967296K; use --metadata=1.2" \
	6 -e 0.90 --size=4T
# the metadata named by mdadm.conf's CREATE line, not on the command line
printf 'DEVICE /dev/ram*\nCREATE metadata=0.90\n' >/tmp/c090.conf
refuse conf-members-28 1 \
	"0.90 metadata holds at most 27 members, not 28 raid-devices; use --metadata=1.2" \
	28 --config=/tmp/c090.conf --layout=m3
all_untouched 29
if dmesg | grep -Eq 'md0|md/km|bind<'; then
	fail "md saw an array: $(dmesg | grep -E 'md0|md/km|bind<')"
fi

note "the maximum: 27 members (m3, internal bitmap)"
check mdadm_km --create /dev/md0 --run --metadata=0.90 --level=km --layout=m3 \
	--raid-devices=27 --chunk=64 --assume-clean --bitmap=internal $(members 27)
grep -A1 '^md0 : active km' /proc/mdstat | grep -q '\[27/27\]' || fail "27 members not running"
e=$(mdadm_km --examine /dev/ram26)
for f in "Version : 0.90.00" "Raid Level : km" "Raid Devices : 27" \
	 "Layout : m3" "Parity Devices : 3"; do
	echo "$e" | grep -qF "$f" || { echo "$e"; fail "27 members: --examine lacks '$f'"; }
done
fiov --name=x --rw=write --bs=64k --size=8M
# members_of: md0's members, from --detail's counts and device table
members_of() {
	mdadm_km --detail /dev/md0 | grep -E 'Devices :|/dev/ram|removed'
}
before=$(members_of)
out=$(mdadm_km /dev/md0 --add /dev/ram27 2>&1)
rc=$?
echo "add a 28th: rc=$rc: $out"
[ $rc -ne 0 ] || fail "a 28th member was added"
echo "$out" | grep -qF "0.90 metadata holds at most 27 members: /dev/md0 has 27 raid-devices, no descriptor is left for /dev/ram27" ||
	fail "28th member: message"
untouched /dev/ram27 || fail "the refused 28th member was written"
dmesg | grep -q 'array is limited to' && fail "the kernel was asked to add a 28th member"
after=$(members_of)
[ "$before" = "$after" ] || fail "the refusal changed the array: $before / $after"
note "27 members: a failed member comes back by --re-add, a new one is refused"
check mdadm_km /dev/md0 --fail /dev/ram5
check mdadm_km /dev/md0 --remove /dev/ram5
out=$(mdadm_km /dev/md0 --add /dev/ram28 2>&1) && fail "replacement added to 27 members: $out"
echo "$out" | grep -qF "no descriptor is left for /dev/ram28 (not even to replace a member); only --re-add of a former member works" ||
	fail "replacement: message: $out"
untouched /dev/ram28 || fail "the refused replacement was written"
check mdadm_km /dev/md0 --re-add /dev/ram5
mdadm_km --wait /dev/md0
wait_sync md0
grep -A1 '^md0 : active km' /proc/mdstat | grep -q '\[27/27\]' || fail "ram5 not back"
fiov --name=x --rw=write --bs=64k --size=8M --verify_only
check_clean md0 "27 members after the re-add"
check mdadm_km --stop /dev/md0
for d in $(members 27); do check mdadm_km --zero-superblock $d; done

# ---- a 4+2 array with a spare and an internal bitmap ----
N=6 M=2
A="--name=a --rw=write --bs=64k --size=6M --offset=0"
B="--name=b --rw=randwrite --bs=4k --size=4M --offset=8M"
C="--name=c --rw=write --bs=12k --size=4M --offset=20M"
D="--name=d --rw=write --bs=128k --size=16M --offset=40M"
# expect "FIELD : VALUE": --detail of md0 shows it
expect() {
	mdadm_km --detail /dev/md0 | grep -q "^ *$1\$" ||
		{ mdadm_km --detail /dev/md0; fail "--detail lacks '$1'"; }
}
events() {
	mdadm_km --examine "$1" | sed -n 's/^ *Events : //p'
}
md_state() {
	cat $S/array_state
}
# write_refused: a write to md0 fails
write_refused() {
	dd if=/dev/zero of=/dev/md0 bs=4096 count=1 conv=fsync 2>/dev/null &&
		fail "a write to the read-only array succeeded ($1)"
	true
}

note "create --metadata=0.90 km m2, 6 + 1 spare, bitmap, --size=8M: initial resync"
# what lies beyond 8 MiB on the members is garbage: --grow --size must
# resync it into parity
for d in $(members 7); do
	dd if=/dev/urandom of=$d bs=1M seek=8 count=8 2>/dev/null || fail "garbage on $d"
done
check mdadm_km --create /dev/md0 --run --metadata=0.90 --level=km --layout=m$M \
	--raid-devices=$N --spare-devices=1 --chunk=64 --size=8M \
	--bitmap=internal $(members 7)
mdadm_km --wait /dev/md0
wait_sync md0
check_clean md0 "after the initial resync"
grep -A1 '^md0 : active km' /proc/mdstat |
	grep -q 'km m=2, 64k chunk, algorithm 0 \[6/6\] \[UUUUUU\]' ||
	fail "mdstat: $(cat /proc/mdstat)"
i=0
for d in $(members 7); do
	e=$(mdadm_km --examine $d 2>&1) || fail "--examine $d: $e"
	[ $i -eq 0 ] && echo "$e"
	for f in "Version : 0.90.00" "Raid Level : km" "Raid Devices : $N" \
		 "Layout : m$M" "Parity Devices : $M" "Chunk Size : 64K" \
		 "Used Dev Size : 8192 (8.00 MiB" "Array Size : 32768 (32.00 MiB" \
		 "Internal Bitmap : present" "State : clean"; do
		echo "$e" | grep -qF "$f" || fail "$d: --examine lacks '$f'"
	done
	if [ $i -lt $N ]; then
		echo "$e" | grep -Eq "^this +$i +[0-9]+ +[0-9]+ +$i +active sync" ||
			fail "$d: not active in slot $i"
	else
		echo "$e" | grep -Eq "^this .* spare" || fail "$d: not a spare"
	fi
	i=$((i + 1))
done
mdadm_km --examine --brief --verbose /dev/ram0 | grep -q 'level=km num-devices=6' ||
	fail "--examine --brief: $(mdadm_km --examine --brief --verbose /dev/ram0)"
mdadm_km --detail /dev/md0
expect "Version : 0.90"
expect "Raid Level : km"
expect "Layout : m$M"
expect "Parity Devices : $M"
expect "Chunk Size : 64K"
expect "Array Size : 32768 (32.00 MiB 33.55 MB)"
expect "Used Dev Size : 8192 (8.00 MiB 8.39 MB)"
expect "Intent Bitmap : Internal"
expect "Active Devices : $N"
expect "Spare Devices : 1"
expect "State : clean *"
fiov $A

note "stop, assemble, --assemble --scan"
check mdadm_km --stop /dev/md0
out=$(mdadm_km --assemble /dev/md0 $(members 7) 2>&1); echo "$out"
echo "$out" | grep -q 'has been started with 6 drives and 1 spare' || fail "assemble: $out"
fiov $A --verify_only
check mdadm_km --stop /dev/md0
printf 'DEVICE /dev/ram*\n' >/tmp/scan.conf
out=$(mdadm_km --assemble --scan --config=/tmp/scan.conf 2>&1); echo "$out"
grep -q '^md0 : active km' /proc/mdstat || fail "--assemble --scan did not start md0: $out"
fiov $A --verify_only

note "--assemble --readonly: reads work, writes do not, nothing is written"
check mdadm_km --stop /dev/md0
ev=$(events /dev/ram0)
check mdadm_km --assemble --readonly /dev/md0 $(members 7)
grep -A0 '^md0 : active (read-only) km' /proc/mdstat || fail "not read-only: $(cat /proc/mdstat)"
[ "$(md_state)" = readonly ] || fail "array_state $(md_state), want readonly"
fiov $A --verify_only
write_refused "assembled with --readonly"
[ "$(events /dev/ram0)" = "$ev" ] || fail "read-only assembly wrote the superblock (events $ev -> $(events /dev/ram0))"
check mdadm_km --readwrite /dev/md0
[ "$(md_state)" = readonly ] && fail "--readwrite left it read-only"
fiov $B
note "-o on the running array, then -w"
check mdadm_km -o /dev/md0
[ "$(md_state)" = readonly ] || fail "-o: array_state $(md_state)"
write_refused "-o"
fiov $B --verify_only
check mdadm_km -w /dev/md0
fiov $B --verify_only

note "fail a member: the spare takes its slot"
check mdadm_km /dev/md0 --fail /dev/ram1
mdadm_km --wait /dev/md0
wait_sync md0
grep -A1 '^md0 : active' /proc/mdstat | grep -q '\[6/6\] \[UUUUUU\]' ||
	fail "spare did not rebuild: $(cat /proc/mdstat)"
fiov $A --verify_only
fiov $B --verify_only
check_clean md0 "after the rebuild onto the spare"
check mdadm_km /dev/md0 --remove /dev/ram1
# ram1's slot is the spare's now: it comes back as a spare
mdadm_km /dev/md0 --re-add /dev/ram1 2>/dev/null ||
	check mdadm_km /dev/md0 --add /dev/ram1
expect "Spare Devices : 1"

note "m members missing: reads decode, writes go on, degraded assembly"
check mdadm_km /dev/md0 --remove /dev/ram1	# no spare: stay degraded
check mdadm_km /dev/md0 --fail /dev/ram2
check mdadm_km /dev/md0 --fail /dev/ram3
grep -A1 '^md0 : active' /proc/mdstat | grep -q '\[6/4\] \[UU__UU\]' ||
	fail "mdstat with m missing: $(cat /proc/mdstat)"
fiov $A --verify_only
fiov $B --verify_only
fiov $C
check mdadm_km /dev/md0 --remove /dev/ram2 /dev/ram3
check mdadm_km --stop /dev/md0
out=$(mdadm_km --assemble --run /dev/md0 /dev/ram0 /dev/ram6 /dev/ram4 2>&1)
echo "$out"
echo "$out" | grep -q 'Not enough devices to start the array' ||
	fail "3 of 6 (k-1) with --run: $out"
grep -q '^md0 : active' /proc/mdstat && fail "3 of 6 started"
mdadm_km --stop /dev/md0 2>/dev/null
# the four that were running when it stopped: it starts degraded
out=$(mdadm_km --assemble /dev/md0 /dev/ram0 /dev/ram6 /dev/ram4 /dev/ram5 2>&1)
echo "$out"
echo "$out" | grep -q 'has been started with 4 drives (out of 6)' || fail "degraded assembly: $out"
expect "State : clean, degraded *"
fiov $A --verify_only
fiov $B --verify_only
fiov $C --verify_only

note "--re-add (bitmap) and --add (full rebuild) of the missing two"
check mdadm_km /dev/md0 --re-add /dev/ram2
check mdadm_km --zero-superblock /dev/ram3
check mdadm_km /dev/md0 --add /dev/ram3
mdadm_km --wait /dev/md0
wait_sync md0
grep -A1 '^md0 : active' /proc/mdstat | grep -q '\[6/6\] \[UUUUUU\]' ||
	fail "not rebuilt: $(cat /proc/mdstat)"
# re-added into its own slot (2), not as a spare
mdadm_km --detail /dev/md0 | grep -Eq '^ +[0-9]+ +1 +2 +2 +active sync +/dev/ram2$' ||
	{ mdadm_km --detail /dev/md0; fail "ram2 not back in slot 2"; }
check mdadm_km /dev/md0 --add /dev/ram1
expect "Active Devices : $N"
expect "Spare Devices : 1"
fiov $A --verify_only
fiov $B --verify_only
fiov $C --verify_only
check_clean md0 "after --re-add and --add"

note "--grow --size: 0.90's limit named, then max"
# without the bitmap: md marks only whole new bitmap chunks for resync,
# and one 64 MiB chunk covers these members (raid6 alike)
check mdadm_km --grow /dev/md0 --bitmap=none
out=$(mdadm_km --grow /dev/md0 --size=4T 2>&1) && fail "--grow --size=4T accepted"
echo "$out" | grep -qF "0.90 metadata holds members of less than 4 TiB, not --size=4294967296K" ||
	fail "--grow --size=4T: $out"
[ "$(cat $S/component_size)" = 8192 ] || fail "refused grow changed the size"
check mdadm_km --grow /dev/md0 --size=max
mdadm_km --wait /dev/md0
wait_sync md0
comp=$(cat $S/component_size)
# 16 MiB ramdisks: 0.90 keeps the last 64 KiB, the rest in 64 KiB chunks
[ "$comp" = 16320 ] || fail "component size $comp after --grow --size=max, want 16320"
[ "$(blockdev --getsize64 /dev/md0)" = $((4 * comp * 1024)) ] || fail "array size"
expect "Used Dev Size : 16320 (15.94 MiB 16.71 MB)"
fiov $A --verify_only
fiov $B --verify_only
fiov $C --verify_only
fiov $D
# md rewrites a spare's 0.90 superblock only in a full update: a check
# that ends (one such update) while fio's writes still keep the array
# dirty (safe_mode_delay) leaves the spare's copy "active", and mdadm
# refuses --update=metadata below because of it.  raid6 alike (md core,
# shown on 6.12 with a long safe_mode_delay); a quiet array is clean.
wait_clean md0
check_clean md0 "after --grow --size=max"
e=$(mdadm_km --examine /dev/ram3)
echo "$e" | grep -qF "Used Dev Size : 16320" || fail "grown size not in the superblock"
echo "$e" | grep -qF "Internal Bitmap" && fail "bitmap still there"

note "stop, assemble: everything verifies"
check mdadm_km --stop /dev/md0
check mdadm_km --assemble /dev/md0 $(members 7)
for r in "$A" "$B" "$C" "$D"; do fiov $r --verify_only; done

note "--update=metadata: from 0.90 to 1.0 (no bitmap), data intact"
check mdadm_km --stop /dev/md0
for d in $(members 7); do
	mdadm_km --examine $d | grep -qE "State : clean" ||
		fail "$d not clean before --update=metadata: $(mdadm_km --examine $d)"
done
check mdadm_km --assemble /dev/md0 --update=metadata $(members 7)
e=$(mdadm_km --examine /dev/ram0)
echo "$e" | grep -qF "Version : 1.0" || { echo "$e"; fail "not 1.0 after --update=metadata"; }
echo "$e" | grep -qF "Raid Level : km" || fail "1.0: level"
echo "$e" | grep -qF "Layout : m$M" || fail "1.0: layout"
for r in "$A" "$B" "$C" "$D"; do fiov $r --verify_only; done
check_clean md0 "after --update=metadata"
check mdadm_km --stop /dev/md0
wait_md_gone md0	# refuse checks that no md0 appears
for d in $(members 8); do mdadm_km --zero-superblock $d 2>/dev/null; done
rmmod brd || fail "rmmod brd"

# ---- members of 5 TiB: sparse ramdisks (brd allocates what is written) ----
note "5 TiB members: refused without --size; 3 TiB grows to just below 4 TiB"
check modprobe brd rd_nr=4 rd_size=$((5 * 1024 * 1024 * 1024)) max_part=0
refuse big-members 1 \
	"0.90 metadata holds members of less than 4 TiB, but /dev/ram0 has 5368708608K; give a --size below 4T, or use --metadata=1.2" \
	4 --metadata=0.90
all_untouched 4
# mdadm adds an internal bitmap to arrays this large by itself
check mdadm_km --create /dev/md0 --run --metadata=0.90 --level=km --raid-devices=4 \
	--assume-clean --size=3T $(members 4)
expect "Intent Bitmap : Internal"
mdadm_km --examine /dev/ram0 | grep -qF "Used Dev Size : 3221225472 (3.00 TiB 3.30 TB)" ||
	fail "3 TiB member: $(mdadm_km --examine /dev/ram0)"
expect "Used Dev Size : 3221225472 (3.00 TiB 3.30 TB)"
expect "Array Size : 6442450944 (6.00 TiB 6.60 TB)"
T=$((1024 * 1024 * 1024 * 1024))
E="--name=e --rw=write --bs=64k --size=4M --offset=$((6 * T - 4 * 1024 * 1024))"
F="--name=f --rw=write --bs=64k --size=4M --offset=$((3 * T))"
fiov $E
fiov $F
out=$(mdadm_km --grow /dev/md0 --size=4T 2>&1) && fail "--grow --size=4T accepted"
echo "$out" | grep -qF "0.90 metadata holds members of less than 4 TiB" || fail "grow 4T: $out"
check mdadm_km --grow /dev/md0 --size=max --assume-clean
comp=$(cat $S/component_size)
# the largest multiple of the 512 KiB chunk below 4 TiB (2^32 KiB)
[ "$comp" = $((4294967296 - 512)) ] || fail "component size $comp after --size=max"
expect "Used Dev Size : 4294966784 (4.00 TiB 4.40 TB)"
check mdadm_km --stop /dev/md0
check mdadm_km --assemble /dev/md0 $(members 4)
[ "$(cat $S/component_size)" = 4294966784 ] || fail "size after assembly"
mdadm_km --examine-bitmap /dev/ram0 | grep -qF "Sync Size : 4294966784" ||
	fail "bitmap not resized: $(mdadm_km --examine-bitmap /dev/ram0)"
fiov $E --verify_only
fiov $F --verify_only
check mdadm_km --stop /dev/md0
rmmod brd || fail "rmmod brd"
echo "mdadm-090: ok"
