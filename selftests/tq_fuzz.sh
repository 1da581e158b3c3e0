#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tq_fuzz.sh - the fuzzer (selftests/tq_fuzz.c) against the real usched, on
# the module in the test VM (tqsubmit.ko loaded, PoCL) or natively on
# tqsubmitd's socket (TQ_TRANSPORT=socket, selftests/socket_env.sh): starts
# usched, runs tq_fuzz for FUZZ_SECONDS (60) with FUZZ_PROCS (4) workers and
# seed FUZZ_SEED (random), then checks that usched still runs and serves an
# honest client (tqdemo, every result verified). Prints TAP; the seed of a
# failing run is in its output (FUZZ_SEED=S replays it; FUZZ_ARGS adds
# tq_fuzz options, e.g. "--proc I --steps N --verbose"). make check runs it
# on both transports; make fuzz runs it longer (FUZZ_SECONDS=N, and
# TRANSPORT=socket for the socket). usched's RSS a minute in and at the
# fuzzing's end: a run of 3 minutes or more fails if it grew by more than
# FUZZ_RSS_MB (32) in between (what contexts leave behind adds up; the
# first minute holds the one-time costs: the first compiles), a shorter one
# reports it.
set -uo pipefail

TESTBIN=${TESTBIN:-$(dirname "${BIN:-build/bin}")/tests}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_PROCS=${FUZZ_PROCS:-4}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-32}
. usched/daemon/tests/lib.sh

suite_begin_any tq-fuzz "$BIN/usched" "$BIN/tqdemo" "$TESTBIN/tq_fuzz" "$COUNTER"

"$BIN/usched" --foreground --config /dev/null --state "$T/state" --tqsubmitd none \
	--metrics "$T/usched.prom" >>"$T/usched.log" 2>&1 &
upid=$!
wait_for 60 attached
ok $? "usched starts and attaches"
rss0=$(rss_kb)
# The largest of a minute's samples from 1 min on: a sample taken while
# usched re-executes (after an endless kernel) is that of a fresh process.
(sleep 60; for _ in $(seq 1 12); do rss_kb; sleep 5; done | sort -n | tail -n 1 >"$T/rss60") &
sampler=$!

# tq_fuzz's own TAP, renumbered into ours.
seed=${FUZZ_SEED:-}
"$TESTBIN/tq_fuzz" --seconds "$FUZZ_SECONDS" --procs "$FUZZ_PROCS" ${seed:+--seed "$seed"} ${FUZZ_ARGS:-} \
	>"$T/fuzz.out" 2>"$T/fuzz.err"
rc=$?
rss_end=$(rss_kb)
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
rss1=$(rss_kb)
echo "# usched RSS: ${rss0} kB before, ${rss1} kB after"
suite_end
