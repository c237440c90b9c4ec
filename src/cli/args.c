/* SPDX-License-Identifier: MIT */
/* Strict parsing of option values: every bad number names the option and the range. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (cli_cmd)
        cli_error("%s (see 'bloomline help %s')", msg, cli_cmd);
    else
        cli_error("%s (see 'bloomline --help')", msg);
    return CLI_EXIT_ERROR;
}

/* The long option `arg` names ("--name" or "--name=value"; getopt_long also takes a name's
 * unique prefix), or NULL. */
static const struct option *long_option_named(const char *arg, const struct option *longopts,
                                               bool *ambiguous)
{
    const size_t len = strcspn(arg + 2, "=");
    const struct option *prefix_of = NULL;
    size_t prefixes = 0;
    for (const struct option *o = longopts; o != NULL && o->name != NULL; o++) {
        if (strncmp(o->name, arg + 2, len) != 0)
            continue;
        if (strlen(o->name) == len)
            return o;
        prefix_of = o;
        prefixes++;
    }
    *ambiguous = prefixes > 1;
    return prefixes == 1 ? prefix_of : NULL;
}

int cli_bad_option(int opt, const char *arg, const struct option *longopts)
{
    /* getopt reports the short or long option it stopped at only through optopt and the argument
     * before optind. A long one is named as given (optopt holds its short twin: '--fpp' read
     * '-p'); but a bad letter inside a bundle ('-Xq') leaves optind on the bundle, so the
     * argument before it may be a good long option ("--quiet") that is not the one at fault. */
    const struct option *o = NULL;
    bool ambiguous = false;
    if (arg != NULL && strncmp(arg, "--", 2) == 0)
        o = long_option_named(arg, longopts, &ambiguous);
    if (opt != 0 && (o == NULL || o->val != opt)) {
        /* Every short option has a long twin, which says whether the letter takes a value. */
        const struct option *twin = longopts;
        while (twin != NULL && twin->name != NULL && twin->val != opt)
            twin++;
        if (twin == NULL || twin->name == NULL)
            return cli_usage_error("unknown option '-%c'", opt);
        if (twin->has_arg == required_argument)
            return cli_usage_error("option '-%c' needs a value", opt);
        return cli_usage_error("option '-%c' is unknown or needs a value", opt);
    }
    if (o != NULL && o->has_arg == no_argument && strchr(arg, '=') != NULL)
        return cli_usage_error("option '--%s' takes no value", o->name);
    if (o != NULL && o->has_arg == required_argument)
        return cli_usage_error("option '--%s' needs a value", o->name);
    if (ambiguous)
        return cli_usage_error("option '%s' is ambiguous (the start of more than one)", arg);
    if (o == NULL)
        return cli_usage_error("unknown option '%s'", arg ? arg : "?");
    return cli_usage_error("option '%s' is unknown or needs a value", arg ? arg : "?");
}

/* A decimal that is an exact integer, in scientific notation or not ("1e7", "2.5e6", "100.0"),
 * computed in integers: through a double (53 bits), 9007199254740993e0 became ...992, a --seed
 * silently another, and 1.00000000000000001e3 passed as 1000. false when it is not an integer or
 * exceeds 64 bits. */
static bool parse_exact_decimal(const char *s, uint64_t *out)
{
    uint64_t m = 0;
    long scale = 0; /* the value is m * 10^scale */
    bool digits = false, dot = false;
    if (*s == '+')
        s++;
    for (; *s != '\0' && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.' && !dot) {
            dot = true;
            continue;
        }
        if (!isdigit((unsigned char)*s))
            return false;
        digits = true;
        const unsigned d = (unsigned)(*s - '0');
        if (m > (UINT64_MAX - d) / 10) {
            if (d != 0)
                return false; /* over 19 significant digits: no such integer fits (or is one) */
            scale += dot ? 0 : 1;
            continue;
        }
        m = m * 10 + d;
        scale -= dot ? 1 : 0;
    }
    if (!digits)
        return false;
    if (*s != '\0') {
        s++;
        const bool neg = *s == '-';
        if (*s == '-' || *s == '+')
            s++;
        if (*s == '\0')
            return false;
        long e = 0;
        for (; *s != '\0'; s++) {
            if (!isdigit((unsigned char)*s))
                return false;
            if (e < 100000)
                e = e * 10 + (*s - '0');
        }
        scale += neg ? -e : e;
    }
    for (; m != 0 && scale < 0; scale++) {
        if (m % 10 != 0)
            return false;
        m /= 10;
    }
    for (; m != 0 && scale > 0; scale--) {
        if (m > UINT64_MAX / 10)
            return false;
        m *= 10;
    }
    *out = m;
    return true;
}

