/* fu_cost.c: what one bucket's communication costs (see fu_cost.h). The engine charges these
 * numbers and the plan search optimises over them, so both agree when nothing contends.
 *
 *  comm      fu_profile_time for the collective over c->ranks on c->link, or for offload a
 *            device-to-host copy ("d2h" on "pcie_d2h", one rank). lo/hi from the fit's CIs.
 *  pack      with pack=copy and more than one tensor: a batched copy kernel moving the bucket's
 *            bytes through HBM, timed by the profile's "d2d" curve on "hbm" (else hbm_gbps).
 *            All-gather packs only this rank's 1/p share.
 *  unpack    the same copy back out after the operation; reduce-scatter unpacks its 1/p share;
 *            offload has none (the host owns the fused buffer).
 *  issue     host thread: one op issue (profile issue_us) plus one kernel launch (launch_us) per
 *            pack and unpack kernel. The workload's own framework costs (hook_us, issue_us)
 *            are charged by the engine on top, not here.
 *
 * Copies are timed alone (events around one cudaMemcpyAsync), so a copy curve's time includes
 * the host's issue of that copy; back to back, the issue of the next copy overlaps the device
 * work of the one before. On the H200 here a lone 4 KiB D2H copy takes 3.65 us but 64 of them
 * back to back 136.0 us, 2.125 us each (= issue_us). So the device part of a copy (offload
 * D2H, and the HBM copy that times pack/unpack) is the curve's time less issue_us (not below 0),
 * and the issue is charged on the host thread. With it the reference rows come out:
 * 4 x 1 MiB separate D2H 2.125 + 4 x 20.40 = 83.7 us (measured 83.78), 64 x 4 KiB
 * 64 x 2.125 + 1.5 = 137.5 us (136.0). Collective curves (nccl-tests: the mean over
 * back-to-back iterations) already are device time per operation: nothing is subtracted. */
#include "fu_cost.h"

#include <math.h>
#include <string.h>

#include "fu_common.h"

/* The device part of a copy timed alone: the curve's time less the host's issue of it. */
static double fu__copy_device_us(const fu_profile *prof, double t_us) {
  double d = t_us - (prof->issue_us > 0 ? prof->issue_us : 0);
  return d > 0 ? d : 0;
}

/* Device time to copy `bytes` within device memory. */
static int fu__hbm_us(const fu_profile *prof, double bytes, double *out) {
  int rescaled = 0;
  const fu_curve *cv = fu_profile_find(prof, "d2d", "hbm", 1, &rescaled);
  if (cv) {
    *out = fu__copy_device_us(prof, fu_curve_time(cv, bytes, NULL, NULL));
    return FU_OK;
  }
  if (prof->hbm_gbps > 0.0) {
    *out = bytes / (prof->hbm_gbps * 1e3); /* GB/s = 1e3 bytes per microsecond */
    return FU_OK;
  }
  fu_error("profile %s: no \"d2d\" curve on \"hbm\" and no hbm_gbps: cannot cost pack/unpack",
           prof->name);
  return FU_EDATA;
}

static const char *fu__comm_op(fu_comm_kind k) {
  switch (k) {
  case FU_COMM_ALLREDUCE: return "allreduce";
  case FU_COMM_REDUCESCATTER: return "reducescatter";
  case FU_COMM_ALLGATHER: return "allgather";
  case FU_COMM_OFFLOAD: return "d2h";
  }
  return "?";
}

int fu_cost_bucket(const fu_profile *prof, const fu_comm *c, const fu_plan *p, uint64_t bytes,
                   size_t ntensors, fu_op_cost *out) {
  memset(out, 0, sizeof *out);
  if (!prof || !c || ntensors == 0) return FU_EINTERNAL;
  int offload = c->kind == FU_COMM_OFFLOAD;
  const char *op = fu__comm_op(c->kind);
  const char *link = offload ? "pcie_d2h" : c->link;
  int ranks = offload ? 1 : c->ranks;
  double t, lo, hi;
  FU_CHECK(fu_profile_time(prof, op, link, ranks, (double)bytes, &t, &lo, &hi));
  if (!isfinite(lo) || lo > t) lo = t;
  if (!isfinite(hi) || hi < t) hi = t;
  if (offload) { /* a copy: see the top of the file */
    t = fu__copy_device_us(prof, t);
    lo = fu__copy_device_us(prof, lo);
    hi = fu__copy_device_us(prof, hi);
  }
  out->comm_us = t;
  out->comm_lo_us = lo;
  out->comm_hi_us = hi;
  out->issue_us = prof->issue_us;
  if (p && !p->pack_view && ntensors > 1) {
    double n = (double)bytes, pr = ranks > 1 ? (double)ranks : 1.0;
    double pack_bytes = c->kind == FU_COMM_ALLGATHER ? n / pr : n;
    double unpack_bytes = c->kind == FU_COMM_REDUCESCATTER ? n / pr : n;
    FU_CHECK(fu__hbm_us(prof, pack_bytes, &out->pack_us));
    out->issue_us += prof->launch_us;
    if (!offload) {
      FU_CHECK(fu__hbm_us(prof, unpack_bytes, &out->unpack_us));
      out->issue_us += prof->launch_us;
    }
  }
  return FU_OK;
}
