# SPDX-License-Identifier: GPL-2.0
#
# tools/tqstat, tools/tqcalib, tools/tqbench: the counters viewer, the
# device calibration and the benchmarks (Documentation/results/).

$(OBJ)/tools/tqstat/test.o: CPPFLAGS += -DTQSTAT_BIN='"$(BIN)/tqstat"'

BINS += $(BIN)/tqstat
TESTS += $(TESTBIN)/tqstat

$(BIN)/tqstat: $(OBJ)/tools/tqstat/tqstat.o $(OBJ)/tools/tqstat/counters.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(TESTBIN)/tqstat: $(OBJ)/tools/tqstat/test.o $(OBJ)/tools/tqstat/counters.o | $(BIN)/tqstat
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
