tq-profile 1
# tqcalib, 2026-12-01 09:13:48 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2647 55.3925
htd overlapped 2647 49.9798
dth alone 1417 55.2266
dth overlapped 1417 50.8417
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11776
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306776 46789
kernel black_scholes 0.00703943 17616
kernel fwt 0.00454889 22033
kernel floyd_warshall 0.350053 0
kernel sep_conv 0.0173412 24709
kernel vec_add 0.00349805 13199
kernel transpose 0.0039127 16256
kernel dct8x8 0.00805714 3725
kernel synthetic_kernel 6.00189e-05 26123
