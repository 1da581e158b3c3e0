#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/test_compat.sh - old clients against this tq: clients built against
# the libtq.so.1 and uapi header of the commit before the QoS revision of
# the ABI (issue 45; libtq/compat_build.sh builds them from git history into
# build/compat) run against this module or tqsubmitd and this usched:
# Documentation/libtq.md's example of then (a VA sum, checked) and its
# limits_client's chains. Their zeroed reserved fields and flag bits must
# mean what they meant. In the test VM on the module (scripts/run-client);
# natively on tqsubmitd's socket under selftests/socket_env.sh.
set -uo pipefail
. selftests/tap.sh
BIN=${BIN:-build/bin}
C=${TQ_COMPAT_DIR:-build/compat}

[ -f "$C/unavailable" ] && skip_all "$(cat "$C/unavailable")"
for p in "$C/example" "$C/limits_client" "$BIN/usched"; do
	[ -x "$p" ] || skip_all "$p is not built (make check builds it)"
done
run='echo "# example:"; '"$C"'/example && echo "# chain: $('"$C"'/limits_client chain 4)"'
if [ "${TQ_TRANSPORT:-}" = socket ]; then
	counter=$BIN/../tests/tq_counter
	[ -S "${TQ_SOCKET:-}" ] || skip_all "no tqsubmitd socket (selftests/socket_env.sh runs this)"
	clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
	T=$(mktemp -d /tmp/libtq-compat.XXXXXX)
	"$BIN/usched" --foreground --config /dev/null --state "$T/usched.state" \
		--tqsubmitd none >"$T/log" 2>&1 &
	for _ in $(seq 1 300); do
		upid=$("$counter" scheduler_pid)
		[ "$upid" -gt 0 ] 2>/dev/null && break
		sleep 0.2
	done
	out=$(bash -c "$run" 2>&1)
	rc=$?
	[ "${upid:-0}" -gt 0 ] 2>/dev/null && kill -TERM "$upid"
	wait
	out=$(cat "$T/log"; echo "$out")
	rm -rf "$T"
else
	[ -n "${TQ_IN_VM:-}" ] || skip_all "runs in the test VM (make check), or natively on the socket"
	out=$(bash scripts/run-client --guest -- bash -c "$run" 2>&1)
	rc=$?
fi
echo "$out" | diag
! grep -q TQ_FEAT_QOS "$C/src/include/uapi/linux/tqsubmit.h"
ok $? "the clients are of $(cat "$C/base"): their uapi header has no TQ_FEAT_QOS"
ok $rc "the old example ran and exited 0 (every sum right), and the old limits_client"
grep -q '^task 1: Success, on the device for [1-9][0-9]* ns$' <<<"$out"
ok $? "the old example's task completed with 0, start and end times set"
grep -q '^# chain: chain=4 ordered=3 verified=yes head=ENOENT cancelled=2' <<<"$out"
ok $? "the old limits_client's chains: in order, right, a refused head cancels the rest"
tap_done
