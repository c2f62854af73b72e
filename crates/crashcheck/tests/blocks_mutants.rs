//! Superblock rules the proofs' block layer over PX relies on, each broken
//! by a mutant random mode must catch (proofs/README.md, "Blocks in the
//! one model").
//!
//! - `trust-erased-first-page`: recovery takes an unreferenced superblock
//!   whose first page reads erased as erased whole, so it is activated
//!   without the erase `activate_next` gives every erasable superblock. A
//!   power cut while its erase was in flight may have left other pages of
//!   it with their old sectors (each page of an unsynced erase ends up
//!   erased or not on its own), and the next program there fails. The
//!   proofs' block layer erases a block taken at write pointer 0 for this
//!   reason (`act`, `erase-crash-offers`, SCFTL.Impl.OneModelBlocksReuse).
//!   Seed 3 on `tiny` catches it after 42 operations; seeds 1 and 2 within
//!   200.

use crate::common;

use common::*;
use crashcheck::target::BackendKind;
use ftl::Mutant;

#[test]
fn trust_erased_first_page_in_random_mode() {
    let f = caught_and_replayed(
        &scftl_tiny_on(Mutant::TrustErasedFirstPage, BackendKind::Ram),
        3,
        2_000,
    );
    let v = f.violation.to_string();
    assert!(
        v.contains("not erased"),
        "caught by the NAND rule, not something else: {v}"
    );
    // The unmutated FTL passes the same run: the catch is the mutant's.
    passes(&scftl_tiny_on(Mutant::None, BackendKind::Ram), 3, 2_000);
}
