/* fu_import.h: parsers for benchmark output: nccl-tests text logs, nccl-tests -J JSON and CSV.
 *
 * The parsers turn text into fu_sample rows plus provenance, without a database, so that the
 * import command, the tests and the fuzz harness share them. They never abort: every problem is
 * a status and a message "NAME:LINE: what is wrong" (printed to stderr unless opts.quiet, the
 * first one kept in fu_import_result.error). Strict by default: one bad row fails the whole
 * parse; with opts.lenient bad rows are skipped and counted.
 *
 * What is read from nccl-tests text (versions 2.10 .. 2.19 and their header variants):
 *  - op: "# Collective test starting: all_reduce_perf", else opts.op, else the file name;
 *  - ranks: the number of "#  Rank N Group G Pid P on HOST device D [..] GPU" lines (all hosts),
 *    else nThread * nGpus of the "# nThread" line (times mpirun -np when a command line shows
 *    it), else -g / -t of a command line in the log, else opts.ranks;
 *  - link: opts.link, else "net" when the Rank lines name more than one host, else "hbm" for a
 *    single rank (NCCL copies within the GPU), else a token of the file name (nvlink, nvls,
 *    nvswitch, pcie, net, ib); otherwise FU_EUSAGE asking for --link;
 *  - the column header names the columns (time/cputime, algbw, busbw, #wrong or error, root
 *    present or not, per-iteration i_min ..., timestamps), so the layouts of all versions read;
 *  - both out-of-place and in-place columns become samples (in_place 0 / 1);
 *  - the time column is nccl-tests' mean over `iters` iterations: stored as t_median_us and
 *    said so in the provenance notes;
 *  - a table shorter than the header's minBytes..maxBytes sweep promises is a truncated log.
 * Lines from NCCL (INFO, WARN) and other tools are skipped; "NCCL version" lines give the NCCL
 * version, "# nccl-tests version" the tool version. */
#ifndef FU_IMPORT_H
#define FU_IMPORT_H

#include <stddef.h>
#include <stdio.h>

#include "fu_db.h"

typedef enum fu_import_format {
  FU_IMPORT_AUTO,            /* sniff: '{' -> JSON, a "op,..." header -> CSV, else text */
  FU_IMPORT_TEXT,            /* nccl-tests stdout */
  FU_IMPORT_JSON,            /* nccl-tests -J output */
  FU_IMPORT_CSV              /* op,ranks,bytes,time_us[,link] with a header line */
} fu_import_format;

const char *fu_import_format_name(fu_import_format f);
int fu_import_format_parse(const char *s, fu_import_format *out); /* FU_EUSAGE if unknown */

typedef struct fu_import_opts {
  fu_import_format format;   /* FU_IMPORT_AUTO to detect */
  int lenient;               /* 1: skip and count bad rows instead of failing */
  int quiet;                 /* 1: print nothing (fuzzing); messages still go to result.error */
  int ranks;                 /* --ranks, 0 when not given */
  char link[16];             /* --link, "" when not given */
  char op[24];               /* --op, "" when not given */
  char gpu[64];              /* --gpu: the GPU model of a file that names none, "" when not given */
} fu_import_opts;

/* An operation's fu_op name from any spelling ("all_reduce_perf", "AllReduce", "h2d"). */
int fu_import_op_name(const char *s, char *out, size_t cap);   /* FU_EDATA if unknown */
int fu_import_link_ok(const char *s);                          /* 1 for a fu_link name */

/* The CSV `fusim calib --format csv` writes, which the CSV parser reads back: the header, then
 * one row per sample (mean_us: the mean time, NaN when not kept). What was not measured (NaN
 * statistics, n_wrong -1) is an empty cell, read back as absent. */
void fu_import_csv_header(FILE *out);
void fu_import_csv_row(FILE *out, const fu_sample *s, double mean_us);

void fu_import_opts_init(fu_import_opts *o);

typedef struct fu_import_result {
  fu_sample *samples;        /* parsed rows (malloc'd, n used of cap) */
  size_t n;                  /* samples in use */
  size_t cap;                /* allocated */
  size_t n_skipped;          /* bad rows skipped under lenient */
  size_t n_tables;           /* result tables (or JSON result lists, CSV files) read */
  fu_import_format format;   /* the format read */
  fu_provenance prov;        /* source file, host, GPU, versions, command line, notes */
  char error[512];           /* the first message, "" if none */
} fu_import_result;

void fu_import_result_init(fu_import_result *r);
void fu_import_result_finish(fu_import_result *r); /* frees samples; accepts NULL */

/* Parse `len` bytes of `text` (need not be NUL-terminated; may hold NUL bytes, which are an
 * error) read from the file `name`. Returns FU_OK with r->n > 0, FU_EDATA for bad data,
 * FU_EUSAGE when ranks, op or link cannot be told and were not given, FU_ENOMEM. On failure the
 * samples already parsed are kept in r but must not be stored. */
int fu_import_parse(const char *name, const char *text, size_t len, const fu_import_opts *opts,
                    fu_import_result *r);

#endif
