/* SPDX-License-Identifier: MIT */
/* bloomline info: everything about a filter file, as text or JSON. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option info_longopts[] = {
    {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

/* Bytes of the well-formed UTF-8 sequence at p (RFC 3629: shortest form, no surrogates, at most
 * U+10FFFF), or 0 if none starts there. */
static size_t utf8_sequence_length(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        len = 3;
        lo = p[0] == 0xe0 ? 0xa0 : 0x80; /* overlong below U+0800 */
        hi = p[0] == 0xed ? 0x9f : 0xbf; /* surrogates */
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        len = 4;
        lo = p[0] == 0xf0 ? 0x90 : 0x80; /* overlong below U+10000 */
        hi = p[0] == 0xf4 ? 0x8f : 0xbf; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++) /* a NUL ends the run here: never read past it */
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

/* JSON text is UTF-8, and a file name need not be: each byte outside a well-formed sequence
 * becomes one U+FFFD (raw bytes made Python's json refuse the whole object). */
static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const size_t len = utf8_sequence_length(p);
        if (len == 0)
            fputs("\\ufffd", stdout);
        else if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            fwrite(p, 1, len, stdout);
        p += len ? len : 1;
    }
    putchar('"');
}

/* The text form is one field per line, so a control byte in a file name (a newline, an escape
 * sequence) must not reach the terminal raw: it would forge a line or move the cursor. Such bytes
 * and the backslash print as C escapes (\\n, \\t, \\xHH, \\\\); other bytes, UTF-8 included, as
 * they are. */
static void text_path(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\')
            fputs("\\\\", stdout);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p < 0x20 || *p == 0x7f)
            printf("\\x%02x", *p);
        else
            putchar(*p);
    }
    putchar('\n');
}

/* A full filter has no estimate, only a floor (bl_info.estimated_keys); a chain's is the sum of
 * its stages', so one full stage makes it a floor too. */
static bool estimate_is_floor(const bl_info *in, const bl_filter *f)
{
    if (in->fill_ratio >= 1)
        return true;
    for (size_t i = 0; in->stages > 1 && i < in->stages; i++) {
        bl_info s;
        if (bl_get_stage_info(f, i, &s) == BL_OK && s.fill_ratio >= 1)
            return true;
    }
    return false;
}

static void print_json(const char *path, const bl_info *in, const char *here, const bl_filter *f)
{
    printf("{\n  \"file\": ");
    json_string(path);
    printf(",\n  \"format_version\": %u,\n  \"layout\": \"%s\",\n", bl_format_version(),
           in->layout_name);
    printf("  \"bits\": %llu,\n  \"bytes\": %zu,\n  \"blocks\": %llu,\n  \"k\": %u,\n",
           (unsigned long long)in->bits, in->bytes, (unsigned long long)in->blocks, in->k);
    /* null where the text says "unknown" (imported filters keep no design): a 0 read as a
     * real design would make every fill look like an overload */
    if (in->design_keys)
        printf("  \"design_keys\": %llu,\n  \"design_fpp\": %.17g,\n",
               (unsigned long long)in->design_keys, in->design_fpp);
    else
        printf("  \"design_keys\": null,\n  \"design_fpp\": null,\n");
    if (in->keys_known)
        printf("  \"keys_added\": %llu,\n", (unsigned long long)in->keys_added);
    else
        printf("  \"keys_added\": null,\n");
    printf("  \"keys_known\": %s,\n", in->keys_known ? "true" : "false");
    printf("  \"fill_ratio\": %.17g,\n  \"estimated_keys\": %.17g,\n  \"current_fpp\": %.17g,\n",
           in->fill_ratio, in->estimated_keys, in->current_fpp);
    printf("  \"estimated_keys_is_floor\": %s,\n", estimate_is_floor(in, f) ? "true" : "false");
    printf("  \"hash\": \"%s\",\n  \"seed\": %llu,\n", in->hash_name,
           (unsigned long long)in->seed);
    printf("  \"kernel\": \"%s\",\n  \"filter_kernel\": \"%s\",\n  \"checksum\": \"ok\",\n",
           here ? here : "unavailable", in->kernel ? in->kernel : "");
    printf("  \"stages\": %zu", in->stages);
    if (in->layout == BL_LAYOUT_SCALABLE) {
        printf(",\n  \"stage_info\": [");
        for (size_t i = 0; i < in->stages; i++) {
            bl_info s;
            if (bl_get_stage_info(f, i, &s) != BL_OK)
                break;
            printf("%s\n    {\"bits\": %llu, \"bytes\": %zu, \"k\": %u, \"design_keys\": %llu, "
                   "\"design_fpp\": %.17g, \"keys_added\": %llu, \"fill_ratio\": %.17g, "
                   "\"current_fpp\": %.17g}",
                   i ? "," : "", (unsigned long long)s.bits, s.bytes, s.k,
                   (unsigned long long)s.design_keys, s.design_fpp,
                   (unsigned long long)s.keys_added, s.fill_ratio, s.current_fpp);
        }
        printf("\n  ]");
    }
    printf("\n}\n");
}

