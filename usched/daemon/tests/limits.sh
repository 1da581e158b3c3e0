#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# limits.sh - usched's limits and program policy against the real usched, in
# the test VM (tqsubmit.ko loaded, PoCL), while honest clients (tqdemo, every
# result checked) run: a compile bomb killed at the build-time limit while
# another user's program builds and runs; an oversized source; a program-
# and kernel-table flood, the daemon's memory staying put; a 2^63 global
# work size; OpenCL C source from a user outside the allowed group, then
# allowed by a SIGHUP'd section; arenas over the per-context and per-user
# limits. Then the counters in the metrics file and tqstat, and a restart
# that rebuilds a context's source program. Prints TAP.
# Run from the repository root (scripts/runtests does).
set -uo pipefail

TESTBIN=${TESTBIN:-build/tests}
MIX=VA,MT,BS,DCT
CLIENT=$TESTBIN/limits_client
NOBODY=65534		# allowed OpenCL C source by its group's section
STRANGER=4242		# in no section: built-ins only
FLOODER=4343		# floods and arenas, with totals of its own
. usched/daemon/tests/lib.sh

suite_begin limits-usched "$BIN/usched" "$BIN/usched-build" "$BIN/tqdemo" "$CLIENT"
# Other uids open contexts too (the guest is ours; udev would give group tq).
chmod 666 /dev/tqsubmit

BUILD_LIMIT=45
conf() {
	cat >"$T/limits.conf" <<EOF
build-time-limit = ${BUILD_LIMIT}s
max-source = 64K
context-programs = 8
user-programs = 12
context-kernels = 8
context-arena = 48M
user-arena = 64M
# outside the group, source is refused (isolate.sh has it run in a context of its own)
isolate-source = no
[group $NOBODY]
allow-source = yes
# Its honest builds may take long on a loaded host; root's bomb gets the global limit.
build-time-limit = 600s
EOF
	echo "$@" | tr ';' '\n' >>"$T/limits.conf"
}
conf ""

metric() { sed -n "s/^$1 //p" "$T/usched.prom"; }
refused() { metric "tq_limit_refused_total{limit=\"$1\"}"; }

start_usched() {
	"$BIN/usched" --foreground --verbose --config "$T/limits.conf" --state "$T/state" \
		--metrics "$T/usched.prom" --metrics-interval 1 >>"$T/usched.log" 2>&1 &
	upid=$!
	wait_for 60 attached
}
start_usched
ok $? "usched starts with per-user limits and a [group] section"
attached || { tail -n 20 "$T/usched.log" | diag; exit 1; }

# Honest clients: built-in kernels, every result checked, running through it all.
hpid=()
for i in 1 2; do
	"$BIN/tqdemo" --mix "$MIX" --scale 0.25 --seed "$i$RANDOM" --tasks 48 --depth 4 \
		--timeout 600 >"$T/honest.$i" 2>&1 &
	hpid[$i]=$!
done

cat >"$T/good.cl" <<'EOF'
__kernel void scale(__global float *a, float x) { a[get_global_id(0)] *= x; }
EOF
# Thousands of statements from a few macros: clang and LLVM take minutes on it.
cat >"$T/bomb.cl" <<'EOF'
#define A(x) x = x * 3.1f + (float)i; i ^= (int)x;
#define B(x) A(x) A(x) A(x) A(x) A(x) A(x) A(x) A(x)
#define C(x) B(x) B(x) B(x) B(x) B(x) B(x) B(x) B(x)
#define D(x) C(x) C(x) C(x) C(x) C(x) C(x) C(x) C(x)
#define E(x) D(x) D(x) D(x) D(x) D(x) D(x) D(x) D(x)
__kernel void scale(__global float *a, float x) { float v = a[0]; int i = get_global_id(0);
E(v) E(v) a[0] = v * x; }
EOF

# 1. The compile bomb (root's) and, at the same time, another user's program.
t0=$SECONDS
"$CLIENT" program "$T/bomb.cl" >"$T/bomb" 2>&1 &
bpid=$!
sleep 1
"$CLIENT" --uid "$NOBODY" scale "$T/good.cl" >"$T/good" 2>&1
good_rc=$?
good_t=$((SECONDS - t0))
wait "$bpid"
bomb_t=$((SECONDS - t0))
grep -q '^program=ETIME$' "$T/bomb"
ok $? "a compile bomb completes -ETIME ($(cat "$T/bomb"), after ${bomb_t}s; limit ${BUILD_LIMIT}s)"
# From the build's start: it may have waited behind the honest clients' built-ins.
ran=$(sed -n 's/.*(uid 0): a build stopped at build-time-limit after \([0-9]*\)\..*/\1/p' \
	"$T/usched.log" | head -n 1)
