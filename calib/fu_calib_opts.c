/* fu_calib_opts.c: options of `fusim calib`, checked in full before any GPU work. The short
 * letters and long names are nccl-tests' own (-b -e -f -i -w -n -c -o -d -g ...). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_calib.h"
#include "fu_options.h"

const char *fu_calib_dtype_name(int dt) { return fu_dtype_name((fu_dtype)dt); }

int fu_calib_dtype_size(int dt) { return fu_dtype_size((fu_dtype)dt); }

int fu_calib_dtype_parse(const char *s, int *out) {
  fu_dtype d;
  FU_CHECK(fu_dtype_parse(s, &d));
  *out = (int)d;
  return FU_OK;
}

void fu_calib_opts_init(fu_calib_opts *o) {
  memset(o, 0, sizeof *o);
  o->min_bytes = 4;
  o->max_bytes = 1ULL << 30;
  o->factor = 4.0;
  o->warmup = 5;
  o->iters = 50;
  o->budget_s = 0.25;
  o->suites = FU_CALIB_SUITE_ALL;
  o->colls = FU_CALIB_COLL_ALL;
  o->dtypes[0] = FU_DT_FLOAT;
  o->ndtypes = 1;
  o->nalgos = 1;   /* "" */
  o->nprotos = 1;  /* "" */
  o->out_of_place = 1;
  o->in_place = 1;
  o->graph_off = 1;
  o->check = 1;
  o->progress = -1;
  o->format = FU_FORMAT_TABLE;
}

static const char fu__calib_head[] =
    "usage: fusim calib [options]\n"
    "Measures this machine: NCCL collectives over every visible GPU (or one rank per GPU under\n"
    "mpirun), PCIe and device copies, fusim's batched pack kernel, per-operation issue cost,\n"
    "cuBLAS GEMM throughput and its slowdown beside communication. Samples are committed to\n"
    "the database size by size; `fusim fit` turns them into a profile.\n\n";

static const char fu__calib_foot[] =
    "\nUnder MPI (built with -Dmpi, run as `mpirun -np N fusim calib`) each rank drives one GPU\n"
    "and rank 0 writes the results. Exit status: 0 done, 64 bad option, 69 no usable GPU or\n"
    "built without CUDA, 70 CUDA/NCCL/database failure.\n";

/* What the list options fill while parsing. */
typedef struct fu__calib_ctx {
  fu_calib_opts *o;          /* the options being filled */
  unsigned suites, colls;    /* --suite, --ops bits given */
  int set_dt, set_algo, set_proto, set_place; /* the list was given (the first one replaces the default) */
} fu__calib_ctx;

/* Calls fn(item, ctx) on each item of a comma list; why names the first item refused. */
static int fu__each_item(const char *list, int (*fn)(const char *, fu__calib_ctx *), fu__calib_ctx *c,
                         char *why, size_t len) {
  char buf[512];
  if (strlen(list) >= sizeof buf || list[0] == '\0') return snprintf(why, len, "empty or too long list"), FU_EUSAGE;
  strcpy(buf, list);
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
    if (fn(t, c) != FU_OK) return snprintf(why, len, "'%s' is not a valid item", t), FU_EUSAGE;
  return FU_OK;
}

/* The index of s in names, or -1. */
static int fu__index(const char *const *names, const char *s) {
  for (int i = 0; names[i]; i++)
    if (strcmp(s, names[i]) == 0) return i;
  return -1;
}

static int fu__add_suite(const char *s, fu__calib_ctx *c) {
  static const char *const names[] = {"coll", "copy", "issue", "pack", "gemm", "overlap", NULL};
  int i = fu__index(names, s);
  if (strcmp(s, "all") == 0) return c->suites |= FU_CALIB_SUITE_ALL, FU_OK;
  return i < 0 ? FU_EDATA : (c->suites |= 1u << i, FU_OK);
}

static int fu__add_coll(const char *s, fu__calib_ctx *c) {
  static const char *const names[] = {"allreduce", "allgather", "reducescatter", "broadcast", "sendrecv",
                                      "alltoall", NULL};
  int i = fu__index(names, s);
  if (strcmp(s, "all") == 0) return c->colls |= FU_CALIB_COLL_ALL, FU_OK;
  return i < 0 ? FU_EDATA : (c->colls |= 1u << i, FU_OK);
}

static int fu__add_dtype(const char *s, fu__calib_ctx *c) {
  fu_calib_opts *o = c->o;
  int dt;
  if (o->ndtypes >= FU_CALIB_MAX_LIST || fu_calib_dtype_parse(s, &dt) != FU_OK) return FU_EDATA;
  for (int i = 0; i < o->ndtypes; i++)
    if (o->dtypes[i] == dt) return FU_OK;
  o->dtypes[o->ndtypes++] = dt;
  return FU_OK;
}

