#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug_record.sh - make check-debug is too long for make check, so its last
# run is recorded in Documentation/testing.md ("Last run: DATE, commit C,
# ..."); this test, in make check, fails when the module changed after the
# recorded commit: the commit must contain the last change to the module's
# sources (kmod/, Kbuild, the uapi header and the checks the module shares
# with tqsubmitd). Prints TAP.
set -uo pipefail

. selftests/tap.sh
doc=Documentation/testing.md
sources=(kmod Kbuild include/uapi/linux/tqsubmit.h include/tq/tqsubmit_check.h
	include/tq/tqsubmit_ring.h)

git rev-parse --git-dir >/dev/null 2>&1 || skip_all "not a git checkout"
[ "$(git rev-parse --is-shallow-repository)" = false ] || skip_all "a shallow clone: no history to compare"

line=$(grep -m1 '^Last run: ' "$doc")
recorded=$(sed -n 's/.*commit \([0-9a-f]\{7,40\}\).*/\1/p' <<<"$line")
[ -n "$recorded" ]
ok $? "$doc records make check-debug's last run with its commit"
[ -n "$recorded" ] || { tap_done; exit; }

git cat-file -e "$recorded^{commit}" 2>/dev/null
ok $? "the recorded commit $recorded is in this history"
last=$(git log -1 --format=%h -- "${sources[@]}")
git merge-base --is-ancestor "$last" "$recorded" 2>/dev/null
ok $? "the recorded run ($recorded) contains the module's last change ($last): if not, run make check-debug and record it"
tap_done
