# SPDX-License-Identifier: GPL-2.0
#
# tq top-level build. One non-recursive make for all user space; kbuild for
# the module. Each component directory contributes a fragment <dir>/build.mk
# that appends to the variables below. Every output lands under build/
# (user space) or next to its source (kbuild), and all of it is git-ignored.
#
#   make            module + user space
#   make SAN=1      user space with ASan and UBSan (separate build dir)
#   make check      every test suite; last line "N passed, M failed[, K skipped]"
#   make run        the main job (see README.md)
#   make checkpatch checkpatch.pl --strict over kmod/ and the uapi header
#   make fuzz       the fuzzer against usched in the test VM for FUZZ_SECONDS (600)

# Kernel build tree: the running kernel's when it has one, else the newest
# installed Debian amd64 headers (these machines' own kernel has none).
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))

CC ?= gcc
O := build
ifeq ($(SAN),1)
O := build/san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
BIN := $(O)/bin
LIB := $(O)/lib
OBJ := $(O)/obj
TESTBIN := $(O)/tests

CPPFLAGS += -Iinclude -Iinclude/uapi -D_GNU_SOURCE
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -pthread -MMD -MP $(SAN_FLAGS)
LDFLAGS += -pthread $(SAN_FLAGS)
LDLIBS += -lm

# Filled in by the fragments.
BINS :=
LIBS :=
TESTS :=		# native test programs (TAP on stdout; exit 77 = skip)
VM_TESTS :=		# programs run inside the test VM (TAP on stdout)

.PHONY: all user module check run deps checkpatch sparse clean fuzz
all: module user

# Kernel source files we use but never commit (checkpatch, kselftest headers).
LINUX_SRC := build/linux-src

include $(wildcard */build.mk)

user: $(BINS) $(LIBS) $(TESTS) $(VM_TESTS)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# The module. tools/deps makes sure KDIR exists before we get here.
module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

deps:
	@tools/deps

$(LINUX_SRC)/.stamp:
	@tools/deps
	tools/extract-linux-src $(LINUX_SRC)
	@touch $@

checkpatch: $(LINUX_SRC)/.stamp
	$(LINUX_SRC)/scripts/checkpatch.pl --strict --no-tree --quiet -f \
		$(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h)) include/uapi/linux/tqsubmit.h

check: deps
	@$(MAKE) --no-print-directory all $(LINUX_SRC)/.stamp
	@$(MAKE) --no-print-directory SAN=$(SAN) user
	@BIN=$(BIN) tools/runtests $(addprefix native:,$(TESTS)) $(addprefix vm:,$(VM_TESTS)) \
		$(CHECK_SCRIPTS)

# FUZZ_SEED=S replays a run; FUZZ_PROCS sets the workers (4).
FUZZ_SECONDS ?= 600
fuzz: deps
	@$(MAKE) --no-print-directory all $(LINUX_SRC)/.stamp
	tools/vm --timeout $$(($(FUZZ_SECONDS) + 900)) -- env BIN=$(BIN) \
		FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_PROCS=$${FUZZ_PROCS:-4} FUZZ_SEED=$${FUZZ_SEED:-} \
		selftests/tq_fuzz.sh

run: deps
	@$(MAKE) --no-print-directory all
	@tools/run-main

clean:
	rm -rf build
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