/* Adds s (case-insensitive; "default"/"auto" = "" for NCCL's choice) to a list of names. */
static int fu__add_name(const char *s, char (*items)[16], int *n, const char *const *allowed) {
  if (*n >= FU_CALIB_MAX_LIST) return FU_EDATA;
  const char *v = NULL;
  if (strcasecmp(s, "default") == 0 || strcasecmp(s, "auto") == 0) v = "";
  for (int i = 0; !v && allowed[i]; i++)
    if (strcasecmp(s, allowed[i]) == 0) v = allowed[i];
  if (!v) return FU_EDATA;
  for (int i = 0; i < *n; i++)
    if (strcmp(items[i], v) == 0) return FU_OK;
  snprintf(items[*n], 16, "%s", v);
  (*n)++;
  return FU_OK;
}

static int fu__add_algo(const char *s, fu__calib_ctx *c) {
  static const char *const algos[] = {"Ring", "Tree", "CollnetDirect", "CollnetChain", "PAT",
                                      NULL}; /* NVLS stays off on shared hosts */
  return fu__add_name(s, c->o->algos, &c->o->nalgos, algos);
}

static int fu__add_proto(const char *s, fu__calib_ctx *c) {
  static const char *const protos[] = {"LL", "LL128", "Simple", NULL};
  return fu__add_name(s, c->o->protos, &c->o->nprotos, protos);
}

static int fu__add_place(const char *s, fu__calib_ctx *c) {
  if (strcmp(s, "oop") == 0 || strcmp(s, "out-of-place") == 0) return c->o->out_of_place = 1, FU_OK;
  if (strcmp(s, "ip") == 0 || strcmp(s, "in-place") == 0) return c->o->in_place = 1, FU_OK;
  return FU_EDATA;
}

/* Option values: the lists (the first -d, --algo, --proto, --place replaces the default list). */
static int fu__opt_suite(void *v, const char *a, char *why, size_t len) { return fu__each_item(a, fu__add_suite, v, why, len); }
static int fu__opt_ops(void *v, const char *a, char *why, size_t len) { return fu__each_item(a, fu__add_coll, v, why, len); }

/* A list whose first occurrence replaces the default entries (count *n) instead of adding. */
static int fu__opt_list(fu__calib_ctx *c, int *set, int *n, int (*fn)(const char *, fu__calib_ctx *), const char *a,
                        char *why, size_t len) {
  if (!(*set)++) *n = 0;
  return fu__each_item(a, fn, c, why, len);
}

static int fu__opt_dtype(void *v, const char *a, char *why, size_t len) {
  fu__calib_ctx *c = v;
  return fu__opt_list(c, &c->set_dt, &c->o->ndtypes, fu__add_dtype, a, why, len);
}

static int fu__opt_algo(void *v, const char *a, char *why, size_t len) {
  fu__calib_ctx *c = v;
  return fu__opt_list(c, &c->set_algo, &c->o->nalgos, fu__add_algo, a, why, len);
}

static int fu__opt_proto(void *v, const char *a, char *why, size_t len) {
  fu__calib_ctx *c = v;
  return fu__opt_list(c, &c->set_proto, &c->o->nprotos, fu__add_proto, a, why, len);
}

static int fu__opt_place(void *v, const char *a, char *why, size_t len) {
  fu__calib_ctx *c = v;
  c->o->out_of_place = c->o->in_place = 0; /* each --place says the whole set */
  c->set_place = 1;
  return fu__each_item(a, fu__add_place, c, why, len);
}

static int fu__opt_link(void *v, const char *a, char *why, size_t len) {
  static const char *const links[] = {"nvlink", "pcie", "net", "hbm", NULL};
  if (fu__index(links, a) < 0) return snprintf(why, len, "expected nvlink, pcie, net or hbm"), FU_EUSAGE;
  snprintf(v, sizeof ((fu_calib_opts *)0)->link, "%s", a);
  return FU_OK;
}

