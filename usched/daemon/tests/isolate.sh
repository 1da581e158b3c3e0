#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# isolate.sh - isolate-source through the real usched, natively on
# tqsubmitd's socket (selftests/socket_env.sh; or on the module in the test
# VM), with the shipped usched.conf: an ordinary user (uid $USER_ID, in no
# section, so without allow-source) registers OpenCL C source and runs it,
# and runs a built-in, each result checked, in an OpenCL context of its own
# (tq_domains 1 while its context is open, 0 after; its tasks counted in
# tq_isolated_tasks_total; the log says so once). Root's source runs in the
# shared context (counted in neither). With isolate-source = no the user's
# source is refused -EPERM as before, the log saying so once.
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

TESTBIN=${TESTBIN:-build/tests}
CLIENT=$TESTBIN/limits_client
USER_ID=65534
. usched/daemon/tests/lib.sh

suite_begin_any isolate-usched "$BIN/usched" "$BIN/usched-build" "$CLIENT" "$COUNTER"
[ "$(id -u)" = 0 ] || skip_all "not root: the clients run as uid $USER_ID"
# Other uids open contexts too (on the module; tqsubmitd's socket is 0666 already).
[ -c /dev/tqsubmit ] && [ "${TQ_TRANSPORT:-}" != socket ] && chmod 666 /dev/tqsubmit

cat >"$T/good.cl" <<'EOF'
__kernel void scale(__global float *a, float x)
{
	a[get_global_id(0)] *= x;
}
EOF
chmod 644 "$T/good.cl"

metric() { sed -n "s/^$1 //p" "$T/usched.prom" 2>/dev/null; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }

start_usched() {
	: >"$T/usched.log"
	"$BIN/usched" --foreground --verbose --config usched/dist/usched.conf --state "$T/state" \
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

start_usched
ok $? "usched starts with the shipped usched.conf"
attached || { tail -n 20 "$T/usched.log" | diag; exit 1; }

# 1. The user's source, its context held open (GO) while the metrics are read.
"$CLIENT" --uid "$USER_ID" scale "$T/good.cl" "$T/go" >"$T/user" 2>&1 &
cpid=$!
wait_for 120 grep -q 'kernel=ok' "$T/user"
ok $? "uid $USER_ID registers OpenCL C source ($(head -c 80 "$T/user"))"
wait_for 10 metric_is tq_domains 1
ok $? "tq_domains 1 while its context is open ($(metric tq_domains))"
touch "$T/go"
wait "$cpid"
grep -q '^ run=ok verified=yes$' "$T/user"
ok $? "its task completes with the right result ($(tr '\n' ' ' <"$T/user"))"
"$CLIENT" --uid "$USER_ID" worksize >"$T/builtin" 2>&1
grep -q 'small=ok verified=yes' "$T/builtin"
ok $? "its built-in runs in its context, verified ($(cat "$T/builtin"))"
wait_for 10 metric_is tq_domains 0
ok $? "tq_domains 0 once its contexts are released ($(metric tq_domains))"
iso=$(metric tq_isolated_tasks_total)
[ "${iso:-0}" -eq 2 ]
ok $? "tq_isolated_tasks_total counts its 2 tasks ($iso)"
lines=$(grep -c "uid $USER_ID: its source programs run in a context of their own" "$T/usched.log")
[ "$lines" -eq 1 ]
ok $? "the log says once that its source runs in a context of its own ($lines lines)"

# 2. Root's source stays in the shared context.
"$CLIENT" scale "$T/good.cl" >"$T/root" 2>&1
grep -q '^program=ok run=ok verified=yes$' "$T/root"
ok $? "root's source runs, verified ($(cat "$T/root"))"
sleep 2	# metrics-interval 1
[ "$(metric tq_isolated_tasks_total)" = "$iso" ] && metric_is tq_domains 0 &&
	! grep -q "uid 0: its source" "$T/usched.log"
ok $? "in the shared context: no domain opened, none of its tasks isolated"
stop_usched

# 3. isolate-source = no: the user's source refused as before, said once.
start_usched --isolate-source no
ok $? "usched starts with isolate-source = no"
for i in 1 2; do
	"$CLIENT" --uid "$USER_ID" program "$T/good.cl" >"$T/eperm.$i" 2>&1
done
grep -q '^program=EPERM$' "$T/eperm.1" && grep -q '^program=EPERM$' "$T/eperm.2"
ok $? "uid $USER_ID's source: -EPERM, twice ($(cat "$T/eperm.1"), $(cat "$T/eperm.2"))"
lines=$(grep -c "uid $USER_ID: OpenCL C source refused: allow-source = no" "$T/usched.log")
[ "$lines" -eq 1 ]
ok $? "the log names the setting once for the two refusals ($lines lines)"
"$CLIENT" --uid "$USER_ID" worksize >"$T/builtin.2" 2>&1
grep -q 'small=ok verified=yes' "$T/builtin.2"
ok $? "its built-in runs in the shared context, verified"
sleep 2
metric_is tq_domains 0 && metric_is tq_isolated_tasks_total 0
ok $? "no domain opened, nothing isolated ($(metric tq_domains), $(metric tq_isolated_tasks_total))"
stop_usched
[ $failed -eq 0 ] || tail -n 30 "$T/usched.log" | diag
tap_done
