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
sys.exit(1 if fails else 0)
