tq-profile 1
# tqcalib, 2026-12-01 11:15:28 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2663 54.8066
htd overlapped 2663 48.0501
dth alone 1374 55.0968
dth overlapped 1374 51.0390
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13184
latency queue 1280
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307064 45606
kernel black_scholes 0.00701006 20328
kernel fwt 0.00462557 28834
kernel floyd_warshall 0.352748 0
kernel sep_conv 0.0172414 32262
kernel vec_add 0.00346435 22671
kernel transpose 0.00379804 18368
kernel dct8x8 0.00748955 29623
kernel synthetic_kernel 6.00285e-05 24180
