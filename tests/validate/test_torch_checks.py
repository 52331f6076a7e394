#!/usr/bin/env python3
"""test_torch_checks.py: issue 10's bad input for the real-PyTorch validation, without PyTorch or
a GPU. tools/torch_checks.grad_problem on the names alone (no trainable parameter; a hook that
never fires; all fired), then tools/validate_torch.py's main() with a stand-in for the GPU step
(its probe): a model with no trainable parameters, or one whose hook never fires, must give one
line on stderr, exit 65 and write nothing, also after a model that did not fit in memory (passed
over, as the run skips it); a bad --models spec 64. The memory preflight by hand: each runner's
bytes, the loop's floor over the 12 plans, the one line where it will not fit, and preflight's
footprints from a probe that measured one (a probe of two values still accepted); a model out of
memory (run_or_skip) freed after its skip; the hook pattern's fuser freed with its hooks still
held (torch_host.HookFuser)."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.environ.get("FUSIM_SOURCE_ROOT",
                                    os.path.join(os.path.dirname(__file__), "..", "..")), "tools")
sys.path.insert(0, TOOLS)
import torch_checks  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


g = torch_checks.grad_problem
check("no trainable parameters", g([]) == "the model has no parameters that require gradients")
check("no trainable parameters, even after a step", g([], set()) is not None)
check("trainable, no step run yet: fine", g(["a.weight"]) is None)
check("every hook fired: fine", g(["a.weight", "a.bias"], {"a.bias", "a.weight"}) is None)
m = g(["a.weight", "b.weight", "b.bias"], {"a.weight"})
check("a hook that never fires is named, with the count: %r" % m,
      m is not None and "2 of 3" in m and "b.weight" in m)
check("extra fired names do not hide a missing one", g(["a"], {"b", "c"}) is not None)

# main() with a stand-in probe: what the GPU step would report for each model.
STUB = {
    "good": "(['w'], {'w'})",
    "frozen": "([], set())",             # requires_grad off everywhere
    "dangling": "(['w', 'unused.weight'], {'w'})",   # a parameter forward never uses
    "huge": "None",                      # did not fit in GPU memory: the run skips it
    "measured": "(['w'], {'w'}, {'model_bytes': 4, 'grad_bytes': 4, 'params': 1, 'step_bytes': 0})",
}


def run_main(models, probe_of, extra=()):
    """Runs validate_torch.main in a fresh interpreter; returns (rc, stderr lines, out dir)."""
    tmp = tempfile.mkdtemp(prefix="fusim-torch-checks-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    out = os.path.join(tmp, "out")
    probe = "lambda name, batch, seq: {%s}[name]" % ", ".join(
        "%r: %s" % (k, v) for k, v in probe_of.items())
    code = ("import sys; sys.path.insert(0, %r); import validate_torch as v; "
            "sys.exit(v.main(['--out', %r, '--models', %r] + %r, probe=%s))"
            % (TOOLS, out, models, list(extra), probe))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return p.returncode, p.stderr.splitlines(), out


for models, name in (("good:8,frozen:4", "frozen"), ("dangling:2", "dangling"),
                     ("huge:64,frozen:1", "frozen"), ("measured:8,frozen:2", "frozen")):
    rc, err, out = run_main(models, STUB)
    check("%s: exit 65 (got %d)" % (models, rc), rc == 65)
    check("%s: one line on stderr %r" % (models, err),
          len(err) == 1 and err[0].startswith("validate_torch: %s (batch" % name))
    check("%s: nothing written" % models, not os.path.exists(out))
rc, err, out = run_main("good:x", STUB)
check("bad --models spec: exit 64, one line (got %d, %r)" % (rc, err), rc == 64 and len(err) == 1)
check("bad --models spec: nothing written", not os.path.exists(out))
for bad in ("1", "x", "4,,16"):   # --spacing-every: gradients a bucket, 2 or more
    rc, err, out = run_main("good:8", STUB, ["--spacing-every", bad])
    check("--spacing-every %s: exit 64, one line (got %d, %r)" % (bad, rc, err),
          rc == 64 and len(err) == 1 and "--spacing-every" in err[0])
    check("--spacing-every %s: nothing written" % bad, not os.path.exists(out))

# --- the memory preflight, by hand. A model of 400 bytes (parameters and buffers), 300 of them
# trainable; one step's activations 1000. Compute-only: 400 + a gradient and a momentum of 300 each
# = 1000; a DDP copy-mode plan or the hook pattern one more copy of the gradients: 1300; a bucket
# view 1000.
import validate_torch as vt  # noqa: E402

FP = {"model_bytes": 400, "grad_bytes": 300, "params": 75, "step_bytes": 1000}
by = {p[0]: vt.runner_bytes(p, FP) for p in vt.PLANS}
check("compute-only 1000 bytes (got %r)" % vt.runner_bytes(None, FP), vt.runner_bytes(None, FP) == 1000)
check("DDP copy plans, the offload hook's and the hook pattern's 1300, the bucket view 1000: %r" % by,
      all(by[k] == 1300 for k in ("ddp none", "ddp 1MiB", "ddp 4MiB", "ddp default", "ddp 100MiB",
                                  "ddp offload default", "ddp offload 4MiB", "hooks none",
                                  "hooks 4MiB", "hooks 25MiB", "hooks 25MiB overlap off"))
      and by["ddp default view"] == 1000)
check("the twin 1000, the probes: DDP's view 1000, its copy 1300, the hook pattern's 1300",
      vt.runner_bytes(vt.BASELINE_TWIN, FP) == 1000
      and [vt.runner_bytes(p, FP) for p in vt.PROBES] == [1000, 1300, 1300, 1300, 1300])
# the base model 400 + compute-only 1000 + 11 plans x 1300 + the view 1000 + the step 1000 = 17700
need = vt.loop_bytes(FP, vt.PLANS)
check("the loop over the 12 plans needs 17700 bytes (got %r)" % need, need == 17700)
check("it fits 17700 bytes free", vt.memory_short("m", 8, FP, vt.PLANS, 17700) is None)
line = vt.memory_short("m", 8, FP, vt.PLANS, 17699)
check("17699 free: one line naming the model, its 13 runners and the need: %r" % line,
      line is not None and "\n" not in line and line.startswith("m:8: skipped before its capture")
      and "13 runners" in line)
# what fits: base 400 + compute-only 1000 + step 1000 = 2400, then the view (1000) and 10 of the
# 1300-byte runners (3400 + 13000 = 16400 <= 17699; an 11th would need 17700)
check("17699 free: at most 11 of the 12 runners fit: %r" % line,
      line.endswith("; at most 11 of its 12 plan and probe runners would fit: fewer --plans, "
                    "--no-loop-probes, or a smaller batch"))
tiny = vt.memory_short("m", 8, FP, vt.PLANS, 2399)
check("2399 free: not even compute-only's runner: %r" % tiny,
      tiny.endswith("; not even compute-only's runner fits: a smaller batch"))
check("2400 free: none of the plans: %r" % vt.memory_short("m", 8, FP, vt.PLANS, 2400),
      "at most 0 of its 12" in vt.memory_short("m", 8, FP, vt.PLANS, 2400))
held = vt.memory_short("m", 8, FP, vt.PLANS, 17699, held_bytes=3 * 2**29)
check("with what PyTorch holds: the same line and 1.5 GiB held at its end: %r" % held,
      held == line + "; PyTorch's tensors hold 1.5 GiB")
# plan_groups: a model whose runners do not fit one loop is timed in groups, each with its own
# compute-only runner. A group's loop: base 400 + compute-only 1000 + step 1000 = 2400 beside its
# plans, within 0.9 of the free bytes. 10000 free: room 9000 - 2400 = 6600; two groups of 6 need
# 7800 or 7500 (> 6600), three of 4 need at most 5200: three groups of 4, in PLANS' order.
g = vt.plan_groups(FP, vt.PLANS, 10000)
check("10000 free: three groups of four, in order: %r" % (g and [[p[0] for p in x] for x in g]),
      g is not None and [len(x) for x in g] == [4, 4, 4] and sum(g, []) == list(vt.PLANS))
# room for exactly one 1300-byte runner (free 4112: 3700.8 - 2400 = 1300.8): twelve groups of one
g = vt.plan_groups(FP, vt.PLANS, 4112)
check("4112 free: twelve groups of one", g is not None and [len(x) for x in g] == [1] * 12)
# room for 1299.9: the copy plans' runner (1300) fits nowhere: none
check("4111 free: no group fits a copy plan: None", vt.plan_groups(FP, vt.PLANS, 4111) is None)
# room for every plan (15300 = 11 x 1300 + 1000): one group of all twelve
g = vt.plan_groups(FP, vt.PLANS, (15300 + 2400) / 0.9 + 1)
check("room for all: one group", g is not None and len(g) == 1 and g[0] == list(vt.PLANS))
# reference_step: a model no builder makes has none (nothing logged); a known one's step is made by
# tools/host_ref.py, and where it cannot be (no PyTorch here) one line is logged and the capture
# goes on without it (None)
said = []
check("swin_v2_s: no reference step, nothing said", vt.reference_step("swin_v2_s", said.append) is None and not said)
try:
    import torch  # noqa: F401
    have_torch = True
except ImportError:
    have_torch = False
if not have_torch:
    got = vt.reference_step("roberta_base", said.append)
    check("roberta_base without PyTorch: None and one line naming it: %r" % said,
          got is None and len(said) == 1 and said[0].startswith("roberta_base: no reference step ("))
# a 0.49 B-parameter fp32 model (run 30's qwen2_small), 1.84 GiB of parameters: compute-only and
# the view 3 x that each, the 11 other plans 4 x, the base model 1 x: without its activations the
# loop needs 1.84 x (1 + 3 + 3 + 11 x 4) = 1.84 x 51 = 93.9 GiB
Q = {"model_bytes": 4 * 494e6, "grad_bytes": 4 * 494e6, "params": 494e6, "step_bytes": 0}
check("0.49 B parameters: 93.9 GiB without activations (got %.1f)" % (vt.loop_bytes(Q, vt.PLANS) / 2**30),
      abs(vt.loop_bytes(Q, vt.PLANS) / 2**30 - 4 * 494e6 * 51 / 2**30) < 1e-9
      and abs(4 * 494e6 * 51 / 2**30 - 93.9) < 0.05)

# AdamW keeps two moments a trainable parameter where SGD keeps one momentum: 300 bytes more a
# runner. Compute-only 400 + 300 x (gradient + 2 moments) = 1300; a copy plan 1600; the view 1300.
vt.RECIPE.update(optimizer="adamw")
by = {p[0]: vt.runner_bytes(p, FP) for p in vt.PLANS}
check("AdamW: compute-only and the view 1300, the copy plans 1600 (got %r, %r)"
      % (vt.runner_bytes(None, FP), by),
      vt.runner_bytes(None, FP) == 1300 and by["ddp default view"] == 1300
      and all(by[k] == 1600 for k in ("ddp none", "ddp default", "hooks 25MiB")))
vt.RECIPE.update(amp="bf16", set_to_none=True)
check("the recipe in the workload's name: gpt2_b8_s512_bf16_adamw_none_torchval (got %r)"
      % vt.workload_name("gpt2", 8, 512),
      vt.workload_name("gpt2", 8, 512) == "gpt2_b8_s512_bf16_adamw_none_torchval")
check("the recipe in words: %r" % vt.recipe_words(), vt.recipe_words() ==
      "bf16 autocast (fp32 parameters and gradients), AdamW, zero_grad(set_to_none=True)")
vt.RECIPE.update(clip=1.0)
check("clipping in the name and words: %r, %r" % (vt.workload_name("gpt2", 8, 512), vt.recipe_words()),
      vt.workload_name("gpt2", 8, 512) == "gpt2_b8_s512_bf16_adamw_none_clip_torchval"
      and vt.recipe_words().endswith(", gradients clipped to total norm 1"))
vt.RECIPE.update(amp="tf32", optimizer="sgd", set_to_none=False, clip=None)


def stand_in_loss(m, inp):
    return 0.0


check("fp32/TF32: the loss function is used as it is, no autocast around it",
      vt.with_amp(stand_in_loss) is stand_in_loss and vt.workload_name("resnet18", 32, 512) ==
      "resnet18_b32_torchval")
for bad in (["--amp", "fp16"], ["--optimizer", "adam"]):   # argparse's choices: exit 2
    rc, err, out = run_main("good:8", STUB, bad)
    check("%s: refused (exit 2, naming the option), nothing written (got %d, %r)" % (bad, rc, err),
          rc == 2 and bad[0] in err[-1] and not os.path.exists(out))

for bad in ("0", "-1", "nan", "inf"):   # a norm of 0 would zero every gradient: exit 64
    rc, err, out = run_main("good:8", STUB, ["--clip-grad-norm", bad])
    check("--clip-grad-norm %s: refused in one line, nothing written (got %d, %r)" % (bad, rc, err),
          rc == 64 and len(err) == 1 and "--clip-grad-norm" in err[0] and not os.path.exists(out))

probes = {"a": (["w"], {"w"}, FP), "b": (["w"], {"w"}), "c": None}
problem, fps = vt.preflight([("a", 8), ("b", 4), ("c", 2)], 512, lambda n, b, s: probes[n])
check("preflight: no problem, the footprint of the probe that gave one (got %r, %r)" % (problem, fps),
      problem is None and fps == {("a", 8): FP})
problem, fps = vt.preflight([("a", 8), ("f", 4)], 512,
                            lambda n, b, s: probes[n] if n != "f" else ([], set(), FP))
check("preflight: a frozen model's line after a measured one (got %r)" % problem,
      problem is not None and problem.startswith("f (batch 4)"))


# --- a model out of GPU memory (run_or_skip): one line, and its runners freed before the next
# model. Run 32 freed inside the except block, where the traceback still held run_model's frame
# and its runners: 41 GiB stayed held and the two models after ViT-L/16 were skipped. The stand-in
# runner is held only by the raising frame; the stand-in free() reports whether it is gone.
import gc  # noqa: E402
import weakref  # noqa: E402


class StandInOOM(Exception):
    pass


class StandInRunner:
    pass


refs, lines, gone = [], [], []


def loop_out_of_memory():
    runners = [StandInRunner()]
    refs.append(weakref.ref(runners[0]))
    raise StandInOOM("CUDA out of memory. Tried to allocate 38.00 MiB.\nthe rest of the message")


def stand_in_free():
    gc.collect()
    gone.append(refs[0]() is None)


got = vt.run_or_skip(loop_out_of_memory, StandInOOM, "vit_l_16:16", lines.append, 61.5 * 2**30,
                     free=stand_in_free)
check("out of memory: no result, the runners gone when memory is freed (got %r, %r)" % (got, gone),
      got is None and gone == [True])
check("out of memory: one line with the first line of the error and the floor: %r" % lines,
      lines == ["vit_l_16:16: out of GPU memory, skipped (CUDA out of memory. Tried to allocate "
                "38.00 MiB.); the preflight's floor was 61.5 GiB"])
check("a model that fits: its result, nothing logged",
      vt.run_or_skip(lambda: ("wl", "res"), StandInOOM, "m:8", lines.append) == ("wl", "res")
      and len(lines) == 1)

# --- a model of the user's own: package.module:function:BATCH (parse_models, workload_name,
# build_model through user_model, with a stand-in builder: no PyTorch needed to load it).
import contextlib  # noqa: E402
import io  # noqa: E402

check("parse: a user's model keeps its module and function, the batch after the last colon",
      vt.parse_models("examples.torch_user_model:encoder:8,resnet18") ==
      [("examples.torch_user_model:encoder", 8), ("resnet18", 32)])
check("workload names: a user's model with underscores, the transformers with their sequence",
      vt.workload_name("examples.torch_user_model:encoder", 32, 512) ==
      "examples_torch_user_model_encoder_b32_torchval"
      and vt.workload_name("gpt2", 8, 512) == "gpt2_b8_s512_torchval"
      and vt.workload_name("resnet18", 32, 512) == "resnet18_b32_torchval")
mod_dir = tempfile.mkdtemp(prefix="fusim-user-model-")
atexit.register(shutil.rmtree, mod_dir, ignore_errors=True)
with open(os.path.join(mod_dir, "standin_models.py"), "w") as f:
    f.write("def net(batch, device):\n    return 'model', (batch, device), lambda m, inp: 0.0\n"
            "def bad(batch, device):\n    return 'model only'\n")
sys.path.insert(0, mod_dir)
got = vt.build_model("standin_models:net", 4, 512)
check("build_model: the builder called with (batch, 'cuda'), its three values and a description: %r"
      % (got,), got[0] == "model" and got[1] == (4, "cuda") and got[2](None, None) == 0.0
      and got[3] == "standin_models:net(batch=4), the user's own builder")


def exit_of(call):
    """(exit status, stderr lines) of call, which must exit."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            call()
        except SystemExit as e:
            return e.code, err.getvalue().splitlines()
    return None, err.getvalue().splitlines()


