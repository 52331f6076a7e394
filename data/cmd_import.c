/* cmd_import.c: fusim import: nccl-tests text or -J JSON, CSV samples, or CSV of measured
 * iteration times, into the results database; folders are searched for files.
 *
 * Every file is its own transaction: a file that cannot be read or parsed gets one line on
 * stderr and the others still import; the exit status is then 65 (or that file's own status
 * when it was the only one). A file whose bytes were imported before (same SHA-256) is skipped
 * with a note unless --again. A database error (locked, read-only, full) stops the import:
 * files already committed stay, the one in flight is rolled back. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_hash.h"
#include "fu_import.h"
#include "fu_measured.h"
#include "fu_options.h"
#include "fu_plan.h"

static const char fu__import_head[] =
    "usage: fusim import [options] FILE|FOLDER...\n"
    "\n"
    "Read benchmark results into the database: nccl-tests output as all_reduce_perf,\n"
    "all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf, alltoall_perf and\n"
    "sendrecv_perf print it (versions 2.10 .. 2.19, -g/-t/MPI, -d all/-o all), their -J JSON\n"
    "files, or CSV with a header naming op,ranks,bytes,time_us and optionally link (other\n"
    "columns ignored; lines starting with # are comments).\n"
    "\n"
    "Your own measured iteration times: CSV with a header naming workload (name or content\n"
    "hash), plan (predict's grammar, e.g. \"cap:25MiB,first:1MiB overlap=on pack=copy\";\n"
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
    "own status: 64 ranks or link unknown, 65 bad data, 66 missing); 70 database error\n"
    "(the file in flight is not stored). With several files a closing line on stderr\n"
    "counts files, samples and skips. The time column of nccl-tests is a mean; it is\n"
    "stored as t_median_us and the run's notes say so.\n";

typedef struct fu__import_file {
  const char *path;          /* as given, or found under a folder given */
  fu_import_result res;      /* parsed samples and provenance */
  fu_measured_csv_row *meas; /* or: measured iteration times (a measured-times CSV) */
  size_t n_meas;             /* rows in meas */
  char hash[FU_HASH_HEX];    /* SHA-256 of the file's bytes */
  int status;                /* FU_OK, or why the file was not imported */
  int64_t run_id;            /* run row once stored */
  int64_t dup_of;            /* > 0: already imported as this run, skipped */
} fu__import_file;

/* Distinct values of a sample field over a file, "a,b" (for the summary). */
static void fu__distinct(const fu_import_result *r, size_t off, char *dst, size_t cap) {
  dst[0] = '\0';
  for (size_t i = 0; i < r->n; i++) {
    const char *v = (const char *)&r->samples[i] + off;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(v, (const char *)&r->samples[j] + off);
    if (seen) continue;
    size_t n = strlen(dst);
    snprintf(dst + n, cap - n, "%s%s", n ? "," : "", v);
  }
}

static void fu__distinct_ranks(const fu_import_result *r, char *dst, size_t cap) {
  dst[0] = '\0';
  for (size_t i = 0; i < r->n; i++) {
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) seen = r->samples[j].ranks == r->samples[i].ranks;
    if (seen) continue;
    size_t n = strlen(dst);
    snprintf(dst + n, cap - n, "%s%d", n ? "," : "", r->samples[i].ranks);
  }
}

