tq-profile 1
# tqcalib, 2026-12-02 05:52:08 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2586 55.4461
htd overlapped 2586 51.8506
dth alone 1394 55.2813
dth overlapped 1394 50.6448
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12160
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 14010
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307528 32365
kernel black_scholes 0.00687341 14312
kernel fwt 0.00461623 22003
kernel floyd_warshall 0.349246 0
kernel sep_conv 0.0173672 17767
kernel vec_add 0.00342297 18030
kernel transpose 0.00389204 6822
kernel dct8x8 0.0076048 17836
kernel synthetic_kernel 6.00384e-05 22411
