#!/usr/bin/env bash
# 20,000 files in one directory through `scftl mount --memory`, per commit
# mode: seconds per quarter of the creates (5,000), then 2,000 stats and
# `rm -rf`. N=... sets the count.
# docs/BENCHMARKS.md "File system: a directory of 20,000 files".
#
#   crates/bench/fs/bigdir.sh [SCFTL] > crates/bench/results/fs-bigdir.txt
#
# SCFTL defaults to target/release/scftl. Needs FUSE (/dev/fuse,
# fusermount3) and python3; about 1 minute in all.
set -euo pipefail
S=${1:-target/release/scftl}
S=$(realpath "$S")
N=${N:-20000}
work=$(mktemp -d)
trap 'fusermount3 -u "$work/mnt" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/mnt"
cat > "$work/create.py" <<'PY'
import os, sys, time
d, n = sys.argv[1], int(sys.argv[2])
os.mkdir(d)
marks, t, q = [], time.time(), n // 4
for i in range(n):
    open(os.path.join(d, "file-%06d" % i), "w").close()
    if (i + 1) % q == 0:
        now = time.time(); marks.append(now - t); t = now
t = time.time()
for i in range(0, n, 10):
    os.stat(os.path.join(d, "file-%06d" % i))
stats = time.time() - t
print("  creates per %d: %s s; last/first %.2f; %d stats %.2f s"
      % (q, " ".join("%.2f" % m for m in marks), marks[-1] / marks[0], n // 10, stats))
PY
echo "scftl mount --memory, $N files in one directory ($("$S" --version))"
for pair in log:async xlog:scftl group:scftl; do
  mode=${pair%%:*}; ftl=${pair#*:}
  "$S" mount --memory "$work/mnt" --size 1GiB --ftl "$ftl" --mode "$mode" > "$work/mount.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do mountpoint -q "$work/mnt" && break; sleep 0.1; done
  echo "$mode ($ftl):"
  python3 "$work/create.py" "$work/mnt/big" "$N"
  start=$(date +%s.%N)
  rm -rf "$work/mnt/big"
  echo "  rm -rf: $(python3 -c "import time; print('%.2f' % (time.time() - $start))") s"
  fusermount3 -u "$work/mnt"
  wait "$pid"
done