/* Says which of three things is wrong with an integer option: a number it takes but outside the
 * range ('2M' is 2000000, under --max-line's 2 MiB: the value is shown when a suffix or notation
 * hides it), a number that is no integer (2.5, 1.00000000000000001e3), or no number at all. */
static void integer_error(const char *opt, const char *s, bool parsed, uint64_t v, uint64_t min,
                          uint64_t max)
{
    const char *what = "is not a valid number";
    char value[48] = "";
    if (parsed) {
        what = "is out of range";
        char plain[24];
        snprintf(plain, sizeof plain, "%llu", (unsigned long long)v);
        if (strcmp(plain, s) != 0)
            snprintf(value, sizeof value, " (%s)", plain);
    } else if (s != NULL && *s != '\0' && !isspace((unsigned char)*s)) {
        char *end;
        errno = 0;
        const double d = strtod(s, &end);
        /* -5, 1e30 and 1e999999 (past a double: infinity with ERANGE; "inf" itself is no
         * number) are out of range; a whole double inside it only rounded to an integer
         * (1.00000000000000001e3), which the exact parse refused: not an integer, as 2.5 and an
         * underflow to 0 are. (double)UINT64_MAX rounds up to 2^64, so 2^64 is tested apart. */
        if (end != s && *end == '\0') {
            if (isinf(d) && errno == ERANGE)
                what = "is out of range";
            else if (isfinite(d))
                what = errno != ERANGE && d == floor(d) &&
                               (d < (double)min || d > (double)max || d >= 0x1p64)
                           ? "is out of range"
                           : "is not an integer";
        }
    }
    cli_usage_error("%s: '%s'%s %s (expected an integer from %llu to %llu)", opt, s ? s : "",
                    value, what, (unsigned long long)min, (unsigned long long)max);
}

/* Integers: decimal, 0x hex, a decimal with a K/M/G/T suffix (powers of 1000), or an exact
 * integer in scientific notation (1e7), since counts of keys are written all those ways. */
