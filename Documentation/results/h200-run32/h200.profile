tq-profile 1
# tqcalib, 2026-12-02 03:08:48 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2596 55.1502
htd overlapped 2596 48.1307
dth alone 1430 55.2921
dth overlapped 1430 51.2034
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13056
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 15591
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.00030684 42559
kernel black_scholes 0.00689301 19099
kernel fwt 0.0046876 19371
kernel floyd_warshall 0.349507 0
kernel sep_conv 0.0173478 25895
kernel vec_add 0.00343852 22234
kernel transpose 0.00378889 6460
kernel dct8x8 0.00779243 16622
kernel synthetic_kernel 5.98773e-05 20340