for spec, why in (("pkg.mod:fn", "no batch"), (":fn:8", "no module"), ("pkg.mod:fn:0", "batch 0")):
    rc, err = exit_of(lambda: vt.parse_models(spec))
    check("parse %r (%s): exit 64, one line naming the form (got %r, %r)" % (spec, why, rc, err),
          rc == 64 and len(err) == 1 and "package.module:function:BATCH" in err[0])
for name, what in (("no_such_module_xyz:net", "cannot load"), ("standin_models:missing", "cannot load"),
                   ("standin_models:bad", "must return")):
    rc, err = exit_of(lambda: vt.build_model(name, 4, 512))
    check("%s: exit 64, one line (%s) (got %r, %r)" % (name, what, rc, err),
          rc == 64 and len(err) == 1 and what in err[0])

# --- the hook pattern's fuser (torch_host.HookFuser) freed once its runner is gone. PyTorch keeps a
# parameter's post-accumulate-grad hooks from its C++ side too, out of the cycle collector's sight
# (checked with torch 2.11 on the CPU: a parameter whose hook held the fuser survived
# gc.collect()). With the fuser held by its hooks, every fuser, its parameters, their gradients
# and its fusion buffers stayed for the rest of the run: runs 31-33's loop peaks, 10.6-36.6 GiB
# over the preflight's floor. The stand-in parameter keeps its hooks where gc cannot free them.
import types  # noqa: E402

