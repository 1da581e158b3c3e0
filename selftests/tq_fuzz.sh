#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tq_fuzz.sh - the fuzzer (selftests/tq_fuzz.c) against the real usched, in
# the test VM (tqsubmit.ko loaded, PoCL): starts usched, runs tq_fuzz for
# FUZZ_SECONDS (60) with FUZZ_PROCS (4) workers and seed FUZZ_SEED (random),
# then checks that usched still runs and serves an honest client (tqdemo,
# every result verified). Prints TAP; the seed of a failing run is in its
# output (FUZZ_SEED=S replays it; FUZZ_ARGS adds tq_fuzz options, e.g.
# "--proc I --steps N --verbose"). make check runs it; make fuzz runs it
# longer (FUZZ_SECONDS=N). usched's RSS a minute in and at the fuzzing's
# end: a run of 3 minutes or more fails if it grew by more than FUZZ_RSS_MB
# (32) in between (what contexts leave behind adds up; the first minute
# holds the one-time costs: the first compiles), a shorter one reports it.
set -uo pipefail

BIN=${BIN:-build/bin}
TESTBIN=${TESTBIN:-$(dirname "$BIN")/tests}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_PROCS=${FUZZ_PROCS:-4}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-32}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
SYS=/sys/class/misc/tqsubmit
. selftests/tap.sh
sysfs() { local v=-1; read -r v <"$SYS/$1" 2>/dev/null; echo "$v"; }

[ -c /dev/tqsubmit ] || skip_all "no /dev/tqsubmit (run in the test VM: make check)"
[ -x "$BIN/usched" ] && [ -x "$BIN/tqdemo" ] && [ -x "$TESTBIN/tq_fuzz" ] ||
	skip_all "usched, tqdemo or tq_fuzz not built"
clinfo -l 2>/dev/null | grep -q Device || skip_all "no OpenCL device"
[ "$(sysfs scheduler_pid)" = 0 ] || skip_all "another scheduler is attached"

T=$(mktemp -d /tmp/tq-fuzz.XXXXXX)
upid=
cleanup() {
	[ -n "$upid" ] && kill -KILL "$upid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$BIN/usched" --foreground --config /dev/null --state "$T/state" --metrics "$T/usched.prom" \
	>>"$T/usched.log" 2>&1 &
upid=$!
attached() { [ "$(sysfs scheduler_pid)" = "$upid" ]; }
wait_for 60 attached
ok $? "usched starts and attaches"
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$upid/status" 2>/dev/null || echo 0; }
rss0=$(rss)
(sleep 60; rss >"$T/rss60") &
sampler=$!

# tq_fuzz's own TAP, renumbered into ours.
seed=${FUZZ_SEED:-}
"$TESTBIN/tq_fuzz" --seconds "$FUZZ_SECONDS" --procs "$FUZZ_PROCS" ${seed:+--seed "$seed"} ${FUZZ_ARGS:-} \
	>"$T/fuzz.out" 2>"$T/fuzz.err"
rc=$?
rss_end=$(rss)
kill "$sampler" 2>/dev/null
while IFS= read -r l; do
	case "$l" in
	"ok "*) ok 0 "${l#ok * - }" ;;
	"not ok "*) ok 1 "${l#not ok * - }" ;;
	1..*) ;;
	*) echo "$l" ;;
	esac
done <"$T/fuzz.out"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || { ok 1 "tq_fuzz exited with status $rc"; diag <"$T/fuzz.err"; }
[ $rc -eq 1 ] && tail -n 20 "$T/fuzz.err" | diag

kill -0 "$upid" 2>/dev/null
ok $? "usched survived the fuzzing"
if [ -s "$T/rss60" ]; then
	rss60=$(cat "$T/rss60")
	grew=$(((rss_end - rss60) / 1024))
	msg="usched's RSS grew $grew MB from 1 min ($((rss60 / 1024)) MB) to the end ($((rss_end / 1024)) MB)"
	if [ "$FUZZ_SECONDS" -ge 180 ]; then
		ok $((grew > FUZZ_RSS_MB)) "$msg, at most $FUZZ_RSS_MB"
	else
		echo "# $msg (checked from FUZZ_SECONDS=180)"
	fi
fi
timeout 300 "$BIN/tqdemo" --mix VA,MT,BS,DCT --scale 0.25 --tasks 8 --depth 4 --timeout 240 \
	>"$T/honest" 2>&1 && grep -q ' dup=0 stray=0 ' "$T/honest"
ok $? "afterwards usched serves an honest client: 8 tasks verified, each completed once"
tail -n 1 "$T/honest" | diag
rss1=$(rss)
echo "# usched RSS: ${rss0} kB before, ${rss1} kB after"

[ $failed -eq 0 ] || { echo "# usched's log:"; tail -n 30 "$T/usched.log" | diag; }
tap_done
