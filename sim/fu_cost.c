/* fu_cost.c: what one bucket's communication costs (see fu_cost.h). The engine charges these
 * numbers and the plan search optimises over them, through the same prepared fu_cost_model.
 *
 *  comm      the collective's curve over c->ranks on c->link (carried from the nearest rank
 *            count by fu_segment_carry when the profile has no curve at that count, exactly as
 *            fu_profile_time does), or for offload a device-to-host copy ("d2h" on "pcie_d2h",
 *            one rank). lo/hi from the fit's CIs, a carried curve's widened to at least
 *            FU_COST_MODEL_BAND (fu_profile_time keeps the fit's).
 *  pack      with pack=copy and more than one tensor: the batched pack kernel gathering the
 *            bucket's tensors into the fusion buffer, timed by the profile's measured "pack"
 *            curve on "hbm" (fusim calib -s pack); a profile without one falls back to the
 *            device copy "d2d" on "hbm", then to bytes / hbm_gbps. All-gather packs only this
 *            rank's 1/p share.
 *  hand-off  a packed bucket's operation waits for the pack kernel: prof->pack_handoff_us (0
 *            when unknown), charged once per packed bucket on the operation's own executor (the
 *            D2H copy engine for offload, the stream for a collective), so that a second
 *            stream hides the pack kernel but not the hand-off (fu_predict.c). The validation
 *            run measured the executor's pack stage (event wait -> pack kernel -> dependent
 *            D2H copy) at about 14 us at 4 MiB where the pack kernel alone is 4-6 us, and with
 *            two streams about half of it stayed exposed.
 *  unpack    the same kernel scattering the result back out after the operation (its own curve
 *            time, no hand-off: it follows the collective on the same stream as any kernel
 *            does); reduce-scatter unpacks its 1/p share; offload has none (the host owns the
 *            fused buffer).
 *  issue     host thread: one op issue (profile issue_us) plus one kernel launch (launch_us) per
 *            pack and unpack kernel. The workload's own framework costs (hook_us, issue_us)
 *            are charged by the engine on top, not here.
 *
 * Curves timed alone contain the host's submission of what was timed: copies are timed as
 * event, cudaMemcpyAsync, event, and the pack kernel as event, launch, event (calib README). Back
 * to back, the next submission overlaps the device work of the one before. On the H200 here a
 * lone 4 KiB D2H copy takes 3.65 us but 64 of them back to back 136.0 us, 2.125 us each
 * (= issue_us). So the device part of a timed-alone operation is its curve's time less the host
 * cost of submitting it, not below 0: issue_us for copies (offload D2H, the d2d stand-in for the
 * pack) and launch_us for the pack kernel; the host thread pays those instead. With it the
 * reference rows come out: 4 x 1 MiB separate D2H 2.125 + 4 x 20.40 = 83.7 us (measured 83.78),
 * 64 x 4 KiB 64 x 2.125 + 1.5 = 137.5 us (136.0), and a pack + copy from an idle start costs
 * (issue + launch) + (pack - launch) + handoff + (copy - issue) = pack + copy + handoff, which is
 * how pack_handoff_us is defined (pack+copy - pack - copy). Collective curves (nccl-tests: the
 * mean over back-to-back iterations) already are device time per operation: nothing is taken
 * off.
 *
 * Peak bus bandwidth (bus_util's denominator, and the rate the engine's transfers run at): the
 * best bus bandwidth factor * n / t(n) that the operation's time as charged (above) reaches at
 * any size, and at least the curve's measured peak_busbw_gbps (when not rescaled). Within a
 * segment t = a + b n is linear, so n / t is monotone there and its supremum lies at the
 * segment's ends: its lower end, its upper end (approached from below), and, for the last
 * segment, factor / b as n grows without bound. Every operation's achieved bus bandwidth is
 * therefore at most the peak, and so is bus_util's ratio of sums. (A fit whose time stops
 * growing with size, b <= 0 in the last segment, or a charged time of 0, has no finite peak;
 * the peak then comes from the evaluated ends only and fu_predict.c clips bus_util at 1.) */
#include "fu_cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

/* Device part of a time measured with `host_us` of submission inside it. */
static inline double fu__less(double t, double host_us) {
  double d = t - host_us;
  return d > 0 ? d : 0;
}

