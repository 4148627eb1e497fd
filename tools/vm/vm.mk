# The QEMU guest: base initramfs and the scenario list (included last by
# the top Makefile, after every fragment has added to GUEST_BINS).

MDADM_BIN ?= $(BUILD)/mdadm/mdadm
VM_IMAGE  := $(BUILD)/vm/base.cpio
GUEST_SCENARIOS ?= $(sort $(wildcard $(TOP)/tests/guest/*.sh))

.PHONY: vm-image
vm-image: $(VM_IMAGE)

# Rebuilt on every call (a few seconds): raidkm.ko comes from a recursive
# kbuild run, so make cannot see whether it changed.
.PHONY: $(VM_IMAGE)
$(VM_IMAGE): module mdadm $(GUEST_BINS)
	@mkdir -p $(BUILD)/vm
	@$(TOP)/tools/vm/mkimage.sh $@ $(KVER) $(TOP)/raidkm.ko $(MDADM_BIN) $(GUEST_BINS)
