# SPDX-License-Identifier: GPL-2.0
#
# raidkm top-level Makefile.
#
#   make              module, mdadm with km support, daemon, tools
#   make modules      raidkm.ko for every supported kernel installed
#   make check        unit tests, Debian packages (make deb) and their tests,
#                     guest scenarios on every supported kernel installed;
#                     ends "N passed, N failed"
#   make deb          Debian packages in build/deb (tools/deb/deb.mk)
#   make demo         a km array in the QEMU guest: create, fio, fail, rebuild
#   make bench-codec  codec vs ISA-L;   make bench-vm   km vs md raid6 (guest)
#   make bench-reshape  km reshape vs md raid6 reshape, one disk added (guest)
#   make test-index   Documentation/test-index.rst from the tests' covers: lines
#   make clean
#   V=1               every command in full (default: one line per step)
#
# Kernels (Documentation/kernels.rst): raidkm builds for Debian's 6.1 and
# 6.12 series.  KVER picks the kernel one "make" builds for and boots in
# the guest (default: the newest 6.1 installed); KDIR (its build tree) and
# KSRC (the linux-source tarball md.h comes from, default
# /usr/src/linux-source-<series>.tar.xz) follow from it and may be
# overridden.  CHECK_KVERS lists the kernels "make check" tests.

KSERIES_ALL := 6.12 6.1
# newest installed Debian amd64 kernel of series $(1), e.g. 6.1.0-56-amd64
# or 6.12.117+deb12-amd64
kver_of = $(shell ls /lib/modules 2>/dev/null | grep -E '^$(subst .,\.,$(1))\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$$' | sort -V | tail -n 1)
KVERS_ALL := $(strip $(foreach s,$(KSERIES_ALL),$(call kver_of,$(s))))

KVER ?= $(call kver_of,6.1)
export KVER
KDIR ?= /lib/modules/$(KVER)/build
KSRC ?=
CHECK_KVERS ?= $(KVERS_ALL)
# how many kernels' guest suites "make check" runs at once
# (tests/run-tests.sh --lanes)
CHECK_LANES ?= 2

TOP   := $(CURDIR)
BUILD := $(TOP)/build
# each kernel's module is built in its own tree of links to the sources
KOBJ  := $(BUILD)/kmod/$(KVER)
RAIDKM_KO := $(KOBJ)/raidkm.ko

CC      ?= cc

# Quiet build, in kbuild's style: one line per step ("  CC      build/
# codec/avx2.o"); "make V=1" prints every command in full.  A recipe line
# starts with $(Q_CC), $(Q_LD), $(Q_AR), $(Q_NVCC) or $(Q_GEN) for the
# step it runs, $(Q) for one that need not be shown.
V ?= 0
quiet = $(if $(filter 1,$(V)),,@printf '  %-7s %s\n' '$(1)' '$(@:$(TOP)/%=%)';)
Q      = $(if $(filter 1,$(V)),,@)
Q_CC   = $(call quiet,CC)
Q_LD   = $(call quiet,LD)
Q_AR   = $(call quiet,AR)
Q_NVCC = $(call quiet,NVCC)
Q_GEN  = $(call quiet,GEN)
export V
# USER_CFLAGS and USER_LDFLAGS are added to every user-space compile and to
# the links of the installed programs (the Debian packages pass
# dpkg-buildflags' hardening flags through them)
USER_CFLAGS  ?=
USER_LDFLAGS ?=
HOST_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
	-I$(TOP)/kernel/raidkm -I$(TOP)/kernel/raidkm/uapi $(USER_CFLAGS)

# Components append to these in their fragments.
USER_BINS  :=		# user-space programs built by "make"
UNIT_TESTS :=		# user-space test programs run by "make check"
GUEST_BINS :=		# programs the guest image carries (besides mdadm, fio)

.PHONY: all module modules mdadm user check check-build check-full check-unit check-guest demo \
	clean mdheaders kernel-check deps

all: module mdadm user

# ---- the kernel module ----------------------------------------------------
# kernel/kbuild-module.sh is the whole recipe (DKMS runs it too, see
# Documentation/packaging.rst): md's internal headers (md.h, md-cluster.h,
# md-bitmap.h) from the series' linux-source tarball into
# $(KOBJ)/mdinc, the kernel interface checks (compat/conftest.sh) into
# $(KOBJ)/rkm_kconf.h, a tree of links to the sources in $(KOBJ) (kbuild
# writes objects next to the sources, so each kernel gets its own tree),
# then kbuild.  "make mdheaders" does the first step only.
KBUILD_MODULE := $(TOP)/kernel/kbuild-module.sh $(if $(KSRC),--ksrc $(KSRC))

kernel-check:
	@test -n "$(KVER)" || { echo "raidkm: no supported kernel in /lib/modules (run tools/install-deps.sh)" >&2; exit 1; }

mdheaders: kernel-check
	@$(KBUILD_MODULE) --headers $(KVER) $(KDIR) $(TOP) $(KOBJ)

