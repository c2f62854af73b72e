#!/usr/bin/env bash
# Compiles the proven model P (SCFTL.Impl.Model, through ModelDriver.agda)
# with Agda's GHC backend into target/agda-model/ModelDriver (issue 39,
# deliverable 5) and prints the program's path. The transcription's
# comparison with it: crates/crashcheck/tests/agda_model.rs, run as
#   SCFTL_AGDA_MODEL=$(bash proofs/ghc/build.sh) \
#     cargo test -p crashcheck --test integration agda_model -- --ignored
# Run after proofs/check.sh, which installs Agda and the library and checks
# the interfaces this reuses. Needs GHC and the Haskell package ieee754
# (Debian: ghc, libghc-ieee754-dev; installed here when missing, as root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="${1:-$root/target/agda-model}"
CACHE="${SCFTL_AGDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scftl-agda}"
fail() { echo "proofs/ghc/build.sh: $*" >&2; exit 1; }

if ! command -v ghc >/dev/null 2>&1 || ! ghc-pkg list --simple-output ieee754 2>/dev/null | grep -q ieee754; then
  [ "$(id -u)" = 0 ] || fail "needs GHC and its package ieee754 (Debian: ghc, libghc-ieee754-dev)"
  echo "proofs/ghc/build.sh: installing ghc, libghc-ieee754-dev (Debian) ..." >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends ghc libghc-ieee754-dev >/dev/null; } \
    || fail "apt-get install ghc libghc-ieee754-dev failed"
fi

# The Agda check.sh uses: its pinned 2.6.3 with the copied library, or
# Debian's 2.6.2.2 with Debian's library where it fell back to that.
if "$CACHE/agda-2.6.3/bin/agda" --version 2>/dev/null | head -n1 | grep -q "Agda version 2.6.3-"; then
  agda=("$CACHE/agda-2.6.3/bin/agda")
  std="$CACHE/agda-stdlib-1.7.1"
else
  command -v agda >/dev/null 2>&1 || fail "no Agda: run bash proofs/check.sh first"
  agda=(agda +RTS -A64M -M6G -RTS)
  std=/usr/share/agda-stdlib
fi
[ -d "$std" ] || fail "no agda-stdlib at $std: run bash proofs/check.sh first"

mkdir -p "$out"
if ! (cd "$here" && "${agda[@]}" --no-libraries -i "$std" -i .. -i . \
        --compile --compile-dir="$out" ModelDriver.agda) > "$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  fail "compiling ModelDriver.agda failed (log: $out/build.log)"
fi
[ -x "$out/ModelDriver" ] || fail "no program at $out/ModelDriver"
echo "$out/ModelDriver"
