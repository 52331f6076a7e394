/* fu_search.h: the plan searches: the optimal contiguous bucketing (dynamic programming over
 * the ready order) and MG-WFBP (Shi, Chu, Li, INFOCOM 2019). They price buckets with fu_cost.h
 * and the polish simulates with fu_predict.h; plans and buckets are fu_plan.h's. fu_resolve.h
 * runs them for the plans that ask for them. */
#ifndef FU_SEARCH_H
#define FU_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "fu_cost.h"
#include "fu_plan.h"
#include "fu_profile.h"
#include "fu_workload.h"

/* Statistics of a search, for reports and benchmarks. */
typedef struct fu_search_stats {
  double predicted_us;       /* the search's own model of the iteration time (optimal) or of
                                when the last bucket finishes (MG-WFBP) */
  int exact;                 /* optimal: 1 when no cut or dropped state could have lost the
                                optimum (prices grow with bytes, Pareto fronts fit) */
  uint64_t cost_calls;       /* bucket prices evaluated (fu_cost_model_bucket) */
  uint64_t candidates;       /* (i, j) bucket candidates examined */
  double elapsed_ms;         /* wall time of the search */
  int polished;              /* optimal: 1 when the DP's model left out contention the engine
                                charges, and its buckets were improved by simulation */
  int host_timeline;         /* optimal: the workload's host timeline (v2 host block), which the
                                DP leaves out, was one reason to polish */
  uint64_t sims;             /* simulations the polish ran */
  double simulated_us;       /* polished: the simulated iteration of the result */
  double dp_simulated_us;    /* polished: the simulated iteration of the DP's own buckets */
  uint32_t dtypes;           /* element types among the gradients (several: searched per type) */
} fu_search_stats;

/* Optimal contiguous bucketing over the ready order: minimises the iteration time the engine
 * would simulate with one communication stream and nothing contending (no compute slowdown, no
 * link sharing). The core recurrence is
 *   finish[j] = min_i  max(ready[j] + issue(i+1..j), finish[i]) + device(i+1..j)
 * with device() and issue() from fu_cost_model_bucket (the model the engine charges); since the host thread (and, for launch-bound
 * workloads, the delay issues add to backward) also carries state, each prefix keeps a small
 * Pareto front of (delay, host, stream) times instead of one number. mem_cap_bytes (0 = none)
 * bounds a fused bucket's bytes (a single tensor larger than the cap still goes alone: it needs
 * no buffer). O(n^2) candidates in the worst case; a candidate whose lower bounds are already
 * dominated ends the scan for its j, which is exact when prices grow with bytes (checked). The
 * bounds include the communication backlog the prefix leaves queued, so where the stream is the
 * bottleneck the scan stops a few dozen gradients back, as where compute is.
 * Where the engine charges what the DP leaves out (comm_slowdown or copy_slowdown != 1, more
 * than one stream, or a state the DP had to drop), the DP's buckets are polished by simulation
 * (stats->polished): the other plans and a cap sweep are simulated as seeds, so the result is
 * never worse than those plans; where the departure is material (a slowdown over 1%, several
 * streams, an inexact DP) the DP is also re-run on the ready times the engine produced (up to
 * 4 rounds) and single boundary moves are taken while they help (at most min(6n + 200, 1000,
 * 1e5 / n) simulations, at least 32).
 * Several element types (fu_bucket: a bucket holds one type, a contiguous run of that type's
 * own gradients): the DP runs on each type's gradients alone (it cannot see the other types'
 * operations on the stream), and the polish above always runs, its cuts and moves taken within
 * each type's gradients, seeded also by the one-type DP over the whole ready order with each of
 * its buckets sent as one operation per type. Buckets go by their last gradient's ready order,
 * except where a seed sent in its own order was the fastest (DDP's and cap's open buckets go
 * the type seen last first, fu_plan.c; Horovod's by response): that seed is the result, in that
 * order. So never worse than the plans it seeds from, DDP's default included. The moves send by
 * last gradient only; the optimum is not guaranteed (never exact).
 * *out is malloc'd. stats may be NULL. */
int fu_search_optimal(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                      fu_search_stats *stats);

/* MG-WFBP: walking the ready order, merge the next gradient into the current group when the
 * group's communication would still be running when that gradient is ready and either it has
 * not started yet, or the wait for the gradient is shorter than the start-up time saved
 * (t(a) + t(b) - t(a+b), alpha for a Hockney curve). As in the authors' code
 * (HKBU-HPML/MG-WFBP, _generate_groups_mgwfbp). O(n). With several element types the rule
 * runs on each type's gradients alone (it does not see the other types' operations), the
 * buckets then going by their last gradient's ready order. *out is malloc'd. */
int fu_search_mgwfbp(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                     const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                     fu_search_stats *stats);

#endif
