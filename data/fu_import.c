/* fu_import.c: nccl-tests text, nccl-tests -J JSON and CSV into fu_sample rows (see fu_import.h).
 *
 * Every number goes through the checked parsers of fu_common.h; every line is copied into a
 * bounded buffer before it is split, so no input can make the parser read or write outside its
 * buffers (the fuzz harness in tests/fuzz checks that under AddressSanitizer). Cost: O(bytes). */
#include "fu_import.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fu_coll.h"
#include "fu_common.h"

#define FU__LINE_MAX 4096    /* longest line read; longer ones are an error inside a table */
#define FU__MAX_TOK 64       /* most fields on a line */
#define FU__MAX_PRINTED 20   /* row messages printed under --lenient before "... and N more" */
#define FU__MAX_RANKS 1048576
#define FU__MAX_HOSTS 1024   /* distinct host names remembered: a log's node count */

/* ---- names ------------------------------------------------------------------------------ */

/* The fu_op and fu_link spellings of model/fu_model.h (kept here so that the parsers need no
 * other module; tests/data checks that the two lists agree). */
static const char *const fu__ops[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                      "reduce",    "alltoall",  "sendrecv",      "h2d",
                                      "d2h",       "d2d",       "bidir",         "pack",
                                      "launch",    "issue",     "gemm"};
static const char *const fu__links[] = {"nvlink", "pcie_h2d", "pcie_d2h", "pcie_bidir",
                                        "hbm",    "net",      "launch",   "pcie"};

/* "all_reduce_perf", "./build/all_reduce_perf_mpi", "AllReduce", "all-gather" -> fu_op name. */
static int fu__op_norm(const char *s, char *out, size_t cap) {
  const char *b = strrchr(s, '/');
  b = b ? b + 1 : s;
  char tmp[48];
  size_t k = 0;
  for (; *b; b++) {
    if (*b == '_' || *b == '-' || isspace((unsigned char)*b)) continue;
    if (k + 1 >= sizeof tmp) return FU_EDATA;
    tmp[k++] = (char)tolower((unsigned char)*b);
  }
  tmp[k] = '\0';
  if (k > 7 && strcmp(tmp + k - 7, "perfmpi") == 0) tmp[k - 7] = '\0';
  else if (k > 4 && strcmp(tmp + k - 4, "perf") == 0) tmp[k - 4] = '\0';
  for (size_t i = 0; i < sizeof fu__ops / sizeof fu__ops[0]; i++)
    if (strcmp(tmp, fu__ops[i]) == 0) {
      snprintf(out, cap, "%s", fu__ops[i]);
      return FU_OK;
    }
  return FU_EDATA;
}

static int fu__link_ok(const char *s) {
  for (size_t i = 0; i < sizeof fu__links / sizeof fu__links[0]; i++)
    if (strcmp(s, fu__links[i]) == 0) return 1;
  return 0;
}

static int fu__is_collective(const char *op) {
  for (size_t i = 0; i < 7; i++)
    if (strcmp(op, fu__ops[i]) == 0) return 1;
  return 0;
}

int fu_import_op_name(const char *s, char *out, size_t cap) { return fu__op_norm(s, out, cap); }
int fu_import_link_ok(const char *s) { return fu__link_ok(s); }

const char *fu_import_format_name(fu_import_format f) {
  switch (f) {
    case FU_IMPORT_TEXT: return "nccl-tests";
    case FU_IMPORT_JSON: return "nccl-tests-json";
    case FU_IMPORT_CSV: return "csv";
    default: return "auto";
  }
}

int fu_import_format_parse(const char *s, fu_import_format *out) {
  if (!s) return FU_EUSAGE;
  if (!strcmp(s, "auto")) *out = FU_IMPORT_AUTO;
  else if (!strcmp(s, "text") || !strcmp(s, "nccl-tests")) *out = FU_IMPORT_TEXT;
  else if (!strcmp(s, "json") || !strcmp(s, "nccl-tests-json")) *out = FU_IMPORT_JSON;
  else if (!strcmp(s, "csv")) *out = FU_IMPORT_CSV;
  else return FU_EUSAGE;
  return FU_OK;
}

void fu_import_opts_init(fu_import_opts *o) { memset(o, 0, sizeof *o); }

void fu_import_result_init(fu_import_result *r) { memset(r, 0, sizeof *r); }

void fu_import_result_finish(fu_import_result *r) {
  if (!r) return;
  free(r->samples);
  r->samples = NULL;
  r->n = r->cap = 0;
}

/* ---- messages, notes, samples ----------------------------------------------------------- */

typedef struct fu__ctx {
  const char *name;          /* file name for messages */
  const fu_import_opts *o;   /* options */
  fu_import_result *r;       /* output */
  size_t n_printed;          /* row messages printed under lenient */
  int says_nvlink;           /* a comment line says the GPUs are joined by NVLink / NVSwitch */
  char printed_nccl[16];     /* the NCCL version NCCL or nccl-tests printed ("" none) */
} fu__ctx;

/* "NAME:LINE: message" (LINE 0: "NAME: message"); the first is kept in r->error. */
static void fu__vmsg(fu__ctx *c, int warn, long line, const char *fmt, va_list ap) {
  char body[400], full[512];
  vsnprintf(body, sizeof body, fmt, ap);
  if (line > 0) snprintf(full, sizeof full, "%s:%ld: %s", c->name, line, body);
  else snprintf(full, sizeof full, "%s: %s", c->name, body);
  if (!c->r->error[0]) snprintf(c->r->error, sizeof c->r->error, "%s", full);
  if (c->o->quiet) return;
  if (warn) fu_warn("%s", full);
  else fu_error("%s", full);
}

