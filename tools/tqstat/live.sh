#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# live.sh - tqstat against the real usched on the socket transport, natively
# (PoCL), as the service runs it (umask 077, metrics-group set): with 8 tqdemo
# clients open, the snapshot fits 100 columns and 24 rows and shows
# tqsubmitd's and usched's counters, usched live; the metrics file is mode
# 0640 in the group asked for, and a member of it (not root) reads it; --all
# keeps the labels' quotes; -w redraws; after usched exits its file is
# marked stale.
#
# Prints TAP. Run from the repository root (make check: CHECK_SCRIPTS).
set -uo pipefail
. usched/daemon/tests/lib.sh

suite_begin_socket tqstat-live "$BIN/usched" "$BIN/tqdemo" "$BIN/tqsubmitd" "$BIN/tqstat" \
	"$COUNTER"
grp=$(getent group 65534 | cut -d: -f1)
[ -n "$grp" ] || skip_all "no group 65534 to give the metrics to"
printf 'tq-profile 1\ndma 1\nhtd alone 20000 1.0\ndth alone 20000 1.0\n' >"$T/profile"
tqstat() { "$BIN/tqstat" --sysfs "$T/no-module" --metrics "$T/usched.prom" "$@"; }
# fits FILE: every line at most 100 columns, at most 24 lines
fits() { [ "$(wc -l <"$1")" -le 24 ] && [ "$(awk '{ print length($0) }' "$1" | sort -n | tail -n1)" -le 100 ]; }

(umask 077; exec "$BIN/usched" --foreground --config /dev/null --profile "$T/profile" \
	--metrics "$T/usched.prom" --metrics-interval 2 --metrics-group "$grp" \
	--state "$T/state" --tqsubmitd "$BIN/tqsubmitd") >"$T/usched.log" 2>&1 &
upid=$!
wait_for 120 attached
ok $? "usched attached to the tqsubmitd it started"
spid=$(sed -n 's/.*started .*tqsubmitd (pid \([0-9]*\)) for .*/\1/p' "$T/usched.log" | head -n1)

declare -A cpid
for i in 1 2 3 4 5 6 7 8; do
	client "c$i" VA,MT --tasks 1000000 --depth 2
done
contexts() { [ "$(sysfs contexts)" = 8 ] && grep -q '^tq_contexts 8$' "$T/usched.prom"; }
wait_for 120 contexts
ok $? "8 clients open, in tqsubmitd's counters and usched's metrics"
tqstat >"$T/screen"
ok $? "tqstat exits 0"
fits "$T/screen" && grep -q "^tqsubmitd  $TQ_SOCKET\$" "$T/screen" &&
	grep -q '^  clients    8 contexts open; scheduler [1-9]' "$T/screen" &&
	grep -q "^usched     $T/usched.prom, written [0-9]* s ago (every 2 s); pid $upid, up " \
		"$T/screen" &&
	grep -q '^  clients    8 contexts of 1 user(s)' "$T/screen" &&
	grep -q '^  copied     [0-9.]* [KMG]*i*B to the device' "$T/screen"
ok $? "the snapshot: 100x24 at most, tqsubmitd and a live usched with 8 contexts"
diag <"$T/screen"

read -r mode group < <(stat -c '%a %G' "$T/usched.prom")
ok $([ "$mode" = 640 ] && [ "$group" = "$grp" ]; echo $?) \
	"the metrics file under umask 077: mode $mode, group $group (want 640, $grp)"
setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN/tqstat" --sysfs "$T/no-module" \
	--metrics "$T/usched.prom" >"$T/member" 2>&1
ok $(grep -q "^usched     $T/usched.prom, written" "$T/member"; echo $?) \
	"a member of $grp, not root, reads it"

tqstat --all >"$T/all"
grep -q '^tq_info{device="[^"]*",policy="' "$T/all" && grep -q '^tq_tasks_total{status="ok"} [0-9]' "$T/all"
ok $? "--all: usched's labels quoted, as written"
tqstat -w 0.3 2 >"$T/watch"
ok $([ "$(grep -c '^tqstat ' "$T/watch")" = 2 ] && grep -q 'ok, [0-9]*/s' "$T/watch"; echo $?) \
	"-w 0.3 2: two screens, the second with rates"

for i in 1 2 3 4 5 6 7 8; do
	{ kill -KILL "${cpid[c$i]}"; wait "${cpid[c$i]}"; } 2>/dev/null
done
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM"
tqstat >"$T/screen"
fits "$T/screen" && grep -q "^usched     $T/usched.prom: STALE: usched (pid $upid) is not running" \
	"$T/screen"
ok $? "after usched exits, its file is marked stale"
tqstat --all >"$T/all"
grep -q "^# usched $T/usched.prom: stale: usched (pid $upid) is not running" "$T/all"
ok $? "--all says so too"
upid=
[ -n "$spid" ] && kill -TERM "$spid"
[ $failed -eq 0 ] || { echo "# usched's log:"; tail -n 40 "$T/usched.log" | diag; }
tap_done
