# SPDX-License-Identifier: GPL-2.0
#
# kernels/: the built-in OpenCL tasks, libtqkernels.a (tqkernels.h, tqk_cl.h),
# and the device with three queues that tqcalib and tqbench run them on
# (clx.h). Users outside kernels/ include "kernels/tqkernels.h" and link
# $(LIB)/libtqkernels.a, plus $(CLU_LIB) and -lOpenCL if they use tqk_cl.h
# or clx.h (their OpenCL plumbing is kernels/cl/clu.h's, kernels/cl/build.mk).

KERNELS_TASKS := mm bs fwt flw conv va mt dct syn
KERNELS_OBJS := $(addprefix $(OBJ)/kernels/,tasks.o cl.o clx.o $(addsuffix .o,$(KERNELS_TASKS)) \
	$(addprefix src_,$(addsuffix .o,$(KERNELS_TASKS))))
KERNELS_GEN := $(addprefix $(O)/gen/kernels/src_,$(addsuffix .c,$(KERNELS_TASKS)))

LIBS += $(LIB)/libtqkernels.a
TESTS += $(TESTBIN)/kernels-table $(TESTBIN)/kernels-cl

# Each kernels/<t>.cl becomes the C string tqk_src_<t>: escape \ and ",
# then quote each line and end it with \n.
$(O)/gen/kernels/src_%.c: kernels/%.cl kernels/build.mk
	@mkdir -p $(dir $@)
	{ echo '/* Generated from $< by kernels/build.mk. */'; \
	  echo 'const char tqk_src_$*[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } >$@.tmp && mv $@.tmp $@

# Keep the generated C so that make need not regenerate it every time.
.SECONDARY: $(KERNELS_GEN)

$(OBJ)/kernels/src_%.o: $(O)/gen/kernels/src_%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB)/libtqkernels.a: $(KERNELS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(TESTBIN)/kernels-table: $(OBJ)/kernels/test_table.o $(LIB)/libtqkernels.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(TESTBIN)/kernels-cl: $(OBJ)/kernels/test_cl.o $(LIB)/libtqkernels.a $(CLU_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lOpenCL $(LDLIBS)
