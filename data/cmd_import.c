/* cmd_import.c: fusim import: nccl-tests text or -J JSON, CSV samples, or CSV of measured
 * iteration times, into the results database; folders are searched for files.
 *
 * Every file is its own transaction: a file that cannot be read or parsed gets one line on
 * stderr and the others still import; the exit status is then 65 (or that file's own status
 * when it was the only one). A file whose bytes were imported before (same SHA-256) is skipped
 * with a note unless --again. What is not the file's fault stops the import (fu_import_stops:
 * a database error, read-only or full, 70 or 73; a database locked past FUSIM_DB_BUSY_MS, 75,
 * since every file after would wait as long and fail alike; memory run out): files already
 * committed stay, the one in flight is rolled back, and a retry stores the rest (the stored
 * ones skipped as already imported). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_import.h"
#include "fu_import_files.h"
#include "fu_options.h"

static const char fu__import_head[] =
    "usage: fusim import [options] FILE|FOLDER...\n"
    "\n"
    "Read benchmark results into the database: nccl-tests output as all_reduce_perf,\n"
    "all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf, alltoall_perf and\n"
    "sendrecv_perf print it (versions 2.0 .. 2.19, -g/-t/MPI, -d all/-o all; a # line between\n"
    "two rows is a comment, a row no header names is an error), their -J JSON files, or CSV\n"
    "with a header naming op,ranks,bytes,time_us and optionally link, nodes, gpus_per_process\n"
    "(GPUs one process drove; it must divide a node's), t_min_us, t_p95_us, nccl_version\n"
    "(X.Y.Z), count, in_place, dtype, algo, proto, busbw_gbps, n_wrong, graph (other columns\n"
    "ignored; lines starting with # are comments). Each sample keeps the NCCL its run used:\n"
    "the version NCCL printed, else one a comment names.\n"
    "\n"
    "Your own measured iteration times: CSV with a header naming workload (name, a workload\n"
    "file or bundled name, or its content hash or 8+ characters of it), plan (predict's\n"
    "grammar, e.g. \"cap:25MiB,first:1MiB overlap=on pack=copy\";\n"
    "quote it when it holds a comma), measured_us and optionally spread_us, gpus,\n"
    "framework, notes. They join predictions of the same workload and plan (and GPUs and\n"
    "framework when given) in v_prediction_error, one row per profile.\n"
    "\n"
    "A FOLDER is searched for files (recursively, in name order). Each file is its own\n"
    "transaction: one that cannot be read gets one line on stderr and the others import.\n"
    "A file already imported (same SHA-256 of its bytes) is skipped with a note.\n"
    "\n";

static const char fu__import_foot[] =
    "\n"
    "Exit status: 0 every file stored (or already there); 65 some file could not be read\n"
    "(each named in one line, FILE:LINE: what, the others stored; with a single file, its\n"
    "own status: 64 ranks or link unknown, 65 bad data, 66 missing); 70 database error,\n"
    "75 database locked past FUSIM_DB_BUSY_MS (10 s): either stops the import, the files\n"
    "before stored, the one in flight not (run again: stored files are skipped). With\n"
    "several files a closing line on stderr counts files, samples and skips. The time\n"
    "column of nccl-tests is a mean; it is stored as t_median_us and the run's notes say\n"
    "so.\n";

/* --link: a name the importer can hold (checked against the link classes when the file is read). */
static int fu__opt_link(void *value, const char *arg, char *why, size_t len) {
  fu_import_opts *o = value;
  if (strlen(arg) >= sizeof o->link) return snprintf(why, len, "not a link class"), FU_EUSAGE;
  snprintf(o->link, sizeof o->link, "%s", arg);
  return FU_OK;
}

/* --op: normalised like the logs' names: all_reduce, all_reduce_perf, AllReduce. */
static int fu__opt_op(void *value, const char *arg, char *why, size_t len) {
  fu_import_opts *o = value;
  if (fu_import_op_name(arg, o->op, sizeof o->op) == FU_OK) return FU_OK;
  snprintf(why, len, "not an operation (allreduce, allgather, reducescatter, broadcast, reduce, alltoall, "
                     "sendrecv, h2d, d2h, d2d, ...)");
  return FU_EUSAGE;
}

/* --gpu: a GPU model name the run's host row can hold. */
static int fu__opt_gpu(void *value, const char *arg, char *why, size_t len) {
  fu_import_opts *o = value;
  if (!*arg || strlen(arg) >= sizeof o->gpu)
    return snprintf(why, len, "expected a GPU model name of 1 to %zu characters", sizeof o->gpu - 1), FU_EUSAGE;
  snprintf(o->gpu, sizeof o->gpu, "%s", arg);
  return FU_OK;
}

static int fu__opt_input(void *value, const char *arg, char *why, size_t len) {
  if (fu_import_format_parse(arg, value) == FU_OK) return FU_OK;
  snprintf(why, len, "expected auto, text, json or csv");
  return FU_EUSAGE;
}

