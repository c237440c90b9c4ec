/* SPDX-License-Identifier: MIT */
/* The CLI's number and delimiter parsers (args.c), which every option value
 * goes through. Seeded random integers are written every way cli_parse_u64
 * reads them (decimal, 0x hex, a K/M/G/T suffix, scientific notation with the
 * point anywhere and zeros either side) and must come back exact; the same
 * digits one step off an integer, or one past 2^64 - 1, must be refused, as
 * must every malformed string here. The refusals print their usage message, so
 * stderr goes to /dev/null while they run. */
#include "../test_util.h"

#include "cli.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static int saved_stderr = -1;

static void quiet_stderr(void)
{
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    assert_true(saved_stderr >= 0 && null >= 0);
    dup2(null, STDERR_FILENO);
    close(null);
}

static void restore_stderr(void)
{
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
}

static void expect_u64(const char *s, uint64_t want)
{
    uint64_t got = ~want;
    if (cli_parse_u64("-n", s, 0, UINT64_MAX, &got) != 0 || got != want) {
        restore_stderr();
        fail_msg("'%s': want %llu, got %llu", s, (unsigned long long)want, (unsigned long long)got);
    }
}

static void expect_u64_refused(const char *s)
{
    uint64_t got = 12345;
    if (cli_parse_u64("-n", s, 0, UINT64_MAX, &got) == 0) {
        restore_stderr();
        fail_msg("'%s' was taken as %llu", s, (unsigned long long)got);
    }
    assert_int_equal(got, 12345); /* nothing written on failure */
}

/* v written with its digits split as I.F (I the first i digits of the
 * significant part), the exponent making up the rest, extra zeros after the
 * point; e.g. 1200 as "1.200e3". */
static void scientific(char *out, size_t cap, const char *sig, size_t i, unsigned zeros, long exp,
                       const char *e)
{
    int n = snprintf(out, cap, "%.*s.%s", (int)i, sig, sig + i);
    for (unsigned z = 0; z < zeros; z++)
        n += snprintf(out + n, cap - (size_t)n, "0");
    snprintf(out + n, cap - (size_t)n, "%s%ld", e, exp);
}

