# SPDX-License-Identifier: GPL-2.0
# Debian packages (tools/deb, Documentation/packaging.rst), built with
# dpkg-buildpackage; the .deb files land in build/deb/:
#
#   raidkm-dkms   the module's source; DKMS builds raidkm.ko per kernel
#   raidkmd       raidkmd (CPU backend), raidkmctl, raidkm-relay, the unit
#   mdadm         Debian's mdadm with the km patch (4.2-5+raidkmN)
#
#   make deb            all three, then lintian (fails on an error)
#   make check-deb      the packaging tests alone (DEB_TESTS)
#   make check-install  the installed-system boot test alone
#                       (tests/deb/installed-boot.sh: a Debian 12 root with
#                       the packages, booted twice from a km array in fstab)
#
# DEB_BUILD_PROFILES=pkg.raidkm.cuda builds raidkmd with the CUDA backend
# (nvcc needed; for local use, see packaging.rst).  "make check" builds the
# packages and runs DEB_TESTS.

DEB_DIR   := $(BUILD)/deb
INSTALL_TEST := $(TOP)/tests/deb/installed-boot.sh
DEB_TESTS := $(TOP)/tests/deb/contents.sh $(TOP)/tests/deb/dkms-build.sh \
	$(INSTALL_TEST)

.PHONY: deb deb-raidkm deb-mdadm deb-lintian check-deb check-install

deb: deb-raidkm deb-mdadm
	@$(TOP)/tools/deb/mkdeb.sh lintian $(DEB_DIR)

deb-raidkm:
	@$(TOP)/tools/deb/mkdeb.sh raidkm $(TOP) $(DEB_DIR)

# the Debian source package that "make mdadm" fetches (tools/mdadm/mdadm.mk,
# read after this file: its rule for this stamp)
deb-mdadm: $(BUILD)/mdadm/dl/.stamp
	@$(TOP)/tools/deb/mkdeb.sh mdadm $(TOP) \
		"$$(ls $(BUILD)/mdadm/dl/mdadm_*.dsc | sort -V | tail -n 1)" $(DEB_DIR)

deb-lintian:
	@$(TOP)/tools/deb/mkdeb.sh lintian $(DEB_DIR)

check-deb: deb
	@$(TOP)/tests/run-tests.sh --unit "$(DEB_TESTS)"

check-install: deb
	@$(TOP)/tests/run-tests.sh --unit "$(INSTALL_TEST)"
