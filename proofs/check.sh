#!/usr/bin/env bash
# Machine-check every SCFTL proof (Agda, --safe).
#   bash proofs/check.sh          check (incrementally, using cached .agdai)
#   bash proofs/check.sh --clean  remove cached interface files first
#   bash proofs/check.sh --toolchain  only install Agda and the library
#                                     (.ci/run: before proofs/ghc/build.sh)
# Exits non-zero on any failure; prints "PASS: ..." on success.
# Toolchain (proofs/README.md, "Pinned versions"): Agda 2.6.3 from its PyPI
# wheel, in a virtual environment under $SCFTL_AGDA_CACHE (default
# ~/.cache/scftl-agda), checking against the sources of agda-stdlib 1.7.1
# (Debian bookworm's package), copied there so that Agda 2.6.3 keeps its
# interface files beside them.  On a fresh Debian machine, run as root, it
# installs python3-venv and agda-stdlib itself.  Where the wheel cannot be
# installed (no PyPI), it falls back to Debian's agda-bin 2.6.2.2 (about
# 1.5x slower) and says so.
set -u -o pipefail

AGDA_VERSION="2.6.3"            # pinned: PyPI wheel agda==2.6.3.post1 (GHC 9.4)
AGDA_WHEEL="agda==2.6.3.post1"
FALLBACK_AGDA_VERSION="2.6.2.2" # Debian bookworm agda-bin 2.6.2.2-1.1
STDLIB_VERSION="1.7.1"          # pinned: Debian bookworm agda-stdlib 1.7.1-1
STDLIB_DIR="/usr/share/agda-stdlib"
CACHE="${SCFTL_AGDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/scftl-agda}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
is_root() { [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; }
apt_updated=
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$apt_updated" ]; then
    apt-get update -qq >/dev/null 2>&1 || return 1
    apt_updated=1
  fi
  apt-get install -y -qq "$@" >/dev/null 2>&1
}

# --- toolchain ----------------------------------------------------------
# The standard library's sources (Debian's package; its own interface files
# there are Agda 2.6.2.2's).
if [ ! -d "$STDLIB_DIR" ]; then
  if is_root; then
    echo "check.sh: installing agda-stdlib (Debian) ..."
    apt_install agda-stdlib || fail "apt-get install agda-stdlib failed"
  else
    fail "$STDLIB_DIR missing; install the Debian package agda-stdlib"
  fi
fi
if command -v dpkg-query >/dev/null 2>&1; then
  got_std="$(dpkg-query -W -f='${Version}' agda-stdlib 2>/dev/null || true)"
  case "$got_std" in
    "$STDLIB_VERSION"*) ;;
    *) fail "need agda-stdlib $STDLIB_VERSION, found: ${got_std:-none}" ;;
  esac
fi

# Agda 2.6.3 from PyPI, once per machine.
venv="$CACHE/agda-$AGDA_VERSION"
agda_bin="$venv/bin/agda"
if ! "$agda_bin" --version 2>/dev/null | head -n1 | grep -q "Agda version $AGDA_VERSION-"; then
  echo "check.sh: installing Agda $AGDA_VERSION ($AGDA_WHEEL) into $venv ..."
  rm -rf "$venv"
  mkdir -p "$CACHE"
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv"
    if is_root; then apt_install python3-venv; fi
    python3 -m venv "$venv" >/dev/null 2>&1 || rm -rf "$venv"
  fi
  if [ -d "$venv" ]; then
    "$venv/bin/pip" install -q --disable-pip-version-check "$AGDA_WHEEL" >/dev/null 2>&1 \
      || rm -rf "$venv"
  fi
fi
if "$agda_bin" --version 2>/dev/null | head -n1 | grep -q "Agda version $AGDA_VERSION-"; then
  # Its own copy of the library's sources: Agda writes each module's
  # interface file beside its source.
  std="$CACHE/agda-stdlib-$STDLIB_VERSION"
  if [ ! -f "$std/.complete" ]; then
    rm -rf "$std"; mkdir -p "$std"
    (cd "$STDLIB_DIR" && find . -name '*.agda' -print0 | tar --null -cf - -T -) \
      | (cd "$std" && tar -xf -) || fail "could not copy $STDLIB_DIR to $std"
    touch "$std/.complete"
  fi
  agda=("$agda_bin")
  got_version="$AGDA_VERSION"