/* A collective's time at `bytes` from its curve. The cost model's curve (algo "model") carries
 * NCCL's size steps (its tree correction and chunk ladders step at powers of two): there a size
 * just below a step can price above the step's own size, but a message can always be padded up,
 * so it costs the least of its own time and every larger segment start's (63 MiB over 2x8 cost
 * 963 us, 64 MiB 767); its interval is the model's own error at that size where the fit recorded
 * it (cl's err, fu_collerr.h), at least FU_COST_MODEL_BAND. A fitted curve is priced as it was
 * fitted. */
static double fu__comm_time(const fu_cluster *cl, const fu_curve *cv, double bytes, double *lo_us, double *hi_us,
                            double *priced_at) {
  double t = fu_curve_time(cv, bytes, lo_us, hi_us);
  if (priced_at) *priced_at = bytes;
  if (strcmp(cv->algo, "model") != 0) return t;
  for (int j = 0; j < cv->nseg; j++) {
    double x = cv->seg[j].lo_bytes, lo, hi;
    if (!(x > bytes)) continue;
    double tj = fu_curve_time(cv, x, &lo, &hi);
    if (tj < t) {
      t = tj;
      if (lo_us) *lo_us = lo;
      if (hi_us) *hi_us = hi;
      if (priced_at) *priced_at = x;
    }
  }
  double lo, hi;
  fu_collerr_interval(&cl->err[cv->nodes > 1 ? FU_COLLERR_NODES : FU_COLLERR_ONE_NODE], bytes, t,
                      FU_COST_MODEL_BAND, &lo, &hi);
  if (lo_us) *lo_us = lo;
  if (hi_us) *hi_us = hi;
  return t;
}

/* Device time of the pack (or unpack) kernel over `bytes`. */
static double fu__pack_time(const fu_cost_model *m, double bytes) {
  if (m->pack_src == FU_PACK_HBM_GBPS) return bytes / (m->hbm_gbps * 1e3); /* 1e3 B/us per GB/s */
  return fu__less(fu_curve_time(m->pack, bytes, NULL, NULL), m->pack_host_us);
}

/* Bus bandwidth (GB/s) of the charged comm time of segment s at bytes (on its line). */
static double fu__seg_busbw(const fu_cost_model *m, const fu_segment *s, double bytes) {
  if (!(bytes > 0) || !isfinite(bytes)) return 0;
  double x = s->alpha_us < 0 && bytes < s->lo_bytes ? s->lo_bytes : bytes;
  double t = fu__less(s->alpha_us + s->beta_us_per_byte * x, m->comm_host_us);
  return t > 0 ? m->busbw_factor * bytes / t / 1e3 : 0;
}

static void fu__peak(fu_cost_model *m, double measured_gbps) {
  double peak = !m->comm_rescaled && measured_gbps > 0 && isfinite(measured_gbps) ? measured_gbps : 0;
  for (int i = 0; i < m->comm.nseg; i++) {
    const fu_segment *s = &m->comm.seg[i];
    double v[3] = {fu__seg_busbw(m, s, s->lo_bytes), 0, 0};
    if (i + 1 < m->comm.nseg || isfinite(s->hi_bytes)) v[1] = fu__seg_busbw(m, s, s->hi_bytes);
    if (i + 1 == m->comm.nseg && s->beta_us_per_byte > 0)
      v[2] = m->busbw_factor / s->beta_us_per_byte / 1e3;
    for (int k = 0; k < 3; k++)
      if (isfinite(v[k]) && v[k] > peak) peak = v[k];
  }
  m->peak_gbps = peak;
}

/* A curve's last segment runs to any size, so it must grow with size: one with beta <= 0 (a fit
 * to latency-bound sizes only) priced a 100 MiB operation at 0 us and called it 100% of the
 * bus. */
static int fu__open_ended(const fu_profile *prof, const fu_curve *cv) {
  const fu_segment *s = &cv->seg[cv->nseg - 1];
  if (s->beta_us_per_byte > 0) return FU_OK;
  fu_error("profile %s: the %s curve over %s (%d ranks) ends in a segment with no bandwidth term "
           "(beta %.3g us/B from %.0f bytes), so it cannot price larger operations; fit it with "
           "samples at larger sizes",
           prof->name[0] ? prof->name : "(unnamed)", cv->op, cv->link, cv->ranks,
           s->beta_us_per_byte, s->lo_bytes);
  return FU_EDATA;
}

