#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/layer/tests/bench.sh - libtq/layer/tqcl-bench as a smoke test on PoCL: two
# clcopyk processes, direct and through tq, a few iterations each, then its
# open loop (--load) as small. It checks that each run completes with every
# result right and every kernel captured, and that it prints its figures; it
# asserts nothing about speed.
cd "$(dirname "$0")/../../.." || exit 1
. selftests/tap.sh
BIN=${BIN:-build/bin}
# Under ASan (make SAN=1): PoCL keeps allocations until exit, which LSan
# would report as clcopyk's; the other suites turn it off the same way.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
for p in clcopyk usched; do [ -x "$BIN/$p" ] || skip_all "$BIN/$p is not built"; done
[ -c /dev/tqsubmit ] || [ -x "$BIN/tqsubmitd" ] ||
	skip_all "no transport: no /dev/tqsubmit (the test VM) and no $BIN/tqsubmitd"
clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
libtq/layer/tqcl-bench --bin "$BIN" --procs 2 --iters 20 --bytes 65536 --work 4 >"$out" 2>&1
ok $? "tqcl-bench: 2 processes, direct and through tq, results right, all captured"
diag <"$out"
grep -q '^throughput ratio tq/direct: [0-9.]*$' "$out"
ok $? "tqcl-bench: prints the throughput ratio"
grep -qE '^tq +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$' "$out"
ok $? "tqcl-bench: prints tq's latency percentiles"
grep -q '^interception overhead per call' "$out"
ok $? "tqcl-bench: prints the overhead per call"

# The open loop, with buffers the layer copies in pieces (2 MiB and 4 bytes:
# not a multiple of a piece; a helper even on a small machine), every result
# compared whole by clcopyk.
TQCL_COPY_HELPERS=2 libtq/layer/tqcl-bench --bin "$BIN" --load --tasks 40 --high-procs 2 --bytes 2097156 --work 2 \
	>"$out" 2>&1
ok $? "tqcl-bench --load: capacity, low and high load, direct and through tq, results right, all captured"
diag <"$out"
for point in low high; do
	grep -qE "^$point +[0-9]+ +[0-9.]+ \| +[0-9.]+ +[0-9.]+ +[0-9.]+ \| +[0-9.]+ +[0-9.]+ +[0-9.]+ \| +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$out"
	ok $? "tqcl-bench --load: prints the $point point, both paths and the ratios"
done
grep -qE '^low load, a captured task \(us, mean of [1-9][0-9]*\): submitted to started' "$out"
ok $? "tqcl-bench --load: prints where a captured task's time went"
tap_done