static void test_u64_every_notation(void **state)
{
    (void)state;
    uint64_t s = tu_seed("test_cli_args u64");
    quiet_stderr();
    char buf[128];
    for (unsigned round = 0; round < 20000; round++) {
        const uint64_t r = tu_next(&s);
        uint64_t v = tu_next(&s) >> (r % 64);
        if (r % 7 == 0) { /* round numbers, for the suffixes and trailing zeros */
            uint64_t p = 1;
            for (unsigned z = (unsigned)(r >> 8) % 16; z > 0; z--)
                p *= 10;
            v -= v % p;
        }
        if (r % 11 == 0)
            v = UINT64_MAX - (r >> 8) % 3;
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
        expect_u64(buf, v);
        snprintf(buf, sizeof buf, "+%llu", (unsigned long long)v);
        expect_u64(buf, v);
        snprintf(buf, sizeof buf, r & 1 ? "0x%llx" : "0X%llX", (unsigned long long)v);
        expect_u64(buf, v);
        snprintf(buf, sizeof buf, "%llu.0", (unsigned long long)v);
        expect_u64(buf, v);

        /* Scientific: the significant digits (trailing zeros stripped), the point
         * after digit i, and an exponent for the rest. */
        char digits[32], sig[32];
        snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
        size_t len = strlen(digits), slen = len;
        while (slen > 1 && digits[slen - 1] == '0')
            slen--;
        memcpy(sig, digits, slen);
        sig[slen] = '\0';
        const size_t i = 1 + (size_t)((r >> 16) % slen);
        static const char *const es[] = {"e", "E", "e+"};
        scientific(buf, sizeof buf, sig, i, (unsigned)(r >> 24) % 4, (long)(len - i),
                   es[(r >> 32) % 3]);
        expect_u64(buf, v);
        /* the same digits with zeros appended, divided back by the exponent */
        const unsigned extra = 1 + (unsigned)(r >> 40) % 25;
        int n = snprintf(buf, sizeof buf, "%s", digits);
        for (unsigned z = 0; z < extra; z++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "0");
        snprintf(buf + n, sizeof buf - (size_t)n, "e-%u", extra);
        expect_u64(buf, v);

        /* One digit off an integer: a nonzero digit past the point. */
        snprintf(buf, sizeof buf, "%llu.%u", (unsigned long long)v, 1 + (unsigned)(r >> 44) % 9);
        expect_u64_refused(buf);
        snprintf(buf, sizeof buf, "%se-1", digits);
        if (v % 10 != 0)
            expect_u64_refused(buf);
        else
            expect_u64(buf, v / 10);
        /* One step past the largest: v * 10 + 1 overflows whenever v * 10 does */
        if (v > UINT64_MAX / 10) {
            snprintf(buf, sizeof buf, "%s0", digits);
            expect_u64_refused(buf);
            snprintf(buf, sizeof buf, "%se1", digits);
            expect_u64_refused(buf);
        }

        /* Suffixes, powers of 1000, either case. */
        static const char suffix[] = "kmgt";
        uint64_t mul = 1;
        for (unsigned p = 0; p < 4; p++) {
            mul *= 1000;
            const char c = (r >> (48 + p)) & 1 ? suffix[p] : (char)(suffix[p] - 'a' + 'A');
            if (v % mul == 0) {
                snprintf(buf, sizeof buf, "%llu%c", (unsigned long long)(v / mul), c);
                expect_u64(buf, v);
            }
            if (v != 0 && v > UINT64_MAX / mul) { /* v * mul overflows */
                snprintf(buf, sizeof buf, "%llu%c", (unsigned long long)v, c);
                expect_u64_refused(buf);
            }
        }

        /* The bounds are inclusive, and checked. */
        uint64_t got = 0;
        assert_int_equal(cli_parse_u64("-n", digits, v, v, &got), 0);
        assert_int_equal(got, v);
        if (v < UINT64_MAX)
            assert_int_not_equal(cli_parse_u64("-n", digits, v + 1, UINT64_MAX, &got), 0);
        if (v > 0)
            assert_int_not_equal(cli_parse_u64("-n", digits, 0, v - 1, &got), 0);
    }
    restore_stderr();
}

static void test_u64_edges(void **state)
{
    (void)state;
    quiet_stderr();
    expect_u64("18446744073709551615", UINT64_MAX);
    expect_u64("1.8446744073709551615e19", UINT64_MAX);
    expect_u64("184467440737095516150e-1", UINT64_MAX);
    expect_u64("0xffffffffffffffff", UINT64_MAX);
    expect_u64("18446744073709551k", UINT64_C(18446744073709551000));
    expect_u64("1.8e19", UINT64_C(18000000000000000000));
    expect_u64("0e99999999999", 0);
    expect_u64("0.000", 0);
    expect_u64("1.", 1);
    expect_u64("0x1e5", 0x1e5); /* hex digits, not an exponent */
    expect_u64("1E5", 100000);
    expect_u64("10T", UINT64_C(10000000000000));
    static const char *const bad[] = {"",
                                      " 1",
                                      "1 ",
                                      "\t1",
                                      "-1",
                                      "-0",
                                      "+",
                                      "++1",
                                      "0x",
                                      "0x1k",
                                      "0xg",
                                      "0x-1",
                                      "1kk",
                                      "k",
                                      "1 k",
                                      "e5",
                                      "1e",
                                      "1e+",
                                      "1e-",
                                      ".",
                                      ".e1",
                                      "1..0",
                                      "1.0.0",
                                      "1e5x",
                                      "1e1.5",
                                      "nan",
                                      "inf",
                                      "1,000",
                                      "1_000",
                                      "18446744073709551616",
                                      "18446744073709552k",
                                      "1e20",
                                      "1.8446744073709551616e19",
                                      "20000000000000000000",
                                      "1e-1",
                                      "1e-99999999999",
                                      "1e99999999999",
                                      "0.5",
                                      "99999999999999999999999999999"};
    for (size_t i = 0; i < BL_ARRAY_LEN(bad); i++)
        expect_u64_refused(bad[i]);
    uint64_t got = 7;
    assert_int_not_equal(cli_parse_u64("-n", NULL, 0, 10, &got), 0);
    assert_int_equal(got, 7);
    unsigned t = 0;
    assert_int_not_equal(cli_parse_threads("0", &t), 0);
    assert_int_not_equal(cli_parse_threads("1025", &t), 0);
    assert_int_equal(cli_parse_threads("1024", &t), 0);
    assert_int_equal(t, 1024);
    restore_stderr();
}

