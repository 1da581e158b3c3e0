tq-profile 1
# tqcalib, 2026-12-02 17:08:12 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 3001 55.2491
htd overlapped 3001 49.6904
dth alone 1397 55.2888
dth overlapped 1397 51.0016
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11392
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 17380
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307551 50669
kernel black_scholes 0.00717759 18527
kernel fwt 0.00472392 25393
kernel floyd_warshall 0.351944 0
kernel sep_conv 0.0174733 25079
kernel vec_add 0.00360065 18530
kernel transpose 0.00402581 13931
kernel dct8x8 0.00768989 24208
kernel synthetic_kernel 6.01086e-05 27130
