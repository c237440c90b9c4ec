cmdline=bench/run
started=2026-11-22\ 06:45\ UTC
load_start=0.54\ 1.01\ 0.89
load_end=1.00\ 1.00\ 0.94
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v595\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