static void expect_double(const char *s, double lo, double hi, bool lo_open, bool hi_open, bool ok,
                          double want)
{
    double got = -42;
    const int rc = cli_parse_double("-p", s, lo, hi, lo_open, hi_open, &got);
    if ((rc == 0) != ok || (ok && got != want) || (!ok && got != -42)) {
        restore_stderr();
        fail_msg("'%s' in %c%g, %g%c: rc %d, got %g", s, lo_open ? '(' : '[', lo, hi,
                 hi_open ? ')' : ']', rc, got);
    }
}

static void test_double(void **state)
{
    (void)state;
    quiet_stderr();
    expect_double("0.01", 0, 1, true, true, true, 0.01);
    expect_double("1e-6", 0, 1, true, true, true, 1e-6);
    expect_double("1e-320", 0, 1, true, true, true, 1e-320); /* subnormal, ERANGE from strtod */
    expect_double("0x1p-1", 0, 1, true, true, true, 0.5);
    expect_double("0", 0, 1, true, true, false, 0);
    expect_double("1", 0, 1, true, true, false, 0);
    expect_double("0", 0, 1, false, false, true, 0);
    expect_double("1", 0, 1, false, false, true, 1);
    /* below the smallest subnormal: strtod's 0 is not the number given, so not taken as 0 */
    expect_double("1e-400", 0, 1, false, false, false, 0);
    static const char *const bad[] = {"",     " 0.5",  "0.5 ",   "0.5x", "nan", "inf",
                                      "-inf", "1e999", "1e-400", "-0.5", "0,5", "."};
    for (size_t i = 0; i < BL_ARRAY_LEN(bad); i++)
        expect_double(bad[i], 0, 1, true, true, false, 0);
    expect_double(NULL, 0, 1, true, true, false, 0);
    restore_stderr();
}

static void expect_delim(const char *s, int want)
{
    unsigned char got = 0x5a;
    const int rc = cli_parse_delim(s, &got);
    if (want < 0 ? rc == 0 : rc != 0 || got != want) {
        restore_stderr();
        fail_msg("-d '%s': rc %d, got 0x%02x, want %d", s, rc, got, want);
    }
}

static void test_delimiters(void **state)
{
    (void)state;
    quiet_stderr();
    char buf[8];
    for (int b = 1; b < 256; b++) {
        buf[0] = (char)b;
        buf[1] = '\0';
        expect_delim(buf, b);
    }
    for (int b = 0; b < 256; b++) {
        snprintf(buf, sizeof buf, "\\x%02x", b);
        expect_delim(buf, b);
        snprintf(buf, sizeof buf, "\\x%02X", b);
        expect_delim(buf, b);
    }
    expect_delim("\\t", '\t');
    expect_delim("tab", '\t');
    expect_delim("space", ' ');
    expect_delim("\\0", 0);
    expect_delim("\\\\", '\\');
    static const char *const bad[] = {"",      "ab",    "\\x",   "\\x1", "\\x123",
                                      "\\xg0", "\\x0g", "\\n",   "TAB",  "\\t ",
                                      " \\t",  "x41",   "\\X41", "spac", "\\00"};
    for (size_t i = 0; i < BL_ARRAY_LEN(bad); i++)
        expect_delim(bad[i], -1);
    restore_stderr();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_every_notation),
        cmocka_unit_test(test_u64_edges),
        cmocka_unit_test(test_double),
        cmocka_unit_test(test_delimiters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
