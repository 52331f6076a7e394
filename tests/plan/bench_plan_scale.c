/* bench_plan_scale.c: how the optimal search's DP grows with the number of gradients. The
 * workload is plan_util's pu_comm_bound_workload (sizes log-uniform 4 KiB..64 MiB, produced at 100 GB/s) at
 * 4000 and 20000 gradients offloaded over PCIe (about 55 GB/s on the bundled profile:
 * communication-bound, the stream's backlog grows all through backward) and at 20000 on the
 * 8-rank NVLink all-reduce (compute-bound). Prints milliseconds, candidates per gradient and
 * whether the DP was exact; informational (no target). Usage: bench_plan_scale [N...] */
#include <stdlib.h>

#include "fu_common.h"
#include "fu_predict.h"
#include "fu_search.h"
#include "plan_util.h"

static int one(size_t n, const char *comm, const char *what, fu_profile *prof) {
  fu_workload w;
  pu_comm_bound_workload(&w, n, 2000);
  fu_comm c;
  fu_comm_parse(comm, &c);
  fu_plan p;
  fu_plan_init(&p);
  p.kind = FU_FUSION_OPTIMAL;
  fu_bucket *b = NULL;
  size_t nb = 0;
  fu_search_stats st;
  int rc = fu_search_optimal(&w, &p, &c, prof, &b, &nb, &st);
  if (rc == FU_OK)
    printf("  %6zu gradients %-20s %-14s %9.1f ms  %7.1f candidates per gradient  %zu buckets%s\n", n,
           comm, what, st.elapsed_ms, (double)st.candidates / (double)n, nb, st.exact ? "  exact" : "");
  free(b);
  fu_workload_finish(&w);
  return rc;
}

int main(int argc, char **argv) {
  fu_profile *prof = malloc(sizeof *prof);
  if (fu_profile_load_default(prof) != FU_OK || prof->ncurves == 0) pu_profile_pack(prof, 1.0);
  prof->comm_slowdown = prof->copy_slowdown = 1.0; /* the DP alone: nothing polished */
  printf("optimal search (DP) by size, profile %s\n", prof->name);
  int rc = 0;
  if (argc > 1) {
    for (int k = 1; k < argc; k++) rc |= one((size_t)atol(argv[k]), "offload", "comm-bound", prof);
  } else {
    rc |= one(4000, "offload", "comm-bound", prof);
    rc |= one(20000, "offload", "comm-bound", prof);
    rc |= one(20000, "allreduce:8:nvlink", "compute-bound", prof);
  }
  free(prof);
  return rc;
}
