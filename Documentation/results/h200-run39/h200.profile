tq-profile 1
# tqcalib, 2026-12-02 07:35:18 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2181 49.9185
htd overlapped 2181 38.2943
dth alone 1368 55.0590
dth overlapped 1368 52.6887
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11392
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 18303
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307056 50717
kernel black_scholes 0.00682208 27084
kernel fwt 0.00461502 38375
kernel floyd_warshall 0.354855 0
kernel sep_conv 0.0171936 41692
kernel vec_add 0.00362115 24375
kernel transpose 0.00381022 24762
kernel dct8x8 0.00753164 31850
kernel synthetic_kernel 6.00235e-05 30939
