/* fu_coll.h: a cost model of NCCL collectives over an intra-node link and the network, in the
 * spirit of NCCL's src/graph/tuning.cc, with its per-link latency and bandwidth fitted from
 * measured curves, so that a profile prices rank and node counts it never measured.
 *
 * p ranks on N nodes of g = p / N GPUs; f = nccl-tests' bus-bandwidth factor of the operation
 * (all-reduce 2(p-1)/p, all-gather and reduce-scatter (p-1)/p). Each algorithm is one Hockney
 * line t(n) = latency + n * f / busbw (a tree's bent by NCCL's size-dependent correction,
 * fu_coll_tree_corr); the model takes the fastest at each size, so the cost is the lower envelope
 * of the lines (fu_cost.c builds it as piecewise segments):
 *
 *   ring       steps s = 2(p-1) (all-reduce) or p-1, of which s * N / p cross the network
 *              (each ring pass leaves every node once); latency = base + intra steps * l_intra
 *              + inter steps * l_net. Every rank sends f * n bytes on its ring link; a node's
 *              rings leave it over k = min(g, nics) NICs, so busbw = min(B_intra, k * B_nic)
 *              (k * B_nic here and below: the node's network, at most node_net_gbps where
 *              the fit found one, fu_coll_node_net_gbps)
 *              (B_intra: the all-reduce ring's; all-gather and reduce-scatter reach
 *              fu_coll_ring_share of it, their loops sending half the chunks).
 *   tree       (all-reduce, N > 1) NCCL's double binary tree between nodes, a chain inside:
 *              latency = base + 2 ((g-1) l_intra + ceil(log2 N) l_net). Inside a node every GPU
 *              sends n up and n down the chain (time 2n / B_intra). Between nodes each tree
 *              carries half the data, up (reduce) then down (broadcast). On 2 nodes each node is
 *              the root of one tree and the leaf of the other: it sends n / 2 up and n / 2 down,
 *              n in all over its k NICs. On more, the busiest node is inner in one tree (a parent
 *              and 2 children: n / 2 up, 2 x n / 2 down) and a leaf in the other (n / 2 up): 2n
 *              (NCCL's tuning.cc likewise takes a tree's algorithm bandwidth beyond 2 nodes as
 *              half the network's, on 2 nodes from the intra-node rate alone); on 3 nodes no
 *              node has 2 children (NCCL's binary tree roots have one child): 1.5n. So
 *              t = latency + max(2n / B_intra, m n / (k B_nic)), m = 1, 1.5, 2 on 2, 3, more
 *              nodes.
 *   nvls       (N = 1, g > 2, where the profile knows the switch's NVLS bandwidth for the op)
 *              the NVSwitch reduces or multicasts: every GPU moves about n bytes whatever g, so
 *              the algorithm bandwidth A_nvls (n / t) is the constant; latency = base + 2 l_intra.
 *              NCCL turns NVLS off with 2 GPUs or fewer in a node (nvls.cc: gpuCount <= 2,
 *              2.18 to 2.28.3; the current source keeps it on with 2, where NVLS, below the
 *              ring's rate, and NVLS-tree, at 0.70 of the NICs, would not beat the ring and the
 *              tree on an NVSwitch node). No other rule depends on GPUs a node: NVLS-tree's
 *              heads are the GPUs with a local NIC (search.cc).
 *              Where no one-node all-reduce over > 2 GPUs measured A_nvls, the machine decides
 *              (fu_cluster_nvls_from_machine): a Hopper or Blackwell GPU whose pair of GPUs
 *              reaches more than half its NVLink bandwidth (all its links to the peer: an
 *              NVSwitch) has NVLS at the architecture's measured share of the ring rate
 *              (fu_coll_nvls_efficiency).
 *   nvls_tree  (all-reduce, N > 1, g > 2, NVLS known) NVLS inside the node, the tree between nodes:
 *              latency = base + 2 (l_intra + ceil(log2 N) l_net): one pass through the switch each
 *              way (the NVLS line's two steps), not the tree's chain of g - 1 hops, and the tree's
 *              network depth (NCCL's tuning.cc likewise: intraLat + 2 log2(N) interLat);
 *              t = latency + max(n / A_nvls, n / (e k B_nic)), e = 0.70 N / (2 (N - 1))
 *              as NCCL's tuning.cc converts NVLS_TREE bus bandwidth to algorithm bandwidth;
 *              its time per byte rises below the sizes where NCCL cuts its chunk
 *              (fu_coll_chunk_slow).
 * NCCL's choice (fu_coll_lines): with the job's NCCL version unknown the model takes its fastest
 * line. With 2.19 or later named (fusim cost / predict --nccl-version), an all-reduce across nodes whose
 * NVLS-tree NCCL's own tuning prefers, in the form of the version named (2.19-2.26: by bandwidth,
 * at every size; 2.27 on: by NCCL's time at each size, fu_coll_nccl_prefers_nvls_tree), runs
 * NVLS-tree at Simple sizes, as NCCL does whether or not it is the fastest (from 2.27, where NCCL
 * prefers another algorithm, not NVLS-tree), and in NCCL 2.19's chunks: 128 KiB on 2-3
 * nodes, 64 KiB from 4 (enqueue.cc, NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE
 * defaults), not 2.18's 512 KiB step. Not modelled: the current source's Blackwell table
 * (nvls.cc ncclNvlsTreeSm100Tuning: 32 channels on 2 nodes, 64 KiB where the NIC sits on its
 * GPU's PCIe switch), which a profile cannot see and 2.29.2 may not have.
 * Protocols (fu_coll_proto): each algorithm is priced twice where the profile knows both
 * latencies, as NCCL's tuning does: LL (the latency of small messages, fitted from the smallest
 * sizes; a ring at 1/4 of the bandwidth for all-reduce or across nodes and 1/3 otherwise, a tree
 * at 1/3.8, both at most tuning.cc's llMaxBw; its intra-node step 1.8 times dearer across nodes;
 * for a job on NCCL 2.27 or later across nodes, the ring at 1/2 and no dearer step, as its
 * ring.cc, FU_COLL_LL_FRAC_27; NVLS has no LL line: NCCL runs NVLS and NVLS-tree on Simple only) and Simple (the latency of
 * large messages, fitted from the intercept of the largest sizes, at the full bandwidth; in a job
 * that spans nodes an intra-node step costs simple_xintra_step_us where the multi-node curves
 * gave it: NCCL pipelines Simple in chunks, and each hop of a tree's chain adds a chunk's time). Without
 * Simple latencies there is one line per algorithm (FU_PROTO_ONE): the small-size latency and the
 * large-size bandwidth. LL128 (NCCL enables it where GPUs talk over NVLink) is priced on one node
 * of NVLink, for the ring: 0.92 of Simple's bandwidth at LL's fitted latencies scaled by NCCL's
 * LL128-to-LL ratios, between LL and Simple in size (it is what NCCL runs at 16-256 MiB on an 8-GPU
 * B200 node, where neither LL nor Simple came within 38-107%). Across nodes it is priced only
 * where the model prices NCCL 2.27-on's own pick (an all-reduce whose NCCL is named, fu_coll_lines):
 * the ring as on one node with a network step 4.0 / 2.7 times LL's, the tree at 120/128 of its
 * Simple bandwidth with tuning.cc's tree LL128-to-LL ratios (FU_COLL_LL128_*). Among the fastest
 * lines (NCCL unknown or older) it is not: there it would fit the runs with one or two GPUs a
 * process (1+1, 2+2 mid sizes) but prices the held-out 16-rank logs 2-5x fast at mid sizes, with
 * the layout's cost priced apart as well (README, issue 12).
 * Process layout (fu_coll_layout_us): a Simple call across nodes whose processes drive q GPUs
 * each pays proc_pair_us x q (q - 1) on top of the line, fitted from multi-node curves of two or
 * more layouts (the GPUs a process each log ran with, from its "# nThread" line); the job priced
 * names its layout (fu_cluster.job_gpus_per_proc; fusim cost --gpus-per-process, default one
 * process per GPU). */
