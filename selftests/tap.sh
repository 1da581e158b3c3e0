# SPDX-License-Identifier: GPL-2.0
#
# selftests/tap.sh - TAP for shell tests, the shell side of selftests/tap.h. Source
# it from a bash test run from the repository root (. selftests/tap.sh); end the
# test with tap_done.

n=0 failed=0

ok() {	# ok STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }	# skip NAME WHY
skip_all() { echo "1..0 # SKIP $*"; exit 77; }
diag() { sed 's/^/# /'; }

# wait_for SECONDS COMMAND...: until COMMAND succeeds; 1 if it never does.
# Polls every 0.2 s: a fork costs a lot under emulation.
wait_for() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

# The plan, and the status: 0 when every test passed.
tap_done() {
	echo "1..$n"
	[ $failed -eq 0 ]
}
