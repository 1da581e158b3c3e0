#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# conf.sh - usched's settings are checked before it attaches (natively, no
# module, no tqsubmitd): usched --check-config exits 0 for good settings and
# 2 for bad ones, saying FILE:LINE: key: what is wrong, or --key VALUE: ...,
# for an unknown policy, a trailing comment, a missing profile, an unknown
# transport (TQ_TRANSPORT's too), a device
# index past the devices present, and an error in a drop-in of
# FILE.d/*.conf; usched itself exits 2 with the same message before it
# tries to attach (no "attach" in what it says).
# Prints TAP. Run from the repository root (make check: CHECK_SCRIPTS).
set -uo pipefail

BIN=${BIN:-build/bin}
. selftests/tap.sh

[ -x "$BIN/usched" ] || skip_all "$BIN/usched is not built"
T=$(mktemp -d /tmp/usched-conf.XXXXXX)
trap 'rm -rf "$T"' EXIT
# nothing to attach to: a run that got that far would say "attach"
export TQ_TRANSPORT=socket TQ_SCHED_SOCKET=$T/none.sock TQ_SOCKET=$T/none-client.sock

# bad CONFIG-TEXT MESSAGE NAME [FLAGS...]: --check-config and a run exit 2 saying MESSAGE.
bad() {
	local text=$1 msg=$2 name=$3 rc1 rc2 said

	shift 3
	printf '%b' "$text" >"$T/u.conf"
	"$BIN/usched" --config "$T/u.conf" --check-config "$@" >"$T/out" 2>&1
	rc1=$?
	"$BIN/usched" --config "$T/u.conf" --foreground --tqsubmitd none "$@" >"$T/run" 2>&1
	rc2=$?
	grep -qF -- "$msg" "$T/out" && grep -qF -- "$msg" "$T/run" && ! grep -q attach "$T/run"
	said=$?
	ok $([ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $said = 0 ]; echo $?) \
		"$name: exit 2 ($rc1, $rc2), '$msg', before attaching"
	[ $rc1 = 2 ] && [ $rc2 = 2 ] && [ $said = 0 ] || diag <"$T/run"
}

printf 'tq-profile 1\ndma 1\nhtd alone 20000 1.0\ndth alone 20000 1.0\n' >"$T/profile"
printf '# usched.conf\npolicy = neh\nmax-tg = 4\nprofile = %s\n' "$T/profile" >"$T/good.conf"
"$BIN/usched" --config "$T/good.conf" --check-config >"$T/out" 2>&1
ok $? "--check-config: good settings exit 0"
[ ! -s "$T/out" ]
ok $? "and say nothing"

bad 'max-tg = 4\npolicy = fastest\n' "u.conf:2: policy: no such policy" "an unknown policy"
bad '\n\npolicy = neh # the fast one\n' "u.conf:3: policy: a comment takes a line of its own" \
	"a trailing comment"
bad "profile = $T/nowhere\n" "u.conf:1: profile: no such file" "a missing profile"
bad 'transport = sockets\n' "u.conf:1: transport: want auto, module or socket" \
	"an unknown transport"
TQ_TRANSPORT=bogus "$BIN/usched" --config /dev/null --check-config >"$T/out" 2>&1
ok $([ $? = 2 ] && grep -q "TQ_TRANSPORT=bogus: want auto" "$T/out"; echo $?) \
	"an unknown transport from the environment: exit 2, naming TQ_TRANSPORT"
bad '' "--policy fastest: no such policy" "a flag's unknown policy" --policy fastest
bad '' "--profile $T/nowhere: no such file" "a flag's missing profile" --profile "$T/nowhere"
if clinfo -l 2>/dev/null | grep -q Device; then
	bad 'max-tg = 4\ndevice = 77\n' "u.conf:2: device: no such OpenCL device (there are 0: " \
		"a device index past the devices present"
	bad '' "--device 77: no such OpenCL device" "a flag's device index" --device 77
else
	skip "a device index past the devices present" "no OpenCL device"
	skip "a flag's device index" "no OpenCL device"
fi

mkdir "$T/u.conf.d"
printf 'policy = fifo\n' >"$T/u.conf.d/10-a.conf"
printf '\nmax-tg = 0\n' >"$T/u.conf.d/20-b.conf"
bad 'policy = neh\n' "u.conf.d/20-b.conf:2: max-tg: not a number in range" "an error in a drop-in"
rm "$T/u.conf.d/20-b.conf"
"$BIN/usched" --config "$T/u.conf" --check-config
ok $? "--check-config: good drop-ins exit 0"
tap_done