static void fu__import_print(fu_format fmt, const fu__import_file *f, size_t nf, int dry) {
  json_t *arr = fmt == FU_FORMAT_JSON ? json_array() : NULL;
  if (fmt == FU_FORMAT_TABLE)
    printf("%-44s %-15s %-13s %-6s %-7s %7s %7s %6s\n", "file", "format", "op", "ranks", "link",
           "samples", "skipped", "run");
  else if (fmt == FU_FORMAT_CSV)
    printf("file,format,op,ranks,link,samples,skipped,run_id\n");
  for (size_t i = 0; i < nf; i++) {
    if (f[i].status != FU_OK || f[i].dup_of > 0) continue; /* said on stderr */
    const fu_import_result *r = &f[i].res;
    char ops[128], links[64], ranks[64];
    fu__distinct(r, offsetof(fu_sample, op), ops, sizeof ops);
    fu__distinct(r, offsetof(fu_sample, link), links, sizeof links);
    fu__distinct_ranks(r, ranks, sizeof ranks);
    const char *fmt_name = fu_import_format_name(r->format);
    size_t nrows = r->n;
    if (f[i].meas) {
      fmt_name = "measured-times";
      snprintf(ops, sizeof ops, "-");
      snprintf(links, sizeof links, "-");
      snprintf(ranks, sizeof ranks, "-");
      nrows = f[i].n_meas;
    }
    if (fmt == FU_FORMAT_TABLE) {
      char run[24];
      if (dry) snprintf(run, sizeof run, "-");
      else snprintf(run, sizeof run, "%lld", (long long)f[i].run_id);
      printf("%-44s %-15s %-13s %-6s %-7s %7zu %7zu %6s\n", f[i].path, fmt_name, ops, ranks, links,
             nrows, r->n_skipped, run);
    } else if (fmt == FU_FORMAT_CSV) {
      printf("\"%s\",%s,\"%s\",\"%s\",\"%s\",%zu,%zu,", f[i].path, fmt_name, ops, ranks, links, nrows,
             r->n_skipped);
      if (dry) printf("\n");
      else printf("%lld\n", (long long)f[i].run_id);
    } else {
      json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s}", "file",
                            f[i].path, "format", fmt_name, "op", ops, "ranks", ranks, "link", links,
                            "samples", (json_int_t)nrows, "skipped", (json_int_t)r->n_skipped, "host",
                            r->prov.host, "gpu", r->prov.gpu, "nccl", r->prov.nccl, "notes",
                            r->prov.notes);
      if (o) {
        json_object_set_new(o, "run_id", dry ? json_null() : json_integer(f[i].run_id));
        json_array_append_new(arr, o);
      }
    }
  }
  if (arr) {
    char *s = json_dumps(arr, JSON_INDENT(2));
    if (s) printf("%s\n", s);
    free(s);
    json_decref(arr);
  }
}

/* Appends path (and, for a folder, every file under it in name order) to *v. A folder with no
 * files, or one that cannot be read, is appended itself and fails when parsed (depth -1 appends
 * without looking). O(entries log entries) per folder for the sort. */
