#!/usr/bin/env python3
"""test_host_state.py: tools/host_state.py's parsers on file texts written by hand (a command
name with spaces and parentheses; /proc/stat's all-CPU line; the context switches; cpuinfo's
clock of one processor), round_deltas on states whose differences are known, the live reading
on this machine (types only: its values are the machine's), and data/validation/mode_split.py's
host line splitting rounds into the fast and the slow mode."""
import os
import sys

import vcheck
from vcheck import check

sys.path.insert(0, os.path.join(vcheck.ROOT, "tools"))
import host_state as hs  # noqa: E402
import mode_split  # noqa: E402

# /proc/PID/task/TID/stat: field 39 is the CPU, counted from the state (field 3) after the name
fields = ["S"] + [str(k) for k in range(4, 39)] + ["7"] + ["0"] * 13
stat = "1234 (pt (main) thread) " + " ".join(fields)
check("the CPU after a name with spaces and parentheses: 7 (got %r)" % hs.parse_task_cpu(stat),
      hs.parse_task_cpu(stat) == 7)
check("a stat line too short: None", hs.parse_task_cpu("1 (x) S 1 2") is None)

proc = "cpu  1000 10 300 5000 20 0 5 65 0 0\ncpu0 500 5 150 2500 10 0 2 30 0 0\nintr 1\n"
got = hs.parse_proc_stat(proc, 100)
check("/proc/stat's cpu line over 100 ticks a second: user 10 s, idle 50 s, steal 0.65 s (%r)" % got,
      got["user"] == 10.0 and got["idle"] == 50.0 and got["steal"] == 0.65 and len(got) == 8)
check("no cpu line: None", hs.parse_proc_stat("intr 1\n", 100) is None)

status = "Name:\tpython3\nvoluntary_ctxt_switches:\t120\nnonvoluntary_ctxt_switches:\t7\n"
check("context switches (120, 7)", hs.parse_status_ctxt(status) == (120, 7))
check("no switches in the text: None", hs.parse_status_ctxt("Name:\tx\n") is None)

info = "processor\t: 0\ncpu MHz\t\t: 2100.000\n\nprocessor\t: 1\ncpu MHz\t\t: 3400.5\n"
check("cpuinfo: processor 1 at 3400.5 MHz", hs.parse_cpuinfo_mhz(info, 1) == 3400.5)
check("cpuinfo: no processor 2", hs.parse_cpuinfo_mhz(info, 2) is None)


def state(t, steal, idle, busy, nonvol, cpu, mhz=2000.0):
    """A state whose jiffies differences are easy: user carries the busy time."""
    return {"t": t, "cpu": cpu, "mhz": mhz, "ctxt": [0, nonvol],
            "jiffies": {"user": busy, "nice": 0.0, "system": 0.0, "idle": idle, "iowait": 0.0,
                        "irq": 0.0, "softirq": 0.0, "steal": steal}}


# round 1 (2 s): 16 s of CPU time over 8 CPUs, 4 busy, 2 stolen, 10 idle: steal 2/16, busy 6/16;
# 10 preemptions in 2 s; same CPU. Round 2 (1 s): nothing stolen, all busy, moved CPU.
s = [state(0.0, 0.0, 0.0, 0.0, 0, 3), state(2.0, 2.0, 10.0, 4.0, 10, 3, 1500.0),
     state(3.0, 2.0, 10.0, 12.0, 13, 5)]
d = hs.round_deltas(s)
check("round 1: 2 s, steal 0.125, busy 0.375, 5 preemptions a second, 1500 MHz, not moved (%r)" % d[0],
      d[0] == {"s": 2.0, "steal": 0.125, "busy": 0.375, "preempt_hz": 5.0, "mhz": 1500.0,
               "moved": False})
check("round 2: steal 0, busy 1, 3 preemptions a second, moved (%r)" % d[1],
      d[1]["steal"] == 0.0 and d[1]["busy"] == 1.0 and d[1]["preempt_hz"] == 3.0 and d[1]["moved"])
check("states without the readings: their fields None",
      hs.round_deltas([{"t": 0.0}, {"t": 1.0}]) == [{"s": 1.0, "steal": None, "busy": None,
                                                   "preempt_hz": None, "mhz": None, "moved": None}])

live = hs.host_state()
check("the live reading: a time, and each field None or of its type (%r)" % live,
      isinstance(live["t"], float) and all(
          live[k] is None or isinstance(live[k], ty)
          for k, ty in (("cpu", int), ("thread_cpus", list), ("mhz", float), ("jiffies", dict),
                        ("load1", float), ("ctxt", list))))

# mode_split: rounds 0 and 2 fast, 1 and 3 slow; the slow rounds have 20% steal
s = [state(0.0, 0.0, 0.0, 0.0, 0, 1)]
for k, st in enumerate((0.0, 2.0, 0.0, 2.0)):   # steal seconds in each 1 s round of 10 CPU-s
    prev = s[-1]["jiffies"]
    s.append(state(k + 1.0, prev["steal"] + st, prev["idle"] + 5.0, prev["user"] + 5.0 - st,
                   0, 1))
line = mode_split.host_by_mode(s, ([0, 2], [1, 3]))
check("mode_split's host line: steal 0 in the fast rounds, 0.2 in the slow ones (%r)" % line,
      line is not None and line.startswith("steal 0.000 / 0.200; busy 0.50 / 0.50")
      and "moved CPU 0/2 / 0/2" in line)
check("mode_split without states: no line", mode_split.host_by_mode(None, ([0], [1])) is None)
vcheck.finish()
