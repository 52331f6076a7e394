#!/usr/bin/env python3
"""include_cycles.py SOURCE_ROOT: no source files include (or so call) each other in a loop
(issue 9). A module is x.c, x.h (and x.cu) together; x -> y when any of x's files has
#include "y.h". Every strongly connected group of more than one module is a cycle, printed with
the includes that make it; exit 1 then. Folders: fusim.c's and the module folders.
--self-test: a tree with a.c -> b.h and b.c -> a.h must be found, and one without must not."""
import os
import re
import sys
import tempfile

FOLDERS = [".", "model", "data", "sim", "calib", "validate"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def graph(root):
    edges, why = {}, {}
    for d in FOLDERS:
        folder = os.path.join(root, d)
        if not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            m = re.match(r"(.+)\.(c|h|cu)$", f)
            if not m:
                continue
            node = m.group(1)
            edges.setdefault(node, set())
            with open(os.path.join(folder, f), errors="replace") as fh:
                for inc in INCLUDE.findall(fh.read()):
                    dep = re.sub(r"\.(c|h)$", "", os.path.basename(inc))
                    if dep != node:
                        edges[node].add(dep)
                        why.setdefault((node, dep), os.path.join(d, f))
    return edges, why


def cycles(edges):
    """Tarjan's strongly connected components, iteratively; groups of more than one."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = n[0]
        n[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]
                    n[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
    return out


def self_test():
    with tempfile.TemporaryDirectory() as t:
        os.mkdir(os.path.join(t, "sim"))
        files = {"a.c": '#include "b.h"\n', "a.h": "", "b.c": '#include "a.h"\n', "b.h": "",
                 "c.c": '#include "a.h"\n'}
        for name, text in files.items():
            with open(os.path.join(t, "sim", name), "w") as f:
                f.write(text)
        found = cycles(graph(t)[0])
        assert found == [["a", "b"]], found
        with open(os.path.join(t, "sim", "b.c"), "w") as f:
            f.write("")
        assert cycles(graph(t)[0]) == [], "a cycle found where there is none"
    print("include_cycles: self-test ok")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(sys.argv) != 2:
        print("usage: include_cycles.py SOURCE_ROOT | --self-test", file=sys.stderr)
        return 64
    edges, why = graph(sys.argv[1])
    found = cycles(edges)
    for group in found:
        links = ["%s -> %s (%s)" % (a, b, why[(a, b)]) for a in group for b in sorted(edges[a])
                 if b in group]
        print("cycle: %s: %s" % (", ".join(group), "; ".join(links)))
    print("include_cycles: %d modules, %d includes between them, %d cycles"
          % (len(edges), sum(len(e) for e in edges.values()), len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
