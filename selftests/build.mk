# SPDX-License-Identifier: GPL-2.0
# The module's kselftests, run in the test VM, and tq_echod, the test
# scheduler they (and libtq's tests) drive. The selftests need the kselftest
# harness extracted from linux-source (LINUX_SRC, see the top Makefile).
TQ_KSFT_CFLAGS := -I$(LINUX_SRC)/tools/testing/selftests -Wno-unused-parameter \
	-Wno-sign-compare \
	-DTQ_ECHOD='"$(BIN)/tq_echod"'
TQ_SELFTESTS := $(TESTBIN)/tqsubmit_abi $(TESTBIN)/tqsubmit_life $(TESTBIN)/tqsubmit_isolation \
	$(TESTBIN)/tqsubmit_enter $(TESTBIN)/tqsubmit_started

$(TQ_SELFTESTS): $(TESTBIN)/%: selftests/%.c selftests/tq_util.h selftests/tq_sysfs.h \
		selftests/tq_desc_cases.h include/tq/clock.h $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TQ_KSFT_CFLAGS) -o $@ $< $(LDFLAGS) $(LDLIBS)

$(TESTBIN)/tqsubmit_life $(TESTBIN)/tqsubmit_enter $(TESTBIN)/tqsubmit_started: | $(BIN)/tq_echod

$(BIN)/tq_echod: $(OBJ)/selftests/tq_echod.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -luring $(LDLIBS)

# The requeue stress test: plain TAP (tools/tap.h), tq_echod as its schedulers.
$(OBJ)/selftests/tqsubmit_requeue.o: CPPFLAGS += -DTQ_ECHOD='"$(BIN)/tq_echod"'
$(TESTBIN)/tqsubmit_requeue: $(OBJ)/selftests/tqsubmit_requeue.o | $(BIN)/tq_echod
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BINS += $(BIN)/tq_echod
VM_TESTS += $(TQ_SELFTESTS) $(TESTBIN)/tqsubmit_requeue

# The fuzzer (selftests/tq_fuzz.c) and the VM script that runs it against usched.
$(TESTBIN)/tq_fuzz: $(OBJ)/selftests/tq_fuzz.o $(LIB)/libtqkernels.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

VM_TESTS += selftests/tq_fuzz.sh
selftests/tq_fuzz.sh: $(TESTBIN)/tq_fuzz $(BIN)/usched $(BIN)/tqdemo

# The hostile-client suite: tq_hostile, one attacking client through libtq, and
# the VM script that runs each attack against usched while tqdemo clients run.
$(BIN)/tq_hostile: $(OBJ)/selftests/tq_hostile.o $(LIB)/libtq.a $(LIB)/libtqkernels.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

BINS += $(BIN)/tq_hostile
VM_TESTS += daemon/usched/tests/hostile.sh
daemon/usched/tests/hostile.sh: $(BIN)/tq_hostile $(BIN)/usched $(BIN)/tqdemo
