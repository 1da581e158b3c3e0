# SPDX-License-Identifier: GPL-2.0
#
# usched/daemon/tests/lib.sh - what the usched suites of the test VM share. Source
# it from the repository root after setting the suite's own variables; it
# sources selftests/tap.sh. suite_begin NAME PROGRAM... skips the suite unless
# the module, PROGRAMs, an OpenCL device and no other scheduler are there,
# then makes $T (removed at exit, with usched $upid and every job killed).
# suite_begin_socket NAME PROGRAM... is the same natively on the socket
# transport: no module, TQ_TRANSPORT=socket and the sockets in $T, the
# counters from tqsubmitd (tq_counter), and tqsubmitd $spid killed at exit.

BIN=${BIN:-build/bin}
# under ASan (make SAN=1): PoCL and LLVM leave allocations behind at exit
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
SYS=/sys/class/misc/tqsubmit
. selftests/tap.sh

COUNTER=${COUNTER:-$BIN/../tests/tq_counter}
# a counter: the module's sysfs file, or on the socket tqsubmitd's
sysfs() {
	local v=-1

	if [ "${TQ_TRANSPORT:-}" = socket ]; then
		v=$("$COUNTER" "$1" 2>/dev/null) || v=-1
	else
		read -r v <"$SYS/$1" 2>/dev/null
	fi
	echo "$v"
}
# sysfs_is NAME OP VALUE: the counter compared afresh each time (for wait_for)
sysfs_is() { test "$(sysfs "$1")" "$2" "$3"; }
attached() { [ "$(sysfs scheduler_pid)" = "$upid" ]; }
detached() { [ "$(sysfs scheduler_pid)" = 0 ]; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$upid/status" 2>/dev/null || echo 0; }

# tqdemo clients in the background, pid of client NAME in cpid[NAME] (the
# suite declares it: declare -A cpid). client NAME MIX TQDEMO-ARGS... starts
# one, output in $T/NAME.
client() {
	local name=$1 mix=$2

	shift 2
	: >"$T/$name"
	"$BIN/tqdemo" --mix "$mix" --scale 0.25 --seed "$RANDOM$RANDOM" --timeout 300 \
		"$@" >"$T/$name" 2>&1 &
	cpid[$name]=$!
}

# check NAME...: wait for each; 0 if every one exited 0 and saw each task complete once.
check() {
	local name bad=0

	for name in "$@"; do
		wait "${cpid[$name]}" || { bad=1; tail -n 4 "$T/$name" | diag; }
		grep -q ' wrong=0 failed=0 dup=0 stray=0 ' "$T/$name" || bad=1
	done
	return $bad
}

# sum_field KEY PREFIX: the number in "KEY=N" summed over the summary lines of $T/PREFIX*.
sum_field() {
	cat "$T/$2"* 2>/dev/null | sed -n "s/.* $1=\([0-9]*\) .*/\1/p" |
		awk '{ s += $1 } END { print s + 0 }'
}

# How many clients still run (kill -0 is a builtin: no fork).
live() {
	local name c=0

	for name in "${!cpid[@]}"; do
		kill -0 "${cpid[$name]}" 2>/dev/null && c=$((c + 1))
	done
	echo $c
}

# The end of a suite: usched exits 0 on SIGTERM; its log's tail when a test failed.
suite_end() {
	kill -TERM "$upid"
	wait "$upid"
	ok $? "usched exits 0 on SIGTERM"
	upid=
	[ $failed -eq 0 ] || { echo "# usched's log:"; tail -n 40 "$T/usched.log" | diag; }
	tap_done
}

suite_cleanup() {
	[ -n "$upid" ] && kill -KILL "$upid" 2>/dev/null
	[ -n "${spid:-}" ] && kill -KILL "$spid" 2>/dev/null
	jobs -p | xargs -r kill -KILL 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}

suite_begin() {
	local name=$1 p

	shift
	[ -c /dev/tqsubmit ] || skip_all "no /dev/tqsubmit (run in the test VM: make check)"
	for p in "$@"; do
		[ -x "$p" ] || skip_all "$p is not built"
	done
	clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
	[ "$(sysfs scheduler_pid)" = 0 ] || skip_all "another scheduler is attached"
	T=$(mktemp -d "/tmp/$name.XXXXXX")
	chmod 755 "$T"	# other uids' clients read what the suite writes there
	upid=
	trap suite_cleanup EXIT
}

# A suite for either transport: on the socket the runner's tqsubmitd (selftests/socket_env.sh,
# $TQ_SOCKET), else the module; usched is the suite's to start.
suite_begin_any() {
	local name=$1 p

	shift
	if [ "${TQ_TRANSPORT:-}" != socket ]; then
		suite_begin "$name" "$@"
		return
	fi
	[ -S "${TQ_SOCKET:-}" ] || skip_all "no tqsubmitd socket (selftests/socket_env.sh runs this)"
	for p in "$@"; do
		[ -x "$p" ] || skip_all "$p is not built"
	done
	clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
	T=$(mktemp -d "/tmp/$name.XXXXXX")
	chmod 755 "$T"
	upid=
	trap suite_cleanup EXIT
}

suite_begin_socket() {
	local name=$1 p

	shift
	for p in "$@"; do
		[ -x "$p" ] || skip_all "$p is not built"
	done
	clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
	T=$(mktemp -d "/tmp/$name.XXXXXX")
	chmod 755 "$T"
	upid= spid=
	export TQ_TRANSPORT=socket TQ_SOCKET=$T/tqsubmit.sock TQ_SCHED_SOCKET=$T/sched.sock
	trap suite_cleanup EXIT
}
