# shellcheck shell=bash
# What the NBD benchmark scripts of this folder share: fresh exports served
# on Unix sockets, waiting for the sockets, and stopping, on exit, only the
# processes the script started (other work on the machine runs `scftl` and
# `nbdkit` too). Sourced, not run:
#
#   . "$(dirname "$0")/lib.sh"
#
# sets an EXIT trap that calls `stop_started`; a script that must clean up
# more sets its own trap and calls `stop_started` from it.

STARTED=()

# Stops every process started by serve_scftl or serve_nbdkit, and waits.
stop_started() {
  [ ${#STARTED[@]} -eq 0 ] || kill "${STARTED[@]}" 2>/dev/null || true
  wait
}
trap stop_started EXIT

# serve_scftl BIN IMAGE SOCKET SIZE ERRFILE [SERVE_ARG...]
# Formats a fresh SCFTL image of SIZE bytes and serves it on SOCKET in the
# background, its stderr into ERRFILE (/dev/null to drop it), with the
# environment of the array SERVE_ENV (VAR=VALUE words; empty by default)
# added. Sets LAST_PID.
serve_scftl() {
  local bin=$1 img=$2 sock=$3 size=$4 err=$5
  shift 5
  rm -f "$img" "$sock"
  "$bin" format "$img" --size "$size" --ftl scftl >/dev/null
  env ${SERVE_ENV[@]+"${SERVE_ENV[@]}"} "$bin" serve "$img" --unix "$sock" "$@" 2>"$err" &
  LAST_PID=$!
  STARTED+=("$LAST_PID")
}

# serve_nbdkit IMAGE SOCKET SIZE
# A fresh sparse file of SIZE bytes served by nbdkit's file plugin on
# SOCKET in the background. Sets LAST_PID.
serve_nbdkit() {
  local img=$1 sock=$2 size=$3
  rm -f "$img" "$sock"
  truncate -s "$size" "$img"
  nbdkit -f -U "$sock" file file="$img" &
  LAST_PID=$!
  STARTED+=("$LAST_PID")
}

# wait_sockets SOCKET...: until every server listens.
wait_sockets() {
  local s
  for s in "$@"; do
    while [ ! -S "$s" ]; do sleep 0.1; done
  done
}

# nbd_uri SOCKET: the NBD URI fio's nbd engine takes for it.
nbd_uri() { echo "nbd+unix:///?socket=$1"; }

# cpu_ms PID: the CPU time (user + system) the process used so far, in ms.
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
