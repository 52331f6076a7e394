/* fu_calib_opts.c: options of `fusim calib`, checked in full before any GPU work. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_calib.h"

static const struct {
  const char *name;          /* NCCL-tests spelling */
  int size;                  /* bytes per element */
} fu__dtypes[FU_DT_COUNT] = {
    [FU_DT_INT8] = {"int8", 1},   [FU_DT_UINT8] = {"uint8", 1},   [FU_DT_INT32] = {"int32", 4},
    [FU_DT_INT64] = {"int64", 8}, [FU_DT_HALF] = {"half", 2},     [FU_DT_FLOAT] = {"float", 4},
    [FU_DT_DOUBLE] = {"double", 8}, [FU_DT_BF16] = {"bf16", 2},
};

const char *fu_calib_dtype_name(int dt) {
  return dt >= 0 && dt < FU_DT_COUNT ? fu__dtypes[dt].name : "?";
}

int fu_calib_dtype_size(int dt) { return dt >= 0 && dt < FU_DT_COUNT ? fu__dtypes[dt].size : 0; }

int fu_calib_dtype_parse(const char *s, int *out) {
  static const struct {
    const char *alias;       /* accepted spelling */
    int dt;                  /* what it means */
  } aliases[] = {{"fp16", FU_DT_HALF}, {"float16", FU_DT_HALF}, {"fp32", FU_DT_FLOAT},
                 {"float32", FU_DT_FLOAT}, {"fp64", FU_DT_DOUBLE}, {"bfloat16", FU_DT_BF16},
                 {"int", FU_DT_INT32}, {"char", FU_DT_INT8}};
  for (int i = 0; i < FU_DT_COUNT; i++)
    if (strcmp(s, fu__dtypes[i].name) == 0) return *out = i, FU_OK;
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(s, aliases[i].alias) == 0) return *out = aliases[i].dt, FU_OK;
  return FU_EDATA;
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

static void fu__usage(FILE *out) {
  fprintf(out,
      "usage: fusim calib [options]\n"
      "Measures this machine: NCCL collectives over every visible GPU (or one rank per GPU under\n"
      "mpirun), PCIe and device copies, fusim's batched pack kernel, per-operation issue cost,\n"
      "cuBLAS GEMM throughput and its slowdown beside communication. Samples are committed to\n"
      "the database size by size; `fusim fit` turns them into a profile.\n\n"
      "sizes and iterations (as nccl-tests):\n"
      "  -b, --minbytes SIZE     smallest size (default 4; B, KiB, MiB, GiB)\n"
      "  -e, --maxbytes SIZE     largest size (default 1GiB)\n"
      "  -f, --stepfactor X      multiply the size by X (> 1, default 4)\n"
      "  -i, --stepbytes SIZE    add SIZE instead of multiplying\n"
      "  -w, --warmup N          warm-up runs per size (default 5)\n"
      "  -n, --iters N           timed runs per size (default 50; large sizes stop on --budget)\n"
      "      --budget SECONDS    time of timed runs per size and variant (default 0.25)\n"
      "  -c, --check 0|1         verify the data once per size (default 1)\n"
      "      --quick             a reduced sweep that runs in under a minute\n"
      "what to measure:\n"
      "  -s, --suite LIST        coll,copy,issue,pack,gemm,overlap or all (default all)\n"
      "  -o, --ops LIST          allreduce,allgather,reducescatter,broadcast,sendrecv,alltoall\n"
      "                          or all (default all)\n"
      "  -d, --datatype LIST     int8,uint8,int32,int64,half,float,double,bf16 (default float)\n"
      "  -g, --ngpus N           GPUs in the single-process communicator (default: all visible)\n"
      "      --place LIST        oop,ip: out-of-place and/or in-place (default oop,ip)\n"
      "  -G, --graph off|on|both time plain launches and/or CUDA-graph replays (default off)\n"
      "  -A, --algo LIST         sweep NCCL_ALGO (e.g. default,Ring,Tree); recorded per sample\n"
      "  -P, --proto LIST        sweep NCCL_PROTO (e.g. default,LL,LL128,Simple)\n"
      "      --link NAME         link name stored for collectives (default: hbm for one rank,\n"
      "                          nvlink when the GPUs have NVLink, net across hosts, else pcie)\n"
      "output:\n"
      "      --db FILE           results database (default $FUSIM_DB, else ./fusim.db)\n"
      "      --format F          summary on stdout: table, csv or json (default table)\n"
      "      --progress auto|on|off   progress on stderr (a bar on a terminal)\n"
      "  -h, --help              this help\n\n"
      "Under MPI (built with -Dmpi, run as `mpirun -np N fusim calib`) each rank drives one GPU\n"
      "and rank 0 writes the results. Exit status: 0 done, 64 bad option, 69 no usable GPU or\n"
      "built without CUDA, 70 CUDA/NCCL/database failure.\n");
}

