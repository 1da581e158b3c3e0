#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/test_install.sh - make install and make uninstall into DESTDIRs, and
# clients built as Documentation/libtq.md says: its example, extracted and
# compiled with each of its command lines, against the installed libtq.pc
# (pkg-config with PKG_CONFIG_SYSROOT_DIR into the DESTDIR), the tree and
# the tree's libtq-uninstalled.pc. Run from the top of the tree.
set -uo pipefail
. selftests/tap.sh

t=$(mktemp -d /tmp/tq-install.XXXXXX)
trap 'rm -rf "$t"' EXIT
repo=$PWD
version=$(sed -n 's/^LIBTQ_VERSION := //p' libtq/build.mk)

# The normal build (install copies build/, not build/san/).
inst() { make --no-print-directory SAN= "$@" >"$t/make.log" 2>&1 || { diag <"$t/make.log"; return 1; }; }

inst build/lib/pkgconfig/libtq-uninstalled.pc build/lib/libtq.so
ok $? "the tree's libtq-uninstalled.pc and libtq.so"

# ---- PREFIX=/usr: the distribution layout
u=$t/usr-root
inst install DESTDIR="$u" PREFIX=/usr
ok $? "make install DESTDIR PREFIX=/usr"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
libdir=/usr/lib${ma:+/$ma}
want=(usr/sbin/usched usr/sbin/usched-build usr/sbin/tqsubmitd usr/bin/tqstat usr/bin/tqsim usr/bin/tqcalib usr/bin/tqbench
      "${libdir#/}/libtq.so.$version" "${libdir#/}/libtq.a" "${libdir#/}/pkgconfig/libtq.pc"
      usr/include/tq.h usr/include/linux/tqsubmit.h usr/share/man/man3/tq_open.3
      usr/share/man/man7/libtq.7 usr/share/man/man8/usched.8 usr/share/man/man8/tqsubmitd.8
      etc/tq/usched.conf
      usr/share/tq/synthetic_tasks.csv "${libdir#/}/tq/libtqcl.so" usr/share/man/man7/tqcl.7
      usr/share/bash-completion/completions/usched usr/share/bash-completion/completions/tqsim
      usr/share/bash-completion/completions/tqbench usr/share/bash-completion/completions/tqstat)
missing=
for f in "${want[@]}"; do [ -f "$u/$f" ] || missing+=" $f"; done
ok $([ -z "$missing" ]; echo $?) "installed files present${missing:+ (missing:$missing)}"
ok $([ -d "$u/etc/tq/usched.conf.d" ]; echo $?) "installed the drop-in directory etc/tq/usched.conf.d"
for f in "$u"/*/systemd/system/usched.service "$u"/*/systemd/system/tqsubmitd.service \
	 "$u"/*/systemd/system/tqsubmitd.socket "$u"/*/systemd/system/tqsubmitd-sched.socket \
	 "$u"/*/udev/rules.d/60-tqsubmit.rules \
	 "$u"/usr/lib/sysusers.d/tq.conf "$u"/usr/lib/modules-load.d/tqsubmit.conf; do
	ok $([ -f "$f" ]; echo $?) "installed ${f#"$u"/}"
done
ok $([ "$(readlink "$u$libdir/libtq.so.1")" = "libtq.so.$version" ] &&
     [ "$(readlink "$u$libdir/libtq.so")" = libtq.so.1 ]; echo $?) \
	"libtq.so -> libtq.so.1 -> libtq.so.$version"
soname=$(readelf -d "$u$libdir/libtq.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
ok $([ "$soname" = libtq.so.1 ]; echo $?) "soname libtq.so.1 (got '$soname')"
grep -qx "prefix=/usr" "$u$libdir/pkgconfig/libtq.pc" &&
	grep -qx "libdir=$libdir" "$u$libdir/pkgconfig/libtq.pc" &&
	grep -qx "includedir=/usr/include" "$u$libdir/pkgconfig/libtq.pc"
ok $? "libtq.pc: prefix=/usr libdir=$libdir includedir=/usr/include"
svc=$(echo "$u"/*/systemd/system/usched.service)
grep -q '^ExecStart=/usr/sbin/usched --config /etc/tq/usched.conf --foreground$' "$svc"
ok $? "usched.service starts /usr/sbin/usched with /etc/tq/usched.conf"
grep -q '^ExecStart=/usr/sbin/tqsubmitd --foreground --metrics /run/tq/tqsubmitd.prom$' "$(echo "$u"/*/systemd/system/tqsubmitd.service)"
ok $? "tqsubmitd.service starts /usr/sbin/tqsubmitd"
helper=$(sed -n 's/^#build-helper = //p' "$u/etc/tq/usched.conf")
ok $([ -n "$helper" ] && [ -x "$u$helper" ] && [ "${helper%/*}" = /usr/sbin ]; echo $?) \
	"usched.conf's build-helper, usched-build beside usched, is where install put it ($helper)"
