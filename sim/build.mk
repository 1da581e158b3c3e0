# SPDX-License-Identifier: GPL-2.0
#
# sim/: libtqsim.a (the model and the ordering policies, sim/tqsim.h) and the
# tqsim tool (sim/tqsim.c and sim/cli/). Users outside sim/ include
# "sim/tqsim.h" and link $(LIB)/libtqsim.a. The library is every other
# sim/*.c: the model (model.c, concurrent.c, profile.c, clock.c) and the
# policies, one file each (fifo.c, paper.c, neh.c, exact.c with bound.c,
# auto.c with auto_resume.c, flow.c), with what they share in policy.c and
# policy.h, and their list in policies.c.
#
#   make sim-eval    the evaluation: Documentation/results/sim-eval.{md,svg}
#   make sim-bench   the speed benchmarks

SIM_LIB_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(filter-out sim/tqsim.c,$(wildcard sim/*.c)))
SIM_CLI_OBJS := $(patsubst %.c,$(OBJ)/%.o,sim/tqsim.c $(wildcard sim/cli/*.c))
SIM_TESTS := $(addprefix $(TESTBIN)/sim-,model policy golden cli share qos)

LIBS += $(LIB)/libtqsim.a
BINS += $(BIN)/tqsim
TESTS += $(SIM_TESTS)
CHECK_SCRIPTS += script:sim/tests/data_tables.sh

$(LIB)/libtqsim.a: $(SIM_LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(BIN)/tqsim: $(SIM_CLI_OBJS) $(LIB)/libtqsim.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The golden and CLI tests run the tool; tests run from the top directory.
$(OBJ)/sim/tests/%.o: CPPFLAGS += -DTQSIM_BIN='"$(BIN)/tqsim"'

# Keep the test objects (make would delete them as intermediates).
.SECONDARY: $(patsubst $(TESTBIN)/sim-%,$(OBJ)/sim/tests/%.o,$(SIM_TESTS))

$(TESTBIN)/sim-%: $(OBJ)/sim/tests/%.o $(LIB)/libtqsim.a | $(BIN)/tqsim
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: sim-eval sim-bench
sim-eval: $(BIN)/tqsim
	$(BIN)/tqsim eval --data data --out Documentation/results/sim-eval.md \
		--svg Documentation/results/sim-eval.svg

sim-bench: $(BIN)/tqsim
	$(BIN)/tqsim bench --data data
