tq-profile 1
# tqcalib, 2026-12-02 07:51:51 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2911 53.5875
htd overlapped 2911 44.7742
dth alone 1313 54.5851
dth overlapped 1313 52.3492
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 11776
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 19744
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306223 50458
kernel black_scholes 0.00680506 20783
kernel fwt 0.00469315 12745
kernel floyd_warshall 0.351895 0
kernel sep_conv 0.0173652 25359
kernel vec_add 0.0036457 12883
kernel transpose 0.00412875 2825
kernel dct8x8 0.00756739 24138
kernel synthetic_kernel 5.99492e-05 28603
