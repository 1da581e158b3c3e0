#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/compat_build.sh BASE OUT - build clients of an older tq, from git
# history, for libtq/test_compat.sh: libtq.so.1 from commit BASE's libtq/
# sources and uapi header, and against them BASE's Documentation/libtq.md
# example (a VA sum, checked) and BASE's limits_client (chains). Everything
# goes under OUT: src/ (BASE's files), lib/libtq.so.1 and the two programs,
# which find that library through their rpath. Without git or BASE (a
# tarball's tree) OUT/unavailable says why, and the test skips.
set -uo pipefail
base=$1 out=$2
CC=${CC:-cc}
rm -rf "$out"
mkdir -p "$out/src" "$out/lib"
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
	echo "no git history with commit $base here" >"$out/unavailable"
	touch "$out/done"
	exit 0
fi
set -e
git archive "$base" libtq include Documentation/libtq.md usched/daemon/tests/limits_client.c |
	tar -x -C "$out/src"
s=$out/src
inc=(-I"$s" -I"$s/include" -I"$s/include/uapi" -D_GNU_SOURCE)
flags=(-O2 -g -std=gnu11 -pthread)
for f in tq arena; do
	$CC "${inc[@]}" "${flags[@]}" -fPIC -c -o "$out/$f.o" "$s/libtq/$f.c"
done
$CC -shared -Wl,-soname,libtq.so.1 -Wl,--version-script="$s/libtq/libtq.map" \
	-o "$out/lib/libtq.so.1" "$out/tq.o" "$out/arena.o" -pthread
ln -s libtq.so.1 "$out/lib/libtq.so"
awk '/^## Example/ { f = 1 } f && /^```c$/ { g = 1; next } g && /^```$/ { exit } g' \
	"$s/Documentation/libtq.md" >"$out/example.c"
test -s "$out/example.c"
rpath=-Wl,-rpath,\$ORIGIN/lib
$CC "${inc[@]}" -I"$s/libtq" "${flags[@]}" -o "$out/example" "$out/example.c" \
	-L"$out/lib" -ltq "$rpath"
$CC "${inc[@]}" "${flags[@]}" -o "$out/limits_client" "$s/usched/daemon/tests/limits_client.c" \
	-L"$out/lib" -ltq "$rpath"
echo "$base" >"$out/base"
touch "$out/done"
