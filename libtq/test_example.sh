#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/test_example.sh - Documentation/libtq.md's example (built from the
# page as build/tests/libtq-example) against usched, as README.md tells a
# newcomer to run their own client: the vector sum on the device checked,
# its completion's times, and usched stopped after. In the test VM on the
# module, through scripts/run-client; natively on tqsubmitd's socket under
# selftests/socket_env.sh (TQ_TRANSPORT=socket): the same client, unchanged,
# with usched started here on PoCL.
set -uo pipefail
. selftests/tap.sh
BIN=${BIN:-build/bin}
example=$BIN/../tests/libtq-example

if [ "${TQ_TRANSPORT:-}" = socket ]; then
	counter=$BIN/../tests/tq_counter
	[ -S "${TQ_SOCKET:-}" ] || skip_all "no tqsubmitd socket (selftests/socket_env.sh runs this)"
	for p in "$BIN/usched" "$counter" "$example"; do
		[ -x "$p" ] || skip_all "$p is not built"
	done
	clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
	T=$(mktemp -d /tmp/libtq-example.XXXXXX)
	"$BIN/usched" --foreground --config /dev/null --metrics "$T/usched.prom" \
		--state "$T/usched.state" --tqsubmitd none >"$T/log" 2>&1 &
	for _ in $(seq 1 300); do
		upid=$("$counter" scheduler_pid)
		[ "$upid" -gt 0 ] 2>/dev/null && break
		sleep 0.2
	done
	out=$("$example" 2>&1)
	rc=$?
	[ "${upid:-0}" -gt 0 ] 2>/dev/null && kill -TERM "$upid"
	wait
	out=$(cat "$T/log"; echo "$out")
	rm -rf "$T"
	stopped() { [ "$("$counter" scheduler_pid)" = 0 ]; }
else
	[ -n "${TQ_IN_VM:-}" ] || skip_all "runs in the test VM (make check), or natively on the socket"
	out=$(bash scripts/run-client --guest -- "$example" 2>&1)
	rc=$?
	stopped() { [ "$(cat /sys/class/misc/tqsubmit/scheduler_pid)" = 0 ]; }
fi
echo "$out" | diag
ok $rc "the example ran against usched and exited 0 (every sum right)"
line=$(grep '^task 1: ' <<<"$out")
ns=$(sed -n 's/.*on the device for \([0-9]*\) ns$/\1/p' <<<"$line")
ok $([ -n "$ns" ] && [ "$ns" -gt 0 ]; echo $?) "its completion: ${line:-none} (end_ns > start_ns)"
ok $(grep -q '^usched: ' <<<"$out"; echo $?) "usched's log came through"
ok $(stopped; echo $?) "usched stopped after"
tap_done
