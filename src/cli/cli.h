/* SPDX-License-Identifier: MIT */
/* Declarations shared by the files of the bloomline command. */
#ifndef BL_CLI_H
#define BL_CLI_H

#include "bloomline.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Exit statuses, as grep: 0 selected / success, 1 nothing selected, 2 trouble. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_NONE 1
#define CLI_EXIT_ERROR 2

/* Bytes per worker chunk: large enough that the per-chunk hand-offs (a lock, a write, a
 * condition variable) cost nothing next to hashing ~70 000 lines, small enough that the
 * memory stays constant and the first output appears quickly. */
#define CLI_CHUNK_BYTES (2u << 20)

/* The longest line (record) an input may have, --max-line. A line is held whole in memory, so
 * without a bound a stream with no newline in it (/dev/zero, a binary file) grew the buffer
 * until the kernel killed the process. Lines shorter than a chunk are never tested one by one,
 * hence the least value. */
#define CLI_MAX_LINE_DEFAULT ((uint64_t)64 << 20)
#define CLI_MAX_LINE_LEAST ((uint64_t)CLI_CHUNK_BYTES)

/* ---- util.c: messages, memory, whole-file I/O --------------------------------------------- */

extern const char *cli_cmd; /* "build", "query", ...: prefixes messages */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A library error about a file: "bloomline CMD: FILE: what: reason". */
void cli_status_error(const char *file, const char *what, bl_status st);
/* Flush standard output: CLI_EXIT_OK, or CLI_EXIT_ERROR with "write error" reported. */
int cli_flush_stdout(void);
/* Allocations that cannot fail: out of memory, the command says so and exits with status 2. */
void *cli_malloc(size_t n);
void *cli_calloc(size_t count, size_t n);
void *cli_realloc(void *p, size_t n);
/* Asked once the first CLI_READ_PROBE bytes of an input are in, if it is that long: the most
 * bytes the input may hold given them (a header may say), or 0 when they already show it is bad
 * (then reading stops there). */
#define CLI_READ_PROBE ((size_t)1 << 16)
typedef uint64_t (*cli_read_probe)(const unsigned char *prefix, size_t n, const void *ctx);
/* Read a whole file ("-" = stdin) into a malloc'd buffer. An input longer than max bytes (or
 * than the probe allows) is refused when it passes that, not read to its end (returns -1 after
 * a message naming `what`); one the probe (may be NULL) finds bad returns 1, with what was read
 * in *out and *len. */
int cli_read_file(const char *path, uint64_t max, const char *what, cli_read_probe probe,
                  const void *ctx, unsigned char **out, size_t *len);
/* True when path is "-", names an existing device, FIFO or socket (symlinks followed), or is one
 * of the process's own open descriptors (/dev/stderr, /dev/fd/3, ...; directly or behind links):
 * an output written into as it stands, not a file a save replaces. */
bool cli_is_stream(const char *path);
/* Write a filter into such an output (standard output for "-") from the filter, with no copy of
 * it: in the file format (bl_save_fd), or exported in *format (bl_export_fd) when format is not
 * NULL. 0, or -1 after a message. */
int cli_write_stream(const char *path, const bl_filter *f, const bl_foreign_format *format);
/* Write all of buf to fd, retrying short writes. */
int cli_write_all(int fd, const void *buf, size_t len);
/* Open a filter: mapped read-only (and verified unless told not to) or loaded mutable; info
 * (may be NULL) receives its description. */
int cli_open_filter(const char *path, bool mutable_copy, bool verify, bl_filter **out,
                    bl_info *info);
/* Verify a mapped filter's payload: 0, or -1 with a message and *f freed (set to NULL). */
int cli_verify_filter(const char *path, bl_filter **f);
/* Write f to path: into a stream as it stands (cli_write_stream), else replacing the file
 * atomically with termination signals held; in the file format, or exported in format. 0, or -1
 * after a message. */