int fu_calib_parse(int argc, char **argv, fu_calib_opts *o, int *help) {
  static const char *const graphs[] = {"off", "on", "both", NULL};
  static const char *const progress[] = {"auto", "on", "off", NULL};
  fu_calib_opts_init(o);
  *help = 0;
  fu__calib_ctx c = {.o = o};
  fu_opt_output out;
  fu_opt_output_init(&out);
  fu_opt_gpus gp = {0};
  long warmup = o->warmup, iters = o->iters, check = o->check;
  int graph = 0, prog = 0;
  int set_b = 0, set_e = 0, set_f = 0, set_i = 0, set_w = 0, set_n = 0, set_budget = 0, set_ops = 0;
  int set_suite = 0, set_graph = 0, set_prog = 0;
  const fu_option rows[] = {
      FU_OPT_HEADER("sizes and iterations (as nccl-tests)"),
      {FU_OPT_SIZE('b', "minbytes", &o->min_bytes, "SIZE", "smallest size (default 4; B, KiB, MiB, GiB)"),
       .seen = &set_b},
      {FU_OPT_SIZE('e', "maxbytes", &o->max_bytes, "SIZE", "largest size (default 1GiB)"), .seen = &set_e},
      {FU_OPT_DOUBLE('f', "stepfactor", &o->factor, 1, 1e6, "X", "multiply the size by X (> 1, default 4)"),
       .open_lo = 1, .why = "the step factor must be a number above 1", .seen = &set_f},
      {FU_OPT_SIZE('i', "stepbytes", &o->step_bytes, "SIZE", "add SIZE instead of multiplying"), .seen = &set_i},
      {FU_OPT_INT('w', "warmup", &warmup, 0, 100000, "N", "warm-up runs per size (default 5)"),
       .also = "warmup_iters", .seen = &set_w},
      {FU_OPT_INT('n', "iters", &iters, 1, 1000000, "N", "timed runs per size (default 50; large sizes stop on --budget)"),
       .why = "needs at least one timed iteration (1 to 1000000)", .seen = &set_n},
      {FU_OPT_DOUBLE(0, "budget", &o->budget_s, 0, 3600, "SECONDS", "time of timed runs per size and variant (default 0.25)"),
       .open_lo = 1, .seen = &set_budget},
      {FU_OPT_INT('c', "check", &check, 0, 1, "0|1", "verify the data once per size (default 1)")},
      {FU_OPT_FLAG(0, "quick", &o->quick, "a reduced sweep that runs in under a minute")},
      FU_OPT_HEADER("what to measure"),
      {FU_OPT_CUSTOM('s', "suite", &c, fu__opt_suite, "LIST", "coll,copy,issue,pack,gemm,overlap or all (default all)"),
       .bad = "gpu", .seen = &set_suite},
      {FU_OPT_CUSTOM('o', "ops", &c, fu__opt_ops, "LIST",
                     "allreduce,allgather,reducescatter,broadcast,sendrecv,alltoall\nor all (default all)"),
       .bad = "hypercube", .seen = &set_ops},
      {FU_OPT_CUSTOM('d', "datatype", &c, fu__opt_dtype, "LIST",
                     "int8,uint8,int32,int64,half,float,double,bf16 (default float;\n"
                     "also fp16, fp32, bfloat16, ...)"), .bad = "complex"},
      FU_OPTS_GPUS(&gp),
      {FU_OPT_CUSTOM(0, "place", &c, fu__opt_place, "LIST", "oop,ip: out-of-place and/or in-place (default oop,ip)"),
       .bad = "sideways"},
      {FU_OPT_ENUM('G', "graph", &graph, graphs, "time plain launches and/or CUDA-graph replays (default off)"),
       .seen = &set_graph},
      {FU_OPT_CUSTOM('A', "algo", &c, fu__opt_algo, "LIST", "sweep NCCL_ALGO (e.g. default,Ring,Tree); recorded per sample"),
       .bad = "NVLS"},
      {FU_OPT_CUSTOM('P', "proto", &c, fu__opt_proto, "LIST", "sweep NCCL_PROTO (e.g. default,LL,LL128,Simple)"),
       .bad = "LL256"},
      {FU_OPT_CUSTOM(0, "link", o->link, fu__opt_link, "NAME",
                     "link name stored for collectives (default: hbm for one rank,\n"
                     "nvlink when the GPUs have NVLink, net across hosts, else pcie)"), .bad = "warp"},
      FU_OPT_HEADER("output"),
      FU_OPT_ROW_DB(&out.db),
      FU_OPT_ROW_FORMAT(&out.format),
      {FU_OPT_ENUM(0, "progress", &prog, progress, "progress on stderr (a bar on a terminal)"), .seen = &set_prog},
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"calib", fu__calib_head, fu__calib_foot, rows, 0};
  int first;
  int st = fu_opt_parse(&cmd, argc, argv, &first, help);
  if (st != FU_OK || *help) return st;
  o->db_arg = out.db;
  o->format = out.format;
  o->warmup = (int)warmup;
  o->iters = (int)iters;
  o->check = (int)check;
  o->ngpus = (int)gp.gpus;
  if (set_graph) o->graph_off = graph != 1, o->graph_on = graph != 0;
  if (set_prog) o->progress = prog == 0 ? -1 : prog == 1;
  if (set_i && o->step_bytes == 0) {
    fu_opt_usage_error(&cmd, "-i 0: the size step must be at least 1 byte");
    return FU_EUSAGE;
  }
  if (set_suite) o->suites = c.suites;
  if (set_ops) o->colls = c.colls;
  if (o->quick) {  /* the reduced sweep: only what the user did not set */
    if (!set_b) o->min_bytes = 4;
    if (!set_e) o->max_bytes = 64ULL << 20;
    if (!set_f && o->step_bytes == 0) o->factor = 16.0;
    if (!set_w) o->warmup = 2;
    if (!set_n) o->iters = 10;
    if (!set_budget) o->budget_s = 0.05;
    if (!set_ops) o->colls = FU_CALIB_ALLREDUCE | FU_CALIB_SENDRECV;
  }
  if (o->min_bytes == 0) {
    fu_error("calib: -b 0: the smallest size must be at least 1 byte");
    return FU_EUSAGE;
  }
  if (o->min_bytes > o->max_bytes) {
    char a[32], b[32];
    fu_error("calib: sizes out of order: -b %s is larger than -e %s",
             fu_format_size(o->min_bytes, a, sizeof a), fu_format_size(o->max_bytes, b, sizeof b));
    return FU_EUSAGE;
  }
  if (o->max_bytes > (64ULL << 30)) {
    fu_error("calib: -e: at most 64 GiB per buffer");
    return FU_EUSAGE;
  }
  if (o->suites == 0 || (o->suites == FU_CALIB_SUITE_COLL && o->colls == 0)) {
    fu_error("calib: nothing to measure (empty --suite or --ops)");
    return FU_EUSAGE;
  }
  if (!o->out_of_place && !o->in_place) {
    fu_error("calib: --place: choose oop, ip or both");
    return FU_EUSAGE;
  }
  if (o->ndtypes == 0) {
    fu_error("calib: -d: no data type given");
    return FU_EUSAGE;
  }
  uint64_t *sizes;
  int n;
  st = fu_calib_sizes(o, &sizes, &n);
  if (st != FU_OK) return st;
  free(sizes);
  return FU_OK;
}

