cmdline=bench/run\ --out\ /tmp/benchrun7\ --no-docs
started=2026-11-27\ 22:44\ UTC
load_start=2.01\ 1.86\ 1.74
load_end=1.00\ 1.08\ 1.33
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v782\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