static const char *block_unit(bl_layout l)
{
    switch (l) {
    case BL_LAYOUT_SBBF: return "256-bit blocks";
    case BL_LAYOUT_CLASSIC: return "64-bit words";
    default: return "64-byte lines";
    }
}

/* A value in `digits` significant digits (%g) or decimals (fixed, %f), or as many more as it
 * takes not to print a value under 1 as "1" or one over 0 as "0": a design rate of 0.9999999
 * is what the user asked for, not a certainty, and a fill of 0.99999 (or 0.0000007) says that
 * a bit is clear (or set), which the estimates below follow from. */
static const char *number_text(double v, bool fixed, int digits, char *buf, size_t size)
{
    double shown;
    do {
        snprintf(buf, size, fixed ? "%.*f" : "%.*g", digits, v);
        shown = strtod(buf, NULL);
    } while (((v < 1 && shown >= 1) || (v > 0 && shown <= 0)) && ++digits <= 17);
    return buf;
}

static void print_text(const char *path, const bl_info *in, const char *here, const bl_filter *f)
{
    char rate[32], fill[32];
    fputs("file:                ", stdout);
    text_path(path);
    printf("format version:      %u\n", bl_format_version()); /* the only one it reads */
    printf("layout:              %s\n", in->layout_name);
    printf("size:                %llu bits, %zu bytes (%llu %s)\n", (unsigned long long)in->bits,
           in->bytes, (unsigned long long)in->blocks, block_unit(in->layout));
    printf("hash functions (k):  %u\n", in->k);
    if (in->design_keys)
        printf("designed for:        %llu keys at a false-positive rate of %s\n",
               (unsigned long long)in->design_keys,
               number_text(in->design_fpp, false, 4, rate, sizeof rate));
    else
        printf("designed for:        unknown\n");
    if (in->keys_known)
        printf("keys added:          %llu\n", (unsigned long long)in->keys_added);
    else
        printf("keys added:          unknown (imported from a format that does not record it)\n");
    printf("fill ratio:          %s\n", number_text(in->fill_ratio, true, 4, fill, sizeof fill));
    if (estimate_is_floor(in, f))
        printf("estimated keys:      at least %.0f (%s: any more keys fit)\n",
               in->estimated_keys, in->fill_ratio >= 1 ? "full, every bit set" : "a stage is full");
    else if (in->stages > 1) /* bl_info: the stages' estimates summed */
        printf("estimated keys:      %.0f (from the stages' fill ratios; a key that two stages "
               "hold counts in each)\n", in->estimated_keys);
    else
        printf("estimated keys:      %.0f (distinct, from the fill ratio)\n", in->estimated_keys);
    printf("expected rate now:   %s\n", number_text(in->current_fpp, false, 4, rate, sizeof rate));
    printf("hash scheme:         %s, seed %llu\n", in->hash_name, (unsigned long long)in->seed);
    printf("kernel here:         %s\n", here ? here : "unavailable (BLOOMLINE_KERNEL?)");
    printf("checksum:            ok\n");
    if (in->layout == BL_LAYOUT_SCALABLE) {
        printf("stages:              %zu\n", in->stages);
        for (size_t i = 0; i < in->stages; i++) {
            bl_info s;
            if (bl_get_stage_info(f, i, &s) != BL_OK)
                break;
            printf("  stage %zu:           %llu bits, k %u, %llu keys of %llu at p %s, "
                   "fill %s\n",
                   i, (unsigned long long)s.bits, s.k, (unsigned long long)s.keys_added,
                   (unsigned long long)s.design_keys,
                   number_text(s.design_fpp, false, 3, rate, sizeof rate),
                   number_text(s.fill_ratio, true, 4, fill, sizeof fill));
        }
    }
}

int cli_cmd_info(int argc, char **argv)
{
    bool json = false;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "jh", info_longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'h': return cli_print_help("info");
        default: return cli_bad_option(optopt, argv[optind - 1], info_longopts);
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error(optind >= argc ? "missing FILTER" : "one FILTER at a time");
    const char *path = argv[optind];
    /* info F >> F put text after the filter's end: unreadable after */
    if (cli_output_is_an_input("-", argv + optind, 1, true, "the description") != 0)
        return CLI_EXIT_ERROR;
    bl_filter *f;
    bl_info in;
    if (cli_open_filter(path, false, true, &f, &in) != 0)
        return CLI_EXIT_ERROR;
    if (json)
        print_json(path, &in, bl_kernel_name(), f);
    else
        print_text(path, &in, bl_kernel_name(), f);
    bl_free(f);
    return cli_flush_stdout();
}
