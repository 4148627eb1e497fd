# Kernel coding style: checkpatch.pl from the linux-source tarball, run
# over every kernel source file as a unit test.
CHECKPATCH := $(BUILD)/checkpatch/checkpatch.pl

$(CHECKPATCH):
	@test -n "$(KSRC)" || { echo "raidkm: no linux-source-6.1 tarball (run tools/install-deps.sh)" >&2; exit 1; }
	@mkdir -p $(BUILD)/checkpatch
	@tar -xf $(KSRC) -C $(BUILD)/checkpatch --strip-components=2 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

$(BUILD)/tests/checkpatch: $(TOP)/tests/unit/checkpatch.sh $(CHECKPATCH)
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec %s %s %s\n' $(TOP)/tests/unit/checkpatch.sh $(CHECKPATCH) $(TOP) >$@
	@chmod +x $@

UNIT_TESTS += $(BUILD)/tests/checkpatch