int cli_save_filter(const bl_filter *f, const char *path);
int cli_save_export(const bl_filter *f, const char *path, bl_foreign_format format);
/* SIGINT, SIGTERM, SIGHUP and SIGQUIT wait while a file is replaced (bl_save, bl_export_save):
 * ended between creating the temporary and renaming it, the process left the temporary, up to
 * the filter's size, beside the target. Released, a held signal ends the process as usual, the
 * save done (or failed cleanly). Release keeps errno, the save's. */
void cli_hold_termination(sigset_t *saved);
void cli_release_termination(const sigset_t *saved);

/* ---- args.c: options and numbers ------------------------------------------------------------ */

typedef struct cli_field {
    size_t field; /* 0: the whole line; else the 1-based field */
    unsigned char delim;
} cli_field;

int cli_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);
int cli_parse_double(const char *opt, const char *s, double lo, double hi, bool lo_open,
                     bool hi_open, double *out);
int cli_parse_delim(const char *s, unsigned char *out);
int cli_parse_threads(const char *s, unsigned *out);
/* -o's value, named `what` in the usage line: 0 when given and not empty, else CLI_EXIT_ERROR
 * (reported). */
int cli_check_output(const char *out, const char *what);
/* The index of the first of inputs[from..] that is FILE ('-': the file on standard input), or
 * ninputs when none is. */
size_t cli_input_index_of(const struct stat *file, char *const *inputs, size_t ninputs,
                          size_t from);
/* -1 with a message if OUT is one of the inputs ('-' for standard output or input) and writing
 * WRITTEN ("the filter") there would destroy it; a named OUT may be an input when named_ok (it is
 * replaced atomically once the inputs are read). */
int cli_output_is_an_input(const char *out, char *const *inputs, size_t ninputs, bool named_ok,
                           const char *written);

/* Options shared by build, add, remove and query: -t, -f, -d, -q, -z. */
typedef struct cli_common {
    unsigned threads; /* 0: the default, cli_threads_for's once the inputs are known */
    cli_field field;
    bool delim_set;
    bool quiet;
    unsigned char eol; /* the byte that ends a record: '\n', or NUL with -z */
    uint64_t max_line; /* --max-line */
} cli_common;
#define CLI_COMMON_SHORTOPTS "t:f:d:qz"
/* The long-only common option's code, above every command's own. */
enum { CLI_OPT_MAX_LINE = 512 };
#define CLI_COMMON_LONGOPT_MAX_LINE {"max-line", required_argument, NULL, CLI_OPT_MAX_LINE}
void cli_common_init(cli_common *cm);
/* 1: the option was one of the common ones, 0: not, -1: bad value (reported). */
int cli_common_option(cli_common *cm, int opt, const char *arg);
int cli_common_finish(cli_common *cm);
/* getopt error report: unknown option, missing value or a value a flag does not take. Call it
 * with optopt, argv[optind - 1] and the command's long options. */
struct option;
int cli_bad_option(int optopt_char, const char *arg, const struct option *longopts);
/* The help text of a command (NULL if unknown); main.c owns the texts. */
const char *cli_help_text(const char *cmd);
int cli_print_help(const char *cmd);
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- progress.c: the progress line on a terminal --------------------------------------------- */

typedef struct cli_progress {
    bool on;
    uint64_t total_bytes; /* 0 if unknown (pipes) */
    double start, last;
    bool shown;
    uint64_t lines; /* updated atomically by the workers */
} cli_progress;

void cli_progress_init(cli_progress *p, bool quiet, uint64_t total_bytes);
/* A byte count for people: "512 B", "1.2 GiB". */
void cli_human_bytes(double b, char *out, size_t cap);
void cli_progress_lines(cli_progress *p, uint64_t n);
/* Called with the reader's lock held, after each chunk is read. */
void cli_progress_update(cli_progress *p, uint64_t bytes_done);
void cli_progress_end(cli_progress *p);
/* Before a message on stderr: clear the progress line if one is drawn there, so that the message
 * gets a row of its own (the next update draws the line again, below it). */
void cli_progress_clear(void);

/* ---- reader.c: input files in line-aligned chunks, lines and keys ---------------------------- */

