"""nccl_choice.py: which algorithm and protocol NCCL's own tuning model would pick, for
cluster_bench's per-size tables (a diagnostic: fusim's cost model does not use it).

NCCL picks by its tuning model: time = latency + bytes / bandwidth per (algorithm, protocol), with
its published latency constants (us) and its protocol and algorithm shares of the link bandwidth.
Two forms, chosen by the NCCL version the job runs (choice's version, "X.Y.Z"):

  2.19-2.26 (src/graph/tuning.cc of that era; also taken for an older or unknown version): ring LL
      at 1/4 of the link (1/3 for all-gather and reduce-scatter on one node), NVLS and NVLS-tree at
      5/6 of their bus bandwidth, a ring's network steps 2N for all-reduce, an intra-node LL step
      1.8x dearer across nodes, tree Simple latency 28 us a hop.
  2.27 on (the current source: src/graph/tuning.cc's constants table, src/tuning/ring.cc, tree.cc,
      nvls.cc, which say they keep the pre-refactor model): ring LL at 1/2 of the link, LL's cap
      llMaxBw by GPU on one node (Hopper 141, Blackwell 282 GB/s), tree Simple 8.4 + 4.0 us a hop
      and 14 us a network step, NVLS 25 us, NVLS-tree 25 + 2 log2(N) x 20.9 us; NVLS-tree's bus
      bandwidth min(2 x nvlsEfficiency x the NVLink rate x (ch - 1) / ch, the NICs' x 2 on <= 2
      nodes, ch x perChMaxNVLSTreeBw) at the algorithm's p / (2 (p - 1)); per-channel caps on the
      tree, tree LL128 and ring LL128 (Hopper / Blackwell rows); a ring's network steps 2(N - 1)
      for all-reduce, at the tree's network latency with one GPU a node; Blackwell x86 hosts take
      the tree correction on NVLS-tree too. Which release first carried each constant is not
      checked: a 2.2x tuning.cc still has NVLS-tree 14 us a network step, NVLS-tree at 5/6 and
      Blackwell's caps at twice Hopper's. Nor is every later change followed: the ring-plateau
      factor on one Blackwell NVLink node is taken as that source has it (x 1.4 on all-gather and
      reduce-scatter); a later src/tuning/ring.cc applies it to all-reduce too and scales it down
      by the ring's steps and the bytes a rank and channel carry. The bench prices no one-node
      Blackwell job, so no nccl column depends on it.

NCCL's per-channel bandwidth times its channel count is not in a profile; the fitted link rates
stand in for it: a ring's or tree's bus bandwidth min(B_intra, k x B_nic), NVLS the fitted NVLS
algorithm bandwidth, and nvlsEfficiency x the NVLink rate (2.27 on) the fitted NVLS all-reduce
algorithm bandwidth (the profile's reading of NVLS, fu_coll.h). Per-channel caps take 16 channels
(NCCL_NVLS_NCHANNELS' default; 8-NIC nodes run at least as many rings and trees); at that count
none binds on the bench's clusters. The 2.19 form leaves the caps out. CollNet and PAT (all-gather
and reduce-scatter with one GPU a node) are left out. LL128 is taken as enabled on NVLink (NCCL
enables it there from Volta, across nodes where the NIC is on the GPU's PCIe switch or PXN). Intel
x86 hosts are assumed (the LL cap and network overhead rows).
"""
import math