static void fu__err(fu__ctx *c, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fu__err(fu__ctx *c, long line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fu__vmsg(c, 0, line, fmt, ap);
  va_end(ap);
}

static void fu__warnf(fu__ctx *c, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fu__warnf(fu__ctx *c, long line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fu__vmsg(c, 1, line, fmt, ap);
  va_end(ap);
}

/* A row that cannot be read: fatal (FU_EDATA) unless lenient, where it is counted and skipped. */
static int fu__bad_row(fu__ctx *c, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fu__bad_row(fu__ctx *c, long line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!c->o->lenient) {
    fu__vmsg(c, 0, line, fmt, ap);
    va_end(ap);
    return FU_EDATA;
  }
  c->r->n_skipped++;
  if (c->n_printed++ < FU__MAX_PRINTED) fu__vmsg(c, 1, line, fmt, ap);
  va_end(ap);
  return FU_OK;
}

/* Append "; text" to a fixed buffer, truncating. */
static void fu__append(char *dst, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fu__append(char *dst, size_t cap, const char *fmt, ...) {
  size_t n = strlen(dst);
  if (n + 3 >= cap) return;
  if (n) {
    memcpy(dst + n, "; ", 3);
    n += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst + n, cap - n, fmt, ap);
  va_end(ap);
}

static int fu__push(fu_import_result *r, const fu_sample *s) {
  if (r->n == r->cap) {
    size_t ncap = r->cap ? r->cap * 2 : 64;
    fu_sample *nv = realloc(r->samples, ncap * sizeof *nv);
    if (!nv) return FU_ENOMEM;
    r->samples = nv;
    r->cap = ncap;
  }
  r->samples[r->n++] = *s;
  return FU_OK;
}

/* Copy a field into a fixed buffer; FU_EDATA when it does not fit. */
static int fu__copy(char *dst, size_t cap, const char *s) {
  size_t n = strlen(s);
  if (n >= cap) return FU_EDATA;
  memcpy(dst, s, n + 1);
  return FU_OK;
}

/* ---- lines and fields ------------------------------------------------------------------- */

typedef struct fu__lines {
  const char *p, *end;       /* rest of the text */
  long no;                   /* number of the line last returned (1-based) */
} fu__lines;

/* Next line into buf (without "\r\n"); *too_long set when it was cut. 0 at the end. */
static int fu__next_line(fu__lines *L, char *buf, size_t cap, int *too_long, int *no_newline) {
  if (L->p >= L->end) return 0;
  const char *nl = memchr(L->p, '\n', (size_t)(L->end - L->p));
  const char *e = nl ? nl : L->end;
  size_t n = (size_t)(e - L->p);
  *too_long = n >= cap;
  *no_newline = nl == NULL;
  if (n >= cap) n = cap - 1;
  memcpy(buf, L->p, n);
  while (n && (buf[n - 1] == '\r')) n--;
  buf[n] = '\0';
  L->p = nl ? nl + 1 : L->end;
  L->no++;
  return 1;
}

/* Length of an Open MPI "--tag-output" prefix ("[1,0]<stdout>:" or "<stderr>:"), of a Slurm
 * "srun --label" prefix ("0: ", " 12: ") or of an MPICH / Intel MPI "mpiexec -prepend-rank" (-l)
 * prefix ("[0] ", "[12] ") at s, else 0. */
static size_t fu__mpi_tag_len(const char *s) {
  size_t b = strspn(s, " ");
  size_t d = strspn(s + b, "0123456789");
  if (d && s[b + d] == ':' && s[b + d + 1] == ' ') return b + d + 2;
  if (s[0] != '[' || !isdigit((unsigned char)s[1])) return 0;
  size_t i = 1 + strspn(s + 1, "0123456789");
  if (s[i] == ']' && s[i + 1] == ' ') return i + 2;
  if (s[i] != ',' || !isdigit((unsigned char)s[i + 1])) return 0;
  i += 1 + strspn(s + i + 1, "0123456789");
  if (!strncmp(s + i, "]<stdout>:", 10) || !strncmp(s + i, "]<stderr>:", 10)) return i + 10;
  return 0;
}

/* Split on blanks in place; returns the field count (at most max; *more set if there were more). */
static int fu__split_ws(char *s, char **tok, int max, int *more) {
  int n = 0;
  *more = 0;
  char *save = NULL;
  for (char *t = strtok_r(s, " \t\v\f", &save); t; t = strtok_r(NULL, " \t\v\f", &save)) {
    if (n == max) {
      *more = 1;
      break;
    }
    tok[n++] = t;
  }
  return n;
}

static const char *fu__skip_ws(const char *s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return s;
}

/* A positive finite number (times). */
static int fu__pos(const char *s, double *v) {
  return fu_parse_double(s, v) == FU_OK && *v > 0 ? FU_OK : FU_EDATA;
}

/* A finite number >= 0 (bandwidths). */
static int fu__nonneg(const char *s, double *v) {
  return fu_parse_double(s, v) == FU_OK && *v >= 0 ? FU_OK : FU_EDATA;
}

/* "2.18.5" style version after `key` in line (first match, case-insensitive), into dst if
 * dst is empty. Accepts "NCCL 2.20.5", "NCCL version 2.18.5+cuda12.2", "CUDA 12.4", "driver
 * 550.90.07". */
static void fu__scan_version(const char *line, const char *key, char *dst, size_t cap) {
  if (*dst) return;
  size_t kl = strlen(key);
  for (const char *p = line; (p = strcasestr(p, key)) != NULL; p += kl) {
    if (p > line && isalnum((unsigned char)p[-1])) continue;
    const char *q = p + kl;
    if (strncasecmp(q, " version", 8) == 0) q += 8;
    if (*q == ' ' || *q == ':' || *q == '=') q++;
    if (*q == 'v' || *q == 'V') q++;
    if (!isdigit((unsigned char)*q)) continue;
    size_t n = 0;
    while ((isdigit((unsigned char)q[n]) || q[n] == '.') && n + 1 < cap) n++;
    while (n && q[n - 1] == '.') n--;
    if (!n || !memchr(q, '.', n)) continue;  /* want "x.y", not a count */
    memcpy(dst, q, n);
    dst[n] = '\0';
    return;
  }
}

/* Launch facts from a command line: -g / -t of nccl-tests, -np of mpirun, NCCL_ALGO/PROTO. */
typedef struct fu__cmd {
  long g, t, np;             /* 0 when not shown */
  char algo[16], proto[16];  /* forced NCCL_ALGO / NCCL_PROTO, "" when not shown */
} fu__cmd;

static void fu__env_value(const char *tok, const char *key, char *dst, size_t cap) {
  const char *p = strstr(tok, key);
  if (!p || (p > tok && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))) return;
  p += strlen(key);
  size_t n = 0;
  while (p[n] && !isspace((unsigned char)p[n]) && p[n] != ',' && p[n] != '"' && p[n] != '\'' &&
         n + 1 < cap)
    n++;
  if (!n) return;
  for (size_t i = 0; i < n; i++) dst[i] = (char)tolower((unsigned char)p[i]);
  dst[n] = '\0';
}

static void fu__scan_cmd(const char *cmdline, fu__cmd *c) {
  char buf[FU__LINE_MAX];
  snprintf(buf, sizeof buf, "%s", cmdline);
  char *tok[FU__MAX_TOK];
  int more;
  int n = fu__split_ws(buf, tok, FU__MAX_TOK, &more);
  int after_prog = 0;
  for (int i = 0; i < n; i++) {
    const char *t = tok[i];
    fu__env_value(t, "NCCL_ALGO=", c->algo, sizeof c->algo);
    fu__env_value(t, "NCCL_PROTO=", c->proto, sizeof c->proto);
    if (strstr(t, "_perf")) {
      after_prog = 1;
      continue;
    }
    const char *val = i + 1 < n ? tok[i + 1] : NULL;
    long *dst = NULL;
    const char *glued = NULL;
    if (after_prog) {
      if (!strcmp(t, "-g") || !strcmp(t, "--ngpus")) dst = &c->g;
      else if (!strcmp(t, "-t") || !strcmp(t, "--nthreads")) dst = &c->t;
      else if (!strncmp(t, "-g", 2) && t[2]) dst = &c->g, glued = t + 2;
      else if (!strncmp(t, "-t", 2) && t[2]) dst = &c->t, glued = t + 2;
      else if (!strncmp(t, "--ngpus=", 8)) dst = &c->g, glued = t + 8;
      else if (!strncmp(t, "--nthreads=", 11)) dst = &c->t, glued = t + 11;
    } else {
      if (!strcmp(t, "-np") || !strcmp(t, "-n") || !strcmp(t, "--np") || !strcmp(t, "--ntasks"))
        dst = &c->np;
      else if (!strncmp(t, "--ntasks=", 9)) dst = &c->np, glued = t + 9;
    }
    if (!dst) continue;
    long v;
    if (fu_parse_long(glued ? glued : val, 1, FU__MAX_RANKS, &v) == FU_OK) *dst = v;
  }
}

/* Link class named by a token of the file name: nvlink/nvls/nvswitch, pcie, net/ib/roce/efa. */
static const char *fu__link_from_name(const char *name) {
  const char *b = strrchr(name, '/');
  b = b ? b + 1 : name;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", b);
  for (char *p = buf; *p; p++) *p = (char)tolower((unsigned char)*p);
  static const struct {
    const char *tok;         /* token in the name */
    const char *link;        /* link class */
  } map[] = {{"nvlink", "nvlink"}, {"nvls", "nvlink"}, {"nvswitch", "nvlink"}, {"pcie", "pcie"},
             {"net", "net"},       {"ib", "net"},       {"roce", "net"},         {"efa", "net"}};
  char *save = NULL;
  for (char *t = strtok_r(buf, "-_.+ ", &save); t; t = strtok_r(NULL, "-_.+ ", &save))
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
      if (!strcmp(t, map[i].tok)) return map[i].link;
  return NULL;
}

/* Op named by the file name ("a100x8-nvlink-allreduce.txt", "all_gather_perf.log"). */
static int fu__op_from_name(const char *name, char *out, size_t cap) {
  const char *b = strrchr(name, '/');
  b = b ? b + 1 : name;
  char buf[256];
  size_t k = 0;
  for (; *b && k + 1 < sizeof buf; b++)
    if (*b != '_') buf[k++] = (char)tolower((unsigned char)*b);
  buf[k] = '\0';
  char *save = NULL;
  for (char *t = strtok_r(buf, "-. +", &save); t; t = strtok_r(NULL, "-. +", &save)) {
    char tmp[48];
    if (fu__op_norm(t, tmp, sizeof tmp) == FU_OK && fu__is_collective(tmp))
      return fu__copy(out, cap, tmp);
  }
  return FU_EDATA;
}

/* ---- resolving op, ranks and link -------------------------------------------------------- */

/* The op: what the log says, else --op, else the file name; a log and --op that disagree is a
 * usage error. */
static int fu__resolve_op(fu__ctx *c, long line, const char *from_log, char *out, size_t cap) {
  if (*from_log) {
    if (*c->o->op && strcmp(c->o->op, from_log) != 0) {
      fu__err(c, line, "the log runs %s but --op says %s", from_log, c->o->op);
      return FU_EUSAGE;
    }
    return fu__copy(out, cap, from_log);
  }
  if (*c->o->op) return fu__copy(out, cap, c->o->op);
  if (fu__op_from_name(c->name, out, cap) == FU_OK) return FU_OK;
  fu__err(c, line, "cannot tell which collective this is (no \"Collective test starting\" line "
                   "and the file name names none); give --op");
  return FU_EUSAGE;
}

/* Link when the data does not name it: --link, more than one host -> net, one rank -> hbm,
 * the file name. How it was decided goes to *why. */
static int fu__resolve_link(fu__ctx *c, long line, int nhosts, int ranks, const char *op, char *out,
                            size_t cap, const char **why) {
  if (*c->o->link) {
    *why = "--link";
    return fu__copy(out, cap, c->o->link);
  }
  if (nhosts > 1) {
    *why = "ranks on more than one host";
    return fu__copy(out, cap, "net");
  }
  if (ranks == 1 && fu__is_collective(op)) {
    *why = "one rank: NCCL works within the GPU";
    return fu__copy(out, cap, "hbm");
  }
  const char *l = fu__link_from_name(c->name);
  if (l) {
    *why = "file name";
    return fu__copy(out, cap, l);
  }
  if (c->says_nvlink) {
    *why = "one host, and a comment line names NVLink or NVSwitch";
    return fu__copy(out, cap, "nvlink");
  }
  fu__err(c, line, "the log does not say which link the %d ranks use; give --link "
                   "(nvlink, pcie, net, hbm, ...)", ranks);
  return FU_EUSAGE;
}

/* GPUs one process drove, as a log gives them (nThread x nGpus, `gpp`, `why` says whence), kept
 * only where they divide the GPUs of a node (ranks over the hosts), as the CSV column must; else
 * the layout is unknown (0), said in a warning: a genuine log can place its processes unevenly
 * (4 + 2 ranks of 2 GPUs a process), which fit gives no layout either, so the samples stay. */
static int fu__log_layout(fu__ctx *c, long line, long gpp, int ranks, int nhosts, const char *why) {
  if (gpp < 1) return 0;
  long gpn = ranks / (nhosts > 1 ? nhosts : 1);
  if (gpp <= gpn && gpn % gpp == 0) return (int)gpp;
  fu__warnf(c, line, "%s: %ld GPUs a process do not divide the GPUs of a node (%d ranks on %d "
                     "host%s); the process layout is stored as unknown",
            why, gpp, ranks, nhosts > 1 ? nhosts : 1, nhosts > 1 ? "s" : "");
  return 0;
}

/* ---- nccl-tests text --------------------------------------------------------------------- */

typedef struct fu__text {
  fu__ctx *c;                /* messages and output */
  /* "# nThread" line of the current run */
  int have_cfg;              /* a "# nThread" line was seen */
  long nthread, ngpus;       /* threads and GPUs per process */
  long iters;                /* timed iterations behind each mean */
  long graph;                /* CUDA graph launches (0 none) */
  uint64_t min_b, max_b;     /* size sweep */
  uint64_t step;             /* factor or increment */
  int factor;                /* step is a factor */
  /* "#  Rank" lines of the current run */
  int rank_lines;            /* lines seen */
  int procs;                 /* processes they name (a Pid and host unlike the line before) */
  long rank0_line;           /* line of the "Rank 0" line (0 none seen) */
  char last_proc[96];        /* "PID HOST" of the last Rank line ("" none) */
  char hosts[FU__MAX_HOSTS][64]; /* distinct host names */
  int nhosts;                /* distinct hosts (may exceed FU__MAX_HOSTS; then only counted) */
  char op[24];               /* from "Collective test starting", "" unknown */
  fu__cmd cmd;               /* from a command line in the log */
  char run_nccl[16];         /* NCCL version this run printed ("" none): its rows keep it */
  int nccl_fresh;            /* run_nccl was printed after the last row (it is the next run's) */
  /* the current table */
  int in_table;              /* a column header was seen and the table has not ended */
  int expect_units;          /* the next comment line may be the "(B) (elements)" line */
  int ncols;                 /* header fields */
  int c_size, c_count, c_type, c_redop, c_root; /* column indexes, -1 absent */
  int c_time[2], c_algbw[2], c_busbw[2], c_wrong[2], c_imin[2]; /* out-of-place, in-place */
  int wrong_is_error;        /* old "error" column (max error, a float) instead of "#wrong" */
  int ts;                    /* rows end with a "YYYY-MM-DD HH:MM:SS" timestamp */
  int cputime;               /* the time column is CPU time (-C 1) */
  int resolved;              /* op, ranks and link of this table are known */
  char t_op[24];             /* this table's op */
  char t_link[16];           /* this table's link */
  int t_ranks;               /* this table's ranks */
  int t_gpp;                 /* GPUs one process drove (nThread x nGpus; 0 unknown) */
  /* the current sweep (rows with one type and redop and growing sizes), for truncation */
  char g_type[16], g_redop[16]; /* its type and redop */
  uint64_t g_prev;           /* last size */
  size_t g_rows;             /* rows seen, bad ones included */
  long g_line;               /* line of its first row */
  /* for the provenance notes */
  char why_ranks[96];        /* how the first table's ranks were decided */
  const char *why_link;      /* how its link was decided */
  int noted;                 /* notes written */
} fu__text;

static void fu__text_table_reset(fu__text *t) {
  t->in_table = 0;
  t->expect_units = 0;
  t->resolved = 0;
  t->ncols = 0;
  t->c_size = t->c_count = t->c_type = t->c_redop = t->c_root = -1;
  for (int k = 0; k < 2; k++) t->c_time[k] = t->c_algbw[k] = t->c_busbw[k] = t->c_wrong[k] = t->c_imin[k] = -1;
  t->wrong_is_error = t->ts = t->cputime = 0;
  t->g_rows = 0;
}

/* Rows one sweep of minBytes..maxBytes has (0 when the header does not tell). */
static size_t fu__sweep_rows(const fu__text *t) {
  if (!t->have_cfg || t->step == 0 || t->max_b < t->min_b) return 0;
  if (t->factor && (t->step < 2 || t->min_b == 0)) return 0;
  size_t n = 0;
  uint64_t s = t->min_b;
  for (;;) {
    n++;
    if (n > 1000000) return 0;
    if (t->factor) {
      if (s > t->max_b / t->step) break;
      s *= t->step;
    } else {
      if (s > t->max_b - t->step) break;
      s += t->step;
    }
    if (s > t->max_b) break;
  }
  return n;
}

/* The sweep that just ended must have as many rows as the header promises. */
static int fu__sweep_end(fu__text *t, long line) {
  size_t want = fu__sweep_rows(t);
  size_t got = t->g_rows;
  t->g_rows = 0;
  if (!got || !want || got >= want) return FU_OK;
  if (t->c->o->lenient) { /* rows were skipped: say so, do not count a row */
    if (t->c->n_printed++ < FU__MAX_PRINTED)
      fu__warnf(t->c, line, "table ends after %zu of the %zu sizes the header promises", got, want);
    return FU_OK;
  }
  return fu__bad_row(t->c, line,
                     "table ends after %zu of the %zu sizes that minBytes %llu .. maxBytes %llu "
                     "promise (rows from line %ld): the log is truncated",
                     got, want, (unsigned long long)t->min_b, (unsigned long long)t->max_b,
                     t->g_line);
}

static int fu__table_end(fu__text *t, long line) {
  int st = FU_OK;
  if (t->in_table) st = fu__sweep_end(t, line);
  fu__text_table_reset(t);
  return st;
}

/* A run's "#  Rank" lines start again (a new nThread line or "Using devices"): none seen. */
static void fu__text_ranks_reset(fu__text *t) {
  t->rank_lines = t->procs = 0;
  t->rank0_line = 0;
  t->last_proc[0] = '\0';
  t->nhosts = 0;
}

/* "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20
 *  agg iters: 1 validation: 1 graph: 0 [unalign: 0]" */
static int fu__text_cfg(fu__text *t, char *body, long line) {
  char *tok[FU__MAX_TOK];
  int more;
  int n = fu__split_ws(body, tok, FU__MAX_TOK, &more);
  int got = 0;
  t->iters = 0;
  t->graph = 0;
  t->step = 0;
  for (int i = 0; i + 1 < n; i++) {
    const char *k = tok[i], *v = tok[i + 1];
    int bad = 0;
    if (!strcmp(k, "nThread")) bad = fu_parse_long(v, 1, FU__MAX_RANKS, &t->nthread), got |= 1;
    else if (!strcmp(k, "nGpus")) bad = fu_parse_long(v, 1, FU__MAX_RANKS, &t->ngpus), got |= 2;
    else if (!strcmp(k, "minBytes")) bad = fu_parse_u64(v, &t->min_b), got |= 4;
    else if (!strcmp(k, "maxBytes")) bad = fu_parse_u64(v, &t->max_b), got |= 8;
    else if (!strcmp(k, "iters:") && (i == 0 || (strcmp(tok[i - 1], "warmup") && strcmp(tok[i - 1], "agg"))))
      bad = fu_parse_long(v, 0, INT_MAX, &t->iters);
    else if (!strcmp(k, "graph:")) bad = fu_parse_long(v, 0, INT_MAX, &t->graph);
    else if (!strcmp(k, "step:")) {
      char num[32];
      size_t len = strcspn(v, "(");
      if (len == 0 || len >= sizeof num) bad = FU_EDATA;
      else {
        memcpy(num, v, len);
        num[len] = '\0';
        bad = fu_parse_u64(num, &t->step);
        t->factor = strstr(v, "(factor)") != NULL;
      }
    }
    if (bad) {
      fu__err(t->c, line, "cannot read the run header: '%s %s'", k, v);
      return FU_EDATA;
    }
  }
  if ((got & 3) != 3) {
    fu__err(t->c, line, "run header without nThread and nGpus");
    return FU_EDATA;
  }
  t->have_cfg = 1;
  fu__text_ranks_reset(t);
  /* a run of a concatenated log that prints no version of its own does not take the last run's */
  if (!t->nccl_fresh) t->run_nccl[0] = '\0';
  return FU_OK;
}

/* A version NCCL or nccl-tests printed: the rows that follow ran it. */
static void fu__text_run_nccl(fu__text *t, const char *v) {
  if (!fu_nccl_version_code(v)) return;
  snprintf(t->run_nccl, sizeof t->run_nccl, "%s", v);
  t->nccl_fresh = 1;
}

/* "#  Rank  0 Group  0 Pid 1341852 on HOST device  0 [0x07] NVIDIA A100-SXM4-40GB". A run that
 * follows rows of another (logs concatenated) on a GPU model other than theirs is refused: the
 * file's samples share one host row, so its samples would be stored, and fitted, as the first
 * run's GPU. */
static int fu__text_rank(fu__text *t, const char *body, long line) {
  t->rank_lines++;
  fu_provenance *p = &t->c->r->prov;
  /* one job numbers its GPUs 0 .. N-1 once; a second rank 0 is a process that ran alone (nccl-tests
   * built without MPI=1 and started by mpirun or srun): its rows time 1-process jobs, not N ranks */
  long rank;
  char num[16];
  if (sscanf(body + 5, " %15[0-9]", num) == 1 && fu_parse_long(num, 0, LONG_MAX, &rank) == FU_OK && rank == 0) {
    if (t->rank0_line) {
      fu__err(t->c, line, "a second 'Rank 0' line (the first is line %ld): each process ran as a job of its own "
                          "(nccl-tests built without MPI=1, started by mpirun or srun), so the rows do not time "
                          "one job of all the listed GPUs; rebuild nccl-tests with MPI=1 and run again",
              t->rank0_line);
      return FU_EDATA;
    }
    t->rank0_line = line;
  }
  const char *on = strstr(body, " on ");
  if (on) {
    const char *h = fu__skip_ws(on + 4);
    size_t n = strcspn(h, " \t");
    char host[64];
    if (n >= sizeof host) n = sizeof host - 1;
    memcpy(host, h, n);
    host[n] = '\0';
    int seen = 0;
    for (int i = 0; i < t->nhosts && i < FU__MAX_HOSTS; i++)
      if (!strcmp(t->hosts[i], host)) seen = 1;
    if (!seen && n) {
      if (t->nhosts < FU__MAX_HOSTS) snprintf(t->hosts[t->nhosts], sizeof t->hosts[0], "%s", host);
      t->nhosts++;
      if (t->nhosts <= 4) fu__append(p->host, sizeof p->host, "%s", host);
    }
  }
  /* each process prints its GPUs' lines together: a new Pid and host starts the next process */
  const char *pid = strstr(body, "Pid ");
  if (pid && on) {
    const char *pv = fu__skip_ws(pid + 4), *hv = fu__skip_ws(on + 4);
    char key[96];
    snprintf(key, sizeof key, "%.*s %.*s", (int)strcspn(pv, " \t"), pv, (int)strcspn(hv, " \t"), hv);
    if (strcmp(key, t->last_proc)) t->procs++;
    snprintf(t->last_proc, sizeof t->last_proc, "%s", key);
  }
  const char *dev = strstr(body, " device ");
  const char *g = dev ? strchr(dev, ']') : NULL;
  if (g && !p->gpu[0]) snprintf(p->gpu, sizeof p->gpu, "%s", fu__skip_ws(g + 1));
  else if (g && t->c->r->n > 0) {
    const char *m = fu__skip_ws(g + 1);
    size_t len = strlen(m);
    while (len && isspace((unsigned char)m[len - 1])) len--;
    size_t plen = strlen(p->gpu);
    while (plen && isspace((unsigned char)p->gpu[plen - 1])) plen--;
    if (len && (len != plen || strncmp(m, p->gpu, len) != 0)) {
      fu__err(t->c, line, "this run's GPU is '%.*s' but the rows above ran on '%.*s': a file holds "
                          "the runs of one GPU model (its samples share one host row); split the log",
              (int)len, m, (int)plen, p->gpu);
      return FU_EDATA;
    }
  }
  return FU_OK;
}

/* Column header: "# size count type redop root time algbw busbw #wrong time algbw busbw #wrong". */
static int fu__text_header(fu__text *t, char *body, long line) {
  FU_CHECK(fu__table_end(t, line));
  char *tok[FU__MAX_TOK];
  int more;
  int n = fu__split_ws(body, tok, FU__MAX_TOK, &more);
  int k = -1; /* which time column we are past: 0 out-of-place, 1 in-place */
  int ncols = 0;
  for (int i = 0; i < n; i++) {
    const char *s = tok[i];
    if (!strcmp(s, "timestamp")) {
      t->ts = 1;
      continue;
    }
    int col = ncols++;
    if (!strcmp(s, "size")) t->c_size = col;
    else if (!strcmp(s, "count")) t->c_count = col;
    else if (!strcmp(s, "type")) t->c_type = col;
    else if (!strcmp(s, "redop")) t->c_redop = col;
    else if (!strcmp(s, "root")) t->c_root = col;
    else if (!strcmp(s, "time") || !strcmp(s, "cputime")) {
      if (k >= 1) continue; /* a third time column: ignore */
      t->c_time[++k] = col;
      if (!strcmp(s, "cputime")) t->cputime = 1;
    } else if (k >= 0 && !strcmp(s, "algbw")) t->c_algbw[k] = col;
    else if (k >= 0 && !strcmp(s, "busbw")) t->c_busbw[k] = col;
    else if (k >= 0 && (!strcmp(s, "#wrong") || !strcmp(s, "wrong"))) t->c_wrong[k] = col;
    else if (k >= 0 && (!strcmp(s, "error") || !strcmp(s, "#error"))) {
      t->c_wrong[k] = col;
      t->wrong_is_error = 1;
    } else if (k >= 0 && !strcmp(s, "i_min")) t->c_imin[k] = col;
  }
  if (t->c_size < 0 || t->c_time[0] < 0 || more) {
    fu__err(t->c, line, "column header without size and time columns");
    return FU_EDATA;
  }
  t->ncols = ncols;
  t->in_table = 1;
  t->expect_units = 1;
  t->c->r->n_tables++;
  return FU_OK;
}

/* A table without a header (trimmed log): the layout every version since 2.11 prints. */
static void fu__text_default_header(fu__text *t) {
  fu__text_table_reset(t);
  t->c_size = 0, t->c_count = 1, t->c_type = 2, t->c_redop = 3, t->c_root = 4;
  t->c_time[0] = 5, t->c_algbw[0] = 6, t->c_busbw[0] = 7, t->c_wrong[0] = 8;
  t->c_time[1] = 9, t->c_algbw[1] = 10, t->c_busbw[1] = 11, t->c_wrong[1] = 12;
  t->ncols = 13;
  t->in_table = 1;
  t->c->r->n_tables++;
}

/* Op, ranks and link of a table, when its first row comes. */
static int fu__text_resolve(fu__text *t, long line) {
  fu__ctx *c = t->c;
  FU_CHECK(fu__resolve_op(c, line, t->op, t->t_op, sizeof t->t_op));
  long ranks = 0;
  char why[96];
  long per_proc = t->have_cfg ? t->nthread * t->ngpus : 0;
  if (t->rank_lines > 0 && per_proc > 0 && t->procs > 0 && t->rank_lines % per_proc != 0) {
    /* nccl-tests cuts each process's Rank list at 2048 characters ("..."): long host names
     * and many GPUs a process lose lines, never a process */
    ranks = t->procs * per_proc;
    snprintf(why, sizeof why, "%d processes x nThread %ld x nGpus %ld (the Rank list is cut short)",
             t->procs, t->nthread, t->ngpus);
    fu__warnf(c, line, "%d Rank lines are not a multiple of the %ld GPUs each of its %d processes "
                       "drives (nThread x nGpus): the list is cut short; taken as %ld ranks",
              t->rank_lines, per_proc, t->procs, ranks);
    if (c->o->ranks && c->o->ranks != ranks) {
      fu__err(c, line, "the log's processes drive %ld ranks but --ranks says %d", ranks, c->o->ranks);
      return FU_EUSAGE;
    }
  } else if (t->rank_lines > 0) {
    ranks = t->rank_lines;
    snprintf(why, sizeof why, "%d Rank lines on %d host%s", t->rank_lines, t->nhosts,
             t->nhosts == 1 ? "" : "s");
    if (c->o->ranks && c->o->ranks != ranks) {
      fu__err(c, line, "the log lists %ld ranks but --ranks says %d", ranks, c->o->ranks);
      return FU_EUSAGE;
    }
  } else if (c->o->ranks) {
    ranks = c->o->ranks;
    snprintf(why, sizeof why, "--ranks");
  } else if (t->have_cfg) {
    long np = t->cmd.np ? t->cmd.np : 1;
    ranks = t->nthread * t->ngpus * np;
    snprintf(why, sizeof why, "nThread %ld x nGpus %ld x %ld process%s", t->nthread, t->ngpus, np,
             np == 1 ? "" : "es");
  } else if (t->cmd.g) {
    long th = t->cmd.t ? t->cmd.t : 1, np = t->cmd.np ? t->cmd.np : 1;
    ranks = t->cmd.g * th * np;
    snprintf(why, sizeof why, "command line -g %ld -t %ld x %ld process%s", t->cmd.g, th, np,
             np == 1 ? "" : "es");
  } else {
    fu__err(c, line, "the log does not say how many ranks took part (no \"Rank\" lines, no "
                     "\"# nThread\" line, no command line); give --ranks");
    return FU_EUSAGE;
  }
  if (ranks < 1 || ranks > FU__MAX_RANKS) {
    fu__err(c, line, "impossible rank count %ld", ranks);
    return FU_EDATA;
  }
  t->t_ranks = (int)ranks;
  /* every nccl-tests process drives nThread threads of nGpus GPUs each */
  long th = t->cmd.t ? t->cmd.t : 1;
  char how[64];
  if (t->have_cfg) snprintf(how, sizeof how, "nThread %ld x nGpus %ld", t->nthread, t->ngpus);
  else snprintf(how, sizeof how, "command line -g %ld -t %ld", t->cmd.g, th);
  long gpp = t->have_cfg ? t->nthread * t->ngpus : t->cmd.g ? t->cmd.g * th : 0;
  const char *wl = NULL;
  FU_CHECK(fu__resolve_link(c, line, t->nhosts, t->t_ranks, t->t_op, t->t_link, sizeof t->t_link, &wl));
  t->t_gpp = fu__log_layout(c, line, gpp, t->t_ranks, t->nhosts, how);
  if (!t->noted) {
    snprintf(t->why_ranks, sizeof t->why_ranks, "%s", why);
    t->why_link = wl;
  }
  t->resolved = 1;
  return FU_OK;
}

/* Whether nccl-tests' op reduces (prints a redop): all-reduce, reduce, reduce-scatter. */
static int fu__op_reduces(const char *op) {
  return strcmp(op, "allreduce") == 0 || strcmp(op, "reduce") == 0 || strcmp(op, "reducescatter") == 0;
}

static int fu__text_row(fu__text *t, char *line_buf, long line, int cut) {
  fu__ctx *c = t->c;
  char *tok[FU__MAX_TOK];
  int more;
  int n = fu__split_ws(line_buf, tok, FU__MAX_TOK, &more);
  /* "8 more processes have sent help message ..." (Open MPI, unprefixed, even inside a table): a
   * number, then a word; never a row, whose second field is a count */
  if (n >= 2 && isalpha((unsigned char)tok[1][0])) return FU_OK;
  if (!t->in_table) {
    if (n < 2 || strspn(tok[1], "0123456789") != strlen(tok[1])) return FU_OK;
    if (n != 13 || more)
      return fu__bad_row(c, line, "result row outside any table: no column header above it names "
                                  "its %d%s fields (nccl-tests since 2.11 prints 13); keep the "
                                  "header lines nccl-tests printed", n, more ? "+" : "");
    fu__text_default_header(t);
  }
  if (!t->resolved) FU_CHECK(fu__text_resolve(t, line));
  int want = t->ncols + (t->ts ? 2 : 0);
  if (cut) return fu__bad_row(c, line, "line longer than %d characters", FU__LINE_MAX - 1);
  /* older nccl-tests leave the redop column blank where the op reduces nothing (alltoall_perf):
   * the row is a field short, a time where the redop would be */
  static char blank[] = "";
  double x;
  if (n == want - 1 && !more && t->c_redop >= 0 && t->c_redop < n && !fu__op_reduces(t->t_op) &&
      fu_parse_double(tok[t->c_redop], &x) == FU_OK) {
    memmove(tok + t->c_redop + 1, tok + t->c_redop, (size_t)(n - t->c_redop) * sizeof tok[0]);
    tok[t->c_redop] = blank;
    n++;
  }
  if (n != want || more)
    return fu__bad_row(c, line, "row has %d%s fields, the header has %d: truncated or garbled row",
                       n, more ? "+" : "", want);
  /* sweep bookkeeping before any field check, so skipped rows count toward the sweep */
  const char *type = t->c_type >= 0 ? tok[t->c_type] : "";
  const char *redop = t->c_redop >= 0 ? tok[t->c_redop] : "";
  uint64_t bytes;
  if (fu_parse_u64(tok[t->c_size], &bytes) != FU_OK || bytes > (uint64_t)INT64_MAX)
    return fu__bad_row(c, line, "size '%s' is not a byte count", tok[t->c_size]);
  if (t->g_rows && (strncmp(t->g_type, type, sizeof t->g_type - 1) ||
                    strncmp(t->g_redop, redop, sizeof t->g_redop - 1) || bytes < t->g_prev))
    FU_CHECK(fu__sweep_end(t, line));
  if (!t->g_rows) {
    snprintf(t->g_type, sizeof t->g_type, "%s", type);
    snprintf(t->g_redop, sizeof t->g_redop, "%s", redop);
    t->g_line = line;
  }
  t->g_rows++;
  t->g_prev = bytes;
  if (t->c_count >= 0) {
    uint64_t cnt;
    if (fu_parse_u64(tok[t->c_count], &cnt) != FU_OK)
      return fu__bad_row(c, line, "count '%s' is not a number of elements", tok[t->c_count]);
  }
  if (t->c_root >= 0) {
    long root;
    if (fu_parse_long(tok[t->c_root], -1, INT_MAX, &root) != FU_OK)
      return fu__bad_row(c, line, "root '%s' is not a rank", tok[t->c_root]);
  }
  if (strlen(type) >= 16) return fu__bad_row(c, line, "data type '%.20s' too long", type);
  fu_sample s[2];
  int ns = 0;
  static const char *const which[2] = {"out-of-place", "in-place"};
  for (int k = 0; k < 2; k++) {
    if (t->c_time[k] < 0) continue;
    fu_sample *x = &s[ns];
    fu_sample_init(x);
    const char *f = tok[t->c_time[k]];
    if (fu__pos(f, &x->t_median_us) != FU_OK)
      return fu__bad_row(c, line, "%s time '%s' is not a positive number of microseconds",
                         which[k], f);
    if (t->c_busbw[k] >= 0) {
      f = tok[t->c_busbw[k]];
      if (fu__nonneg(f, &x->busbw_gbps) != FU_OK)
        return fu__bad_row(c, line, "%s busbw '%s' is not a bandwidth", which[k], f);
    }
    if (t->c_algbw[k] >= 0) {
      double a;
      f = tok[t->c_algbw[k]];
      if (fu__nonneg(f, &a) != FU_OK)
        return fu__bad_row(c, line, "%s algbw '%s' is not a bandwidth", which[k], f);
    }
    if (t->c_wrong[k] >= 0) {
      f = tok[t->c_wrong[k]];
      double w;
      if (!strcmp(f, "N/A")) x->n_wrong = -1;
      else if (fu_parse_double(f, &w) != FU_OK || w < 0 ||
               (!t->wrong_is_error && (w != floor(w) || w > INT_MAX)))
        return fu__bad_row(c, line, "%s #wrong '%s' is not a count", which[k], f);
      else x->n_wrong = t->wrong_is_error ? (w == 0 ? 0 : -1) : (int)w;
    }
    if (t->c_imin[k] >= 0) {
      f = tok[t->c_imin[k]];
      if (fu__pos(f, &x->t_min_us) != FU_OK)
        return fu__bad_row(c, line, "%s i_min '%s' is not a positive time", which[k], f);
    }
    snprintf(x->op, sizeof x->op, "%s", t->t_op);
    snprintf(x->link, sizeof x->link, "%s", t->t_link);
    snprintf(x->dtype, sizeof x->dtype, "%s", type);
    snprintf(x->algo, sizeof x->algo, "%s", t->cmd.algo);
    if (t->run_nccl[0]) snprintf(x->nccl_version, sizeof x->nccl_version, "%.15s", t->run_nccl);
    snprintf(x->proto, sizeof x->proto, "%s", t->cmd.proto);
    x->ranks = t->t_ranks;
    x->nodes = t->nhosts; /* the host row names only the first 4 */
    x->gpus_per_proc = t->t_gpp;
    x->in_place = k;
    x->graph = t->graph > 0;
    x->bytes = bytes;
    x->count = t->iters > 0 ? (int)t->iters : 1;
    ns++;
  }
  for (int i = 0; i < ns; i++) FU_CHECK(fu__push(c->r, &s[i]));
  t->nccl_fresh = 0;
  return FU_OK;
}

/* Lines nccl-tests prints after a table or before the next one: its footer (before 2.0
 * without the '#'), a new test or a new run. Any other comment line, a user's or a curator's
 * note between two rows, leaves the table open. */
static int fu__ends_table(const char *s) {
  static const char *const starts[] = {"Out of bounds values", "Avg bus bandwidth", "Collective test ",
                                       "nccl-tests version ", "Reducing maxBytes", "GPU memory usage",
                                       "error:", "Blocking Enabled", "Parallel Init Enabled"};
  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
    if (!strncmp(s, starts[i], strlen(starts[i]))) return 1;
  return 0;
}

/* nccl-tests' own failure lines: "HOST: Test NCCL failure common.cu:1005 '...'", "HOST: Test
 * CUDA failure ...", " .. HOST pid N: Test failure common.cu:891". */
static int fu__failure_line(const char *s) {
  const char *t = strstr(s, ": Test ");
  return t && strstr(t, "failure") != NULL;
}

/* Lines that are not nccl-tests' own: NCCL's INFO/WARN lines, MPI's bracketed messages. */
static int fu__foreign_line(const char *s) {
  return strstr(s, "NCCL") != NULL || *s == '[' || *s == '\0';
}

static void fu__text_nccl_line(fu__text *t, const char *s) {
  fu_provenance *p = &t->c->r->prov;
  const char *v = strstr(s, "NCCL version ");
  if (v) {
    char run[16] = "";
    fu__scan_version(v, "NCCL", run, sizeof run);
    fu__text_run_nccl(t, run);
    fu__scan_version(v, "NCCL", t->c->printed_nccl, sizeof t->c->printed_nccl);
    fu__scan_version(v, "NCCL", p->nccl, sizeof p->nccl);
    const char *cu = strstr(v, "+cuda");
    if (cu) fu__scan_version(cu + 1, "cuda", p->cuda, sizeof p->cuda);
  }
  const char *a = strstr(s, "NCCL_ALGO set by environment to ");
  if (a) fu__env_value(a, "to ", t->cmd.algo, sizeof t->cmd.algo);
  a = strstr(s, "NCCL_PROTO set by environment to ");
  if (a) fu__env_value(a, "to ", t->cmd.proto, sizeof t->cmd.proto);
}

static void fu__text_command(fu__text *t, const char *cmd) {
  fu_provenance *p = &t->c->r->prov;
  cmd = fu__skip_ws(cmd);
  if (!*cmd) return;
  if (!p->cmdline[0]) /* a longer command line is kept cut (bounded: GCC 12/13 -O2 warn otherwise) */
    snprintf(p->cmdline, sizeof p->cmdline, "%.*s", (int)sizeof p->cmdline - 1, cmd);
  fu__scan_cmd(cmd, &t->cmd);
}

/* Whether a comment says the GPUs are joined by NVLink or NVSwitch: a clause (between commas,
 * semicolons and parentheses) that names either and says no, not, non, none, without or w/o
 * ("PCIe only (no NVLink)", "no NVLink or NVSwitch", "NVLink: none", "not using NVLink")
 * denies it, as "NVLink x0" (a PCIe machine's topology line) does: such a log's link is asked
 * for, not guessed. */
static int fu__names_nvlink(const char *body) {
  static const char *const denials[] = {"no", "non", "not", "none", "without", "w/o"};
  for (const char *c = body; *c;) {
    size_t n = strcspn(c, ",;()");
    char clause[512];
    snprintf(clause, sizeof clause, "%.*s", (int)(n < sizeof clause ? n : sizeof clause - 1), c);
    const char *nv = strcasestr(clause, "nvlink");
    int names = strcasestr(clause, "nvswitch") || (nv && strncasecmp(nv + 6, " x0", 3) != 0);
    for (const char *p = clause; names && *p;) {
      while (*p && !isalpha((unsigned char)*p)) p++;
      const char *e = p;
      while (isalpha((unsigned char)*e) || *e == '/') e++;
      for (size_t d = 0; d < sizeof denials / sizeof denials[0]; d++)
        if ((size_t)(e - p) == strlen(denials[d]) && strncasecmp(p, denials[d], (size_t)(e - p)) == 0)
          names = 0;
      p = e;
    }
    if (names) return 1;
    c += n + (c[n] != '\0');
  }
  return 0;
}

static int fu__text_comment(fu__text *t, char *buf, long line) {
  fu__ctx *c = t->c;
  fu_provenance *p = &c->r->prov;
  const char *body = fu__skip_ws(buf + 1);
  char copy[FU__LINE_MAX];
  snprintf(copy, sizeof copy, "%s", body);
  if (!strncmp(body, "nThread ", 8)) {
    FU_CHECK(fu__table_end(t, line));
    return fu__text_cfg(t, copy, line);
  }
  if (!strncmp(body, "Rank ", 5)) return fu__text_rank(t, body, line);
  if (!strncmp(body, "Using devices", 13)) {
    FU_CHECK(fu__table_end(t, line));
    fu__text_ranks_reset(t);
    return FU_OK;
  }
  if (!strncmp(body, "size ", 5) && (strstr(body, " time") || strstr(body, "cputime")))
    return fu__text_header(t, copy, line);
  /* "bytes N type op time algbw busbw res": NCCL 1's tests and early nccl-tests, which print
   * deltaSec * 1.0E3 (milliseconds) with no units line; read as us it would be 1000x off */
  if (!strncmp(body, "bytes ", 6) && strstr(body, " time") && strstr(body, " res")) {
    fu__err(c, line, "a column header of NCCL 1's tests or early nccl-tests ('bytes N type op ... res'), "
                     "whose times are milliseconds: fusim reads nccl-tests' later layout ('size count "
                     "type redop ...', times in us); convert the log, or import a CSV with a time_us column");
    return FU_EDATA;
  }
  if (t->expect_units && body[0] == '(') {
    t->expect_units = 0;
    /* "(B) (elements) (us) (GB/s) (GB/s) ...": a time unit other than nccl-tests' us (a fork's
     * "(ms)") would be read 1000x off */
    char *tok[FU__MAX_TOK];
    int more, n = fu__split_ws(copy, tok, FU__MAX_TOK, &more);
    for (int i = 0; i < n; i++)
      if (!strcmp(tok[i], "(ms)") || !strcmp(tok[i], "(s)") || !strcmp(tok[i], "(ns)") || !strcmp(tok[i], "(sec)")) {
        fu__err(c, line, "the units line gives times in %s; fusim reads nccl-tests' microseconds "
                         "(us): convert the log, or import a CSV with a time_us column", tok[i]);
        return FU_EDATA;
      }
    return FU_OK;
  }
  t->expect_units = 0;
  /* "## hardware: 8 x NVIDIA B200, NVLink5/NVSwitch": the link of a one-host log ("NVLink x0",
   * as a PCIe machine's topology line says, does not count) */
  if (fu__names_nvlink(body)) c->says_nvlink = 1;
  if (fu__ends_table(body)) FU_CHECK(fu__table_end(t, line));
  if (!strncmp(body, "nccl-tests version ", 19)) {
    char ver[32] = "";
    sscanf(body + 19, "%31s", ver);
    snprintf(p->tool, sizeof p->tool, "nccl-tests %s", ver);
    const char *lib = strstr(body, "nccl-library=");
    long code;
    if (lib) {
      char num[16] = "";
      sscanf(lib + 13, "%15[0-9]", num);
      if (fu_parse_long(num, 0, 1000000, &code) == FU_OK) {
        char run[16];
        fu_nccl_version_string(code, run, sizeof run);
        fu__text_run_nccl(t, run);
        fu_nccl_version_string(code, p->nccl, sizeof p->nccl);
        if (!c->printed_nccl[0]) fu_nccl_version_string(code, c->printed_nccl, sizeof c->printed_nccl);
      }
    }
    return FU_OK;
  }
  if (!strncmp(body, "Collective test starting:", 25)) {
    char name[64] = "";
    sscanf(body + 25, "%63s", name);
    if (fu__op_norm(name, t->op, sizeof t->op) != FU_OK || !fu__is_collective(t->op)) {
      t->op[0] = '\0';
      fu__err(c, line, "collective '%s' is not one fusim models", name);
      return FU_EDATA;
    }
    return FU_OK;
  }
  if (!strncmp(body, "Reducing maxBytes to ", 21)) {
    char num[32] = "";
    sscanf(body + 21, "%31s", num);
    uint64_t v;
    if (fu_parse_u64(num, &v) == FU_OK) t->max_b = v;
    return FU_OK;
  }
  const char *cmd = strstr(body, "command:");
  if (cmd && !strstr(body, "not shown")) fu__text_command(t, cmd + 8);
  /* curator or user comments: versions of NCCL, CUDA and the driver */
  fu__scan_version(body, "NCCL", p->nccl, sizeof p->nccl);
  fu__scan_version(body, "CUDA", p->cuda, sizeof p->cuda);
  fu__scan_version(body, "driver", p->driver, sizeof p->driver);
  return FU_OK;
}

static int fu__parse_text(fu__ctx *c, const char *text, size_t len) {
  fu__text t;
  memset(&t, 0, sizeof t);
  t.c = c;
  fu__text_table_reset(&t);
  fu__lines L = {text, text + len, 0};
  char buf[FU__LINE_MAX];
  int cut, no_nl;
  int st = FU_OK;
  while (st == FU_OK && fu__next_line(&L, buf, sizeof buf, &cut, &no_nl)) {
    size_t tag = fu__mpi_tag_len(buf); /* mpirun --tag-output */
    if (tag) memmove(buf, buf + tag, strlen(buf + tag) + 1);
    const char *s = fu__skip_ws(buf);
    if (*s == '#') {
      st = cut && t.in_table ? fu__bad_row(c, L.no, "comment line too long") : fu__text_comment(&t, buf, L.no);
      continue;
    }
    if (strstr(s, "NCCL")) fu__text_nccl_line(&t, s);
    /* a data row starts with the size: digits, then a blank */
    size_t nd = strspn(s, "0123456789");
    int rowlike = nd > 0 && (s[nd] == ' ' || s[nd] == '\t' || s[nd] == '\0');
    if (rowlike) {
      st = fu__text_row(&t, buf, L.no, cut);
      continue;
    }
    if (!t.in_table) {
      /* a shell line that launched the benchmark */
      if (strstr(s, "_perf") && (!strncmp(s, "mpirun", 6) || !strncmp(s, "srun", 4) ||
                                 !strncmp(s, "./", 2) || *s == '/' || !strncmp(s, "$ ", 2)))
        fu__text_command(&t, s[0] == '$' ? s + 2 : s);
      continue;
    }
    if (fu__ends_table(s)) { /* the footer of nccl-tests before 2.0 */
      st = fu__table_end(&t, L.no);
      continue;
    }
    if (fu__failure_line(s)) {
      st = fu__bad_row(c, L.no, "the benchmark failed here ('%.60s'): the sizes after it were "
                                "never measured", s);
      continue;
    }
    if (fu__foreign_line(s)) continue;
    if (isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.')
      st = fu__bad_row(c, L.no, "row does not start with a size in bytes");
    else
      st = fu__bad_row(c, L.no, "unexpected text inside the results table: '%.40s'", s);
  }
  if (st == FU_OK) st = fu__table_end(&t, L.no);
  if (st != FU_OK) return st;
  if (!c->r->n_tables) {
    fu__err(c, 0, "no nccl-tests results table found (not nccl-tests output?)");
    return FU_EDATA;
  }
  fu_provenance *p = &c->r->prov;
  if (!p->tool[0]) snprintf(p->tool, sizeof p->tool, "nccl-tests");
  if (c->r->n) {
    char its[64];
    if (t.iters > 0) snprintf(its, sizeof its, "%ld iterations (-n)", t.iters);
    else snprintf(its, sizeof its, "iterations the log does not show (count stored as 1)");
    fu__append(p->notes, sizeof p->notes,
               "nccl-tests text; its time column is the mean over %s, stored as t_median_us%s", its,
               t.cputime ? " (CPU time, -C 1)" : "");
    fu__append(p->notes, sizeof p->notes, "ranks from %s; link %s from %s", t.why_ranks,
               c->r->samples[0].link, t.why_link ? t.why_link : "?");
    if (t.nhosts > 4) fu__append(p->notes, sizeof p->notes, "%d hosts", t.nhosts);
    if (t.rank_lines && p->gpu[0])
      fu__append(p->notes, sizeof p->notes, "devices: %d x %.100s", t.rank_lines, p->gpu);
  }
  return FU_OK;
}

/* ---- nccl-tests -J JSON ----------------------------------------------------------------- */

/* A number from a JSON value (integer or real); "nan" strings and others fail. */
static int fu__jnum(const json_t *v, double *out) {
  if (!json_is_number(v)) return FU_EDATA;
  double d = json_number_value(v);
  if (!isfinite(d)) return FU_EDATA;
  *out = d;
  return FU_OK;
}

static int fu__json_side(fu__ctx *c, size_t i, const char *key, const json_t *side,
                         const json_t *per_iter, fu_sample *x) {
  const json_t *tv = json_object_get(side, "time");
  if (!tv) tv = json_object_get(side, "cpu_time");
  if (fu__jnum(tv, &x->t_median_us) != FU_OK || x->t_median_us <= 0)
    return fu__bad_row(c, 0, "results[%zu].%s.time is not a positive number of microseconds", i, key);
  const json_t *bv = json_object_get(side, "bus_bw");
  if (bv && !json_is_null(bv) && (fu__jnum(bv, &x->busbw_gbps) != FU_OK || x->busbw_gbps < 0))
    return fu__bad_row(c, 0, "results[%zu].%s.bus_bw is not a bandwidth", i, key);
  const json_t *wv = json_object_get(side, "nwrong");
  double w;
  if (wv && !json_is_null(wv)) {
    if (fu__jnum(wv, &w) != FU_OK || w < 0 || w != floor(w) || w > INT_MAX)
      return fu__bad_row(c, 0, "results[%zu].%s.nwrong is not a count", i, key);
    x->n_wrong = (int)w;
  }
  if (json_is_object(per_iter)) {
    static const char *const keys[3] = {"min_us", "p50_us", "p95_us"};
    double *dst[3] = {&x->t_min_us, &x->t_median_us, &x->t_p95_us};
    for (int k = 0; k < 3; k++) {
      const json_t *pv = json_object_get(per_iter, keys[k]);
      double d;
      if (!pv) continue;
      if (fu__jnum(pv, &d) != FU_OK || d <= 0)
        return fu__bad_row(c, 0, "results[%zu].%s_per_iter.%s is not a positive time", i, key, keys[k]);
      *dst[k] = d;
    }
  }
  return FU_OK;
}

static int fu__json_int(const json_t *o, const char *key, long lo, long hi, long *out) {
  const json_t *v = json_object_get(o, key);
  if (!v) return FU_ENOINPUT;
  if (!json_is_integer(v)) return FU_EDATA;
  json_int_t x = json_integer_value(v);
  if (x < lo || x > hi) return FU_EDATA;
  *out = (long)x;
  return FU_OK;
}

static int fu__parse_json(fu__ctx *c, const char *text, size_t len) {
  json_error_t jerr;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!root) {
    fu__err(c, jerr.line > 0 ? jerr.line : 0, "invalid JSON (column %d): %s", jerr.column, jerr.text);
    return FU_EDATA;
  }
  int st = FU_OK;
  fu_provenance *p = &c->r->prov;
  fu__cmd cmd;
  memset(&cmd, 0, sizeof cmd);
  char op_log[24] = "";
  const json_t *results = json_object_get(root, "results");
  if (!json_is_object(root) || !json_is_array(results)) {
    fu__err(c, 0, "JSON without a \"results\" list: not nccl-tests -J output");
    json_decref(root);
    return FU_EDATA;
  }
  /* provenance: args (command line), NCCL version code, devices */
  const json_t *args = json_object_get(root, "args");
  if (json_is_array(args)) {
    size_t i;
    const json_t *a;
    json_array_foreach(args, i, a) {
      if (!json_is_string(a)) continue;
      if (i == 0) {
        char tmp[24];
        if (fu__op_norm(json_string_value(a), tmp, sizeof tmp) == FU_OK && fu__is_collective(tmp))
          snprintf(op_log, sizeof op_log, "%s", tmp);
      }
      fu__append(p->cmdline, sizeof p->cmdline, "%s", json_string_value(a));
    }
    for (char *q = p->cmdline; (q = strstr(q, "; ")) != NULL;) memmove(q, q + 1, strlen(q + 1) + 1);
    fu__scan_cmd(p->cmdline, &cmd);
  }
  long code;
  if (fu__json_int(root, "nccl_version", 0, 10000000, &code) == FU_OK) {
    fu_nccl_version_string(code, p->nccl, sizeof p->nccl);
    fu_nccl_version_string(code, c->printed_nccl, sizeof c->printed_nccl);
  }
  long version = 0;
  fu__json_int(root, "version", 0, INT_MAX, &version);
  snprintf(p->tool, sizeof p->tool, "nccl-tests (JSON v%ld)", version);
  const json_t *cfg = json_object_get(root, "config");
  long nthreads = 1, ngpus = 1, iters = 0, graph = 0;
  int nproc = 0, nhosts = 0;
  if (json_is_object(cfg)) {
    if (fu__json_int(cfg, "nthreads", 1, FU__MAX_RANKS, &nthreads) == FU_EDATA ||
        fu__json_int(cfg, "ngpus", 1, FU__MAX_RANKS, &ngpus) == FU_EDATA ||
        fu__json_int(cfg, "iterations", 0, INT_MAX, &iters) == FU_EDATA ||
        fu__json_int(cfg, "graph", 0, INT_MAX, &graph) == FU_EDATA) {
      fu__err(c, 0, "config: nthreads, ngpus, iterations or graph is not a valid integer");
      json_decref(root);
      return FU_EDATA;
    }
    const json_t *devs = json_object_get(cfg, "devices");
    if (json_is_array(devs)) {
      size_t i;
      const json_t *d;
      json_array_foreach(devs, i, d) {
        nproc++;
        const char *h = json_string_value(json_object_get(d, "hostname"));
        const char *g = json_string_value(json_object_get(d, "device_info"));
        if (g && !p->gpu[0]) snprintf(p->gpu, sizeof p->gpu, "%s", g);
        if (!h || !*h) continue;
        size_t j; /* a host not named by an earlier entry: one more node */
        for (j = 0; j < i; j++) {
          const char *e = json_string_value(json_object_get(json_array_get(devs, j), "hostname"));
          if (e && !strcmp(e, h)) break;
        }
        if (j < i) continue;
        nhosts++;
        if (nhosts <= 4) fu__append(p->host, sizeof p->host, "%s", h);
      }
    }
  }
  /* every process writes one devices entry with its first GPU; each has nthreads * ngpus */
  long ranks = 0;
  char why[96];
  if (nproc > 0) {
    ranks = nproc * nthreads * ngpus;
    snprintf(why, sizeof why, "%d device entries x nthreads %ld x ngpus %ld", nproc, nthreads, ngpus);
    if (c->o->ranks && c->o->ranks != ranks) {
      fu__err(c, 0, "the JSON lists %ld ranks but --ranks says %d", ranks, c->o->ranks);
      json_decref(root);
      return FU_EUSAGE;
    }
  } else if (c->o->ranks) {
    ranks = c->o->ranks;
    snprintf(why, sizeof why, "--ranks");
  } else {
    fu__err(c, 0, "the JSON does not list the devices; give --ranks");
    json_decref(root);
    return FU_EUSAGE;
  }
  if (ranks > FU__MAX_RANKS) {
    fu__err(c, 0, "impossible rank count %ld", ranks);
    json_decref(root);
    return FU_EDATA;
  }
  char op[24], link[16];
  const char *why_link = NULL;
  st = fu__resolve_op(c, 0, op_log, op, sizeof op);
  if (st == FU_OK) st = fu__resolve_link(c, 0, nhosts, (int)ranks, op, link, sizeof link, &why_link);
  char how[64];
  snprintf(how, sizeof how, "config nthreads %ld x ngpus %ld", nthreads, ngpus);
  int gpp = st == FU_OK && json_is_object(cfg) ? fu__log_layout(c, 0, nthreads * ngpus, (int)ranks, nhosts, how) : 0;
  size_t i;
  const json_t *row;
  c->r->n_tables = 1;
  int have_per_iter = 0;
  json_array_foreach(results, i, row) {
    if (st != FU_OK) break;
    if (!json_is_object(row)) {
      st = fu__bad_row(c, 0, "results[%zu] is not an object", i);
      continue;
    }
    const json_t *sz = json_object_get(row, "size");
    if (!json_is_integer(sz) || json_integer_value(sz) < 0) {
      st = fu__bad_row(c, 0, "results[%zu].size is not a byte count", i);
      continue;
    }
    const char *type = json_string_value(json_object_get(row, "type"));
    if (type && strlen(type) >= 16) {
      st = fu__bad_row(c, 0, "results[%zu].type is too long", i);
      continue;
    }
    long n_it = iters;
    fu__json_int(row, "actual_iterations", 1, INT_MAX, &n_it);
    static const char *const sides[2] = {"out_of_place", "in_place"};
    static const char *const per[2] = {"out_of_place_per_iter", "in_place_per_iter"};
    fu_sample s[2];
    int ns = 0, bad = 0;
    for (int k = 0; k < 2 && !bad; k++) {
      const json_t *side = json_object_get(row, sides[k]);
      if (!side || json_is_null(side)) continue;
      if (!json_is_object(side)) {
        st = fu__bad_row(c, 0, "results[%zu].%s is not an object", i, sides[k]);
        bad = 1;
        break;
      }
      fu_sample *x = &s[ns];
      fu_sample_init(x);
      const json_t *pi = json_object_get(row, per[k]);
      if (json_is_object(pi)) have_per_iter = 1;
      int before = (int)c->r->n_skipped;
      st = fu__json_side(c, i, sides[k], side, pi, x);
      if (st != FU_OK || (int)c->r->n_skipped != before) {
        bad = 1;
        break;
      }
      snprintf(x->op, sizeof x->op, "%s", op);
      snprintf(x->link, sizeof x->link, "%s", link);
      snprintf(x->dtype, sizeof x->dtype, "%s", type ? type : "");
      snprintf(x->algo, sizeof x->algo, "%s", cmd.algo);
      snprintf(x->proto, sizeof x->proto, "%s", cmd.proto);
      x->ranks = (int)ranks;
      x->nodes = nhosts; /* the host row names only the first 4 */
      x->gpus_per_proc = gpp;
      x->in_place = k;
      x->graph = graph > 0;
      x->bytes = (uint64_t)json_integer_value(sz);
      x->count = n_it > 0 ? (int)n_it : 1;
      ns++;
    }
    if (bad) continue;
    if (ns == 0) {
      st = fu__bad_row(c, 0, "results[%zu] has neither out_of_place nor in_place times", i);
      continue;
    }
    for (int k = 0; k < ns && st == FU_OK; k++) st = fu__push(c->r, &s[k]);
  }
  if (st == FU_OK && c->r->n) {
    fu__append(p->notes, sizeof p->notes,
               have_per_iter ? "nccl-tests JSON; t_median_us is the per-iteration p50 where given, "
                               "else the mean over the iterations"
                             : "nccl-tests JSON; its time is the mean over %d iterations, stored "
                               "as t_median_us",
               c->r->samples[0].count);
    fu__append(p->notes, sizeof p->notes, "ranks from %s; link %s from %s", why, link,
               why_link ? why_link : "?");
  }
  json_decref(root);
  return st;
}

/* ---- CSV ------------------------------------------------------------------------------- */

enum {
  FU__CSV_OP, FU__CSV_RANKS, FU__CSV_BYTES, FU__CSV_TIME, FU__CSV_LINK, FU__CSV_TMIN,
  FU__CSV_TP95, FU__CSV_COUNT, FU__CSV_INPLACE, FU__CSV_DTYPE, FU__CSV_ALGO, FU__CSV_PROTO,
  FU__CSV_BUSBW, FU__CSV_NWRONG, FU__CSV_GRAPH, FU__CSV_NODES, FU__CSV_GPP, FU__CSV_NCCL, FU__CSV_NKNOWN
};

static const struct {
  const char *name;          /* header name (lower case) */
  int col;                   /* FU__CSV_* */
} fu__csv_names[] = {
    {"op", FU__CSV_OP},           {"ranks", FU__CSV_RANKS},       {"bytes", FU__CSV_BYTES},
    {"time_us", FU__CSV_TIME},    {"t_median_us", FU__CSV_TIME},  {"median_us", FU__CSV_TIME},
    {"link", FU__CSV_LINK},       {"t_min_us", FU__CSV_TMIN},     {"min_us", FU__CSV_TMIN},
    {"t_p95_us", FU__CSV_TP95},   {"p95_us", FU__CSV_TP95},       {"count", FU__CSV_COUNT},
    {"in_place", FU__CSV_INPLACE}, {"dtype", FU__CSV_DTYPE},      {"algo", FU__CSV_ALGO},
    {"proto", FU__CSV_PROTO},     {"busbw_gbps", FU__CSV_BUSBW},  {"n_wrong", FU__CSV_NWRONG},
    {"graph", FU__CSV_GRAPH},     {"nodes", FU__CSV_NODES},       {"gpus_per_process", FU__CSV_GPP},
    {"nccl_version", FU__CSV_NCCL},
};

/* Split on commas in place, trimming blanks and one pair of double quotes. */
static int fu__split_csv(char *s, char **tok, int max, int *more) {
  int n = 0;
  *more = 0;
  for (;;) {
    char *e = strchr(s, ',');
    if (e) *e = '\0';
    if (n == max) {
      *more = 1;
      return n;
    }
    char *b = (char *)fu__skip_ws(s);
    size_t len = strlen(b);
    while (len && isspace((unsigned char)b[len - 1])) b[--len] = '\0';
    if (len >= 2 && b[0] == '"' && b[len - 1] == '"') {
      b[len - 1] = '\0';
      b++;
    }
    tok[n++] = b;
    if (!e) return n;
    s = e + 1;
  }
}

/* A comment saying the rows are in-place ("in-place" not preceded by "out-of-"). */
static int fu__says_in_place(const char *s) {
  for (const char *p = s; (p = strcasestr(p, "in-place")) != NULL; p += 8)
    if (!(p - s >= 7 && strncasecmp(p - 7, "out-of-", 7) == 0)) return 1;
  return 0;
}

/* "NVLS algorithm", "ring algorithm" in a comment: the NCCL algorithm the rows were taken with
 * (into algo when it is still empty). */
static void fu__algo_from_comment(const char *s, char *algo, size_t cap) {
  static const char *const names[] = {"nvlstree", "nvls", "ring", "tree", "collnetdirect",
                                      "collnetchain", "collnet", "pat"};
  if (*algo) return;
  for (const char *p = s; (p = strcasestr(p, " algorithm")) != NULL; p += 10) {
    const char *b = p;
    while (b > s && isalpha((unsigned char)b[-1])) b--;
    size_t n = (size_t)(p - b);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (n == strlen(names[i]) && strncasecmp(b, names[i], n) == 0 && n < cap) {
        snprintf(algo, cap, "%s", names[i]);
        return;
      }
  }
}

static int fu__parse_csv(fu__ctx *c, const char *text, size_t len) {
  fu_provenance *p = &c->r->prov;
  snprintf(p->tool, sizeof p->tool, "csv");
  fu__lines L = {text, text + len, 0};
  char buf[FU__LINE_MAX];
  int cut, no_nl;
  int col[FU__CSV_NKNOWN];
  for (int k = 0; k < FU__CSV_NKNOWN; k++) col[k] = -1;
  int ncols = 0, in_place_default = 0, have_header = 0;
  char algo_default[16] = "";
  int st = FU_OK;
  while (st == FU_OK && fu__next_line(&L, buf, sizeof buf, &cut, &no_nl)) {
    const char *s = fu__skip_ws(buf);
    if (*s == '#') {
      if (!have_header && fu__says_in_place(s)) in_place_default = 1;
      if (!have_header) fu__algo_from_comment(s, algo_default, sizeof algo_default);
      fu__scan_version(s, "NCCL", p->nccl, sizeof p->nccl);
      fu__scan_version(s, "CUDA", p->cuda, sizeof p->cuda);
      fu__scan_version(s, "driver", p->driver, sizeof p->driver);
      if (strlen(p->notes) < 200) fu__append(p->notes, sizeof p->notes, "%.200s", fu__skip_ws(s + 1));
      continue;
    }
    if (!*s) continue;
    char *tok[FU__MAX_TOK];
    int more;
    if (cut) {
      st = have_header ? fu__bad_row(c, L.no, "line longer than %d characters", FU__LINE_MAX - 1)
                       : (fu__err(c, L.no, "CSV header line too long"), FU_EDATA);
      continue;
    }
    int n = fu__split_csv(buf, tok, FU__MAX_TOK, &more);
    if (!have_header) {
      if (more) {
        fu__err(c, L.no, "CSV header has more than %d columns", FU__MAX_TOK);
        return FU_EDATA;
      }
      for (int i = 0; i < n; i++) {
        char low[32];
        size_t k = 0;
        for (const char *q = tok[i]; *q && k + 1 < sizeof low; q++) low[k++] = (char)tolower((unsigned char)*q);
        low[k] = '\0';
        for (size_t j = 0; j < sizeof fu__csv_names / sizeof fu__csv_names[0]; j++) {
          if (strcmp(low, fu__csv_names[j].name)) continue;
          if (col[fu__csv_names[j].col] >= 0) {
            fu__err(c, L.no, "CSV header names the column '%s' twice", tok[i]);
            return FU_EDATA;
          }
          col[fu__csv_names[j].col] = i;
        }
      }
      if (col[FU__CSV_BYTES] < 0 || col[FU__CSV_TIME] < 0) {
        fu__err(c, L.no, "CSV header needs the columns bytes and time_us (and op, ranks; "
                         "optionally link): got '%.80s'", s);
        return FU_EDATA;
      }
      if (col[FU__CSV_OP] < 0 && !*c->o->op && fu__op_from_name(c->name, (char[24]){0}, 24) != FU_OK) {
        fu__err(c, L.no, "CSV has no op column; give --op");
        return FU_EUSAGE;
      }
      if (col[FU__CSV_RANKS] < 0 && !c->o->ranks) {
        fu__err(c, L.no, "CSV has no ranks column; give --ranks");
        return FU_EUSAGE;
      }
      ncols = n;
      have_header = 1;
      c->r->n_tables = 1;
      continue;
    }
    if (n != ncols || more) {
      st = fu__bad_row(c, L.no, "row has %d%s fields, the header has %d", n, more ? "+" : "", ncols);
      continue;
    }
    fu_sample x;
    fu_sample_init(&x);
    x.in_place = in_place_default;
    snprintf(x.algo, sizeof x.algo, "%s", algo_default);
    /* op */
    char op_row[24] = "";
    if (col[FU__CSV_OP] >= 0 && fu__op_norm(tok[col[FU__CSV_OP]], op_row, sizeof op_row) != FU_OK) {
      st = fu__bad_row(c, L.no, "op '%.30s' is not an operation fusim knows", tok[col[FU__CSV_OP]]);
      continue;
    }
    if ((st = fu__resolve_op(c, L.no, op_row, x.op, sizeof x.op)) != FU_OK) break;
    /* ranks */
    long ranks = c->o->ranks;
    if (col[FU__CSV_RANKS] >= 0) {
      if (fu_parse_long(tok[col[FU__CSV_RANKS]], 1, FU__MAX_RANKS, &ranks) != FU_OK) {
        st = fu__bad_row(c, L.no, "ranks '%.30s' is not a rank count (1 .. %d)",
                         tok[col[FU__CSV_RANKS]], FU__MAX_RANKS);
        continue;
      }
      if (c->o->ranks && c->o->ranks != ranks) {
        fu__err(c, L.no, "the file says %ld ranks but --ranks says %d", ranks, c->o->ranks);
        st = FU_EUSAGE;
        break;
      }
    }
    x.ranks = (int)ranks;
    /* nodes (optional): the ranks spread over this many hosts, at least one rank on each */
    if (col[FU__CSV_NODES] >= 0 && *tok[col[FU__CSV_NODES]]) {
      long nodes;
      if (fu_parse_long(tok[col[FU__CSV_NODES]], 1, ranks, &nodes) != FU_OK || ranks % nodes != 0) {
        st = fu__bad_row(c, L.no, "nodes '%.30s' is not a node count that divides the ranks (%ld)",
                         tok[col[FU__CSV_NODES]], ranks);
        continue;
      }
      x.nodes = (int)nodes;
    }
    /* gpus_per_process (optional): GPUs one process drove, all on one node */
    if (col[FU__CSV_GPP] >= 0 && *tok[col[FU__CSV_GPP]]) {
      long gpn = ranks / (x.nodes > 0 ? x.nodes : 1), gpp;
      if (fu_parse_long(tok[col[FU__CSV_GPP]], 1, gpn, &gpp) != FU_OK || gpn % gpp != 0) {
        st = fu__bad_row(c, L.no, "gpus_per_process '%.30s' does not divide the GPUs of a node (%ld)",
                         tok[col[FU__CSV_GPP]], gpn);
        continue;
      }
      x.gpus_per_proc = (int)gpp;
    }
    /* nccl_version (optional): the NCCL the row's run used, as NCCL prints it */
    if (col[FU__CSV_NCCL] >= 0 && *tok[col[FU__CSV_NCCL]]) {
      if (!fu_nccl_version_code(tok[col[FU__CSV_NCCL]])) {
        st = fu__bad_row(c, L.no, "nccl_version '%.30s' is not an NCCL version X.Y.Z (2.29.2)", tok[col[FU__CSV_NCCL]]);
        continue;
      }
      snprintf(x.nccl_version, sizeof x.nccl_version, "%.*s", (int)strcspn(tok[col[FU__CSV_NCCL]], "+"),
               tok[col[FU__CSV_NCCL]]);
    }
    /* bytes and times */
    if (fu_parse_u64(tok[col[FU__CSV_BYTES]], &x.bytes) != FU_OK || x.bytes > (uint64_t)INT64_MAX) {
      st = fu__bad_row(c, L.no, "bytes '%.30s' is not a byte count", tok[col[FU__CSV_BYTES]]);
      continue;
    }
    if (fu__pos(tok[col[FU__CSV_TIME]], &x.t_median_us) != FU_OK) {
      st = fu__bad_row(c, L.no, "time '%.30s' is not a positive number of microseconds",
                       tok[col[FU__CSV_TIME]]);
      continue;
    }
    static const struct {
      int col;               /* optional time column */
      size_t off;            /* where it goes */
    } opt_t[] = {{FU__CSV_TMIN, offsetof(fu_sample, t_min_us)},
                 {FU__CSV_TP95, offsetof(fu_sample, t_p95_us)}};
    int bad = 0;
    for (size_t k = 0; k < 2 && !bad; k++) {
      int ci = col[opt_t[k].col];
      if (ci < 0 || !*tok[ci]) continue;
      if (fu__pos(tok[ci], (double *)((char *)&x + opt_t[k].off)) != FU_OK) {
        st = fu__bad_row(c, L.no, "'%.30s' is not a positive time", tok[ci]);
        bad = 1;
      }
    }
    if (bad) continue;
    if (col[FU__CSV_BUSBW] >= 0 && *tok[col[FU__CSV_BUSBW]] &&
        fu__nonneg(tok[col[FU__CSV_BUSBW]], &x.busbw_gbps) != FU_OK) {
      st = fu__bad_row(c, L.no, "busbw '%.30s' is not a bandwidth", tok[col[FU__CSV_BUSBW]]);
      continue;
    }
    static const struct {
      int col;               /* optional integer column */
      long lo, hi;           /* range */
      size_t off;            /* int field in fu_sample */
    } opt_i[] = {{FU__CSV_COUNT, 0, INT_MAX, offsetof(fu_sample, count)},
                 {FU__CSV_INPLACE, 0, 1, offsetof(fu_sample, in_place)},
                 {FU__CSV_NWRONG, 0, INT_MAX, offsetof(fu_sample, n_wrong)},
                 {FU__CSV_GRAPH, 0, 1, offsetof(fu_sample, graph)}};
    for (size_t k = 0; k < sizeof opt_i / sizeof opt_i[0] && !bad; k++) {
      int ci = col[opt_i[k].col];
      long v;
      if (ci < 0 || !*tok[ci]) continue;
      if (fu_parse_long(tok[ci], opt_i[k].lo, opt_i[k].hi, &v) != FU_OK) {
        st = fu__bad_row(c, L.no, "'%.30s' is not an integer in %ld .. %ld", tok[ci], opt_i[k].lo,
                         opt_i[k].hi);
        bad = 1;
      } else {
        *(int *)((char *)&x + opt_i[k].off) = (int)v;
      }
    }
    if (bad) continue;
    static const struct {
      int col;               /* optional text column */
      size_t off, cap;       /* char array in fu_sample */
    } opt_s[] = {{FU__CSV_DTYPE, offsetof(fu_sample, dtype), sizeof x.dtype},
                 {FU__CSV_ALGO, offsetof(fu_sample, algo), sizeof x.algo},
                 {FU__CSV_PROTO, offsetof(fu_sample, proto), sizeof x.proto}};
    for (size_t k = 0; k < sizeof opt_s / sizeof opt_s[0] && !bad; k++) {
      int ci = col[opt_s[k].col];
      if (ci < 0) continue;
      if (fu__copy((char *)&x + opt_s[k].off, opt_s[k].cap, tok[ci]) != FU_OK) {
        st = fu__bad_row(c, L.no, "'%.30s' is too long", tok[ci]);
        bad = 1;
      }
    }
    if (bad) continue;
    /* link */
    if (col[FU__CSV_LINK] >= 0 && *tok[col[FU__CSV_LINK]]) {
      const char *l = tok[col[FU__CSV_LINK]];
      if (!fu__link_ok(l)) {
        st = fu__bad_row(c, L.no, "link '%.30s' is not a link class (nvlink, pcie, pcie_h2d, "
                                  "pcie_d2h, pcie_bidir, hbm, net, launch)", l);
        continue;
      }
      if (*c->o->link && strcmp(c->o->link, l)) {
        fu__err(c, L.no, "the file says link %s but --link says %s", l, c->o->link);
        st = FU_EUSAGE;
        break;
      }
      snprintf(x.link, sizeof x.link, "%s", l);
    } else {
      const char *why;
      if ((st = fu__resolve_link(c, L.no, x.nodes > 1 ? x.nodes : 1, x.ranks, x.op, x.link,
                                 sizeof x.link, &why)) != FU_OK)
        break;
    }
    st = fu__push(c->r, &x);
  }
  if (st != FU_OK) return st;
  if (!have_header) {
    fu__err(c, 0, "no CSV header line (op,ranks,bytes,time_us[,link]) found");
    return FU_EDATA;
  }
  if (in_place_default) fu__append(p->notes, sizeof p->notes, "rows are in-place, as a comment in the file says");
  if (*algo_default)
    fu__append(p->notes, sizeof p->notes, "algorithm %s, as a comment in the file says", algo_default);
  return FU_OK;
}

/* ---- entry point ------------------------------------------------------------------------- */

static fu_import_format fu__sniff(const char *name, const char *text, size_t len) {
  const char *p = text, *end = text + len;
  while (p < end && isspace((unsigned char)*p)) p++;
  if (p < end && (*p == '{' || (*p == '[' && !fu__mpi_tag_len(p)))) return FU_IMPORT_JSON;
  size_t nl = strlen(name);
  if (nl > 4 && !strcasecmp(name + nl - 4, ".csv")) return FU_IMPORT_CSV;
  if (nl > 5 && !strcasecmp(name + nl - 5, ".json")) return FU_IMPORT_JSON;
  /* the first line that is neither blank nor a comment: "op,ranks,bytes,..." is CSV */
  while (p < end) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    if (!e) e = end;
    const char *q = p;
    while (q < e && isspace((unsigned char)*q)) q++;
    if (q < e && *q != '#') {
      size_t n = (size_t)(e - q);
      char line[256];
      if (n >= sizeof line) n = sizeof line - 1;
      memcpy(line, q, n);
      line[n] = '\0';
      if (strchr(line, ',') && (strstr(line, "bytes") || strstr(line, "time_us")))
        return FU_IMPORT_CSV;
      return FU_IMPORT_TEXT;
    }
    p = e + 1;
  }
  return FU_IMPORT_TEXT;
}

/* The NCCL the run used, on each sample that does not name its own (a CSV column): the version
 * NCCL or nccl-tests printed, else one a comment names (a curator's or user's note); one that is
 * not an NCCL 2 version X.Y.Z is ignored (the samples' NCCL stays unknown). What NCCL printed is
 * also the host row's version where a comment said another. */
static void fu__run_nccl(fu__ctx *c) {
  fu_provenance *p = &c->r->prov;
  if (fu_nccl_version_code(c->printed_nccl)) snprintf(p->nccl, sizeof p->nccl, "%.15s", c->printed_nccl);
  if (!fu_nccl_version_code(p->nccl)) return;
  for (size_t i = 0; i < c->r->n; i++)
    if (!c->r->samples[i].nccl_version[0])
      snprintf(c->r->samples[i].nccl_version, sizeof c->r->samples[i].nccl_version, "%.15s", p->nccl);
}

int fu_import_parse(const char *name, const char *text, size_t len, const fu_import_opts *opts,
                    fu_import_result *r) {
  fu__ctx c = {name ? name : "(input)", opts, r, 0, 0, ""};
  snprintf(r->prov.source_file, sizeof r->prov.source_file, "%s", c.name);
  if (*opts->link && !fu__link_ok(opts->link)) {
    fu__err(&c, 0, "--link %s is not a link class", opts->link);
    return FU_EUSAGE;
  }
  if (len == 0) {
    fu__err(&c, 0, "file is empty");
    return FU_EDATA;
  }
  if (memchr(text, '\0', len)) {
    fu__err(&c, 0, "binary data (NUL bytes), not a text file");
    return FU_EDATA;
  }
  if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) { /* UTF-8 byte order mark (CSV from a spreadsheet) */
    text += 3;
    len -= 3;
    if (len == 0) {
      fu__err(&c, 0, "file is empty");
      return FU_EDATA;
    }
  }
  r->format = opts->format == FU_IMPORT_AUTO ? fu__sniff(c.name, text, len) : opts->format;
  int st;
  switch (r->format) {
    case FU_IMPORT_JSON: st = fu__parse_json(&c, text, len); break;
    case FU_IMPORT_CSV: st = fu__parse_csv(&c, text, len); break;
    default: st = fu__parse_text(&c, text, len); break;
  }
  if (st != FU_OK) return st;
  if (r->n == 0) {
    fu__err(&c, 0, "no samples found%s", r->n_skipped ? " (every row was skipped)" : "");
    return FU_EDATA;
  }
  if (opts->gpu[0] && r->prov.gpu[0] && !strcasestr(r->prov.gpu, opts->gpu)) {
    fu__err(&c, 0, "the file names the GPU '%s' but --gpu says '%s'", r->prov.gpu, opts->gpu);
    return FU_EUSAGE;
  }
  if (opts->gpu[0] && !r->prov.gpu[0]) { /* a CSV or a trimmed log: the user says which GPU */
    snprintf(r->prov.gpu, sizeof r->prov.gpu, "%s", opts->gpu);
    fu__append(r->prov.notes, sizeof r->prov.notes, "GPU from --gpu");
  }
  if (r->n_skipped) fu__append(r->prov.notes, sizeof r->prov.notes, "%zu bad rows skipped (--lenient)", r->n_skipped);
  /* nccl-tests' #wrong: elements that came out wrong (corrupted data, a bad link); the time was
   * still measured and is stored, but the user should know the run was not healthy */
  size_t n_wrong = 0;
  for (size_t i = 0; i < r->n; i++) n_wrong += r->samples[i].n_wrong > 0;
  if (n_wrong) {
    fu__warnf(&c, 0, "%zu of its %zu samples report wrong results (#wrong > 0): the benchmark found "
                     "corrupted data in those runs; their times are stored all the same (fit leaves them out)",
              n_wrong, r->n);
    fu__append(r->prov.notes, sizeof r->prov.notes, "samples with #wrong > 0: %zu", n_wrong);
  }
  fu__run_nccl(&c);
  return FU_OK;
}

