//! Durable flushes and epoch barriers (`BlockDevice::epoch_barrier`) under
//! power cuts, on both crash models: the NAND one (`CrashFlash` over
//! `MemFlash`) and the image file's host power cut (`ImageCrashFlash`).
//!
//! The contract checked (docs/FORMAT.md §4.3, "What a host power cut may
//! lose"): after a cut, the device holds its contents at the last completed
//! `flush`, or at one of the epoch barriers after it (or, for a cut inside a
//! flush or barrier, the contents that one was committing) — a prefix of the
//! epochs nobody asked to be durable, never a mix, and every sector readable.
//! Also: a flush costs one sync, a barrier none (until several are pending).
//! A failure prints the seed; replay it with
//! `SCFTL_SEED=<seed> cargo test -p ftl --test integration scftl_epoch_barrier::`.

use crate::common;

use common::Cuttable;
use flash::{CrashFlash, Flash, Geometry, ImageCrashFlash, MemFlash, SharedFlash};
use ftl::scftl::{Scftl, ScftlConfig};
use ftl::{BlockDevice, FtlError, Lba, Mutant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The content of a sector tagged `tag` (0: zeros).
fn sector(tag: u64, ss: usize) -> Vec<u8> {
    if tag == 0 {
        return vec![0; ss];
    }
    let t = tag.to_le_bytes();
    (0..ss).map(|i| t[i % 8] ^ (i / 8) as u8).collect()
}

/// One run: random writes, trims, flushes and barriers with a power cut at
/// a random command, then recovery and a full comparison. Returns an error
/// message instead of panicking, so mutant tests can expect one.
fn run<F: Cuttable>(seed: u64, mutant: Mutant) -> Result<(), String> {
    run_rounds::<F>(seed, mutant, 20..300)
}

/// [`run`] with `ops` operations per round (a cut may come at any of them).
fn run_rounds<F: Cuttable>(
    seed: u64,
    mutant: Mutant,
    ops: std::ops::Range<u32>,
) -> Result<(), String> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let g = Geometry::tiny();
    let cfg = ScftlConfig::default_for(&g);
    let flash = SharedFlash::new(F::fresh(g));
    let mut dev = Scftl::format_with_mutant(flash.clone(), cfg, mutant).unwrap();
    let ss = dev.sector_size();
    let n = dev.num_sectors();
    let mut volatile = vec![0u64; n as usize];
    let mut tag = 0u64;
    // Several cuts per run: a bug may need a second crash to show (e.g.
    // dropped epochs left in the chain by the first recovery).
    for round in 0..3 {
        // States a cut may return to: the last flush's, then each barrier's.
        let mut allowed: Vec<Vec<u64>> = vec![volatile.clone()];
        let ops = rng.gen_range(ops.clone());
        // Rounds with few client flushes let ordered epochs pile up.
        let flush_pct = if rng.gen_bool(0.5) { 15 } else { 1 };
        let cut_at = rng.gen_range(0..ops);
        for op in 0..ops {
            if op == cut_at {
                let k = rng.gen_range(0..12);
                flash.with(|f| f.arm(k));
            }
            let r = step(
                &mut dev,
                &mut rng,
                &mut volatile,
                &mut allowed,
                &mut tag,
                flush_pct,
            );
            if let Err(e) = r {
                if !matches!(&e, FtlError::Flash(fe) if fe.is_power_loss()) {
                    return Err(format!("round {round} op {op}: {e}"));
                }
                break;
            }
        }
        drop(dev);
        flash.with(|f| f.cut(&mut rng));
        dev = match Scftl::open_with_mutant(flash.clone(), mutant) {
            Ok(d) => d,
            Err(e) => return Err(format!("round {round}: recovery failed: {e}")),
        };
        let mut got = vec![0u64; n as usize];
        let mut buf = vec![0u8; ss];
        for la in 0..n {
            dev.read(Lba(la), &mut buf)
                .map_err(|e| format!("round {round}: read of sector {la} after recovery: {e}"))?;
            got[la as usize] = (0..=tag)
                .find(|&t| sector(t, ss) == buf)
                .ok_or_else(|| format!("round {round}: sector {la} holds data never written"))?;
        }
        if !allowed.contains(&got) {
            let diffs: Vec<String> = allowed
                .iter()
                .map(|a| {
                    let d: Vec<String> = (0..n as usize)
                        .filter(|&i| a[i] != got[i])
                        .map(|i| format!("{i}:{}!={}", got[i], a[i]))
                        .collect();
                    d.join(",")
                })
                .collect();
            return Err(format!(
                "round {round}: after recovery the device matches neither the last flush nor any barrier after it (differences from each candidate, sector:got!=allowed: {diffs:?})"
            ));
        }
        dev.check_invariants()
            .map_err(|e| format!("round {round}: invariants after recovery: {e}"))?;
        volatile = got;
    }
    Ok(())
}

