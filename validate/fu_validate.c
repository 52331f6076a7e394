/* fu_validate.c: the validation matrix (see fu_validate.h for the order of work). CPU code; the
 * GPU is reached only through fu_exec.h, so this file builds without CUDA too. */
#include "fu_validate.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_content.h"
#include "fu_db.h"
#include "fu_exec.h"
#include "fu_output.h"
#include "fu_predict.h"
#include "fu_profile.h"
#include "fu_reprice.h"
#include "fu_resolve.h"
#include "fu_result.h"
#include "fu_result_db.h"
#include "fu_workload.h"

#ifndef FUSIM_GIT_COMMIT
#define FUSIM_GIT_COMMIT "unknown"
#endif

#define FU__SCALE_ITERS 5        /* compute-only iterations for the first scale */
#define FU__MAX_WORKLOADS 16

void fu_validate_opts_init(fu_validate_opts *o) {
  memset(o, 0, sizeof *o);
  o->plans = "default";
  o->iters = 20;
  o->warmup = 3;
  o->emulate_host = 1;
  o->format = FU_FORMAT_TABLE;
}

int fu_validate_default_plans(fu_plan **out, size_t *n) {
  static const char *const fusion[] = {"none", "single", "cap:25MiB,first:1MiB", "cap:4MiB",
                                       "cap:100MiB", "optimal"};
  size_t nf = sizeof fusion / sizeof fusion[0];
  fu_plan *p = calloc(2 * nf, sizeof *p);
  if (!p) return FU_ENOMEM;
  for (size_t i = 0; i < 2 * nf; i++) {
    fu_plan_init(&p[i]);
    int st = fu_plan_parse_fusion(fusion[i / 2], &p[i]);
    if (st != FU_OK) {
      free(p);
      return st;
    }
    p[i].overlap = i % 2 == 0;
  }
  *out = p;
  *n = 2 * nf;
  return FU_OK;
}

int fu_validate_load_plans(const char *path, fu_plan **out, size_t *n) {
  return fu_plan_load_list(path, out, n);
}

/* ---- statistics ------------------------------------------------------------------------- */

static int fu__cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Quantile q of v[0..n) by linear interpolation (sorts a copy). */
static double fu__quantile(const double *v, size_t n, double q) {
  if (n == 0) return NAN;
  double *s = malloc(n * sizeof *s);
  if (!s) return NAN;
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, fu__cmp_d);
  double x = q * (double)(n - 1);
  size_t i = (size_t)x;
  double r = i + 1 < n ? s[i] + (x - (double)i) * (s[i + 1] - s[i]) : s[n - 1];
  free(s);
  return r;
}

/* ---- one row of the matrix -------------------------------------------------------------- */

typedef struct fu__row {
  char workload[128];        /* workload name */
  char plan[256];            /* plan string */
  size_t nbuckets;           /* communication operations */
  double predicted_us;       /* simulator, on the workload scaled to the measured compute */
  double pred_lo_us, pred_hi_us; /* its interval */
  double measured_us;        /* median of the timed iterations */
  double spread_us;          /* p95 - p5 */
  double compute_only_us;    /* compute-only median of the same run */
  double nominal_compute_us; /* the workload's own compute (accum x (fwd+bwd) + opt) */
  double rel_err;            /* (predicted - measured) / measured */
  double sm_mhz_start, sm_mhz_end, power_w; /* NVML beside the plan's iterations */
  uint64_t fusion_buffer_bytes; /* the plan's fusion buffer */
  int verified;              /* the correctness check passed */
  fu_content content;        /* scaled workload, profile and buckets as predicted (for the db) */
} fu__row;

/* Workload with every time multiplied by s (host costs are wall time and stay). */
static int fu__scaled(const fu_workload *w, double s, fu_workload *out) {
  fu_workload_init(out);
  memcpy(out->name, w->name, sizeof out->name);
  memcpy(out->source, w->source, sizeof out->source);
  out->fwd_us = w->fwd_us * s;
  out->bwd_us = w->bwd_us * s;
  out->opt_us = w->opt_us * s;
  out->hook_us = w->hook_us;
  out->issue_us = w->issue_us;
  out->accum_steps = w->accum_steps;
  out->estimated = w->estimated;
  out->grads = calloc(w->ngrads ? w->ngrads : 1, sizeof *out->grads);
  if (!out->grads) return FU_ENOMEM;
  for (size_t i = 0; i < w->ngrads; i++) {
    out->grads[i].name = strdup(w->grads[i].name);
    if (!out->grads[i].name) return FU_ENOMEM;
    out->ngrads = i + 1;
    out->grads[i].bytes = w->grads[i].bytes;
    out->grads[i].ready_us = w->grads[i].ready_us * s;
  }
  if (out->ngrads) {            /* rounding must not put a ready time past backward's end */
    for (size_t i = 0; i < out->ngrads; i++)
      if (out->grads[i].ready_us > out->bwd_us) out->grads[i].ready_us = out->bwd_us;
  }
  return FU_OK;
}

static double fu__nominal_compute(const fu_workload *w) {
  int steps = w->accum_steps > 0 ? w->accum_steps : 1;
  return steps * (w->fwd_us + w->bwd_us) + w->opt_us;
}

static const char *fu__git_commit(void) {
  const char *g = getenv("FUSIM_GIT_COMMIT");
  return g && *g ? g : FUSIM_GIT_COMMIT;
}

/* ---- output ----------------------------------------------------------------------------- */

