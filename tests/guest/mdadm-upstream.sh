# covers: mdadm: upstream tests at km
# mdadm's own upstream tests (the mdadm source the build fetched), once
# at md raid6 and again with the level replaced by km m=2 (and m=3 where
# a test has 5 members), in this one boot: tools/mdadm-tests/, and
# Documentation/testing.rst, "mdadm's upstream tests".  Its host-side
# runner boots the guest and reports each test and level on its own line.
# runner: tools/mdadm-tests/run-upstream.sh
# timeout: 2100
# mem: 1536
# disks: 1 1024
tests=""	# run-upstream.sh --tests puts a subset here
exec bash /lib/raidkm/mdadm-tests/guest-run.sh $tests