[ -n "$ran" ] && [ "$ran" -ge "$BUILD_LIMIT" ] && [ "$ran" -le $((BUILD_LIMIT + 5)) ]
ok $? "killed at its limit, not run to its end (the build ran ${ran:-?}s)"
[ $good_rc -eq 0 ] && grep -q '^program=ok run=ok verified=yes$' "$T/good"
ok $? "meanwhile another user's program built (its group's build-time-limit) and ran, verified ($(cat "$T/good"), ${good_t}s)"
# Its build started while the bomb's still ran: the log has it before the bomb's end.
awk -v u="$NOBODY" '$0 ~ "\\(uid " u "\\): building its program" { s = NR }
	/\(uid 0\): a build stopped at build-time-limit/ { e = NR }
	END { exit !(s && e && s < e) }' "$T/usched.log"
ok $? "its build started while the bomb's still ran (${good_t}s, the bomb ${bomb_t}s)"
# The bomb's was killed; built-ins the clients register also build in a
# usched-build child, and those end on their own.
no_build() { ! pgrep -x usched-build >/dev/null; }
wait_for 60 no_build
ok $? "no build process is left"

# 2. An oversized source: refused before a byte is copied.
"$CLIENT" big-source 100000 >"$T/big" 2>&1
grep -q '^big-source=E2BIG ' "$T/big"
ok $? "a 100000-byte source over max-source 64K: -E2BIG ($(cat "$T/big"))"

# 3. A 2^63 global work size, then a sane one from the same context.
"$CLIENT" worksize >"$T/work" 2>&1
grep -q '^huge=E2BIG small=ok verified=yes$' "$T/work"
ok $? "a 2^63 work size: -E2BIG; 1024 items next: verified ($(cat "$T/work"))"

# 4. Program and kernel table floods (by a uid of its own, for its own totals); the
# daemon's memory stays put.
"$CLIENT" --uid "$FLOODER" flood 100 >"$T/flood.0" 2>&1
grep -q '^programs=8 program-refusal=EDQUOT kernels=8 kernel-refusal=EDQUOT$' "$T/flood.0"
ok $? "a flood: 8 programs and 8 kernels (context-programs, -kernels), then -EDQUOT ($(cat "$T/flood.0"))"
"$CLIENT" --uid "$FLOODER" flood 100 2 >"$T/flood.u" 2>&1
grep -q '^programs=8 .* | programs=4 program-refusal=EDQUOT ' "$T/flood.u"
ok $? "two contexts of one user: 8 + 4 programs (user-programs 12), then -EDQUOT ($(cat "$T/flood.u"))"
rss0=$(rss_kb)
fpids=()
for i in 1 2 3 4 5 6; do
	"$CLIENT" --uid "$FLOODER" flood 300 >"$T/flood.$i" 2>&1 &
	fpids+=($!)
done
bad=0
for p in "${fpids[@]}"; do wait "$p" || bad=1; done
grep -q 'program-refusal=EDQUOT' "$T"/flood.[1-6] && [ $bad -eq 0 ]
ok $? "6 floods of 300 at once: all refused with -EDQUOT past the quotas"
rss1=$(rss_kb)
[ -n "$rss0" ] && [ -n "$rss1" ] && [ "$rss1" -lt $((rss0 + 16384)) ]
ok $? "usched's RSS bounded over thousands of refused registrations: ${rss0} kB -> ${rss1} kB"
[ "$(stat -c %s "$T/state")" -lt 65536 ]
ok $? "the state file stays small ($(stat -c %s "$T/state") bytes)"

# 5. The program policy: OpenCL C source from a user in no allowed group.
"$CLIENT" --uid "$STRANGER" program "$T/good.cl" >"$T/eperm" 2>&1
grep -q '^program=EPERM$' "$T/eperm"
ok $? "source from uid $STRANGER (no section allows it): -EPERM ($(cat "$T/eperm"))"
"$CLIENT" --uid "$STRANGER" worksize >"$T/stranger" 2>&1
grep -q 'small=ok verified=yes' "$T/stranger"
ok $? "the same user's built-in kernels run, verified"
conf "[user $STRANGER];allow-source = yes"
kill -HUP "$upid"
wait_for 20 grep -q 'reloaded the settings' "$T/usched.log"
"$CLIENT" --uid "$STRANGER" scale "$T/good.cl" >"$T/allowed" 2>&1
grep -q '^program=ok run=ok verified=yes$' "$T/allowed"
ok $? "after SIGHUP with a [user $STRANGER] section: its source builds and runs ($(cat "$T/allowed"))"