static void fu__print(const fu_validate_opts *o, const fu_exec_info *info, const char *comm,
                      const char *profile, const fu__row *rows, size_t n, double med, double mx) {
  if (o->format == FU_FORMAT_JSON) {
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "gpu", json_string(info->gpu));
    json_object_set_new(root, "driver", json_string(info->driver));
    json_object_set_new(root, "cuda", json_string(info->cuda));
    json_object_set_new(root, "nccl", json_string(info->nccl));
    json_object_set_new(root, "comm", json_string(comm));
    json_object_set_new(root, "profile", json_string(profile));
    json_object_set_new(root, "git_commit", json_string(fu__git_commit()));
    json_object_set_new(root, "command", json_string(o->cmdline ? o->cmdline : ""));
    for (size_t i = 0; i < n; i++) {
      const fu__row *r = &rows[i];
      json_t *j = json_object();
      json_object_set_new(j, "workload", json_string(r->workload));
      json_object_set_new(j, "plan", json_string(r->plan));
      json_object_set_new(j, "n_ops", json_integer((json_int_t)r->nbuckets));
      json_object_set_new(j, "predicted_us", json_real(r->predicted_us));
      json_object_set_new(j, "predicted_lo_us", json_real(r->pred_lo_us));
      json_object_set_new(j, "predicted_hi_us", json_real(r->pred_hi_us));
      json_object_set_new(j, "measured_us", json_real(r->measured_us));
      json_object_set_new(j, "spread_us", json_real(r->spread_us));
      json_object_set_new(j, "rel_err", json_real(r->rel_err));
      json_object_set_new(j, "compute_only_us", json_real(r->compute_only_us));
      json_object_set_new(j, "workload_compute_us", json_real(r->nominal_compute_us));
      json_object_set_new(j, "fusion_buffer_bytes", json_integer((json_int_t)r->fusion_buffer_bytes));
      json_object_set_new(j, "sm_mhz_start", isnan(r->sm_mhz_start) ? json_null() : json_real(r->sm_mhz_start));
      json_object_set_new(j, "sm_mhz_end", isnan(r->sm_mhz_end) ? json_null() : json_real(r->sm_mhz_end));
      json_object_set_new(j, "power_w", isnan(r->power_w) ? json_null() : json_real(r->power_w));
      json_object_set_new(j, "verified", json_boolean(r->verified));
      json_array_append_new(arr, j);
    }
    json_object_set_new(root, "rows", arr);
    json_object_set_new(root, "median_abs_rel_err", json_real(med));
    json_object_set_new(root, "max_abs_rel_err", json_real(mx));
    char *s = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    if (s) puts(s);
    free(s);
    json_decref(root);
    return;
  }
  if (o->format == FU_FORMAT_CSV) {
    printf("# fusim validate: gpu %s; %s; cuda runtime %s; nccl %s; comm %s; profile %s; "
           "fusim %s commit %s\n",
           info->gpu, info->driver, info->cuda, *info->nccl ? info->nccl : "-", comm, profile,
           fu_version(), fu__git_commit());
    printf("# command: %s\n", o->cmdline ? o->cmdline : "");
    printf("# summary: rows %zu, median |rel_err| %.4f, max |rel_err| %.4f\n", n, med, mx);
    printf("workload,plan,n_ops,predicted_us,predicted_lo_us,predicted_hi_us,measured_us,"
           "spread_us,rel_err,compute_only_us,workload_compute_us,fusion_buffer_bytes,"
           "sm_mhz_start,sm_mhz_end,power_w,verified\n");
    for (size_t i = 0; i < n; i++) {
      const fu__row *r = &rows[i];
      /* Plans hold commas (cap:25MiB,first:1MiB), bucket files any character: quoted as
       * RFC 4180 says where needed. */
      fu_csv_field(stdout, r->workload);
      putchar(',');
      fu_csv_field(stdout, r->plan);
      printf(",%zu,%.1f,%.1f,%.1f,%.1f,%.1f,%.5f,%.1f,%.1f,%llu,%.0f,%.0f,%.1f,%d\n", r->nbuckets, r->predicted_us, r->pred_lo_us, r->pred_hi_us,
             r->measured_us, r->spread_us, r->rel_err, r->compute_only_us, r->nominal_compute_us,
             (unsigned long long)r->fusion_buffer_bytes, r->sm_mhz_start, r->sm_mhz_end,
             r->power_w, r->verified);
    }
    return;
  }
  if (*info->driver)
    printf("GPU %s (%s, CUDA %s%s%s), comm %s, profile %s\n", info->gpu, info->driver,
           info->cuda, *info->nccl ? ", NCCL " : "", info->nccl, comm, profile);
  else
    printf("%s\n", info->gpu);
  /* compute: the compute-only iteration measured in the run; workload: the workload's own. */
  printf("%-22s %-50s %5s %11s %11s %9s %8s %11s %11s %6s %6s\n", "workload", "plan", "ops",
         "predicted", "measured", "spread", "error", "compute", "workload", "MHz", "W");
  for (size_t i = 0; i < n; i++) {
    const fu__row *r = &rows[i];
    char plan[256];
    snprintf(plan, sizeof plan, "%s", r->plan);
    char *cut = strstr(plan, " streams=1");   /* the default; other stream counts stay */
    if (cut && cut[10] == 0) *cut = 0;
    printf("%-22.22s %-50.50s %5zu %9.0fus %9.0fus %7.0fus %+7.2f%% %9.0fus %9.0fus %6.0f %6.0f\n",
           r->workload, plan, r->nbuckets, r->predicted_us, r->measured_us, r->spread_us,
           100 * r->rel_err, r->compute_only_us, r->nominal_compute_us, r->sm_mhz_end, r->power_w);
  }
  printf("summary: %zu rows, median |error| %.2f%%, max |error| %.2f%% (targets 3%% and 8%%)\n",
         n, 100 * med, 100 * mx);
}