held_by_cpp = []   # the hooks as the parameters' C++ side holds them


class StandInParam:
    dtype = "float32"

    def __init__(self, n):
        self.n = n

    def numel(self):
        return self.n

    def element_size(self):
        return 4

    def register_post_accumulate_grad_hook(self, hook):
        held_by_cpp.append(hook)
        return None


saved_torch = sys.modules.get("torch")
sys.modules["torch"] = types.SimpleNamespace(cuda=types.SimpleNamespace(Stream=lambda: None))
try:
    import torch_host  # noqa: E402
    params = [("fc.weight", StandInParam(6)), ("fc.bias", StandInParam(2))]
    fuser = torch_host.HookFuser(params, 2**20)
    held_by_cpp[1](params[1][1])   # backward's first step: the bias's gradient first
    held_by_cpp[0](params[0][1])
    check("the fuser's hooks reach it while it lives: firing order %r" % fuser.order,
          fuser.order == [1, 0])
    fuser_ref = weakref.ref(fuser)
    del fuser
    gc.collect()
    check("the fuser is freed with its hooks still held (it held its parameters, gradients and "
          "fusion buffers)", fuser_ref() is None)
    check("a hook firing after its fuser is gone does nothing", held_by_cpp[0](params[0][1]) is None)
finally:
    if saved_torch is None:
        del sys.modules["torch"]
    else:
        sys.modules["torch"] = saved_torch
# build_model: every transformers name has a branch of its own (the last one, BERT's, takes any
# name that reaches it, so a listed name without a branch would be built as BERT); read from its
# source, as the harness cannot build models without a GPU
import inspect  # noqa: E402
src = inspect.getsource(vt.build_model)
unbranched = [n for n in vt.HF_MODELS if n not in ("bert_base", "bert_large") and
              'name == "%s"' % n not in src and not (n.startswith("gpt2") and 'name.startswith("gpt2")' in src)]
check("every HF model but BERT's two has its own branch in build_model: %r" % unbranched, not unbranched)
check("no name twice in the model lists",
      len(set(vt.HF_MODELS + vt.TORCHVISION)) == len(vt.HF_MODELS) + len(vt.TORCHVISION))
print("%d failed" % fails)
sys.exit(1 if fails else 0)
