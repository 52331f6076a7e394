/* plan_util.h: helpers for the plan tests: build a workload in memory, capture stderr. */
#ifndef PLAN_UTIL_H
#define PLAN_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fu_workload.h"

/* A workload with n gradients named g0.. (or names[]), given bytes and ready times. */
static inline void pu_workload(fu_workload *w, size_t n, const uint64_t *bytes, const double *ready,
                               double fwd_us, double bwd_us) {
  fu_workload_init(w);
  snprintf(w->name, sizeof w->name, "test%zu", n);
  w->fwd_us = fwd_us;
  w->bwd_us = bwd_us;
  w->ngrads = n;
  w->grads = calloc(n, sizeof *w->grads);
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "g%zu", i);
    w->grads[i].name = strdup(name);
    w->grads[i].bytes = bytes[i];
    w->grads[i].ready_us = ready[i];
  }
}

/* A splitmix64 stream: the tests' random workloads, the same on every machine. */
static inline uint64_t pu_rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double pu_rng_unit(uint64_t *s) { return (double)(pu_rng_next(s) >> 11) / 9007199254740992.0; }

/* A workload that communication bounds on any link slower than 100 GB/s: n gradients of whole
 * 4-byte elements, log-uniform from 4 KiB to 64 MiB (from seed), each ready when backward has
 * produced its bytes at 100 GB/s; forward takes half of backward. */
static inline void pu_comm_bound_workload(fu_workload *w, size_t n, uint64_t seed) {
  uint64_t *bytes = malloc(n * sizeof *bytes);
  double *ready = malloc(n * sizeof *ready), t = 0;
  for (size_t i = 0; i < n; i++) {
    bytes[i] = (uint64_t)exp(log(4096.0) + pu_rng_unit(&seed) * (log(64.0 * 1048576.0) - log(4096.0))) & ~3ull;
    t += (double)bytes[i] / 1e5;
    ready[i] = t;
  }
  pu_workload(w, n, bytes, ready, t / 2, t);
  free(bytes);
  free(ready);
}

/* Redirects stderr into a temporary file until pu_stderr_end, which returns what was written
 * (static buffer). */
typedef struct pu_capture {
  int saved_fd;              /* the original stderr */
  FILE *tmp;                 /* where stderr goes meanwhile */
  char text[4096];           /* what was captured */
} pu_capture;

static inline void pu_stderr_begin(pu_capture *c) {
  fflush(stderr);
  c->saved_fd = dup(fileno(stderr));
  c->tmp = tmpfile();
  dup2(fileno(c->tmp), fileno(stderr));
}

static inline const char *pu_stderr_end(pu_capture *c) {
  fflush(stderr);
  dup2(c->saved_fd, fileno(stderr));
  close(c->saved_fd);
  rewind(c->tmp);
  size_t n = fread(c->text, 1, sizeof c->text - 1, c->tmp);
  c->text[n] = '\0';
  fclose(c->tmp);
  return c->text;
}


#include "fu_profile.h"

/* A small synthetic profile, independent of the bundled one: 8-rank NVLink all-reduce in two
 * segments (20 us + 100 GB/s below 1 MiB, 30 us + 300 GB/s above), reduce-scatter and
 * all-gather (15 us + 120 GB/s, 25 us + 350 GB/s), PCIe device-to-host
 * (8 us + 50 GB/s), HBM copies (2 us + 3000 GB/s), issue 2.1 us, launch 2.5 us, no slowdown. */
static inline void pu_curve(fu_curve *c, const char *op, const char *link, int ranks, int nseg,
                            const double *lo, const double *alpha, const double *gbps,
                            double peak) {
  memset(c, 0, sizeof *c);
  snprintf(c->op, sizeof c->op, "%s", op);
  snprintf(c->link, sizeof c->link, "%s", link);
  c->ranks = ranks;
  c->nseg = nseg;
  for (int s = 0; s < nseg; s++) {
    c->seg[s].lo_bytes = lo[s];
    c->seg[s].hi_bytes = s + 1 < nseg ? lo[s + 1] : INFINITY;
    c->seg[s].alpha_us = alpha[s];
    c->seg[s].beta_us_per_byte = 1.0 / (gbps[s] * 1e3);
    c->seg[s].alpha_ci[0] = alpha[s] * 0.95;
    c->seg[s].alpha_ci[1] = alpha[s] * 1.05;
    c->seg[s].beta_ci[0] = c->seg[s].beta_us_per_byte * 0.97;
    c->seg[s].beta_ci[1] = c->seg[s].beta_us_per_byte * 1.03;
    c->seg[s].n_samples = 10;
  }
  c->peak_busbw_gbps = peak;
}

static inline void pu_profile(fu_profile *p, double comm_slowdown) {
  fu_profile_init(p);
  snprintf(p->name, sizeof p->name, "test-profile");
  double lo2[] = {0, 1 << 20}, a2[] = {20, 30}, g2[] = {100, 300};
  pu_curve(&p->curves[p->ncurves++], "allreduce", "nvlink", 8, 2, lo2, a2, g2, 500);
  double ars[] = {15, 25}, grs[] = {120, 350};
  pu_curve(&p->curves[p->ncurves++], "reducescatter", "nvlink", 8, 2, lo2, ars, grs, 500);
  pu_curve(&p->curves[p->ncurves++], "allgather", "nvlink", 8, 2, lo2, ars, grs, 500);
  double lo1[] = {0}, a1[] = {8}, g1[] = {50};
  pu_curve(&p->curves[p->ncurves++], "d2h", "pcie_d2h", 1, 1, lo1, a1, g1, 55);
  double ah[] = {2}, gh[] = {3000};
  pu_curve(&p->curves[p->ncurves++], "d2d", "hbm", 1, 1, lo1, ah, gh, 3000);
  p->issue_us = 2.1;
  p->launch_us = 2.5;
  p->duplex_factor = 0.9;
  p->comm_slowdown = comm_slowdown;
  p->copy_slowdown = 1.0;
  p->hbm_gbps = 3000;
}

/* The same with a measured pack kernel (3 us + 2800 GB/s, timed alone with its launch inside)
 * and a pack -> operation hand-off of 6 us per packed bucket. */
static inline void pu_profile_pack(fu_profile *p, double comm_slowdown) {
  pu_profile(p, comm_slowdown);
  double lo1[] = {0}, ap[] = {3}, gp[] = {2800};
  pu_curve(&p->curves[p->ncurves++], "pack", "hbm", 1, 1, lo1, ap, gp, 2800);
  p->pack_handoff_us = 6.0;
}

#endif
