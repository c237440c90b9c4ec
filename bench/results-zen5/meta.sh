cmdline=bench/run\ --out\ /tmp/run-z5-31\ --no-docs
started=2026-12-05\ 23:52\ UTC
load_start=1.19\ 1.71\ 1.94
load_end=1.28\ 1.13\ 1.39
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v1272\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
