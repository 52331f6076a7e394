#!/usr/bin/env python3
"""host_args.py: tools/compare_compute.host_args, the fusim workload arguments that carry a
capture's host speed, by hand. A profile whose probe read 6 us (median) and 5 (fastest).
- A capture with a reference step: --host-ref-fwd/--host-ref-bwd, "ref" (its probes unused).
- Readings before and after the steps only (3 + 3, meta.iters 12): 6, 7, 5, 9, 10, 12; the fastest
  (5, 1x) prices both phases: --host-probe 5, "probe".
- Readings between 2 steps (3 + 2 + 3): 5, 5, 5, 9, 11, 20, 20, 20; forward by the median (10) over
  the profile's median (6), 1.667x, given on --host-probe's scale (x the profile's fastest, 5):
  8.333; backward by the fastest (5 / 5 = 1x) on --host-probe-bwd's (x the median, 6): 6.
- The same with the autograd thread's readings 12, 9, 15 (median 12, 2x): --host-probe-bwd 12,
  "pr+bw"; with use_bwd_probe off as before.
- No probe: nothing, "-". A profile without a fastest reading: the capture's median over the
  profile's for both (9 / 6): --host-probe 9.
- compare() over a validation run's folder: its runs.json and a capture of a model no builder makes
  are left out (the capture said on stderr), without running fusim.
- with_run_recipe: a validation capture whose meta records no optimizer is priced with its run's
  (runs.json's optimizer and clip; SGD where the run predates validate_torch's --optimizer).
- with_memory_format / args_for: a capture whose notes say NCHW (validate_torch's torchvision
  models) is priced --memory-format nchw, capture_torch's channels-last ones without it; Gemma's
  small config as Llama's layer with --head-dim 64 and a tied head.
- builder_names: RoBERTa's parameter names under BERT's (the builder's), the others as they are.
- distinct: a file byte for byte the same as an earlier one (a later call's run folder carries the
  earlier calls' captures) counted once; a same-named capture with other bytes kept.
- precision_unknown: amp "none" with notes "TF32 matmul" (validate_torch's runs 1-3, TF32 in two,
  strict fp32 in one under the same labels) cannot be priced; amp "tf32", or notes without TF32,
  can."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import compare_compute as cc  # noqa: E402

fails = []


def check(what, got, want):
    args, by = got
    wargs, wby = want
    same = by == wby and len(args) == len(wargs) and all(
        a == w if isinstance(w, str) else abs(float(a) - w) < 1e-9 for a, w in zip(args, wargs))
    if not same:
        fails.append("%s: got %r, expected %r" % (what, got, want))


pc = {"host_probe_us": 6.0, "host_probe_min_us": 5.0}
around = {"iters": 12, "host_probes_us": [6.0, 7.0, 5.0, 9.0, 10.0, 12.0], "host_probe_us": 8.0}
between = {"iters": 2, "host_probes_us": [5.0, 5.0, 5.0, 9.0, 11.0, 20.0, 20.0, 20.0], "host_probe_us": 10.0}
check("reference", cc.host_args(pc, dict(around, host_ref={"fwd_us": 600.0, "bwd_us": 900.0})),
      (["--host-ref-fwd", 600.0, "--host-ref-bwd", 900.0], "ref"))
check("before and after only", cc.host_args(pc, around), (["--host-probe", 5.0], "probe"))
check("between the steps", cc.host_args(pc, between),
      (["--host-probe", 10.0 / 6.0 * 5.0, "--host-probe-bwd", 6.0], "probe"))
both = dict(between, host_bwd_probes_us=[12.0, 9.0, 15.0])
check("autograd thread", cc.host_args(pc, both),
      (["--host-probe", 10.0 / 6.0 * 5.0, "--host-probe-bwd", 12.0], "pr+bw"))
check("autograd thread off", cc.host_args(pc, both, use_bwd_probe=False),
      (["--host-probe", 10.0 / 6.0 * 5.0, "--host-probe-bwd", 6.0], "probe"))
check("no probe", cc.host_args(pc, {"iters": 12}), ([], "-"))
check("probe off", cc.host_args(pc, around, use_probe=False), ([], "-"))
check("profile without a fastest reading", cc.host_args({"host_probe_us": 6.0}, {"host_probe_us": 9.0}),
      (["--host-probe", 9.0], "probe"))
# args_for: the optimizer and clip a capture's meta records (validate_torch's recipe) over the
# name's default (the ResNets: SGD)
rn = {"arch": "resnet50", "batch": 64, "amp": "bf16"}
for what, meta, tail in (
        ("resnet50 without a recorded optimizer: sgd", rn, ["--optimizer", "sgd"]),
        ("resnet50 recorded adamw and clip 1.0", dict(rn, optimizer="adamw", clip_grad_norm=1.0),
         ["--optimizer", "adamw", "--clip-grad-norm", "1"]),
        ("gpt2 recorded sgd, no clip", {"model": "gpt2", "batch": 16, "seq": 512, "optimizer": "sgd",
                                        "clip_grad_norm": None}, ["--optimizer", "sgd"])):
    got = cc.args_for(meta)[-len(tail):]
    if got != tail:
        fails.append("args_for, %s: ends %r, expected %r" % (what, got, tail))
# compare: a validation run's folder given to --others holds runs.json (no meta) and captures of
# models no builder makes: both left out (the second said on stderr), no fusim run, no rows
import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    files = [os.path.join(tmp, n) for n in ("runs.json", "wl_swin.json")]
    json.dump({"format": "fusim-torch-validation", "models": []}, open(files[0], "w"))
    json.dump({"name": "swin_v2_s_b32", "meta": {"model": "swin_v2_s", "batch": 32}}, open(files[1], "w"))
    a = argparse.Namespace(fusim="/nonexistent/fusim", no_host_ref=False, no_host_probe=False, no_bwd_probe=False,
                           profile=os.path.join(os.path.dirname(cc.HERE), "data", "profiles", "h200-default.json"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        got = cc.compare(a, files)
    if got != ([], 0) or err.getvalue() != "swin_v2_s_b32: left out: no builder for swin_v2_s\n":
        fails.append("compare of a run folder: %r, stderr %r" % (got, err.getvalue()))
# with_run_recipe: a capture without a recorded optimizer takes its run's (runs.json), SGD where the
# run predates the record; the capture's own wins; no runs.json: as it is
with tempfile.TemporaryDirectory() as tmp:
    rn = {"model": "resnet50", "batch": 64}
    for what, run, meta, want in (
            ("run of adamw + clip 1.0", {"optimizer": "adamw", "clip": 1.0}, rn,
             dict(rn, optimizer="adamw", clip_grad_norm=1.0)),
            ("the capture's own sgd", {"optimizer": "adamw", "clip": 1.0}, dict(rn, optimizer="sgd"),
             dict(rn, optimizer="sgd")),
            ("run of no recorded optimizer (before validate_torch's --optimizer): sgd", {"amp": None}, rn,
             dict(rn, optimizer="sgd", clip_grad_norm=None)),
            ("no runs.json", None, rn, rn)):
        d = tempfile.mkdtemp(dir=tmp)
        if run is not None:
            json.dump(dict(run, models=[]), open(os.path.join(d, "runs.json"), "w"))
        got = cc.with_run_recipe(meta, d)
        if got != want:
            fails.append("with_run_recipe, %s: %r, expected %r" % (what, got, want))
# with_memory_format and args_for's layout: validate_torch's notes say NCHW
rn = {"model": "resnet50", "batch": 64, "amp": "bf16"}
for what, cap, want in (
        ("validate_torch's NCHW capture", {"notes": "CAPTURED by tools/validate_torch.py on X: torchvision resnet50 "
                                           "(weights=None), 224x224, NCHW, batch 64"}, ["--memory-format", "nchw"]),
        ("capture_torch's channels-last capture", {"notes": "CAPTURED by tools/capture_torch.py"}, ["--optimizer", "sgd"])):
    got = cc.args_for(cc.with_memory_format(rn, cap))[-2:]
    if got != want:
        fails.append("memory format, %s: args end %r, expected %r" % (what, got, want))
got = cc.args_for({"model": "gemma_small", "batch": 16, "seq": 512, "amp": "bf16"})
for flag in (["--head-dim", "64"], ["--kv-heads", "4"], ["--tied-embeddings"], ["--arch", "llama"]):
    if not any(got[i:i + len(flag)] == flag for i in range(len(got))):
        fails.append("gemma_small: %r not in %r" % (flag, got))
# builder_names: RoBERTa's names as BERT's builder names them
got = cc.builder_names({"roberta.encoder.layer.0.attention.self.query.weight": 1.0, "lm_head.bias": 2.0,
                        "lm_head.dense.weight": 3.0, "other": 4.0}, {"model": "roberta_base"})
want = {"bert.encoder.layer.0.attention.self.query.weight": 1.0, "cls.predictions.bias": 2.0,
        "cls.predictions.transform.dense.weight": 3.0, "other": 4.0}
if got != want:
    fails.append("builder_names, roberta_base: %r" % got)
if cc.builder_names({"a": 1.0}, {"model": "gpt2"}) != {"a": 1.0}:
    fails.append("builder_names: a model without renames changed")
# distinct: the same bytes once, other bytes kept
with tempfile.TemporaryDirectory() as tmp:
    paths = []
    for sub, text in (("a", "{}"), ("b", "{}"), ("c", "{ }")):
        os.makedirs(os.path.join(tmp, sub))
        paths.append(os.path.join(tmp, sub, "wl.json"))
        open(paths[-1], "w").write(text)
    if cc.distinct(paths) != [paths[0], paths[2]]:
        fails.append("distinct: %r" % cc.distinct(paths))

# precision_unknown: validate_torch's runs 1-3 labelled amp "none" with notes "TF32 matmul" (runs
# 1-2 ran TF32, run 3 strict fp32): unknown; amp "tf32", or "none" with notes saying fp32: known
notes_tf32 = {"notes": "CAPTURED by tools/validate_torch.py ..., batch 4, fp32 (TF32 matmul), SGD momentum"}
if not cc.precision_unknown({"amp": "none"}, notes_tf32):
    fails.append("precision_unknown: amp none with TF32 notes not flagged")
if cc.precision_unknown({"amp": "tf32"}, notes_tf32) is not None:
    fails.append("precision_unknown: amp tf32 flagged")
if cc.precision_unknown({"amp": "none"}, {"notes": "fp32, SGD"}) is not None:
    fails.append("precision_unknown: amp none without TF32 notes flagged")
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
