# SPDX-License-Identifier: GPL-2.0
#
# selftests/kmod/: the module's kselftests (kselftest_harness.h), run in the test
# VM, and their raw-ABI helpers (tq_util.h, tq_sysfs.h, tq_desc_cases.h).
# The harness comes from linux-source (LINUX_SRC, see the top Makefile);
# tq_echod, the scheduler some of them drive, is selftests/'s.
TQ_KSFT_CFLAGS := -I$(LINUX_SRC)/tools/testing/selftests -Wno-unused-parameter \
	-Wno-sign-compare \
	-DTQ_ECHOD='"$(BIN)/tq_echod"'
TQ_SELFTESTS := $(TESTBIN)/tqsubmit_abi $(TESTBIN)/tqsubmit_life $(TESTBIN)/tqsubmit_isolation \
	$(TESTBIN)/tqsubmit_enter $(TESTBIN)/tqsubmit_started

$(TQ_SELFTESTS): $(TESTBIN)/%: selftests/kmod/%.c selftests/kmod/tq_util.h selftests/kmod/tq_sysfs.h \
		selftests/kmod/tq_desc_cases.h include/tq/clock.h $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TQ_KSFT_CFLAGS) -o $@ $< $(LDFLAGS) $(LDLIBS)

$(TESTBIN)/tqsubmit_life $(TESTBIN)/tqsubmit_enter $(TESTBIN)/tqsubmit_started: | $(BIN)/tq_echod

VM_TESTS += $(TQ_SELFTESTS)

# The smoke test: the module loads, its device opens (no helpers of ours).
$(TESTBIN)/tqsubmit_smoke: selftests/kmod/tqsubmit_smoke.c $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TQ_KSFT_CFLAGS) -o $@ $< $(LDFLAGS)

VM_TESTS += $(TESTBIN)/tqsubmit_smoke

# What make check runs on each newer Debian kernel too (CHECK_KERNELS, in a
# guest of its own): the kselftests and libtq's suites on the module.
KERNEL_VM_TESTS := $(TESTBIN)/tqsubmit_smoke $(TQ_SELFTESTS) $(LIBTQ_VM)

# make check-debug's last run, recorded in Documentation/testing.md, contains
# the module's last change.
CHECK_SCRIPTS += script:selftests/kmod/debug_record.sh
