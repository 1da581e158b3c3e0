#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test_proc.sh - tqbench --workers process in the test VM (tqsubmit.ko
# loaded, PoCL): each policy through the usched daemon, each worker a process
# submitting through libtq. A tiny run of both suites (2 workers x 2 tasks,
# one benchmark each, from tables of our own that name few tasks, so that
# few kernels are built and tuned under emulation) must give
# every policy's row, say that every task completed once with status 0 and
# every real output matched the host reference, and leave no daemon behind.
# Then the failures: another scheduler attached, and a worker SIGKILLed
# mid-run. On the socket also the stream, the open loop and --setups qos
# through the daemon. Prints TAP. Run from the repository root (scripts/runtests does).
# With TQ_TRANSPORT=socket (selftests/socket_env.sh, natively) the same on
# tqsubmitd's socket, the scheduler's pid from its counters (tq_counter),
# and a fourth case: tqbench starting a tqsubmitd of its own when none
# listens, and stopping it at exit.
set -uo pipefail

BIN=${BIN:-build/bin}
# under ASan (make SAN=1): PoCL and LLVM leave allocations behind at exit
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
SYS=/sys/class/misc/tqsubmit
POLICIES="fifo paper neh exact auto"
. selftests/tap.sh
COUNTER=$BIN/../tests/tq_counter
if [ "${TQ_TRANSPORT:-}" = socket ]; then
	sched_pid() { "$COUNTER" scheduler_pid 2>/dev/null || echo -1; }
	# natively other work may run a usched: ours are those whose arguments name $T
	nothing_left() { ! pgrep -f "$T/" >/dev/null && [ "$(sched_pid)" = 0 ]; }
	[ -S "${TQ_SOCKET:-}" ] || skip_all "no tqsubmitd socket (selftests/socket_env.sh runs this)"
	[ -x "$COUNTER" ] && [ -x "$BIN/tqsubmitd" ] || skip_all "tq_counter or tqsubmitd not built"
else
	sched_pid() { local v=-1; read -r v <"$SYS/scheduler_pid" 2>/dev/null; echo "$v"; }
	# No usched and no tqbench left, and the module without a scheduler.
	nothing_left() {
		! pgrep -x usched >/dev/null && ! pgrep -x 'tqbench(-worker)?' >/dev/null &&
			[ "$(sched_pid)" = 0 ]
	}
	[ -c /dev/tqsubmit ] || skip_all "no /dev/tqsubmit (run in the test VM: make check)"
fi
[ -x "$BIN/tqbench" ] && [ -x "$BIN/usched" ] && [ -x "$BIN/tq_echod" ] ||
	skip_all "tqbench, usched or tq_echod not built"
