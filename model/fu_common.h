/* fu_common.h: status codes, diagnostics and checked number parsing shared by every module.
 *
 * Every function in fusim returns an int status (FU_OK or an FU_E* code from the table below)
 * and hands results out through pointers, as SQLite does. The table gives each code its message
 * and the process exit status a command returns for it (sysexits.h numbering). */
#ifndef FU_COMMON_H
#define FU_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* X(name, exit status, message) */
#define FU_STATUS_MAP(X)                                   \
  X(OK, 0, "success")                                      \
  X(EUSAGE, 64, "usage error")                             \
  X(EDATA, 65, "bad input data")                           \
  X(ENOINPUT, 66, "input missing or unreadable")           \
  X(ENODEV, 69, "no usable GPU")                           \
  X(EINTERNAL, 70, "internal error")                       \
  X(ENOMEM, 70, "out of memory")                           \
  X(EDB, 70, "database error")                             \
  X(EIO, 74, "i/o error")                                  \
  X(ECANTCREAT, 73, "output cannot be written")            \
  X(EBUSY, 75, "database busy")

typedef enum fu_status {
#define FU__ENUM(name, code, msg) FU_##name,
  FU_STATUS_MAP(FU__ENUM)
#undef FU__ENUM
  FU_STATUS_COUNT
} fu_status;

const char *fu_strerror(int status);  /* message for a status code */
int fu_exit_code(int status);         /* process exit status for a status code */

/* Diagnostics go to stderr, never stdout. fu_error prints "fusim: <msg>"; with FUSIM_DEBUG set
 * in the environment, FU_DEBUG lines are printed too, prefixed with source file and line. */
void fu_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fu_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Silences fu_warn (muted != 0) or lets it speak again; returns the previous setting. For work
   done again on the user's behalf whose warnings the first run already gave. */
int fu_warn_mute(int muted);
void fu__debug(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define FU_DEBUG(...) fu__debug(__FILE__, __LINE__, __VA_ARGS__)

/* Propagate a non-OK status to the caller (nccl-tests' NCCLCHECK habit, without the exit). */
#define FU_CHECK(expr)            \
  do {                            \
    int fu__st = (expr);          \
    if (fu__st != FU_OK) return fu__st; \
  } while (0)

/* Checked parsers: the whole string must be consumed (leading/trailing blanks allowed), no
 * overflow, no NaN or infinity, no hexadecimal ("0x10"). They print nothing and return FU_EDATA on failure. */
int fu_parse_double(const char *s, double *out);
int fu_parse_u64(const char *s, uint64_t *out);
int fu_parse_long(const char *s, long lo, long hi, long *out);
/* Sizes: plain bytes or a number with B, K/KB/KiB, M/MB/MiB, G/GB/GiB (all binary, as
 * nccl-tests' -b/-e read them), e.g. "25MiB", "1G", "64 KiB", "1.5MiB". */
int fu_parse_size(const char *s, uint64_t *out);
/* Format bytes as "64 KiB", "1.5 MiB" into buf. */
const char *fu_format_size(uint64_t bytes, char *buf, size_t len);

/* Output formats of every command that prints results. */
typedef enum fu_format { FU_FORMAT_TABLE, FU_FORMAT_CSV, FU_FORMAT_JSON } fu_format;
int fu_parse_format(const char *s, fu_format *out);

/* Write one CSV field to out, quoted (RFC 4180) when it holds a comma, a quote or a line break. */
void fu_csv_field(FILE *out, const char *s);

/* Write s to out as one gnuplot single-quoted string: ' doubles, and control characters (a line
 * break would end the string and start a gnuplot command) become '?'. For titles and labels
 * that come from input files. */
void fu_gnuplot_quote(FILE *out, const char *s);
/* Can a file be made at path? It is not a folder and its folder exists; with `writable`, the
 * folder takes new files (an output is written to a temporary file beside it), unless path
 * exists and is not a regular file (/dev/stdout, a FIFO: written in place). FU_OK, or FU_EUSAGE
 * with the reason in why ("folder /x: No such file or directory"). */
int fu_out_path_why(const char *path, int writable, char *why, size_t why_len);
/* The descriptor an output path names, or -1: "-" and /dev/stdout are 1, /dev/stderr 2,
 * /dev/fd/N and /proc/self/fd/N are N. Such a path is written through that descriptor, in
 * place: it is a link to whatever the descriptor holds (a terminal, a pipe, or a regular file
 * the shell opened, which a temporary file renamed over the link would not reach). */
int fu_out_fd(const char *path);
/* A plot file name: it ends in .png or .svg (*svg, when not NULL, says which), holds no control
 * character, and it can be written (fu_out_path_why, and an existing file writable). FU_OK, or
 * FU_EUSAGE with the reason in why; fu_plot_path_check prints it in one line naming WHAT. */
int fu_plot_path_why(const char *path, int *svg, char *why, size_t why_len);
int fu_plot_path_check(const char *what, const char *path, int *svg);

/* The database path a command uses: the --db value, else $FUSIM_DB, else "fusim.db". */
const char *fu_db_path_default(const char *from_option);

/* Read a whole file into a NUL-terminated malloc'd buffer. FU_ENOINPUT if it cannot be opened
 * or is a directory; FU_EDATA if it is empty, holds NUL bytes (binary), a line longer than
 * FU_READ_LINE_MAX or more than FU_READ_MAX bytes, each refused as soon as it is read (an endless
 * stream never fills memory); FU_ENOMEM when memory runs out. Prints the reason in one line. */
#define FU_READ_MAX (1 << 30)          /* 1 GiB: no input fusim reads comes near */
#define FU_READ_LINE_MAX (64 << 20)    /* 64 MiB: a workload written on one line fits many times */
int fu_read_file(const char *path, char **out, size_t *len);

/* The command line joined with spaces, for provenance (malloc'd). */
char *fu_join_argv(int argc, char **argv);

/* A provenance list (entries joined by "; ") into dst, cap bytes, without cutting an entry: the
 * list as is where it fits, else the first entries that fit followed by "; and N more" for the
 * rest. An entry "and N more" already there counts as N, and entries after it join it (a list
 * cut before stays cut: "A; and 1 more" + "; C" is "A; and 2 more"). A first entry that does
 * not fit even alone is cut and ends with "..." (before the marker): no cut goes unmarked. */
void fu_list_fit(char *dst, size_t cap, const char *list);

/* Version string from the build. */
const char *fu_version(void);

#endif
