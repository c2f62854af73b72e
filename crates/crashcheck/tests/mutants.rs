//! Mutation self-test: every seeded bug of `ftl::Mutant` is caught by the
//! checker, deterministically (fixed seeds), in seconds. A checker that
//! cannot fail proves nothing.
//!
//! SCFTL mutants are checked against `SnapshotSpec`, `AsyncEraseBeforeSync`
//! against `AsyncSpec`, `SyncSkipSync` against `SyncSpec`, the OPTR mutants
//! against `PrefixSpec`.

use crate::common;

use common::*;
use crashcheck::{ContractKind, RunConfig};
use flash::Geometry;
use ftl::Mutant;

const SEEDS: [u64; 4] = [1, 2, 3, 4];

fn scftl_tiny(m: Mutant) -> RunConfig {
    run_config("scftl", None, "tiny", m)
}

fn check_caught(run: &RunConfig, ops: u64) {
    let (seed, f) = caught(run, &SEEDS, ops);
    eprintln!(
        "{} caught with seed {seed} after {} ops: {}\n  shrunk to {} steps: {}",
        run.mutant.name(),
        f.ops,
        f.violation,
        f.shrunk.len(),
        f.shrunk_violation
    );
    // The shrunk script is a standalone reproduction.
    assert_replays(run, &f);
}

#[test]
fn skip_sync_before_commit() {
    check_caught(&scftl_tiny(Mutant::SkipSyncBeforeCommit), 3000);
}

#[test]
fn erase_victim_before_flush() {
    check_caught(&scftl_tiny(Mutant::EraseVictimBeforeFlush), 3000);
}

#[test]
fn full_checkpoint_over_live_slot() {
    check_caught(&scftl_tiny(Mutant::FullCheckpointOverLiveSlot), 3000);
}

#[test]
fn forget_trim_delta() {
    check_caught(&scftl_tiny(Mutant::ForgetTrimDelta), 3000);
}

#[test]
fn skip_crc_check() {
    check_caught(&scftl_tiny(Mutant::SkipCrcCheck), 3000);
}

/// Tentative delta pages exist only when an epoch's pairs overflow a page.
/// On tiny that happens when GC relocations join the epoch's updates, so the
/// mutant is caught there; on a geometry with 256-byte pages an epoch of
/// W = 128 updates spans about five delta pages, so it is caught there too.
#[test]
fn honour_tentative_deltas() {
    check_caught(&scftl_tiny(Mutant::HonourTentativeDeltas), 3000);
    let mut run = scftl_tiny(Mutant::HonourTentativeDeltas);
    run.geometry = Geometry::new(2, 2, 24, 32, 2, 128, 32).unwrap();
    run.geometry_name = "2x2x24x32x2x128".into();
    check_caught(&run, 6000);
    // The unmutated FTL passes on that geometry: the catch is the mutant's.
    run.mutant = Mutant::None;
    for seed in SEEDS {
        passes(&run, seed, 6000);
    }
}

#[test]
fn async_erase_before_sync() {
    check_caught(
        &run_config("async", None, "tiny", Mutant::AsyncEraseBeforeSync),
        6000,
    );
}

#[test]
fn sync_skip_sync() {
    check_caught(
        &run_config("sync", None, "tiny", Mutant::SyncSkipSync),
        3000,
    );
}

fn optr_tiny(m: Mutant) -> RunConfig {
    run_config("optr", None, "tiny", m)
}

#[test]
fn optr_ignore_coalescing_records() {
    check_caught(&optr_tiny(Mutant::OptrIgnoreCoalescingRecords), 3000);
}

#[test]
fn optr_request_complete_with_missing_page() {
    check_caught(&optr_tiny(Mutant::OptrRequestCompleteWithMissingPage), 3000);
}

/// Needs a GC whose greedy choice falls on a segment written after the
/// latest checkpoint (the oldest segments usually hold fewer valid
/// sectors), then a crash before the next checkpoint: seed 1 reaches it
/// after about 2,400 operations.
#[test]
fn optr_gc_erases_after_checkpoint() {
    check_caught(&optr_tiny(Mutant::OptrGcErasesAfterCheckpoint), 6000);
}

