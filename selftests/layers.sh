#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/layers.sh - the tree's layering, as Documentation/README.md's
# layout table states it, checked:
#  1. what each folder's files include, against the folder rules below
#     (tests, which may include anything, aside);
#  2. the headers a library licensed LGPL-2.1 OR MIT includes carry a
#     licence it may use;
#  3. no build fragment includes another (the top Makefile's FRAGMENTS
#     lists them in order);
#  4. no two headers include each other, directly or round a loop;
#  5. in every folder of built objects, the files call each other in one
#     direction only: from the objects' relocations, a call from one file
#     to a function another file defines is an edge, and tsort finds no
#     loop. Calls only: a table of function pointers in one file naming
#     functions of others (a policy table) is data, not a call.
# Run from the repository root after the build (BIN: its bin/, as make check
# passes it; the objects are beside it).
. selftests/tap.sh

bin=${BIN:-build/bin}
obj=${bin%/bin}/obj

# folder: the folders (or files) its files may include beside their own
# folder and the folders under it. The longest folder that matches a file
# is its rule; libc, the kernel's and OpenCL's headers are not checked.
# tqbench-ring measures the transports against tq_echod, the tests' echo
# scheduler, and starts it (and tqsubmitd) with the tests' own helpers.
rules() {
	cat <<'EOF'
include/uapi:
include/tq: include/uapi
include: include/uapi include/tq
kmod: include/uapi include/tq/tqsubmit_
libtq: include/uapi include/tq include/tq_transport.h
libtq/layer: libtq include/uapi include/tq include/tq_transport.h
sim: include/tq
kernels: sim include
kernels/cl: sim include
usched/core: sim kernels include
usched/daemon: usched/core sim kernels include
usched/tqsubmitd: include
tools/tqstat: include
tools/tqcalib: tools/progress.h kernels sim include
tools/tqbench: tools/progress.h libtq usched/core kernels sim include
tools/ring: libtq include selftests/libtq_util.h
tools: libtq kernels include
EOF
}

# A test file: its name starts with test, or it lies in a tests/ folder or
# under selftests/. Tests may include any header.
is_test() {
	case "$1" in
	selftests/* | */tests/* | */test*.[ch] | test*.[ch]) return 0 ;;
	esac
	return 1
}

# resolve FILE INCLUDE: the tracked file an include names, or nothing (a
# system header). "..." looks beside FILE first, then in the roots of -I;
# <...> only in include/ and include/uapi.
resolve() {
	local dir=${1%/*} inc=$2 name r

	[ "$dir" = "$1" ] && dir=.
	name=${inc:1:${#inc}-2}
	case "$inc" in
	\"*) for r in "$dir" . include include/uapi; do
		[ -f "$r/$name" ] && { realpath -m --relative-to=. "$r/$name"; return; }
	     done ;;
	\<*) for r in include include/uapi; do
		[ -f "$r/$name" ] && { echo "$r/$name"; return; }
	     done ;;
	esac
}

# rule_of FILE: "folder: allowed..." of the longest matching folder
rule_of() {
	local best= blen=-1 line folder

	while IFS= read -r line; do
		folder=${line%%:*}
		case "$1/" in
		"$folder"/*) [ ${#folder} -gt $blen ] && { best=$line; blen=${#folder}; } ;;
		esac
	done < <(rules)
	echo "$best"
}

# 1 and 4: every include of every tracked C file, resolved
edges=$(git ls-files '*.c' '*.h' | while read -r f; do
	sed -n 's/^#[[:space:]]*include[[:space:]]*\(["<][^">]*[">]\).*/\1/p' "$f" |
	while read -r inc; do
		t=$(resolve "$f" "$inc")
		[ -n "$t" ] && echo "$f $t"
	done
done)

bad=$(echo "$edges" | while read -r f t; do
	[ -n "$f" ] || continue
	is_test "$f" && continue
	rule=$(rule_of "${f%/*}")
	[ -n "$rule" ] || { echo "$f: no rule for its folder"; continue; }
	folder=${rule%%:*}
	case "$t" in "$folder"/*) continue ;; esac
	okay=
	for a in ${rule#*:}; do
		case "$t" in "$a"*) okay=1; break ;; esac
	done
	[ -n "$okay" ] || echo "$f includes $t (folder $folder may include: ${rule#*:})"
done)
ok $([ -z "$bad" ]; echo $?) "each folder includes only what its rule allows ($(echo "$edges" | wc -l) includes)"
[ -z "$bad" ] || echo "$bad" | diag

# 2: libtq and its layer are LGPL-2.1 OR MIT: what they include must allow it
bad=$(echo "$edges" | while read -r f t; do
	case "$f" in libtq/*) ;; *) continue ;; esac
	is_test "$f" && continue
	lic=$(sed -n 's/.*SPDX-License-Identifier: *\(.*[^ */]\).*/\1/p' "$t" | head -n1)
	case "$lic" in *LGPL-2.1*|*MIT*|*Linux-syscall-note*) ;; *) echo "$f includes $t ($lic)" ;; esac
