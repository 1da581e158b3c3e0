#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# e2e_daemon.sh - usched end to end, in the test VM (tqsubmit.ko loaded, PoCL):
# client processes (tqdemo, through libtq) submit built-in kernels/ tasks,
# usched runs them, every result is checked against the host reference and
# every task must complete exactly once. Then: a client SIGKILLed mid-run,
# usched SIGKILLed and restarted mid-run, usched stopped with SIGTERM
# mid-run, a program that does not compile, and the metrics and trace files.
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

MIX=VA,MT,BS,DCT	# no INOUT buffers: a re-run after a restart sees its inputs intact
. usched/daemon/tests/lib.sh
# Builtins only where tests poll: a fork costs a lot under emulation.

suite_begin e2e-usched "$BIN/usched" "$BIN/tqdemo"
mkfifo "$T/nap" && exec {nap}<>"$T/nap"	# nothing is ever written to it

start_usched() {
	"$BIN/usched" --foreground --config /dev/null --state "$T/state" \
		--metrics "$T/usched.prom" --metrics-interval 1 --trace "$T/trace.json" \
		"$@" >>"$T/usched.log" 2>&1 &
	upid=$!
	wait_for 60 attached
}

# clients NAME COUNT TQDEMO-ARGS...: start COUNT tqdemo processes in the
# background, output in $T/NAME.I; pid I in cpid[I].
clients() {
	local name=$1 count=$2 i

	shift 2
	cpid=()
	for i in $(seq 1 "$count"); do
		: >"$T/$name.$i"	# there before anything polls it
		"$BIN/tqdemo" --mix "$MIX" --scale 0.25 --seed "$i$RANDOM" --timeout 240 "$@" \
			>"$T/$name.$i" 2>&1 &
		cpid[$i]=$!
	done
}

# check_clients NAME I...: wait for clients I...; 0 if every one verified
# every task and saw each complete exactly once.
check_clients() {
	local name=$1 i bad=0

	shift
	for i in "$@"; do
		wait "${cpid[$i]}" || { bad=1; tail -n 5 "$T/$name.$i" | diag; }
		grep -q ' dup=0 stray=0 ' "$T/$name.$i" || bad=1
	done
	return $bad
}

# The number in "key=N" summed over the clients' summary lines.
sum_field() {
	local key=$1 name=$2

	cat "$T/$name".* 2>/dev/null | sed -n "s/.* $key=\([0-9]*\) .*/\1/p" |
		awk '{ s += $1 } END { print s + 0 }'
}

# progressed N NAME I...: clients I... have each finished N tasks or more.
progressed() {
	local n=$1 name=$2 i l done

	shift 2
	for i in "$@"; do
		done=0
		while read -r l; do
			[[ $l =~ :\ ([0-9]+)/[0-9]+\ tasks\ done ]] && done=${BASH_REMATCH[1]}
		done <"$T/$name.$i"
		[ "$done" -ge "$n" ] || return 1
	done
}

# mid_run NAME I...: wait until clients I... are past their registrations
# and the module has tasks out with usched; polls with builtins only, since
# a task can take milliseconds. 1 if that never happens.
mid_run() {
	local end=$((SECONDS + 120)) v

	# No $(...): the fork would widen the gap between seeing tasks out and the kill.
	until progressed 1 "$@" && read -r v <"$SYS/in_flight" && [ "$v" -gt 0 ]; do
		[ $SECONDS -ge $end ] && return 1
		read -r -t 0.01 -u "$nap"	# a sleep without a fork
	done
	return 0	# not the timed-out read's status
}

start_usched
ok $? "usched starts and attaches to /dev/tqsubmit"
[ -n "$upid" ] && attached || { tail -n 20 "$T/usched.log" | diag; exit 1; }

# 1. Several processes, every result checked.
c0=$(sysfs completed)
clients many 3 --tasks 8 --depth 4
check_clients many 1 2 3
ok $? "3 clients x 8 mixed tasks: every result verified, each completed once"
done_tasks=$(sum_field ok many)
ok $((done_tasks == 24 ? 0 : 1)) "24 tasks ok in the clients' counts (got $done_tasks)"
# 3 x (4 programs + 4 kernels + 8 tasks) completions
c1=$(sysfs completed)
ok $((c1 - c0 == 48 ? 0 : 1)) "the module counted 48 completions (got $((c1 - c0)))"
wait_for 10 sysfs_is contexts = 0
ok $? "usched released every closed context (sysfs contexts back to 0)"
kill -HUP "$upid"
wait_for 10 grep -q '^tq_tasks_total{status="ok"} 24$' "$T/usched.prom"
ok $? "metrics (written on SIGHUP): Prometheus text counting the 24 tasks"
awk '!/^#/ && NF && $NF !~ /^-?[0-9.e+-]+$/ { bad = 1 } END { exit bad }' "$T/usched.prom"
ok $? "metrics: every sample line ends in a number"
tgs=$(sed -n 's/^tq_tgs_total //p' "$T/usched.prom")
grep -q "^tq_tg_size_tasks_count $tgs\$" "$T/usched.prom" &&
	grep -q '^tq_tg_size_tasks_sum 24$' "$T/usched.prom" &&
	grep -q "^tq_tg_error_ratio_bucket{le=\"+Inf\"} $tgs\$" "$T/usched.prom"
