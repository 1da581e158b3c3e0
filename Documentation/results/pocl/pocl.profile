tq-profile 1
# tqcalib, 2026-12-02 04:11:34 UTC; platform Portable Computing Language; transfers 4096 B .. 536870912 B, median of 7
device pthread-skylake-avx512-AMD EPYC
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 0 30.5637
htd overlapped 0 22.8969
dth alone 0 34.3500
dth overlapped 0 30.4718
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 819
latency queue 3268
# the host's launch of one command of a TG, ns
latency submit 2166
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as kernels/ defines it)
kernel mm 0.548277 352638
kernel black_scholes 24.0279 2027
kernel fwt 4.41621 0
kernel floyd_warshall 1.79558 0
kernel sep_conv 12.4245 189881
kernel vec_add 0.354642 0
kernel transpose 2.61963 68811
kernel dct8x8 7.34865 0
kernel synthetic_kernel 0.0639805 0