/// One random operation, with the model kept in step: `allowed` gains the
/// state a barrier or flush commits (also when a cut interrupts it).
fn step<D: BlockDevice>(
    dev: &mut D,
    rng: &mut Pcg64,
    volatile: &mut [u64],
    allowed: &mut Vec<Vec<u64>>,
    tag: &mut u64,
    flush_pct: u32,
) -> Result<(), FtlError> {
    let ss = dev.sector_size();
    let n = dev.num_sectors();
    let x = rng.gen_range(0..100);
    match x {
        _ if x < flush_pct => {
            let r = dev.flush();
            if r.is_ok() {
                *allowed = vec![volatile.to_vec()];
            } else {
                allowed.push(volatile.to_vec());
            }
            r
        }
        0..=74 => {
            let len = rng.gen_range(1..=4).min(n);
            let lba = rng.gen_range(0..=n - len);
            if dev.epoch_remaining().unwrap() < len {
                let r = dev.epoch_barrier();
                allowed.push(volatile.to_vec());
                return r;
            }
            let mut data = Vec::new();
            let mut tags = Vec::new();
            for _ in 0..len {
                *tag += 1;
                tags.push(*tag);
                data.extend(sector(*tag, ss));
            }
            dev.write(Lba(lba), &data)?;
            volatile[lba as usize..(lba + len) as usize].copy_from_slice(&tags);
            Ok(())
        }
        75..=79 => {
            let lba = rng.gen_range(0..n);
            if dev.epoch_remaining().unwrap() < 1 {
                return Ok(());
            }
            dev.trim(Lba(lba), 1)?;
            volatile[lba as usize] = 0;
            Ok(())
        }
        _ => {
            let r = dev.epoch_barrier();
            allowed.push(volatile.to_vec());
            r
        }
    }
}

fn seeds() -> Vec<u64> {
    match std::env::var("SCFTL_SEED") {
        Ok(s) => vec![s.parse().expect("SCFTL_SEED is a u64")],
        Err(_) => (1..=200).collect(),
    }
}

#[test]
fn a_power_cut_keeps_every_flush_and_a_prefix_of_the_barriers_nand_model() {
    for seed in seeds() {
        if let Err(e) = run::<CrashFlash<MemFlash>>(seed, Mutant::None) {
            panic!("seed {seed}: {e}");
        }
    }
}

#[test]
fn a_power_cut_keeps_every_flush_and_a_prefix_of_the_barriers_image_model() {
    for seed in seeds() {
        if let Err(e) = run::<ImageCrashFlash>(seed, Mutant::None) {
            panic!("seed {seed}: {e}");
        }
    }
}

/// Long rounds: superblocks freed by barriers (no sync) are erased and
/// reused before the cut. A block that a synced state still points into
/// must not be erased before the epoch that freed it is durable; one
/// activated since the last sync may be (recovery drops the epochs whose
/// sectors the erase destroyed, a suffix of the barriers).
#[test]
fn blocks_freed_by_barriers_are_reused_safely_image_model() {
    for seed in seeds().into_iter().take(20) {
        if let Err(e) = run_rounds::<ImageCrashFlash>(seed, Mutant::None, 1000..4000) {
            panic!("seed {seed}: {e}");
        }
    }
}

/// The mutants of the one-sync commit path must each fail some seed.
/// (`skip-fallback-checkpoint` is not among them: on an image every `open`
/// starts a new generation anyway, and the NAND model catches it —
/// crashcheck's tests/mutants.rs. `keep-generation-on-image-open`, which
/// needs two cuts around a reprogrammed page, has its test in crashcheck's
/// tests/oob_commit_mutants.rs.)
#[test]
fn the_commit_path_mutants_are_caught_on_the_image_model() {
    for m in [
        Mutant::AcceptEpochDigestMismatch,
        Mutant::SkipSyncBeforeCommit,
    ] {
        let caught = (1..=400).find(|&s| run::<ImageCrashFlash>(s, m).is_err());
        assert!(caught.is_some(), "{} was not caught", m.name());
    }
}