/* ---- the CSV fusim calib writes (the parser above reads it back) ---- */

void fu_import_csv_header(FILE *out) {
  fputs("op,ranks,bytes,time_us,link,dtype,algo,proto,in_place,graph,t_min_us,t_p95_us,count,"
        "busbw_gbps,n_wrong,mean_us\n",
        out);
}

/* A statistic as a cell, then sep; one not measured (a host issue row has no min, p95 or
 * bandwidth) is empty: "nan" is not a time, and the parser refuses it. */
static void fu__csv_stat(FILE *out, double v, char sep) {
  if (isfinite(v)) fprintf(out, "%.4f", v);
  fputc(sep, out);
}

void fu_import_csv_row(FILE *out, const fu_sample *s, double mean_us) {
  fu_csv_field(out, s->op);
  fprintf(out, ",%d,%llu,%.4f,", s->ranks, (unsigned long long)s->bytes, s->t_median_us);
  const char *text[] = {s->link, s->dtype, s->algo, s->proto};
  for (size_t k = 0; k < sizeof text / sizeof text[0]; k++) {
    fu_csv_field(out, text[k]);
    fputc(',', out);
  }
  fprintf(out, "%d,%d,", s->in_place, s->graph);
  fu__csv_stat(out, s->t_min_us, ',');
  fu__csv_stat(out, s->t_p95_us, ',');
  fprintf(out, "%d,", s->count);
  fu__csv_stat(out, s->busbw_gbps, ',');
  if (s->n_wrong >= 0) fprintf(out, "%d", s->n_wrong);
  fputc(',', out);
  fu__csv_stat(out, mean_us, '\n');
}
