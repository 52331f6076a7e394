/* repredict_validation.c: re-predicts the rows of a `fusim validate --format csv` result file
 * (the CSVs in data/validation/) with the simulator as it is now, offline: each row's bundled workload
 * (matched by name in data/validation/workloads/: the files the run used), scaled as the run scaled it (every compute time x
 * compute_only_us / workload_compute_us; host costs kept), bucketed by its plan string and
 * simulated on the given profile (default: the embedded one). Prints per row the prediction
 * stored in the file, the new one and the measurement, and the median and largest |error| of
 * both. (The run bucketed time-dependent plans, optimal and mgwfbp, on a scale taken from its
 * first 5 compute-only iterations, which the file does not keep; here the final scale is used.)
 *
 *   repredict_validation [--profile FILE] [--handoff US] [--max-median F --max-abs F] CSV...
 *
 * With --max-median / --max-abs it exits 1 when the new predictions miss those bounds (used
 * by the validation_rows test with the targets, 3% and 8%). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_predict.h"
#include "fu_resolve.h"

#define MAXW 16
#define MAXROWS 512

/* Splits one CSV line (RFC 4180 quotes) into at most n fields, in place. */
static int csv_split(char *s, char **f, int n) {
  int k = 0;
  while (k < n) {
    char *out = s;
    f[k++] = s;
    if (*s == '"') {
      s++;
      for (;;) {
        if (*s == '"' && s[1] == '"') *out++ = '"', s += 2;
        else if (*s == '"') { s++; break; }
        else if (!*s) break;
        else *out++ = *s++;
      }
      while (*s && *s != ',') s++;
    } else {
      while (*s && *s != ',' && *s != '\n' && *s != '\r') *out++ = *s++;
    }
    int more = *s == ',';
    if (*s) s++;
    *out = '\0';
    if (!more) break;
  }
  return k;
}

/* "cap:4MiB overlap=on pack=copy streams=2" -> plan. */
static int plan_from_string(const char *str, fu_plan *p) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", str);
  fu_plan_init(p);
  char *save = NULL;
  for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
    if (strncmp(t, "overlap=", 8) == 0) FU_CHECK(fu_plan_parse_overlap(t + 8, p));
    else if (strncmp(t, "pack=", 5) == 0) FU_CHECK(fu_plan_parse_pack(t + 5, p));
    else if (strncmp(t, "streams=", 8) == 0) FU_CHECK(fu_plan_parse_streams(t + 8, p));
    else FU_CHECK(fu_plan_parse_fusion(t, p));
  }
  return FU_OK;
}

