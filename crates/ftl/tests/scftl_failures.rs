//! SCFTL on flash that fails (issue 14): a data page program the flash
//! fails is written again elsewhere and its block retired on the device; an
//! erase the flash fails retires its superblock; superblocks with a bad
//! block (factory bad, worn out, retired) are never filled again, across
//! reopens; a device wearing out ends with writes refused (`WornOut`), its
//! flushed data still readable. The mutants `ignore-program-failure` and
//! `forget-bad-block-mark` must fail these tests (random mode with
//! `--inject-failures` catches them too: crates/crashcheck/tests/failure_mutants.rs).

use flash::{BlockHealth, BlockId, CrashFlash, CrashPolicy, Flash, Geometry, MemFlash, WearModel};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, FtlError, Lba, Mutant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

type Dev = Scftl<CrashFlash<MemFlash>>;

/// `small`'s default configuration spares no superblock (its worst-case
/// epochs need them all): these tests use one sized to spare three.
fn spared(g: &Geometry) -> ScftlConfig {
    let cfg = ScftlConfig::with_spare_superblocks(g, 3).unwrap();
    assert_eq!(ScftlConfig::default_for(g).spare_superblocks(g), 0);
    assert!(cfg.spare_superblocks(g) >= 3);
    cfg
}

fn sector(la: u64, v: u8, ss: usize) -> Vec<u8> {
    (0..ss)
        .map(|i| (la as u8).wrapping_mul(7) ^ v ^ i as u8)
        .collect()
}

fn write(d: &mut impl BlockDevice, la: u64, v: u8) -> Result<(), FtlError> {
    if d.epoch_remaining() == Some(0) {
        d.flush()?;
    }
    let ss = d.sector_size();
    d.write(Lba(la), &sector(la, v, ss))
}

fn check(d: &mut impl BlockDevice, want: &[u8]) -> Result<(), String> {
    let ss = d.sector_size();
    let mut buf = vec![0u8; ss];
    for (la, &v) in want.iter().enumerate() {
        d.read(Lba(la as u64), &mut buf)
            .map_err(|e| format!("read {la}: {e}"))?;
        let expect = if v == 0 {
            vec![0; ss]
        } else {
            sector(la as u64, v, ss)
        };
        if buf != expect {
            return Err(format!("sector {la} does not read as version {v}"));
        }
    }
    Ok(())
}

fn retired_blocks(f: &impl Flash) -> Vec<BlockId> {
    (0..f.geometry().total_blocks())
        .map(BlockId)
        .filter(|&b| f.block_wear(b).unwrap().health == BlockHealth::Retired)
        .collect()
}

/// Flushed writes, then a program failure in the merge buffer's page, more
/// writes, a flush and a reopen: every sector reads back, the failing
/// block is retired on the device, and its superblock ends up bad.
fn program_failure(mutant: Mutant) -> Result<(), String> {
    let g = Geometry::small();
    let cfg = spared(&g);
    let flash = CrashFlash::new(MemFlash::new(g).unwrap());
    let mut d: Dev = Scftl::format_with_mutant(flash, cfg, mutant).unwrap();
    let n = 64usize;
    for la in 0..n {
        write(&mut d, la as u64, 1).map_err(|e| e.to_string())?;
    }
    let mut want = vec![1u8; n];
    d.flush().map_err(|e| e.to_string())?;
    // The next program is the merge buffer's page (a delta page holds far
    // more pairs than the sectors below).
    d.flash_mut().fail_nth_program(1);
    for la in 0..8 {
        write(&mut d, la, 2).map_err(|e| e.to_string())?;
        want[la as usize] = 2;
    }
    if d.flash_mut().injected_failures().0 != 1 {
        return Err("no program failed".into());
    }
    check(&mut d, &want)?;
    if d.stats().program_failures != 1 {
        return Err(format!(
            "{} program failures handled",
            d.stats().program_failures
        ));
    }
    d.flush().map_err(|e| e.to_string())?;
    let retired = retired_blocks(d.flash_mut());
    if retired.len() != 1 {
        return Err(format!("retired blocks on the device: {retired:?}"));
    }
    let erases_before = d.flash_mut().block_wear(retired[0]).unwrap().erases;
    // Reopen, then write the device over a few times with flushes.
    let mut d: Dev = Scftl::open_with_mutant(d.into_flash(), mutant).map_err(|e| e.to_string())?;
    check(&mut d, &want)?;
    let l = d.num_sectors();
    for round in 0..6u8 {
        for la in 0..l {
            write(&mut d, la, 10 + round).map_err(|e| e.to_string())?;
            if (la as usize) < n {
                want[la as usize] = 10 + round;
            }
        }
        d.flush().map_err(|e| e.to_string())?;
    }
    check(&mut d, &want)?;
    if d.stats().bad_blocks != 1 {
        return Err(format!("{} bad superblocks", d.stats().bad_blocks));
    }
    let erases_after = d.flash_mut().block_wear(retired[0]).unwrap().erases;
    if erases_after != erases_before {
        return Err(format!(
            "the retired block was erased again ({erases_before} -> {erases_after} erases)"
        ));
    }
    d.check_invariants()
}