/* predicted vs measured through gnuplot, with the y = x line and +-8% bands. */
static int fu__plot(const char *path, const fu__row *rows, size_t n) {
  char dat[] = "/tmp/fusim-validate-XXXXXX";
  int fd = mkstemp(dat);
  if (fd < 0) {
    fu_error("%s: cannot create a temporary data file", path);
    return FU_EIO;
  }
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(dat);
    return FU_EIO;
  }
  double mx = 0;
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "%g %g \"%s\"\n", rows[i].measured_us / 1000, rows[i].predicted_us / 1000,
            rows[i].workload);
    if (rows[i].measured_us > mx) mx = rows[i].measured_us;
    if (rows[i].predicted_us > mx) mx = rows[i].predicted_us;
  }
  int werr = ferror(f);
  if (fclose(f) != 0 || werr) {
    fu_error("%s: cannot write the plot's data file %s: %s", path, dat, strerror(errno ? errno : EIO));
    unlink(dat);
    return FU_EIO;
  }
  int svg = 0;
  if (fu_plot_path_check("validate: --plot", path, &svg) != FU_OK) {
    unlink(dat);
    return FU_EUSAGE;
  }
  /* the output reaches gnuplot as ARG1, the data file (a mkstemp name) as ARG2: values, never
   * gnuplot syntax (fu_gnuplot_run) */
  char script[1024];
  snprintf(script, sizeof script,
           "set terminal %s\nset output ARG1\n"
           "set title 'fusim validate: predicted vs measured "
           "iteration time'\nset xlabel 'measured (ms)'\nset ylabel 'predicted (ms)'\n"
           "set key top left\nset grid\nset xrange [0:%g]\nset yrange [0:%g]\n"
           "plot x title 'predicted = measured' lw 2, 1.08*x title '+8%%' dt 2 lc 'gray', "
           "0.92*x title '-8%%' dt 2 lc 'gray', ARG2 using 1:2 title 'plans' pt 7 ps 1.2\n",
           svg ? "svg size 800,640" : "png size 800,640", mx / 1000 * 1.05, mx / 1000 * 1.05);
  const char *args[] = {dat};
  int st = fu_gnuplot_run("validate: --plot", path, script, args, 1);
  unlink(dat);
  return st;
}

/* Prints the rows with the summary (median and max |error|) and draws the plot if asked. */
static int fu__report(const fu_validate_opts *o, const fu_exec_info *info, const char *comm,
                      const char *profile, const fu__row *rows, size_t n) {
  double *ae = malloc((n ? n : 1) * sizeof *ae), mx = 0;
  if (!ae) return FU_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    ae[i] = fabs(rows[i].rel_err);
    if (ae[i] > mx) mx = ae[i];
  }
  fu__print(o, info, comm, profile, rows, n, fu__quantile(ae, n, 0.5), mx);
  fflush(stdout);
  free(ae);
  return o->plot ? fu__plot(o->plot, rows, n) : FU_OK;
}

/* ---- stored results (--from-csv) ---------------------------------------------------------- */

/* Splits one CSV line into at most max fields in place (RFC 4180 quotes, "" inside quotes).
 * Returns the number of fields, or -1 for an unterminated quote. */
static int fu__csv_split(char *line, char **f, int max) {
  int n = 0;
  char *r = line, *w = line;
  while (n < max) {
    f[n++] = w;
    if (*r == '"') {
      r++;
      for (;;) {
        if (!*r) return -1;
        if (*r == '"' && r[1] == '"') *w++ = '"', r += 2;
        else if (*r == '"') { r++; break; }
        else *w++ = *r++;
      }
    }
    while (*r && *r != ',') *w++ = *r++;
    if (!*r) { *w = 0; break; }
    *w++ = 0;
    r++;
  }
  return n;
}

