/* cmd_fit.c: fusim fit: piecewise alpha-beta fits of the samples in the results database, one
 * per (op, link, ranks, variant), stored in the database and written as a profile.
 *
 * Variants. A sample's algo and proto fields hold NCCL_ALGO / NCCL_PROTO for collectives and,
 * for calib's copies and pack kernel, timing variants (calib/fu_calib.h's table): algo
 * "pageable" (copies from/to pageable memory), "k=K" (the pack kernel over k tensors: the plain
 * pack, bytes = k x m), "unpack:k=K", "one:k=K" / "separate:k=K" (the fusion comparison's
 * copies), "pack+d2h:k=K", "p2h:k=K", "odd:k=37"; proto "pipe" / "queued" (back-to-back or
 * device-only timing of copies and pack). A sample's variant is its algo with any "k=K" part
 * dropped (so the pack kernel over every k is one curve of total bytes: "k=4" -> "", and
 * "unpack:k=4" -> "unpack"). Groups are (op, link, ranks, variant); each group uses one proto,
 * one dtype and one graph mode (given by --proto/--dtype/--graph, else NCCL's own protocol / the
 * plain timing, float, no graph, where the group has them). Without --algo, only plain variants
 * are fitted: every NCCL algorithm of a collective, and variant "" (pinned copies, the pack
 * kernel) of the rest; --algo any fits every variant. The curve's algo is the variant, with
 * "/PROTO" for a forced protocol or timing variant and "+cg" for CUDA-graph runs (the profile
 * keeps such curves; the simulator's lookups pick only plain ones). GEMM, issue and launch
 * samples are scalars, not size curves: skipped unless --op names them.
 *
 * Which samples: out-of-place when a group has any, else in-place (nccl-tests measures both;
 * in-place at one rank does nothing at all, so out-of-place is the one that carries a cost);
 * --place in|out forces one. Size-0 rows are skipped (no line through zero bytes). The time is
 * t_median_us (nccl-tests' mean when imported from a log), else t_min_us.
 *
 * Profile scalars (launch_us, issue_us, duplex_factor, copy_slowdown, comm_slowdown, hbm_gbps,
 * gpu_tflops_bf16, gpu_tflops_fp32, pack_handoff_us) are not fitted here: they come from --merge-into BASE
 * (whose curves and scalars are kept, fitted curves added or replaced) and are overridden by the
 * flags of the same name. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_fit.h"
#include "fu_model.h"
#include "fu_output.h"
#include "fu_profile.h"


/* One fitted group. */
typedef struct fu__group {
  fu_curve curve;            /* op, link, ranks, algo, source, segments */
  int in_place;              /* samples used were in-place */
  char dtype[16];            /* data type of the samples used ("" unknown) */
  char proto[16];            /* proto field of the samples used ("" NCCL's own / plain timing) */
  int graph;                 /* samples used were CUDA-graph replays */
  size_t n_zero;             /* size-0 samples skipped */
  fu_fit_result fit;         /* the fit (owns its arrays) */
} fu__group;

/* Profile scalars settable by flag. */
static const struct {
  const char *flag;          /* long option name */
  size_t offset;             /* offset of the double in fu_profile */
  double lo, hi;             /* allowed range */
} fu__scalars[] = {
    {"launch-us", offsetof(fu_profile, launch_us), 0, 1e6},
    {"issue-us", offsetof(fu_profile, issue_us), 0, 1e6},
    {"duplex-factor", offsetof(fu_profile, duplex_factor), 1e-3, 1},
    {"copy-slowdown", offsetof(fu_profile, copy_slowdown), 1, 100},
    {"comm-slowdown", offsetof(fu_profile, comm_slowdown), 1, 100},
    {"hbm-gbps", offsetof(fu_profile, hbm_gbps), 0, 1e9},
    {"gpu-tflops-bf16", offsetof(fu_profile, gpu_tflops_bf16), 0, 1e6},
    {"gpu-tflops-fp32", offsetof(fu_profile, gpu_tflops_fp32), 0, 1e6},
    {"pack-handoff-us", offsetof(fu_profile, pack_handoff_us), 0, 1e6},
};
#define FU__NSCALARS (sizeof fu__scalars / sizeof fu__scalars[0])

