# The QEMU guest: base initramfs and the scenario list (included last by
# the top Makefile, after every fragment has added to GUEST_BINS).

MDADM_BIN ?= $(BUILD)/mdadm/mdadm
VM_IMAGE  := $(BUILD)/vm/$(KVER)/base.cpio
VM_KERNEL := $(BUILD)/vm/$(KVER)/vmlinux
# The scenarios in the order the lanes take them: the longest first (by
# their lane-seconds in make check of 2026-11-28), then the rest by name,
# so that the last jobs are short and the lanes end together instead of
# one lane running a long scenario alone at the end.  The order changes
# nothing else: each scenario boots its own guest.
GUEST_LONG := mdadm-upstream km-write-hole km-reshape km-codec-forms \
	offload-hostile mdadm-090 km-suspend offload-verify km-wide-sync \
	km-wide-read bridge-arrays km-reshape-crash km-journal bridge-faults
GUEST_ALL := $(sort $(wildcard $(TOP)/tests/guest/*.sh))
GUEST_LONG_SH := $(filter $(GUEST_ALL),$(GUEST_LONG:%=$(TOP)/tests/guest/%.sh))
GUEST_SCENARIOS ?= $(GUEST_LONG_SH) $(filter-out $(GUEST_LONG_SH),$(GUEST_ALL))

# one image per kernel, each from that kernel's module (module-KVER in
# the top Makefile), all in one make
VM_IMAGES_BUILD := $(foreach k,$(KVERS_BUILD),$(BUILD)/vm/$(k)/base.cpio)

.PHONY: vm-image vm-images
vm-image: $(VM_IMAGE)

# the guest image of every kernel "make check" tests
vm-images: $(foreach k,$(CHECK_KVERS),$(BUILD)/vm/$(k)/base.cpio $(BUILD)/vm/$(k)/vmlinux)
vm-image: $(VM_KERNEL)

# the kernel's ELF image, unpacked from its bzImage once here rather than
# by its own decompressor, emulated, at every boot (run-scenario.sh boots
# it when it is there; tools/vm/unpack-kernel.sh)
$(BUILD)/vm/%/vmlinux: /boot/vmlinuz-%
	@mkdir -p $(@D)
	$(Q_GEN)$(TOP)/tools/vm/unpack-kernel.sh $< $@ || true

# Rebuilt on every call (a few seconds): raidkm.ko comes from a recursive
# kbuild run, so make cannot see whether it changed.
.PHONY: $(VM_IMAGES_BUILD)
$(VM_IMAGES_BUILD): $(BUILD)/vm/%/base.cpio: module-% mdadm $(GUEST_BINS)
	@mkdir -p $(@D)
	@$(TOP)/tools/vm/mkimage.sh $@ $* $(BUILD)/kmod/$*/raidkm.ko $(MDADM_BIN) $(GUEST_BINS)
