tq-profile 1
# tqcalib, 2026-12-01 08:28:06 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2894 55.4052
htd overlapped 2894 50.3799
dth alone 1383 55.1931
dth overlapped 1383 51.0678
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13824
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307172 39956
kernel black_scholes 0.00690913 16312
kernel fwt 0.00458158 31302
kernel floyd_warshall 0.349499 0
kernel sep_conv 0.0171774 27363
kernel vec_add 0.00327728 16858
kernel transpose 0.00380878 12115
kernel dct8x8 0.00752334 24856
kernel synthetic_kernel 6.00519e-05 20400
