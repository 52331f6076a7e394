"""The memory check's allocated figure (mem_need_bytes, what torch.cuda.max_memory_allocated
reports) for DDP's buckets, by hand. With gradient_as_bucket_view the gradients ARE the buckets
(reducer.cpp: each .grad a view of its bucket), allocated with DDP and alive through forward: the
step needs max(peak, forward_peak + G), never peak + G where the peak (at the optimizer step)
already holds them. Copy mode keeps the buckets beside the .grad tensors: peak + G.
Usage: mem_need.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
root = os.environ["FUSIM_SOURCE_ROOT"]
base = json.load(open(os.path.join(root, "tests/plan/host_v2_6.json")))
G = sum(g["bytes"] for g in base["grads"])          # 30971964: every bucket in all
T = 100 * 2**20                                      # the optimizer's temporary
peak = G + G + 2 * G + T                             # params + grads + Adam states + T: at the step


def need(forward, framework, pack):
    w = dict(base)
    w["memory"] = {"params_bytes": G, "grads_bytes": G, "optimizer_bytes": 2 * G,
                   "transient_bytes": T, "peak_bytes": peak}
    if forward is not None:
        w["memory"]["forward_peak_bytes"] = forward
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(w, f)
    out = subprocess.run([fusim, "predict", "--workload", f.name, "--comm", "allreduce:8",
                          "--fusion", "cap:25MiB", "--framework", framework, "--pack", pack,
                          "--no-store", "--format", "json"], capture_output=True, text=True)
    os.unlink(f.name)
    assert out.returncode == 0, out.stderr
    o = json.loads(out.stdout)
    return o["mem_need_bytes"], o["fusion_buffer_bytes"]


fails = 0
for forward, framework, pack, want, why in [
        (peak - G - 2**20, "ddp", "view", peak, "view, forward + G below the peak: the peak"),
        (peak - G // 2, "ddp", "view", peak - G // 2 + G, "view, forward + G above the peak"),
        (None, "ddp", "view", peak + G, "view, no forward peak: the bound peak + G"),
        (peak - G - 2**20, "ddp", "copy", peak + G, "copy: buckets beside the .grad tensors")]:
    got, buf = need(forward, framework, pack)
    ok = got == want and buf == G
    fails += not ok
    print("%s %s: mem_need_bytes %d, by hand %d (buffers %d, G %d)" % ("ok" if ok else "FAIL", why, got, want, buf, G))

# The device holds more than PyTorch's tensors (sim/fu_memcheck.h): the allocator's reserve
# (3.2% of them, the largest of three out-of-memory reports), the CUDA context (1.30 GiB, the
# same three reports) and NCCL's ring buffers (32 channels x (512 KiB LL + 4800 KiB LL128 + 4 MiB
# Simple) = 308281344 B; none with one rank), and over 8 GPUs NVLS's: the default's 8-rank curve
# is NCCL's NVLS all-reduce (the published 8 x H200), so NCCL allocated 16 channels x 2 x (4 MiB +
# 2 MiB) for each of the node's 8 GPUs = 1610612736 B (vLLM issue 9699 logs 2415919104 B at 24
# channels: x 16/24). A GPU 1 GiB above the allocated figure fits the tensors, not the device: the
# fit is the device's.
prof = json.load(open(os.path.join(root, "data/profiles/h200-default.json")))
alloc = peak + G  # copy mode, no forward peak
prof["gpu_mem_bytes"] = alloc + 2**30
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(prof, f)
w = dict(base, memory={"params_bytes": G, "grads_bytes": G, "optimizer_bytes": 2 * G, "peak_bytes": peak})
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as g:
    json.dump(w, g)
for ranks, nccl in [("8", 32 * (524288 + 4915200 + 4194304) + 8 * 16 * 2 * (4194304 + 2097152)), ("1", 0)]:
    out = subprocess.run([fusim, "predict", "--workload", g.name, "--profile", f.name, "--comm",
                          "allreduce:" + ranks, "--fusion", "cap:25MiB", "--framework", "ddp",
                          "--pack", "copy", "--no-store", "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    o = json.loads(out.stdout)
    dev = alloc * 1.032 + 1.30 * 2**30 + nccl
    ok = (o["mem_need_bytes"] == alloc and abs(o.get("mem_reserve_bytes", -9) - 0.032 * alloc) < 1
          and abs(o.get("mem_context_bytes", -9) - 1.30 * 2**30) < 1 and o.get("mem_nccl_bytes") == nccl
          and abs(o.get("mem_device_bytes", -9) - dev) < 1 and o["fits"] is False
          and abs(o["mem_over_bytes"] - (dev - prof["gpu_mem_bytes"])) < 1)
    fails += not ok
    print("%s %s ranks: device %s by hand %.0f, fits %s (GPU = allocated + 1 GiB)"
          % ("ok" if ok else "FAIL", ranks, o.get("mem_device_bytes"), dev, o["fits"]))
os.unlink(f.name)
os.unlink(g.name)
sys.exit(1 if fails else 0)
