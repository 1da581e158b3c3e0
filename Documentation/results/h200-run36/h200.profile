tq-profile 1
# tqcalib, 2026-12-02 05:24:45 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2687 54.7784
htd overlapped 2687 49.7970
dth alone 1416 55.1881
dth overlapped 1416 50.8996
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11264
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 16299
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306487 44636
kernel black_scholes 0.00763486 4434
kernel fwt 0.00461217 28593
kernel floyd_warshall 0.353058 0
kernel sep_conv 0.0173979 23864
kernel vec_add 0.00340938 26686
kernel transpose 0.00352591 25805
kernel dct8x8 0.00750858 26257
kernel synthetic_kernel 6.00088e-05 24050
