# SPDX-License-Identifier: GPL-2.0
#
# usched/core/: the scheduling core libusched.a (usched/core/usched.h) and its tests.
# Users include "usched/core/usched.h" and link $(USCHED_LINK). Its OpenCL
# plumbing and start-up calibration are libclu.a's (kernels/cl/build.mk).

USCHED_OBJS := $(addprefix $(OBJ)/usched/core/,core.o submit.o form.o jit.o complete.o exec.o objects.o model.o plans.o trace.o)
USCHED_LINK := $(LIB)/libusched.a $(LIB)/libtqsim.a $(LIB)/libtqkernels.a $(CLU_LIB) -lOpenCL
USCHED_TESTS := $(addprefix $(TESTBIN)/usched-,model queues inproc api jit plans plankeys ids refine qos \
	poll hygiene watchdog sizes faults domains trace)

LIBS += $(LIB)/libusched.a
TESTS += $(USCHED_TESTS)

$(LIB)/libusched.a: $(USCHED_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(TESTBIN)/usched-%: $(OBJ)/usched/core/test_%.o $(OBJ)/usched/core/testlib.o $(LIB)/libusched.a \
		$(LIB)/libtqsim.a $(LIB)/libtqkernels.a $(CLU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(USCHED_LINK) $(LDLIBS)
