#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/gpu-run.sh - the GPU run: calibrate the device, then tqbench's full
# set (synthetic BK0-BK100, real-task mixes, the stream, independent
# contexts), everything into "$OUT". Run from the repository root, with
# ./gpu made by scripts/gpu-bundle (here) and carried there:
#
#   OUT=/some/dir scripts/gpu-run.sh [--quick] [--openloop|--qos] [--profile FILE|auto] [-- TQBENCH-ARGS...]
#   OUT=/some/dir scripts/gpu-run.sh --restart [-- RESTART-TIME-ARGS...]
#   OUT=/some/dir scripts/gpu-run.sh --pairs [--quick]
#   OUT=/some/dir scripts/gpu-run.sh --layer [-- TQCL-BENCH-ARGS...]
#   OUT=/some/dir scripts/gpu-run.sh --trace [-- TRACE-RUN-ARGS...]
#
# --pairs measures what kernels do to each other side by side (issue 44):
# tqcalib with --pairs (the whole calibration, then every pair of the
# kernels at three sizes on two kernel queues), then tqcalib --fit on the
# committed split (tools/tqcalib/pairs-split.txt). No tqbench. Beside
# results.tar.gz: pairs.csv, fit.txt (the rules' errors on the fit and the
# held-out pairs), fit.csv (each pair predicted), profile and
# profile-fitted (the profile with the fitted rule's line). A few minutes.
#
# --restart measures usched's start to ready instead, cold and warm, and
# where it goes (scripts/restart-time.sh; arguments after -- are its own:
# -n N, --mix LIST): a minute or two.
#
# --layer measures unmodified programs through the OpenCL layer against the
# driver alone instead (libtq/layer/tqcl-bench --load: the capacity, then
# one clcopyk at 30% of it and eight at 120%, 1000 tasks a point, 4 MiB
# buffers; arguments after -- replace those): about a minute.
#
# --trace traces eight clients streaming real tasks through usched
# (scripts/trace-run.sh; arguments after -- are its own): trace.json, the
# per-client table clients.md and the pictures tg.svg and stream.svg come
# back beside the tarball. Seconds.
#
# --openloop runs the open-loop experiment instead (tqbench --setups
# openloop: the capacities, then fifo, paper, auto, flow and independent
# contexts at 30-120% load on the phased and BK50 mixes, the
# latency-throughput curves), sized with the calibration to fit one
# 10-minute device command; with --quick a smoke run of a minute or two
# anywhere (Documentation/design/tqbench.md: how long each took).
#
# --qos measures priorities, shares and deadlines through the daemon instead
# (issue 45; tqbench --workers process --setups qos, seeds 1: the capacity,
# then a critical client beside 8 best-effort ones at 120% with and without
# priorities, independent and alone, two users at shares 3:1, deadlines at 90%
# load), with two kernel queues as the open loop's headline; qos.csv and
# summary.md hold the targets, met or not. About 2-3 minutes on an H100 with
# --profile auto; with --quick a smoke run of a minute anywhere. It must run
# as root (the two users are two uids).
#
# --profile skips the calibration and uses FILE (a second run on the same
# machine kind); --profile auto uses the committed profile of the GPU that
# nvidia-smi names (Documentation/results/h200/h200.profile on an H200,
# h100/h100.profile on an H100) and calibrates where there is none, so that
# one command serves whichever machine the device tool lends. Arguments
# after -- replace tqbench's default experiment set (the set is sized to
# fit one 10-minute device command).
#
# On a machine with NVIDIA's OpenCL (/usr/lib/libnvidia-opencl.so.1) it
# registers that ICD itself (../shared/notes/h200.md); elsewhere it uses the
# ICDs installed (PoCL here). What comes back: results.tar.gz (the profile,
# every CSV and SVG, the logs), and beside it summary.md, profile and
# run.log to read at once. The default set is sized to fit one 10-minute
# device command; --quick for a few minutes anywhere.
set -uo pipefail

: "${OUT:?set OUT to the output directory}"
quick=0
openloop=0
qos=0
restart=0
pairs=0
layer=0
trace=0
profile=
bench=()
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--openloop) openloop=1 ;;
	--qos) qos=1 ;;
	--restart) restart=1 ;;
	--pairs) pairs=1 ;;
	--layer) layer=1 ;;
	--trace) trace=1 ;;
	--profile) profile=$2; [ "$2" = auto ] || profile=$(realpath -m "$2"); shift ;;
	--) shift; bench=("$@"); break ;;
	*) echo "gpu-run: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
[ -x gpu/tqbench ] || { echo "gpu-run: no gpu/ here: run scripts/gpu-bundle first" >&2; exit 1; }

if [ "$profile" = auto ]; then
	# the GPU's model as nvidia-smi names it (H200, H100, ...), lower case
	gpu=$(nvidia-smi -L 2>/dev/null | grep -o ' H[0-9]\+' | head -n 1 | tr -d ' ' | tr 'A-Z' 'a-z')
	profile=
	[ -n "$gpu" ] && [ -f "Documentation/results/$gpu/$gpu.profile" ] &&
		profile=$repo/Documentation/results/$gpu/$gpu.profile
fi
[ -z "$profile" ] || [ -f "$profile" ] || { echo "gpu-run: no profile $profile" >&2; exit 2; }

