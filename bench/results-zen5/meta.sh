cmdline=bench/run\ --out\ /tmp/run25\ --no-docs
started=2026-12-03\ 07:50\ UTC
load_start=0.56\ 0.14\ 0.05
load_end=1.36\ 1.01\ 0.57
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v1147\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
