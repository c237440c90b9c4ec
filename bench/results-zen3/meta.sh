cmdline=bench/run\ --out\ /tmp/benchz3b\ --no-docs
started=2026-11-29\ 13:27\ UTC
load_start=0.23\ 1.07\ 1.37
load_end=1.03\ 1.03\ 1.19
kernels_line=bloomline\ 0.1.0\,\ kernel\ avx2
uname_line=Linux\ 6.18.44-fc-v657\ x86_64
cc_line=cc\ \(Debian\ 12.2.0-14+deb12u1\)\ 12.2.0
