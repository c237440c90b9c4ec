cmdline=bench/run\ --out\ /tmp/benchrun6\ --no-docs
started=2026-11-27\ 18:59\ UTC
load_start=0.77\ 1.26\ 1.39
load_end=1.06\ 1.05\ 1.17
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v782\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
