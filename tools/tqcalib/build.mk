# SPDX-License-Identifier: GPL-2.0
#
# tools/tqcalib/: tqcalib, the device calibration (the profile usched and
# tqbench read). Its device with three queues and its tasks are
# libtqkernels.a's (kernels/clx.h), the OpenCL helpers and the transfer
# calibration with its fits libclu.a's (kernels/cl/build.mk), the
# progress bar tools/build.mk's.

BINS += $(BIN)/tqcalib
TESTS += $(TESTBIN)/tqcalib

$(BIN)/tqcalib: $(OBJ)/tools/tqcalib/tqcalib.o $(OBJ)/tools/tqcalib/pairs.o \
		$(OBJ)/tools/tqcalib/fit.o $(TOOLS_PROGRESS) $(LIB)/libtqkernels.a \
		$(LIB)/libclu.a $(LIB)/libtqsim.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)

$(OBJ)/tools/tqcalib/test.o: CPPFLAGS += -DTQCALIB_BIN='"$(BIN)/tqcalib"' \
	-DTQCALIB_SPLIT='"tools/tqcalib/pairs-split.txt"'

# the fits alone (kernels/cl/fit.o, fit.o), no OpenCL
$(TESTBIN)/tqcalib: $(OBJ)/tools/tqcalib/test.o $(OBJ)/tools/tqcalib/fit.o $(LIB)/libclu.a \
		$(LIB)/libtqsim.a | $(BIN)/tqcalib
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
