/* fu_coll.c: the collective cost model of fu_coll.h and the fit of its link parameters.
 * Pricing is O(1); the fit is O(n) per grid point over a fixed grid (a few thousand
 * evaluations of O(n) each for n observations). */
#include "fu_coll.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

void fu_cluster_init(fu_cluster *c) { memset(c, 0, sizeof *c); }

int fu_cluster_usable(const fu_cluster *c, int nodes) {
  if (!c || !(c->intra_gbps > 0)) return 0;
  return nodes <= 1 || c->nic_gbps > 0;
}

/* NICs a node of g GPUs sends through: nics_per_node where set and fewer, else one a GPU */
static int fu__nics(const fu_cluster *c, int g) {
  return c->nics_per_node > 0 && c->nics_per_node < g ? c->nics_per_node : g;
}

double fu_coll_node_net_gbps(const fu_cluster *c, int g) {
  double net = fu__nics(c, g) * c->nic_gbps;
  return c->node_net_gbps > 0 && c->node_net_gbps < net ? c->node_net_gbps : net;
}

int fu_cluster_has_simple(const fu_cluster *c) {
  return c->simple_base_us > 0 || c->simple_intra_step_us > 0 || c->simple_net_step_us > 0;
}

int fu_coll_nvls_slot(fu_op op) {
  switch (op) {
    case FU_OP_ALLREDUCE: return 0;
    case FU_OP_ALLGATHER: return 1;
    case FU_OP_REDUCESCATTER: return 2;
    default: return -1;
  }
}

/* GPU models by NCCL's compute capability; nvswitch: a part that NVLS runs on (an NVSwitch
 * system's GPU, not a PCIe card) */
static const struct {
  const char *name;          /* substring of the GPU model */
  int compcap;
  int nvswitch;
} fu__gpus[] = {{"GB200", 100, 1}, {"GB300", 100, 1}, {"B100", 100, 1}, {"B200", 100, 1},
                {"B300", 100, 1},  {"RTX PRO 6000", 100, 0}, {"RTX 50", 100, 0}, {"GH200", 90, 1},
                {"H100", 90, 1},   {"H200", 90, 1},  {"H800", 90, 1},   {"H20", 90, 1},
                {"A100", 80, 0},   {"A800", 80, 0},  {"A30", 80, 0},    {"A40", 80, 0},
                {"A10", 80, 0},    {"A6000", 80, 0}, {"RTX 30", 80, 0}};

static int fu__gpu_index(const char *gpu) {
  for (size_t i = 0; gpu && i < sizeof fu__gpus / sizeof fu__gpus[0]; i++)
    if (strstr(gpu, fu__gpus[i].name)) return (int)i;
  return -1;
}

int fu_gpu_compcap(const char *gpu) {
  int i = fu__gpu_index(gpu);
  return i < 0 ? 0 : fu__gpus[i].compcap;
}

double fu_coll_nvls_efficiency(const char *gpu) {
  /* the measured NVLS / ring share by compute capability (fu_coll.h): Hopper 0.74, Blackwell
   * 0.70, earlier 0 (NCCL's tuning model: 0.85, 0.74) */
  int i = fu__gpu_index(gpu);
  if (i < 0 || !fu__gpus[i].nvswitch || strstr(gpu, "PCIe") || strstr(gpu, " NVL")) return 0; /* no NVSwitch */
  return fu__gpus[i].compcap >= 100 ? 0.70 : 0.74;
}

int fu_cluster_nvls_from_machine(fu_cluster *c, const char *gpu) {
  double e = fu_coll_nvls_efficiency(gpu);
  if (!(e > 0) || c->nvls_algbw_gbps[0] > 0 || strcmp(c->intra_link, "nvlink") != 0 ||
      !(c->intra_gbps > 0.5 * fu_link_limit_gbps(FU_LINK_NVLINK, gpu)))
    return 0;
  c->nvls_algbw_gbps[0] = e * c->intra_gbps;
  snprintf(c->nvls_source, sizeof c->nvls_source,
           "machine: NVLS at %.2f of the ring (measured share) for %.40s x the ring's %.1f GB/s", e, gpu,
           c->intra_gbps);
  return 1;
}

double fu_coll_layout_us(const fu_cluster *c, int gpus_per_proc, int gpus_per_node) {
  int q = gpus_per_proc < gpus_per_node ? gpus_per_proc : gpus_per_node;
  return q > 1 && c->proc_pair_us > 0 ? c->proc_pair_us * q * (q - 1.0) : 0;
}

static double fu__clog2(int n) {
  int k = 0;
  while ((1L << k) < n) k++;
  return k;
}

const char *fu_coll_proto_name(fu_coll_proto p) {
  static const char *n[] = {"LL", "LL128", "Simple", ""};
  return p >= FU_PROTO_LL && p <= FU_PROTO_ONE ? n[p] : "?";
}

const char *fu_coll_algo_name(fu_coll_algo a) {
  static const char *n[] = {"ring", "tree", "nvls", "nvls_tree"};
  return a >= FU_CALGO_RING && a <= FU_CALGO_NVLS_TREE ? n[a] : "?";
}

static void fu__line(fu_coll_line *l, fu_coll_algo algo, fu_coll_proto proto, double alpha, double beta) {
  const char *pn = fu_coll_proto_name(proto);
  snprintf(l->algo, sizeof l->algo, "%s%s%s", fu_coll_algo_name(algo), *pn ? "/" : "", pn);
  l->algorithm = algo;
  l->proto = proto;
  l->alpha_us = alpha;
  l->beta_us_per_byte = beta;
  l->ladder_ops = 0;
  l->chunk_max = 0;
}

/* A protocol's costs at (op, nodes): latency of a call, of an intra-node and of a network step,
 * and the share of the links' bandwidth a ring (ring_bw) and a tree (tree_bw) reach. As NCCL's
 * tuning.cc charges them: LL carries 4 data bytes in 8 with flag polling, so a ring reaches 1/4
 * of Simple for all-reduce or across nodes and 1/3 otherwise, a tree 1/3.8; its intra-node step
 * costs 1.8 x across nodes. LL128 (one node, and across nodes where NCCL's pick is priced:
 * fu_coll.h) 0.92 of Simple (a tree 120/128) at LL's latencies scaled as NCCL's constants (a
 * tree's by its own, tbase, tintra, tnet). The latencies are the profile's fitted ones (LL: small sizes,
 * Simple: the large sizes' intercept); FU_PROTO_ONE uses the small-size ones at full bandwidth. */
typedef struct fu__proto_cost {
  double base, lintra, lnet, ring_bw, tree_bw;
  double max_busbw;          /* bytes per us; INFINITY: no cap */
  double tbase, tintra, tnet; /* the tree's latencies where they differ (LL128), else 0 */
} fu__proto_cost;

