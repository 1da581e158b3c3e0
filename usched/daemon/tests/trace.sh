#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# trace.sh - usched's trace through the daemon, natively on tqsubmitd's
# socket (selftests/socket_env.sh) or on the module in the test VM: usched
# traces from its start (trace), a client runs a chain of 8 VA tasks
# (limits_client chain), tqstat --trace stop ends the trace, which is then
# mode 0640 in metrics-group and passes scripts/trace-check with the
# client's tasks: each under the client's own id (0..7, its user_data) on a
# track of the client's process (its pid, uid and command name), its stages,
# its commands measured and predicted, its arrow through its TG. Then
# tqstat --trace start begins another on the running usched, readable while
# it runs, and usched's exit closes it as valid JSON.
# Prints TAP. Run from the repository root (scripts/runtests does).
set -uo pipefail

TESTBIN=${TESTBIN:-build/tests}
CLIENT=$TESTBIN/limits_client
. usched/daemon/tests/lib.sh

suite_begin_any trace-usched "$BIN/usched" "$BIN/tqstat" "$CLIENT" "$COUNTER"
command -v python3 >/dev/null || skip_all "no python3 for scripts/trace-check"

# a group usched may give the file: another one as root
GROUP=$(id -g)
[ "$(id -u)" = 0 ] && GROUP=65534
export TQ_METRICS=$T/usched.prom

"$BIN/usched" --foreground --config /dev/null --state "$T/state" --tqsubmitd none \
	--metrics "$T/usched.prom" --metrics-interval 1 --metrics-group "$GROUP" \
	--trace "$T/trace.json" >>"$T/usched.log" 2>&1 &
upid=$!
wait_for 120 attached
ok $? "usched attached, tracing from its start"

# client NAME: a chain of 8 VA tasks, user_data 0..7; its pid in cpid_NAME's file
client() {
	"$CLIENT" chain 8 >"$T/$1.out" 2>&1 &
	echo $! >"$T/$1.pid"
	wait $!
}

# expect NAME: what the trace must show of client NAME's tasks
expect() {
	local pid i sep=

	read -r pid <"$T/$1.pid"
	printf '{"tasks": ['
	for i in 0 1 2 3 4 5 6 7; do
		printf '%s{"id": %d, "pid": %d, "uid": %d, "comm": "limits_client", ' \
			"$sep" "$i" "$pid" "$(id -u)"
		printf '"kernel": "vec_add", "cmds": 4}'
		sep=,
	done
	printf ']}\n'
}

# check TRACE [EXPECT]: scripts/trace-check's lines as this suite's checks
check() {
	local line

	python3 scripts/trace-check "$@" >"$T/check.out" 2>&1 ||
		echo "not ok - scripts/trace-check exits $?" >>"$T/check.out"
	while IFS= read -r line; do
		case "$line" in
		"ok - "*) ok 0 "${line#ok - }" ;;
		"not ok - "*) ok 1 "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done <"$T/check.out"
}

client one
grep -q 'chain=8 ordered=7 verified=yes' "$T/one.out"
ok $? "the client ran its 8 tasks"
"$BIN/tqstat" --trace stop >"$T/tqstat.out" 2>&1
ok $? "tqstat --trace stop: $(cat "$T/tqstat.out")"
[ "$(stat -c %a:%g "$T/trace.json")" = "640:$GROUP" ]
ok $? "the trace is mode 0640 in metrics-group ($(stat -c %a:%g "$T/trace.json"))"
expect one >"$T/one.json"
check "$T/trace.json" "$T/one.json"

"$BIN/tqstat" --trace start >"$T/tqstat.out" 2>&1
ok $? "tqstat --trace start on the running usched: $(cat "$T/tqstat.out")"
client two
grep -q 'chain=8 ordered=7 verified=yes' "$T/two.out"
ok $? "a second client ran its 8 tasks"
# written as it runs: what is there, closed, is a trace holding the client's tasks
(cat "$T/trace.json"; printf '\n]\n') >"$T/partial.json"
expect two >"$T/two.json"
check "$T/partial.json" "$T/two.json"
kill -TERM "$upid"
wait "$upid"
ok $? "usched exits 0 on SIGTERM"
upid=
check "$T/trace.json" "$T/two.json"
[ $failed -eq 0 ] || { echo "# usched's log:"; tail -n 30 "$T/usched.log" | diag; }
tap_done
