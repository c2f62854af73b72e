#!/bin/bash
# 4 KiB random writes with an fsync every 256 over one and over JOBS
# connections (iodepth 16 each) to one `scftl serve`, with the CPU each
# side used and fio's flush latency (docs/BENCHMARKS.md, "Two writing
# connections on two cores").
#
#   crates/bench/scripts/write-scaling.sh SCFTL_BINARY [JOBS]
#
# A fresh 1 GiB export in $DIR (default /var/tmp/write-scaling), filled
# once with 1 MiB writes, then REPS (default 2) rounds of a 1-job and a
# JOBS-job (default 2) run of $SECS (default 6) seconds. Prints per run:
# IOPS, the server's CPU (percent of one CPU, from /proc), fio's CPU per
# job, the server's CPU per write and fio's mean and 99th-percentile
# flush latency. Needs fio (nbd engine). Stops only the processes it
# started.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=$1
JOBS=${2:-2}
DIR=${DIR:-/var/tmp/write-scaling}
SECS=${SECS:-6}
REPS=${REPS:-2}
SZ=$((1024 * 1024 * 1024))
mkdir -p "$DIR"
rm -f "$DIR"/out.json
serve_scftl "$BIN" "$DIR/s.img" "$DIR/s.sock" $SZ /dev/null --quiet
SP=$LAST_PID
wait_sockets "$DIR/s.sock"
URI=$(nbd_uri "$DIR/s.sock")
fio --name=fill --ioengine=nbd --uri="$URI" --rw=write --bs=1m --size=$SZ \
  --iodepth=1 --output-format=terse >/dev/null
for _ in $(seq "$REPS"); do
  for j in 1 "$JOBS"; do
    c0=$(cpu_ms $SP)
    t0=$(date +%s%N)
    fio --name=w --ioengine=nbd --uri="$URI" --rw=randwrite --bs=4k --size=$SZ \
      --iodepth=16 --fsync=256 --numjobs="$j" --group_reporting --time_based \
      --runtime="$SECS" --output-format=json >"$DIR/out.json"
    t1=$(date +%s%N)
    c1=$(cpu_ms $SP)
    python3 - "$DIR/out.json" "$j" $((t1 - t0)) $((c1 - c0)) <<'PY'
import json, sys
text = open(sys.argv[1]).read()
job = json.loads(text[text.find("{"):])["jobs"][0]
w, sync = job["write"], job["sync"]["lat_ns"]
secs, cpu_ms = int(sys.argv[3]) / 1e9, int(sys.argv[4])
pct = sync.get("percentile", {})
print("jobs %s: %d IOPS, server CPU %d%%, fio CPU %d%% per job, server %.1f us per write, "
      "flush mean %.2f ms, p99 %.2f ms" % (
          sys.argv[2], w["iops"], cpu_ms / 10 / secs, job["usr_cpu"] + job["sys_cpu"],
          cpu_ms * 1000 / (w["iops"] * secs), sync["mean"] / 1e6,
          pct.get("99.000000", 0) / 1e6))
PY
  done
done
