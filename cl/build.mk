# SPDX-License-Identifier: GPL-2.0
#
# cl/: libtqcl_util.a, the OpenCL helpers (cl/tqcl_util.h) and the transfer
# calibration (cl/tqcl_calib.h) that usched, kernels/ (tqk_cl.h), tqcalib
# and tqbench share. Users include "cl/tqcl_util.h" and link
# $(LIB)/libtqcl_util.a after libtqkernels.a, then -lOpenCL; the
# calibration also needs libtqsim.a after it. cl/fit.o needs no OpenCL.

TQCL_UTIL_OBJS := $(addprefix $(OBJ)/cl/,util.o fit.o calib.o)
TQCL_UTIL := $(LIB)/libtqcl_util.a

LIBS += $(TQCL_UTIL)

$(TQCL_UTIL): $(TQCL_UTIL_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