PROTOS = ("LL", "LL128", "Simple")
# baseLat[algo][proto] and hwLat[hw][algo][proto], proto order LL, LL128, Simple
BASE = {"tree": (6.8, 14.0, 0), "ring": (6.6, 14.0, 8.4), "nvls": (0, 0, 0), "nvls_tree": (0, 0, 0)}
HW = {
    "nvlink": {"tree": (.6, 1.25, 28), "ring": (.6, 1.9, 3.4), "nvls": (0, 0, 23), "nvls_tree": (0, 0, 23)},
    "pcie": {"tree": (1.0, 1.9, 28), "ring": (1.0, 2.5, 5.7), "nvls": (0, 0, 0), "nvls_tree": (0, 0, 0)},
    "net": {"tree": (5.0, 8.5, 28), "ring": (2.7, 4.0, 14.0), "nvls": (0, 0, 18), "nvls_tree": (0, 0, 14)},
}
BASE27 = dict(BASE, tree=(6.8, 14.0, 8.4))
HW27 = {
    "nvlink": {"tree": (.6, 1.25, 4.0), "ring": (.6, 1.9, 3.4), "nvls": (0, 0, 25), "nvls_tree": (0, 0, 25)},
    "pcie": {"tree": (1.0, 1.9, 4.0), "ring": (1.0, 2.5, 5.7), "nvls": (0, 0, 0), "nvls_tree": (0, 0, 0)},
    "net": {"tree": (5.0, 8.5, 14), "ring": (2.7, 4.0, 14.0), "nvls": (0, 0, 18), "nvls_tree": (0, 0, 20.9)},
}
LL_MAX = {1: 87.7, 2: 39.0}  # GB/s bus bandwidth; more nodes: 20.4
# 2.27 on: one node by GPU (Volta, Ampere, Hopper, Blackwell), across nodes the Intel row
LL_MAX_1NODE27 = {"volta": 39.0, "ampere": 87.7, "hopper": 141.0, "blackwell": 282.0}
# per-channel caps, GB/s, (1 node, 2 nodes, more): ring LL128, tree Simple, tree LL128, NVLS-tree
CAPS27 = {
    "volta": ((20.0, 20.0, 20.0), (26.5, 18.5, 10.0), (20.0, 20.0, 20.0), (26.5, 18.5, 10.0)),
    "ampere": ((20.0, 20.0, 20.0), (24.0, 23.6, 17.8), (20.0, 20.0, 20.0), (24.0, 23.6, 17.8)),
    "hopper": ((36.7, 36.7, 36.7), (38.7, 41.4, 36.0), (36.7, 36.7, 29.0), (0.0, 57.7, 45.5)),
    "blackwell": ((40.0, 40.0, 40.0), (70.0, 42.8, 24.0), (55.6, 31.67, 20.0), (0.0, 96.0, 80.0)),
}
CHANNELS = 16  # the channel count the per-channel caps are taken at (see above)
NET_OVERHEAD = 1.0  # us, Intel hosts
TREE_CORR = {
    "LL": (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0),
    "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0),
    "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9),
}


def _log2i(n):
    return max(int(n).bit_length() - 1, 0)


def form(version):
    """'2.27' for NCCL 2.27 or later ("X.Y.Z"), else '2.19' (older or unknown)."""
    try:
        major, minor = (int(x) for x in str(version).split(".")[:2])
    except ValueError:
        return "2.19"
    return "2.27" if (major, minor) >= (2, 27) else "2.19"


def arch(gpu):
    """NCCL's compute-capability row of a GPU name (Blackwell, Hopper, Ampere; else Volta)."""
    g = (gpu or "").upper()
    if any(k in g for k in ("B100", "B200", "B300", "GB200", "GB300", "RTX PRO 6000", "5090")):
        return "blackwell"
    if any(k in g for k in ("H100", "H200", "H800", "H20", "GH200")):
        return "hopper"
    if any(k in g for k in ("A100", "A800", "A30", "A40", "A10", "A6000", "RTX 30")):
        return "ampere"
    return "volta"


