cmdline=bench/run\ --no-build\ --out\ /tmp/benchrun10\ --no-docs
started=2026-11-28\ 02:31\ UTC
load_start=0.75\ 0.78\ 1.10
load_end=1.00\ 1.00\ 1.04
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v782\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