int fu_cost_model_init(fu_cost_model *m, const fu_profile *prof, const fu_comm *c,
                       const fu_plan *p) {
  memset(m, 0, sizeof *m);
  if (!prof || !c) return FU_EINTERNAL;
  m->prof = prof;
  m->offload = c->kind == FU_COMM_OFFLOAD;
  const char *op = fu_op_name(fu_comm_op(c));
  const char *link = m->offload ? "pcie_d2h" : fu_link_name(c->link);
  int ranks = m->offload ? 1 : c->ranks;
  double host = prof->issue_us > 0 ? prof->issue_us : 0;
  double launch = prof->launch_us > 0 ? prof->launch_us : 0;
  /* Measured at these ranks and nodes, else the cost model (fu_coll.h), else rescaled. */
  fu_cost_basis basis;
  FU_CHECK(fu_cost_comm_curve(prof, op, link, ranks, m->offload || c->nodes < 1 ? 1 : c->nodes, &m->comm, &basis));
  FU_CHECK(fu__open_ended(prof, &m->comm));
  m->comm_rescaled = basis != FU_BASIS_MEASURED;
  m->comm_basis = basis;
  const fu_curve *cv = &m->comm;
  m->comm_host_us = m->offload ? host : 0;
  /* DDP's Reducer all-reduces each bucket in place, and NCCL over one rank in place moves
   * nothing (nccl-tests on one H200: 0.3-0.8 us at every size from 8 B to 512 MiB, against the
   * out-of-place copy a profile's one-rank curve holds, 256 us at 512 MiB;
   * ../shared/data/reference/h200-1gpu-allreduce-nccl-tests.txt): no device time. The call's
   * host cost is the framework's (host.ddp.bucket_us). */
  m->moves_nothing = p && p->framework == FU_FRAMEWORK_DDP && !m->offload && ranks == 1 &&
                     fu_comm_op(c) == FU_OP_ALLREDUCE;
  m->busbw_factor = 1.0;
  if (!m->offload) m->busbw_factor = fu_busbw_factor(fu_comm_op(c), ranks);
  fu__peak(m, cv->peak_busbw_gbps);
  m->issue_us = prof->issue_us;
  m->launch_us = prof->launch_us;
  m->handoff_us = isfinite(prof->pack_handoff_us) && prof->pack_handoff_us > 0 ? prof->pack_handoff_us : 0;
  double pr = ranks > 1 ? (double)ranks : 1.0;
  m->pack_div = c->kind == FU_COMM_ALLGATHER ? pr : 1.0;
  m->unpack_div = m->offload ? 0.0 : c->kind == FU_COMM_REDUCESCATTER ? pr : 1.0;
  /* fusion none puts one tensor in each bucket: nothing is ever packed, so a profile without a
   * pack curve (one fitted from collective logs alone) still prices it */
  m->packs = p && !p->pack_view && p->kind != FU_FUSION_NONE;
  if (!m->packs) return FU_OK;
  if ((m->pack = fu_profile_find(prof, "pack", "hbm", 1, NULL)) && m->pack->nseg >= 1) {
    FU_CHECK(fu__open_ended(prof, m->pack));
    m->pack_src = FU_PACK_CURVE;
    m->pack_host_us = launch;
  } else if ((m->pack = fu_profile_find(prof, "d2d", "hbm", 1, NULL)) && m->pack->nseg >= 1) {
    FU_CHECK(fu__open_ended(prof, m->pack));
    m->pack_src = FU_PACK_D2D;
    m->pack_host_us = host;
  } else if (prof->hbm_gbps > 0 && isfinite(prof->hbm_gbps)) {
    m->pack = NULL;
    m->pack_src = FU_PACK_HBM_GBPS;
    m->hbm_gbps = prof->hbm_gbps;
  } else {
    fu_error("profile %s: no \"pack\" or \"d2d\" curve on \"hbm\" and no hbm_gbps: cannot cost "
             "pack/unpack",
             prof->name);
    return FU_EDATA;
  }
  return FU_OK;
}

