"""torch_trace.py: where a plan's step spends its host time, by torch.profiler (issue 10).

In runs 8-10 the hook pattern's 4 MiB plan paid about 1 ms more backward() CPU per step than the
line through its per-tensor and 25 MiB plans, in every model, whether the step had 7 buckets or
98 (and DDP's 1 and 4 MiB plans likewise): a once-a-step cost or wait, not per bucket. This
profiles a few steps of chosen plans (CPU and CUDA activity) and writes, per plan, what the step
did on each host thread: the events with the most self time (a blocking wait shows there as one
long runtime call), self time summed per name, and the CUDA runtime calls; the Chrome traces are
kept gzipped beside it.

summarize() is pure Python over (name, thread, self_us, total_us) rows (tests can feed it);
trace_plans() needs torch with CUDA.
"""
import gzip
import os
import shutil


def summarize(rows, steps, top=15):
    """Text lines from rows [(name, thread, self_us, total_us)] of `steps` profiled steps: per
    thread the self time per step; the `top` single events by self time; the `top` names by self
    time per step; the CUDA runtime calls (names starting "cuda") per step, with their longest."""
    out = []
    by_thread = {}
    for name, th, s, _ in rows:
        by_thread[th] = by_thread.get(th, 0.0) + s
    out.append("  self time per step by thread: " + ", ".join(
        "%s %.0f us" % (th, v / steps) for th, v in sorted(by_thread.items(), key=lambda t: -t[1])))
    out.append("  longest single events (self us, total us, thread):")
    for name, th, s, tot in sorted(rows, key=lambda r: -r[2])[:top]:
        out.append("    %9.1f %9.1f %-8s %s" % (s, tot, th, name))
    per = {}
    for name, _, s, _ in rows:
        c, t = per.get(name, (0, 0.0))
        per[name] = (c + 1, t + s)
    out.append("  self time per step by name (calls per step, us per step):")
    for name, (c, t) in sorted(per.items(), key=lambda kv: -kv[1][1])[:top]:
        out.append("    %9.1f %7.1f  %s" % (t / steps, c / steps, name))
    rt = {}
    for name, _, s, _ in rows:
        if name.startswith("cuda"):
            c, t, mx = rt.get(name, (0, 0.0, 0.0))
            rt[name] = (c + 1, t + s, max(mx, s))
    out.append("  CUDA runtime calls per step (calls, us, longest us):")
    for name, (c, t, mx) in sorted(rt.items(), key=lambda kv: -kv[1][1]):
        out.append("    %7.1f %9.1f %9.1f  %s" % (c / steps, t / steps, mx, name))
    return out


def trace_plans(runners, labels, ev0, ev1, outdir, prefix, steps=2, log=None):
    """Profiles `steps` steps of every runner whose label is in labels (after one unprofiled
    step), in the order given; writes OUTDIR/PREFIX_trace.txt and one gzipped Chrome trace per
    plan. runners: validate_torch.Runner objects (step(ev0, ev1), label, last_cpu)."""
    from torch.profiler import ProfilerActivity, profile

    lines = []
    chosen = [r for lab in labels for r in runners if r.label == lab]
    for run in chosen:
        run.step(ev0, ev1)
        cpu = []
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                run.step(ev0, ev1)
                cpu.append(run.last_cpu)
        rows = [(e.name, str(e.thread), e.self_cpu_time_total, e.cpu_time_total)
                for e in prof.events() if "CPU" in str(e.device_type)]
        lines.append("%s: %d steps profiled, CPU fwd/bwd/rest us %s"
                     % (run.label, steps, " ".join("%.0f/%.0f/%.0f" % c for c in cpu)))
        lines += summarize(rows, steps)
        tag = "%s_%s" % (prefix, run.label.replace(" ", "_"))
        raw = os.path.join(outdir, tag + ".trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as fi, gzip.open(raw + ".gz", "wb") as fo:
            shutil.copyfileobj(fi, fo)
        os.remove(raw)
    with open(os.path.join(outdir, prefix + "_trace.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    if log:
        log("%s: traced %s" % (prefix, ", ".join(r.label for r in chosen)))
