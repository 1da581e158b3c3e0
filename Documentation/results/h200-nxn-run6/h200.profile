tq-profile 1
# tqcalib, 2026-12-01 02:31:24 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2622 55.4463
htd overlapped 2571 51.5949
dth alone 1397 55.3107
dth overlapped 4217 50.8064
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 9984
latency queue 16000
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306843 40807
kernel black_scholes 0.00701193 14835
kernel fwt 0.00460377 22231
kernel floyd_warshall 0.349266 0
kernel sep_conv 0.0175977 7033
kernel vec_add 0.0034187 18306
kernel transpose 0.00383087 16670
kernel dct8x8 0.00773191 16630
kernel synthetic_kernel 6.00527e-05 20614
