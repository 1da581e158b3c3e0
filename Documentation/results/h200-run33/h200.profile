tq-profile 1
# tqcalib, 2026-12-02 03:18:53 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2224 46.3772
htd overlapped 2224 34.8918
dth alone 1330 54.7335
dth overlapped 1330 52.7882
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12928
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 18281
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307217 56742
kernel black_scholes 0.00717015 24652
kernel fwt 0.00477219 21886
kernel floyd_warshall 0.358035 0
kernel sep_conv 0.0173864 35738
kernel vec_add 0.00333757 36642
kernel transpose 0.00380342 27172
kernel dct8x8 0.0075553 34587
kernel synthetic_kernel 5.99583e-05 35410
