#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug_kernel.sh - the last suite of `make check-debug`, in the test VM on
# scripts/debug-kernel's kernel: the detectors were on for the whole run
# (KASAN initialised, lockdep still on: a report switches it off), then, with
# every client gone, the module unloads and a kmemleak scan finds nothing
# (objects it leaked stay unreferenced once it is gone). scripts/vm fails
# the run on any KASAN, lockdep, UBSAN or WARN report in the kernel log.
# Skips on a kernel without kmemleak (Debian's). Prints TAP.
set -uo pipefail

. selftests/tap.sh
ko=${TQ_MODULE:-kmod/tqsubmit.ko}
leaks=/sys/kernel/debug/kmemleak

[ -d /sys/kernel/debug ] && ! mountpoint -q /sys/kernel/debug &&
	mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -e "$leaks" ] || skip_all "no kmemleak in this kernel (make check-debug runs this suite)"

# its boot line, unless a long run's log has wrapped past it; generic KASAN
# has no switch: built in (its report function in the kernel) is on
dmesg | grep -q 'KernelAddressSanitizer initialized' || grep -qw kasan_report /proc/kallsyms
ok $? "KASAN is on"
grep -qE '^ *debug_locks: *1$' /proc/lockdep_stats 2>/dev/null
ok $? "lockdep is still on after the run (no report switched it off)"

contexts() { [ "$(cat /sys/class/misc/tqsubmit/contexts 2>/dev/null)" = 0 ]; }
wait_for 30 contexts
ok $? "no context is left open"
unloaded() { rmmod tqsubmit 2>/dev/null; ! [ -e /sys/module/tqsubmit ]; }
wait_for 30 unloaded
ok $? "the module unloads"

# kmemleak reports objects at least 5 s old that nothing references; two
# scans a little apart, as its documentation advises, before reading.
sleep 6
echo scan >"$leaks"
sleep 2
echo scan >"$leaks"
report=$(cat "$leaks")
[ -z "$report" ]
ok $? "kmemleak finds no unreferenced object"
[ -n "$report" ] && printf '%s\n' "$report" | head -n 80 | diag

insmod "$ko"
ok $? "the module loads again"
tap_done
