# SPDX-License-Identifier: GPL-2.0
#
# libtq/layer/: libtqcl.so, the OpenCL layer that runs unmodified OpenCL programs'
# write -> kernel -> read work through tq (Documentation/opencl-layer.md).
# ocl-icd loads it with OPENCL_LAYERS=$(LIB)/libtqcl.so. It links libtq's
# position-independent objects statically: a program under the layer needs
# nothing of tq's but this one file.

TQCL_OBJS := $(addprefix $(OBJ)/libtq/layer/,api.o stats.o track.o program.o events.o enqueue.o \
	pass.o objects.o capture.o copy.o)
TQCL_SO := $(LIB)/libtqcl.so
TQCL_LIBTQ := $(LIBTQ_OBJS)

LIBS += $(TQCL_SO)

$(TQCL_OBJS): CFLAGS += -fPIC -fvisibility=hidden

$(TQCL_SO): $(TQCL_OBJS) $(TQCL_LIBTQ) libtq/layer/tqcl.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libtqcl.so -Wl,--version-script=libtq/layer/tqcl.map \
		$(LDFLAGS) -o $@ $(TQCL_OBJS) $(TQCL_LIBTQ)

# clcopyk: a copy-kernel-copy loop on plain OpenCL (never links tq), the
# workload of libtq/layer/tqcl-bench and of the layer's own tests.
BINS += $(BIN)/clcopyk
$(OBJ)/libtq/layer/clcopyk.o: CFLAGS += -Wno-deprecated-declarations

$(BIN)/clcopyk: $(OBJ)/libtq/layer/clcopyk.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)

# The conformance test: plain OpenCL, run on the driver alone (TESTS) and
# by libtq/layer/tests/conform.sh under the layer, whose lines must be the same.
TESTS += $(TESTBIN)/tqcl-conform
$(OBJ)/libtq/layer/test_conform.o: CFLAGS += -Wno-deprecated-declarations

$(TESTBIN)/tqcl-conform: $(OBJ)/libtq/layer/test_conform.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)

# The suites: natively on the socket transport once tqsubmitd is built
# (else they skip, saying why), and the conformance suite in the test VM
# on the module. apps.sh runs programs of Debian packages (scripts/deps).
CHECK_SCRIPTS += script:libtq/layer/tests/conform.sh script:libtq/layer/tests/apps.sh \
	script:libtq/layer/tests/apps-user.sh \
	script:libtq/layer/tests/bench.sh script:libtq/layer/tests/kernels.sh
VM_TESTS += libtq/layer/tests/conform.sh libtq/layer/tests/bench.sh
libtq/layer/tests/conform.sh: $(TESTBIN)/tqcl-conform $(TQCL_SO) $(BIN)/usched
libtq/layer/tests/bench.sh: $(BIN)/clcopyk $(TQCL_SO) $(BIN)/usched
libtq/layer/tests/kernels.sh: $(BIN)/clcopyk $(TQCL_SO) $(BIN)/usched