static fu__proto_cost fu__proto(const fu_cluster *c, fu_op op, int N, fu_coll_proto proto) {
  fu__proto_cost k = {c->base_us, c->intra_step_us, c->net_step_us, 1, 1, INFINITY, 0, 0, 0};
  if (proto == FU_PROTO_SIMPLE) {
    k.base = c->simple_base_us;
    k.lintra = c->simple_intra_step_us;
    k.lnet = c->simple_net_step_us;
    /* a hop across nodes, never below the one-node step (a base profile's hop may come with
     * another machine's one-node step) */
    if (N > 1 && c->simple_xintra_step_us > k.lintra) k.lintra = c->simple_xintra_step_us;
  } else if (proto == FU_PROTO_LL) {
    /* across nodes for a job on NCCL 2.27 or later, as its ring.cc: a ring at 1/2 of the link,
     * no dearer intra-node step (fu_coll.h) */
    int ll27 = N > 1 && c->job_nccl_version >= FU_COLL_NCCL_27;
    k.ring_bw = ll27 ? FU_COLL_LL_FRAC_27 : op == FU_OP_ALLREDUCE || N > 1 ? FU_COLL_LL_FRAC_AR_NET : FU_COLL_LL_FRAC;
    k.tree_bw = FU_COLL_LL_FRAC_TREE;
    if (N > 1 && !ll27) k.lintra *= FU_COLL_LL_INTRA_NET;
    k.max_busbw = 1e3 * (N == 1 ? FU_COLL_LL_MAX_1NODE : N == 2 ? FU_COLL_LL_MAX_2NODES : FU_COLL_LL_MAX_NODES);
  } else if (proto == FU_PROTO_LL128) {
    /* LL's fitted latencies in NCCL's LL128-to-LL ratios; 120 data bytes in 128 */
    k.tbase = k.base * FU_COLL_LL128_TREE_BASE_LL;
    k.tintra = k.lintra * FU_COLL_LL128_TREE_STEP_LL;
    k.tnet = fmax(k.lnet, 0) * FU_COLL_LL128_TREE_NET_LL;
    k.base *= FU_COLL_LL128_BASE_LL;
    k.lintra *= FU_COLL_LL128_STEP_LL;
    k.lnet *= FU_COLL_LL128_NET_LL;
    k.ring_bw = FU_COLL_LL128_FRAC;
    k.tree_bw = FU_COLL_LL128_TREE_FRAC;
  }
  if (!(k.lnet > 0)) k.lnet = 0;
  if (proto != FU_PROTO_LL128) k.tbase = k.base, k.tintra = k.lintra, k.tnet = k.lnet;
  return k;
}

double fu_coll_ring_share(fu_op op, int ranks, fu_coll_proto proto) {
  if (op == FU_OP_ALLREDUCE || ranks < 2) return 1;
  /* the loop's idle share: one slice of a chunk (Simple: 2 slices a chunk; LL, LL128: 1) */
  double b = proto == FU_PROTO_LL || proto == FU_PROTO_LL128 ? 1.0 : 0.5;
  double k = ranks - 1; /* chunks an all-gather or reduce-scatter loop sends; all-reduce 2k */
  return (k / (k + b)) / (2 * k / (2 * k + b));
}

/* The lines of one protocol. */
static void fu__proto_lines(const fu_cluster *c, fu_op op, int p, int N, int gpp, double f, fu_coll_proto proto,
                            fu_coll_line *lines, int *nlines) {
  fu__proto_cost k = fu__proto(c, op, N, proto);
  int g = p / N, ar = op == FU_OP_ALLREDUCE, slot = fu_coll_nvls_slot(op);
  if (N > 1 && proto == FU_PROTO_SIMPLE) {
    k.base += fu_coll_layout_us(c, gpp, g);
    k.tbase += fu_coll_layout_us(c, gpp, g);
  }
  double bnic = N > 1 ? fu_coll_node_net_gbps(c, g) * 1e3 : INFINITY; /* bytes per us, per node */
  double bintra = c->intra_gbps * 1e3;
  if (g == 1) bintra = INFINITY; /* one GPU per node: every hop is on the network */
  /* ring */
  double steps = ar ? 2.0 * (p - 1) : (double)(p - 1);
  double inter = N > 1 ? steps * N / p : 0;
  double ring_bw = fmin(fmin(bintra, bnic) * k.ring_bw * fu_coll_ring_share(op, p, proto), k.max_busbw);
  fu__line(&lines[(*nlines)++], FU_CALGO_RING, proto, k.base + (steps - inter) * k.lintra + inter * k.lnet,
           f / ring_bw);
  /* NCCL runs NVLS and NVLS-tree on Simple only, NVLS from 2.17.1 and NVLS-tree from 2.18.1 (a
     job on an older NCCL has neither; an unknown one, the machine's) */
  int v = c->job_nccl_version;
  double nvls = proto == FU_PROTO_LL || proto == FU_PROTO_LL128 || (v > 0 && v < FU_COLL_NCCL_NVLS)
                    ? 0 : c->nvls_algbw_gbps[slot] * 1e3;
  int nvls_tree_ok = !(v > 0 && v < FU_COLL_NCCL_NVLS_TREE);
  double tree_lat = k.tbase + 2.0 * ((g - 1) * k.tintra + fu__clog2(N) * k.tnet);
  if (ar && N > 1) {
    /* the busiest node sends n over its NICs on 2 nodes, 1.5n on 3, 2n on more (fu_coll.h) */
    double t_intra = 2.0 / bintra, t_net = (N == 2 ? 1.0 : N == 3 ? 1.5 : 2.0) / bnic;
    double tree_t = fmax(fmax(t_intra, t_net) / k.tree_bw, 2.0 / k.max_busbw);
    fu__line(&lines[(*nlines)++], FU_CALGO_TREE, proto, tree_lat, tree_t);
    if (nvls > 0 && nvls_tree_ok && g > 2) { /* NCCL: no NVLS with 2 GPUs or fewer in a node */
      /* NCCL's tuning.cc converts NVLS_TREE bus bandwidth to algorithm bandwidth with
       * 0.70 N / (2 (N - 1)): the tree between nodes reaches 70% of its links at N = 2 and
       * half that as N grows (each node sends and receives through an inner and a leaf role). */
      t_net = 1.0 / (bnic * FU_COLL_NVLS_TREE_EFF * N / (2.0 * (N - 1)));
      t_intra = 1.0 / nvls;
      /* inside the node the switch reduces and multicasts: one hop each way, as the NVLS line
       * has, not the tree's chain of g - 1 (tuning.cc: intraLat + 2 log2(N) interLat) */
      double nvls_tree_lat = k.base + 2.0 * (k.lintra + fu__clog2(N) * k.lnet);
      fu__line(&lines[(*nlines)++], FU_CALGO_NVLS_TREE, proto, nvls_tree_lat, t_intra > t_net ? t_intra : t_net);
      /* its chunk ladder: NCCL's NVLS channels x heads (one head per NIC of a node) */
      lines[*nlines - 1].ladder_ops = (double)FU_COLL_NVLS_CHANNELS * fu__nics(c, g);
    }
  }
  if (N == 1 && g > 2 && nvls > 0)
    fu__line(&lines[(*nlines)++], FU_CALGO_NVLS, proto, k.base + 2.0 * k.lintra, 1.0 / nvls);
}

