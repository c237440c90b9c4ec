cmdline=bench/run\ --out\ /tmp/bench20\ --no-docs
started=2026-12-02\ 11:01\ UTC
load_start=2.11\ 1.75\ 1.41
load_end=1.06\ 1.09\ 1.19
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx512
uname_line=Linux\ 6.18.44-fc-v1045\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