static void scaled(const fu_workload *w, double s, fu_workload *out) {
  *out = *w;
  out->notes = NULL;
  out->fwd_us *= s;
  out->bwd_us *= s;
  out->opt_us *= s;
  out->grads = malloc(w->ngrads * sizeof *out->grads);
  for (size_t i = 0; i < w->ngrads; i++) {
    out->grads[i] = w->grads[i];
    out->grads[i].ready_us *= s;
    if (out->grads[i].ready_us > out->bwd_us) out->grads[i].ready_us = out->bwd_us;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
  if (!n) return NAN;
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
  const char *profile = NULL;
  double handoff = NAN, max_median = NAN, max_abs = NAN;
  static const struct option opts[] = {{"profile", required_argument, NULL, 'p'},
                                       {"handoff", required_argument, NULL, 'h'},
                                       {"max-median", required_argument, NULL, 'm'},
                                       {"max-abs", required_argument, NULL, 'a'},
                                       {NULL, 0, NULL, 0}};
  int o;
  while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    double *dst = o == 'h' ? &handoff : o == 'm' ? &max_median : o == 'a' ? &max_abs : NULL;
    if (o == 'p') profile = optarg;
    else if (dst) {
      if (fu_parse_double(optarg, dst) != FU_OK) {
        fprintf(stderr, "repredict_validation: %s: not a number\n", optarg);
        return 64;
      }
    } else {
      fprintf(stderr, "usage: repredict_validation [--profile FILE] [--handoff US] "
                      "[--max-median F] [--max-abs F] CSV...\n");
      return 64;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "repredict_validation: no CSV file given\n");
    return 64;
  }
  fu_profile *prof = malloc(sizeof *prof);
  int st = profile ? fu_profile_load(profile, prof) : fu_profile_load_default(prof);
  if (st != FU_OK) return fu_exit_code(st);
  if (!isnan(handoff)) prof->pack_handoff_us = handoff;
  const char *root = getenv("FUSIM_SOURCE_ROOT");
  static const char *names[] = {"resnet50", "bert_large", "resnet50_captured", "bert_large_captured",
                                "llama2_7b"};
  fu_workload ws[MAXW];
  size_t nw = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/data/validation/workloads/%s.json", root ? root : ".", names[i]);
    if (fu_workload_load(path, 0, &ws[nw]) == FU_OK) nw++;
  }
  printf("profile %s (pack_handoff_us %.3f)\n", prof->name, prof->pack_handoff_us);
  printf("%-22s %-44s %10s %10s %10s %8s %8s\n", "workload", "plan", "measured", "stored",
         "new", "err_old", "err_new");
  static double e_old[MAXROWS], e_new[MAXROWS];
  size_t n = 0;
  for (int a = optind; a < argc; a++) {
    FILE *f = fopen(argv[a], "r");
    if (!f) {
      fprintf(stderr, "%s: cannot open\n", argv[a]);
      return 66;
    }
    char line[4096];
    int header = 0;
    while (fgets(line, sizeof line, f)) {
      if (line[0] == '#') continue;
      if (!header++) continue;
      char *fl[20];
      if (csv_split(line, fl, 20) < 11) continue;
      /* workload,plan,n_ops,predicted_us,lo,hi,measured_us,spread_us,rel_err,compute_only_us,
       * workload_compute_us,... */
      const fu_workload *w = NULL;
      for (size_t i = 0; i < nw; i++)
        if (strcmp(ws[i].name, fl[0]) == 0) w = &ws[i];
      if (!w) continue; /* not a bundled workload (test workloads of the run) */
      fu_plan p;
      if (plan_from_string(fl[1], &p) != FU_OK) continue;
      double pred_old = atof(fl[3]), meas = atof(fl[6]), comp = atof(fl[9]), nom = atof(fl[10]);
      fu_workload sw;
      scaled(w, comp / nom, &sw);
      fu_comm c;
      fu_comm_parse("offload", &c);
      fu_result r;
      if (fu_predict_plan(&sw, &p, &c, prof, NULL, NULL, &r) != FU_OK) {
        free(sw.grads);
        continue;
      }
      double eo = (pred_old - meas) / meas, en = (r.iter_us - meas) / meas;
      printf("%-22s %-44s %10.1f %10.1f %10.1f %+7.2f%% %+7.2f%%\n", fl[0], fl[1], meas, pred_old,
             r.iter_us, 100 * eo, 100 * en);
      if (n < MAXROWS) e_old[n] = fabs(eo), e_new[n] = fabs(en), n++;
      fu_result_finish(&r);
      free(sw.grads);
    }
    fclose(f);
  }
  double mo = median(e_old, n), mn = median(e_new, n), xo = 0, xn = 0;
  for (size_t i = 0; i < n; i++) xo = fmax(xo, e_old[i]), xn = fmax(xn, e_new[i]);
  printf("rows %zu: stored predictions median |err| %.2f%% max %.2f%%; now median %.2f%% max %.2f%%\n",
         n, 100 * mo, 100 * xo, 100 * mn, 100 * xn);
  for (size_t i = 0; i < nw; i++) fu_workload_finish(&ws[i]);
  free(prof);
  int bad = n == 0 || (!isnan(max_median) && mn > max_median) || (!isnan(max_abs) && xn > max_abs);
  return bad ? 1 : 0;
}
