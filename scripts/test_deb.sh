#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/test_deb.sh - make deb (dpkg-buildpackage -us -uc -b on a copy of
# the tree, then lintian failing on errors and warnings), and what the six
# packages hold: libtq1 and libtq-dev unpacked into a root build the
# example of Documentation/libtq.md through their libtq.pc; tqsubmit-dkms's
# scripts register the module with DKMS and make the group tq. Nothing is
# installed on this machine. Run from the top of the tree.
set -uo pipefail
. selftests/tap.sh

for c in dpkg-buildpackage dh_dkms lintian help2man; do
	command -v $c >/dev/null || skip_all "no $c (scripts/deps installs it)"
done
version=$(sed -n 's/^LIBTQ_VERSION := //p' libtq/build.mk)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
t=$(mktemp -d /tmp/tq-deb.XXXXXX)
trap 'rm -rf "$t"' EXIT

start=$SECONDS
make --no-print-directory deb >"$t/deb.log" 2>&1
ok $? "make deb: the packages build and lintian finds no error or warning ($((SECONDS - start)) s)" ||
	tail -n 30 "$t/deb.log" | diag

deb() { echo "build/deb/$1_${version}_$2.deb"; }
for p in libtq1:$arch libtq-dev:$arch usched:$arch tqsubmitd:$arch tq-tools:$arch tqsubmit-dkms:all; do
	f=$(deb "${p%%:*}" "${p#*:}")
	ok $([ -f "$f" ]; echo $?) "built $f"
done
has() {	# has PACKAGE ARCH PATH...: the package holds each PATH
	local f=$(deb "$1" "$2") list p miss=

	list=$(dpkg-deb -c "$f" 2>/dev/null | awk '{ print $6 }')
	for p in "${@:3}"; do grep -qx "./$p" <<<"$list" || miss+=" $p"; done
	ok $([ -z "$miss" ]; echo $?) "$1 holds ${*:3}${miss:+ (missing:$miss)}"
}
has libtq1 "$arch" "usr/lib/$ma/libtq.so.$version" "usr/lib/$ma/libtq.so.1"
has libtq-dev "$arch" "usr/lib/$ma/libtq.so" "usr/lib/$ma/libtq.a" "usr/lib/$ma/pkgconfig/libtq.pc" \
	usr/include/tq.h usr/include/linux/tqsubmit.h usr/share/man/man3/tq_wait.3.gz
has usched "$arch" usr/sbin/usched usr/sbin/usched-build lib/systemd/system/usched.service etc/tq/usched.conf \
	usr/share/man/man8/usched.8.gz usr/share/bash-completion/completions/usched \
	usr/lib/sysusers.d/usched.conf
has tqsubmitd "$arch" usr/sbin/tqsubmitd lib/systemd/system/tqsubmitd.service \
	lib/systemd/system/tqsubmitd.socket lib/systemd/system/tqsubmitd-sched.socket \
	usr/share/man/man8/tqsubmitd.8.gz usr/lib/sysusers.d/tqsubmitd.conf
has tq-tools "$arch" usr/bin/tqsim usr/bin/tqstat usr/bin/tqcalib usr/bin/tqbench \
	usr/share/man/man1/tqsim.1.gz usr/share/tq/synthetic_tasks.csv "usr/lib/$ma/tq/libtqcl.so" \
	usr/share/man/man7/tqcl.7.gz usr/share/bash-completion/completions/tqsim
has tqsubmit-dkms all "usr/src/tqsubmit-$version/dkms.conf" "usr/src/tqsubmit-$version/kmod/main.c" \
	usr/lib/modules-load.d/tqsubmit.conf lib/udev/rules.d/60-tqsubmit.rules usr/lib/sysusers.d/tqsubmit-dkms.conf

dpkg-deb -e "$(deb tqsubmit-dkms all)" "$t/ctl" 2>/dev/null
grep -q 'common.postinst' "$t/ctl/postinst" 2>/dev/null &&
	grep -q 'systemd-sysusers.* tqsubmit-dkms.conf' "$t/ctl/postinst"
ok $? "tqsubmit-dkms's postinst hands the module to DKMS and makes the group tq"
dpkg-deb -e "$(deb tqsubmitd "$arch")" "$t/ctl-d" 2>/dev/null
grep -q 'tqsubmitd.socket' "$t/ctl-d/postinst" 2>/dev/null &&
	grep -q 'systemd-sysusers.* tqsubmitd.conf' "$t/ctl-d/postinst" &&
	! grep -q 'start.*tqsubmitd.service' "$t/ctl-d/postinst"
ok $? "tqsubmitd's postinst makes the group tq and enables its sockets, and starts no service"
# Packages that may be installed together ship no file twice (dpkg would refuse).
for p in libtq1:$arch libtq-dev:$arch usched:$arch tqsubmitd:$arch tq-tools:$arch tqsubmit-dkms:all; do
	f=$(deb "${p%%:*}" "${p#*:}")
	dpkg-deb -c "$f" 2>/dev/null | awk '$1 !~ /^d/ { print $6 }'
done | sort | uniq -d >"$t/twice"
[ ! -s "$t/twice" ]
ok $? "no file is in two packages" || diag <"$t/twice"
dpkg-deb -f "$(deb tqsubmit-dkms all)" Depends | grep -q dkms
ok $? "tqsubmit-dkms depends on dkms"
mkdir -p "$t/usched" && dpkg-deb -x "$(deb usched "$arch")" "$t/usched"
grep -q '^ExecStart=/usr/sbin/usched --config /etc/tq/usched.conf ' "$t/usched/lib/systemd/system/usched.service"
ok $? "usched.service runs /usr/sbin/usched with /etc/tq/usched.conf"
dpkg-deb -f "$(deb libtq-dev "$arch")" Depends | grep -q "libtq1 (= $version)"
ok $? "libtq-dev depends on libtq1 (= $version)"

# A client from the packages' files alone.
r=$t/root
for p in libtq1 libtq-dev; do dpkg-deb -x "$(deb $p "$arch")" "$r"; done
awk '/^## Example/ { f = 1 } f && /^```c$/ { g = 1; next } g && /^```$/ { exit } g' \
	Documentation/libtq.md >"$t/prog.c"
flags=$(PKG_CONFIG_SYSROOT_DIR=$r PKG_CONFIG_LIBDIR=$r/usr/lib/$ma/pkgconfig \
	pkg-config --cflags --libs libtq)
cc -Wall -Wextra -Werror -o "$t/prog" "$t/prog.c" $flags >"$t/cc.log" 2>&1
ok $? "the libtq.md example builds against libtq-dev's libtq.pc ($flags)" || diag <"$t/cc.log"
out=$(LD_LIBRARY_PATH=$r/usr/lib/$ma "$t/prog" 2>&1)
rc=$?
if [ -e /dev/tqsubmit ]; then
	echo "ok $((n += 1)) - and runs on libtq1's library # SKIP /dev/tqsubmit exists here"
else
	ok $([ $rc -eq 1 ] && [[ $out == "tq_open: "* ]]; echo $?) \
		"and runs on libtq1's library (status $rc: $out)"
fi
tap_done