int fu_cmd_import(int argc, char **argv) {
  fu_import_opts opts;
  fu_import_opts_init(&opts);
  fu_opt_output out;
  fu_opt_output_init(&out);
  long ranks = 0;
  int dry = 0, again = 0;
  const fu_option rows[] = {
      FU_OPT_ROW_DB(&out.db),
      {FU_OPT_INT(0, "ranks", &ranks, 1, 1048576, "N",
                  "ranks, where the log does not say (its Rank lines win; a mismatch\nis an error)")},
      {FU_OPT_CUSTOM(0, "link", &opts, fu__opt_link, "L",
                     "link class: nvlink, pcie, pcie_h2d, pcie_d2h, pcie_bidir, hbm, net\n"
                     "(else: several hosts -> net, one rank -> hbm, a file-name token)"),
       .bad = "a-link-name-too-long"},
      {FU_OPT_CUSTOM(0, "op", &opts, fu__opt_op, "OP", "operation where the log and file name do not say (allreduce, ...)"),
       .bad = "hypercube"},
      {FU_OPT_CUSTOM(0, "gpu", &opts, fu__opt_gpu, "NAME",
                     "GPU model of files that name none (a CSV, a trimmed log), kept\n"
                     "apart from other GPUs by fit; a file naming another is an error"), .bad = ""},
      {FU_OPT_CUSTOM(0, "input", &opts.format, fu__opt_input, "FMT", "auto (default), text, json or csv"), .bad = "xml"},
      {FU_OPT_FLAG(0, "lenient", &opts.lenient, "skip rows that cannot be read (and count them) instead of failing")},
      {FU_OPT_FLAG(0, "again", &again, "import files whose content was imported before (adds samples again)")},
      {FU_OPT_FLAG(0, "dry-run", &dry, "parse and report, store nothing"), .also = "no-store"},
      FU_OPT_ROW_FORMAT(&out.format),
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"import", fu__import_head, fu__import_foot, rows, -1};
  int optind, done;
  int pst = fu_opt_parse(&cmd, argc, argv, &optind, &done);
  if (pst != FU_OK || done) return fu_exit_code(pst);
  opts.ranks = (int)ranks;
  fu_format fmt = out.format;
  const char *db_opt = out.db;
  if (optind >= argc) {
    fu_error("import: no input files; see 'fusim import --help'");
    return fu_exit_code(FU_EUSAGE);
  }
  /* 1. the files: arguments, folders searched */
  char **paths = NULL;
  size_t np = 0, pcap = 0;
  int st = FU_OK;
  for (int i = optind; i < argc && st == FU_OK; i++) st = fu_import_expand(argv[i], &paths, &np, &pcap);
  fu_import_file *files = st == FU_OK ? calloc(np ? np : 1, sizeof *files) : NULL;
  if (!files) st = FU_ENOMEM;
  size_t nf = files ? np : 0;
  /* 2. each file: parse, then store in its own transaction; a database error stops */
  fu_db *db = NULL;
  char *cmdline = fu_join_argv(argc, argv);
  size_t n_failed = 0, n_stored = 0, n_dup = 0, n_samples = 0, n_meas = 0, n_skipped = 0;
  int file_st = FU_OK; /* the status of a failed file */
  for (size_t i = 0; i < nf && st == FU_OK; i++) {
    fu_import_file *f = &files[i];
    f->path = paths[i];
    fu_import_result_init(&f->res);
    f->status = fu_import_file_parse(f, &opts);
    if (f->status == FU_OK && !dry) {
      if (!db) st = fu_db_open(fu_db_path_default(db_opt), FU_DB_READWRITE, &db);
      if (st == FU_OK) f->status = fu_import_file_store(db, f, cmdline, again);
      if (fu_import_stops(f->status)) st = f->status; /* not the file's fault */
    }
    if (st != FU_OK) break;
    if (f->status != FU_OK) {
      n_failed++;
      file_st = f->status;
    } else if (f->dup_of > 0) {
      n_dup++;
    } else {
      n_stored++;
      n_samples += f->res.n;
      n_meas += f->n_meas;
      n_skipped += f->res.n_skipped;
    }
  }
  /* the table only when a file was read: a refusal is the one line on stderr, stdout stays empty */
  if (st == FU_OK && n_failed < nf) fu_import_files_print(fmt, files, nf, dry);
  if (nf > 1)
    fprintf(stderr, "fusim: import: %zu file%s: %zu %s (%zu samples, %zu measured times, %zu bad "
            "rows skipped), %zu already imported, %zu failed%s\n", nf, nf == 1 ? "" : "s", n_stored,
            dry ? "read" : "imported", n_samples, n_meas, n_skipped, n_dup, n_failed,
            st == FU_EBUSY ? "; stopped: database busy (run again to import the rest)"
            : st != FU_OK ? "; stopped at a database error" : "");
  if (st == FU_OK && n_failed) st = nf == 1 ? file_st : FU_EDATA;
  fu_db_close(db);
  free(cmdline);
  for (size_t i = 0; i < nf; i++) fu_import_file_finish(&files[i]);
  for (size_t i = 0; i < np; i++) free(paths[i]);
  free(paths);
  free(files);
  return fu_exit_code(st);
}
