/* fu_model.c: names of links and operations, nccl-tests bus-bandwidth factors, step counts of
 * the collective algorithms and the rescaling of a Hockney segment from one rank count to
 * another. Everything here is O(1) and allocation-free. */
#include "fu_model.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "fu_common.h"

static const char *const fu__link_names[] = {
#define FU__L(name, str) str,
    FU_LINK_MAP(FU__L)
#undef FU__L
};

static const char *const fu__op_names[] = {
#define FU__O(name, str) str,
    FU_OP_MAP(FU__O)
#undef FU__O
};

const char *fu_link_name(fu_link l) {
  if ((int)l < 0 || l >= FU_LINK_COUNT) return "?";
  return fu__link_names[l];
}

const char *fu_op_name(fu_op o) {
  if ((int)o < 0 || o >= FU_OP_COUNT) return "?";
  return fu__op_names[o];
}

/* Lower-case s into buf without '_', '-' and blanks ("All_Reduce" -> "allreduce"); drops a
 * trailing "perf" (nccl-tests binary names). 0 if s does not fit. */
static int fu__normalise(const char *s, char *buf, size_t len) {
  size_t n = 0;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '_' || c == '-' || isspace(c)) continue;
    if (n + 1 >= len) return 0;
    buf[n++] = (char)tolower(c);
  }
  buf[n] = '\0';
  if (n > 4 && strcmp(buf + n - 4, "perf") == 0) buf[n - 4] = '\0';
  return buf[0] != '\0';
}

int fu_link_parse(const char *s, fu_link *out) {
  if (!s) return FU_EDATA;
  for (int i = 0; i < FU_LINK_COUNT; i++)
    if (strcasecmp(s, fu__link_names[i]) == 0) {
      *out = (fu_link)i;
      return FU_OK;
    }
  /* A few common spellings: "NVLink", "pcie-h2d", "h2d", "device". */
  char buf[32];
  if (!fu__normalise(s, buf, sizeof buf)) return FU_EDATA;
  static const struct {
    const char *alias; /* normalised spelling */
    fu_link link;      /* link it names */
  } aliases[] = {{"nvlink", FU_LINK_NVLINK},     {"nvswitch", FU_LINK_NVLINK},
                 {"nvls", FU_LINK_NVLINK},       {"pcieh2d", FU_LINK_PCIE_H2D},
                 {"h2d", FU_LINK_PCIE_H2D},      {"pcied2h", FU_LINK_PCIE_D2H},
                 {"d2h", FU_LINK_PCIE_D2H},      {"pciebidir", FU_LINK_PCIE_BIDIR},
                 {"bidir", FU_LINK_PCIE_BIDIR},  {"hbm", FU_LINK_HBM},
                 {"d2d", FU_LINK_HBM},           {"device", FU_LINK_HBM},
                 {"net", FU_LINK_NET},           {"network", FU_LINK_NET},
                 {"ib", FU_LINK_NET},            {"infiniband", FU_LINK_NET},
                 {"ethernet", FU_LINK_NET},      {"roce", FU_LINK_NET},
                 {"launch", FU_LINK_LAUNCH},     {"pcie", FU_LINK_PCIE}};
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(buf, aliases[i].alias) == 0) {
      *out = aliases[i].link;
      return FU_OK;
    }
  return FU_EDATA;
}

int fu_op_parse(const char *s, fu_op *out) {
  char buf[40];
  if (!s || !fu__normalise(s, buf, sizeof buf)) return FU_EDATA;
  for (int i = 0; i < FU_OP_COUNT; i++)
    if (strcmp(buf, fu__op_names[i]) == 0) {
      *out = (fu_op)i;
      return FU_OK;
    }
  static const struct {
    const char *alias; /* normalised spelling */
    fu_op op;          /* operation it names */
  } aliases[] = {{"ar", FU_OP_ALLREDUCE},         {"ag", FU_OP_ALLGATHER},
                 {"rs", FU_OP_REDUCESCATTER},     {"a2a", FU_OP_ALLTOALL},
                 {"bcast", FU_OP_BROADCAST},      {"p2p", FU_OP_SENDRECV},
                 {"memcpyh2d", FU_OP_H2D},        {"memcpyd2h", FU_OP_D2H},
                 {"memcpyd2d", FU_OP_D2D},        {"copy", FU_OP_D2D},
                 {"kernellaunch", FU_OP_LAUNCH},  {"launchempty", FU_OP_LAUNCH}};
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(buf, aliases[i].alias) == 0) {
      *out = aliases[i].op;
      return FU_OK;
    }
  return FU_EDATA;
}

int fu_op_is_collective(fu_op o) { return o <= FU_OP_SENDRECV; }

double fu_busbw_factor(fu_op o, int p) {
  if (p < 1) return NAN;
  switch (o) {
    case FU_OP_ALLREDUCE:
      return 2.0 * (p - 1) / p;
    case FU_OP_ALLGATHER:
    case FU_OP_REDUCESCATTER:
    case FU_OP_ALLTOALL:
      return (double)(p - 1) / p;
    default:
      return 1.0;
  }
}

/* ceil(log2 p) for p >= 1. */
static double fu__clog2(int p) {
  int k = 0;
  while ((1L << k) < p) k++;
  return k;
}

