cmdline=bench/run\ --out\ /tmp/bench14\ --no-docs
started=2026-12-02\ 03:58\ UTC
load_start=1.74\ 1.61\ 1.26
load_end=1.09\ 1.07\ 1.12
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v1045\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
