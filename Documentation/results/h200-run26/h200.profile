tq-profile 1
# tqcalib, 2026-12-01 23:54:31 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2660 54.8983
htd overlapped 2660 45.1411
dth alone 1386 55.2106
dth overlapped 1386 51.1827
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11136
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 17018
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.00030654 44147
kernel black_scholes 0.00723306 12749
kernel fwt 0.00462476 27188
kernel floyd_warshall 0.352577 0
kernel sep_conv 0.0172241 28934
kernel vec_add 0.00335158 27193
kernel transpose 0.00377385 24753
kernel dct8x8 0.00758735 27949
kernel synthetic_kernel 6.00211e-05 21773
