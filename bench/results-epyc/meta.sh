cmdline=bench/run\ --out\ /tmp/run7\ --no-docs
started=2026-11-24\ 15:17\ UTC
load_start=0.05\ 0.12\ 0.61
load_end=1.00\ 0.88\ 0.81
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v669\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
