# SPDX-License-Identifier: GPL-2.0
#
# bench/: tqcalib (the device calibration), tqbench (the paper's
# experiments, the stream, the open loop: Documentation/results/) and
# tqbench-ring (the transports against io_uring).
#
#   make bench-ring    tqbench-ring here (the socket) and in the test VM (the module and
#                      the socket; Documentation/results/ring-bench.md)

# tqcalib's shared pieces (the device with its three queues, tasks, the
# progress bar) also build tqbench. The OpenCL helpers under them and the
# transfer calibration with its fits are libtqcl_util.a's (kernels/cl/build.mk),
# which usched uses too.
CALIB_OBJS := $(addprefix $(OBJ)/tools/tqcalib/,clx.o progress.o)

BINS += $(BIN)/tqcalib
TESTS += $(TESTBIN)/tqcalib

$(BIN)/tqcalib: $(OBJ)/tools/tqcalib/tqcalib.o $(CALIB_OBJS) $(LIB)/libtqkernels.a \
		$(LIB)/libtqcl_util.a $(LIB)/libtqsim.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)

$(OBJ)/tools/tqcalib/test.o: CPPFLAGS += -DTQCALIB_BIN='"$(BIN)/tqcalib"'

# the fits alone (kernels/cl/fit.o), no OpenCL
$(TESTBIN)/tqcalib: $(OBJ)/tools/tqcalib/test.o $(LIB)/libtqcl_util.a $(LIB)/libtqsim.a | $(BIN)/tqcalib
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

TQBENCH_OBJS := $(addprefix $(OBJ)/tools/tqbench/,tqbench.o tasks.o runners.o orders.o trials.o independent.o stream.o indep_serve.o report.o report_svg.o report_md.o report_openloop.o svg.o proc.o proc_daemon.o proc_workers.o proc_openloop.o steady.o openloop.o indep.o)

BINS += $(BIN)/tqbench

# --workers process: the workers are libtq clients of the usched daemon.
$(BIN)/tqbench: $(TQBENCH_OBJS) $(CALIB_OBJS) $(LIB)/libusched.a $(LIB)/libtqsim.a \
		$(LIB)/libtqkernels.a $(LIB)/libtqcl_util.a $(LIB)/libtq.a | $(BIN)/usched
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

# tqbench-ring: libtq's clients through each transport to tq_echod, against
# io_uring NOPs. It starts tq_echod and tqsubmitd itself (selftests/libtq_util.c).
$(OBJ)/tools/ring/tqbench_ring.o: CPPFLAGS += -DTQ_ECHOD='"$(BIN)/tq_echod"' \
	-DTQSUBMITD='"$(BIN)/tqsubmitd"'

BINS += $(BIN)/tqbench-ring

$(BIN)/tqbench-ring: $(OBJ)/tools/ring/tqbench_ring.o $(OBJ)/selftests/libtq_util.o \
		$(LIB)/libtq.a | $(BIN)/tq_echod
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -luring $(LDLIBS)

.PHONY: bench-ring
# Here the socket alone (no module on these machines), then in the VM both
# transports, each run against its own io_uring NOPs.
bench-ring: module $(BIN)/tqbench-ring $(BIN)/tqsubmitd
	@echo "== tqbench-ring here: tqsubmitd's socket"
	$(BIN)/tqbench-ring -T socket
	@echo "== tqbench-ring in the test VM: the module and tqsubmitd's socket"
	scripts/vm --timeout 600 -- $(BIN)/tqbench-ring
