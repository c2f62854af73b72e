#!/usr/bin/env python3
"""Plan, and run, check.sh's parallel type-check of the proofs.

Agda checks one module at a time, and a process that checks a module
first loads the interface files of everything that module imports.  With
W cores, check.sh runs the check as jobs on W Agda worker processes at
once.  Each job checks its own set of modules (through a wrapper module
that imports them) and starts only when every module its set imports
from outside the set has been checked and written by another job, so no
two jobs ever check, or write the interface file of, the same module,
and no job finds a module half-written.  A worker is one long-lived
`agda --interaction-json` process that gets one load command per job;
Agda keeps what it has loaded or checked across load commands, so a
worker loads each interface file at most once (a process per job loaded
them again for every job: a third of the CPU of a clean check).

The plan is a list schedule, simulated before anything runs: whenever a
worker is free, it starts a job with the ready module (all imports
checked) that heads the longest remaining chain of imports (weighted),
and grows that job along what it enables, highest chain first, until
the job holds about T seconds of work; a job costs its modules' time
plus the time to load the interfaces it imports that its worker has not
loaded yet (about LOAD_BASE seconds for the standard library's on a
fresh worker, plus LOAD_PER_MB per megabyte of the project's interface
files).  The plan tries several T and keeps the shortest simulated run;
where that saves less than MIN_GAIN over one process, the plan is
"serial" and check.sh checks Everything.agda in one batch process.  The
runner starts the jobs in the plan's order as their imports are written,
on whichever worker is free, so a job that runs longer or shorter than
planned delays only what needs it.

The weights (seconds per module, from `agda --profile=modules`, and the
size of each module's interface file) only steer the plan; any plan
checks every module exactly once (asserted).  A module missing from the
weights file is weighed by the size of its source.

Only the modules whose interface file is missing or older than their
source, or than the interface of a module they import, and what imports
them, are planned (an incremental check).  The mtime test only chooses
what to plan: Agda itself re-checks any module whose interface does not
match its source, in either mode.

    schedule.py ROOT WEIGHTS WORKERS  -> "serial", or one line per job,
        in start order:  <id> <modules it waits for, comma-separated, or -> <module> ...
    schedule.py ROOT WEIGHTS WORKERS --explain  -> the plan and its estimate
    add --all to plan every module, as after `check.sh --clean`
    schedule.py --run PLAN WORKERS WORKDIR AGDA [ARG ...]  -> run a plan:
        one wrapper module per job in WORKDIR, loaded by a worker (AGDA
        --interaction-json; each load command with ARG ... -i WORKDIR, the
        include paths made absolute; a worker's replies logged in WORKDIR);
        exit 1 on an error, a warning or an unsolved meta, printing what
        Agda said
    schedule.py --from-profile LOG  -> check-weights.tsv, from the output
        of `agda --profile=modules Everything.agda` run from scratch in
        this directory (the interface sizes are read from the files)
"""
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time

IMPORT = re.compile(r"^\s*(?:open\s+)?import\s+(SCFTL(?:\.[\w\u0080-\uffff']+)*)")
# a process loads the interfaces of what it imports: about this many
# seconds for the standard library's, plus this many per megabyte of the
# project's interface files (measured 2026-12-03 with Agda 2.6.3: 2.7 s
# for SCFTL.Spec's, 10.5 s for 16 MB, 26 s for all 49 MB)
LOAD_BASE = 2.5
LOAD_PER_MB = 0.5
# a worker silent this long on a job has failed (seconds; Agda reports
# each module it starts and each interface it writes, and no module here
# takes a minute)
QUIET_LIMIT = float(os.environ.get("SCFTL_AGDA_QUIET_S", "1200"))
# plan in parallel only when that saves at least this much
MIN_GAIN = 10.0
# the process sizes tried (seconds of modules' own time)
TARGETS = (15, 30, 50, 80, 100, 130, 170, 250, 1e9)


