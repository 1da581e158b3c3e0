tq-profile 1
# tqcalib, 2026-12-06 02:50:01 UTC; platform NVIDIA CUDA; transfers 4096 B .. 536870912 B, median of 7
device NVIDIA H100 80GB HBM3
dma 2
# direction alone|overlapped latency_ns GB/s
htd alone 2820 54.0831
htd overlapped 2820 49.8662
dth alone 1535 54.9400
dth overlapped 1535 50.5045
# command latencies, ns: a waited-on event's end to the waiting command's start;
# the previous command's end to the next one's on its queue
latency dependency 12160
latency queue 1280
# the host's launch of one command of a TG, ns
latency submit 17831
# kernel function eta_ns gamma_ns (T = eta * m + gamma, m as lib/kernels/ defines it)
kernel mm 0.000306629 44007
kernel black_scholes 0.00716218 25434
kernel fwt 0.00464111 26490
kernel floyd_warshall 0.35149 0
kernel sep_conv 0.0172747 28831
kernel vec_add 0.00440021 17170
kernel transpose 0.00446339 4246
kernel dct8x8 0.00767093 25570
kernel synthetic_kernel 6.00504e-05 19375
# kernel function m:width ... (the share of the device it fills, from two runs at once;
# 0.5: at most half)
width mm 4096:1.000 110592:1.000 512000:1.000 4.096e+06:1.000 1.67772e+07:1.000 1.22024e+08:0.833 4.8189e+08:0.906 3.85512e+09:0.984 1.5253e+10:0.995 1.22024e+11:0.998
width black_scholes 256:1.000 512:1.000 2048:1.000 8192:1.000 32768:1.000 131072:1.000 524288:1.000 2.09715e+06:0.840 8.38861e+06:0.828 3.35544e+07:0.951
width fwt 1024:1.000 2048:1.000 8192:1.000 32768:1.000 131072:1.000 524288:1.000 2.09715e+06:0.903 8.38861e+06:0.849 3.35544e+07:0.914 1.34218e+08:0.965
width floyd_warshall 8:1.000 64:1.000 343:1.000 1728:1.000 5832:1.000 39304:0.749 274625:0.602 1.06121e+06:0.538 8.24241e+06:0.506 6.54508e+07:0.515
width sep_conv 256:1.000 1024:1.000 4096:1.000 16384:1.000 65536:1.000 278784:1.000 1.11514e+06:0.732 4.46054e+06:0.856 1.78422e+07:0.960 7.13687e+07:0.988
width vec_add 256:1.000 1024:1.000 4096:1.000 16384:1.000 65536:1.000 262144:1.000 1.04858e+06:1.000 4.1943e+06:0.758 1.67772e+07:0.922 6.71089e+07:0.959
width transpose 256:1.000 1024:1.000 4096:1.000 16384:1.000 65536:1.000 278784:1.000 1.11514e+06:1.000 4.46054e+06:0.710 1.78422e+07:0.997 7.13687e+07:0.955
width dct8x8 256:1.000 1024:1.000 4096:1.000 16384:1.000 65536:1.000 278784:1.000 1.11514e+06:0.943 4.46054e+06:0.876 1.78422e+07:0.925 7.13687e+07:0.979
width synthetic_kernel 1.08134e+06:1.000 4.32538e+06:1.000 1.73015e+07:1.000 6.9206e+07:1.000 2.76824e+08:0.821 1.1073e+09:0.925 4.42919e+09:0.962 1.77167e+10:0.991 7.0867e+10:0.995 5.66936e+11:0.998
