#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sim/tests/data_tables.sh - tqsim reads the paper's tables of data/ as
# --help says: each table gives the same results as the task file awk
# writes from it here (Table 2 x 10 ms, Table 3's tasks from Table 2,
# Table 5 at the middle of each range); the other inputs fail with
# FILE:LINE: reason and exit 2; every option --help lists for eval exists.
# Run from the top of the tree.
set -uo pipefail
. selftests/tap.sh

tqsim=${BIN:-build/bin}/tqsim
t=$(mktemp -d /tmp/tqsim-data.XXXXXX)
trap 'rm -rf "$t"' EXIT

# same NAME TABLE-ARGS... -- TASKFILE: perms and makespan agree on both
same() {
	local name=$1 args=() a b
	shift
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	for cmd in perms makespan "order --policy exact"; do
		# policy_us is a time measured on this machine
		a=$($tqsim $cmd "${args[@]}" 2>&1 | grep -v '"policy_us"')
		b=$($tqsim $cmd "$2" 2>&1 | grep -v '"policy_us"')
		[ -n "$a" ] && [ "$a" = "$b" ] || break
	done
	ok $([ -n "$a" ] && [ "$a" = "$b" ] && [[ $a == *'"makespan_ms"'* ]]; echo $?) \
		"$name: perms, makespan and order give what the equivalent task file gives"
	[ "$a" = "$b" ] || diff <(echo "$a") <(echo "$b") | diag
}

strip() { grep -v '^#' "$1" | tail -n +2; }	# the data lines of a table

# Table 2: times in units of 10 ms
{ echo "name,htd_ms,k_ms,dth_ms"
  strip data/synthetic_tasks.csv | awk -F, '{ printf "%s,%g,%g,%g\n", $1, 10 * $2, 10 * $3, 10 * $4 }'
} >"$t/table2.csv"
same "synthetic_tasks.csv (Table 2)" data/synthetic_tasks.csv -- "$t/table2.csv"

# Table 3: each benchmark's tasks from Table 2
while IFS=, read -r bk tasks; do
	{ echo "name,htd_ms,k_ms,dth_ms"
	  for task in $tasks; do grep "^$task," "$t/table2.csv"; done
	} >"$t/$bk.csv"
	same "--select $bk synthetic_benchmarks.csv (Table 3)" --select "$bk" \
		data/synthetic_benchmarks.csv -- "$t/$bk.csv"
done < <(strip data/synthetic_benchmarks.csv)

# Table 5: each device's tasks, each time the middle of its range
while read -r dev; do
	{ echo "name,htd_ms,k_ms,dth_ms"
	  strip data/real_task_ranges.csv | awk -F, -v d="$dev" '$1 == d {
		printf "%s,%.10g,%.10g,%.10g\n", $2, ($4 + $5) / 2, ($6 + $7) / 2, ($8 + $9) / 2 }'
	} >"$t/dev.csv"
	same "--select '$dev' real_task_ranges.csv (Table 5)" --select "$dev" \
		data/real_task_ranges.csv -- "$t/dev.csv"
done < <(strip data/real_task_ranges.csv | cut -d, -f1 | sort -u)

# fails FILE:LINE-PREFIX ARGS...: exit 2, stderr starts with the prefix
fails() {
	local want=$1 out rc
	shift
	out=$($tqsim perms "$@" 2>&1 >/dev/null)
	rc=$?
	ok $([ $rc -eq 2 ] && [[ $out == "$want"* ]]; echo $?) \
		"perms $*: exit 2, '$want' (got $rc '${out%%$'\n'*}')"
}
fails "data/paper_results.csv:2: the paper's headline figures, not tasks" data/paper_results.csv
fails "data/synthetic_benchmarks.csv:2: which benchmark? --select NAME" data/synthetic_benchmarks.csv
fails "data/real_task_ranges.csv:4: which device? --select NAME" data/real_task_ranges.csv
fails "data/synthetic_benchmarks.csv:2: no benchmark 'BK99'" --select BK99 data/synthetic_benchmarks.csv
fails "data/real_task_ranges.csv:4: no device 'GPU'" --select GPU data/real_task_ranges.csv
fails "data/synthetic_tasks.csv:3: --select picks a row of" --select T0 data/synthetic_tasks.csv
mkdir -p "$t/d"
cp data/synthetic_benchmarks.csv "$t/d/"
fails "$t/d/synthetic_tasks.csv:0: cannot read" --select BK0 "$t/d/synthetic_benchmarks.csv"
printf 'benchmark,tasks\nBK0,T0 T9\n' >"$t/d/synthetic_benchmarks.csv"
cp data/synthetic_tasks.csv "$t/d/"
fails "$t/d/synthetic_benchmarks.csv:2: tasks: 'T9' is not a task of synthetic_tasks.csv" \
	--select BK0 "$t/d/synthetic_benchmarks.csv"
printf 'name,htd,k,dth,class\nT0,0.1,x,0.1,DK\n' >"$t/d/bad2.csv"
fails "$t/d/bad2.csv:2: k: 'x' is not a number >= 0" "$t/d/bad2.csv"
printf 'name,htd,k,dth,class\nT0,0.1,0.8,0.1,XX\n' >"$t/d/bad2.csv"
fails "$t/d/bad2.csv:2: class: not DK or DT" "$t/d/bad2.csv"

# --help: the format, and only options the commands take
help=$($tqsim --help)
ok $([[ $help == *"name,htd_ms,k_ms,dth_ms"* ]] && [[ $help == *synthetic_benchmarks.csv* ]]; echo $?) \
	"--help gives the task file's format and the tables"
eval_opts=$(sed -n 's/^.*tqsim eval \(.*\)$/\1/p' <<<"$help" | grep -o -- '--[a-z-]*')
bad=
for o in $eval_opts; do
	case $o in
	--data) arg=data ;; --seeds) arg=1 ;; *) arg=$t/x ;;
	esac
	# an option eval rejects prints its usage before any work; --data with a
	# missing directory stops at loading, after the options
	out=$($tqsim eval "$o" "$arg" --data "$t/none" 2>&1)
	[[ $out == *usage:* ]] && bad+=" $o"
done
ok $([ -n "$eval_opts" ] && [ -z "$bad" ]; echo $?) \
	"eval takes every option --help lists ($(echo $eval_opts))${bad:+; rejects:$bad}"
tap_done
