# SPDX-License-Identifier: GPL-2.0
# kselftest-harness programs need the headers extracted from linux-source.
KSFT_CFLAGS := -I$(LINUX_SRC)/tools/testing/selftests -Wno-unused-parameter

$(TESTBIN)/tqsubmit_smoke: selftests/tqsubmit_smoke.c $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(LDFLAGS)

VM_TESTS += $(TESTBIN)/tqsubmit_smoke
include tools/bench.mk
