//! SCFTL's media assumptions (docs/FORMAT.md, "Media assumptions"), shown
//! with the opt-in crash policies: on MLC paired pages programmed in plain
//! page order, and on NAND whose interrupted erases can leave a page that
//! reads as erased but does not hold a program, SCFTL loses durable data.
//! These tests pin that down, so the documented requirement stays true:
//! if SCFTL is ever made to survive either, the test fails and the document
//! must change with it.

use crate::common;

use std::time::Duration;

use common::run_config;
use crashcheck::explore::{exhaustive, ExhaustiveConfig};
use crashcheck::RunConfig;
use flash::{MediaFaults, PagePairing};
use ftl::Mutant;

fn scftl_with(media: MediaFaults) -> RunConfig {
    let mut run = run_config("scftl", None, "tiny", Mutant::None);
    run.media = media;
    run
}

fn exhaustive_fails(run: &RunConfig) -> String {
    let mut cfg = ExhaustiveConfig::new(3, 6);
    cfg.shrink_time = Duration::from_millis(200);
    let r = exhaustive(run, &cfg, &mut |_, _| {});
    let f = r
        .failure
        .expect("the checker shows the media fault breaks SCFTL");
    f.violation.message
}

#[test]
fn scftl_requires_slc_or_a_paired_page_safe_program_order() {
    let m = exhaustive_fails(&scftl_with(MediaFaults {
        paired_pages: Some(PagePairing { stride: 1 }),
        unstable_erase: false,
        split_tears: false,
        silent_bad_blocks: false,
        split_unit: 0,
    }));
    eprintln!("paired pages: {m}");
}

#[test]
fn scftl_requires_erases_that_hold_once_they_read_as_erased() {
    let m = exhaustive_fails(&scftl_with(MediaFaults {
        paired_pages: None,
        unstable_erase: true,
        split_tears: false,
        silent_bad_blocks: false,
        split_unit: 0,
    }));
    eprintln!("unstable erase: {m}");
}

/// Exhaustive mode's split tears reach a bug random mode finds with drawn
/// tears: a delta page whose CRC is not checked in the scan, torn inside
/// its header and pairs (shorter than a 512-byte sector on `tiny`, so only
/// windows finer than a sector damage them and leave the header whole).
#[test]
fn exhaustive_split_tears_inside_a_sector_catch_an_unchecked_delta_page() {
    let mut run = run_config("scftl", None, "tiny", Mutant::DeltaScanSkipsCrc);
    run.media.split_tears = true;
    let mut cfg = ExhaustiveConfig::new(1, 6);
    cfg.shrink_time = Duration::from_millis(200);
    // (Windows of a sector leave the header or the pairs whole and the
    // other garbage: the scan rejects the first by its magic and never
    // reads the second; docs/BENCHMARKS.md has that run.)
    run.media.split_unit = 64;
    let r = exhaustive(&run, &cfg, &mut |_, _| {});
    let f = r
        .failure
        .expect("64-byte windows tear the pairs under a whole header");
    eprintln!("caught: {}", f.violation);
}

/// Split tears (one area of a page whole, the other damaged) are within
/// what every FTL survives: each structure's CRC covers the data and OOB
/// it trusts (docs/FORMAT.md, "Media assumptions").
#[test]
fn every_ftl_survives_split_tears() {
    for ftl in ["scftl", "async", "sync", "optr"] {
        let mut run = run_config(ftl, None, "tiny", Mutant::None);
        run.media.split_tears = true;
        common::passes(&run, 1, 30_000);
    }
}

/// Silent bad blocks (a bad block accepts erases and programs, and what is
/// programmed into it reads back changed) with injected media failures:
/// every FTL keeps its own bad marks and never uses such a block again.
#[test]
fn every_ftl_survives_silent_bad_blocks() {
    for ftl in ["scftl", "async", "sync", "optr"] {
        let mut run = run_config(ftl, None, "tiny", Mutant::None);
        run.media.silent_bad_blocks = true;
        if ftl == "scftl" {
            // Goes on past bad superblocks instead of turning read-only.
            run.target.spare = 2;
        }
        let mut cfg = crashcheck::explore::ExploreConfig::new(11);
        cfg.ops = Some(20_000);
        cfg.failure_rate = 0.1;
        let r = crashcheck::explore::explore(&run, &cfg, &mut |_, _| {});
        if let Some(f) = &r.failure {
            panic!("{ftl} with silent bad blocks: {}", f.violation);
        }
        assert!(
            r.stats.program_failures_injected > 0,
            "{ftl}: no failure injected"
        );
    }
}