static void fu__usage(FILE *out) {
  fprintf(out,
          "usage: fusim fit [options]\n"
          "Fit t = alpha + beta * bytes piecewise over message size to the samples in the results\n"
          "database, one curve per (op, link, ranks, algo), with 95%% confidence intervals (weighted\n"
          "least squares, weights 1/t^2, i.e. relative error). Breakpoints come from the data: the\n"
          "fewest segments that keep every sample within --tolerance (or --criterion bic). Prints\n"
          "the segments and a per-size relative error table, stores the fit in the database and\n"
          "writes a profile with --out.\n\n"
          "selection:\n"
          "  --db FILE            results database (default $FUSIM_DB, else ./fusim.db)\n"
          "  --op OP              only this operation (allreduce, all_reduce_perf, h2d, ...)\n"
          "  --link L             only this link class (nvlink, pcie_h2d, pcie_d2h, hbm, net, ...)\n"
          "  --ranks N            only this rank count\n"
          "  --run ID             only samples of this import/calibration run\n"
          "  --algo A             only this variant: an NCCL algorithm (ring, tree, nvls, ...) or\n"
          "                       a calib timing variant (pageable, unpack, pack+d2h, p2h, one,\n"
          "                       separate, odd); \"any\" fits every variant, each its own curve\n"
          "                       (default: NCCL's algorithms, and the plain variant of copies\n"
          "                       and the pack kernel: pinned memory, all k as one curve)\n"
          "  --proto P            only this proto field: an NCCL protocol (LL, LL128, Simple) or a\n"
          "                       timing variant (pipe, queued); \"default\" = none forced (the\n"
          "                       default where a group has such samples)\n"
          "  --dtype D            only this data type (float, bf16, ...; samples recording none\n"
          "                       pass; default float where a group has it)\n"
          "  --graph 0|1          plain launches or CUDA-graph replays (default 0 where present)\n"
          "  --place auto|out|in  out-of-place or in-place samples (auto: out-of-place when a\n"
          "                       group has any, else in-place)\n"
          "fit:\n"
          "  --tolerance REL      worst relative error to reach with the fewest segments (0.05)\n"
          "  --criterion C        tolerance (default) or bic (for noisy data)\n"
          "  --max-segments K     at most K segments per curve (1..%d, default %d)\n"
          "  --min-points N       samples per segment, >= 2 (default: 3, or 2 where 3 cannot\n"
          "                       reach the tolerance; a 2-point segment has no CI)\n"
          "  --robust             refit each segment with Tukey bisquare weights (outliers)\n"
          "  --nonneg-alpha       refit a segment through the origin when its alpha is < 0\n"
          "output:\n"
          "  --format F           table (default), csv or json\n"
          "  --out FILE           write the profile (JSON, format fusim-profile-1)\n"
          "  --merge-into BASE    start from profile BASE (its curves and scalars are kept; fitted\n"
          "                       curves are added or replace those with the same key); written to\n"
          "                       --out, or back to BASE without --out\n"
          "  --name NAME          profile name (default: BASE's, else \"fitted\")\n"
          "  --gpu NAME           GPU model recorded in the profile\n"
          "  --source TEXT        provenance label of the fitted curves\n"
          "  --label-algo A       algo of curves whose samples name none (ring, tree, nvls)\n"
          "  --notes TEXT         appended to the profile's notes (where the scalars came from)\n"
          "  --profile-source T   provenance of the whole profile\n"
          "  --plot FILE          draw measured points and fitted curves (time and bus bandwidth\n"
          "                       against size, log axes) with gnuplot; .png or .svg\n"
          "  --no-store           do not store the fit in the database\n"
          "profile scalars (not fitted; override BASE's):\n",
          FU_MAX_SEGMENTS, FU_MAX_SEGMENTS);
  for (size_t i = 0; i < FU__NSCALARS; i++) fprintf(out, "  --%s X\n", fu__scalars[i].flag);
  fprintf(out, "  -h, --help           this text\n");
}

/* gnuplot on PATH? */
static int fu__have_program(const char *name) {
  const char *path = getenv("PATH");
  if (!path) return 0;
  char buf[4096];
  for (const char *p = path; *p;) {
    size_t n = strcspn(p, ":");
    if (n > 0 && n + strlen(name) + 2 < sizeof buf) {
      snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name);
      if (access(buf, X_OK) == 0) return 1;
    }
    p += n;
    if (*p == ':') p++;
  }
  return 0;
}

static double fu__busbw(const char *op, int ranks, double bytes, double t_us) {
  fu_op o;
  double f = fu_op_parse(op, &o) == FU_OK ? fu_busbw_factor(o, ranks) : 1.0;
  if (f <= 0) f = 1.0; /* one rank: plain bytes per time */
  return bytes / t_us / 1e3 * f;
}

/* Bandwidth (GB/s) of an inverse bandwidth beta (us/B); inf for beta <= 0. */
static double fu__gbps(double beta) { return beta > 0 ? 1e-3 / beta : INFINITY; }

/* ---- output ---- */

static void fu__print_table(const fu__group *g, const fu_fit_options *o) {
  const fu_curve *c = &g->curve;
  char a[32], b[32];
  printf("%s %s %d rank%s%s%s%s%s, %s%s, samples: %zu, %d segment%s, max rel err %.2f%% (%s, %s %.3g)%s\n",
         c->op, c->link, c->ranks, c->ranks == 1 ? "" : "s", c->algo[0] ? ", algo " : "", c->algo,
         g->dtype[0] ? ", " : "", g->dtype, g->in_place ? "in-place" : "out-of-place",
         g->graph ? ", CUDA graph" : "", g->fit.n, c->nseg, c->nseg == 1 ? "" : "s",
         100 * g->fit.max_rel_err, fu_fit_method_name(o->method), fu_fit_criterion_name(o->criterion),
         o->tolerance, g->fit.met_tolerance ? "" : "  TOLERANCE NOT MET");
  if (g->n_zero) printf("  (%zu size-0 samples skipped)\n", g->n_zero);
  printf("  %-3s %-23s %-30s %-34s %8s %4s\n", "seg", "sizes [lo, hi)", "alpha us [95% CI]",
         "bandwidth GB/s = 1e-3/beta [95% CI]", "max err", "n");
  for (int s = 0; s < c->nseg; s++) {
    const fu_segment *x = &c->seg[s];
    char range[48], ci_a[48], ci_b[48];
    snprintf(range, sizeof range, "%s .. %s", fu_format_size((uint64_t)x->lo_bytes, a, sizeof a),
             isinf(x->hi_bytes) ? "inf" : fu_format_size((uint64_t)x->hi_bytes, b, sizeof b));
    if (isnan(x->alpha_ci[0])) snprintf(ci_a, sizeof ci_a, "%.4g [unknown]", x->alpha_us);
    else snprintf(ci_a, sizeof ci_a, "%.4g [%.4g, %.4g]", x->alpha_us, x->alpha_ci[0], x->alpha_ci[1]);
    if (x->beta_us_per_byte <= 0) snprintf(ci_b, sizeof ci_b, "none (beta %.3g us/B <= 0)", x->beta_us_per_byte);
    else if (isnan(x->beta_ci[0])) snprintf(ci_b, sizeof ci_b, "%.4g [unknown]", fu__gbps(x->beta_us_per_byte));
    else snprintf(ci_b, sizeof ci_b, "%.4g [%.4g, %.4g]", fu__gbps(x->beta_us_per_byte),
                  fu__gbps(x->beta_ci[1]), fu__gbps(x->beta_ci[0]));
    printf("  %-3d %-23s %-30s %-34s %7.2f%% %4d%s%s\n", s, range, ci_a, ci_b, 100 * x->max_rel_err,
           x->n_samples, g->fit.alpha_negative[s] ? "  alpha<0" : "",
           g->fit.alpha_clamped[s] ? " (refitted with alpha=0)" : "");
  }
  printf("  %14s %12s %12s %8s %3s\n", "bytes", "measured_us", "fitted_us", "rel_err", "seg");
  for (size_t i = 0; i < g->fit.n; i++) {
    const fu_fit_point *p = &g->fit.points[i];
    double r = (g->fit.fitted_us[i] - p->t_us) / p->t_us;
    printf("  %14.0f %12.4g %12.4g %7.2f%% %3d%s\n", p->bytes, p->t_us, g->fit.fitted_us[i], 100 * r,
           g->fit.segment_of[i], fabs(r) > o->tolerance ? "  > tolerance" : "");
  }
  printf("\n");
}

