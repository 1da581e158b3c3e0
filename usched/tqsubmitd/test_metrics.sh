#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# usched/tqsubmitd/test_metrics.sh - tqsubmitd's metrics file (--metrics):
# written at start, mode 0640, Prometheus's text format; after a real
# client's tasks (tqdemo through usched on PoCL) and SIGHUP, each counter
# the same as the stats reply on the socket gives (tqstat --all); written
# again at exit; none without --metrics; a bad interval refused. Run from
# the repository root after the build (BIN: its bin/).
set -uo pipefail
BIN=${BIN:-build/bin}
. selftests/tap.sh

for p in tqsubmitd usched tqdemo tqstat; do
	[ -x "$BIN/$p" ] || skip_all "$BIN/$p is not built"
done
T=$(mktemp -d /tmp/tqd-metrics.XXXXXX)
spid= upid=
cleanup() {
	for p in $upid $spid; do kill -TERM "$p" 2>/dev/null; done
	for p in $upid $spid; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
export TQ_TRANSPORT=socket TQ_SOCKET=$T/c.sock TQ_SCHED_SOCKET=$T/s.sock
P=$T/tqsubmitd.prom
metric() { sed -n "s/^tqsubmitd_$1 //p" "$P"; }
stat_of() { sed -n "s/^$1 //p" "$T/stats"; }

"$BIN/tqsubmitd" --foreground --metrics "$P" --metrics-interval 60 >"$T/log" 2>&1 &
spid=$!
wait_for 10 test -S "$TQ_SCHED_SOCKET" -a -s "$P"
ok $? "the file is there once tqsubmitd serves"
ok $([ "$(stat -c %a "$P")" = 640 ]; echo $?) "mode 0640 ($(stat -c %a "$P"))"
ok $([ "$(metric pid)" = "$spid" ] && [ "$(metric metrics_interval_seconds)" = 60 ] &&
     [ "$(metric tasks_submitted_total)" = 0 ]; echo $?) \
	"its writer, interval and counters: pid $(metric pid), every $(metric metrics_interval_seconds) s"
# every sample has its HELP and TYPE, and every counter's name ends in _total
awk '/^# TYPE/ { type[$3] = $4; next } /^# HELP/ { help[$3] = 1; next }
     { if (!($1 in type) || !($1 in help) || (type[$1] == "counter") != ($1 ~ /_total$/)) bad++ }
     END { exit bad > 0 || NR < 60 }' "$P"
ok $? "Prometheus's text format: HELP and TYPE for each, counters named _total"

"$BIN/usched" --foreground --config /dev/null --state "$T/state" --tqsubmitd none \
	>"$T/usched.log" 2>&1 &
upid=$!
wait_for 60 grep -qs 'ready' "$T/usched.log"
timeout 120 "$BIN/tqdemo" --mix VA,MT --scale 0.25 --tasks 8 --depth 4 >"$T/demo" 2>&1
ok $? "a client's tasks through usched: $(tail -n 1 "$T/demo")"
before=$(metric metrics_time_seconds)
sleep 1.1	# a second later: a rewrite shows in its time
kill -HUP "$spid"
wait_for 10 test "$(metric metrics_time_seconds)" != "$before"
ok $? "SIGHUP rewrites it"
"$BIN/tqstat" --all --socket "$TQ_SOCKET" --sysfs "$T/none" --metrics "$T/none" |
	grep -v '^#' >"$T/stats"
same=0
# (not connections: tqstat's own is one more on the socket)
for pair in contexts:contexts submitted:tasks_submitted_total \
	    delivered:tasks_delivered_total completed:tasks_completed_total \
	    in_flight:tasks_in_flight enters:enters_total scheduler_pid:scheduler_pid; do
	s=$(stat_of "${pair%%:*}") m=$(metric "${pair#*:}")
	if [ -n "$s" ] && [ "$s" = "$m" ]; then
		same=$((same + 1))
	else
		echo "${pair%%:*} $s on the socket, tqsubmitd_${pair#*:} $m in the file" | diag
	fi
done
ok $([ $same = 7 ] && [ "$(metric tasks_completed_total)" -ge 8 ]; echo $?) \
	"the file's counters are the socket's ($same of 7; $(metric tasks_completed_total) completed)"
kill -TERM "$upid"
wait "$upid" 2>/dev/null
upid=
kill -TERM "$spid"
wait "$spid" 2>/dev/null
spid=
ok $([ "$(metric scheduler_pid)" = 0 ] && [ "$(metric contexts)" = 0 ]; echo $?) \
	"written at exit: no scheduler, no context"

"$BIN/tqsubmitd" --foreground --socket "$T/c2.sock" --sched-socket "$T/s2.sock" \
	--metrics-interval 0 >"$T/log2" 2>&1 &
spid=$!
wait_for 10 test -S "$T/s2.sock"
kill -TERM "$spid"
wait "$spid" 2>/dev/null
spid=
ok $([ -z "$(find "$T" -name '*.prom*' ! -path "$P")" ]; echo $?) "no --metrics, no file"
"$BIN/tqsubmitd" --foreground --metrics "$P" --metrics-interval 5x >/dev/null 2>"$T/err"
ok $([ $? = 2 ] && grep -q 'bad --metrics-interval' "$T/err"; echo $?) \
	"a bad --metrics-interval: exit 2, said"
tap_done