def module_path(root, m, ext):
    return os.path.join(root, m.replace(".", os.sep) + ext)


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
    """Seconds per module and megabytes of its interface file."""
    w, mb = {}, {}
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                parts = line.split()
                if line.startswith("#") or len(parts) < 2:
                    continue
                w[parts[0]] = float(parts[1])
                if len(parts) >= 3:
                    mb[parts[0]] = float(parts[2]) / 1000.0
    for m in deps:
        size = os.path.getsize(module_path(root, m, ".agda"))
        if m not in w:
            w[m] = max(0.5, size / 4000.0)
        if m not in mb:
            mb[m] = size / 40000.0
    return w, mb


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
    def __init__(self, deps, w, mb, workers):
        self.deps, self.w, self.mb, self.k = deps, w, mb, workers
        self.cl = closures(deps)
        users = {m: set() for m in deps}
        for m, ds in deps.items():
            for d in ds:
                users[d].add(m)
        self.users = users
        # the longest chain of imports from a module to a top, weighted
        self.level = {}
        for m in self.topo(set(deps))[::-1]:
            self.level[m] = self.w[m] + max((self.level[u] for u in users[m]), default=0.0)

    def topo(self, ms):
        out, seen = [], set()

        def visit(m):
            if m in seen:
                return
            seen.add(m)
            for d in sorted(self.deps[m]):
                if d in ms:
                    visit(d)
            out.append(m)

        for m in sorted(ms):
            visit(m)
        return out

    def weight(self, ms):
        return sum(self.w[m] for m in ms)

    def need(self, ms):
        need = set()
        for m in ms:
            need |= self.cl[m]
        return need

    def load(self, ms, seen=None, need=None):
        """Seconds to load what `ms` import (`need`, if given: their
        closure), by a fresh worker (`seen` None) or by one that has
        already loaded or checked `seen`."""
        need = self.need(ms) if need is None else need
        base = LOAD_BASE if seen is None else 0.0
        return base + LOAD_PER_MB * sum(self.mb[d] for d in need - set(ms) - (seen or set()))

    def serial(self, todo):
        return self.load(todo) + self.weight(todo)

    def simulate(self, todo, done, target, crit_target):
        """List-schedule `todo` on k workers, processes of about `target`
        seconds of modules' own time (`crit_target` for one that starts the
        longest remaining chain); a process grows with what it enables
        first, then with other ready modules, longest chain first.  A module is available to other processes once its
        interface file is written, which its process does right after
        checking it (at its start, plus its load, plus the time of the
        modules before it and its own).  Returns (makespan, processes); a
        process is (id, start, end, modules it waits for, modules in check
        order)."""
        written = {m: 0.0 for m in done}     # module -> time its interface is written
        claimed = set()
        procs = []
        busy = [0.0] * self.k                # each worker: busy until then
        seen = [None] * self.k               # each worker: what it has loaded
        t = 0.0
        left = set(todo)

        def ready(m, extra):
            return all((d in written and written[d] <= t) or d in extra for d in self.deps[m])

        while claimed != left:
            crit = max((self.level[m] for m in left if m not in claimed), default=0.0)
            while any(b <= t for b in busy):
                cands = [m for m in left if m not in claimed and ready(m, ())]
                if not cands:
                    break
                head = max(cands, key=lambda m: (self.level[m], m))
                mods, inproc = [head], {head}
                acc = self.w[head]
                # the process that starts the longest remaining chain of
                # imports is sized on its own (crit_target)
                limit = crit_target if self.level[head] >= crit else target
                while acc < limit:
                    enabled = set().union(*(self.users[x] for x in mods))
                    ext = [m for m in left if m not in claimed and m not in inproc
                           and ready(m, inproc)]
                    if not ext:
                        break
                    nxt = max(ext, key=lambda m: (m in enabled, self.level[m], m))
                    mods.append(nxt)
                    inproc.add(nxt)
                    acc += self.w[nxt]
                claimed |= inproc
                waits = sorted({d for m in mods for d in self.deps[m]
                                if d not in inproc and d not in done})
                # the free worker with the least left to load
                need = self.need(mods)
                cost = {i: self.load(mods, seen[i], need) for i in range(self.k) if busy[i] <= t}
                wid = min(cost, key=lambda i: (cost[i], i))
                clock = t + cost[wid]
                for m in mods:
                    clock += self.w[m]
                    written[m] = clock
                seen[wid] = (seen[wid] or set()) | need
                busy[wid] = clock
                procs.append((len(procs), t, clock, waits, mods))
            # the next moment something changes: a job ends, or a
            # module is written
            future = [e for e in busy if e > t] + [x for x in written.values() if x > t]
            if not future:
                if claimed != left:
                    raise AssertionError("plan stuck: a cycle of imports?")
                break
            t = min(future)
        makespan = max((p[2] for p in procs), default=0.0)
        return makespan, procs

    def plan(self, todo, done):
        best = None
        for target in TARGETS:
            for crit_target in TARGETS:
                span, procs = self.simulate(todo, done, target, crit_target)
                if best is None or span < best[0] - 1e-9:
                    best = (span, procs, (target, crit_target))
        return best