#ifndef FU_COLL_H
#define FU_COLL_H

#include <stddef.h>

#include "fu_collerr.h"
#include "fu_model.h"

/* Operations with an NVLS bandwidth: all-reduce, all-gather, reduce-scatter. */
enum { FU_COLL_NVLS_OPS = 3 };

typedef struct fu_cluster {
  double base_us;            /* fixed cost of one call (launch and synchronisation), us */
  double intra_step_us;      /* latency of one step over the intra-node link, us */
  double intra_gbps;         /* B_intra: bus bandwidth a ring reaches inside a node, GB/s */
  char intra_link[16];       /* link class inside a node ("nvlink", "pcie") */
  double nvls_algbw_gbps[FU_COLL_NVLS_OPS]; /* A_nvls of allreduce, allgather, reducescatter
                                               (bytes / time, GB/s); 0: no NVLS */
  double net_step_us;        /* latency of one step over the network, us (0 unknown) */
  double nic_gbps;           /* B_nic: one NIC's bandwidth, one direction, GB/s (0 unknown) */
  int nics_per_node;         /* NICs per node (0: one per GPU, as DGX/HGX nodes have) */
  double node_net_gbps;      /* the most one node's NICs carry together, one direction, GB/s
                                (0: no cap, k x nic_gbps); fitted where a multi-node curve falls
                                short of its GPUs' NICs (fu_cluster_fit) */
  char node_net_source[160]; /* where node_net_gbps came from ("" none) */
  int gpus_per_node;         /* GPUs in one node of the measured machine (0 unknown) */
  char intra_source[160];    /* where the intra-node parameters came from */
  char net_source[160];      /* where the network parameters came from */
  char nvls_source[160];     /* where the all-reduce A_nvls came from ("" measured with intra) */
  double simple_base_us;     /* Simple protocol: fixed cost of one call, us (0: no Simple line) */
  double simple_intra_step_us; /* Simple protocol: latency of one intra-node step, us */
  double simple_net_step_us; /* Simple protocol: latency of one network step, us */
  double simple_xintra_step_us; /* Simple protocol: latency of one intra-node step in a job that
                                   spans nodes (a hop of the tree's chain), fitted from multi-node
                                   curves of at least two GPU-per-node counts; 0: the one-node
                                   simple_intra_step_us */
  double proc_pair_us;       /* the process layout's cost (fu_coll_layout_us): a Simple call
                                across nodes whose process drives q GPUs pays proc_pair_us x
                                q (q - 1); fitted where the multi-node curves cover two or more
                                layouts, one of them above one GPU a process; 0 none */
  int job_gpus_per_proc;     /* pricing only, not a fitted parameter: GPUs one process drives in
                                the job priced (0 or 1: one process per GPU, as training
                                frameworks run); the caller sets it */
  int job_nccl_version;      /* pricing only: the NCCL the job priced runs, as NCCL_VERSION_CODE
                                (2.29.2: 22902); 0 unknown: the model takes its fastest line.
                                From FU_COLL_NCCL_NVLS_CHUNK on, see fu_coll_lines */
  int job_compcap;           /* pricing only: NCCL's compute capability of the job's GPU
                                (fu_gpu_compcap: 90 Hopper, 100 Blackwell; 0 unknown), which
                                NCCL's own tuning reads (fu_coll_nccl_prefers_nvls_tree) */
  fu_collerr err[FU_COLLERR_SCOPES]; /* the model's error on the fit's own logs, one node and
                                        across nodes (fu_collerr.h); n[] 0: none recorded */
} fu_cluster;