int cli_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    bool ok = false;
    if (s != NULL && *s != '\0' && *s != '-' && !isspace((unsigned char)*s)) {
        char *end;
        errno = 0;
        const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
        unsigned long long x = strtoull(s, &end, hex ? 16 : 10);
        if (errno == 0 && end != s) {
            uint64_t mul = 1;
            if (*end != '\0' && end[1] == '\0' && !hex) {
                switch (*end) {
                case 'k': case 'K': mul = UINT64_C(1000); end++; break;
                case 'm': case 'M': mul = UINT64_C(1000000); end++; break;
                case 'g': case 'G': mul = UINT64_C(1000000000); end++; break;
                case 't': case 'T': mul = UINT64_C(1000000000000); end++; break;
                default: break;
                }
            }
            if (*end == '\0' && (x == 0 || x <= UINT64_MAX / mul)) {
                v = (uint64_t)x * mul;
                ok = true;
            }
        }
        if (!ok && !hex)
            ok = parse_exact_decimal(s, &v);
    }
    if (!ok || v < min || v > max) {
        integer_error(opt, s, ok, v, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_double(const char *opt, const char *s, double lo, double hi, bool lo_open,
                     bool hi_open, double *out)
{
    /* Leading blanks are refused (strtod would skip them). Such a value is not parsed at all,
     * so `end` is read only after strtod set it: " 0.5" read it unset (valgrind, clang-tidy). */
    const bool parsed = s != NULL && *s != '\0' && !isspace((unsigned char)*s);
    char *end = NULL;
    errno = 0;
    const double d = parsed ? strtod(s, &end) : NAN;
    /* strtod flags a subnormal result (-p 1e-320) as a range error, though it is the number */
    const bool in_range = errno == 0 || (errno == ERANGE && d != 0 && fabs(d) < DBL_MIN);
    const bool syntax = parsed && end != s && *end == '\0';
    const bool number = syntax && (isfinite(d) || errno == ERANGE); /* 1e999, 1e-400: a number */
    const bool ok = syntax && in_range && isfinite(d) && (lo_open ? d > lo : d >= lo) &&
                    (hi_open ? d < hi : d <= hi);
    if (!ok) {
        cli_usage_error("%s: '%s' %s (expected %s%g, %g%s)", opt, s ? s : "",
                        number ? "is out of range" : "is not a valid number", lo_open ? "(" : "[",
                        lo, hi, hi_open ? ")" : "]");
        return -1;
    }
    *out = d;
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One byte, or an escape for the awkward ones: \t, \0, \\, \xHH; "tab" and "space" too. */
int cli_parse_delim(const char *s, unsigned char *out)
{
    if (s[0] != '\0' && s[1] == '\0') {
        *out = (unsigned char)s[0];
        return 0;
    }
    if (strcmp(s, "\\t") == 0 || strcmp(s, "tab") == 0) {
        *out = '\t';
        return 0;
    }
    if (strcmp(s, "space") == 0) {
        *out = ' ';
        return 0;
    }
    if (strcmp(s, "\\0") == 0) {
        *out = 0;
        return 0;
    }
    if (strcmp(s, "\\\\") == 0) {
        *out = '\\';
        return 0;
    }
    if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3] && !s[4] && hexval(s[2]) >= 0 &&
        hexval(s[3]) >= 0) {
        *out = (unsigned char)(hexval(s[2]) * 16 + hexval(s[3]));
        return 0;
    }
    cli_usage_error("-d: '%s' is not a delimiter (one byte, tab, space, \\t, \\0, \\\\, \\xHH)",
                    s);
    return -1;
}

int cli_check_output(const char *out, const char *what)
{
    if (out == NULL)
        return cli_usage_error("-o %s is required ('-' for standard output)", what);
    if (*out == '\0') /* the save refused it as a bare "invalid argument" */
        return cli_usage_error("-o: the output file name is empty");
    return 0;
}

int cli_parse_threads(const char *s, unsigned *out)
{
    uint64_t v;
    if (cli_parse_u64("-t", s, 1, 1024, &v) != 0)
        return -1;
    *out = (unsigned)v;
    return 0;
}

void cli_common_init(cli_common *cm)
{
    memset(cm, 0, sizeof *cm);
    cm->field.delim = '\t';
    cm->eol = '\n';
    cm->max_line = CLI_MAX_LINE_DEFAULT;
}

int cli_common_option(cli_common *cm, int opt, const char *arg)
{
    uint64_t v;
    switch (opt) {
    case 't': return cli_parse_threads(arg, &cm->threads) == 0 ? 1 : -1;
    case 'f':
        if (cli_parse_u64("-f", arg, 1, (uint64_t)1 << 40, &v) != 0)
            return -1;
        cm->field.field = (size_t)v;
        return 1;
    case 'd':
        cm->delim_set = true;
        return cli_parse_delim(arg, &cm->field.delim) == 0 ? 1 : -1;
    case 'q': cm->quiet = true; return 1;
    case 'z': cm->eol = '\0'; return 1;
    case CLI_OPT_MAX_LINE:
        return cli_parse_u64("--max-line", arg, CLI_MAX_LINE_LEAST, (uint64_t)1 << 40,
                             &cm->max_line) == 0
                   ? 1
                   : -1;
    default: return 0;
    }
}

int cli_common_finish(cli_common *cm)
{
    if (cm->delim_set && cm->field.field == 0) {
        cli_usage_error("-d needs -f (the field to take the key from)");
        return -1;
    }
    /* A record holds no terminator: a delimiter equal to it would never split one (-f 1 the
     * whole record, any other field empty), which is never what was meant. */
    if (cm->eol == '\0' && cm->delim_set && cm->field.delim == '\0') {
        cli_usage_error("-d '\\0' with -z: records end at NUL bytes, so none can hold a NUL "
                        "delimiter");
        return -1;
    }
    if (cm->eol == '\n' && cm->delim_set && cm->field.delim == '\n') {
        cli_usage_error("-d '\\x0a': lines end at newlines, so none can hold a newline "
                        "delimiter (with -z, records end at NUL bytes instead)");
        return -1;
    }
    return 0;
}
