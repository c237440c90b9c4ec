cmdline=bench/run\ --out\ /tmp/run-z4\ --no-docs
started=2026-12-04\ 06:13\ UTC
load_start=0.11\ 0.47\ 0.95
load_end=1.09\ 0.97\ 1.01
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v1147\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