# One target per kernel (module-6.1.0-56-amd64, ...), all in this one
# make: a parallel build that needs a kernel's module twice (for "all"
# and for its guest image) builds it once.  KDIR applies to KVER; the
# other kernels use their own /lib/modules/KVER/build.
KVERS_BUILD := $(sort $(KVER) $(CHECK_KVERS) $(KVERS_ALL))
MODULE_TARGETS := $(addprefix module-,$(KVERS_BUILD))
.PHONY: $(MODULE_TARGETS)
$(MODULE_TARGETS): module-%: kernel-check
	@MAKE='$(MAKE)' $(KBUILD_MODULE) $* \
		$(if $(filter $*,$(KVER)),$(KDIR),/lib/modules/$*/build) \
		$(TOP) $(BUILD)/kmod/$*

module: module-$(KVER)

# raidkm.ko for every supported kernel installed
modules: $(addprefix module-,$(KVERS_ALL))

# Each component keeps its user-space build in a *.mk fragment next to its
# sources (tools/vm/vm.mk, which packs the guest image, comes last).
FRAGMENTS := $(sort $(filter-out tools/vm/vm.mk,$(shell find kernel daemon tools tests -name '*.mk' 2>/dev/null)))
include $(FRAGMENTS)
include tools/vm/vm.mk

# The test index (Documentation/test-index.rst): features against tests,
# from each test's "covers:" line; its unit test fails when a test has
# none or the index is stale
.PHONY: test-index
test-index:
	@$(TOP)/tests/test-index.sh $(TOP)

UNIT_TESTS += $(BUILD)/tests/test-index
$(BUILD)/tests/test-index: $(TOP)/tests/test-index.sh
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec %s --check %s\n' $< $(TOP) >$@
	@chmod +x $@

user: $(USER_BINS) $(UNIT_TESTS)

# ---- tests ------------------------------------------------------------------
# the Debian packages (tools/deb/deb.mk) are built and tested too, their
# tests first: the longest (DKMS builds, an installed system's boots) start
# while the short ones fill the other core
# (each kernel runs its share of the scenarios' sweeps; check-full runs
# every sweep whole on every kernel)
check: check-build
	@RKM_BUILD_SECONDS=$$(cat $(BUILD)/check-build.seconds 2>/dev/null) \
	$(TOP)/tests/run-tests.sh --unit "$(DEB_TESTS) $(UNIT_TESTS)" \
		--kernels "$(CHECK_KVERS)" --lanes $(CHECK_LANES) \
		--guest "$(GUEST_SCENARIOS)" $(CHECK_FULL)

# what check needs, built with a job per CPU (BUILD_JOBS; the kernel
# modules, mdadm, the CUDA objects and the images take a core each), in
# one make so that nothing is built twice at once
BUILD_JOBS ?= -j$(shell nproc)
check-build:
	@t0=$$(date +%s); \
	$(MAKE) --no-print-directory $(BUILD_JOBS) all $(UNIT_TESTS) vm-images deb && \
	echo $$(($$(date +%s) - t0)) >$(BUILD)/check-build.seconds

check-full:
	@$(MAKE) --no-print-directory check CHECK_FULL=--full

check-unit: $(UNIT_TESTS)
	@$(TOP)/tests/run-tests.sh --unit "$(UNIT_TESTS)"

check-guest: all $(VM_IMAGE) $(VM_KERNEL)
	@$(TOP)/tests/run-tests.sh --kernels "$(KVER)" \
		--guest "$(or $(T),$(GUEST_SCENARIOS))"

# The demo's first screen is about raidkm: the build's steps go to
# build/demo-build.log and only its milestones (raidkm.ko, mdadm,
# raidkmd, the guest image) show; the log's end if it fails.  V=1 prints
# every step here instead.
DEMO_LOG  := $(BUILD)/demo-build.log
DEMO_SHOW := ^  (LD \[M\]  .*raidkm\.ko|MAKE    mdadm|LD      build/bin/raidkmd|IMAGE )
demo: kernel-check
ifeq ($(V),1)
	@$(MAKE) --no-print-directory all $(VM_IMAGE) $(VM_KERNEL)
else
	@mkdir -p $(BUILD)
	@echo "  BUILD   raidkm.ko ($(KVER)), mdadm with km, raidkmd, tools, guest image"
	@echo "          (every step in build/demo-build.log; the first time takes minutes)"
	@t0=$$(date +%s); \
	{ $(MAKE) --no-print-directory $(BUILD_JOBS) all $(VM_IMAGE) $(VM_KERNEL); echo $$? >$(DEMO_LOG).rc; } 2>&1 | \
		tee $(DEMO_LOG) | sed -unE 's|$(TOP)/||; \%$(DEMO_SHOW)%p'; \
	if [ "$$(cat $(DEMO_LOG).rc)" != 0 ]; then \
		tail -n 40 $(DEMO_LOG) >&2; \
		echo "raidkm: the build failed (whole log: build/demo-build.log)" >&2; \
		exit 1; \
	fi; \
	echo "  BUILT   in $$(($$(date +%s) - t0)) s"
endif
	@$(TOP)/tools/vm/run-scenario.sh --kernel $(KVER) --show $(TOP)/tools/demo/demo.sh

deps:
	$(TOP)/tools/install-deps.sh

clean:
	rm -rf $(BUILD)
