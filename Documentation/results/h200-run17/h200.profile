tq-profile 1
# tqcalib, 2026-12-01 06:13:59 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2936 55.3826
htd overlapped 2936 50.2029
dth alone 1398 55.3174
dth overlapped 1398 51.0785
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13312
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307566 41397
kernel black_scholes 0.00720825 13714
kernel fwt 0.00459463 30957
kernel floyd_warshall 0.351669 0
kernel sep_conv 0.0173092 30311
kernel vec_add 0.00335538 26693
kernel transpose 0.00397194 14132
kernel dct8x8 0.0077185 17946
kernel synthetic_kernel 6.0108e-05 21890