int fu_validate_from_csv(const fu_validate_opts *o, const char *path) {
  static const char *const cols[] = {"workload", "plan", "n_ops", "predicted_us", "measured_us",
                                     "spread_us", "rel_err", "compute_only_us",
                                     "workload_compute_us", "sm_mhz_end", "power_w", "verified"};
  enum { NC = sizeof cols / sizeof cols[0], MAXF = 64 };
  char *text = NULL;
  size_t len;
  FU_CHECK(fu_read_file(path, &text, &len));
  int ix[NC], st = FU_OK, have_header = 0;
  size_t n = 0, cap = 0, lineno = 0;
  fu__row *rows = NULL;
  fu_exec_info info;
  memset(&info, 0, sizeof info);
  snprintf(info.gpu, sizeof info.gpu, "stored results from %.100s", path);
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line && st == FU_OK;
       line = strtok_r(NULL, "\n", &save)) {
    lineno++;
    size_t l = strlen(line);
    if (l && line[l - 1] == '\r') line[l - 1] = 0;
    if (line[0] == '#' || line[0] == 0) continue;
    char *f[MAXF];
    int nf = fu__csv_split(line, f, MAXF);
    if (nf < 0) {
      fu_error("%s:%zu: unterminated quote", path, lineno);
      st = FU_EDATA;
      break;
    }
    if (!have_header) {
      for (int c = 0; c < NC; c++) {
        ix[c] = -1;
        for (int k = 0; k < nf; k++)
          if (strcmp(f[k], cols[c]) == 0) ix[c] = k;
        if (ix[c] < 0) {
          fu_error("%s:%zu: header lacks the column '%s' (not fusim validate's CSV?)", path,
                   lineno, cols[c]);
          st = FU_EDATA;
          break;
        }
      }
      have_header = 1;
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      fu__row *nr = realloc(rows, cap * sizeof *nr);
      if (!nr) {
        st = FU_ENOMEM;
        break;
      }
      rows = nr;
    }
    fu__row *r = &rows[n];
    memset(r, 0, sizeof *r);
    double v[NC];
    for (int c = 2; c < NC && st == FU_OK; c++) {
      if (ix[c] >= nf || fu_parse_double(f[ix[c]], &v[c]) != FU_OK) {
        if (ix[c] < nf && strcmp(f[ix[c]], "nan") == 0) {
          v[c] = NAN;
          continue;
        }
        fu_error("%s:%zu: %s: not a number", path, lineno, cols[c]);
        st = FU_EDATA;
      }
    }
    /* What each column can hold: "nan" only where a run may not know the value (spread, the
     * compute-only runs, clock and power); n_ops -5 printed as 18446744073709551611. */
    for (int c = 2; c < NC && st == FU_OK; c++) {
      int nan_ok = c == 5 || c >= 7, whole = c == 2 || c == 11;
      double lo = c == 2 ? 1 : c == 6 ? -1e300 : 0, hi = c == 2 ? 1e9 : c == 11 ? 1 : 1e300;
      int positive = c == 3 || c == 4; /* times that cannot be 0 */
      if (isnan(v[c]) ? !nan_ok
                      : v[c] < lo || v[c] > hi || (whole && v[c] != floor(v[c])) ||
                            (positive && !(v[c] > 0))) {
        fu_error("%s:%zu: %s: %s is not %s", path, lineno, cols[c], f[ix[c]],
                 c == 2 ? "a whole number of operations from 1 up"
                 : c == 11 ? "0 or 1"
                 : positive ? "a time above 0 us"
                 : c == 6 ? "a number (the relative error)"
                          : "a number >= 0 (or nan: not measured)");
        st = FU_EDATA;
      }
    }
    if (st != FU_OK) break;
    if (ix[0] >= nf || ix[1] >= nf) {
      fu_error("%s:%zu: too few fields", path, lineno);
      st = FU_EDATA;
      break;
    }
    snprintf(r->workload, sizeof r->workload, "%.127s", f[ix[0]]);
    snprintf(r->plan, sizeof r->plan, "%.255s", f[ix[1]]);
    r->nbuckets = (size_t)v[2];
    r->predicted_us = v[3];
    r->measured_us = v[4];
    r->spread_us = v[5];
    r->rel_err = v[6];
    r->compute_only_us = v[7];
    r->nominal_compute_us = v[8];
    r->sm_mhz_start = r->sm_mhz_end = v[9];
    r->power_w = v[10];
    r->verified = v[11] != 0;
    r->pred_lo_us = r->pred_hi_us = NAN;
    n++;
  }
  free(text);
  if (st == FU_OK && n == 0) {
    fu_error("%s: no result rows", path);
    st = FU_EDATA;
  }
  if (st == FU_OK) st = fu__report(o, &info, "(stored)", "(stored)", rows, n);
  free(rows);
  return st;
}

/* ---- the matrix ------------------------------------------------------------------------- */

typedef struct fu__wl {
  fu_workload w;             /* the workload as given */
  fu_bucket **b;             /* per plan: buckets on the unscaled workload (check only) */
  size_t *nb;                /* per plan: bucket counts */
} fu__wl;

static void fu__wl_finish(fu__wl *x, size_t nplans) {
  if (x->b)
    for (size_t p = 0; p < nplans; p++) free(x->b[p]);
  free(x->b);
  free(x->nb);
  fu_workload_finish(&x->w);
}

