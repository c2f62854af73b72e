//! Epoch barriers under the crash checker: the generator issues them, the
//! snapshot contract lets a crash return to any completed barrier since the
//! last completed flush (and nothing else), and SCFTL's rule that an erase
//! syncs first while a barrier's epoch is unsynced is load-bearing — the
//! `erase-without-sync-after-barrier` mutant is caught (on the NAND model;
//! see its test for why not on the image model).

mod common;

use common::*;
use crashcheck::target::BackendKind;
use crashcheck::RunConfig;
use ftl::Mutant;

/// Catches the mutant (see `caught_and_replayed`) with a shrunk script
/// that needs a barrier.
fn check_caught(run: &RunConfig, seed: u64, ops: u64) {
    let f = caught_and_replayed(run, seed, ops);
    assert!(
        f.shrunk
            .iter()
            .any(|s| matches!(s, crashcheck::Step::Barrier)),
        "the shrunk script needs a barrier"
    );
}

/// The crash this rule guards against — an unsynced barrier freed a
/// superblock, the FTL erased it, and the cut kept the erase but lost the
/// barrier's page — is rare in the random workload: of seeds 1–16 with
/// 200,000 operations, seed 14 reaches it on the NAND model and none on the
/// image model. (The seeds that used to catch this mutant in a few thousand
/// operations did so through clean reopens: the skipped sync left barrier
/// epochs unproven, and a later erase broke their re-verification. That
/// path was a bug of the correct FTL too, closed in `open` — see
/// `crates/ftl/tests/scftl_reopen.rs` — and on an image every `open` now
/// starts a new generation.)
#[test]
fn erase_without_sync_after_barrier_on_the_nand_model() {
    check_caught(
        &scftl_tiny_on(Mutant::EraseWithoutSyncAfterBarrier, BackendKind::Ram),
        14,
        200_000,
    );
}

#[test]
fn scftl_passes_the_same_runs_with_barriers() {
    for (backend, seed, ops) in [(BackendKind::Ram, 3, 6000), (BackendKind::Image, 7, 7000)] {
        let r = passes(&scftl_tiny_on(Mutant::None, backend), seed, ops);
        assert!(r.stats.barriers > ops / 20, "{} barriers", r.stats.barriers);
        assert!(r.stats.flushes > 0);
    }
}

#[test]
fn every_target_takes_barriers() {
    for ftl in ["async", "sync", "optr"] {
        let r = passes(&run_config(ftl, None, "tiny", Mutant::None), 1, 1500);
        assert!(r.stats.barriers > 0, "{ftl}: no barrier issued");
    }
}
