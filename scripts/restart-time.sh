#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/restart-time.sh - usched's start to ready, cold and warm (issue
# 41). N starts on an empty state directory (cold: the calibration measured,
# every program built), then N on one directory whose cache the first of
# them filled (warm). Each start is followed by a tqdemo client that
# registers MIX's built-in kernels and runs a few tasks, verified, so that
# the programs' builds count too; then usched is stopped (SIGTERM). Prints
# each start's "ready in" line (its phases), the client's time and where its
# programs came from, then the medians. On the socket transport, with a
# tqsubmitd of its own in a temporary directory: no module needed.
#
#   scripts/restart-time.sh [--bin DIR] [-n N] [--mix LIST] [--device DEV]
#
# DIR holds usched, usched-build, tqsubmitd and tqdemo (build/bin; gpu on
# the GPU machine: OUT=DIR scripts/gpu-run.sh --restart runs this there).
set -uo pipefail

bin=build/bin n=5 mix=VA,MT,BS,DCT dev=()
while [ $# -gt 0 ]; do
	case "$1" in
	--bin) bin=$2; shift ;;
	-n) n=$2; shift ;;
	--mix) mix=$2; shift ;;
	--device) dev=(--device "$2"); shift ;;
	*) echo "restart-time: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
for p in usched usched-build tqsubmitd tqdemo; do
	[ -x "$bin/$p" ] || { echo "restart-time: no $bin/$p" >&2; exit 2; }
done

T=$(mktemp -d /tmp/restart-time.XXXXXX)
export TQ_TRANSPORT=socket TQ_SOCKET=$T/tqsubmit.sock TQ_SCHED_SOCKET=$T/sched.sock
unset INVOCATION_ID	# usched starts its own tqsubmitd
spid= upid=
cleanup() {
	[ -n "$upid" ] && kill -KILL "$upid" 2>/dev/null
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
metric() { sed -n "s/^$1 //p" "$T/prom"; }

# one KIND I STATE-DIR: a start, the client, the stop; one line of figures.
one() {
	local kind=$1 i=$2 dir=$3 t0 t1 t2 ready

	t0=$(now)
	"$bin/usched" --foreground --config /dev/null --state "$dir/state" --metrics "$T/prom" \
		--metrics-interval 0 --tqsubmitd "$bin/tqsubmitd" "${dev[@]}" >"$T/log" 2>&1 &
	upid=$!
	until grep -aq 'ready: serving' "$T/log"; do
		kill -0 "$upid" 2>/dev/null || { cat "$T/log" >&2; exit 1; }
		sleep 0.01
	done
	t1=$(now)
	[ -n "$spid" ] || spid=$(sed -n 's/.*started .*tqsubmitd (pid \([0-9]*\)) for .*/\1/p' "$T/log")
	"$bin/tqdemo" --mix "$mix" --tasks 16 --depth 4 --timeout 300 >"$T/client" 2>&1
	t2=$(now)
	grep -q ' wrong=0 failed=0 dup=0 stray=0 ' "$T/client" || {
		echo "restart-time: the client failed:" >&2; tail -n 5 "$T/client" >&2; }
	kill -TERM "$upid"
	wait "$upid"
	upid=
	ready=$(grep -ao 'ready in [0-9.]* s: .*' "$T/log")
	echo "$kind $i: $ready"
	echo "$kind $i: client $(since "$t1" "$t2") s (programs: $(metric \
		'tq_programs_total{from="source"}') built, $(metric \
		'tq_programs_total{from="cache"}') from the cache), start to tasks done $(since \
		"$t0" "$t2") s"
	echo "$kind $(sed -n 's/ready in \([0-9.]*\) s.*/\1/p' <<<"$ready") $(since "$t0" "$t2")" \
		>>"$T/figures"
}

echo "== usched start to ready, $n cold then $n warm, client --mix $mix ($bin)"
for i in $(seq 1 "$n"); do
	rm -rf "$T/cold"
	mkdir -p "$T/cold"
	one cold "$i" "$T/cold"
done
mkdir -p "$T/warm"
one fill 0 "$T/warm" >/dev/null
for i in $(seq 1 "$n"); do
	one warm "$i" "$T/warm"
done
for kind in cold warm; do
	echo "== $kind: ready median $(awk -v k=$kind '$1 == k { print $2 }' "$T/figures" |
		median) s, start to the client's tasks done median $(awk -v k=$kind \
		'$1 == k { print $3 }' "$T/figures" | median) s"
done