#[test]
fn a_failed_data_page_program_is_written_elsewhere_and_its_block_retired() {
    program_failure(Mutant::None).unwrap();
}

#[test]
fn a_page_whose_second_place_fails_too_lands_on_the_third() {
    let g = Geometry::small();
    let cfg = spared(&g);
    let flash = CrashFlash::new(MemFlash::new(g).unwrap());
    let mut d: Dev = Scftl::format(flash, cfg).unwrap();
    let mut want = vec![0u8; 16];
    for la in 0..16 {
        write(&mut d, la, 1).unwrap();
        want[la as usize] = 1;
    }
    d.flush().unwrap();
    let spp = u64::from(g.sectors_per_page);
    for la in 0..spp {
        write(&mut d, la, 2).unwrap();
        want[la as usize] = 2;
    }
    // The next sector makes the full buffer program: it fails, and so does
    // its first retry elsewhere.
    d.flash_mut().fail_program_run(2);
    write(&mut d, spp, 2).unwrap();
    want[spp as usize] = 2;
    assert_eq!(d.flash_mut().injected_failures().0, 2);
    assert_eq!(retired_blocks(d.flash_mut()).len(), 2);
    check(&mut d, &want).unwrap();
    d.flush().unwrap();
    let mut d: Dev = Scftl::open(d.into_flash()).unwrap();
    check(&mut d, &want).unwrap();
    d.check_invariants().unwrap();
}

#[test]
fn ignoring_a_program_failure_is_caught() {
    let e = program_failure(Mutant::IgnoreProgramFailure).unwrap_err();
    assert!(e.contains("read") || e.contains("sector"), "{e}");
}

#[test]
fn forgetting_to_retire_the_block_on_the_device_is_caught() {
    let e = program_failure(Mutant::ForgetBadBlockMark).unwrap_err();
    assert!(e.contains("retired"), "{e}");
}

#[test]
fn a_failed_erase_retires_its_superblock_for_good() {
    let g = Geometry::small();
    let cfg = spared(&g);
    let flash = CrashFlash::new(MemFlash::new(g).unwrap());
    let mut d: Dev = Scftl::format(flash, cfg).unwrap();
    // Format erased the metadata regions; the first data write erases a
    // data superblock, and that erase fails.
    d.flash_mut().fail_nth_erase(1);
    let mut want = vec![0u8; 32];
    for la in 0..32 {
        write(&mut d, la, 5).unwrap();
        want[la as usize] = 5;
    }
    d.flush().unwrap();
    assert_eq!(d.flash_mut().injected_failures(), (0, 1));
    let st = d.stats();
    assert_eq!((st.erase_failures, st.bad_blocks), (1, 1));
    check(&mut d, &want).unwrap();
    let mut d: Dev = Scftl::open(d.into_flash()).unwrap();
    assert_eq!(d.stats().bad_blocks, 1, "recovery finds the bad superblock");
    check(&mut d, &want).unwrap();
    d.check_invariants().unwrap();
}

