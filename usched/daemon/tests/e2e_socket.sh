#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# e2e_socket.sh - the real usched on the socket transport, natively (no
# module, PoCL): usched starts tqsubmitd itself, tqdemo clients submit real
# built-in kernels through libtq, and:
#
# 1. usched's start-up: the tqsubmitd it started is detached (not its child,
#    another session) and listens on the sockets of $T; usched's settings'
#    failures are clear (a bad transport, tqsubmitd not to be started, not
#    to be found, or not started under systemd).
# 2. usched is SIGKILLed $KILLS times (6) while tasks are out with it and
#    restarted; tqsubmitd outlives every kill (no second one is started)
#    and hands what usched held to the next: every idempotent task
#    completes once with the right result, an INOUT one right or
#    -EOWNERDEAD, none is lost (the model: e2e_kill.sh, on the module).
# 3. A client's endless kernel: -ETIME, usched re-executes itself (same
#    pid) and attaches to tqsubmitd again; honest clients verify all.
# 4. tqsubmitd killed: usched exits 1 saying so, a waiting client gets
#    an error at once (the connection's hangup), not a hang.
#
# Prints TAP. Run from the repository root (make check: CHECK_SCRIPTS).
set -uo pipefail

KILLS=${KILLS:-6}
NT=${NT:-6000}		# tasks a kill-round client runs: natively PoCL runs them fast
IDEM=VA,MT,BS,DCT	# no INOUT buffer: idempotent
INOUT=FLW,SYN,VA	# FLW and SYN have one: not idempotent
. usched/daemon/tests/lib.sh

suite_begin_socket e2e-socket "$BIN/usched" "$BIN/tqdemo" "$BIN/tqsubmitd" "$COUNTER"
mkfifo "$T/nap" && exec {nap}<>"$T/nap"	# nothing is ever written to it
printf 'tq-profile 1\ndma 1\nhtd alone 20000 1.0\ndth alone 20000 1.0\n' >"$T/profile"

start_usched() {
	"$BIN/usched" --foreground --config /dev/null --state "$T/state" --profile "$T/profile" \
		--metrics "$T/usched.prom" --metrics-interval 1 --kernel-time-limit 3 \
		--tqsubmitd "$BIN/tqsubmitd" "$@" >>"$T/usched.log" 2>&1 &
	upid=$!
	wait_for 120 attached
}

tasks_out() {
	local end=$((SECONDS + 60))

	until [ "$(sysfs in_flight)" -gt 0 ]; do
		[ $SECONDS -ge $end ] && return 1
		read -r -t 0.01 -u "$nap"
	done
	return 0	# not the status of the body's last read (a timeout)
}

# 1. Start-up, and the settings' failures (each exits at once: 2 a bad setting, else 1).
"$BIN/usched" --foreground --config /dev/null --transport bogus >"$T/bad" 2>&1
ok $([ $? = 2 ] && grep -q -- '--transport bogus: want auto, module or socket' "$T/bad"
     echo $?) "usched --transport bogus: refused (exit 2), saying what it takes"
"$BIN/usched" --foreground --config /dev/null --tqsubmitd none >"$T/bad" 2>&1
ok $([ $? = 1 ] && grep -q "attach: No such file or directory (is tqsubmitd running?)" "$T/bad"
     echo $?) "no tqsubmitd and --tqsubmitd none: 'is tqsubmitd running?'"
INVOCATION_ID=x "$BIN/usched" --foreground --config /dev/null >"$T/bad" 2>&1
ok $([ $? = 1 ] && grep -q "is tqsubmitd running?" "$T/bad"; echo $?) \
	"under systemd (INVOCATION_ID) usched starts no tqsubmitd of its own"
"$BIN/usched" --foreground --config /dev/null --tqsubmitd "$T/nowhere" >"$T/bad" 2>&1
ok $([ $? = 1 ] && grep -q "$T/nowhere: No such file or directory: cannot start tqsubmitd" \
     "$T/bad"; echo $?) "--tqsubmitd naming no program: refused, naming it"
[ -e "$TQ_SCHED_SOCKET" ]
ok $((! $?)) "none of these left a socket behind"

declare -A cpid
start_usched
ok $? "usched starts tqsubmitd and attaches to its socket"
attached || { tail -n 20 "$T/usched.log" | diag; exit 1; }
spid=$(sed -n 's/.*started .*tqsubmitd (pid \([0-9]*\)) for .*/\1/p' "$T/usched.log" | head -n1)
ok $([ -n "$spid" ] && kill -0 "$spid"; echo $?) "its log names tqsubmitd's pid (${spid:-none})"
read -r ppid sid < <(ps -o ppid=,sid= -p "${spid:-0}")
read -r usid < <(ps -o sid= -p "$upid")
ok $([ "${ppid:-x}" != "$upid" ] && [ "${sid:-x}" != "${usid:-x}" ]; echo $?) \
	"tqsubmitd is detached: not usched's child, another session (ppid $ppid, sid $sid)"
