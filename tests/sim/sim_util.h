/* sim_util.h: in-memory profiles, workloads and bucket lists for the simulator tests. Curves
 * are one segment t = alpha + beta * n, so expected times can be written down by hand. */
#ifndef SIM_UTIL_H
#define SIM_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_profile.h"
#include "fu_resolve.h"
#include "fu_workload.h"

/* One-segment curve with +-ci_rel CIs on alpha and beta. */
static inline void su_curve(fu_profile *p, const char *op, const char *link, int ranks, double alpha,
                     double beta, double peak_gbps, double ci_rel) {
  fu_curve *c = &p->curves[p->ncurves++];
  memset(c, 0, sizeof *c);
  snprintf(c->op, sizeof c->op, "%s", op);
  snprintf(c->link, sizeof c->link, "%s", link);
  c->ranks = ranks;
  c->nseg = 1;
  c->seg[0].lo_bytes = 0;
  c->seg[0].hi_bytes = INFINITY;
  c->seg[0].alpha_us = alpha;
  c->seg[0].beta_us_per_byte = beta;
  c->seg[0].alpha_ci[0] = alpha * (1 - ci_rel);
  c->seg[0].alpha_ci[1] = alpha * (1 + ci_rel);
  c->seg[0].beta_ci[0] = beta * (1 - ci_rel);
  c->seg[0].beta_ci[1] = beta * (1 + ci_rel);
  c->seg[0].n_samples = 10;
  c->peak_busbw_gbps = peak_gbps;
}

/* Test profile: 8-rank NVLink all-reduce alpha A_AR, algbw 100 GB/s (busbw 175: peak);
 * HBM copy 5 us + 2000 GB/s; PCIe D2H 4 us + 55.2 GB/s; no host costs, no slowdown. */
#define A_AR 20.0
#define B_AR (1.0 / 100e3)
#define A_HBM 5.0
#define B_HBM (1.0 / 2000e3)
#define A_D2H 4.0
#define B_D2H (1.0 / 55.2e3)
static inline void su_profile(fu_profile *p, double ascale, double bscale) {
  fu_profile_init(p);
  snprintf(p->name, sizeof p->name, "test");
  su_curve(p, "allreduce", "nvlink", 8, A_AR * ascale, B_AR * bscale, 175.0, 0.1);
  su_curve(p, "d2d", "hbm", 1, A_HBM, B_HBM, 2000.0, 0.0);
  su_curve(p, "d2h", "pcie_d2h", 1, A_D2H * ascale, B_D2H * bscale, 55.2, 0.1);
  p->launch_us = 0;
  p->issue_us = 0;
  p->duplex_factor = 99.13 / 110.4;
  p->comm_slowdown = 1;
  p->copy_slowdown = 1;
  p->hbm_gbps = 2000;
}

static inline double su_ar(double bytes) { return A_AR + B_AR * bytes; }
static inline double su_hbm(double bytes) { return A_HBM + B_HBM * bytes; }

/* Workload of n gradients; ready times spread over backward, the last at its end. */
static inline void su_workload(fu_workload *w, size_t n, const uint64_t *bytes, const double *ready,
                        double fwd, double bwd, double opt) {
  memset(w, 0, sizeof *w);
  snprintf(w->name, sizeof w->name, "test%zu", n);
  w->fwd_us = fwd;
  w->bwd_us = bwd;
  w->opt_us = opt;
  w->accum_steps = 1;
  w->ngrads = n;
  w->grads = calloc(n, sizeof *w->grads);
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "layer%zu.weight", i);
    w->grads[i].name = strdup(name);
    w->grads[i].bytes = bytes[i];
    w->grads[i].ready_us = ready[i];
  }
}

static inline void su_workload_free(fu_workload *w) {
  for (size_t i = 0; i < w->ngrads; i++) free(w->grads[i].name);
  free(w->grads);
  memset(w, 0, sizeof *w);
}

/* Buckets of counts[k] consecutive gradients (malloc'd). */
static inline fu_bucket *su_buckets(const fu_workload *w, const size_t *counts, size_t nb) {
  fu_bucket *b = calloc(nb, sizeof *b);
  size_t at = 0;
  for (size_t k = 0; k < nb; k++) {
    b[k].first = at;
    b[k].last = at + counts[k] - 1;
    for (size_t i = b[k].first; i <= b[k].last; i++) b[k].bytes += w->grads[i].bytes;
    at += counts[k];
  }
  return b;
}

static inline void su_plan(fu_plan *p, int overlap, int view, int streams) {
  memset(p, 0, sizeof *p);
  p->kind = FU_FUSION_BUCKETS;
  p->overlap = overlap;
  p->pack_view = view;
  p->comm_streams = streams;
}

static inline void su_comm_ar8(fu_comm *c) {
  memset(c, 0, sizeof *c);
  c->kind = FU_COMM_ALLREDUCE;
  c->ranks = 8;
  c->nodes = 1;
  c->link = FU_LINK_NVLINK;
}

static inline void su_comm_offload(fu_comm *c) {
  memset(c, 0, sizeof *c);
  c->kind = FU_COMM_OFFLOAD;
  c->ranks = 1;
  c->nodes = 1;
  c->link = FU_LINK_PCIE_D2H;
}

#endif