/* Splits a comma list into at most max items; calls fn(item, ctx) on each. */
static int fu__each_item(const char *opt, const char *list, int (*fn)(const char *, void *),
                         void *ctx) {
  char buf[512];
  if (strlen(list) >= sizeof buf || list[0] == '\0') {
    fu_error("calib: %s: empty or too long list", opt);
    return FU_EUSAGE;
  }
  strcpy(buf, list);
  char *save = NULL;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int st = fn(t, ctx);
    if (st != FU_OK) {
      fu_error("calib: %s: '%s' is not a valid item", opt, t);
      return FU_EUSAGE;
    }
  }
  return FU_OK;
}

static int fu__add_suite(const char *s, void *ctx) {
  static const char *names[] = {"coll", "copy", "issue", "pack", "gemm", "overlap"};
  unsigned *bits = ctx;
  if (strcmp(s, "all") == 0) return *bits |= FU_CALIB_SUITE_ALL, FU_OK;
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(s, names[i]) == 0) return *bits |= 1u << i, FU_OK;
  return FU_EDATA;
}

static int fu__add_coll(const char *s, void *ctx) {
  static const char *names[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                "sendrecv", "alltoall"};
  unsigned *bits = ctx;
  if (strcmp(s, "all") == 0) return *bits |= FU_CALIB_COLL_ALL, FU_OK;
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(s, names[i]) == 0) return *bits |= 1u << i, FU_OK;
  return FU_EDATA;
}

static int fu__add_dtype(const char *s, void *ctx) {
  fu_calib_opts *o = ctx;
  int dt;
  if (o->ndtypes >= FU_CALIB_MAX_LIST || fu_calib_dtype_parse(s, &dt) != FU_OK) return FU_EDATA;
  for (int i = 0; i < o->ndtypes; i++)
    if (o->dtypes[i] == dt) return FU_OK;
  o->dtypes[o->ndtypes++] = dt;
  return FU_OK;
}

typedef struct fu__strlist {
  char (*items)[16];         /* destination array */
  int *n;                    /* entries used */
  const char *const *allowed; /* NULL-terminated accepted values (case-insensitive) */
} fu__strlist;

static int fu__add_str(const char *s, void *ctx) {
  fu__strlist *l = ctx;
  if (*l->n >= FU_CALIB_MAX_LIST) return FU_EDATA;
  const char *v = NULL;
  if (strcasecmp(s, "default") == 0 || strcasecmp(s, "auto") == 0) v = "";
  for (int i = 0; !v && l->allowed[i]; i++)
    if (strcasecmp(s, l->allowed[i]) == 0) v = l->allowed[i];
  if (!v) return FU_EDATA;
  for (int i = 0; i < *l->n; i++)
    if (strcmp(l->items[i], v) == 0) return FU_OK;
  snprintf(l->items[*l->n], 16, "%s", v);
  (*l->n)++;
  return FU_OK;
}

static int fu__add_place(const char *s, void *ctx) {
  fu_calib_opts *o = ctx;
  if (strcmp(s, "oop") == 0 || strcmp(s, "out-of-place") == 0) return o->out_of_place = 1, FU_OK;
  if (strcmp(s, "ip") == 0 || strcmp(s, "in-place") == 0) return o->in_place = 1, FU_OK;
  return FU_EDATA;
}

static int fu__int_opt(const char *opt, const char *arg, long lo, long hi, int *out) {
  long v;
  if (fu_parse_long(arg, lo, hi, &v) != FU_OK) {
    fu_error("calib: %s '%s': expected an integer from %ld to %ld", opt, arg, lo, hi);
    return FU_EUSAGE;
  }
  *out = (int)v;
  return FU_OK;
}

