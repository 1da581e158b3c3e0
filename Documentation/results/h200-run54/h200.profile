tq-profile 1
# tqcalib, 2026-12-02 16:41:56 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H200
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2741 54.1244
htd overlapped 2741 43.4866
dth alone 1382 55.1785
dth overlapped 1382 51.6707
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 13952
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 13063
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.000307009 37064
kernel black_scholes 0.00732259 14157
kernel fwt 0.00462585 28303
kernel floyd_warshall 0.349867 0
kernel sep_conv 0.0170731 36180
kernel vec_add 0.00350191 15111
kernel transpose 0.00399096 10964
kernel dct8x8 0.007693 21890
kernel synthetic_kernel 6.00603e-05 19121
