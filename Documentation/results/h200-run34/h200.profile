tq-profile 1
# tqcalib, 2026-12-02 03:31:56 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2672 55.1849
htd overlapped 2672 50.9940
dth alone 1427 55.3134
dth overlapped 1427 50.8120
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12544
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 16403
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306664 41937
kernel black_scholes 0.00701845 13205
kernel fwt 0.00456106 31070
kernel floyd_warshall 0.349182 0
kernel sep_conv 0.0172378 30436
kernel vec_add 0.00334676 14971
kernel transpose 0.00375352 16985
kernel dct8x8 0.0074586 24382
kernel synthetic_kernel 6.0036e-05 19384
