tq-profile 1
# tqcalib, 2026-12-01 05:53:06 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2679 55.4396
htd overlapped 2679 50.4676
dth alone 1424 55.2846
dth overlapped 1424 50.9308
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13056
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306701 42101
kernel black_scholes 0.00701333 13125
kernel fwt 0.00458985 26205
kernel floyd_warshall 0.349445 0
kernel sep_conv 0.0172944 21258
kernel vec_add 0.00358007 5408
kernel transpose 0.00381173 16531
kernel dct8x8 0.0078635 4919
kernel synthetic_kernel 6.00114e-05 22361
