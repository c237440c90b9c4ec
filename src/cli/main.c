/* SPDX-License-Identifier: MIT */
/* bloomline: command dispatch and the help texts. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char overview[] =
    "usage: bloomline COMMAND [OPTIONS] [ARGS]\n"
    "\n"
    "Bloom filters over newline-delimited keys, at memory speed.\n"
    "\n"
    "commands:\n"
    "  build      build a filter from keys:         bloomline build -o F [INPUT...]\n"
    "  add        add keys to a filter file:        bloomline add F [INPUT...]\n"
    "  remove     remove keys (counting filters):   bloomline remove F [INPUT...]\n"
    "  query      print lines whose key may be in:  bloomline query F [INPUT...]\n"
    "  info       describe a filter file:           bloomline info F [--json]\n"
    "  merge      union of filters:                 bloomline merge -o OUT F1 F2...\n"
    "  intersect  intersection of filters:          bloomline intersect -o OUT F1 F2...\n"
    "  export     as Parquet or Guava bytes:        bloomline export F --format FMT -o OUT\n"
    "  import     from Parquet or Guava bytes:      bloomline import --format FMT IN -o F\n"
    "  help       help on a command:                bloomline help COMMAND (or COMMAND --help)\n"
    "\n"
    "Keys are lines without their newline (and without a trailing \\r), or one field of\n"
    "them (-f N, split on -d DELIM, default tab); keys are bytes, NUL bytes included.\n"
    "With -z (--null-data: build, add, remove, query) records end at a NUL byte instead\n"
    "and are taken as they are, newlines and a trailing \\r included (find -print0).\n"
    "A line longer than --max-line BYTES (default 64 MiB, at least 2 MiB; K M G T are\n"
    "powers of 1000) is an error: build, add and remove stop, query passes over it.\n"
    "INPUT is files or '-' (standard input, the default). A FILTER to read is a regular\n"
    "file (mapped or read at offsets), not a pipe: save a stream to a file first. Exit\n"
    "status: 0 success (query: a line was selected), 1 query selected nothing, 2 error;\n"
    "as grep, a query whose output pipe is closed ends by SIGPIPE (141 in the shell), and\n"
    "SIGINT or SIGTERM during a save to a file ends it (130 or 143) once the save is done.\n"
    "'bloomline --version' shows the version and the kernel this CPU gets\n"
    "(BLOOMLINE_KERNEL=scalar|avx2|avx512|neon forces one).\n";

static const char help_build[] =
    "usage: bloomline build -o FILTER [-n N] [-p FPP | -b BITS_PER_KEY] [-l LAYOUT] [-k K]\n"
    "                       [--bits M] [-t THREADS] [-f FIELD] [-d DELIM] [--seed S] [-q]\n"
    "                       [-z] [INPUT...]\n"
    "\n"
    "Build a filter from newline-delimited keys and write it to FILTER atomically (an\n"
    "interrupted build never leaves a damaged file: Ctrl-C or kill during the save takes\n"
    "effect once it is done; a device, a FIFO or a descriptor such as /dev/stdout is written\n"
    "into instead). Empty keys are skipped. Warns on stderr when the keys outnumber -n (the\n"
    "rate then rises past the one designed for).\n"
    "\n"
    "  -o, --output FILTER     the filter file to write (required; '-' for standard output)\n"
    "  -n, --keys N            size for N distinct keys (10M, 1e7; K M G T are powers of 1000).\n"
    "                          Without it, regular files (stdin too, redirected from one) are\n"
    "                          counted first (a fast pass); a stream (a pipe, a terminal) grows\n"
    "                          a scalable filter instead (blocked layout only). With -l\n"
    "                          scalable, N is its first stage's keys (default 2^20: the input\n"
    "                          is not counted)\n"
    "  -p, --fpp P             target false-positive rate, 0 < P < 1 (default 0.01)\n"
    "  -b, --bits-per-key B    size by bits per key instead of by rate\n"
    "  -l, --layout L          blocked (default: one cache line per key), sbbf (Parquet),\n"
    "                          classic (Guava), counting (supports removal), scalable\n"
    "  -t, --threads T         worker threads (default: the physical cores it may run on, one\n"
    "                          worker pinned to each with hwloc; one for files of 2 MiB or\n"
    "                          less). The filter is the same whatever T\n"
    "  -f, --field N           the key is the N-th field (1-based); lines with fewer fields\n"
    "                          have an empty key (skipped, counted in a warning)\n"
    "  -d, --delimiter D       delimiter: a byte, tab, space, \\t, \\0, \\\\, \\xHH (default tab)\n"
    "  -z, --null-data         records end at a NUL byte, not a newline, and are taken as they\n"
    "                          are (a newline or a \\r before the NUL is part of the key);\n"
    "                          without -n, NULs are counted. -d \\0 is refused with it\n"
    "      --max-line BYTES    a longer line is an error (default 64 MiB, at least 2 MiB)\n"
    "      --seed S            hash seed (default 0; part of the filter's identity; Parquet and\n"
    "                          Guava exports need 0)\n"
    "      --bits M            size in bits, rounded up to whole lines (512 bits), sbbf blocks\n"
    "                          (256) or classic words (64); e.g. a power of two for Parquet.\n"
    "                          The keys (-n, or counted) still set k and the designed capacity\n"
    "  -k, --hashes K          force the number of hash functions (the size still meets -p)\n"
    "  -q, --quiet             no progress line (shown only when stderr is a terminal)\n";

static const char help_add[] =
    "usage: bloomline add FILTER [-t THREADS] [-f FIELD] [-d DELIM] [-q] [-z] [INPUT...]\n"
    "\n"
    "Add keys to an existing filter file and save it atomically: a new file takes its name\n"
    "(a symlink FILTER is replaced by it, not followed). Adds and removes of one FILTER run\n"
    "at once take turns (a lock on it), so none loses another's keys. Warns on stderr when\n"
    "the filter goes past the number of keys it was designed for (its rate then rises). A\n"
    "FILTER this user may not write (as test -w says) is refused.\n"
    "\n"
    "  -t, --threads T     worker threads (default: the physical cores; 1 for 2 MiB or less)\n"
    "  -f, --field N       the key is the N-th field (1-based)\n"
    "  -d, --delimiter D   a byte, tab, space, \\t, \\0, \\\\, \\xHH (default tab)\n"
    "  -z, --null-data     records end at a NUL byte, not a newline, and are taken as they\n"
    "                      are (a newline or a \\r before the NUL is part of the key)\n"
    "      --max-line B    a longer line is an error (default 64 MiB, at least 2 MiB)\n"
    "  -q, --quiet         no progress line\n";

static const char help_remove[] =
    "usage: bloomline remove FILTER [-t THREADS] [-f FIELD] [-d DELIM] [-q] [-z] [INPUT...]\n"
    "\n"
    "Remove keys from a counting filter file (build -l counting) and save it atomically; other\n"
    "layouts cannot remove a key without losing others that share its bits. Remove only keys\n"
    "that were added: a key the filter shows was never added changes nothing and is counted in\n"
    "a warning, but one it cannot tell from an added key (a false positive) is removed all the\n"
    "same, and may then hide keys that were added. Keys are removed in input order; adds and\n"
    "removes of one FILTER run at once take turns. A FILTER this user may not write (as test\n"
    "-w says) is refused.\n"
    "\n"
    "  -t, --threads T     worker threads for reading and splitting lines (keys are hashed and\n"
    "                      removed in input order, a chunk at a time; default: the physical\n"
    "                      cores; 1 for 2 MiB or less)\n"
    "  -f, --field N       the key is the N-th field (1-based)\n"
    "  -d, --delimiter D   a byte, tab, space, \\t, \\0, \\\\, \\xHH (default tab)\n"
    "  -z, --null-data     records end at a NUL byte, not a newline, and are taken as they\n"
    "                      are (a newline or a \\r before the NUL is part of the key)\n"
    "      --max-line B    a longer line is an error (default 64 MiB, at least 2 MiB)\n"
    "  -q, --quiet         no progress line\n";

static const char help_query[] =
    "usage: bloomline query FILTER [-v] [-c] [-t THREADS] [-f FIELD] [-d DELIM] [-q] [-z]\n"
    "                       [INPUT...]\n"
    "\n"
    "Print every input line whose key may be in the filter, unchanged (CR LF and all) and in\n"
    "input order, as it goes (memory bounded by the longest line, whatever the input size).\n"
    "A line longer than --max-line is reported and passed over; the status is then 2.\n"
    "The filter is mapped read-only and its checksum verified first.\n"
    "\n"
    "  -v, --invert-match  print the lines whose key is certainly not in the filter; an empty\n"
    "                      key (empty line, too few fields) is never in it\n"
    "  -c, --count         print only the number of selected lines (NAME:COUNT per input\n"
    "                      when there are several, as grep -c)\n"
    "  -t, --threads T     worker threads (default: the physical cores; 1 for 2 MiB or less)\n"
    "  -f, --field N       the key is the N-th field (1-based)\n"
    "  -d, --delimiter D   a byte, tab, space, \\t, \\0, \\\\, \\xHH (default tab)\n"
    "  -z, --null-data     records end at a NUL byte, not a newline, and are taken as they\n"
    "                      are (a newline or a \\r before the NUL is part of the key); the\n"
    "                      selected ones are printed with their NUL, as grep -z (-c's counts\n"
    "                      still end in newlines). -d \\0 is refused with it\n"
    "      --max-line B    the longest line (default 64 MiB, at least 2 MiB)\n"
    "      --no-verify     skip the payload checksum (for very large filters)\n"
    "  -q, --quiet         no progress line (shown only when stderr is a terminal and the\n"
    "                      lines are not printed on one)\n"
    "\n"
    "Exit status: 0 if a line was selected, 1 if none, 2 on error (as grep).\n";

static const char help_info[] =
    "usage: bloomline info FILTER [--json]\n"
    "\n"
    "Show a filter's layout, size in bits and bytes, k, designed capacity and rate, keys\n"
    "added, fill ratio, estimated distinct keys and current expected rate, hash scheme and\n"
    "seed, format version, the kernel this machine would use, and the stages of a scalable\n"
    "filter. Verifies the checksum: a corrupt file is an error (status 2), not a report.\n"
    "\n"
    "  -j, --json   machine-readable output\n";

static const char help_merge[] =
    "usage: bloomline merge -o|--output OUT FILTER FILTER...\n"
    "\n"
    "Write the union of filters of identical identity (layout, size, k, hash, seed; for\n"
    "scalable filters -n, -p and seed, whatever their sizes) to OUT (replaced atomically;\n"
    "'-o -', a device or a FIFO is written into): it answers yes for every key added to any\n"
    "of them. OUT may be one of them (replaced once all are read). Warns on stderr when the\n"
    "union holds more keys than the filters were designed for (its rate then rises). Scalable\n"
    "filters unite stage by stage, so two that each grew past their first stage overload\n"
    "every stage they share (each 20000 keys from -n 1000 -p 0.01: rate 0.19).\n";

static const char help_intersect[] =
    "usage: bloomline intersect -o|--output OUT FILTER FILTER...\n"
    "\n"
    "Write the bitwise intersection of filters of identical identity to OUT (as merge writes\n"
    "it): it answers yes for every key added to all of them (and possibly others). Scalable\n"
    "filters cannot be intersected.\n";

static const char help_export[] =
    "usage: bloomline export FILTER -F|--format parquet|parquet-raw|guava -o|--output OUT\n"
    "\n"
    "Write FILTER in a foreign format to OUT, replaced atomically ('-o -', a device or a FIFO\n"
    "is written into; OUT may not be FILTER):\n"
    "  parquet       Parquet's BloomFilterHeader (thrift compact) + bitset (sbbf filters)\n"
    "  parquet-raw   the bitset alone (sbbf filters)\n"
    "  guava         Guava's BloomFilter.writeTo stream (classic filters)\n";

static const char help_import[] =
    "usage: bloomline import -F|--format parquet|parquet-raw|guava IN -o|--output FILTER\n"
    "\n"
    "Read a foreign filter (IN may be '-') and save it as a bloomline filter file (FILTER may\n"
    "be '-' too, but not IN). The key count is not in those formats: info shows it as unknown.\n";

static const char help_help[] =
    "usage: bloomline help [COMMAND]\n"
    "\n"
    "Show the overview, or the help of one command.\n";

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
    {"build", cli_cmd_build, help_build},      {"add", cli_cmd_add, help_add},
    {"remove", cli_cmd_remove, help_remove},
    {"query", cli_cmd_query, help_query},      {"info", cli_cmd_info, help_info},
    {"merge", cli_cmd_merge, help_merge},      {"intersect", cli_cmd_merge, help_intersect},
    {"export", cli_cmd_export, help_export},   {"import", cli_cmd_import, help_import},
    {"help", NULL, help_help},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

const char *cli_help_text(const char *cmd)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, cmd) == 0)
            return commands[i].help;
    return NULL;
}

int cli_print_help(const char *cmd)
{
    const char *t = cli_help_text(cmd);
    fputs(t ? t : overview, stdout);
    return cli_flush_stdout();
}

/* A closed standard descriptor would be the next one open() returns: an input opened as 0 was
 * taken for standard input ('-' then read it again), a file opened as 1 or 2 would receive
 * output. Hold each closed one with /dev/null, opened so that reading 0 or writing 1 and 2
 * still fails with EBADF, as on the closed descriptor. */