/* The network rate of one node of g GPUs, GB/s one direction: its k = min(g, nics_per_node)
 * NICs at nic_gbps, at most node_net_gbps where the profile has one. */
double fu_coll_node_net_gbps(const fu_cluster *c, int g);

/* A multi-node curve whose bus bandwidth falls short of the model's with a NIC a GPU by more than
 * this share (the fit's default tolerance, fu_fit_options) says the node's network does not scale
 * with its GPUs: fu_cluster_fit then fits node_net_gbps. */
#define FU_COLL_NET_SHORT 0.05

/* Most lines fu_coll_lines gives: 4 algorithms x 2 protocols. */
#define FU_COLL_MAX_LINES 8
/* Bandwidth of the LL protocol relative to Simple, as NCCL's tuning.cc charges it: 1/4 for
 * all-reduce or across nodes, 1/3 otherwise (an LL line carries 4 data bytes in 8 and its
 * flag polling costs more). */
#define FU_COLL_LL_FRAC_AR_NET 0.25
#define FU_COLL_LL_FRAC 0.333333333333
/* NCCL's tuning.cc caps LL's bus bandwidth at llMaxBw whatever the links (its flag polling
 * limits it): 87.7 GB/s on one node (Ampere and later), across nodes 39.0 on 2 nodes and 20.4 on
 * more (Intel hosts; tuning.cc's AMD row is lower still). A tree's bus bandwidth is twice its
 * algorithm bandwidth there, a ring's its busbw factor times it. */
