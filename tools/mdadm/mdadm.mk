# mdadm with the km level (tools/mdadm): Debian bookworm's mdadm 4.2
# source, fetched with "apt-get source" through a private apt setup under
# build/mdadm/apt (the system's sources and lists stay untouched), Debian's
# own patches applied by dpkg-source, then tools/mdadm/km.patch.
# See Documentation/mdadm.rst.
#
#   build/mdadm/dl/          cached .dsc/.orig/.debian tarballs (fetched once)
#   build/mdadm/mdadm-4.2/   unpacked, patched source tree
#   build/mdadm/mdadm        the binary ($(MDADM_BIN))

MDADM_DIR    := $(BUILD)/mdadm
MDADM_APT    := $(MDADM_DIR)/apt
MDADM_DL     := $(MDADM_DIR)/dl
MDADM_SRC    := $(MDADM_DIR)/mdadm-4.2
MDADM_PATCH  := $(TOP)/tools/mdadm/km.patch
MDADM_KMHDR  := $(TOP)/kernel/raidkm/uapi/raidkm_md.h
MDADM_BIN    := $(MDADM_DIR)/mdadm
MDADM_MIRROR ?= http://deb.debian.org/debian
MDADM_SUITE  ?= bookworm
export MDADM_BIN

# NO_LIBUDEV: the guest has no udev; without libudev mdadm creates the
# /dev/mdX nodes itself (it also does so at run time whenever /run/udev
# is absent).  The uapi directory provides raidkm_md.h to the patch.
MDADM_CXFLAGS := -O2 -g -DNO_LIBUDEV -I$(TOP)/kernel/raidkm/uapi

MDADM_APTOPTS := -o Dir::Etc::sourcelist=$(MDADM_APT)/sources.list \
	-o Dir::Etc::sourceparts=- \
	-o Dir::State::Lists=$(MDADM_APT)/lists \
	-o Dir::Cache=$(MDADM_APT)/cache \
	-o APT::Get::List-Cleanup=0 \
	-o Debug::NoLocking=1

$(MDADM_DL)/.stamp:
	@echo "  FETCH   mdadm source (apt-get source, $(MDADM_SUITE))"
	@rm -rf $(MDADM_DL) $(MDADM_APT)
	@mkdir -p $(MDADM_DL) $(MDADM_APT)/lists/partial $(MDADM_APT)/cache/archives/partial
	@echo "deb-src $(MDADM_MIRROR) $(MDADM_SUITE) main" >$(MDADM_APT)/sources.list
	@apt-get -qq $(MDADM_APTOPTS) update >$(MDADM_APT)/update.log 2>&1 || { \
		cat $(MDADM_APT)/update.log >&2; \
		echo "raidkm: cannot fetch the deb-src index from $(MDADM_MIRROR) $(MDADM_SUITE) (network? see above)" >&2; \
		exit 1; }
	@cd $(MDADM_DL) && apt-get -qq $(MDADM_APTOPTS) source --download-only mdadm \
		>$(MDADM_APT)/source.log 2>&1 || { \
		cat $(MDADM_APT)/source.log >&2; \
		echo "raidkm: 'apt-get source mdadm' failed (network, or dpkg-dev missing: run tools/install-deps.sh)" >&2; \
		exit 1; }
	@ls $(MDADM_DL)/mdadm_4.2-*.dsc >/dev/null 2>&1 || { \
		echo "raidkm: apt-get source did not bring mdadm 4.2 (got: $$(ls $(MDADM_DL)))" >&2; exit 1; }
	@touch $@

# Unpack (dpkg-source applies debian/patches) and apply our patch; redone
# from scratch whenever km.patch changes.
$(MDADM_SRC)/.patched: $(MDADM_DL)/.stamp $(MDADM_PATCH)
	@echo "  PATCH   mdadm $$(basename $$(ls $(MDADM_DL)/mdadm_4.2-*.dsc | tail -n 1) .dsc) + tools/mdadm/km.patch"
	@rm -rf $(MDADM_SRC)
	@dpkg-source -q -x $$(ls $(MDADM_DL)/mdadm_4.2-*.dsc | tail -n 1) $(MDADM_SRC) >/dev/null 2>$(MDADM_DIR)/unpack.log || { \
		cat $(MDADM_DIR)/unpack.log >&2; echo "raidkm: dpkg-source -x failed" >&2; exit 1; }
	@rm -f $(MDADM_DIR)/mdadm_4.2.orig.tar.gz	# dpkg-source's copy
	@patch -s -p1 -N --no-backup-if-mismatch -d $(MDADM_SRC) <$(MDADM_PATCH) || { \
		echo "raidkm: tools/mdadm/km.patch does not apply to $(MDADM_SRC)" >&2; exit 1; }
	@touch $@

$(MDADM_BIN): $(MDADM_SRC)/.patched $(MDADM_KMHDR) $(TOP)/tools/mdadm/mdadm.mk
	@echo "  MAKE    mdadm (km)"
	@$(MAKE) -s -B -C $(MDADM_SRC) mdadm CXFLAGS="$(MDADM_CXFLAGS)" \
		EXTRAVERSION="raidkm" >$(MDADM_DIR)/build.log 2>&1 || { \
		cat $(MDADM_DIR)/build.log >&2; echo "raidkm: mdadm build failed" >&2; exit 1; }
	@cp $(MDADM_SRC)/mdadm $@

mdadm: $(MDADM_BIN)

# tests/unit/mdadm_geometry.sh runs the binary: build it first
UNIT_TESTS += $(TOP)/tests/unit/mdadm_geometry.sh
$(TOP)/tests/unit/mdadm_geometry.sh: $(MDADM_BIN)
