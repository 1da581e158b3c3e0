tq-profile 1
# tqcalib, 2026-12-02 01:47:52 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2619 55.2381
htd overlapped 2619 50.4528
dth alone 1423 55.2798
dth overlapped 1423 50.7732
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13440
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 12910
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307006 40649
kernel black_scholes 0.00688432 6345
kernel fwt 0.00462245 12146
kernel floyd_warshall 0.343999 0
kernel sep_conv 0.0172577 25240
kernel vec_add 0.0035013 18757
kernel transpose 0.00396522 9544
kernel dct8x8 0.0075113 25175
kernel synthetic_kernel 6.00052e-05 23800
