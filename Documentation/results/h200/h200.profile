tq-profile 1
# tqcalib, 2026-12-01 02:22:24 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2653 55.4675
htd overlapped 2263 51.9492
dth alone 1423 55.2792
dth overlapped 3933 50.7138
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 8192
latency queue 17152
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306924 41103
kernel black_scholes 0.0068448 13084
kernel fwt 0.00464971 19802
kernel floyd_warshall 0.349705 0
kernel sep_conv 0.0173829 19778
kernel vec_add 0.00335301 21640
kernel transpose 0.00399442 9242
kernel dct8x8 0.00778972 14881
kernel synthetic_kernel 6.00381e-05 21054
