tq-profile 1
# tqcalib, 2026-12-02 00:02:36 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2974 55.5142
htd overlapped 2974 45.3057
dth alone 1389 55.2435
dth overlapped 1389 50.8663
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11904
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 19128
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306688 47724
kernel black_scholes 0.00737437 10690
kernel fwt 0.00452668 33535
kernel floyd_warshall 0.351664 0
kernel sep_conv 0.0173042 27039
kernel vec_add 0.00345795 19413
kernel transpose 0.00382312 19901
kernel dct8x8 0.00749409 26149
kernel synthetic_kernel 5.99852e-05 28371
