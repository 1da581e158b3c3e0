tq-profile 1
# tqcalib, 2026-12-01 05:43:39 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2635 54.7954
htd overlapped 2635 50.9076
dth alone 1391 55.2849
dth overlapped 1391 50.6518
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12288
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.00030667 41956
kernel black_scholes 0.0069359 16278
kernel fwt 0.00467285 25281
kernel floyd_warshall 0.350664 0
kernel sep_conv 0.0173295 27331
kernel vec_add 0.00347328 20433
kernel transpose 0.0040392 6859
kernel dct8x8 0.0075943 25600
kernel synthetic_kernel 6.00546e-05 30270