/* Runs one workload on the GPU and fills rows[0..nplans). */
static int fu__run_workload(const fu_validate_opts *o, fu__wl *x, const fu_plan *plans,
                            size_t nplans, const fu_profile *prof, int ndev, fu_exec_mon *nvml,
                            fu__row *rows, fu_result *results, json_t **details, char *comm_s,
                            size_t comm_len) {
  const fu_workload *w = &x->w;
  fu_exec *e = NULL;
  fu_exec_opts eo = {.ndev = ndev, .emulate_host = o->emulate_host, .allreduce = o->allreduce};
  fu_comm comm;
  fu_bucket **eb = calloc(nplans, sizeof *eb);
  size_t *enb = calloc(nplans, sizeof *enb);
  double *t = malloc((size_t)o->iters * (nplans + 1) * sizeof *t);
  double *mhz = malloc((size_t)o->iters * (nplans + 1) * sizeof *mhz);
  double *pw = malloc((size_t)o->iters * (nplans + 1) * sizeof *pw);
  fu_workload ws0, ws;
  fu_workload_init(&ws0);
  fu_workload_init(&ws);
  int st = eb && enb && t && mhz && pw ? FU_OK : FU_ENOMEM;
  if (st == FU_OK) st = fu_exec_create(w, &eo, &e);
  if (st == FU_OK) st = fu_exec_comm(e, &comm);
  if (st == FU_OK) fu_comm_string(&comm, comm_s, comm_len);
  /* 1. compute-only iterations: the first scale, for time-dependent bucketing. */
  double nominal = fu__nominal_compute(w), c0[FU__SCALE_ITERS];
  for (int i = 0; i < FU__SCALE_ITERS + 2 && st == FU_OK; i++) {
    double us;
    st = fu_exec_iteration(e, -1, &us);
    if (i >= 2) c0[i - 2] = us;
  }
  if (st == FU_OK) st = fu__scaled(w, fu__quantile(c0, FU__SCALE_ITERS, 0.5) / nominal, &ws0);
  for (size_t p = 0; p < nplans && st == FU_OK; p++) {
    st = fu_resolve_buckets(&ws0, &plans[p], &comm, prof, &eb[p], &enb[p], NULL);
    int slot;
    if (st == FU_OK) st = fu_exec_add_plan(e, &plans[p], eb[p], enb[p], &slot);
  }
  if (st == FU_OK) st = fu_exec_prepare(e);
  /* 2. correctness, every plan. */
  for (size_t p = 0; p < nplans && st == FU_OK; p++) {
    char msg[512];
    st = fu_exec_verify(e, (int)p, (uint32_t)(p + 1) * 2654435761u, msg, sizeof msg);
    if (st != FU_OK && *msg)
      fu_error("validate: %s, plan %s: wrong result: %s", w->name, rows[p].plan, msg);
    rows[p].verified = st == FU_OK;
  }
  /* 3. warm-up and timed rounds, plans interleaved; slot -1 is compute only. */
  size_t nv = nplans + 1;
  for (int r = 0; r < o->warmup + o->iters && st == FU_OK; r++) {
    for (size_t v = 0; v < nv && st == FU_OK; v++) {
      double us;
      st = fu_exec_iteration(e, (int)v - 1, &us);
      if (st == FU_OK && r >= o->warmup) {
        size_t ix = v * (size_t)o->iters + (size_t)(r - o->warmup);
        t[ix] = us;
        fu_exec_mon_read(nvml, 0, &mhz[ix], &pw[ix]);
      }
    }
  }
  /* 4. predictions on the workload scaled to this run's compute. */
  double comp = st == FU_OK ? fu__quantile(t, (size_t)o->iters, 0.5) : NAN;
  if (st == FU_OK) st = fu__scaled(w, comp / nominal, &ws);
  for (size_t p = 0; p < nplans && st == FU_OK; p++) {
    fu__row *row = &rows[p];
    const double *tp = t + (p + 1) * (size_t)o->iters;
    const double *mp = mhz + (p + 1) * (size_t)o->iters, *pp = pw + (p + 1) * (size_t)o->iters;
    fu_result res;
    memset(&res, 0, sizeof res);
    st = fu_sim_predict_buckets(&ws, &plans[p], &comm, prof, eb[p], enb[p], NULL, &res);
    /* The buckets borrow their last tensor's name from ws, which is freed below, before the
     * results are stored and printed: borrow it from w instead (the same names, in order). */
    for (size_t k = 0; st == FU_OK && k < res.nbuckets; k++)
      res.buckets[k].last_tensor = w->grads[res.buckets[k].last].name;
    if (st == FU_OK) st = fu_content_init(&row->content, &ws, prof, &res);
    if (st != FU_OK) {
      fu_result_finish(&res);
      break;
    }
    row->nbuckets = enb[p];
    row->predicted_us = res.iter_us;
    row->pred_lo_us = res.iter_lo_us;
    row->pred_hi_us = res.iter_hi_us;
    row->fusion_buffer_bytes = res.fusion_buffer_bytes;
    row->measured_us = fu__quantile(tp, (size_t)o->iters, 0.5);
    row->spread_us = fu__quantile(tp, (size_t)o->iters, 0.95) - fu__quantile(tp, (size_t)o->iters, 0.05);
    row->compute_only_us = comp;
    row->nominal_compute_us = nominal;
    row->rel_err = (row->predicted_us - row->measured_us) / row->measured_us;
    row->sm_mhz_start = mp[0];
    row->sm_mhz_end = mp[o->iters - 1];
    double ps = 0;
    int pn = 0;
    for (int i = 0; i < o->iters; i++)
      if (!isnan(pp[i])) ps += pp[i], pn++;
    row->power_w = pn ? ps / pn : NAN;
    json_t *d = json_object(), *it = json_array();
    for (int i = 0; it && i < o->iters; i++) json_array_append_new(it, json_real(tp[i]));
    if (d) json_object_set_new(d, "measured_iters_us", it);
    if (d) json_object_set_new(d, "compute_scale", json_real(comp / nominal));
    details[p] = d; /* the measurement's detail; the prediction's is its own JSON */
    results[p] = res;
  }
  fu_exec_destroy(e);
  for (size_t p = 0; p < nplans && eb; p++) free(eb[p]);
  free(eb);
  free(enb);
  free(t);
  free(mhz);
  free(pw);
  fu_workload_finish(&ws0);
  fu_workload_finish(&ws);
  return st;
}

