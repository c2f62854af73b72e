//! OPTR without power cuts: data survives a clean reopen, a request larger
//! than the maximum is refused and changes nothing, mutants of other FTLs
//! are refused, and a device filled to its logical size never refuses a
//! write for lack of space.

use flash::{Geometry, MemFlash};
use ftl::optr::{Optr, OptrConfig};
use ftl::{BlockDevice, FtlError, Lba, Mutant};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

#[test]
fn data_survives_reopen_and_oversized_requests_are_refused() {
    let g = Geometry::small();
    let cfg = OptrConfig::default_for(&g);
    let mut d = Optr::format(MemFlash::new(g).unwrap(), cfg).unwrap();
    let ss = d.sector_size();
    let max = d.max_request_sectors();
    assert_eq!(BlockDevice::max_request_sectors(&d), Some(max));
    assert_eq!(d.epoch_remaining(), None);
    d.write(Lba(0), &vec![7u8; ss * 3]).unwrap();
    let e = d
        .write(Lba(0), &vec![9u8; ss * (max as usize + 1)])
        .unwrap_err();
    assert!(matches!(e, FtlError::BadArgument(_)), "{e}");
    assert!(e.to_string().contains("maximum request"), "{e}");
    d.trim(Lba(1), 1).unwrap();
    d.flush().unwrap();
    d.check_invariants().unwrap();
    let mut d = Optr::open(d.into_flash()).unwrap();
    d.check_invariants().unwrap();
    let mut buf = vec![0u8; ss * 3];
    d.read(Lba(0), &mut buf).unwrap();
    assert!(buf[..ss].iter().all(|&b| b == 7));
    assert!(buf[ss..2 * ss].iter().all(|&b| b == 0));
    assert!(buf[2 * ss..].iter().all(|&b| b == 7));
    assert_eq!(d.stats().valid_sectors, 2);
}

#[test]
fn mutants_of_other_ftls_are_refused() {
    let g = Geometry::tiny();
    let r = Optr::format_with_mutant(
        MemFlash::new(g).unwrap(),
        OptrConfig::default_for(&g),
        Mutant::SkipSyncBeforeCommit,
    );
    assert!(matches!(r, Err(FtlError::BadArgument(_))));
}

/// Random overwrites, trims, flushes and clean reopens on `cfg`, checked
/// against a model; every request must succeed.
fn never_out_of_space(g: Geometry, cfg: OptrConfig, seed: u64, requests: u32) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut d = Optr::format(MemFlash::new(g).unwrap(), cfg).unwrap();
    let ss = d.sector_size();
    let n = d.num_sectors();
    let max = d.max_request_sectors().min(n);
    let mut model = vec![0u8; n as usize];
    for i in 0..requests {
        let len = rng.gen_range(1..=max.min(8));
        let lba = rng.gen_range(0..=n - len);
        let at = |d: &Optr<MemFlash>| format!("seed {seed}, request {i}, {:?}", d.stats());
        match rng.gen_range(0..100) {
            0..=84 => {
                let tag = rng.gen_range(1..=255u8);
                d.write(Lba(lba), &vec![tag; ss * len as usize])
                    .unwrap_or_else(|e| panic!("write {lba}+{len}: {e} ({})", at(&d)));
                model[lba as usize..(lba + len) as usize].fill(tag);
            }
            85..=89 => {
                d.trim(Lba(lba), len)
                    .unwrap_or_else(|e| panic!("trim {lba}+{len}: {e} ({})", at(&d)));
                model[lba as usize..(lba + len) as usize].fill(0);
            }
            90..=98 => d.flush().unwrap(),
            _ => {
                d.flush().unwrap();
                d = Optr::open(d.into_flash()).unwrap();
            }
        }
    }
    d.check_invariants().unwrap();
    let mut buf = vec![0u8; ss];
    for (lpn, &tag) in model.iter().enumerate() {
        d.read(Lba(lpn as u64), &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == tag), "sector {lpn}");
    }
}

