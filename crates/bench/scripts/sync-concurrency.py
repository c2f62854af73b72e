#!/usr/bin/env python3
"""How much faster the host file system completes two threads' fdatasync
calls on one file than one thread's (docs/BENCHMARKS.md, "Two writing
connections on two cores").

    python3 crates/bench/scripts/sync-concurrency.py [DIR] [sequential|random]

Each thread writes 256 blocks of 4 KiB (sequential: the next 1 MiB of its
own half of a 1 GiB file, as a log does; random: anywhere) and then calls
fdatasync, for 5 s; one thread, then two, twice. Prints cycles per second
and the mean fdatasync time. The file (DIR/sync-concurrency.bin, default
/var/tmp) is written once and removed at the end.
"""
import os
import random
import sys
import threading
import time

DIR = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp"
MODE = sys.argv[2] if len(sys.argv) > 2 else "sequential"
SIZE = 1 << 30
SECS = 5
path = os.path.join(DIR, "sync-concurrency.bin")
with open(path, "wb") as f:
    block = b"\1" * (1 << 20)
    for _ in range(SIZE >> 20):
        f.write(block)
    f.flush()
    os.fsync(f.fileno())
fd = os.open(path, os.O_RDWR)
data = os.urandom(4096)


def worker(n, out):
    rng = random.Random(n)
    pos = n * SIZE // 2
    cycles, synced = 0, 0.0
    end = time.time() + SECS
    while time.time() < end:
        for _ in range(256):
            if MODE == "random":
                os.pwrite(fd, data, rng.randrange(SIZE >> 12) << 12)
            else:
                os.pwrite(fd, data, pos)
                pos = (pos + 4096) % SIZE
        t = time.time()
        os.fdatasync(fd)
        synced += time.time() - t
        cycles += 1
    out[n] = (cycles, synced)


try:
    for threads in (1, 2, 1, 2):
        out = {}
        ts = [threading.Thread(target=worker, args=(i, out)) for i in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        cycles = sum(c for c, _ in out.values())
        synced = sum(s for _, s in out.values())
        print("%s, %d thread(s): %.0f cycles/s, mean fdatasync %.2f ms" % (
            MODE, threads, cycles / SECS, synced / cycles * 1000))
finally:
    os.close(fd)
    os.remove(path)