#[test]
fn a_flush_costs_one_sync_and_a_barrier_none() {
    let g = Geometry::small();
    let flash = SharedFlash::new(MemFlash::new(g).unwrap());
    let mut dev = Scftl::format(flash.clone(), ScftlConfig::default_for(&g)).unwrap();
    let ss = dev.sector_size();
    let syncs = |_: &Scftl<SharedFlash<MemFlash>>| flash.with(|f| f.counters().syncs);
    let mut lba = 0;
    let mut write = |d: &mut Scftl<SharedFlash<MemFlash>>| {
        d.write(Lba(lba), &vec![7u8; 4 * ss]).unwrap();
        lba += 4;
    };
    write(&mut dev);
    let before = syncs(&dev);
    dev.flush().unwrap();
    assert_eq!(syncs(&dev) - before, 1, "a flush syncs once");
    for i in 1..=3 {
        write(&mut dev);
        let before = syncs(&dev);
        dev.epoch_barrier().unwrap();
        assert_eq!(syncs(&dev) - before, 0, "barrier {i} does not sync");
    }
    // The fourth unsynced epoch in a row is made durable.
    write(&mut dev);
    let before = syncs(&dev);
    dev.epoch_barrier().unwrap();
    assert_eq!(syncs(&dev) - before, 1);
    // A flush with nothing new still makes pending barriers durable.
    write(&mut dev);
    dev.epoch_barrier().unwrap();
    let before = syncs(&dev);
    dev.flush().unwrap();
    assert_eq!(syncs(&dev) - before, 1);
}

/// A NAND flash whose power the short-region tests cut.
type Cut = SharedFlash<CrashFlash<MemFlash>>;

/// Runs `op` (the `what` under test) with a power cut armed right after
/// its first erase, and checks that the cut came inside it, after an
/// erase.
fn cut_after_first_erase<T>(crash: &Cut, what: &str, op: impl FnOnce() -> ftl::Result<T>) {
    let erases = crash.with(|f| f.erases_issued());
    crash.with(|f| f.set_crash_after_erase(1));
    assert!(op().is_err(), "the power cut comes inside the {what}");
    assert!(
        crash.with(|f| f.erases_issued()) > erases,
        "the {what} erased"
    );
}

/// After the cut, nothing in flight applied, the reopened device reads
/// `tag` at `lba`: the `what`'s epoch was durable before its checkpoint's
/// first erase.
fn assert_survives_cut(crash: &Cut, lba: Lba, tag: u8, what: &str) {
    crash.with(|f| {
        f.crash(
            flash::CrashPolicy::NoneApplied,
            &mut Pcg64::seed_from_u64(0),
        )
        .unwrap()
    });
    let mut dev = Scftl::open(crash.clone()).unwrap();
    let mut buf = vec![0; dev.sector_size()];
    dev.read(lba, &mut buf).unwrap();
    assert!(
        buf.iter().all(|&b| b == tag),
        "the {what}'s epoch was durable before its checkpoint erased: sector {} reads {:?}…, not {tag}",
        lba.0,
        &buf[..8]
    );
}

/// The run of [`a_barrier_that_leaves_the_region_short_commits_durably`]:
/// one sector per epoch, three barriers then a flush per round (so no
/// barrier is the forced fourth). `barrier(dev, k)` takes the place of the
/// `k`-th barrier (counted from 1) and says whether to stop there. Returns
/// `k`, and the sector that barrier's epoch wrote with its tag.
fn short_region_run<F: Flash>(
    dev: &mut Scftl<F>,
    mut barrier: impl FnMut(&mut Scftl<F>, u64) -> bool,
) -> (u64, Lba, u8) {
    let ss = dev.sector_size();
    let n = dev.num_sectors();
    let mut lba = 0;
    let mut k = 0;
    for round in 1..=200u8 {
        for _ in 1..=3 {
            let at = Lba(lba % n);
            dev.write(at, &vec![round; ss]).unwrap();
            lba += 1;
            k += 1;
            if barrier(dev, k) {
                return (k, at, round);
            }
        }
        dev.write(Lba(lba % n), &vec![round; ss]).unwrap();
        lba += 1;
        dev.flush().unwrap();
    }
    panic!("no barrier below MAX_UNSYNCED_EPOCHS took a full checkpoint in 200 rounds");
}