/* fu_coll_lines for a job whose processes drive gpp GPUs each. */
static int fu__lines(const fu_cluster *c, fu_op op, int ranks, int nodes, int gpp, int ll128_net,
                     fu_coll_line *lines, int *nlines) {
  *nlines = 0;
  int slot = fu_coll_nvls_slot(op);
  if (slot < 0) {
    fu_error("cost model: %s is not a collective the model covers (allreduce, allgather, "
             "reducescatter)", fu_op_name(op));
    return FU_EDATA;
  }
  if (ranks < 1 || nodes < 1 || ranks % nodes != 0) {
    fu_error("cost model: %d ranks do not split evenly over %d nodes", ranks, nodes);
    return FU_EDATA;
  }
  if (!fu_cluster_usable(c, nodes)) {
    fu_error("cost model: the profile has no %s parameters (fit it on logs that cover them, or "
             "give --base a profile that has them)", c && c->intra_gbps > 0 ? "network" : "link");
    return FU_EDATA;
  }
  int p = ranks, N = nodes;
  double f = fu_busbw_factor(op, p);
  if (p == 1) { /* nothing crosses a link: NCCL's local copy at the intra rate */
    fu__line(&lines[(*nlines)++], FU_CALGO_RING, FU_PROTO_ONE, c->base_us, 1.0 / (c->intra_gbps * 1e3));
    return FU_OK;
  }
  if (fu_cluster_has_simple(c)) {
    fu__proto_lines(c, op, p, N, gpp, f, FU_PROTO_LL, lines, nlines);
    /* fu_coll.h: LL128 on one NVLink node, across nodes where NCCL's pick is priced */
    if ((N == 1 || ll128_net) && strcmp(c->intra_link, "nvlink") == 0)
      fu__proto_lines(c, op, p, N, gpp, f, FU_PROTO_LL128, lines, nlines);
    fu__proto_lines(c, op, p, N, gpp, f, FU_PROTO_SIMPLE, lines, nlines);
  } else {
    fu__proto_lines(c, op, p, N, gpp, f, FU_PROTO_ONE, lines, nlines);
  }
  return FU_OK;
}

/* NCCL 2.19-2.26's preference (fu_coll.h): bandwidths alone. */
static int fu__prefers_nvls_tree_219(const fu_cluster *c, int ranks, int g, double net) {
  double link = fmin(c->intra_gbps, net);
  double nvls_tree = fmin(c->nvls_algbw_gbps[0], net) * 5.0 / 6.0;
  double ring = link * ranks / (2.0 * (ranks - 1)), tree = 0.92 * link * 0.5;
  return g > 2 && nvls_tree > fmax(ring, tree);
}

/* NCCL's log2i: floor(log2(n)), 0 for n < 2. */
static int fu__log2i(double n) {
  int k = 0;
  while (n >= 2) n /= 2, k++;
  return k;
}

/* One (algorithm, protocol) of NCCL's own all-reduce model across nodes, 2.27 on: latency (us)
 * and algorithm bandwidth (GB/s) before the size-dependent factors (fu__nccl27_time). */
typedef struct fu__nline {
  fu_coll_algo algo;
  fu_coll_proto proto;
  double lat, bw;
} fu__nline;

#define FU__NCCL_CHANNELS 16 /* NCCL_NVLS_NCHANNELS' default, the count the caps are taken at */

/* NCCL's 2.27-on all-reduce lines across nodes (fu_coll.h), into l (at most 7); returns the
 * count. Constants of src/graph/tuning.cc's table and src/tuning/{ring,tree,nvls}.cc, indexed
 * LL, LL128, Simple. */
static int fu__nccl27_lines(const fu_cluster *c, int p, int N, fu__nline *l) {
  static const double ring_base[3] = {6.6, 14.0, 8.4}, tree_base[3] = {6.8, 14.0, 8.4};
  static const double ring_nvl[3] = {0.6, 1.9, 3.4}, tree_nvl[3] = {0.6, 1.25, 4.0};
  static const double ring_pcie[3] = {1.0, 2.5, 5.7}, tree_pcie[3] = {1.0, 1.9, 4.0};
  static const double ring_net[3] = {2.7, 4.0, 14.0}, tree_net[3] = {5.0, 8.5, 14.0};
  /* per-channel caps, GB/s, on 2 nodes and on more: ring LL128, tree Simple, tree LL128,
   * NVLS-tree; Hopper's row (also for an unknown GPU: NVLS needs Hopper or later), Blackwell's */
  static const double caps[2][4][2] = {{{36.7, 36.7}, {41.4, 36.0}, {36.7, 29.0}, {57.7, 45.5}},
                                       {{40.0, 40.0}, {42.8, 24.0}, {31.67, 20.0}, {96.0, 80.0}}};
  int g = p / N, nvlink = strcmp(c->intra_link, "nvlink") == 0, col = N > 2;
  const double(*cap)[2] = caps[c->job_compcap >= 100];
  double net = fu_coll_node_net_gbps(c, g), link = g > 1 ? fmin(c->intra_gbps, net) : net;
  double nsteps = 2.0 * (p - 1), ninter = 2.0 * (N - 1), ch = FU__NCCL_CHANNELS;
  double llmax = N == 2 ? FU_COLL_LL_MAX_2NODES : FU_COLL_LL_MAX_NODES;
  int n = 0;
  for (int k = 0; k < 3; k++) {
    fu_coll_proto proto = k == 0 ? FU_PROTO_LL : k == 1 ? FU_PROTO_LL128 : FU_PROTO_SIMPLE;
    if (proto == FU_PROTO_LL128 && !nvlink) continue; /* NCCL enables LL128 over NVLink */
    /* ring: its network steps at the tree's latency with one GPU a node; an intra-node step
     * at least the network's post overhead (1 us, x 3 on Simple: Intel hosts) */
    double bus = proto == FU_PROTO_LL ? fmin(llmax, link * 0.5)
                 : proto == FU_PROTO_LL128 ? fmin(link * 0.92, ch * cap[0][col]) : link;
    double intra = fmax(nvlink ? ring_nvl[k] : ring_pcie[k], proto == FU_PROTO_SIMPLE ? 3.0 : 1.0);
    double inter = g == 1 ? tree_net[k] : ring_net[k];
    l[n++] = (fu__nline){FU_CALGO_RING, proto, ring_base[k] + (nsteps - ninter) * intra + ninter * inter,
                         bus * p / nsteps};
    /* tree: 0.92 of the link, LL at 1/3.8, LL128 at 120/128; half of it as algorithm bandwidth */
    bus = fmin(link * 0.92, ch * cap[1][col]);
    if (proto == FU_PROTO_LL) bus = fmin(bus / 3.8, llmax);
    if (proto == FU_PROTO_LL128) bus = fmin(bus * 120.0 / 128.0, ch * cap[2][col]);
    l[n++] = (fu__nline){FU_CALGO_TREE, proto,
                         tree_base[k] + 2.0 * ((g - 1) * (nvlink ? tree_nvl[k] : tree_pcie[k]) +
                                               fu__log2i(N) * tree_net[k]),
                         bus * 0.5};
  }
  if (c->nvls_algbw_gbps[0] > 0 && g > 2) { /* NVLS-tree, Simple only */
    double bus = fmin(fmin(2.0 * c->nvls_algbw_gbps[0] * (ch - 1) / ch, net * (N <= 2 ? 2.0 : 1.0)),
                      ch * cap[3][col]);
    l[n++] = (fu__nline){FU_CALGO_NVLS_TREE, FU_PROTO_SIMPLE, 25.0 + 2.0 * fu__log2i(N) * 20.9, bus * p / nsteps};
  }
  return n;
}

