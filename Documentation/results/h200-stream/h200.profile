tq-profile 1
# tqcalib, 2026-12-01 04:16:11 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2644 52.8123
htd overlapped 1948 50.3048
dth alone 1267 54.1054
dth overlapped 6340 51.2965
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13952
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306478 47376
kernel black_scholes 0.00715575 17473
kernel fwt 0.00454367 36164
kernel floyd_warshall 0.350567 0
kernel sep_conv 0.017278 28817
kernel vec_add 0.00348074 18274
kernel transpose 0.00371424 24323
kernel dct8x8 0.0076273 24040
kernel synthetic_kernel 6.00483e-05 25720