/* Records ("lines") end at a newline, or at a NUL byte with -z (records are then taken as they
 * are: a newline or a final \r is a key byte). Below, "line" and "newline" mean the record and
 * its terminator, whichever byte that is. */

/* A regular input file, shared by the chunks cut from it; the last user closes it. */
typedef struct cli_file {
    int fd;
    int refs; /* atomic */
    uint64_t size;
} cli_file;

typedef struct cli_chunk {
    char *buf; /* the worker's own storage */
    size_t cap;
    const char *data; /* whole lines (the last line of an input may lack its newline) */
    size_t len;
    unsigned char eol; /* the reader's line terminator */
    size_t file; /* index of the input it came from */
    uint64_t seq;
    /* A range of a regular file still to be read by the worker (cli_chunk_load). */
    cli_file *src;
    uint64_t off, end;
    bool first; /* the range starts at a line start (the file's first chunk) */
    void *map;  /* the mapping data points into, if any */
    size_t map_len;
    cli_file *held; /* the file data came from, open until the chunk is checked */
} cli_chunk;

typedef struct cli_reader {
    char *const *paths;
    size_t npaths;
    size_t cur;
    int fd;
    bool open;
    cli_file *file; /* the current input if it is a regular file */
    uint64_t off;   /* next byte of it to hand out */
    bool first_pending;
    bool keep_going; /* report a bad input and go on (query), or stop (build, add) */
    bool peek;       /* leave standard input where it was (the line count before a build) */
    int errors;      /* atomic */
    bool *refused;   /* per input: could not be opened (no count line for it, as grep) */
    bool shrank;     /* atomic: an input was truncated while being read (reported) */
    int wake[2];     /* a pipe: a byte in it ends a wait for a stream's input (cli_reader_stop) */
    char *carry;
    size_t carry_len, carry_cap;
    uint64_t bytes;
    unsigned char eol; /* the line terminator, fixed for the run; each chunk carries a copy */
    uint64_t max_line; /* a longer line is an input error (CLI_MAX_LINE_DEFAULT) */
    bool skipping;     /* a stream's line was too long: its rest is being read past */
} cli_reader;

/* eol: the byte lines end with ('\n', or NUL for -z); max_line: the longest line taken (at least
 * CLI_MAX_LINE_LEAST). A longer line is reported and counted in errors; with keep_going it is
 * passed over and the lines after it read, else reading stops there. */
void cli_reader_init(cli_reader *r, char *const *paths, size_t npaths, bool keep_going,
                     unsigned char eol, uint64_t max_line);
/* Install the SIGBUS handler for truncated mappings (reader.c), once, before any file is mapped. */
void cli_catch_sigbus(void);
/* A file mapped whole, [map, map + len), as input NAME: a read past its end once it shrank ends
 * the run with "NAME: file shrank while being read" (status 2). map NULL: none any more. */
void cli_sigbus_names(const void *map, size_t len, const char *name);
void cli_reader_free(cli_reader *r);
/* Under the lock: the next chunk, either read (streams) or to load (regular files). 1: a
 * chunk, 0: no more input, -1: a fatal input error (already reported). */
int cli_reader_next(cli_reader *r, cli_chunk *c);
/* From any thread, without the lock: the run is stopping, and a cli_reader_next waiting for a
 * stream's input returns -1 at once (nothing reported), as will any later one on a stream. */
void cli_reader_stop(cli_reader *r);
/* Outside the lock: read a regular file's range, trimmed to the lines that start in it. 0 (the
 * chunk may then be empty), or -1 on a read error that must stop the run (reported). */
int cli_chunk_load(cli_reader *r, cli_chunk *c);
void cli_chunk_release(cli_chunk *c);
/* After a chunk is processed, in the same thread: -1 (reported) if its file shrank while it was
 * read, so that the chunk may have read zeros where the file had been and must be discarded;
 * else 0. */
