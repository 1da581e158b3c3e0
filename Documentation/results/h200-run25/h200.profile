tq-profile 1
# tqcalib, 2026-12-01 23:43:45 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2946 55.3251
htd overlapped 2946 42.1858
dth alone 1386 55.2133
dth overlapped 1386 51.2535
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11264
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 16732
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306461 46524
kernel black_scholes 0.00624568 32069
kernel fwt 0.00458017 21948
kernel floyd_warshall 0.349418 0
kernel sep_conv 0.017289 25766
kernel vec_add 0.00338245 22135
kernel transpose 0.00380564 18430
kernel dct8x8 0.00750091 27554
kernel synthetic_kernel 6.00496e-05 22193
