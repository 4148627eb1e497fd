# SPDX-License-Identifier: GPL-2.0
# The guest on the GPU host (Documentation/testing.rst, "On the GPU host"):
#
#   make gpu-guest   build/gpu-guest/gpu-guest.tar.xz: QEMU, kernel, guest
#                    image and raidkmd with the CUDA backend, self-contained
#                    (~50 MiB); carry build/gpu-guest to the GPU host and
#                    run tools/gpu-guest/run.sh there

GPU_GUEST_TAR := $(BUILD)/gpu-guest/gpu-guest.tar.xz

.PHONY: gpu-guest
gpu-guest: all vm-image
	@$(TOP)/tools/gpu-guest/mkbundle.sh $(GPU_GUEST_TAR) $(VM_IMAGE) \
		$(KVER) $(BUILD)/bin/raidkmd