static int fu__expand(const char *path, char ***v, size_t *n, size_t *cap, int depth) {
  struct stat sb;
  if (depth < 0 || stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    if (*n == *cap) {
      size_t nc = *cap ? 2 * *cap : 16;
      char **nv = realloc(*v, nc * sizeof *nv);
      if (!nv) return FU_ENOMEM;
      *v = nv;
      *cap = nc;
    }
    (*v)[*n] = strdup(path);
    if (!(*v)[*n]) return FU_ENOMEM;
    (*n)++;
    return FU_OK;
  }
  if (depth > 32) {
    fu_error("%s: folders nested more than 32 deep (a link loop?); not searched", path);
    return FU_OK;
  }
  struct dirent **ent = NULL;
  int k = scandir(path, &ent, NULL, alphasort);
  if (k < 0) return fu__expand(path, v, n, cap, -1); /* fails as a file: fu__parse_file says why */
  int st = FU_OK;
  size_t before = *n;
  for (int i = 0; i < k; i++) {
    const char *nm = ent[i]->d_name;
    if (st == FU_OK && strcmp(nm, ".") && strcmp(nm, "..")) {
      size_t len = strlen(path) + strlen(nm) + 2;
      char *child = malloc(len);
      if (!child) st = FU_ENOMEM;
      else {
        snprintf(child, len, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", nm);
        st = fu__expand(child, v, n, cap, depth + 1);
        free(child);
      }
    }
    free(ent[i]);
  }
  free(ent);
  if (st == FU_OK && *n == before) st = fu__expand(path, v, n, cap, -1); /* said when parsed */
  return st;
}

/* Parses one file (no database): samples, or measured iteration times. */
static int fu__parse_file(fu__import_file *f, const fu_import_opts *opts) {
  char *text = NULL;
  size_t len = 0;
  struct stat sb;
  if (stat(f->path, &sb) == 0 && S_ISDIR(sb.st_mode)) { /* one fu__expand found no file in */
    DIR *d = opendir(f->path);
    if (d) fu_error("%s: is a directory with no files to import", f->path);
    else fu_error("%s: cannot read the folder: %s", f->path, strerror(errno));
    if (d) closedir(d);
    return FU_ENOINPUT;
  }
  int st = fu_read_file(f->path, &text, &len);
  if (st == FU_OK) {
    fu_hash_bytes(text, len, f->hash);
    if (opts->format == FU_IMPORT_AUTO && fu_measured_sniff(text, len))
      st = fu_measured_parse(f->path, text, len, &f->meas, &f->n_meas);
    else
      st = fu_import_parse(f->path, text, len, opts, &f->res);
  }
  free(text);
  if (st == FU_OK && f->res.n_skipped)
    fu_warn("%s: skipped %zu row%s that could not be read (--lenient)", f->path, f->res.n_skipped,
            f->res.n_skipped == 1 ? "" : "s");
  return st;
}

/* The workload a measured row names: by hash or name in the database, else a workload file or
 * bundled name (stored by content then, as predict would). */
static int fu__measured_workload(fu_db *db, const char *file, const fu_measured_csv_row *r,
                                 int64_t *id) {
  int n = 0;
  FU_CHECK(fu_db_workload_find(db, r->workload, id, &n));
  if (n > 1) {
    fu_error("%s:%ld: workload '%s' names %d different workloads in the database; give its hash "
             "(fusim report sql \"SELECT hash, name, created FROM workloads\")",
             file, r->line, r->workload, n);
    return FU_EDATA;
  }
  if (n == 1) return FU_OK;
  char *path = fu_workload_resolve(r->workload);
  if (!path) {
    fu_error("%s:%ld: workload '%s' is neither in the database nor a workload file or bundled "
             "name (fusim workload --list)", file, r->line, r->workload);
    return FU_EDATA;
  }
  fu_workload w;
  fu_workload_init(&w);
  json_t *j = NULL;
  int st = fu_workload_load(path, 0, &w);
  if (st == FU_OK) st = fu_workload_to_json(&w, &j);
  char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
  if (st == FU_OK && !text) st = FU_ENOMEM;
  if (st == FU_OK) st = fu_db_workload_store(db, text, w.name, id);
  free(text);
  json_decref(j);
  fu_workload_finish(&w);
  free(path);
  return st == FU_OK ? FU_OK : (st == FU_EDB ? st : FU_EDATA);
}

/* Stores one parsed file in its own transaction (or notes that it is already there). */
static int fu__store_file(fu_db *db, fu__import_file *f, const char *cmdline, int again) {
  FU_CHECK(fu_db_begin(db));
  int st = FU_OK;
  if (!again) {
    st = fu_db_import_find(db, f->hash, &f->dup_of);
    if (st == FU_OK && f->dup_of > 0) {
      fu_db_rollback(db);
      fprintf(stderr, "fusim: %s: already imported (run %lld, same content); skipped (--again "
              "imports it again)\n", f->path, (long long)f->dup_of);
      return FU_OK;
    }
  }
  fu_provenance prov = f->res.prov;
  if (f->meas) {
    fu_provenance_local(&prov, "measured times csv", 0, NULL);
    snprintf(prov.source_file, sizeof prov.source_file, "%s", f->path);
  }
  snprintf(prov.content_hash, sizeof prov.content_hash, "%s", f->hash);
  char note[200];
  snprintf(note, sizeof note, "imported by fusim %s: fusim %.150s", fu_version(),
           cmdline ? cmdline : "import");
  size_t n = strlen(prov.notes);
  if (n + 3 < sizeof prov.notes)
    snprintf(prov.notes + n, sizeof prov.notes - n, "%s%s", n ? "; " : "", note);
  if (!prov.cmdline[0] && cmdline) snprintf(prov.cmdline, sizeof prov.cmdline, "fusim %s", cmdline);
  if (st == FU_OK) st = fu_db_run_begin(db, f->meas ? "measure" : "import", &prov, &f->run_id);
  for (size_t k = 0; k < f->res.n && st == FU_OK; k++)
    st = fu_db_sample_insert(db, f->run_id, &f->res.samples[k]);
  for (size_t k = 0; k < f->n_meas && st == FU_OK; k++) {
    const fu_measured_csv_row *r = &f->meas[k];
    fu_measured_row m;
    memset(&m, 0, sizeof m);
    char what[600];
    snprintf(what, sizeof what, "%s:%ld: plan", f->path, r->line);
    fu_plan pl;
    fu_plan_init(&pl);
    st = fu__measured_workload(db, f->path, r, &m.workload_id);
    /* the framework column joins the plan (predictions keep it there: "... framework=ddp") */
    char spec[sizeof r->plan + 40];
    snprintf(spec, sizeof spec, "%s%s%s", r->plan, *r->framework && !strstr(r->plan, "framework=")
             ? " framework=" : "", strstr(r->plan, "framework=") ? "" : r->framework);
    if (st == FU_OK) st = fu_plan_parse_string(spec, what, &pl);
    if (st == FU_OK) fu_plan_string(&pl, m.plan, sizeof m.plan);
    fu_plan_finish(&pl);
    if (st != FU_OK) break;
    m.measured_us = r->measured_us;
    m.spread_us = r->spread_us;
    m.gpus = r->gpus;
    snprintf(m.framework, sizeof m.framework, "%s", r->framework);
    snprintf(m.notes, sizeof m.notes, "%s", r->notes);
    int64_t mid;
    st = fu_db_measured_store(db, f->run_id, &m, &mid);
  }
  if (st == FU_OK) return fu_db_commit(db);
  fu_db_rollback(db);
  return st;
}

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
  for (int i = optind; i < argc && st == FU_OK; i++) st = fu__expand(argv[i], &paths, &np, &pcap, 0);
  fu__import_file *files = st == FU_OK ? calloc(np ? np : 1, sizeof *files) : NULL;
  if (!files) st = FU_ENOMEM;
  size_t nf = files ? np : 0;
  /* 2. each file: parse, then store in its own transaction; a database error stops */
  fu_db *db = NULL;
  char *cmdline = fu_join_argv(argc, argv);
  size_t n_failed = 0, n_stored = 0, n_dup = 0, n_samples = 0, n_meas = 0, n_skipped = 0;
  int file_st = FU_OK; /* the status of a failed file */
  for (size_t i = 0; i < nf && st == FU_OK; i++) {
    fu__import_file *f = &files[i];
    f->path = paths[i];
    fu_import_result_init(&f->res);
    f->status = fu__parse_file(f, &opts);
    if (f->status == FU_OK && !dry) {
      if (!db) st = fu_db_open(fu_db_path_default(db_opt), FU_DB_READWRITE, &db);
      if (st == FU_OK) f->status = fu__store_file(db, f, cmdline, again);
      if (f->status == FU_EDB || f->status == FU_ENOMEM) st = f->status; /* stop: not the file's fault */
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
  if (st == FU_OK) fu__import_print(fmt, files, nf, dry);
  if (nf > 1)
    fprintf(stderr, "fusim: import: %zu file%s: %zu %s (%zu samples, %zu measured times, %zu bad "
            "rows skipped), %zu already imported, %zu failed%s\n", nf, nf == 1 ? "" : "s", n_stored,
            dry ? "read" : "imported", n_samples, n_meas, n_skipped, n_dup, n_failed,
            st != FU_OK ? "; stopped at a database error" : "");
  if (st == FU_OK && n_failed) st = nf == 1 ? file_st : FU_EDATA;
  fu_db_close(db);
  free(cmdline);
  for (size_t i = 0; i < nf; i++) {
    fu_import_result_finish(&files[i].res);
    free(files[i].meas);
  }
  for (size_t i = 0; i < np; i++) free(paths[i]);
  free(paths);
  free(files);
  return fu_exit_code(st);
}
