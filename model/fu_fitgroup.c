/* fu_fitgroup.c: the fit driver and printers of `fusim fit` (see fu_fitgroup.h). */
#include "fu_fitgroup.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_compute.h"
#include "fu_dtype.h"
#include "fu_model.h"
#include "fu_output.h"

/* Bandwidth (GB/s) of an inverse bandwidth beta (us/B); inf for beta <= 0. */
static double fu__gbps(double beta) { return beta > 0 ? 1e-3 / beta : INFINITY; }

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

static int fu__same_key(const fu_fitgroup_sample *a, const fu__sel *va, const fu_fitgroup_sample *b,
                        const fu__sel *vb) {
  return strcmp(a->op, b->op) == 0 && strcmp(a->link, b->link) == 0 && a->ranks == b->ranks &&
         a->nodes == b->nodes && strcmp(va->variant, vb->variant) == 0;
}

/* A string field of a sample (field: its offsetof); data types by their canonical name. */
static const char *fu__field(const fu_fitgroup_sample *s, size_t field) {
  const char *v = *(const char *const *)((const char *)s + field);
  return field == offsetof(fu_fitgroup_sample, dtype) ? fu_dtype_canon(v) : v;
}

/* The value one string field takes in a group: `pref` where a member has it, else "" where a
 * member has it, else the smallest present. m[] lists the members still in. */
static const char *fu__pick_str(const fu_fitgroup_sample *smp, const fu__sel *sel, const size_t *m,
                                size_t nm, size_t field, const char *pref) {
  const char *best = NULL;
  int have_pref = 0, have_empty = 0;
  for (size_t k = 0; k < nm; k++) {
    const char *v = fu__field(&smp[sel[m[k]].i], field);
    if (pref && !strcmp(v, pref)) have_pref = 1;
    if (!v[0]) have_empty = 1;
    if (!best || strcmp(v, best) < 0) best = v;
  }
  return have_pref ? pref : have_empty ? "" : best;
}

/* Keeps the members whose field equals v (strings) in place; returns the new count. */
static size_t fu__keep_str(const fu_fitgroup_sample *smp, const fu__sel *sel, size_t *m, size_t nm,
                           size_t field, const char *v) {
  size_t w = 0;
  for (size_t k = 0; k < nm; k++)
    if (!strcmp(fu__field(&smp[sel[m[k]].i], field), v)) m[w++] = m[k];
  return w;
}

/* Copies src into dst[cap]; FU_EDATA (one line naming what) when it does not fit. */
static int fu__copy(char *dst, size_t cap, const char *src, const char *what, const char *field) {
  int n = snprintf(dst, cap, "%s", src);
  if (n >= 0 && (size_t)n < cap) return FU_OK;
  fu_error("%s: %s '%s' is longer than %zu characters", what, field, src, cap - 1);
  return FU_EDATA;
}

double fu_fitgroup_busbw(const char *op, int ranks, double bytes, double t_us) {
  fu_op o;
  double f = fu_op_parse(op, &o) == FU_OK ? fu_busbw_factor(o, ranks) : 1.0;
  if (f <= 0) f = 1.0; /* one rank: plain bytes per time */
  return bytes / t_us / 1e3 * f;
}

/* 1 when hay contains needle, ignoring case. O(|hay| |needle|). */
static int fu__contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return 1;
  return n == 0;
}

/* Which samples pass the selection: their indexes and variants into sel; returns the count. */
static size_t fu__select(const fu_fitgroup_sample *smp, size_t ns, const fu_fitgroup_select *f, fu__sel *sel) {
  size_t nsel = 0;
  for (size_t i = 0; i < ns; i++) {
    const fu_fitgroup_sample *x = &smp[i];
    fu__sel *e = &sel[nsel];
    fu__variant(x->algo, e->variant, sizeof e->variant);
    if (!f->scalar_ops && fu__scalar_op(x->op)) continue;
    if (f->algo ? strcmp(f->algo, "any") != 0 && strcasecmp(f->algo, e->variant) != 0 && strcasecmp(f->algo, x->algo) != 0
                : !fu__plain_variant(x->op, e->variant))
      continue;
    if (f->proto && strcasecmp(f->proto, x->proto) != 0) continue;
    if (f->dtype && x->dtype[0] && strcasecmp(fu_dtype_canon(f->dtype), fu_dtype_canon(x->dtype)) != 0) continue;
    if (f->graph >= 0 && x->graph != f->graph) continue;
    if (f->gpu && x->gpu[0] && !fu__contains(x->gpu, f->gpu)) continue; /* none named: taken as --gpu's */
    if (f->host && !fu__contains(x->host, f->host)) continue;
    e->i = i;
    nsel++;
  }
  return nsel;
}

/* "'A' (n samples), 'B' (m samples)": every GPU model among the selected samples, in the order
 * first seen, so a refusal lets the user choose. O(n * models); NULL when out of memory. */