int fu_cost_model_bucket(const fu_cost_model *m, uint64_t bytes, size_t ntensors,
                         fu_op_cost *out) {
  if (ntensors == 0) {
    memset(out, 0, sizeof *out);
    return FU_EINTERNAL;
  }
  double n = (double)bytes, lo, hi;
  double t = fu__comm_time(&m->prof->cluster, &m->comm, n, &lo, &hi, NULL);
  if (!isfinite(lo) || lo > t) lo = t;
  if (!isfinite(hi) || hi < t) hi = t;
  if (m->moves_nothing) t = lo = hi = 0;
  out->comm_us = fu__less(t, m->comm_host_us);
  out->comm_lo_us = fu__less(lo, m->comm_host_us);
  out->comm_hi_us = fu__less(hi, m->comm_host_us);
  out->issue_us = m->issue_us;
  out->pack_us = out->handoff_us = out->unpack_us = 0;
  if (m->packs && ntensors > 1) {
    out->pack_us = fu__pack_time(m, n / m->pack_div);
    out->handoff_us = m->handoff_us;
    out->issue_us += m->launch_us;
    if (m->unpack_div > 0) {
      out->unpack_us = fu__pack_time(m, n / m->unpack_div);
      out->issue_us += m->launch_us;
    }
  }
  return FU_OK;
}

int fu_cost_bucket(const fu_profile *prof, const fu_comm *c, const fu_plan *p, uint64_t bytes,
                   size_t ntensors, fu_op_cost *out) {
  fu_cost_model m;
  memset(out, 0, sizeof *out);
  if (!prof || !c || ntensors == 0) return FU_EINTERNAL;
  FU_CHECK(fu_cost_model_init(&m, prof, c, p));
  return fu_cost_model_bucket(&m, bytes, ntensors, out);
}

/* ---- one collective at any rank and node count ---- */

const char *fu_cost_basis_name(fu_cost_basis b) {
  return b == FU_BASIS_MEASURED ? "measured" : b == FU_BASIS_INTERPOLATED ? "interpolated" : "predicted";
}

/* The plain curve of op at exactly (ranks, nodes); link must match on one node when given
 * (between nodes the network carries it, whatever the intra-node link). */
static const fu_curve *fu__exact(const fu_profile *prof, const char *op, const char *link, int ranks,
                                 int nodes) {
  const fu_curve *best = NULL;
  for (int i = 0; i < prof->ncurves; i++) {
    const fu_curve *c = &prof->curves[i];
    int cn = c->nodes > 0 ? c->nodes : 1;
    if (strcmp(c->op, op) != 0 || c->ranks != ranks || cn != nodes || !fu_curve_is_plain(c) || c->nseg < 1)
      continue;
    if (nodes == 1 && link && *link && strcmp(c->link, link) != 0) continue;
    if (!best || (!c->algo[0] && best->algo[0])) best = c; /* NCCL's own choice first */
  }
  return best;
}

/* Appends to out the lower envelope over [x0, x1) of n straight lines (alpha a, slope b),
 * merging a first piece that continues out's last segment. O(n^2). */
static void fu__envelope_range(const double *a, const double *b, int n, double x0, double x1, fu_curve *out) {
  int cur = 0;
  for (int i = 1; i < n; i++)
    if (a[i] + b[i] * x0 < a[cur] + b[cur] * x0 || (a[i] + b[i] * x0 == a[cur] + b[cur] * x0 && b[i] < b[cur])) cur = i;
  double x = x0;
  while (x < x1 && out->nseg < FU_MAX_SEGMENTS) {
    int next = -1;
    double xc = x1;
    for (int j = 0; j < n; j++) {
      if (!(b[j] < b[cur])) continue;
      double c = (a[j] - a[cur]) / (b[cur] - b[j]);
      if (c > x && c < xc) {
        xc = c;
        next = j;
      }
    }
    fu_segment *last = out->nseg ? &out->seg[out->nseg - 1] : NULL;
    if (last && last->alpha_us == a[cur] && last->beta_us_per_byte == b[cur]) {
      last->hi_bytes = xc;
    } else {
      fu_segment *s = &out->seg[out->nseg++];
      memset(s, 0, sizeof *s);
      s->lo_bytes = x;
      s->hi_bytes = xc;
      s->alpha_us = a[cur];
      s->beta_us_per_byte = b[cur];
      s->alpha_ci[0] = s->alpha_us / (1 + FU_COST_MODEL_BAND);
      s->alpha_ci[1] = s->alpha_us * (1 + FU_COST_MODEL_BAND);
      s->beta_ci[0] = s->beta_us_per_byte / (1 + FU_COST_MODEL_BAND);
      s->beta_ci[1] = s->beta_us_per_byte * (1 + FU_COST_MODEL_BAND);
      s->max_rel_err = NAN;
    }
    if (next < 0) break;
    cur = next;
    x = xc;
  }
}

