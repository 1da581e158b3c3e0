tq-profile 1
# tqcalib, 2026-12-01 11:36:36 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2859 55.4857
htd overlapped 2859 51.7829
dth alone 1419 55.2438
dth overlapped 1419 50.6005
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13184
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307224 44901
kernel black_scholes 0.00717055 17478
kernel fwt 0.00464044 27251
kernel floyd_warshall 0.352204 0
kernel sep_conv 0.017227 31385
kernel vec_add 0.00348174 21785
kernel transpose 0.00390872 21359
kernel dct8x8 0.00764913 24420
kernel synthetic_kernel 6.0147e-05 25356
