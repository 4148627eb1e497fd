# Kernel coding style: checkpatch.pl from the newest linux-source tarball
# installed (6.12's, else 6.1's), run over every kernel source file as a
# unit test, whichever kernel KVER names.
CHECKPATCH := $(BUILD)/checkpatch/checkpatch.pl
CHECKPATCH_SERIES := $(firstword $(foreach s,$(KSERIES_ALL),$(if $(wildcard /usr/src/linux-source-$(s).tar.xz),$(s))))

$(CHECKPATCH):
	@test -n "$(CHECKPATCH_SERIES)" || { echo "raidkm: no linux-source tarball (run tools/install-deps.sh)" >&2; exit 1; }
	@mkdir -p $(BUILD)/checkpatch
	@tar -xf /usr/src/linux-source-$(CHECKPATCH_SERIES).tar.xz -C $(BUILD)/checkpatch \
		--strip-components=2 \
		linux-source-$(CHECKPATCH_SERIES)/scripts/checkpatch.pl \
		linux-source-$(CHECKPATCH_SERIES)/scripts/spelling.txt \
		linux-source-$(CHECKPATCH_SERIES)/scripts/const_structs.checkpatch
	@touch $@

$(BUILD)/tests/checkpatch: $(TOP)/tests/unit/checkpatch.sh $(CHECKPATCH)
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec %s %s %s\n' $(TOP)/tests/unit/checkpatch.sh $(CHECKPATCH) $(TOP) >$@
	@chmod +x $@

UNIT_TESTS += $(BUILD)/tests/checkpatch