/* tuning.cc's treeCorrectionFactor (the current source's 24 columns: powers of two of bytes / 64
 * from 64 B), rows LL, LL128, Simple. */
static const double fu__tree_corr[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

static double fu__corr(fu_coll_proto p, int k) {
  return fu__tree_corr[p == FU_PROTO_LL ? 0 : p == FU_PROTO_LL128 ? 1 : 2][k];
}

/* NCCL's time (us) of line l at `bytes` (p ranks): the tree's correction below 64 x 2^23 B, on
 * Blackwell NVLS-tree's below 64 x 2^24 (nvls.cc, x86 hosts), the ring/Simple plateau x 1.4 from
 * 64 bytes a rank and channel (ring.cc, all-reduce across nodes). */
static double fu__nccl27_time(const fu__nline *l, const fu_cluster *c, int p, double bytes) {
  int k = fu__log2i(floor(bytes / 64));
  double bw = l->bw, lat = l->lat;
  if (l->algo == FU_CALGO_TREE && k < FU_COLL_TREE_CORR_N) bw *= fu__corr(l->proto, k);
  if (l->algo == FU_CALGO_NVLS_TREE && c->job_compcap >= 100 && k < 24) bw *= fu__corr(l->proto, k);
  if (l->algo == FU_CALGO_RING && l->proto == FU_PROTO_SIMPLE && bytes >= 64.0 * FU__NCCL_CHANNELS * p)
    lat *= 1.4;
  return lat + bytes / (1e3 * bw);
}

/* 1 where c's NCCL prices with the 2.19-2.26 form. */
static int fu__nccl_219(const fu_cluster *c) {
  return c->job_nccl_version > 0 && c->job_nccl_version < FU_COLL_NCCL_27;
}

/* The index of NCCL's pick among its n lines l at `bytes` (the least time). */
static int fu__nccl27_best(const fu__nline *l, int n, const fu_cluster *c, int p, double bytes) {
  int best = 0;
  double tb = INFINITY;
  for (int i = 0; i < n; i++) {
    double t = fu__nccl27_time(&l[i], c, p, bytes);
    if (t < tb) tb = t, best = i;
  }
  return best;
}

int fu_coll_nccl_pick(const fu_cluster *c, int ranks, int nodes, double bytes, fu_coll_algo *algo,
                      fu_coll_proto *proto) {
  if (!c || nodes < 2 || ranks % nodes != 0) return 0;
  fu__nline l[7];
  int n = fu__nccl27_lines(c, ranks, nodes, l), best = fu__nccl27_best(l, n, c, ranks, bytes);
  *algo = l[best].algo;
  *proto = l[best].proto;
  return 1;
}

int fu_coll_nccl_prefers_nvls_tree(const fu_cluster *c, int ranks, int nodes, double bytes) {
  if (!c || nodes < 2 || ranks % nodes != 0) return 0;
  int g = ranks / nodes;
  if (fu__nccl_219(c)) return fu__prefers_nvls_tree_219(c, ranks, g, fu_coll_node_net_gbps(c, g));
  fu_coll_algo a;
  fu_coll_proto pr;
  return fu_coll_nccl_pick(c, ranks, nodes, bytes, &a, &pr) && a == FU_CALGO_NVLS_TREE;
}

static int fu__cmp_double(const void *x, const void *y) {
  double u = *(const double *)x, v = *(const double *)y;
  return u < v ? -1 : u > v;
}

int fu_coll_nccl_choice_breaks(const fu_cluster *c, int ranks, int nodes, double x0, double x1, double *x,
                               int max) {
  if (!c || nodes < 2 || ranks % nodes != 0 || fu__nccl_219(c)) return 0;
  /* where NCCL's factors change: the tree correction's powers of two, the ring's plateau */
  double fixed[26];
  int nf = 0;
  for (int k = 1; k <= 24; k++) fixed[nf++] = 64.0 * ldexp(1, k);
  fixed[nf++] = 64.0 * FU__NCCL_CHANNELS * ranks;
  qsort(fixed, nf, sizeof fixed[0], fu__cmp_double);
  fu__nline l[7];
  int nl = fu__nccl27_lines(c, ranks, nodes, l), n = 0;
  double u = x0;
  for (int f = 0; f <= nf && u < x1; f++) {
    double v = f < nf && fixed[f] < x1 ? fixed[f] : x1;
    if (!(v > u)) continue;
    /* inside [u, v) every time is straight (slopes from its midpoint w): walk the least of them
     * from u, to where another crosses it from above */
    double w = isfinite(v) ? u + (v - u) / 2 : 2 * u + 1, t0[7], sl[7];
    for (int i = 0; i < nl; i++) {
      t0[i] = fu__nccl27_time(&l[i], c, ranks, u);
      sl[i] = (fu__nccl27_time(&l[i], c, ranks, w) - t0[i]) / (w - u);
    }
    int cur = fu__nccl27_best(l, nl, c, ranks, u);
    double at = u;
    for (int next = 0; next >= 0 && n < max;) {
      double xc = v;
      next = -1;
      for (int i = 0; i < nl; i++) {
        if (!(sl[i] < sl[cur])) continue;
        double xi = u + (t0[i] - t0[cur]) / (sl[cur] - sl[i]);
        if (xi > at && xi < xc) xc = xi, next = i;
      }
      if (next >= 0) x[n++] = xc, cur = next, at = xc;
    }
    if (v < x1 && n < max) x[n++] = v;
    u = v;
  }
  return n;
}

int fu_nccl_version_code(const char *s) {
  int major, minor, patch, used = 0;
  if (!s || !isdigit((unsigned char)*s) || sscanf(s, "%d.%d.%d%n", &major, &minor, &patch, &used) != 3 ||
      major != 2 || minor < 0 || minor > 99 || patch < 0 || patch > 99 || (s[used] != '\0' && s[used] != '+'))
    return 0;
  for (int i = 0; i < used; i++) /* %d took signs and blanks: digits and dots only */
    if (!isdigit((unsigned char)s[i]) && s[i] != '.') return 0;
  return major * 10000 + minor * 100 + patch;
}

const char *fu_nccl_version_string(long code, char *buf, size_t len) {
  if (code >= 10000) snprintf(buf, len, "%ld.%ld.%ld", code / 10000, code / 100 % 100, code % 100);
  else if (code >= 1000) snprintf(buf, len, "%ld.%ld.%ld", code / 1000, code / 100 % 10, code % 100);
  return buf;
}

/* 1 where the model prices NCCL 2.27-on's pick (fu_coll_lines) for op at nodes. */
static int fu__prices_pick(const fu_cluster *c, fu_op op, int nodes) {
  return c && c->job_nccl_version >= FU_COLL_NCCL_27 && op == FU_OP_ALLREDUCE && nodes > 1;
}

int fu_coll_lines_all(const fu_cluster *c, fu_op op, int ranks, int nodes, fu_coll_line *lines, int *nlines) {
  return fu__lines(c, op, ranks, nodes, c ? c->job_gpus_per_proc : 0, fu__prices_pick(c, op, nodes), lines,
                   nlines);
}

int fu_coll_lines(const fu_cluster *c, fu_op op, int ranks, int nodes, double bytes, fu_coll_line *lines,
                  int *nlines) {
  FU_CHECK(fu_coll_lines_all(c, op, ranks, nodes, lines, nlines));
  int nvls_tree = -1;
  for (int i = 0; i < *nlines; i++)
    if (lines[i].algorithm == FU_CALGO_NVLS_TREE) nvls_tree = i;
  double chunk = nodes >= 4 ? FU_COLL_NVLS_CHUNK_4NODES : FU_COLL_NVLS_CHUNK_BYTES;
  fu_coll_algo algo;
  fu_coll_proto proto;
  if (fu__prices_pick(c, op, nodes) && fu_coll_nccl_pick(c, ranks, nodes, bytes, &algo, &proto)) {
    /* NCCL 2.27 on: the model's line of NCCL's pick (a one-latency profile's line of its
     * algorithm), NVLS-tree in NCCL's chunks */
    int m = 0;
    for (int i = 0; i < *nlines; i++)
      if (lines[i].algorithm == algo && (lines[i].proto == proto || lines[i].proto == FU_PROTO_ONE)) {
        lines[m] = lines[i];
        if (algo == FU_CALGO_NVLS_TREE) lines[m].chunk_max = chunk;
        m++;
      }
    if (m > 0) *nlines = m; /* else the model lacks the line: its fastest */
    return FU_OK;
  }
  if (!c || c->job_nccl_version < FU_COLL_NCCL_NVLS_CHUNK || nvls_tree < 0 ||
      !fu_coll_nccl_prefers_nvls_tree(c, ranks, nodes, bytes))
    return FU_OK;
  /* NCCL 2.19-2.26's choice: NVLS-tree in its 2.19 chunks wherever it runs Simple */
  lines[nvls_tree].chunk_max = chunk;
  int m = 0;
  for (int i = 0; i < *nlines; i++)
    if (lines[i].proto != FU_PROTO_SIMPLE || i == nvls_tree) lines[m++] = lines[i];
  *nlines = m;
  return FU_OK;
}

double fu_coll_tree_corr(fu_coll_algo a, fu_coll_proto p, double bytes) {
  if (a != FU_CALGO_TREE) return 1;
  int k = fu__log2i(floor(bytes / 64)); /* NCCL's log2i(nBytes >> 6), 0 below 128 B */
  return k < FU_COLL_TREE_CORR_N ? fu__corr(p, k) : 1;
}

/* NVLS-tree's largest chunk. */
static double fu__chunk_max(const fu_coll_line *l) {
  return l->chunk_max > 0 && l->chunk_max < FU_COLL_STEP_BYTES ? l->chunk_max : FU_COLL_STEP_BYTES;
}

int fu_coll_chunk_breaks(const fu_coll_line *l, double *x) {
  double u = l->ladder_ops, S = FU_COLL_STEP_BYTES;
  if (!(u > 0) || l->algorithm != FU_CALGO_NVLS_TREE) return 0;
  /* below these sizes the chunk is 32, 64, 128 and 256 KiB; only the rungs below the largest
   * chunk apply (NCCL cuts a chunk only where it is larger than the rung's) */
  x[0] = u * S / 8, x[1] = 4 * u * S / 4, x[2] = 16 * u * S / 2, x[3] = 32 * u * S;
  int n = 0;
  for (double rung = S / 16; n < 4 && rung < fu__chunk_max(l); rung *= 2) n++;
  return n;
}

double fu_coll_chunk_slow(const fu_coll_line *l, double bytes) {
  double x[4];
  int n = fu_coll_chunk_breaks(l, x);
  double r = n > 0 ? FU_COLL_STEP_BYTES / fu__chunk_max(l) : 1; /* full step / chunk */
  for (int i = n - 1; i >= 0 && bytes < x[i]; i--) r *= 2; /* each rung halves the chunk */
  /* the per-chunk share of the full-step time is paid r times as often per byte */
  return 1 + FU_COLL_CHUNK_SHARE * (r - 1);
}

double fu_coll_line_time(const fu_coll_line *l, double bytes) {
  return l->alpha_us + l->beta_us_per_byte * bytes * fu_coll_chunk_slow(l, bytes) /
                           fu_coll_tree_corr(l->algorithm, l->proto, bytes);
}

int fu_coll_time(const fu_cluster *c, fu_op op, int ranks, int nodes, double bytes, double *t_us,
                 char *algo, size_t len) {
  fu_coll_line l[FU_COLL_MAX_LINES];
  int n;
  FU_CHECK(fu_coll_lines(c, op, ranks, nodes, bytes, l, &n));
  int best = 0;
  double tb = INFINITY;
  for (int i = 0; i < n; i++) {
    double t = fu_coll_line_time(&l[i], bytes);
    if (t < tb) {
      tb = t;
      best = i;
    }
  }
  *t_us = tb;
  if (algo && len) snprintf(algo, len, "%s", l[best].algo);
  return FU_OK;
}

/* The model's small-size latency, large-size bus bandwidth and Simple latency (the smallest
 * latency of the full-bandwidth lines) at an observation's point. */
static int fu__ends(const fu_cluster *c, const fu_coll_obs *o, double *lat, double *busbw, double *lat_s) {
  fu_coll_line l[FU_COLL_MAX_LINES];
  int n;
  if (fu__lines(c, o->op, o->ranks, o->nodes, o->gpus_per_proc, 0, l, &n) != FU_OK) return FU_EDATA;
  double a = INFINITY, b = INFINITY, as = INFINITY;
  for (int i = 0; i < n; i++) {
    if (l[i].alpha_us < a) a = l[i].alpha_us;
    if (l[i].beta_us_per_byte < b) b = l[i].beta_us_per_byte;
  }
  for (int i = 0; i < n; i++)
    if (l[i].beta_us_per_byte <= b * (1 + 1e-12) && l[i].alpha_us < as) as = l[i].alpha_us;
  *lat = a;
  *lat_s = as;
  *busbw = fu_busbw_factor(o->op, o->ranks) / b / 1e3;
  return FU_OK;
}

/* Squared log error over the multi-node observations of one end (0 latency, 1 bandwidth, 2 the
 * Simple latency). */
static double fu__net_cost(const fu_cluster *c, const fu_coll_obs *obs, size_t n, int which) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    if (obs[i].nodes < 2) continue;
    double lat, bw, lat_s;
    if (fu__ends(c, &obs[i], &lat, &bw, &lat_s) != FU_OK) return INFINITY;
    double m = which == 2 ? lat_s : which ? bw : lat;
    double o = which == 2 ? obs[i].lat_simple_us : which ? obs[i].busbw_gbps : obs[i].lat_us;
    if (!(o > 0)) continue;
    /* a model time of 0 (no latency yet) is a miss like any other, not a skipped point */
    double r = log(fmax(m, 1e-3) / o);
    s += r * r;
  }
  return s;
}

