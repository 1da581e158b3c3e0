# SPDX-License-Identifier: GPL-2.0
#
# libtq/: the client library of /dev/tqsubmit. libtq.a and libtq.so.1 (with
# the symbol versions of libtq.map) from the same position-independent
# objects; libtq.pc for pkg-config. Users inside the tree include
# "../libtq/tq.h" (or -Ilibtq) and link $(LIB)/libtq.a.
#
#   make install-libtq [PREFIX=/usr/local] [DESTDIR=]
#   make bench-ring    tqbench-ring in the test VM (Documentation/results/ring-bench.md)

LIBTQ_VERSION := 1.1.0
LIBTQ_OBJS := $(addprefix $(OBJ)/libtq/,tq.o arena.o)
LIBTQ_NATIVE := $(addprefix $(TESTBIN)/libtq-,arena ring so)
LIBTQ_VM := $(addprefix $(TESTBIN)/,libtq_stress libtq_kill libtq_fork libtq_requeue \
	libtq_nodaemon)
PREFIX ?= /usr/local

LIBS += $(LIB)/libtq.a $(LIB)/libtq.so.1 $(LIB)/pkgconfig/libtq.pc
BINS += $(BIN)/tqbench-ring
TESTS += $(LIBTQ_NATIVE)
VM_TESTS += $(LIBTQ_VM)
CHECK_SCRIPTS += script:libtq/test_man.sh

$(LIBTQ_OBJS): CFLAGS += -fPIC

$(LIB)/libtq.a: $(LIBTQ_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB)/libtq.so.1: $(LIBTQ_OBJS) libtq/libtq.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libtq.so.1 -Wl,--version-script=libtq/libtq.map \
		$(LDFLAGS) -o $@ $(LIBTQ_OBJS)

$(LIB)/pkgconfig/libtq.pc: libtq/libtq.pc.in libtq/build.mk
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBTQ_VERSION)|' $< >$@

# Native tests see libtq's private header.
$(OBJ)/libtq/test_%.o: CPPFLAGS += -Itools -Ilibtq
$(OBJ)/libtq/test_so.o: CPPFLAGS += -DLIBTQ_SO='"$(LIB)/libtq.so.1"'
.SECONDARY: $(patsubst $(TESTBIN)/libtq-%,$(OBJ)/libtq/test_%.o,$(LIBTQ_NATIVE))

$(TESTBIN)/libtq-so: $(OBJ)/libtq/test_so.o | $(LIB)/libtq.so.1
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl $(LDLIBS)

$(TESTBIN)/libtq-%: $(OBJ)/libtq/test_%.o $(LIB)/libtq.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Tests in the VM and the benchmark: selftests/libtq_*.c, selftests/tqbench_ring.c.
LIBTQ_SELF_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(wildcard selftests/libtq_*.c selftests/tqbench_ring.c))
$(LIBTQ_SELF_OBJS): CPPFLAGS += -Itools -Ilibtq -DTQ_ECHOD='"$(BIN)/tq_echod"'
.SECONDARY: $(LIBTQ_SELF_OBJS)

$(TESTBIN)/libtq_%: $(OBJ)/selftests/libtq_%.o $(OBJ)/selftests/libtq_util.o $(LIB)/libtq.a \
		| $(BIN)/tq_echod
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BIN)/tqbench-ring: $(OBJ)/selftests/tqbench_ring.o $(OBJ)/selftests/libtq_util.o \
		$(LIB)/libtq.a | $(BIN)/tq_echod
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -luring $(LDLIBS)

.PHONY: install-libtq bench-ring
install-libtq: $(LIB)/libtq.a $(LIB)/libtq.so.1 $(LIB)/pkgconfig/libtq.pc
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/linux \
		$(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 $(LIB)/libtq.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB)/libtq.so.1 $(DESTDIR)$(PREFIX)/lib/
	ln -sf libtq.so.1 $(DESTDIR)$(PREFIX)/lib/libtq.so
	install -m 644 $(LIB)/pkgconfig/libtq.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 644 libtq/tq.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/uapi/linux/tqsubmit.h $(DESTDIR)$(PREFIX)/include/linux/
	install -m 644 libtq/man/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 libtq/man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/

bench-ring: module $(BIN)/tqbench-ring
	tools/vm --timeout 600 -- $(BIN)/tqbench-ring