else
  # Fallback: Debian's Agda, with the library's interface files as shipped.
  if ! command -v agda >/dev/null 2>&1; then
    if is_root; then
      echo "check.sh: no Agda $AGDA_VERSION (PyPI unreachable?); installing agda-bin (Debian) ..."
      apt_install agda-bin || fail "apt-get install agda-bin failed"
    else
      fail "cannot install $AGDA_WHEEL into $venv, and no agda on PATH (Debian: agda-bin)"
    fi
  fi
  case "$(agda --version 2>/dev/null | head -n1)" in
    *"$FALLBACK_AGDA_VERSION"*) ;;
    *) fail "need Agda $AGDA_VERSION ($AGDA_WHEEL) or $FALLBACK_AGDA_VERSION (Debian), found: $(agda --version 2>/dev/null | head -n1)" ;;
  esac
  echo "check.sh: Agda $AGDA_VERSION unavailable; falling back to Debian's Agda $FALLBACK_AGDA_VERSION (slower)"
  std="$STDLIB_DIR"
  # GHC runtime: a 64 MiB allocation area (the default, 1 MiB, spends about
  # a third of the time in minor collections here) and room above the
  # binary's built-in 3.5 GiB heap limit.  (The PyPI build takes no RTS
  # options.)
  agda=(agda +RTS -A64M -M6G -RTS)
  got_version="$FALLBACK_AGDA_VERSION"
fi

if [ "${1:-}" = "--toolchain" ]; then
  echo "check.sh: Agda $got_version and agda-stdlib $STDLIB_VERSION ready"
  exit 0
fi

# --- hygiene: every module is --safe and reachable from Everything.agda ---
mods=$(find SCFTL -name '*.agda' | sort)
[ -n "$mods" ] || fail "no modules found"
for f in Everything.agda $mods; do
  head -n1 "$f" | grep -q '^{-# OPTIONS --safe --without-K #-}$' \
    || fail "$f: first line must be {-# OPTIONS --safe --without-K #-}"
done
for f in $mods; do
  m="$(echo "${f%.agda}" | tr / .)"
  grep -q "^import $m\$" Everything.agda || fail "Everything.agda does not import $m"
done