#define FU_COLL_LL_MAX_1NODE 87.7
#define FU_COLL_LL_MAX_2NODES 39.0
#define FU_COLL_LL_MAX_NODES 20.4
/* NCCL's tuning.cc: a tree on LL reaches 1/3.8 of its Simple bandwidth. */
#define FU_COLL_LL_FRAC_TREE (1.0 / 3.8)
/* NCCL's tuning.cc: an intra-node LL step costs 1.8 times as much when the job spans nodes. */
#define FU_COLL_LL_INTRA_NET 1.8
/* NCCL 2.27 on (src/tuning/ring.cc): a ring on LL reaches 1/2 of the link, at most llMaxBw, and
 * an intra-node LL step costs the same across nodes; the model prices it so across nodes for a
 * job on 2.27 or later (on one node it keeps the constants above, which the one-node fits and
 * benches were made with). */
#define FU_COLL_LL_FRAC_27 0.5
/* LL128 as NCCL's tuning.cc prices a ring on it: 0.92 of Simple's bandwidth (120 data bytes in
 * each 128-byte line), a base latency 14 / 6.6 and an NVLink step 1.9 / 0.6 times LL's (the
 * model scales its fitted LL latencies by these ratios, as it splits a fitted latency by NCCL's
 * constants). */
#define FU_COLL_LL128_FRAC 0.92
#define FU_COLL_LL128_BASE_LL (14.0 / 6.6)
#define FU_COLL_LL128_STEP_LL (1.9 / 0.6)
/* Across nodes (priced where NCCL 2.27 or later picks it, fu_coll_lines): a ring's network step
 * 4.0 / 2.7 times LL's; a tree at 120/128 of its Simple bandwidth with a base latency 14 / 6.8,
 * an NVLink hop 1.25 / 0.6 and a network step 8.5 / 5.0 times LL's (tuning.cc's tree rows). */
#define FU_COLL_LL128_NET_LL (4.0 / 2.7)
#define FU_COLL_LL128_TREE_FRAC (120.0 / 128.0)
#define FU_COLL_LL128_TREE_BASE_LL (14.0 / 6.8)
#define FU_COLL_LL128_TREE_STEP_LL (1.25 / 0.6)
#define FU_COLL_LL128_TREE_NET_LL (8.5 / 5.0)
/* NCCL's NVLS_TREE efficiency (tuning.cc: algbw = busbw * 0.70 nNodes / (2 (nNodes - 1))). */
#define FU_COLL_NVLS_TREE_EFF 0.70

/* All zero: nothing known. */
void fu_cluster_init(fu_cluster *c);
/* 1 when the model can price ranks on one node (intra_gbps > 0); nodes > 1 also need nic_gbps. */
int fu_cluster_usable(const fu_cluster *c, int nodes);

/* 1 when the profile knows a Simple latency (then LL and Simple are priced apart). */
int fu_cluster_has_simple(const fu_cluster *c);

/* NCCL's protocols. FU_PROTO_ONE: the profile knows one latency per link (no Simple latencies),
 * so each algorithm has one line at the small-size latency and the full bandwidth. */
typedef enum fu_coll_proto { FU_PROTO_LL, FU_PROTO_LL128, FU_PROTO_SIMPLE, FU_PROTO_ONE } fu_coll_proto;

/* The model's algorithms. */
typedef enum fu_coll_algo { FU_CALGO_RING, FU_CALGO_TREE, FU_CALGO_NVLS, FU_CALGO_NVLS_TREE } fu_coll_algo;

/* "LL", "LL128", "Simple" ("" for FU_PROTO_ONE); "ring", "tree", "nvls", "nvls_tree". */
const char *fu_coll_proto_name(fu_coll_proto p);
const char *fu_coll_algo_name(fu_coll_algo a);

/* One algorithm's line at (op, ranks, nodes) under one protocol. */
typedef struct fu_coll_line {
  char algo[20];             /* "ring", "tree", "nvls", "nvls_tree", with "/LL" or "/Simple" when
                                the profile prices both protocols */
  fu_coll_algo algorithm;    /* the algorithm and protocol that name says */
  fu_coll_proto proto;
  double alpha_us;           /* latency */
  double beta_us_per_byte;   /* time per byte of message */
  double ladder_ops;         /* NVLS-tree's chunk ladder (fu_coll_chunk_slow): NCCL's NVLS
                                channels x heads; 0 none */
  double chunk_max;          /* NVLS-tree's largest chunk, bytes (0: the full Simple step,
                                FU_COLL_STEP_BYTES, as NCCL 2.18 cuts it) */
} fu_coll_line;

