# SPDX-License-Identifier: GPL-2.0
#
# usched/tqsubmitd/: the tqsubmit ABI served from user space over Unix sockets
# (tqsubmitd(8)), and its native test, which speaks the raw protocol as
# clients and as schedulers against a tqsubmitd it starts.

TQSUBMITD_OBJS := $(addprefix $(OBJ)/usched/tqsubmitd/,main.o loop.o sched.o ctx.o state.o log.o)

BINS += $(BIN)/tqsubmitd
TESTS += $(TESTBIN)/tqsubmitd-proto

$(BIN)/tqsubmitd: $(TQSUBMITD_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -luring $(LDLIBS)

$(OBJ)/usched/tqsubmitd/test_proto.o: CPPFLAGS += -DTQSUBMITD_BIN='"$(BIN)/tqsubmitd"'

$(TESTBIN)/tqsubmitd-proto: $(OBJ)/usched/tqsubmitd/test_proto.o | $(BIN)/tqsubmitd
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Its metrics file (--metrics), against the counters on its socket.
CHECK_SCRIPTS += script:usched/tqsubmitd/test_metrics.sh
