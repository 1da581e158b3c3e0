# SPDX-License-Identifier: GPL-2.0
#
# tools/: tqstat (the counters viewer, tools/tqstat/), tqdemo (a demo client
# of usched that make run and the end-to-end tests start) and the progress
# bar tqcalib and tqbench share (tools/progress.h). tqcalib, tqbench and the
# ring benchmark have fragments of their own (tools/*/build.mk).

# The progress bar: its object linked into each tool that shows it.
TOOLS_PROGRESS := $(OBJ)/tools/progress.o

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

# tqstat against the real usched and 8 clients, natively on the socket transport.
CHECK_SCRIPTS += script:tools/tqstat/live.sh
tools/tqstat/live.sh: $(BIN)/tqstat $(BIN)/usched $(BIN)/usched-build $(BIN)/tqsubmitd \
	$(BIN)/tqdemo $(TESTBIN)/tq_counter

# tqdemo: the client make run and the end-to-end tests start.
BINS += $(BIN)/tqdemo

$(BIN)/tqdemo: $(OBJ)/tools/tqdemo.o $(LIB)/libtq.a $(LIB)/libtqkernels.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
