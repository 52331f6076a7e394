# One-off repair of runs 11-12 (validate_torch before the fix of torch_host.host_block /
# torch_modelcost.apply sharing the calibration's dicts): the tower's per-parameter costs, as
# fwcal.jsonl wrote them before any model ran, put back where a later model's copy was changed.
import glob, json, sys
KEYS = (("ddp", "param_us"), ("ddp", "copy_us"), ("hooks", "hook_us"))
for d in sys.argv[1:]:
    tower = next(json.loads(l) for l in open(d + "/fwcal.jsonl") if '"tower"' in l)
    for p in sorted(glob.glob(d + "/wl_*.json")):
        w = json.load(open(p))
        fm = w["meta"]["framework_on_model"]
        fm["model_independent"] = {"ddp": dict(tower["ddp"]), "hooks": dict(tower["hooks"])}
        for g, k in KEYS:
            if "%s.%s" % (g, k) not in fm["replaced"]:
                print(p, g, k, w["host"][g][k], "->", tower[g][k])
                w["host"][g][k] = tower[g][k]
        json.dump(w, open(p, "w"), indent=1)
    r = json.load(open(d + "/runs.json"))
    for g, k in KEYS:
        r["framework_costs"][g][k] = tower[g][k]
    json.dump(r, open(d + "/runs.json", "w"), indent=1)