static void hold_closed_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        const int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (got >= 0 && got != fd)
            close(got); /* not the lowest free descriptor: cannot happen, lower ones are open */
    }
}

/* A write past the file size limit (ulimit -f, a service's LimitFSIZE) raises SIGXFSZ, whose
 * default action ended the command mid-save with no message (status 153), leaving the save's
 * temporary beside the target. Ignored, the write fails with EFBIG instead, which every output
 * path reports like a full disk: a message, status 2, the temporary removed. */
static void report_oversize_writes(void)
{
    (void)signal(SIGXFSZ, SIG_IGN);
}

/* Every command makes or opens a filter, and a bad BLOOMLINE_KERNEL fails that with a status
 * that reads as a bad file ("not a valid guava filter: unsupported: unknown kernel, ..."): say
 * once, before anything is read, what is wrong with the variable. */
static int check_kernel_variable(void)
{
    if (bl_kernel_name() != NULL)
        return 0;
    const char *name = getenv("BLOOMLINE_KERNEL");
    char runs[128] = "", known[128] = "";
    bool exists = false;
    for (size_t i = 0; bl_kernel_at(i) != NULL; i++) {
        const char *k = bl_kernel_at(i);
        exists = exists || strcmp(k, name ? name : "") == 0;
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                 *known ? ", " : "", k);
        if (bl_kernel_supported(k))
            snprintf(runs + strlen(runs), sizeof runs - strlen(runs), "%s%s", *runs ? ", " : "", k);
    }
    if (exists)
        cli_error("BLOOMLINE_KERNEL=%s: this CPU cannot run that kernel (it runs: %s)", name, runs);
    else
        cli_error("BLOOMLINE_KERNEL=%s: no such kernel (this build has: %s)", name ? name : "",
                  known);
    return -1;
}

