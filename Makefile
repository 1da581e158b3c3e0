# SPDX-License-Identifier: GPL-2.0
#
# tq top-level build. One non-recursive make for all user space; kbuild for
# the module. Each component directory contributes a fragment <dir>/build.mk
# that appends to the variables below; FRAGMENTS names them, libraries
# before their users, and no fragment includes another. Every output lands
# under build/ (user space) or next to its source (kbuild), and all of it is
# git-ignored.
#
#   make            module + user space
#   make SAN=1      user space with ASan and UBSan (separate build dir)
#   make check      every test suite, the native ones also on the SAN=1 build;
#                   last line "N passed, M failed[, K skipped]"
#   make run        the main job (see README.md)
#   make checkpatch checkpatch.pl --strict over kmod/, the uapi header and the shared checks
#   make fuzz       the fuzzer against usched in the test VM for FUZZ_SECONDS (600);
#                   TRANSPORT=socket: here, on tqsubmitd's socket
#   make check-debug the module's suites on a kernel with KASAN, lockdep, kmemleak, UBSAN

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

# Include roots: the tree's top, so that a file names another directory's
# header by its path ("sim/tqsim.h"), never by "../"; include/ for tq's
# shared headers (<tq/clock.h>); include/uapi for <linux/tqsubmit.h>.
CPPFLAGS += -I. -Iinclude -Iinclude/uapi -D_GNU_SOURCE
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -pthread -MMD -MP $(SAN_FLAGS)
LDFLAGS += -pthread $(SAN_FLAGS)
LDLIBS += -lm

# Filled in by the fragments.
BINS :=
LIBS :=
TESTS :=		# native test programs (TAP on stdout; exit 77 = skip)
VM_TESTS :=		# programs run inside the test VM (TAP on stdout)
SOCKET_TESTS :=		# programs run here on the socket transport (selftests/socket_env.sh)

.PHONY: all user module check check-debug san-suites run deps checkpatch sparse clean fuzz
all: module user

# Kernel source files we use but never commit (checkpatch, kselftest headers).
LINUX_SRC := build/linux-src

FRAGMENTS := sim kernels/cl kernels libtq libtq/layer usched/core usched/daemon \
	usched/tqsubmitd tools tools/tqcalib tools/tqbench tools/ring selftests selftests/kmod
include $(addsuffix /build.mk,$(FRAGMENTS))

user: $(BINS) $(LIBS) $(TESTS) $(VM_TESTS) $(filter-out %.sh,$(SOCKET_TESTS))