[ -S "$TQ_SOCKET" ] && [ -S "$TQ_SCHED_SOCKET" ]
ok $? "it listens on \$TQ_SOCKET and \$TQ_SCHED_SOCKET"

# 2. Kills mid-run.
r0=$(sysfs requeued)
idem=() inout=() restarts=0 missed=0 survived=0
for k in $(seq 1 "$KILLS"); do
	end=$((SECONDS + 300))
	until [ "$(live)" -le 3 ] || [ $SECONDS -ge $end ]; do
		read -r -t 0.05 -u "$nap"
	done
	if [ $((k % 2)) = 1 ]; then
		client "idem.$k" "$IDEM" --tasks $NT --depth 4
		idem+=("idem.$k")
	else
		client "inout.$k" "$INOUT" --tasks $NT --depth 4 --allow-ownerdead
		inout+=("inout.$k")
	fi
	# natively PoCL builds in moments: let the kill land after the
	# registrations (the state file has them), among the client's tasks, so
	# that the restarted usched restores programs
	if [ $((k % 2)) = 1 ]; then
		wait_for 60 grep -q 'DCT .* ready (program' "$T/idem.$k"
	else
		wait_for 60 grep -q 'VA .* ready (program' "$T/inout.$k"
	fi
	tasks_out || missed=$((missed + 1))
	read -r -t "0.0$((RANDOM % 5))" -u "$nap"
	kill -KILL "$upid"
	wait "$upid" 2>/dev/null
	kill -0 "$spid" 2>/dev/null && survived=$((survived + 1))
	wait_for 20 detached
	start_usched && restarts=$((restarts + 1))
done
ok $((restarts == KILLS ? 0 : 1)) "usched SIGKILLed with work out and restarted $restarts times"
ok $((survived == KILLS ? 0 : 1)) "tqsubmitd outlived every kill ($survived of $KILLS)"
nst=$(grep -c 'started .*tqsubmitd (pid' "$T/usched.log")
ok $((nst == 1 ? 0 : 1)) "the restarted ones found it and started no other ($nst started)"
ok $((missed == 0 ? 0 : 1)) "every kill found tasks out with usched ($missed did not)"
check "${idem[@]}"
ok $? "${#idem[@]} idempotent clients: every task completed once, every result right"
cnt=$(sum_field ownerdead idem.)
ok $((cnt == 0 ? 0 : 1)) "no idempotent task completed -EOWNERDEAD (got $cnt)"
cnt=$(sum_field tasks idem.)
ok $((cnt == NT * ${#idem[@]} ? 0 : 1)) \
	"the idempotent clients' summaries count all $((NT * ${#idem[@]})) tasks ($cnt)"
r1=$(sysfs requeued)
ok $((r1 > r0 ? 0 : 1)) "tqsubmitd re-delivered $((r1 - r0)) task(s) across the kills"
check "${inout[@]}"
ok $? "${#inout[@]} INOUT clients: each task once, right (INOUT data intact) or -EOWNERDEAD"
wait_for 30 sysfs_is contexts = 0
ok $? "every context released (contexts back to 0)"
grep -q 'restored [0-9]* programs' "$T/usched.log"
ok $? "restarted usched restored programs from the state file"

# 3. An endless kernel while honest clients run: the re-exec on the socket.
client honest.1 "$IDEM" --tasks 16 --depth 4
client honest.2 "$IDEM" --tasks 16 --depth 4
client endless "" --endless --timeout 200
wait "${cpid[endless]}"
ok $? "the endless kernel fails with -ETIME: $(tail -n 1 "$T/endless")"
wait_for 60 grep -q 're-executed to get the device back (recovery 1)' \
	"$T/usched.log"
ok $? "usched re-executed itself (recovery 1)"
wait_for 60 attached
ok $? "and is attached to tqsubmitd again, same pid"
check honest.1 honest.2
ok $? "the honest clients verify all 16 tasks each, each completed once"

# 4. tqsubmitd dies under a waiting client.
client orphan "$IDEM" --tasks 100000 --depth 4
wait_for 60 grep -q 'DCT .* ready (program' "$T/orphan"
wait_for 60 sysfs_is in_flight -gt 0
kill -KILL "$spid"
t0=$SECONDS
wait "${cpid[orphan]}"
rc=$?
ok $([ $rc != 0 ] && [ $((SECONDS - t0)) -lt 30 ] &&
     grep -q 'connection to tqsubmitd is lost' "$T/orphan"; echo $?) \
	"the waiting client fails at once: $(grep -m1 'connection to tqsubmitd is lost' "$T/orphan")"
grep -q 'connection to tqsubmitd is lost' "$T/orphan" || tail -n 5 "$T/orphan" | diag
wait "$upid"
rc=$?
ok $([ $rc = 1 ] && grep -q 'tqsubmitd is gone' "$T/usched.log"; echo $?) \
	"usched exits 1: $(grep -m1 'tqsubmitd is gone' "$T/usched.log")"
upid= spid=
[ $failed -eq 0 ] || { echo "# usched's log:"; tail -n 40 "$T/usched.log" | diag; }
tap_done
