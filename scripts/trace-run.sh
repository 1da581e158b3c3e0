#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/trace-run.sh - a trace of the service at work: usched (the shipped
# kernel queues, 2) on its socket transport, CLIENTS tqdemo processes
# streaming real tasks through it, traced from their first task to their
# last (Documentation/usched.md, "The trace"). Writes into OUT-DIR:
# trace.json, usched.log, the clients' outputs, clients.md (the per-client
# table, scripts/trace-report) and the pictures: tg.svg (one TG, measured
# against predicted) and stream.svg (a window of the stream).
#
#   scripts/trace-run.sh [--bin DIR] [--clients N] [--tasks N] [--mix LIST]
#                        [--scale X] [--device D] OUT-DIR
set -uo pipefail

bin=build/bin clients=8 tasks=200 mix=VA,MT,BS,DCT,MM,FWT scale=1 dev=()
while [ $# -gt 1 ]; do
	case "$1" in
	--bin) bin=$2; shift ;;
	--clients) clients=$2; shift ;;
	--tasks) tasks=$2; shift ;;
	--mix) mix=$2; shift ;;
	--scale) scale=$2; shift ;;
	--device) dev=(--device "$2"); shift ;;
	*) echo "trace-run: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: trace-run.sh [options] OUT-DIR" >&2; exit 2; }
out=$1
for p in usched usched-build tqsubmitd tqdemo; do
	[ -x "$bin/$p" ] || { echo "trace-run: no $bin/$p" >&2; exit 2; }
done
repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"

T=$(mktemp -d /tmp/trace-run.XXXXXX)
export TQ_TRANSPORT=socket TQ_SOCKET=$T/tqsubmit.sock TQ_SCHED_SOCKET=$T/sched.sock
unset INVOCATION_ID	# usched starts its own tqsubmitd
upid=
cleanup() {
	[ -n "$upid" ] && kill -KILL "$upid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$bin/usched" --foreground --config /dev/null --kernel-queues 2 --state "$T/state" \
	--trace "$out/trace.json" --metrics "$T/prom" --metrics-interval 1 --tqsubmitd "$bin/tqsubmitd" "${dev[@]}" \
	>"$out/usched.log" 2>&1 &
upid=$!
until grep -aq "ready: serving" "$out/usched.log" 2>/dev/null; do
	kill -0 "$upid" 2>/dev/null || { cat "$out/usched.log" >&2; exit 1; }
	sleep 0.05
done
# one warm-up client: its programs built before the trace
"$bin/tqdemo" --mix "$mix" --scale "$scale" --tasks 12 --depth 2 --timeout 300 \
	>"$out/warmup.txt" 2>&1 || { echo "trace-run: warm-up failed" >&2; exit 1; }

# the trace: the warm-up's stopped, a new one started (SIGUSR2, SIGUSR1:
# what tqstat --trace stop and start send), at usched's --trace path
trace_is() {
	for _ in $(seq 100); do
		grep -q "^tq_trace_active $1" "$T/prom" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "trace-run: usched's metrics never said tq_trace_active $1" >&2
	exit 1
}
kill -USR2 "$upid"
trace_is 0
kill -USR1 "$upid"
trace_is 1
pids=()
for i in $(seq 1 "$clients"); do
	"$bin/tqdemo" --mix "$mix" --scale "$scale" --tasks "$tasks" --depth 4 --seed "$i" \
		--timeout 300 >"$out/client.$i.txt" 2>&1 &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=1; done
kill -USR2 "$upid"
trace_is 0
kill -TERM "$upid"
wait "$upid"
upid=
grep -h ' wrong=0 failed=0 dup=0 stray=0 ' "$out"/client.*.txt | wc -l |
	{ read -r n; echo "trace-run: $n of $clients clients verified every task"; [ "$n" -eq "$clients" ]; } ||
	bad=1
"$repo/scripts/trace-report" "$out/trace.json" "$out" || bad=1
exit $bad
