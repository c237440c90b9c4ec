/* SPDX-License-Identifier: MIT */
/* The bloomline side of the Guava interop test: key files, export, import, answer comparison. */
#include "test_util.h"

#include "internal.h"

typedef struct tool_keys {
    size_t n;
    uint8_t **key;
    size_t *len;
} tool_keys;

static int die(const char *what, bl_status st)
{
    fprintf(stderr, "bloomline interop: %s: %s\n", what, bl_strerror(st));
    return 1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        perror(path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL)
                free(buf);
            buf = bigger;
        }
    }
    fclose(fp);
    *len = n;
    return buf;
}

static int write_file(const char *path, const void *buf, size_t len)
{
    FILE *fp = fopen(path, "wb");
    if (fp == NULL || fwrite(buf, 1, len, fp) != len || fclose(fp) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* One hex-encoded key per line (GuavaInterop.readKeys reads the same). */
static int read_keys(const char *path, tool_keys *out)
{
    size_t len;
    uint8_t *text = read_file(path, &len);
    if (text == NULL)
        return 1;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    out->n = 0;
    out->key = calloc(lines + 1, sizeof *out->key);
    out->len = calloc(lines + 1, sizeof *out->len);
    size_t start = 0;
    for (size_t i = 0; i < len && out->key && out->len; i++) {
        if (text[i] != '\n')
            continue;
        size_t klen = (i - start) / 2;
        uint8_t *k = malloc(klen + 1);
        for (size_t j = 0; k != NULL && j < klen; j++)
            k[j] = (uint8_t)(hexval(text[start + 2 * j]) << 4 | hexval(text[start + 2 * j + 1]));
        out->key[out->n] = k;
        out->len[out->n++] = klen;
        start = i + 1;
    }
    free(text);
    return out->key && out->len ? 0 : 1;
}

static void free_keys(tool_keys *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->key[i]);
    free(k->key);
    free(k->len);
}

static void put_key(FILE *fp, const uint8_t *k, size_t len)
{
    for (size_t i = 0; i < len; i++)
        fprintf(fp, "%02x", k[i]);
    fputc('\n', fp);
}

/* keys SEED N POS NEG: N positive keys (the empty key, UTF-8 text as a JVM service would hash
 * with Funnels.stringFunnel(UTF_8), random bytes) and 5N negatives. A first byte of 'p' or 'n'
 * keeps the two sets disjoint. */
static int cmd_keys(char **a)
{
    uint64_t rng = strtoull(a[2], NULL, 0);
    const size_t n = strtoull(a[3], NULL, 0);
    FILE *pos = fopen(a[4], "w"), *neg = fopen(a[5], "w");
    if (pos == NULL || neg == NULL)
        return 1;
    uint8_t buf[80];
    put_key(pos, buf, 0);
    for (size_t i = 1; i < 6 * n; i++) {
        const bool positive = i < n;
        buf[0] = positive ? 'p' : 'n';
        size_t len;
        if (i % 3 == 0) {
            len = 1 + (size_t)snprintf((char *)buf + 1, sizeof buf - 1, "user-%zu@\xc3\xa9xample.com", i);
        } else {
            len = 1 + tu_key(&rng, buf + 1, 63);
        }
        put_key(positive ? pos : neg, buf, len);
    }
    return fclose(pos) != 0 || fclose(neg) != 0;
}

static size_t answers(const bl_filter *f, const tool_keys *k, char *out)
{
    size_t hits = 0;
    for (size_t i = 0; i < k->n; i++) {
        bool hit = bl_contains(f, k->key[i], k->len[i]);
        hits += hit;
        out[i] = hit ? '1' : '0';
    }
    out[k->n] = '\n';
    return hits;
}

static size_t check_all(const bl_filter *f, const tool_keys *k)
{
    size_t missing = 0;
    for (size_t i = 0; i < k->n; i++)
        if (!bl_contains(f, k->key[i], k->len[i]) && missing++ == 0)
            fprintf(stderr, "bloomline interop: false negative on positive key #%zu\n", i);
    return missing;
}

/* export POS N FPP OUT NEG ANSWERS: a classic filter sized by bloomline, exported for Guava. */
static int cmd_export(char **a)
{
    tool_keys pos, neg;
    if (read_keys(a[2], &pos) || read_keys(a[6], &neg))
        return 1;
    bl_params p;
    bl_params_init(&p);
    p.layout = BL_LAYOUT_CLASSIC;
    p.expected_keys = strtoull(a[3], NULL, 0);
    p.fpp = strtod(a[4], NULL);
    bl_filter *f;
    bl_status st = bl_create(&f, &p);
    if (st != BL_OK)
        return die("create", st);
    for (size_t i = 0; i < pos.n; i++)
        bl_add(f, pos.key[i], pos.len[i]);
    size_t size, written;
    if ((st = bl_export_size(f, BL_FORMAT_GUAVA, &size)) != BL_OK)
        return die("export size", st);
    uint8_t *buf = malloc(size);
    char *ans = malloc(neg.n + 1);
    if ((st = bl_export(f, BL_FORMAT_GUAVA, buf, size, &written)) != BL_OK)
        return die("export", st);
    size_t fp = answers(f, &neg, ans);
    printf("bloomline export: %zu keys, %llu bits, k=%u, false positives on negatives: %zu\n",
           pos.n, (unsigned long long)f->nbits, f->k, fp);
    int rc = write_file(a[5], buf, written) || write_file(a[7], ans, neg.n + 1);
    free(buf);
    free(ans);
    bl_free(f);
    free_keys(&pos);
    free_keys(&neg);
    return rc;
}

/* import STREAM POS NEG JAVA_ANSWERS: Guava's stream imported; every key present, and the same
 * answer as Guava on every negative key. */
static int cmd_import(char **a)
{
    tool_keys pos, neg;
    size_t len, jlen;
    uint8_t *stream = read_file(a[2], &len);
    uint8_t *java = read_file(a[5], &jlen);
    if (stream == NULL || java == NULL || read_keys(a[3], &pos) || read_keys(a[4], &neg))
        return 1;
    bl_filter *f;
    bl_status st = bl_import(&f, BL_FORMAT_GUAVA, stream, len);
    if (st != BL_OK)
        return die("import", st);
    bl_info info;
    bl_get_info(f, &info);
    int rc = 0;
    if (info.keys_known || info.layout != BL_LAYOUT_CLASSIC) {
        fprintf(stderr, "bloomline interop: imported filter claims a known key count\n");
        rc = 1;
    }
    if (check_all(f, &pos) != 0)
        rc = 1;
    char *ans = malloc(neg.n + 1);
    size_t fp = answers(f, &neg, ans);
    size_t differ = 0;
    if (jlen != neg.n + 1) {
        fprintf(stderr, "bloomline interop: Guava answered %zu keys, expected %zu\n", jlen - 1,
                neg.n);
        rc = 1;
    } else {
        for (size_t i = 0; i < neg.n; i++)
            differ += ans[i] != (char)java[i];
    }
    printf("bloomline import: %llu bits, k=%u, all %zu keys %s, false positives on negatives: "
           "%zu, answers differing from Guava: %zu of %zu\n",
           (unsigned long long)info.bits, info.k, pos.n, rc ? "NOT present" : "present", fp,
           differ, neg.n);
    /* Re-export: the bytes must be Guava's bytes exactly. */
    size_t size, written;
    uint8_t *again = malloc(len);
    if (bl_export_size(f, BL_FORMAT_GUAVA, &size) != BL_OK || size != len ||
        bl_export(f, BL_FORMAT_GUAVA, again, len, &written) != BL_OK ||
        memcmp(again, stream, len) != 0) {
        fprintf(stderr, "bloomline interop: re-export differs from Guava's stream\n");
        rc = 1;
    }
    /* A stream with a strategy Guava does not have is refused (GuavaInterop reject agrees). */
    bl_filter *g = NULL;
    stream[0] = 7;
    if ((st = bl_import(&g, BL_FORMAT_GUAVA, stream, len)) != BL_E_FORMAT) {
        fprintf(stderr, "bloomline interop: unknown strategy gave %s\n", bl_strerror(st));
        rc = 1;
    }
    bl_free(g);
    if (a[6] != NULL)
        rc |= write_file(a[6], stream, len);
    free(again);
    free(ans);
    free(stream);
    free(java);
    bl_free(f);
    free_keys(&pos);
    free_keys(&neg);
    return rc || differ != 0;
}

/* murmur KEYS JAVA_HASHES: bl_murmur3_x64_128 against Hashing.murmur3_128().hashBytes, whose
 * 16 bytes are h1 then h2, each little-endian. */
static int cmd_murmur(char **a)
{
    tool_keys k;
    size_t jlen;
    uint8_t *java = read_file(a[3], &jlen);
    if (java == NULL || read_keys(a[2], &k))
        return 1;
    size_t bad = 0;
    for (size_t i = 0; i < k.n; i++) {
        uint64_t h[2];
        char hex[34];
        bl_murmur3_x64_128(k.key[i], k.len[i], 0, h);
        for (int j = 0; j < 16; j++)
            snprintf(hex + 2 * j, 3, "%02x", (unsigned)(h[j / 8] >> (8 * (j % 8))) & 0xff);
        if (jlen < 33 * (i + 1) || memcmp(hex, java + 33 * i, 32) != 0) {
            if (bad++ == 0)
                fprintf(stderr, "bloomline interop: murmur3 differs from Guava on key #%zu\n", i);
        }
    }
    printf("murmur3_x64_128: %zu of %zu keys hash as Guava's Hashing.murmur3_128()\n", k.n - bad,
           k.n);
    free(java);
    free_keys(&k);
    return bad != 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int args;
        int (*fn)(char **);
    } cmds[] = {{"keys", 6, cmd_keys},
                {"export", 8, cmd_export},
                {"import", 6, cmd_import},
                {"murmur", 4, cmd_murmur}};
    for (size_t i = 0; argc > 1 && i < BL_ARRAY_LEN(cmds); i++)
        if (strcmp(argv[1], cmds[i].name) == 0 && argc >= cmds[i].args)
            return cmds[i].fn(argv);
    fprintf(stderr, "usage: guava_interop_tool keys|export|import|murmur ...\n");
    return 2;
}
