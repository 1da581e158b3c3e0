tq-profile 1
# tqcalib, 2026-12-02 00:57:58 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2751 55.3937
htd overlapped 2751 49.4860
dth alone 1391 55.2592
dth overlapped 1391 51.2403
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 10752
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 17458
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306807 47501
kernel black_scholes 0.00704782 18753
kernel fwt 0.00463272 25227
kernel floyd_warshall 0.351518 0
kernel sep_conv 0.0171912 27314
kernel vec_add 0.00365162 15783
kernel transpose 0.00405025 12698
kernel dct8x8 0.00761646 26968
kernel synthetic_kernel 6.00534e-05 23229
