//! Flushed data survives clean reopens however the epochs before the last
//! flush ended. Recovery applies an epoch nothing on flash proves durable
//! only after verifying its sectors against its digest (docs/FORMAT.md
//! §4.3), and it verifies it again at every later recovery — also the
//! sectors a later epoch overrode, which are not in the recovered L2P and
//! whose superblock the FTL may erase. Found while tracing how the crash
//! checker caught the `erase-without-sync-after-barrier` mutant: its
//! failures took this path, which the correct FTL could take too — a
//! barrier whose epoch spilled into a new superblock, a flush overriding
//! all of its sectors in the old one, a reopen, writes that erased the old
//! superblock, a reopen, and the flush was lost. `open` now settles such
//! epochs with a full checkpoint (mutant `keep-verified-epochs-unproven`,
//! which the crash checker reaches with two write streams:
//! `crates/crashcheck/tests/hot_cold_mutants.rs`).

use flash::{Flash, Geometry, MemFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, FtlError, Lba, Mutant};

fn w(d: &mut Scftl<MemFlash>, r: std::ops::Range<u64>, v: u8) {
    let ss = d.sector_size();
    for la in r {
        d.write(Lba(la), &vec![v; ss]).unwrap();
    }
}

/// Reopens `d` and checks that sectors `0..n` read as `want` says;
/// returns the reopened device, or the first sector that does not (a
/// wrong or damaged sector), naming the round.
fn reopen_and_check(
    d: Scftl<MemFlash>,
    mutant: Mutant,
    round: u64,
    n: u64,
    want: impl Fn(u64) -> u8,
) -> Result<Scftl<MemFlash>, String> {
    let mut d2 = Scftl::open_with_mutant(d.into_flash(), mutant).unwrap();
    let mut buf = vec![0u8; d2.sector_size()];
    for la in 0..n {
        match d2.read(Lba(la), &mut buf) {
            Ok(()) if buf.iter().all(|&b| b == want(la)) => {}
            Ok(()) => {
                return Err(format!(
                    "round {round}: sector {la} reads {}, flushed {}",
                    buf[0],
                    want(la)
                ))
            }
            Err(e @ FtlError::DamagedSector { .. }) => {
                return Err(format!("round {round}: sector {la}: {e}"))
            }
            Err(e) => panic!("round {round}: sector {la}: {e}"),
        }
    }
    d2.check_invariants().unwrap();
    Ok(d2)
}

/// The scenario above on `tiny` (superblocks of 32 sectors, W = 16);
/// returns the first sector that does not read as flushed, if any.
fn scenario(mutant: Mutant) -> Result<(), String> {
    let g = Geometry::tiny();
    let cfg = ScftlConfig::default_for(&g);
    assert_eq!(cfg.write_bound, 16);
    let mut d = Scftl::format_with_mutant(MemFlash::new(g).unwrap(), cfg, mutant).unwrap();
    // Two flushes fill 24 of the first superblock's 32 sectors.
    w(&mut d, 16..32, 1);
    d.flush().unwrap();
    w(&mut d, 0..8, 2);
    d.flush().unwrap();
    // A barrier: its 16 sectors fill the superblock and spill into the
    // next one; then a flush overrides every sector still live in the
    // first, all in the second superblock.
    w(&mut d, 0..8, 3);
    w(&mut d, 16..24, 3);
    d.epoch_barrier().unwrap();
    w(&mut d, 0..8, 4);
    w(&mut d, 24..32, 4);
    d.flush().unwrap();
    let want = |la: u64| -> u8 {
        match la {
            0..=7 | 24..=31 => 4,
            16..=23 => 3,
            _ => 0,
        }
    };
    let mut d = Scftl::open_with_mutant(d.into_flash(), mutant).unwrap();
    for round in 0..12u64 {
        // Writes elsewhere and no flush: superblocks are erased, and no
        // delta page is written.
        w(&mut d, 32 + (round % 3) * 15..47 + (round % 3) * 15, 9);
        d = reopen_and_check(d, mutant, round, 32, want)?;
    }
    Ok(())
}

#[test]
fn flushed_data_survives_reopens_after_a_barrier_and_erases() {
    scenario(Mutant::None).unwrap();
}

#[test]
fn without_settling_the_verified_epochs_the_flush_is_lost() {
    let e = scenario(Mutant::KeepVerifiedEpochsUnproven).unwrap_err();
    eprintln!("{e}");
}

