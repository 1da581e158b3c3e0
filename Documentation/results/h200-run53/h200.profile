tq-profile 1
# tqcalib, 2026-12-02 16:34:40 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 3189 52.9980
htd overlapped 3189 42.2752
dth alone 1307 54.5011
dth overlapped 1307 51.3999
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 14848
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 13481
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307004 40635
kernel black_scholes 0.00683497 16748
kernel fwt 0.00465725 23933
kernel floyd_warshall 0.35026 0
kernel sep_conv 0.0172414 27888
kernel vec_add 0.00352381 19928
kernel transpose 0.00395534 12871
kernel dct8x8 0.00748171 30172
kernel synthetic_kernel 6.00096e-05 20824
