tq-profile 1
# tqcalib, 2026-12-01 00:13:10 UTC; platform Portable Computing Language; transfers 4096 B .. 536870912 B, median of 7
device pthread-skylake-avx512-AMD EPYC
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 0 38.1951
htd overlapped 0 35.8066
dth alone 0 57.4212
dth overlapped 0 37.0328
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.865976 0
kernel black_scholes 51.2334 0
kernel fwt 8.24667 109268
kernel floyd_warshall 1.84421 0
kernel sep_conv 27.5463 0
kernel vec_add 0.32389 0
kernel transpose 3.3206 0
kernel dct8x8 12.8461 0
kernel synthetic_kernel 0.0786035 0
