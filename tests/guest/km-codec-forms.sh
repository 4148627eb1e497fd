# covers: codec: decode forms and P+Q ways in the kernel
# The codec's measured choices forced one at a time from the guest
# (/sys/module/raidkm/parameters/codec_decode_form and codec_pq), so that
# every combination runs (each kernel its share, lib.sh), whatever the timings at load
# picked: for each decode form (rows, fused, syndrome) and each way of
# P+Q's 2^j row (table, horner, horner-blend: AVX2's second doubling,
# the same as horner elsewhere), a 4+2 array (P+Q encodes, m = 2
# decodes) and a 6+3 array with 64 KiB chunks: written with crc32c
# verify, parity checked, two members failed (then three for 6+3), read
# back, written degraded, read back.  Bad names are refused.
# timeout: 600
# mem: 1024
. /lib/raidkm/lib.sh
rmmod brd 2>/dev/null

load_raidkm
P=/sys/module/raidkm/parameters
form0=$(cat $P/codec_decode_form)
pq0=$(cat $P/codec_pq)
dmesg | grep -q "raidkm: codec decode form $form0 (" ||
	fail "codec_decode_form is '$form0', not what init logged"
dmesg | grep -qi "raidkm: codec P+Q by $pq0 (" ||
	fail "codec_pq is '$pq0', not what init logged"
(echo bogus >$P/codec_decode_form) 2>/dev/null &&
	fail "codec_decode_form accepted 'bogus'"
(echo bogus >$P/codec_pq) 2>/dev/null && fail "codec_pq accepted 'bogus'"
[ "$(cat $P/codec_decode_form)" = "$form0" ] || fail "a bad write changed the form"
[ "$(cat $P/codec_pq)" = "$pq0" ] || fail "a bad write changed codec_pq"

# one K M FAIL...: a K+M array, written, checked, members FAIL failed
# one by one with a verify after each, written degraded, verified
one() {
	k=$1 m=$2
	shift 2
	n=$((k + m))
	ramdisks $n 4
	check mdadm_km --create /dev/md0 --run --assume-clean --level=km \
		--layout=m$m --raid-devices=$n --chunk=64 $(members $n)
	W="--name=w --rw=write --bs=192k --size=3M --offset=0"
	R="--name=r --rw=randwrite --bsrange=4k-128k --size=3M --offset=3M --number_ios=60"
	fiov $W
	fiov $R
	check_clean md0 "$k+$m written"
	for d in "$@"; do
		check mdadm_km /dev/md0 --fail $d
		fiov $W --verify_only
		fiov $R --verify_only
	done
	fiov --name=d --rw=randwrite --bsrange=4k-64k --size=6M --offset=0 --number_ios=60
	fiov --name=d --rw=randwrite --bsrange=4k-64k --size=6M --offset=0 --number_ios=60 --verify_only
	check mdadm_km --stop /dev/md0
	check rmmod brd
}

# this kernel's share of the nine pairs (lib.sh's share): in this order
# each half holds every form and every P+Q way
for fp in $(share rows:table rows:horner rows:horner-blend fused:table \
	fused:horner fused:horner-blend syndrome:table syndrome:horner \
	syndrome:horner-blend); do
	form=${fp%:*} pq=${fp#*:}
	echo $form >$P/codec_decode_form || fail "writing $form"
	echo $pq >$P/codec_pq || fail "writing $pq"
	[ "$(cat $P/codec_decode_form)" = $form ] || fail "form is not $form"
	[ "$(cat $P/codec_pq)" = $pq ] || fail "codec_pq is not $pq"
	note "decode form $form, P+Q by $pq"
	one 4 2 /dev/ram1 /dev/ram2
	one 6 3 /dev/ram0 /dev/ram1 /dev/ram7
done
echo $form0 >$P/codec_decode_form
echo $pq0 >$P/codec_pq
echo PASS
