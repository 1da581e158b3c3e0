tq-profile 1
# tqcalib, 2026-12-01 08:18:25 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2733 55.1683
htd overlapped 2733 50.2738
dth alone 1391 55.2609
dth overlapped 1391 51.1991
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11008
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306066 46703
kernel black_scholes 0.00720242 16639
kernel fwt 0.00462089 27996
kernel floyd_warshall 0.353829 0
kernel sep_conv 0.017391 27178
kernel vec_add 0.00353764 21557
kernel transpose 0.00387865 18693
kernel dct8x8 0.00760603 27575
kernel synthetic_kernel 5.99567e-05 27937