done)
ok $([ -z "$bad" ]; echo $?) "libtq's files include only headers licensed for it"
[ -z "$bad" ] || echo "$bad" | diag

# 3: no build fragment includes another
bad=$(git ls-files '*build.mk' | xargs grep -n '^[[:space:]]*-\?include[[:space:]]' || true)
ok $([ -z "$bad" ]; echo $?) "no build.mk includes another"
[ -z "$bad" ] || echo "$bad" | diag

# 4: headers include each other in one direction
hedges=$(echo "$edges" | awk '$1 ~ /\.h$/ && $1 != $2')
loop=$(echo "$hedges" | tsort 2>&1 >/dev/null)
ok $([ -z "$loop" ]; echo $?) "$(echo "$hedges" | wc -l) includes between headers, none in a loop"
[ -z "$loop" ] || echo "$loop" | diag

# 5: "caller callee" for each file of folder $1 (objects $2...) that calls a
# function another of them defines; tests left out
calls() {
	local o defs

	defs=$(for o; do
		nm --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$2 ~ /^[TW]$/ { print $3, f }'
	done)
	for o; do
		readelf -rW "$o" | awk -v f="$(basename "$o" .o)" '
			/^Relocation section/ { text = ($3 ~ /\.rela\.text/) }
			text && $3 ~ /PLT32/ { print $5, f }'
	done | awk 'NR == FNR { def[$1] = $2; next }
		    ($1 in def) && def[$1] != $2 { print $2, def[$1] }' <(echo "$defs") - | sort -u
}

command -v nm >/dev/null && command -v readelf >/dev/null && command -v tsort >/dev/null ||
	{ skip "files call each other in one direction" "no nm, readelf or tsort"; tap_done; exit; }

folders=$( { cd "$obj" 2>/dev/null && find . -name '*.o' | sed 's|^\./||; s|/[^/]*$||' | sort -u; } )
[ -n "$folders" ] || ok 1 "no objects built under $obj"
# The module's objects sit beside its source (kbuild).
ls kmod/*.o >/dev/null 2>&1 && folders="$folders kmod"
for dir in $folders; do
	is_test "$dir/x" && continue
	[ "$dir" = kmod ] && d=kmod || d="$obj/$dir"
	objs=$(for o in "$d"/*.o; do
		# an object of a file since removed, in a build folder that outlived it
		[ -f "$dir/$(basename "$o" .o).c" ] && echo "$o"
	done | grep -v '/test[^/]*\.o$\|/testlib\.o$')
	[ "$(echo "$objs" | wc -w)" -gt 1 ] || continue
	e=$(calls $objs)
	loop=$(echo "$e" | tsort 2>&1 >/dev/null)
	ok $([ -z "$loop" ]; echo $?) \
		"$dir: $(echo "$e" | grep -c .) calls between files, none in a loop"
	[ -z "$loop" ] || echo "$loop" | diag
done
tap_done