static int fu__store(fu_db *db, const fu_validate_opts *o, const fu_exec_info *info,
                     const fu__row *rows, const fu_result *results, json_t *const *details,
                     size_t n) {
  FU_CHECK(fu_db_begin(db));
  fu_provenance pv; /* one run for the workload's plans, with the machine */
  fu_provenance_local(&pv, "fusim validate", 0, NULL);
  snprintf(pv.cmdline, sizeof pv.cmdline, "%s", o->cmdline ? o->cmdline : "");
  snprintf(pv.gpu, sizeof pv.gpu, "%s", info->gpu);
  snprintf(pv.driver, sizeof pv.driver, "%s", info->driver);
  snprintf(pv.cuda, sizeof pv.cuda, "%s", info->cuda);
  snprintf(pv.nccl, sizeof pv.nccl, "%s", info->nccl);
  int64_t run_id = 0;
  int st = fu_db_run_begin(db, "validate", &pv, &run_id);
  for (size_t i = 0; i < n && st == FU_OK; i++) {
    const fu__row *r = &rows[i];
    fu_prediction_row pr;
    char *js = NULL;
    int64_t pid = 0, mid = 0;
    st = fu_result_db_row(&results[i], o->cmdline, &r->content, run_id, &pr, &js);
    if (st == FU_OK) st = fu_db_prediction_store(db, &pr, &pid);
    free(js);
    if (st != FU_OK) break;
    fu_measurement_row m;
    memset(&m, 0, sizeof m);
    m.prediction_id = pid;
    m.measured_us = r->measured_us;
    m.spread_us = r->spread_us;
    m.iterations = o->iters;
    m.compute_only_us = r->compute_only_us;
    m.sm_clock_mhz_start = r->sm_mhz_start;
    m.sm_clock_mhz_end = r->sm_mhz_end;
    m.power_w = r->power_w;
    snprintf(m.git_commit, sizeof m.git_commit, "%s", fu__git_commit());
    json_t *mj = details[i] ? json_deep_copy(details[i]) : json_object();
    if (mj) {
      json_object_set_new(mj, "workload_compute_us", json_real(r->nominal_compute_us));
      json_object_set_new(mj, "rel_err", json_real(r->rel_err));
      json_object_set_new(mj, "verified", json_boolean(r->verified));
    }
    char *ms = mj ? json_dumps(mj, JSON_COMPACT) : NULL;
    m.json = ms;
    st = fu_db_measurement_store(db, &m, &mid);
    free(ms);
    json_decref(mj);
  }
  if (st == FU_OK) return fu_db_commit(db);
  fu_db_rollback(db);
  return st;
}