#[test]
fn factory_bad_blocks_are_skipped_even_where_the_metadata_would_go() {
    let g = Geometry::small();
    let cfg = spared(&g);
    let meta = Scftl::<MemFlash>::metadata_blocks(&g, &cfg);
    // The regions' blocks (superblock 0's are the label block and unused).
    let sb0: Vec<BlockId> = (0..g.dies()).map(|d| g.block_on_die(d, 0)).collect();
    let regions: Vec<BlockId> = meta.iter().copied().filter(|b| !sb0.contains(b)).collect();
    let model = |seed| WearModel {
        endurance: 0,
        factory_bad_per_mille: 12,
        seed,
    };
    let seed_where = |meta_bad: bool| {
        (1..1000u64)
            .find(|&s| {
                let m = model(s);
                let bad_meta = regions.iter().any(|&b| m.is_factory_bad(b));
                if sb0.iter().any(|&b| m.is_factory_bad(b)) {
                    return false;
                }
                let bad = (0..g.total_blocks())
                    .filter(|&b| m.is_factory_bad(BlockId(b)))
                    .count();
                // At most 3 superblocks: what `small`'s configuration spares.
                bad_meta == meta_bad && (1..=3).contains(&bad)
            })
            .unwrap()
    };
    for meta_bad in [false, true] {
        let f = MemFlash::with_wear(g, 8192, model(seed_where(meta_bad))).unwrap();
        let mut d: Scftl<MemFlash> = Scftl::format(f, cfg.clone()).unwrap();
        assert!(d.stats().bad_blocks > 0);
        // Format put the metadata regions on superblocks with no bad block
        // (elsewhere than the initial map when one of those is bad).
        let now = d.metadata_blocks_now();
        assert_eq!(now != meta, meta_bad);
        for &b in &now {
            assert!(
                !d.flash_mut().block_wear(b).unwrap().is_bad(),
                "block {}",
                b.0
            );
        }
        let l = d.num_sectors();
        let mut want = vec![0u8; l as usize];
        for round in 1..4u8 {
            for la in 0..l {
                write(&mut d, la, round).unwrap();
                want[la as usize] = round;
            }
        }
        d.flush().unwrap();
        check(&mut d, &want).unwrap();
        d.check_invariants().unwrap();
        let mut d = Scftl::open(d.into_flash()).unwrap();
        check(&mut d, &want).unwrap();
        d.check_invariants().unwrap();
    }
}

#[test]
fn format_refuses_a_device_without_room_for_its_metadata() {
    let g = Geometry::small();
    let cfg = ScftlConfig::default_for(&g);
    let mut f = MemFlash::new(g).unwrap();
    // Every superblock but two has a bad block on die 1.
    for sb in 3..g.blocks_per_die {
        let b = g.block_on_die(1, sb);
        let wear = flash::BlockWear {
            erases: 0,
            health: BlockHealth::FactoryBad,
        };
        flash::RawFlash::set_block_wear(&mut f, b, wear).unwrap();
    }
    match Scftl::format(f, cfg) {
        Err(FtlError::BadConfig(m)) => assert!(m.contains("metadata regions need"), "{m}"),
        other => panic!("expected BadConfig, got {:?}", other.err()),
    }
}

#[test]
fn a_device_that_wears_out_refuses_writes_and_keeps_flushed_data() {
    let g = Geometry::small();
    let cfg = spared(&g);
    let model = WearModel {
        endurance: 24,
        factory_bad_per_mille: 0,
        seed: 5,
    };
    let mut d = Scftl::format(MemFlash::with_wear(g, 8192, model).unwrap(), cfg).unwrap();
    let l = d.num_sectors();
    let mut flushed = vec![0u8; l as usize];
    let mut pending = flushed.clone();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    // The error, and what a failed operation may have left: a write its
    // sector (old or new), a flush its snapshot (committed or not).
    let mut failure = None;
    for i in 0..2_000_000u64 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let la = rng % l;
        let v = (i % 250) as u8 + 1;
        if let Err(e) = write(&mut d, la, v) {
            failure = Some((e, Some((la, v))));
            break;
        }
        pending[la as usize] = v;
        if i % 64 == 63 {
            if let Err(e) = d.flush() {
                failure = Some((e, None));
                break;
            }
            flushed.clone_from(&pending);
        }
    }
    let (err, failed_write) = failure.expect("the device never wore out");
    assert!(matches!(err, FtlError::WornOut(_)), "{err}");
    let st = d.stats();
    assert!(
        st.flash.failed_erases + st.flash.failed_programs > 0,
        "worn out without a media failure: {st:?}"
    );
    // Reads still work and return what was written (the failed write's
    // sector either way); writes and flushes are refused.
    let mut now = pending.clone();
    if let Some((la, v)) = failed_write {
        let ss = d.sector_size();
        let mut buf = vec![0u8; ss];
        d.read(Lba(la), &mut buf).unwrap();
        if buf == sector(la, v, ss) {
            now[la as usize] = v;
        }
    }
    check(&mut d, &now).unwrap();
    assert!(matches!(write(&mut d, 0, 1), Err(FtlError::WornOut(_))));
    assert!(matches!(d.flush(), Err(FtlError::WornOut(_))));
    // Reopened: the last flush's snapshot (or, if a flush failed, possibly
    // that flush's), still refusing writes if a metadata block is bad.
    let mut d = Scftl::open(d.into_flash()).unwrap();
    let at_flush = check(&mut d, &flushed);
    if failed_write.is_none() {
        assert!(at_flush.is_ok() || check(&mut d, &pending).is_ok());
    } else {
        at_flush.unwrap();
    }
}

