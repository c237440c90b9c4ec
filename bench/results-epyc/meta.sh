cmdline=bench/run\ --out\ /tmp/run8\ --no-docs
started=2026-11-24\ 23:35\ UTC
load_start=1.19\ 1.55\ 1.43
load_end=1.06\ 1.08\ 1.22
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v669\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