ok $? "metrics: per-TG histograms, $tgs TGs holding the 24 tasks, each with its error"

# 1b. Registration under load: 8 clients start at once, each registering 4 programs and 4
# kernels while 2 more register a program that does not compile, so the build thread, its
# eventfd, the core's build lock and the state file all serve many at a time. A lost
# wake-up anywhere on that path would hang a client: timeout turns that into a failure.
bad=0
rpids=()
for i in $(seq 1 10); do
	if [ "$i" -le 8 ]; then
		timeout 120 "$BIN/tqdemo" --mix "$MIX" --scale 0.25 --tasks 2 --depth 2 --quiet \
			>"$T/reg.$i" 2>&1 &
	else
		timeout 120 "$BIN/tqdemo" --bad-program >"$T/reg.$i" 2>&1 &
	fi
	rpids+=($!)
done
for i in "${!rpids[@]}"; do
	wait "${rpids[$i]}" || { bad=1; tail -n 3 "$T/reg.$((i + 1))" | diag; }
done
ok $bad "10 clients registering at once (2 with a compile error): all answered, all verified"

# 2. A client killed mid-run does not disturb the others.
clients kill 3 --tasks 16 --depth 6 --progress 1
wait_for 120 progressed 3 kill 1
kill -KILL "${cpid[1]}"
wait "${cpid[1]}" 2>/dev/null
check_clients kill 2 3
ok $? "a client SIGKILLed mid-run: the other two verify all 16 tasks each"
kill -0 "$upid"
ok $? "usched survives the client's death"
wait_for 10 sysfs_is contexts = 0
ok $? "the killed client's context is released (contexts back to 0)"

# 3. usched killed (SIGKILL) and restarted mid-run loses nothing.
r0=$(sysfs requeued)
clients restart 2 --tasks 32 --depth 6 --progress 1 --scale 1
mid_run restart 1 2
kill -KILL "$upid"
wait "$upid" 2>/dev/null
wait_for 10 detached
start_usched
ok $? "usched restarts after SIGKILL"
check_clients restart 1 2
ok $? "restart mid-run: both clients verify all 32 tasks, each completed once"
r1=$(sysfs requeued)
ok $((r1 > r0 ? 0 : 1)) "the module re-delivered $((r1 - r0)) task(s) to the new usched"
grep -q 'restored 4 programs, 4 kernels' "$T/usched.log"
ok $? "the new usched restored the clients' program and kernel ids"

# 4. SIGTERM mid-run: usched finishes what it took, exits 0; a successor does the rest.
# The module may see tasks out and usched finish them all before the signal
# lands; then nothing was in flight to finish, so stop the next usched too,
# up to three times, until one is stopped with work in hand.
clients term 2 --tasks 32 --depth 6 --progress 1 --scale 1
rc=1 last=
for try in 1 2 3; do
	mid_run term 1 2 || break
	kill -TERM "$upid"
	wait "$upid"
	rc=$?
	last=$(grep -E 'finishing [0-9]+ task|exiting: [0-9]+ task' "$T/usched.log" | tail -n 2)
	start_usched
	[[ $last =~ finishing\ [1-9] ]] && break
done
ok $rc "SIGTERM mid-run: usched exits 0"
[[ $last =~ finishing\ [1-9] ]] && [[ $last =~ exiting:\ 0\ task ]]
ok $? "it had tasks in flight and finished them all before exiting (try $try)"
check_clients term 1 2
ok $? "the next usched completes the rest: both clients verify all 32 tasks"

# 5. A program that does not compile comes back with its build log.
"$BIN/tqdemo" --bad-program >"$T/bad" 2>&1
ok $? "a compile error: tq_register_program_log gives -ENOEXEC and the build log"
diag <"$T/bad"

# 6. The last metrics and the trace.
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM when idle"
upid=
grep -q '^tq_builds_total{status="error"} 1$' "$T/usched.prom"
ok $? "metrics at exit count the failed build"
scripts/trace-check "$T/trace.json" >"$T/trace.tap" 2>&1
! grep -q '^not ok' "$T/trace.tap" && grep -q '^ok - the trace is valid JSON' "$T/trace.tap"
ok $? "trace: valid Chrome trace JSON, scripts/trace-check's checks pass"
grep -v '^ok' "$T/trace.tap" | diag

[ $failed -eq 0 ] || { echo "# usched's log:"; tail -n 40 "$T/usched.log" | diag; }
tap_done
