#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/test_cli.sh - the conventions of tq's programs' command lines:
# every program of the build answers --version as GNU's do; the daemons'
# pages list every option their --help does; the bash completion
# (usched/dist/tq.bash) offers every option of each program's --help, the
# policies usched names and tqsim's commands, and paths where --help says
# FILE, DIR or PATH. Run from the top of the tree after the build (BIN: its bin/).
set -uo pipefail
. selftests/tap.sh

bin=${BIN:-build/bin}
version=$(sed -n 's/^LIBTQ_VERSION := //p' libtq/build.mk)
t=$(mktemp -d /tmp/tq-cli.XXXXXX)
trap 'rm -rf "$t"' EXIT

# ---- --version: every program in bin/, and the tests' tq_counter
for b in "$bin"/* "${bin%/bin}/tests/tq_counter"; do
	[ -x "$b" ] || continue
	out=$("$b" --version 2>&1)
	rc=$?
	ok $([ $rc -eq 0 ] && [ "$out" = "${b##*/} (tq) $version" ]; echo $?) \
		"${b##*/} --version: '${b##*/} (tq) $version' (status $rc: '$out')"
done

# options FILE: the options a --help text defines, one a line (those that start a line)
options() { sed -n 's/^ *\(-[a-z0-9], \)\?\(--[a-z0-9][a-z0-9-]*\).*/\2/p' "$1" | sort -u; }

# ---- the daemons' man pages: every option of --help
for d in usched/daemon/usched.8 usched/tqsubmitd/tqsubmitd.8; do
	p=${d##*/}
	"$bin/${p%.8}" --help >"$t/help" 2>&1
	sed 's/\\-/-/g' "$d" >"$t/page"
	missing=$(options "$t/help" | while read -r o; do
		grep -q -- "$o\b" "$t/page" || echo -n " $o"
	done)
	ok $([ -n "$(options "$t/help")" ] && [ -z "$missing" ]; echo $?) \
		"$p lists every option of ${p%.8} --help${missing:+ (not:$missing)}"
done

# ---- bash completion
# complete WORD...: what _tq offers for the last WORD, one a line
complete() {
	local COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMPREPLY=()

	_tq "$1"
	printf '%s\n' "${COMPREPLY[@]}"
}
. usched/dist/tq.bash
for p in usched "tqsim makespan" tqbench tqstat; do
	"$bin/${p% *}" --help >"$t/help" 2>&1
	# shellcheck disable=SC2086 # tqsim's command is a word of its own
	complete "$bin/"$p -- | sort >"$t/offered"
	missing=$(options "$t/help" | comm -23 - "$t/offered" | tr '\n' ' ')
	ok $([ -s "$t/offered" ] && [ -z "$missing" ]; echo $?) \
		"$p: every option of --help offered ($(wc -l <"$t/offered"))${missing:+, not: $missing}"
done
# the policies: as usched --help names them
want=$("$bin/usched" --help | sed -n 's/.*--policy NAME *ordering policy: //p' | tr ' ' '\n' | sort)
got=$(complete "$bin/usched" --policy '' | sort)
ok $([ -n "$want" ] && [ "$want" = "$got" ]; echo $?) "usched --policy: the policies of --help (${got//$'\n'/ })"
# tqsim's commands: those of its Usage lines
want=$("$bin/tqsim" --help | sed -n 's/^\( *or: \|Usage:\) *tqsim \([a-z]*\).*/\2/p' | sort)
got=$(complete "$bin/tqsim" '' | grep -v '^-' | sort)
ok $([ -n "$want" ] && [ "$want" = "$got" ]; echo $?) "tqsim: the commands of --help (${got//$'\n'/ })"
# paths where --help says FILE or DIR; nothing for a value of another kind
mkdir "$t/dir" && touch "$t/prof"
got=$(complete "$bin/tqbench" --profile "$t/pr")
ok $([ "$got" = "$t/prof" ]; echo $?) "tqbench --profile FILE: a path ($got)"
got=$(complete "$bin/tqbench" --out "$t/")
ok $([ "$got" = "$t/dir" ]; echo $?) "tqbench --out DIR: a directory ($got)"
got=$(complete "$bin/usched" --max-tg '')
ok $([ -z "$got" ]; echo $?) "usched --max-tg N: nothing offered ($got)"
tap_done
