#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# prio.sh - priority classes and deadlines through the real usched, on the
# module in the test VM or natively on tqsubmitd's socket
# (TQ_TRANSPORT=socket, selftests/socket_env.sh), with max-prio high for
# root: a critical context's tasks fail -EPERM unless they name a class
# within it, a high one's run, an unknown class is refused at tq_open, and a
# task's deadline reaches the core and comes back (met: not flagged late).
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

TESTBIN=${TESTBIN:-build/tests}
CLIENT=$TESTBIN/limits_client
. usched/daemon/tests/lib.sh

suite_begin_any prio-usched "$BIN/usched" "$CLIENT"

printf '[user root]\nmax-prio = high\n' >"$T/usched.conf"
"$BIN/usched" --foreground --config "$T/usched.conf" --state "$T/state" --tqsubmitd none \
	--deadline flag >>"$T/usched.log" 2>&1 &
upid=$!
wait_for 120 attached
ok $? "usched attached (max-prio high for root, deadline flag)"

out=$("$CLIENT" prio critical)
echo "# critical: $out"
case " $out " in *" open=ok own=EPERM normal=ok deadline=ok late=0 "*) r=0 ;; *) r=1 ;; esac
ok $r "a critical context: its own class EPERM, a task naming normal runs, its deadline met"
grep -q "class critical above max-prio high" "$T/usched.log"
ok $? "usched says why, once"
out=$("$CLIENT" prio high)
echo "# high: $out"
case " $out " in *" open=ok own=ok normal=ok deadline=ok late=0 "*) r=0 ;; *) r=1 ;; esac
ok $r "a high context at max-prio high: every task runs"
out=$("$CLIENT" prio urgent)
case " $out " in *" open=EINVAL"*) r=0 ;; *) r=1 ;; esac
ok $r "an unknown class: tq_open refuses it (EINVAL)"
[ "$(grep -c "above max-prio" "$T/usched.log")" = 1 ]
ok $? "said once a context"
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM"
upid=
tap_done