/// A barrier below `MAX_UNSYNCED_EPOCHS` that would leave the delta region
/// with fewer than epoch_pages_max + 1 pages ends in a full checkpoint
/// (`after_commit`, as a flush does). It commits durably first — one SYNC,
/// then the checkpoint, as the barrier at `MAX_UNSYNCED_EPOCHS` does — so
/// that it is the proofs' forced barrier (PU's `FlOk`), not an ordered
/// commit that the checkpoint then syncs (a step the proven model does not
/// have). Checked where it shows: a power cut right after the barrier's
/// first erase (the checkpoint's), nothing in flight applied, keeps the
/// barrier's epoch.
#[test]
fn a_barrier_that_leaves_the_region_short_commits_durably() {
    let g = Geometry::tiny();
    let flash = SharedFlash::new(MemFlash::new(g).unwrap());
    let mut dev = Scftl::format(flash.clone(), ScftlConfig::default_for(&g)).unwrap();
    let syncs = || flash.with(|f| f.counters().syncs);
    let (stop, _, _) = short_region_run(&mut dev, |d, _| {
        let (ck, sy) = (d.stats().full_checkpoints, syncs());
        d.epoch_barrier().unwrap();
        if d.stats().full_checkpoints > ck {
            assert!(syncs() > sy, "the barrier's full checkpoint syncs");
            return true;
        }
        assert_eq!(syncs(), sy, "a barrier without a checkpoint does not sync");
        false
    });
    // The same run with a power cut right after that barrier's first erase.
    let crash = SharedFlash::new(CrashFlash::new(MemFlash::new(g).unwrap()));
    let mut dev = Scftl::format(crash.clone(), ScftlConfig::default_for(&g)).unwrap();
    let (_, lba, tag) = short_region_run(&mut dev, |d, k| {
        if k < stop {
            d.epoch_barrier().unwrap();
            return false;
        }
        cut_after_first_erase(&crash, "barrier", || d.epoch_barrier());
        true
    });
    drop(dev);
    assert_survives_cut(&crash, lba, tag, "barrier");
}

/// The run of [`a_detached_flush_that_leaves_the_region_short_syncs_first`]:
/// one sector per epoch, each ended by a detached flush (the write
/// pipeline's, `begin_flush`; a ticket it hands out is waited on and
/// finished at once). `flush(dev, k)` takes the place of the `k`-th flush
/// and says whether to stop there. Returns `k`, and the sector that
/// flush's epoch wrote with its tag.
fn detached_run<F: Flash>(
    dev: &mut Scftl<F>,
    mut flush: impl FnMut(&mut Scftl<F>, u64) -> bool,
) -> (u64, Lba, u8) {
    let ss = dev.sector_size();
    let n = dev.num_sectors();
    for k in 1..=600u64 {
        let at = Lba(k % n);
        let tag = (k % 250) as u8 + 1;
        dev.write(at, &vec![tag; ss]).unwrap();
        if flush(dev, k) {
            return (k, at, tag);
        }
    }
    panic!("no detached flush took a full checkpoint in 600 epochs");
}

/// A detached flush, whose sync is the caller's, that leaves the delta
/// region short ends in a full checkpoint too; it syncs before it (its
/// commit, then the checkpoint, as a durable flush does) rather than let
/// the checkpoint's SYNCs make its commit durable — the debug assertion
/// in `after_commit` refuses the latter. A power cut right after that
/// flush's first erase (the checkpoint's), nothing in flight applied,
/// keeps its epoch.
#[test]
fn a_detached_flush_that_leaves_the_region_short_syncs_first() {
    let g = Geometry::tiny();
    fn finish<F: Flash>(d: &mut Scftl<F>) {
        match d.begin_flush().unwrap() {
            ftl::FlushStep::Done => {}
            ftl::FlushStep::Ticket(mut t) => {
                let waited = t.wait();
                d.finish_flush(t, waited).unwrap();
            }
        }
    }
    let flash = SharedFlash::new(MemFlash::new(g).unwrap());
    let mut dev = Scftl::format(flash.clone(), ScftlConfig::default_for(&g)).unwrap();
    let (stop, _, _) = detached_run(&mut dev, |d, _| {
        let ck = d.stats().full_checkpoints;
        finish(d);
        d.stats().full_checkpoints > ck
    });
    let crash = SharedFlash::new(CrashFlash::new(MemFlash::new(g).unwrap()));
    let mut dev = Scftl::format(crash.clone(), ScftlConfig::default_for(&g)).unwrap();
    let (_, lba, tag) = detached_run(&mut dev, |d, k| {
        if k < stop {
            finish(d);
            return false;
        }
        cut_after_first_erase(&crash, "flush", || d.begin_flush());
        true
    });
    drop(dev);
    assert_survives_cut(&crash, lba, tag, "flush");
}