/* Minimise cost over x on a log grid in [lo, hi] (fine enough for 0.3% steps), then keep it. */
static double fu__grid(fu_cluster *c, double *x, double lo, double hi, const fu_coll_obs *obs,
                       size_t n, int which) {
  double best = INFINITY, bx = lo;
  int steps = 4000;
  for (int i = 0; i <= steps; i++) {
    *x = lo * pow(hi / lo, (double)i / steps);
    double v = fu__net_cost(c, obs, n, which);
    if (v < best - 1e-12) {
      best = v;
      bx = *x;
    }
  }
  *x = bx;
  return best;
}

/* Simple network step with the net step alone refitted (kept at 0 when no step helps); returns
 * the cost. */
static double fu__fit_simple_net(fu_cluster *c, const fu_coll_obs *obs, size_t n) {
  c->simple_net_step_us = 0;
  double w0 = fu__net_cost(c, obs, n, 2);
  double w = fu__grid(c, &c->simple_net_step_us, 0.001, 5000, obs, n, 2);
  if (!(w < w0)) {
    c->simple_net_step_us = 0;
    w = w0;
  }
  return w;
}

/* The Simple latency of an intra-node step in a job that spans nodes. NCCL pipelines Simple in
 * chunks, so a tree's chain inside a node adds a chunk's time per hop to the call (tuning.cc
 * prices a tree/Simple NVLink hop at 28 us in 2.18, against 3.4 us for a ring step); a one-node
 * ring does not show it. It is separable from the network step only where the multi-node curves
 * cover two or more GPU-per-node counts (a node of one GPU has no intra-node hop): then the two
 * steps are fitted together (squared log error of the Simple latencies, a grid over the intra
 * step with the network step refitted at each point), and kept only where they fit better than
 * the network step alone, and never below the one-node step. */
