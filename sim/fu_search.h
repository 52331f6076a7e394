/* fu_search.h: plan files and plan flags, and the plan searches: the optimal contiguous
 * bucketing (dynamic programming over the ready order) and MG-WFBP (Shi, Chu, Li, INFOCOM 2019).
 *
 * The kinds and the --fusion / --comm parsers themselves are declared in fu_sim.h and
 * implemented in fu_plan.c; this header adds what commands need beside them. */
#ifndef FU_SEARCH_H
#define FU_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "fu_cost.h"
#include "fu_profile.h"
#include "fu_sim.h"
#include "fu_workload.h"

/* Defaults of the frameworks whose plans fusim compares against. */
#define FU_DDP_CAP_BYTES (25ull << 20)        /* PyTorch DDP bucket_cap_mb = 25 */
#define FU_DDP_FIRST_BYTES (1ull << 20)       /* DDP's first bucket (kDefaultFirstBucketBytes) */
#define FU_HOROVOD_THRESHOLD_BYTES (128ull << 20) /* HOROVOD_FUSION_THRESHOLD since v0.21 */
#define FU_HOROVOD_CYCLE_US 1000.0            /* HOROVOD_CYCLE_TIME = 1 ms since v0.21 */

/* --overlap on|off, --pack copy|view, --comm-streams N (1..64). Each prints one line naming
 * the flag and returns FU_EUSAGE on a bad value. */
int fu_plan_parse_overlap(const char *s, fu_plan *p);
int fu_plan_parse_pack(const char *s, fu_plan *p);
int fu_plan_parse_streams(const char *s, fu_plan *p);

/* A JSON plan file: {"fusion": "cap:25MiB,first:1MiB", "overlap": "on"|true,
 * "pack": "copy", "comm_streams": 2} (every key optional; others are an error). Values given
 * override those already in *p. Errors name the file and key; FU_EDATA / FU_ENOINPUT. */
int fu_plan_load(const char *path, fu_plan *p);
int fu_plan_parse_json(const char *json_text, const char *what, fu_plan *p);
/* The inverse of fu_plan_string: "FUSION [overlap=on|off] [pack=copy|view] [streams=N]" (keys
 * left out take their defaults), as stored in the results database and written in a CSV of
 * measured times. One line naming `what` on failure (FU_EDATA). */
int fu_plan_parse_string(const char *s, const char *what, fu_plan *p);

/* Iteration-clock time at which the backward pass that communicates begins: the last
 * micro-batch's backward, (accum_steps - 1) * (fwd + bwd) + fwd. Gradient ready times are
 * counted from there. */
double fu_plan_backward_start_us(const fu_workload *w);

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
  uint64_t sims;             /* simulations the polish ran */
  double simulated_us;       /* polished: the simulated iteration of the result */
  double dp_simulated_us;    /* polished: the simulated iteration of the DP's own buckets */
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
 * dominated ends the scan for its j, which is exact when prices grow with bytes (checked).
 * Where the engine charges what the DP leaves out (comm_slowdown or copy_slowdown != 1, more
 * than one stream, or a state the DP had to drop), the DP's buckets are polished by simulation
 * (stats->polished): the other plans and a cap sweep are simulated as seeds, so the result is
 * never worse than those plans; where the departure is material (a slowdown over 1%, several
 * streams, an inexact DP) the DP is also re-run on the ready times the engine produced (up to
 * 4 rounds) and single boundary moves are taken while they help (at most min(6n + 200, 1000,
 * 1e5 / n) simulations, at least 32).
 * *out is malloc'd. stats may be NULL. */
int fu_search_optimal(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                      fu_search_stats *stats);

/* MG-WFBP: walking the ready order, merge the next gradient into the current group when the
 * group's communication would still be running when that gradient is ready and either it has
 * not started yet, or the wait for the gradient is shorter than the start-up time saved
 * (t(a) + t(b) - t(a+b), alpha for a Hockney curve). As in the authors' code
 * (HKBU-HPML/MG-WFBP, _generate_groups_mgwfbp). O(n). *out is malloc'd. */
int fu_search_mgwfbp(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                     const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                     fu_search_stats *stats);

/* Fills bytes and ready_us of buckets whose first/last are set. */
void fu_plan_fill_buckets(const fu_workload *w, fu_bucket *b, size_t nb);

#endif
