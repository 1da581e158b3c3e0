#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/test_example.sh - in the test VM: Documentation/libtq.md's example
# (built from the page as build/tests/libtq-example) run by
# tools/run-client against usched, as README.md tells a newcomer to run
# their own client: the vector sum on the device checked, its completion's
# times, and usched stopped after.
set -uo pipefail
. tools/tap.sh
[ -n "${TQ_IN_VM:-}" ] || skip_all "runs in the test VM (make check)"

example=${BIN:-build/bin}/../tests/libtq-example
out=$(bash tools/run-client --guest -- "$example" 2>&1)
rc=$?
echo "$out" | diag
ok $rc "tools/run-client ran the example; it exited 0 (every sum right)"
line=$(grep '^task 1: ' <<<"$out")
ns=$(sed -n 's/.*on the device for \([0-9]*\) ns$/\1/p' <<<"$line")
ok $([ -n "$ns" ] && [ "$ns" -gt 0 ]; echo $?) "its completion: ${line:-none} (end_ns > start_ns)"
ok $(grep -q '^usched: ' <<<"$out"; echo $?) "usched's log came through"
ok $([ "$(cat /sys/class/misc/tqsubmit/scheduler_pid)" = 0 ]; echo $?) "usched stopped after"
tap_done
