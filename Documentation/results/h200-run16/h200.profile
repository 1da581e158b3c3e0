tq-profile 1
# tqcalib, 2026-12-01 06:05:48 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2745 55.4355
htd overlapped 2745 48.6697
dth alone 1427 55.3107
dth overlapped 1427 51.1511
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11264
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306708 48262
kernel black_scholes 0.00646367 29588
kernel fwt 0.00452809 36823
kernel floyd_warshall 0.351271 0
kernel sep_conv 0.0172837 15019
kernel vec_add 0.00335894 10846
kernel transpose 0.00370894 13987
kernel dct8x8 0.00760301 20240
kernel synthetic_kernel 6.00279e-05 24082