ok $(grep -qx tqsubmit "$u/usr/lib/modules-load.d/tqsubmit.conf"; echo $?) \
	"modules-load.d loads tqsubmit"
if command -v systemd-sysusers >/dev/null; then
	systemd-sysusers --root="$u" >/dev/null 2>&1
	ok $(grep -q '^tq:' "$u/etc/group"; echo $?) "systemd-sysusers makes the group tq of the udev rule"
	grep -q 'GROUP="tq"' "$u"/*/udev/rules.d/60-tqsubmit.rules
	ok $? "the udev rule gives /dev/tqsubmit to that group"
	rm -f "$u"/etc/{group,gshadow,passwd,shadow}{,-} "$u"/etc/.pwd.lock
else
	echo "ok $((n += 1)) - systemd-sysusers makes the group tq # SKIP no systemd-sysusers"
fi
"$u/usr/bin/tqsim" --help >/dev/null
ok $? "installed tqsim runs"
# help2man's pages of the tools: a SYNOPSIS from --help's Usage: lines, the
# version from --version, and nothing groff warns of
for p in "$u"/usr/share/man/man1/*.1; do
	out=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
	page=$(MANWIDTH=80 man -l "$p" 2>/dev/null)
	ok $([ -z "$out" ] && grep -q '^SYNOPSIS' <<<"$page" &&
	     grep -q "^tq $version " <<<"$page"; echo $?) \
		"${p##*/}: a SYNOPSIS, tq $version, no warnings${out:+ ($out)}"
done

# ---- the example of Documentation/libtq.md, built as it says
ex=$t/example
mkdir -p "$ex"
awk '/^## Example/ { f = 1 } f && /^```c$/ { g = 1; next } g && /^```$/ { exit } g' \
	Documentation/libtq.md >"$ex/prog.c"