static void fu__csv_num(double v) {
  if (isfinite(v)) printf(",%.10g", v);
  else if (isinf(v)) printf(",inf");
  else printf(",");
}

static void fu__print_csv(const fu__group *g, int header) {
  const fu_curve *c = &g->curve;
  if (header)
    printf("record,op,link,ranks,algo,in_place,segment,lo_bytes,hi_bytes,alpha_us,alpha_lo,alpha_hi,"
           "beta_us_per_byte,beta_lo,beta_hi,max_rel_err,n_samples,bytes,measured_us,fitted_us,rel_err,"
           "dtype,proto,graph\n");
  for (int s = 0; s < c->nseg; s++) {
    const fu_segment *x = &c->seg[s];
    printf("segment,%s,%s,%d,%s,%d,%d", c->op, c->link, c->ranks, c->algo, g->in_place, s);
    fu__csv_num(x->lo_bytes);
    fu__csv_num(x->hi_bytes);
    fu__csv_num(x->alpha_us);
    fu__csv_num(x->alpha_ci[0]);
    fu__csv_num(x->alpha_ci[1]);
    fu__csv_num(x->beta_us_per_byte);
    fu__csv_num(x->beta_ci[0]);
    fu__csv_num(x->beta_ci[1]);
    fu__csv_num(x->max_rel_err);
    printf(",%d,,,,,%s,%s,%d\n", x->n_samples, g->dtype, g->proto, g->graph);
  }
  for (size_t i = 0; i < g->fit.n; i++) {
    const fu_fit_point *p = &g->fit.points[i];
    printf("point,%s,%s,%d,%s,%d,%d,,,,,,,,,,", c->op, c->link, c->ranks, c->algo, g->in_place,
           g->fit.segment_of[i]);
    printf(",%.0f,%.10g,%.10g,%.6g,%s,%s,%d\n", p->bytes, p->t_us, g->fit.fitted_us[i],
           (g->fit.fitted_us[i] - p->t_us) / p->t_us, g->dtype, g->proto, g->graph);
  }
}

static json_t *fu__group_json(const fu__group *g, const fu_fit_options *o) {
  json_t *j = fu_curve_to_json(&g->curve);
  if (!j) return NULL;
  json_t *segs = json_object_get(j, "segments");
  for (int s = 0; s < g->curve.nseg; s++) {
    json_t *js = json_array_get(segs, (size_t)s);
    json_object_set_new(js, "alpha_negative", json_boolean(g->fit.alpha_negative[s]));
    json_object_set_new(js, "alpha_clamped", json_boolean(g->fit.alpha_clamped[s]));
  }
  json_t *pts = json_array();
  for (size_t i = 0; i < g->fit.n; i++) {
    const fu_fit_point *p = &g->fit.points[i];
    json_array_append_new(pts, json_pack("{s:f, s:f, s:f, s:f, s:i}", "bytes", p->bytes, "measured_us",
                                         p->t_us, "fitted_us", g->fit.fitted_us[i], "rel_err",
                                         (g->fit.fitted_us[i] - p->t_us) / p->t_us, "segment",
                                         g->fit.segment_of[i]));
  }
  json_object_set_new(j, "in_place", json_boolean(g->in_place));
  json_object_set_new(j, "dtype", json_string(g->dtype));
  json_object_set_new(j, "proto", json_string(g->proto));
  json_object_set_new(j, "graph", json_boolean(g->graph));
  json_object_set_new(j, "method", json_string(fu_fit_method_name(o->method)));
  json_object_set_new(j, "criterion", json_string(fu_fit_criterion_name(o->criterion)));
  json_object_set_new(j, "tolerance", json_real(o->tolerance));
  json_object_set_new(j, "met_tolerance", json_boolean(g->fit.met_tolerance));
  json_object_set_new(j, "max_rel_err", json_real(g->fit.max_rel_err));
  json_object_set_new(j, "n_samples", json_integer((json_int_t)g->fit.n));
  json_object_set_new(j, "n_zero_skipped", json_integer((json_int_t)g->n_zero));
  json_object_set_new(j, "points", pts);
  return j;
}

/* ---- plot ---- */

/* Writes one data file of the plot: the measured points (fitted = 0) or the fitted curve, 40
 * points per decade from the smallest to the largest size. Every write is checked. */
static int fu__plot_data(const char *path, const fu__group *x, int fitted) {
  FILE *f = fopen(path, "w");
  if (!f) return FU_EIO;
  if (!fitted) {
    for (size_t i = 0; i < x->fit.n; i++)
      fprintf(f, "%.10g %.10g %.10g\n", x->fit.points[i].bytes, x->fit.points[i].t_us,
              fu__busbw(x->curve.op, x->curve.ranks, x->fit.points[i].bytes, x->fit.points[i].t_us));
  } else {
    double lo = x->fit.points[0].bytes, hi = x->fit.points[x->fit.n - 1].bytes;
    int steps = (int)ceil(40 * log10(hi / lo)) + 1;
    for (int i = 0; i <= steps; i++) {
      double b = lo * pow(hi / lo, (double)i / steps);
      double t = fu_curve_time(&x->curve, b, NULL, NULL);
      if (t > 0) fprintf(f, "%.10g %.10g %.10g\n", b, t, fu__busbw(x->curve.op, x->curve.ranks, b, t));
    }
  }
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  return bad ? FU_EIO : FU_OK;
}

