#!/usr/bin/env python3
"""Plan check.sh's parallel type-check of the proofs.

Agda checks one module at a time.  With W cores, check.sh runs the
development as a sequence of phases; a phase is up to W Agda processes at
once, each checking a disjoint set of modules whose dependencies outside
the set were checked by an earlier phase (so no two processes ever check,
or write the interface file of, the same module).  A plan is found by
splitting recursively: the modules not imported by any other (the tops)
are split into W groups; what two groups both need (the base) is checked
first, planned the same way; then one process per group checks the rest
of its group's closure.

The weights (seconds per module, from `agda --profile=modules`) only steer
the split; any plan checks every module exactly once.  A module missing
from the weights file is weighed by its size.

Only the modules whose interface file is missing or older than their
source, or than the interface of a module they import, and what imports
them, are planned (an incremental check); where splitting saves nothing
(few modules to check, or one worker) the plan is "serial": check.sh then
checks Everything.agda in one process, which Agda alone makes exact.  The
mtime test only chooses between the two: Agda itself re-checks any module
whose interface does not match its source, in either mode.

    schedule.py ROOT WEIGHTS WORKERS  -> "serial", or one line per job:
        <phase> <job> <module> <module> ...
    schedule.py ROOT WEIGHTS WORKERS --explain  -> the plan's estimate
    add --all to plan every module, as after `check.sh --clean`
    schedule.py --from-profile LOG  -> check-weights.tsv, from the output
        of `agda --profile=modules Everything.agda` (from scratch)
"""
import os
import re
import sys

IMPORT = re.compile(r"^\s*(?:open\s+)?import\s+(SCFTL(?:\.[\w\u0080-\uffff']+)*)")
# a process loads the interfaces of what it imports: about this many
# seconds, plus this many per module already checked that it needs
LOAD_BASE = 5.0
LOAD_PER_DEP = 0.12
# split a set further only when it saves at least this much
MIN_GAIN = 10.0


def read_modules(root):
    deps = {}
    for dirpath, _, files in os.walk(os.path.join(root, "SCFTL")):
        for f in files:
            if not f.endswith(".agda"):
                continue
            path = os.path.join(dirpath, f)
            m = os.path.relpath(path, root)[:-5].replace(os.sep, ".")
            ds = set()
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    mm = IMPORT.match(line)
                    if mm:
                        ds.add(mm.group(1))
            deps[m] = ds
    for m in deps:
        deps[m] = {d for d in deps[m] if d in deps and d != m}
    return deps


def read_weights(path, deps, root):
    w = {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) == 2 and not line.startswith("#"):
                    w[parts[0]] = float(parts[1])
    for m in deps:
        if m not in w:
            size = os.path.getsize(os.path.join(root, m.replace(".", os.sep) + ".agda"))
            w[m] = max(0.5, size / 4000.0)
    return w


def closures(deps):
    memo = {}

    def cl(m):
        if m not in memo:
            s = {m}
            for d in deps[m]:
                s |= cl(d)
            memo[m] = frozenset(s)
        return memo[m]

    for m in deps:
        cl(m)
    return memo


