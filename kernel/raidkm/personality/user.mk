# The km personality's user-space parts: the layout and plan unit tests and the
# guest benchmarks (make bench-vm, make bench-reshape).
KM_PERS := $(TOP)/kernel/raidkm/personality

$(BUILD)/tests/layout_test: $(TOP)/tests/unit/layout_test.c $(KM_PERS)/layout.c \
		$(KM_PERS)/layout.h $(TOP)/tests/unit/unit_report.h
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $(TOP)/tests/unit/layout_test.c \
		$(KM_PERS)/layout.c

$(BUILD)/tests/plan_test: $(TOP)/tests/unit/plan_test.c $(KM_PERS)/plan.c \
		$(KM_PERS)/plan.h $(TOP)/tests/unit/unit_report.h
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $(TOP)/tests/unit/plan_test.c \
		$(KM_PERS)/plan.c

UNIT_TESTS += $(BUILD)/tests/layout_test $(BUILD)/tests/plan_test

.PHONY: bench-vm
bench-vm: vm-image
	@$(TOP)/tools/bench/bench-vm.sh

# km's reshape against md raid6's, one disk added (Documentation/personality.rst)
.PHONY: bench-reshape
bench-reshape: vm-image
	@KVER=$(KVER) $(TOP)/tools/bench/reshape-bench.sh

# What the write journal costs: km and md raid6, with and without
# (Documentation/admin-guide.rst, Write journal)
.PHONY: bench-journal
bench-journal: vm-image
	@KVER=$(KVER) $(TOP)/tools/bench/journal-bench.sh
