# The QEMU guest: base initramfs and the scenario list (included last by
# the top Makefile, after every fragment has added to GUEST_BINS).

MDADM_BIN ?= $(BUILD)/mdadm/mdadm
VM_IMAGE  := $(BUILD)/vm/$(KVER)/base.cpio
GUEST_SCENARIOS ?= $(sort $(wildcard $(TOP)/tests/guest/*.sh))

.PHONY: vm-image vm-images
vm-image: $(VM_IMAGE)

# the guest image of every kernel "make check" tests
vm-images:
	@for k in $(CHECK_KVERS); do $(MAKE) --no-print-directory KVER=$$k vm-image || exit 1; done

# Rebuilt on every call (a few seconds): raidkm.ko comes from a recursive
# kbuild run, so make cannot see whether it changed.
.PHONY: $(VM_IMAGE)
$(VM_IMAGE): module mdadm $(GUEST_BINS)
	@mkdir -p $(@D)
	@$(TOP)/tools/vm/mkimage.sh $@ $(KVER) $(RAIDKM_KO) $(MDADM_BIN) $(GUEST_BINS)
