tq-profile 1
# tqcalib, 2026-12-01 00:55:20 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2746 55.3948
htd overlapped 2069 51.5088
dth alone 1430 55.3177
dth overlapped 4189 50.7510
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306003 48118
kernel black_scholes 0.00720014 10903
kernel fwt 0.00451326 26745
kernel floyd_warshall 0.349258 0
kernel sep_conv 0.0172881 23471
kernel vec_add 0.00342748 20978
kernel transpose 0.0038091 15814
kernel dct8x8 0.00766225 20927
kernel synthetic_kernel 6.00129e-05 19574