static int fu__cmp_double(const void *x, const void *y) {
  double u = *(const double *)x, v = *(const double *)y;
  return u < v ? -1 : u > v;
}

/* The lower envelope of the model's lines as curve segments over [1 byte, inf): piecewise, as a
 * tree line's slope changes at each power of two where NCCL's tree correction does
 * (fu_coll_tree_corr) and at the sizes where its chunk ladder does (fu_coll_chunk_slow); inside
 * each such range every line is straight, and where NCCL's choice of the lines changes inside it
 * (fu_coll_nccl_choice_breaks) each piece is enveloped over its own lines. O(L^2) a range. */
static int fu__envelope(const fu_cluster *cl, fu_op o, int ranks, int nodes, fu_curve *out) {
  fu_coll_line l[FU_COLL_MAX_LINES];
  int n;
  /* the chunk ladders of every line the model has (NCCL's choice keeps some of their rungs) */
  FU_CHECK(fu_coll_lines_all(cl, o, ranks, nodes, l, &n));
  double a[FU_COLL_MAX_LINES], b[FU_COLL_MAX_LINES];
  double br[FU_COLL_TREE_CORR_N + 4 * FU_COLL_MAX_LINES + 1];
  int nb = 0;
  for (int k = 1; k <= FU_COLL_TREE_CORR_N; k++) br[nb++] = 64.0 * ldexp(1, k);
  for (int i = 0; i < n; i++) nb += fu_coll_chunk_breaks(&l[i], br + nb);
  qsort(br, nb, sizeof br[0], fu__cmp_double);
  br[nb++] = INFINITY;
  /* NCCL's choice of algorithm may change inside a range (fu_coll_lines) */
  int choice = o == FU_OP_ALLREDUCE && cl->job_nccl_version >= FU_COLL_NCCL_NVLS_CHUNK;
  out->nseg = 0;
  double x0 = 1;
  for (int k = 0; k < nb; k++) {
    double x1 = br[k], sub[32];
    if (!(x1 > x0)) continue;
    int ns = choice ? fu_coll_nccl_choice_breaks(cl, ranks, nodes, x0, x1, sub, 31) : 0;
    sub[ns++] = x1;
    for (int j = 0; j < ns; j++) {
      double y0 = j ? sub[j - 1] : x0, y1 = sub[j];
      if (!(y1 > y0)) continue;
      FU_CHECK(fu_coll_lines(cl, o, ranks, nodes, isfinite(y1) ? y0 + (y1 - y0) / 2 : 2 * y0, l, &n));
      for (int i = 0; i < n; i++) {
        a[i] = l[i].alpha_us;
        b[i] = l[i].beta_us_per_byte * fu_coll_chunk_slow(&l[i], y0) / fu_coll_tree_corr(l[i].algorithm, l[i].proto, y0);
      }
      fu__envelope_range(a, b, n, y0, y1, out);
    }
    x0 = x1;
  }
  if (out->nseg >= FU_MAX_SEGMENTS && out->seg[out->nseg - 1].hi_bytes < INFINITY) {
    fu_error("cost model: the envelope of %d lines needs more than %d segments", n, FU_MAX_SEGMENTS);
    return FU_EINTERNAL;
  }
  out->seg[out->nseg - 1].hi_bytes = INFINITY;
  return FU_OK;
}

/* Interpolated when the profile measured the op at fewer and at more ranks than asked on as many
 * nodes (one node's curves say nothing measured of 2x4: it was called interpolated). */
static fu_cost_basis fu__model_basis(const fu_profile *prof, const char *op, int ranks, int nodes) {
  int below = 0, above = 0;
  for (int i = 0; i < prof->ncurves; i++) {
    const fu_curve *c = &prof->curves[i];
    if (strcmp(c->op, op) != 0 || !fu_curve_is_plain(c) || (c->nodes > 0 ? c->nodes : 1) != nodes) continue;
    below |= c->ranks < ranks;
    above |= c->ranks > ranks;
  }
  return below && above ? FU_BASIS_INTERPOLATED : FU_BASIS_PREDICTED;
}

