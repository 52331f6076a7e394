"""host_state.py: what the host's CPUs are doing, read from /proc and /sys once a round of a
validation loop or a model-cost measurement, so that a round run in the host's slow mode can be
told apart by its cause. Runs 12-33 found the host's speed switching between two modes round by
round (the host probe 8.8 or 13-15 us a launch on run 33; backward() 1.32-1.58x slower in the
slow rounds), and could not say whether it was the CPU's clock, another tenant taking the CPU
(a VM's steal time), other work on the machine, or the threads moving between CPUs.

host_state() returns, each where the kernel gives it (None where not):
  t            time.monotonic(), s: rounds' deltas are per second of the round
  cpu          the CPU the calling (main) thread last ran on
  thread_cpus  the CPUs the process's threads last ran on (the autograd engine's among them)
  mhz          that CPU's clock now (cpufreq's scaling_cur_freq, else /proc/cpuinfo's cpu MHz)
  jiffies      the machine's CPU time so far by kind, in s: user, nice, system, idle, iowait,
               irq, softirq, steal (/proc/stat's cpu line over the clock tick)
  load1        the one-minute load average
  ctxt         the context switches of the process's threads so far, summed, voluntary and not
               (a thread preempted); threads that ended between two readings drop out of the sum
Pure reads, no PyTorch; each parser takes the file's text, so the tests feed them by hand.
"""
import os
import time

STAT_KINDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def parse_proc_stat(text, tick):
    """{kind: seconds} from /proc/stat's first (all-CPU) line; tick: clock ticks a second."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "cpu":
            return {k: int(v) / tick for k, v in zip(STAT_KINDS, f[1:])}
    return None


def parse_task_cpu(text):
    """The CPU a thread last ran on: field 39 of /proc/PID/task/TID/stat, counted after the
    command name's closing parenthesis (the name itself may hold spaces and parentheses)."""
    rest = text[text.rfind(")") + 2:].split()
    return int(rest[36]) if len(rest) > 36 else None   # fields 3.. after the name; 39 is rest[36]


def parse_status_ctxt(text):
    """(voluntary, nonvoluntary) context switches from /proc/PID[/task/TID]/status."""
    got = {}
    for line in text.splitlines():
        k, _, v = line.partition(":")
        if k in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
            got[k] = int(v)
    if len(got) < 2:
        return None
    return got["voluntary_ctxt_switches"], got["nonvoluntary_ctxt_switches"]


def parse_cpuinfo_mhz(text, cpu):
    """The 'cpu MHz' of processor cpu in /proc/cpuinfo."""
    current = None
    for line in text.splitlines():
        k, _, v = line.partition(":")
        k = k.strip()
        if k == "processor":
            current = int(v)
        elif k == "cpu MHz" and current == cpu:
            return float(v)
    return None


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _cpu_mhz(cpu):
    khz = _read("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq" % cpu)
    if khz and khz.strip().isdigit():
        return int(khz) / 1000.0
    info = _read("/proc/cpuinfo")
    return parse_cpuinfo_mhz(info, cpu) if info else None


def host_state():
    """The host's state now (see the module docstring); never raises on a missing file."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    me = _read("/proc/thread-self/stat")
    cpu = parse_task_cpu(me) if me else None
    cpus, ctxt = set(), None
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        tasks = []
    for tid in tasks:
        t = _read("/proc/self/task/%s/stat" % tid)
        c = parse_task_cpu(t) if t else None
        if c is not None:
            cpus.add(c)
        st = _read("/proc/self/task/%s/status" % tid)
        sw = parse_status_ctxt(st) if st else None
        if sw:   # every thread's: the autograd engine's preemptions count as the main thread's
            ctxt = [sw[0] + (ctxt[0] if ctxt else 0), sw[1] + (ctxt[1] if ctxt else 0)]
    stat = _read("/proc/stat")
    load = _read("/proc/loadavg")
    return {"t": round(time.monotonic(), 4), "cpu": cpu, "thread_cpus": sorted(cpus) or None,
            "mhz": _cpu_mhz(cpu) if cpu is not None else None,
            "jiffies": parse_proc_stat(stat, tick) if stat else None,
            "load1": float(load.split()[0]) if load else None,
            "ctxt": ctxt}


def round_deltas(states):
    """Per round between two successive states: {"s": its seconds, "steal": the machine's steal
    time over all its CPU time (another tenant held the CPUs), "busy": the machine's non-idle
    share, "preempt_hz": the process's involuntary context switches a second, "mhz": the main
    thread's CPU's clock at the round's end, "moved": whether the main thread changed CPU}; a
    field None where either state lacks it."""
    out = []
    for a, b in zip(states, states[1:]):
        d = {"s": b["t"] - a["t"], "steal": None, "busy": None, "preempt_hz": None,
             "mhz": b.get("mhz"), "moved": None}
        ja, jb = a.get("jiffies"), b.get("jiffies")
        if ja and jb:
            diff = {k: jb[k] - ja[k] for k in STAT_KINDS if k in ja and k in jb}
            total = sum(diff.values())
            if total > 0:
                d["steal"] = diff.get("steal", 0.0) / total
                d["busy"] = 1 - (diff.get("idle", 0.0) + diff.get("iowait", 0.0)) / total
        if a.get("ctxt") and b.get("ctxt") and d["s"] > 0:
            d["preempt_hz"] = (b["ctxt"][1] - a["ctxt"][1]) / d["s"]
        if a.get("cpu") is not None and b.get("cpu") is not None:
            d["moved"] = a["cpu"] != b["cpu"]
        out.append(d)
    return out
