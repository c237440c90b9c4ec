cmdline=bench/run\ --out\ /tmp/run-z4e\ --no-docs
started=2026-12-05\ 01:03\ UTC
load_start=0.08\ 0.08\ 0.44
load_end=1.08\ 0.87\ 0.71
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v1147\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
