#!/bin/bash
# The peak resident set of `scftl serve` over the jobs of `scftl bench nbd`
# (docs/BENCHMARKS.md, "The server's resident set").
#
#   crates/bench/scripts/serve-rss.sh SCFTL_BINARY [SECONDS] [VAR=VALUE ...]
#
# Formats a fresh 2 GiB export in $DIR (default /var/tmp/serve-rss), serves
# it over a Unix socket with the environment VAR=VALUE ... added (e.g.
# MALLOC_ARENA_MAX=4), fills it twice with 1 MiB writes, then runs the
# bench's six jobs for SECONDS each (default 6): 1 MiB sequential writes,
# the same with an fsync every 8, 4 KiB random writes with an fsync every
# 256 (one connection, then 4 x iodepth 16), 4 KiB random reads, 1 MiB
# sequential reads. After each it prints the job's IOPS and MB/s and the
# server's VmHWM (peak) and VmRSS in KiB. Needs fio (nbd engine). Stops
# only the server it started.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
BIN=$1
RT=${2:-6}
shift $(( $# < 2 ? $# : 2 ))
DIR=${DIR:-/var/tmp/serve-rss}
rm -rf "$DIR"
mkdir -p "$DIR"
SERVE_ENV=("$@")
serve_scftl "$BIN" "$DIR/img" "$DIR/sock" $((2048 * 1024 * 1024)) /dev/null --quiet
SP=$LAST_PID
trap 'stop_started; rm -rf "$DIR"' EXIT
wait_sockets "$DIR/sock"
fio_job() {
  local name=$1
  shift
  fio --name="$name" --ioengine=nbd --uri="$(nbd_uri "$DIR/sock")" \
    --size=2g --group_reporting --output-format=json --output="$DIR/out.json" "$@"
  python3 - "$DIR/out.json" "$name" "$SP" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
iops = j["write"]["iops"] + j["read"]["iops"]
mbs = (j["write"]["bw_bytes"] + j["read"]["bw_bytes"]) / 1e6
st = dict(l.split(":", 1) for l in open(f"/proc/{sys.argv[3]}/status"))
kib = lambda k: int(st[k].split()[0])
print(f"{sys.argv[2]:<12} {iops:>9.0f} IOPS {mbs:>7.0f} MB/s  VmHWM {kib('VmHWM'):>6} KiB  VmRSS {kib('VmRSS'):>6} KiB")
PY
}
T=(--time_based --runtime="$RT")
fio_job fill-1 --rw=write --bs=1M
fio_job fill-2 --rw=write --bs=1M
fio_job seq-write --rw=write --bs=1M "${T[@]}"
fio_job seq-write-f8 --rw=write --bs=1M --fsync=8 "${T[@]}"
fio_job rand-write --rw=randwrite --bs=4k --fsync=256 "${T[@]}"
fio_job rand-w-4x16 --rw=randwrite --bs=4k --fsync=256 --numjobs=4 --iodepth=16 "${T[@]}"
fio_job rand-read --rw=randread --bs=4k "${T[@]}"
fio_job seq-read --rw=read --bs=1M "${T[@]}"
