#!/usr/bin/env python3
"""Compares two fusim binaries' optimal plans: same buckets and the same predicted times on the
bundled and test workloads and on generated comm-bound and compute-bound ones, over profiles,
--comm, overlap and streams. Timing and search-effort fields (elapsed, candidates, cost calls)
are left out; everything else in `fusim predict --fusion optimal --format json` must be equal.
Usage: search_compare.py OLD_FUSIM NEW_FUSIM [REPO]   (exit 1 on any difference)"""
import json, math, os, random, subprocess, sys, tempfile

SKIP = ("elapsed", "candidates", "cost_calls", "ms")


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if not any(s in k for s in SKIP)}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def gen(path, n, gbps, seed):
    """n gradients, log-uniform 4 KiB..64 MiB, produced at gbps GB/s of gradient."""
    rnd = random.Random(seed)
    t, grads = 0.0, []
    for i in range(n):
        b = int(math.exp(math.log(4096) + rnd.random() * (math.log(64 << 20) - math.log(4096)))) & ~3
        t += b / (gbps * 1e3)
        grads.append({"name": f"g{i}", "bytes": b, "ready_us": round(t, 3)})
    w = {"format": "fusim-workload-1", "name": f"gen{n}_{gbps}", "fwd_us": t / 2, "bwd_us": t,
         "opt_us": 100.0, "grads": grads}
    with open(path, "w") as f:
        json.dump(w, f)


def run(exe, args):
    r = subprocess.run([exe, "predict", "--fusion", "optimal", "--format", "json", "--no-store"] + args,
                       capture_output=True, text=True, timeout=900)
    return r.returncode, strip(json.loads(r.stdout)) if r.returncode == 0 else r.stderr.strip()


def main():
    old, new = sys.argv[1], sys.argv[2]
    repo = sys.argv[3] if len(sys.argv) > 3 else "."
    tmp = tempfile.mkdtemp(prefix="search-compare-")
    works = ["bert_large", "resnet50", "llama2_7b", "bert_large_captured", "resnet50_captured",
             os.path.join(repo, "tests/plan/host_v2_6.json"), os.path.join(repo, "tests/plan/host_v2_6b.json")]
    for n, gbps in [(300, 100), (1000, 100), (2000, 100), (1000, 20), (500, 1000), (2000, 1000)]:
        p = os.path.join(tmp, f"gen{n}_{gbps}.json")
        gen(p, n, gbps, n * 7 + gbps)
        works.append(p)
    cases = []
    for w in works:
        for comm in ["allreduce:8:nvlink", "offload", "allreduce:2:nvlink", "reducescatter:8:nvlink"]:
            cases.append([w, comm, []])
        cases.append([w, "allreduce:8:nvlink", ["--overlap", "off"]])
        cases.append([w, "allreduce:8:nvlink", ["--comm-streams", "2"]])
        cases.append([w, "offload", ["--profile", "h100-sxm"]])
        cases.append([w, "allgather:16", ["--profile", "h200-ndr"]])
    bad = 0
    for w, comm, extra in cases:
        args = ["-w", w, "--comm", comm] + extra
        a, b = run(old, args), run(new, args)
        same = a == b
        bad += not same
        it = b[1].get("iter_us") if b[0] == 0 else b[1]
        print(f"{'same' if same else 'DIFFERENT'}  {os.path.basename(w):24s} {comm:24s} {' '.join(extra):22s} {it}")
    print(f"{len(cases) - bad} of {len(cases)} cases identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