/* NCCL 2.19 (NCCL_VERSION_CODE 21900) and later: NVLS-tree's chunk is NCCL_NVLS_CHUNKSIZE,
 * 128 KiB by default, and 64 KiB from 4 nodes (NCCL_NVLSTREE_MAX_CHUNKSIZE's default; enqueue.cc
 * calcCollChunking), not the 512 KiB Simple step; the ladder below it is 2.18's. */
#define FU_COLL_NCCL_NVLS_CHUNK 21900
/* NVLS (NVLink SHARP) came with NCCL 2.17.1, NVLS-tree and NVLS across nodes with 2.18.1 (its
 * release notes): a job on an older NCCL runs neither. */
#define FU_COLL_NCCL_NVLS 21701
#define FU_COLL_NCCL_NVLS_TREE 21801
#define FU_COLL_NVLS_CHUNK_BYTES 131072.0
/* NCCL_VERSION_CODE of an NCCL 2 version as NCCL prints it ("2.29.2", "2.29.2+cuda12.9": 22902),
 * 0 where s is not one (no patch, another major, trailing text other than "+..."). */
int fu_nccl_version_code(const char *s);
/* NCCL_VERSION_CODE as NCCL prints its version into buf (22907 -> "2.29.7" from 2.9 on, 2708 ->
 * "2.7.8" before); buf left as it was for a code below 1000 (none). Returns buf. */
const char *fu_nccl_version_string(long code, char *buf, size_t len);
#define FU_COLL_NVLS_CHUNK_4NODES 65536.0

/* The algorithms that apply to op at (ranks, nodes) for a message of `bytes`, at most
 * FU_COLL_MAX_LINES lines. FU_EDATA (message printed) when the model lacks a parameter they need
 * or op is not a collective it covers (allreduce, allgather, reducescatter). ranks must be a
 * multiple of nodes.
 * Where the job's NCCL is known (c->job_nccl_version) and is 2.19 or later, an NVLS-tree line
 * (all-reduce across nodes) is what NCCL runs, not what is fastest: NCCL picks by its own tuning
 * model (fu_coll_nccl_prefers_nvls_tree, in the form of the job's NCCL; from 2.27 it depends on
 * `bytes`, which matters nowhere else). 2.19-2.26: where that prefers NVLS-tree, the ring and
 * tree Simple lines are left out (the protocol is still the model's: LL lines stay) and NVLS-tree
 * is cut in 2.19's chunks (FU_COLL_NCCL_NVLS_CHUNK). 2.27 on: the one line is NCCL's pick,
 * algorithm and protocol (fu_coll_nccl_pick), NVLS-tree in those chunks, and where NCCL picks
 * LL128 across nodes (NVLink nodes) the model prices it as tuning.cc does (FU_COLL_LL128_*), from
 * its fitted LL latencies and Simple bandwidths; for a profile without Simple latencies the
 * algorithm's one line. */
int fu_coll_lines(const fu_cluster *c, fu_op op, int ranks, int nodes, double bytes, fu_coll_line *lines,
                  int *nlines);
/* Every line the model prices for op at (ranks, nodes) before NCCL's choice (the candidates of
 * fu_coll_lines, chunks uncut); FU_EDATA as fu_coll_lines. */
int fu_coll_lines_all(const fu_cluster *c, fu_op op, int ranks, int nodes, fu_coll_line *lines, int *nlines);

/* NCCL's own pick (algorithm, protocol) for an all-reduce at (ranks, nodes > 1) of `bytes` in the
 * 2.27-on form (fu_coll_nccl_prefers_nvls_tree), whatever c's version; 0 where it has none to
 * make (one node, ranks not a multiple of nodes). */
int fu_coll_nccl_pick(const fu_cluster *c, int ranks, int nodes, double bytes, fu_coll_algo *algo,
                      fu_coll_proto *proto);