/// `tiny` with `mutant`: two flushes fill the first superblock (sectors
/// 0–31), a region commit writes sector 40 into the second; the next
/// one-sector flush there commits in-page.
fn before_a_chain(mutant: Mutant) -> Scftl<MemFlash> {
    let g = Geometry::tiny();
    let cfg = ScftlConfig::default_for(&g);
    let mut d = Scftl::format_with_mutant(MemFlash::new(g).unwrap(), cfg, mutant).unwrap();
    w(&mut d, 0..16, 1);
    d.flush().unwrap();
    w(&mut d, 16..32, 2);
    d.flush().unwrap();
    w(&mut d, 40..41, 3);
    d.flush().unwrap();
    d
}

/// `open` keeps the epochs it recovers from in-page records as the next
/// commit's consolidation page — unless their superblock holds no mapped
/// sector: then that superblock is erasable at once, and the first one a
/// write opens after the reopen may be it, erasing the records before any
/// commit; the next recovery then finds neither them nor the data page
/// the region commit before them covers, and falls back past both. On
/// `tiny` (superblocks of 32 sectors, pages of two: an in-page epoch
/// writes one sector and its record): two flushes fill the first
/// superblock; a region commit writes sector 40 into the second; two
/// in-page epochs there write sectors 41 and 42 and trim sector 0 and
/// then sectors 40–42, so the second superblock holds nothing mapped;
/// then reopens, each after writes elsewhere and no flush. Returns the
/// first sector that does not read as flushed, if any.
fn empty_chain_scenario(mutant: Mutant) -> Result<(), String> {
    let mut d = before_a_chain(mutant);
    let before = d.stats().data_page_commits;
    w(&mut d, 41..42, 4);
    d.trim(Lba(0), 1).unwrap();
    d.flush().unwrap();
    w(&mut d, 42..43, 5);
    d.trim(Lba(40), 3).unwrap();
    d.flush().unwrap();
    assert_eq!(
        d.stats().data_page_commits - before,
        2,
        "two in-page epochs: {:?}",
        d.stats()
    );
    let want = |la: u64| -> u8 {
        match la {
            1..=15 => 1,
            16..=31 => 2,
            _ => 0,
        }
    };
    let mut d = Scftl::open_with_mutant(d.into_flash(), mutant).unwrap();
    for round in 0..24u64 {
        w(&mut d, 44 + (round % 3) * 11..55 + (round % 3) * 11, 9);
        d = reopen_and_check(d, mutant, round, 44, want)?;
    }
    Ok(())
}

#[test]
fn epochs_recovered_from_records_in_an_emptied_superblock_survive_the_next_reopen() {
    empty_chain_scenario(Mutant::None).unwrap();
}

#[test]
fn without_consolidating_an_empty_chain_at_open_a_flush_is_lost() {
    let e = empty_chain_scenario(Mutant::LazyConsolidationOfEmptyChain).unwrap_err();
    eprintln!("{e}");
}

/// The erase hold across a reopen (docs/FORMAT.md §4.3): `open` keeps
/// the epochs it recovers from in-page records for a later consolidation
/// page and writes nothing, and until that page every superblock it found
/// erasable is held, since the region commit before the records may name
/// pages in them (the proofs' `EraseGuard`). Every data superblock is
/// erasable or used after a recovery, so the first write that needs one
/// writes the consolidation page and syncs first (`release_hold`), once.
#[test]
fn after_a_reopen_that_keeps_a_chain_the_first_erase_waits_for_its_consolidation_page() {
    let mut d = before_a_chain(Mutant::None);
    let before = d.stats().data_page_commits;
    w(&mut d, 41..42, 4);
    d.flush().unwrap();
    assert_eq!(
        d.stats().data_page_commits - before,
        1,
        "an in-page epoch: {:?}",
        d.stats()
    );
    let want = |la: u64| -> u8 {
        match la {
            0..=15 => 1,
            16..=31 => 2,
            40 => 3,
            41 => 4,
            _ => 0,
        }
    };
    let flash = d.into_flash();
    let programs = flash.counters().programs;
    let mut d = Scftl::open(flash).unwrap();
    let s = d.stats();
    assert_eq!(s.flash.programs, programs, "open wrote a page: {s:?}");
    assert_eq!((s.hold_releases, s.free_blocks), (0, 0), "{s:?}");
    // The first write opens a superblock: only held ones are erasable.
    w(&mut d, 50..51, 5);
    let s = d.stats();
    assert_eq!(s.hold_releases, 1, "{s:?}");
    // The consolidation page (the sector waits in the merge buffer).
    assert_eq!(s.flash.programs, programs + 1, "{s:?}");
    // Released: the next superblocks are erased without another page.
    for r in [51..65, 65..79] {
        w(&mut d, r, 6);
        d.flush().unwrap();
    }
    assert_eq!(d.stats().hold_releases, 1, "{:?}", d.stats());
    let d = reopen_and_check(d, Mutant::None, 0, 79, |la| match la {
        50 => 5,
        51..=78 => 6,
        _ => want(la),
    })
    .unwrap();
    drop(d);
}