static int fu__plot(const char *out, const fu__group *g, size_t ng) {
  int svg;
  FU_CHECK(fu_plot_path_check("--plot", out, &svg));
  char dir[] = "/tmp/fusim-plot-XXXXXX";
  if (!mkdtemp(dir)) {
    fu_error("--plot: cannot make a temporary folder: %s", strerror(errno));
    return FU_EIO;
  }
  char path[512];
  int st = FU_OK;
  for (size_t k = 0; k < ng && st == FU_OK; k++) {
    snprintf(path, sizeof path, "%s/m%zu.dat", dir, k);
    st = fu__plot_data(path, &g[k], 0);
    snprintf(path, sizeof path, "%s/f%zu.dat", dir, k);
    if (st == FU_OK) st = fu__plot_data(path, &g[k], 1);
  }
  if (st != FU_OK) fu_error("--plot %s: cannot write the plot's data in %s: %s", out, dir, strerror(errno));
  /* The script names the output only as ARG1 (fu_gnuplot_run); the data files' names are ours
   * (mkdtemp's charset); labels are op, link and algo names, which readers validate. */
  char *script = NULL;
  size_t slen = 0;
  FILE *gp = st == FU_OK ? open_memstream(&script, &slen) : NULL;
  if (st == FU_OK && !gp) {
    fu_error("--plot %s: out of memory", out);
    st = FU_ENOMEM;
  }
  if (gp) {
    fprintf(gp, "set terminal %s size 1400,560 noenhanced\nset output ARG1\n", svg ? "svg" : "pngcairo");
    fprintf(gp, "set multiplot layout 1,2\nset grid\nset key left top\nset format x '%%.0s%%cB'\n"
                "set logscale xy\nset xlabel 'message size (bytes)'\nset ylabel 'time (us)'\n"
                "set title 'measured (points) and fitted (lines)'\nplot ");
    for (int panel = 0; panel < 2; panel++) {
      if (panel == 1)
        fprintf(gp, "unset logscale y\nset logscale x\nset ylabel 'bus bandwidth (GB/s)'\n"
                    "set title 'bus bandwidth (nccl-tests definition)'\nset key left top\nplot ");
      for (size_t k = 0; k < ng; k++) {
        const fu_curve *c = &g[k].curve;
        char label[128];
        snprintf(label, sizeof label, "%s %s x%d%s%s", c->op, c->link, c->ranks, c->algo[0] ? " " : "", c->algo);
        fprintf(gp, "%s'%s/m%zu.dat' using 1:%d with points pt 7 ps 0.8 lc %zu title ", k ? ", " : "", dir, k,
                panel ? 3 : 2, k + 1);
        fu_gnuplot_quote(gp, label);
        fprintf(gp, ", '%s/f%zu.dat' using 1:%d with lines lw 2 lc %zu notitle", dir, k, panel ? 3 : 2, k + 1);
      }
      fprintf(gp, "\n");
    }
    fprintf(gp, "unset multiplot\n");
    if (fclose(gp) != 0 || !script) {
      fu_error("--plot %s: out of memory", out);
      st = FU_ENOMEM;
    } else {
      st = fu_gnuplot_run("--plot", out, script, NULL, 0);
    }
  }
  free(script);
  for (size_t k = 0; k < ng; k++) {
    snprintf(path, sizeof path, "%s/m%zu.dat", dir, k);
    unlink(path);
    snprintf(path, sizeof path, "%s/f%zu.dat", dir, k);
    unlink(path);
  }
  rmdir(dir);
  return st;
}

/* ---- grouping ---- */

/* A sample's variant: its algo with a "k=K" part (the pack's tensor count) dropped: "k=4" -> "",
 * "unpack:k=4" -> "unpack", "ring" -> "ring". */
static void fu__variant(const char *algo, char *out, size_t len) {
  snprintf(out, len, "%s", algo);
  char *k = strstr(out, "k=");
  while (k && !(k == out || k[-1] == ':')) k = strstr(k + 1, "k=");
  if (!k || k[2] == '\0' || strspn(k + 2, "0123456789") != strlen(k + 2)) return;
  if (k > out) k--; /* the ':' before it */
  *k = '\0';
}

/* Plain variants, fitted without --algo: any algorithm of a collective (NCCL's), "" otherwise. */
static int fu__plain_variant(const char *op, const char *variant) {
  fu_op o;
  if (!variant[0]) return 1;
  return fu_op_parse(op, &o) == FU_OK && fu_op_is_collective(o);
}

/* Samples that are scalars, not size curves. */
static int fu__scalar_op(const char *op) {
  return !strcmp(op, "gemm") || !strcmp(op, "issue") || !strcmp(op, "launch");
}

/* One selected sample: index into the samples and its variant. */
typedef struct fu__sel {
  size_t i;                  /* index into the selected samples */
  char variant[16];          /* fu__variant of its algo */
} fu__sel;

static int fu__same_key(const fu_sample *a, const fu__sel *va, const fu_sample *b, const fu__sel *vb) {
  return strcmp(a->op, b->op) == 0 && strcmp(a->link, b->link) == 0 && a->ranks == b->ranks &&
         strcmp(va->variant, vb->variant) == 0;
}

/* The value one string field takes in a group: the given one, else `pref` where a member has it,
 * else "" where a member has it, else the smallest present. m[] lists the members still in. */
static const char *fu__pick_str(const fu_sample *smp, const fu__sel *sel, const size_t *m, size_t nm,
                                size_t field, const char *pref) {
  const char *best = NULL;
  int have_pref = 0, have_empty = 0;
  for (size_t k = 0; k < nm; k++) {
    const char *v = (const char *)&smp[sel[m[k]].i] + field;
    if (pref && !strcmp(v, pref)) have_pref = 1;
    if (!v[0]) have_empty = 1;
    if (!best || strcmp(v, best) < 0) best = v;
  }
  return have_pref ? pref : have_empty ? "" : best;
}

