/* fu_cost.h: what one bucket's communication costs, exactly as the engine charges it. The plan
 * search (optimal, MG-WFBP) uses the same numbers, so its result is exact for the simulator
 * when nothing contends. */
#ifndef FU_COST_H
#define FU_COST_H

#include <stddef.h>
#include <stdint.h>

#include "fu_profile.h"
#include "fu_sim.h"

typedef struct fu_op_cost {
  double issue_us;           /* host-thread time to issue the bucket (pack launch + op issue) */
  double pack_us;            /* pack kernel before the operation (0 for view or one tensor) */
  double comm_us;            /* the communication operation itself */
  double comm_lo_us;         /* its 95% lower bound (from the fit's CIs) */
  double comm_hi_us;         /* its 95% upper bound */
  double unpack_us;          /* unpack after (all-reduce; 0 for view, one tensor or offload) */
} fu_op_cost;

/* Cost of communicating `ntensors` gradients totalling `bytes` as one operation. */
int fu_cost_bucket(const fu_profile *prof, const fu_comm *c, const fu_plan *p, uint64_t bytes,
                   size_t ntensors, fu_op_cost *out);

/* Device-side duration of the bucket on its stream: pack + comm + unpack. */
static inline double fu_cost_device_us(const fu_op_cost *c) {
  return c->pack_us + c->comm_us + c->unpack_us;
}

#endif
