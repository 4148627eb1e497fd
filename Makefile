# SPDX-License-Identifier: GPL-2.0
#
# raidkm top-level Makefile.
#
#   make              module, mdadm with km support, daemon, tools
#   make check        unit tests + guest scenarios; ends "N passed, N failed"
#   make demo         a km array in the QEMU guest: create, fio, fail, rebuild
#   make bench-codec  codec vs ISA-L;   make bench-vm   km vs md raid6 (guest)
#   make clean
#
# KVER (guest kernel version), KDIR (its build tree) and KSRC (the
# linux-source tarball that md.h comes from) may be overridden.

KVER ?= $(shell ls /lib/modules 2>/dev/null | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$$' | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
KSRC ?= $(lastword $(sort $(wildcard /usr/src/linux-source-6.1.tar.xz /usr/src/linux-source-6.1.tar.bz2)))

TOP   := $(CURDIR)
BUILD := $(TOP)/build
MDINC := $(BUILD)/mdinc

CC      ?= cc
HOST_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
	-I$(TOP)/kernel/raidkm -I$(TOP)/kernel/raidkm/uapi

# Components append to these in their fragments.
USER_BINS  :=		# user-space programs built by "make"
UNIT_TESTS :=		# user-space test programs run by "make check"
GUEST_BINS :=		# programs the guest image carries (besides mdadm, fio)

.PHONY: all module mdadm user check check-unit check-guest demo clean \
	mdheaders deps

all: module mdadm user

# ---- md's internal headers, from the linux-source tarball -----------------
MDHDRS := md.h md-cluster.h md-bitmap.h
$(MDINC)/.stamp:
	@test -n "$(KSRC)" || { echo "raidkm: no linux-source-6.1 tarball in /usr/src (run tools/install-deps.sh)" >&2; exit 1; }
	@echo "  EXTRACT $(MDHDRS) from $(KSRC)"
	@mkdir -p $(MDINC)
	@tar -xf $(KSRC) -C $(MDINC) --strip-components=3 \
		$(addprefix linux-source-6.1/drivers/md/,$(MDHDRS))
	@touch $@
mdheaders: $(MDINC)/.stamp

# ---- the kernel module ----------------------------------------------------
module: $(MDINC)/.stamp
	@test -d "$(KDIR)" || { echo "raidkm: no kernel build tree at '$(KDIR)' (install linux-headers-amd64 or set KDIR)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) RAIDKM_MDINC=$(MDINC) modules

# Each component keeps its user-space build in a *.mk fragment next to its
# sources (tools/vm/vm.mk, which packs the guest image, comes last).
FRAGMENTS := $(sort $(filter-out tools/vm/vm.mk,$(shell find kernel daemon tools tests -name '*.mk' 2>/dev/null)))
include $(FRAGMENTS)
include tools/vm/vm.mk

user: $(USER_BINS) $(UNIT_TESTS)

# ---- tests ------------------------------------------------------------------
check: all $(UNIT_TESTS) $(VM_IMAGE)
	@$(TOP)/tests/run-tests.sh --unit "$(UNIT_TESTS)" --guest "$(GUEST_SCENARIOS)"

check-unit: $(UNIT_TESTS)
	@$(TOP)/tests/run-tests.sh --unit "$(UNIT_TESTS)"

check-guest: all $(VM_IMAGE)
	@$(TOP)/tests/run-tests.sh --guest "$(or $(T),$(GUEST_SCENARIOS))"

demo: all $(VM_IMAGE)
	@$(TOP)/tools/vm/run-scenario.sh --show $(TOP)/tools/demo/demo.sh

deps:
	$(TOP)/tools/install-deps.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) RAIDKM_MDINC=$(MDINC) clean 2>/dev/null
	rm -rf $(BUILD)
