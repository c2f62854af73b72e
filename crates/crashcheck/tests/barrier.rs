//! Epoch barriers under the crash checker: the generator issues them, the
//! snapshot contract lets a crash return to any completed barrier since the
//! last completed flush (and nothing else), and every FTL takes them.
//!
//! SCFTL's rule that an erase syncs first while a barrier's epoch is
//! unsynced is checked where it matters, on flash with bad superblocks
//! (the `erase-without-sync-after-barrier` mutant,
//! `tests/failure_mutants.rs`, which says why healthy flash hides it).

use crate::common;

use common::*;
use crashcheck::target::BackendKind;
use ftl::Mutant;

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

/// `--sync-behind`: after every barrier, the sync `scftl serve`'s
/// background thread runs (`BlockDevice::begin_sync_behind`, its wait,
/// `finish_flush`, and SCFTL's erase ahead), under the snapshot contract
/// and the refinement oracle, with power cuts before its record
/// (`finish_sync` is a command) and in its erases.
#[test]
fn scftl_passes_with_a_sync_behind_every_barrier() {
    let mut run = scftl_tiny_on(Mutant::None, BackendKind::Ram);
    run.target.sync_behind = true;
    run.refine = true;
    let r = passes(&run, 60, 6000);
    assert!(r.stats.barriers > 0);
    assert!(
        r.stats.syncs_behind > r.stats.barriers / 4,
        "{} syncs behind {} barriers",
        r.stats.syncs_behind,
        r.stats.barriers
    );
    // ...and SCFTL erased superblocks ahead after them, each erase checked
    // by the refinement oracle (`Done::SyncBehind`).
    assert!(r.stats.erased_ahead > 0, "no superblock erased ahead");
}
