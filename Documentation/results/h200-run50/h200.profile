tq-profile 1
# tqcalib, 2026-12-02 13:51:52 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2757 55.3590
htd overlapped 2757 51.8998
dth alone 1393 55.2786
dth overlapped 1393 50.6596
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12928
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 15297
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.00030686 40881
kernel black_scholes 0.00702885 12026
kernel fwt 0.00460591 20463
kernel floyd_warshall 0.348177 0
kernel sep_conv 0.017266 24155
kernel vec_add 0.00333845 23682
kernel transpose 0.00382811 12273
kernel dct8x8 0.00773458 14668
kernel synthetic_kernel 6.00135e-05 16048
