tq-profile 1
# tqcalib, 2026-12-02 12:37:37 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2907 55.4901
htd overlapped 2907 51.7998
dth alone 1391 55.2545
dth overlapped 1391 50.7616
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13568
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 12652
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307269 36061
kernel black_scholes 0.00672903 17771
kernel fwt 0.00462697 24951
kernel floyd_warshall 0.348361 0
kernel sep_conv 0.0173776 19401
kernel vec_add 0.0033386 22862
kernel transpose 0.00360437 19152
kernel dct8x8 0.0077347 16124
kernel synthetic_kernel 6.00029e-05 19725