static int fu__size_opt(const char *opt, const char *arg, uint64_t *out) {
  if (fu_parse_size(arg, out) != FU_OK) {
    fu_error("calib: %s '%s': expected a size such as 4, 64KiB, 1GiB", opt, arg);
    return FU_EUSAGE;
  }
  return FU_OK;
}

enum { FU__O_QUICK = 256, FU__O_BUDGET, FU__O_PLACE, FU__O_LINK, FU__O_DB, FU__O_FORMAT,
       FU__O_PROGRESS };

int fu_calib_parse(int argc, char **argv, fu_calib_opts *o, int *help) {
  static const struct option longopts[] = {
      {"minbytes", required_argument, NULL, 'b'},   {"maxbytes", required_argument, NULL, 'e'},
      {"stepfactor", required_argument, NULL, 'f'}, {"stepbytes", required_argument, NULL, 'i'},
      {"warmup", required_argument, NULL, 'w'},     {"warmup_iters", required_argument, NULL, 'w'},
      {"iters", required_argument, NULL, 'n'},      {"check", required_argument, NULL, 'c'},
      {"suite", required_argument, NULL, 's'},      {"ops", required_argument, NULL, 'o'},
      {"datatype", required_argument, NULL, 'd'},   {"ngpus", required_argument, NULL, 'g'},
      {"graph", required_argument, NULL, 'G'},      {"algo", required_argument, NULL, 'A'},
      {"proto", required_argument, NULL, 'P'},      {"help", no_argument, NULL, 'h'},
      {"quick", no_argument, NULL, FU__O_QUICK},    {"budget", required_argument, NULL, FU__O_BUDGET},
      {"place", required_argument, NULL, FU__O_PLACE}, {"link", required_argument, NULL, FU__O_LINK},
      {"db", required_argument, NULL, FU__O_DB},    {"format", required_argument, NULL, FU__O_FORMAT},
      {"progress", required_argument, NULL, FU__O_PROGRESS}, {NULL, 0, NULL, 0}};
  static const char *const algos[] = {"Ring", "Tree", "CollnetDirect", "CollnetChain", "PAT",
                                      NULL};   /* NVLS stays off on shared hosts */
  static const char *const protos[] = {"LL", "LL128", "Simple", NULL};
  fu_calib_opts_init(o);
  *help = 0;
  int set_b = 0, set_e = 0, set_f = 0, set_w = 0, set_n = 0, set_budget = 0, set_ops = 0;
  int set_suite = 0, set_dt = 0, set_algo = 0, set_proto = 0;
  unsigned suites = 0, colls = 0;
  int st = FU_OK, c;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":b:e:f:i:w:n:c:s:o:d:g:G:A:P:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'b': st = fu__size_opt("-b", optarg, &o->min_bytes); set_b = 1; break;
    case 'e': st = fu__size_opt("-e", optarg, &o->max_bytes); set_e = 1; break;
    case 'f':
      if (fu_parse_double(optarg, &o->factor) != FU_OK || !(o->factor > 1.0) || o->factor > 1e6) {
        fu_error("calib: -f '%s': the step factor must be a number above 1", optarg);
        st = FU_EUSAGE;
      }
      set_f = 1;
      break;
    case 'i':
      st = fu__size_opt("-i", optarg, &o->step_bytes);
      if (st == FU_OK && o->step_bytes == 0) {
        fu_error("calib: -i 0: the size step must be at least 1 byte");
        st = FU_EUSAGE;
      }
      break;
    case 'w': st = fu__int_opt("-w", optarg, 0, 100000, &o->warmup); set_w = 1; break;
    case 'n': {
      long v;
      if (fu_parse_long(optarg, 1, 1000000, &v) != FU_OK) {
        fu_error("calib: -n '%s': needs at least one timed iteration (1 to 1000000)", optarg);
        st = FU_EUSAGE;
      } else {
        o->iters = (int)v;
      }
      set_n = 1;
      break;
    }
    case 'c': st = fu__int_opt("-c", optarg, 0, 1, &o->check); break;
    case 'g': st = fu__int_opt("-g", optarg, 1, 1024, &o->ngpus); break;
    case 's': st = fu__each_item("--suite", optarg, fu__add_suite, &suites); set_suite = 1; break;
    case 'o': st = fu__each_item("--ops", optarg, fu__add_coll, &colls); set_ops = 1; break;
    case 'd':
      if (!set_dt) o->ndtypes = 0;
      set_dt = 1;
      st = fu__each_item("-d", optarg, fu__add_dtype, o);
      break;
    case 'A': {
      if (!set_algo) o->nalgos = 0;
      set_algo = 1;
      fu__strlist l = {o->algos, &o->nalgos, algos};
      st = fu__each_item("--algo", optarg, fu__add_str, &l);
      break;
    }
    case 'P': {
      if (!set_proto) o->nprotos = 0;
      set_proto = 1;
      fu__strlist l = {o->protos, &o->nprotos, protos};
      st = fu__each_item("--proto", optarg, fu__add_str, &l);
      break;
    }
    case 'G':
      if (strcmp(optarg, "off") == 0) o->graph_off = 1, o->graph_on = 0;
      else if (strcmp(optarg, "on") == 0) o->graph_off = 0, o->graph_on = 1;
      else if (strcmp(optarg, "both") == 0) o->graph_off = 1, o->graph_on = 1;
      else {
        fu_error("calib: --graph '%s': expected off, on or both", optarg);
        st = FU_EUSAGE;
      }
      break;
    case FU__O_QUICK: o->quick = 1; break;
    case FU__O_BUDGET:
      if (fu_parse_double(optarg, &o->budget_s) != FU_OK || !(o->budget_s > 0) ||
          o->budget_s > 3600) {
        fu_error("calib: --budget '%s': expected seconds above 0 (at most 3600)", optarg);
        st = FU_EUSAGE;
      }
      set_budget = 1;
      break;
    case FU__O_PLACE:
      o->out_of_place = o->in_place = 0;
      st = fu__each_item("--place", optarg, fu__add_place, o);
      break;
    case FU__O_LINK: {
      static const char *const links[] = {"nvlink", "pcie", "net", "hbm", NULL};
      int ok = 0;
      for (int i = 0; links[i]; i++) ok |= strcmp(optarg, links[i]) == 0;
      if (!ok) {
        fu_error("calib: --link '%s': expected nvlink, pcie, net or hbm", optarg);
        st = FU_EUSAGE;
      } else {
        snprintf(o->link, sizeof o->link, "%s", optarg);
      }
      break;
    }
    case FU__O_DB: o->db_arg = optarg; break;
    case FU__O_FORMAT:
      if (fu_parse_format(optarg, &o->format) != FU_OK) {
        fu_error("calib: --format '%s': expected table, csv or json", optarg);
        st = FU_EUSAGE;
      }
      break;
    case FU__O_PROGRESS:
      if (strcmp(optarg, "auto") == 0) o->progress = -1;
      else if (strcmp(optarg, "on") == 0) o->progress = 1;
      else if (strcmp(optarg, "off") == 0) o->progress = 0;
      else {
        fu_error("calib: --progress '%s': expected auto, on or off", optarg);
        st = FU_EUSAGE;
      }
      break;
    case 'h':
      fu__usage(stdout);
      *help = 1;
      return FU_OK;
    case ':':
      fu_error("calib: option '%s' needs a value (see fusim calib --help)", argv[optind - 1]);
      return FU_EUSAGE;
    default:
      fu_error("calib: unknown option '%s' (see fusim calib --help)", argv[optind - 1]);
      return FU_EUSAGE;
    }
    if (st != FU_OK) return st;
  }
  if (optind < argc) {
    fu_error("calib: unexpected argument '%s' (see fusim calib --help)", argv[optind]);
    return FU_EUSAGE;
  }
  if (set_suite) o->suites = suites;
  if (set_ops) o->colls = colls;
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

int fu_calib_db_writable(const char *path) {
  struct stat sb;
  if (stat(path, &sb) == 0) {
    if (!S_ISREG(sb.st_mode)) {
      fu_error("%s: not a regular file, cannot hold the database", path);
      return FU_EDB;
    }
    if (access(path, R_OK | W_OK) != 0) {
      fu_error("%s: database is not writable: %s", path, strerror(errno));
      return FU_EDB;
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
    fu_error("%s: database folder '%s' is not writable: %s", path, dir, strerror(errno));
    return FU_EDB;
  }
  return FU_OK;
}
