/* fu_resolve.c: a plan -> buckets -> a prediction (see fu_resolve.h). */
#include "fu_resolve.h"

#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

int fu_resolve_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                       const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                       fu_search_stats *stats) {
  *out = NULL;
  *nbuckets = 0;
  if (stats) memset(stats, 0, sizeof *stats);
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
