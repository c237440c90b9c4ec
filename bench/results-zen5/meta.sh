cmdline=bench/run\ --no-build\ --out\ /tmp/benchrun12\ --no-docs
started=2026-11-28\ 16:04\ UTC
load_start=1.26\ 1.50\ 1.49
load_end=1.08\ 1.07\ 1.22
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v782\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
