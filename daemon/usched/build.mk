# SPDX-License-Identifier: GPL-2.0
#
# daemon/usched/: the daemon usched (usched.c and the daemon's parts here) on
# top of libusched (lib/usched/), its native tests, the client tqdemo that make run and the
# end-to-end tests use, and the end-to-end tests (run in the test VM).

DAEMON_OBJS := $(addprefix $(OBJ)/daemon/usched/,conf.o loop.o ctx.o build.o state.o \
	metrics.o log.o)
DAEMON_LIBS := $(LIB)/libusched.a $(LIB)/libtqsim.a $(LIB)/libtqkernels.a $(TQCL_UTIL)

BINS += $(BIN)/usched $(BIN)/usched-build
TESTS += $(TESTBIN)/daemon-parts $(TESTBIN)/daemon-marks

$(BIN)/usched: $(OBJ)/daemon/usched/usched.o $(DAEMON_OBJS) $(DAEMON_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(USCHED_LINK) -luring $(LDLIBS)

# The process each build of OpenCL C source runs in (build.c).
$(BIN)/usched-build: $(OBJ)/daemon/usched/build_child.o $(LIB)/libtqkernels.a $(TQCL_UTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)

# Settings, limits, metrics and the state file, natively (no module); builds in
# the usched-build child where OpenCL has a device.
$(OBJ)/daemon/usched/test_parts.o: CPPFLAGS += -DUSCHED_BUILD_BIN='"$(BIN)/usched-build"'

$(TESTBIN)/daemon-parts: $(OBJ)/daemon/usched/test_parts.o $(DAEMON_OBJS) $(DAEMON_LIBS) \
		$(BIN)/usched-build
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(USCHED_LINK) -luring $(LDLIBS)

# Started marks and the re-execution of device recovery, natively.
$(TESTBIN)/daemon-marks: $(OBJ)/daemon/usched/test_marks.o $(DAEMON_OBJS) $(DAEMON_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(USCHED_LINK) -luring $(LDLIBS)

# tqdemo: the client make run and the end-to-end tests start.
BINS += $(BIN)/tqdemo

$(BIN)/tqdemo: $(OBJ)/tools/tqdemo.o $(LIB)/libtq.a $(LIB)/libtqkernels.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# End to end in the test VM: usched, tqdemo clients, kills and restarts.
VM_TESTS += daemon/usched/tests/e2e_daemon.sh
daemon/usched/tests/e2e_daemon.sh: $(BIN)/usched $(BIN)/tqdemo
# usched killed 50 times mid-run, and an endless kernel: requeue semantics, the watchdog.
VM_TESTS += daemon/usched/tests/e2e_kill.sh
daemon/usched/tests/e2e_kill.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqdemo
# The same natively on the socket: usched starts tqsubmitd, is killed, restarts, re-executes.
CHECK_SCRIPTS += script:daemon/usched/tests/e2e_socket.sh
daemon/usched/tests/e2e_socket.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqdemo $(TESTBIN)/tq_counter

# Limits and the program policy against the real usched, in the test VM, with
# limits_client (daemon/usched/tests/limits_client.c) doing what each limit refuses.
$(TESTBIN)/limits_client: $(OBJ)/daemon/usched/tests/limits_client.o $(LIB)/libtq.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

VM_TESTS += daemon/usched/tests/limits.sh
daemon/usched/tests/limits.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqdemo $(BIN)/tqstat \
	$(TESTBIN)/limits_client

# Chains (TQ_DESC_F_AFTER) through the real usched: in order, cancelled behind a refused head.
VM_TESTS += daemon/usched/tests/chain.sh
SOCKET_TESTS += daemon/usched/tests/chain.sh
daemon/usched/tests/chain.sh: $(BIN)/usched $(TESTBIN)/limits_client $(TESTBIN)/tq_counter

# A built-in's size m from its plan, and tg-log / task-log, through the real usched.
VM_TESTS += daemon/usched/tests/sizes.sh
SOCKET_TESTS += daemon/usched/tests/sizes.sh
daemon/usched/tests/sizes.sh: $(BIN)/usched $(BIN)/tqdemo $(TESTBIN)/tq_counter
