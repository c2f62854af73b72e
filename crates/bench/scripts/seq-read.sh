#!/bin/bash
# 1 MiB sequential reads over NBD: scftl serve against nbdkit file, on the
# same kind of export (docs/BENCHMARKS.md, "1 MiB reads").
#
#   crates/bench/scripts/seq-read.sh SCFTL_BINARY [RANDOM_WRITE_SECONDS]
#
# Each server gets a fresh 1 GiB export in $DIR (default /var/tmp/seq-read),
# filled once with 1 MiB writes, then RANDOM_WRITE_SECONDS (default 10; 0:
# none) of 4 KiB random writes at iodepth 16, then two 6 s runs of fio
# `--rw=read --bs=1m --iodepth=1` per server, alternating. Prints MB/s per
# run and each server's CPU time per GiB read. Needs fio (nbd engine) and
# nbdkit. Stops only the processes it started. SERVE_FLAGS (default
# none) are passed to `scftl serve`, e.g. SERVE_FLAGS=--mmap-reads.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=$1
RWT=${2:-10}
DIR=${DIR:-/var/tmp/seq-read}
SZ=$((1024 * 1024 * 1024))
mkdir -p "$DIR"
# shellcheck disable=SC2086 # SERVE_FLAGS is a list of words
serve_scftl "$BIN" "$DIR/s.img" "$DIR/s.sock" $SZ /dev/null --quiet ${SERVE_FLAGS:-}
SP=$LAST_PID
serve_nbdkit "$DIR/n.img" "$DIR/n.sock" $SZ
NP=$LAST_PID
wait_sockets "$DIR/s.sock" "$DIR/n.sock"
uri() { nbd_uri "$DIR/$1.sock"; }
for s in s n; do
  fio --name=fill --ioengine=nbd --uri="$(uri $s)" --rw=write --bs=1m --size=$SZ \
    --iodepth=1 --output-format=terse >/dev/null
  if [ "$RWT" != 0 ]; then
    fio --name=rw --ioengine=nbd --uri="$(uri $s)" --rw=randwrite --bs=4k --size=$SZ \
      --iodepth=16 --fsync=256 --time_based --runtime="$RWT" --randseed=42 \
      --output-format=terse >/dev/null
  fi
done
for rep in 1 2; do
  for s in s n; do
    pid=$SP name=scftl
    [ $s = n ] && pid=$NP name=nbdkit
    c0=$(cpu_ms $pid)
    out=$(fio --name=sr --ioengine=nbd --uri="$(uri $s)" --rw=read --bs=1m --size=$SZ \
      --iodepth=1 --time_based --runtime=6 --output-format=json)
    c1=$(cpu_ms $pid)
    echo "$out" | python3 -c '
import json, sys
s = sys.stdin.read()
r = json.loads(s[s.find("{"):])["jobs"][0]["read"]
gib = r["io_bytes"] / 2**30
print("%s run %s: %d MB/s, server CPU %d ms per GiB read" % (
    sys.argv[1], sys.argv[2], r["bw_bytes"] / 1e6, (int(sys.argv[4]) - int(sys.argv[3])) / gib))
' "$name" "$rep" "$c0" "$c1"
  done
done
