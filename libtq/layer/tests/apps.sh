#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/layer/tests/apps.sh - OpenCL programs nobody on this project wrote, from
# Debian packages, each run unmodified on the driver alone and then under
# libtqcl.so against a usched of the suite's own: the same exit status and
# the same output (numbers of a benchmark aside), and the layer's counters
# say what went through tq and what passed through:
#
#   clinfo                     every query passes through: identical output
#   clpeak                     a profiling queue: everything passes through
#   clpeak, TQCL_PROFILING=1   its 20000 kernel launches become tq tasks
#   pyopencl demo.py, demo_array.py, demo_elementwise.py: captured, same output
#   pyopencl's tests (test_enqueue_copy.py, test_wrapper.py): the same results
#   gpyfft's tests (clFFT):    FFT kernels captured, the same results
#
# Python programs run with /usr/bin/python3, PYOPENCL_CTX=0 and
# PYOPENCL_NO_CACHE=1: from pyopencl's binary cache a program has no source
# for usched, and would pass through. TQCL_APPS="clinfo clpeak ..." picks.
# apps-user.sh runs them all again as an ordinary user (TQCL_USER=nobody),
# under the shipped usched.conf: their kernels must be captured all the same.
cd "$(dirname "$0")/../../.." || exit 1
. libtq/layer/tests/env.sh
tqcl_begin tqcl-apps

EX=/usr/share/doc/python-pyopencl-doc/examples
GPYFFT=/usr/lib/python3/dist-packages/gpyfft/test
export PYOPENCL_CTX=0 PYOPENCL_NO_CACHE=1
[ -n "${TQCL_USER:-}" ] || export XDG_CACHE_HOME=$T/cache	# else env.sh's, the user's
apps=${TQCL_APPS:-clinfo clpeak clpeak-captured pyopencl-demos pyopencl-tests gpyfft}

# compare NAME FILTER: direct and layer outputs through FILTER are the same
compare() {
	$2 <"$T/direct" >"$T/direct.f"
	$2 <"$T/layer" >"$T/layer.f"
	diff "$T/direct.f" "$T/layer.f" >"$T/diff"
	ok $? "$1: the same output"
	head -20 "$T/diff" | diag
}
same() { grep -v 'warnings\? generated'; }
# a benchmark's figures differ from run to run; its lines do not
no_numbers() { grep -v 'warnings\? generated' | sed -E 's/[0-9]+(\.[0-9]+)?/N/g'; }
# pytest's verdict on each test, in order
verdicts() { grep -E '^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ' | sort; }

isolated=0	# tasks tq ran, all of them in the user's own context under TQCL_USER

# run NAME CMD...: direct, then under the layer; both must exit alike
run() {
	local name=$1 rc1 rc2
	shift
	tqcl_direct "$T/direct" "$@"
	rc1=$?
	tqcl_run "$T/layer" "$T/stats" "$@"
	rc2=$?
	isolated=$((isolated + $(st tasks_ok)))
	[ "$rc1" = "$rc2" ]
	ok $? "$name: exit status $rc1 directly, $rc2 under the layer"
	[ "$rc1" = "$rc2" ] || tail -5 "$T/layer" | diag
	echo "$name: $(cat "$T/stats")" | diag
}
st() { tqcl_stat "$T/stats" "$1"; }
captured() { echo $(($(st cap_write) + $(st cap_kernel) + $(st cap_read))); }
passed() { echo $(($(st pass_write) + $(st pass_kernel) + $(st pass_read) + $(st pass_other))); }
tasks_clean() {
	[ "$(st tasks_ok)" = "$(st cap_kernel)" ] && [ "$(st tasks_failed)" = 0 ]
	ok $? "$1: every captured kernel completed by tq ($(st tasks_ok) of $(st cap_kernel))"
}

for app in $apps; do
	case $app in
	clinfo)
		run clinfo clinfo
		compare clinfo same
		[ "$(captured)" = 0 ] && [ "$(passed)" = 0 ]
		ok $? "clinfo: queries only, nothing enqueued"
		;;
	clpeak)
		run clpeak clpeak --transfer-bandwidth --kernel-latency
		compare clpeak no_numbers
		[ "$(captured)" = 0 ] && [ "$(st why_profiling-queue)" -ge 20000 ]
		ok $? "clpeak: its profiling queue passes through ($(st why_profiling-queue) commands)"
		;;
	clpeak-captured)
		TQCL_PROFILING=1 run "clpeak (TQCL_PROFILING=1)" clpeak --kernel-latency --use-event-timer
		compare "clpeak (TQCL_PROFILING=1)" no_numbers
		[ "$(st cap_kernel)" -ge 20000 ]
		ok $? "clpeak (TQCL_PROFILING=1): its launches captured ($(st cap_kernel))"
		tasks_clean "clpeak (TQCL_PROFILING=1)"
		;;
	pyopencl-demos)
		[ -r "$EX/demo.py" ] || { skip "pyopencl demos" "python-pyopencl-doc is not installed"; continue; }
		run demo.py /usr/bin/python3 "$EX/demo.py"
		compare demo.py same
		[ "$(st cap_kernel)" -ge 1 ] && [ "$(st cap_read)" -ge 1 ]
		ok $? "demo.py: kernel and read captured"
		tasks_clean demo.py
		run demo_array.py /usr/bin/python3 "$EX/demo_array.py"
		compare demo_array.py same
		[ "$(st cap_write)" -ge 2 ] && [ "$(st cap_kernel)" -ge 1 ]
		ok $? "demo_array.py: writes and kernel captured"
		run demo_elementwise.py /usr/bin/python3 "$EX/demo_elementwise.py"
		compare demo_elementwise.py same
		[ "$(captured)" -ge 1 ]
		ok $? "demo_elementwise.py: some captured ($(captured)), the rest passed through ($(passed))"
		;;
	pyopencl-tests)
		[ -r "$EX/test_wrapper.py" ] || { skip "pyopencl tests" "python-pyopencl-doc is not installed"; continue; }
		for t in test_enqueue_copy.py test_wrapper.py; do
			run "$t" /usr/bin/python3 -m pytest -q -rA -p no:cacheprovider "$EX/$t"
			compare "$t" verdicts
		done
		;;
	gpyfft)
		[ -d "$GPYFFT" ] || { skip gpyfft "python3-gpyfft is not installed"; continue; }
		run "gpyfft tests" /usr/bin/python3 -m pytest -q -rA -p no:cacheprovider "$GPYFFT"
		compare "gpyfft tests" verdicts
		[ "$(st cap_kernel)" -ge 13 ] && [ "$(st cap_write)" -ge 13 ] && [ "$(st cap_read)" -ge 13 ]
		ok $? "gpyfft tests: FFTs captured ($(st cap_write) writes, $(st cap_kernel) kernels, $(st cap_read) reads)"
		tasks_clean "gpyfft tests"
		;;
	*)
		bail "TQCL_APPS: no program $app"
		;;
	esac
done
if [ -n "${TQCL_USER:-}" ]; then
	# usched counts what it ran in the user's own context (its metrics at SIGHUP)
	kill -HUP "$upid"
	for _ in $(seq 1 50); do
		counted=$(sed -n 's/^tq_isolated_tasks_total //p' "$T/usched.prom" 2>/dev/null)
		[ "${counted:-0}" -ge "$isolated" ] && break
		sleep 0.1
	done
	[ "$isolated" -gt 0 ] && [ "${counted:-0}" -ge "$isolated" ]
	ok $? "$TQCL_USER's tasks ran in a context of the user's own: usched counts ${counted:-0}, the layer $isolated"
fi
tap_done
