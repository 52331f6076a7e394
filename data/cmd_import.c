/* cmd_import.c: fusim import: nccl-tests text or -J JSON, or CSV, into the results database.
 *
 * Every file is read and parsed before the database is opened, and all of them are stored in
 * one transaction: a bad row, a bad file, a locked or read-only database leaves the database
 * exactly as it was. */
#include <getopt.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_import.h"

static void fu__import_usage(FILE *out) {
  fprintf(out,
          "usage: fusim import [options] FILE...\n"
          "\n"
          "Read benchmark results into the database: nccl-tests output as all_reduce_perf,\n"
          "all_gather_perf, reduce_scatter_perf, broadcast_perf, reduce_perf, alltoall_perf and\n"
          "sendrecv_perf print it (versions 2.10 .. 2.19, -g/-t/MPI, -d all/-o all), their -J JSON\n"
          "files, or CSV with a header naming op,ranks,bytes,time_us and optionally link (other\n"
          "columns ignored; lines starting with # are comments).\n"
          "\n"
          "  --db FILE        database (default $FUSIM_DB, else ./fusim.db)\n"
          "  --ranks N        ranks, where the log does not say (its Rank lines win; a mismatch\n"
          "                   is an error)\n"
          "  --link L         link class: nvlink, pcie, pcie_h2d, pcie_d2h, pcie_bidir, hbm, net\n"
          "                   (else: several hosts -> net, one rank -> hbm, a file-name token)\n"
          "  --op OP          operation where the log and file name do not say (allreduce, ...)\n"
          "  --input FMT      auto (default), text, json or csv\n"
          "  --lenient        skip rows that cannot be read (and count them) instead of failing\n"
          "  --dry-run        parse and report, store nothing\n"
          "  --format F       summary as table (default), csv or json\n"
          "  -h, --help       this text\n"
          "\n"
          "Exit status: 0 stored; 64 usage (e.g. ranks or link unknown); 65 bad data (the first\n"
          "bad row is named as FILE:LINE: what); 66 missing file; 70 database error. On any\n"
          "error nothing is stored. The time column of nccl-tests is a mean; it is stored as\n"
          "t_median_us and the run's notes say so.\n");
}