/* Latency steps per call. Ring: the chain of p-1 hops (twice for all-reduce, reduce-scatter
 * then all-gather). Tree (NCCL's double binary tree): up and down a tree of depth ceil(log2 p)
 * for all-reduce, one pass for broadcast and reduce; NCCL has no tree all-gather or
 * reduce-scatter, so those fall back to ring counts. NVLS (NVSwitch multicast): the switch
 * does the reduction, so a call is a constant number of steps (2 for all-reduce: a multimem
 * load-reduce and a multimem store; 1 otherwise) whatever p. All-to-all sends to p-1 peers,
 * send/recv is one hop. Never below 1, so p = 1 keeps the fixed cost of the call. */
double fu_coll_steps(fu_op o, fu_algo a, int p) {
  if (p < 1) return NAN;
  double s;
  switch (o) {
    case FU_OP_ALLREDUCE:
      s = a == FU_ALGO_TREE ? 2.0 * fu__clog2(p) : a == FU_ALGO_NVLS ? (p > 1 ? 2.0 : 0.0)
                                                                    : 2.0 * (p - 1);
      break;
    case FU_OP_ALLGATHER:
    case FU_OP_REDUCESCATTER:
      s = a == FU_ALGO_NVLS ? (p > 1 ? 1.0 : 0.0) : (double)(p - 1);
      break;
    case FU_OP_BROADCAST:
    case FU_OP_REDUCE:
      s = a == FU_ALGO_TREE ? fu__clog2(p) : a == FU_ALGO_NVLS ? (p > 1 ? 1.0 : 0.0)
                                                              : (double)(p - 1);
      break;
    case FU_OP_ALLTOALL:
      s = (double)(p - 1);
      break;
    default:
      s = 1.0;
      break;
  }
  return s < 1.0 ? 1.0 : s;
}

/* alpha scales with the step count and beta with the bytes each rank puts on the wire per byte
 * of message, which for every algorithm here is nccl-tests' bus-bandwidth factor (the busbw
 * definition is exactly "what the link carries for an optimal algorithm"). With one rank the
 * wire factor is 0 (nothing crosses a link; NCCL copies locally), so beta cannot be carried to
 * or from p = 1 and is kept as fitted: the 1-rank curve describes a local copy, not a link. */
fu_hockney fu_coll_rescale(fu_hockney h, fu_op o, fu_algo a, int p_from, int p_to) {
  fu_hockney r = h;
  if (p_from < 1 || p_to < 1 || p_from == p_to) return r;
  r.alpha_us = h.alpha_us * fu_coll_steps(o, a, p_to) / fu_coll_steps(o, a, p_from);
  double wf = fu_busbw_factor(o, p_from), wt = fu_busbw_factor(o, p_to);
  if (wf > 0 && wt > 0) r.beta_us_per_byte = h.beta_us_per_byte * wt / wf;
  return r;
}

int fu_algo_parse(const char *s, fu_algo *out) {
  if (!s || !*s || strcasecmp(s, "ring") == 0) *out = FU_ALGO_RING;
  else if (strcasecmp(s, "tree") == 0) *out = FU_ALGO_TREE;
  else if (strcasecmp(s, "nvls") == 0 || strcasecmp(s, "nvlstree") == 0) *out = FU_ALGO_NVLS;
  else return FU_EDATA;
  return FU_OK;
}

const char *fu_algo_name(fu_algo a) {
  return a == FU_ALGO_TREE ? "tree" : a == FU_ALGO_NVLS ? "nvls" : "ring";
}

double fu_link_limit_gbps(fu_link l, const char *gpu) {
  static const struct {
    const char *name;        /* substring of the GPU model */
    double nvlink, pcie;     /* GB/s, one direction */
  } gpus[] = {{"GB200", 900, 64}, {"B300", 900, 64},  {"B200", 900, 64}, {"B100", 900, 64},
              {"GH200", 450, 450}, /* its host link is NVLink-C2C, 450 GB/s each way */
              {"H200", 450, 64},  {"H100", 450, 64},  {"H800", 200, 64}, {"H20", 450, 64},
              {"A100", 300, 32},  {"A800", 200, 32},  {"V100", 150, 16}, {"5090", 0, 64},
              {"4090", 0, 32},    {"3090", 56, 32},   {"2080", 50, 16}};
  double nv = 900, pc = 64;
  for (size_t i = 0; gpu && i < sizeof gpus / sizeof gpus[0]; i++)
    if (strstr(gpu, gpus[i].name)) {
      nv = gpus[i].nvlink > 0 ? gpus[i].nvlink : gpus[i].pcie; /* no NVLink: "nvlink" is a mislabel */
      pc = gpus[i].pcie;
      break;
    }
  switch (l) {
    case FU_LINK_NVLINK: return nv;
    case FU_LINK_PCIE: case FU_LINK_PCIE_H2D: case FU_LINK_PCIE_D2H: return pc;
    case FU_LINK_PCIE_BIDIR: return 2 * pc;
    case FU_LINK_HBM: return 10000; /* HBM3e is 8 TB/s; a device copy reads and writes */
    case FU_LINK_NET: return 100;    /* one 800 Gb/s NIC a GPU (ConnectX-8, HGX B300): the fastest */
    default: return 0;
  }
}
