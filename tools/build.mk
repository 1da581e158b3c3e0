# SPDX-License-Identifier: GPL-2.0
# kselftest-harness programs need the headers extracted from linux-source.
KSFT_CFLAGS := -I$(LINUX_SRC)/tools/testing/selftests -Wno-unused-parameter

$(TESTBIN)/tqsubmit_smoke: selftests/tqsubmit_smoke.c $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(LDFLAGS)

VM_TESTS += $(TESTBIN)/tqsubmit_smoke

# tools/tqstat: the counters viewer.

$(OBJ)/tools/tqstat/test.o: CPPFLAGS += -DTQSTAT_BIN='"$(BIN)/tqstat"' \
	-DTQSUBMITD_BIN='"$(BIN)/tqsubmitd"'

BINS += $(BIN)/tqstat
TESTS += $(TESTBIN)/tqstat

$(BIN)/tqstat: $(OBJ)/tools/tqstat/tqstat.o $(OBJ)/tools/tqstat/counters.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(TESTBIN)/tqstat: $(OBJ)/tools/tqstat/test.o $(OBJ)/tools/tqstat/counters.o | $(BIN)/tqstat \
		$(BIN)/tqsubmitd
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

