# SPDX-License-Identifier: GPL-2.0
#
# tools/ring/: tqbench-ring, the transports against io_uring.
#
#   make bench-ring    tqbench-ring here (the socket) and in the test VM (the module and
#                      the socket; Documentation/results/ring-bench.md)

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
