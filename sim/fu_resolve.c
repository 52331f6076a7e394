/* fu_resolve.c: a plan -> buckets -> a prediction (see fu_resolve.h). */
#include "fu_resolve.h"

#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_predict.h"

/* Horovod fuses, at each cycle, the tensors ready by then, as they really become ready: compute
 * slowed beside communication (and a host that falls behind) moves a tensor past a tick, and it
 * then goes with the next tick's tensors. The buckets from the workload's own ready times are
 * simulated, the tensors re-bucketed on the ready times that run gave, and so on until the
 * buckets stand. A tensor's ready time depends only on the operations sent before it, so the
 * buckets two rounds agree on from the first one stay, and each round settles one more at
 * least: the bundled workloads settle in 2-8 rounds. At most 64 (then the last round's). */
#define FU__HVD_ROUNDS 64
static int fu__horovod_settle(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                              const fu_profile *prof, fu_bucket **out, size_t *nbuckets) {
  FU_CHECK(fu_plan_rule_buckets(w, p, out, nbuckets));
  size_t n = w->ngrads;
  fu_workload w2 = *w; /* borrows the names; never finished */
  w2.grads = malloc(n * sizeof *w2.grads);
  double *ready = malloc(n * sizeof *ready);
  int st = w2.grads && ready ? FU_OK : FU_ENOMEM;
  if (st == FU_OK) memcpy(w2.grads, w->grads, n * sizeof *w2.grads);
  for (int round = 0; st == FU_OK && round < FU__HVD_ROUNDS; round++) {
    st = fu_sim_grad_ready(w, p, c, prof, *out, *nbuckets, ready);
    if (st != FU_OK) break;
    for (size_t i = 0; i < n; i++) /* in order, as one compute stream makes them */
      w2.grads[i].ready_us = i && ready[i] < w2.grads[i - 1].ready_us ? w2.grads[i - 1].ready_us : ready[i];
    if (w2.grads[n - 1].ready_us > w2.bwd_us) w2.bwd_us = w2.grads[n - 1].ready_us;
    fu_bucket *b = NULL;
    size_t nb = 0;
    if ((st = fu_plan_rule_buckets(&w2, p, &b, &nb)) != FU_OK) break;
    int same = nb == *nbuckets;
    for (size_t k = 0; same && k < nb; k++)
      same = b[k].first == (*out)[k].first && b[k].last == (*out)[k].last;
    free(*out);
    *out = b;
    *nbuckets = nb;
    FU_DEBUG("horovod: round %d: %zu buckets%s", round + 1, nb, same ? ", settled" : "");
    if (same) break;
  }
  free(w2.grads);
  free(ready);
  if (st != FU_OK) {
    free(*out);
    *out = NULL;
    *nbuckets = 0;
  }
  return st;
}

int fu_resolve_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                       const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                       fu_search_stats *stats) {
  *out = NULL;
  *nbuckets = 0;
  if (stats) memset(stats, 0, sizeof *stats);
  if (p->kind == FU_FUSION_HOROVOD && p->overlap && c && prof && w && w->ngrads > 0)
    return fu__horovod_settle(w, p, c, prof, out, nbuckets);
  if (p->kind != FU_FUSION_OPTIMAL && p->kind != FU_FUSION_MGWFBP)
    return fu_plan_rule_buckets(w, p, out, nbuckets);
  if (!w || w->ngrads == 0) {
    fu_error("%s: the workload has no gradients", w && w->source[0] ? w->source : "workload");
    return FU_EDATA;
  }
  if (!c || !prof) {
    fu_error("plan: %s needs a communication target and a profile",
             p->kind == FU_FUSION_OPTIMAL ? "optimal" : "mgwfbp");
    return FU_EUSAGE;
  }
  if (p->kind == FU_FUSION_OPTIMAL) return fu_search_optimal(w, p, c, prof, out, nbuckets, stats);
  return fu_search_mgwfbp(w, p, c, prof, out, nbuckets, stats);
}

int fu_predict_plan(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                    const fu_profile *prof, fu_trace *trace, fu_search_stats *stats,
                    fu_result *out) {
  memset(out, 0, sizeof *out);
  fu_bucket *b = NULL;
  size_t nb = 0;
  FU_CHECK(fu_resolve_buckets(w, p, c, prof, &b, &nb, stats));
  int st = fu_sim_predict_buckets(w, p, c, prof, b, nb, trace, out);
  free(b);
  return st;
}
