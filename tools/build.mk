# SPDX-License-Identifier: GPL-2.0
#
# tools/: tqstat (the counters viewer, tools/tqstat/) and tqdemo (a demo
# client of usched, usched/daemon/build.mk builds it).

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

