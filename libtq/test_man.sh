#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every public function of libtq has a section 3 page, and every page
# names the library's version (LIBTQ_VERSION) and formats without groff
# warnings. Public: the names of libtq.map and the
# static inline functions of tq.h.
set -uo pipefail
cd "$(dirname "$0")"

names=$( { sed -n 's/^[[:space:]]*\(tq_[a-z_]*\);$/\1/p' libtq.map
	   sed -n 's/^static inline [^(]*[ *]\(tq_[a-z_]*\)(.*/\1/p' tq.h; } | sort -u)
. ../selftests/tap.sh

for f in $names; do
	test -f "man/$f.3"
	ok $? "man/$f.3 exists"
done
version=$(sed -n 's/^LIBTQ_VERSION := //p' build.mk)
for p in man/*.3 man/*.7; do
	grep -q "^\.TH .* \"libtq $version\" " "$p"
	ok $? "$p is of libtq $version"
	if ! command -v groff >/dev/null; then
		n=$((n + 1))
		echo "ok $n - $p formats cleanly # SKIP no groff (scripts/deps installs groff-base)"
		continue
	fi
	w=$(groff -man -Tutf8 -ww -z "$p" 2>&1)
	ok $([ -z "$w" ]; echo $?) "$p formats cleanly"
	[ -z "$w" ] || echo "$w" | sed 's/^/# /'
done
tap_done
