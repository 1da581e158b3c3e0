tq-profile 1
# tqcalib, 2026-12-02 05:03:28 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2939 55.4614
htd overlapped 2939 51.2235
dth alone 1394 55.2868
dth overlapped 1394 50.7608
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12032
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 18227
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306854 38927
kernel black_scholes 0.00689994 16638
kernel fwt 0.00463694 25817
kernel floyd_warshall 0.348356 0
kernel sep_conv 0.0171621 25806
kernel vec_add 0.0032918 15575
kernel transpose 0.00357177 25001
kernel dct8x8 0.00743959 22214
kernel synthetic_kernel 5.99983e-05 21130
