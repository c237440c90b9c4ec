cmdline=bench/run\ --out\ /tmp/benchrun4\ --no-docs
started=2026-11-27\ 17:36\ UTC
load_start=0.46\ 1.11\ 1.39
load_end=1.04\ 1.04\ 1.18
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v782\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