/// One run of [`metadata_failures`]: a warmed-up device, then a failure of
/// the `nth` next program (or erase) during random writes, trims and
/// flushes. Flushed data must survive everywhere (on the running device
/// and after a reopen). Returns whether the failure hit the metadata (a
/// full checkpoint moved it: `meta_repairs`) and whether the device ended
/// read-only; `None` if the run had fewer than `nth` such commands.
fn metadata_failure_run(nth: u64, erase: bool) -> Result<Option<(bool, bool)>, String> {
    let g = Geometry::small();
    let mut cfg = spared(&g);
    // Small delta pages: many region pages and full checkpoints per run.
    cfg.delta_pairs_per_page = 64;
    let flash = CrashFlash::new(MemFlash::new(g).unwrap());
    let mut d: Dev = Scftl::format(flash, cfg).unwrap();
    let l = d.num_sectors();
    let mut flushed = vec![0u8; l as usize];
    for la in 0..l / 2 {
        write(&mut d, la, 1).map_err(|e| e.to_string())?;
        flushed[la as usize] = 1;
    }
    d.flush().map_err(|e| e.to_string())?;
    if erase {
        d.flash_mut().fail_nth_erase(nth);
    } else {
        d.flash_mut().fail_nth_program(nth);
    }
    let mut pending = flushed.clone();
    let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ nth;
    let mut read_only = false;
    for i in 0..3000u64 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let la = rng % l;
        let r = match rng % 100 {
            0..=84 => write(&mut d, la, (i % 200) as u8 + 2).map(|()| {
                pending[la as usize] = (i % 200) as u8 + 2;
            }),
            85..=91 => d.trim(Lba(la), 1).map(|()| pending[la as usize] = 0),
            _ => d.flush().map(|()| flushed.clone_from(&pending)),
        };
        match r {
            Ok(()) => {}
            Err(FtlError::WornOut(_)) => {
                read_only = true;
                break;
            }
            Err(e) => return Err(format!("request {i} failed with {e}")),
        }
    }
    let (p, e) = d.flash_mut().injected_failures();
    if p + e != 1 {
        // The run had fewer commands of that kind.
        return Ok(None);
    }
    if !read_only {
        check(&mut d, &pending)?;
        d.flush().map_err(|e| format!("last flush: {e}"))?;
        flushed.clone_from(&pending);
    }
    d.check_invariants()?;
    let hit_meta = d.stats().wear.meta_repairs > 0;
    let mut d: Dev = Scftl::open(d.into_flash()).map_err(|e| format!("reopen: {e}"))?;
    check(&mut d, &flushed).map_err(|e| format!("after reopen: {e}"))?;
    d.check_invariants()
        .map_err(|e| format!("after reopen: {e}"))?;
    // The bad block is out of the metadata for good.
    if d.metadata_blocks_now()
        .iter()
        .any(|&b| d.flash_mut().block_wear(b).unwrap().is_bad())
    {
        return Err("a metadata block is still bad after the flush".into());
    }
    Ok(Some((hit_meta, read_only)))
}