/* Whether the profile's cost model (fu_coll.h: its machine's link inside a node, the network
 * between nodes) prices a job over link: not one rank (it crosses no link: the one-rank curve,
 * or a curve carried down to it), nor a link inside a node other than the machine's ("net"
 * across nodes names the network alone). */
static int fu__model_prices(const fu_profile *prof, const char *link, int ranks, int nodes) {
  const char *own = prof->cluster.intra_link;
  if (ranks == 1) return 0;
  if (!link || !*link || !own[0] || (nodes > 1 && strcmp(link, "net") == 0)) return 1;
  return strcmp(link, own) == 0;
}

int fu_cost_comm_curve(const fu_profile *prof, const char *op, const char *link, int ranks,
                       int nodes, fu_curve *out, fu_cost_basis *basis) {
  fu_op o;
  if (!prof || !op || fu_op_parse(op, &o) != FU_OK || ranks < 1 || nodes < 1) return FU_EINTERNAL;
  const char *on = fu_op_name(o);
  const fu_curve *c = fu__exact(prof, on, ranks == 1 ? NULL : link, ranks, nodes);
  /* a curve measured across nodes at another process layout than the job's (fu_coll.h: each
   * Simple call pays the layout's cost) is not this job's: the cost model prices it at the job's
   * layout where it can; a curve whose layout is unknown stands for any */
  int q = prof->cluster.job_gpus_per_proc > 1 ? prof->cluster.job_gpus_per_proc : 1;
  if (c && nodes > 1 && c->gpus_per_proc > 0 && c->gpus_per_proc != q && fu_coll_nvls_slot(o) >= 0 &&
      fu_cluster_usable(&prof->cluster, nodes))
    c = NULL;
  if (c) {
    *out = *c;
    *basis = FU_BASIS_MEASURED;
    return FU_OK;
  }
  /* One rank: NCCL runs an all-gather or reduce-scatter as it runs an all-reduce, one local copy
   * of the same bytes (ncclLaunchOneRank); priced by the one-rank all-reduce curve. */
  const fu_curve *one = ranks == 1 && (o == FU_OP_ALLGATHER || o == FU_OP_REDUCESCATTER)
                            ? fu__exact(prof, "allreduce", NULL, 1, nodes) : NULL;
  if (one) {
    *out = *one;
    snprintf(out->op, sizeof out->op, "%s", on);
    snprintf(out->source, sizeof out->source, "the one-rank allreduce curve (one local copy)");
    *basis = FU_BASIS_PREDICTED;
    return FU_OK;
  }
  int model = fu_coll_nvls_slot(o) >= 0 && fu_cluster_usable(&prof->cluster, nodes);
  if (model && !fu__model_prices(prof, link, ranks, nodes)) {
    model = 0;
    if (nodes > 1) {
      fu_error("profile %s: its cost model is of nodes whose GPUs are linked by %s, not %s: no %s "
               "curve at %d ranks on %d nodes over %s; fit a profile on that machine's logs",
               prof->name[0] ? prof->name : "(unnamed)", prof->cluster.intra_link, link, on, ranks, nodes, link);
      return FU_EDATA;
    }
  }
  if (model) {
    memset(out, 0, sizeof *out);
    snprintf(out->op, sizeof out->op, "%s", on);
    snprintf(out->link, sizeof out->link, "%s", nodes > 1 ? "net" : link && *link ? link : prof->cluster.intra_link);
    out->ranks = ranks;
    out->nodes = nodes;
    snprintf(out->algo, sizeof out->algo, "model");
    snprintf(out->source, sizeof out->source, "cost model (fu_coll.h) of profile %s", prof->name);
    out->peak_busbw_gbps = NAN;
    FU_CHECK(fu__envelope(&prof->cluster, o, ranks, nodes, out));
    *basis = fu__model_basis(prof, on, ranks, nodes);
    return FU_OK;
  }
  if (nodes > 1) {
    fu_error("profile %s: no %s curve at %d ranks on %d nodes and no network parameters to "
             "predict one; fit it on multi-node logs, give fit --base a profile that has them, or "
             "for a what-if take the bundled --profile h200-ndr (links borrowed from a DGX H100 pair)",
             prof->name[0] ? prof->name : "(unnamed)", on, ranks, nodes);
    return FU_EDATA;
  }
  /* No link parameters: the nearest rank count, rescaled by step counts (as before). */
  int rescaled = 0;
  c = fu_profile_find(prof, on, link, ranks, &rescaled);
  if (!c || c->nseg < 1) {
    double t;
    int st = fu_profile_time(prof, on, link, ranks, 1.0, &t, NULL, NULL); /* prints why */
    return st != FU_OK ? st : FU_EDATA;
  }
  *out = *c;
  *basis = rescaled ? FU_BASIS_PREDICTED : FU_BASIS_MEASURED;
  if (rescaled) {
    fu_algo a;
    if (fu_algo_parse(c->algo, &a) != FU_OK) return FU_EINTERNAL;
    fu_algo carried = a;
    for (int i = 0; i < out->nseg; i++) {
      fu_segment *s = &out->seg[i];
      carried = fu_segment_carry(s, o, a, c->ranks, ranks, c->gpu[0] ? c->gpu : prof->gpu);
      /* a carried line is a model's price, not a fit of these ranks: its interval at least the
       * model's band (the fit's CIs say nothing of the carrying) */
      s->alpha_ci[0] = fmin(s->alpha_ci[0], s->alpha_us / (1 + FU_COST_MODEL_BAND));
      s->alpha_ci[1] = fmax(s->alpha_ci[1], s->alpha_us * (1 + FU_COST_MODEL_BAND));
      s->beta_ci[0] = fmin(s->beta_ci[0], s->beta_us_per_byte / (1 + FU_COST_MODEL_BAND));
      s->beta_ci[1] = fmax(s->beta_ci[1], s->beta_us_per_byte * (1 + FU_COST_MODEL_BAND));
    }
    if (carried != a) snprintf(out->algo, sizeof out->algo, "%s", fu_algo_name(carried)); /* NVLS to 2: ring */
    out->ranks = ranks;
    out->max_bytes = 0; /* carried lines, not measured sizes */
  }
  return FU_OK;
}