/* NCCL 2.27 (NCCL_VERSION_CODE 22700) and later: NCCL's tuning in its current source's form
 * (fu_coll_nccl_prefers_nvls_tree). Which release first carried each constant of that form is not
 * checked (tests/bench/nccl_choice.py says the same). */
#define FU_COLL_NCCL_27 22700

/* 1 when NCCL's own tuning model would run an all-reduce at (ranks, nodes) on NVLS-tree, with c's
 * fitted rates standing in for NCCL's channels x per-channel bandwidth (L = min(B_intra, k B_nic),
 * k B_nic the node's NICs, A_nvls the fitted NVLS algorithm bandwidth), in the form of the job's
 * NCCL (c->job_nccl_version):
 *   2.19-2.26 (tuning.cc of that era): NVLS-tree's bandwidth min(A_nvls, k B_nic) x 5/6 above the
 *     ring's L p / (2 (p - 1)) and the tree's 0.92 L / 2, whatever the size (`bytes` unused).
 *   2.27 on, and an unknown version (the newest form; fu_coll_lines asks only for a known one):
 *     NCCL's time at `bytes` (src/tuning/ring.cc, tree.cc, nvls.cc; tests/bench/nccl_choice.py)
 *     of NVLS-tree/Simple is the least of ring and tree on LL, LL128 (NVLink nodes) and Simple.
 *     NVLS-tree's bus bandwidth is min(2 x A_nvls x 15/16, k B_nic x (2 on <= 2 nodes, else 1),
 *     16 x the per-channel cap), converted to algorithm bandwidth as the ring's, p / (2 (p - 1)):
 *     from 3 nodes, where the NICs bind, it equals the ring's, and the latency decides (NVLS-tree
 *     25 + 2 log2(N) x 20.9 us against the ring's 2(p - 1) steps) and, on Blackwell
 *     (c->job_compcap >= 100, an x86 host assumed), the tree correction NCCL applies to
 *     NVLS-tree below 1 GiB. Caps per channel at 16 channels, Intel hosts' LL cap and network
 *     overhead, as nccl_choice.py. */
int fu_coll_nccl_prefers_nvls_tree(const fu_cluster *c, int ranks, int nodes, double bytes);

/* The sizes in (x0, x1) at which NCCL's pick (fu_coll_nccl_pick, fu_coll_nccl_prefers_nvls_tree)
 * may change for an all-reduce at (ranks, nodes) under c's NCCL, ascending, into x (at most max);
 * returns their count (0 where the choice does not depend on size: the 2.19-2.26 form). Between
 * two of them NCCL's pick is one line. */
int fu_coll_nccl_choice_breaks(const fu_cluster *c, int ranks, int nodes, double x0, double x1, double *x,
                               int max);

/* NCCL's compute capability of a GPU model as NCCL's tuning tables index it: 100 Blackwell (B100,
 * B200, B300, GB200, GB300, RTX 50xx, RTX PRO 6000), 90 Hopper (H100, H200, H800, H20, GH200),
 * 80 Ampere (A100, A800, A30, A40, A10, A6000, RTX 30xx); 0 unknown or older. */
int fu_gpu_compcap(const char *gpu);

/* NCCL's tuning.cc slows a tree at middle sizes by a factor on its bandwidth ("trees are not
 * perfectly sticking to the model for medium sizes"), per protocol and power of two of
 * bytes / 64 from 64 B to 256 MiB (1 above; FU_PROTO_ONE takes Simple's): the factor for algo a
 * at `bytes` (1 for every algorithm but the tree). */
double fu_coll_tree_corr(fu_coll_algo a, fu_coll_proto p, double bytes);
/* The sizes where those factors change: 64 B x 2^k, k = 1 .. FU_COLL_TREE_CORR_N. */
#define FU_COLL_TREE_CORR_N 23

/* NCCL's chunk ladder for NVLS-tree (enqueue.cc): its chunk is a full Simple step (4 MiB buffer
 * / 8 steps = 512 KiB) only from 32 x ops x 512 KiB up (ops = NVLS channels x heads, one head
 * per NIC of a node); below, 256 KiB, and 128 KiB below 16 ops 256 KiB, 64 KiB below 4 ops
 * 128 KiB, 32 KiB below ops 64 KiB, so that every channel gets enough chunks to pipeline. Part
 * of a chunk's time is a cost per chunk (its handshakes through the proxy and the network), the
 * rest per byte: at r = 512 KiB / chunk the line's time per byte is taken
 * 1 + FU_COLL_CHUNK_SHARE (r - 1) times its own: the factor for l at `bytes` (1 for lines without
 * a ladder). */
