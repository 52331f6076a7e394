/* fu_import_files.c: the files of one `fusim import`: folders searched, each file parsed and
 * stored in its own transaction, and the summary (see fu_import_files.h). It sits with the
 * commands because a measured-times file names plans and workloads (sim/). */
#include "fu_import_files.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fu_paths.h"
#include "fu_plan.h"
#include "fu_workload.h"


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

void fu_import_files_print(fu_format fmt, const fu_import_file *f, size_t nf, int dry) {
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
  if (k < 0) return fu__expand(path, v, n, cap, -1); /* fails as a file: fu_import_file_parse says why */
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

int fu_import_file_parse(fu_import_file *f, const fu_import_opts *opts) {
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

/* A row's framework column: one of fusim's, and the one its plan names where it names one (a
 * row whose plan said framework=ddp and whose column said hooks was stored and joined nothing). */
static int fu__measured_framework(const char *path, const fu_measured_csv_row *r) {
  fu_framework fw;
  if (!*r->framework) return FU_OK;
  if (fu_framework_parse(r->framework, &fw) != FU_OK) {
    fu_error("%s:%ld: framework '%s': expected ideal, ddp or hooks", path, r->line, r->framework);
    return FU_EDATA;
  }
  const char *named = strstr(r->plan, "framework=");
  if (named) {
    named += strlen("framework=");
    size_t n = strcspn(named, " ");
    if (n != strlen(r->framework) || strncmp(named, r->framework, n) != 0) {
      fu_error("%s:%ld: the plan says framework=%.*s, the framework column %s", path, r->line, (int)n, named,
               r->framework);
      return FU_EDATA;
    }
  }
  return FU_OK;
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
  /* a relative path is the CSV's own first, so the CSV imports from any folder */
  char *path = fu_paths_beside(file, r->workload);
  if (!path) path = fu_workload_resolve(r->workload);
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
  return st == FU_OK || fu_import_stops(st) ? st : FU_EDATA;
}

int fu_import_file_store(fu_db *db, fu_import_file *f, const char *cmdline, int again) {
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
    if (st == FU_OK) st = fu__measured_framework(f->path, r);
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

int fu_import_stops(int status) {
  return status == FU_EDB || status == FU_ECANTCREAT || status == FU_EBUSY || status == FU_ENOMEM;
}

int fu_import_expand(const char *path, char ***v, size_t *n, size_t *cap) { return fu__expand(path, v, n, cap, 0); }

void fu_import_file_finish(fu_import_file *f) {
  fu_import_result_finish(&f->res);
  free(f->meas);
}