int fu_cost_comm(const fu_profile *prof, const char *op, const char *link, int ranks, int nodes,
                 double bytes, fu_comm_price *out) {
  memset(out, 0, sizeof *out);
  fu_curve cv;
  fu_op o;
  FU_CHECK(fu_cost_comm_curve(prof, op, link, ranks, nodes, &cv, &out->basis));
  if (fu_op_parse(op, &o) != FU_OK) return FU_EINTERNAL;
  FU_CHECK(fu__open_ended(prof, &cv));
  double at; /* the size whose line prices it (a larger one where padding costs less) */
  out->t_us = fu__comm_time(&prof->cluster, &cv, bytes, &out->lo_us, &out->hi_us, &at);
  out->extrapolated = fu_curve_extrapolated(&cv, bytes);
  if (fu_curve_below_measured(&cv, bytes)) out->below_bytes = cv.seg[0].first_bytes;
  int k = cv.nseg > 0 ? fu_curve_segment(&cv, at) : -1;
  out->over_link_limit = k >= 0 && (cv.seg[k].flags & FU_SEG_OVER_LIMIT);
  double f = fu_busbw_factor(o, ranks);
  out->busbw_gbps = out->t_us > 0 ? (f > 0 ? f : 1.0) * bytes / out->t_us / 1e3 : 0;
  out->interval = out->basis == FU_BASIS_MEASURED ? "fit" : "carried";
  if (strcmp(cv.algo, "model") == 0) {
    double t;
    FU_CHECK(fu_coll_time(&prof->cluster, o, ranks, nodes, at, &t, out->algo, sizeof out->algo));
    const fu_collerr *e = &prof->cluster.err[nodes > 1 ? FU_COLLERR_NODES : FU_COLLERR_ONE_NODE];
    out->interval = e->borrowed ? "borrowed" : fu_collerr_recorded(e, bytes) ? "model_error" : "band";
  } else {
    snprintf(out->algo, sizeof out->algo, "%s", cv.algo[0] ? cv.algo : "nccl");
  }
  return FU_OK;
}
