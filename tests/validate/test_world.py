#!/usr/bin/env python3
"""test_world.py: the CPU side of tools/validate_torch.py --world-size N (issue 10, item 4), by
hand and without PyTorch: which plans run at N ranks (select_plans) and how their --comm reads
(row_comm); the runners after the rows (extra_runners: the probes, then --baseline-twin's second
framework-free runner); merge_ranks putting every rank's times beside rank 0's (medians and the skew worked
out by hand below), and refusing a rank's file that lacks a row (one line, 65, runs.json left as
it was); store_torch_validation's flags for such a row (allreduce:N:LINK) and the link read from
`nvidia-smi topo -m` (an NVLink pair, a PCIe pair, none); torch_host.align_ranks's barrier only
at several ranks (a stand-in for torch.distributed); nvidia-smi's name for torch's GPU (smi_id)
and a one-rank run's environment under torchrun (world_of_one)."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.environ.get("FUSIM_SOURCE_ROOT",
                                    os.path.join(os.path.dirname(__file__), "..", "..")), "tools")
sys.path.insert(0, TOOLS)
import store_torch_validation as st  # noqa: E402
import validate_torch as vt  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


# --- plans at N ranks
one = [p[0] for p in vt.select_plans(None, 1)]
two = [p[0] for p in vt.select_plans(None, 2)]
check("world 1: every plan (%d)" % len(one), one == [p[0] for p in vt.PLANS])
check("world 2: DDP's all-reduce plans only: %s" % two,
      two == ["ddp none", "ddp 1MiB", "ddp 4MiB", "ddp default", "ddp 100MiB", "ddp default view"])
check("world 2: labelled plans run as labelled",
      [p[0] for p in vt.select_plans(["hooks 4MiB", "ddp 1MiB"], 2)] == ["ddp 1MiB", "hooks 4MiB"])
check("extra runners: the probes, then the baseline twin",
      vt.extra_runners(True, True) == vt.PROBES + [vt.BASELINE_TWIN])
check("extra runners: the twin alone", vt.extra_runners(False, True) == [vt.BASELINE_TWIN])
check("extra runners: none", vt.extra_runners(False, False) == [])
check("the twin is framework-free: a runner kind that wraps nothing, no fuser",
      vt.BASELINE_TWIN[6] not in ("ddp", "ddp_off", "ddp_noop", "hooks_first", "hooks"))
check("row_comm: all-reduce over the world", vt.row_comm("allreduce:1", 2) == "allreduce:2")
check("row_comm: world 1 unchanged", vt.row_comm("allreduce:1", 1) == "allreduce:1")
check("row_comm: the offload stays", vt.row_comm("offload", 4) == "offload")

# --- merge_ranks: rank 0 [100, 110, 120] and rank 1 [104, 103, 130] for 'ddp none':
# per-iteration |difference| 4, 7, 10 -> median 7; medians 110 and 104 -> spread 6.
# compute-only: rank 0 [90, 92, 94], rank 1 [91, 95, 93]: differences 1, 3, 1 -> 1; medians 92, 93 -> 1.
R0 = {"format": "fusim-torch-validation-1", "world_size": 2, "rank": 0,
      "models": [{"workload": "w", "compute_only_times_us": [90, 92, 94],
                  "rows": [{"plan_label": "ddp none", "times_us": [100, 110, 120],
                            "measured_us": 110}]}]}
R1 = {"format": "fusim-torch-validation-1", "world_size": 2, "rank": 1,
      "models": [{"workload": "w", "compute_only_times_us": [91, 95, 93],
                  "rows": [{"plan_label": "ddp none", "times_us": [104, 103, 130],
                            "measured_us": 104}]}]}
tmp = tempfile.mkdtemp(prefix="fusim-world-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
os.makedirs(os.path.join(tmp, "rank1"))
for path, res in (("runs.json", R0), ("rank1/runs.json", R1)):
    with open(os.path.join(tmp, path), "w") as f:
        json.dump(res, f)
vt.merge_ranks(tmp, 2)
with open(os.path.join(tmp, "runs.json")) as f:
    m = json.load(f)
row, mod = m["models"][0]["rows"][0], m["models"][0]
check("merged: rank times one list a rank", row["rank_times_us"] == [[100, 110, 120], [104, 103, 130]])
check("merged: rank medians 110, 104 (%s)" % row["rank_measured_us"], row["rank_measured_us"] == [110, 104])
check("merged: skew per iteration 7 (%s), of the medians 6 (%s)"
      % (row["rank_skew_iter_us"], row["rank_skew_median_us"]),
      row["rank_skew_iter_us"] == 7 and row["rank_skew_median_us"] == 6)
check("merged: the row's figure stays rank 0's", row["measured_us"] == 110)
check("merged: compute-only medians 92, 93, skew 1 and 1",
      mod["rank_measured_us"] == [92, 93] and mod["rank_skew_iter_us"] == 1
      and mod["rank_skew_median_us"] == 1)
check("merged: world_size 2 recorded", m["world_size"] == 2 and m["ranks_merged"] == 2)

# a rank without the row: one line, 65, runs.json unchanged
R1["models"][0]["rows"][0]["plan_label"] = "ddp 1MiB"
with open(os.path.join(tmp, "runs.json"), "w") as f:
    json.dump(R0, f)
with open(os.path.join(tmp, "rank1/runs.json"), "w") as f:
    json.dump(R1, f)
code = ("import sys; sys.path.insert(0, %r); import validate_torch as v; v.merge_ranks(%r, 2)"
        % (TOOLS, tmp))
p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
err = p.stderr.splitlines()
check("a rank lacking a row: exit 65, one line (%d, %r)" % (p.returncode, err),
      p.returncode == 65 and len(err) == 1 and "ddp none" in err[0])
with open(os.path.join(tmp, "runs.json")) as f:
    check("a rank lacking a row: runs.json unchanged", json.load(f) == R0)

# --- the store's flags
ROW = {"comm": "allreduce:2", "framework": "ddp", "overlap": "on", "pack": "copy"}
check("plan_args: allreduce:2:nvlink",
      st.plan_args(ROW) == ["--comm", "allreduce:2:nvlink", "--framework", "ddp", "--overlap",
                            "on", "--pack", "copy"])
check("plan_args: pcie", st.plan_args(ROW, "pcie")[1] == "allreduce:2:pcie")
check("plan_args: a one-GPU run's row as before",
      st.plan_args(dict(ROW, comm="allreduce:1"))[1] == "allreduce:1:nvlink")
check("plan_args: offload", st.plan_args(dict(ROW, comm="offload"))[1] == "offload")
NV = ("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV18\t0-31\t0\nGPU1\tNV18\t X \t0-31\t0\n\nLegend:\n  NV# = Connection ...\n")
PCI = NV.replace("NV18", "NODE")
check("topology: NV18 -> nvlink", st.topology_link(NV) == "nvlink")
check("topology: NODE -> pcie", st.topology_link(PCI) == "pcie")
check("topology: none -> nvlink (one GPU)", st.topology_link(None) == "nvlink")

# --- torch_host.align_ranks: a barrier only in a process group of several ranks (a stand-in for
# torch.distributed: no PyTorch here)
import types  # noqa: E402
import torch_host  # noqa: E402


def barriers(initialized, world):
    calls = []
    dist = types.SimpleNamespace(is_available=lambda: True, is_initialized=lambda: initialized,
                                 get_world_size=lambda: world, barrier=lambda: calls.append(1))
    torch = types.ModuleType("torch")
    torch.distributed = dist
    saved = {k: sys.modules.get(k) for k in ("torch", "torch.distributed")}
    sys.modules["torch"], sys.modules["torch.distributed"] = torch, dist
    try:
        torch_host.align_ranks()
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return len(calls)


# --- machine_info at 2 ranks on a machine of 4 GPUs (a stand-in for torch): the ranks' two
def machine(world):
    cuda = types.SimpleNamespace(get_device_name=lambda i: "GPU%d" % i, device_count=lambda: 4,
                                 nccl=types.SimpleNamespace(version=lambda: (2, 28, 9)))
    torch = types.ModuleType("torch")
    torch.__version__, torch.cuda = "0", cuda
    torch.version = types.SimpleNamespace(cuda="13.0")
    torch.backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 1))
    saved, sys.modules["torch"] = sys.modules.get("torch"), torch
    vt.WORLD = world
    try:
        return vt.machine_info()
    finally:
        vt.WORLD = 1
        if saved is None:
            sys.modules.pop("torch", None)
        else:
            sys.modules["torch"] = saved


info = machine(2)
check("machine_info at 2 of 4 GPUs: the ranks' GPUs %s" % info.get("gpus"),
      info.get("gpus") == ["GPU0", "GPU1"] and info.get("world_size") == 2)
check("machine_info at 1 rank: no GPU list", "gpus" not in machine(1))

# --- nvidia-smi names torch's GPU by UUID: under CUDA_VISIBLE_DEVICES=3 torch's GPU 0 is
# nvidia-smi's GPU 3, so "-i 0" would read another GPU's clocks
U = "8a7c0f5e-1d2b-4c3a-9e8f-0123456789ab"
check("smi_id: the UUID, not torch's index",
      vt.smi_id(0, types.SimpleNamespace(uuid=U)) == "GPU-" + U)
check("smi_id: the index where torch gives no UUID",
      vt.smi_id(2, types.SimpleNamespace()) == "2")

# --- a run of one rank under torchrun's environment (rank 3 of 4) is rank 0 of 1 on the first
# visible GPU: ensure_process_group would otherwise wait for 3 absent ranks
env = {"RANK": "3", "LOCAL_RANK": "3", "WORLD_SIZE": "4", "PATH": "/bin",
       "MASTER_ADDR": "node7", "MASTER_PORT": "29500"}
vt.world_of_one(env)
port = env.pop("MASTER_PORT")
check("world_of_one: rank 0 of 1 on cuda:0 at this host, the rest kept: %s" % env,
      env == {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "PATH": "/bin",
              "MASTER_ADDR": "127.0.0.1"})
check("world_of_one: a port of its own (%s), not torchrun's 29500" % port,
      port.isdigit() and 0 < int(port) < 65536 and port != "29500")

check("align_ranks: 2 ranks -> one barrier", barriers(True, 2) == 1)
check("align_ranks: 1 rank -> none", barriers(True, 1) == 0)
check("align_ranks: no process group -> none", barriers(False, 4) == 0)

print("%d failed" % fails)
sys.exit(1 if fails else 0)
