#!/usr/bin/env python3
"""Workload driver of `scftl bench app` (embedded in the bench crate).

Usage: driver.py run|check WORKLOAD DIR COUNT SEED

WORKLOAD `crash` is the crash test's (see crash_run and crash_check).

`run` performs the timed workload inside DIR and prints one JSON object on
stdout: {"workload", "ops", "seconds", "bytes"}. `check` verifies what a
completed `run` left in DIR and prints {"ok": true} or exits 1 with the
reason on stderr. Every byte written is derived from SEED, so `check` can
recompute it. Any error exits non-zero with a message on stderr.
"""

import hashlib
import json
import os
import random
import sqlite3
import sys
import time

MIB = 1 << 20


def payload(seed, tag, i, size):
    """Deterministic bytes for item `i` of a workload."""
    out = b""
    n = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}:{tag}:{i}:{n}".encode()).digest()
        n += 1
    return out[:size]


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path, data):
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


# SQLite: COUNT single-row INSERT transactions, then COUNT UPDATE
# transactions; default (rollback) journal, synchronous=FULL.
def sqlite_value(seed, i, gen):
    return payload(seed, f"sql{gen}", i, 16).hex()


def sqlite_run(d, n, seed):
    con = sqlite3.connect(os.path.join(d, "bench.db"), isolation_level=None)
    con.execute("PRAGMA synchronous=FULL")
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    t0 = time.perf_counter()
    for i in range(n):
        con.execute("BEGIN")
        con.execute("INSERT INTO t (id, v) VALUES (?, ?)", (i, sqlite_value(seed, i, 0)))
        con.execute("COMMIT")
    for i in range(n):
        con.execute("BEGIN")
        con.execute("UPDATE t SET v = ? WHERE id = ?", (sqlite_value(seed, i, 1), i))
        con.execute("COMMIT")
    dt = time.perf_counter() - t0
    con.close()
    return 2 * n, dt, 0


def sqlite_check(d, n, seed):
    con = sqlite3.connect(os.path.join(d, "bench.db"))
    res = con.execute("PRAGMA integrity_check").fetchall()
    if res != [("ok",)]:
        raise Exception(f"integrity_check: {res}")
    rows = con.execute("SELECT id, v FROM t ORDER BY id").fetchall()
    if len(rows) != n:
        raise Exception(f"{len(rows)} rows, expected {n}")
    for i, (rid, v) in enumerate(rows):
        if rid != i or v != sqlite_value(seed, i, 1):
            raise Exception(f"row {i}: got ({rid}, {v!r}), expected the updated value")
    con.close()


# smallfiles: create, write 100 bytes, fsync, close.
def small_run(d, n, seed):
    sub = os.path.join(d, "small")
    os.mkdir(sub)
    t0 = time.perf_counter()
    for i in range(n):
        write_file(os.path.join(sub, f"f{i:07}"), payload(seed, "small", i, 100))
    dt = time.perf_counter() - t0
    return n, dt, 100 * n


def small_check(d, n, seed):
    sub = os.path.join(d, "small")
    names = sorted(os.listdir(sub))
    if names != [f"f{i:07}" for i in range(n)]:
        raise Exception(f"{len(names)} files, expected f0000000..f{n - 1:07}")
    for i, name in enumerate(names):
        with open(os.path.join(sub, name), "rb") as f:
            if f.read() != payload(seed, "small", i, 100):
                raise Exception(f"{name}: contents differ")


# largefile: sequential 1 MiB writes, fsync after each.
def large_chunk(seed, i):
    return random.Random(f"{seed}:large:{i}").randbytes(MIB)


