//! The seeded bug of SCFTL's metadata rotation (docs/FORMAT.md §4.5),
//! caught by random mode with wear leveling on (`--wear-leveling`, which
//! the checker runs eagerly so that rotations happen in short runs; it is
//! not in `Mutant::ALL` because exhaustive mode takes no wear policy).
//!
//! - `rotation-erases-old-delta-early`: a rotating full checkpoint erases
//!   the old delta region together with the fresh superblocks, before its
//!   commit point; a cut in between recovers the old checkpoint without
//!   its deltas. With 20,000 operations on `tiny`, seeds 10, 11, 21, 24,
//!   30, 31, 33, 35, 37 and 39 of 1–40 catch it (before barriers that
//!   would leave the delta region short committed durably, 9, 11, 13, 24,
//!   26, 28, 37 and 39; since the erase hold, docs/FORMAT.md §4.3, seed 11
//!   is the pinned one), so a change to when rotations happen (the policy,
//!   the order of erases) or to the flash commands around them can move
//!   the seed.

use crate::common;

use common::*;
use crashcheck::target::{checker_wear_policy, BackendKind};
use ftl::{FtlKind, Mutant};

#[test]
fn rotation_erases_old_delta_early() {
    let mut run = scftl_tiny_on(Mutant::RotationErasesOldDeltaEarly, BackendKind::Ram);
    run.target.wear = Some(checker_wear_policy(FtlKind::Scftl));
    caught_and_replayed(&run, 11, 20_000);
}

#[test]
fn the_real_rotation_passes_the_same_runs() {
    let mut run = scftl_tiny_on(Mutant::None, BackendKind::Ram);
    run.target.wear = Some(checker_wear_policy(FtlKind::Scftl));
    for seed in [10, 11, 13] {
        passes(&run, seed, 20_000);
    }
}
