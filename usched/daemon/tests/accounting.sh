#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# accounting.sh - per-client accounting through the real usched, natively on
# tqsubmitd's socket (selftests/socket_env.sh): root and uid $USER_ID each
# run limits_client worksize (a VA over 2^63 work-items, refused by
# max-work-items, then one over 1024, verified) a number of times, and the
# metrics file has each uid under its own label: tasks, refusals and bytes
# equal to what each ran, engine time and latencies counted, the uids'
# tasks summing to tq_tasks_total, the clients' cgroup counted. Then with
# metrics-clients 1 the second uid's tasks go to "other".
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

TESTBIN=${TESTBIN:-build/tests}
CLIENT=$TESTBIN/limits_client
USER_ID=65534
ROOT_RUNS=3
USER_RUNS=2
N_BYTES=4096	# each of VA's buffers: 1024 floats; two in, one out
. usched/daemon/tests/lib.sh

suite_begin_any accounting "$BIN/usched" "$BIN/usched-build" "$CLIENT" "$COUNTER"
[ "$(id -u)" = 0 ] || skip_all "not root: a client runs as uid $USER_ID"
[ -c /dev/tqsubmit ] && [ "${TQ_TRANSPORT:-}" != socket ] && chmod 666 /dev/tqsubmit

# The value of the sample NAME{LABELS} exactly as written (no regex in it but . and brackets).
metric() { grep -F "$1 " "$T/usched.prom" 2>/dev/null | sed -n "s/^[^ ]* //p"; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }

start_usched() {
	: >"$T/usched.log"
	"$BIN/usched" --foreground --config /dev/null --state "$T/state" \
		--metrics "$T/usched.prom" --metrics-interval 1 --tqsubmitd none "$@" \
		>>"$T/usched.log" 2>&1 &
	upid=$!
	wait_for 120 attached
}
stop_usched() {
	kill -TERM "$upid"
	wait "$upid"
	ok $? "usched exits 0 on SIGTERM"
	upid=
}
# runs N [--uid UID]: worksize N times, each verified
runs() {
	local n=$1 i bad=0

	shift
	for ((i = 0; i < n; i++)); do
		"$CLIENT" "$@" worksize >"$T/out" 2>&1
		grep -q '^huge=E2BIG small=ok verified=yes$' "$T/out" || { bad=1; diag <"$T/out"; }
	done
	return $bad
}

start_usched
ok $? "usched starts"
attached || { tail -n 20 "$T/usched.log" | diag; exit 1; }
runs $ROOT_RUNS
ok $? "root runs worksize $ROOT_RUNS times, verified"
runs $USER_RUNS --uid $USER_ID
ok $? "uid $USER_ID runs it $USER_RUNS times, verified"
u0='uid="0"' u1="uid=\"$USER_ID\""
wait_for 10 metric_is "tq_client_tasks_total{$u1,status=\"ok\"}" $USER_RUNS
for u in "0 $ROOT_RUNS" "$USER_ID $USER_RUNS"; do
	set -- $u
	l="uid=\"$1\""
	got="$(metric "tq_client_tasks_total{$l,status=\"ok\"}") $(metric "tq_client_tasks_total{$l,status=\"error\"}") $(metric "tq_client_refused_total{$l}")"
	[ "$got" = "$2 0 $2" ]
	ok $? "uid $1: $2 tasks ok, none failed, $2 refused (max-work-items) ($got)"
	got="$(metric "tq_client_bytes_total{$l,dir=\"htd\"}") $(metric "tq_client_bytes_total{$l,dir=\"dth\"}")"
	[ "$got" = "$(($2 * 2 * N_BYTES)) $(($2 * N_BYTES))" ]
	ok $? "uid $1: bytes copied, each way ($got)"
	k=$(metric "tq_client_engine_seconds_total{$l,stage=\"k\"}")
	got="$(metric "tq_client_queue_wait_seconds_count{$l}") $(metric "tq_client_device_seconds_count{$l}") $(metric "tq_client_delivery_seconds_bucket{$l,le=\"+Inf\"}")"
	[ "$got" = "$2 $2 $2" ] && awk -v k="${k:-0}" 'BEGIN { exit !(k > 0) }'
	ok $? "uid $1: kernel time ${k}s, its latencies' counts $got"
done
total=$(metric 'tq_tasks_total{status="ok"}')
[ "$total" = $((ROOT_RUNS + USER_RUNS)) ] && metric_is 'tq_task_queue_wait_seconds_count' "$total"
ok $? "tq_tasks_total ok ($total) sums the uids', every task's latencies counted"
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
if [ -n "$cg" ]; then
	got=$(metric "tq_cgroup_tasks_total{cgroup=\"$cg\",status=\"ok\"}")
	[ "$got" = $((ROOT_RUNS + USER_RUNS)) ]
	ok $? "the clients' cgroup $cg: their tasks (${got:-none})"
else
	skip "the clients' cgroup" "no cgroup v2 line in /proc/self/cgroup"
fi
grep -q '"other"' "$T/usched.prom"
ok $((! $?)) "no other series with room for every uid"
stop_usched

# Room for one uid: the first one seen keeps its label, the next is other.
start_usched --metrics-clients 1
ok $? "usched starts with metrics-clients 1"
runs 1 && runs 1 --uid $USER_ID
ok $? "root, then uid $USER_ID, run once"
wait_for 10 metric_is 'tq_client_tasks_total{uid="other",status="ok"}' 1
got="$(metric "tq_client_tasks_total{$u0,status=\"ok\"}") $(metric 'tq_client_tasks_total{uid="other",status="ok"}')"
[ "$got" = "1 1" ] && ! grep -qF "$u1" "$T/usched.prom"
ok $? "uid 0 labelled, uid $USER_ID in other, no series of its own ($got)"
stop_usched
[ $failed -eq 0 ] || tail -n 30 "$T/usched.log" | diag
tap_done
