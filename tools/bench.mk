# SPDX-License-Identifier: GPL-2.0
#
# tools/tqstat, tools/tqcalib, tools/tqbench: the counters viewer, the
# device calibration and the benchmarks (Documentation/results/).

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

# tqcalib's shared pieces (the device with its three queues, tasks, the
# progress bar) also build tqbench. The OpenCL helpers under them and the
# transfer calibration with its fits are libtqcl_util.a's (cl/build.mk),
# which usched uses too.
CALIB_OBJS := $(addprefix $(OBJ)/tools/tqcalib/,clx.o progress.o)

BINS += $(BIN)/tqcalib
TESTS += $(TESTBIN)/tqcalib

$(BIN)/tqcalib: $(OBJ)/tools/tqcalib/tqcalib.o $(CALIB_OBJS) $(LIB)/libtqkernels.a \
		$(TQCL_UTIL) $(LIB)/libtqsim.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)

$(OBJ)/tools/tqcalib/test.o: CPPFLAGS += -DTQCALIB_BIN='"$(BIN)/tqcalib"'

# the fits alone (cl/fit.o), no OpenCL
$(TESTBIN)/tqcalib: $(OBJ)/tools/tqcalib/test.o $(TQCL_UTIL) $(LIB)/libtqsim.a | $(BIN)/tqcalib
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TQBENCH_OBJS := $(addprefix $(OBJ)/tools/tqbench/,tqbench.o tasks.o run.o report.o proc.o steady.o openloop.o indep.o)

BINS += $(BIN)/tqbench

# --workers process: the workers are libtq clients of the usched daemon.
$(BIN)/tqbench: $(TQBENCH_OBJS) $(CALIB_OBJS) $(LIB)/libusched.a $(LIB)/libtqsim.a \
		$(LIB)/libtqkernels.a $(TQCL_UTIL) $(LIB)/libtq.a | $(BIN)/usched
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB)/libtq.a $(USCHED_LINK) $(LDLIBS)

# The smoke test runs both tools on PoCL; the paper's tables come from data.
TESTS += $(TESTBIN)/tqbench

$(OBJ)/tools/tqbench/test.o: CPPFLAGS += -DTQCALIB_BIN='"$(BIN)/tqcalib"' \
	-DTQBENCH_BIN='"$(BIN)/tqbench"' -DTQ_DATA='"data"'

$(TESTBIN)/tqbench: $(OBJ)/tools/tqbench/test.o | $(BIN)/tqbench $(BIN)/tqcalib
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# --workers process end to end, in the test VM: usched, worker processes, failures.
VM_TESTS += tools/tqbench/test_proc.sh
SOCKET_TESTS += tools/tqbench/test_proc.sh
tools/tqbench/test_proc.sh: $(BIN)/tqbench $(BIN)/usched $(BIN)/tq_echod $(TESTBIN)/tq_counter
