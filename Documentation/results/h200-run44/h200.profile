tq-profile 1
# tqcalib, 2026-12-02 12:54:46 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 3045 52.3713
htd overlapped 3045 48.4085
dth alone 1363 54.7157
dth overlapped 1363 50.4318
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13568
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 13510
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306607 40429
kernel black_scholes 0.00672556 20416
kernel fwt 0.00462673 22171
kernel floyd_warshall 0.349061 0
kernel sep_conv 0.0173733 19154
kernel vec_add 0.00351048 12627
kernel transpose 0.00373093 19237
kernel dct8x8 0.00719864 29987
kernel synthetic_kernel 6.00043e-05 26589