static char *fu__gpu_models(const fu_fitgroup_sample *smp, const fu__sel *sel, size_t nsel) {
  const char **name = malloc(nsel * sizeof *name);
  size_t *count = malloc(nsel * sizeof *count);
  size_t nm = 0;
  for (size_t i = 0; name && count && i < nsel; i++) {
    const char *g = smp[sel[i].i].gpu;
    if (!g[0]) continue;
    size_t m = 0;
    while (m < nm && strcmp(name[m], g) != 0) m++;
    if (m == nm) {
      name[nm] = g;
      count[nm++] = 0;
    }
    count[m]++;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *out = name && count ? open_memstream(&text, &len) : NULL;
  for (size_t m = 0; out && m < nm; m++)
    fprintf(out, "%s'%s' (%zu sample%s)", m ? ", " : "", name[m], count[m], count[m] == 1 ? "" : "s");
  if (out && fclose(out) != 0) {
    free(text);
    text = NULL;
  }
  free(name);
  free(count);
  return text;
}

/* Fits one group (members mem[0..nm-1] of sel) into *g: picks its proto, dtype, graph mode and
 * placement, collects the points and fits them. *fitted is 0 when the group has nothing to fit
 * (a warning said why where it matters). */
static int fu__fit_one(const fu_fitgroup_sample *smp, const fu__sel *sel, const fu__sel *first, size_t *mem,
                       size_t nm, const fu_fitgroup_select *f, const fu_fit_options *fo, fu_fit_point *pts,
                       fu_fitgroup *g, int *fitted) {
  const fu_fitgroup_sample *s0 = &smp[first->i];
  *fitted = 0;
  /* one proto, dtype, graph mode and placement per curve */
  const char *g_proto = fu__pick_str(smp, sel, mem, nm, offsetof(fu_fitgroup_sample, proto), "");
  nm = fu__keep_str(smp, sel, mem, nm, offsetof(fu_fitgroup_sample, proto), g_proto);
  const char *g_dtype = f->dtype ? fu_dtype_canon(f->dtype)
                                 : fu__pick_str(smp, sel, mem, nm, offsetof(fu_fitgroup_sample, dtype), "float");
  if (!f->dtype) nm = fu__keep_str(smp, sel, mem, nm, offsetof(fu_fitgroup_sample, dtype), g_dtype);
  int any_g0 = 0, any_out = 0;
  for (size_t k = 0; k < nm; k++) any_g0 |= !smp[sel[mem[k]].i].graph;
  int g_graph = f->graph >= 0 ? f->graph : !any_g0;
  size_t w = 0;
  for (size_t k = 0; k < nm; k++)
    if (smp[sel[mem[k]].i].graph == g_graph) mem[w++] = mem[k];
  nm = w;
  for (size_t k = 0; k < nm; k++) any_out |= !smp[sel[mem[k]].i].in_place;
  int want_in = f->place == -1 ? !any_out : f->place;
  size_t np = 0, nzero = 0, nwrong = 0;
  double peak = 0;
  for (size_t k = 0; k < nm; k++) {
    const fu_fitgroup_sample *x = &smp[sel[mem[k]].i];
    if (x->in_place != want_in) continue;
    double t = x->t_us;
    if (x->bytes == 0) {
      nzero++;
      continue;
    }
    if (x->n_wrong > 0) { /* the run's results were wrong: its times are not of a working collective */
      nwrong++;
      continue;
    }
    if (!(t > 0) || !isfinite(t)) continue;
    pts[np].bytes = (double)x->bytes;
    pts[np].t_us = t;
    double bw = fu_fitgroup_busbw(x->op, x->ranks, pts[np].bytes, t);
    if (bw > peak) peak = bw;
    np++;
  }
  if (np == 0 && nwrong)
    fu_warn("%s: %s %s x%d%s%s: skipped: the results of every sample were wrong (nccl-tests' #wrong > 0)",
            f->what, s0->op, s0->link, s0->ranks, first->variant[0] ? " " : "", first->variant);
  if (np == 0) return FU_OK;
  size_t nsizes = 1;
  for (size_t k = 1; k < np && nsizes < 2; k++) nsizes += pts[k].bytes != pts[0].bytes;
  if (nsizes < 2) {
    fu_warn("%s: %s %s x%d%s%s: skipped: %zu sample(s) at one size (a line needs two sizes)", f->what, s0->op,
            s0->link, s0->ranks, first->variant[0] ? " " : "", first->variant, np);
    return FU_OK;
  }
  fu_curve *cv = &g->curve;
  char what[256];
  snprintf(what, sizeof what, "%s: %s %s x%d", f->what, s0->op, s0->link, s0->ranks);
  FU_CHECK(fu__copy(cv->op, sizeof cv->op, s0->op, what, "op"));
  FU_CHECK(fu__copy(cv->link, sizeof cv->link, s0->link, what, "link"));
  cv->ranks = s0->ranks;
  cv->nodes = s0->nodes > 0 ? s0->nodes : 1;
  if (cv->ranks % cv->nodes != 0) { /* a profile's curve has as many GPUs on each node */
    fu_warn("%s: %s %s x%d: skipped: %d ranks on %d nodes, not as many on each (a log of processes "
            "placed unevenly)", f->what, s0->op, s0->link, s0->ranks, cv->ranks, cv->nodes);
    memset(cv, 0, sizeof *cv);
    return FU_OK;
  }
  for (size_t k = 0; k < nm && !cv->gpu[0]; k++)
    snprintf(cv->gpu, sizeof cv->gpu, "%s", smp[sel[mem[k]].i].gpu);
  if (!cv->gpu[0] && f->gpu) snprintf(cv->gpu, sizeof cv->gpu, "%s", f->gpu); /* the log named none */
  /* the process layout the members share (0 where one is unknown or they differ); two known
   * layouts are said, wherever a member of unknown layout stands (the first, a CSV's smallest
   * size, hid them) */
  cv->gpus_per_proc = smp[sel[mem[0]].i].gpus_per_proc;
  int gpp_one = 0, gpp_other = 0; /* the first known layout among the members, another */
  for (size_t k = 0; k < nm; k++) {
    int gk = smp[sel[mem[k]].i].gpus_per_proc;
    if (gk != cv->gpus_per_proc) cv->gpus_per_proc = 0;
    if (gk > 0 && !gpp_one) gpp_one = gk;
    else if (gk > 0 && gk != gpp_one) gpp_other = gk;
  }
  if (gpp_other && cv->nodes > 1) /* across nodes a log's per-call cost grows with GPUs a process */
    fu_warn("%s: samples of two process layouts (%d and %d GPUs a process) fitted as one curve "
            "whose layout is unknown; give --host or --run to fit one run's", what, gpp_one,
            gpp_other);
  if (cv->gpus_per_proc > 0 && (cv->ranks / cv->nodes) % cv->gpus_per_proc != 0)
    cv->gpus_per_proc = 0; /* processes of another size on some node: no one layout */
  /* the NCCL the members share (none where one does not say or they differ) */
  const char *nccl = smp[sel[mem[0]].i].nccl ? smp[sel[mem[0]].i].nccl : "";
  for (size_t k = 1; k < nm; k++)
    if (!smp[sel[mem[k]].i].nccl || strcmp(smp[sel[mem[k]].i].nccl, nccl) != 0) nccl = "";
  snprintf(g->nccl, sizeof g->nccl, "%.15s", nccl);
  for (size_t k = 0; k < np; k++)
    if (pts[k].bytes > cv->max_bytes) cv->max_bytes = pts[k].bytes;
  /* the curve's label: variant[/proto][+cg] */
  char label[64];
  snprintf(label, sizeof label, "%s%s%s%s",
           first->variant[0] ? first->variant : f->algo_label && !g_proto[0] ? f->algo_label : "",
           g_proto[0] && first->variant[0] ? "/" : "", g_proto, g_graph ? "+cg" : "");
  if (!fu_algo_label_ok(label)) {
    fu_error("%s: curve label '%s' is longer than %zu characters; pick fewer variants with "
             "--algo/--proto/--graph", what, label, sizeof cv->algo - 1);
    return FU_EDATA;
  }
  memcpy(cv->algo, label, strlen(label) + 1); /* fits: fu_algo_label_ok checked the length */
  if (f->source) snprintf(cv->source, sizeof cv->source, "%s", f->source);
  else snprintf(cv->source, sizeof cv->source, "fusim fit of %s (%s%s%s)", f->what,
                want_in ? "in-place" : "out-of-place", g_dtype[0] ? ", " : "", g_dtype);
  cv->peak_busbw_gbps = peak;
  g->in_place = want_in;
  g->n_zero = nzero;
  g->n_wrong = nwrong;
  FU_CHECK(fu__copy(g->dtype, sizeof g->dtype, g_dtype, what, "dtype"));
  FU_CHECK(fu__copy(g->proto, sizeof g->proto, g_proto, what, "proto"));
  g->graph = g_graph;
  snprintf(what, sizeof what, "%s: %s %s %d ranks%s%s", f->what, cv->op, cv->link, cv->ranks,
           cv->algo[0] ? " " : "", cv->algo);
  FU_CHECK(fu_fit_piecewise(pts, np, fo, what, &g->fit));
  *fitted = 1;
  cv->nseg = g->fit.nseg;
  memcpy(cv->seg, g->fit.seg, sizeof g->fit.seg);
  fu_fitgroup_flag(cv);
  if (!g->fit.met_tolerance && fo->method == FU_FIT_BISQUARE)
    fu_warn("%s: after the bisquare refit the worst relative error is %.1f%% at %.0f bytes (above the "
            "tolerance %.1f%%; an outlier the robust fit discounts?)",
            what, 100 * g->fit.max_rel_err, g->fit.points[g->fit.worst].bytes, 100 * fo->tolerance);
  else if (!g->fit.met_tolerance)
    fu_warn("%s: worst relative error %.1f%% at %.0f bytes is above the tolerance %.1f%% even with %d segment%s",
            what, 100 * g->fit.max_rel_err, g->fit.points[g->fit.worst].bytes, 100 * fo->tolerance, cv->nseg,
            cv->nseg == 1 ? "" : "s");
  if (cv->nseg >= 1 && !(cv->seg[cv->nseg - 1].beta_us_per_byte > 0))
    fu_warn("%s: the last segment (from %.0f bytes) has no bandwidth term (beta %.3g us/B <= 0): "
            "predict and plan refuse this curve; add samples at larger sizes",
            what, cv->seg[cv->nseg - 1].lo_bytes, cv->seg[cv->nseg - 1].beta_us_per_byte);
  return FU_OK;
}

int fu_fitgroup_fit(const fu_fitgroup_sample *smp, size_t ns, const fu_fitgroup_select *f,
                    const fu_fit_options *fo, fu_fitgroup **out, size_t *ng_out, size_t *n_selected) {
  *out = NULL;
  *ng_out = 0;
  *n_selected = 0;
  fu__sel *sel = malloc((ns ? ns : 1) * sizeof *sel);
  if (!sel) return FU_ENOMEM;
  size_t nsel = fu__select(smp, ns, f, sel);
  *n_selected = nsel;
  if (nsel == 0) {
    free(sel);
    return FU_ENOINPUT;
  }
  /* One machine: samples of two GPU models never share a curve or a profile. */
  const char *g1 = NULL, *g2 = NULL;
  for (size_t i = 0; i < nsel && !g2; i++) {
    const char *g = smp[sel[i].i].gpu;
    if (!g[0]) continue;
    if (!g1) g1 = g;
    else if (strcmp(g, g1) != 0) g2 = g;
  }
  size_t unnamed = 0;
  for (size_t i = 0; i < nsel; i++) unnamed += !smp[sel[i].i].gpu[0];
  if (g1 && !g2 && unnamed && !f->gpu)
    fu_warn("%s: %zu of the selected samples name no GPU; they are fitted as '%s' (the model the "
            "others name); give --gpu or --run to choose otherwise, or import their file with --gpu", f->what, unnamed, g1);
  else if (!g2 && unnamed && f->gpu) /* a trimmed log of another machine would pass in silence */
    fu_warn("%s: %zu of the selected samples name no GPU; they are fitted as '%s' as --gpu says; "
            "give --run to leave them out", f->what, unnamed, g1 ? g1 : f->gpu);
  if (g2) {
    char *models = fu__gpu_models(smp, sel, nsel);
    fu_error("%s: the selected samples come from more than one GPU model (%s%s); a profile "
             "describes one machine: choose one with --gpu (e.g. --gpu '%s'), or --run",
             f->what, models ? models : "out of memory listing them", f->gpu ? ", all matching --gpu" : "", g1);
    free(models);
    free(sel);
    return FU_EUSAGE;
  }
  /* Groups by (op, link, ranks, variant); samples come ordered by op, link, ranks, bytes, the
   * variants interleaved, so keys are collected first (O(n * groups)). */
  fu_fitgroup *groups = calloc(nsel, sizeof *groups);
  fu_fit_point *pts = malloc(nsel * sizeof *pts);
  unsigned char *used = calloc(nsel, 1);
  size_t *mem = malloc(nsel * sizeof *mem);
  size_t ng = 0;
  int st = groups && pts && used && mem ? FU_OK : FU_ENOMEM;
  for (size_t i = 0; i < nsel && st == FU_OK; i++) {
    if (used[i]) continue;
    size_t nm = 0;
    for (size_t j = i; j < nsel; j++)
      if (!used[j] && fu__same_key(&smp[sel[i].i], &sel[i], &smp[sel[j].i], &sel[j])) {
        used[j] = 1;
        mem[nm++] = j;
      }
    int fitted = 0;
    st = fu__fit_one(smp, sel, &sel[i], mem, nm, f, fo, pts, &groups[ng], &fitted);
    ng += (size_t)fitted;
  }
  free(mem);
  free(sel);
  free(pts);
  free(used);
  if (st == FU_OK && ng == 0) {
    fu_error("%s: no group of the selected samples has two sizes to fit a line to", f->what);
    st = FU_ENOINPUT;
  }
  /* two curves under one key and label (--label-algo giving samples that name no algorithm the
   * name other samples have): a profile would keep one of them and the database refuses the
   * second, so neither is written */
  for (size_t a = 0; st == FU_OK && a < ng; a++)
    for (size_t b = a + 1; st == FU_OK && b < ng; b++) {
      const fu_curve *x = &groups[a].curve, *y = &groups[b].curve;
      if (strcmp(x->op, y->op) || strcmp(x->link, y->link) || x->ranks != y->ranks ||
          x->nodes != y->nodes || strcmp(x->algo, y->algo))
        continue;
      fu_error("%s: two curves of %s %s x%d on %d node%s are both labelled '%s' (samples naming no "
               "algorithm take --label-algo's name; others name it): fit them apart with --algo "
               "or --run", f->what, x->op, x->link, x->ranks, x->nodes, x->nodes == 1 ? "" : "s",
               x->algo);
      st = FU_EUSAGE;
    }
  if (st != FU_OK) {
    fu_fitgroup_free(groups, ng);
    return st;
  }
  *out = groups;
  *ng_out = ng;
  return FU_OK;
}

void fu_fitgroup_flag(fu_curve *c) {
  fu_op o;
  fu_link l;
  int known = fu_op_parse(c->op, &o) == FU_OK && fu_link_parse(c->link, &l) == FU_OK;
  double f = known ? fu_busbw_factor(o, c->ranks) : 1.0;
  if (!(f > 0)) f = 1.0;
  double lim = known ? fu_link_limit_gbps(l == FU_LINK_NET ? FU_LINK_NVLINK : l, c->gpu) : 0;
  if (known && o == FU_OP_ALLREDUCE && c->ranks > 2 && (l == FU_LINK_NVLINK || l == FU_LINK_NET)) lim *= 2;
  /* Across N nodes of g GPUs each, every collective moves at least (N-1)/N of its message out of
   * (or into) each node (all-reduce and reduce-scatter send the other nodes' share, all-gather
   * receives it, even with in-network reduction), through at most g NICs: algbw <= g B N / (N-1)
   * for B a GPU's NIC, so busbw <= f g B N / (N-1). Within a node NVLink's limit still holds.
   * Without the node count (0 or 1: a CSV without nodes) only NVLink's applies. */
  int N = c->nodes;
  if (known && l == FU_LINK_NET && N > 1 && c->ranks % N == 0)
    lim = fmin(lim, f * (c->ranks / N) * fu_link_limit_gbps(l, c->gpu) * N / (N - 1));
  for (int i = 0; i < c->nseg; i++) {
    fu_segment *s = &c->seg[i];
    s->flags = 0;
    if ((s->alpha_ci[0] < 0 && s->alpha_ci[1] > 0) || (s->beta_ci[0] < 0 && s->beta_ci[1] > 0))
      s->flags |= FU_SEG_CI_SPANS_ZERO;
    /* over the limit only where the data say so: the slowest rate within beta's 95% CI still
     * faster than the link. A latency-bound segment's slope is noise (the 8 x H200 NVLS all-reduce
     * at 8-512 KiB: 30.5-31.2 us, beta 0.88e-6 us/B, busbw 1988 GB/s; its CI's slow end 2.08e-6,
     * 840 GB/s, is under the 900 bound). A segment without a CI (2 points) has its estimate only. */
    double b = isfinite(s->beta_ci[1]) && s->beta_ci[1] > s->beta_us_per_byte ? s->beta_ci[1] : s->beta_us_per_byte;
    if (lim > 0 && s->beta_us_per_byte > 0 && f / b / 1e3 > lim) s->flags |= FU_SEG_OVER_LIMIT;
  }
}

const char *fu_segment_flags_str(const fu_segment *s, char *buf, size_t len) {
  snprintf(buf, len, "%s%s%s", s->flags & FU_SEG_CI_SPANS_ZERO ? "ci_spans_zero" : "",
           (s->flags & FU_SEG_CI_SPANS_ZERO) && (s->flags & FU_SEG_OVER_LIMIT) ? "," : "",
           s->flags & FU_SEG_OVER_LIMIT ? "over_link_limit" : "");
  return buf;
}

/* A row whose rate falls more than this below both neighbouring sizes' is a stall, not the
 * curve: the fit's default tolerance (fu_fit_options_init), which no line through its neighbours
 * could meet there. */
#define FU__ROW_DIP 0.05

/* The best rate (bytes / us) of the distinct size next to p[i] (sorted by size) on side d (-1
 * smaller, +1 larger); 0 where there is none. */
static double fu__side_rate(const fu_fit_point *p, size_t n, size_t i, int d) {
  long j = (long)i, m = (long)n;
  while (j >= 0 && j < m && p[j].bytes == p[i].bytes) j += d;
  if (j < 0 || j >= m) return 0;
  double b = p[j].bytes, r = 0;
  for (; j >= 0 && j < m && p[j].bytes == b; j += d) r = fmax(r, p[j].bytes / p[j].t_us);
  return r;
}

/* 1 where p[i] (sorted by size, nmax the largest) is one of the large sizes (within 64x of the
 * largest) and its rate falls more than FU__ROW_DIP below both neighbouring sizes'; *lo and *hi
 * get those rates (bytes / us). */
static int fu__row_dips(const fu_fit_point *p, size_t n, size_t i, double nmax, double *lo, double *hi) {
  *lo = fu__side_rate(p, n, i, -1);
  *hi = fu__side_rate(p, n, i, +1);
  return p[i].bytes >= nmax / 64 && *lo > 0 && *hi > 0 && p[i].bytes / p[i].t_us < (1 - FU__ROW_DIP) * fmin(*lo, *hi);
}

int fu_fitgroup_forced_nvls(const fu_curve *c) {
  return strcmp(c->op, "allreduce") == 0 && fu_curve_is_nvls(c) && c->ranks > 2 &&
         (c->nodes > 0 ? c->nodes : 1) == 1 && strcmp(c->link, "hbm") != 0;
}

int fu_fitgroup_obs(const fu_fitgroup *g, fu_coll_obs *o, char *note, size_t len) {
  const fu_curve *c = &g->curve;
  fu_op op;
  if (note && len) note[0] = '\0';
  if (fu_op_parse(c->op, &op) != FU_OK || fu_coll_nvls_slot(op) < 0 || (c->algo[0] && !fu_fitgroup_forced_nvls(c)) ||
      c->ranks < 2 || g->fit.n < 2 || strcmp(c->link, "hbm") == 0)
    return 0;
  const fu_fit_point *p = g->fit.points;
  size_t n = g->fit.n;
  double f = fu_busbw_factor(op, c->ranks), nmax = p[n - 1].bytes, bw = 0, lo, hi;
  /* One slow row must not move the curve's layout quantities (the Lambda H100 2+2 log's 256 MiB
   * row, 63 GB/s algbw between its neighbours' 89 and 96, moved the intercept below from 126 to
   * 1153 us): a large size whose rate falls more than FU__ROW_DIP below both neighbouring sizes'
   * is left out of the bandwidth and the intercept (a collective's rate does not fall and rise
   * again with size; a stall only adds time, so a row faster than both is kept), and note says
   * which; the curve's own fit keeps it. */
  for (size_t i = 0, k = 0; note && len && i < n; i++)
    if (fu__row_dips(p, n, i, nmax, &lo, &hi)) {
      char sz[32];
      size_t at = strlen(note);
      snprintf(note + at, len - at, "%s%s (%.4g us, %.1f GB/s algbw; %.1f and %.1f at the sizes either side)",
               k++ ? "; " : "", fu_format_size(p[i].bytes, sz, sizeof sz), p[i].t_us, p[i].bytes / p[i].t_us / 1e3,
               lo / 1e3, hi / 1e3);
    }
  /* bandwidth: the best of the sizes within 16x of the largest (the top few of a sweep) */
  for (size_t i = 0; i < n; i++)
    if (p[i].bytes >= nmax / 16 && f * p[i].bytes / p[i].t_us / 1e3 > bw && !fu__row_dips(p, n, i, nmax, &lo, &hi))
      bw = f * p[i].bytes / p[i].t_us / 1e3;
  /* latency: the median over the three smallest samples (one noisy row, such as the 85.6 us
   * at 8 B in the DGX H100 4+4 log, must not set it) of each time less what its bytes take at
   * that bandwidth, and not below half the time */
  double l3[3];
  size_t k3 = n < 3 ? n : 3;
  for (size_t i = 0; i < k3; i++) {
    l3[i] = p[i].t_us - f * p[i].bytes / (bw * 1e3);
    if (l3[i] < 0.5 * p[i].t_us) l3[i] = 0.5 * p[i].t_us;
  }
  double lat = k3 < 3 ? fmin(l3[0], l3[k3 - 1])
                      : fmax(fmin(l3[0], l3[1]), fmin(fmax(l3[0], l3[1]), l3[2])); /* median of 3 */
  /* Simple latency: the intercept of a line through the sizes within 64x of the largest (the
   * protocol NCCL runs there), weights 1/t^2 as the fits; kept only above the small-size one */
  double x[64], y[64], w[64], a, b, c00, c01, c11, chi;
  size_t m = 0;
  for (size_t i = 0; i < n && m < 64; i++)
    if (p[i].bytes >= nmax / 64 && !fu__row_dips(p, n, i, nmax, &lo, &hi))
      x[m] = p[i].bytes, y[m] = p[i].t_us, w[m] = 1 / (p[i].t_us * p[i].t_us), m++;
  double lat_s = 0;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  if (m >= 3 && x[0] < x[m - 1] && gsl_fit_wlinear(x, 1, w, 1, y, 1, m, &a, &b, &c00, &c01, &c11, &chi) == GSL_SUCCESS &&
      isfinite(a) && a > lat)
    lat_s = a;
  gsl_set_error_handler(old);
  *o = (fu_coll_obs){op, c->ranks, c->nodes > 0 ? c->nodes : 1, lat, bw, lat_s, c->gpus_per_proc,
                     fu_fitgroup_forced_nvls(c)};
  return 1;
}

/* dst = "a: b" (or "a" when b is empty), fitted by fu_list_fit: whole entries of b's "; "-joined
 * list, then "; and N more". a is a name of at most 80 bytes, b a source field of at most 256. */
static void fu__label2(char *dst, size_t cap, const char *a, const char *b) {
  char both[80 + 2 + 256];
  snprintf(both, sizeof both, "%s%s%s", a, b[0] ? ": " : "", b);
  fu_list_fit(dst, cap, both);
}

static int fu__collective_curve(const fu_curve *c) {
  fu_op op;
  return fu_op_parse(c->op, &op) == FU_OK && fu_op_is_collective(op);
}

/* Folds one curve's NCCL (v: "" where it names none) into the profile's: *agreed the version
 * every curve naming one names ("" where two differ, once differing), *silent counts the curves
 * that name none, *named the ones that name one. */
static void fu__fold_nccl(const char *v, char *agreed, size_t len, int *named, int *silent, int *differ) {
  if (!v[0]) {
    (*silent)++;
    return;
  }
  if (!(*named)++) snprintf(agreed, len, "%s", v);
  else if (strcmp(agreed, v) != 0) *differ = 1;
}

/* The NCCL a profile's collective curves ran, before g's curves go in: the one that each group
 * (fu_fitgroup.nccl) and each collective curve already in prof that no group replaces (fit
 * --merge-into keeps BASE's; prof's own version) name; "" where two differ or one names none
 * (its NCCL is unknown, so the profile's is). Where some name one and others none, a warning
 * says so: the version decides NCCL's choice of algorithm across nodes, and a sendrecv log
 * without the NCCL line beside 2.29.2 all-reduce logs moved a 2x8 price 2.2x in silence. A fit
 * with no collective curve keeps prof's. */
static void fu__profile_nccl(const fu_fitgroup *g, size_t ng, fu_profile *prof) {
  char v[sizeof prof->nccl_version] = "";
  int named = 0, silent = 0, differ = 0;
  for (int i = 0; i < prof->ncurves; i++) {
    const fu_curve *c = &prof->curves[i];
    int kept = fu__collective_curve(c);
    for (size_t k = 0; k < ng && kept; k++) {
      const fu_curve *n = &g[k].curve;
      kept = !(strcmp(n->op, c->op) == 0 && strcmp(n->link, c->link) == 0 && n->ranks == c->ranks &&
               (n->nodes > 0 ? n->nodes : 1) == (c->nodes > 0 ? c->nodes : 1) && strcmp(n->algo, c->algo) == 0);
    }
    if (kept) fu__fold_nccl(prof->nccl_version, v, sizeof v, &named, &silent, &differ);
  }
  for (size_t k = 0; k < ng; k++)
    if (fu__collective_curve(&g[k].curve)) fu__fold_nccl(g[k].nccl, v, sizeof v, &named, &silent, &differ);
  if (!named && !silent) return;
  if (named && silent && !differ)
    fu_warn("%d collective curve%s name%s no NCCL version, so the profile records none (the other %d "
            "name %s): cost and predict across nodes price the fastest algorithm unless --nccl-version says "
            "which NCCL runs", silent, silent == 1 ? "" : "s", silent == 1 ? "s" : "", named, v);
  if (differ || silent) v[0] = '\0';
  memcpy(prof->nccl_version, v, sizeof v);
}

/* The cost model's own error (fu_collerr.h) on the logs it was just fitted on, per scope where
 * the fit fitted that scope's parameters (fitted[]): every sample of the plain collective curves
 * the model was fitted from, priced by the model at its ranks, nodes, layout and NCCL. Elsewhere
 * the error stays the base's, copied with its parameters; where those are a base's of another
 * GPU the fit has no log of its own for them, and the error is marked borrowed (priced wide,
 * fu_collerr.h). O(samples log samples). */
static int fu__model_error(const fu_fitgroup *g, size_t ng, const fu_profile *base, const char *what,
                           const int fitted[FU_COLLERR_SCOPES], fu_profile *prof) {
  fu_cluster c = prof->cluster;
  c.job_compcap = fu_gpu_compcap(prof->gpu); /* as fusim cost prices it (NCCL's tuning tables) */
  size_t total = 0;
  for (size_t k = 0; k < ng; k++) total += g[k].fit.n;
  double *bytes = malloc((total ? total : 1) * sizeof *bytes), *r = malloc((total ? total : 1) * sizeof *r);
  int st = bytes && r ? FU_OK : FU_ENOMEM;
  for (int scope = 0; scope < FU_COLLERR_SCOPES && st == FU_OK; scope++) {
    if (!fitted[scope]) continue;
    size_t n = 0;
    for (size_t k = 0; k < ng && st == FU_OK; k++) {
      const fu_curve *cv = &g[k].curve;
      int nodes = cv->nodes > 0 ? cv->nodes : 1;
      fu_coll_obs o;
      /* the curves the model stands for: NCCL's own algorithm, over the machine's link */
      if ((nodes > 1) != (scope == FU_COLLERR_NODES) || fu_fitgroup_forced_nvls(cv) ||
          !fu_fitgroup_obs(&g[k], &o, NULL, 0) || !fu_cluster_usable(&c, nodes) ||
          (nodes == 1 && strcmp(cv->link, c.intra_link) != 0))
        continue;
      /* priced as fusim cost prices the job: its layout and its NCCL */
      c.job_gpus_per_proc = cv->gpus_per_proc > 1 ? cv->gpus_per_proc : 1;
      c.job_nccl_version = fu_nccl_version_code(g[k].nccl);
      for (size_t i = 0; i < g[k].fit.n && st == FU_OK; i++) {
        const fu_fit_point *p = &g[k].fit.points[i];
        double t;
        st = fu_coll_time(&c, o.op, cv->ranks, nodes, p->bytes, &t, NULL, 0);
        if (st == FU_OK && t > 0 && p->t_us > 0) {
          bytes[n] = p->bytes;
          r[n++] = log(p->t_us / t);
        }
      }
    }
    if (st == FU_OK) st = fu_collerr_fit(bytes, r, n, n ? what : "", &prof->cluster.err[scope]);
  }
  free(bytes);
  free(r);
  /* parameters of another GPU's base: its error, priced wide (fu_collerr.h) */
  int other = base && base->gpu[0] && prof->gpu[0] && !fu_gpu_same(base->gpu, prof->gpu);
  const int has[FU_COLLERR_SCOPES] = {prof->cluster.intra_gbps > 0, prof->cluster.nic_gbps > 0};
  for (int scope = 0; scope < FU_COLLERR_SCOPES && st == FU_OK && other; scope++) {
    if (fitted[scope] || !has[scope]) continue;
    fu_collerr *e = &prof->cluster.err[scope];
    e->borrowed = 1;
    snprintf(e->source, sizeof e->source, "base %.40s of %.40s%s", base->name, base->gpu,
             e->n[0] || e->n[1] || e->n[2] ? ": its error, widened" : ", which records no error: the default");
  }
  return st;
}

/* The links inside a node of c (and its node size, and the model's error there) left unknown:
 * another GPU's, not this one's. */
static void fu__cluster_drop_intra(fu_cluster *c) {
  c->base_us = c->intra_step_us = c->intra_gbps = 0;
  c->simple_base_us = c->simple_intra_step_us = 0;
  for (int s = 0; s < FU_COLL_NVLS_OPS; s++) c->nvls_algbw_gbps[s] = 0;
  c->intra_link[0] = c->intra_source[0] = c->nvls_source[0] = '\0';
  c->gpus_per_node = 0;
  memset(&c->err[FU_COLLERR_ONE_NODE], 0, sizeof c->err[FU_COLLERR_ONE_NODE]);
}

int fu_fitgroup_profile(const fu_fitgroup *g, size_t ng, const fu_profile *base, const char *what,
                        fu_profile *prof) {
  char bname[80];
  snprintf(bname, sizeof bname, "base %s", base && base->name[0] ? base->name : "profile");
  fu__profile_nccl(g, ng, prof);
  /* the GPU model decides what the base may lend (its links inside a node) and which algorithms
   * the fit weighs (NVLS) */
  for (size_t k = 0; k < ng && !prof->gpu[0]; k++)
    if (g[k].curve.gpu[0]) snprintf(prof->gpu, sizeof prof->gpu, "%s", g[k].curve.gpu);
  for (size_t k = 0; k < ng; k++) FU_CHECK(fu_profile_put_curve(prof, &g[k].curve));
  if (base) {
    for (int i = 0; i < base->ncurves; i++) {
      const fu_curve *b = &base->curves[i];
      fu_op op;
      int covered = fu_op_parse(b->op, &op) == FU_OK && fu_op_is_collective(op);
      for (size_t k = 0; k < ng && !covered; k++)
        covered = !strcmp(g[k].curve.op, b->op) && !strcmp(g[k].curve.link, b->link);
      if (covered) continue;
      fu_curve c = *b;
      fu__label2(c.source, sizeof c.source, bname, b->source);
      FU_CHECK(fu_profile_put_curve(prof, &c));
    }
    for (int i = 0; i < FU_PROFILE_NSCALARS; i++) {
      *fu_profile_scalar(prof, i) = *fu_profile_scalar((fu_profile *)base, i);
      fu__label2(prof->scalar_source[i], sizeof prof->scalar_source[i], bname, base->scalar_source[i]);
    }
    prof->compute = base->compute; /* compute tables: logs of collectives never cover them */
    /* they were measured on the base's GPU (or the one its own tables name): workload, predict
       and plan say so where that is not this profile's */
    const fu_compute *bc = &base->compute;
    int tables = bc->ngemm || bc->nconv || bc->nattn || bc->nops || bc->noptim;
    fu_profile_set_compute_gpu(prof, bc->gpu[0] ? bc->gpu : tables ? base->gpu : "");
    if (base->compute.source[0]) fu__label2(prof->compute.source, sizeof prof->compute.source, bname, base->compute.source);
    prof->cluster = base->cluster;
    /* the base's links inside a node are its GPU's, as its collective curves are: kept for a
     * profile of the same GPU (or an unknown one) only; its network, which nodes of another GPU
     * may share (a rail borrowed for a what-if), whatever the GPU */
    if (prof->gpu[0] && base->gpu[0] && !fu_gpu_same(prof->gpu, base->gpu))
      fu__cluster_drop_intra(&prof->cluster);
    if (prof->cluster.intra_source[0] || prof->cluster.intra_gbps > 0)
      fu__label2(prof->cluster.intra_source, sizeof prof->cluster.intra_source, bname, base->cluster.intra_source);
    if (base->cluster.net_source[0] || base->cluster.nic_gbps > 0)
      fu__label2(prof->cluster.net_source, sizeof prof->cluster.net_source, bname, base->cluster.net_source);
    if (prof->cluster.nvls_source[0])
      fu__label2(prof->cluster.nvls_source, sizeof prof->cluster.nvls_source, bname, base->cluster.nvls_source);
    if (base->cluster.node_net_gbps > 0)
      fu__label2(prof->cluster.node_net_source, sizeof prof->cluster.node_net_source, bname,
                 base->cluster.node_net_source);
  }
  /* the cost model's link parameters */
  fu_coll_obs *obs = malloc((ng ? ng : 1) * sizeof *obs);
  if (!obs) return FU_ENOMEM;
  size_t no = 0;
  const char *intra = NULL;
  for (size_t k = 0; k < ng; k++) {
    char note[400];
    /* a curve forced to NVLS is NVLS's observation only on a GPU with a measured NVLS share (the
     * fit reads its ring from it, fu_cluster_fit); elsewhere its label contradicts the machine */
    if (fu_fitgroup_forced_nvls(&g[k].curve) && !(fu_coll_nvls_efficiency(prof->gpu) > 0)) continue;
    if (fu_fitgroup_obs(&g[k], &obs[no], note, sizeof note)) {
      if (note[0]) {
        const fu_curve *c = &g[k].curve;
        fu_warn("%s: %s %s %d ranks (%d node%s): left out of the cluster model's large-size bandwidth and "
                "intercept, each more than %.0f%% below the rate of both sizes either side (the curve keeps "
                "them): %s", what, c->op, c->link, c->ranks, c->nodes > 0 ? c->nodes : 1, c->nodes > 1 ? "s" : "",
                100 * FU__ROW_DIP, note);
      }
      if (obs[no].nodes == 1) intra = g[k].curve.link;
      no++;
    }
  }
  char link0[sizeof prof->cluster.intra_link];
  memcpy(link0, prof->cluster.intra_link, sizeof link0);
  if (intra) snprintf(prof->cluster.intra_link, sizeof prof->cluster.intra_link, "%s", intra);
  int fi, fn;
  fu_cluster_fit(&prof->cluster, obs, no, what, prof->gpu, &fi, &fn);
  free(obs);
  if (!fi) memcpy(prof->cluster.intra_link, link0, sizeof link0);
  const int fitted[FU_COLLERR_SCOPES] = {fi, fn};
  FU_CHECK(fu__model_error(g, ng, base, what, fitted, prof));
  /* the machine: every curve the profile holds (a merge's and those it already had) */
  int nodes = 1, gpn = prof->cluster.gpus_per_node;
  for (int k = 0; k < prof->ncurves; k++) {
    const fu_curve *c = &prof->curves[k];
    if (c->nodes > nodes) nodes = c->nodes;
    if (c->ranks / (c->nodes > 0 ? c->nodes : 1) > gpn) gpn = c->ranks / (c->nodes > 0 ? c->nodes : 1);
  }
  char up[32] = "";
  if (nodes > 1) snprintf(up, sizeof up, ", up to %d nodes", nodes);
  snprintf(prof->machine, sizeof prof->machine, "%.64s%s%d GPU%s per node%s", prof->gpu[0] ? prof->gpu : "GPU unknown",
           ", ", gpn, gpn == 1 ? "" : "s", up);
  return FU_OK;
}

int fu_fitgroup_gemm_table(const fu_fitgroup_sample *s, size_t n, const char *what, fu_compute *c, int *npts,
                           char *gpu, size_t len) {
  *npts = 0;
  gpu[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    const fu_fitgroup_sample *x = &s[i];
    int m, nn, k;
    if (strcmp(x->proto, "fwd") && strcmp(x->proto, "dgrad") && strcmp(x->proto, "wgrad")) continue;
    if (fu_gemm_label_parse(x->algo, &m, &nn, &k) != FU_OK || !(x->t_us > 0)) continue;
    if (x->gpu[0] && gpu[0] && !fu_gpu_same(x->gpu, gpu)) { /* one profile's tables: one GPU's */
      fu_error("%s: GEMM sweep of two GPUs (%s, %s); --run chooses one", what, gpu, x->gpu);
      return FU_EDATA;
    }
    if (x->gpu[0] && !gpu[0]) snprintf(gpu, len, "%s", x->gpu);
    if (fu_compute_put_gemm(c, x->dtype, x->proto, m, nn, k, x->t_us) != FU_OK) {
      fu_error("%s: GEMM sweep: too many dtypes, layouts or sizes for the profile's tables", what);
      return FU_EDATA;
    }
    (*npts)++;
  }
  if (*npts == 0) {
    fu_error("%s: no GEMM shape-sweep samples (run fusim calib --suite gemm)", what);
    return FU_ENOINPUT;
  }
  return FU_OK;
}

void fu_fitgroup_free(fu_fitgroup *g, size_t ng) {
  for (size_t k = 0; g && k < ng; k++) fu_fit_result_finish(&g[k].fit);
  free(g);
}

/* ---- output ---- */

void fu_fitgroup_print_table(FILE *out, const fu_fitgroup *g, const fu_fit_options *o) {
  const fu_curve *c = &g->curve;
  char a[32], b[32];
  char shape[96] = "";
  if (c->nodes > 1 || c->gpu[0])
    snprintf(shape, sizeof shape, " (%s%s%d node%s)", c->gpu, c->gpu[0] ? ", " : "", c->nodes > 0 ? c->nodes : 1,
             c->nodes > 1 ? "s" : "");
  fprintf(out, "%s %s %d rank%s%s%s%s%s%s, %s%s, samples: %zu, %d segment%s, max rel err %.2f%% (%s, %s %.3g)%s\n",
         c->op, c->link, c->ranks, c->ranks == 1 ? "" : "s", shape, c->algo[0] ? ", algo " : "", c->algo,
         g->dtype[0] ? ", " : "", g->dtype, g->in_place ? "in-place" : "out-of-place",
         g->graph ? ", CUDA graph" : "", g->fit.n, c->nseg, c->nseg == 1 ? "" : "s",
         100 * g->fit.max_rel_err, fu_fit_method_name(o->method), fu_fit_criterion_name(o->criterion),
         o->tolerance, g->fit.met_tolerance ? "" : "  TOLERANCE NOT MET");
  if (g->n_zero) fprintf(out, "  (%zu size-0 samples skipped)\n", g->n_zero);
  if (g->n_wrong)
    fprintf(out, "  (%zu samples with wrong results skipped: nccl-tests' #wrong > 0)\n", g->n_wrong);
  fprintf(out, "  %-3s %-23s %-30s %-34s %8s %4s\n", "seg", "sizes [lo, hi)", "alpha us [95% CI]",
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
    char fl[48];
    fu_segment_flags_str(x, fl, sizeof fl);
    fprintf(out, "  %-3d %-23s %-30s %-34s %7.2f%% %4d%s%s%s%s%s\n", s, range, ci_a, ci_b, 100 * x->max_rel_err,
           x->n_samples, g->fit.alpha_negative[s] ? "  alpha<0" : "",
           g->fit.alpha_clamped[s] ? " (refitted with alpha=0)" : "",
           g->fit.floored[s] ? "  floored (starts at the previous segment's price)" : "", fl[0] ? "  FLAGGED: " : "", fl);
  }
  fprintf(out, "  %14s %12s %12s %8s %3s\n", "bytes", "measured_us", "fitted_us", "rel_err", "seg");
  for (size_t i = 0; i < g->fit.n; i++) {
    const fu_fit_point *p = &g->fit.points[i];
    double r = (g->fit.fitted_us[i] - p->t_us) / p->t_us;
    fprintf(out, "  %14.0f %12.4g %12.4g %7.2f%% %3d%s\n", p->bytes, p->t_us, g->fit.fitted_us[i], 100 * r,
           g->fit.segment_of[i], fabs(r) > o->tolerance ? "  > tolerance" : "");
  }
  fprintf(out, "\n");
}

static void fu__csv_num(FILE *out, double v) {
  if (isfinite(v)) fprintf(out, ",%.10g", v);
  else if (isinf(v)) fprintf(out, ",inf");
  else fprintf(out, ",");
}

void fu_fitgroup_print_csv(FILE *out, const fu_fitgroup *g, int header) {
  const fu_curve *c = &g->curve;
  if (header)
    fprintf(out, "record,op,link,ranks,algo,in_place,segment,lo_bytes,hi_bytes,alpha_us,alpha_lo,alpha_hi,"
           "beta_us_per_byte,beta_lo,beta_hi,max_rel_err,n_samples,bytes,measured_us,fitted_us,rel_err,"
           "dtype,proto,graph\n");
  for (int s = 0; s < c->nseg; s++) {
    const fu_segment *x = &c->seg[s];
    fprintf(out, "segment,%s,%s,%d,%s,%d,%d", c->op, c->link, c->ranks, c->algo, g->in_place, s);
    fu__csv_num(out, x->lo_bytes);
    fu__csv_num(out, x->hi_bytes);
    fu__csv_num(out, x->alpha_us);
    fu__csv_num(out, x->alpha_ci[0]);
    fu__csv_num(out, x->alpha_ci[1]);
    fu__csv_num(out, x->beta_us_per_byte);
    fu__csv_num(out, x->beta_ci[0]);
    fu__csv_num(out, x->beta_ci[1]);
    fu__csv_num(out, x->max_rel_err);
    fprintf(out, ",%d,,,,,%s,%s,%d\n", x->n_samples, g->dtype, g->proto, g->graph);
  }
  for (size_t i = 0; i < g->fit.n; i++) {
    const fu_fit_point *p = &g->fit.points[i];
    fprintf(out, "point,%s,%s,%d,%s,%d,%d,,,,,,,,,,", c->op, c->link, c->ranks, c->algo, g->in_place,
           g->fit.segment_of[i]);
    fprintf(out, ",%.0f,%.10g,%.10g,%.6g,%s,%s,%d\n", p->bytes, p->t_us, g->fit.fitted_us[i],
           (g->fit.fitted_us[i] - p->t_us) / p->t_us, g->dtype, g->proto, g->graph);
  }
}

json_t *fu_fitgroup_json(const fu_fitgroup *g, const fu_fit_options *o) {
  json_t *j = fu_curve_to_json(&g->curve);
  if (!j) return NULL;
  json_t *segs = json_object_get(j, "segments");
  for (int s = 0; s < g->curve.nseg; s++) {
    json_t *js = json_array_get(segs, (size_t)s);
    json_object_set_new(js, "alpha_negative", json_boolean(g->fit.alpha_negative[s]));
    json_object_set_new(js, "alpha_clamped", json_boolean(g->fit.alpha_clamped[s]));
    json_object_set_new(js, "floored", json_boolean(g->fit.floored[s]));
    json_object_set_new(js, "ci_spans_zero", json_boolean(g->curve.seg[s].flags & FU_SEG_CI_SPANS_ZERO));
    json_object_set_new(js, "over_link_limit", json_boolean(g->curve.seg[s].flags & FU_SEG_OVER_LIMIT));
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
  json_object_set_new(j, "n_wrong_skipped", json_integer((json_int_t)g->n_wrong));
  json_object_set_new(j, "points", pts);
  return j;
}

/* ---- plot ---- */

/* Writes one data file of the plot: the measured points (fitted = 0) or the fitted curve, 40
 * points per decade from the smallest to the largest size. Every write is checked. */
static int fu__plot_data(const char *path, const fu_fitgroup *x, int fitted) {
  FILE *f = fopen(path, "w");
  if (!f) return FU_EIO;
  if (!fitted) {
    for (size_t i = 0; i < x->fit.n; i++)
      fprintf(f, "%.10g %.10g %.10g\n", x->fit.points[i].bytes, x->fit.points[i].t_us,
              fu_fitgroup_busbw(x->curve.op, x->curve.ranks, x->fit.points[i].bytes, x->fit.points[i].t_us));
  } else {
    double lo = x->fit.points[0].bytes, hi = x->fit.points[x->fit.n - 1].bytes;
    int steps = (int)ceil(40 * log10(hi / lo)) + 1;
    for (int i = 0; i <= steps; i++) {
      double b = lo * pow(hi / lo, (double)i / steps);
      double t = fu_curve_time(&x->curve, b, NULL, NULL);
      if (t > 0) fprintf(f, "%.10g %.10g %.10g\n", b, t, fu_fitgroup_busbw(x->curve.op, x->curve.ranks, b, t));
    }
  }
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  return bad ? FU_EIO : FU_OK;
}

int fu_fitgroup_plot(const char *out, const fu_fitgroup *g, size_t ng) {
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
