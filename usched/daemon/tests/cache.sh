#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# cache.sh - usched's cache (usched/daemon/cache.c) across restarts, natively
# on the socket transport (PoCL): the real usched is started and stopped
# again and again on one state directory, a tqdemo client verifying the
# results of two built-in kernels each time, and:
#
# 1. cold: the calibration is measured, both programs are built from source
#    and kept, entries 0600 in a 0700 directory;
# 2. warm: the calibration and both programs come from the cache ("0 built"
#    in the metrics), the results are the same (verified); a temporary file
#    a crash left is removed;
# 3. --recalibrate measures again;
# 4. entries that do not match are dropped and rebuilt: a truncated binary,
#    another tq version, another driver version (the calibration's);
# 5. a binary the driver refuses (a well-formed entry of garbage) is
#    dropped and the program built from source;
# 6. cache-max holds: the least recently used entries are evicted;
# 7. cache none keeps nothing.
#
# It also prints the start-to-ready times it saw, cold and warm. Prints TAP.
# Run from the repository root (make check: CHECK_SCRIPTS).
set -uo pipefail

MIX=VA,MT
. usched/daemon/tests/lib.sh

suite_begin_socket cache "$BIN/usched" "$BIN/usched-build" "$BIN/tqdemo" "$BIN/tqsubmitd"
C=$T/cache
declare -A cpid
# the device by name, as tqbench names it: OpenCL is called before the signals' setup then
dev=$(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: //p' | head -n1)

# run_usched ARGS...: one usched on $T/state until the client is done; its log in $T/log.
run_usched() {
	: >"$T/log"
	"$BIN/usched" --foreground --config /dev/null --state "$T/state" --metrics "$T/prom" \
		--metrics-interval 0 --tqsubmitd "$BIN/tqsubmitd" --device "$dev" "$@" >"$T/log" 2>&1 &
	upid=$!
	wait_for 120 grep -aq 'ready: serving' "$T/log" || { tail -n 5 "$T/log" | diag; return 1; }
	[ -n "${spid:-}" ] ||
		spid=$(sed -n 's/.*started .*tqsubmitd (pid \([0-9]*\)) for .*/\1/p' "$T/log")
	client run "$MIX" --tasks 32 --depth 4
	check run
	local rc=$?
	kill -TERM "$upid"
	wait "$upid" || { rc=1; echo "usched did not exit 0 on SIGTERM" | diag; }
	upid=
	return $rc
}

metric() { sed -n "s/^$1 //p" "$T/prom"; }
built() { metric 'tq_programs_total{from="source"}'; }
cached() { metric 'tq_programs_total{from="cache"}'; }
dropped() { metric 'tq_cache_entries_total{op="dropped"}'; }
ready_s() { sed -n 's/.*ready in \([0-9.]*\) s.*/\1/p' "$T/log"; }
entries() { find "$C" -maxdepth 1 -name "$1-*" -type f | sort; }

# FNV-1a of a file, as cache.c checks an entry's data.
fnv() {
	local h=$((0xcbf29ce484222325)) b

	for b in $(od -An -tu1 -v "$1"); do
		h=$(( (h ^ b) * 0x100000001b3 ))
	done
	printf '%016x' "$h"
}

# rewrite ENTRY SED-SCRIPT [DATA-FILE]: the entry with its key edited (same
# file name: what another device, driver or tq version would have left
# there), and its data replaced by DATA-FILE's, with the right hash.
rewrite() {
	local f=$1 magic one kl dl h hl

	read -r magic one kl dl h <"$f"
	hl=$(($(head -n 1 "$f" | wc -c)))
	tail -c +$((hl + 1)) "$f" | head -c "$kl" | sed "$2" >"$T/key"
	if [ $# -gt 2 ]; then
		cp "$3" "$T/data"
		h=$(fnv "$3")
	else
		tail -c +$((hl + kl + 1)) "$f" >"$T/data"
	fi
	{ printf '%s %s %s %s %s\n' "$magic" "$one" "$(wc -c <"$T/key")" \
		"$(wc -c <"$T/data")" "$h"; cat "$T/key" "$T/data"; } >"$f"
}

# 1. Cold.
cold=() warm=()
run_usched
ok $? "cold start: the client's $MIX tasks verified"
cold+=("$(ready_s)")
grep -aq 'calibration [0-9.]* (measured).*; 0 program(s) cached in '"$C" "$T/log"
ok $? "the ready line: calibration measured, nothing cached: $(grep -ao 'ready in.*' "$T/log")"
ok $([ "$(built)" = 2 ] && [ "$(cached)" = 0 ]; echo $?) \
	"both programs built from source ($(built)), none from the cache ($(cached))"
ok $([ "$(entries c | wc -l)" = 1 ] && [ "$(entries p | wc -l)" = 2 ]; echo $?) \
	"the cache holds the calibration and both binaries"
modes=$(stat -c %a "$C" $(entries c) $(entries p) | sort -u | tr '\n' ' ')
ok $([ "$modes" = "600 700 " ]; echo $?) "the directory 0700, its entries 0600 ($modes)"

# 2. Warm, a few times: the figures for the report too.
: >"$C/.tmp-1-1"	# what a crash in mid-write leaves
bad=0
for i in 1 2 3; do
	run_usched || bad=1
	warm+=("$(ready_s)")
	grep -aq 'calibration [0-9.]* (cached).*; 2 program(s) cached' "$T/log" || bad=1
	[ "$(built)" = 0 ] && [ "$(cached)" = 2 ] &&
		[ "$(metric tq_calibration_cached)" = 1 ] || bad=1
done
ok $bad "warm starts: calibration and both programs from the cache, 0 built, tasks verified"
[ ! -e "$C/.tmp-1-1" ]
ok $? "a temporary file a crash left is removed at start"
grep -ao 'ready in.*' "$T/log" | diag

# 3. --recalibrate
run_usched --recalibrate
ok $([ $? = 0 ] && grep -aq 'calibration [0-9.]* (measured)' "$T/log" &&
     [ "$(cached)" = 2 ]; echo $?) "--recalibrate measures again, programs still cached"

# 4. Entries that do not match: each dropped, then built and kept again.
read -r p1 p2 < <(entries p | tr '\n' ' ')
truncate -s -100 "$p1"
rewrite "$p2" 's/^tq .*/tq 0.0-another/'
rewrite "$(entries c)" 's/^driver .*/driver another/'
run_usched
ok $? "cache entries not matching: the tasks still verified"
got="$(dropped) dropped, $(built) built"
ok $([ "$(dropped)" = 3 ] && [ "$(built)" = 2 ] && [ "$(cached)" = 0 ] &&
     grep -aq '(measured)' "$T/log"; echo $?) \
	"a truncated binary, another tq version, another driver: all 3 dropped, rebuilt ($got)"
run_usched
ok $([ $? = 0 ] && [ "$(cached)" = 2 ] && grep -aq '(cached)' "$T/log"; echo $?) \
	"and kept again: the next start takes them from the cache"

# 5. A well-formed entry whose binary the driver refuses.
read -r p1 p2 < <(entries p | tr '\n' ' ')
printf 'not a program binary, whatever its hash says\n' >"$T/garbage"
rewrite "$p1" '' "$T/garbage"
run_usched
ok $([ $? = 0 ] && [ "$(dropped)" = 1 ] && [ "$(built)" = 1 ] && [ "$(cached)" = 1 ]
     echo $?) "a binary the driver refuses: dropped and built from source, tasks verified"

# 6. cache-max: two of the three entries do not fit together.
max=$(( $(stat -c %s $(entries p) | sort -n | tail -n 1) + 1024 ))
rm -rf "$C"
run_usched --cache-max "$max"
rc=$?
total=$(cat $(entries c) $(entries p) | wc -c)
ok $([ $rc = 0 ] && [ "$total" -le "$max" ] &&
     [ "$(metric 'tq_cache_entries_total{op="evicted"}')" -ge 1 ]; echo $?) \
	"cache-max $max: the least recently used evicted, $total bytes left"

# 7. cache none
rm -rf "$C"
run_usched --cache none
ok $([ $? = 0 ] && grep -aq '; no cache' "$T/log" && [ ! -e "$C" ]; echo $?) \
	"cache none: nothing kept"

echo "# start to ready on $(sed -n 's/.*usched: device \(.*\): [0-9]* copy.*/\1/p' "$T/log" |
	head -n 1): cold ${cold[*]} s, warm ${warm[*]} s"
[ -n "${spid:-}" ] && kill "$spid"
spid=
tap_done