int main(int argc, char **argv)
{
    hold_closed_std_fds();
    report_oversize_writes();
    cli_catch_sigbus();
    if (argc < 2) {
        fputs(overview, stderr);
        return CLI_EXIT_ERROR;
    }
    const char *cmd = argv[1];
    const bool lone = strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
                      strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0;
    /* `bloomline --version extra` and `help add extra` were answered as if the extra word were
     * not there; a word the user typed for a reason is refused instead */
    if ((lone && argc > 2) || (strcmp(cmd, "help") == 0 && argc > 3)) {
        cli_usage_error("unexpected argument '%s' after '%s%s%s'", argv[lone ? 2 : 3], cmd,
                        lone ? "" : " ", lone ? "" : argv[2]);
        return CLI_EXIT_ERROR;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(overview, stdout);
        return cli_flush_stdout();
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        /* "kernel here: none" and status 0 under a bad BLOOMLINE_KERNEL read as if the variable
         * were fine: the version line, then the variable's error, as every command gives */
        const char *k = bl_kernel_name();
        printf("bloomline %s (kernel here: %s)\n", BLOOMLINE_VERSION_STRING, k ? k : "none");
        if (check_kernel_variable() != 0) {
            (void)cli_flush_stdout();
            return CLI_EXIT_ERROR;
        }
        return cli_flush_stdout();
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc == 2) {
            fputs(overview, stdout);
            return cli_flush_stdout();
        }
        if (cli_help_text(argv[2]) == NULL) {
            cli_error("no such command '%s' (see 'bloomline --help')", argv[2]);
            return CLI_EXIT_ERROR;
        }
        return cli_print_help(argv[2]);
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (commands[i].fn != NULL && strcmp(commands[i].name, cmd) == 0) {
            cli_cmd = commands[i].name;
            if (check_kernel_variable() != 0)
                return CLI_EXIT_ERROR;
            return commands[i].fn(argc - 1, argv + 1);
        }
    }
    cli_error("unknown command '%s' (see 'bloomline --help')", cmd);
    return CLI_EXIT_ERROR;
}
