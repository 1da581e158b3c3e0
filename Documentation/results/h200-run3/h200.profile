tq-profile 1
# tqcalib, 2026-12-01 01:48:53 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2556 55.4890
htd overlapped 2444 52.3193
dth alone 1430 55.3373
dth overlapped 4424 50.7507
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307406 31955
kernel black_scholes 0.00723378 8793
kernel fwt 0.00466454 23843
kernel floyd_warshall 0.349574 0
kernel sep_conv 0.0174029 21050
kernel vec_add 0.00349872 7811
kernel transpose 0.00375563 20083
kernel dct8x8 0.00753736 9067
kernel synthetic_kernel 6.00422e-05 8952
