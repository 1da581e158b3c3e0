#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# chain.sh - chains (TQ_DESC_F_AFTER) through the real usched, on the
# module in the test VM or natively on tqsubmitd's socket
# (TQ_TRANSPORT=socket, selftests/socket_env.sh): usched attaches with
# TQ_ATTACH_F_CHAINS and gets a client's chain of VA tasks whole, each
# adding 1 to the previous one's output; every task must complete with 0,
# each start after its predecessor's end, and the last output be right.
# A chain whose head usched refuses (no such kernel) is cancelled after it.
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

TESTBIN=${TESTBIN:-build/tests}
CLIENT=$TESTBIN/limits_client
. usched/daemon/tests/lib.sh

suite_begin_any chain-usched "$BIN/usched" "$CLIENT" "$COUNTER"

"$BIN/usched" --foreground --config /dev/null --state "$T/state" --tqsubmitd none \
	>>"$T/usched.log" 2>&1 &
upid=$!
wait_for 120 attached
ok $? "usched attached"
out=$("$CLIENT" chain 8)
ok $? "the client ran its chains"
echo "# $out"
case " $out " in *" chain=8 ordered=7 verified=yes "*) r=0 ;; *) r=1 ;; esac
ok $r "8 chained tasks: each started after its predecessor ended, the result right"
case " $out " in *" head=ENOENT cancelled=2 "*) r=0 ;; *) r=1 ;; esac
ok $r "a refused head (ENOENT): the 2 after it -ECANCELED"
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM"
upid=
[ $r = 0 ] || tail -n 20 "$T/usched.log" | diag
tap_done
