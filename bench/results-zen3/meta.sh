cmdline=bench/run\ --out\ /tmp/benchz3\ --no-docs
started=2026-11-28\ 21:12\ UTC
load_start=1.68\ 1.71\ 1.27
load_end=1.00\ 1.03\ 1.09
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx2
uname_line=Linux\ 6.18.44-fc-v657\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
