cmdline=bench/run\ --out\ /work/main/bench/results-epyc\ --no-docs
started=2026-11-24\ 06:59\ UTC
load_start=1.06\ 1.59\ 1.94
load_end=1.03\ 1.11\ 1.52
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v669\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