if [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
	mkdir -p icd
	echo /usr/lib/libnvidia-opencl.so.1 >icd/nvidia.icd
	export OCL_ICD_VENDORS=$PWD/icd
fi
export LD_LIBRARY_PATH=$PWD/gpu

mkdir -p "$OUT"
work=$(mktemp -d)
log=$work/run.log
exec > >(tee -a "$log") 2>&1

echo "== gpu-run $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname), quick=$quick, openloop=$openloop, qos=$qos, pairs=$pairs"
echo "== git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
uname -a
command -v nvidia-smi >/dev/null && nvidia-smi -L
nproc

if [ $openloop = 1 ] && [ ${#bench[@]} = 0 ]; then
	bench=(--suites real --setups openloop --time-limit 420)
	[ $quick = 1 ] && bench=(--quick "${bench[@]}")
fi
if [ $qos = 1 ] && [ ${#bench[@]} = 0 ]; then
	bench=(--workers process --suites real --setups qos --seed 1 --kernel-queues 2
	       --qos-tasks 1000 --qos-s 10 --qos-deadline 5,20)
	[ $quick = 1 ] && bench=(--quick --workers process --suites real --setups qos --seed 1)
fi
if [ $quick = 1 ]; then
	calib=(--quick)
	[ ${#bench[@]} = 0 ] && [ $restart = 0 ] && [ $layer = 0 ] && bench=(--quick --time-limit 120)
else
	calib=()
	# the experiments in order of importance; those that would start after
	# the limit are skipped, so the whole run stays within the lease
	# (--restart, --layer: their own defaults)
	[ ${#bench[@]} = 0 ] && [ $restart = 0 ] && [ $layer = 0 ] &&
		bench=(--configs 4x1,6x1,8x1 --runs 3 --time-limit 420)
fi

t0=$SECONDS
if [ $pairs = 1 ]; then
	# the calibration's kernel sweep gives the pairs' sizes and demands: never --profile
	echo "== tqcalib ${calib[*]} --pairs"
	timeout 400 gpu/tqcalib "${calib[@]}" -o "$work/profile" --csv "$work/calib.csv" \
		--pairs "$work/pairs.csv" || { echo "gpu-run: tqcalib --pairs failed"; status=1; }
	echo "== tqcalib --pairs took $((SECONDS - t0)) s"
	if [ -z "${status:-}" ]; then
		echo "== tqcalib --fit"
		gpu/tqcalib --fit "$work/pairs.csv" --split tools/tqcalib/pairs-split.txt \
			-o "$work/rule" --csv "$work/fit.csv" >"$work/fit.txt" || {
			echo "gpu-run: tqcalib --fit failed"; status=1; }
		cat "$work/fit.txt"
		cat "$work/profile" "$work/rule" >"$work/profile-fitted" 2>/dev/null
	fi
elif [ $layer = 1 ]; then
	[ ${#bench[@]} = 0 ] && bench=(--load --tasks 1000 --bytes 4194304 --work 64)
	echo "== tqcl-bench ${bench[*]}"
	timeout 300 libtq/layer/tqcl-bench --bin gpu --lib gpu "${bench[@]}" \
		--keep "$work/tqcl-bench" || status=1
elif [ $trace = 1 ]; then
	echo "== scripts/trace-run.sh ${bench[*]}"
	timeout 300 scripts/trace-run.sh --bin gpu "${bench[@]}" "$work/trace" || status=1
	cp "$work"/trace/{trace.json,clients.md,tg.svg,stream.svg} "$OUT/" 2>/dev/null
elif [ $restart = 1 ]; then
	echo "== usched start to ready: scripts/restart-time.sh ${bench[*]}"
	scripts/restart-time.sh --bin gpu "${bench[@]}" || status=1
elif [ -n "$profile" ]; then
	echo "== profile $profile (no calibration)"
	cp "$profile" "$work/profile" || status=1
else
	echo "== tqcalib ${calib[*]}"
	timeout 180 gpu/tqcalib "${calib[@]}" -o "$work/profile" --csv "$work/calib.csv" || {
		echo "gpu-run: tqcalib failed"; status=1; }
	echo "== tqcalib took $((SECONDS - t0)) s"
fi
cat "$work/profile" 2>/dev/null

if [ -z "${status:-}" ] && [ $restart = 0 ] && [ $pairs = 0 ] && [ $layer = 0 ] && [ $trace = 0 ]; then
	t1=$SECONDS
	echo "== tqbench ${bench[*]}"
	# a hang must not cost the files already written
	timeout "${TQBENCH_TIMEOUT:-500}" gpu/tqbench --profile "$work/profile" --data gpu/data --out "$work/bench" \
		"${bench[@]}" >"$work/table.txt" || { echo "gpu-run: tqbench failed"; status=1; }
	cat "$work/table.txt"
	echo "== tqbench took $((SECONDS - t1)) s"
	echo "== tqsim bench (policy speed on this host)"
	gpu/tqsim bench --data gpu/data >"$work/tqsim-bench.txt" 2>&1
	cat "$work/tqsim-bench.txt"
fi
echo "== gpu-run done in $((SECONDS - t0)) s, status ${status:-0}"

exec >&- 2>&-
wait
tar czf "$OUT/results.tar.gz" -C "$work" .
cp "$log" "$OUT/run.log"
[ -f "$work/profile" ] && cp "$work/profile" "$OUT/profile"
[ -f "$work/bench/summary.md" ] && cp "$work/bench/summary.md" "$OUT/summary.md"
[ -f "$work/bench/qos.csv" ] && cp "$work/bench/qos.csv" "$OUT/qos.csv"
for f in pairs.csv fit.txt fit.csv profile-fitted; do
	[ -f "$work/$f" ] && cp "$work/$f" "$OUT/$f"
done
rm -rf "$work"
exit "${status:-0}"
