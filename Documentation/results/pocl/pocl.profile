tq-profile 1
# tqcalib, 2026-12-01 03:01:08 UTC; platform Portable Computing Language; transfers 4096 B .. 536870912 B, median of 7
device pthread-skylake-avx512-AMD EPYC
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 0 35.3789
htd overlapped 0 30.1186
dth alone 0 40.1778
dth overlapped 0 31.6688
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 2210
latency queue 7172
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.50518 215013
kernel black_scholes 25.476 242884
kernel fwt 3.63268 0
kernel floyd_warshall 1.76522 2465
kernel sep_conv 14.2816 0
kernel vec_add 0.181941 20749
kernel transpose 2.29822 40909
kernel dct8x8 5.79898 222090
kernel synthetic_kernel 0.0465148 0