/// Metadata programs and erases that fail (delta pages, consolidation
/// pages, checkpoint pages and commit records, erases of the slots and
/// the region) move the metadata with a full checkpoint instead of turning
/// the device read-only, and a data page carrying an in-page or OOB commit
/// moves with its epoch committed by a full checkpoint (docs/FORMAT.md
/// §4.10); nothing flushed is lost, and the device goes on.
fn metadata_failures(erase: bool, runs: u64) {
    let (mut injected, mut hit) = (0, 0);
    let mut bad = Vec::new();
    for nth in 1..=runs {
        let at = if erase { nth } else { nth * 7 };
        match metadata_failure_run(at, erase) {
            Ok(Some((hit_meta, read_only))) => {
                injected += 1;
                hit += u32::from(hit_meta);
                // One failure on a device sparing three superblocks never
                // ends it: data pages, commit pages and metadata all move.
                if read_only {
                    bad.push(format!("failure at {at}: the device turned read-only"));
                }
            }
            Ok(None) => {}
            Err(e) => bad.push(format!("failure at {at}: {e}")),
        }
    }
    assert!(
        bad.is_empty(),
        "{} runs failed: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    assert!(
        injected >= runs / 2,
        "only {injected} of {runs} failures were injected"
    );
    assert!(
        hit >= 3,
        "only {hit} of {injected} failures hit the metadata"
    );
    eprintln!("{injected} failures injected, {hit} hit the metadata");
}

#[test]
fn a_failed_metadata_program_moves_the_metadata_and_loses_nothing() {
    metadata_failures(false, 60);
}

#[test]
fn a_failed_metadata_erase_moves_the_metadata_and_loses_nothing() {
    metadata_failures(true, 40);
}

/// A failed data page, then a power cut before GC caught up with the
/// superblock lost: the device reopens writable (it spares two), keeps its
/// flushed data, and takes a device's worth of writes. (Recovery's space
/// validator once turned such a device read-only for good: the state the
/// cut left was planned for one superblock more.)
#[test]
fn a_power_cut_right_after_a_failure_leaves_the_device_writable() {
    let g = Geometry::tiny();
    let cfg = ScftlConfig::with_spare_superblocks(&g, 2).unwrap();
    let mut reopened_writable = 0;
    for nth in 1..=12u64 {
        let mut d: Dev =
            Scftl::format(CrashFlash::new(MemFlash::new(g).unwrap()), cfg.clone()).unwrap();
        let l = d.num_sectors();
        let mut want = vec![0u8; l as usize];
        // Age the device: random writes (GC at work, used superblocks
        // near U), a flush every 16.
        let mut rng = Pcg64::seed_from_u64(nth);
        for i in 0..6 * l {
            let la = rng.gen_range(0..l);
            let v = (i % 8) as u8 + 1;
            write(&mut d, la, v).unwrap();
            want[la as usize] = v;
            if i % 16 == 15 {
                d.flush().unwrap();
            }
        }
        d.flush().unwrap();
        d.flash_mut().fail_nth_program(nth);
        let mut failed = false;
        for _ in 0..l {
            let la = rng.gen_range(0..l);
            if write(&mut d, la, 9).is_err() {
                break;
            }
            if d.flash_mut().injected_failures().0 == 1 {
                failed = true;
                break;
            }
        }
        if !failed {
            continue;
        }
        // Power cut: unflushed writes may be lost, flushed ones not.
        let mut flash = d.into_flash();
        flash.cut_power();
        flash.crash(CrashPolicy::Random, &mut rng).unwrap();
        let mut d: Dev = Scftl::open(flash).unwrap();
        let ss = d.sector_size();
        let mut buf = vec![0u8; ss];
        for la in 0..l {
            d.read(Lba(la), &mut buf).unwrap();
            let v = want[la as usize];
            let flushed = if v == 0 {
                vec![0; ss]
            } else {
                sector(la, v, ss)
            };
            assert!(
                buf == flushed || buf == sector(la, 9, ss),
                "failure at program {nth}: sector {la} lost its flushed version {v}"
            );
        }
        match write(&mut d, 0, 10) {
            Err(FtlError::WornOut(why)) => {
                panic!("failure at program {nth}: read-only after the cut: {why}")
            }
            r => r.unwrap(),
        }
        for round in 0..2u8 {
            for la in 0..l {
                write(&mut d, la, 11 + round).unwrap();
            }
            d.flush().unwrap();
        }
        check(&mut d, &vec![12u8; l as usize]).unwrap();
        d.check_invariants().unwrap();
        reopened_writable += 1;
    }
    assert!(
        reopened_writable >= 6,
        "only {reopened_writable} runs hit a failure"
    );
}
