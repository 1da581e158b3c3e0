# SPDX-License-Identifier: GPL-2.0
#
# usched/daemon/: the daemon usched (usched.c and the daemon's parts here) on
# top of libusched (usched/core/), its native tests, and the end-to-end tests
# (run in the test VM and on the socket) with the client tqdemo (tools/build.mk).

DAEMON_OBJS := $(addprefix $(OBJ)/usched/daemon/,conf.o loop.o ctx.o qos.o build.o state.o \
	cache.o metrics.o log.o)
DAEMON_LIBS := $(LIB)/libusched.a $(LIB)/libtqsim.a $(LIB)/libtqkernels.a $(CLU_LIB)

BINS += $(BIN)/usched $(BIN)/usched-build
TESTS += $(TESTBIN)/daemon-parts $(TESTBIN)/daemon-marks

$(BIN)/usched: $(OBJ)/usched/daemon/usched.o $(DAEMON_OBJS) $(DAEMON_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(USCHED_LINK) -luring $(LDLIBS)

# The process each build of OpenCL C source runs in (build.c).
$(BIN)/usched-build: $(OBJ)/usched/daemon/build_child.o $(LIB)/libtqkernels.a $(CLU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)

# Settings, limits, metrics and the state file, natively (no module); builds in
# the usched-build child where OpenCL has a device.
$(OBJ)/usched/daemon/test_parts.o: CPPFLAGS += -DUSCHED_BUILD_BIN='"$(BIN)/usched-build"'

$(TESTBIN)/daemon-parts: $(OBJ)/usched/daemon/test_parts.o $(DAEMON_OBJS) $(DAEMON_LIBS) \
		$(BIN)/usched-build
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(USCHED_LINK) -luring $(LDLIBS)

# Started marks and the re-execution of device recovery, natively.
$(TESTBIN)/daemon-marks: $(OBJ)/usched/daemon/test_marks.o $(DAEMON_OBJS) $(DAEMON_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(USCHED_LINK) -luring $(LDLIBS)

# End to end in the test VM: usched, tqdemo clients, kills and restarts.
VM_TESTS += usched/daemon/tests/e2e_daemon.sh
usched/daemon/tests/e2e_daemon.sh: $(BIN)/usched $(BIN)/tqdemo
# usched killed 50 times mid-run, and an endless kernel: requeue semantics, the watchdog.
VM_TESTS += usched/daemon/tests/e2e_kill.sh
usched/daemon/tests/e2e_kill.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqdemo
# The same natively on the socket: usched starts tqsubmitd, is killed, restarts, re-executes.
CHECK_SCRIPTS += script:usched/daemon/tests/e2e_socket.sh
# The cache across restarts: calibration and programs kept, bad entries rebuilt, cache-max.
CHECK_SCRIPTS += script:usched/daemon/tests/cache.sh
usched/daemon/tests/cache.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqdemo $(BIN)/tqsubmitd
# Settings checked before attaching: usched --check-config, FILE:LINE messages, drop-ins.
CHECK_SCRIPTS += script:usched/daemon/tests/conf.sh
usched/daemon/tests/conf.sh: $(BIN)/usched
usched/daemon/tests/e2e_socket.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqdemo $(TESTBIN)/tq_counter

# Limits and the program policy against the real usched, in the test VM, with
# limits_client (usched/daemon/tests/limits_client.c) doing what each limit refuses.
$(TESTBIN)/limits_client: $(OBJ)/usched/daemon/tests/limits_client.o $(LIB)/libtq.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

VM_TESTS += usched/daemon/tests/limits.sh
usched/daemon/tests/limits.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqdemo $(BIN)/tqstat \
	$(TESTBIN)/limits_client

# Chains (TQ_DESC_F_AFTER) through the real usched: in order, cancelled behind a refused head.
VM_TESTS += usched/daemon/tests/prio.sh
SOCKET_TESTS += usched/daemon/tests/prio.sh
usched/daemon/tests/prio.sh: $(BIN)/usched $(TESTBIN)/limits_client

VM_TESTS += usched/daemon/tests/chain.sh
SOCKET_TESTS += usched/daemon/tests/chain.sh
usched/daemon/tests/chain.sh: $(BIN)/usched $(TESTBIN)/limits_client $(TESTBIN)/tq_counter

# isolate-source: an ordinary user's source and built-ins in a context of its own, the shipped conf.
SOCKET_TESTS += usched/daemon/tests/isolate.sh
usched/daemon/tests/isolate.sh: $(BIN)/usched $(BIN)/usched-build $(TESTBIN)/limits_client \
	$(TESTBIN)/tq_counter

# The trace through the real usched: per-client tracks, flows, tqstat --trace stop and start.
VM_TESTS += usched/daemon/tests/trace.sh
SOCKET_TESTS += usched/daemon/tests/trace.sh
usched/daemon/tests/trace.sh: $(BIN)/usched $(BIN)/usched-build $(BIN)/tqstat \
	$(TESTBIN)/limits_client $(TESTBIN)/tq_counter

# Per-client accounting: two uids' tasks under their own labels, metrics-clients' other.
SOCKET_TESTS += usched/daemon/tests/accounting.sh
usched/daemon/tests/accounting.sh: $(BIN)/usched $(BIN)/usched-build $(TESTBIN)/limits_client \
	$(TESTBIN)/tq_counter

# A built-in's size m from its plan, and tg-log / task-log, through the real usched.
VM_TESTS += usched/daemon/tests/sizes.sh
SOCKET_TESTS += usched/daemon/tests/sizes.sh
usched/daemon/tests/sizes.sh: $(BIN)/usched $(BIN)/tqdemo $(TESTBIN)/tq_counter

# libtq's errors through the real usched: no scheduler (-EHOSTDOWN), unknown names and ids.
VM_TESTS += usched/daemon/tests/errors.sh
SOCKET_TESTS += usched/daemon/tests/errors.sh
usched/daemon/tests/errors.sh: $(BIN)/usched $(TESTBIN)/limits_client $(TESTBIN)/tq_counter