def stale_set(root, deps):
    """Modules whose interface is missing or out of date by mtime, and
    every module that imports one of them."""
    def mtime(path):
        try:
            return os.path.getmtime(path)
        except OSError:
            return None

    memo = {}

    def stale(m):
        if m not in memo:
            memo[m] = True   # no cycles in Agda's imports
            i = mtime(module_path(root, m, ".agdai"))
            src = mtime(module_path(root, m, ".agda"))
            memo[m] = (i is None or src is None or src > i
                       or any(stale(d) or (mtime(module_path(root, d, ".agdai")) or 0) > i
                              for d in deps[m]))
        return memo[m]

    return {m for m in deps if stale(m)}


def check_plan(deps, todo, done, procs):
    """Every module to check exactly once; a process waits for every
    import it does not check itself, and each of those is checked by a
    process earlier in the plan; a process lists its modules after what
    they import (Agda then checks them in that order)."""
    seen = [m for p in procs for m in p[4]]
    assert sorted(seen) == sorted(todo), "plan does not cover every module once"
    owner = {m: p[0] for p in procs for m in p[4]}
    for pid, _, _, waits, mods in procs:
        before = set()
        for m in mods:
            for d in deps[m]:
                assert d in done or d in before or (d in waits and owner[d] < pid), \
                    "%s imports %s, which its process neither checks before it nor waits for" % (m, d)
            before.add(m)


def weights_from_profile(path, root):
    """check-weights.tsv from the output of `agda --profile=modules`."""
    print("# seconds per module (agda --profile=modules Everything.agda) and its"
          " interface file's size in kB; steers check.sh's parallel plan only"
          " (proofs/README.md, Running the check)")
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^(SCFTL\.\S+)\s+([0-9,]+)ms\s*$", line)
            if m:
                rows.append((m.group(1), int(m.group(2).replace(",", "")) / 1000.0))
    if not rows:
        sys.exit("no module timings in " + path)
    for name, sec in sorted(rows):
        try:
            kb = os.path.getsize(module_path(root, name, ".agdai")) / 1000.0
        except OSError:
            sys.exit("no interface file for %s: run the profile in %s first" % (name, root))
        print("%s %.1f %.0f" % (name, sec, kb))


WRITING = re.compile(r"^Writing interface file (.*)\.$")
WROTE = "Wrote interface file."
VERBOSE = ["-v", "import.iface.write:5"]   # makes Agda log the two lines above


