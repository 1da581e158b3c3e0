tq-profile 1
# tqcalib, 2026-12-01 11:28:22 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 4379 55.2005
htd overlapped 4379 50.9258
dth alone 1403 55.0942
dth overlapped 1403 50.7396
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 16000
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000306802 40322
kernel black_scholes 0.00659107 20658
kernel fwt 0.0046735 19007
kernel floyd_warshall 0.348673 0
kernel sep_conv 0.0173851 23033
kernel vec_add 0.00358757 4515
kernel transpose 0.00356623 23353
kernel dct8x8 0.00734186 25963
kernel synthetic_kernel 6.0092e-05 23815
