tq-profile 1
# tqcalib, 2026-12-02 01:09:21 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2785 54.0373
htd overlapped 2785 48.3290
dth alone 1323 54.2162
dth overlapped 1323 49.9901
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13952
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 16967
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306309 48509
kernel black_scholes 0.00691935 16846
kernel fwt 0.00473623 18441
kernel floyd_warshall 0.353215 0
kernel sep_conv 0.017251 30325
kernel vec_add 0.00336818 25481
kernel transpose 0.0037576 21609
kernel dct8x8 0.00777024 13721
kernel synthetic_kernel 6.01202e-05 25565
