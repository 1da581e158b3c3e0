# SPDX-License-Identifier: GPL-2.0
#
# kernels/cl/: libclu.a, the OpenCL helpers (kernels/cl/clu.h) and the transfer
# calibration (kernels/cl/clu_calib.h) that usched, kernels/ (tqk_cl.h), tqcalib
# and tqbench share. Users include "kernels/cl/clu.h" and link
# $(LIB)/libclu.a after libtqkernels.a, then -lOpenCL; the
# calibration also needs libtqsim.a after it. kernels/cl/fit.o needs no OpenCL.

CLU_OBJS := $(addprefix $(OBJ)/kernels/cl/,util.o fit.o calib.o)
CLU_LIB := $(LIB)/libclu.a

LIBS += $(CLU_LIB)

$(CLU_LIB): $(CLU_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# cl-region: registered host memory keeps the host's bytes (kernels/cl/test_region.c)
TESTS += $(TESTBIN)/cl-region

$(TESTBIN)/cl-region: $(OBJ)/kernels/cl/test_region.o $(CLU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)
