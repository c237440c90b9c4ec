cmdline=bench/run\ --out\ /tmp/results-epyc3\ --no-docs
started=2026-11-24\ 08:05\ UTC
load_start=1.23\ 1.35\ 1.04
load_end=1.05\ 1.05\ 1.00
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v669\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
