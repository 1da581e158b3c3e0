#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sizes.sh - what the model sees of a client's tasks through the real
# usched, on the module in the test VM or natively on tqsubmitd's socket
# (TQ_TRANSPORT=socket, selftests/socket_env.sh). The uapi carries no size
# m for the kernel model, so the core takes a built-in kernel's from its
# plan (m = n^3 for FLW and MM, whose grids are not n^3 work-items), as
# in-process submitters give it; and usched's tg-log and task-log report,
# per TG and per task, each stage's time in the model's schedule beside the
# measured one (Documentation/design/daemon-path.md). tqdemo clients submit
# FLW, MM and VA; every task must be in task-log once with its plan's m and
# status 0, and the TGs of tg-log must hold them all, each with its kernel
# time predicted and measured. Prints TAP. Run from the repository root
# (scripts/runtests does).
set -uo pipefail

. usched/daemon/tests/lib.sh

suite_begin_any sizes-usched "$BIN/usched" "$BIN/tqdemo" "$COUNTER"
declare -A cpid

"$BIN/usched" --foreground --config /dev/null --state "$T/state" --tqsubmitd none \
	--metrics "$T/usched.prom" --metrics-interval 0 \
	--tg-log "$T/tg.csv" --task-log "$T/tasks.csv" >>"$T/usched.log" 2>&1 &
upid=$!
wait_for 120 attached
ok $? "usched attached"

# two clients, 12 tasks each: FLW n=48, MM n=64, VA n=65536 (--scale 1)
for c in a b; do
	"$BIN/tqdemo" --mix FLW,MM,VA --tasks 12 --scale 1 --depth 4 --seed 7 --timeout 300 \
		>"$T/$c" 2>&1 &
	cpid[$c]=$!
done
bad=0
for c in a b; do
	wait "${cpid[$c]}" || { bad=1; tail -n 4 "$T/$c" | diag; }
	grep -q 'tasks=12 ok=12 wrong=0 failed=0 dup=0 stray=0 ' "$T/$c" || bad=1
done
ok $bad "two tqdemo clients: 24 tasks of FLW, MM and VA, every result right"
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM"
upid=

head -n1 "$T/tasks.csv" | grep -qx 'policy,tg,ctx,pid,kernel,m,status,pred_htd_ms,meas_htd_ms,pred_k_ms,meas_k_ms,pred_dth_ms,meas_dth_ms'
ok $? "task-log: its header"
cnt=$(awk -F, 'NR > 1 && $7 == 0 && $2 > 0' "$T/tasks.csv" | wc -l)
[ "$cnt" = 24 ]
ok $? "task-log: a line per task, each in a TG with status 0 ($cnt of 24)"
# the plan's m: FLW 48^3 and MM 64^3 (their grids: 256 and 64 x 64 work-items), VA n
bad=$(awk -F, 'NR > 1 {
	want = $5 == "floyd_warshall" ? 110592 : $5 == "mm" ? 262144 : $5 == "vec_add" ? 65536 : -1
	if ($6 != want) { print $5 " m=" $6 " want " want; n++ }
} END { print n + 0 }' "$T/tasks.csv")
[ "$(echo "$bad" | tail -n1)" = 0 ]
ok $? "task-log: each built-in's m is its plan's (FLW 48^3, MM 64^3, VA 65536)"
[ "$(echo "$bad" | tail -n1)" = 0 ] || echo "$bad" | head -n 5 | diag
awk -F, 'NR > 1 && !($10 > 0 && $11 > 0 && ($5 != "floyd_warshall" || ($8 > 0 && $9 > 0 &&
	$12 > 0 && $13 > 0))) { bad = 1 } END { exit bad }' "$T/tasks.csv"
ok $? "task-log: every task's kernel time predicted and measured, FLW's copies too"

head -n1 "$T/tg.csv" | grep -qx 'policy,tg,tasks,inflight,plan,predicted_ms,measured_ms,pred_htd_ms,meas_htd_ms,pred_k_ms,meas_k_ms,pred_dth_ms,meas_dth_ms,policy_us,host_us'
ok $? "tg-log: its header"
# each TG's stage sums are its tasks'
awk -F, 'NR == FNR { if (FNR > 1) { k[$2] += $11; p[$2] += $10; t[$2]++ } next }
	FNR > 1 { n += $3; if ($3 != t[$2] || $11 - k[$2] > 0.01 || k[$2] - $11 > 0.01 ||
		$10 - p[$2] > 0.01 || p[$2] - $10 > 0.01 || !($6 > 0 && $7 > 0)) bad = 1 }
	END { exit bad || n != 24 }' "$T/tasks.csv" "$T/tg.csv"
ok $? "tg-log: the TGs hold the 24 tasks; each TG's kernel times are its tasks' sums"
grep -q '^tq_tg_stage_seconds_total{stage="k",kind="measured"} [0-9.]*[1-9]' "$T/usched.prom"
ok $? "metrics: tq_tg_stage_seconds_total, the kernel stage measured"
[ $failed -eq 0 ] || tail -n 20 "$T/usched.log" | diag
tap_done
