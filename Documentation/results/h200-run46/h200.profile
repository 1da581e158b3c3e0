tq-profile 1
# tqcalib, 2026-12-02 13:48:04 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2737 55.4146
htd overlapped 2737 49.8257
dth alone 1381 55.1553
dth overlapped 1381 51.1868
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13056
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 13984
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307053 44671
kernel black_scholes 0.0075328 4966
kernel fwt 0.00454797 32519
kernel floyd_warshall 0.350067 0
kernel sep_conv 0.0172932 23838
kernel vec_add 0.00353862 14377
kernel transpose 0.00410312 4874
kernel dct8x8 0.0075578 20460
kernel synthetic_kernel 5.99974e-05 21670
