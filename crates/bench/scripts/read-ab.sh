#!/bin/bash
# Reads over NBD from two scftl binaries side by side (an A/B of a change
# to the read path): 1 MiB sequential reads at iodepth 1 and 4 KiB random
# reads at iodepth 16, alternating, after random writes. Then, on a 4 GiB
# export holding 64 MiB of data, the time `nbdcopy` takes to copy it out
# (block status lets it skip the holes where the server offers it).
#
#   crates/bench/scripts/read-ab.sh BINARY_A BINARY_B [ROUNDS]
#
# Each binary gets a fresh 1 GiB export in $DIR (default /var/tmp/read-ab),
# filled once with 1 MiB writes, then 10 s of 4 KiB random writes (fsync
# every 256); then ROUNDS (default 3) rounds of 5 s per job and binary.
# Needs fio (nbd engine), nbdcopy and qemu-img. Stops only the processes it
# started. docs/BENCHMARKS.md, "Structured replies and block status".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
A=$1
B=$2
ROUNDS=${3:-3}
DIR=${DIR:-/var/tmp/read-ab}
mkdir -p "$DIR"
uri() { nbd_uri "$DIR/$1.sock"; }
# fio's JSON, after the line its nbd engine prints first.
json() { sed -n '/^{/,$p'; }
serve_scftl "$A" "$DIR/a.img" "$DIR/a.sock" $((1 << 30)) /dev/null --quiet
serve_scftl "$B" "$DIR/b.img" "$DIR/b.sock" $((1 << 30)) /dev/null --quiet
wait_sockets "$DIR/a.sock" "$DIR/b.sock"
for s in a b; do
  fio --name=fill --ioengine=nbd --uri="$(uri $s)" --rw=write --bs=1m --size=1g \
    --iodepth=1 --output-format=terse >/dev/null 2>&1
  fio --name=rw --ioengine=nbd --uri="$(uri $s)" --rw=randwrite --bs=4k --size=1g \
    --iodepth=16 --fsync=256 --time_based --runtime=10 --randseed=42 \
    --output-format=terse >/dev/null 2>&1
done
for round in $(seq "$ROUNDS"); do
  for s in a b; do
    sr=$(fio --name=sr --ioengine=nbd --uri="$(uri $s)" --rw=read --bs=1m --size=1g \
      --iodepth=1 --time_based --runtime=5 --output-format=json 2>/dev/null | json |
      python3 -c 'import json,sys; print(round(json.load(sys.stdin)["jobs"][0]["read"]["bw_bytes"]/1e6))')
    rr=$(fio --name=rr --ioengine=nbd --uri="$(uri $s)" --rw=randread --bs=4k --size=1g \
      --iodepth=16 --time_based --runtime=5 --randseed=7 --output-format=json 2>/dev/null | json |
      python3 -c 'import json,sys; print(round(json.load(sys.stdin)["jobs"][0]["read"]["iops"]))')
    echo "round $round binary $s: seq-read-1m $sr MB/s, rand-read-4k $rr IOPS"
  done
done
stop_started
STARTED=()
head -c $((64 << 20)) /dev/urandom >"$DIR/src"
serve_scftl "$A" "$DIR/a.img" "$DIR/a.sock" $((4 << 30)) /dev/null --quiet
serve_scftl "$B" "$DIR/b.img" "$DIR/b.sock" $((4 << 30)) /dev/null --quiet
wait_sockets "$DIR/a.sock" "$DIR/b.sock"
for s in a b; do
  qemu-img dd -f raw -O raw if="$DIR/src" of="$(uri $s)" bs=1M count=64 >/dev/null
done
for round in $(seq "$ROUNDS"); do
  for s in a b; do
    rm -f "$DIR/out.raw"
    t0=$(date +%s%N)
    nbdcopy "$(uri $s)" "$DIR/out.raw"
    t1=$(date +%s%N)
    cmp -s -n $((64 << 20)) "$DIR/out.raw" "$DIR/src" || { echo "binary $s: the copy differs"; exit 1; }
    echo "round $round binary $s: nbdcopy of 4 GiB holding 64 MiB: $(( (t1 - t0) / 1000000 )) ms"
  done
done
rm -f "$DIR/out.raw" "$DIR/src"
