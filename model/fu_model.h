/* fu_model.h: link classes, operations, the Hockney (alpha-beta) cost and collective step counts.
 *
 * A measured time t(n) for a collective over p ranks is modelled per size segment as
 *   t(n) = alpha + beta * n
 * and, to carry a fit at p0 over to another p, as alpha = steps(p) * alpha_step and
 * beta = wire_factor(p) * beta_link, where steps and wire_factor come from the algorithm
 * (ring all-reduce: 2(p-1) steps each moving n/p bytes, so wire_factor = 2(p-1)/p, which is
 * also nccl-tests' busbw factor). */
#ifndef FU_MODEL_H
#define FU_MODEL_H

#include <stdint.h>

#define FU_LINK_MAP(X)       \
  X(NVLINK, "nvlink")        \
  X(PCIE_H2D, "pcie_h2d")    \
  X(PCIE_D2H, "pcie_d2h")    \
  X(PCIE_BIDIR, "pcie_bidir")\
  X(HBM, "hbm")              \
  X(NET, "net")              \
  X(LAUNCH, "launch")        \
  X(PCIE, "pcie")

typedef enum fu_link {
#define FU__L(name, str) FU_LINK_##name,
  FU_LINK_MAP(FU__L)
#undef FU__L
  FU_LINK_COUNT
} fu_link;

/* Operations: NCCL collectives, copies and launches. Names are the CSV/database spellings. */
#define FU_OP_MAP(X)                        \
  X(ALLREDUCE, "allreduce")                 \
  X(ALLGATHER, "allgather")                 \
  X(REDUCESCATTER, "reducescatter")         \
  X(BROADCAST, "broadcast")                 \
  X(REDUCE, "reduce")                       \
  X(ALLTOALL, "alltoall")                   \
  X(SENDRECV, "sendrecv")                   \
  X(H2D, "h2d")                             \
  X(D2H, "d2h")                             \
  X(D2D, "d2d")                             \
  X(BIDIR, "bidir")                         \
  X(PACK, "pack")                           \
  X(LAUNCH, "launch")                       \
  X(ISSUE, "issue")                         \
  X(GEMM, "gemm")

typedef enum fu_op {
#define FU__O(name, str) FU_OP_##name,
  FU_OP_MAP(FU__O)
#undef FU__O
  FU_OP_COUNT
} fu_op;

typedef enum fu_algo { FU_ALGO_RING, FU_ALGO_TREE, FU_ALGO_NVLS } fu_algo;

/* "ring" (also "" and NULL: NCCL's own choice is modelled as ring), "tree", "nvls". */
int fu_algo_parse(const char *s, fu_algo *out);
const char *fu_algo_name(fu_algo a);

const char *fu_link_name(fu_link l);
int fu_link_parse(const char *s, fu_link *out);   /* FU_EDATA if unknown */
const char *fu_op_name(fu_op o);
/* Accepts "allreduce", "all_reduce", "all_reduce_perf", "AllReduce" and the like. */
int fu_op_parse(const char *s, fu_op *out);
int fu_op_is_collective(fu_op o);

/* nccl-tests' bus-bandwidth factor: busbw = algbw * factor (all-reduce 2(p-1)/p, all-gather,
 * reduce-scatter and all-to-all (p-1)/p, the rest 1). */
double fu_busbw_factor(fu_op o, int p);

/* Latency steps of one call over p ranks under an algorithm (ring all-reduce 2(p-1), tree
 * all-reduce 2*ceil(log2 p), ring all-gather p-1, ...). At least 1, so that p = 1 keeps the
 * call's fixed cost. */
double fu_coll_steps(fu_op o, fu_algo a, int p);

/* Physical limit of one GPU's bus bandwidth over a link class, GB/s one direction, for the
 * GPU model named (substring match: A100 NVLink3 300, H100/H200 NVLink4 450, B200 NVLink5 900;
 * PCIe by generation: Gen3 16, Gen4 32, Gen5 64), else the largest of the class. An NVLS
 * all-reduce over more than 2 ranks may reach twice the link (the switch reduces), so callers
 * double it there. The network ("net"): 100 GB/s, one 800 Gb/s NIC for each GPU (ConnectX-8,
 * as HGX B300 and GB300 NVL72 ship; the fastest NIC a GPU has), for every GPU model; a
 * collective's bus bandwidth across nodes also depends on the host shape (fu_fitgroup_flag).
 * 0 when the class has no meaningful bound (launch). */
double fu_link_limit_gbps(fu_link l, const char *gpu);

typedef struct fu_hockney {
  double alpha_us;           /* fixed cost per operation, microseconds */
  double beta_us_per_byte;   /* inverse bandwidth, microseconds per byte */
} fu_hockney;

static inline double fu_hockney_time(fu_hockney h, double bytes) {
  return h.alpha_us + h.beta_us_per_byte * bytes;
}

/* Carry a segment fitted at p_from to p_to by step counts and wire factors (see above). */
fu_hockney fu_coll_rescale(fu_hockney h, fu_op o, fu_algo a, int p_from, int p_to);

#endif