class Worker:
    """One Agda process in interaction mode (`--interaction-json`), fed
    one load command per job.  Agda keeps every interface it has decoded,
    or written, across commands (its persistent state), so a job loads
    only the interface files that this worker has not seen yet: those
    written by the other workers since.  Its replies are JSON objects, one
    per line (some after a "JSON> " prompt), read by a thread into the
    runner's queue."""

    def __init__(self, wid, agda, events, workdir):
        self.wid, self.job, self.writing, self.last = wid, None, None, time.time()
        self.proc = subprocess.Popen(agda + ["--interaction-json"] + VERBOSE,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.log = open(os.path.join(workdir, "worker%d.log" % wid), "w", encoding="utf-8")

        def pump():
            for raw in self.proc.stdout:
                events.put((self, raw.decode("utf-8", errors="replace")))
            events.put((self, None))

        threading.Thread(target=pump, daemon=True).start()

    def send(self, job, src, args):
        self.job, self.last = job, time.time()
        quoted = "[%s]" % ",".join(json.dumps(a) for a in args)
        cmd = "IOTCM %s None Direct (Cmd_load %s %s)\n" % (json.dumps(src), json.dumps(src), quoted)
        self.log.write(cmd)
        self.proc.stdin.write(cmd.encode("utf-8"))
        self.proc.stdin.flush()

    def stop(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.kill()
        self.proc.wait()
        self.log.close()


def reply(line):
    """The JSON object of one line of a worker's output, or None."""
    line = line.strip()
    while line.startswith("JSON>"):
        line = line[len("JSON>"):].strip()
    if not line.startswith("{"):
        return None
    try:
        return json.loads(line)
    except ValueError:
        return None


def said(x):
    """What Agda's reply says, as text."""
    if isinstance(x, dict) and isinstance(x.get("message"), str):
        return x["message"]
    return json.dumps(x, ensure_ascii=False)


def run_plan(plan_path, workers, workdir, agda):
    """Run a plan's jobs on at most `workers` Agda worker processes, each
    job as soon as the interface files of the modules it waits for are
    written: by a job that has passed, or, read from a worker's running
    log, once Agda says it wrote them (it writes a module's interface file
    right after checking it, and logs the line after the file is closed).
    A job is one load command of a wrapper module that imports the job's
    modules; it passes when Agda reports no error, no warning and no
    unsolved meta (goal)."""
    procs = []
    with open(plan_path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            waits = [] if parts[1] == "-" else parts[1].split(",")
            procs.append((int(parts[0]), waits, parts[2:]))
    root = os.getcwd()
    # the program (with its runtime's options, if any) starts each worker;
    # the rest are Agda's options, given with each load command
    cut = agda.index("-RTS") + 1 if "+RTS" in agda and "-RTS" in agda else 1
    prog, args = agda[:cut], agda[cut:] + ["-i", workdir]
    # include paths absolute: a load command resolves them elsewhere
    args = [os.path.abspath(a) if i > 0 and args[i - 1] == "-i" else a
            for i, a in enumerate(args)]
    start = time.time()
    events = queue.Queue()
    written, pending = set(), list(procs)
    failed, npassed = None, 0
    pool = []

    def idle():
        for wk in pool:
            if wk.job is None:
                return wk
        if len(pool) < workers:
            pool.append(Worker(len(pool), prog, events, workdir))
            return pool[-1]
        return None

    def dispatch():
        for p in list(pending):
            pid, waits, mods = p
            if not all(m in written for m in waits):
                continue
            wk = idle()
            if wk is None:
                return
            name = "CheckJob%d" % pid
            src = os.path.join(workdir, name + ".agda")
            with open(src, "w", encoding="utf-8") as fh:
                fh.write("{-# OPTIONS --safe --without-K #-}\nmodule %s where\n" % name)
                for m in mods:
                    fh.write("import %s\n" % m)
            wk.send({"pid": pid, "mods": mods}, src, args)
            what = mods[0] if len(mods) == 1 else "%d modules, %s ..." % (len(mods), mods[0])
            print("check.sh: job %d started at %.0fs on worker %d (%s)"
                  % (pid, time.time() - start, wk.wid, what), flush=True)
            pending.remove(p)

    try:
        dispatch()
        while (pending or any(wk.job for wk in pool)) and not failed:
            if not any(wk.job for wk in pool):
                failed = "nothing can start: the plan waits for a module that no job checks"
                break
            try:
                wk, line = events.get(timeout=5)
            except queue.Empty:
                # a worker that says nothing for this long on a job has
                # stopped (or answers in a form this runner does not
                # read): fail rather than wait for ever
                for w in pool:
                    if w.job is not None and time.time() - w.last > QUIET_LIMIT:
                        failed = ("Agda worker %d said nothing for %d s on job %d"
                                  % (w.wid, QUIET_LIMIT, w.job["pid"]))
                continue
            wk.last = time.time()
            if line is None:
                failed = "Agda worker %d exited (code %s)" % (wk.wid, wk.proc.poll())
                break
            wk.log.write(line)
            obj = reply(line)
            if obj is None:
                continue
            kind = obj.get("kind")
            if kind == "RunningInfo":
                msg = obj.get("message", "").strip()
                m = WRITING.match(msg)
                if m:
                    wk.writing = m.group(1)
                elif msg == WROTE and wk.writing:
                    rel = os.path.relpath(wk.writing, root)
                    if rel.startswith("SCFTL" + os.sep) and rel.endswith(".agdai"):
                        written.add(rel[:-6].replace(os.sep, "."))
                        dispatch()
                    wk.writing = None
            elif kind == "DisplayInfo" and wk.job is not None:
                info = obj.get("info", {})
                ik = info.get("kind")
                if ik == "Error":
                    sys.stderr.write(said(info.get("error", info)) + "\n")
                    failed = "Agda rejected the proofs"
                elif ik == "AllGoalsWarnings":
                    bad = [x for key in ("errors", "warnings", "visibleGoals", "invisibleGoals")
                           for x in info.get(key, [])]
                    if bad:
                        sys.stderr.write("\n".join(said(x) for x in bad) + "\n")
                        failed = "Agda reported warnings or unsolved metas"
                    else:
                        job, wk.job = wk.job, None
                        written.update(job["mods"])
                        npassed += 1
                        print("check.sh: job %d passed at %.0fs (%d of %d)"
                              % (job["pid"], time.time() - start, npassed, len(procs)), flush=True)
                        dispatch()
    finally:
        for wk in pool:
            wk.stop()
    if failed:
        print("FAIL: " + failed, file=sys.stderr)
        sys.exit(1)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--from-profile":
        weights_from_profile(sys.argv[2], ".")
        return
    if len(sys.argv) >= 6 and sys.argv[1] == "--run":
        run_plan(sys.argv[2], max(1, int(sys.argv[3])), sys.argv[4], sys.argv[5:])
        return
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    root, weights, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    deps = read_modules(root)
    w, mb = read_weights(weights, deps, root)
    p = Planner(deps, w, mb, max(1, workers))
    todo = set(deps) if "--all" in sys.argv[4:] else stale_set(root, deps)
    done = set(deps) - todo
    serial_cost = p.serial(todo) if todo else 0.0
    span, procs, target = (serial_cost, [], None)
    if todo and workers > 1:
        span, procs, target = p.plan(todo, done)
        check_plan(deps, todo, done, procs)
    serial = not procs or span + MIN_GAIN > serial_cost
    if "--explain" in sys.argv[4:]:
        print("modules %d, to check %d, one process %.0f s, plan %.0f s, %s"
              % (len(deps), len(todo), serial_cost, span,
                 "serial" if serial else "%d jobs (sizes %g s, %g s on the longest chain)" % ((len(procs),) + target)))
        if not serial:
            for pid, s, e, waits, mods in procs:
                print("  job %2d  %5.0f-%5.0f s  waits for %3d modules, checks %2d: %s"
                      % (pid, s, e, len(waits), len(mods),
                         " ".join(x.replace("SCFTL.", "") for x in mods[:3])
                         + (" ..." if len(mods) > 3 else "")))
        return
    if serial:
        print("serial")
        return
    for pid, _, _, waits, mods in procs:
        print(pid, ",".join(map(str, waits)) or "-", " ".join(mods))


if __name__ == "__main__":
    main()
