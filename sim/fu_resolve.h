/* fu_resolve.h: a plan -> its buckets -> a prediction. The step above the simulator: the
 * plans that need no search take their buckets from fu_plan.h's rules; optimal and mgwfbp run
 * fu_search.h; the simulator (fu_predict.h) takes the buckets only. */
#ifndef FU_RESOLVE_H
#define FU_RESOLVE_H

#include <stddef.h>

#include "fu_plan.h"
#include "fu_predict.h"
#include "fu_profile.h"
#include "fu_search.h"
#include "fu_workload.h"

/* The buckets of plan p on workload w. optimal and mgwfbp price buckets on (c, prof); stats
 * (may be NULL) gets the search's statistics. *out is malloc'd. */
int fu_resolve_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                       const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                       fu_search_stats *stats);

/* fu_resolve_buckets + fu_sim_predict_buckets: one plan's predicted iteration. trace may be
 * NULL; stats as above. *out is finished by the caller (fu_result_finish). */
int fu_predict_plan(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                    const fu_profile *prof, fu_trace *trace, fu_search_stats *stats,
                    fu_result *out);

#endif
