//! The seeded bugs that only the image backend's host power-cut model
//! (`--backend image`) shows, caught by random mode. Neither is in
//! `Mutant::ALL`: exhaustive mode runs on the NAND model, where a page is
//! torn from its start (an intact OOB means an intact page) and a lost
//! program never comes back.
//!
//! - `accept-oob-commit-with-torn-data` (docs/FORMAT.md §4.9): an epoch
//!   committed in the OOB of its last page, whose records all landed while
//!   a data write below them was lost. With 60,000 operations, 30 of seeds
//!   1–40 catch it, 3 the first (image format 4, configuration version 7).
//! - `keep-generation-on-image-open` (§4.3, "Opening an image"): a region
//!   page whose state byte a cut lost, programmed again after recovery
//!   under the same generation, epoch id and index, whose new bytes the
//!   next cut loses while its state byte lands. That takes two cuts at the
//!   right commands: of seeds 1–60 with 100,000 operations, 8, 13, 22, 24
//!   and 56 met them before the erase hold (docs/FORMAT.md §4.3), seed 27
//!   after it, and seed 28 since `open` checkpoints over a commit record
//!   its walk did not apply (§4.8, "Recovery"), the first after 27 (image format 4: an erase also writes its block's
//!   wear record; runs of whole pages programmed at once, in the image
//!   model too), so a change to the workload, to what
//!   `open` writes, to the order of programs, to the flash wrappers or to
//!   the image layout can move the seed.

use crate::common;

use common::*;
use crashcheck::target::BackendKind;
use ftl::Mutant;

#[test]
fn accept_oob_commit_with_torn_data_on_the_image_model() {
    caught_and_replayed(
        &scftl_tiny_on(Mutant::AcceptOobCommitWithTornData, BackendKind::Image),
        3,
        60_000,
    );
}

#[test]
fn keep_generation_on_image_open() {
    caught_and_replayed(
        &scftl_tiny_on(Mutant::KeepGenerationOnImageOpen, BackendKind::Image),
        28,
        100_000,
    );
}