double fu_coll_chunk_slow(const fu_coll_line *l, double bytes);
/* The sizes where fu_coll_chunk_slow changes for l, ascending, into x (at most 4); returns their
 * count. */
int fu_coll_chunk_breaks(const fu_coll_line *l, double *x);
/* The share of NVLS-tree's time per byte at its full 512 KiB chunk that is paid per chunk, from
 * NVIDIA/nccl pull request 1112 (8 AWS P5 nodes of 8 H100, nccl-tests all-reduce of 4 GiB on
 * NVLS-tree: 81146 us with NCCL 2.19.3's 64 KiB chunk, 30222 us with 512 KiB; so
 * 1 + 7 s = 81146 / 30222, s = 0.24). Independent of the logs fusim is checked on. */
#define FU_COLL_CHUNK_SHARE 0.24
/* NCCL's NVLS channel count (its NCCL_NVLS_NCHANNELS default) and full Simple step (bytes). */
#define FU_COLL_NVLS_CHANNELS 16
#define FU_COLL_STEP_BYTES 524288.0

/* Bus bandwidth of op's ring relative to the all-reduce's at the same link rate (1 for
 * all-reduce). NCCL's ring runs one loop of primitives per chunk of each rank's share (device
 * all_reduce.h, all_gather.h, reduce_scatter.h): all-reduce sends 2(p-1) chunks a loop,
 * all-gather and reduce-scatter p-1, and each loop ends with a primitive that only receives, during
 * which the rank sends nothing. With the pipeline one slice deep, that idles the rank's link for
 * b = one slice of a chunk a loop: Simple splits a chunk into ALLREDUCE_CHUNKSTEPS /
 * ALLREDUCE_SLICESTEPS = 2 slices (b = 1/2), LL and LL128 send it as one (b = 1). So the ring
 * reaches k / (k + b) of its link for k chunks a loop, and all-gather and reduce-scatter reach
 * (p-1)/(p-1+b) / (2(p-1)/(2(p-1)+b)) of the all-reduce's bus bandwidth: 0.83 at 2 ranks, 0.97 at 8
 * (Simple). The all-reduce's own rate is the profile's (intra_gbps, fitted at the rank counts
 * measured): the model does not move it with p (NCCL's tuning.cc does not either). */
double fu_coll_ring_share(fu_op op, int ranks, fu_coll_proto proto);

/* A line's time at `bytes`: alpha + beta bytes x fu_coll_chunk_slow / fu_coll_tree_corr. */
double fu_coll_line_time(const fu_coll_line *l, double bytes);

/* Time of the fastest algorithm at `bytes`; algo (may be NULL) gets its name (20 bytes). */
int fu_coll_time(const fu_cluster *c, fu_op op, int ranks, int nodes, double bytes, double *t_us,
                 char *algo, size_t len);

/* An observation for fitting: one measured curve reduced to its two ends. */
typedef struct fu_coll_obs {
  fu_op op;                  /* allreduce, allgather or reducescatter */
  int ranks;                 /* ranks measured */
  int nodes;                 /* nodes they ran on */
  double lat_us;             /* time at the smallest sizes less its bandwidth term, us */
  double busbw_gbps;         /* bus bandwidth at the largest sizes, GB/s */
  double lat_simple_us;      /* intercept of a line through the largest sizes, us (0 unknown) */
  int gpus_per_proc;         /* GPUs one process drove (0 unknown: taken as one) */
  int forced_nvls;           /* 1: an all-reduce NCCL was made to run as NVLS at every size
                                (NCCL_ALGO=NVLS): its smallest sizes are NVLS's (Simple), not
                                the ring's LL */
} fu_coll_obs;