# Every program's --version (include/tq/version.h) is tq's version, LIBTQ_VERSION,
# through a header rewritten only when it changes; the objects that include
# it depend on it through their .d files.
CPPFLAGS += -I$(O)/gen
TQ_VERSION_H := $(O)/gen/tq_version.h
$(TQ_VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@echo '#define TQ_VERSION "$(LIBTQ_VERSION)"' | cmp -s - $@ || \
		echo '#define TQ_VERSION "$(LIBTQ_VERSION)"' >$@

$(OBJ)/%.o: %.c | $(TQ_VERSION_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# The module. scripts/deps installs the headers that give KDIR.
module:
	@test -n "$(KDIR)" || { echo "no kernel build tree: install linux-headers-amd64 (make deps)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

deps:
	@scripts/deps

$(LINUX_SRC)/.stamp:
	@scripts/deps
	scripts/extract-linux-src $(LINUX_SRC)
	@touch $@

checkpatch: $(LINUX_SRC)/.stamp
	$(LINUX_SRC)/scripts/checkpatch.pl --strict --no-tree --quiet -f \
		$(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h)) include/uapi/linux/tqsubmit.h \
		include/tq/tqsubmit_check.h include/tq/tqsubmit_ring.h

# make check runs the native suites a second time on the ASan+UBSan build
# (SAN_CHECK=0: not), all but those that check sources, man pages, packages
# and history rather than run tq's programs.
SAN_CHECK ?= 1
SAN_SKIP := script:libtq/test_man.sh script:selftests/layers.sh \
	script:selftests/kmod/debug_record.sh script:scripts/test_install.sh \
	script:scripts/test_dkms.sh script:scripts/test_deb.sh
SAN_SUITES = $(addprefix native:,$(TESTS)) $(addprefix socket:,$(SOCKET_TESTS)) \
	$(filter-out $(SAN_SKIP),$(CHECK_SCRIPTS))
SAN_RUN := $(if $(filter 1,$(SAN_CHECK)),$(if $(filter 1,$(SAN)),,1))

# make check boots Debian 12's newest kernel of each series here too, and
# runs KERNEL_VM_TESTS on it with the module built for it (runtests
# --kernel); CHECK_KERNELS= leaves that out.
CHECK_KERNELS ?= 6.12

check: deps
	@$(MAKE) --no-print-directory all $(LINUX_SRC)/.stamp
	@$(MAKE) --no-print-directory SAN=$(SAN) user
	$(if $(SAN_RUN),@$(MAKE) --no-print-directory SAN=1 user)
	@BIN=$(BIN) scripts/runtests $(addprefix native:,$(TESTS)) $(addprefix socket:,$(SOCKET_TESTS)) \
		$(addprefix vm:,$(VM_TESTS)) \
		$(foreach k,$(CHECK_KERNELS),--kernel $(k) $(addprefix vm:,$(KERNEL_VM_TESTS))) \
		$(CHECK_SCRIPTS) \
		$(if $(SAN_RUN),--bin build/san/bin $$($(MAKE) -s --no-print-directory SAN=1 san-suites))

san-suites:
	@echo $(SAN_SUITES)

# The suites that drive the module, on a debug kernel (scripts/debug-kernel:
# KASAN, lockdep, UBSAN, kmemleak; built once, about 20 minutes, and
# cached): the kselftests, libtq's suites on the module, the requeue stress
# test, the hostile clients and the fuzzer for FUZZ_SECONDS (600), then the
# leak scan. Not part of check: record its last run in
# Documentation/testing.md ("The debug kernel"), which make check compares
# with the module's last change.
DEBUG_VM_TESTS = $(KERNEL_VM_TESTS) $(TESTBIN)/tqsubmit_requeue usched/daemon/tests/hostile.sh \
	selftests/tq_fuzz.sh selftests/kmod/debug_kernel.sh

check-debug: deps
	@$(MAKE) --no-print-directory all $(LINUX_SRC)/.stamp
	@scripts/check-debug $(addprefix vm:,$(DEBUG_VM_TESTS))

# FUZZ_SEED=S replays a run; FUZZ_PROCS sets the workers (4); TRANSPORT=socket fuzzes
# tqsubmitd's socket here (selftests/socket_env.sh) instead of the module in the test VM.
FUZZ_SECONDS ?= 600
fuzz: deps
ifeq ($(TRANSPORT),socket)
	@$(MAKE) --no-print-directory user
	BIN=$(BIN) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_PROCS=$${FUZZ_PROCS:-4} \
		FUZZ_SEED=$${FUZZ_SEED:-} selftests/socket_env.sh selftests/tq_fuzz.sh
else
	@$(MAKE) --no-print-directory all $(LINUX_SRC)/.stamp
	scripts/vm --timeout $$(($(FUZZ_SECONDS) + 900)) -- env BIN=$(BIN) \
		FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_PROCS=$${FUZZ_PROCS:-4} FUZZ_SEED=$${FUZZ_SEED:-} \
		selftests/tq_fuzz.sh
endif

run: deps
	@scripts/run-main

clean:
	rm -rf build
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1

# ---- install, uninstall, packages ----------------------------------------
#
#   make install   [DESTDIR=] [PREFIX=/usr/local] [LIBDIR=...] [SYSCONFDIR=...]
#   make uninstall (the same variables: removes what install put there)
#   make deb       the Debian packages (debian/) under build/deb/, then lintian
#
# PREFIX=/usr is a distribution's layout: the multiarch LIBDIR where
# dpkg-architecture exists, /etc, and systemd's and udev's own directories;
# any other PREFIX keeps everything under it (systemd, udev and
# systemd-sysusers also read /usr/local/lib/...). The module is not
# installed here: dkms.conf builds it for each kernel (the tqsubmit-dkms
# package), or `make modules_install` for the running kernel's KDIR.
PREFIX ?= /usr/local
EXEC_PREFIX ?= $(PREFIX)
BINDIR ?= $(EXEC_PREFIX)/bin
SBINDIR ?= $(EXEC_PREFIX)/sbin
INCLUDEDIR ?= $(PREFIX)/include
DATAROOTDIR ?= $(PREFIX)/share
DATADIR ?= $(DATAROOTDIR)/tq
MANDIR ?= $(DATAROOTDIR)/man
BASHCOMPDIR ?= $(DATAROOTDIR)/bash-completion/completions
ifeq ($(PREFIX),/usr)
DEB_HOST_MULTIARCH ?= $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
LIBDIR ?= $(PREFIX)/lib$(if $(DEB_HOST_MULTIARCH),/$(DEB_HOST_MULTIARCH))
SYSCONFDIR ?= /etc
pkg-var = $(or $(shell pkg-config --variable=$(1) $(2) 2>/dev/null),$(3))
SYSTEMDUNITDIR ?= $(call pkg-var,systemdsystemunitdir,systemd,/usr/lib/systemd/system)
SYSUSERSDIR ?= $(call pkg-var,sysusersdir,systemd,/usr/lib/sysusers.d)
MODULESLOADDIR ?= $(call pkg-var,modulesloaddir,systemd,/usr/lib/modules-load.d)
UDEVRULESDIR ?= $(call pkg-var,udevdir,udev,/usr/lib/udev)/rules.d
else
LIBDIR ?= $(EXEC_PREFIX)/lib
SYSCONFDIR ?= $(PREFIX)/etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
endif

# The OpenCL layer (libtq/layer/): a plugin, not a library to link, so in a
# directory of tq's own: OPENCL_LAYERS=$(LAYERDIR)/libtqcl.so.
LAYERDIR ?= $(LIBDIR)/tq

INSTALL ?= install
D := $(DESTDIR)

# The installed libtq.pc, usched.service and tqsubmitd.service carry the directories, so they
# are remade whenever one changes: install-dirs.txt holds the last ones.
INST := $(O)/install
INSTALL_DIRS_NOW := $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(SBINDIR) $(SYSCONFDIR)
$(INST)/install-dirs.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(INSTALL_DIRS_NOW)' | cmp -s - $@ || echo '$(INSTALL_DIRS_NOW)' >$@

$(INST)/libtq.pc: libtq/libtq.pc.in libtq/build.mk $(INST)/install-dirs.txt
	$(call LIBTQ_PC_SED,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) $< >$@

$(INST)/usched.service: usched/dist/usched.service $(INST)/install-dirs.txt
	sed 's|^ExecStart=/usr/sbin/usched |ExecStart=$(SBINDIR)/usched --config $(SYSCONFDIR)/tq/usched.conf |' \
		$< >$@
	@grep -q '^ExecStart=$(SBINDIR)/usched --config ' $@ || \
		{ echo "usched.service: no 'ExecStart=/usr/sbin/usched ' line to rewrite" >&2; rm -f $@; exit 1; }

# tqsubmitd's unit names the installed tqsubmitd; its sockets are as shipped.
$(INST)/tqsubmitd.service: usched/dist/tqsubmitd.service $(INST)/install-dirs.txt
	sed 's|^ExecStart=/usr/sbin/tqsubmitd |ExecStart=$(SBINDIR)/tqsubmitd |' $< >$@
	@grep -q '^ExecStart=$(SBINDIR)/tqsubmitd ' $@ || \
		{ echo "tqsubmitd.service: no 'ExecStart=/usr/sbin/tqsubmitd ' line to rewrite" >&2; \
		rm -f $@; exit 1; }
TQSUBMITD_UNITS := usched/dist/tqsubmitd.socket usched/dist/tqsubmitd-sched.socket

INSTALL_PROGS := $(addprefix $(BIN)/,tqstat tqsim tqcalib tqbench)
# The tools' pages are their --help, through help2man (scripts/deps installs it).
INSTALL_MAN1 := $(addprefix $(INST)/man1/,$(addsuffix .1,$(notdir $(INSTALL_PROGS))))
INSTALL_BUILT := $(BIN)/usched $(BIN)/usched-build $(BIN)/tqsubmitd $(INSTALL_PROGS) $(LIBTQ_SO) \
	$(LIB)/libtq.a $(INST)/libtq.pc $(INST)/usched.service $(INST)/tqsubmitd.service \
	$(INSTALL_MAN1) $(TQCL_SO)

tqstat_WHAT := the counters of the tqsubmit module (or tqsubmitd) and of usched
tqsim_WHAT := tq's device model and ordering policies on task files
tqcalib_WHAT := measure an OpenCL device's profile for tq
tqbench_WHAT := the paper's experiments on an OpenCL device, through tq
$(INST)/man1/%.1: $(BIN)/%
	@command -v help2man >/dev/null || { echo "$@ needs help2man (scripts/deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	help2man -N --no-discard-stderr -n "$($*_WHAT)" \
		-o $@ $<
LIBTQ_MAN3 := $(wildcard libtq/man/*.3)
LIBTQ_MAN7 := $(wildcard libtq/man/*.7)
TQ_DATA_FILES := $(wildcard data/*.csv) data/README.md
# One completion for the four, under each one's name (bash-completion loads it by that).
BASHCOMP_CMDS := usched tqsim tqbench tqstat

.PHONY: install-built install uninstall modules_install deb FORCE
FORCE:

# Everything install copies, built (the Debian package builds this).
install-built: $(INSTALL_BUILT)

install: install-built
	$(INSTALL) -d $(D)$(SBINDIR) $(D)$(BINDIR) $(D)$(LIBDIR)/pkgconfig \
		$(D)$(INCLUDEDIR)/linux $(D)$(MANDIR)/man1 $(D)$(MANDIR)/man3 $(D)$(MANDIR)/man7 $(D)$(MANDIR)/man8 \
		$(D)$(SYSCONFDIR)/tq/usched.conf.d $(D)$(SYSTEMDUNITDIR) $(D)$(UDEVRULESDIR) \
		$(D)$(SYSUSERSDIR) \
		$(D)$(MODULESLOADDIR) $(D)$(DATADIR) $(D)$(LAYERDIR) $(D)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BIN)/usched $(BIN)/usched-build $(BIN)/tqsubmitd $(D)$(SBINDIR)/
	$(INSTALL) -m 755 $(INSTALL_PROGS) $(D)$(BINDIR)/
	$(INSTALL) -m 644 $(LIBTQ_SO) $(D)$(LIBDIR)/
	ln -sf $(notdir $(LIBTQ_SO)) $(D)$(LIBDIR)/libtq.so.1
	ln -sf libtq.so.1 $(D)$(LIBDIR)/libtq.so
	$(INSTALL) -m 644 $(LIB)/libtq.a $(D)$(LIBDIR)/
	$(INSTALL) -m 644 $(TQCL_SO) $(D)$(LAYERDIR)/
	$(INSTALL) -m 644 $(INST)/libtq.pc $(D)$(LIBDIR)/pkgconfig/
	$(INSTALL) -m 644 libtq/tq.h $(D)$(INCLUDEDIR)/
	$(INSTALL) -m 644 include/uapi/linux/tqsubmit.h $(D)$(INCLUDEDIR)/linux/
	$(INSTALL) -m 644 $(INSTALL_MAN1) $(D)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(LIBTQ_MAN3) $(D)$(MANDIR)/man3/
	$(INSTALL) -m 644 $(LIBTQ_MAN7) libtq/layer/tqcl.7 $(D)$(MANDIR)/man7/
	$(INSTALL) -m 644 usched/daemon/usched.8 usched/daemon/usched-build.8 usched/tqsubmitd/tqsubmitd.8 \
		$(D)$(MANDIR)/man8/
	$(INSTALL) -m 644 $(INST)/usched.service $(INST)/tqsubmitd.service $(TQSUBMITD_UNITS) \
		$(D)$(SYSTEMDUNITDIR)/
	$(INSTALL) -m 644 usched/dist/60-tqsubmit.rules $(D)$(UDEVRULESDIR)/
	$(INSTALL) -m 644 usched/dist/sysusers.conf $(D)$(SYSUSERSDIR)/tq.conf
	$(INSTALL) -m 644 usched/dist/modules-load.conf $(D)$(MODULESLOADDIR)/tqsubmit.conf
	$(INSTALL) -m 644 $(TQ_DATA_FILES) $(D)$(DATADIR)/
	for c in $(BASHCOMP_CMDS); do $(INSTALL) -m 644 usched/dist/tq.bash $(D)$(BASHCOMPDIR)/$$c || exit; done
	@# An administrator's usched.conf stays; the shipped one goes beside it.
	@conf=$(D)$(SYSCONFDIR)/tq/usched.conf; \
	if [ ! -e $$conf ]; then \
		echo "$(INSTALL) -m 644 usched/dist/usched.conf $$conf"; \
		$(INSTALL) -m 644 usched/dist/usched.conf $$conf; \
	elif ! cmp -s usched/dist/usched.conf $$conf; then \
		$(INSTALL) -m 644 usched/dist/usched.conf $$conf.new; \
		echo "tq: $$conf kept; the shipped one is $$conf.new"; \
	fi

uninstall:
	rm -f $(D)$(SBINDIR)/usched $(D)$(SBINDIR)/usched-build $(D)$(SBINDIR)/tqsubmitd $(addprefix $(D)$(BINDIR)/,$(notdir $(INSTALL_PROGS)))
	rm -f $(addprefix $(D)$(LIBDIR)/,$(notdir $(LIBTQ_SO)) libtq.so.1 libtq.so libtq.a \
		pkgconfig/libtq.pc)
	rm -f $(D)$(LAYERDIR)/libtqcl.so
	-rmdir $(D)$(LAYERDIR)
	rm -f $(D)$(INCLUDEDIR)/tq.h $(D)$(INCLUDEDIR)/linux/tqsubmit.h
	rm -f $(addprefix $(D)$(MANDIR)/man1/,$(notdir $(INSTALL_MAN1)))
	rm -f $(addprefix $(D)$(MANDIR)/man3/,$(notdir $(LIBTQ_MAN3))) \
		$(addprefix $(D)$(MANDIR)/man7/,$(notdir $(LIBTQ_MAN7)) tqcl.7) $(D)$(MANDIR)/man8/usched.8 $(D)$(MANDIR)/man8/usched-build.8 \
		$(D)$(MANDIR)/man8/tqsubmitd.8
	rm -f $(D)$(SYSTEMDUNITDIR)/usched.service $(D)$(SYSTEMDUNITDIR)/tqsubmitd.service \
		$(addprefix $(D)$(SYSTEMDUNITDIR)/,$(notdir $(TQSUBMITD_UNITS))) \
		$(D)$(UDEVRULESDIR)/60-tqsubmit.rules \
		$(D)$(SYSUSERSDIR)/tq.conf $(D)$(MODULESLOADDIR)/tqsubmit.conf
	rm -f $(addprefix $(D)$(DATADIR)/,$(notdir $(TQ_DATA_FILES)))
	rm -f $(addprefix $(D)$(BASHCOMPDIR)/,$(BASHCOMP_CMDS))
	-rmdir $(D)$(DATADIR)
	rm -f $(D)$(SYSCONFDIR)/tq/usched.conf.new
	@# An edited usched.conf is the administrator's: only the unchanged one goes.
	@conf=$(D)$(SYSCONFDIR)/tq/usched.conf; \
	if cmp -s usched/dist/usched.conf $$conf; then echo "rm -f $$conf"; rm -f $$conf; \
	elif [ -e $$conf ]; then echo "tq: $$conf differs from the shipped one: kept"; fi
	-rmdir $(D)$(SYSCONFDIR)/tq/usched.conf.d
	-rmdir $(D)$(SYSCONFDIR)/tq

# The module into /lib/modules/KVER/updates of $(DESTDIR) (kbuild's modules_install).
modules_install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(if $(DESTDIR),$(abspath $(DESTDIR))) \
		INSTALL_MOD_DIR=updates modules_install

CHECK_SCRIPTS += script:scripts/test_install.sh script:scripts/test_dkms.sh script:scripts/test_deb.sh \
	script:scripts/test_cli.sh

# The module's source as DKMS takes it: $(DESTDIR)$(DKMS_SRCDIR) (the
# tqsubmit-dkms package; scripts/test_dkms.sh builds it with dkms).
DKMS_VERSION := $(LIBTQ_VERSION)
DKMS_SRCDIR ?= /usr/src/tqsubmit-$(DKMS_VERSION)
DKMS_FILES := dkms.conf Kbuild kmod/Kbuild $(filter-out %.mod.c,$(wildcard kmod/*.c)) \
	$(wildcard kmod/*.h) include/uapi/linux/tqsubmit.h include/tq/tqsubmit_check.h \
	include/tq/tqsubmit_ring.h

.PHONY: install-dkms-src uninstall-dkms-src
install-dkms-src:
	@grep -qx 'PACKAGE_VERSION="$(DKMS_VERSION)"' dkms.conf || \
		{ echo "dkms.conf: PACKAGE_VERSION is not $(DKMS_VERSION)" >&2; exit 1; }
	for f in $(DKMS_FILES); do $(INSTALL) -D -m 644 $$f $(D)$(DKMS_SRCDIR)/$$f || exit; done

uninstall-dkms-src:
	rm -f $(addprefix $(D)$(DKMS_SRCDIR)/,$(DKMS_FILES))
	-rmdir $(D)$(DKMS_SRCDIR)/kmod $(D)$(DKMS_SRCDIR)/include/uapi/linux \
		$(D)$(DKMS_SRCDIR)/include/uapi $(D)$(DKMS_SRCDIR)/include/tq \
		$(D)$(DKMS_SRCDIR)/include $(D)$(DKMS_SRCDIR)

# The Debian packages from a copy of the tree's files (tracked and new, not
# ignored), so that the package build's clean leaves this tree's build/
# alone: build/deb/*.deb, then lintian over them. scripts/test_deb.sh checks
# what they hold.
DEB_DIR := build/deb
DEB_SRC := $(DEB_DIR)/tq-$(LIBTQ_VERSION)
deb:
	@command -v dpkg-buildpackage >/dev/null && command -v lintian >/dev/null && \
		command -v dh_dkms >/dev/null || { echo "make deb needs dpkg-dev, debhelper," \
		"dh-dkms and lintian: apt-get install -y dpkg-dev debhelper dh-dkms lintian" >&2; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	git ls-files -co --exclude-standard -z | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] || [ -L "$$f" ] && echo "$$f"; done' sh | \
		tar -cf - -T - | tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && DEB_BUILD_OPTIONS="parallel=2 $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -us -uc -b >../build.log 2>&1 || \
		{ tail -40 ../build.log >&2; echo "make deb: see $(DEB_DIR)/build.log" >&2; exit 1; }
	lintian --fail-on error,warning $(DEB_DIR)/tq_$(LIBTQ_VERSION)_*.changes
	@ls $(DEB_DIR)/*.deb
