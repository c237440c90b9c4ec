cmdline=bench/run\ --out\ /tmp/benchrun\ --no-docs
started=2026-11-25\ 06:09\ UTC
load_start=0.10\ 1.49\ 1.88
load_end=1.00\ 1.07\ 1.48
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v669\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