int fu_validate_run(const fu_validate_opts *o) {
  if (!o->workloads || !*o->workloads) {
    fu_error("validate: --workload is required (e.g. --workload resnet50,bert_large)");
    return FU_EUSAGE;
  }
  if (o->iters < 1 || o->warmup < 0) {
    fu_error("validate: --iters must be >= 1 and --warmup >= 0");
    return FU_EUSAGE;
  }
  int st = FU_OK;
  fu_profile *prof = malloc(sizeof *prof);
  fu_plan *plans = NULL;
  size_t nplans = 0, nwl = 0;
  fu__wl wl[FU__MAX_WORKLOADS];
  memset(wl, 0, sizeof wl);
  fu__row *rows = NULL;
  json_t **details = NULL;
  fu_result *results = NULL;
  fu_db *db = NULL;
  fu_exec_mon *nvml = NULL;
  fu_exec_info info;
  memset(&info, 0, sizeof info);
  if (!prof) return FU_ENOMEM;
  /* Profile, plans and workloads: everything that can be wrong in the input. */
  st = fu_profile_load_arg("--profile", o->profile, prof);
  if (st == FU_OK && o->plan) {
    if ((plans = malloc(sizeof *plans))) fu_plan_copy(plans, o->plan), nplans = 1;
    else st = FU_ENOMEM;
  } else if (st == FU_OK) {
    st = strcmp(o->plans, "default") == 0 ? fu_validate_default_plans(&plans, &nplans)
                                           : fu_validate_load_plans(o->plans, &plans, &nplans);
  }
  /* the executor sends buckets as they fill: optimal, searched again on the GPU, keeps to that */
  for (size_t p = 0; st == FU_OK && p < nplans; p++) plans[p].fill_order = 1;
  char *list = st == FU_OK ? strdup(o->workloads) : NULL;
  if (st == FU_OK && !list) st = FU_ENOMEM;
  char *save = NULL;
  for (char *tok = list ? strtok_r(list, ",", &save) : NULL; tok && st == FU_OK;
       tok = strtok_r(NULL, ",", &save)) {
    if (nwl == FU__MAX_WORKLOADS) {
      fu_error("validate: at most %d workloads in one run", FU__MAX_WORKLOADS);
      st = FU_EUSAGE;
      break;
    }
    char *path = fu_workload_resolve(tok);
    if (!path) {
      fu_error("validate: workload '%s': no such file or bundled workload", tok);
      st = FU_ENOINPUT;
      break;
    }
    fu_workload_init(&wl[nwl].w);
    st = fu_workload_load(path, 0, &wl[nwl].w);
    free(path);
    /* compute and links from one machine, as predict and plan (fu_reprice.h) */
    if (st == FU_OK) st = fu_reprice("validate", &wl[nwl].w, prof, o->profile, NULL);
    char note[512]; /* said where predict's table says it (kept compute: fu_reprice warned) */
    if (st == FU_OK && wl[nwl].w.from.repriced)
      fprintf(stderr, "fusim: validate: %s: compute %s\n", wl[nwl].w.name,
              fu_compute_note(&wl[nwl].w.from, note, sizeof note));
    nwl++;
  }
  free(list);
  if (st == FU_OK && nwl == 0) {
    fu_error("validate: --workload '%s' names no workload", o->workloads);
    st = FU_EUSAGE;
  }
  /* Every plan's buckets on every workload: unknown tensors in a bucket file fail here. The
   * communication is the executor's (offload on one GPU), known only after the probe; the
   * bucketing of the fixed plans does not depend on it, and optimal is redone on the GPU. */
  fu_comm comm_guess;
  if (st == FU_OK) st = fu_comm_parse("offload", &comm_guess);
  for (size_t i = 0; i < nwl && st == FU_OK; i++) {
    wl[i].b = calloc(nplans, sizeof *wl[i].b);
    wl[i].nb = calloc(nplans, sizeof *wl[i].nb);
    if (!wl[i].b || !wl[i].nb) st = FU_ENOMEM;
    for (size_t p = 0; p < nplans && st == FU_OK; p++) {
      st = fu_resolve_buckets(&wl[i].w, &plans[p], &comm_guess, prof, &wl[i].b[p], &wl[i].nb[p],
                              NULL);
      /* fu_resolve_buckets names the file and the tensor on bad data (one line); only other
       * failures need the plan said here. */
      if (st != FU_OK && st != FU_EDATA && st != FU_EUSAGE && st != FU_ENOINPUT) {
        char pb[512];
        fu_error("validate: workload %s: plan %s cannot be bucketed", wl[i].w.name,
                 fu_plan_string(&plans[p], pb, sizeof pb));
      }
      /* the executor packs and sends a bucket as the arena's run [first, last] (fu_exec.c): a
       * bucket of one element type among another's gradients would send those too */
      for (size_t k = 0; st == FU_OK && k < wl[i].nb[p]; k++) {
        const fu_bucket *b = &wl[i].b[p][k];
        if (b->ntensors == b->last - b->first + 1) continue;
        char pb[512];
        fu_error("validate: workload %s: plan %s: bucket %zu (%s) lies among gradients of another "
                 "element type, which the executor cannot leave out (use tools/validate_torch.py)",
                 wl[i].w.name, fu_plan_string(&plans[p], pb, sizeof pb), k, wl[i].w.grads[b->first].dtype);
        st = FU_EUSAGE;
      }
      /* nor send buckets out of the order they fill (a bucket file's "order": "listed"; DDP's
       * rule with two element types) */
      for (size_t k = 1; st == FU_OK && k < wl[i].nb[p]; k++) {
        if (wl[i].b[p][k].last > wl[i].b[p][k - 1].last) continue;
        char pb[512];
        fu_fusion_kind kind = plans[p].kind;
        fu_error("validate: workload %s: plan %s: bucket %zu is sent before one that fills earlier%s, "
                 "which the executor cannot: it sends buckets as they fill",
                 wl[i].w.name, fu_plan_string(&plans[p], pb, sizeof pb), k,
                 kind == FU_FUSION_BUCKETS ? " (\"order\": \"listed\")"
                 : kind == FU_FUSION_CAP   ? " (its buckets still open at the end go the type seen last first)"
                                           : "");
        st = FU_EUSAGE;
      }
    }
  }
  /* The GPU: present, and large enough for every workload. */
  if (st == FU_OK) st = fu_exec_probe(&info);
  if (st == FU_OK && o->ndev > info.ndev) {
    fu_error("validate: --gpus %d: only %d GPU%s visible", o->ndev, info.ndev,
             info.ndev == 1 ? " is" : "s are");
    st = FU_EUSAGE;
  }
  int ndev = o->ndev > 0 ? o->ndev : info.ndev;
  if (ndev > FU_EXEC_MAX_DEV) ndev = FU_EXEC_MAX_DEV;
  for (size_t i = 0; i < nwl && st == FU_OK; i++) {
    uint64_t mb = 0, total = fu_workload_total_bytes(&wl[i].w);
    int streams = 1;
    for (size_t p = 0; p < nplans; p++) {
      uint64_t m = fu_buckets_largest_fused(wl[i].b[p], wl[i].nb[p]);
      if (plans[p].kind == FU_FUSION_OPTIMAL && !plans[p].pack_view) m = total; /* redone later */
      if (!plans[p].pack_view && m > mb) mb = m;
      if (plans[p].comm_streams > streams) streams = plans[p].comm_streams;
    }
    uint64_t need = fu_exec_device_bytes(&wl[i].w, mb, streams) + (256ull << 20);
    if (need > info.mem_free) {
      char a[32], b[32];
      fu_error("validate: workload %s needs %s of GPU memory (gradients and fusion buffers); "
               "the GPU has %s free",
               wl[i].w.name, fu_format_size(need, a, sizeof a),
               fu_format_size(info.mem_free, b, sizeof b));
      st = FU_EDATA;
    }
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (st == FU_OK && ndev == 1 && !o->allreduce && pages > 0 && psz > 0 &&
        2 * total > (uint64_t)pages * (uint64_t)psz) {
      char a[32];
      fu_error("validate: workload %s needs %s of pinned host memory twice over (offload target "
               "and check copy); this machine has less",
               wl[i].w.name, fu_format_size(total, a, sizeof a));
      st = FU_EDATA;
    }
  }
  if (st == FU_OK && o->db_path) st = fu_db_open(o->db_path, FU_DB_READWRITE, &db);
  if (st == FU_OK) {
    rows = calloc(nwl * nplans, sizeof *rows);
    details = calloc(nwl * nplans, sizeof *details);
    results = calloc(nwl * nplans, sizeof *results);
    if (!rows || !details || !results) st = FU_ENOMEM;
  }
  if (st == FU_OK) st = fu_exec_mon_open(&nvml);
  if (st == FU_OK) {
    char drv[48];
    fu_exec_mon_driver(nvml, drv, sizeof drv);
    if (*drv) snprintf(info.driver, sizeof info.driver, "driver %.47s", drv);
  }
  char comm_s[64] = "";
  const char *pname = prof->name[0] ? prof->name : "default";
  for (size_t i = 0; i < nwl && st == FU_OK; i++) {
    fu__row *r = &rows[i * nplans];
    for (size_t p = 0; p < nplans; p++) {
      snprintf(r[p].workload, sizeof r[p].workload, "%.127s", wl[i].w.name);
      fu_plan_string(&plans[p], r[p].plan, sizeof r[p].plan);
    }
    st = fu__run_workload(o, &wl[i], plans, nplans, prof, ndev, nvml, r, &results[i * nplans],
                          &details[i * nplans], comm_s, sizeof comm_s);
    if (st == FU_OK && db)
      st = fu__store(db, o, &info, r, &results[i * nplans], &details[i * nplans], nplans);
  }
  if (st == FU_OK) st = fu__report(o, &info, comm_s, pname, rows, nwl * nplans);
  for (size_t i = 0; details && i < nwl * nplans; i++) json_decref(details[i]);
  for (size_t i = 0; results && i < nwl * nplans; i++) fu_result_finish(&results[i]);
  free(details);
  free(results);
  for (size_t i = 0; rows && i < nwl * nplans; i++) fu_content_finish(&rows[i].content);
  free(rows);
  fu_exec_mon_close(nvml);
  fu_db_close(db);
  for (size_t i = 0; i < nwl; i++) fu__wl_finish(&wl[i], nplans);
  fu_plan_list_free(plans, nplans);
  free(prof);
  return st;
}

