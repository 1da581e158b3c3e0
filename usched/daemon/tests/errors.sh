#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# errors.sh - libtq's errors that name what is wrong, through the real
# usched, on the module in the test VM or natively on tqsubmitd's socket
# (TQ_TRANSPORT=socket, selftests/socket_env.sh):
#
# 1. With no scheduler attached, a wait with no timeout and a registration
#    end after TQ_SCHED_WAIT_MS (here 400 ms) with -EHOSTDOWN, "no scheduler
#    attached", not a hang.
# 2. With usched attached, an unknown built-in is -ENOPKG, an unknown kernel
#    name -ESRCH, an unregistered program or kernel id -ENOENT, and none of
#    their messages speaks of the device or tqsubmitd.
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

TESTBIN=${TESTBIN:-build/tests}
CLIENT=$TESTBIN/limits_client
. usched/daemon/tests/lib.sh

suite_begin_any errors-usched "$BIN/usched" "$CLIENT" "$COUNTER"

# 1. No scheduler.
detached
ok $? "no scheduler attached"
out=$(TQ_SCHED_WAIT_MS=400 timeout 30 "$CLIENT" nosched)
ok $? "the client came back"
echo "$out" | diag
ms=$(echo "$out" | sed -n 's/^wait_ms=//p')
echo "$out" | grep -q '^wait=EHOSTDOWN (no scheduler attached'
ok $? "tq_wait(-1) with no scheduler: -EHOSTDOWN, 'no scheduler attached'"
[ "${ms:-0}" -ge 400 ] && [ "${ms:-0}" -lt 5000 ]
ok $? "after the bound, TQ_SCHED_WAIT_MS=400 (${ms:-?} ms)"
ms=$(echo "$out" | sed -n 's/^register_ms=//p')
echo "$out" | grep -q '^register=EHOSTDOWN ' && [ "${ms:-0}" -ge 400 ] && [ "${ms:-0}" -lt 5000 ]
ok $? "tq_register_builtin too (${ms:-?} ms)"

# 2. Names and ids, usched attached.
"$BIN/usched" --foreground --config /dev/null --state "$T/state" --tqsubmitd none \
	>>"$T/usched.log" 2>&1 &
upid=$!
wait_for 120 attached
ok $? "usched attached"
out=$("$CLIENT" names)
ok $? "the client ran"
echo "$out" | diag
echo "$out" | grep -q '^builtin=ENOPKG (no built-in task of that name'
ok $? "an unknown built-in: -ENOPKG, naming a built-in"
echo "$out" | grep -q '^kernel=ESRCH (the program has no kernel of that name'
ok $? "an unknown kernel name: -ESRCH, naming the kernel"
echo "$out" | grep -q '^program=ENOENT (no such program or kernel id'
ok $? "an unregistered program id: -ENOENT, naming the id"
echo "$out" | grep -q '^task=ENOENT (no such program or kernel id'
ok $? "a task's unregistered kernel id: -ENOENT, naming the id"
! echo "$out" | grep -qi 'tqsubmitd\|/dev/tqsubmit'
ok $? "no message speaks of the device or tqsubmitd"
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM"
upid=
tap_done