# 6. The honest clients.
bad=0
for i in 1 2; do
	wait "${hpid[$i]}" || { bad=1; tail -n 5 "$T/honest.$i" | diag; }
	grep -q ' dup=0 stray=0 ' "$T/honest.$i" || bad=1
done
ok $bad "the honest clients verified all their 48 tasks each, each completed once"
kill -0 "$upid"
ok $? "usched is alive"

# 7. Arenas over the per-context and the per-user limits (locked memory
# unlimited: the module charges arenas to it).
( ulimit -l unlimited; "$CLIENT" --uid "$FLOODER" arena 100 ) >"$T/arena.1" 2>&1
grep -q '^arena0=EDQUOT$' "$T/arena.1"
ok $? "a 100 MiB arena over context-arena 48M: its tasks fail -EDQUOT ($(cat "$T/arena.1"))"
( ulimit -l unlimited; "$CLIENT" --uid "$FLOODER" arena 40 40 ) >"$T/arena.2" 2>&1
grep -q '^arena0=ok arena1=EDQUOT$' "$T/arena.2"
ok $? "two 40 MiB arenas over user-arena 64M: the second fails -EDQUOT ($(cat "$T/arena.2"))"
grep -q 'over context-arena' "$T/usched.log" && grep -q 'past user-arena' "$T/usched.log"
ok $? "usched's log says which contexts it does not serve, and why"

# 8. The counters.
sleep 2	# metrics-interval 1
c_time=$(refused build-time-limit) c_src=$(refused max-source) c_work=$(refused max-work-items)
c_cp=$(refused context-programs) c_up=$(refused user-programs) c_ck=$(refused context-kernels)
c_pol=$(refused allow-source)
c_ca=$(refused context-arena) c_ua=$(refused user-arena)
[ "${c_time:-0}" -eq 1 ] && [ "${c_src:-0}" -eq 1 ] && [ "${c_work:-0}" -eq 2 ] &&
	[ "${c_cp:-0}" -ge 2 ] && [ "${c_up:-0}" -ge 1 ] && [ $((c_cp + c_up)) -eq 9 ] &&
	[ "${c_ck:-0}" -ge 1 ] && [ "${c_pol:-0}" -eq 1 ] &&
	[ "${c_ca:-0}" -eq 1 ] && [ "${c_ua:-0}" -eq 1 ]
ok $? "metrics: tq_limit_refused_total by limit (build-time $c_time, source $c_src, work $c_work, programs $c_cp+$c_up, kernels $c_ck, policy $c_pol, arenas $c_ca/$c_ua)"
sum=$("$BIN/tqstat" --metrics "$T/usched.prom" --sysfs "$SYS" --all |
	sed -n 's/^tq_limit_refused_total //p')
want=$(grep '^tq_limit_refused_total{' "$T/usched.prom" | awk '{ s += $2 } END { print s + 0 }')
[ -n "$sum" ] && [ "$sum" = "$want" ] && [ "$sum" -gt 0 ]
ok $? "tqstat: the refusals' sum ($sum of $want)"
"$BIN/tqstat" --metrics "$T/usched.prom" --sysfs "$SYS" | grep -q "^  refused    $want by limits"
ok $? "tqstat: their sum on its screen"

# 9. A restart: a registered source program is rebuilt (in a build process) for its context.
rm -f "$T/go"
"$CLIENT" --uid "$NOBODY" scale "$T/good.cl" "$T/go" >"$T/restart" 2>&1 &
rpid=$!
wait_for 120 grep -q 'kernel=ok' "$T/restart"
kill -KILL "$upid"
wait "$upid" 2>/dev/null
wait_for 10 sysfs_is scheduler_pid = 0
start_usched
touch "$T/go"
wait "$rpid"
grep -q 'run=ok verified=yes' "$T/restart" && grep -q 'restored 1 programs, 1 kernels' "$T/usched.log"
ok $? "usched killed and restarted: the context's source program rebuilt, its task verified ($(tr '\n' ' ' <"$T/restart"))"

suite_end
