tq-profile 1
# tqcalib, 2026-12-01 08:07:18 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2850 54.9850
htd overlapped 2850 45.6070
dth alone 1418 55.2141
dth overlapped 1418 51.6020
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12160
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306881 45084
kernel black_scholes 0.00688564 16477
kernel fwt 0.00460541 27354
kernel floyd_warshall 0.348779 0
kernel sep_conv 0.0172107 14407
kernel vec_add 0.00343721 14247
kernel transpose 0.00363698 23593
kernel dct8x8 0.00783749 15078
kernel synthetic_kernel 5.99899e-05 22054