/* ---- the fusion table ------------------------------------------------------------------- */

int fu_validate_fusion_table(const fu_validate_opts *o, int reps) {
  static const int k[] = {4, 4, 4, 64, 64};
  static const uint64_t m[] = {1ull << 20, 8ull << 20, 128ull << 20, 4096, 64ull << 10};
  size_t n = sizeof k / sizeof k[0];
  fu_fusion_row rows[sizeof k / sizeof k[0]];
  fu_exec_info info;
  FU_CHECK(fu_exec_probe(&info));
  FU_CHECK(fu_exec_bench_fusion(k, m, n, reps, rows));
  if (o->format == FU_FORMAT_CSV) {
    printf("# fusim validate --fusion-table: %s, %s, CUDA %s; D2H to pinned host memory; medians "
           "of %d runs; fusim %s commit %s\n",
           info.gpu, info.driver, info.cuda, reps, fu_version(), fu__git_commit());
    printf("# command: %s\n", o->cmdline ? o->cmdline : "");
    printf("messages,bytes_each,separate_us,one_copy_us,pack_us,pack_copy_us,pack_to_host_us,"
           "peak_gbps,util_separate,util_fused,util_fused_pack,pack_overhead,"
           "queued_separate_us,queued_one_copy_us,queued_pack_copy_us,queued_pack_overhead\n");
  } else if (o->format == FU_FORMAT_TABLE) {
    printf("fusion over PCIe D2H on %s (utilisation = achieved / peak measured bandwidth)\n",
           info.gpu);
    printf("%8s %10s %12s %12s %12s %12s %10s %10s %11s %9s %9s\n", "messages", "each",
           "separate", "one copy", "pack+copy", "pack->host", "util sep", "util fused",
           "util f+pack", "pack +%", "queued +%");
  }
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    const fu_fusion_row *r = &rows[i];
    double bytes = (double)r->k * (double)r->m, peak = r->peak_gbps * 1e3; /* bytes per us */
    double us = r->separate_us, u1 = r->one_copy_us, up = r->pack_copy_us;
    double a = bytes / us / peak, b = bytes / u1 / peak, c = bytes / up / peak;
    double ov = up / u1 - 1;
    char sz[32];
    if (o->format == FU_FORMAT_CSV)
      printf("%d,%llu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.4f,%.4f,%.4f,%.4f,%.2f,%.2f,%.2f,%.4f\n",
             r->k, (unsigned long long)r->m, us, u1, r->pack_us, up, r->pack_host_us,
             r->peak_gbps, a, b, c, ov, r->q_separate_us, r->q_one_copy_us, r->q_pack_copy_us,
             r->q_pack_copy_us / r->q_one_copy_us - 1);
    else if (o->format == FU_FORMAT_TABLE)
      printf("%8d %10s %10.1fus %10.1fus %10.1fus %10.1fus %9.1f%% %9.1f%% %10.1f%% %+8.1f%% "
             "%+8.1f%%\n",
             r->k, fu_format_size(r->m, sz, sizeof sz), us, u1, up, r->pack_host_us, 100 * a,
             100 * b, 100 * c, 100 * ov, 100 * (r->q_pack_copy_us / r->q_one_copy_us - 1));
    json_t *j = json_pack("{s:i,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "messages",
                          r->k, "bytes_each", (json_int_t)r->m, "separate_us", us, "one_copy_us",
                          u1, "pack_us", r->pack_us, "pack_copy_us", up, "pack_to_host_us",
                          r->pack_host_us, "queued_separate_us", r->q_separate_us,
                          "queued_one_copy_us", r->q_one_copy_us, "queued_pack_copy_us",
                          r->q_pack_copy_us, "peak_gbps", r->peak_gbps, "util_separate", a,
                          "util_fused", b, "util_fused_pack", c);
    if (j) json_array_append_new(arr, j);
  }
  if (o->format == FU_FORMAT_JSON) {
    char *s = json_dumps(arr, JSON_INDENT(1));
    if (s) puts(s);
    free(s);
  } else if (o->format == FU_FORMAT_TABLE) {
    printf("peak D2H bandwidth (512 MiB copy): %.2f GB/s\n", rows[0].peak_gbps);
  }
  json_decref(arr);
  return FU_OK;
}
