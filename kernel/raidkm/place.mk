# Job placement (place.c): the same source as the module's, in its unit test.
RKM_PLACE := $(TOP)/kernel/raidkm

$(BUILD)/tests/place_test: $(TOP)/tests/unit/place_test.c $(RKM_PLACE)/place.c \
		$(RKM_PLACE)/place.h $(TOP)/tests/unit/unit_check.h
	@mkdir -p $(dir $@)
	$(Q_CC)$(CC) $(HOST_CFLAGS) -o $@ $(TOP)/tests/unit/place_test.c \
		$(RKM_PLACE)/place.c

UNIT_TESTS += $(BUILD)/tests/place_test
