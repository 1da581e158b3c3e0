#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/socket_env.sh - run one test on the socket transport, natively:
# start a tqsubmitd of its own in a temporary directory (its own client and
# scheduler sockets, so that nothing else on the machine is touched), run
#
#   selftests/socket_env.sh PROGRAM [ARGS...]
#
# with TQ_TRANSPORT=socket, TQ_SOCKET and TQ_SCHED_SOCKET pointing at them
# (libtq, tq_echod and usched all read these) and TQ_SERVER_PID its pid,
# then stop tqsubmitd. The exit status is
# PROGRAM's, or 1 when tqsubmitd died under it; 77 (a skip, as TAP) when
# tqsubmitd is not built. scripts/runtests runs its socket: suites this way.
# TQSUBMITD names the server (default $BIN/tqsubmitd).
set -uo pipefail

BIN=${BIN:-build/bin}
tqsubmitd=${TQSUBMITD:-$BIN/tqsubmitd}
[ $# -gt 0 ] || { echo "usage: selftests/socket_env.sh PROGRAM [ARGS...]" >&2; exit 2; }
if [ ! -x "$tqsubmitd" ]; then
	echo "1..0 # SKIP $tqsubmitd is not built (the socket transport's server)"
	exit 77
fi

T=$(mktemp -d /tmp/tq-socket.XXXXXX)
chmod 755 "$T"
spid=
cleanup() {
	if [ -n "$spid" ]; then
		kill -TERM "$spid" 2>/dev/null
		for _ in $(seq 1 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT

export TQ_TRANSPORT=socket TQ_SOCKET=$T/tqsubmit.sock TQ_SCHED_SOCKET=$T/sched.sock
# the client socket open to every user, as the module's /dev/tqsubmit (0666):
# suites run clients as other users
"$tqsubmitd" --foreground --socket "$TQ_SOCKET" --sched-socket "$TQ_SCHED_SOCKET" \
	--socket-mode 0666 >"$T/tqsubmitd.log" 2>&1 &
spid=$!
export TQ_SERVER_PID=$spid
for _ in $(seq 1 100); do
	[ -S "$TQ_SOCKET" ] && [ -S "$TQ_SCHED_SOCKET" ] && break
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
if ! [ -S "$TQ_SOCKET" ] || ! [ -S "$TQ_SCHED_SOCKET" ]; then
	echo "# tqsubmitd did not come up:"
	sed 's/^/# /' "$T/tqsubmitd.log"
	exit 1
fi

case "$1" in
*.sh) bash "$@" ;;
*) "$@" ;;
esac
rc=$?
if ! kill -0 "$spid" 2>/dev/null; then
	echo "# tqsubmitd died during the test; its log:"
	sed 's/^/# /' "$T/tqsubmitd.log" | tail -20
	spid=
	[ $rc -eq 0 ] && rc=1
fi
exit $rc
