# mdadm's upstream tests at raid6 and km (tools/mdadm-tests): the guest
# scenario tests/guest/mdadm-upstream.sh runs them in "make check" (its
# "# runner:" header names run-upstream.sh); here the host-side unit test
# of the rewrites, against the mdadm source "make mdadm" fetched.
UNIT_TESTS += $(TOP)/tools/mdadm-tests/check-variants.sh
# (the source tree comes with "make mdadm")
$(TOP)/tools/mdadm-tests/check-variants.sh: | mdadm

# every test, not only the CI set: 20 to 30 minutes of guest time per kernel
.PHONY: check-mdadm-upstream
check-mdadm-upstream: all vm-images
	@rc=0; for k in $(CHECK_KVERS); do \
		$(TOP)/tools/mdadm-tests/run-upstream.sh --kernel $$k --all || rc=1; \
	done; exit $$rc
