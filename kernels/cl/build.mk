# SPDX-License-Identifier: GPL-2.0
#
# kernels/cl/: libtqcl_util.a, the OpenCL helpers (kernels/cl/tqcl_util.h) and the transfer
# calibration (kernels/cl/tqcl_calib.h) that usched, kernels/ (tqk_cl.h), tqcalib
# and tqbench share. Users include "kernels/cl/tqcl_util.h" and link
# $(LIB)/libtqcl_util.a after libtqkernels.a, then -lOpenCL; the
# calibration also needs libtqsim.a after it. kernels/cl/fit.o needs no OpenCL.

TQCL_UTIL_OBJS := $(addprefix $(OBJ)/kernels/cl/,util.o fit.o calib.o)
TQCL_UTIL := $(LIB)/libtqcl_util.a

LIBS += $(TQCL_UTIL)

$(TQCL_UTIL): $(TQCL_UTIL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# cl-region: registered host memory keeps the host's bytes (kernels/cl/test_region.c)
TESTS += $(TESTBIN)/cl-region

$(TESTBIN)/cl-region: $(OBJ)/kernels/cl/test_region.o $(TQCL_UTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)
