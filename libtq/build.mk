# SPDX-License-Identifier: GPL-2.0
#
# libtq/: the client library of /dev/tqsubmit. libtq.a and libtq.so.VERSION
# (soname libtq.so.1, the symbol versions of libtq.map; links libtq.so.1 and
# libtq.so beside it) from the same position-independent objects. Users
# inside the tree include "libtq/tq.h" and link
# $(LIB)/libtq.a, or use $(LIB)/pkgconfig/libtq-uninstalled.pc. The
# installed libtq.pc is made by the top Makefile's install block.

# The version of libtq and of the whole of tq: debian/changelog, dkms.conf and
# the man pages' headers carry it too (scripts/test_dkms.sh and
# libtq/test_man.sh check them against this line; tqsim's and the tools'
# pages take it from here through help2man).
LIBTQ_VERSION := 1.4.0
LIBTQ_OBJS := $(addprefix $(OBJ)/libtq/,tq.o arena.o)
LIBTQ_NATIVE := $(addprefix $(TESTBIN)/libtq-,arena ring so transport)
LIBTQ_SO := $(LIB)/libtq.so.$(LIBTQ_VERSION)

LIBS += $(LIB)/libtq.a $(LIBTQ_SO) $(LIB)/libtq.so.1 $(LIB)/libtq.so \
	$(LIB)/pkgconfig/libtq-uninstalled.pc
TESTS += $(LIBTQ_NATIVE)
CHECK_SCRIPTS += script:libtq/test_man.sh

$(LIBTQ_OBJS): CFLAGS += -fPIC

$(LIB)/libtq.a: $(LIBTQ_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(LIBTQ_SO): $(LIBTQ_OBJS) libtq/libtq.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libtq.so.1 -Wl,--version-script=libtq/libtq.map \
		$(LDFLAGS) -o $@ $(LIBTQ_OBJS)

$(LIB)/libtq.so.1 $(LIB)/libtq.so: $(LIBTQ_SO)
	ln -sf $(notdir $<) $@

# libtq.pc.in with the given directories, and the version.
# LIBTQ_PC_SED PREFIX,LIBDIR,INCLUDEDIR
LIBTQ_PC_SED = sed -e 's|@PREFIX@|$(1)|' -e 's|@LIBDIR@|$(2)|' -e 's|@INCLUDEDIR@|$(3)|' \
	-e 's|@VERSION@|$(LIBTQ_VERSION)|'

# For use inside the tree: the headers and libraries where the build keeps
# them (pkg-config prefers NAME-uninstalled.pc on PKG_CONFIG_PATH).
$(LIB)/pkgconfig/libtq-uninstalled.pc: libtq/libtq.pc.in libtq/build.mk
	@mkdir -p $(dir $@)
	$(call LIBTQ_PC_SED,$(CURDIR),$(CURDIR)/$(LIB),$(CURDIR)/libtq) \
		-e 's|^Cflags: .*|& -I$(CURDIR)/include/uapi|' $< >$@

$(OBJ)/libtq/test_so.o: CPPFLAGS += -DLIBTQ_SO='"$(LIB)/libtq.so.1"'
.SECONDARY: $(patsubst $(TESTBIN)/libtq-%,$(OBJ)/libtq/test_%.o,$(LIBTQ_NATIVE))

$(TESTBIN)/libtq-so: $(OBJ)/libtq/test_so.o | $(LIB)/libtq.so.1
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl $(LDLIBS)

$(TESTBIN)/libtq-%: $(OBJ)/libtq/test_%.o $(LIB)/libtq.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Documentation/libtq.md's example, as the page has it, run in the test VM by
# scripts/run-client against usched (libtq/test_example.sh). scripts/test_install.sh
# also builds it with each of the page's command lines.
$(O)/gen/libtq-example.c: Documentation/libtq.md
	@mkdir -p $(dir $@)
	awk '/^## Example/ { f = 1 } f && /^```c$$/ { g = 1; next } g && /^```$$/ { exit } g' \
		$< >$@
	@test -s $@ || { echo "$<: no example" >&2; rm -f $@; exit 1; }

$(TESTBIN)/libtq-example: $(O)/gen/libtq-example.c $(LIB)/libtq.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ilibtq $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Clients of the ABI before the QoS revision (issue 45), built from git
# history, against this tq (libtq/test_compat.sh).
TQ_COMPAT_BASE ?= fd5b090
$(O)/compat/done: libtq/compat_build.sh
	CC="$(CC)" bash $< $(TQ_COMPAT_BASE) $(O)/compat

VM_TESTS += libtq/test_compat.sh
SOCKET_TESTS += libtq/test_compat.sh
libtq/test_compat.sh: $(O)/compat/done $(BIN)/usched $(TESTBIN)/tq_counter

VM_TESTS += libtq/test_example.sh
SOCKET_TESTS += libtq/test_example.sh
libtq/test_example.sh: $(TESTBIN)/libtq-example $(BIN)/usched $(TESTBIN)/tq_counter