static void fu__fit_xintra(fu_cluster *c, const fu_coll_obs *obs, size_t n) {
  int g0 = 0, counts = 0;
  for (size_t i = 0; i < n && counts < 2; i++) {
    if (obs[i].nodes < 2 || !(obs[i].lat_simple_us > 0)) continue;
    int g = obs[i].ranks / obs[i].nodes;
    if (counts == 0 || g != g0) counts++;
    g0 = g;
  }
  if (counts < 2) return;
  /* a hop in a job that spans nodes costs at least the one-node step (NCCL's LL step costs 1.8x
   * across nodes, never less) */
  double lo = c->simple_intra_step_us > 0.01 ? c->simple_intra_step_us : 0.01;
  if (!(lo < 5000)) return;
  double alone = fu__net_cost(c, obs, n, 2), best = alone, bx = 0, bn = c->simple_net_step_us;
  fu_cluster k = *c;
  for (int i = 0; i <= 100; i++) {
    k.simple_xintra_step_us = lo * pow(5000 / lo, i / 100.0);
    double w = fu__fit_simple_net(&k, obs, n);
    if (w < best - 1e-12) {
      best = w;
      bx = k.simple_xintra_step_us;
      bn = k.simple_net_step_us;
    }
  }
  if (!(bx > 0)) return;
  /* refine between the coarse grid's neighbours (steps of 14%), then the network step again */
  k.simple_xintra_step_us = bx;
  k.simple_net_step_us = bn;
  fu__grid(&k, &k.simple_xintra_step_us, fmax(lo, bx / 1.15), bx * 1.15, obs, n, 2);
  best = fu__fit_simple_net(&k, obs, n);
  if (best < alone * (1 - 1e-9)) {
    c->simple_xintra_step_us = k.simple_xintra_step_us;
    c->simple_net_step_us = k.simple_net_step_us;
  }
}

/* The node's network (node_net_gbps). Where a multi-node curve of g > 1 GPUs a node reaches less
 * bus bandwidth than the model gives it with the NIC rate fitted over every curve by more than
 * FU_COLL_NET_SHORT, the node's NICs do not scale with its GPUs (fewer NICs than GPUs, a shared
 * uplink or PCIe switch: the logs cannot say which), so the node's rate is capped: the cap and
 * the NIC rate are refitted in turn (squared log error of the bandwidths, three rounds; the cap
 * between one NIC and the largest node's g NICs, so the curves it does not bind, the smallest
 * layouts, set the NIC rate) and kept where they fit better. node_net_source names the curve
 * that fell short most. Without a shortfall nothing changes (no cap). */
static void fu__fit_node_net(fu_cluster *c, const fu_coll_obs *obs, size_t n, const char *source) {
  c->node_net_gbps = 0;
  c->node_net_source[0] = '\0';
  const fu_coll_obs *worst = NULL;
  double most = FU_COLL_NET_SHORT, lat, bw, lat_s;
  int gmax = 1;
  for (size_t i = 0; i < n; i++) {
    const fu_coll_obs *o = &obs[i];
    int g = o->ranks / o->nodes;
    if (o->nodes < 2 || g < 2 || !(o->busbw_gbps > 0)) continue;
    if (g > gmax) gmax = g;
    if (fu__ends(c, o, &lat, &bw, &lat_s) != FU_OK) return;
    if (1 - o->busbw_gbps / bw > most) most = 1 - o->busbw_gbps / bw, worst = o;
  }
  if (!worst) return;
  fu_cluster k = *c;
  double w0 = fu__net_cost(c, obs, n, 1), w = w0;
  for (int round = 0; round < 3; round++) {
    fu__grid(&k, &k.node_net_gbps, k.nic_gbps, gmax * k.nic_gbps, obs, n, 1);
    w = fu__grid(&k, &k.nic_gbps, 0.1, k.node_net_gbps, obs, n, 1);
  }
  if (!(w < w0 * (1 - 1e-9))) return;
  int g = worst->ranks / worst->nodes;
  c->nic_gbps = k.nic_gbps;
  c->node_net_gbps = k.node_net_gbps;
  snprintf(c->node_net_source, sizeof c->node_net_source,
           "%.80s: %s %dx%d reached %.0f%% of its bus bandwidth with a NIC a GPU; %.3g NICs' worth",
           source ? source : "fit", fu_op_name(worst->op), worst->nodes, g, 100 * (1 - most),
           c->node_net_gbps / c->nic_gbps);
}