class Planner:
    def __init__(self, deps, w, workers):
        self.deps, self.w, self.k = deps, w, workers
        self.cl = closures(deps)

    def weight(self, ms):
        return sum(self.w[m] for m in ms)

    def load(self, ms, done):
        need = set()
        for m in ms:
            need |= self.cl[m]
        return LOAD_BASE + LOAD_PER_DEP * len(need & done)

    def serial(self, todo, done):
        return self.load(todo, done) + self.weight(todo)

    def split(self, todo, done):
        """Best split of `todo` (closed under dependencies, given `done`)
        into a base and up to k groups; returns (cost, base, groups)."""
        tops = [m for m in todo if not any(m in self.deps[o] for o in todo if o != m)]
        if len(tops) < 2:
            return None
        clos = {t: self.cl[t] & todo for t in tops}
        tops.sort(key=lambda t: (-self.weight(clos[t]), t))

        def evaluate(assign):
            groups = [set() for _ in range(self.k)]
            for t, g in zip(tops, assign):
                groups[g] |= clos[t]
            base = set()
            for i in range(self.k):
                for j in range(i + 1, self.k):
                    base |= groups[i] & groups[j]
            rest = [g - base for g in groups]
            done2 = done | base
            par = max((self.load(g, done2) + self.weight(g)) for g in rest if g) if any(rest) else 0.0
            basec = self.serial(base, done) if base else 0.0
            return basec + par, base, [g for g in rest if g]

        # greedy: largest closure first, to the lightest group
        assign = []
        loads = [0.0] * self.k
        for t in tops:
            g = min(range(self.k), key=lambda i: loads[i])
            assign.append(g)
            loads[g] += self.weight(clos[t])
        best = evaluate(assign)
        improved = True
        while improved:
            improved = False
            for i in range(len(tops)):
                for g in range(self.k):
                    if g == assign[i]:
                        continue
                    trial = assign[:i] + [g] + assign[i + 1:]
                    r = evaluate(trial)
                    if r[0] + 1e-9 < best[0]:
                        best, assign, improved = r, trial, True
        return best

    def plan(self, todo, done):
        """A list of phases, each a list of module sets, and its cost."""
        serial = self.serial(todo, done)
        s = self.split(todo, done) if len(todo) > 1 else None
        if s is None:
            return [[sorted(todo)]], serial
        _, base, groups = s
        if not base:
            bplan, bcost = [], 0.0
        else:
            bplan, bcost = self.plan(base, done)
        done2 = done | base
        par = max(self.load(g, done2) + self.weight(g) for g in groups)
        cost = bcost + par
        if cost + MIN_GAIN > serial:
            return [[sorted(todo)]], serial
        return bplan + [[sorted(g) for g in groups]], cost


def stale_set(root, deps):
    """Modules whose interface is missing or out of date by mtime, and
    every module that imports one of them."""
    def iface(m):
        return os.path.join(root, m.replace(".", os.sep) + ".agdai")

    def mtime(path):
        try:
            return os.path.getmtime(path)
        except OSError:
            return None

    memo = {}

    def stale(m):
        if m not in memo:
            memo[m] = True   # no cycles in Agda's imports
            i = mtime(iface(m))
            src = mtime(os.path.join(root, m.replace(".", os.sep) + ".agda"))
            memo[m] = (i is None or src is None or src > i
                       or any(stale(d) or (mtime(iface(d)) or 0) > i for d in deps[m]))
        return memo[m]

    return {m for m in deps if stale(m)}


def weights_from_profile(path):
    """check-weights.tsv from the output of `agda --profile=modules`."""
    print("# seconds per module, from: agda --profile=modules Everything.agda;"
          " steers check.sh's parallel plan only (proofs/README.md, Running the check)")
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^(SCFTL\.\S+)\s+([0-9,]+)ms\s*$", line)
            if m:
                rows.append((m.group(1), int(m.group(2).replace(",", "")) / 1000.0))
    if not rows:
        sys.exit("no module timings in " + path)
    for name, sec in sorted(rows):
        print("%s %.1f" % (name, sec))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--from-profile":
        weights_from_profile(sys.argv[2])
        return
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    root, weights, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    deps = read_modules(root)
    w = read_weights(weights, deps, root)
    p = Planner(deps, w, max(1, workers))
    todo = set(deps) if "--all" in sys.argv[4:] else stale_set(root, deps)
    done = set(deps) - todo
    if todo and workers > 1:
        phases, cost = p.plan(todo, done)
    else:
        phases, cost = [[sorted(todo)]], p.serial(todo, done)
    # every module to check exactly once
    seen = [m for ph in phases for job in ph for m in job]
    assert sorted(seen) == sorted(todo), "plan does not cover every module once"
    serial = len(phases) == 1 and len(phases[0]) == 1
    if "--explain" in sys.argv[4:]:
        print("modules %d, to check %d, serial estimate %.0f s, plan estimate %.0f s, %s"
              % (len(deps), len(todo), p.serial(todo, done), cost,
                 "serial" if serial else "%d phases" % len(phases)))
        if not serial:
            for i, ph in enumerate(phases):
                print("phase %d: %s" % (i, " | ".join("%d modules %.0f s" % (len(j), p.weight(j)) for j in ph)))
        return
    if serial:
        print("serial")
        return
    for i, ph in enumerate(phases):
        for j, job in enumerate(ph):
            print(i, j, " ".join(job))


if __name__ == "__main__":
    main()
