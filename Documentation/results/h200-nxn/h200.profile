tq-profile 1
# tqcalib, 2026-12-01 02:55:52 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2711 55.4236
htd overlapped 1366 50.1454
dth alone 1394 55.2858
dth overlapped 4321 51.0027
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13952
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306769 44630
kernel black_scholes 0.00678981 7190
kernel fwt 0.00474483 10640
kernel floyd_warshall 0.350194 0
kernel sep_conv 0.0173113 27816
kernel vec_add 0.00327805 21874
kernel transpose 0.00385744 11793
kernel dct8x8 0.00754659 17718
kernel synthetic_kernel 6.00058e-05 18910
