# SPDX-License-Identifier: GPL-2.0
#
# tools/tqbench/: tqbench, the paper's experiments, the stream and the open
# loop (Documentation/results/), in-process and through the usched daemon
# with worker processes. Its device with three queues and its tasks are
# libtqkernels.a's (kernels/clx.h), the progress bar tools/build.mk's.

TQBENCH_OBJS := $(addprefix $(OBJ)/tools/tqbench/,tqbench.o tasks.o runners.o orders.o \
	trials.o independent.o stream.o openloop.o openloop_indep.o indep.o indep_serve.o steady.o proc.o \
	proc_daemon.o proc_workers.o proc_openloop.o report.o report_svg.o report_md.o \
	report_openloop.o qos.o report_qos.o replot.o svg.o)

BINS += $(BIN)/tqbench

# --workers process: the workers are libtq clients of the usched daemon.
$(BIN)/tqbench: $(TQBENCH_OBJS) $(TOOLS_PROGRESS) $(LIB)/libusched.a $(LIB)/libtqsim.a \
		$(LIB)/libtqkernels.a $(LIB)/libclu.a $(LIB)/libtq.a | $(BIN)/usched
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