/// Regression (issue 12): on tiny, GC stopped after two batches of at most
/// two victims and the next write failed with "only 6 free segments after
/// GC, 7 needed". GC now runs until the headroom is free.
#[test]
fn a_full_device_never_refuses_a_write_for_space() {
    let g = Geometry::tiny();
    let mut full = OptrConfig::default_for(&g);
    full.logical_sectors = full.plan(&g).unwrap().max_logical_sectors();
    for seed in 0..3 {
        never_out_of_space(g, OptrConfig::default_for(&g), seed, 20_000);
        never_out_of_space(g, full.clone(), seed, 20_000);
    }
}

/// Writes `rounds` x 8 sectors of distinct tags round-robin, flushing every
/// 8; returns the model.
fn churn(d: &mut Optr<MemFlash>, rounds: u64, seed: u64) -> Vec<u8> {
    let ss = d.sector_size();
    let n = d.num_sectors();
    let mut model = vec![0u8; n as usize];
    let mut rng = Pcg64::seed_from_u64(seed);
    for i in 0..rounds * 8 {
        let lba = rng.gen_range(0..n);
        let tag = rng.gen_range(1..=255u8);
        d.write(Lba(lba), &vec![tag; ss]).unwrap();
        model[lba as usize] = tag;
        if i % 8 == 7 {
            d.flush().unwrap();
        }
    }
    d.flush().unwrap();
    model
}

fn assert_model(d: &mut Optr<MemFlash>, model: &[u8]) {
    let mut buf = vec![0u8; d.sector_size()];
    for (lpn, &tag) in model.iter().enumerate() {
        d.read(Lba(lpn as u64), &mut buf).unwrap();
        assert!(buf.iter().all(|&b| b == tag), "sector {lpn}");
    }
}

/// Between full checkpoints the device takes incremental ones, and a
/// reopen (without the fencing checkpoint of a clean close) recovers
/// through them.
#[test]
fn incremental_checkpoints_are_taken_and_recovered() {
    let g = Geometry::tiny();
    let cfg = OptrConfig::default_for(&g);
    assert!(cfg.incremental_segments > 0);
    let mut d = Optr::format(MemFlash::new(g).unwrap(), cfg).unwrap();
    let model = churn(&mut d, 300, 1);
    let s = d.stats();
    let o = ftl::optr::OptrStats::from_counters(&s.ftl_counters).unwrap();
    assert!(o.incremental_checkpoints > 0, "{o:?}");
    // Format's checkpoint plus at least one taken when the region filled.
    assert!(s.full_checkpoints >= 2, "{s:?}");
    d.check_invariants().unwrap();
    let mut d = Optr::open(d.into_flash()).unwrap();
    d.check_invariants().unwrap();
    assert_model(&mut d, &model);
}

/// A version-1 image (label configuration of 36 bytes, no incremental
/// region) opens with this build and keeps taking full checkpoints only.
#[test]
fn a_version_1_image_opens_and_takes_full_checkpoints_only() {
    let g = Geometry::tiny();
    let mut cfg = OptrConfig::default_for(&g);
    cfg.incremental_segments = 0;
    let mut d = Optr::format(MemFlash::new(g).unwrap(), cfg.clone()).unwrap();
    let model = churn(&mut d, 50, 2);
    let mut flash = d.into_flash();
    // Rewrite the label as the version-1 build wrote it.
    let mut v1 = cfg.encode();
    v1.truncate(ftl::optr::config::CONFIG_LEN_V1);
    ftl::optr::config::encoding::VERSION.put_u32(&mut v1, 1);
    ftl::label::clear_label(&mut flash).unwrap();
    ftl::label::write_label(&mut flash, ftl::FtlKind::Optr, &v1).unwrap();
    let mut d = Optr::open(flash).unwrap();
    assert_eq!(d.config(), &cfg);
    assert_model(&mut d, &model);
    let before = d.stats().full_checkpoints;
    let model = churn(&mut d, 200, 3);
    let s = d.stats();
    assert!(s.full_checkpoints > before, "{s:?}");
    assert_eq!(
        ftl::optr::OptrStats::from_counters(&s.ftl_counters)
            .unwrap()
            .incremental_checkpoints,
        0
    );
    let mut d = Optr::open(d.into_flash()).unwrap();
    assert_model(&mut d, &model);
    let (_, label) = ftl::label::read_label(&mut d.into_flash()).unwrap();
    assert_eq!(label, v1, "the label stays version 1");
}
