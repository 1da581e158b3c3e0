#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# e2e_kill.sh - usched killed mid-run, again and again, and a kernel that
# never ends, in the test VM (tqsubmit.ko loaded, PoCL), against the real
# usched and real built-in kernels:
#
# 1. usched is SIGKILLed $KILLS times (50) while tasks are out with it (task
#    groups running, programs building: each round starts a client that
#    registers its programs) and restarted. Clients of two kinds run
#    throughout: idempotent ones (VA, MT, BS, DCT: separate in and out
#    buffers, marked TQ_DESC_F_IDEMPOTENT) and ones with INOUT buffers (FLW,
#    SYN, not idempotent, with VA). Every task must complete exactly once;
#    a task that completes 0 must have the right data (tqdemo checks every
#    result against the host reference, INOUT buffers included: a second run
#    of SYN on its own output is wrong); a non-idempotent task may instead
#    complete -EOWNERDEAD (started when usched died), an idempotent one never.
#    The INOUT clients' checks need a module with TQ_FEAT_IDEMPOTENT (without
#    it the module runs a started INOUT task again on its own output): they
#    are skipped, with the reason, when usched's log says it lacks it.
# 2. A client's endless kernel fails -ETIME at the time limit, usched
#    re-executes itself (same pid) to get the device back, and two honest
#    clients running meanwhile verify every task.
#
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

KILLS=${KILLS:-50}
IDEM=VA,MT,BS,DCT	# no INOUT buffer: idempotent
INOUT=FLW,SYN,VA	# FLW and SYN have one: not idempotent
. usched/daemon/tests/lib.sh

suite_begin e2e-kill "$BIN/usched" "$BIN/tqdemo"
mkfifo "$T/nap" && exec {nap}<>"$T/nap"	# nothing is ever written to it

# The kernel time limit: the limits' setting where usched has it, else its 10 s default.
limit=()
"$BIN/usched" --help 2>&1 | grep -q -- '--kernel-time-limit' && limit=(--kernel-time-limit 3)

# A made-up device profile: no calibration at each of the many start-ups.
printf 'tq-profile 1\ndma 1\nhtd alone 20000 1.0\ndth alone 20000 1.0\n' >"$T/profile"

start_usched() {
	"$BIN/usched" --foreground --config /dev/null --state "$T/state" --profile "$T/profile" \
		--metrics "$T/usched.prom" --metrics-interval 1 "${limit[@]}" "$@" \
		>>"$T/usched.log" 2>&1 &
	upid=$!
	wait_for 120 attached
}

# Tasks out with usched (a task group running, or a build), polled without forks.
tasks_out() {
	local end=$((SECONDS + 60)) v

	until read -r v <"$SYS/in_flight" && [ "$v" -gt 0 ]; do
		[ $SECONDS -ge $end ] && return 1
		read -r -t 0.005 -u "$nap"
	done
	return 0
}

declare -A cpid
start_usched
ok $? "usched starts and attaches to /dev/tqsubmit"
attached || { tail -n 20 "$T/usched.log" | diag; exit 1; }
idem_feature=1
grep -q 'does not know idempotent tasks' "$T/usched.log" && idem_feature=0

# 1. $KILLS kills mid-run.
r0=$(sysfs requeued)
idem=() inout=() restarts=0 missed=0
for k in $(seq 1 "$KILLS"); do
	# at most 4 clients at a time: within the module's contexts per user
	end=$((SECONDS + 300))
	until [ "$(live)" -le 3 ] || [ $SECONDS -ge $end ]; do
		read -r -t 0.05 -u "$nap"
	done
	if [ $((k % 2)) = 1 ]; then
		client "idem.$k" "$IDEM" --tasks 6 --depth 4
		idem+=("idem.$k")
	else
		client "inout.$k" "$INOUT" --tasks 6 --depth 4 --allow-ownerdead
		inout+=("inout.$k")
	fi
	tasks_out || missed=$((missed + 1))
	# land anywhere in what is out: a build, a group's copies or its kernels
	read -r -t "0.0$((RANDOM % 5))" -u "$nap"
	kill -KILL "$upid"
	wait "$upid" 2>/dev/null
	wait_for 20 detached
	start_usched && restarts=$((restarts + 1))
done
ok $((restarts == KILLS ? 0 : 1)) "usched SIGKILLed with work out and restarted $restarts times"
# a kill that found nothing out proves nothing; a rare one (a client done before the
# poll saw its tasks) is timing, most of them missing would leave the test empty
ok $((missed * 10 <= KILLS ? 0 : 1)) "at least 90% of the kills found tasks out with usched ($missed of $KILLS did not)"
check "${idem[@]}"
ok $? "${#idem[@]} idempotent clients: every task completed once, every result right"
cnt=$(sum_field ownerdead idem.)
ok $((cnt == 0 ? 0 : 1)) "no idempotent task completed -EOWNERDEAD (got $cnt)"
r1=$(sysfs requeued)
ok $((r1 > r0 ? 0 : 1)) "the module re-delivered $((r1 - r0)) task(s) across the kills"
if [ $idem_feature = 1 ]; then
	check "${inout[@]}"
	ok $? "${#inout[@]} INOUT clients: each task once, right (INOUT data intact) or -EOWNERDEAD"
	cnt=$(sum_field ownerdead inout.)
	# Whether a kill lands while an INOUT task is on the device is timing;
	# tqsubmit_started and tqsubmit_requeue cover -EOWNERDEAD deterministically.
	if [ "$cnt" -gt 0 ]; then
		ok 0 "started non-idempotent tasks completed -EOWNERDEAD, not re-run ($cnt)"
	else
		skip "started non-idempotent tasks completed -EOWNERDEAD" \
			"no kill of this run landed while an INOUT task was on the device"
	fi
else
	for name in "${inout[@]}"; do wait "${cpid[$name]}"; done
	skip "INOUT clients: each task once, right or -EOWNERDEAD" \
		"the module lacks TQ_FEAT_IDEMPOTENT (needs the kmod side of requeue semantics)"
	skip "started non-idempotent tasks completed -EOWNERDEAD" \
		"the module lacks TQ_FEAT_IDEMPOTENT"
fi
cnt=$(sum_field tasks idem.)
ok $((cnt == 6 * ${#idem[@]} ? 0 : 1)) \
	"the idempotent clients' summaries count all $((6 * ${#idem[@]})) tasks ($cnt)"
wait_for 30 sysfs_is contexts = 0
ok $? "every context released (contexts back to 0)"
grep -q 'restored [0-9]* programs' "$T/usched.log"
ok $? "restarted usched restored programs from the state file"

# 2. An endless kernel while honest clients run.
client honest.1 "$IDEM" --tasks 16 --depth 4 --progress 1
client honest.2 "$IDEM" --tasks 16 --depth 4 --progress 1
client endless "" --endless --timeout 200
wait "${cpid[endless]}"
ok $? "the endless kernel fails with -ETIME: $(tail -n 1 "$T/endless")"
wait_for 120 attached
ok $? "usched re-executed itself and is attached again, same pid"
# the new image may attach before its first log line is written
wait_for 10 grep -q 're-executed to get the device back (recovery 1)' "$T/usched.log"
ok $? "its log says so (recovery 1)"
check honest.1 honest.2
ok $? "the honest clients verify all 16 tasks each, each completed once"
kill -HUP "$upid"
wait_for 10 grep -q '^tq_device_recoveries_total 1$' "$T/usched.prom"
ok $? "metrics: tq_device_recoveries_total 1"

suite_end
