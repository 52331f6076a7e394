#!/usr/bin/env python3
"""Generate the bundled estimated workloads (data/workloads/{resnet50,bert_large,llama2_7b}.json)
with fusim's own builders (`fusim workload --transformer/--cnn`, sim/fu_builder.c and
sim/fu_build_cnn.c), priced from
the bundled default profile's compute tables (data/profiles/h200-default.json). The captured
workloads (*_captured.json) sit beside them and are not touched.

    python3 tools/gen_workloads.py [--fusim build/fusim] [--out DIR] [--check]

--check compares the files in --out with what the builder writes now (exit 1 when they differ),
and checks each against facts stated independently of the builder: tensor and parameter counts
(torchvision, Hugging Face, Meta) and gradient bytes.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import bad_input

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROFILE = os.path.join(ROOT, "data", "profiles", "h200-default.json")

# file: (fusim workload arguments, tensors, params, bytes per gradient element)
WORKLOADS = {
    # torchvision resnet50 v1.5, ImageNet 224x224, batch 64, bf16 autocast, channels-last, SGD momentum
    "resnet50": (["--cnn", "resnet50", "--micro-batch", "64", "--precision", "autocast-bf16",
                  "--name", "resnet50_b64"], 161, 25557032, 4),
    # HF BertForMaskedLM bert-large-uncased, seq 512, batch 8, bf16 autocast, AdamW
    "bert_large": (["--transformer", "--arch", "bert", "--layers", "24", "--hidden", "1024", "--heads", "16",
                    "--ffn", "4096", "--vocab", "30522", "--seq", "512", "--micro-batch", "8",
                    "--precision", "autocast-bf16", "--name", "bert_large_b8"], 394, 335174458, 4),
    # HF LlamaForCausalLM Llama-2-7b, seq 4096, micro-batch 1, bf16 parameters, AdamW (fp32 master)
    "llama2_7b": (["--transformer", "--arch", "llama", "--layers", "32", "--hidden", "4096", "--heads", "32",
                   "--ffn", "11008", "--vocab", "32000", "--seq", "4096", "--micro-batch", "1",
                   "--precision", "bf16", "--name", "llama2_7b_s4096"], 291, 6738415616, 2),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fusim", default=os.environ.get("FUSIM", os.path.join(ROOT, "build", "fusim")))
    ap.add_argument("--out", default=os.path.join(ROOT, "data", "workloads"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    fusim = os.path.abspath(a.fusim) if os.sep in a.fusim else a.fusim  # the runs' cwd is ROOT
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fname, (args, ntensors, nparams, bpp) in WORKLOADS.items():
            new = os.path.join(tmp, fname + ".json")
            # run from the source root with the profile's relative path: the notes name it, and
            # the files must not depend on where the checkout lies
            r = subprocess.run([fusim, "workload"] + args + ["--profile", os.path.relpath(PROFILE, ROOT),
                                "--out", new], capture_output=True, text=True, cwd=ROOT)
            if r.returncode != 0:
                print("%s: fusim workload failed: %s" % (fname, r.stderr.strip()), file=sys.stderr)
                return 1
            w = json.load(open(new))
            nbytes = sum(g["bytes"] for g in w["grads"])
            if len(w["grads"]) != ntensors or nbytes != nparams * bpp:
                print("%s: %d tensors, %d bytes; expected %d, %d" % (fname, len(w["grads"]), nbytes, ntensors,
                                                                     nparams * bpp), file=sys.stderr)
                status = 1
            path = os.path.join(a.out, fname + ".json")
            text = open(new).read()
            if a.check:
                if not os.path.exists(path) or open(path).read() != text:
                    print("%s: differs from what the builder writes now" % path, file=sys.stderr)
                    status = 1
                else:
                    print("%s: what the builder writes now from %s" % (os.path.relpath(path, ROOT),
                                                                     os.path.relpath(PROFILE, ROOT)))
                continue
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
            print("%-28s %4d tensors fwd %9.1f us bwd %9.1f us opt %8.1f us peak %.2f GiB" % (
                os.path.relpath(path), len(w["grads"]), w["fwd_us"], w["bwd_us"], w["opt_us"],
                w.get("memory", {}).get("peak_bytes", 0) / 2**30))
    return status


if __name__ == "__main__":
    sys.exit(bad_input.run("gen_workloads", main))
