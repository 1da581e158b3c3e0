#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/test_dkms.sh - the module as a system gets it: dkms.conf's source
# tree (make install-dkms-src) added and built by dkms against the installed
# Debian kernel headers, in private DKMS trees under /tmp (nothing is
# registered with the system's DKMS; dkms itself makes its module signing
# key in /var/lib/dkms once, as any dkms build does); and kbuild's
# modules_install into a staging root. Nothing is loaded. Run from the top
# of the tree.
set -uo pipefail
. selftests/tap.sh

version=$(sed -n 's/^LIBTQ_VERSION := //p' libtq/build.mk)
kdir=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n1)
[ -n "$kdir" ] || skip_all "no Debian kernel headers (scripts/deps installs them)"
kver=${kdir#/usr/src/linux-headers-}

t=$(mktemp -d /tmp/tq-dkms.XXXXXX)
trap 'rm -rf "$t"' EXIT
mk() { make --no-print-directory "$@" >"$t/make.log" 2>&1 || { diag <"$t/make.log"; return 1; }; }

grep -qx "PACKAGE_VERSION=\"$version\"" dkms.conf
ok $? "dkms.conf's PACKAGE_VERSION is the version of libtq/build.mk, $version"
deb=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
ok $([ "$deb" = "$version" ]; echo $?) "debian/changelog's version is $version (got '$deb')"
for p in usched/daemon/usched.8 usched/daemon/usched-build.8 usched/tqsubmitd/tqsubmitd.8 libtq/layer/tqcl.7; do
	grep -q "^\.TH .* \"tq $version\" " "$p"
	ok $? "$p's header names tq $version"
done

root=$t/root
mk install-dkms-src DESTDIR="$root"
ok $? "make install-dkms-src"
src=$root/usr/src/tqsubmit-$version
objs=$(sed -n 's/^tqsubmit-y := //p' kmod/Kbuild)
missing=
for o in $objs; do [ -f "$src/kmod/${o%.o}.c" ] || missing+=" kmod/${o%.o}.c"; done
for f in dkms.conf Kbuild kmod/Kbuild include/uapi/linux/tqsubmit.h; do
	[ -f "$src/$f" ] || missing+=" $f"
done
ok $([ -n "$objs" ] && [ -z "$missing" ]; echo $?) \
	"the source tree has what kmod/Kbuild builds${missing:+ (missing:$missing)}"
extra=$(cd "$src" && find . -name '*.o' -o -name '*.ko' -o -name '*.cmd' -o -name '*.mod*')
ok $([ -z "$extra" ]; echo $?) "and no build outputs${extra:+ ($extra)}"

if ! command -v dkms >/dev/null; then
	echo "ok $((n += 1)) - dkms build # SKIP no dkms (apt-get install dkms)"
else
	trees=(--sourcetree "$root/usr/src" --dkmstree "$t/dkms")
	mkdir -p "$t/dkms"
	dkms add -m tqsubmit -v "$version" "${trees[@]}" >"$t/dkms.log" 2>&1
	ok $? "dkms add tqsubmit/$version" || diag <"$t/dkms.log"
	dkms build -m tqsubmit -v "$version" -k "$kver" --kernelsourcedir "$kdir" "${trees[@]}" \
		>"$t/dkms.log" 2>&1
	ok $? "dkms build against $kdir" || diag <"$t/dkms.log"
	ko=$(find "$t/dkms/tqsubmit/$version/$kver" -name 'tqsubmit.ko*' 2>/dev/null | head -n1)
	vm=$( [ -n "$ko" ] && modinfo -F vermagic "$ko" | cut -d' ' -f1)
	ok $([ "$vm" = "$kver" ]; echo $?) "dkms built tqsubmit.ko for $kver (vermagic '$vm')"
	st=$(dkms status -m tqsubmit -v "$version" "${trees[@]}" 2>/dev/null)
	[[ $st == *"$kver"*built* ]]
	ok $? "dkms status: built for $kver ($st)"
fi

mk uninstall-dkms-src DESTDIR="$root"
left=$(cd "$root" && find . ! -type d | head)
ok $([ -z "$left" ] && [ ! -e "$src" ]; echo $?) "make uninstall-dkms-src removes it${left:+ (left: $left)}"

# kbuild's own install path, for a kernel built here (KDIR)
mk modules_install DESTDIR="$t/staging" KDIR="$kdir"
ok $? "make modules_install DESTDIR=staging"
ko=$t/staging/lib/modules/$kver/updates/kmod/tqsubmit.ko
vm=$( [ -f "$ko" ] && modinfo -F vermagic "$ko" | cut -d' ' -f1)
ok $([ "$vm" = "$kver" ]; echo $?) "staging/lib/modules/$kver/updates/kmod/tqsubmit.ko (vermagic '$vm')"
tap_done
