"""nccl_choice.py: which algorithm and protocol NCCL's own tuning model would pick, for
cluster_bench's per-size tables (a diagnostic: fusim's cost model does not use it).

NCCL picks by its tuning model (src/graph/tuning.cc, the 2.19-2.2x form): time = latency +
bytes / bandwidth per (algorithm, protocol), with its published latency constants (us) and its
protocol and algorithm shares of the link bandwidth. NCCL's per-channel bandwidth times its channel
count is not in a profile; the fitted link rates stand in for it: a ring's or tree's bus bandwidth
min(B_intra, k x B_nic), NVLS the fitted NVLS algorithm bandwidth. Caps that need the channel count
(LL128 and tree per-channel maxima) are left out, as are CollNet and PAT. LL128 is taken as enabled
on NVLink (NCCL enables it by default on NVLink for Volta to Hopper). Intel hosts are assumed (the
LL cap and network overhead rows).
"""
import math

# baseLat[algo][proto] and hwLat[hw][algo][proto], proto order LL, LL128, Simple
BASE = {"tree": (6.8, 14.0, 0), "ring": (6.6, 14.0, 8.4), "nvls": (0, 0, 0), "nvls_tree": (0, 0, 0)}
HW = {
    "nvlink": {"tree": (.6, 1.25, 28), "ring": (.6, 1.9, 3.4), "nvls": (0, 0, 23), "nvls_tree": (0, 0, 23)},
    "pcie": {"tree": (1.0, 1.9, 28), "ring": (1.0, 2.5, 5.7), "nvls": (0, 0, 0), "nvls_tree": (0, 0, 0)},
    "net": {"tree": (5.0, 8.5, 28), "ring": (2.7, 4.0, 14.0), "nvls": (0, 0, 18), "nvls_tree": (0, 0, 14)},
}
PROTOS = ("LL", "LL128", "Simple")
LL_MAX = {1: 87.7, 2: 39.0}  # GB/s bus bandwidth; more nodes: 20.4
NET_OVERHEAD = 1.0  # us, Intel hosts
TREE_CORR = {
    "LL": (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0),
    "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0),
    "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9),
}


def _log2i(n):
    return max(int(n).bit_length() - 1, 0)


def table(cluster, op, ranks, nodes):
    """{(algo, proto): (latency us, algorithm bandwidth GB/s)} as NCCL's tuning model sets it."""
    p, n_nodes = ranks, nodes
    g = p // n_nodes
    ar = op == "allreduce"
    intra_hw = "nvlink" if cluster.get("intra_link", "nvlink") == "nvlink" else "pcie"
    nics = cluster.get("nics_per_node") or g
    nics = min(nics, g)
    link = cluster["intra_gbps"] if g > 1 else math.inf
    if n_nodes > 1:
        link = min(link, nics * cluster["nic_gbps"])
    nvls = (cluster.get("nvls_algbw_gbps") or [0, 0, 0])[{"allreduce": 0, "allgather": 1, "reducescatter": 2}[op]]
    nsteps = 2 * (p - 1) if ar else p - 1
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
            elif a == "nvls_tree":
                bw = min(nvls, nics * cluster["nic_gbps"]) * 5.0 / 6.0
            else:
                if a == "ring" and proto == "LL":
                    bus = min(ll_max, bus * (0.25 if n_nodes > 1 or ar else 1 / 3))
                if a == "ring" and proto == "LL128":
                    bus *= 0.7 if g < 2 else 0.92
                if a == "tree":
                    bus *= 0.92
                    if proto == "LL":
                        bus = min(bus / 3.8, ll_max)
                    if proto == "LL128":
                        bus *= 7 / 9 if n_nodes == 1 else 120 / 128
                bw = bus * (p / nsteps if a == "ring" else 0.5)
            intra = HW[intra_hw][a][k]
            inter = HW["net"][a][k]
            if n_nodes > 1 and proto == "LL":
                intra *= 1.8
            lat = BASE[a][k]
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


def choice(cluster, op, ranks, nodes, nbytes):
    """NCCL's pick at nbytes: 'algo/proto'."""
    best, name = math.inf, "-"
    for (a, proto), (lat, bw) in table(cluster, op, ranks, nodes).items():
        if not bw > 0:
            continue
        log_size = _log2i(nbytes >> 6)
        if a == "tree" and log_size < 23:
            bw *= TREE_CORR[proto][log_size]
        if a == "ring" and proto == "Simple" and nodes > 1 and op == "allreduce":
            lat *= 1.4  # tuning.cc's "plateau effect of ring" (its per-channel size test assumed met)
        t = lat + nbytes / (1e3 * bw)
        if t < best:
            best, name = t, f"{a}/{proto}"
    return name
