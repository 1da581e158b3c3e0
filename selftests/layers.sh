#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/layers.sh - the files of usched's core (usched/core/) and of its
# daemon (usched/daemon/) call each other in one direction only: from the
# built objects' symbols (nm), each file that calls a function another file
# defines is an edge, and tsort finds no loop. Documentation/README.md
# draws the order. Run from the repository root after the build (BIN: its
# bin/, as make check passes it; the objects are beside it).
. selftests/tap.sh

bin=${BIN:-build/bin}
obj=${bin%/bin}/obj

# "caller callee" for each file of $1 that calls a function of another; tests left out
edges() {
	local objs defs

	objs=$(ls "$obj/$1"/*.o 2>/dev/null | grep -v '/test[^/]*\.o$\|/testlib\.o$')
	[ -n "$objs" ] || return 1
	defs=$(for o in $objs; do
		nm --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$2 ~ /^[TDBR]$/ { print $3, f }'
	done)
	for o in $objs; do
		nm -u "$o" | awk -v f="$(basename "$o" .o)" '{ print $2, f }'
	done | awk 'NR == FNR { def[$1] = $2; next }
		    ($1 in def) && def[$1] != $2 { print $2, def[$1] }' <(echo "$defs") - | sort -u
}

command -v nm >/dev/null && command -v tsort >/dev/null || skip_all "no nm or tsort"
for dir in usched/core usched/daemon sim; do
	e=$(edges "$dir") || { ok 1 "$dir: no objects built"; continue; }
	loop=$(echo "$e" | tsort 2>&1 >/dev/null)
	ok $([ -n "$e" ] && [ -z "$loop" ]; echo $?) \
		"$dir: $(echo "$e" | wc -l) calls between files, none in a loop"
	[ -z "$loop" ] || echo "$loop" | diag
done
tap_done
