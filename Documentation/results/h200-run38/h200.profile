tq-profile 1
# tqcalib, 2026-12-02 07:25:38 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 3004 54.2927
htd overlapped 3004 38.6449
dth alone 1389 54.9856
dth overlapped 1389 51.0788
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13952
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 19807
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306468 52426
kernel black_scholes 0.00691168 26016
kernel fwt 0.00464206 28250
kernel floyd_warshall 0.352051 0
kernel sep_conv 0.0173657 25461
kernel vec_add 0.00354444 22518
kernel transpose 0.00397163 9707
kernel dct8x8 0.00771802 17923
kernel synthetic_kernel 6.0004e-05 21363
