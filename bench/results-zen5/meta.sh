cmdline=bench/run\ --out\ /tmp/benchrun3\ --no-docs
started=2026-11-27\ 16:53\ UTC
load_start=0.20\ 0.58\ 0.99
load_end=1.02\ 1.00\ 1.00
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v782\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
