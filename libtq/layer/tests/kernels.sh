#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libtq/layer/tests/kernels.sh - programs that create a kernel object for
# every launch, under libtqcl.so against a usched of the suite's own: every
# launch must be captured, and the layer must register one tq kernel per
# program and kernel name, not one per cl_kernel (usched's context-kernels
# quota, 256, would stop capture after as many launches otherwise, and
# user-kernels, 1024, would refuse the user's other clients):
#
#   pyopencl's prg.name(queue, ...) idiom, 3000 launches: the same output
#     directly and under the layer, all captured, one tq kernel
#   clcopyk -k (clCreateKernel, clSetKernelArg, enqueue, clReleaseKernel),
#     2000 launches: right results, all captured, one tq kernel
#   four clcopyk -k at once, 400 launches each: likewise each
cd "$(dirname "$0")/../../.." || exit 1
. libtq/layer/tests/env.sh
[ -x "$BIN/clcopyk" ] || skip_all "$BIN/clcopyk is not built"
tqcl_begin tqcl-kernels

export PYOPENCL_CTX=0 PYOPENCL_NO_CACHE=1 XDG_CACHE_HOME=$T/cache
st() { tqcl_stat "$1" "$2"; }

# all_captured NAME STATS N: N launches, each a tq task, one tq kernel
all_captured() {
	local name=$1 s=$2 want=$3
	[ "$(st "$s" cap_kernel)" = "$want" ] && [ "$(st "$s" pass_kernel)" = 0 ]
	ok $? "$name: all $want launches captured ($(st "$s" cap_kernel), $(st "$s" pass_kernel) passed through)"
	[ "$(st "$s" tasks_ok)" = "$want" ] && [ "$(st "$s" tasks_failed)" = 0 ]
	ok $? "$name: every one completed by tq ($(st "$s" tasks_ok) ok, $(st "$s" tasks_failed) failed)"
	[ "$(st "$s" kerns)" = "$(grep -c . "$s")" ]
	ok $? "$name: one tq kernel per process ($(st "$s" kerns) in $(grep -c . "$s"))"
	echo "$name: $(cat "$s")" | diag
}

if /usr/bin/python3 -c 'import pyopencl, numpy' 2>/dev/null; then
	cat >"$T/kloop.py" <<'PY'
# A new pyopencl Kernel (cl_kernel) at every prg.scramble(...) call.
import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, """
__kernel void scramble(__global const uint *a, __global uint *b, uint k)
{
	size_t i = get_global_id(0);
	b[i] = a[i] * 2654435761u + k;
}
""").build()
n = 1024
mf = cl.mem_flags
a = np.arange(n, dtype=np.uint32)
a_buf = cl.Buffer(ctx, mf.READ_ONLY, a.nbytes)
b_buf = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
b = np.empty_like(a)
total = 0
for k in range(3000):
    a[0] = k
    cl.enqueue_copy(q, a_buf, a)
    prg.scramble(q, a.shape, None, a_buf, b_buf, np.uint32(k))
    cl.enqueue_copy(q, b, b_buf)
    want = a * np.uint32(2654435761) + np.uint32(k)
    if not (b == want).all():
        raise SystemExit("launch %d: wrong result" % k)
    total = (total + int(b.sum(dtype=np.uint64))) % (1 << 64)
print("3000 launches, checksum %d" % total)
PY
	tqcl_direct "$T/direct" /usr/bin/python3 "$T/kloop.py"
	rc1=$?
	tqcl_run "$T/layer" "$T/stats" /usr/bin/python3 "$T/kloop.py"
	rc2=$?
	[ $rc1 = 0 ] && [ $rc2 = 0 ]
	ok $? "pyopencl prg.name loop: exit status $rc1 directly, $rc2 under the layer"
	[ $rc2 = 0 ] || tail -5 "$T/layer" | diag
	grep -v 'warnings\? generated' "$T/direct" >"$T/direct.f"
	grep -v 'warnings\? generated' "$T/layer" | grep -v '^tqcl: ' >"$T/layer.f"
	diff "$T/direct.f" "$T/layer.f" | head -10 | diag
	cmp -s "$T/direct.f" "$T/layer.f"
	ok $? "pyopencl prg.name loop: the same output"
	all_captured "pyopencl prg.name loop" "$T/stats" 3000
else
	for i in 1 2 3 4 5; do
		skip "pyopencl prg.name loop" "python3-pyopencl (and numpy) is not installed"
	done
fi

tqcl_run "$T/layer" "$T/stats" "$BIN/clcopyk" -k -n 2000 -W 0 -s 4096 -w 2 -q
rc=$?
ok $rc "clcopyk -k: 2000 launches of a new cl_kernel each, results right"
[ $rc = 0 ] || tail -5 "$T/layer" | diag
all_captured "clcopyk -k" "$T/stats" 2000

: >"$T/stats4"
pids=
for i in 1 2 3 4; do
	OPENCL_LAYERS=$TQCL_SO TQCL_STATS=$T/stats4 "$BIN/clcopyk" -k -n 400 -W 0 -s 4096 -w 2 -q \
		>"$T/layer$i" 2>&1 &
	pids="$pids $!"
done
: >"$T/stats4.rc"
for p in $pids; do
	wait "$p" || echo "$p" >>"$T/stats4.rc"
done
[ ! -s "$T/stats4.rc" ]
ok $? "4 x clcopyk -k at once: results right"
all_captured "4 x clcopyk -k at once" "$T/stats4" 1600
tap_done
