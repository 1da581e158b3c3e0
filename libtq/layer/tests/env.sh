# SPDX-License-Identifier: GPL-2.0
#
# libtq/layer/tests/env.sh - what the layer's suites share. Source it from the
# repository root; it sources selftests/tap.sh. tqcl_begin NAME makes $T
# (removed at exit) and starts a usched of the suite's own that may build
# OpenCL C source (allow-source), on whichever transport this machine has:
#
#  - the module (/dev/tqsubmit, in the test VM), when no scheduler is
#    attached;
#  - else the socket transport: a tqsubmitd ($TQSUBMITD, default
#    $BIN/tqsubmitd) with its two sockets in $T, and usched on them
#    (TQ_TRANSPORT=socket, TQ_SOCKET, TQ_SCHED_SOCKET exported, so that
#    the layer's libtq finds them);
#  - else the whole suite is skipped, saying why.
#
# TQCL_USER=NAME runs the programs as that user (the suite runs as root),
# and usched with the shipped usched/dist/usched.conf (its paths aside): the
# program policy an ordinary user gets.
#
# tqcl_run OUT STATS CMD... runs CMD under the layer (OPENCL_LAYERS), its
# stdout and stderr in OUT, the layer's counters in STATS; tqcl_direct OUT
# CMD... runs it without. tqcl_stat STATS KEY sums KEY=N over STATS' lines.

BIN=${BIN:-build/bin}
LIBDIR=${LIBDIR:-$(dirname "$BIN")/lib}
TQCL_SO=${TQCL_SO:-$PWD/$LIBDIR/libtqcl.so}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# A sanitizer build of the layer (make SAN=1) needs ASan's runtime loaded
# first in every program the layer goes into: the programs are not ASan's.
# libstdc++ with it, or ASan finds no __cxa_throw to wrap in C++ programs.
# ASan then also checks the programs' own C++ libraries, and Debian's clFFT
# deletes an FFTAction through a base without a virtual destructor (gpyfft's
# tests abort on it, the layer or not): that check is theirs, not the
# layer's (C: no new or delete), so it is off for them.
TQCL_PRELOAD=
if nm -D "$TQCL_SO" 2>/dev/null | grep -q ' U __asan_init'; then
	TQCL_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libstdc++.so.6)"
	ASAN_OPTIONS+=:new_delete_type_mismatch=0
fi
. selftests/tap.sh

bail() { echo "Bail out! $*"; exit 1; }

tqcl_cleanup() {
	local p
	for p in $upid $spid; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $upid $spid; do
		for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "${T:-}" ] && rm -rf "$T"
}

tqcl_begin() {
	local name=$1 transport

	[ -e "$TQCL_SO" ] || skip_all "$TQCL_SO is not built"
	[ -x "$BIN/usched" ] || skip_all "$BIN/usched is not built"
	clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
	if [ -c /dev/tqsubmit ] &&
	   [ "$(cat /sys/class/misc/tqsubmit/scheduler_pid 2>/dev/null)" = 0 ]; then
		transport=module
	elif [ -x "${TQSUBMITD:-$BIN/tqsubmitd}" ]; then
		transport=socket
	else
		skip_all "no transport: no /dev/tqsubmit (the test VM) and no ${TQSUBMITD:-$BIN/tqsubmitd}"
	fi
	T=$(mktemp -d "/tmp/$name.XXXXXX")
	chmod 755 "$T"
	upid= spid=
	trap tqcl_cleanup EXIT
	export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$T/pocl}
	if [ -n "${TQCL_USER:-}" ]; then
		[ "$(id -u)" = 0 ] || skip_all "TQCL_USER needs root to become $TQCL_USER"
		id -u "$TQCL_USER" >/dev/null 2>&1 || skip_all "no user $TQCL_USER"
		# what the user's programs write: their caches and the layer's counters
		mkdir -p "$T/user/pocl" "$T/user/cache"
		chown -R "$TQCL_USER" "$T/user"
		# the tree may sit below a directory the user cannot enter (a mktemp -d clone)
		cp "$TQCL_SO" "$T/libtqcl.so" && TQCL_SO=$T/libtqcl.so
		setpriv --reuid="$TQCL_USER" --regid="$(id -g "$TQCL_USER")" --clear-groups -- \
			test -r "$TQCL_SO" || skip_all "$TQCL_USER cannot read $TQCL_SO"
		export HOME=$T/user POCL_CACHE_DIR=$T/user/pocl XDG_CACHE_HOME=$T/user/cache
		grep -Ev '^(metrics|metrics-group|state) *=' usched/dist/usched.conf >"$T/usched.conf"
	else
		# A program's build under the test VM's emulation takes 20-50 times as
		# long as here, a minute and more on a loaded machine: the default
		# build-time-limit (60 s) is hostile.sh's and limits.sh's to test.
		printf 'allow-source = yes\nbuild-time-limit = 600s\n' >"$T/usched.conf"
	fi
	if [ $transport = socket ]; then
		export TQ_TRANSPORT=socket TQ_SOCKET=$T/tqsubmit.sock TQ_SCHED_SOCKET=$T/sched.sock
		"${TQSUBMITD:-$BIN/tqsubmitd}" --foreground --socket "$TQ_SOCKET" \
			--sched-socket "$TQ_SCHED_SOCKET" ${TQCL_USER:+--socket-mode 0666} \
			>"$T/tqsubmitd.log" 2>&1 &
		spid=$!
		for _ in $(seq 1 100); do
			[ -S "$TQ_SOCKET" ] && [ -S "$TQ_SCHED_SOCKET" ] && break
			sleep 0.1
		done
		[ -S "$TQ_SCHED_SOCKET" ] || bail "tqsubmitd did not come up: $(tail -3 "$T/tqsubmitd.log")"
	fi
	"$BIN/usched" --foreground --config "$T/usched.conf" --metrics "$T/usched.prom" \
		--state "$T/usched.state" >"$T/usched.log" 2>&1 &
	upid=$!
	for _ in $(seq 1 600); do
		grep -q 'ready' "$T/usched.log" && break
		kill -0 "$upid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q 'ready' "$T/usched.log" || bail "usched did not start: $(tail -3 "$T/usched.log")"
	echo "usched on the $transport transport" | diag
}

# CMD as TQCL_USER, if set
tqcl_as() {
	if [ -n "${TQCL_USER:-}" ]; then
		# in the user's own directory: the tree's may be closed to it
		(cd "$HOME" && setpriv --reuid="$TQCL_USER" --regid="$(id -g "$TQCL_USER")" \
			--clear-groups -- "$@")
	else
		"$@"
	fi
}

tqcl_run() {
	local out=$1 stats=$2
	shift 2
	: >"$stats"
	[ -z "${TQCL_USER:-}" ] || chown "$TQCL_USER" "$stats"
	LD_PRELOAD="$TQCL_PRELOAD" OPENCL_LAYERS=$TQCL_SO TQCL_STATS=$stats tqcl_as "$@" >"$out" 2>&1
}

tqcl_direct() {
	local out=$1
	shift
	(unset OPENCL_LAYERS; tqcl_as "$@") >"$out" 2>&1
}

tqcl_stat() {
	tr ' ' '\n' <"$1" | awk -F= -v k="$2" '$1 == k { s += $2 } END { print s + 0 }'
}