/* The Simple network latencies (network step, hop across nodes) refitted from scratch. */
static double fu__fit_simple_links(fu_cluster *c, const fu_coll_obs *obs, size_t n) {
  c->simple_xintra_step_us = 0;
  fu__fit_simple_net(c, obs, n);
  fu__fit_xintra(c, obs, n);
  return fu__net_cost(c, obs, n, 2);
}

/* The process layout's cost (fu_coll_layout_us) with the Simple network latencies refitted net
 * of it, where the multi-node Simple curves cover two or more layouts (GPUs a process, one where
 * unknown) and one of them drives more than one GPU; otherwise 0 (their latencies carry what
 * their one layout costs). Kept only where it fits better than none. A log grid in steps of 4
 * from 0.25 to 256 us, then steps of 2, 2^(1/2), 2^(1/4) either side of the best (each fit of
 * the network latencies is a grid of its own: 12 of them in all). */
static void fu__fit_layout(fu_cluster *c, const fu_coll_obs *obs, size_t n) {
  int q0 = 0, layouts = 0, above1 = 0;
  c->proc_pair_us = 0;
  for (size_t i = 0; i < n; i++) {
    if (obs[i].nodes < 2 || !(obs[i].lat_simple_us > 0)) continue;
    int g = obs[i].ranks / obs[i].nodes, q = obs[i].gpus_per_proc > 0 ? obs[i].gpus_per_proc : 1;
    if (q > g) q = g;
    if (layouts == 0 || q != q0) layouts++;
    above1 |= q > 1;
    q0 = q;
  }
  if (layouts < 2 || !above1) return;
  fu_cluster best = *c, k = *c;
  double wbest = fu__net_cost(c, obs, n, 2), b = 0;
  for (int i = 0; i <= 5; i++) {
    k = *c;
    k.proc_pair_us = 0.25 * ldexp(1, 2 * i);
    double w = fu__fit_simple_links(&k, obs, n);
    if (w < wbest - 1e-12) wbest = w, best = k, b = k.proc_pair_us;
  }
  for (double step = 2; b > 0 && step > 1.1; step = sqrt(step)) {
    double b0 = b;
    for (int s = -1; s <= 1; s += 2) {
      k = *c;
      k.proc_pair_us = b0 * pow(step, s);
      double w = fu__fit_simple_links(&k, obs, n);
      if (w < wbest - 1e-12) wbest = w, best = k, b = k.proc_pair_us;
    }
  }
  *c = best;
}

/* NCCL's tuning.cc latencies (2.18 to 2.28.3): a ring's base latency and its cost per intra-node
 * step, LL and Simple, over NVLink and PCIe; NVLS's whole latency over NVLink (Simple). */
#define FU__NCCL_RING_BASE_LL 6.6
#define FU__NCCL_RING_BASE_SIMPLE 8.4
#define FU__NCCL_NVLINK_STEP_LL 0.6
#define FU__NCCL_NVLINK_STEP_SIMPLE 3.4
#define FU__NCCL_PCIE_STEP_LL 1.0
#define FU__NCCL_PCIE_STEP_SIMPLE 5.7
#define FU__NCCL_NVLS_LAT 25.0

double fu_coll_nccl_ring_simple_us(int p) {
  return FU__NCCL_RING_BASE_SIMPLE + 2.0 * (p - 1) * FU__NCCL_NVLINK_STEP_SIMPLE;
}

/* Least squares of lat = base + s * step over the one-node observations (simple: their Simple
 * latency), step >= 0. 0 when no observation has it. With one step count the data cannot split a
 * call's fixed cost from its steps': they are split as NCCL's tuning.cc does, its latency of the
 * algorithm that ran (LL: the ring; Simple: NVLS where the observation is NVLS, else the ring)
 * scaled to the measured one. The old split (base = one step) made a step a third of a 2-rank
 * all-reduce's floor; NCCL's makes it a twelfth, and the DGX H100 pair's 7.8 us floor is NCCL's
 * 6.6 + 2 x 0.6 exactly. An NVLS curve's Simple latency scales NCCL's ring constants by its ratio
 * to NCCL's NVLS latency; the model's NVLS line (base + 2 steps, shared with the ring) then
 * prices that curve's own Simple latency at 15.2 / 25 of it: the two forms differ in NCCL, and
 * the model has one pair of parameters for both. */
static int fu__intra_lat(const fu_cluster *c, const fu_coll_obs *obs, size_t n, int simple, double *base,
                         double *step) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, scale = 0;
  int pcie = strcmp(c->intra_link, "pcie") == 0;
  double b0 = simple ? FU__NCCL_RING_BASE_SIMPLE : FU__NCCL_RING_BASE_LL;
  double l0 = simple ? (pcie ? FU__NCCL_PCIE_STEP_SIMPLE : FU__NCCL_NVLINK_STEP_SIMPLE)
                     : (pcie ? FU__NCCL_PCIE_STEP_LL : FU__NCCL_NVLINK_STEP_LL);
  int m = 0;
  for (size_t i = 0; i < n; i++) {
    const fu_coll_obs *o = &obs[i];
    double y = simple ? o->lat_simple_us : o->lat_us;
    if (o->nodes != 1 || o->ranks < 2 || !(y > 0)) continue;
    int slot = fu_coll_nvls_slot(o->op);
    int nvls = (slot >= 0 && c->nvls_algbw_gbps[slot] > 0 && o->ranks > 2) || o->forced_nvls;
    double ring = o->op == FU_OP_ALLREDUCE ? 2.0 * (o->ranks - 1) : (double)(o->ranks - 1);
    double s = nvls ? 2.0 : ring;
    sx += s, sy += y, sxx += s * s, sxy += s * y;
    /* NCCL runs NVLS on Simple only: the smallest sizes (LL) of an NVLS curve are the ring's,
     * but where NVLS was forced (NCCL_ALGO=NVLS) they are NVLS's too */
    scale += y / (nvls && (simple || o->forced_nvls) ? FU__NCCL_NVLS_LAT : b0 + ring * l0);
    m++;
  }
  if (m == 0) return 0;
  double den = m * sxx - sx * sx;
  if (m > 1 && fabs(den) > 1e-9) {
    *step = fmax(0, (m * sxy - sx * sy) / den);
    *base = fmax(0, (sy - *step * sx) / m);
  } else {
    *step = scale / m * l0;
    *base = scale / m * b0;
  }
  return 1;
}

