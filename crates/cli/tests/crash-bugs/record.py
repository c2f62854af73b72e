#!/usr/bin/env python3
"""A record kept on a raw block device, two 4 KiB blocks long, with a
checksum over both: a tiny stand-in for a database page larger than a
sector.

  record.py write DEV N --in-place   the bug: overwrite the one copy in place
  record.py write DEV N              correct: alternate between two slots
  record.py check IMAGE              a state passes if some slot holds a
                                     whole record (checksum matches)

Each `write` stores records 1..N, fsyncing after each whole record. The
in-place version tears a record when the disk keeps the record's first
block and not its second — which a prefix or async disk may do, and a
snapshot disk never does, since it keeps nothing between flushes.
"""
import mmap
import os
import struct
import sys
import zlib

BLOCK = 4096
MAGIC = b"REC1"


def encode(seq):
    body = bytes([seq % 251]) * (2 * BLOCK - 16)
    head = MAGIC + struct.pack("<Q", seq)
    crc = zlib.crc32(head + body)
    return head + struct.pack("<I", crc) + body


def decode(b):
    if b[:4] != MAGIC:
        return None
    seq = struct.unpack("<Q", b[4:12])[0]
    crc = struct.unpack("<I", b[12:16])[0]
    if zlib.crc32(b[:12] + b[16:]) != crc:
        return None
    return seq


def write(dev, n, in_place):
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    buf = mmap.mmap(-1, 2 * BLOCK)
    view = memoryview(buf)
    for seq in range(1, n + 1):
        buf[:] = encode(seq)
        slot = 0 if in_place else seq % 2
        base = slot * 2 * BLOCK
        # Two writes, first block then second: the disk sees them apart.
        os.pwrite(fd, view[:BLOCK], base)
        os.pwrite(fd, view[BLOCK:], base + BLOCK)
        os.fsync(fd)
    view.release()
    os.close(fd)


def check(image):
    with open(image, "rb") as f:
        data = f.read(4 * BLOCK)
    seqs = [decode(data[s * 2 * BLOCK:(s + 1) * 2 * BLOCK]) for s in (0, 1)]
    good = [s for s in seqs if s is not None]
    if not good:
        print("no whole record in either slot: the record was torn", file=sys.stderr)
        return 1
    print("record", max(good))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]), "--in-place" in sys.argv)
    else:
        sys.exit(check(sys.argv[2]))
