#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/test_cli.sh - the platform's conventions in tq's programs: every
# program of the build answers --version as GNU's do; the daemons' pages
# list every option their --help does; the bash completion
# (usched/dist/tq.bash) offers every option of each program's --help, the
# policies usched names and tqsim's commands, and paths where --help says
# FILE, DIR or PATH; the daemons' log lines start with their syslog
# priority ("<3>") when stderr is the journal's ($JOURNAL_STREAM), and a
# tqsubmitd that forked logs to syslog. Run from the top of the tree after
# the build (BIN: its bin/).
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

# ---- the daemons' log: "<N>" first where stderr is $JOURNAL_STREAM's file
: >"$t/journal"
js=$(stat -c %d:%i "$t/journal")
touch "$t/file"	# a directory's place, where the sockets cannot be made
usched_err() {	# ENV...: usched fails at once; stderr to $t/journal
	: >"$t/journal"
	env "$@" timeout 30 "$bin/usched" --foreground --transport socket \
		--sched-socket "$t/none.sock" --tqsubmitd none 2>>"$t/journal"
}
usched_err JOURNAL_STREAM="$js"
ok $([ $? -eq 1 ] && grep -q '^<3>usched: .*none.sock' "$t/journal"; echo $?) \
	"usched's error under the journal: '<3>usched: ...' ($(head -n1 "$t/journal"))"
usched_err -u JOURNAL_STREAM
ok $(grep -q '^usched: .*none.sock' "$t/journal"; echo $?) \
	"usched's error on a terminal: 'usched: ...' ($(head -n1 "$t/journal"))"
usched_err JOURNAL_STREAM="$(stat -c %d:%i "$t/file")"
ok $(grep -q '^usched: .*none.sock' "$t/journal"; echo $?) \
	"usched's error, \$JOURNAL_STREAM another file's: no priority ($(head -n1 "$t/journal"))"
: >"$t/journal"
JOURNAL_STREAM=$js timeout 30 "$bin/tqsubmitd" --foreground --socket "$t/file/c.sock" \
	--sched-socket "$t/s.sock" 2>>"$t/journal"
ok $([ $? -eq 1 ] && grep -q '^<3>tqsubmitd: ' "$t/journal"; echo $?) \
	"tqsubmitd's error under the journal: '<3>tqsubmitd: ...' ($(head -n1 "$t/journal"))"
: >"$t/journal"
JOURNAL_STREAM=$js "$bin/tqsubmitd" --foreground --socket "$t/c.sock" --sched-socket "$t/s.sock" \
	2>>"$t/journal" &
pid=$!
wait_for 20 grep -q serving "$t/journal"
kill -TERM $pid
wait $pid
ok $(grep -q '^<6>tqsubmitd: serving ' "$t/journal"; echo $?) \
	"tqsubmitd's notice under the journal: '<6>tqsubmitd: serving ...' ($(head -n1 "$t/journal"))"

# ---- a tqsubmitd that forked: syslog. /dev/log is a socket of the test's,
# in a mount namespace of its own, with the host's /dev/null beside it.
if unshare -m true 2>/dev/null && command -v python3 >/dev/null; then
	mkdir "$t/dev" && touch "$t/dev/null"
	unshare -m bash -c '
		t=$1 bin=$2
		mount --make-rprivate / && mount --bind /dev/null "$t/dev/null" || exit 1
		python3 -c "import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(20)
open(sys.argv[2], \"w\").write(s.recv(4096).decode())" "$t/dev/log" "$t/syslog" &
		listener=$!
		until [ -S "$t/dev/log" ]; do sleep 0.1; done
		mount --bind "$t/dev" /dev || exit 1
		"$bin/tqsubmitd" --socket "$t/c2.sock" --sched-socket "$t/s2.sock" 2>"$t/stderr"
		wait $listener
	' sh "$t" "$bin"
	# the forked tqsubmitd: its pid as syslog has it, else by its sockets
	pid=$(sed -n 's/.*tqsubmitd\[\([0-9]*\)\]: .*/\1/p' "$t/syslog" 2>/dev/null)
	pid=${pid:-$(pgrep -f -- "--socket $t/c2.sock")}
	[ -n "$pid" ] && kill -TERM $pid
	ok $(grep -q 'tqsubmitd\[[0-9]*\]: serving ' "$t/syslog" 2>/dev/null; echo $?) \
		"a forked tqsubmitd logs to syslog ($(cat "$t/syslog" 2>/dev/null))"
else
	skip "a forked tqsubmitd logs to syslog" "no mount namespace (unshare -m) or no python3"
fi
tap_done