/* Where one node's all-reduces over > 2 ranks are all the fit has: on a machine with NVLS (the
 * GPU has an NVLS share e, fu_coll_nvls_efficiency, and the ring rate they imply, A / e, exceeds
 * half its NVLink bandwidth, as only an NVSwitch gives: fu_cluster_nvls_from_machine's test)
 * NCCL ran them as NVLS at large sizes, so their best algorithm bandwidth A is A_nvls and the
 * ring reaches A / e
 * (the inverse of fu_cluster_nvls_from_machine: the all-gather and reduce-scatter, which run
 * the ring, are priced from it, not from the switch's rate). Elsewhere they were rings and
 * c is left as it is. */
static void fu__ring_from_nvls(fu_cluster *c, const fu_coll_obs *obs, size_t n, const char *gpu) {
  double e = fu_coll_nvls_efficiency(gpu), a = 0;
  if (!(e > 0) || strcmp(c->intra_link, "nvlink") != 0) return;
  for (size_t i = 0; i < n; i++) {
    const fu_coll_obs *o = &obs[i];
    if (o->nodes == 1 && o->ranks > 2 && o->op == FU_OP_ALLREDUCE && o->busbw_gbps > 0)
      a = fmax(a, o->busbw_gbps / fu_busbw_factor(o->op, o->ranks));
  }
  if (!(a / e > 0.5 * fu_link_limit_gbps(FU_LINK_NVLINK, gpu))) return;
  c->nvls_algbw_gbps[0] = a;
  c->intra_gbps = a / e;
}

int fu_cluster_fit(fu_cluster *c, const fu_coll_obs *obs, size_t n, const char *source,
                   const char *gpu, int *fitted_intra, int *fitted_net) {
  *fitted_intra = *fitted_net = 0;
  /* Intra-node ring bandwidth: the best one-node all-gather, reduce-scatter or 2-rank
   * all-reduce; failing those, the best one-node all-reduce. */
  double ring = 0, ar_any = 0;
  for (size_t i = 0; i < n; i++) {
    const fu_coll_obs *o = &obs[i];
    if (o->nodes != 1 || o->ranks < 2 || !(o->busbw_gbps > 0)) continue;
    /* an all-gather or reduce-scatter reaches fu_coll_ring_share of the all-reduce's ring */
    double b = o->busbw_gbps / fu_coll_ring_share(o->op, o->ranks, FU_PROTO_SIMPLE);
    if (o->op == FU_OP_ALLREDUCE && o->ranks > 2) {
      if (b > ar_any) ar_any = b;
    } else if (b > ring) {
      ring = b;
    }
  }
  int ar_only = !(ring > 0); /* only all-reduces over > 2 ranks on one node: NVLS or ring? */
  if (ar_only) ring = ar_any;
  if (ring > 0) {
    fu_cluster keep = *c;
    c->intra_gbps = ring;
    for (int s = 0; s < FU_COLL_NVLS_OPS; s++) c->nvls_algbw_gbps[s] = 0;
    c->nvls_source[0] = '\0';
    /* An all-reduce over more than 2 ranks well above the ring rate is NVLS (the switch
     * reduces): its algorithm bandwidth is what carries to other rank counts. */
    for (size_t i = 0; i < n; i++) {
      const fu_coll_obs *o = &obs[i];
      if (o->nodes == 1 && o->ranks > 2 && o->op == FU_OP_ALLREDUCE && o->busbw_gbps > 1.1 * ring) {
        double a = o->busbw_gbps / fu_busbw_factor(o->op, o->ranks);
        if (a > c->nvls_algbw_gbps[0]) c->nvls_algbw_gbps[0] = a;
      }
    }
    if (ar_only) fu__ring_from_nvls(c, obs, n, gpu);
    /* Latencies: lat = base + s * l_intra over one-node observations, s the steps of the
     * algorithm that wins at small sizes (NVLS: 2, else the ring's); least squares, l >= 0; for
     * LL from the small sizes, for Simple from the large sizes' intercept. */
    if (!fu__intra_lat(c, obs, n, 0, &c->base_us, &c->intra_step_us)) {
      c->base_us = keep.base_us;
      c->intra_step_us = keep.intra_step_us;
    }
    if (!fu__intra_lat(c, obs, n, 1, &c->simple_base_us, &c->simple_intra_step_us)) {
      c->simple_base_us = keep.simple_base_us;
      c->simple_intra_step_us = keep.simple_intra_step_us;
    }
    if (source && c->nvls_algbw_gbps[0] > 0 && ar_only)
      snprintf(c->intra_source, sizeof c->intra_source,
               "%.100s (ring: its NVLS all-reduce / the measured NVLS share)", source);
    else if (source)
      snprintf(c->intra_source, sizeof c->intra_source, "%s", source);
    *fitted_intra = 1;
  }
  /* the intra-node link known: the algorithms the machine has, before fitting the network;
   * not where a one-node all-reduce over > 2 ranks was measured without NVLS (NCCL did not
   * run it there: NVLS turned off, or no multicast support) */
  if (c->intra_gbps > 0 && !(ar_any > 0)) fu_cluster_nvls_from_machine(c, gpu);
  int multi = 0;
  for (size_t i = 0; i < n; i++) {
    if (obs[i].nodes > 1) multi++;
    if (obs[i].nodes > 1 && obs[i].ranks / obs[i].nodes > c->gpus_per_node)
      c->gpus_per_node = obs[i].ranks / obs[i].nodes;
    if (obs[i].nodes == 1 && obs[i].ranks > c->gpus_per_node) c->gpus_per_node = obs[i].ranks;
  }
  if (multi) {
    /* One GPU per node crosses no intra-node link; where the intra-node rate is unknown the
     * fit stands it at "unbounded" so that only the network shapes the multi-node runs. */
    double intra = c->intra_gbps;
    if (!(c->intra_gbps > 0)) c->intra_gbps = 1e9;
    /* Bandwidth first (large sizes do not depend on latency), then latency. */
    if (!(c->nic_gbps > 0)) c->nic_gbps = 1;
    c->node_net_gbps = 0;
    fu__grid(c, &c->nic_gbps, 0.1, 5000, obs, n, 1);
    fu__fit_node_net(c, obs, n, source);
    c->net_step_us = 0;
    double with0 = fu__net_cost(c, obs, n, 0);
    double v = fu__grid(c, &c->net_step_us, 0.001, 1000, obs, n, 0);
    if (!(v < with0)) c->net_step_us = 0;
    int have_simple = 0;
    for (size_t i = 0; i < n; i++) have_simple |= obs[i].nodes > 1 && obs[i].lat_simple_us > 0;
    if (have_simple) {
      c->simple_xintra_step_us = 0;
      c->simple_net_step_us = 0;
      with0 = fu__net_cost(c, obs, n, 2);
      v = fu__grid(c, &c->simple_net_step_us, 0.001, 5000, obs, n, 2);
      if (!(v < with0)) c->simple_net_step_us = 0;
      fu__fit_xintra(c, obs, n);
      fu__fit_layout(c, obs, n);
    }
    if (source) snprintf(c->net_source, sizeof c->net_source, "%s", source);
    c->intra_gbps = intra;
    *fitted_net = 1;
  }
  return FU_OK;
}