#define FU__MAX_SIZES 4096

int fu_calib_sizes(const fu_calib_opts *o, uint64_t **sizes, int *n) {
  *sizes = NULL;
  *n = 0;
  uint64_t *v = malloc(sizeof *v * FU__MAX_SIZES);
  if (!v) return FU_ENOMEM;
  int k = 0;
  uint64_t s = o->min_bytes;
  for (;;) {
    if (k == FU__MAX_SIZES) {
      free(v);
      fu_error("calib: more than %d sizes from -b to -e; use a larger step", FU__MAX_SIZES);
      return FU_EUSAGE;
    }
    v[k++] = s;
    uint64_t next;
    if (o->step_bytes) {
      if (o->step_bytes > o->max_bytes - s) break;   /* s <= max_bytes: no wrap-around */
      next = s + o->step_bytes;
    } else {
      double d = floor((double)s * o->factor);
      if (d > (double)o->max_bytes) break;
      next = (uint64_t)d;
      if (next <= s) next = s + 1;
    }
    s = next;
  }
  *sizes = v;
  *n = k;
  return FU_OK;
}

static int fu__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

void fu_calib_stats(double *t, int n, double *tmin, double *tmed, double *tp95) {
  qsort(t, (size_t)n, sizeof *t, fu__cmp_double);
  *tmin = t[0];
  *tmed = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  int r = (int)ceil(0.95 * n);  /* nearest rank, 1-based */
  if (r < 1) r = 1;
  *tp95 = t[r - 1];
}

/* Where an existing database cannot be written (errno e from its file's or its folder's check):
 * read-only for this user (EACCES, EROFS) is EX_CANTCREAT, as the database itself says it
 * (fu_db.c); anything else, or a new database, a database error. */
static int fu__unwritable_status(int e, int exists) {
  return exists && (e == EACCES || e == EROFS) ? FU_ECANTCREAT : FU_EDB;
}

int fu_calib_db_writable(const char *path) {
  struct stat sb;
  int exists = stat(path, &sb) == 0;
  if (exists) {
    if (!S_ISREG(sb.st_mode)) {
      fu_error("%s: not a regular file, cannot hold the database", path);
      return FU_EDB;
    }
    if (access(path, R_OK | W_OK) != 0) {
      int e = errno;
      fu_error("%s: database is not writable: %s", path, strerror(e));
      return fu__unwritable_status(e, exists);
    }
  } else if (errno != ENOENT) {
    fu_error("%s: %s", path, strerror(errno));
    return FU_EDB;
  }
  /* The folder must take the new file and SQLite's -wal and -shm files. */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  if (access(dir, W_OK | X_OK) != 0) {
    int e = errno;
    fu_error("%s: database folder '%s' is not writable: %s", path, dir, strerror(e));
    return fu__unwritable_status(e, exists);
  }
  return FU_OK;
}