mapfile -t lines < <(awk '/^## Build and use/ { f = 1 } f && /^```sh$/ { g = 1; next }
	g && /^```$/ { exit } g' Documentation/libtq.md)
ok $([ -s "$ex/prog.c" ] && [ ${#lines[@]} -eq 3 ]; echo $?) \
	"libtq.md has the example and three command lines (got ${#lines[@]})"
# "from the top of the tree": a top with the tree's libtq/, include/ and build/
ln -s "$repo/libtq" "$repo/include" "$repo/build" "$ex/"
# run_line N ENV...: command line N in $ex with ENV; then the program runs
# without /dev/tqsubmit, which the example must report and exit 1 for.
run_line() {
	local i=$1 out

	shift
	rm -f "$ex/prog"
	(cd "$ex" && env "$@" bash -ec "${lines[$i]%%#*} -Wall -Wextra -Werror") \
		>"$t/cc.log" 2>&1
	ok $? "libtq.md line $((i + 1)) builds the example: ${lines[$i]%%#*}"
	diag <"$t/cc.log"
}
# the run without a device: the example reports tq_open's error and exits 1
check_run() {
	local out rc

	if [ -e /dev/tqsubmit ]; then
		echo "ok $((n += 1)) - $1 # SKIP /dev/tqsubmit exists here"
		return
	fi
	out=$(env "${@:2}" "$ex/prog" 2>&1)
	rc=$?
	ok $([ $rc -eq 1 ] && [[ $out == "tq_open: "* ]]; echo $?) "$1 (status $rc: $out)"
}
run_line 0 PKG_CONFIG_SYSROOT_DIR="$u" PKG_CONFIG_LIBDIR="$u$libdir/pkgconfig"
needed=$(readelf -d "$ex/prog" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(libtq.*\)\]/\1/p')
ok $([ "$needed" = libtq.so.1 ]; echo $?) "the installed-pc client needs libtq.so.1 (got '$needed')"
check_run "it runs on the installed libtq.so.1" LD_LIBRARY_PATH="$u$libdir"
run_line 1
check_run "the tree-built example runs"
run_line 2 PKG_CONFIG_PATH=build/lib/pkgconfig
check_run "the uninstalled-pc example runs on build/lib" LD_LIBRARY_PATH="$repo/build/lib"

# ---- an edited usched.conf survives install and uninstall
echo "policy = fifo" >>"$u/etc/tq/usched.conf"
inst install DESTDIR="$u" PREFIX=/usr
grep -q '^policy = fifo$' "$u/etc/tq/usched.conf" && cmp -s usched/dist/usched.conf "$u/etc/tq/usched.conf.new"
ok $? "a second install keeps an edited usched.conf, puts the shipped one in usched.conf.new"
inst uninstall DESTDIR="$u" PREFIX=/usr
ok $? "make uninstall"
ok $([ -f "$u/etc/tq/usched.conf" ] && [ ! -e "$u/etc/tq/usched.conf.new" ]; echo $?) \
	"uninstall keeps the edited usched.conf, removes usched.conf.new"
rm -f "$u/etc/tq/usched.conf"
left=$(cd "$u" && find . ! -type d | head)
ok $([ -z "$left" ]; echo $?) "uninstall removes every file install put${left:+ (left: $left)}"

# ---- other prefixes: libtq.pc and usched.service follow PREFIX
o=$t/opt-root
inst install DESTDIR="$o" PREFIX=/opt/tq
ok $? "make install PREFIX=/opt/tq"
grep -qx "prefix=/opt/tq" "$o/opt/tq/lib/pkgconfig/libtq.pc" &&
	grep -qx "libdir=/opt/tq/lib" "$o/opt/tq/lib/pkgconfig/libtq.pc"
ok $? "libtq.pc of PREFIX=/opt/tq: prefix and libdir under /opt/tq"
grep -q '^ExecStart=/opt/tq/sbin/usched --config /opt/tq/etc/tq/usched.conf ' \
	"$o/opt/tq/lib/systemd/system/usched.service"
ok $? "usched.service of PREFIX=/opt/tq runs /opt/tq/sbin/usched with /opt/tq/etc/tq/usched.conf"
grep -q '^ExecStart=/opt/tq/sbin/tqsubmitd ' "$o/opt/tq/lib/systemd/system/tqsubmitd.service"
ok $? "tqsubmitd.service of PREFIX=/opt/tq runs /opt/tq/sbin/tqsubmitd"
l=$t/local-root
inst install DESTDIR="$l"
grep -qx "prefix=/usr/local" "$l/usr/local/lib/pkgconfig/libtq.pc"
ok $? "the next install, default PREFIX: libtq.pc says /usr/local again"
inst install DESTDIR="$l" LIBDIR=/usr/local/lib64
grep -qx "libdir=/usr/local/lib64" "$l/usr/local/lib64/pkgconfig/libtq.pc"
ok $? "LIBDIR=/usr/local/lib64: libtq.pc follows LIBDIR"
inst uninstall DESTDIR="$l" LIBDIR=/usr/local/lib64 && inst uninstall DESTDIR="$l"
left=$(cd "$l" && find . ! -type d | head)
ok $([ -z "$left" ]; echo $?) "uninstall of both leaves nothing${left:+ (left: $left)}"
tap_done