/* Fits the parameters the observations determine and keeps the others of *c (its base): the
 * intra-node ring bandwidth from one-node curves (all-gather and reduce-scatter at busbw /
 * fu_coll_ring_share, 2-rank all-reduce; an all-reduce over more ranks well above it is NVLS
 * and gives A_nvls; where one-node all-reduces over > 2 ranks are all there is, on a machine
 * with NVLS they are NVLS and the ring is A_nvls / fu_coll_nvls_efficiency), latency from
 * their small sizes (base + steps * l_intra by least squares; with one step count, split as NCCL's
 * tuning.cc splits the latency of the algorithm that ran), and from multi-node curves
 * the NIC bandwidth and network step latency that minimise the squared log error of the
 * model's best algorithm over them. Where a curve of more than one GPU a node falls short of the
 * model's bus bandwidth with a NIC a GPU by more than FU_COLL_NET_SHORT, the node's network does
 * not scale with its GPUs (fewer NICs than GPUs, a shared uplink: the logs do not say which), and
 * the fit caps it: node_net_gbps and the NIC rate refitted together (the cap never below one
 * NIC), kept where it fits better, node_net_source saying which curve fell short; otherwise no
 * cap (0). gpu (may be NULL) names the GPU model: with the intra-node
 * fit done and no one-node all-reduce over > 2 ranks observed (one without NVLS says the
 * machine did not run it), fu_cluster_nvls_from_machine runs before the network fit, so that
 * the network is fitted under the algorithms the machine has. `source` labels what was fitted. Returns FU_OK also when
 * nothing could be fitted (*fitted_intra / *fitted_net say what was). */
int fu_cluster_fit(fu_cluster *c, const fu_coll_obs *obs, size_t n, const char *source,
                   const char *gpu, int *fitted_intra, int *fitted_net);

/* NVLS's algorithm bandwidth as a share of the ring's bus bandwidth on one NVSwitch node, for the
 * GPU model named, as public logs measured it: 0.74 Hopper (H100, H200, H800, H20, GH200: the
 * published 8x H200 NVLS all-reduce, 274 GB/s at 8 GiB, over a DGX H100 pair's 368 GB/s ring;
 * H100 nodes' NVLS 480 GB/s busbw is the same share), 0.70 Blackwell (B100, B200, B300, GB200,
 * GB300: the MIT B200 node's NVLS all-reduce over its own all-gather's and reduce-scatter's ring,
 * 0.69-0.71). NCCL's tuning model rates them 0.85 and 0.74 (nvlsEfficiency, src/tuning/nvls.cc),
 * above what these machines reach; fusim prices time, so it takes the measured share. 0 where the
 * GPU has no NVLS: older or unknown models, and PCIe cards ("PCIe", NVLink-bridged "NVL"), which
 * have no NVSwitch. */
double fu_coll_nvls_efficiency(const char *gpu);

/* NCCL's tuning.cc latency (us) of a one-node ring all-reduce of p ranks over NVLink, Simple: its
 * base and 2 (p - 1) steps (8.4 + 2 x 3.4 = 15.2 at 2 ranks). */
double fu_coll_nccl_ring_simple_us(int p);

/* NVLS from the machine, as NCCL enables it by hardware: where c has no all-reduce A_nvls, its
 * intra-node link is NVLink and the GPU has an NVLS share e (fu_coll_nvls_efficiency), and
 * the fitted ring rate exceeds half the GPU's NVLink bandwidth (fu_link_limit_gbps: a pair of
 * GPUs using all their links, as only an NVSwitch gives; boards that wire GPUs directly split
 * the links among peers), sets A_nvls = e x intra_gbps and nvls_source. Returns 1 when it did. */
int fu_cluster_nvls_from_machine(fu_cluster *c, const char *gpu);

/* The per-call cost of the process layout on a Simple line across nodes: q = min(gpus_per_proc,
 * g) GPUs of a node driven by one process (nccl-tests -g q, one process per node) put q network
 * proxy threads, one per GPU, beside the process's own thread on the cores it is bound to
 * (OpenMPI binds each of <= 2 processes to one core); each proxy's step waits for the others'
 * turns, and each of the q GPUs' steps is on the call's path: q (q - 1) waits a call, each
 * proc_pair_us. One process per GPU (q = 1) pays nothing. NCCL's LL steps are not priced with
 * it: the logs that show the cost (DGX H100 pair, 4 and 8 GPUs a process) run their LL sizes at
 * the 1-GPU-a-process latency. Measured on the DGX H100 pair, one NCCL and host: 49, 56, 219,
 * 1392 us at 1-64 MiB above the bytes' time at 1, 2, 4, 8 GPUs a process. */
double fu_coll_layout_us(const fu_cluster *c, int gpus_per_proc, int gpus_per_node);

/* Name of the NVLS slot of op (-1 when op has none). */
int fu_coll_nvls_slot(fu_op op);

#endif
