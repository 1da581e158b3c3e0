#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/layer/tests/conform.sh - tqcl-conform (libtq/layer/test_conform.c) on the
# driver alone and under libtqcl.so against a usched of its own: the same
# checks pass with the same codes, and the layer's counters show that what
# can be captured was (writes, kernels and reads through tq, every task
# completed by tq, none replayed) and the rest passed through for the
# reasons the test sets up.
cd "$(dirname "$0")/../../.." || exit 1
. libtq/layer/tests/env.sh
prog=${TESTBIN:-$(dirname "$BIN")/tests}/tqcl-conform
[ -x "$prog" ] || skip_all "$prog is not built"
tqcl_begin tqcl-conform

tqcl_direct "$T/direct" "$prog"
ok $? "tqcl-conform on the driver alone"
tqcl_run "$T/layer" "$T/stats" "$prog"
rc=$?
sed -n 's/^not ok/# under the layer: &/p' "$T/layer"
ok $rc "tqcl-conform under the layer"
# (no process substitution: the test VM has no /dev/fd)
grep -E '^(not )?ok|^1\.\.' "$T/direct" >"$T/direct.tap"
grep -E '^(not )?ok|^1\.\.' "$T/layer" >"$T/layer.tap"
diff "$T/direct.tap" "$T/layer.tap" >"$T/diff"
ok $? "the same results, the same codes"
diag <"$T/diff"

s=$T/stats
st() { tqcl_stat "$s" "$1"; }
echo "layer: $(cat "$s")" | diag
[ "$(st cap_kernel)" -ge 20 ] && [ "$(st cap_write)" -ge 16 ] && [ "$(st cap_read)" -ge 16 ]
ok $? "captured: $(st cap_write) writes, $(st cap_kernel) kernels, $(st cap_read) reads"
[ "$(st tasks_ok)" = "$(st cap_kernel)" ] && [ "$(st tasks_replayed)" = 0 ] &&
	[ "$(st tasks_failed)" = 0 ]
ok $? "every task completed by tq: $(st tasks_ok) of $(st cap_kernel)"
[ "$(st why_kernel-argument-kind)" -ge 1 ] && [ "$(st why_kernel-scalar-size)" -ge 1 ] &&
	[ "$(st why_kernel-buffer-twice)" -ge 1 ] && [ "$(st why_global-offset)" -ge 1 ] &&
	[ "$(st why_out-of-order-queue)" -ge 1 ] && [ "$(st why_profiling-queue)" -ge 1 ] &&
	[ "$(st why_waits-for-driver-event)" -ge 1 ] && [ "$(st why_invalid-arguments)" -ge 10 ]
ok $? "passed through where it must: local memory, int4, aliasing, offset, queues, events, errors"
[ "$(st sync_to_dev)" -ge 1 ] && [ "$(st sync_to_arena)" -ge 1 ]
ok $? "buffers synced both ways: $(st sync_to_arena) to the arena, $(st sync_to_dev) to the device"
[ "$(st progs)" = 1 ]
ok $? "one program registered with usched: $(st progs)"
tap_done