def table(cluster, op, ranks, nodes, version=None, gpu=""):
    """{(algo, proto): (latency us, algorithm bandwidth GB/s)} as NCCL's tuning model sets it."""
    p, n_nodes = ranks, nodes
    g = p // n_nodes
    ar = op == "allreduce"
    new = form(version) == "2.27"
    base_lat, hw_lat = (BASE27, HW27) if new else (BASE, HW)
    a_row = arch(gpu)
    scale = min(n_nodes, 3) - 1  # the caps' column: 1 node, 2 nodes, more
    ring_ll128_cap, tree_cap, tree_ll128_cap, nvls_tree_cap = (CHANNELS * c[scale] for c in CAPS27[a_row])
    intra_hw = "nvlink" if cluster.get("intra_link", "nvlink") == "nvlink" else "pcie"
    nics = cluster.get("nics_per_node") or g
    nics = min(nics, g)
    link = cluster["intra_gbps"] if g > 1 else math.inf
    net = min(nics * cluster["nic_gbps"], cluster.get("node_net_gbps") or math.inf) if n_nodes > 1 else math.inf
    link = min(link, net)
    nvls = (cluster.get("nvls_algbw_gbps") or [0, 0, 0])[{"allreduce": 0, "allgather": 1, "reducescatter": 2}[op]]
    nsteps = 2 * (p - 1) if ar else p - 1
    if new:
        ninter = (2 * (n_nodes - 1) if ar else n_nodes - 1) if n_nodes > 1 else 0
        ll_max = LL_MAX_1NODE27[a_row] if n_nodes == 1 else LL_MAX.get(n_nodes, 20.4)
    else:
        ninter = (2 * n_nodes if n_nodes > 1 else 0) if ar else n_nodes - 1
        ll_max = LL_MAX.get(n_nodes, 20.4)
    algos = ["ring"]
    if ar and n_nodes > 1:
        algos.append("tree")
    if nvls > 0 and n_nodes == 1 and g > 2:
        algos.append("nvls")
    if nvls > 0 and ar and n_nodes > 1 and g > 2:  # nvls.cc: no NVLS with 2 GPUs a node
        algos.append("nvls_tree")
    out = {}
    for a in algos:
        for k, proto in enumerate(PROTOS):
            if a in ("nvls", "nvls_tree") and proto != "Simple":
                continue
            if proto == "LL128" and intra_hw != "nvlink":
                continue
            bus = link
            if a == "nvls":
                bw = nvls
            elif a == "nvls_tree" and new:
                # nvlsEfficiency x the NVLink rate: the fitted NVLS all-reduce algbw
                bus = min(2 * nvls * (CHANNELS - 1) / CHANNELS, net * (2 if n_nodes <= 2 else 1),
                          nvls_tree_cap)
                bw = bus * p / nsteps
            elif a == "nvls_tree":
                bw = min(nvls, net) * 5.0 / 6.0
            else:
                if a == "ring" and proto == "LL":
                    bus = min(ll_max, bus * (0.5 if new else 0.25 if n_nodes > 1 or ar else 1 / 3))
                if a == "ring" and proto == "LL128":
                    bus = min(bus * 0.92, ring_ll128_cap) if new else bus * (0.7 if g < 2 else 0.92)
                if a == "tree":
                    bus = min(bus * 0.92, tree_cap) if new else bus * 0.92
                    if proto == "LL":
                        bus = min(bus / 3.8, ll_max)
                    if proto == "LL128":
                        frac = 7 / 9 if n_nodes == 1 else 120 / 128
                        bus = min(bus * frac, tree_ll128_cap) if new else bus * frac
                bw = bus * (p / nsteps if a == "ring" else 0.5)
            intra = hw_lat[intra_hw][a][k]
            inter = hw_lat["net"][a][k]
            if new and a == "ring" and g == 1:  # one GPU a node: the tree's network latency
                inter = hw_lat["net"]["tree"][k]
            if n_nodes > 1 and proto == "LL" and not new:
                intra *= 1.8
            lat = base_lat[a][k]
            if a == "ring":
                if n_nodes > 1:
                    intra = max(intra, NET_OVERHEAD * (3 if proto == "Simple" else 1))
                lat += (nsteps - ninter) * intra + ninter * inter
            elif a == "tree":
                lat += 2 * ((g - 1) * intra + _log2i(n_nodes) * inter)
            elif a == "nvls":
                lat = intra + (inter if n_nodes > 1 else 0)
            else:
                lat += intra + 2 * _log2i(n_nodes) * inter
            out[(a, proto)] = (lat, bw)
    return out


def choice(cluster, op, ranks, nodes, nbytes, version=None, gpu=""):
    """NCCL's pick at nbytes: 'algo/proto'."""
    best, name = math.inf, "-"
    new = form(version) == "2.27"
    for (a, proto), (lat, bw) in table(cluster, op, ranks, nodes, version, gpu).items():
        if not bw > 0:
            continue
        log_size = _log2i(nbytes >> 6)
        if a == "tree" and log_size < 23:
            bw *= TREE_CORR[proto][log_size]
        if new and a == "nvls_tree" and arch(gpu) == "blackwell" and log_size < 24:
            bw *= TREE_CORR[proto][log_size]  # Blackwell x86 hosts (nvls.cc)
        plateau = (nodes > 1 and op == "allreduce") if not new else (
            (nodes > 1 and op == "allreduce") or (nodes == 1 and op != "allreduce" and arch(gpu) == "blackwell"
                                                  and cluster.get("intra_link", "nvlink") == "nvlink"))
        if a == "ring" and proto == "Simple" and plateau and (not new or nbytes / (CHANNELS * ranks) >= 64):
            lat *= 1.4  # tuning.cc's "plateau effect of ring" (2.19 form: its per-channel size test assumed met)
        t = lat + nbytes / (1e3 * bw)
        if t < best:
            best, name = t, f"{a}/{proto}"
    return name
