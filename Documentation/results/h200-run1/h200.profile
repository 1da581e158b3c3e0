tq-profile 1
# tqcalib, 2026-12-01 00:05:55 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2556 55.4833
htd overlapped 2034 51.4907
dth alone 1425 55.2993
dth overlapped 4212 50.7940
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307369 41061
kernel black_scholes 0.00755504 5100
kernel fwt 0.00457913 29420
kernel floyd_warshall 0.351526 0
kernel sep_conv 0.0172229 27073
kernel vec_add 0.00345022 19200
kernel transpose 0.00370374 20918
kernel dct8x8 0.0075712 21551
kernel synthetic_kernel 6.00059e-05 21484