/// Needs a GC while a request is partly written back (the LRU evicted some
/// of its sectors) and partly dirty in the cache; seed 1 reaches it after
/// about 1,500 operations.
#[test]
fn optr_skip_internal_flush_before_gc() {
    check_caught(&optr_tiny(Mutant::OptrSkipInternalFlushBeforeGc), 3000);
}

/// Needs a GC that relocates live sectors, then an incremental checkpoint
/// and a crash before the next full one (the ghost copy of the
/// checkpointed L2P also flags it between operations).
#[test]
fn optr_incremental_omits_relocations() {
    check_caught(&optr_tiny(Mutant::OptrIncrementalOmitsRelocations), 3000);
}

/// Caught only by `check_invariants` between operations: a recovery
/// rebuilds the valid counts from the L2P and so hides the bug.
#[test]
fn trim_forgets_valid_count() {
    check_caught(&scftl_tiny(Mutant::TrimForgetsValidCount), 3000);
}

/// Caught only because the generator issues requests past the epoch bound.
#[test]
fn partial_write_past_epoch_bound() {
    check_caught(&scftl_tiny(Mutant::PartialWritePastEpochBound), 3000);
}

/// Needs a crash that leaves a tentative delta page, a recovery, and a
/// commit of the next epoch (then `check_invariants` or the next recovery
/// sees the carried pages).
#[test]
fn recovery_reuses_crashed_epoch() {
    check_caught(&scftl_tiny(Mutant::RecoveryReusesCrashedEpoch), 6000);
}

/// Needs an OOB-committed epoch of several pages whose record page landed
/// while an earlier page of it did not (docs/FORMAT.md §4.9).
#[test]
fn oob_commit_past_missing_page() {
    check_caught(&scftl_tiny(Mutant::OobCommitPastMissingPage), 40_000);
}

#[test]
fn every_mutant_has_a_test_above() {
    // Keep this list in step with ftl::Mutant::ALL: a new mutant needs a
    // test that catches it.
    let covered = [
        Mutant::SkipSyncBeforeCommit,
        Mutant::EraseVictimBeforeFlush,
        Mutant::HonourTentativeDeltas,
        Mutant::FullCheckpointOverLiveSlot,
        Mutant::ForgetTrimDelta,
        Mutant::SkipCrcCheck,
        Mutant::AsyncEraseBeforeSync,
        Mutant::SyncSkipSync,
        Mutant::AcceptEpochDigestMismatch,
        Mutant::SkipFallbackCheckpoint,
        Mutant::TrimForgetsValidCount,
        Mutant::PartialWritePastEpochBound,
        Mutant::RecoveryReusesCrashedEpoch,
        Mutant::OobCommitPastMissingPage,
        Mutant::OptrIgnoreCoalescingRecords,
        Mutant::OptrGcErasesAfterCheckpoint,
        Mutant::OptrRequestCompleteWithMissingPage,
        Mutant::OptrSkipInternalFlushBeforeGc,
        Mutant::OptrIncrementalOmitsRelocations,
    ];
    assert_eq!(covered.len(), Mutant::ALL.len());
    for m in Mutant::ALL {
        assert!(covered.contains(&m), "{} has no catching test", m.name());
    }
}

#[test]
fn the_async_ftl_is_not_snapshot_consistent() {
    check_caught(
        &run_config("async", Some(ContractKind::Snapshot), "tiny", Mutant::None),
        2000,
    );
}

/// SCFTL on the image backend's host power-cut model (`--backend image`).
fn scftl_tiny_image(m: Mutant) -> RunConfig {
    let mut run = scftl_tiny(m);
    run.target.backend = crashcheck::target::BackendKind::Image;
    run
}

#[test]
fn accept_epoch_digest_mismatch_on_the_image_model() {
    check_caught(&scftl_tiny_image(Mutant::AcceptEpochDigestMismatch), 3000);
}

/// On the NAND model: on an image every `open` starts a new generation
/// anyway (docs/FORMAT.md §4.3, "Opening an image"), which leaves nothing
/// for this mutant to break there.
#[test]
fn skip_fallback_checkpoint() {
    check_caught(&scftl_tiny(Mutant::SkipFallbackCheckpoint), 3000);
}

#[test]
fn skip_sync_before_commit_on_the_image_model() {
    check_caught(&scftl_tiny_image(Mutant::SkipSyncBeforeCommit), 3000);
}
