# SPDX-License-Identifier: GPL-2.0
#
# selftests/: the one harness of user space's tests (tap.h, tap.sh, testutil.h),
# and the suites that are not a part's own: libtq's on both transports (the
# module's in the VM, tqsubmitd's here through socket_env.sh), the requeue
# stress test, the fuzzer and the hostile client, with tq_echod (the test
# scheduler) and tq_counter (the server's counters for shell tests).

LIBTQ_VM := $(addprefix $(TESTBIN)/,libtq_stress libtq_kill libtq_fork libtq_requeue libtq_chain \
	libtq_nodaemon)

# The same programs on both transports: the module's in the VM, tqsubmitd's here.
VM_TESTS += $(LIBTQ_VM)
SOCKET_TESTS += $(LIBTQ_VM)

# libtq's suites (selftests/libtq_*.c, their helpers libtq_util.c) and tq_counter.
LIBTQ_SELF_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(wildcard selftests/libtq_*.c selftests/tq_counter.c))
$(LIBTQ_SELF_OBJS): CPPFLAGS += -DTQ_ECHOD='"$(BIN)/tq_echod"' \
	-DTQSUBMITD='"$(BIN)/tqsubmitd"'
.SECONDARY: $(LIBTQ_SELF_OBJS)

$(TESTBIN)/libtq_%: $(OBJ)/selftests/libtq_%.o $(OBJ)/selftests/libtq_util.o $(LIB)/libtq.a \
		| $(BIN)/tq_echod
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The counters for shell tests on either transport (usched/daemon/tests/lib.sh).
$(TESTBIN)/tq_counter: $(OBJ)/selftests/tq_counter.o $(OBJ)/selftests/libtq_util.o $(LIB)/libtq.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BINS += $(TESTBIN)/tq_counter

# tq_echod: the test scheduler of the kselftests, libtq's suites and tqbench-ring.
$(BIN)/tq_echod: $(OBJ)/selftests/tq_echod.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -luring $(LDLIBS)

BINS += $(BIN)/tq_echod

# The requeue stress test: plain TAP (selftests/tap.h), tq_echod as its schedulers.
$(OBJ)/selftests/tqsubmit_requeue.o: CPPFLAGS += -DTQ_ECHOD='"$(BIN)/tq_echod"'
$(TESTBIN)/tqsubmit_requeue: $(OBJ)/selftests/tqsubmit_requeue.o | $(BIN)/tq_echod
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

VM_TESTS += $(TESTBIN)/tqsubmit_requeue

# The fuzzer (selftests/tq_fuzz.c) and the script that runs it against usched, on
# both transports.
$(TESTBIN)/tq_fuzz: $(OBJ)/selftests/tq_fuzz.o $(OBJ)/selftests/tq_fuzz_sock.o $(LIB)/libtqkernels.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

VM_TESTS += selftests/tq_fuzz.sh
SOCKET_TESTS += selftests/tq_fuzz.sh
selftests/tq_fuzz.sh: $(TESTBIN)/tq_fuzz $(BIN)/usched $(BIN)/tqdemo $(TESTBIN)/tq_counter

# The hostile-client suite: tq_hostile, one attacking client through libtq, and
# the script that runs each attack against usched while tqdemo clients run, on
# both transports.
$(BIN)/tq_hostile: $(OBJ)/selftests/tq_hostile.o $(LIB)/libtq.a $(LIB)/libtqkernels.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BINS += $(BIN)/tq_hostile
VM_TESTS += usched/daemon/tests/hostile.sh
SOCKET_TESTS += usched/daemon/tests/hostile.sh
usched/daemon/tests/hostile.sh: $(BIN)/tq_hostile $(BIN)/usched $(BIN)/tqdemo $(TESTBIN)/tq_counter

# usched's core and daemon: their files call each other in one direction (the built objects).
CHECK_SCRIPTS += script:selftests/layers.sh