def large_run(d, n, seed):
    chunks = [large_chunk(seed, i) for i in range(min(n, 256))]
    fd = os.open(os.path.join(d, "large.bin"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    t0 = time.perf_counter()
    for i in range(n):
        # Up to 256 MiB of data is generated before the clock starts; later
        # chunks cost ~1 ms each of CPU, small against a 1 MiB fsync.
        data = chunks[i] if i < len(chunks) else large_chunk(seed, i)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    dt = time.perf_counter() - t0
    os.close(fd)
    return n, dt, n * MIB


def large_check(d, n, seed):
    path = os.path.join(d, "large.bin")
    size = os.stat(path).st_size
    if size != n * MIB:
        raise Exception(f"size {size}, expected {n * MIB}")
    with open(path, "rb") as f:
        for i in range(n):
            got = f.read(MIB)
            if hashlib.sha256(got).digest() != hashlib.sha256(large_chunk(seed, i)).digest():
                raise Exception(f"MiB {i} differs")


# mailbench-like: write a temp file, fsync, rename into the mailbox, fsync
# the mailbox directory.
def mail_size(i):
    return 1024 + (i * 937) % 3072


def mail_run(d, n, seed):
    tmp = os.path.join(d, "mail", "tmp")
    new = os.path.join(d, "mail", "new")
    os.makedirs(tmp)
    os.makedirs(new)
    fsync_dir(os.path.join(d, "mail"))
    total = 0
    t0 = time.perf_counter()
    for i in range(n):
        name = f"m{i:07}"
        data = payload(seed, "mail", i, mail_size(i))
        write_file(os.path.join(tmp, name), data)
        os.rename(os.path.join(tmp, name), os.path.join(new, name))
        fsync_dir(new)
        total += len(data)
    dt = time.perf_counter() - t0
    return n, dt, total


def mail_check(d, n, seed):
    tmp = os.path.join(d, "mail", "tmp")
    new = os.path.join(d, "mail", "new")
    if os.listdir(tmp):
        raise Exception(f"{len(os.listdir(tmp))} messages left in tmp/")
    names = sorted(os.listdir(new))
    if names != [f"m{i:07}" for i in range(n)]:
        raise Exception(f"{len(names)} messages in new/, expected {n}")
    for i, name in enumerate(names):
        with open(os.path.join(new, name), "rb") as f:
            if f.read() != payload(seed, "mail", i, mail_size(i)):
                raise Exception(f"{name}: contents differ")


# crash (`scftl bench app-crash`): SQLite transactions, each followed by a
# small file made durable with fsync, until the process is killed. Progress
# goes to stderr, one line per finished iteration, so the harness knows what
# was acknowledged when it cut the power.
def crash_value(seed, i):
    return payload(seed, "crash", i, 64).hex()


def crash_file_size(i):
    return 512 + (i * 1543) % 7680


def crash_run(d, n, seed):
    os.makedirs(os.path.join(d, "files"), exist_ok=True)
    fsync_dir(d)
    con = sqlite3.connect(os.path.join(d, "crash.db"), isolation_level=None)
    con.execute("PRAGMA synchronous=FULL")
    con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    con.execute("CREATE TABLE m (k INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
    con.execute("INSERT INTO m (k, n) VALUES (0, 0)")
    print("crash: ready", file=sys.stderr, flush=True)
    i = 0
    while n == 0 or i < n:
        con.execute("BEGIN")
        con.execute("INSERT INTO t (id, v) VALUES (?, ?)", (i, crash_value(seed, i)))
        con.execute("UPDATE m SET n = ? WHERE k = 0", (i + 1,))
        con.execute("COMMIT")
        write_file(os.path.join(d, "files", f"f{i:07}"), payload(seed, "cf", i, crash_file_size(i)))
        i += 1
        print(f"crash: acked {i}", file=sys.stderr, flush=True)
    con.close()


def crash_check(d, seed):
    """What survived a cut, and every way it breaks the rules: SQLite's
    integrity_check; the transaction counter equals the rows, which are
    exactly ids 0..n-1 with their values; the files form a prefix f0..fL of
    complete files, where only fL may be empty (its fsync had not
    returned); and no file whose fsync returned after transaction i
    committed survives without transaction i."""
    errors = []
    out = {"db": "absent", "rows": 0, "files": 0, "complete_files": 0}
    db = os.path.join(d, "crash.db")
    if os.path.exists(db):
        try:
            con = sqlite3.connect(db, isolation_level=None)
            res = con.execute("PRAGMA integrity_check").fetchall()
            out["integrity"] = "ok" if res == [("ok",)] else "; ".join(str(r[0]) for r in res[:5])
            if out["integrity"] != "ok":
                errors.append(f"integrity_check: {out['integrity']}")
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if {"t", "m"} <= tables:
                meta = con.execute("SELECT n FROM m WHERE k = 0").fetchall()
                n = meta[0][0] if meta else 0
                rows = con.execute("SELECT id, v FROM t ORDER BY id").fetchall()
                out["rows"] = len(rows)
                out["counter"] = n
                if len(rows) != n:
                    errors.append(f"{len(rows)} rows but the counter says {n} (a torn transaction)")
                for j, (rid, v) in enumerate(rows):
                    if rid != j or v != crash_value(seed, j):
                        errors.append(f"row {j}: ({rid}, {v[:16]}...) is not transaction {j}'s")
                        break
            out["db"] = "present"
            con.close()
        except sqlite3.Error as e:
            out["integrity"] = f"error: {e}"
            errors.append(f"sqlite: {e}")
    fdir = os.path.join(d, "files")
    names = sorted(os.listdir(fdir)) if os.path.isdir(fdir) else []
    out["files"] = len(names)
    expect = [f"f{j:07}" for j in range(len(names))]
    if names != expect:
        errors.append(f"files are not a prefix f0000000..: {names[:3]}...{names[-3:]}")
    complete = 0
    for j, name in enumerate(names):
        with open(os.path.join(fdir, name), "rb") as f:
            data = f.read()
        if data == payload(seed, "cf", j, crash_file_size(j)):
            if complete == j:
                complete = j + 1
        elif not (j == len(names) - 1 and len(data) == 0):
            errors.append(f"{name}: {len(data)} bytes that are not its contents")
            break
    out["complete_files"] = complete
    if complete > out["rows"]:
        errors.append(
            f"file f{complete - 1:07} is complete but transaction {complete - 1} is lost "
            f"({out['rows']} rows): a later write survived an earlier one"
        )
    out["errors"] = errors
    return out


WORKLOADS = {
    "sqlite": (sqlite_run, sqlite_check),
    "smallfiles": (small_run, small_check),
    "largefile": (large_run, large_check),
    "mailbench": (mail_run, mail_check),
}


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in ("run", "check") or sys.argv[2] not in (*WORKLOADS, "crash"):
        sys.exit("usage: driver.py run|check sqlite|smallfiles|largefile|mailbench|crash DIR COUNT SEED")
    action, name, d, n, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    if name == "crash":
        # run: COUNT iterations (0: until killed); check: a JSON verdict on
        # stdout, exit 1 when it lists errors.
        if action == "run":
            crash_run(d, n, seed)
            return
        out = crash_check(d, seed)
        print(json.dumps(out))
        sys.exit(1 if out["errors"] else 0)
    run, check = WORKLOADS[name]
    try:
        if action == "run":
            ops, dt, nbytes = run(d, n, seed)
            print(json.dumps({"workload": name, "ops": ops, "seconds": dt, "bytes": nbytes}))
        else:
            check(d, n, seed)
            print(json.dumps({"ok": True}))
    except Exception as e:  # noqa: BLE001 - every failure becomes a message
        sys.exit(f"{name} {action}: {e}")


if __name__ == "__main__":
    main()
