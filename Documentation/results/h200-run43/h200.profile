tq-profile 1
# tqcalib, 2026-12-02 12:44:18 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2616 55.5047
htd overlapped 2616 52.1509
dth alone 1425 55.2713
dth overlapped 1425 50.6294
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12928
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 14563
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306481 39380
kernel black_scholes 0.00704685 15536
kernel fwt 0.00459174 31367
kernel floyd_warshall 0.350869 0
kernel sep_conv 0.0171572 29472
kernel vec_add 0.00331191 27049
kernel transpose 0.00387553 14691
kernel dct8x8 0.00748713 27545
kernel synthetic_kernel 6.00115e-05 23365
