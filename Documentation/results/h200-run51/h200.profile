tq-profile 1
# tqcalib, 2026-12-02 14:13:13 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2704 55.3159
htd overlapped 2704 47.0560
dth alone 1427 55.2707
dth overlapped 1427 51.3670
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12288
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 16774
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307405 43948
kernel black_scholes 0.00707837 19041
kernel fwt 0.004609 32012
kernel floyd_warshall 0.353642 0
kernel sep_conv 0.0169739 38368
kernel vec_add 0.0036331 15345
kernel transpose 0.00391264 17134
kernel dct8x8 0.00766005 22786
kernel synthetic_kernel 5.99622e-05 27396