# --- issue 39: every mutant of P keeps its negative result ----------------
# Convention.  Each module SCFTL/Mutants/<Name>.agda other than Common (the
# shared instance of P) and All (the collection) is P with exactly one
# deliberate bug, names the mutated model `Pmut`, and must contain, at top
# level (column 0), the exact line
#     not-snapshot-consistent : ¬ SnapshotConsistent Pmut
# Only a mutant listed in MUTANTS_WITHOUT_SC_COUNTEREXAMPLE (no snapshot-
# consistency counterexample exists within P's crash model; its header and
# proofs/README.md, "Mutants that must fail", say why) instead contains
#     unrecoverable : Unrecoverable
# Every mutant must also be imported by SCFTL/Mutants/All.agda, whose record
# `MutantsFail` lists all results; Agda then checks each statement (and
# --safe rules out postulating it).  At least MIN_MUTANTS mutants must exist.
# Mutants of the checkpoint slot's abstraction (issue 39; SCFTL/Impl/
# CheckpointSlot.agda: the code's multi-page slot and recovery's rule for
# finding it, which P models as one cell) are listed in
# MUTANTS_OF_CHECKPOINT_SLOT: each mutates that module's parse or rule,
# names the mutated `Pmut : SlotModel`, and instead contains
#     not-slot-abstraction : ¬ SlotAbstraction Pmut
# (the lemma that makes P's one-cell slot sound fails for it).
# Mutants of the space accounting (issue 39; SCFTL/Impl/Space.agda: the
# W/K/U constraints and the delta region's) are listed in MUTANTS_OF_SPACE:
# each weakens the constraints a configuration must pass, names the
# mutated `Pmut : SpaceModel`, and instead contains
#     not-space-progress : ¬ SpaceProgress Pmut
# (for the two-stream machine, SCFTL/Impl/SpaceTwoStreams.agda, `Pmut :
# SpaceModel2` and `SpaceProgress2` renamed to `SpaceProgress`)
# (a configuration that passes them and a run to a state without a page).
# Mutants of the lazy chain (issue 39; SCFTL/Impl/LazyChain.agda:
# recovery's walk along the chain of in-page/OOB records and the
# consolidation page's pairs) are listed in MUTANTS_OF_LAZY_CHAIN: each
# changes one of them, names the mutated `Pmut : ChainModel`, and
# instead contains
#     not-chain-sound : ¬ ChainSound Pmut
# (the walk's result is not a prefix of the chain as written, or the
# consolidation page does not replay as the records).
# Mutants of the checkpoint slots in the model's state (issue 39;
# SCFTL/Impl/SlotOver.agda: the code's two multi-page slots beside P's
# cells) are listed in MUTANTS_OF_SLOT_LAYER: each changes the protocol
# of the full checkpoint over the two slots, names the mutated `Pmut :
# CkProtocol`, and instead contains
#     not-slot-covered : ¬ SlotCovered Pmut
# (a crash of the protocol that no point of P's checkpoint allows, read
# through the slots).
# Mutants of the region rules in P's state (issue 39;
# SCFTL/Impl/SpaceRegion.agda: P with the code's rules on the delta
# region) are listed in MUTANTS_OF_REGION: each weakens a rule, names the
# mutated rule `Pmut`, and instead contains
#     not-region-fits : ¬ RegionFits Pmut
# (a run from format to a state with more region pages than the region).
# Mutants of the region rules over PU's barrier (issue 39;
# SCFTL/Impl/SpaceRegionBarrier.agda) are listed in
# MUTANTS_OF_REGION_BARRIER: each changes PU's barrier, names the mutated
# barrier relation `Pmut`, and instead contains
#     not-barrier-lifts : ¬ BarrierLifts Pmut
# (a state of the region invariant and a barrier from it with no step of
# `Pmut` that leaves the region the room the rule asks for).
# Mutants of the region rules over PL's lazy chain (issue 39;
# SCFTL/Impl/SpaceRegionLazy.agda) are listed in MUTANTS_OF_REGION_LAZY:
# each weakens the rule after a flush, names the mutated rule `Pmut`, and
# instead contains
#     not-rooms : ¬ RoomsL Pmut
# (a run from format to a state with no free region page past the page
# the chain owes).
# Mutants of the data-superblock layer (issue 39;
# SCFTL/Impl/SpaceLayer.agda: the layer over the one model's blocks under
# the code's policies) are listed in MUTANTS_OF_LAYER: each weakens a
# policy, names the mutated `Pmut : LayerPolicy`, and instead contains
#     not-layer-progress : ¬ LayerProgress Pmut
# (a configuration passing the constraints, a new disk, its first
# recovery, and a run of the layer to a state where a wanted write finds
# no block).
# Mutants of the layer's GC against P's queues (issue 39;
# SCFTL/Impl/SpaceQueued.agda) are listed in MUTANTS_OF_LAYER_QUEUE: each
# changes the layer's steps, names the mutated `Pmut : LayerRel`, and
# instead contains
#     not-layer-queued : ¬ LayerQueued Pmut
# (a run from the first recovery of a new disk to a block the layer holds
# erasable with a page on neither of P's queues).
# Mutants of the layer's GC liveness (issue 39; SCFTL/Impl/SpaceLayerStart
# .agda, `GcLive`) are listed in MUTANTS_OF_GC: each changes the layer's
# steps, names the mutated `Pmut : GcPolicy`, and instead contains
#     not-gc-live : ¬ GcLive Pmut
# (a reachable state where the code's write needs GC before it opens a
# block, a free block there, and no two steps taking a victim).
# Mutants of GC's relocation budget (issue 39; SCFTL/Impl/SpaceGcBound
# .agda, `LayerBudget`) are listed in MUTANTS_OF_GC_BUDGET: each changes
# the layer's steps, names the mutated `Pmut : LayerRel`, and instead
# contains
#     not-budget : ¬ LayerBudget Pmut
# (a run from the first recovery of a new disk to a state where GC moves
# a victim with a page on neither of P's queues and P's relocation count
# is past kmax).
# Mutants of the layer's queues across power cuts (issue 39;
# SCFTL/Impl/SpaceRecGc.agda, `LayerQueuedR`) are listed in
# MUTANTS_OF_LAYER_QUEUE_CRASH: each changes the steps of the layer with
# power cuts, names the mutated `Pmut : LayerRelR`, and instead contains
#     not-layer-queued-crash : ¬ LayerQueuedR Pmut
# (a run from the first recovery of a new disk, through power cuts, to a
# block the layer holds erasable with a page on neither of P's queues).
MUTANTS_WITHOUT_SC_COUNTEREXAMPLE="CheckpointInPlace"
MUTANTS_OF_CHECKPOINT_SLOT="CheckpointPagesUnverified"
MUTANTS_OF_SPACE="SpaceVictimsNotCounted SpaceRegionOneEpoch SpaceSecondStreamNotReserved"
MUTANTS_OF_LAZY_CHAIN="LazyChainSkipsHole LazyConsolidationOmitsRecord"
MUTANTS_OF_SLOT_LAYER="CheckpointOverLiveSlot"
MUTANTS_OF_REGION="RegionCommitPageOnly"
MUTANTS_OF_REGION_BARRIER="BarrierDurableOnlyAtUmax"
MUTANTS_OF_REGION_LAZY="LazyCommitForgetsOwedPage"
MUTANTS_OF_LAYER="LayerIgnoresGcTiming"
MUTANTS_OF_LAYER_QUEUE="LayerEndsVictimEarly"
MUTANTS_OF_GC="LayerWithoutRetire"
MUTANTS_OF_GC_BUDGET="LayerRelocatesAnyPage"
MUTANTS_OF_LAYER_QUEUE_CRASH="LayerWritesAbandonedBlock"
MIN_MUTANTS=52
nmut=0
for f in SCFTL/Mutants/*.agda; do
  [ -e "$f" ] || break
  b="$(basename "$f" .agda)"
  case "$b" in Common|All) continue ;; esac
  nmut=$((nmut + 1))
  case " $MUTANTS_WITHOUT_SC_COUNTEREXAMPLE " in
    *" $b "*) want='unrecoverable : Unrecoverable' ;;
    *)        want='not-snapshot-consistent : ¬ SnapshotConsistent Pmut' ;;
  esac
  case " $MUTANTS_OF_CHECKPOINT_SLOT " in
    *" $b "*) want='not-slot-abstraction : ¬ SlotAbstraction Pmut' ;;
  esac
  case " $MUTANTS_OF_SPACE " in
    *" $b "*) want='not-space-progress : ¬ SpaceProgress Pmut' ;;
  esac
  case " $MUTANTS_OF_LAZY_CHAIN " in
    *" $b "*) want='not-chain-sound : ¬ ChainSound Pmut' ;;
  esac
  case " $MUTANTS_OF_SLOT_LAYER " in
    *" $b "*) want='not-slot-covered : ¬ SlotCovered Pmut' ;;
  esac
  case " $MUTANTS_OF_REGION " in
    *" $b "*) want='not-region-fits : ¬ RegionFits Pmut' ;;
  esac
  case " $MUTANTS_OF_REGION_BARRIER " in
    *" $b "*) want='not-barrier-lifts : ¬ BarrierLifts Pmut' ;;
  esac
  case " $MUTANTS_OF_REGION_LAZY " in
    *" $b "*) want='not-rooms : ¬ RoomsL Pmut' ;;
  esac
  case " $MUTANTS_OF_LAYER " in
    *" $b "*) want='not-layer-progress : ¬ LayerProgress Pmut' ;;
  esac
  case " $MUTANTS_OF_LAYER_QUEUE " in
    *" $b "*) want='not-layer-queued : ¬ LayerQueued Pmut' ;;
  esac
  case " $MUTANTS_OF_GC " in
    *" $b "*) want='not-gc-live : ¬ GcLive Pmut' ;;
  esac
  case " $MUTANTS_OF_GC_BUDGET " in
    *" $b "*) want='not-budget : ¬ LayerBudget Pmut' ;;
  esac
  case " $MUTANTS_OF_LAYER_QUEUE_CRASH " in
    *" $b "*) want='not-layer-queued-crash : ¬ LayerQueuedR Pmut' ;;
  esac
  grep -qxF "$want" "$f" || fail "$f: mutant must define, at top level: $want"
  grep -q "^import SCFTL.Mutants.$b\$" SCFTL/Mutants/All.agda \
    || fail "SCFTL/Mutants/All.agda does not import SCFTL.Mutants.$b"
done
[ "$nmut" -ge "$MIN_MUTANTS" ] || fail "only $nmut mutants under SCFTL/Mutants (need $MIN_MUTANTS)"

if [ "${1:-}" = "--clean" ]; then
  find . -name '*.agdai' -delete; rm -rf _build
fi

# --- type-check ------------------------------------------------------------
# Agda checks one module at a time. With more than one core, the modules are
# checked in jobs on several Agda worker processes at once (long-lived, in
# interaction mode, so each loads an interface file at most once), planned
# and run by schedule.py from the import graph (and check-weights.tsv,
# seconds per module, which only steers the plan): no two jobs check the
# same module, every module is checked exactly once (schedule.py asserts
# both), and a job starts once the interface files of the modules it
# imports from others are written. Only the modules out of date are
# planned; where a split saves nothing (a few modules to check), and with
# SCFTL_AGDA_JOBS=1 (.ci/run: there the cores are busy with the builds and
# tests), Everything.agda is checked in one batch process.
# Everything.agda imports only modules that exist:
for m in $(sed -n 's/^import \(SCFTL[^ ]*\)$/\1/p' Everything.agda); do
  [ -f "$(echo "$m" | tr . /).agda" ] || fail "Everything.agda imports $m, which has no file"
done
jobs="${SCFTL_AGDA_JOBS:-$(nproc 2>/dev/null || echo 1)}"
case "$jobs" in ''|*[!0-9]*) fail "SCFTL_AGDA_JOBS must be a number, got: $jobs" ;; esac
[ "$jobs" -ge 1 ] || jobs=1
[ "$jobs" -le 4 ] || jobs=4
# The standard library's interface files are written on a machine's first
# check; two processes must not write one of them at once, so that check
# runs in one process (the marker is set by any check that passes).
stdlib_marker="$CACHE/stdlib-checked-$got_version"
[ -f "$stdlib_marker" ] || jobs=1
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
# the planner plans a clean check on two cores, every module once (a
# self-test, whatever this run does)
python3 schedule.py . check-weights.tsv 2 --all --explain > /dev/null || fail "schedule.py cannot plan a clean check"
python3 schedule.py . check-weights.tsv "$jobs" > "$work/plan" || fail "schedule.py could not plan the check"
n=$(echo "$mods" | wc -w)
start=$(date +%s)
if [ "$(cat "$work/plan")" = serial ]; then
  echo "check.sh: Agda $got_version, agda-stdlib $STDLIB_VERSION: checking Everything.agda"
  log="$work/everything.log"
  if ! "${agda[@]}" --no-libraries -i "$std" -i . Everything.agda >"$log" 2>&1; then
    cat "$log" >&2
    fail "Agda rejected the proofs"
  fi
  if grep -qiE 'warning|unsolved' "$log"; then
    cat "$log" >&2
    fail "Agda reported warnings or unsolved metas"
  fi
  how="one process"
else
  nproc_=$(wc -l < "$work/plan")
  nplan=$(cut -d' ' -f3- "$work/plan" | wc -w)
  echo "check.sh: Agda $got_version, agda-stdlib $STDLIB_VERSION: checking the $nplan of $n modules out of date in $nproc_ jobs on $jobs workers (schedule.py)"
  python3 schedule.py --run "$work/plan" "$jobs" "$work" "${agda[@]}" --no-libraries -i "$std" -i . \
    || fail "Agda rejected the proofs, or reported warnings or unsolved metas (above)"
  how="$jobs workers"
fi
mkdir -p "$CACHE" && touch "$stdlib_marker" 2>/dev/null || true
# Agda keeps an interface file it finds up to date as it is; mark the ones
# this check vouched for, so that schedule.py's mtime test does not plan
# them again (after a checkout that only touched the sources).
find SCFTL -name '*.agdai' -exec touch {} + 2>/dev/null || true
echo "PASS: all $n proof modules type-check under --safe (Agda $got_version, stdlib $STDLIB_VERSION) in $(( $(date +%s) - start ))s ($how)"