/* Keeps the members whose field equals v (strings) in place; returns the new count. */
static size_t fu__keep_str(const fu_sample *smp, const fu__sel *sel, size_t *m, size_t nm, size_t field,
                           const char *v) {
  size_t w = 0;
  for (size_t k = 0; k < nm; k++)
    if (!strcmp((const char *)&smp[sel[m[k]].i] + field, v)) m[w++] = m[k];
  return w;
}

static double fu__sample_time(const fu_sample *s) {
  return isfinite(s->t_median_us) ? s->t_median_us : s->t_min_us;
}

int fu_cmd_fit(int argc, char **argv) {
  enum { O_DB = 256, O_OP, O_LINK, O_RANKS, O_RUN, O_PLACE, O_TOL, O_CRIT, O_MAXSEG, O_MINPTS, O_ROBUST,
         O_NONNEG, O_FORMAT, O_OUT, O_MERGE, O_NAME, O_GPU, O_SOURCE, O_ALGO, O_NOTES, O_PLOT, O_NOSTORE,
         O_PSOURCE, O_LABEL, O_PROTO, O_DTYPE, O_GRAPH, O_SCALAR };
  struct option opts[40] = {
      {"db", required_argument, 0, O_DB},           {"op", required_argument, 0, O_OP},
      {"link", required_argument, 0, O_LINK},       {"ranks", required_argument, 0, O_RANKS},
      {"run", required_argument, 0, O_RUN},         {"place", required_argument, 0, O_PLACE},
      {"tolerance", required_argument, 0, O_TOL},   {"criterion", required_argument, 0, O_CRIT},
      {"max-segments", required_argument, 0, O_MAXSEG}, {"min-points", required_argument, 0, O_MINPTS},
      {"robust", no_argument, 0, O_ROBUST},         {"nonneg-alpha", no_argument, 0, O_NONNEG},
      {"format", required_argument, 0, O_FORMAT},   {"out", required_argument, 0, O_OUT},
      {"merge-into", required_argument, 0, O_MERGE}, {"name", required_argument, 0, O_NAME},
      {"gpu", required_argument, 0, O_GPU},         {"source", required_argument, 0, O_SOURCE},
      {"algo", required_argument, 0, O_ALGO},       {"notes", required_argument, 0, O_NOTES},
      {"plot", required_argument, 0, O_PLOT},       {"no-store", no_argument, 0, O_NOSTORE},
      {"profile-source", required_argument, 0, O_PSOURCE}, {"help", no_argument, 0, 'h'},
      {"label-algo", required_argument, 0, O_LABEL}, {"proto", required_argument, 0, O_PROTO},
      {"dtype", required_argument, 0, O_DTYPE},     {"graph", required_argument, 0, O_GRAPH}};
  size_t nopt = 28;
  for (size_t i = 0; i < FU__NSCALARS; i++)
    opts[nopt++] = (struct option){fu__scalars[i].flag, required_argument, 0, (int)(O_SCALAR + i)};
  opts[nopt] = (struct option){0, 0, 0, 0};

  const char *db_opt = NULL, *op = NULL, *link = NULL, *out = NULL, *merge = NULL, *name = NULL;
  const char *gpu = NULL, *source = NULL, *algo_label = NULL, *notes = NULL, *plot = NULL;
  const char *psource = NULL, *algo_f = NULL, *proto_f = NULL, *dtype_f = NULL;
  long ranks = 0, run = 0, graph_f = -1;
  int place = -1; /* -1 auto, 0 out, 1 in */
  int store = 1;
  fu_format fmt = FU_FORMAT_TABLE;
  fu_fit_options fo;
  fu_fit_options_init(&fo);
  double scalar_val[FU__NSCALARS];
  int scalar_set[FU__NSCALARS] = {0};
  char canon_op[24], canon_link[16];

  optind = 1;
  opterr = 0;
  int c;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    const char *bad = NULL;
    switch (c) {
      case 'h':
        fu__usage(stdout);
        return 0;
      case O_DB: db_opt = optarg; break;
      case O_OP: {
        fu_op o;
        if (fu_op_parse(optarg, &o) != FU_OK) bad = "--op: unknown operation";
        else op = strcpy(canon_op, fu_op_name(o));
        break;
      }
      case O_LINK: {
        fu_link l;
        if (fu_link_parse(optarg, &l) != FU_OK) bad = "--link: unknown link class";
        else link = strcpy(canon_link, fu_link_name(l));
        break;
      }
      case O_RANKS:
        if (fu_parse_long(optarg, 1, 1000000, &ranks) != FU_OK) bad = "--ranks: not a whole number >= 1";
        break;
      case O_RUN:
        if (fu_parse_long(optarg, 1, 1L << 62, &run) != FU_OK) bad = "--run: not a run id";
        break;
      case O_PLACE:
        if (!strcmp(optarg, "auto")) place = -1;
        else if (!strcmp(optarg, "out")) place = 0;
        else if (!strcmp(optarg, "in")) place = 1;
        else bad = "--place: auto, out or in";
        break;
      case O_TOL:
        if (fu_parse_double(optarg, &fo.tolerance) != FU_OK || !(fo.tolerance > 0 && fo.tolerance < 10))
          bad = "--tolerance: a relative error > 0, e.g. 0.05";
        break;
      case O_CRIT:
        if (!strcmp(optarg, "tolerance")) fo.criterion = FU_FIT_TOLERANCE;
        else if (!strcmp(optarg, "bic")) fo.criterion = FU_FIT_BIC;
        else bad = "--criterion: tolerance or bic";
        break;
      case O_MAXSEG: {
        long k;
        if (fu_parse_long(optarg, 1, FU_MAX_SEGMENTS, &k) != FU_OK) {
          fu_error("fit: --max-segments: a whole number from 1 to %d (got '%s')", FU_MAX_SEGMENTS, optarg);
          return fu_exit_code(FU_EUSAGE);
        }
        fo.max_segments = (int)k;
        break;
      }
      case O_MINPTS: {
        long k;
        if (fu_parse_long(optarg, 2, 1000000, &k) != FU_OK) bad = "--min-points: a whole number >= 2";
        else fo.min_points = (int)k;
        break;
      }
      case O_ROBUST: fo.method = FU_FIT_BISQUARE; break;
      case O_NONNEG: fo.nonneg_alpha = 1; break;
      case O_FORMAT:
        if (fu_parse_format(optarg, &fmt) != FU_OK) bad = "--format: table, csv or json";
        break;
      case O_OUT: out = optarg; break;
      case O_MERGE: merge = optarg; break;
      case O_NAME: name = optarg; break;
      case O_GPU: gpu = optarg; break;
      case O_SOURCE: source = optarg; break;
      case O_LABEL: {
        fu_algo a;
        if (!optarg[0] || fu_algo_parse(optarg, &a) != FU_OK) bad = "--label-algo: ring, tree or nvls";
        else algo_label = fu_algo_name(a);
        break;
      }
      case O_ALGO:
        if (!fu_algo_label_ok(optarg)) bad = "--algo: a variant label (ring, pageable, unpack, any, ...)";
        else algo_f = optarg;
        break;
      case O_PROTO:
        if (!fu_algo_label_ok(optarg)) bad = "--proto: a protocol or timing variant (LL, pipe, default)";
        else proto_f = !strcmp(optarg, "default") ? "" : optarg;
        break;
      case O_DTYPE:
        if (!optarg[0] || !fu_algo_label_ok(optarg)) bad = "--dtype: a data type name (float, bf16, ...)";
        else dtype_f = optarg;
        break;
      case O_GRAPH:
        if (fu_parse_long(optarg, 0, 1, &graph_f) != FU_OK) bad = "--graph: 0 or 1";
        break;
      case O_NOTES: notes = optarg; break;
      case O_PSOURCE: psource = optarg; break;
      case O_PLOT: plot = optarg; break;
      case O_NOSTORE: store = 0; break;
      case '?':
        if (optopt) fu_error("fit: option -%c needs a value or is unknown; see 'fusim fit --help'", optopt);
        else fu_error("fit: unknown option '%s'; see 'fusim fit --help'", argv[optind - 1]);
        return fu_exit_code(FU_EUSAGE);
      default:
        if (c >= O_SCALAR && c < O_SCALAR + (int)FU__NSCALARS) {
          size_t k = (size_t)(c - O_SCALAR);
          if (fu_parse_double(optarg, &scalar_val[k]) != FU_OK || scalar_val[k] < fu__scalars[k].lo ||
              scalar_val[k] > fu__scalars[k].hi) {
            fu_error("fit: --%s %s: not a number in [%g, %g]", fu__scalars[k].flag, optarg, fu__scalars[k].lo,
                     fu__scalars[k].hi);
            return fu_exit_code(FU_EUSAGE);
          }
          scalar_set[k] = 1;
        }
        break;
    }
    if (bad) {
      fu_error("fit: %s (got '%s')", bad, optarg);
      return fu_exit_code(FU_EUSAGE);
    }
  }
  if (optind < argc) {
    fu_error("fit: unexpected argument '%s'; see 'fusim fit --help'", argv[optind]);
    return fu_exit_code(FU_EUSAGE);
  }
  if (plot && !fu__have_program("gnuplot")) {
    fu_error("fit: --plot needs gnuplot, which is not on PATH (apt-get install gnuplot-nox), or leave out --plot");
    return fu_exit_code(FU_EUSAGE);
  }
  if (plot) {
    int pst = fu_plot_path_check("fit: --plot", plot, NULL);
    if (pst != FU_OK) return fu_exit_code(pst);
  }

  /* The base profile first: a bad one must fail before anything is stored. */
  fu_profile *prof = malloc(sizeof *prof);
  if (!prof) return fu_exit_code(FU_ENOMEM);
  int st = FU_OK;
  if (merge) st = fu_profile_load(merge, prof);
  else fu_profile_init(prof);
  if (st != FU_OK) {
    free(prof);
    return fu_exit_code(st);
  }

  const char *dbpath = fu_db_path_default(db_opt);
  struct stat sb;
  if (stat(dbpath, &sb) != 0) {
    fu_error("%s: no such database (%s); run 'fusim import' or 'fusim calib' first", dbpath, strerror(errno));
    free(prof);
    return fu_exit_code(FU_ENOINPUT);
  }
  fu_db *db = NULL;
  fu_sample *smp = NULL;
  size_t ns = 0, ng = 0;
  fu__group *groups = NULL;
  fu_fit_row *rows = NULL;
  char *cmdline = NULL;
  int in_tx = 0;
  st = fu_db_open(dbpath, store ? FU_DB_READWRITE : FU_DB_READONLY, &db);
  if (st == FU_OK) st = fu_db_samples_select(db, op, link, (int)ranks, run, &smp, &ns);
  if (st != FU_OK) goto done;

  /* Selection: scalar ops, variants, and the given proto / dtype / graph. */
  fu__sel *sel = malloc((ns ? ns : 1) * sizeof *sel);
  size_t nsel = 0;
  if (!sel) {
    st = FU_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < ns; i++) {
    const fu_sample *x = &smp[i];
    fu__sel *e = &sel[nsel];
    fu__variant(x->algo, e->variant, sizeof e->variant);
    if (!op && fu__scalar_op(x->op)) continue;
    if (algo_f ? strcmp(algo_f, "any") != 0 && strcasecmp(algo_f, e->variant) != 0 && strcasecmp(algo_f, x->algo) != 0
               : !fu__plain_variant(x->op, e->variant))
      continue;
    if (proto_f && strcasecmp(proto_f, x->proto) != 0) continue;
    if (dtype_f && x->dtype[0] && strcasecmp(dtype_f, x->dtype) != 0) continue;
    if (graph_f >= 0 && x->graph != graph_f) continue;
    e->i = i;
    nsel++;
  }
  if (nsel == 0) {
    char rk[24];
    if (ranks) snprintf(rk, sizeof rk, "%ld", ranks);
    else snprintf(rk, sizeof rk, "any");
    fu_error("%s: no samples match (op %s, link %s, ranks %s%s%s%s%s%s%s%s%s)", dbpath, op ? op : "any",
             link ? link : "any", rk, run ? ", one run" : "", algo_f ? ", algo " : "", algo_f ? algo_f : "",
             proto_f ? ", proto " : "", proto_f ? (proto_f[0] ? proto_f : "default") : "", dtype_f ? ", dtype " : "",
             dtype_f ? dtype_f : "", graph_f < 0 ? "" : graph_f ? ", graph 1" : ", graph 0");
    free(sel);
    st = FU_ENOINPUT;
    goto done;
  }

  /* Groups by (op, link, ranks, variant); samples come ordered by op, link, ranks, bytes, the
   * variants interleaved, so keys are collected first (O(n * groups)). */
  groups = calloc(nsel, sizeof *groups);
  fu_fit_point *pts = malloc(nsel * sizeof *pts);
  unsigned char *used = calloc(nsel, 1);
  size_t *mem = malloc(nsel * sizeof *mem);
  if (!groups || !pts || !used || !mem) {
    free(pts);
    free(used);
    free(mem);
    free(sel);
    st = FU_ENOMEM;
    goto done;
  }
  for (size_t i = 0; i < nsel && st == FU_OK; i++) {
    if (used[i]) continue;
    const fu_sample *s0 = &smp[sel[i].i];
    size_t nm = 0;
    for (size_t j = i; j < nsel; j++)
      if (!used[j] && fu__same_key(s0, &sel[i], &smp[sel[j].i], &sel[j])) {
        used[j] = 1;
        mem[nm++] = j;
      }
    /* one proto, dtype, graph mode and placement per curve */
    char g_proto[16], g_dtype[16];
    snprintf(g_proto, sizeof g_proto, "%s", fu__pick_str(smp, sel, mem, nm, offsetof(fu_sample, proto), ""));
    nm = fu__keep_str(smp, sel, mem, nm, offsetof(fu_sample, proto), g_proto);
    snprintf(g_dtype, sizeof g_dtype, "%s",
             dtype_f ? dtype_f : fu__pick_str(smp, sel, mem, nm, offsetof(fu_sample, dtype), "float"));
    if (!dtype_f) nm = fu__keep_str(smp, sel, mem, nm, offsetof(fu_sample, dtype), g_dtype);
    int any_g0 = 0, any_out = 0;
    for (size_t k = 0; k < nm; k++) any_g0 |= !smp[sel[mem[k]].i].graph;
    int g_graph = graph_f >= 0 ? (int)graph_f : !any_g0;
    size_t w = 0;
    for (size_t k = 0; k < nm; k++)
      if (smp[sel[mem[k]].i].graph == g_graph) mem[w++] = mem[k];
    nm = w;
    for (size_t k = 0; k < nm; k++) any_out |= !smp[sel[mem[k]].i].in_place;
    int want_in = place == -1 ? !any_out : place;
    size_t np = 0, nzero = 0;
    double peak = 0;
    for (size_t k = 0; k < nm; k++) {
      const fu_sample *x = &smp[sel[mem[k]].i];
      if (x->in_place != want_in) continue;
      double t = fu__sample_time(x);
      if (x->bytes == 0) {
        nzero++;
        continue;
      }
      if (!(t > 0) || !isfinite(t)) continue;
      pts[np].bytes = (double)x->bytes;
      pts[np].t_us = t;
      double bw = fu__busbw(x->op, x->ranks, pts[np].bytes, t);
      if (bw > peak) peak = bw;
      np++;
    }
    if (np == 0) continue;
    size_t nsizes = 1;
    for (size_t k = 1; k < np && nsizes < 2; k++) nsizes += pts[k].bytes != pts[0].bytes;
    if (nsizes < 2) {
      fu_warn("%s: %s %s x%d%s%s: skipped: %zu sample(s) at one size (a line needs two sizes)", dbpath, s0->op,
              s0->link, s0->ranks, sel[i].variant[0] ? " " : "", sel[i].variant, np);
      continue;
    }
    fu__group *g = &groups[ng];
    fu_curve *cv = &g->curve;
    snprintf(cv->op, sizeof cv->op, "%s", s0->op);
    snprintf(cv->link, sizeof cv->link, "%s", s0->link);
    cv->ranks = s0->ranks;
    /* the curve's label: variant[/proto][+cg] */
    char label[64];
    snprintf(label, sizeof label, "%s%s%s%s", sel[i].variant[0] ? sel[i].variant : algo_label && !g_proto[0] ? algo_label : "",
             g_proto[0] && sel[i].variant[0] ? "/" : "", g_proto, g_graph ? "+cg" : "");
    if (!fu_algo_label_ok(label)) {
      fu_error("%s: %s %s x%d: curve label '%s' is longer than %zu characters; pick fewer variants with "
               "--algo/--proto/--graph", dbpath, cv->op, cv->link, cv->ranks, label, sizeof cv->algo - 1);
      st = FU_EDATA;
      break;
    }
    memcpy(cv->algo, label, strlen(label) + 1); /* fits: fu_algo_label_ok checked the length */
    if (source) snprintf(cv->source, sizeof cv->source, "%s", source);
    else snprintf(cv->source, sizeof cv->source, "fusim fit of %s (%s%s%s)", dbpath, want_in ? "in-place" : "out-of-place",
                  g_dtype[0] ? ", " : "", g_dtype);
    cv->peak_busbw_gbps = peak;
    g->in_place = want_in;
    g->n_zero = nzero;
    snprintf(g->dtype, sizeof g->dtype, "%s", g_dtype);
    snprintf(g->proto, sizeof g->proto, "%s", g_proto);
    g->graph = g_graph;
    char what[160];
    snprintf(what, sizeof what, "%s: %s %s %d ranks%s%s", dbpath, cv->op, cv->link, cv->ranks, cv->algo[0] ? " " : "",
             cv->algo);
    st = fu_fit_piecewise(pts, np, &fo, what, &g->fit);
    if (st != FU_OK) break;
    ng++;
    cv->nseg = g->fit.nseg;
    memcpy(cv->seg, g->fit.seg, sizeof cv->seg);
    if (!g->fit.met_tolerance && fo.method == FU_FIT_BISQUARE)
      fu_warn("%s: after the bisquare refit the worst relative error is %.1f%% at %.0f bytes (above the "
              "tolerance %.1f%%; an outlier the robust fit discounts?)",
              what, 100 * g->fit.max_rel_err, g->fit.points[g->fit.worst].bytes, 100 * fo.tolerance);
    else if (!g->fit.met_tolerance)
      fu_warn("%s: worst relative error %.1f%% at %.0f bytes is above the tolerance %.1f%% even with %d segment%s",
              what, 100 * g->fit.max_rel_err, g->fit.points[g->fit.worst].bytes, 100 * fo.tolerance, cv->nseg,
              cv->nseg == 1 ? "" : "s");
    if (cv->nseg >= 1 && !(cv->seg[cv->nseg - 1].beta_us_per_byte > 0))
      fu_warn("%s: the last segment (from %.0f bytes) has no bandwidth term (beta %.3g us/B <= 0): "
              "predict and plan refuse this curve; add samples at larger sizes",
              what, cv->seg[cv->nseg - 1].lo_bytes, cv->seg[cv->nseg - 1].beta_us_per_byte);
  }
  free(mem);
  free(sel);
  if (st == FU_OK && ng == 0) {
    fu_error("%s: no group of the selected samples has two sizes to fit a line to", dbpath);
    st = FU_ENOINPUT;
  }
  free(pts);
  free(used);
  if (st != FU_OK) goto done;

  /* Profile. */
  if (out || merge) {
    if (name) snprintf(prof->name, sizeof prof->name, "%s", name);
    else if (!prof->name[0]) snprintf(prof->name, sizeof prof->name, "fitted");
    if (gpu) snprintf(prof->gpu, sizeof prof->gpu, "%s", gpu);
    if (psource) snprintf(prof->source, sizeof prof->source, "%s", psource);
    else if (!prof->source[0]) snprintf(prof->source, sizeof prof->source, "fusim fit of %s", dbpath);
    if (notes) {
      size_t l = strlen(prof->notes);
      snprintf(prof->notes + l, sizeof prof->notes - l, "%s%s", l ? " " : "", notes);
    }
    for (size_t k = 0; k < FU__NSCALARS; k++)
      if (scalar_set[k]) *(double *)((char *)prof + fu__scalars[k].offset) = scalar_val[k];
    for (size_t k = 0; k < ng && st == FU_OK; k++) st = fu_profile_put_curve(prof, &groups[k].curve);
    if (st != FU_OK) goto done;
  }

  /* The plot first (it only makes the image), then store, write the profile and commit: a
   * failure anywhere leaves the database as it was. */
  if (plot && (st = fu__plot(plot, groups, ng)) != FU_OK) goto done;
  if (store) {
    size_t nrows = 0;
    for (size_t k = 0; k < ng; k++) nrows += (size_t)groups[k].curve.nseg;
    rows = calloc(nrows ? nrows : 1, sizeof *rows);
    cmdline = fu_join_argv(argc, argv);
    if (!rows || !cmdline) {
      st = FU_ENOMEM;
      goto done;
    }
    size_t r = 0;
    for (size_t k = 0; k < ng; k++)
      for (int s = 0; s < groups[k].curve.nseg; s++, r++) {
        const fu_curve *cv = &groups[k].curve;
        const fu_segment *x = &cv->seg[s];
        fu_fit_row *w = &rows[r];
        snprintf(w->op, sizeof w->op, "%s", cv->op);
        snprintf(w->link, sizeof w->link, "%s", cv->link);
        snprintf(w->algo, sizeof w->algo, "%s", cv->algo);
        w->ranks = cv->ranks;
        w->segment = s;
        w->lo_bytes = x->lo_bytes;
        w->hi_bytes = x->hi_bytes;
        w->alpha_us = x->alpha_us;
        w->alpha_lo = x->alpha_ci[0];
        w->alpha_hi = x->alpha_ci[1];
        w->beta_us_per_byte = x->beta_us_per_byte;
        w->beta_lo = x->beta_ci[0];
        w->beta_hi = x->beta_ci[1];
        w->max_rel_err = x->max_rel_err;
        w->n_samples = x->n_samples;
        snprintf(w->method, sizeof w->method, "%s", fu_fit_method_name(fo.method));
        if (out || merge) snprintf(w->profile, sizeof w->profile, "%s", prof->name);
      }
    int64_t fit_id = 0;
    if ((st = fu_db_begin(db)) != FU_OK) goto done;
    in_tx = 1;
    if ((st = fu_db_fit_store(db, cmdline, rows, nrows, &fit_id)) != FU_OK) goto done;
  }
  if (out || merge) {
    if ((st = fu_profile_save(out ? out : merge, prof)) != FU_OK) goto done;
  }
  if (in_tx) {
    in_tx = 0;
    if ((st = fu_db_commit(db)) != FU_OK) goto done;
  }
  if (fmt == FU_FORMAT_TABLE) {
    for (size_t k = 0; k < ng; k++) fu__print_table(&groups[k], &fo);
    if (out || merge) printf("profile %s written to %s (%d curves)\n", prof->name, out ? out : merge, prof->ncurves);
  } else if (fmt == FU_FORMAT_CSV) {
    for (size_t k = 0; k < ng; k++) fu__print_csv(&groups[k], k == 0);
  } else {
    json_t *arr = json_array();
    for (size_t k = 0; k < ng; k++) json_array_append_new(arr, fu__group_json(&groups[k], &fo));
    json_t *j = json_pack("{s:o, s:s?, s:s?}", "fits", arr, "profile", out ? out : merge, "plot", plot);
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
    if (text) printf("%s\n", text);
    else st = FU_ENOMEM;
    free(text);
    json_decref(j);
  }

done:
  if (in_tx) fu_db_rollback(db);
  for (size_t k = 0; k < ng; k++) fu_fit_result_finish(&groups[k].fit);
  free(groups);
  free(rows);
  free(cmdline);
  free(smp);
  fu_db_close(db);
  free(prof);
  return fu_exit_code(st);
}