dev=$(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: //p' | head -n1)
[ -n "$dev" ] || skip_all "no OpenCL device"
[ "$(sched_pid)" = 0 ] || skip_all "another scheduler is attached"

T=$(mktemp -d /tmp/tqbench-proc.XXXXXX)
epid=
cleanup() {
	[ -n "$epid" ] && kill "$epid" 2>/dev/null
	jobs -p | xargs -r kill -KILL 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# A profile as tqcalib --quick measures PoCL in this guest (tqcalib takes a minute here).
cat >"$T/profile" <<EOF
tq-profile 1
device $dev
dma 2
htd alone 5200 3.04
htd overlapped 0 2.61
dth alone 1969 3.44
dth overlapped 0 3.54
kernel vec_add 4.26 13318
kernel synthetic_kernel 0.580 120060
EOF
# Two synthetic tasks (one DK, one DT) in one benchmark and one real task
# (VA): few kernels to build and tune under emulation.
mkdir "$T/data"
cat >"$T/data/synthetic_tasks.csv" <<EOF
name,htd,k,dth,class
T0,0.1,0.8,0.1,DK
T4,0.6,0.2,0.2,DT
EOF
cat >"$T/data/synthetic_benchmarks.csv" <<EOF
benchmark,tasks
BK50,T0 T4 T0 T4
EOF
cat >"$T/data/real_task_ranges.csv" <<EOF
device,task,dominance,htd_min,htd_max,k_min,k_max,dth_min,dth_max
test,VA,DT,2.51,12.54,0.09,0.44,1.25,6.19
EOF
args=(--workers process --quick --profile "$T/profile" --data "$T/data" --table5 test
      --benches BK50 --configs 2x2 --setups policies)

# 1. Both suites, every policy, every task checked.
timeout 300 "$BIN/tqbench" "${args[@]}" --out "$T/out" >"$T/table" 2>"$T/err"
rc=$?
ok $rc "tqbench --workers process: both suites, 2x2, every policy (status $rc)"
[ $rc -eq 0 ] || tail -n 20 "$T/err" | diag
bad=0
for s in synthetic real; do
	for p in $POLICIES; do
		awk -F, -v s=$s -v p=usched_$p '$1 == s && $2 == "BK50" && $5 == p &&
			$6 > 0 && $NF == "process" { f = 1 } END { exit !f }' "$T/out/tqbench.csv" ||
			{ bad=1; echo "no row for $s $p" | diag; }
	done
done
ok $bad "tqbench.csv: a row per suite and policy, makespan > 0, workers=process"
[ "$(grep -c ' process$' "$T/table")" = 2 ]
ok $? "the table's rows say the policies ran as processes"
# synthetic: SYN's outputs are device memory; real: 2 runs x 4 tasks checked
c=$(grep -c 'runs x 4 tasks, each completed once with status 0; 0 outputs verified' "$T/err")
v=$(grep -c '2 runs x 4 tasks, each completed once with status 0; 8 outputs verified' "$T/err")
[ "$c" = 5 ] && [ "$v" = 5 ]
ok $? "every task completed once with status 0; every real output verified ($c + $v policies)"
wait_for 10 nothing_left
ok $? "no usched or tqbench left; the module has no scheduler"
grep -c '^== tqbench: usched --policy' "$T/out/usched.log" | grep -qx 10
ok $? "usched.log: one daemon per suite and policy"
# the daemons' TGs and tasks, model against device: 2 runs x 4 tasks per suite and policy
awk -F, 'NR == 1 { ok = $1 == "suite" && $5 == "policy" && $14 == "pred_k_ms" }
	NR > 1 { n += $7 } END { exit !(ok && n == 2 * 5 * 2 * 4) }' "$T/out/proc-tg.csv"
ok $? "proc-tg.csv: every daemon's TGs, holding every task"
awk -F, 'NR > 1 && $14 > 0 && $15 > 0 && $11 == 0 { n++ } END { exit n != 2 * 5 * 2 * 4 }' \
	"$T/out/proc-tasks.csv"
ok $? "proc-tasks.csv: every task, its kernel time predicted and measured"
[ "$(grep -c 'TGs after the warm-up, ms predicted/measured: makespan' "$T/err")" = 10 ]
ok $? "per suite and policy, the TGs' times by stage against the model"

# 2. Another scheduler attached: a clear message at once.
"$BIN/tq_echod" -q -p "$T/echod.pid" &
epid=$!
wait_for 10 test -s "$T/echod.pid"
timeout 60 "$BIN/tqbench" "${args[@]}" --out "$T/busy" >/dev/null 2>"$T/err"
rc=$?
grep -q "another scheduler (pid $epid) is attached" "$T/err"
ok $(( $? || rc != 1 )) "another scheduler attached: status 1 (got $rc) and the reason"
[ $rc -eq 1 ] || diag <"$T/err"
kill "$epid"
wait "$epid"
epid=
wait_for 10 nothing_left
ok $? "nothing left after the refusal"

# 3. A worker killed mid-run: reported, the run fails, the daemon stopped, no orphans.
# natively PoCL runs 3 runs in moments: many more there, so that the kill lands mid-run
kruns=3
[ "${TQ_TRANSPORT:-}" = socket ] && kruns=60
timeout 300 "$BIN/tqbench" "${args[@]}" --suites synthetic --runs $kruns --out "$T/kill" \
	>/dev/null 2>"$T/err" &
tpid=$!
victim=
# timeout's child is tqbench; the workers are its children named tqbench-worker (a child
# named tqbench may be the daemon before its exec: killing it is not this case)
wait_for 120 eval 'victim=$(pgrep -P "$(pgrep -P $tpid -x tqbench)" -x tqbench-worker | head -n1)
	[ -n "$victim" ]'
[ -n "$victim" ] && kill -KILL "$victim"
wait "$tpid"
rc=$?
grep -q "worker [0-9]* (pid $victim) killed by signal 9" "$T/err"
ok $(( $? || rc != 1 )) "a worker SIGKILLed: reported, tqbench exits 1 (got $rc)"
[ $rc -eq 1 ] || tail -n 20 "$T/err" | diag
wait_for 10 nothing_left
ok $? "the daemon stopped and the other workers gone; the module has no scheduler"

# 4. The stream with worker processes through the daemon, beside the in-process ones.
timeout 300 "$BIN/tqbench" "${args[@]}" --setups stream --stream-s 2 --stream-workers 2 \
	--stream-depth 2 --out "$T/stream" >"$T/table" 2>"$T/err"
rc=$?
ok $rc "tqbench --workers process --setups stream (status $rc)"
[ $rc -eq 0 ] || tail -n 20 "$T/err" | diag
bad=0
# (independent's fresh contexts build for seconds under emulation: not checked here)
for p in fifo paper auto proc-fifo proc-paper proc-auto; do
	awk -v p=$p '$1 == p && $3 > 0 { f = 1 } END { exit !f }' "$T/table" ||
		{ bad=1; echo "no stream row $p with tasks" | diag; }
done
ok $bad "stream rows: in-process fifo, paper, auto and proc-fifo, proc-paper, proc-auto, with tasks"
[ "$(grep -c 'stream proc-[a-z]*: 2 processes x 2 in flight, [0-9]* tasks in 1.8 s, each completed with status 0' "$T/err")" = 3 ]
ok $? "each process stream's tasks completed with status 0"
# natively its tasks are counted too (under emulation the contexts build for long)
if [ "${TQ_TRANSPORT:-}" = socket ]; then
	awk '$1 == "proc-independent" && $3 > 0 { f = 1 } END { exit !f }' "$T/table"
else
	grep -q '^proc-independent ' "$T/table"
fi
ok $? "a stream row for proc-independent (independent contexts, each a process)"
grep -q 'stream throughput, proc-auto over proc-independent' "$T/stream/summary.md"
ok $? "summary.md: proc-auto's stream throughput over independent processes'"
wait_for 10 nothing_left
ok $? "nothing left after the streams"

# 4b. The open loop through the daemon (proc-auto) and with independent clients as
# processes (proc-independent), beside the in-process setups.
if [ "${TQ_TRANSPORT:-}" = socket ]; then
	timeout 300 "$BIN/tqbench" "${args[@]}" --suites real --setups openloop --ol-clients 2 \
		--ol-mixes BK50 --ol-loads 0.5 --ol-s 0.5 \
		--ol-setups auto,independent,proc-auto,proc-independent --out "$T/ol" \
		>/dev/null 2>"$T/err"
	rc=$?
	ok $rc "tqbench --setups openloop with proc-auto and proc-independent (status $rc)"
	[ $rc -eq 0 ] || tail -n 20 "$T/err" | diag
	for p in proc-auto proc-independent; do
		awk -F, -v p=$p '$2 == p && $5 > 0 && $6 > 0 { f = 1 } END { exit !f }' \
			"$T/ol/openloop.csv"
		ok $? "openloop.csv: $p's point, tasks counted and completed"
	done
	grep -q "proc-auto: throughput at 50% offered [0-9.]*x independent processes'" \
		"$T/ol/summary.md"
	ok $? "summary.md: the daemon's figures against independent processes'"
	wait_for 10 nothing_left
	ok $? "nothing left after the open loop"
fi

# 4c. Quality of service (--setups qos): the critical client in its four setups, the two
# users' shares (as uids of their own: root only), deadlines at two multiples; every row of
# the targets' table there (PoCL's figures say nothing of the targets: not checked).
if [ "${TQ_TRANSPORT:-}" = socket ]; then
	timeout 300 "$BIN/tqbench" "${args[@]}" --suites real --setups qos --qos-tasks 50 \
		--qos-s 1 --qos-deadline 5,20 --out "$T/qos" >"$T/table" 2>"$T/err"
	rc=$?
	ok $rc "tqbench --setups qos (status $rc)"
	[ $rc -eq 0 ] || tail -n 20 "$T/err" | diag
	awk -F, 'NR > 1 && $5 == 50 && $NF == "ok" { n++; s[$1] = 1 }
		END { exit !(n == 4 && s["tq-prio"] && s["tq-normal"] && s["independent"] &&
			     s["alone"]) }' "$T/qos/qos-latency.csv"
	ok $? "qos-latency.csv: tq-prio, tq-normal, independent and alone, 50 critical tasks each"
	awk -F, 'NR > 1 && $NF == "ok" && $4 > 0 { n++ } END { exit n != 2 }' \
		"$T/qos/qos-deadlines.csv"
	ok $? "qos-deadlines.csv: a point at 5x and at 20x, tasks counted"
	if [ "$(id -u)" = 0 ]; then
		awk -F, 'NR > 1 && $NF == "ok" && $3 > 0 { n++ } END { exit n != 2 }' \
			"$T/qos/qos-shares.csv"
		ok $? "qos-shares.csv: device time of uid 60001 and of uid 60002"
		met='(yes|no)'
	else
		grep -q 'not run: two users need two uids' "$T/qos/qos.csv"
		ok $? "not root: the shares' row says why it did not run"
		met='(yes|no|n/a)'
	fi
	rows='critical client.s p99|best-effort throughput|device time of two users'
	rows+='|tasks admitted at 90% load, deadline (5|20)x'
	rows+='|admitted tasks that missed the deadline \((5|20)x\)'
	nrows=$(grep -cE "^\| ($rows).* \| $met \|\$" "$T/qos/summary.md")
	ok $(( nrows != 7 )) "summary.md: the 7 targets' rows, each measured and judged ($nrows)"
	[ "$(grep -c '^"' "$T/qos/qos.csv")" = 7 ]
	ok $? "qos.csv: the 7 targets"
	grep -q '^# target: critical client' "$T/table"
	ok $? "the table on stdout has the targets"
	wait_for 10 nothing_left
	ok $? "nothing left after qos"
fi

# 5. The socket with no tqsubmitd listening: tqbench starts its own, and stops it.
if [ "${TQ_TRANSPORT:-}" = socket ]; then
	TQ_SOCKET=$T/none.sock TQ_SCHED_SOCKET=$T/none-sched.sock timeout 300 "$BIN/tqbench" \
		"${args[@]}" --suites synthetic --tqsubmitd "$BIN/tqsubmitd" --out "$T/own" \
		>/dev/null 2>"$T/err"
	rc=$?
	spid=$(sed -n 's/.*; tqsubmitd (pid \([0-9]*\)) serves .*/\1/p' "$T/err")
	dir=$(sed -n 's/.* serves \(.*\)\/tqsubmit.sock$/\1/p' "$T/err")
	ok $(( rc != 0 )) "no tqsubmitd: tqbench started one (pid ${spid:-none}) and ran (status $rc)"
	[ $rc -eq 0 ] || tail -n 20 "$T/err" | diag
	ok $([ -n "$spid" ] && ! kill -0 "$spid" 2>/dev/null && [ -n "$dir" ] && [ ! -e "$dir" ]
	     echo $?) "and stopped it at exit, its sockets' directory removed"
	TQ_SOCKET=$T/none.sock timeout 60 "$BIN/tqbench" "${args[@]}" --tqsubmitd "$T/nowhere" \
		--out "$T/own2" >/dev/null 2>"$T/err"
	rc=$?
	grep -q "$T/nowhere: No such file or directory (--tqsubmitd names it)" "$T/err"
	ok $(( $? || rc != 1 )) "no tqsubmitd to start: status 1 (got $rc), naming the program"
fi

tap_done
