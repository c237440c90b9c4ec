/* SPDX-License-Identifier: MIT */
/* CPU feature detection, done once: cpuid + xgetbv on x86-64, HWCAP on aarch64. */
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* xgetbv without -mxsave: the instruction is always present when OSXSAVE is set. */
static uint64_t read_xcr0(void)
{
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

static uint32_t detect(void)
{
    unsigned a, b, c, d;
    uint32_t features = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const bool osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx)
        return 0;
    const uint64_t xcr0 = read_xcr0();
    /* The OS must save XMM and YMM state (bits 1, 2) before AVX2 may be used, and additionally
     * opmask and both ZMM halves (bits 5, 6, 7) for AVX-512. */
    const bool ymm_saved = (xcr0 & 0x6) == 0x6;
    const bool zmm_saved = (xcr0 & 0xe6) == 0xe6;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    const bool avx2 = (b >> 5) & 1, bmi2 = (b >> 8) & 1;
    const bool f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
    if (ymm_saved && avx2 && bmi2)
        features |= BL_CPU_AVX2;
    if (zmm_saved && (features & BL_CPU_AVX2) && f && dq && bw && vl)
        features |= BL_CPU_AVX512;
#if defined(BL_AVX512_VIA_SIMDE)
    /* the test build whose "avx512" kernel is SIMDe over AVX2 (CMakeLists.txt) */
    if (features & BL_CPU_AVX2)
        features |= BL_CPU_AVX512;
#endif
    return features;
}
#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
static uint32_t detect(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_ASIMD) ? BL_CPU_NEON : 0;
}
#else
static uint32_t detect(void) { return 0; }
#endif

uint32_t bl_cpu_features(void)
{
    /* Racing first calls compute the same value, so a relaxed cache is enough. */
    static uint32_t cached; /* bit 30 marks "computed" */
    uint32_t v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!(v & (1u << 30))) {
        v = detect() | (1u << 30);
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v & ~(1u << 30);
}
