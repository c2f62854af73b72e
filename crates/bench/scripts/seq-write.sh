#!/bin/bash
# 1 MiB sequential writes over NBD without flushes: scftl serve (one or
# two binaries) against nbdkit file (docs/BENCHMARKS.md, "seq-write-1m").
#
#   crates/bench/scripts/seq-write.sh SCFTL_BINARY [OTHER_SCFTL_BINARY]
#
# Each server gets a fresh 2 GiB export in $DIR (default
# /var/tmp/seq-write), filled twice with 1 MiB writes, then REPS (default
# 2) rounds of fio `--rw=write --bs=1M --iodepth=1 --time_based
# --runtime=$SECS` (default 10) per server, the servers in turn. Prints
# MB/s per run and, for scftl, the image syncs and epochs of the run
# (SIGUSR1 statistics). Needs fio (nbd engine) and nbdkit. Stops only the
# processes it started.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BINS=("$1")
[ $# -ge 2 ] && BINS+=("$2")
DIR=${DIR:-/var/tmp/seq-write}
SECS=${SECS:-10}
REPS=${REPS:-2}
SZ=$((2048 * 1024 * 1024))
mkdir -p "$DIR"
rm -f "$DIR"/*.img "$DIR"/*.sock "$DIR"/*.err
PIDS=()
NAMES=()
for i in "${!BINS[@]}"; do
  # Not --quiet: the SIGUSR1 statistics go to the error file.
  serve_scftl "${BINS[$i]}" "$DIR/s$i.img" "$DIR/s$i.sock" $SZ "$DIR/s$i.err"
  PIDS+=("$LAST_PID")
  NAMES+=("s$i")
done
serve_nbdkit "$DIR/n.img" "$DIR/n.sock" $SZ
PIDS+=("$LAST_PID")
NAMES+=(n)
for s in "${NAMES[@]}"; do
  wait_sockets "$DIR/$s.sock"
done
uri() { nbd_uri "$DIR/$1.sock"; }
# The last value of a statistics field the server printed (SIGUSR1).
stat_of() {
  kill -USR1 "$1"
  sleep 0.3
  grep -o "$3=[0-9]*" "$DIR/$2.err" | tail -1 | cut -d= -f2
}
for s in "${NAMES[@]}"; do
  for _ in 1 2; do
    fio --name=fill --ioengine=nbd --uri="$(uri "$s")" --rw=write --bs=1m --size=$SZ \
      --iodepth=1 --output-format=terse >/dev/null
  done
done
for rep in $(seq "$REPS"); do
  for i in "${!NAMES[@]}"; do
    s=${NAMES[$i]} pid=${PIDS[$i]}
    if [ "$s" != n ]; then
      y0=$(stat_of "$pid" "$s" flash_syncs)
      e0=$(stat_of "$pid" "$s" epoch_flushes)
    fi
    mbs=$(fio --name=sw --ioengine=nbd --uri="$(uri "$s")" --rw=write --bs=1m --size=$SZ \
      --iodepth=1 --time_based --runtime="$SECS" --output-format=json |
      python3 -c 'import json,sys; s=sys.stdin.read(); print(int(json.loads(s[s.find("{"):])["jobs"][0]["write"]["bw_bytes"]/1e6))')
    if [ "$s" = n ]; then
      echo "nbdkit run $rep: $mbs MB/s"
    else
      y1=$(stat_of "$pid" "$s" flash_syncs)
      e1=$(stat_of "$pid" "$s" epoch_flushes)
      echo "scftl ${BINS[$i]} run $rep: $mbs MB/s, $((y1 - y0)) syncs, $((e1 - e0)) epochs"
    fi
  done
done