int cli_chunk_check(cli_reader *r, cli_chunk *c);
const char *cli_input_name(const char *path);
/* The INPUT operands argv[first..argc), or "-" (standard input) when there are none. */
char *const *cli_inputs(int argc, char **argv, int first, size_t *n);
/* Sum of the sizes of the regular inputs (for the progress ETA); 0 if any is not regular. */
uint64_t cli_inputs_size(char *const *paths, size_t npaths);
/* Whether the inputs are regular files of one chunk (CLI_CHUNK_BYTES) in all, or less. */
bool cli_inputs_fit_one_chunk(char *const *paths, size_t npaths);

/* The lines of a chunk and their keys. */
typedef struct cli_lines {
    const void **key;
    size_t *len;
    size_t *end; /* offset just past the line's newline (query only) */
    uint64_t *hash;
    uint8_t *res;
    size_t n, cap;
    uint64_t short_lines; /* lines with fewer fields than asked */
} cli_lines;

void cli_lines_free(cli_lines *l);
/* Split a chunk into keys at its eol. keep_all: one entry per line (empty keys kept, ends
 * recorded); else only non-empty keys. A key drops a final \r only when lines end at '\n'. */
void cli_split(const cli_chunk *c, const cli_field *fs, bool keep_all, cli_lines *l);
void cli_lines_reserve(cli_lines *l, size_t n);

/* ---- workers.c: threads over chunks, pinned, in-order commits -------------------------------- */

/* The number of workers for these inputs: asked (-t) if not 0; else one where the inputs fit
 * one chunk (cli_inputs_fit_one_chunk), as more would have nothing to do and finding the cores
 * (hwloc) took ~2 of a small query's 3.6 ms (bench/cli.sh); else one per physical core. */
unsigned cli_threads_for(unsigned asked, char *const *inputs, size_t ninputs);

typedef struct cli_job {
    cli_reader *reader;
    unsigned threads;
    /* In parallel, one call per chunk. Non-zero stops the run. */
    int (*process)(void *ctx, unsigned worker, const cli_chunk *c);
    /* In input order (NULL: none). Non-zero stops the run. */
    int (*commit)(void *ctx, unsigned worker, const cli_chunk *c);
    void *ctx;
    cli_progress *progress;
} cli_job;

/* 0 when every chunk was processed; -1 on an error (input or callback). */
int cli_run(cli_job *job);

/* ---- count.c: the line count that sizes a build ---------------------------------------------- */

/* Count the lines (ended by eol) of regular files with the worker threads. 0: counted; 1: an
 * input is a stream (*regular false, nothing read); -1: a bad input, a line longer than max_line
 * among them (reported). */
int cli_count_lines(char *const *paths, size_t npaths, unsigned threads, unsigned char eol,
                    uint64_t max_line, uint64_t *lines, bool *regular);
/* The bytes of p[0, n) equal to eol (SWAR, eight at a time; tests/cli/test_cli_count.c). */
uint64_t cli_count_eol(const unsigned char *p, size_t n, unsigned char eol);

/* ---- feed.c: keys into a filter (build, add) or out of it (remove) ------------------------- */

typedef struct cli_feed_opts {
    bl_layout layout; /* the filter's */
    char *const *inputs;
    size_t ninputs;
    cli_field field;
    unsigned char eol; /* the line terminator */
    uint64_t max_line; /* the longest line taken */
    unsigned threads;
    bool quiet;
    uint64_t *absent; /* remove (counting filters) when not NULL: counts keys not in the filter */
} cli_feed_opts;

int cli_feed(bl_filter *f, const cli_feed_opts *o, uint64_t *keys_fed);
/* After a save: warn on stderr when the filter holds more keys than it was designed for. */
void cli_warn_capacity(const char *path, const bl_filter *f);

/* ---- commands ------------------------------------------------------------------------------- */

int cli_cmd_build(int argc, char **argv);
int cli_cmd_add(int argc, char **argv);
int cli_cmd_remove(int argc, char **argv);
int cli_cmd_query(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);
int cli_cmd_merge(int argc, char **argv);
int cli_cmd_export(int argc, char **argv);
/* --format NAME for export and import; CLI_EXIT_ERROR (reported) when missing or unknown. */
int cli_parse_format(const char *s, bl_foreign_format *fmt);
int cli_cmd_import(int argc, char **argv);

#endif
