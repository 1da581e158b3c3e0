# SPDX-License-Identifier: GPL-2.0
#
# lib/cl/: libtqcl_util.a, the OpenCL helpers (lib/cl/tqcl_util.h) and the transfer
# calibration (lib/cl/tqcl_calib.h) that usched, lib/kernels/ (tqk_cl.h), tqcalib
# and tqbench share. Users include "lib/cl/tqcl_util.h" and link
# $(LIB)/libtqcl_util.a after libtqkernels.a, then -lOpenCL; the
# calibration also needs libtqsim.a after it. lib/cl/fit.o needs no OpenCL.

TQCL_UTIL_OBJS := $(addprefix $(OBJ)/lib/cl/,util.o fit.o calib.o)
TQCL_UTIL := $(LIB)/libtqcl_util.a

LIBS += $(TQCL_UTIL)

$(TQCL_UTIL): $(TQCL_UTIL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# cl-region: registered host memory keeps the host's bytes (lib/cl/test_region.c)
TESTS += $(TESTBIN)/cl-region

$(TESTBIN)/cl-region: $(OBJ)/lib/cl/test_region.o $(TQCL_UTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)
