#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# e2e_daemon.sh - usched end to end, in the test VM (tqsubmit.ko loaded, PoCL):
# client processes (tqdemo, through libtq) submit built-in kernels/ tasks,
# usched runs them, every result is checked against the host reference and
# every task must complete exactly once. Then: a client SIGKILLed mid-run,
# usched SIGKILLed and restarted mid-run, usched stopped with SIGTERM
# mid-run, a program that does not compile, and the metrics and trace files.
# Prints TAP. Run from the repository root (tools/runtests does).
set -uo pipefail

BIN=${BIN:-build/bin}
SYS=/sys/class/misc/tqsubmit
MIX=VA,MT,BS,DCT	# no INOUT buffers: a re-run after a restart sees its inputs intact
n=0 failed=0

ok() {	# ok STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
skip_all() { echo "1..0 # SKIP $*"; exit 77; }
diag() { sed 's/^/# /'; }
sysfs() { cat "$SYS/$1" 2>/dev/null || echo -1; }

# wait_for SECONDS COMMAND...: until COMMAND succeeds; 1 if it never does.
wait_for() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

[ -c /dev/tqsubmit ] || skip_all "no /dev/tqsubmit (run in the test VM: make check)"
[ -x "$BIN/usched" ] && [ -x "$BIN/tqdemo" ] || skip_all "usched or tqdemo not built"
clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
[ "$(sysfs scheduler_pid)" = 0 ] || skip_all "another scheduler is attached"

T=$(mktemp -d /tmp/e2e-usched.XXXXXX)
upid=
cleanup() {
	[ -n "$upid" ] && kill -KILL "$upid" 2>/dev/null
	jobs -p | xargs -r kill -KILL 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

attached() { [ "$(sysfs scheduler_pid)" = "$upid" ]; }
detached() { [ "$(sysfs scheduler_pid)" = 0 ]; }

start_usched() {
	"$BIN/usched" --foreground --config /dev/null --state "$T/state" \
		--metrics "$T/usched.prom" --metrics-interval 1 --trace "$T/trace.json" \
		"$@" >>"$T/usched.log" 2>&1 &
	upid=$!
	wait_for 60 attached
}

# clients NAME COUNT TQDEMO-ARGS...: start COUNT tqdemo processes in the
# background, output in $T/NAME.I; their pids in the array cpids.
clients() {
	local name=$1 count=$2 i

	shift 2
	cpids=()
	for i in $(seq 1 "$count"); do
		"$BIN/tqdemo" --mix "$MIX" --seed "$i$RANDOM" --timeout 240 "$@" \
			>"$T/$name.$i" 2>&1 &
		cpids+=($!)
	done
}

# check_clients NAME PIDS...: wait for them; 0 if every one verified every
# task exactly once.
check_clients() {
	local name=$1 pid bad=0 i=0

	shift
	for pid in "$@"; do
		i=$((i + 1))
		wait "$pid" || { bad=1; tail -n 5 "$T/$name.$i" | diag; }
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

# The module has tasks delivered to the scheduler and not completed.
busy() { [ "$(sysfs in_flight)" -gt 0 ]; }
# ready NAME COUNT: every client has registered its programs (the last is DCT).
ready() {
	local i

	for i in $(seq 1 "$2"); do
		grep -q '^tqdemo.*: DCT n=.* ready' "$T/$1.$i" || return 1
	done
}

start_usched
ok $? "usched starts and attaches to /dev/tqsubmit"
[ -n "$upid" ] && attached || { tail -n 20 "$T/usched.log" | diag; exit 1; }

# 1. Several processes, every result checked.
c0=$(sysfs completed)
clients many 4 --tasks 12 --depth 6
check_clients many "${cpids[@]}"
ok $? "4 clients x 12 mixed tasks: every result verified, each completed once"
done_tasks=$(sum_field ok many)
ok $((done_tasks == 48 ? 0 : 1)) "48 tasks ok in the clients' counts (got $done_tasks)"
# 4 x (4 programs + 4 kernels + 12 tasks) completions
c1=$(sysfs completed)
ok $((c1 - c0 == 80 ? 0 : 1)) "the module counted 80 completions (got $((c1 - c0)))"
wait_for 10 test "$(sysfs contexts)" = 0
ok $? "usched released every closed context (sysfs contexts back to 0)"

# 2. A client killed mid-run does not disturb the others.
clients kill 3 --tasks 40 --depth 8 --progress 5
victim=${cpids[0]}
wait_for 120 grep -q '5/40 tasks done' "$T/kill.1"
kill -KILL "$victim"
wait "$victim" 2>/dev/null
check_clients kill "${cpids[@]:1}"
ok $? "a client SIGKILLed mid-run: the other two verify all 40 tasks each"
kill -0 "$upid"
ok $? "usched survives the client's death"
wait_for 10 test "$(sysfs contexts)" = 0
ok $? "the killed client's context is released (contexts back to 0)"

# 3. usched killed (SIGKILL) and restarted mid-run loses nothing.
r0=$(sysfs requeued)
clients restart 2 --tasks 30 --depth 8
wait_for 120 ready restart 2 && wait_for 60 busy
kill -KILL "$upid"
wait "$upid" 2>/dev/null
wait_for 10 detached
start_usched
ok $? "usched restarts after SIGKILL"
check_clients restart "${cpids[@]}"
ok $? "restart mid-run: both clients verify all 30 tasks, each completed once"
r1=$(sysfs requeued)
ok $((r1 > r0 ? 0 : 1)) "the module re-delivered $((r1 - r0)) task(s) to the new usched"
grep -q 'restored' "$T/usched.log"
ok $? "the new usched restored the clients' program and kernel ids"

# 4. SIGTERM mid-run: usched finishes what it took, exits 0; a successor does the rest.
clients term 2 --tasks 30 --depth 8
wait_for 120 ready term 2 && wait_for 60 busy
kill -TERM "$upid"
wait "$upid"
ok $? "SIGTERM mid-run: usched exits 0"
grep -q 'exiting: 0 task(s) left' "$T/usched.log"
ok $? "it finished every task it had taken before exiting"
start_usched
check_clients term "${cpids[@]}"
ok $? "the next usched completes the rest: both clients verify all 30 tasks"

# 5. A program that does not compile comes back with its build log.
"$BIN/tqdemo" --bad-program >"$T/bad" 2>&1
ok $? "a compile error completes with -ENOEXEC and the build log in the arena"
diag <"$T/bad"

# 6. Metrics and trace.
kill -HUP "$upid"
sleep 0.5
grep -q '^tq_tasks_total{status="ok"} [1-9]' "$T/usched.prom"
ok $? "metrics: Prometheus text with the tasks run"
awk '!/^#/ && NF && $NF !~ /^-?[0-9.e+-]+$/ { bad = 1 } END { exit bad }' "$T/usched.prom"
ok $? "metrics: every sample line ends in a number"
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM when idle"
upid=
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["traceEvents"]' \
	"$T/trace.json" 2>&1 | diag
ok "${PIPESTATUS[0]}" "trace: valid Chrome trace JSON with events"

[ $failed -eq 0 ] || { echo "# usched's log:"; tail -n 40 "$T/usched.log" | diag; }
echo "1..$n"
[ $failed -eq 0 ]