typedef struct fu__import_file {
  const char *path;          /* as given */
  fu_import_result res;      /* parsed samples and provenance */
  int64_t run_id;            /* run row once stored */
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
    const fu_import_result *r = &f[i].res;
    char ops[128], links[64], ranks[64];
    fu__distinct(r, offsetof(fu_sample, op), ops, sizeof ops);
    fu__distinct(r, offsetof(fu_sample, link), links, sizeof links);
    fu__distinct_ranks(r, ranks, sizeof ranks);
    const char *fmt_name = fu_import_format_name(r->format);
    if (fmt == FU_FORMAT_TABLE) {
      char run[24];
      if (dry) snprintf(run, sizeof run, "-");
      else snprintf(run, sizeof run, "%lld", (long long)f[i].run_id);
      printf("%-44s %-15s %-13s %-6s %-7s %7zu %7zu %6s\n", f[i].path, fmt_name, ops, ranks, links,
             r->n, r->n_skipped, run);
    } else if (fmt == FU_FORMAT_CSV) {
      printf("\"%s\",%s,\"%s\",\"%s\",\"%s\",%zu,%zu,", f[i].path, fmt_name, ops, ranks, links, r->n,
             r->n_skipped);
      if (dry) printf("\n");
      else printf("%lld\n", (long long)f[i].run_id);
    } else {
      json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s}", "file",
                            f[i].path, "format", fmt_name, "op", ops, "ranks", ranks, "link", links,
                            "samples", (json_int_t)r->n, "skipped", (json_int_t)r->n_skipped, "host",
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

int fu_cmd_import(int argc, char **argv) {
  static const struct option longopts[] = {
      {"db", required_argument, NULL, 'D'},     {"ranks", required_argument, NULL, 'r'},
      {"link", required_argument, NULL, 'l'},   {"op", required_argument, NULL, 'o'},
      {"input", required_argument, NULL, 'i'},  {"lenient", no_argument, NULL, 'L'},
      {"dry-run", no_argument, NULL, 'n'},      {"format", required_argument, NULL, 'f'},
      {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
  fu_import_opts opts;
  fu_import_opts_init(&opts);
  const char *db_opt = NULL;
  fu_format fmt = FU_FORMAT_TABLE;
  int dry = 0, c;
  long v;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (c) {
      case 'D': db_opt = optarg; break;
      case 'r':
        if (fu_parse_long(optarg, 1, 1048576, &v) != FU_OK) {
          fu_error("import: --ranks '%s' is not a rank count (1 .. 1048576)", optarg);
          return fu_exit_code(FU_EUSAGE);
        }
        opts.ranks = (int)v;
        break;
      case 'l':
        if (strlen(optarg) >= sizeof opts.link) {
          fu_error("import: --link '%s' is not a link class", optarg);
          return fu_exit_code(FU_EUSAGE);
        }
        snprintf(opts.link, sizeof opts.link, "%s", optarg);
        break;
      case 'o':
        /* normalised like the logs' names: all_reduce, all_reduce_perf, AllReduce */
        if (fu_import_op_name(optarg, opts.op, sizeof opts.op) != FU_OK) {
          fu_error("import: --op '%s' is not an operation (allreduce, allgather, reducescatter, "
                   "broadcast, reduce, alltoall, sendrecv, h2d, d2h, d2d, ...)", optarg);
          return fu_exit_code(FU_EUSAGE);
        }
        break;
      case 'i':
        if (fu_import_format_parse(optarg, &opts.format) != FU_OK) {
          fu_error("import: --input must be auto, text, json or csv, not '%s'", optarg);
          return fu_exit_code(FU_EUSAGE);
        }
        break;
      case 'L': opts.lenient = 1; break;
      case 'n': dry = 1; break;
      case 'f':
        if (fu_parse_format(optarg, &fmt) != FU_OK) {
          fu_error("import: --format must be table, csv or json, not '%s'", optarg);
          return fu_exit_code(FU_EUSAGE);
        }
        break;
      case 'h': fu__import_usage(stdout); return 0;
      default: fu__import_usage(stderr); return fu_exit_code(FU_EUSAGE);
    }
  }
  if (optind >= argc) {
    fu_error("import: no input files; see 'fusim import --help'");
    return fu_exit_code(FU_EUSAGE);
  }
  size_t nf = (size_t)(argc - optind);
  fu__import_file *files = calloc(nf, sizeof *files);
  if (!files) return fu_exit_code(FU_ENOMEM);
  int st = FU_OK;
  /* 1. read and parse everything; stop at the first file that fails */
  for (size_t i = 0; i < nf && st == FU_OK; i++) {
    files[i].path = argv[optind + (int)i];
    fu_import_result_init(&files[i].res);
    char *text = NULL;
    size_t len = 0;
    st = fu_read_file(files[i].path, &text, &len);
    if (st == FU_OK) st = fu_import_parse(files[i].path, text, len, &opts, &files[i].res);
    free(text);
    if (st == FU_OK && files[i].res.n_skipped)
      fu_warn("%s: skipped %zu row%s that could not be read (--lenient)", files[i].path,
              files[i].res.n_skipped, files[i].res.n_skipped == 1 ? "" : "s");
  }
  /* 2. store everything in one transaction */
  fu_db *db = NULL;
  char *cmdline = fu_join_argv(argc, argv);
  if (st == FU_OK && !dry) st = fu_db_open(fu_db_path_default(db_opt), FU_DB_READWRITE, &db);
  if (st == FU_OK && db) st = fu_db_begin(db);
  for (size_t i = 0; i < nf && st == FU_OK && db; i++) {
    fu_provenance prov = files[i].res.prov;
    char note[200];
    snprintf(note, sizeof note, "imported by fusim %s: fusim %.150s", fu_version(),
             cmdline ? cmdline : "import");
    size_t n = strlen(prov.notes);
    if (n + 3 < sizeof prov.notes)
      snprintf(prov.notes + n, sizeof prov.notes - n, "%s%s", n ? "; " : "", note);
    if (!prov.cmdline[0] && cmdline) snprintf(prov.cmdline, sizeof prov.cmdline, "fusim %s", cmdline);
    st = fu_db_run_begin(db, "import", &prov, &files[i].run_id);
    for (size_t k = 0; k < files[i].res.n && st == FU_OK; k++)
      st = fu_db_sample_insert(db, files[i].run_id, &files[i].res.samples[k]);
  }
  if (db) {
    if (st == FU_OK) st = fu_db_commit(db);
    else fu_db_rollback(db);
  }
  if (st == FU_OK) fu__import_print(fmt, files, nf, dry);
  fu_db_close(db);
  free(cmdline);
  for (size_t i = 0; i < nf; i++) fu_import_result_finish(&files[i].res);
  free(files);
  return fu_exit_code(st);
}
